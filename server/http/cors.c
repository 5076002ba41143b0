/*
 * cors.c -- Cross-Origin Resource Sharing, off unless the operator lists
 * the origins (--cors-origins) whose pages may call the API.  The
 * dashboard at /ui is same-origin and needs none of it.
 *
 * An allowed Origin gets Access-Control-Allow-Origin echoing it (never
 * "*": requests carry bearer tokens), Vary: Origin, and the headers a
 * script may read.  A preflight (OPTIONS) needs no token: browsers send
 * none with it.
 */
#include <string.h>
#include <strings.h>

#include "http/http.h"

/* Headers a cross-origin script may send, and read. */
#define ALLOW_HEADERS \
    "Authorization, Content-Type, Idempotency-Key, If-None-Match, Last-Event-ID, X-Request-Id"
#define EXPOSE_HEADERS \
    "Location, Link, ETag, Retry-After, X-Request-Id, X-Next-After, Idempotent-Replayed"

/* Is origin in the comma-separated list (exact match, case-insensitive
 * scheme and host as browsers send them lowercased)? */
static bool is_origin_allowed(const char *origin)
{
    const char *list = srv.cfg.cors_origins;
    size_t n = origin ? strlen(origin) : 0;
    if (!n)
        return false;
    for (const char *p = list; *p;) {
        p += strspn(p, " ,");
        size_t w = strcspn(p, " ,");
        if (w == n && !strncasecmp(p, origin, n))
            return true;
        p += w;
    }
    return false;
}

void srv_cors_headers(srv_req *r, struct MHD_Response *resp)
{
    const char *origin = srv_req_header(r, "Origin");
    if (!srv.cfg.cors_origins[0] || !is_origin_allowed(origin))
        return;
    MHD_add_response_header(resp, "Access-Control-Allow-Origin", origin);
    MHD_add_response_header(resp, "Vary", "Origin");
    MHD_add_response_header(resp, "Access-Control-Expose-Headers", EXPOSE_HEADERS);
}

void srv_cors_preflight(srv_req *r)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    char allow[64];
    if (!resp)
        return;
    srv_route_allow(r->route, allow, sizeof allow);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    if (srv.cfg.cors_origins[0] && is_origin_allowed(srv_req_header(r, "Origin"))) {
        MHD_add_response_header(resp, "Access-Control-Allow-Methods", allow);
        MHD_add_response_header(resp, "Access-Control-Allow-Headers", ALLOW_HEADERS);
        MHD_add_response_header(resp, "Access-Control-Max-Age", "600");
    }
    srv_reply_response(r, MHD_HTTP_NO_CONTENT, resp);
}
