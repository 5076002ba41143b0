/*
 * test_store_conc.c -- several connections on one file: concurrent
 * claimers (BEGIN IMMEDIATE + busy_timeout: no job claimed twice, no
 * SQLITE_BUSY surfacing) and recovery after a process dies mid-job.
 */
/* make tsan: store_conc. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_store_util.h"

/* the problem document a job failed by recovery records */
#define INTERRUPTED "{\"type\":\"urn:ircg:problem:interrupted\"}"

enum { NJOBS = 50, NTHREADS = 4 };

typedef struct claimer {
    const char *path;
    pthread_barrier_t *start; /* all connections open before claiming */
    int64_t seqs[NJOBS];
    int n;
    store_rc failure; /* first unexpected code, STORE_OK if none */
    char msg[STORE_ERRMAX];
} claimer;

static void *claim_loop(void *arg)
{
    claimer *c = arg;
    store *st = NULL;
    store_job j = {0};
    const struct timespec work = {0, 200 * 1000};
    store_progress p = {.iteration = 1, .elapsed = 0.1, .g_x = 1,
                        .f_x = 2, .g_z = 3, .f_z = 4, .gap = 5};
    store_rc rc = store_open(c->path, &st, c->msg);
    pthread_barrier_wait(c->start);
    while (rc == STORE_OK) {
        rc = store_job_claim_next(st, &j);
        if (rc == STORE_OK && c->n < NJOBS)
            c->seqs[c->n++] = j.seq;
        /* Progress and finish take the write lock too, as a worker's
         * would: more contention.  The yield lets the others in. */
        sched_yield();
        store_claim cl = store_claim_of(&j);
        if (rc == STORE_OK)
            rc = store_job_progress(st, &cl, &p, NULL);
        if (rc == STORE_OK)
            rc = store_job_finish(st, &cl, STORE_SUCCEEDED, "{}", NULL);
        nanosleep(&work, NULL); /* "solving", outside any transaction */
    }
    if (rc != STORE_NOTFOUND) {
        c->failure = rc;
        if (st)
            snprintf(c->msg, sizeof c->msg, "%s", store_errmsg(st));
    }
    store_job_clear(&j);
    store_close(st);
    return NULL;
}

TEST(store_conc, concurrent_claimers_take_each_job_once)
{
    char path[512], err[STORE_ERRMAX];
    store *st = NULL;
    claimer *c = calloc(NTHREADS, sizeof *c);
    pthread_t th[NTHREADS];
    pthread_barrier_t start;
    int seen[NJOBS + 1] = {0}, total = 0, busy_threads = 0;
    int64_t counts[STORE_NSTATES];
    REQUIRE(c);
    tsu_path(path, sizeof path, "concurrent");
    if (store_open(path, &st, err) != STORE_OK) {
        free(c);
        REQUIRE(!"open");
    }
    for (int i = 0; i < NJOBS; i++)
        CHECK(tsu_create(st, NULL, NULL) == STORE_OK);
    pthread_barrier_init(&start, NULL, NTHREADS);
    for (int t = 0; t < NTHREADS; t++) {
        c[t].path = path;
        c[t].start = &start;
        REQUIRE(pthread_create(&th[t], NULL, claim_loop, &c[t]) == 0);
    }
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    for (int t = 0; t < NTHREADS; t++) {
        if (c[t].failure != STORE_OK)
            th_fail(__FILE__, __LINE__, "thread %d: %s: %s", t,
                    store_rc_name(c[t].failure), c[t].msg);
        busy_threads += c[t].n > 0;
        for (int i = 0; i < c[t].n; i++)
            if (c[t].seqs[i] >= 1 && c[t].seqs[i] <= NJOBS)
                seen[c[t].seqs[i]]++;
        total += c[t].n;
    }
    CHECK_INT(total, NJOBS);
    for (int i = 1; i <= NJOBS; i++)
        CHECK_INT(seen[i], 1);
    CHECK(busy_threads >= 1);
    CHECK(store_job_counts(st, counts) == STORE_OK);
    CHECK_INT(counts[STORE_SUCCEEDED], NJOBS);
    free(c);
    store_close(st);
}

/* The child claims two jobs and dies without finishing or closing, like a
 * daemon killed mid-solve. */
static void child_claims_and_dies(const char *path)
{
    store *st = NULL;
    int ok = store_open(path, &st, NULL) == STORE_OK &&
             store_job_claim_next(st, NULL) == STORE_OK &&
             store_job_claim_next(st, NULL) == STORE_OK;
    _exit(ok ? 0 : 3);
}

static int run_child(const char *path)
{
    int status = 0;
    pid_t pid;
    fflush(stdout);
    pid = fork();
    if (pid == 0)
        child_claims_and_dies(path);
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(store_conc, crash_recovery_requeues_then_fails)
{
    char path[512], err[STORE_ERRMAX], a[23], b[23], c3[23];
    store *st = NULL;
    store_job j = {0};
    int requeued = -1, failed = -1, ok = 0;
    int64_t counts[STORE_NSTATES];
    tsu_path(path, sizeof path, "crash");
    REQUIRE(store_open(path, &st, err) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, a) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, b) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, c3) == STORE_OK);
    store_close(st);

    REQUIRE(run_child(path) == 0);

    /* "Restart": a new process view of the file. */
    REQUIRE(store_open(path, &st, err) == STORE_OK);
    CHECK(store_integrity_check(st, &ok) == STORE_OK && ok);
    REQUIRE(store_job_counts(st, counts) == STORE_OK);
    CHECK_INT(counts[STORE_RUNNING], 2);
    REQUIRE(store_recover(st, 2, INTERRUPTED, &requeued, &failed) == STORE_OK);
    CHECK_INT(requeued, 2);
    CHECK_INT(failed, 0);
    REQUIRE(store_job_get(st, a, &j) == STORE_OK);
    CHECK_INT(j.state, STORE_QUEUED);
    CHECK_INT(j.attempt, 1); /* kept; the next claim makes it 2 */
    /* Resumes in submission order: a first again. */
    REQUIRE(store_job_claim_next(st, &j) == STORE_OK);
    CHECK_STR(j.id, a);
    CHECK_INT(j.attempt, 2);
    store_close(st);

    /* a "dies" again (closed while running) with attempt 2 = max_attempts:
     * failed; b, still queued with attempt 1, is untouched. */
    REQUIRE(store_open(path, &st, err) == STORE_OK);
    REQUIRE(store_recover(st, 2, INTERRUPTED, &requeued, &failed) == STORE_OK);
    CHECK_INT(requeued, 0);
    CHECK_INT(failed, 1);
    REQUIRE(store_job_get(st, b, &j) == STORE_OK);
    CHECK_INT(j.state, STORE_QUEUED);
    CHECK_INT(j.attempt, 1);
    REQUIRE(store_job_get(st, a, &j) == STORE_OK);
    CHECK_INT(j.state, STORE_FAILED);
    CHECK(j.error_json && strstr(j.error_json, "interrupted") != NULL);
    CHECK(!isnan(j.finished_at));
    REQUIRE(store_recover(st, 2, INTERRUPTED, &requeued, &failed) == STORE_OK);
    CHECK_INT(requeued + failed, 0); /* idempotent */
    CHECK(store_recover(st, 0, INTERRUPTED, NULL, NULL) == STORE_INVALID);
    CHECK(store_integrity_check(st, &ok) == STORE_OK && ok);
    store_job_clear(&j);
    store_close(st);
}

/* Several threads open a file that does not exist yet, at once: the
 * migrations must run once (user_version re-checked under the write lock)
 * and nobody may see SQLITE_BUSY. */
typedef struct opener {
    const char *path;
    store_rc rc;
    char msg[STORE_ERRMAX];
} opener;

static void *open_and_submit(void *arg)
{
    opener *o = arg;
    store *st = NULL;
    o->rc = store_open(o->path, &st, o->msg);
    for (int i = 0; o->rc == STORE_OK && i < 10; i++) {
        o->rc = tsu_create(st, NULL, NULL);
        if (o->rc != STORE_OK)
            snprintf(o->msg, sizeof o->msg, "%s", store_errmsg(st));
    }
    store_close(st);
    return NULL;
}

TEST(store_conc, concurrent_first_open)
{
    char path[512];
    opener o[NTHREADS];
    pthread_t th[NTHREADS];
    store *st = NULL;
    int64_t counts[STORE_NSTATES];
    tsu_path(path, sizeof path, "firstopen");
    for (int t = 0; t < NTHREADS; t++) {
        o[t] = (opener){.path = path};
        CHECK(pthread_create(&th[t], NULL, open_and_submit, &o[t]) == 0);
    }
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NTHREADS; t++)
        if (o[t].rc != STORE_OK)
            th_fail(__FILE__, __LINE__, "thread %d: %s: %s", t,
                    store_rc_name(o[t].rc), o[t].msg);
    REQUIRE(store_open(path, &st, NULL) == STORE_OK);
    CHECK(store_job_counts(st, counts) == STORE_OK);
    CHECK_INT(counts[STORE_QUEUED], 10 * NTHREADS);
    store_close(st);
}

TEST(store_conc, recover_honours_cancel_requests)
{
    char path[512], a[23];
    store *st = NULL;
    store_job j = {0};
    store_event *ev = NULL;
    size_t n = 0;
    int requeued = -1, failed = -1;
    tsu_path(path, sizeof path, "recover_cancel");
    REQUIRE(store_open(path, &st, NULL) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, a) == STORE_OK);
    REQUIRE(store_job_claim_next(st, NULL) == STORE_OK);
    REQUIRE(store_job_request_cancel(st, a, NULL) == STORE_OK);
    store_close(st); /* the process dies with the cancel pending */
    REQUIRE(store_open(path, &st, NULL) == STORE_OK);
    REQUIRE(store_recover(st, 5, INTERRUPTED, &requeued, &failed) == STORE_OK);
    CHECK_INT(requeued + failed, 0);
    REQUIRE(store_job_get(st, a, &j) == STORE_OK);
    CHECK_INT(j.state, STORE_CANCELLED);
    CHECK(!isnan(j.finished_at));
    /* SSE: queued, running, cancel requested, cancelled + end */
    REQUIRE(store_event_read(st, a, 0, 100, &ev, &n) == STORE_OK);
    CHECK_INT(n, 5);
    if (n == 5) {
        CHECK(strstr(ev[2].data, "\"cancel_requested\":true") != NULL);
        CHECK(strstr(ev[3].data, "\"cancelled\"") != NULL);
        CHECK_INT(ev[4].type, STORE_EV_END);
    }
    store_events_free(ev, n);
    store_job_clear(&j);
    store_close(st);
}

/* A worker that lost its job (a recovery requeued it, another worker
 * claimed it again) must not be able to write anything about it: every
 * worker write names its claim and is refused, and the new run's data
 * stays exactly as it was. */
TEST(store_conc, stale_claim_is_refused_everywhere)
{
    char path[512], a[23];
    store *st = NULL;
    store_job j = {0};
    store_trace_row row = {.iteration = 1, .g_gap_x = NAN, .g_gap_z = NAN,
                           .top_sv = NAN, .lambda = NAN};
    store_trace_row *rows = NULL;
    store_snapshot_blob blob = {STORE_SNAP_STATE, "old", 3};
    store_progress p = {.iteration = 99, .elapsed = 1, .g_x = 1, .f_x = 1,
                        .g_z = 1, .f_z = 1, .gap = 1};
    store_event *ev = NULL;
    size_t n = 0, nev = 0;
    int requeued = 0;
    tsu_path(path, sizeof path, "stale_claim");
    REQUIRE(store_open(path, &st, NULL) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, a) == STORE_OK);
    REQUIRE(store_job_claim_next(st, &j) == STORE_OK);
    store_claim old = store_claim_of(&j);
    REQUIRE(store_trace_append(st, &old, &row, 1) == STORE_OK);
    /* what a second daemon's recovery did to the live job */
    REQUIRE(store_recover(st, 3, INTERRUPTED, &requeued, NULL) == STORE_OK);
    CHECK_INT(requeued, 1);
    CHECK(store_trace_append(st, &old, &row, 1) == STORE_STALE); /* queued */
    REQUIRE(store_job_claim_next(st, &j) == STORE_OK);
    store_claim cur = store_claim_of(&j);
    CHECK_INT(cur.run, old.run + 1);
    REQUIRE(store_trace_truncate(st, &cur, 0) == STORE_OK);
    row.iteration = 7;
    REQUIRE(store_trace_append(st, &cur, &row, 1) == STORE_OK);
    REQUIRE(store_event_read(st, a, 0, 100, &ev, &nev) == STORE_OK);
    store_events_free(ev, nev);

    /* the old claim, everywhere */
    row.iteration = 8;
    CHECK(store_job_progress(st, &old, &p, NULL) == STORE_STALE);
    CHECK(strstr(store_errmsg(st), "no longer held by run 1") != NULL);
    CHECK(store_trace_append(st, &old, &row, 1) == STORE_STALE);
    CHECK(store_trace_truncate(st, &old, 0) == STORE_STALE);
    CHECK(store_snapshot_put(st, &old, 1, &blob, 1, 0) == STORE_STALE);
    CHECK(store_event_append(st, &old, STORE_EV_PROGRESS, "{}", NULL) == STORE_STALE);
    CHECK(store_job_requeue(st, &old) == STORE_STALE);
    CHECK(store_job_finish(st, &old, STORE_CANCELLED, NULL, NULL) == STORE_STALE);

    /* nothing of it landed */
    REQUIRE(store_job_get(st, a, &j) == STORE_OK);
    CHECK_INT(j.state, STORE_RUNNING);
    CHECK_INT(j.run, cur.run);
    CHECK_INT(j.progress.iteration, 0);
    REQUIRE(store_trace_read(st, a, 0, 10, &rows, &n) == STORE_OK);
    CHECK_INT(n, 1);
    if (n == 1)
        CHECK_INT(rows[0].iteration, 7);
    free(rows);
    {
        store_snapshot_info *si = NULL;
        size_t ns = 9;
        CHECK(store_snapshot_list(st, a, &si, &ns) == STORE_OK);
        CHECK_INT(ns, 0);
        free(si);
    }
    REQUIRE(store_event_read(st, a, 0, 100, &ev, &n) == STORE_OK);
    CHECK_INT(n, nev);
    store_events_free(ev, n);

    /* the current claim still works, and finishes the job */
    CHECK(store_job_progress(st, &cur, &p, NULL) == STORE_OK);
    CHECK(store_job_finish(st, &cur, STORE_SUCCEEDED, "{}", NULL) == STORE_OK);
    CHECK(store_job_finish(st, &cur, STORE_SUCCEEDED, "{}", NULL) == STORE_STALE);
    store_job_clear(&j);
    store_close(st);
}
