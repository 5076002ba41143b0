/*
 * http.c -- libmicrohttpd glue: the daemon, the request context, body
 * accumulation with limits, routing, replies and the request log.
 *
 * MHD runs one thread per connection (docs/DESIGN.md, "The daemon"), so
 * handlers may block (SSE) without stalling other clients.  For each
 * request the access handler is called (1) after the headers -- we
 * allocate the context, match the route and reject early (401/413/415/503)
 * so a refused body is never read --, (2) for each piece of the body, which
 * we append up to the limit, and (3) once more with no data, when we
 * dispatch to the route handler.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/http.h"

/* ------------------------------------------------------- request data -- */

static const char *lookup(srv_req *r, enum MHD_ValueKind kind, const char *name)
{
    if (r->conn)
        return MHD_lookup_connection_value(r->conn, kind, name);
    return r->src ? r->src->value(r->src->ctx, kind, name) : NULL;
}

int srv_req_values(srv_req *r, enum MHD_ValueKind kind, MHD_KeyValueIterator it,
                   void *cls)
{
    if (r->conn)
        return MHD_get_connection_values(r->conn, kind, it, cls);
    return r->src ? r->src->each(r->src->ctx, kind, it, cls) : 0;
}

const char *srv_req_header(srv_req *r, const char *name)
{
    return lookup(r, MHD_HEADER_KIND, name);
}

const char *srv_req_query(srv_req *r, const char *name)
{
    return lookup(r, MHD_GET_ARGUMENT_KIND, name);
}

/* ------------------------------------------------------------ replies -- */

void srv_reply_header(srv_req *r, const char *name, const char *fmt, ...)
{
    if (r->nhdr >= SRV_MAX_HDRS)
        return;
    va_list ap;
    va_start(ap, fmt);
    snprintf(r->hdr[r->nhdr].name, sizeof r->hdr[0].name, "%s", name);
    vsnprintf(r->hdr[r->nhdr].value, sizeof r->hdr[0].value, fmt, ap);
    va_end(ap);
    r->nhdr++;
}

void srv_reply_response(srv_req *r, unsigned status, struct MHD_Response *resp)
{
    if (!resp || r->responded) {
        if (resp)
            MHD_destroy_response(resp);
        return;
    }
    for (int i = 0; i < r->nhdr; i++)
        MHD_add_response_header(resp, r->hdr[i].name, r->hdr[i].value);
    r->nhdr = 0;
    MHD_add_response_header(resp, "X-Request-Id", r->request_id);
    srv_cors_headers(r, resp);
    if (!r->conn || MHD_queue_response(r->conn, status, resp) == MHD_YES) {
        r->responded = 1;
        r->status = status;
    }
    MHD_destroy_response(resp);
}

void srv_reply(srv_req *r, unsigned status, const char *ctype, char *body,
               size_t len)
{
    char *gz = NULL;
    size_t gzlen = 0;
    int zipped = body && srv_gzip_is_worth(r, ctype, len) && srv_gzip(body, len, &gz, &gzlen) == 0;
    if (zipped) {
        free(body);
        body = gz;
        len = gzlen;
    } else {
        free(gz);
    }
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        body ? len : 0, body ? body : (void *)"", body ? MHD_RESPMEM_MUST_FREE
                                                       : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        free(body);
        return;
    }
    if (ctype && body)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    if (ctype && body)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
    if (zipped)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
    srv_reply_response(r, status, resp);
}

void srv_reply_json(srv_req *r, unsigned status, cJSON *doc)
{
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (!text) {
        srv_reply(r, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, NULL, 0);
        return;
    }
    size_t n = strlen(text);
    /* a trailing newline makes curl output readable */
    char *grown = realloc(text, n + 2);
    if (grown) {
        text = grown;
        text[n++] = '\n';
        text[n] = '\0';
    }
    srv_reply(r, status, "application/json", text, n);
}

/* ------------------------------------------------------------ routing -- */

/* Matches path segments against a pattern where "{}" matches one
 * non-empty segment and a final "{*}" the rest of the path (possibly
 * empty); captured segments go to r->params. */
static bool matches(const char *pattern, const char *path, srv_req *r)
{
    int np = 0;
    const char *p = pattern, *s = path;
    while (*p) {
        if (!strcmp(p, "{*}")) {
            size_t n = strlen(s);
            if (n >= sizeof r->params[0] || np >= SRV_MAX_PARAMS)
                return false;
            memcpy(r->params[np], s, n + 1);
            return true;
        }
        if (!*s)
            break;
        if (p[0] == '{' && p[1] == '}') {
            size_t n = strcspn(s, "/");
            if (n == 0 || n >= sizeof r->params[0] || np >= SRV_MAX_PARAMS)
                return false;
            memcpy(r->params[np], s, n);
            r->params[np++][n] = '\0';
            s += n;
            p += 2;
        } else if (*p++ != *s++) {
            return false;
        }
    }
    return *p == '\0' && *s == '\0';
}

static const srv_route *routes; /* srv_http_routes, before any request */

void srv_http_routes(const srv_route *table) { routes = table; }

bool srv_route_serves(const srv_route *rt, const char *method)
{
    return !strcmp(rt->method, method) ||
           (!strcmp(rt->method, "GET") && !strcmp(method, "HEAD"));
}

/* The row of the request's path and method; without one for its method,
 * the path's first row (dispatch answers 405); NULL for no such path. */
static const srv_route *find_route(srv_req *r)
{
    const srv_route *first = NULL;
    for (const srv_route *rt = routes; rt && rt->method; rt++) {
        if (first && strcmp(rt->pattern, first->pattern) != 0)
            break; /* a path's rows are adjacent: its method is not served */
        if (!first && !matches(rt->pattern, r->path, r))
            continue;
        if (srv_route_serves(rt, r->method))
            return rt;
        if (!first)
            first = rt;
    }
    return first;
}

/* The rows of rt's path: the table's run of rows with its pattern (rt a
 * row of the table srv_http_routes set; without one, rt and the rows
 * after it). */
static const srv_route *path_rows(const srv_route *rt, const srv_route **end)
{
    const srv_route *b = rt, *e = rt;
    while (routes && b > routes && !strcmp(b[-1].pattern, rt->pattern))
        b--;
    while (e->method && !strcmp(e->pattern, rt->pattern))
        e++;
    *end = e;
    return b;
}

srv_scope srv_route_need(const srv_route *rt, const char *method)
{
    const srv_route *end, *p = path_rows(rt, &end);
    srv_scope low = SRV_SCOPE_ADMIN;
    for (; p < end; p++) {
        if (srv_route_serves(p, method))
            return p->need;
        if (p->need < low)
            low = p->need;
    }
    return low;
}

const char *srv_route_query(const srv_route *rt, const char *method)
{
    const srv_route *end, *p;
    if (srv_route_serves(rt, method))
        return rt->query;
    if (!strcmp(method, "POST") || !strcmp(method, "DELETE"))
        return NULL;
    for (p = path_rows(rt, &end); p < end; p++)
        if (!strcmp(p->method, "GET"))
            return p->query;
    return NULL;
}

void srv_route_allow(const srv_route *rt, char *out, size_t len)
{
    const srv_route *end, *p = path_rows(rt, &end);
    size_t n = 0;
    out[0] = '\0';
    for (; p < end && n < len; p++)
        n += (size_t)snprintf(out + n, len - n, "%s%s", n ? ", " : "", p->method);
}

static srv_handler handler_of(const srv_route *rt, const char *method)
{
    return srv_route_serves(rt, method) ? rt->handler : NULL;
}

/* ------------------------------------------------------- early checks -- */

static bool is_json_content_type(const char *ct)
{
    if (!ct)
        return false;
    size_t n = strcspn(ct, "; \t");
    return n == 16 && !strncasecmp(ct, "application/json", 16);
}

/* The body limit of r's route: --max-upload for a streamed one. */
static int64_t body_limit(const srv_req *r)
{
    return r->route && r->route->body == 3 ? srv.cfg.max_upload : srv.cfg.max_body;
}

static bool is_body_too_large(srv_req *r)
{
    const char *cl = srv_req_header(r, MHD_HTTP_HEADER_CONTENT_LENGTH);
    return cl && strtoll(cl, NULL, 10) > body_limit(r);
}

static void too_large(srv_req *r)
{
    srv_problem(r, MHD_HTTP_CONTENT_TOO_LARGE, "payload-too-large", "Payload too large",
                "the body exceeds the limit of %lld bytes%s", (long long)body_limit(r),
                r->route && r->route->body == 3 ? " (--max-upload)" : "");
}

/* 0 when the request may go on; else -1, 401 without a known token, 403
 * (RFC 6750 insufficient_scope) with a token whose scope is too low. */
static int check_scope(srv_req *r, srv_scope need)
{
    srv_scope have = need == SRV_SCOPE_NONE ? SRV_SCOPE_ADMIN
                     : srv_auth_scope(srv_req_header(r, MHD_HTTP_HEADER_AUTHORIZATION));
    if (have >= need)
        return 0;
    if (have == SRV_SCOPE_NONE) {
        srv_reply_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"ircgd\"");
        srv_problem(r, MHD_HTTP_UNAUTHORIZED, "unauthorized", "Unauthorized",
                    "a valid bearer token is required");
    } else {
        srv_reply_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                         "Bearer realm=\"ircgd\", error=\"insufficient_scope\", scope=\"%s\"",
                         srv_scope_name(need));
        srv_problem(r, MHD_HTTP_FORBIDDEN, "insufficient-scope", "Insufficient scope",
                    "%s %s needs a token of scope %s; this one has scope %s", r->method,
                    r->route->name, srv_scope_name(need), srv_scope_name(have));
    }
    return -1;
}

/* Who a request comes from, for the rate limit: its token when tokens
 * are configured, else its address. */
static void client_of(srv_req *r, char *out, size_t len)
{
    const char *auth = srv_req_header(r, MHD_HTTP_HEADER_AUTHORIZATION);
    const union MHD_ConnectionInfo *ci =
        r->conn ? MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS)
                : NULL;
    char addr[64] = "local";
    if (srv.tokens.list) {
        snprintf(out, len, "token %s", auth ? auth : "");
        return;
    }
    if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)ci->client_addr)->sin_addr, addr,
                  sizeof addr);
    else if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ci->client_addr)->sin6_addr,
                  addr, sizeof addr);
    snprintf(out, len, "address %s", addr);
}

/* 0 when the client is within its rate (or no limit is set); else -1,
 * 429 queued. */
static int check_rate(srv_req *r)
{
    char client[400];
    double wait = 0;
    if (srv.cfg.rate_limit <= 0)
        return 0;
    client_of(r, client, sizeof client);
    if (srv_rate_take(client, &wait) == 0)
        return 0;
    srv_reply_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "%.0f", ceil(wait));
    srv_problem(r, MHD_HTTP_TOO_MANY_REQUESTS, "rate-limited", "Too many requests",
                "more than %g requests per second (burst %g); retry after %.0f s",
                srv.cfg.rate_limit, srv.cfg.rate_burst, ceil(wait));
    return -1;
}

/* Called on the headers-only call; queues a refusal when the request can
 * be refused without reading its body. */
static void early_checks(srv_req *r)
{
    const srv_route *rt = r->route;
    int posts_body = rt && rt->body && !strcmp(r->method, "POST");
    if (!rt) {
        /* 404 after the body, from dispatch */
    } else if (!strcmp(r->method, "OPTIONS")) {
        srv_cors_preflight(r); /* browsers send no credentials with it */
    } else if (check_scope(r, srv_route_need(rt, r->method)) != 0) {
        /* refused: 401 or 403 queued */
    } else if (srv_route_need(rt, r->method) != SRV_SCOPE_NONE && check_rate(r) != 0) {
        /* 429 queued by check_rate */
    } else if (srv_query_check(r) != 0) {
        /* 400 naming the parameter queued */
    } else if (posts_body && srv_is_shutting_down()) {
        srv_reply_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "5");
        srv_problem(r, MHD_HTTP_SERVICE_UNAVAILABLE, "shutting-down",
                    "Shutting down", "the server is shutting down");
    } else if (posts_body && rt->body == 1 &&
               !is_json_content_type(srv_req_header(r, MHD_HTTP_HEADER_CONTENT_TYPE))) {
        srv_problem(r, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type",
                    "Unsupported media type", "the body must be application/json");
    } else if (posts_body && is_body_too_large(r)) {
        too_large(r);
    } else if (posts_body && rt->body == 3 && rt->sink && rt->sink->open(r) != 0) {
        int full = errno == ENOSPC || errno == EDQUOT;
        srv_problem(r, full ? MHD_HTTP_INSUFFICIENT_STORAGE : MHD_HTTP_INTERNAL_SERVER_ERROR,
                    full ? "data-dir-full" : "internal", full ? "Data directory full"
                                                            : "Internal error",
                    "the upload cannot be written to the data directory: %s",
                    strerror(errno));
    }
}

void srv_req_dispatch(srv_req *r)
{
    srv_handler h = r->route ? handler_of(r->route, r->method) : NULL;
    srv_guard_busy(r->conn, 1); /* received whole: no deadline now */
    if (!r->route) {
        srv_problem(r, MHD_HTTP_NOT_FOUND, "not-found", "Not found",
                    "no resource at %s", r->path);
    } else if (!h) {
        char allow[64];
        srv_route_allow(r->route, allow, sizeof allow);
        srv_reply_header(r, MHD_HTTP_HEADER_ALLOW, "%s", allow);
        srv_problem(r, MHD_HTTP_METHOD_NOT_ALLOWED, "method-not-allowed",
                    "Method not allowed", "%s does not support %s; allowed: %s",
                    r->route->name, r->method, allow);
    } else if (r->too_large) {
        too_large(r);
    } else if (r->over_budget) {
        srv_reqmem_refuse(r, r->body_seen);
    } else if (!(r->st = srv_pool_get())) {
        srv_reply_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "5");
        srv_problem(r, MHD_HTTP_SERVICE_UNAVAILABLE, "store-unavailable",
                    "Store unavailable", "the job store cannot be opened");
    } else {
        h(r);
        srv_pool_put(r->st);
        r->st = NULL;
    }
    if (!r->responded)
        srv_problem_internal(r, "the handler produced no response");
}

/* Appends a piece of the body; beyond the limit the bytes are dropped and
 * the request ends in 413.  A client streaming far past the limit is
 * disconnected rather than read forever. */
/* A piece of a streamed body (route body 3) to its sink: past the limit
 * the sink is dropped and the request ends in 413, a client streaming far
 * past it disconnected.  Each piece earns the connection time (64 KiB a
 * second). */
static enum MHD_Result stream_body(srv_req *r, const char *data, size_t n)
{
    int64_t limit = srv.cfg.max_upload;
    r->body_seen += (int64_t)n;
    if (r->body_seen > limit) {
        r->too_large = 1;
        if (r->sink_ctx)
            r->route->sink->abort(r);
        return r->body_seen > limit + limit / 4 + (1 << 20) ? MHD_NO : MHD_YES;
    }
    if (r->conn)
        srv_guard_extend(r->conn, (double)n / 65536.0);
    if (r->sink_ctx && !r->sink_errno && r->route->sink->write(r, data, n) != 0)
        r->sink_errno = errno ? errno : EIO;
    return MHD_YES;
}

enum MHD_Result srv_req_body(srv_req *r, const char *data, size_t n)
{
    if (r->route && r->route->body == 3)
        return stream_body(r, data, n);
    r->body_seen += (int64_t)n;
    if (r->body_seen > srv.cfg.max_body || r->over_budget) {
        r->too_large = !r->over_budget;
        api_buf_free(&r->body);
        return r->body_seen > 4 * srv.cfg.max_body + (1 << 20) ? MHD_NO : MHD_YES;
    }
    /* the buffer doubles from 256 bytes (buf.c): hold the capacity it
     * will take before it takes it */
    int64_t grown = r->body.cap ? (int64_t)r->body.cap : 256;
    while (grown < (int64_t)(r->body.len + n + 1))
        grown *= 2;
    if (grown > r->reserved && srv_reqmem_take(r, grown - r->reserved) != 0) {
        r->over_budget = 1;
        api_buf_free(&r->body);
        return MHD_YES; /* read to the end, then 503 */
    }
    api_buf_add(&r->body, data, n);
    return r->body.nomem ? MHD_NO : MHD_YES;
}

/* The headers-only call: a fresh context, the route, early refusals. */
srv_req *srv_req_begin(struct MHD_Connection *conn, const char *url, const char *method,
                       const srv_req_source *src)
{
    srv_req *r = calloc(1, sizeof *r);
    if (r) {
        r->conn = conn;
        r->src = src;
        r->t0 = srv_mono();
        snprintf(r->method, sizeof r->method, "%s", method);
        srv_request_id(r);
        if (strlen(url) < sizeof r->path) {
            snprintf(r->path, sizeof r->path, "%s", url);
            r->route = find_route(r);
        } else { /* too long for any route: 404 */
            snprintf(r->path, sizeof r->path, "%.500s...", url);
        }
        early_checks(r);
    }
    return r;
}

void srv_req_end(srv_req *r)
{
    if (!r)
        return;
    srv_pool_put(r->st);
    if (r->sink_ctx && r->route && r->route->sink)
        r->route->sink->abort(r);
    api_buf_free(&r->body);
    srv_reqmem_release(r);
    free(r);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
    (void)cls;
    (void)version;
    srv_req *r = *req_cls;
    enum MHD_Result ret = MHD_YES;
    if (!r) {
        *req_cls = r = srv_req_begin(conn, url, method, NULL);
        ret = r ? MHD_YES : MHD_NO;
    } else if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (!r->responded) /* after an early refusal the body is dropped */
            ret = srv_req_body(r, upload_data, n);
    } else if (!r->responded) {
        srv_req_dispatch(r);
    }
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    srv_req *r = *req_cls;
    if (!r)
        return;
    double ms = 1000.0 * (srv_mono() - r->t0);
    srv_access_log(r, ms, toe != MHD_REQUEST_TERMINATED_COMPLETED_OK);
    srv_metrics_request(r->route ? r->route->name : "other", r->method,
                        r->status, ms / 1000.0);
    srv_guard_busy(conn, 0); /* the next request on it has its deadline */
    srv_req_end(r);
    *req_cls = NULL;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    (void)cls;
    (void)socket_context;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        srv_guard_open(conn, ci ? (int)ci->connect_fd : -1);
    } else {
        srv_guard_close(conn);
    }
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n > 0 && msg[n - 1] == '\n')
        msg[--n] = '\0';
    srv_log("libmicrohttpd: %s", msg);
}

/* ------------------------------------------------------------- daemon -- */

struct MHD_Daemon *srv_http_start(const srv_config *c, int listen_fd)
{
    unsigned flags = MHD_USE_AUTO | MHD_USE_THREAD_PER_CONNECTION |
                     MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC |
                     MHD_USE_ERROR_LOG;
    /* HTTPS when a certificate was loaded (srv_tls_load checked it) */
    struct MHD_OptionItem tls[] = {
        {MHD_OPTION_HTTPS_MEM_KEY, 0, srv.tls.key},
        {MHD_OPTION_HTTPS_MEM_CERT, 0, srv.tls.cert},
        {MHD_OPTION_END, 0, NULL},
    };
    if (srv.tls.cert)
        flags |= MHD_USE_TLS;
    else
        tls[0].option = MHD_OPTION_END;
    return MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, NULL,
        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, /* first, or MHD warns */
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)c->conn_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)c->per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)c->conn_timeout,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(256 * 1024),
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL,
        MHD_OPTION_ARRAY, tls,
        MHD_OPTION_END);
}
