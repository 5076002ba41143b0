/*
 * client_data.c -- what a job produced (trace, result, snapshots), the
 * datasets, and the service endpoints (health, readiness, version, metrics).
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

static const long OK_200[] = {200, 0};

/* GET path expecting 200; the body is taken into *out (and *len). */
static ircg_client_code get_text(ircg_client *c, const char *path, char **out, size_t *len,
                                 cl_resp *keep, ircg_client_error *err)
{
    cl_resp r = {0};
    cl_req rq = {.method = "GET", .path = path};
    ircg_client_code rc = cl_call(c, &rq, OK_200, &r, err);
    if (rc == IRCG_CLIENT_OK && out)
        *out = cl_take_body(&r, len);
    if (keep)
        *keep = r;
    else
        cl_resp_free(&r);
    return rc;
}

/* --------------------------------------------------------------- trace -- */

/* The iteration of the last CSV row, or `after` when there is none (only
 * the header line). */
static int64_t csv_last_t(const char *text, size_t len, int64_t after)
{
    size_t end = len;
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r'))
        end--;
    size_t start = end;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    if (start == 0) /* the header */
        return after;
    char *stop = NULL;
    errno = 0;
    long long t = strtoll(text + start, &stop, 10);
    return errno == 0 && stop != text + start && *stop == ',' ? (int64_t)t : after;
}

ircg_client_code ircg_client_trace(ircg_client *c, const char *id,
                                   ircg_client_trace_format format, int64_t after,
                                   long limit, char **text, size_t *len,
                                   int64_t *next_after, ircg_client_error *err)
{
    char suffix[96], *path = NULL, *body = NULL;
    size_t n = 0;
    ircg_client_code rc = IRCG_CLIENT_OK;
    cl_error_reset(err);
    if (text)
        *text = NULL;
    if (!text || after < 0 || limit < 0)
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0,
                       "text is required; after and limit must be >= 0");
    snprintf(suffix, sizeof suffix, "/trace?format=%s&after=%" PRId64,
             format == IRCG_CLIENT_TRACE_CSV ? "csv" : "json", after);
    if (limit > 0)
        snprintf(suffix + strlen(suffix), sizeof suffix - strlen(suffix), "&limit=%ld", limit);
    if (!(path = cl_job_path(c, id, suffix, err)))
        return !c || !id || !*id ? IRCG_CLIENT_ERR_INVALID : IRCG_CLIENT_ERR_NOMEM;
    if ((rc = get_text(c, path, &body, &n, NULL, err)) != IRCG_CLIENT_OK)
        goto done;
    int64_t next = after;
    if (format == IRCG_CLIENT_TRACE_CSV) {
        next = csv_last_t(body, n, after);
    } else {
        cJSON *doc = cJSON_ParseWithLength(body, n);
        const cJSON *na = cJSON_GetObjectItemCaseSensitive(doc, "next_after");
        if (!cJSON_IsNumber(na))
            rc = cl_fail(err, IRCG_CLIENT_ERR_PROTOCOL, 200,
                         "the trace has no numeric \"next_after\"");
        else
            next = (int64_t)na->valuedouble;
        cJSON_Delete(doc);
    }
    if (rc == IRCG_CLIENT_OK) {
        *text = body;
        body = NULL;
        if (len)
            *len = n;
        if (next_after)
            *next_after = next;
    }
done:
    free(body);
    free(path);
    return rc;
}

/* -------------------------------------------------------------- result -- */

ircg_client_code ircg_client_result(ircg_client *c, const char *id, char **json,
                                    ircg_client_error *err)
{
    cl_error_reset(err);
    if (json)
        *json = NULL;
    if (!json)
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "json is required");
    char *path = cl_job_path(c, id, "/result", err);
    if (!path)
        return !c || !id || !*id ? IRCG_CLIENT_ERR_INVALID : IRCG_CLIENT_ERR_NOMEM;
    ircg_client_code rc = get_text(c, path, json, NULL, NULL, err);
    free(path);
    return rc;
}

/* The body of GET /v1/jobs/{id}<suffix> into *data (malloc'ed), its
 * length into *len. */
static ircg_client_code get_job_bytes(ircg_client *c, const char *id, const char *suffix,
                                      void **data, size_t *len, ircg_client_error *err)
{
    char *path = cl_job_path(c, id, suffix, err);
    if (!path)
        return !c || !id || !*id ? IRCG_CLIENT_ERR_INVALID : IRCG_CLIENT_ERR_NOMEM;
    char *bytes = NULL;
    ircg_client_code rc = get_text(c, path, &bytes, len, NULL, err);
    *data = bytes;
    free(path);
    return rc;
}

ircg_client_code ircg_client_result_npz(ircg_client *c, const char *id, const char *which,
                                        void **data, size_t *len, ircg_client_error *err)
{
    cl_error_reset(err);
    if (data)
        *data = NULL;
    if (!data || !len || !which || (strcmp(which, "x") != 0 && strcmp(which, "z") != 0))
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0,
                       "data, len and which (\"x\" or \"z\") are required");
    return get_job_bytes(c, id, !strcmp(which, "x") ? "/result?x=npz" : "/result?z=npz", data,
                         len, err);
}

/* ----------------------------------------------------------- snapshots -- */

ircg_client_code ircg_client_snapshots(ircg_client *c, const char *id,
                                       ircg_client_snapshot **snaps, size_t *n,
                                       ircg_client_error *err)
{
    cl_resp r = {0};
    cJSON *doc = NULL;
    ircg_client_code rc = IRCG_CLIENT_OK;
    cl_error_reset(err);
    if (!snaps || !n)
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "snaps and n are required");
    *snaps = NULL;
    *n = 0;
    char *path = cl_job_path(c, id, "/snapshots", err);
    if (!path)
        return !c || !id || !*id ? IRCG_CLIENT_ERR_INVALID : IRCG_CLIENT_ERR_NOMEM;
    if ((rc = get_text(c, path, NULL, NULL, &r, err)) != IRCG_CLIENT_OK)
        goto done;
    if (!(doc = cl_parse_object(&r, err))) {
        rc = IRCG_CLIENT_ERR_PROTOCOL;
        goto done;
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "snapshots"), *it = NULL;
    int k = cJSON_GetArraySize(list);
    if (!cJSON_IsArray(list)) {
        rc = cl_fail(err, IRCG_CLIENT_ERR_PROTOCOL, 200, "no \"snapshots\" array");
        goto done;
    }
    if (k > 0 && !(*snaps = calloc((size_t)k, sizeof **snaps))) {
        rc = cl_fail(err, IRCG_CLIENT_ERR_NOMEM, 200, "out of memory");
        goto done;
    }
    cJSON_ArrayForEach(it, list) {
        assert(*snaps && *n < (size_t)k); /* k items: calloc'ed above */
        ircg_client_snapshot *s = &(*snaps)[(*n)++];
        s->iteration = cl_json_int(it, "iteration");
        s->bytes = cl_json_int(it, "bytes");
        cl_json_str(it, "kind", s->kind, sizeof s->kind);
        cl_json_str(it, "created_at", s->created_at, sizeof s->created_at);
    }
done:
    cJSON_Delete(doc);
    cl_resp_free(&r);
    free(path);
    return rc;
}

ircg_client_code ircg_client_snapshot_get(ircg_client *c, const char *id, int64_t iteration,
                                          const char *kind, void **data, size_t *len,
                                          ircg_client_error *err)
{
    char suffix[96];
    cl_error_reset(err);
    if (data)
        *data = NULL;
    if (!data || !len || !kind || !*kind || strpbrk(kind, "/?#%") || strlen(kind) > 32 ||
        iteration < 0)
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0,
                       "data, len, a plain kind and an iteration >= 0 are required");
    snprintf(suffix, sizeof suffix, "/snapshots/%" PRId64 "/%s", iteration, kind);
    return get_job_bytes(c, id, suffix, data, len, err);
}

/* ------------------------------------------------------------ datasets -- */

static ircg_client_code fill_dataset(const cl_resp *r, ircg_client_dataset *ds,
                                     ircg_client_error *err)
{
    cJSON *o = cl_parse_object(r, err);
    if (!o)
        return IRCG_CLIENT_ERR_PROTOCOL;
    if (ds) {
        memset(ds, 0, sizeof *ds);
        cl_json_str(o, "id", ds->id, sizeof ds->id);
        cl_json_str(o, "format", ds->format, sizeof ds->format);
        cl_json_str(o, "kind", ds->kind, sizeof ds->kind);
        ds->sparse = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "sparse"));
        ds->labels = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "labels"));
        cl_json_str(o, "created_at", ds->created_at, sizeof ds->created_at);
        ds->n_rows = (int)cl_json_int(o, "n_rows");
        ds->n_cols = (int)cl_json_int(o, "n_cols");
        ds->nnz = cl_json_int(o, "nnz");
        ds->bytes = cl_json_int(o, "bytes");
        ds->existed = r->status == 200;
    }
    cJSON_Delete(o);
    return IRCG_CLIENT_OK;
}

ircg_client_code ircg_client_dataset_upload(ircg_client *c, const void *data, size_t len,
                                            const char *format, ircg_client_dataset *ds,
                                            ircg_client_error *err)
{
    static const long ok[] = {201, 200, 0};
    char path[96];
    cl_resp r = {0};
    cl_error_reset(err);
    if (!c || (!data && len > 0) ||
        (format && (!*format || strlen(format) > 32 || strpbrk(format, "&#%/? "))))
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0,
                       "client, data and a plain format name (or NULL) are required");
    snprintf(path, sizeof path, "/v1/datasets%s%s", format ? "?format=" : "",
             format ? format : "");
    cl_req rq = {.method = "POST", .path = path, .ctype = "application/octet-stream",
                 .body = data ? data : "", .len = len};
    ircg_client_code rc = cl_call(c, &rq, ok, &r, err);
    if (rc == IRCG_CLIENT_OK)
        rc = fill_dataset(&r, ds, err);
    cl_resp_free(&r);
    return rc;
}

static int plain(const char *s)
{
    return !s || (*s && strlen(s) <= 32 && !strpbrk(s, "&#%/? "));
}

ircg_client_code ircg_client_dataset_upload_file(ircg_client *c, const char *path,
                                                 const char *kind, const char *format,
                                                 ircg_client_dataset *ds,
                                                 ircg_client_error *err)
{
    static const long ok[] = {201, 200, 0};
    char query[128];
    cl_resp r = {0};
    FILE *f = NULL;
    cl_error_reset(err);
    if (!c || !path || !plain(kind) || !plain(format))
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0,
                       "client, path and plain kind and format names (or NULL) are required");
    if (!(f = fopen(path, "rb")) || fseeko(f, 0, SEEK_END) != 0) {
        if (f)
            fclose(f);
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "cannot read %s: %s", path,
                       strerror(errno));
    }
    off_t size = ftello(f);
    rewind(f);
    snprintf(query, sizeof query, "/v1/datasets%s%s%s%s%s", kind || format ? "?" : "",
             kind ? "kind=" : "", kind ? kind : "", kind && format ? "&" : "",
             format ? "format=" : "");
    if (format)
        snprintf(query + strlen(query), sizeof query - strlen(query), "%s", format);
    cl_req rq = {.method = "POST", .path = query, .ctype = "application/octet-stream",
                 .file = f, .len = (size_t)size};
    ircg_client_code rc = cl_call(c, &rq, ok, &r, err);
    fclose(f);
    if (rc == IRCG_CLIENT_OK)
        rc = fill_dataset(&r, ds, err);
    cl_resp_free(&r);
    return rc;
}

ircg_client_code ircg_client_dataset_get(ircg_client *c, const char *id,
                                         ircg_client_dataset *ds, ircg_client_error *err)
{
    cl_resp r = {0};
    cl_error_reset(err);
    if (!c || !id || !*id)
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "client and id are required");
    char *e = cl_escape(c, id);
    size_t n = (e ? strlen(e) : 0) + 16;
    char *path = e ? malloc(n) : NULL;
    ircg_client_code rc = IRCG_CLIENT_OK;
    if (!path) {
        rc = cl_fail(err, IRCG_CLIENT_ERR_NOMEM, 0, "out of memory");
    } else {
        snprintf(path, n, "/v1/datasets/%s", e);
        if ((rc = get_text(c, path, NULL, NULL, &r, err)) == IRCG_CLIENT_OK)
            rc = fill_dataset(&r, ds, err);
        if (ds && rc == IRCG_CLIENT_OK)
            ds->existed = 1;
    }
    cl_resp_free(&r);
    free(path);
    free(e);
    return rc;
}

/* ------------------------------------------------------------- service -- */

ircg_client_code ircg_client_health(ircg_client *c, ircg_client_error *err)
{
    cl_error_reset(err);
    if (!c)
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "client is NULL");
    return get_text(c, "/healthz", NULL, NULL, NULL, err);
}

ircg_client_code ircg_client_ready(ircg_client *c, ircg_client_error *err)
{
    cl_error_reset(err);
    if (!c)
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "client is NULL");
    return get_text(c, "/readyz", NULL, NULL, NULL, err);
}

ircg_client_code ircg_client_version(ircg_client *c, char **json, ircg_client_error *err)
{
    cl_error_reset(err);
    if (json)
        *json = NULL;
    if (!c || !json)
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "client and json are required");
    return get_text(c, "/v1/version", json, NULL, NULL, err);
}

ircg_client_code ircg_client_metrics(ircg_client *c, char **text, ircg_client_error *err)
{
    cl_error_reset(err);
    if (text)
        *text = NULL;
    if (!c || !text)
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "client and text are required");
    return get_text(c, "/metrics", text, NULL, NULL, err);
}
