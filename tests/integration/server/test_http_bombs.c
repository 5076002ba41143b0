/*
 * test_http_bombs.c -- small requests that ask for a lot: huge rows,
 * columns, ranks, dense projections and matrices, iterations times
 * snapshot cadence, trace rows, inline arrays at the body limit, deeply
 * nested JSON, many small jobs at once, and builds that take their time.
 * Each is refused with a pointer to the members that make it big, or runs
 * within its budget; and the daemon's peak RSS (VmHWM) stays within what
 * its budgets allow: its base and (workers + 2) jobs' budgets
 * (--max-job-memory: each worker's job, the dry runs' worker, the
 * requests in flight).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_util.h"

#define MB (1024.0 * 1024.0)
/* The daemon's own: code, libraries, SQLite's caches, threads' stacks. */
#define DAEMON_BASE (96 * MB)

/* Under a sanitizer the RSS holds its shadow memory and quarantine too:
 * printed, not checked. */
static void check_rss(const hu_daemon *d, double budget, int workers)
{
    double rss = hu_peak_rss(d), bound = DAEMON_BASE + (workers + 2) * budget;
    const char *san = getenv("IRCG_SAN");
    printf("    daemon peak RSS %.1f MB (bound %.1f MB: %.0f MB + %d x %.0f MB)%s\n",
           rss / MB, bound / MB, DAEMON_BASE / MB, workers + 2, budget / MB,
           san && *san ? ", not checked under a sanitizer" : "");
    CHECK(rss > 0 && (rss <= bound || (san && *san)));
}

/* The pointers of a problem document's errors, space separated. */
static void pointers(const hu_resp *r, char *out, size_t cap)
{
    cJSON *doc = hu_json(r);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "errors"), *x;
    out[0] = '\0';
    cJSON_ArrayForEach(x, e) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(x, "pointer");
        if (cJSON_IsString(p) && strlen(out) + strlen(p->valuestring) + 2 < cap) {
            strcat(out, p->valuestring);
            strcat(out, " ");
        }
    }
    cJSON_Delete(doc);
}

static long post(const hu_daemon *d, const char *path, const char *body, hu_resp *r)
{
    hu_req(d, "POST", path, "application/json", body, strlen(body), NULL, r);
    return r->status;
}

static double estimate_of(const hu_resp *r)
{
    cJSON *doc = hu_json(r);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "estimate");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "memory_bytes");
    double v = cJSON_IsNumber(m) ? m->valuedouble : -1;
    cJSON_Delete(doc);
    return v;
}

/* The 190-byte spec: 5 x 10^7 rows, 1000 ratings.  It used to
 * hold 17.6 GB and miss its time limit; compacted it solves at once. */
TEST(http_bombs, fifty_million_rows_solve_in_a_few_mb)
{
    hu_daemon d = {0};
    hu_resp r;
    char id[64], state[16];
    static const char spec[] =
        "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":\"synthetic\","
        "\"n_rows\":50000000,\"n_cols\":50,\"n_ratings\":1000,\"seed\":9},\"delta\":10},"
        " \"algorithm\":{\"name\":\"ircg\",\"max_iter\":5,\"time_limit\":60}}";
    REQUIRE(hu_start(&d, "bombs_rows", 1) == 0);
    CHECK_INT(post(&d, "/v1/jobs?dry_run=true", spec, &r), 200);
    double est = estimate_of(&r);
    printf("    estimate %.1f MB\n", est / MB);
    CHECK(est > 0 && est < 32 * MB);
    hu_resp_free(&r);
    double t0 = hu_now();
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 20, state) == 0);
    CHECK_STR(state, "succeeded");
    printf("    submitted to finished in %.2f s\n", hu_now() - t0);
    cJSON *res = hu_result(&d, id);
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(res, "iterations");
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(res, "x");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(x, "rows");
    CHECK(cJSON_IsNumber(it) && it->valuedouble == 5);
    CHECK(cJSON_GetArraySize(rows) > 0 && cJSON_GetArraySize(rows) <= 1050);
    cJSON_Delete(res);
    check_rss(&d, 0, 1); /* its own share only: a few MB */
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

typedef struct bomb {
    const char *what, *spec, *pointer;
} bomb;

#define MC(data, rest) "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":" \
                       "\"synthetic\"," data "}}" rest "}"
static const bomb bombs[] = {
    {"rows and columns on X0's diagonal",
     MC("\"n_rows\":100000000,\"n_cols\":100000000,\"n_ratings\":1000", ""),
     "/problem/data/n_rows"},
    {"a rank of 10^5", MC("\"n_rows\":100000,\"n_cols\":100000,\"rank\":100000,"
                          "\"n_ratings\":1000000", ""), "/problem/data/rank"},
    {"ratings", MC("\"n_rows\":100000,\"n_cols\":100000,\"n_ratings\":40000000", ""),
     "/problem/data/n_ratings"},
    {"a dense projection", MC("\"n_rows\":20000,\"n_cols\":20000,\"n_ratings\":10000",
                              ",\"algorithm\":{\"name\":\"irpg\",\"projection\":\"full\"}"),
     "/algorithm/projection"},
    {"least squares 40000 x 1000",
     "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"synthetic\","
     "\"m\":40000,\"n\":1000}}}", "/problem/data/m"},
    {"a logistic regression 1000 x 40000",
     "{\"problem\":{\"type\":\"logistic_regression\",\"data\":{\"source\":\"synthetic\","
     "\"m\":1000,\"n\":40000}}}", "/problem/data/n"},
};

/* Over a 256 MiB budget: 422 at once (dry run or submission), the member
 * that makes it big named. */
TEST(http_bombs, huge_members_are_refused_at_their_pointers)
{
    hu_daemon d = {0};
    hu_resp r;
    char ptrs[1024];
    hu_prepare(&d, "bombs_members", 1);
    snprintf(d.extra, sizeof d.extra, "--max-job-memory 256M");
    REQUIRE(hu_restart(&d) == 0);
    for (size_t i = 0; i < sizeof bombs / sizeof bombs[0]; i++) {
        double t0 = hu_now();
        for (int dry = 0; dry < 2; dry++) {
            long st = post(&d, dry ? "/v1/jobs?dry_run=true" : "/v1/jobs", bombs[i].spec, &r);
            pointers(&r, ptrs, sizeof ptrs);
            if (!dry)
                printf("    %-36s %ld in %.3f s at %s\n", bombs[i].what, st, hu_now() - t0,
                       ptrs);
            CHECK_INT(st, 422);
            CHECK(strstr(ptrs, bombs[i].pointer) != NULL);
            CHECK(strstr(r.body ? r.body : "", "budget") != NULL);
            hu_resp_free(&r);
        }
        CHECK(hu_now() - t0 < 1.0);
    }
    CHECK_INT(hu_get(&d, "/v1/jobs", &r), 200);
    CHECK(strstr(r.body, "\"jobs\":[]") != NULL); /* nothing was queued */
    hu_resp_free(&r);
    check_rss(&d, 256 * MB, 1);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* Iterations times snapshot cadence, and trace rows: a job that asks for
 * a snapshot at each of 10^9 iterations and one traced at each run to
 * their time limits within their budgets -- the store keeps the newest
 * snapshots (--snapshot-keep 3) and --max-trace-rows rows plus the last. */
TEST(http_bombs, snapshots_and_trace_rows_stay_within_their_budgets)
{
    hu_daemon d = {0};
    hu_resp r;
    char a[64], b[64], state[16], path[160];
    hu_prepare(&d, "bombs_rows_snaps", 2);
    snprintf(d.extra, sizeof d.extra, "--max-job-memory 256M --max-trace-rows 500");
    REQUIRE(hu_restart(&d) == 0);
    char *snaps = hu_mc_spec(60, 40, 600, 1000000000LL, 1.5, "\"output\":{\"snapshot_every\":1}");
    char *rows = hu_ls_spec(20, 40, 1, 10, 1000000000LL, 1.0, "\"output\":{\"trace_every\":1}");
    CHECK_INT(hu_submit(&d, snaps, a, sizeof a), 202);
    CHECK_INT(hu_submit(&d, rows, b, sizeof b), 202);
    CHECK(hu_wait_terminal(&d, a, 20, state) == 0);
    CHECK_STR(state, "succeeded");
    CHECK(hu_wait_terminal(&d, b, 20, state) == 0);
    CHECK_STR(state, "succeeded");
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots", a);
    CHECK_INT(hu_get(&d, path, &r), 200);
    cJSON *doc = hu_json(&r), *list = cJSON_GetObjectItemCaseSensitive(doc, "snapshots");
    printf("    snapshots kept of the snapshot-every-iteration job: %d\n",
           cJSON_GetArraySize(list));
    CHECK(cJSON_GetArraySize(list) >= 1 && cJSON_GetArraySize(list) <= 3);
    cJSON_Delete(doc);
    hu_resp_free(&r);
    snprintf(path, sizeof path, "/v1/jobs/%s/trace", b);
    CHECK_INT(hu_get(&d, path, &r), 200);
    doc = hu_json(&r);
    list = cJSON_GetObjectItemCaseSensitive(doc, "rows");
    cJSON *res = hu_result(&d, b);
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(res, "iterations");
    printf("    trace rows kept of the traced job: %d of %.0f iterations\n",
           cJSON_GetArraySize(list), cJSON_IsNumber(it) ? it->valuedouble : -1);
    CHECK(cJSON_GetArraySize(list) == 501); /* 500, and the last */
    CHECK(cJSON_IsNumber(it) && it->valuedouble > 1000);
    cJSON_Delete(res);
    cJSON_Delete(doc);
    hu_resp_free(&r);
    free(snaps);
    free(rows);
    check_rss(&d, 256 * MB, 2);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* A body at the limit of inline ratings (8 MiB here: 1M triplets) would
 * take about 40 times its size as a JSON tree: over the budget it is
 * refused before it is parsed (422); and 24 bodies of 1.5 MiB, each
 * within it, sent at once are held to the one budget of the requests in
 * flight (503 for those beyond it). */
typedef struct sender {
    const hu_daemon *d;
    const char *body;
    long status;
    pthread_t th;
} sender;

static void *send_one(void *arg)
{
    sender *s = arg;
    hu_resp r;
    s->status = post(s->d, "/v1/jobs?dry_run=true", s->body, &r);
    hu_resp_free(&r);
    return NULL;
}

TEST(http_bombs, inline_arrays_at_the_body_limit)
{
    hu_daemon d = {0};
    hu_resp r;
    char ptrs[256];
    enum { SENDERS = 24 };
    hu_prepare(&d, "bombs_body", 1);
    snprintf(d.extra, sizeof d.extra, "--max-body 8388608 --max-job-memory 128M");
    REQUIRE(hu_restart(&d) == 0);
    size_t cap = 8388608, len = 0;
    char *body = malloc(cap + 1);
    REQUIRE(body != NULL);
    len += (size_t)snprintf(body, cap, "{\"problem\":{\"type\":\"matrix_completion\","
                            "\"data\":{\"source\":\"inline\",\"ratings\":[");
    for (int i = 0; len + 40 < cap; i++)
        len += (size_t)snprintf(body + len, cap - len, "%s[%d,%d,3]", i ? "," : "",
                                1 + i / 1000, 1 + i % 1000);
    len += (size_t)snprintf(body + len, cap + 1 - len, "]}}}");
    CHECK(len <= cap);
    double t0 = hu_now();
    CHECK_INT(post(&d, "/v1/jobs", body, &r), 422);
    pointers(&r, ptrs, sizeof ptrs);
    printf("    a %.1f MB body of inline ratings: %ld in %.3f s at \"%s\"\n", len / MB,
           r.status, hu_now() - t0, ptrs);
    CHECK(strstr(r.body ? r.body : "", "parsing this document") != NULL);
    hu_resp_free(&r);
    sender s[SENDERS];
    int refused = 0, answered = 0;
    len = 1572864 - 8; /* a body of 1.5 MiB: its tree is about 60 MB */
    while (len > 0 && body[len] != ',')
        len--;
    memcpy(body + len, "]}}}", 5);
    for (int i = 0; i < SENDERS; i++) {
        s[i] = (sender){&d, body, 0, 0};
        pthread_create(&s[i].th, NULL, send_one, &s[i]);
    }
    for (int i = 0; i < SENDERS; i++) {
        pthread_join(s[i].th, NULL);
        answered += s[i].status == 200 || s[i].status == 503;
        refused += s[i].status == 503;
    }
    printf("    %d bodies of %.1f MB at once: %d valid or refused (%d with 503: over the "
           "requests' budget)\n", SENDERS, (double)len / MB, answered, refused);
    CHECK_INT(answered, SENDERS);
    free(body);
    check_rss(&d, 128 * MB, 1);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* 10^5 nested arrays: a syntax error at cJSON's nesting limit, at once. */
TEST(http_bombs, deeply_nested_json)
{
    hu_daemon d = {0};
    hu_resp r;
    enum { DEPTH = 100000 };
    REQUIRE(hu_start(&d, "bombs_nested", 1) == 0);
    char *body = malloc(2 * DEPTH + 1);
    REQUIRE(body != NULL);
    memset(body, '[', DEPTH);
    memset(body + DEPTH, ']', DEPTH);
    body[2 * DEPTH] = '\0';
    double t0 = hu_now();
    CHECK_INT(post(&d, "/v1/jobs", body, &r), 400);
    printf("    %d nested arrays: %ld in %.3f s\n", DEPTH, r.status, hu_now() - t0);
    CHECK(hu_now() - t0 < 1.0);
    hu_resp_free(&r);
    free(body);
    CHECK_INT(hu_get(&d, "/healthz", &r), 200);
    hu_resp_free(&r);
    check_rss(&d, 0, 1);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* 400 small jobs from 8 clients at once: each is queued or refused with
 * 429 (--max-queued 200), the two workers solve them, and the daemon's
 * memory does not grow with them (the queue lives in the store). */
typedef struct submitter {
    const hu_daemon *d;
    const char *spec;
    int accepted, refused;
    pthread_t th;
} submitter;

static void *submit_many(void *arg)
{
    submitter *s = arg;
    char id[64];
    for (int i = 0; i < 50; i++) {
        long st = hu_submit(s->d, s->spec, id, sizeof id);
        s->accepted += st == 202;
        s->refused += st == 429;
    }
    return NULL;
}

TEST(http_bombs, many_small_jobs_at_once)
{
    hu_daemon d = {0};
    enum { CLIENTS = 8 };
    hu_prepare(&d, "bombs_many", 2);
    snprintf(d.extra, sizeof d.extra, "--max-job-memory 128M --max-queued 200");
    REQUIRE(hu_restart(&d) == 0);
    char *spec = hu_ls_spec(20, 40, 1, 10, 200, 0, NULL);
    submitter s[CLIENTS];
    int accepted = 0, refused = 0;
    for (int i = 0; i < CLIENTS; i++) {
        s[i] = (submitter){&d, spec, 0, 0, 0};
        pthread_create(&s[i].th, NULL, submit_many, &s[i]);
    }
    for (int i = 0; i < CLIENTS; i++) {
        pthread_join(s[i].th, NULL);
        accepted += s[i].accepted;
        refused += s[i].refused;
    }
    printf("    %d submissions: %d accepted, %d refused with 429\n", CLIENTS * 50, accepted,
           refused);
    CHECK_INT(accepted + refused, CLIENTS * 50);
    CHECK(accepted >= 200);
    free(spec);
    check_rss(&d, 128 * MB, 2);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* A build that takes its time: a job whose generation alone outlasts its
 * time limit fails with time-limit soon after it; a cancel ends one in
 * its generation; a full dry run of it is cut at its limit on the dry
 * runs' worker (the connection's thread waits, it does not build). */
TEST(http_bombs, builds_stop_at_the_time_limit_and_at_a_cancel)
{
    hu_daemon d = {0};
    hu_resp r;
    char id[64], state[16], path[128];
    static const char slow[] =
        "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":\"synthetic\","
        "\"n_rows\":400000,\"n_cols\":4000,\"n_ratings\":40000000,\"rank\":40}},"
        "\"algorithm\":{\"time_limit\":%s}}";
    char spec[512];
    hu_prepare(&d, "bombs_slow", 1);
    snprintf(d.extra, sizeof d.extra, "--max-job-memory 6G --max-elements 50000000");
    REQUIRE(hu_restart(&d) == 0);
    snprintf(spec, sizeof spec, slow, "0.5");
    double t0 = hu_now();
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 30, state) == 0);
    double took = hu_now() - t0;
    CHECK_STR(state, "failed");
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.body, "time-limit") != NULL);
    hu_resp_free(&r);
    printf("    generation past its 0.5 s limit: failed (time-limit) %.2f s after submission\n",
           took);
    CHECK(took < 2.5);
    snprintf(spec, sizeof spec, slow, "0");
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    hu_sleep_ms(400);
    snprintf(path, sizeof path, "/v1/jobs/%s/cancel", id);
    t0 = hu_now();
    hu_req(&d, "POST", path, NULL, NULL, 0, NULL, &r);
    hu_resp_free(&r);
    CHECK(hu_wait_terminal(&d, id, 30, state) == 0);
    printf("    cancelled while generating: %s %.2f s after the cancel\n", state, hu_now() - t0);
    CHECK_STR(state, "cancelled");
    CHECK(hu_now() - t0 < 2.0);
    snprintf(spec, sizeof spec, slow, "0.3");
    t0 = hu_now();
    CHECK_INT(post(&d, "/v1/jobs?dry_run=full", spec, &r), 422);
    printf("    a full dry run with a 0.3 s limit: %ld in %.2f s\n", r.status, hu_now() - t0);
    CHECK(strstr(r.body ? r.body : "", "/algorithm/time_limit") != NULL);
    CHECK(hu_now() - t0 < 2.0);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
