/*
 * routes.h -- the routes room of ircgd (docs/DESIGN.md, "The server's
 * rooms"): the endpoints, on top of the http, jobs and mpi rooms.
 *
 *   table.c            the route table: one row per method and path
 *   routes_jobs.c      /v1/jobs: submit, list, get, spec, cancel, delete
 *   routes_data.c      results and snapshots
 *   routes_trace.c     /v1/jobs/{id}/trace
 *   routes_datasets.c  /v1/datasets
 *   upload.c           dataset uploads streamed to the data directory
 *   routes_misc.c      health, readiness, metrics, version
 *   sse.c              /v1/jobs/{id}/events
 *   static.c           the dashboard (/ui), Chart.js from its Debian
 *                      package, /openapi.json and /v1/examples, from files
 *                      compiled in (assets.h)
 *   dryrun.c           ?dry_run=full on a worker of its own
 */
#ifndef IRCG_SERVER_ROUTES_H
#define IRCG_SERVER_ROUTES_H

#include <cjson/cJSON.h>

#include "base/base.h"
#include "http/http.h"

/* The table (table.c) and its handlers (routes_*.c). */
extern const srv_route srv_routes[];

void srv_route_jobs_list(srv_req *r);
void srv_route_jobs_submit(srv_req *r);
void srv_route_job_get(srv_req *r);
void srv_route_job_spec(srv_req *r);
void srv_route_job_delete(srv_req *r);
void srv_route_job_cancel(srv_req *r);
void srv_route_job_trace(srv_req *r);
void srv_route_job_result(srv_req *r);
void srv_route_job_snapshots(srv_req *r);
void srv_route_job_snapshot_get(srv_req *r);
void srv_route_job_events(srv_req *r);
void srv_route_datasets_post(srv_req *r);
void srv_route_dataset_get(srv_req *r);
void srv_route_healthz(srv_req *r);
void srv_route_readyz(srv_req *r);
void srv_route_metrics(srv_req *r);
void srv_route_version(srv_req *r);
void srv_route_openapi(srv_req *r);
void srv_route_examples(srv_req *r);
void srv_route_ui_root(srv_req *r);
void srv_route_ui(srv_req *r);

/* upload.c: a dataset upload streamed to a temporary file of the data
 * directory's datasets/ as it arrives (the sink of POST /v1/datasets). */
typedef struct srv_upload {
    int fd;                 /* the temporary file, open for writing       */
    char path[1200];        /* its path; "" once the handler moved it    */
    store_sha256_ctx sha;   /* of the bytes so far: the dataset's id      */
    int64_t bytes;
} srv_upload;
extern const srv_sink srv_upload_sink;
/* The request's upload, now the caller's (srv_upload_free removes its
 * file unless moved); NULL when there is none. */
srv_upload *srv_upload_take(srv_req *r);
void srv_upload_free(srv_upload *u);
/* "<data-dir>/datasets", where datasets' files live. */
void srv_datasets_dir(char *out, size_t cap);
/* Removes the files of uploads a crash interrupted (at start). */
void srv_uploads_sweep(void);

/* The job resource as JSON (routes_jobs.c), used by several routes. */
cJSON *srv_job_json(const store_job *j, int with_result_summary);

/* ----------------------------------------------------------- dry runs -- */

/* dryrun.c: the worker of ?dry_run=full (one at a time, a job's limits);
 * started and stopped with the workers. */
int srv_dryrun_start(void);
void srv_dryrun_stop(void);
/* The full build of the request's body on that worker, this thread
 * waiting; the reply (200 with the normalized spec and the estimate, the
 * spec's problem document, 422 time-limit, or 503 dry-runs-busy) is sent
 * on r.  time_limit: the spec's (0: none; capped at --request-timeout). */
void srv_dryrun_full(struct srv_req *r, double time_limit);

#endif /* IRCG_SERVER_ROUTES_H */
