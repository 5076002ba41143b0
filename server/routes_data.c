/*
 * routes_data.c -- what a job produced (trace, result, snapshots) and the
 * uploaded datasets jobs can refer to.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "http.h"
#include "result.h"
#include "spec.h"

/* ------------------------------------------------------------- trace -- */

static ircg_iter_info row_to_info(const store_trace_row *row)
{
    ircg_iter_info it = {
        .t = row->iteration, .elapsed = row->elapsed, .sigma = row->sigma,
        .alpha = row->alpha, .g_x = row->g_x, .f_x = row->f_x, .g_z = row->g_z,
        .f_z = row->f_z, .gap = row->gap, .g_gap_x = row->g_gap_x,
        .g_gap_z = row->g_gap_z, .lmo_seconds = row->lmo_seconds,
        .lmo_matvecs = row->lmo_matvecs, .top_sv = row->top_sv, .rank = row->rank,
        .lmo_converged = row->lmo_converged, .backtracks = row->backtracks,
        .proj_full = row->proj_full, .lambda = row->lambda,
    };
    return it;
}

static int wants_csv(srv_req *r)
{
    const char *f = srv_req_query(r, "format");
    const char *acc = srv_req_header(r, MHD_HTTP_HEADER_ACCEPT);
    if (f)
        return !strcasecmp(f, "csv");
    return acc && strstr(acc, "text/csv") != NULL;
}

/* ?after=ITER&limit=N; 0 after replying 400. */
static int trace_params(srv_req *r, long long *after, long *limit)
{
    const char *a = srv_req_query(r, "after");
    const char *l = srv_req_query(r, "limit");
    const char *bad = NULL, *why = NULL;
    char *end = NULL;
    *after = 0;
    *limit = 10000;
    if (a && *a && ((*after = strtoll(a, &end, 10)) < 0 || *end))
        bad = "/query/after", why = "must be a non-negative iteration";
    else if (l && *l && ((*limit = strtol(l, &end, 10)) < 1 || *limit > 100000 || *end))
        bad = "/query/limit", why = "must be an integer in [1, 100000]";
    if (bad)
        srv_problem_member(r, MHD_HTTP_BAD_REQUEST, "invalid-parameter",
                           "Invalid parameter", bad, why);
    return bad == NULL;
}

/* The page as CSV or JSON; NULL when out of memory or when a row does not
 * fit the line buffer (never a page with rows silently missing). */
static char *trace_text(const store_trace_row *rows, size_t n, int csv,
                        long long after, size_t *len)
{
    api_buf b = {0};
    char line[2048];
    if (csv)
        api_buf_add(&b, API_TRACE_CSV_HEADER, strlen(API_TRACE_CSV_HEADER));
    else
        api_buf_add(&b, "{\"rows\":[", 9);
    for (size_t i = 0; i < n; i++) {
        ircg_iter_info it = row_to_info(&rows[i]);
        int k = csv ? api_trace_csv_row(line, sizeof line, &it)
                    : api_trace_json_row(line, sizeof line, &it);
        if (k <= 0 || (size_t)k >= sizeof line) {
            api_buf_free(&b);
            return NULL;
        }
        if (!csv && line[k - 1] == '\n') /* JSON lines -> array items */
            k--;
        if (!csv && i > 0)
            api_buf_add(&b, ",", 1);
        api_buf_add(&b, line, (size_t)k);
    }
    if (!csv)
        api_buf_printf(&b, "],\"next_after\":%lld}\n",
                       n > 0 ? (long long)rows[n - 1].iteration : after);
    *len = b.len;
    return api_buf_take(&b);
}

/* The cursor of the next page for both formats (CSV has no room for it in
 * the body): X-Next-After always -- pass it back as ?after= --, and a Link
 * rel="next" when the page is full, i.e. when more rows may follow. */
static void page_links(srv_req *r, const char *id, long long next, long limit,
                       int full, int csv)
{
    srv_reply_header(r, "X-Next-After", "%lld", next);
    if (full)
        srv_reply_header(r, "Link", "</v1/jobs/%s/trace?after=%lld&limit=%ld%s>; rel=\"next\"",
                         id, next, limit, csv ? "&format=csv" : "");
}

void srv_route_job_trace(srv_req *r)
{
    long long after = 0;
    long limit = 0;
    store_job j = {0};
    store_trace_row *rows = NULL;
    size_t n = 0, len = 0;
    store_rc rc = store_job_get(r->st, r->params[0], &j);
    if (rc != STORE_OK) {
        srv_problem_job(r, rc);
    } else if (trace_params(r, &after, &limit)) {
        if ((rc = store_trace_read(r->st, j.id, after, (size_t)limit, &rows, &n)) != STORE_OK) {
            srv_problem_store(r, rc, "read the trace");
        } else {
            int csv = wants_csv(r);
            char *text = trace_text(rows, n, csv, after, &len);
            if (text) {
                page_links(r, j.id, n > 0 ? (long long)rows[n - 1].iteration : after, limit,
                           (size_t)limit == n, csv);
                srv_reply(r, MHD_HTTP_OK, csv ? "text/csv" : "application/json", text, len);
            }
            else
                srv_problem_internal(r, "cannot format the trace");
        }
    }
    free(rows);
    store_job_clear(&j);
}

/* ------------------------------------------------------------ result -- */

void srv_route_job_result(srv_req *r)
{
    store_job j = {0};
    store_rc rc = store_job_get(r->st, r->params[0], &j);
    if (rc != STORE_OK) {
        srv_problem_job(r, rc);
    } else if (!store_state_terminal(j.state)) {
        cJSON *p = srv_problem_new(r, MHD_HTTP_CONFLICT, "job-not-finished",
                                   "Job not finished", "the job has no result yet");
        cJSON_AddStringToObject(p, "state", store_state_name(j.state));
        srv_reply_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
        srv_problem_send(r, MHD_HTTP_CONFLICT, p);
    } else if (j.result_json) {
        srv_reply(r, MHD_HTTP_OK, "application/json", j.result_json,
                  strlen(j.result_json));
        j.result_json = NULL; /* ownership moved to the response */
    } else {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "state", store_state_name(j.state));
        cJSON_AddItemToObject(o, "error", j.error_json ? cJSON_Parse(j.error_json)
                                                       : cJSON_CreateNull());
        srv_reply_json(r, MHD_HTTP_OK, o);
    }
    store_job_clear(&j);
}

/* --------------------------------------------------------- snapshots -- */

void srv_route_job_snapshots(srv_req *r)
{
    store_job j = {0};
    store_snapshot_info *s = NULL;
    size_t n = 0;
    store_rc rc = store_job_get(r->st, r->params[0], &j);
    if (rc != STORE_OK) {
        srv_problem_job(r, rc);
    } else if ((rc = store_snapshot_list(r->st, j.id, &s, &n)) != STORE_OK) {
        srv_problem_store(r, rc, "list the snapshots");
    } else {
        cJSON *doc = cJSON_CreateObject();
        cJSON *arr = cJSON_AddArrayToObject(doc, "snapshots");
        char href[200], ts[40];
        for (size_t i = 0; arr && i < n; i++) {
            cJSON *o = cJSON_CreateObject();
            const char *kind = store_snap_kind_name(s[i].kind);
            cJSON_AddNumberToObject(o, "iteration", (double)s[i].iteration);
            cJSON_AddStringToObject(o, "kind", kind);
            cJSON_AddNumberToObject(o, "bytes", (double)s[i].bytes);
            cJSON_AddStringToObject(o, "created_at", srv_time_rfc3339(ts, s[i].created_at));
            snprintf(href, sizeof href, "/v1/jobs/%s/snapshots/%lld/%s", j.id,
                     (long long)s[i].iteration, kind);
            cJSON_AddStringToObject(o, "href", href);
            cJSON_AddItemToArray(arr, o);
        }
        srv_reply_json(r, MHD_HTTP_OK, doc);
    }
    free(s);
    store_job_clear(&j);
}

void srv_route_job_snapshot_get(srv_req *r)
{
    char *end = NULL;
    long long iter = strtoll(r->params[1], &end, 10);
    store_snap_kind kind;
    void *data = NULL;
    size_t len = 0;
    store_rc rc = STORE_NOTFOUND;
    if (!*end && iter >= 0 && store_snap_kind_parse(r->params[2], &kind) == STORE_OK)
        rc = store_snapshot_get(r->st, r->params[0], iter, kind, &data, &len, NULL);
    if (rc == STORE_NOTFOUND || rc == STORE_INVALID) { /* invalid: no id of a job */
        srv_problem(r, MHD_HTTP_NOT_FOUND, "snapshot-not-found", "Snapshot not found",
                    "job \"%s\" has no snapshot %s/%s", r->params[0], r->params[1],
                    r->params[2]);
    } else if (rc != STORE_OK) {
        srv_problem_store(r, rc, "read the snapshot");
    } else {
        srv_reply_header(r, "X-Snapshot-Iteration", "%lld", iter);
        srv_reply_header(r, "X-Snapshot-Kind", "%s", r->params[2]);
        srv_reply_header(r, "Cache-Control", "max-age=31536000, immutable");
        srv_reply(r, MHD_HTTP_OK, "application/octet-stream", data, len);
        data = NULL;
    }
    free(data);
}
