/*
 * test_http_race.c -- what the threads of a daemon do at once: four
 * workers solving, SSE clients streaming (and reconnecting with
 * Last-Event-ID), cancels and deletes racing the running jobs, a poller,
 * and a SIGTERM in the middle of the solves, then a restart on the same
 * port.  The one test `make tsan` is really about (it runs the daemon
 * under ThreadSanitizer), and a plain integration test too: every request
 * answered with a sensible status, every stream in order, every job ended
 * as it was told to.
 */
/* make tsan: http_race. */
#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_check.h"
#include "sse_client.h"

#define NJOBS 8
#define NSSE 3

enum { KEEP, CANCEL, DELETE };

typedef struct race {
    hu_daemon d;          /* the threads' copy: the port never changes */
    char ids[NJOBS][64];
    int fate[NJOBS];
    int stop;             /* atomic: the threads end */
    int bad_status;       /* atomic: a status no request may get */
    long bad_code;
} race;

static int stopped(race *r) { return __atomic_load_n(&r->stop, __ATOMIC_ACQUIRE); }

static void bad(race *r, long code)
{
    __atomic_store_n(&r->bad_code, code, __ATOMIC_RELAXED);
    __atomic_store_n(&r->bad_status, 1, __ATOMIC_RELEASE);
}

/* 0 (no answer: the daemon is restarting) or one of the allowed codes. */
static void expect(race *r, long got, long a, long b, long c)
{
    if (got != 0 && got != a && got != b && got != c)
        bad(r, got);
}

typedef struct sse_arg {
    race *r;
    int job;
    sse_client c;
    int out_of_order;
} sse_arg;

/* Follows one job's events to its 'end', reconnecting after the last id
 * seen, as a browser's EventSource would. */
static void *sse_thread(void *p)
{
    sse_arg *a = p;
    while (!stopped(a->r) && !(a->c.n > 0 && !strcmp(a->c.types[a->c.n - 1], "end"))) {
        long long after = a->c.n > 0 ? a->c.ids[a->c.n - 1] : -1;
        long st = hu_sse_stream(&a->r->d, a->r->ids[a->job], after, &a->c);
        expect(a->r, st, 200, 404, 200);
        if (st == 404)
            break; /* deleted */
        if (st == 0)
            hu_sleep_ms(50);
    }
    for (int i = 1; i < a->c.n; i++)
        a->out_of_order |= a->c.ids[i] <= a->c.ids[i - 1];
    return NULL;
}

static long post(race *r, const char *fmt, const char *id, const char *method)
{
    char path[128];
    hu_resp resp;
    snprintf(path, sizeof path, fmt, id);
    hu_req(&r->d, method, path, NULL, NULL, 0, NULL, &resp);
    hu_resp_free(&resp);
    return resp.status;
}

/* Cancels and deletes while the jobs run (the ones to delete are
 * cancelled first): a delete of an unfinished job is refused (409) until
 * it ends, then goes through (204). */
static void *meddler(void *p)
{
    race *r = p;
    while (!stopped(r)) {
        for (int i = 0; i < NJOBS; i++) {
            long gone = r->fate[i] == DELETE ? 404 : 409; /* deleted: unknown */
            if (r->fate[i] != KEEP)
                expect(r, post(r, "/v1/jobs/%s/cancel", r->ids[i], "POST"), 200, 202, gone);
            if (r->fate[i] == DELETE)
                expect(r, post(r, "/v1/jobs/%s", r->ids[i], "DELETE"), 204, 404, 409);
        }
        hu_sleep_ms(30);
    }
    return NULL;
}

static void *poller(void *p)
{
    race *r = p;
    while (!stopped(r)) {
        hu_resp resp;
        expect(r, hu_get(&r->d, "/v1/jobs?page_size=100", &resp), 200, 200, 200);
        hu_resp_free(&resp);
        for (int i = 0; i < NJOBS; i++) {
            char path[128];
            snprintf(path, sizeof path, "/v1/jobs/%s", r->ids[i]);
            expect(r, hu_get(&r->d, path, &resp), 200, 404, 200);
            hu_resp_free(&resp);
        }
    }
    return NULL;
}

/* The kept matrix-completion jobs' iterations: under ThreadSanitizer an
 * iteration of this instance took about 0.3 s (3 a second, against
 * hundreds without it), and 1500 of them outlasted the 300 s the checks
 * wait; the races are the same with 150. */
#if defined(__SANITIZE_THREAD__)
#define MC_ITERS 150
#else
#define MC_ITERS 1500
#endif

static void submit_jobs(race *r, hu_daemon *d)
{
    for (int i = 0; i < NJOBS; i++) {
        r->fate[i] = i == 1 || i == 4 ? CANCEL : i == 2 || i == 7 ? DELETE : KEEP;
        /* a job to cancel must not end on its own first, however fast the
         * machine: its iteration limit is out of reach (hours) */
        int far = r->fate[i] == CANCEL ? 1000 : 1;
        char *spec = i % 2 ? hu_mc_spec(600, 400, 40000, MC_ITERS * far, 0,
                                        "\"output\":{\"trace_every\":10}")
                           : hu_ls_spec(200, 400, i, 100, 12000 * far, 0,
                                        "\"output\":{\"trace_every\":10,\"snapshot_every\":5000}");
        CHECK_INT(hu_submit(d, spec, r->ids[i], sizeof r->ids[i]), 202);
        free(spec);
    }
}

/* Every job ended as told: kept ones succeeded, cancelled ones
 * cancelled, deleted ones gone. */
static void check_fates(race *r, hu_daemon *d)
{
    for (int i = 0; i < NJOBS; i++) {
        char state[16], path[128];
        hu_resp resp;
        snprintf(path, sizeof path, "/v1/jobs/%s", r->ids[i]);
        if (r->fate[i] == DELETE) {
            for (double end = hu_now() + 300; hu_get(d, path, &resp) != 404 && hu_now() < end;
                 hu_sleep_ms(50))
                hu_resp_free(&resp);
            CHECK_INT(resp.status, 404);
            hu_resp_free(&resp);
            continue;
        }
        CHECK(hu_wait_terminal(d, r->ids[i], 300, state) == 0); /* TSan is slow */
        CHECK_STR(state, r->fate[i] == CANCEL ? "cancelled" : "succeeded");
    }
}

TEST(http_race, sse_cancel_delete_and_shutdown_around_running_jobs)
{
    static race r;
    static sse_arg sse[NSSE];
    pthread_t th[NSSE + 2];
    hu_daemon d = {0};
    memset(&r, 0, sizeof r);
    memset(sse, 0, sizeof sse);
    REQUIRE(curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK); /* before threads */
    snprintf(d.extra, sizeof d.extra, "--heartbeat-every 0.2 --checkpoint-every 0.1");
    REQUIRE(hu_start(&d, "http_race", 4) == 0);
    /* the restart keeps the port, so the threads' copy stays right */
    snprintf(d.extra, sizeof d.extra, "--heartbeat-every 0.2 --checkpoint-every 0.1 "
             "--listen 127.0.0.1:%d", d.port);
    submit_jobs(&r, &d);
    r.d = d;
    REQUIRE(hu_wait_iteration(&d, r.ids[0], 100, 30) == 0);
    for (int i = 0; i < NSSE; i++) {
        sse[i].r = &r;
        sse[i].job = i; /* a kept, a cancelled and a deleted one */
        REQUIRE(pthread_create(&th[i], NULL, sse_thread, &sse[i]) == 0);
    }
    REQUIRE(pthread_create(&th[NSSE], NULL, meddler, &r) == 0);
    REQUIRE(pthread_create(&th[NSSE + 1], NULL, poller, &r) == 0);

    /* shutdown during the solves */
    CHECK(hu_wait_iteration(&d, r.ids[0], 3000, 300) == 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK(hu_restart(&d) == 0);
    check_fates(&r, &d);
    __atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < NSSE + 2; i++)
        pthread_join(th[i], NULL);

    CHECK(!r.bad_status);
    if (r.bad_status)
        printf("    a request got status %ld\n", r.bad_code);
    for (int i = 0; i < NSSE; i++) {
        CHECK(!sse[i].out_of_order);
        printf("    SSE of job %d: %d events\n", sse[i].job, sse[i].c.n);
    }
    CHECK(sse[0].c.n > 0 && !strcmp(sse[0].c.types[sse[0].c.n - 1], "end"));
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK(hc_integrity_ok(d.db));
}
