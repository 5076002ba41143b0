/*
 * problem.c -- error responses as application/problem+json (RFC 9457).
 * Every error the daemon sends goes through here, so all of them carry
 * type, title, status, detail and instance (the request path).
 */
#include <stdio.h>
#include <string.h>

#include "http/http.h"
#include "problem.h"

cJSON *srv_problem_new(srv_req *r, unsigned status, const char *slug,
                       const char *title, const char *detail)
{
    return api_problem_new(status, slug, title, detail, r->path);
}

void srv_problem_send(srv_req *r, unsigned status, cJSON *doc)
{
    char *text = api_problem_text(doc);
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
    if (o && !api_problem_add_member(o, pointer, reason)) {
        cJSON_Delete(o);
        o = NULL;
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

/* Storage faults say what they are and when to come back: a client can
 * retry a 503 or a 507, and must not retry a 500. */
void srv_problem_store(srv_req *r, store_rc rc, const char *what)
{
    static const struct {
        store_rc rc;
        unsigned status;
        const char *slug, *title, *retry, *detail;
    } faults[] = {
        {STORE_BUSY, MHD_HTTP_SERVICE_UNAVAILABLE, "store-busy", "Store busy", "2",
         "the job store is locked by another process (a backup?); retry later"},
        {STORE_FULL, MHD_HTTP_INSUFFICIENT_STORAGE, "store-full", "Store full", "60",
         "the job store's disk is full; nothing was written"},
        {STORE_READONLY, MHD_HTTP_SERVICE_UNAVAILABLE, "store-read-only",
         "Store read-only", "30", "the job store cannot be written (read-only, or "
         "moved or deleted while in use); nothing was written"},
        {STORE_IOERR, MHD_HTTP_SERVICE_UNAVAILABLE, "store-unavailable",
         "Store unavailable", "5", "the job store reported an I/O error; retry later"},
        {STORE_NOMEM, MHD_HTTP_SERVICE_UNAVAILABLE, "store-unavailable",
         "Store unavailable", "5", "the server is out of memory; retry later"},
    };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        if (faults[i].rc == rc) {
            srv_store_note(r->st, rc, what);
            srv_reply_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "%s", faults[i].retry);
            srv_problem(r, faults[i].status, faults[i].slug, faults[i].title, "%s: %s",
                        what, faults[i].detail);
            return;
        }
    srv_problem_internal(r, r->st ? store_errmsg(r->st) : what);
}

void srv_problem_job(srv_req *r, store_rc rc)
{
    if (rc == STORE_NOTFOUND || rc == STORE_INVALID) /* invalid: not an id */
        srv_problem(r, MHD_HTTP_NOT_FOUND, "job-not-found", "Job not found",
                    "no job with id \"%.64s%s\"", r->params[0],
                    strlen(r->params[0]) > 64 ? "..." : "");
    else
        srv_problem_store(r, rc, "read the job");
}
