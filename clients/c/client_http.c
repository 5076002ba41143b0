/*
 * client_http.c -- the handle and one HTTP exchange on libcurl: options,
 * body and header capture, streaming, and the error record (problem+json).
 */
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client_internal.h"

/* ------------------------------------------------------------- global -- */

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static CURLcode g_init_rc = CURLE_FAILED_INIT;

static void global_init_once(void)
{
    g_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

ircg_client_code ircg_client_global_init(void)
{
    /* curl_global_init is not thread-safe before libcurl 7.84; the once
     * flag makes concurrent first calls of ircg_client_new safe anyway */
    pthread_once(&g_once, global_init_once);
    return g_init_rc == CURLE_OK ? IRCG_CLIENT_OK : IRCG_CLIENT_ERR_NOMEM;
}

void ircg_client_global_cleanup(void)
{
    curl_global_cleanup();
}

const char *ircg_client_code_string(ircg_client_code c)
{
    switch (c) {
    case IRCG_CLIENT_OK: return "ok";
    case IRCG_CLIENT_ERR_INVALID: return "invalid argument";
    case IRCG_CLIENT_ERR_NOMEM: return "out of memory";
    case IRCG_CLIENT_ERR_TRANSPORT: return "transport error";
    case IRCG_CLIENT_ERR_HTTP: return "HTTP error";
    case IRCG_CLIENT_ERR_PROTOCOL: return "unexpected answer";
    case IRCG_CLIENT_ERR_TIMEOUT: return "timed out";
    case IRCG_CLIENT_ERR_STOPPED: return "stopped by the callback";
    }
    return "unknown error";
}

/* ------------------------------------------------------- error record -- */

void ircg_client_error_init(ircg_client_error *e)
{
    if (e) {
        memset(e, 0, sizeof *e);
        e->retry_after = -1;
    }
}

void ircg_client_error_clear(ircg_client_error *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->n_errors && e->errors; i++) {
        free(e->errors[i].pointer);
        free(e->errors[i].reason);
    }
    free(e->errors);
    free(e->body);
    ircg_client_error_init(e);
}

const char *ircg_client_error_reason(const ircg_client_error *e, const char *pointer)
{
    for (size_t i = 0; e && pointer && i < e->n_errors; i++)
        if (e->errors[i].pointer && !strcmp(e->errors[i].pointer, pointer))
            return e->errors[i].reason ? e->errors[i].reason : "";
    return NULL;
}

void cl_error_reset(ircg_client_error *err)
{
    ircg_client_error_clear(err);
}

ircg_client_code cl_fail(ircg_client_error *err, ircg_client_code code, long status,
                         const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        err->status = status;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

static int ctype_is(const char *ctype, const char *want)
{
    size_t n = strlen(want);
    return !strncasecmp(ctype, want, n) &&
           (ctype[n] == '\0' || ctype[n] == ';' || ctype[n] == ' ');
}

/* The "errors" list of a problem; on an allocation failure the list is
 * cut short (the status and title still tell what happened). */
static void take_member_errors(ircg_client_error *err, const cJSON *list)
{
    int n = cJSON_GetArraySize(list);
    const cJSON *it = NULL;
    if (n <= 0 || !(err->errors = calloc((size_t)n, sizeof *err->errors)))
        return;
    cJSON_ArrayForEach(it, list) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(it, "pointer");
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(it, "reason");
        ircg_client_member_error *m = &err->errors[err->n_errors];
        m->pointer = strdup(cJSON_IsString(p) ? p->valuestring : "");
        m->reason = strdup(cJSON_IsString(r) ? r->valuestring : "");
        if (!m->pointer || !m->reason) {
            free(m->pointer);
            free(m->reason);
            m->pointer = m->reason = NULL;
            return;
        }
        err->n_errors++;
    }
}

ircg_client_code cl_fail_http(ircg_client_error *err, const cl_resp *r)
{
    if (!err)
        return IRCG_CLIENT_ERR_HTTP;
    err->code = IRCG_CLIENT_ERR_HTTP;
    err->status = r->status;
    err->retry_after = r->retry_after;
    if (r->len > 0)
        err->body = strdup(r->body);
    cJSON *doc = r->len > 0 && (ctype_is(r->ctype, "application/problem+json") ||
                                ctype_is(r->ctype, "application/json"))
                     ? cJSON_Parse(r->body) : NULL;
    if (cJSON_IsObject(doc)) {
        cl_json_str(doc, "type", err->type, sizeof err->type);
        cl_json_str(doc, "title", err->title, sizeof err->title);
        cl_json_str(doc, "detail", err->detail, sizeof err->detail);
        if (!err->detail[0]) /* /readyz: {"status":"unavailable","reason":..} */
            cl_json_str(doc, "reason", err->detail, sizeof err->detail);
        take_member_errors(err, cJSON_GetObjectItemCaseSensitive(doc, "errors"));
    }
    cJSON_Delete(doc);
    if (err->title[0] || err->detail[0])
        snprintf(err->message, sizeof err->message, "HTTP %ld %.127s%s%.360s", r->status,
                 err->title, err->title[0] && err->detail[0] ? ": " : "", err->detail);
    else
        snprintf(err->message, sizeof err->message, "HTTP %ld", r->status);
    return IRCG_CLIENT_ERR_HTTP;
}

/* ------------------------------------------------------------- handle -- */

void ircg_client_options_default(ircg_client_options *o)
{
    if (o) {
        memset(o, 0, sizeof *o);
        o->connect_timeout = 5.0;
        o->timeout = 60.0;
    }
}

static long to_ms(double s)
{
    return s >= 1e7 ? 10000000000L : (long)ceil(s * 1000.0);
}

ircg_client_code ircg_client_new(const char *base_url, const ircg_client_options *opt,
                                 ircg_client **out, ircg_client_error *err)
{
    ircg_client_options def;
    ircg_client *c = NULL;
    ircg_client_code rc = IRCG_CLIENT_OK;
    cl_error_reset(err);
    if (!out)
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "out is NULL");
    *out = NULL;
    if (!opt) {
        ircg_client_options_default(&def);
        opt = &def;
    }
    if (!base_url || (strncasecmp(base_url, "http://", 7) != 0 &&
                      strncasecmp(base_url, "https://", 8) != 0))
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0,
                       "the base URL must start with http:// or https://");
    if (!(opt->connect_timeout > 0) || !(opt->timeout > 0))
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "timeouts must be > 0 seconds");
    if (opt->token && (!*opt->token || strpbrk(opt->token, "\r\n")))
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0,
                       "the token must be non-empty and on one line");
    if ((rc = ircg_client_global_init()) != IRCG_CLIENT_OK)
        return cl_fail(err, rc, 0, "curl_global_init failed");
    if (!(c = calloc(1, sizeof *c)))
        goto nomem;
    size_t n = strlen(base_url);
    while (n > 0 && base_url[n - 1] == '/')
        n--;
    if (!(c->base = strndup(base_url, n)) || !(c->curl = curl_easy_init()))
        goto nomem;
    if (opt->token) {
        size_t k = strlen(opt->token) + 32;
        if (!(c->auth = malloc(k)))
            goto nomem;
        snprintf(c->auth, k, "Authorization: Bearer %s", opt->token);
    }
    c->user_agent = strdup(opt->user_agent ? opt->user_agent
                                           : "ircg-client/" IRCG_CLIENT_VERSION);
    if (!c->user_agent)
        goto nomem;
    c->connect_ms = to_ms(opt->connect_timeout);
    c->timeout_ms = to_ms(opt->timeout);
    *out = c;
    return IRCG_CLIENT_OK;
nomem:
    ircg_client_free(c);
    return cl_fail(err, IRCG_CLIENT_ERR_NOMEM, 0, "out of memory");
}

void ircg_client_free(ircg_client *c)
{
    if (!c)
        return;
    if (c->curl)
        curl_easy_cleanup(c->curl);
    free(c->base);
    if (c->auth) /* the token is a secret: do not leave it in freed memory */
        memset(c->auth, 0, strlen(c->auth));
    free(c->auth);
    free(c->user_agent);
    free(c);
}

char *cl_escape(ircg_client *c, const char *s)
{
    char *e = curl_easy_escape(c->curl, s, 0);
    char *copy = e ? strdup(e) : NULL;
    curl_free(e);
    return copy;
}

char *cl_job_path(ircg_client *c, const char *id, const char *suffix,
                  ircg_client_error *err)
{
    if (!c || !id || !*id) {
        cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "the job id is NULL or empty");
        return NULL;
    }
    char *e = cl_escape(c, id);
    size_t n = (e ? strlen(e) : 0) + strlen(suffix) + 16;
    char *path = e ? malloc(n) : NULL;
    if (path)
        snprintf(path, n, "/v1/jobs/%s%s", e, suffix);
    else
        cl_fail(err, IRCG_CLIENT_ERR_NOMEM, 0, "out of memory");
    free(e);
    return path;
}

/* ----------------------------------------------------------- exchange -- */

typedef struct xfer {
    ircg_client *c;
    const cl_req *rq;
    cl_resp *r;
    size_t cap;
    int nomem;
} xfer;

int cl_append(char **buf, size_t *len, size_t *cap, const void *p, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 256;
        while (c < *len + n + 1)
            c *= 2;
        char *b = realloc(*buf, c);
        if (!b)
            return 0;
        *buf = b;
        *cap = c;
    }
    assert(*buf); /* *cap > 0 only once a buffer exists */
    memcpy(*buf + *len, p, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 1;
}

static size_t on_body(char *p, size_t sz, size_t nm, void *user)
{
    xfer *x = user;
    size_t n = sz * nm;
    long status = 0;
    curl_easy_getinfo(x->c->curl, CURLINFO_RESPONSE_CODE, &status);
    /* an error answer to a stream is a normal body: it carries the problem */
    if (x->rq->sink && status >= 200 && status < 300)
        return x->rq->sink(x->rq->user, p, n) ? n : 0;
    if (!cl_append(&x->r->body, &x->r->len, &x->cap, p, n)) {
        x->nomem = 1;
        return 0;
    }
    return n;
}

static void copy_value(char *dst, size_t cap, const char *v, size_t n)
{
    while (n > 0 && (*v == ' ' || *v == '\t')) {
        v++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)v[n - 1]))
        n--;
    snprintf(dst, cap, "%.*s", (int)n, v);
}

static size_t on_header(char *p, size_t sz, size_t nm, void *user)
{
    xfer *x = user;
    cl_resp *r = x->r;
    size_t n = sz * nm;
    char tmp[32];
    if (n >= 5 && !strncmp(p, "HTTP/", 5)) { /* a new header block */
        r->ctype[0] = r->etag[0] = '\0';
        r->retry_after = -1;
        r->replayed = 0;
    } else if (n > 20 && !strncasecmp(p, "idempotent-replayed:", 20)) {
        copy_value(tmp, sizeof tmp, p + 20, n - 20);
        r->replayed = !strcasecmp(tmp, "true");
    } else if (n > 13 && !strncasecmp(p, "content-type:", 13)) {
        copy_value(r->ctype, sizeof r->ctype, p + 13, n - 13);
    } else if (n > 5 && !strncasecmp(p, "etag:", 5)) {
        copy_value(r->etag, sizeof r->etag, p + 5, n - 5);
    } else if (n > 12 && !strncasecmp(p, "retry-after:", 12)) {
        char *end = NULL;
        copy_value(tmp, sizeof tmp, p + 12, n - 12);
        double v = strtod(tmp, &end); /* the HTTP-date form is not used by ircgd */
        r->retry_after = end != tmp && *end == '\0' && v >= 0 ? v : -1;
    }
    return n;
}

static int on_progress(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut,
                       curl_off_t un)
{
    xfer *x = user;
    (void)dt, (void)dn, (void)ut, (void)un;
    return x->rq->tick ? x->rq->tick(x->rq->user) : 0;
}

static struct curl_slist *build_headers(ircg_client *c, const cl_req *rq, int *bad)
{
    struct curl_slist *h = NULL, *t;
    char ct[160];
    const char *list[8];
    int n = 0;
    snprintf(ct, sizeof ct, "Content-Type: %s", rq->ctype ? rq->ctype : "");
    list[n++] = ct;        /* "Content-Type:" alone removes curl's default */
    list[n++] = "Expect:"; /* no 100-continue round trip for uploads      */
    if (c->auth)
        list[n++] = c->auth;
    for (int i = 0; i < 4 && rq->headers[i]; i++)
        list[n++] = rq->headers[i];
    for (int i = 0; i < n; i++) {
        if (!(t = curl_slist_append(h, list[i]))) {
            *bad = 1;
            break;
        }
        h = t;
    }
    return h;
}

static size_t on_read(char *p, size_t sz, size_t nm, void *user)
{
    FILE *f = user;
    size_t n = fread(p, 1, sz * nm, f);
    return n == 0 && ferror(f) ? CURL_READFUNC_ABORT : n;
}

static void set_options(ircg_client *c, const cl_req *rq, xfer *x, const char *url,
                        struct curl_slist *hl)
{
    CURL *h = c->curl;
    curl_easy_reset(h); /* keeps the connection cache */
    curl_easy_setopt(h, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
    curl_easy_setopt(h, CURLOPT_USERAGENT, c->user_agent);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_ms);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
    /* "": every encoding libcurl decodes (gzip); bodies arrive decoded */
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
    if (rq->sink || rq->file) {
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 45L);
    } else {
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
    }
    if (rq->tick) {
        curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
    }
    if (!strcmp(rq->method, "POST") && rq->file) {
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(h, CURLOPT_READDATA, rq->file);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->len);
    } else if (!strcmp(rq->method, "POST")) {
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(rq->body ? rq->len : 0));
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, rq->body ? rq->body : "");
    } else if (!strcmp(rq->method, "GET")) {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, rq->method);
        if (rq->body) {
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->len);
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, rq->body);
        }
    }
}

ircg_client_code cl_send(ircg_client *c, const cl_req *rq, cl_resp *r,
                         ircg_client_error *err)
{
    xfer x = {c, rq, r, 0, 0};
    int bad = 0;
    char *url = NULL;
    struct curl_slist *hl = NULL;
    ircg_client_code rc = IRCG_CLIENT_OK;
    memset(r, 0, sizeof *r);
    r->retry_after = -1;
    size_t n = strlen(c->base) + strlen(rq->path) + 1;
    if (!(url = malloc(n)) || !(hl = build_headers(c, rq, &bad)) || bad) {
        rc = cl_fail(err, IRCG_CLIENT_ERR_NOMEM, 0, "out of memory");
        goto done;
    }
    snprintf(url, n, "%s%s", c->base, rq->path);
    set_options(c, rq, &x, url, hl);
    c->errbuf[0] = '\0';
    CURLcode cc = curl_easy_perform(c->curl);
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &r->status);
    if (x.nomem) {
        rc = cl_fail(err, IRCG_CLIENT_ERR_NOMEM, r->status, "out of memory reading the answer");
    } else if (cc != CURLE_OK && !(rq->sink && r->status > 0)) {
        rc = cl_fail(err, IRCG_CLIENT_ERR_TRANSPORT, 0, "%s %s: %s", rq->method, url,
                     c->errbuf[0] ? c->errbuf : curl_easy_strerror(cc));
    } else if (!r->body && !cl_append(&r->body, &r->len, &x.cap, "", 0)) {
        rc = cl_fail(err, IRCG_CLIENT_ERR_NOMEM, r->status, "out of memory");
    }
    /* a stream that ended early (reset, abort by tick/sink) still had an
     * answer: the caller decides from what its sink saw */
done:
    if (rc != IRCG_CLIENT_OK)
        cl_resp_free(r);
    curl_slist_free_all(hl);
    free(url);
    return rc;
}

ircg_client_code cl_call(ircg_client *c, const cl_req *rq, const long *ok, cl_resp *r,
                         ircg_client_error *err)
{
    ircg_client_code rc = cl_send(c, rq, r, err);
    if (rc != IRCG_CLIENT_OK)
        return rc;
    for (const long *s = ok; *s; s++)
        if (r->status == *s)
            return IRCG_CLIENT_OK;
    rc = cl_fail_http(err, r);
    cl_resp_free(r);
    return rc;
}

void cl_resp_free(cl_resp *r)
{
    if (r) {
        free(r->body);
        r->body = NULL;
        r->len = 0;
    }
}

char *cl_take_body(cl_resp *r, size_t *len)
{
    char *b = r->body;
    if (len)
        *len = r->len;
    r->body = NULL;
    r->len = 0;
    return b;
}

/* ---------------------------------------------------------------- JSON -- */

cJSON *cl_parse_object(const cl_resp *r, ircg_client_error *err)
{
    cJSON *o = r->body ? cJSON_ParseWithLength(r->body, r->len) : NULL;
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        cl_fail(err, IRCG_CLIENT_ERR_PROTOCOL, r->status,
                "the answer (HTTP %ld, %zu bytes) is not a JSON object", r->status, r->len);
        return NULL;
    }
    return o;
}

void cl_json_str(const cJSON *o, const char *name, char *dst, size_t cap)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    snprintf(dst, cap, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

double cl_json_num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int64_t cl_json_int(const cJSON *o, const char *name)
{
    double v = cl_json_num(o, name);
    return isfinite(v) && fabs(v) < 9.2e18 ? (int64_t)v : 0;
}

/* ------------------------------------------------------------- generic -- */

ircg_client_code ircg_client_request(ircg_client *c, const char *method, const char *path,
                                     const char *content_type, const void *body,
                                     size_t body_len, long *status, char **resp,
                                     size_t *resp_len, ircg_client_error *err)
{
    cl_resp r = {0};
    cl_error_reset(err);
    if (resp)
        *resp = NULL;
    if (!c || !method || !*method || !path || path[0] != '/' || !status)
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0,
                       "client, method, status and a path starting with '/' are required");
    cl_req rq = {.method = method, .path = path, .ctype = content_type, .body = body,
                 .len = body_len};
    ircg_client_code rc = cl_send(c, &rq, &r, err);
    if (rc == IRCG_CLIENT_OK) {
        *status = r.status;
        if (resp)
            *resp = cl_take_body(&r, resp_len);
    }
    cl_resp_free(&r);
    return rc;
}
