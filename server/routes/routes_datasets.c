/*
 * routes_datasets.c -- uploaded datasets: content-addressed files that job
 * specs name by id -- ratings ({"source": "dataset", "id"} of matrix
 * completion), matrices and vectors (least squares and logistic
 * regression: "id", "b_id", "A_val_id", "b_val_id"); the spec parser
 * reads them through jobs/datasets.c.
 *
 * An upload arrives in a temporary file (upload.c), is checked whole by
 * api_dataset_check (NumPy files in bounded memory, text files by the
 * library's readers within the requests' budget), and is kept under its
 * SHA-256: ratings in the store (with a copy in <data-dir>/datasets/, as
 * before), matrices and vectors as <data-dir>/datasets/<id> alone, which
 * jobs read memory-mapped or straight into their arrays.  Whatever is
 * refused leaves nothing behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dataset.h"
#include "jobs/jobs.h"
#include "routes/routes.h"
#include "spec.h"

/* SQLite's largest blob (SQLITE_MAX_LENGTH): ratings are kept in the store. */
#define STORE_BLOB_MAX 1000000000

static cJSON *dataset_json(const store_dataset *ds, const api_dataset_meta *m)
{
    char ts[40];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", ds->id);
    cJSON_AddStringToObject(o, "kind", ds->kind[0] ? ds->kind : "ratings");
    cJSON_AddStringToObject(o, "format", m && m->format[0] ? m->format : ds->format);
    cJSON_AddNumberToObject(o, "n_rows", m ? (double)m->rows : 0);
    cJSON_AddNumberToObject(o, "n_cols", m ? (double)m->cols : 0);
    cJSON_AddNumberToObject(o, "nnz", m ? (double)m->nnz : 0);
    cJSON_AddBoolToObject(o, "sparse", m && m->sparse);
    cJSON_AddBoolToObject(o, "labels", m && m->labels);
    if (m && m->memory > 0)
        cJSON_AddNumberToObject(o, "memory_bytes", (double)m->memory);
    cJSON_AddNumberToObject(o, "bytes", (double)ds->bytes);
    cJSON_AddStringToObject(o, "created_at", srv_time_rfc3339(ts, ds->created_at));
    return o;
}

/* What a stored dataset holds: its meta, or (ratings stored before
 * datasets had one) its ratings parsed.  0, or -1. */
static int meta_of(store *st, const store_dataset *ds, api_dataset_meta *m)
{
    ircg_ratings *R = NULL;
    ircg_diag diag = {0};
    if (api_dataset_meta_parse(ds->meta, m) == 0)
        return 0;
    memset(m, 0, sizeof *m);
    if (srv_dataset_resolve(st, ds->id, &R, &diag) != IRCG_OK)
        return -1;
    snprintf(m->kind, sizeof m->kind, "ratings");
    snprintf(m->format, sizeof m->format, "%.15s", ds->format);
    m->rows = R->n_rows;
    m->cols = R->n_cols;
    m->nnz = R->nnz;
    m->memory = 16 * R->nnz;
    ircg_ratings_free(R);
    return 0;
}

/* The reader's memory against the requests' budget (api_reserve_fn). */
typedef struct reserve_ctx {
    srv_req *r;
    int64_t bytes;
    int over;            /* more than the whole budget: never possible */
} reserve_ctx;

static int reserve(void *user, int64_t bytes)
{
    reserve_ctx *x = user;
    x->bytes = bytes;
    x->over = bytes > srv.cfg.max_job_memory;
    return x->over ? -1 : srv_reqmem_take(x->r, bytes);
}

static void refuse_data(srv_req *r, const api_read_error *e)
{
    /* the reader's message already starts with "line N: " or "offset N: " */
    cJSON *p = srv_problem_new(r, MHD_HTTP_UNPROCESSABLE_CONTENT, "invalid-dataset",
                               "Invalid dataset", e->message);
    if (e->line > 0)
        cJSON_AddNumberToObject(p, "line", (double)e->line);
    if (e->offset >= 0)
        cJSON_AddNumberToObject(p, "offset", (double)e->offset);
    srv_problem_send(r, MHD_HTTP_UNPROCESSABLE_CONTENT, p);
}

static void over_budget(srv_req *r, int64_t bytes, const char *what)
{
    srv_problem(r, MHD_HTTP_UNPROCESSABLE_CONTENT, "dataset-over-budget", "Dataset over budget",
                "%s %.0f MB, more than the budget of %.0f MB a job (--max-job-memory)%s", what,
                (double)bytes / 1e6, (double)srv.cfg.max_job_memory / 1e6,
                strstr(what, "pars") ? "; a NumPy file (.npy, .npz) is checked in bounded "
                                       "memory"
                                     : "");
}

/* The checks api_dataset_check makes; 0 when the dataset may be kept. */
static int check(srv_req *r, const srv_upload *u, api_dataset_meta *m)
{
    api_read_error e;
    reserve_ctx x = {r, 0, 0};
    api_check_rc rc = api_dataset_check(u->path, srv_req_query(r, "kind"),
                                        srv_req_query(r, "format"), reserve, &x, m, &e);
    if (rc == API_CHECK_INVALID) {
        srv_problem_member(r, MHD_HTTP_BAD_REQUEST, "invalid-parameter", "Invalid parameter",
                           strstr(e.message, "kind") == e.message ? "/query/kind"
                                                                  : "/query/format",
                           e.message);
    } else if (rc == API_CHECK_BAD_DATA) {
        refuse_data(r, &e);
    } else if (rc == API_CHECK_REFUSED && x.over) {
        over_budget(r, x.bytes, "parsing this file holds up to");
    } else if (rc == API_CHECK_REFUSED) {
        srv_reqmem_refuse(r, x.bytes);
    } else if (rc != API_CHECK_OK) {
        srv_problem_internal(r, e.message);
    } else if (2 * m->memory > srv.cfg.max_job_memory) {
        /* a job holds it twice at least: the spec's copy and the problem's */
        over_budget(r, 2 * m->memory, "a job on this dataset holds two copies of it,");
    } else if (!strcmp(m->kind, "ratings") && u->bytes > STORE_BLOB_MAX) {
        srv_problem(r, MHD_HTTP_CONTENT_TOO_LARGE, "payload-too-large", "Payload too large",
                    "ratings are kept in the store, at most %d bytes; put a larger file in "
                    "the data directory and name it by its path", STORE_BLOB_MAX);
    } else {
        return 0;
    }
    return -1;
}

static int fsync_path(const char *path, int dir)
{
    int fd = open(path, (dir ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC);
    int rc = fd >= 0 && fsync(fd) == 0 ? 0 : -1;
    if (fd >= 0)
        close(fd);
    return rc;
}

/* The checked upload kept under id: the row (ratings with their bytes),
 * and the file at its final path.  A failure removes what it made. */
static store_rc keep(srv_req *r, srv_upload *u, const store_dataset *row, store_dataset *ds,
                     int *existed)
{
    char dir[1100], final[1200];
    void *map = NULL;
    store_rc rc;
    srv_datasets_dir(dir, sizeof dir);
    snprintf(final, sizeof final, "%s/%s", dir, row->id);
    if (!strcmp(row->kind, "ratings")) { /* the store holds the bytes */
        map = row->bytes ? mmap(NULL, (size_t)row->bytes, PROT_READ, MAP_PRIVATE, u->fd, 0)
                         : NULL;
        if (map == MAP_FAILED)
            return STORE_ERROR;
        rc = store_dataset_add(r->st, row, map ? map : "", ds, existed);
        munmap(map, (size_t)row->bytes);
        if (rc == STORE_OK && !*existed && rename(u->path, final) == 0)
            u->path[0] = '\0'; /* the copy for operators and file specs */
        return rc;
    }
    if (fsync(u->fd) != 0 || rename(u->path, final) != 0)
        return STORE_ERROR;
    u->path[0] = '\0';
    fsync_path(dir, 1);
    rc = store_dataset_add(r->st, row, NULL, ds, existed);
    if (rc != STORE_OK)
        unlink(final);
    return rc;
}

void srv_route_datasets_post(srv_req *r)
{
    srv_upload *u = srv_upload_take(r);
    api_dataset_meta m;
    store_dataset row, ds;
    uint8_t digest[STORE_SHA256_LEN];
    int existed = 0;
    memset(&row, 0, sizeof row);
    if (!u) {
        srv_problem_internal(r, "the upload was not kept");
    } else if (r->sink_errno) {
        int full = r->sink_errno == ENOSPC || r->sink_errno == EDQUOT;
        srv_problem(r, full ? MHD_HTTP_INSUFFICIENT_STORAGE : MHD_HTTP_INTERNAL_SERVER_ERROR,
                    full ? "data-dir-full" : "internal", full ? "Data directory full"
                                                            : "Internal error",
                    "the upload could not be written to the data directory: %s",
                    strerror(r->sink_errno));
    } else {
        const char *kind = srv_req_query(r, "kind");
        store_sha256_final(&u->sha, digest);
        store_sha256_hex(digest, row.id);
        if (store_dataset_get(r->st, row.id, &ds) == STORE_OK) {
            /* the same bytes again: kept once, checked once */
            existed = 1;
            if (kind && *kind && strcmp(kind, ds.kind[0] ? ds.kind : "ratings") != 0) {
                srv_problem(r, MHD_HTTP_CONFLICT, "dataset-kind-conflict",
                            "Dataset of another kind", "these bytes are dataset %s already, "
                            "uploaded as %s; a dataset has one kind", ds.id, ds.kind);
                srv_upload_free(u);
                return;
            }
        } else if (check(r, u, &m) != 0) {
            srv_upload_free(u);
            return;
        } else {
            char *meta = api_dataset_meta_json(&m);
            snprintf(row.kind, sizeof row.kind, "%s", m.kind);
            snprintf(row.format, sizeof row.format, "%s", m.format);
            snprintf(row.meta, sizeof row.meta, "%s", meta ? meta : "");
            row.bytes = u->bytes;
            free(meta);
            store_rc rc = keep(r, u, &row, &ds, &existed);
            if (rc != STORE_OK) {
                srv_problem_store(r, rc, "store the dataset");
                srv_upload_free(u);
                return;
            }
        }
        int ok = meta_of(r->st, &ds, &m) == 0;
        srv_reply_header(r, MHD_HTTP_HEADER_LOCATION, "/v1/datasets/%s", ds.id);
        srv_reply_json(r, existed ? MHD_HTTP_OK : MHD_HTTP_CREATED,
                       dataset_json(&ds, ok ? &m : NULL));
    }
    srv_upload_free(u);
}

void srv_route_dataset_get(srv_req *r)
{
    store_dataset ds;
    api_dataset_meta m;
    store_rc rc = store_dataset_get(r->st, r->params[0], &ds);
    if (rc == STORE_NOTFOUND || rc == STORE_INVALID) {
        srv_problem(r, MHD_HTTP_NOT_FOUND, "dataset-not-found", "Dataset not found",
                    "no dataset with id \"%s\"", r->params[0]);
    } else if (rc != STORE_OK) {
        srv_problem_store(r, rc, "read the dataset");
    } else {
        int ok = meta_of(r->st, &ds, &m) == 0;
        srv_reply_json(r, MHD_HTTP_OK, dataset_json(&ds, ok ? &m : NULL));
    }
}
