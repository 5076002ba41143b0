/*
 * problem.c -- error responses as application/problem+json (RFC 9457).
 * Every error the daemon sends goes through here, so all of them carry
 * type, title, status, detail and instance (the request path).
 */
#include <stdio.h>
#include <string.h>

#include "http.h"

cJSON *srv_problem_new(srv_req *r, unsigned status, const char *slug,
                       const char *title, const char *detail)
{
    char type[128];
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    snprintf(type, sizeof type, "urn:ircg:problem:%s", slug);
    cJSON_AddStringToObject(o, "type", type);
    cJSON_AddStringToObject(o, "title", title);
    cJSON_AddNumberToObject(o, "status", status);
    if (detail)
        cJSON_AddStringToObject(o, "detail", detail);
    cJSON_AddStringToObject(o, "instance", r->path);
    return o;
}

void srv_problem_send(srv_req *r, unsigned status, cJSON *doc)
{
    char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
    cJSON_Delete(doc);
    if (text)
        srv_reply(r, status, "application/problem+json", text, strlen(text));
    else
        srv_reply(r, status, NULL, NULL, 0);
}

void srv_problem(srv_req *r, unsigned status, const char *slug,
                 const char *title, const char *detail_fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, detail_fmt);
    vsnprintf(detail, sizeof detail, detail_fmt, ap);
    va_end(ap);
    srv_problem_send(r, status, srv_problem_new(r, status, slug, title, detail));
}

void srv_problem_member(srv_req *r, unsigned status, const char *slug,
                        const char *title, const char *pointer,
                        const char *reason)
{
    cJSON *o = srv_problem_new(r, status, slug, title, reason);
    cJSON *list = o ? cJSON_AddArrayToObject(o, "errors") : NULL;
    cJSON *e = list ? cJSON_CreateObject() : NULL;
    if (e) {
        cJSON_AddStringToObject(e, "pointer", pointer);
        cJSON_AddStringToObject(e, "reason", reason);
        cJSON_AddItemToArray(list, e);
    }
    srv_problem_send(r, status, o);
}

/* Internals are logged, never echoed to the client. */
void srv_problem_internal(srv_req *r, const char *what)
{
    srv_log("internal error on %s %s: %s", r->method, r->path, what);
    srv_problem(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "Internal error",
                "the server could not complete the request");
}
