/*
 * http.h -- the http room of ircgd (docs/DESIGN.md, "The server's rooms"):
 * libmicrohttpd's requests as the request context handed to route
 * handlers, and their replies.  It stands on the base room only; the
 * routes are a table the daemon hands it (srv_http_routes).
 *
 *   http.c        libmicrohttpd glue: request context, body, routing, replies
 *   problem.c     application/problem+json responses
 *   params.c      unknown query parameters -> 400
 *   cors.c        CORS for the origins an operator allows
 *   accesslog.c   X-Request-Id and the JSON access log
 *   stream.c      bodies made piece by piece, and gzip
 *   reqmem.c      the requests' memory budget
 *   connguard.c   a deadline on receiving a request (slow clients)
 *   ratelimit.c   per-client request rates (token buckets)
 */
#ifndef IRCG_SERVER_HTTP_H
#define IRCG_SERVER_HTTP_H

#include <cjson/cJSON.h>
#include <microhttpd.h>

#include "base/base.h"

#define SRV_MAX_PARAMS 3
#define SRV_MAX_HDRS 6
#define SRV_REQUEST_ID_MAX 128

typedef struct srv_req srv_req;
typedef void (*srv_handler)(srv_req *r);

/* A body streamed to a sink rather than held in memory (a route's body 3:
 * dataset uploads, up to --max-upload): open once the request passed its
 * early checks (0; -1 answers 500 or 507, errno saying which), write for
 * each piece as it arrives (0; -1: the body is dropped, sink_errno says
 * why, and the handler answers), abort when the request ends without the
 * handler having taken r->sink_ctx (a refusal, a client gone). */
typedef struct srv_sink {
    int (*open)(srv_req *r);
    int (*write)(srv_req *r, const char *data, size_t n);
    void (*abort)(srv_req *r);
} srv_sink;

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
    void *sink_ctx;             /* a streamed body's (srv_sink): the
                                   handler takes it (sets it NULL)      */
    int sink_errno;             /* a streamed body's write failed        */
    int nhdr;
    struct { char name[40]; char value[300]; } hdr[SRV_MAX_HDRS];
};

/* One row per method and path.  Every row of a path has the same pattern
 * and name; the methods a path allows (405's Allow, CORS) are its rows'. */
typedef struct srv_route {
    const char *method;         /* "GET" (which answers HEAD too), "POST"
                                   or "DELETE"; NULL ends the table      */
    const char *pattern;        /* "/v1/jobs/{}/trace"; a final "{*}"
                                   matches the rest of the path           */
    const char *name;           /* metrics label: "/v1/jobs/{id}/trace"  */
    srv_handler handler;
    int body;                   /* 1: a JSON body, 2: any body (limits
                                   apply to both), 3: any body streamed
                                   to `sink` (up to --max-upload); 0:
                                   none                                 */
    srv_scope need;             /* the scope needed; SRV_SCOPE_NONE: no
                                   token needed                         */
    const srv_sink *sink;       /* body 3                                */
    const char *query;          /* the query parameters accepted, space
                                   separated (NULL: none); any other one
                                   is refused with 400 before the handler
                                   runs                                 */
} srv_route;

/* The route table requests are matched against, in order; set once by
 * the daemon (or a test) before the first request. */
void srv_http_routes(const srv_route *table);

/* The scope a request with `method` needs on rt's path; a method the path
 * does not serve needs the lowest scope of the ones it does (its 405
 * tells which methods exist, nothing more). */
srv_scope srv_route_need(const srv_route *rt, const char *method);

/* The query parameters `method` accepts on rt's path (NULL: none).  A
 * method the path does not serve is checked before its 405 as it always
 * was: POST and DELETE accept none, any other method the GET row's. */
const char *srv_route_query(const srv_route *rt, const char *method);

/* The methods rt's path serves, as Allow lists them ("GET, POST"). */
void srv_route_allow(const srv_route *rt, char *out, size_t len);

/* Whether rt serves `method` (a GET row serves HEAD too). */
bool srv_route_serves(const srv_route *rt, const char *method);

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
/* Whether the client accepts gzip (Accept-Encoding, q > 0). */
bool srv_wants_gzip(srv_req *r);
/* Buffered bodies: srv_reply compresses when this says so. */
bool srv_gzip_is_worth(srv_req *r, const char *ctype, size_t len);
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

/* params.c: 0 when every query parameter is one the route accepts; else
 * -1, the 400 naming the first other one queued. */
int srv_query_check(srv_req *r);

/* cors.c: the CORS headers of a response to an allowed Origin (none when
 * CORS is off or the origin is not listed); the answer to a preflight
 * (OPTIONS). */
void srv_cors_headers(srv_req *r, struct MHD_Response *resp);
void srv_cors_preflight(srv_req *r);

/* accesslog.c: the request id (the client's X-Request-Id when it is
 * acceptable, else a fresh one) and the access log line of a request. */
void srv_request_id(srv_req *r);
void srv_access_log(srv_req *r, double ms, int aborted);

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

/* reqmem.c: the requests' memory budget.  take: 0 when `bytes` more fit
 * (then held by r until srv_req_end), -1 when not; refuse: the 503 that
 * says so. */
int srv_reqmem_take(srv_req *r, int64_t bytes);
void srv_reqmem_release(srv_req *r);
int64_t srv_reqmem_held(void);
void srv_reqmem_refuse(srv_req *r, int64_t bytes);

/* --------------------------------------------------------- connguard -- */

/* Slow clients (connguard.c): a connection must deliver each request
 * within request_timeout_s (after a response, plus idle_timeout_s). */
int srv_guard_start(double request_timeout_s, double idle_timeout_s);
void srv_guard_stop(void);              /* after MHD_stop_daemon */
void srv_guard_open(const void *conn, int fd);
void srv_guard_close(const void *conn);
/* busy 1: a request is being handled (no deadline); 0: it was answered. */
void srv_guard_busy(const void *conn, int busy);
/* A streamed body's progress moves its deadline `seconds` later (uploads
 * may take longer than --request-timeout when they keep coming). */
void srv_guard_extend(const void *conn, double seconds);
uint64_t srv_guard_closed(void);        /* connections shut for slowness */

/* --------------------------------------------------------- ratelimit -- */

/* One request of `client` (its token, or its address) against its
 * bucket: 0 when allowed; -1 with *retry_after seconds otherwise. */
int srv_rate_take(const char *client, double *retry_after);
uint64_t srv_rate_refused(void);

#endif /* IRCG_SERVER_HTTP_H */
