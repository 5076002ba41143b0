/*
 * routes_misc.c -- health, readiness, metrics, version.
 */
#include <libgen.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/jobs.h"
#include "routes/routes.h"

/* OpenBLAS's own prototypes (its cblas.h is not on the default path). */
extern char *openblas_get_config(void);

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
static bool is_db_writable(void)
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
    else if (!is_db_writable() || store_changes(r->st, &changes) != STORE_OK)
        snprintf(why, sizeof why, "the database is not writable");
    else if (srv_store_is_degraded(why, sizeof why))
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
    srv_metrics_gauges g = {.workers_busy = srv_workers_busy(),
                            .slow_closed = srv_guard_closed(),
                            .rate_refused = srv_rate_refused()};
    char *text = srv_metrics_render(r->st, &g);
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
