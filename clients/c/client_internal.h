/*
 * client_internal.h -- what the files of libircgclient share: the handle,
 * one request/response exchange, the error record helpers and the JSON
 * accessors.  Not installed; the public API is ircg_client.h.
 */
#ifndef IRCG_CLIENT_INTERNAL_H
#define IRCG_CLIENT_INTERNAL_H

#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "ircg_client.h"

#define IRCG_CLIENT_VERSION "0.1.0"

struct ircg_client {
    CURL *curl;              /* reused: keeps the connection alive        */
    char *base;              /* base URL without a trailing slash         */
    char *auth;              /* "Authorization: Bearer ..." or NULL       */
    char *user_agent;
    long connect_ms, timeout_ms;
    char errbuf[CURL_ERROR_SIZE];
};

/* Called with each piece of a 2xx body of a streamed request; returns 0
 * to abort the transfer. */
typedef int (*cl_sink_fn)(void *user, const char *p, size_t n);
/* Called about once a second during a streamed request; nonzero aborts. */
typedef int (*cl_tick_fn)(void *user);

typedef struct cl_req {
    const char *method;      /* "GET", "POST", "DELETE"                   */
    const char *path;        /* escaped, may carry a query                */
    const char *ctype;       /* of the body; NULL = none                  */
    const void *body;        /* POST: may be NULL (empty)                 */
    size_t len;
    FILE *file;              /* POST: the body read from here instead (len
                                bytes), with no overall timeout: a large
                                upload fails only when it stalls 45 s    */
    const char *headers[4];  /* extra "Name: value", NULL-terminated      */
    cl_sink_fn sink;         /* stream: 2xx bytes go here, not to body    */
    cl_tick_fn tick;
    void *user;              /* of sink and tick                          */
} cl_req;

typedef struct cl_resp {
    long status;
    char *body;              /* NUL-terminated, owned; never NULL on OK   */
    size_t len;
    char ctype[128];
    char etag[96];
    double retry_after;      /* -1 when absent                            */
    int replayed;            /* "Idempotent-Replayed: true" was sent      */
} cl_resp;

/* Transport only: OK as soon as an HTTP answer arrived, whatever its
 * status.  Streamed requests have no overall timeout but fail when no byte
 * arrives for 45 s (the server sends a heartbeat every 15 s). */
ircg_client_code cl_send(ircg_client *c, const cl_req *rq, cl_resp *r,
                         ircg_client_error *err);
/* cl_send, then IRCG_CLIENT_ERR_HTTP for any status not in `ok` (a
 * 0-terminated list) with the error record filled from the answer. */
ircg_client_code cl_call(ircg_client *c, const cl_req *rq, const long *ok,
                         cl_resp *r, ircg_client_error *err);
void cl_resp_free(cl_resp *r);

/* Error record helpers; all accept err == NULL and return `code`. */
void cl_error_reset(ircg_client_error *err);
ircg_client_code cl_fail(ircg_client_error *err, ircg_client_code code,
                         long status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* IRCG_CLIENT_ERR_HTTP from an answer: status, problem+json members. */
ircg_client_code cl_fail_http(ircg_client_error *err, const cl_resp *r);

/* "/v1/jobs/<escaped id><suffix>", malloc'ed; NULL (and err set) when id
 * is NULL/empty or memory runs out. */
char *cl_job_path(ircg_client *c, const char *id, const char *suffix,
                  ircg_client_error *err);
char *cl_escape(ircg_client *c, const char *s); /* malloc'ed, or NULL */

/* The body as JSON (an object), or NULL with IRCG_CLIENT_ERR_PROTOCOL. */
cJSON *cl_parse_object(const cl_resp *r, ircg_client_error *err);
/* Copies a string member ("" when absent or not a string). */
void cl_json_str(const cJSON *o, const char *name, char *dst, size_t cap);
/* A number member; NaN when absent, null or not a number. */
double cl_json_num(const cJSON *o, const char *name);
int64_t cl_json_int(const cJSON *o, const char *name); /* 0 when absent */

/* Fills j from a job resource (json member left alone). */
void cl_job_from_json(const cJSON *o, ircg_client_job *j);

/* Appends n bytes to the growable, NUL-terminated (*buf, *len, *cap);
 * 0 when out of memory (the buffer is then unchanged). */
int cl_append(char **buf, size_t *len, size_t *cap, const void *p, size_t n);

/* Takes the body out of r (r->body becomes NULL). */
char *cl_take_body(cl_resp *r, size_t *len);

#endif /* IRCG_CLIENT_INTERNAL_H */
