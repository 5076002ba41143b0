/*
 * fuzz_http.c -- the server's handling of a request, past libmicrohttpd:
 * routing of the path, the query arguments (page_size, page_token, state,
 * after, limit, format, dry_run), the headers (Authorization,
 * Content-Type, Content-Length, Last-Event-ID, Idempotency-Key,
 * If-None-Match, Accept), the body, and every handler behind them, on a
 * real store with one finished job (trace, snapshot, events) and one
 * queued job.
 *
 * An input is a request as text:
 *     METHOD SP URL LF (NAME: VALUE LF)* LF BODY
 * The URL and the query are percent-decoded with libmicrohttpd's own
 * MHD_http_unescape, as the daemon does; "JOBID" and "QJOBID" in the
 * input stand for the ids of the finished and the queued job.  The
 * daemon's token is "fuzz-token".
 *
 * What any request is owed: exactly one response, with a status in
 * 200..599 but never 500 (the store is healthy: a 500 is a bug), and no
 * crash or leak on the way.  No worker runs, so
 * submissions stay queued; the harness removes them (and uploaded
 * datasets) so the store stays small.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "http/http.h"
#include "routes/routes.h"

#define MAX_KV 24

typedef struct kv {
    char *name, *value;
} kv;

typedef struct request {
    char method[16];
    char *url;          /* decoded path */
    kv hdr[MAX_KV], arg[MAX_KV];
    int nhdr, narg;
    const char *body;
    size_t body_len;
} request;

static char done_id[STORE_JOB_ID_LEN + 1], queued_id[STORE_JOB_ID_LEN + 1];

/* ------------------------------------------------------------ the store -- */

static int seed_finished(store *st)
{
    store_new_job nj = {"least_squares", "{\"problem\":{}}", NULL, NULL, NULL};
    store_job j = {0};
    store_trace_row rows[3] = {{.iteration = 1}, {.iteration = 2}, {.iteration = 3}};
    store_snapshot_blob b = {STORE_SNAP_X, "IRCGITR1", 8};
    int ok = store_job_create(st, &nj, NULL, NULL) == STORE_OK &&
             store_job_claim_next(st, &j) == STORE_OK;
    store_claim c = store_claim_of(&j);
    ok = ok && store_trace_append(st, &c, rows, 3) == STORE_OK &&
         store_snapshot_put(st, &c, 3, &b, 1, 0) == STORE_OK &&
         store_event_append(st, &c, STORE_EV_PROGRESS, "{\"iteration\":3}", NULL) == STORE_OK &&
         store_job_finish(st, &c, STORE_SUCCEEDED, "{\"status\":\"converged\"}", NULL) == STORE_OK;
    snprintf(done_id, sizeof done_id, "%s", j.id);
    store_job_clear(&j);
    return ok;
}

static int seed_queued(store *st)
{
    store_new_job nj = {"least_squares", "{\"problem\":{}}", NULL, NULL, NULL};
    store_job j = {0};
    int ok = store_job_create(st, &nj, &j, NULL) == STORE_OK;
    snprintf(queued_id, sizeof queued_id, "%s", j.id);
    store_job_clear(&j);
    return ok;
}

/* Jobs the input created go (cancelled, deleted); the seeded ones come
 * back if the input ended or deleted them. */
static void tidy(store *st)
{
    store_list_opts o;
    store_job_list l = {0};
    store_job j = {0};
    store_job_list_init_opts(&o);
    o.page_size = 1000;
    if (store_job_list_page(st, &o, &l) == STORE_OK)
        for (size_t i = 0; i < l.n; i++)
            if (strcmp(l.jobs[i].id, done_id) != 0 && strcmp(l.jobs[i].id, queued_id) != 0) {
                store_job_request_cancel(st, l.jobs[i].id, NULL);
                store_job_delete(st, l.jobs[i].id);
            }
    store_job_list_clear(&l);
    if (store_job_get(st, done_id, &j) != STORE_OK && !seed_finished(st))
        abort();
    store_job_clear(&j);
    if ((store_job_get(st, queued_id, &j) != STORE_OK || j.state != STORE_QUEUED) &&
        (store_job_delete(st, queued_id), !seed_queued(st)))
        abort();
    store_job_clear(&j);
}

static store *daemon_state(void)
{
    static store *st;
    static srv_token token = {.scope = SRV_SCOPE_ADMIN};
    char err[512];
    if (st)
        return st;
    if (srv_config_load(&srv.cfg, 1, (char *[]){"ircgd", NULL}, err, sizeof err) != 0)
        abort();
    snprintf(srv.cfg.db, sizeof srv.cfg.db, "%s/http.db", fuzz_tmpdir());
    snprintf(srv.cfg.data_dir, sizeof srv.cfg.data_dir, "%s", fuzz_tmpdir());
    srv.cfg.max_body = 1 << 16;
    srv.cfg.max_elements = 20000;
    srv_token_digest("fuzz-token", 10, token.digest);
    srv.tokens.list = &token;
    srv.tokens.n = 1;
    srv_http_routes(srv_routes);
    if (store_open(srv.cfg.db, &st, err) != STORE_OK || srv_pool_init(srv.cfg.db) != 0 ||
        !seed_finished(st) || !seed_queued(st))
        abort();
    return st;
}

/* Uploaded datasets pile up; dropped now and then. */
static void drop_datasets(void)
{
    static unsigned n;
    sqlite3 *db = NULL;
    if (++n % 5000 != 0)
        return;
    if (sqlite3_open(srv.cfg.db, &db) == SQLITE_OK)
        sqlite3_exec(db, "DELETE FROM datasets", NULL, NULL, NULL);
    sqlite3_close(db);
}

/* ------------------------------------------------------ the request -- */

/* "JOBID"/"QJOBID" -> the seeded ids; a new malloc'ed string. */
static char *substitute(const char *s, size_t n)
{
    size_t cap = n + 1, k = 0;
    char *out = malloc(cap + 64);
    for (size_t i = 0; out && i < n; i++) {
        const char *id = NULL;
        size_t skip = 0;
        if (n - i >= 6 && !memcmp(s + i, "QJOBID", 6))
            id = queued_id, skip = 6;
        else if (n - i >= 5 && !memcmp(s + i, "JOBID", 5))
            id = done_id, skip = 5;
        if (id) {
            char *g = realloc(out, (cap += strlen(id)) + 64);
            if (!g) {
                free(out);
                return NULL;
            }
            out = g;
            memcpy(out + k, id, strlen(id));
            k += strlen(id);
            i += skip - 1;
        } else {
            out[k++] = s[i];
        }
    }
    if (out)
        out[k] = '\0';
    return out;
}

/* Splits "a=b&c" into decoded arguments (names and values in place). */
static void parse_query(request *q, char *s)
{
    for (char *tok = strtok(s, "&"); tok && q->narg < MAX_KV; tok = strtok(NULL, "&")) {
        char *eq = strchr(tok, '=');
        if (eq)
            *eq++ = '\0';
        MHD_http_unescape(tok);
        if (eq)
            MHD_http_unescape(eq);
        q->arg[q->narg].name = tok;
        q->arg[q->narg++].value = eq ? eq : "";
    }
}

static void parse_headers(request *q, char *s)
{
    for (char *line = strtok(s, "\n"); line && q->nhdr < MAX_KV; line = strtok(NULL, "\n")) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon++ = '\0';
        while (*colon == ' ')
            colon++;
        q->hdr[q->nhdr].name = line;
        q->hdr[q->nhdr++].value = colon;
    }
}

/* text -> request; 0 when the request line is there.  q->url and the
 * strings point into *text. */
static int parse_request(request *q, char *text, size_t len)
{
    char *nl = strchr(text, '\n'), *sp = strchr(text, ' ');
    char *end = strstr(text, "\n\n");
    if (!nl || !sp || sp > nl || (size_t)(sp - text) >= sizeof q->method)
        return -1;
    memcpy(q->method, text, (size_t)(sp - text));
    q->method[sp - text] = '\0';
    *nl = '\0';
    q->url = sp + 1;
    if (end) {
        *end = '\0';
        q->body = end + 2;
        q->body_len = len - (size_t)(end + 2 - text);
    }
    parse_headers(q, nl + 1);
    char *qm = strchr(q->url, '?');
    if (qm) {
        *qm = '\0';
        parse_query(q, qm + 1);
    }
    MHD_http_unescape(q->url);
    return 0;
}

static const char *lookup(void *ctx, enum MHD_ValueKind kind, const char *name)
{
    const request *q = ctx;
    const kv *list = kind == MHD_HEADER_KIND ? q->hdr : q->arg;
    int n = kind == MHD_HEADER_KIND ? q->nhdr : q->narg;
    for (int i = 0; i < n; i++)
        if (kind == MHD_HEADER_KIND ? !strcasecmp(list[i].name, name)
                                    : !strcmp(list[i].name, name))
            return list[i].value;
    return NULL;
}

static int each(void *ctx, enum MHD_ValueKind kind, MHD_KeyValueIterator it, void *cls)
{
    const request *q = ctx;
    const kv *list = kind == MHD_HEADER_KIND ? q->hdr : q->arg;
    int n = kind == MHD_HEADER_KIND ? q->nhdr : q->narg;
    for (int i = 0; i < n; i++)
        if (it(cls, kind, list[i].name, list[i].value) != MHD_YES)
            return i + 1;
    return n;
}

/* The steps MHD drives: begin, body pieces, dispatch. */
static void serve(request *q)
{
    srv_req_source src = {lookup, each, q};
    srv_req *r = srv_req_begin(NULL, q->url, q->method, &src);
    FUZZ_CHECK(r != NULL);
    if (!r)
        return;
    for (size_t off = 0; !r->responded && off < q->body_len; off += 1000) {
        size_t n = q->body_len - off < 1000 ? q->body_len - off : 1000;
        if (srv_req_body(r, q->body + off, n) != MHD_YES)
            break; /* MHD would drop the connection */
    }
    if (!r->responded)
        srv_req_dispatch(r);
    FUZZ_CHECK(r->responded);
    FUZZ_CHECK(r->status >= 200 && r->status <= 599 && r->status != 500);
    srv_req_end(r);
}

FUZZ_TARGET(http)
{
    store *st = daemon_state();
    char *text = substitute((const char *)data, size);
    request q;
    memset(&q, 0, sizeof q);
    if (text && memchr(data, '\0', size) == NULL && parse_request(&q, text, strlen(text)) == 0)
        serve(&q);
    free(text);
    tidy(st);
    drop_datasets();
    return 0;
}
