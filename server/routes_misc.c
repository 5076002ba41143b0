/*
 * routes_misc.c -- the route table, health, readiness, metrics, version.
 */
#include <libgen.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http.h"

/* OpenBLAS's own prototypes (its cblas.h is not on the default path). */
extern char *openblas_get_config(void);

/* body: 1 = JSON body, 2 = raw body.  The scopes are documented per
 * operation in api/openapi.json (x-required-scope), which tests compare
 * with this table and with a real daemon's answers. */
#define OPEN SRV_SCOPE_NONE
#define READ SRV_SCOPE_READ
#define SUBMIT SRV_SCOPE_SUBMIT
#define ADMIN SRV_SCOPE_ADMIN
const srv_route srv_routes[] = {
    {"/healthz", "/healthz", "GET", srv_route_healthz, NULL, NULL, 0, OPEN, OPEN, OPEN},
    {"/readyz", "/readyz", "GET", srv_route_readyz, NULL, NULL, 0, OPEN, OPEN, OPEN},
    {"/metrics", "/metrics", "GET", srv_route_metrics, NULL, NULL, 0, READ, READ, READ},
    {"/v1/version", "/v1/version", "GET", srv_route_version, NULL, NULL, 0, READ, READ,
     READ},
    {"/v1/jobs", "/v1/jobs", "GET, POST", srv_route_jobs_list, srv_route_jobs_submit, NULL,
     1, READ, SUBMIT, READ},
    {"/v1/jobs/{}", "/v1/jobs/{id}", "GET, DELETE", srv_route_job_get, NULL,
     srv_route_job_delete, 0, READ, READ, ADMIN},
    {"/v1/jobs/{}/cancel", "/v1/jobs/{id}/cancel", "POST", NULL, srv_route_job_cancel,
     NULL, 0, SUBMIT, SUBMIT, SUBMIT},
    {"/v1/jobs/{}/trace", "/v1/jobs/{id}/trace", "GET", srv_route_job_trace, NULL, NULL,
     0, READ, READ, READ},
    {"/v1/jobs/{}/result", "/v1/jobs/{id}/result", "GET", srv_route_job_result, NULL,
     NULL, 0, READ, READ, READ},
    {"/v1/jobs/{}/snapshots", "/v1/jobs/{id}/snapshots", "GET", srv_route_job_snapshots,
     NULL, NULL, 0, READ, READ, READ},
    {"/v1/jobs/{}/snapshots/{}/{}", "/v1/jobs/{id}/snapshots/{iteration}/{kind}", "GET",
     srv_route_job_snapshot_get, NULL, NULL, 0, READ, READ, READ},
    {"/v1/jobs/{}/events", "/v1/jobs/{id}/events", "GET", srv_route_job_events, NULL,
     NULL, 0, READ, READ, READ},
    {"/v1/datasets", "/v1/datasets", "POST", NULL, srv_route_datasets_post, NULL, 2,
     SUBMIT, SUBMIT, SUBMIT},
    {"/v1/datasets/{}", "/v1/datasets/{id}", "GET", srv_route_dataset_get, NULL, NULL, 0,
     READ, READ, READ},
    {NULL, NULL, NULL, NULL, NULL, NULL, 0, OPEN, OPEN, OPEN},
};
#undef OPEN
#undef READ
#undef SUBMIT
#undef ADMIN

srv_scope srv_route_need(const srv_route *rt, const char *method)
{
    int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    if (get && rt->get)
        return rt->need_get;
    if (!strcmp(method, "POST") && rt->post)
        return rt->need_post;
    if (!strcmp(method, "DELETE") && rt->del)
        return rt->need_del;
    srv_scope low = SRV_SCOPE_ADMIN;
    if (rt->get && rt->need_get < low)
        low = rt->need_get;
    if (rt->post && rt->need_post < low)
        low = rt->need_post;
    if (rt->del && rt->need_del < low)
        low = rt->need_del;
    return low;
}

static void reply_status(srv_req *r, unsigned code, const char *status,
                         const char *reason)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "status", status);
    if (reason)
        cJSON_AddStringToObject(o, "reason", reason);
    srv_reply_json(r, code, o);
}

void srv_route_healthz(srv_req *r)
{
    reply_status(r, MHD_HTTP_OK, "ok", NULL);
}

/* The database file and its directory (WAL side files) must be writable. */
static int db_writable(void)
{
    char copy[sizeof srv.cfg.db];
    snprintf(copy, sizeof copy, "%s", srv.cfg.db);
    return access(srv.cfg.db, W_OK) == 0 && access(dirname(copy), W_OK) == 0;
}

/* Ready = the daemon can take work: not stopping, the store takes writes
 * (no recent storage fault, no job waiting to write, the write lock is
 * free now -- another process's BEGIN EXCLUSIVE shows here even when
 * nothing was written yet), the heartbeats go on.  Reads may well be
 * served while not ready. */
void srv_route_readyz(srv_req *r)
{
    char why[STORE_ERRMAX + 160];
    int64_t changes = 0;
    store_rc rc;
    why[0] = '\0';
    if (srv_is_shutting_down())
        snprintf(why, sizeof why, "shutting down");
    else if (!db_writable() || store_changes(r->st, &changes) != STORE_OK)
        snprintf(why, sizeof why, "the database is not writable");
    else if (srv_store_degraded(why, sizeof why))
        ; /* why says it */
    else if ((rc = store_write_probe(r->st, 500)) != STORE_OK)
        snprintf(why, sizeof why, "the store cannot take writes (%s): %s",
                 store_rc_name(rc), store_errmsg(r->st));
    else if (srv_heartbeat_age() > SRV_HEARTBEAT_STALE(srv.cfg.heartbeat_every))
        snprintf(why, sizeof why, "job heartbeats have stalled (the store cannot be written?)");
    if (why[0]) {
        srv_reply_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "5");
        reply_status(r, MHD_HTTP_SERVICE_UNAVAILABLE, "unavailable", why);
    } else {
        reply_status(r, MHD_HTTP_OK, "ready", NULL);
    }
}

void srv_route_metrics(srv_req *r)
{
    char *text = srv_metrics_render(r->st);
    if (text)
        srv_reply(r, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", text,
                  strlen(text));
    else
        srv_problem_internal(r, "out of memory");
}

void srv_route_version(srv_req *r)
{
    cJSON *o = cJSON_CreateObject();
    char *cfg = openblas_get_config();
    cJSON_AddStringToObject(o, "ircg", IRCG_VERSION);
    cJSON_AddStringToObject(o, "ircgd", IRCG_VERSION);
    cJSON_AddStringToObject(o, "libmicrohttpd", MHD_get_version());
    cJSON_AddStringToObject(o, "sqlite", sqlite3_libversion());
    cJSON_AddStringToObject(o, "cjson", cJSON_Version());
    cJSON_AddStringToObject(o, "openblas", cfg ? cfg : "unknown");
    cJSON_AddNumberToObject(o, "store_schema", store_schema_version());
    cJSON_AddNumberToObject(o, "workers", srv.cfg.workers);
    srv_reply_json(r, MHD_HTTP_OK, o);
}
