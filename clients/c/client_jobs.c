/*
 * client_jobs.c -- the job resource: submit, get, list, cancel, delete.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

/* -------------------------------------------------------------- states -- */

static const char *const STATE_NAMES[] = {"unknown", "queued", "running",
                                          "succeeded", "failed", "cancelled"};

const char *ircg_client_state_name(ircg_client_state s)
{
    return (unsigned)s < sizeof STATE_NAMES / sizeof STATE_NAMES[0] ? STATE_NAMES[s]
                                                                   : "unknown";
}

ircg_client_state ircg_client_state_parse(const char *name)
{
    for (int i = 1; name && i < (int)(sizeof STATE_NAMES / sizeof STATE_NAMES[0]); i++)
        if (!strcmp(name, STATE_NAMES[i]))
            return (ircg_client_state)i;
    return IRCG_CLIENT_STATE_UNKNOWN;
}

int ircg_client_state_terminal(ircg_client_state s)
{
    return s == IRCG_CLIENT_STATE_SUCCEEDED || s == IRCG_CLIENT_STATE_FAILED ||
           s == IRCG_CLIENT_STATE_CANCELLED;
}

/* ----------------------------------------------------------------- job -- */

void ircg_client_job_clear(ircg_client_job *j)
{
    if (j) {
        free(j->json);
        memset(j, 0, sizeof *j);
        j->elapsed = j->g_x = j->f_x = j->g_z = j->f_z = j->gap = j->time_limit = NAN;
        j->inner_gap = j->outer_gap = j->f_lower = NAN;
        j->cert_iteration = -1;
    }
}

/* The result's certificate (NaN and -1 without one). */
static void certificate_from_json(const cJSON *c, ircg_client_job *j)
{
    j->inner_gap = j->outer_gap = j->f_lower = NAN;
    j->cert_iteration = -1;
    if (!cJSON_IsObject(c))
        return;
    j->inner_gap = cl_json_num(c, "inner_gap_x");
    j->outer_gap = cl_json_num(c, "outer_gap_x");
    j->f_lower = cl_json_num(c, "f_lower");
    j->cert_iteration = cl_json_int(c, "iteration");
}

/* The codes, comma-separated, and the first message. */
static void warnings_from_json(const cJSON *w, ircg_client_job *j)
{
    size_t n = 0;
    j->warning_codes[0] = j->warning[0] = '\0';
    for (const cJSON *e = cJSON_IsArray(w) ? w->child : NULL; e; e = e->next) {
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
        if (!cJSON_IsString(code))
            continue;
        int k = snprintf(j->warning_codes + n, sizeof j->warning_codes - n, "%s%s",
                         n ? "," : "", code->valuestring);
        n = k > 0 && n + (size_t)k < sizeof j->warning_codes ? n + (size_t)k : n;
        if (!j->warning[0])
            cl_json_str(e, "message", j->warning, sizeof j->warning);
    }
}

void cl_job_from_json(const cJSON *o, ircg_client_job *j)
{
    char state[32];
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "progress");
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(o, "result");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
    cl_json_str(o, "id", j->id, sizeof j->id);
    cl_json_str(o, "state", state, sizeof state);
    j->state = ircg_client_state_parse(state);
    cl_json_str(o, "problem_type", j->problem_type, sizeof j->problem_type);
    cl_json_str(o, "created_at", j->created_at, sizeof j->created_at);
    cl_json_str(o, "started_at", j->started_at, sizeof j->started_at);
    cl_json_str(o, "finished_at", j->finished_at, sizeof j->finished_at);
    cl_json_str(o, "heartbeat_at", j->heartbeat_at, sizeof j->heartbeat_at);
    j->attempt = (int)cl_json_int(o, "attempt");
    j->cancel_requested = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "cancel_requested"));
    j->version = cl_json_int(o, "version");
    j->iteration = cl_json_int(p, "iteration");
    j->elapsed = cl_json_num(p, "elapsed");
    j->g_x = cl_json_num(p, "g_x");
    j->f_x = cl_json_num(p, "f_x");
    j->g_z = cl_json_num(p, "g_z");
    j->f_z = cl_json_num(p, "f_z");
    j->gap = cl_json_num(p, "gap");
    cl_json_str(o, "algorithm", j->algorithm, sizeof j->algorithm);
    j->max_iter = cl_json_int(p, "max_iter");
    j->time_limit = cl_json_num(p, "time_limit");
    cl_json_str(res, "status", j->result_status, sizeof j->result_status);
    cl_json_str(e, "title", j->error_title, sizeof j->error_title);
    cl_json_str(e, "detail", j->error_detail, sizeof j->error_detail);
    certificate_from_json(cJSON_GetObjectItemCaseSensitive(res, "certificate"), j);
    warnings_from_json(cJSON_GetObjectItemCaseSensitive(o, "warnings"), j);
}

/* Parses r into *job (taking the body as job->json); job may be NULL. */
static ircg_client_code fill_job(cl_resp *r, ircg_client_job *job, ircg_client_error *err)
{
    cJSON *o = cl_parse_object(r, err);
    if (!o)
        return IRCG_CLIENT_ERR_PROTOCOL;
    if (job) {
        ircg_client_job_clear(job);
        cl_job_from_json(o, job);
        job->json = cl_take_body(r, NULL);
    }
    cJSON_Delete(o);
    return IRCG_CLIENT_OK;
}

/* -------------------------------------------------------------- submit -- */

ircg_client_code ircg_client_submit(ircg_client *c, const char *spec_json,
                                    const ircg_client_submit_options *opt,
                                    ircg_client_job *job, ircg_client_error *err)
{
    static const long ok_submit[] = {202, 200, 0}, ok_dry[] = {200, 0};
    char key[300];
    cl_resp r = {0};
    cl_error_reset(err);
    if (job)
        ircg_client_job_clear(job);
    if (!c || !spec_json)
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "client and spec are required");
    const char *k = opt ? opt->idempotency_key : NULL;
    if (k && (!*k || strlen(k) > 255 || strpbrk(k, "\r\n")))
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0,
                       "the Idempotency-Key must be 1..255 bytes on one line");
    int dry = opt && opt->dry_run;
    cl_req rq = {.method = "POST", .path = dry ? "/v1/jobs?dry_run=true" : "/v1/jobs",
                 .ctype = "application/json", .body = spec_json, .len = strlen(spec_json)};
    if (k) {
        snprintf(key, sizeof key, "Idempotency-Key: %s", k);
        rq.headers[0] = key;
    }
    ircg_client_code rc = cl_call(c, &rq, dry ? ok_dry : ok_submit, &r, err);
    if (rc == IRCG_CLIENT_OK)
        rc = fill_job(&r, job, err);
    if (rc == IRCG_CLIENT_OK && job)
        job->replayed = !dry && r.replayed;
    cl_resp_free(&r);
    return rc;
}

/* ----------------------------------------------------------------- get -- */

/* GET, POST or DELETE on /v1/jobs/{id}<suffix>, expecting one of ok;
 * job (may be NULL) is cleared, then filled from the answer.  id may
 * point into job: the path is built before job is touched. */
static ircg_client_code job_call(ircg_client *c, const char *method, const char *id,
                                 const char *suffix, const long *ok,
                                 ircg_client_job *job, ircg_client_error *err)
{
    cl_resp r = {0};
    cl_error_reset(err);
    char *path = cl_job_path(c, id, suffix, err);
    if (job)
        ircg_client_job_clear(job);
    if (!path)
        return !c || !id || !*id ? IRCG_CLIENT_ERR_INVALID : IRCG_CLIENT_ERR_NOMEM;
    cl_req rq = {.method = method, .path = path};
    ircg_client_code rc = cl_call(c, &rq, ok, &r, err);
    if (rc == IRCG_CLIENT_OK && r.status != 204)
        rc = fill_job(&r, job, err);
    cl_resp_free(&r);
    free(path);
    return rc;
}

ircg_client_code ircg_client_get_job(ircg_client *c, const char *id, ircg_client_job *job,
                                     ircg_client_error *err)
{
    static const long ok[] = {200, 0};
    return job_call(c, "GET", id, "", ok, job, err);
}

ircg_client_code ircg_client_cancel(ircg_client *c, const char *id, ircg_client_job *job,
                                    ircg_client_error *err)
{
    static const long ok[] = {200, 202, 0};
    return job_call(c, "POST", id, "/cancel", ok, job, err);
}

ircg_client_code ircg_client_delete(ircg_client *c, const char *id, ircg_client_error *err)
{
    static const long ok[] = {204, 0};
    return job_call(c, "DELETE", id, "", ok, NULL, err);
}

/* ---------------------------------------------------------------- list -- */

void ircg_client_job_list_clear(ircg_client_job_list *l)
{
    if (l) {
        for (size_t i = 0; i < l->n && l->jobs; i++)
            free(l->jobs[i].json);
        free(l->jobs);
        free(l->next_page_token);
        memset(l, 0, sizeof *l);
    }
}

static char *list_path(ircg_client *c, const ircg_client_list_options *o,
                       ircg_client_error *err)
{
    char *tok = NULL, *path = NULL;
    char size[32] = "";
    if (o && o->page_token && !(tok = cl_escape(c, o->page_token)))
        goto nomem;
    if (o && o->page_size != 0)
        snprintf(size, sizeof size, "&page_size=%d", o->page_size);
    size_t n = 64 + (tok ? strlen(tok) : 0);
    if (!(path = malloc(n)))
        goto nomem;
    snprintf(path, n, "/v1/jobs?state=%s%s%s%s",
             o && o->state ? ircg_client_state_name(o->state) : "", size,
             tok ? "&page_token=" : "", tok ? tok : "");
    free(tok);
    return path;
nomem:
    free(tok);
    cl_fail(err, IRCG_CLIENT_ERR_NOMEM, 0, "out of memory");
    return NULL;
}

static ircg_client_code fill_list(const cJSON *doc, ircg_client_job_list *l,
                                  ircg_client_error *err)
{
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(doc, "jobs");
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(doc, "next_page_token");
    const cJSON *it = NULL;
    int n = cJSON_GetArraySize(jobs);
    if (!cJSON_IsArray(jobs))
        return cl_fail(err, IRCG_CLIENT_ERR_PROTOCOL, 200, "the answer has no \"jobs\" array");
    if ((n > 0 && !(l->jobs = calloc((size_t)n, sizeof *l->jobs))) ||
        (cJSON_IsString(tok) && !(l->next_page_token = strdup(tok->valuestring))))
        return cl_fail(err, IRCG_CLIENT_ERR_NOMEM, 200, "out of memory");
    cJSON_ArrayForEach(it, jobs) {
        ircg_client_job_clear(&l->jobs[l->n]);
        cl_job_from_json(it, &l->jobs[l->n++]);
    }
    return IRCG_CLIENT_OK;
}

ircg_client_code ircg_client_list_jobs(ircg_client *c, const ircg_client_list_options *opt,
                                       ircg_client_job_list *list, ircg_client_error *err)
{
    static const long ok[] = {200, 0};
    cl_resp r = {0};
    cJSON *doc = NULL;
    char *path = NULL;
    ircg_client_code rc = IRCG_CLIENT_OK;
    cl_error_reset(err);
    if (!c || !list)
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "client and list are required");
    memset(list, 0, sizeof *list);
    if (!(path = list_path(c, opt, err)))
        return IRCG_CLIENT_ERR_NOMEM;
    cl_req rq = {.method = "GET", .path = path};
    if ((rc = cl_call(c, &rq, ok, &r, err)) != IRCG_CLIENT_OK)
        goto done;
    if (!(doc = cl_parse_object(&r, err))) {
        rc = IRCG_CLIENT_ERR_PROTOCOL;
        goto done;
    }
    rc = fill_list(doc, list, err);
done:
    if (rc != IRCG_CLIENT_OK)
        ircg_client_job_list_clear(list);
    cJSON_Delete(doc);
    cl_resp_free(&r);
    free(path);
    return rc;
}
