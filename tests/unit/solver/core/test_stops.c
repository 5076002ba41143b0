/*
 * test_stops.c -- every phase of a job stops at its deadline and at a
 * cancel (ircg_stop_set), within a stated bound: generation, reading,
 * building, the reference computation, the solve, and the solve of an
 * instance whose time goes to compressing its factors.
 *
 * Each phase runs once to the end (its time T, which must be long enough
 * to be caught: at least MIN_RUN), then again with the deadline (or a
 * cancel raised by another thread) at T / 3; the stop's latency -- from
 * the deadline to the return -- must be within BOUND, the unit the
 * library polls between (a block of 2048 rows drawn, a range of 1 MiB
 * parsed, a row of the CSR build, a product of the LMO, an iteration),
 * with room for a loaded machine.  A compression is one sequence of
 * LAPACK calls and is not cut: its phase's bound is the longest
 * iteration of the run to the end (each holds at most one compression)
 * plus BOUND.  A solve stopped by its deadline still makes the result's
 * certificate (api/SPEC.md, Limits: a certificate is not cut by a time
 * limit): its bound is BOUND plus the seconds its certificates took
 * (ircg_info.cert_seconds, of which the last is a part).  The latencies
 * are printed.  Under a sanitizer (make asan)
 * every unit of work is several times slower: the bounds are four times
 * as wide there.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "ircg.h"

#define BOUND 0.25
#define MIN_RUN 0.15

typedef struct canceller {
    int flag;
    double delay;
    pthread_t th;
} canceller;

static void *cancel_later(void *arg)
{
    canceller *c = arg;
    struct timespec ts = {(time_t)c->delay, (long)((c->delay - (time_t)c->delay) * 1e9)};
    nanosleep(&ts, NULL);
    __atomic_store_n(&c->flag, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* A phase: fn runs it (with the thread's stop, if any) and returns its
 * error code. */
typedef ircg_error (*phase_fn)(void *ctx);

/* T, then the latency of a stop at T / 3: by deadline (cancel = 0) or by
 * a cancel from another thread.  -1 when the phase was too short. */
static double latency(phase_fn fn, void *ctx, int by_cancel, double *T, ircg_error *err)
{
    double t0 = ircg_clock();
    ircg_stop_set(NULL);
    *err = fn(ctx);
    *T = ircg_clock() - t0;
    if (*err != IRCG_OK || *T < MIN_RUN)
        return -1;
    double lat = -1;
    /* A run that ends before its stop was timed cold the first time (its
     * pages first touched, a sanitizer's shadow made): once, time the
     * warm run and stop the next at a third of that. */
    for (int attempt = 0; attempt < 2; attempt++) {
        canceller c = {0, *T / 3, 0};
        ircg_thread_stop stop = {&c.flag, 0};
        if (by_cancel)
            pthread_create(&c.th, NULL, cancel_later, &c);
        else
            stop.deadline = ircg_clock() + *T / 3;
        t0 = ircg_clock();
        ircg_stop_set(&stop);
        *err = fn(ctx);
        ircg_stop_set(NULL);
        double end = ircg_clock();
        if (by_cancel)
            pthread_join(c.th, NULL);
        lat = end - (t0 + *T / 3);
        if (*err != IRCG_OK)
            break;
        printf("    ended before its stop in %.3f s (the run to the end took %.3f s): "
               "again at a third of %.3f s\n", end - t0, *T, end - t0);
        *T = end - t0;
    }
    return lat;
}

static void report(const char *phase, const char *how, double T, double lat, double bound)
{
    const char *san = getenv("IRCG_SAN");
    if (san && *san)
        bound *= 4;
    printf("    %-28s %-9s run %.3f s, stopped %.3f s after the %s (bound %.3f s)\n", phase,
           how, T, lat, how, bound);
    CHECK(lat >= 0 && lat <= bound);
}

/* ---------------------------------------------------------------- phases -- */

static ircg_error generate(void *ctx)
{
    ircg_ratings *R = NULL;
    ircg_error e = ircg_synth_ratings(ctx, &R, NULL);
    ircg_ratings_free(R);
    return e;
}

TEST(stops, generation)
{
    /* row by row (2^22 ratings) and the one-thread path (dense: 40% of
     * the cells, drawn by rejection) */
    ircg_synth_ratings_spec rows = {.n_rows = 60000, .n_cols = 4000, .rank = 10,
                                    .n_ratings = 6000000, .min_rating = 1, .max_rating = 5,
                                    .noise = 0.5, .seed = 3, .threads = 1};
    ircg_synth_ratings_spec cells = rows;
    cells.n_rows = 100000;
    cells.n_cols = 40;
    cells.n_ratings = 1600000;
    double T;
    ircg_error e;
    double l = latency(generate, &rows, 0, &T, &e);
    CHECK(e == IRCG_ERR_STOPPED);
    report("generation (by rows)", "deadline", T, l, BOUND);
    l = latency(generate, &cells, 1, &T, &e);
    CHECK(e == IRCG_ERR_STOPPED);
    report("generation (by cells)", "cancel", T, l, BOUND);
}

static ircg_error read_file(void *ctx)
{
    ircg_ratings *R = NULL;
    ircg_read_options ro = {IRCG_FORMAT_MOVIELENS, 0, 0, 1};
    ircg_error e = ircg_ratings_read_file(ctx, &ro, &R, NULL);
    ircg_ratings_free(R);
    return e;
}

TEST(stops, reading)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/stops-ratings.dat", th_tmpdir());
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    for (int i = 0; i < 3000000; i++) /* 3M lines, about 60 MB */
        fprintf(f, "%d::%d::%d::978300760\n", 1 + i / 300, 1 + (i % 300) * 7919 % 300, 1 + i % 5);
    REQUIRE(fclose(f) == 0);
    double T;
    ircg_error e;
    double l = latency(read_file, path, 0, &T, &e);
    CHECK(e == IRCG_ERR_STOPPED);
    report("reading (one thread)", "deadline", T, l, BOUND);
    unlink(path);
}

static ircg_error build(void *ctx)
{
    ircg_problem *pb = NULL;
    ircg_error e = ircg_problem_matrix_completion(ctx, IRCG_OUTER_COLUMN_VARIANCE, 5, &pb,
                                                  NULL);
    ircg_problem_free(pb);
    return e;
}

TEST(stops, building)
{
    /* long rows in reverse column order: the build sorts every row */
    ircg_ratings *R = ircg_ratings_new(8000, 1000, 8000000);
    REQUIRE(R != NULL);
    for (int64_t e = 0; e < R->nnz; e++) {
        R->row[e] = (int32_t)(e / 1000);
        R->col[e] = (int32_t)(999 - e % 1000);
        R->val[e] = 1 + (double)(e % 5);
    }
    double T;
    ircg_error e;
    double l = latency(build, R, 0, &T, &e);
    CHECK(e == IRCG_ERR_STOPPED);
    report("building (CSR)", "deadline", T, l, BOUND);
    ircg_ratings_free(R);
}

typedef struct solve_ctx {
    const ircg_problem *pb;
    int64_t max_iter;
    double longest;       /* the longest iteration seen               */
    double last;
    ircg_status status;
    double cert_seconds;  /* the run's certificates' (ircg_info)         */
} solve_ctx;

static int on_iter(void *user, const ircg_iter_info *it)
{
    solve_ctx *c = user;
    if (it->elapsed - c->last > c->longest)
        c->longest = it->elapsed - c->last;
    c->last = it->elapsed;
    return 0;
}

static ircg_error solve(void *ctx)
{
    solve_ctx *c = ctx;
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_info info = {0};
    ircg_settings_default(&s);
    s.max_iter = c->max_iter;
    s.callback = on_iter;
    s.callback_data = c;
    c->last = 0;
    ircg_error e = ircg_solver_new(c->pb, &s, &sv, NULL);
    if (e == IRCG_OK)
        e = ircg_solve(sv, &info);
    c->status = info.status;
    c->cert_seconds = info.cert_seconds;
    ircg_solver_free(sv);
    /* a stopped solve is not an error: its status says it */
    return e == IRCG_OK && (info.status == IRCG_STATUS_TIME_LIMIT ||
                            info.status == IRCG_STATUS_CANCELLED)
               ? IRCG_ERR_STOPPED : e;
}

static ircg_error reference(void *ctx)
{
    solve_ctx *c = ctx;
    ircg_reference_settings s;
    ircg_reference *ref = NULL;
    ircg_reference_info ri;
    ircg_reference_settings_default(&s);
    s.max_iter = c->max_iter;
    s.tol = 1e-15;
    ircg_error e = ircg_reference_compute(c->pb, &s, &ref, NULL);
    if (e == IRCG_OK)
        ircg_reference_get_info(ref, &ri);
    ircg_reference_free(ref);
    return e == IRCG_OK && (ri.status == IRCG_STATUS_TIME_LIMIT ||
                            ri.status == IRCG_STATUS_CANCELLED)
               ? IRCG_ERR_STOPPED : e;
}

/* The phase ran to the end the first time (its status then is not a
 * stop): latency() wants IRCG_OK there. */
static ircg_error ended(ircg_error e) { return e == IRCG_ERR_STOPPED ? IRCG_OK : e; }

static ircg_error solve_once(void *ctx)
{
    static int first = 1;
    ircg_error e = solve(ctx);
    if (first) {
        first = 0;
        return ended(e);
    }
    return e;
}

static ircg_error reference_once(void *ctx)
{
    static int first = 1;
    ircg_error e = reference(ctx);
    if (first) {
        first = 0;
        return ended(e);
    }
    return e;
}

static ircg_problem *synthetic_mc(int n, int p, int64_t N, ircg_outer_kind outer,
                                  double delta)
{
    ircg_synth_ratings_spec sp = {.n_rows = n, .n_cols = p, .rank = 10, .n_ratings = N,
                                  .min_rating = 1, .max_rating = 5, .noise = 0.5, .seed = 5};
    ircg_ratings *R = NULL;
    ircg_problem *pb = NULL;
    if (ircg_synth_ratings(&sp, &R, NULL) == IRCG_OK)
        ircg_problem_matrix_completion(R, outer, delta, &pb, NULL);
    ircg_ratings_free(R);
    return pb;
}

TEST(stops, reference_and_solve)
{
    /* g_opt inside a wide ball (delta 2e4): conditional gradient takes
     * its iterations there; on a tight one it converges in two */
    ircg_problem *wide = synthetic_mc(3000, 2000, 300000, IRCG_OUTER_COLUMN_VARIANCE, 2e4);
    ircg_problem *pb = synthetic_mc(6040, 3952, 1000209, IRCG_OUTER_COLUMN_VARIANCE, 5);
    REQUIRE(pb != NULL && wide != NULL);
    solve_ctx r = {wide, 30, 0, 0, 0, 0}, c = {pb, 40, 0, 0, 0, 0};
    double T;
    ircg_error e;
    double l = latency(reference_once, &r, 1, &T, &e);
    CHECK(e == IRCG_ERR_STOPPED);
    report("reference (g_opt)", "cancel", T, l, BOUND);
    l = latency(solve_once, &c, 0, &T, &e);
    CHECK(e == IRCG_ERR_STOPPED && c.status == IRCG_STATUS_TIME_LIMIT);
    report("solve (IR-CG)", "deadline", T, l, BOUND + c.cert_seconds);
    printf("    (its certificates, the last made after the deadline: %.3f s)\n", c.cert_seconds);
    ircg_problem_free(pb);
    ircg_problem_free(wide);
}

static ircg_error solve_compress(void *ctx)
{
    static int first = 1;
    ircg_error e = solve(ctx);
    if (first) {
        first = 0;
        return ended(e);
    }
    return e;
}

TEST(stops, solve_that_compresses)
{
    /* 10^6 rows of one rating over 200 columns: the factors (10^6 x k)
     * are the work, and a compression (their QR) its largest unit */
    ircg_problem *pb = synthetic_mc(1000000, 200, 1000000, IRCG_OUTER_HALF_NORM_SQ, 5);
    REQUIRE(pb != NULL);
    solve_ctx c = {pb, 40, 0, 0, 0, 0};
    double T;
    ircg_error e;
    double l = latency(solve_compress, &c, 1, &T, &e);
    double bound = c.longest + BOUND;
    CHECK(e == IRCG_ERR_STOPPED && c.status == IRCG_STATUS_CANCELLED);
    report("solve (compressions)", "cancel", T, l, bound);
    printf("    (its longest iteration, compression included: %.3f s)\n", c.longest);
    ircg_problem_free(pb);
}
