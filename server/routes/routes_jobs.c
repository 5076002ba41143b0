/*
 * routes_jobs.c -- the job resource: submit, get, list, cancel, delete.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/jobs.h"
#include "mpi/mpi.h"
#include "routes/routes.h"
#include "spec.h"

/* ----------------------------------------------------------- helpers -- */

static void add_num(cJSON *o, const char *name, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, name, v);
    else
        cJSON_AddNullToObject(o, name);
}

static void add_time(cJSON *o, const char *name, double t)
{
    char buf[40];
    if (isfinite(t))
        cJSON_AddStringToObject(o, name, srv_time_rfc3339(buf, t));
    else
        cJSON_AddNullToObject(o, name);
}

static void add_links(cJSON *o, const char *id)
{
    static const char *const sub[] = {"result", "trace", "snapshots", "events",
                                      "cancel"};
    char url[128];
    cJSON *l = cJSON_AddObjectToObject(o, "links");
    if (!l)
        return;
    snprintf(url, sizeof url, "/v1/jobs/%s", id);
    cJSON_AddStringToObject(l, "self", url);
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
        snprintf(url, sizeof url, "/v1/jobs/%s/%s", id, sub[i]);
        cJSON_AddStringToObject(l, sub[i], url);
    }
}

/* The members of the result worth showing in the job resource, and the
 * result's warnings as the job's own (a result that is not what it seems
 * says so where the job is looked at). */
static void add_result_summary(cJSON *o, const char *result_json)
{
    static const char *const keep[] = {"status", "error", "iterations",
        "solve_seconds", "g_x", "f_x", "g_z", "f_z", "gap", "g_opt", "rank",
        "varsigma", "certificate", "warnings"};
    cJSON *res = cJSON_Parse(result_json);
    cJSON *sum = res ? cJSON_AddObjectToObject(o, "result") : NULL;
    for (size_t i = 0; sum && i < sizeof keep / sizeof keep[0]; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(res, keep[i]);
        if (v)
            cJSON_AddItemToObject(sum, keep[i], cJSON_Duplicate(v, 1));
    }
    cJSON *w = cJSON_GetObjectItemCaseSensitive(res, "warnings");
    if (cJSON_IsArray(w))
        cJSON_AddItemToObject(o, "warnings", cJSON_Duplicate(w, 1));
    cJSON_Delete(res);
}

/* "execution" of a job its spec spreads over MPI ranks: while it runs, the
 * ranks and hosts its rank 0 reported; once it ended, its result's; else
 * the ranks the spec asks for. */
static void add_execution(cJSON *o, const store_job *j)
{
    char *live = j->state == STORE_RUNNING ? srv_mpi_execution(j->id) : NULL;
    cJSON *e = live ? cJSON_Parse(live) : NULL;
    free(live);
    if (!e && j->result_json) {
        cJSON *res = cJSON_Parse(j->result_json);
        e = cJSON_DetachItemFromObjectCaseSensitive(res, "execution");
        cJSON_Delete(res);
    }
    if (!e && j->spec_json && srv_mpi_ranks(j) > 0 && (e = cJSON_CreateObject()))
        cJSON_AddNumberToObject(e, "ranks", srv_mpi_ranks(j));
    if (e)
        cJSON_AddItemToObject(o, "execution", e);
}

cJSON *srv_job_json(const store_job *j, int with_result_summary)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "id", j->id);
    cJSON_AddStringToObject(o, "state", store_state_name(j->state));
    cJSON_AddStringToObject(o, "problem_type", j->problem_type ? j->problem_type : "");
    cJSON_AddStringToObject(o, "algorithm", j->algorithm);
    add_time(o, "created_at", j->created_at);
    add_time(o, "started_at", j->started_at);
    add_time(o, "finished_at", j->finished_at);
    add_time(o, "heartbeat_at", j->heartbeat_at);
    cJSON_AddNumberToObject(o, "attempt", j->attempt);
    cJSON_AddBoolToObject(o, "cancel_requested", j->cancel_requested);
    cJSON_AddNumberToObject(o, "version", (double)j->version);
    cJSON *p = cJSON_AddObjectToObject(o, "progress");
    if (p) {
        cJSON_AddNumberToObject(p, "iteration", (double)j->progress.iteration);
        add_num(p, "elapsed", j->progress.elapsed);
        add_num(p, "g_x", j->progress.g_x);
        add_num(p, "f_x", j->progress.f_x);
        add_num(p, "g_z", j->progress.g_z);
        add_num(p, "f_z", j->progress.f_z);
        add_num(p, "gap", j->progress.gap);
        /* the spec's limits, for a progress bar and an ETA */
        add_num(p, "max_iter", j->max_iter > 0 ? (double)j->max_iter : NAN);
        add_num(p, "time_limit", j->time_limit);
    }
    if (with_result_summary)
        add_execution(o, j);
    add_links(o, j->id);
    if (with_result_summary && j->result_json)
        add_result_summary(o, j->result_json);
    if (j->error_json) {
        cJSON *e = cJSON_Parse(j->error_json);
        if (e)
            cJSON_AddItemToObject(o, "error", e);
    }
    if (j->estimate_json) {
        cJSON *e = cJSON_Parse(j->estimate_json);
        if (e)
            cJSON_AddItemToObject(o, "estimate", e);
    }
    return o;
}

/* The spec's estimate as the JSON text of a job and a dry run (NULL when
 * the members cannot say, or out of memory). */
static char *estimate_text(const api_spec *spec)
{
    api_estimate e;
    api_spec_estimate(spec, &e);
    return e.memory > 0 ? api_estimate_json(&e) : NULL;
}

static bool is_query_true(srv_req *r, const char *name)
{
    const char *v = srv_req_query(r, name);
    return v && (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, ""));
}

/* 0 when found; else -1, 404 for an unknown job, 500 for anything else. */
static int load_job(srv_req *r, store_job *j)
{
    store_rc rc = store_job_get(r->st, r->params[0], j);
    if (rc != STORE_OK)
        srv_problem_job(r, rc);
    return rc == STORE_OK ? 0 : -1;
}

/* ------------------------------------------------------------ submit -- */

static void reply_spec_errors(srv_req *r, const api_errors *errs)
{
    char *text = api_errors_problem_json(errs, r->path);
    unsigned status = errs->syntax ? MHD_HTTP_BAD_REQUEST
                                   : MHD_HTTP_UNPROCESSABLE_CONTENT;
    if (text)
        srv_reply(r, status, "application/problem+json", text, strlen(text));
    else
        srv_problem_internal(r, "out of memory");
}

static bool is_queue_full(srv_req *r)
{
    int64_t counts[STORE_NSTATES] = {0};
    if (srv.cfg.max_queued <= 0 || store_job_counts(r->st, counts) != STORE_OK)
        return false;
    return counts[STORE_QUEUED] >= srv.cfg.max_queued;
}

static void create_job(srv_req *r, const api_spec *spec, const char *normalized)
{
    uint8_t sha[32];
    store_job job = {0};
    int replayed = 0;
    const char *key = srv_req_header(r, "Idempotency-Key");
    char *est = estimate_text(spec);
    store_sha256(r->body.p ? r->body.p : "", r->body.len, sha);
    store_new_job nj = {
        .problem_type = api_problem_type_name(api_spec_kind(spec)),
        .spec_json = normalized, .idempotency_key = key, .request_sha256 = sha,
        .estimate_json = est,
    };
    store_rc rc = store_job_create(r->st, &nj, &job, &replayed);
    if (rc == STORE_OK)
        srv_store_note(r->st, rc, "submit"); /* a failure: srv_problem_store */
    if (rc == STORE_CONFLICT) {
        srv_problem_member(r, MHD_HTTP_UNPROCESSABLE_CONTENT, "idempotency-key-reused",
                           "Idempotency key reused", "",
                           "this Idempotency-Key was used with a different request body");
    } else if (rc == STORE_INVALID && key) {
        srv_problem(r, MHD_HTTP_BAD_REQUEST, "invalid-idempotency-key",
                    "Invalid Idempotency-Key", "the key must be 1..255 bytes");
    } else if (rc != STORE_OK) {
        srv_problem_store(r, rc, "submit");
    } else {
        /* A replay answers as the original did (202 + Location), so a
         * client retrying after a lost response cannot tell the difference;
         * the body is the job as it is now, and a header says it is a
         * replay. */
        srv_reply_header(r, MHD_HTTP_HEADER_LOCATION, "/v1/jobs/%s", job.id);
        if (replayed)
            srv_reply_header(r, "Idempotent-Replayed", "true");
        srv_reply_json(r, MHD_HTTP_ACCEPTED, srv_job_json(&job, 1));
        if (!replayed) {
            srv_workers_wake();
            srv_notify_all();
        }
    }
    store_job_clear(&job);
    free(est);
}

/* ?dry_run=true (or 1, or empty): the cheap checks of a submission, no
 * job; ?dry_run=full: the whole build (data loaded or generated, problem
 * and trial solver), as the worker would do it.  -1 after replying 400. */
static int dry_run_mode(srv_req *r)
{
    const char *v = srv_req_query(r, "dry_run");
    if (!v || !strcmp(v, "false") || !strcmp(v, "0"))
        return 0;
    if (!strcmp(v, "full"))
        return 2;
    if (is_query_true(r, "dry_run"))
        return 1;
    srv_problem_member(r, MHD_HTTP_BAD_REQUEST, "invalid-parameter", "Invalid parameter",
                       "/query/dry_run", "must be true, false or full");
    return -1;
}

/* A submission is answered after the cheap checks only (api_spec_parse
 * with build = 0: shape, ranges, files' heads, datasets, the memory
 * estimate against --max-job-memory): loading or generating the data
 * belongs to the worker, which fails the job with the member and file
 * position of anything found later.  An HTTP thread never builds an
 * instance: a full dry run, once the cheap checks passed, is built on
 * the dry runs' worker (dryrun.c) while this thread waits. */
void srv_route_jobs_submit(srv_req *r)
{
    api_parse_options opt;
    api_errors errs;
    api_spec *spec = NULL;
    char *normalized = NULL;
    int dry = dry_run_mode(r);
    /* the JSON tree and the data parsed out of it, held in flight */
    int64_t parse = api_json_parse_bytes(r->body.p ? r->body.p : "", r->body.len);

    if (dry < 0)
        return;
    /* beyond one job's budget it is the spec's fault (the api says so, 422,
     * before parsing); within it, the others in flight may leave no room */
    if (parse <= srv.cfg.max_job_memory && srv_reqmem_take(r, parse) != 0) {
        srv_reqmem_refuse(r, parse);
        return;
    }
    api_errors_init(&errs);
    srv_parse_options(&opt, r->st);
    opt.build = 0; /* a full dry run builds on the dry runs' worker */
    if (api_spec_parse(r->body.p ? r->body.p : "", r->body.len, &opt, &spec, &errs) > 0) {
        reply_spec_errors(r, &errs);
    } else if (!spec || !(normalized = api_spec_normalized_json(spec, 0))) {
        srv_problem_internal(r, "out of memory");
    } else if (dry == 2) {
        ircg_settings set;
        api_spec_settings(spec, &set);
        srv_dryrun_full(r, set.time_limit);
    } else if (dry) {
        cJSON *o = cJSON_CreateObject();
        char *est = estimate_text(spec);
        cJSON_AddBoolToObject(o, "valid", 1);
        cJSON_AddStringToObject(o, "checks", dry == 2 ? "full" : "cheap");
        cJSON_AddItemToObject(o, "spec", cJSON_Parse(normalized));
        if (est)
            cJSON_AddItemToObject(o, "estimate", cJSON_Parse(est));
        free(est);
        srv_reply_json(r, MHD_HTTP_OK, o);
    } else if (is_queue_full(r)) {
        /* 429: this client should slow down; the service is fine */
        srv_reply_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "30");
        srv_problem(r, MHD_HTTP_TOO_MANY_REQUESTS, "queue-full", "Queue full",
                    "%lld jobs are queued; retry later", (long long)srv.cfg.max_queued);
    } else {
        create_job(r, spec, normalized);
    }
    free(normalized);
    api_spec_free(spec);
    api_errors_clear(&errs);
}

/* --------------------------------------------------------- get, list -- */

/* The normalized spec the job runs (what ?dry_run=true answered). */
void srv_route_job_spec(srv_req *r)
{
    store_job j = {0};
    if (load_job(r, &j) == 0) {
        srv_reply(r, MHD_HTTP_OK, "application/json", j.spec_json, strlen(j.spec_json));
        j.spec_json = NULL; /* ownership moved to the response */
    }
    store_job_clear(&j);
}

void srv_route_job_get(srv_req *r)
{
    store_job j = {0};
    if (load_job(r, &j) == 0) {
        char etag[64];
        snprintf(etag, sizeof etag, "W/\"%lld\"", (long long)j.version);
        const char *inm = srv_req_header(r, MHD_HTTP_HEADER_IF_NONE_MATCH);
        srv_reply_header(r, MHD_HTTP_HEADER_ETAG, "%s", etag);
        if (inm && (strstr(inm, etag) || !strcmp(inm, "*")))
            srv_reply(r, MHD_HTTP_NOT_MODIFIED, NULL, NULL, 0);
        else
            srv_reply_json(r, MHD_HTTP_OK, srv_job_json(&j, 1));
    }
    store_job_clear(&j);
}

/* Parses ?state=, ?page_size=, ?page_token=: 0, or -1 after replying 400. */
static int list_options(srv_req *r, store_list_opts *o)
{
    const char *state = srv_req_query(r, "state");
    const char *size = srv_req_query(r, "page_size");
    const char *token = srv_req_query(r, "page_token");
    const char *bad = NULL, *why = NULL;
    char *end = NULL;
    store_state s;
    store_job_list_init_opts(o);
    if (state && *state) {
        if (store_state_parse(state, &s) == STORE_OK)
            o->state = (int)s;
        else
            bad = "/query/state", why = "must be queued, running, succeeded, failed or cancelled";
    }
    if (!bad && size && *size) {
        long v = strtol(size, &end, 10);
        if (*end || v < 1 || v > 1000)
            bad = "/query/page_size", why = "must be an integer in [1, 1000]";
        o->page_size = (int)v;
    }
    if (!bad && token && *token) {
        o->cursor = strtoll(token, &end, 10);
        if (*end || o->cursor < 1)
            bad = "/query/page_token", why = "not a page token returned by this server";
    }
    if (bad)
        srv_problem_member(r, MHD_HTTP_BAD_REQUEST, "invalid-parameter",
                           "Invalid parameter", bad, why);
    return bad == NULL ? 0 : -1;
}

void srv_route_jobs_list(srv_req *r)
{
    store_list_opts o;
    store_job_list l = {0};
    if (list_options(r, &o) != 0)
        return;
    store_rc rc = store_job_list_page(r->st, &o, &l);
    if (rc != STORE_OK) {
        srv_problem_store(r, rc, "list the jobs");
        return;
    }
    cJSON *doc = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(doc, "jobs");
    for (size_t i = 0; arr && i < l.n; i++)
        cJSON_AddItemToArray(arr, srv_job_json(&l.jobs[i], 0));
    if (l.next_cursor > 0) {
        char tok[32];
        snprintf(tok, sizeof tok, "%lld", (long long)l.next_cursor);
        cJSON_AddStringToObject(doc, "next_page_token", tok);
        srv_reply_header(r, "Link", "</v1/jobs?page_token=%s&page_size=%d%s%s>; rel=\"next\"",
                         tok, o.page_size > 0 ? o.page_size : 50, o.state >= 0 ? "&state=" : "",
                         o.state >= 0 ? store_state_name((store_state)o.state) : "");
    } else {
        cJSON_AddNullToObject(doc, "next_page_token");
    }
    store_job_list_clear(&l);
    srv_reply_json(r, MHD_HTTP_OK, doc);
}

/* ------------------------------------------------------ cancel, delete -- */

void srv_route_job_cancel(srv_req *r)
{
    store_job j = {0};
    store_rc rc = store_job_request_cancel(r->st, r->params[0], &j);
    if (rc == STORE_NOTFOUND || rc == STORE_INVALID) {
        srv_problem_job(r, rc);
    } else if (rc == STORE_OK && j.state == STORE_RUNNING) {
        srv_workers_cancel(j.id);
        srv_reply_json(r, MHD_HTTP_ACCEPTED, srv_job_json(&j, 1));
    } else if (j.state == STORE_CANCELLED) {
        if (rc == STORE_OK)
            srv_metrics_finished(STORE_CANCELLED);
        srv_reply_json(r, MHD_HTTP_OK, srv_job_json(&j, 1));
    } else if (rc == STORE_CONFLICT) {
        srv_problem(r, MHD_HTTP_CONFLICT, "job-already-finished", "Job already finished",
                    "job %s is %s", r->params[0], store_state_name(j.state));
    } else {
        srv_problem_store(r, rc, "cancel");
    }
    srv_notify_all();
    store_job_clear(&j);
}

void srv_route_job_delete(srv_req *r)
{
    store_job j = {0};
    if (load_job(r, &j) != 0)
        return;
    store_rc rc = store_job_delete(r->st, r->params[0]);
    if (rc == STORE_OK || rc == STORE_NOTFOUND) {
        srv_reply(r, MHD_HTTP_NO_CONTENT, NULL, NULL, 0);
        srv_notify_all();
    } else if (rc == STORE_CONFLICT) {
        srv_problem(r, MHD_HTTP_CONFLICT, "job-not-terminal", "Job not finished",
                    "job %s is %s; cancel it first", j.id, store_state_name(j.state));
    } else {
        srv_problem_store(r, rc, "delete");
    }
    store_job_clear(&j);
}
