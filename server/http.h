/*
 * http.h -- the request context handed to route handlers, and replies.
 */
#ifndef IRCG_SERVER_HTTP_H
#define IRCG_SERVER_HTTP_H

#include <cjson/cJSON.h>
#include <microhttpd.h>

#include "server.h"

#define SRV_MAX_PARAMS 3
#define SRV_MAX_HDRS 6
#define SRV_REQUEST_ID_MAX 128

typedef struct srv_req srv_req;
typedef void (*srv_handler)(srv_req *r);

struct srv_route;

/* Where a request without a connection (fuzzing, tests) finds its
 * headers (MHD_HEADER_KIND) and query arguments (MHD_GET_ARGUMENT_KIND):
 * one by name, or all of a kind (as MHD_get_connection_values). */
typedef struct srv_req_source {
    const char *(*value)(void *ctx, enum MHD_ValueKind kind, const char *name);
    int (*each)(void *ctx, enum MHD_ValueKind kind, MHD_KeyValueIterator it, void *cls);
    void *ctx;
} srv_req_source;

struct srv_req {
    struct MHD_Connection *conn; /* NULL: src below, replies recorded   */
    const srv_req_source *src;
    char method[16];
    char path[512];
    const struct srv_route *route; /* NULL: no route matched             */
    char params[SRV_MAX_PARAMS][160];
    api_buf body;
    int64_t body_seen;          /* bytes received, kept or not           */
    int too_large;              /* body exceeded max_body                */
    int over_budget;            /* the body could not be held (reqmem.c) */
    int64_t reserved;           /* bytes held against the requests'
                                   budget, given back when it ends      */
    int responded;              /* a response was queued                 */
    unsigned status;            /* the status sent (for the log)         */
    double t0;                  /* monotonic start, for the log          */
    char request_id[SRV_REQUEST_ID_MAX + 1]; /* X-Request-Id, ours or the
                                   client's; echoed and logged           */
    store *st;                  /* borrowed from the pool by dispatch    */
    int nhdr;
    struct { char name[40]; char value[300]; } hdr[SRV_MAX_HDRS];
};

typedef struct srv_route {
    const char *pattern;        /* "/v1/jobs/{}/trace"; a final "{*}"
                                   matches the rest of the path           */
    const char *name;           /* metrics label: "/v1/jobs/{id}/trace"  */
    const char *allow;          /* "GET, POST"                           */
    srv_handler get, post, del;
    int body;                   /* POST carries a body (limits apply)    */
    /* the scope each method needs; SRV_SCOPE_NONE: no token needed      */
    srv_scope need_get, need_post, need_del;
    /* the query parameters each method accepts, space separated (NULL:
     * none); any other one is refused with 400 before the handler runs */
    const char *query_get, *query_post, *query_del;
} srv_route;

/* The scope a request with `method` needs on rt; a method the route does
 * not serve needs the lowest scope of the ones it does (its 405 tells
 * which methods exist, nothing more). */
srv_scope srv_route_need(const srv_route *rt, const char *method);

/* The query parameters `method` accepts on rt (NULL: none). */
const char *srv_route_query(const srv_route *rt, const char *method);

/* Request data. */
const char *srv_req_header(srv_req *r, const char *name);
const char *srv_req_query(srv_req *r, const char *name);

/* Replies: each queues one response.  srv_reply takes ownership of body
 * (malloc'ed or NULL). Headers added with srv_reply_header are sent with
 * the next reply. */
void srv_reply_header(srv_req *r, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void srv_reply(srv_req *r, unsigned status, const char *ctype, char *body,
               size_t len);
void srv_reply_json(srv_req *r, unsigned status, cJSON *doc); /* frees doc */
void srv_reply_response(srv_req *r, unsigned status, struct MHD_Response *resp);

/* stream.c: bodies made piece by piece, and gzip.  A fill function
 * appends the next piece of the body to out and returns 0 (more follows),
 * 1 (that was the last piece) or -1 (error: the connection is closed,
 * and the client sees a truncated chunked body, never a complete-looking
 * one).  ctx is freed with ctx_free when the response is done. */
typedef int (*srv_fill_fn)(void *ctx, api_buf *out);
void srv_reply_stream(srv_req *r, unsigned status, const char *ctype,
                      srv_fill_fn fill, void *ctx, void (*ctx_free)(void *));
/* The client accepts gzip (Accept-Encoding, q > 0). */
int srv_wants_gzip(srv_req *r);
/* Buffered bodies: srv_reply compresses when this says so. */
int srv_gzip_worth(srv_req *r, const char *ctype, size_t len);
/* gzip of n bytes into *out (malloc'ed); 0 on success. */
int srv_gzip(const char *in, size_t n, char **out, size_t *outlen);

/* problem.c: application/problem+json. type is a slug ("job-not-found");
 * the full type is "urn:ircg:problem:<slug>". */
cJSON *srv_problem_new(srv_req *r, unsigned status, const char *slug,
                       const char *title, const char *detail);
void srv_problem_send(srv_req *r, unsigned status, cJSON *doc);
void srv_problem(srv_req *r, unsigned status, const char *slug,
                 const char *title, const char *detail_fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A problem with errors: [{pointer, reason}] (one entry). */
void srv_problem_member(srv_req *r, unsigned status, const char *slug,
                        const char *title, const char *pointer,
                        const char *reason);
void srv_problem_internal(srv_req *r, const char *what);
/* A store call on r->st failed with rc: 503 store-busy / store-read-only /
 * store-unavailable or 507 store-full, with Retry-After, for a storage
 * fault (noted in the store's health); 500 for anything else.  `what`
 * names the operation ("submit"). */
void srv_problem_store(srv_req *r, store_rc rc, const char *what);
/* A lookup of the job r->params[0] failed with rc: 404 job-not-found when
 * there is no such job (or the id cannot be one), else srv_problem_store. */
void srv_problem_job(srv_req *r, store_rc rc);

/* Routes (routes_*.c). */
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

/* params.c: 400 naming the first query parameter the route does not
 * accept; 1 when every parameter is known. */
int srv_query_known(srv_req *r);

/* cors.c: the CORS headers of a response to an allowed Origin (none when
 * CORS is off or the origin is not listed); the answer to a preflight
 * (OPTIONS). */
void srv_cors_headers(srv_req *r, struct MHD_Response *resp);
void srv_cors_preflight(srv_req *r);

/* accesslog.c: the request id (the client's X-Request-Id when it is
 * acceptable, else a fresh one) and the access log line of a request. */
void srv_request_id(srv_req *r);
void srv_access_log(srv_req *r, double ms, int aborted);

/* The job resource as JSON (routes_jobs.c), used by several routes. */
cJSON *srv_job_json(const store_job *j, int with_result_summary);

/* One request through the same steps MHD drives (http.c): begin (after
 * the headers: route, early refusals), body pieces, dispatch (the
 * handler), end (frees r).  With conn == NULL, the request's headers and
 * arguments come from src (borrowed until srv_req_end), and replies only
 * record r->status. */
srv_req *srv_req_begin(struct MHD_Connection *conn, const char *url, const char *method,
                       const srv_req_source *src);
/* Every header or query argument of r, as MHD_get_connection_values. */
int srv_req_values(srv_req *r, enum MHD_ValueKind kind, MHD_KeyValueIterator it,
                   void *cls);
enum MHD_Result srv_req_body(srv_req *r, const char *data, size_t n);
void srv_req_dispatch(srv_req *r);
void srv_req_end(srv_req *r);

/* The daemon (http.c) on an already listening socket, which it owns from
 * then on (closed by MHD_stop_daemon unless quiesced). */
struct MHD_Daemon *srv_http_start(const srv_config *c, int listen_fd);

/* reqmem.c: the requests' memory budget.  take: 1 when `bytes` more fit
 * (then held by r until srv_req_end), 0 when not; refuse: the 503 that
 * says so. */
int srv_reqmem_take(srv_req *r, int64_t bytes);
void srv_reqmem_release(srv_req *r);
int64_t srv_reqmem_held(void);
void srv_reqmem_refuse(srv_req *r, int64_t bytes);

#endif /* IRCG_SERVER_HTTP_H */
