/*
 * routes_trace.c -- GET /v1/jobs/{id}/trace, as JSON or CSV.
 *
 * Without ?limit the whole trace is sent, streamed from SQLite in batches
 * (stream.c): a million rows download in constant memory, and nothing is
 * ever cut silently.  With ?limit=N one page of at most N rows, whose
 * cursor says where to go on: "next_after" in JSON, X-Next-After always,
 * and a Link rel="next" while the page was full.  ?after=T starts after
 * iteration T in both cases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobs/jobs.h"
#include "routes/routes.h"
#include "result.h"

#define BATCH 2048 /* whole chunks of the store (256 rows each) */
#define PAGE_MAX 100000


static bool wants_csv(srv_req *r)
{
    const char *f = srv_req_query(r, "format");
    const char *acc = srv_req_header(r, MHD_HTTP_HEADER_ACCEPT);
    if (f)
        return !strcasecmp(f, "csv");
    return acc && strstr(acc, "text/csv") != NULL;
}

/* ?after=ITER&limit=N (limit 0 = every row)&format=json|csv: 0, or -1
 * after replying 400. */
static int trace_params(srv_req *r, long long *after, long *limit)
{
    const char *a = srv_req_query(r, "after");
    const char *l = srv_req_query(r, "limit");
    const char *f = srv_req_query(r, "format");
    const char *bad = NULL, *why = NULL;
    char *end = NULL;
    *after = 0;
    *limit = 0;
    if (a && *a && ((*after = strtoll(a, &end, 10)) < 0 || *end))
        bad = "/query/after", why = "must be a non-negative iteration";
    else if (l && *l && ((*limit = strtol(l, &end, 10)) < 1 || *limit > PAGE_MAX || *end))
        bad = "/query/limit", why = "must be an integer in [1, 100000] (omit it for every row)";
    else if (f && strcasecmp(f, "json") != 0 && strcasecmp(f, "csv") != 0)
        bad = "/query/format", why = "unsupported format: must be json or csv";
    if (bad)
        srv_problem_member(r, MHD_HTTP_BAD_REQUEST, "invalid-parameter",
                           "Invalid parameter", bad, why);
    return bad == NULL ? 0 : -1;
}

/* Appends rows as CSV lines or JSON array items (a comma before each but
 * the very first); -1 when a row does not fit the line buffer (never a
 * body with rows silently missing). */
static int add_rows(api_buf *b, const store_trace_row *rows, size_t n, int csv, int *first)
{
    char line[2048];
    for (size_t i = 0; i < n; i++) {
        ircg_iter_info it = srv_trace_info(&rows[i]);
        int k = csv ? api_trace_csv_row(line, sizeof line, &it)
                    : api_trace_json_row(line, sizeof line, &it);
        if (k <= 0 || (size_t)k >= sizeof line)
            return -1;
        if (!csv && line[k - 1] == '\n') /* JSON lines -> array items */
            k--;
        if (!csv && !*first)
            api_buf_add(b, ",", 1);
        api_buf_add(b, line, (size_t)k);
        *first = 0;
    }
    return 0;
}

static void add_head(api_buf *b, int csv)
{
    if (csv)
        api_buf_add(b, API_TRACE_CSV_HEADER, strlen(API_TRACE_CSV_HEADER));
    else
        api_buf_add(b, "{\"rows\":[", 9);
}

static void add_tail(api_buf *b, int csv, long long next)
{
    if (!csv)
        api_buf_printf(b, "],\"next_after\":%lld}\n", next);
}

/* ------------------------------------------------------- whole trace -- */

typedef struct trace_stream {
    char id[STORE_JOB_ID_LEN + 1];
    long long after; /* last iteration sent */
    int csv, started, first;
} trace_stream;

static int fill_trace(void *ctx, api_buf *out)
{
    trace_stream *t = ctx;
    store_trace_row *rows = NULL;
    size_t n = 0;
    if (!t->started) {
        add_head(out, t->csv);
        t->started = 1;
    }
    store *st = srv_pool_get();
    store_rc rc = st ? store_trace_read(st, t->id, t->after, BATCH, &rows, &n) : STORE_ERROR;
    if (rc != STORE_OK)
        srv_log("trace of %s: reading after %lld failed: %s", t->id, t->after,
                st ? store_errmsg(st) : "no store handle");
    srv_pool_put(st);
    int bad = rc != STORE_OK || add_rows(out, rows, n, t->csv, &t->first) != 0;
    if (!bad && n > 0)
        t->after = rows[n - 1].iteration;
    free(rows);
    if (bad)
        return -1;
    if (n == BATCH)
        return 0;
    add_tail(out, t->csv, t->after);
    return 1;
}

static void send_whole(srv_req *r, const char *id, long long after, int csv)
{
    trace_stream *t = calloc(1, sizeof *t);
    if (!t) {
        srv_problem_internal(r, "out of memory");
        return;
    }
    snprintf(t->id, sizeof t->id, "%s", id);
    t->after = after;
    t->csv = csv;
    t->first = 1;
    srv_reply_stream(r, MHD_HTTP_OK, csv ? "text/csv" : "application/json", fill_trace, t,
                     free);
}

/* --------------------------------------------------------------- page -- */

static void send_page(srv_req *r, const char *id, long long after, long limit, int csv)
{
    store_trace_row *rows = NULL;
    size_t n = 0;
    api_buf b = {0};
    int first = 1;
    store_rc rc = store_trace_read(r->st, id, after, (size_t)limit, &rows, &n);
    if (rc != STORE_OK) {
        srv_problem_store(r, rc, "read the trace");
        return;
    }
    long long next = n > 0 ? (long long)rows[n - 1].iteration : after;
    add_head(&b, csv);
    int bad = add_rows(&b, rows, n, csv, &first) != 0;
    add_tail(&b, csv, next);
    free(rows);
    size_t len = b.len;
    char *text = bad ? NULL : api_buf_take(&b);
    api_buf_free(&b);
    if (!text) {
        srv_problem_internal(r, "cannot format the trace");
        return;
    }
    /* CSV has no room for the cursor in the body: X-Next-After always,
     * and Link rel="next" when the page is full (more rows may follow). */
    srv_reply_header(r, "X-Next-After", "%lld", next);
    if ((size_t)limit == n)
        srv_reply_header(r, "Link", "</v1/jobs/%s/trace?after=%lld&limit=%ld%s>; rel=\"next\"",
                         id, next, limit, csv ? "&format=csv" : "");
    srv_reply(r, MHD_HTTP_OK, csv ? "text/csv" : "application/json", text, len);
}

void srv_route_job_trace(srv_req *r)
{
    long long after = 0;
    long limit = 0;
    store_job j = {0};
    store_rc rc = store_job_get(r->st, r->params[0], &j);
    if (rc != STORE_OK)
        srv_problem_job(r, rc);
    else if (trace_params(r, &after, &limit) != 0)
        ; /* answered */
    else if (limit == 0)
        send_whole(r, j.id, after, wants_csv(r));
    else
        send_page(r, j.id, after, limit, wants_csv(r));
    store_job_clear(&j);
}
