/*
 * routes_data.c -- what a job produced besides its trace (routes_trace.c):
 * the result and the snapshots.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "npz.h"
#include "routes/routes.h"
#include "result.h"
#include "spec.h"

/* ------------------------------------------------------------ result -- */

/* ?x=npz or ?z=npz: which iterate, "" for the JSON result; NULL after a
 * 400 naming the parameter. */
static const char *npz_member(srv_req *r)
{
    const char *x = srv_req_query(r, "x"), *z = srv_req_query(r, "z");
    const char *bad = x && strcmp(x, "npz") != 0   ? "/query/x"
                      : z && strcmp(z, "npz") != 0 ? "/query/z"
                                                   : NULL;
    if (bad || (x && z)) {
        srv_problem_member(r, MHD_HTTP_BAD_REQUEST, "invalid-parameter", "Invalid parameter",
                           bad ? bad : "/query/z", bad ? "the only value is npz"
                                                       : "ask for x or z, one at a time");
        return NULL;
    }
    return x ? "x" : z ? "z" : "";
}

/* The finished job's iterate as .npz (its snapshot's layout), made from
 * the result's JSON, whose tree is held against the requests' budget. */
static void reply_npz(srv_req *r, const store_job *j, const char *which)
{
    void *npz = NULL;
    size_t len = 0;
    char why[200];
    ircg_problem_kind kind = IRCG_PROBLEM_LEAST_SQUARES;
    int64_t tree = api_json_parse_bytes(j->result_json, strlen(j->result_json));
    if (srv_reqmem_take(r, tree) != 0) {
        srv_reqmem_refuse(r, tree);
        return;
    }
    if (!strcmp(j->problem_type, "matrix_completion"))
        kind = IRCG_PROBLEM_MATRIX_COMPLETION;
    else if (!strcmp(j->problem_type, "logistic_regression"))
        kind = IRCG_PROBLEM_LOGISTIC;
    if (api_result_iterate_npz(j->result_json, which, kind, &npz, &len, why, sizeof why) != 0) {
        srv_problem(r, MHD_HTTP_NOT_FOUND, "iterate-not-found", "Iterate not found",
                    "job \"%s\": %s", j->id, why);
        return;
    }
    srv_reply_header(r, "Content-Disposition", "attachment; filename=\"%s-%s.npz\"", j->id,
                     which);
    srv_reply(r, MHD_HTTP_OK, "application/x-npz", npz, len);
}

void srv_route_job_result(srv_req *r)
{
    store_job j = {0};
    const char *which = npz_member(r);
    store_rc rc = which ? store_job_get(r->st, r->params[0], &j) : STORE_OK;
    if (!which) {
        /* 400 queued */
    } else if (rc != STORE_OK) {
        srv_problem_job(r, rc);
    } else if (!store_state_terminal(j.state)) {
        cJSON *p = srv_problem_new(r, MHD_HTTP_CONFLICT, "job-not-finished",
                                   "Job not finished", "the job has no result yet");
        cJSON_AddStringToObject(p, "state", store_state_name(j.state));
        srv_reply_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
        srv_problem_send(r, MHD_HTTP_CONFLICT, p);
    } else if (j.result_json && which[0]) {
        reply_npz(r, &j, which);
    } else if (which[0]) {
        srv_problem(r, MHD_HTTP_NOT_FOUND, "iterate-not-found", "Iterate not found",
                    "job \"%s\" %s without a result", j.id, store_state_name(j.state));
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
        /* iterates are NumPy .npz archives (older ones IRCGITR1 blobs) */
        int npz = kind != STORE_SNAP_STATE && len >= 4 && !memcmp(data, "PK\x03\x04", 4);
        if (npz)
            srv_reply_header(r, "Content-Disposition",
                             "attachment; filename=\"%s-%lld-%s.npz\"", r->params[0], iter,
                             r->params[2]);
        srv_reply(r, MHD_HTTP_OK, npz ? "application/x-npz" : "application/octet-stream",
                  data, len);
        data = NULL;
    }
    free(data);
}
