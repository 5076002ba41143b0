/*
 * params.c -- query parameters a route does not accept are refused with a
 * 400 that names them, so a misspelt ?page_sise= or an option this server
 * does not have is never silently ignored.
 */
#include <stdio.h>
#include <string.h>

#include "http/http.h"

typedef struct unknown_scan {
    const char *accepted; /* space-separated names, or NULL */
    char first[64];       /* the first unknown name seen */
} unknown_scan;

/* Is `name` one of the space-separated words of `list`? */
static bool is_listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        size_t w = strcspn(p, " ");
        if (w == n && !strncmp(p, name, n))
            return true;
        p += w;
        p += strspn(p, " ");
    }
    return false;
}

static enum MHD_Result check_one(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    unknown_scan *u = cls;
    (void)kind;
    (void)value;
    if (is_listed(u->accepted, key))
        return MHD_YES;
    snprintf(u->first, sizeof u->first, "%s", key);
    return MHD_NO; /* stop at the first */
}

int srv_query_check(srv_req *r)
{
    unknown_scan u = {.accepted = srv_route_query(r->route, r->method)};
    char pointer[80], reason[160];
    srv_req_values(r, MHD_GET_ARGUMENT_KIND, check_one, &u);
    if (!u.first[0])
        return 0;
    const char *acc = u.accepted ? u.accepted : "";
    snprintf(pointer, sizeof pointer, "/query/%s", u.first);
    snprintf(reason, sizeof reason, "unknown query parameter \"%s\"%s%s%s", u.first,
             *acc ? " (this operation accepts: " : " (this operation accepts none",
             acc, ")");
    srv_problem_member(r, MHD_HTTP_BAD_REQUEST, "invalid-parameter", "Invalid parameter",
                       pointer, reason);
    return -1;
}
