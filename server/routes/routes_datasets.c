/*
 * routes_datasets.c -- uploaded datasets: content-addressed ratings that
 * job specs name by id ({"source": "dataset", "id": ...}); the spec parser
 * reads them through jobs/datasets.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobs/jobs.h"
#include "routes/routes.h"
#include "spec.h"

static cJSON *dataset_json(const store_dataset *ds, const ircg_ratings *R)
{
    char ts[40];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", ds->id);
    cJSON_AddStringToObject(o, "format", ds->format);
    cJSON_AddNumberToObject(o, "n_rows", R ? R->n_rows : 0);
    cJSON_AddNumberToObject(o, "n_cols", R ? R->n_cols : 0);
    cJSON_AddNumberToObject(o, "nnz", R ? (double)R->nnz : 0);
    cJSON_AddNumberToObject(o, "bytes", (double)ds->bytes);
    cJSON_AddStringToObject(o, "created_at", srv_time_rfc3339(ts, ds->created_at));
    return o;
}

/* A copy in <data-dir>/datasets/<sha256> for operators and file specs;
 * the store keeps the authoritative bytes, so a failure is only logged. */
static void copy_to_data_dir(store *st, const char *id)
{
    char dir[1200], path[1300];
    snprintf(dir, sizeof dir, "%s/datasets", srv.cfg.data_dir);
    snprintf(path, sizeof path, "%s/%s", dir, id);
    if ((mkdir(dir, 0700) != 0 && errno != EEXIST) ||
        store_dataset_write_file(st, id, path) != STORE_OK)
        srv_log("could not copy dataset %s to %s", id, path);
}

void srv_route_datasets_post(srv_req *r)
{
    const char *fq = srv_req_query(r, "format");
    ircg_read_options opt = {0};
    ircg_ratings *R = NULL;
    ircg_diag diag = {0};
    store_dataset ds;
    int existed = 0;
    /* the ratings read (16 bytes an entry of at least 6 bytes of text)
     * and the duplicate check's sort as much again, held in flight */
    int64_t parse = (int64_t)r->body.len * 32 / 6;
    if (srv_reqmem_take(r, parse) != 0) {
        srv_reqmem_refuse(r, parse);
    } else if (fq && !api_format_parse(fq, &opt.format)) {
        srv_problem_member(r, MHD_HTTP_BAD_REQUEST, "invalid-parameter", "Invalid parameter",
                           "/query/format", "must be movielens, udata, csv, matrix_market or auto");
    } else if (r->body.len == 0) {
        srv_problem_member(r, MHD_HTTP_UNPROCESSABLE_CONTENT, "invalid-dataset",
                           "Invalid dataset", "", "the body is empty");
    } else if (ircg_ratings_read_buffer(r->body.p, r->body.len, &opt, &R, &diag) != IRCG_OK) {
        /* the reader's message already starts with "line N: " */
        cJSON *p = srv_problem_new(r, MHD_HTTP_UNPROCESSABLE_CONTENT, "invalid-dataset",
                                   "Invalid dataset", diag.message);
        cJSON_AddNumberToObject(p, "line", (double)diag.line);
        srv_problem_send(r, MHD_HTTP_UNPROCESSABLE_CONTENT, p);
    } else {
        /* the format the reader used: the stored tag names the real one */
        store_rc rc = store_dataset_put(r->st, r->body.p, r->body.len,
                                        api_format_name(R->format), NULL, &ds, &existed);
        if (rc != STORE_OK) {
            srv_problem_store(r, rc, "store the dataset");
        } else {
            if (!existed)
                copy_to_data_dir(r->st, ds.id);
            srv_reply_header(r, MHD_HTTP_HEADER_LOCATION, "/v1/datasets/%s", ds.id);
            srv_reply_json(r, existed ? MHD_HTTP_OK : MHD_HTTP_CREATED, dataset_json(&ds, R));
        }
    }
    ircg_ratings_free(R);
}

void srv_route_dataset_get(srv_req *r)
{
    store_dataset ds;
    ircg_ratings *R = NULL;
    ircg_diag diag = {0};
    store_rc rc = store_dataset_get(r->st, r->params[0], &ds);
    if (rc == STORE_NOTFOUND || rc == STORE_INVALID) {
        srv_problem(r, MHD_HTTP_NOT_FOUND, "dataset-not-found", "Dataset not found",
                    "no dataset with id \"%s\"", r->params[0]);
    } else if (rc != STORE_OK) {
        srv_problem_store(r, rc, "read the dataset");
    } else {
        srv_dataset_resolve(r->st, ds.id, &R, &diag);
        srv_reply_json(r, MHD_HTTP_OK, dataset_json(&ds, R));
    }
    ircg_ratings_free(R);
}
