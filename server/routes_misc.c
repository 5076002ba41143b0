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
 * with this table and with a real daemon's answers; so are the query
 * parameters each operation accepts. */
#define OPEN SRV_SCOPE_NONE
#define READ SRV_SCOPE_READ
#define SUBMIT SRV_SCOPE_SUBMIT
#define ADMIN SRV_SCOPE_ADMIN
#define GET_ONLY(path, h, need)                                                   \
    {.pattern = path, .name = path, .allow = "GET", .get = h, .need_get = need, \
     .need_post = need, .need_del = need}
const srv_route srv_routes[] = {
    GET_ONLY("/healthz", srv_route_healthz, OPEN),
    GET_ONLY("/readyz", srv_route_readyz, OPEN),
    GET_ONLY("/metrics", srv_route_metrics, READ),
    GET_ONLY("/openapi.json", srv_route_openapi, OPEN),
    GET_ONLY("/v1/version", srv_route_version, READ),
    GET_ONLY("/v1/examples", srv_route_examples, READ),
    {.pattern = "/v1/jobs", .name = "/v1/jobs", .allow = "GET, POST",
     .get = srv_route_jobs_list, .post = srv_route_jobs_submit, .body = 1,
     .need_get = READ, .need_post = SUBMIT, .need_del = READ,
     .query_get = "state page_size page_token", .query_post = "dry_run"},
    {.pattern = "/v1/jobs/{}", .name = "/v1/jobs/{id}", .allow = "GET, DELETE",
     .get = srv_route_job_get, .del = srv_route_job_delete,
     .need_get = READ, .need_post = READ, .need_del = ADMIN},
    {.pattern = "/v1/jobs/{}/spec", .name = "/v1/jobs/{id}/spec", .allow = "GET",
     .get = srv_route_job_spec, .need_get = READ, .need_post = READ, .need_del = READ},
    {.pattern = "/v1/jobs/{}/cancel", .name = "/v1/jobs/{id}/cancel", .allow = "POST",
     .post = srv_route_job_cancel, .need_get = SUBMIT, .need_post = SUBMIT,
     .need_del = SUBMIT},
    {.pattern = "/v1/jobs/{}/trace", .name = "/v1/jobs/{id}/trace", .allow = "GET",
     .get = srv_route_job_trace, .need_get = READ, .need_post = READ, .need_del = READ,
     .query_get = "after limit format"},
    {.pattern = "/v1/jobs/{}/result", .name = "/v1/jobs/{id}/result", .allow = "GET",
     .get = srv_route_job_result, .need_get = READ, .need_post = READ, .need_del = READ},
    {.pattern = "/v1/jobs/{}/snapshots", .name = "/v1/jobs/{id}/snapshots", .allow = "GET",
     .get = srv_route_job_snapshots, .need_get = READ, .need_post = READ,
     .need_del = READ},
    {.pattern = "/v1/jobs/{}/snapshots/{}/{}",
     .name = "/v1/jobs/{id}/snapshots/{iteration}/{kind}", .allow = "GET",
     .get = srv_route_job_snapshot_get, .need_get = READ, .need_post = READ,
     .need_del = READ},
    {.pattern = "/v1/jobs/{}/events", .name = "/v1/jobs/{id}/events", .allow = "GET",
     .get = srv_route_job_events, .need_get = READ, .need_post = READ, .need_del = READ,
     .query_get = "after"},
    {.pattern = "/v1/datasets", .name = "/v1/datasets", .allow = "POST",
     .post = srv_route_datasets_post, .body = 2, .need_get = SUBMIT, .need_post = SUBMIT,
     .need_del = SUBMIT, .query_post = "format"},
    {.pattern = "/v1/datasets/{}", .name = "/v1/datasets/{id}", .allow = "GET",
     .get = srv_route_dataset_get, .need_get = READ, .need_post = READ, .need_del = READ},
    /* the dashboard: open, since its page is what asks for a token */
    GET_ONLY("/ui", srv_route_ui_root, OPEN),
    {.pattern = "/ui/{*}", .name = "/ui/{file}", .allow = "GET", .get = srv_route_ui,
     .need_get = OPEN, .need_post = OPEN, .need_del = OPEN},
    {0},
};
#undef GET_ONLY
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

const char *srv_route_query(const srv_route *rt, const char *method)
{
    if (!strcmp(method, "POST"))
        return rt->query_post;
    if (!strcmp(method, "DELETE"))
        return rt->query_del;
    return rt->query_get;
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
    cJSON_AddNumberToObject(o, "job_threads", srv_job_threads_cap(&srv.cfg));
    cJSON_AddNumberToObject(o, "cores", srv_cores());
    srv_reply_json(r, MHD_HTTP_OK, o);
}
