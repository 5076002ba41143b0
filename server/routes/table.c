/*
 * table.c -- the route table: one row per method and path.
 *
 * body: 1 = a JSON body, 2 = any body, 3 = any body streamed to a sink.  The scopes are documented per
 * operation in api/openapi.json (x-required-scope), which tests compare
 * with this table and with a real daemon's answers; so are the query
 * parameters each operation accepts.  A path's rows are adjacent, GET
 * first: Allow lists them in this order.
 */
#include <stddef.h>

#include "routes/routes.h"

#define OPEN SRV_SCOPE_NONE
#define READ SRV_SCOPE_READ
#define SUBMIT SRV_SCOPE_SUBMIT
#define ADMIN SRV_SCOPE_ADMIN
/* ROUTE(method, pattern, metrics name, handler, body, scope, query) */
#define ROUTE(m, p, n, h, b, s, q)                                                \
    {.method = m, .pattern = p, .name = n, .handler = h, .body = b, .need = s,   \
     .query = q}
/* A route whose body streams to a sink (body 3). */
#define STREAMED(m, p, n, h, k, s, q)                                             \
    {.method = m, .pattern = p, .name = n, .handler = h, .body = 3, .sink = k,   \
     .need = s, .query = q}
const srv_route srv_routes[] = {
    ROUTE("GET", "/healthz", "/healthz", srv_route_healthz, 0, OPEN, NULL),
    ROUTE("GET", "/readyz", "/readyz", srv_route_readyz, 0, OPEN, NULL),
    ROUTE("GET", "/metrics", "/metrics", srv_route_metrics, 0, READ, NULL),
    ROUTE("GET", "/openapi.json", "/openapi.json", srv_route_openapi, 0, OPEN, NULL),
    ROUTE("GET", "/v1/version", "/v1/version", srv_route_version, 0, READ, NULL),
    ROUTE("GET", "/v1/examples", "/v1/examples", srv_route_examples, 0, READ, NULL),
    ROUTE("GET", "/v1/jobs", "/v1/jobs", srv_route_jobs_list, 0, READ,
          "state page_size page_token"),
    ROUTE("POST", "/v1/jobs", "/v1/jobs", srv_route_jobs_submit, 1, SUBMIT, "dry_run"),
    ROUTE("GET", "/v1/jobs/{}", "/v1/jobs/{id}", srv_route_job_get, 0, READ, NULL),
    ROUTE("DELETE", "/v1/jobs/{}", "/v1/jobs/{id}", srv_route_job_delete, 0, ADMIN, NULL),
    ROUTE("GET", "/v1/jobs/{}/spec", "/v1/jobs/{id}/spec", srv_route_job_spec, 0, READ,
          NULL),
    ROUTE("POST", "/v1/jobs/{}/cancel", "/v1/jobs/{id}/cancel", srv_route_job_cancel, 0,
          SUBMIT, NULL),
    ROUTE("GET", "/v1/jobs/{}/trace", "/v1/jobs/{id}/trace", srv_route_job_trace, 0, READ,
          "after limit format"),
    ROUTE("GET", "/v1/jobs/{}/result", "/v1/jobs/{id}/result", srv_route_job_result, 0,
          READ, "x z"),
    ROUTE("GET", "/v1/jobs/{}/snapshots", "/v1/jobs/{id}/snapshots",
          srv_route_job_snapshots, 0, READ, NULL),
    ROUTE("GET", "/v1/jobs/{}/snapshots/{}/{}", "/v1/jobs/{id}/snapshots/{iteration}/{kind}",
          srv_route_job_snapshot_get, 0, READ, NULL),
    ROUTE("GET", "/v1/jobs/{}/events", "/v1/jobs/{id}/events", srv_route_job_events, 0,
          READ, "after"),
    STREAMED("POST", "/v1/datasets", "/v1/datasets", srv_route_datasets_post,
             &srv_upload_sink, SUBMIT, "format kind"),
    ROUTE("GET", "/v1/datasets/{}", "/v1/datasets/{id}", srv_route_dataset_get, 0, READ,
          NULL),
    /* the dashboard: open, since its page is what asks for a token */
    ROUTE("GET", "/ui", "/ui", srv_route_ui_root, 0, OPEN, NULL),
    ROUTE("GET", "/ui/{*}", "/ui/{file}", srv_route_ui, 0, OPEN, NULL),
    {0},
};
