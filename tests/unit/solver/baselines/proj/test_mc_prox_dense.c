/*
 * test_mc_prox_dense.c -- IR-PG and Bi-SG on matrix completion through the
 * public API against independent dense implementations written here: dense
 * X, dense gradients, the projection by a full LAPACK SVD and a sort-based
 * simplex projection, and IR-PG's Armijo rule on plain function values.
 * g and f agree to 1e-9 at every iteration for both outer objectives and
 * both projection modes; a first trial step of 4 forces backtracking.
 * Also: a checkpoint taken mid-run continues bit for bit, a damaged one
 * leaves the solver as it was, and the thread count changes nothing.
 */
/* make test-kernels: mc_prox_dense. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "unit/solver/test_mc_util.h"

#define ITERS 30
#define DELTA 5.0 /* the paper's radius, in the checkpoint tests */

typedef struct trace {
    int n;
    double gx[ITERS + 1], fx[ITERS + 1], gz[ITERS + 1], fz[ITERS + 1];
    int backtracks, full, partial;
} trace;

static int record(void *user, const ircg_iter_info *it)
{
    trace *tr = user;
    if (it->t <= ITERS) {
        tr->gx[it->t] = it->g_x;
        tr->fx[it->t] = it->f_x;
        tr->gz[it->t] = it->g_z;
        tr->fz[it->t] = it->f_z;
        tr->n = (int)it->t;
    }
    tr->backtracks += it->backtracks;
    tr->full += it->proj_full;
    tr->partial += !it->proj_full;
    return 0;
}

static void start_x0(const mct_inst *in, double delta, double *X)
{
    int m0 = in->n < in->p ? in->n : in->p;
    memset(X, 0, (size_t)in->n * in->p * sizeof *X);
    for (int i = 0; i < m0; i++)
        X[i + (size_t)i * in->n] = 0.01 * delta / m0;
}

/* Solodov's IR-PG with Armijo backtracking, as alg_prox.c states it. */
static void dense_irpg(const mct_inst *in, ircg_outer_kind outer, double delta,
                       const ircg_settings *s, trace *tr)
{
    size_t np = (size_t)in->n * in->p;
    double *X = malloc(np * sizeof *X), *G = malloc(np * sizeof *G);
    double *Y = malloc(np * sizeof *Y), *Xp = malloc(np * sizeof *Xp);

    start_x0(in, delta, X);
    for (int t = 0; t < ITERS; t++) {
        double sigma = s->varsigma * pow(t + 1.0, -s->p), a = s->irpg_step;
        double phi = sigma * mct_f(in, outer, X) + mct_g(in, X);
        mct_grad(in, outer, sigma, X, G);
        for (int m = 0;; m++) {
            for (size_t e = 0; e < np; e++)
                Y[e] = X[e] - a * G[e];
            mct_proj_nuclear(in->n, in->p, Y, delta, Xp);
            for (size_t e = 0; e < np; e++)
                Y[e] = Xp[e] - X[e];
            double slope = mct_dot(G, Y, np);
            double change = sigma * mct_f(in, outer, Xp) + mct_g(in, Xp) - phi;
            if (change <= s->irpg_theta * slope || m >= 60)
                break;
            a *= s->irpg_eta;
        }
        memcpy(X, Xp, np * sizeof *X);
        tr->gx[t + 1] = tr->gz[t + 1] = mct_g(in, X);
        tr->fx[t + 1] = tr->fz[t + 1] = mct_f(in, outer, X);
    }
    tr->n = ITERS;
    free(X);
    free(G);
    free(Y);
    free(Xp);
}

/* Merchav and Sabach's Bi-SG: y_k = Proj(x_{k-1} - t grad g(x_{k-1})),
 * x_k = y_k - c k^-alpha grad f(y_k); x is y_k, z is x_k. */
static void dense_bisg(const mct_inst *in, ircg_outer_kind outer, double delta,
                       const ircg_settings *s, trace *tr)
{
    size_t np = (size_t)in->n * in->p;
    double *Z = malloc(np * sizeof *Z), *G = malloc(np * sizeof *G);
    double *Y = malloc(np * sizeof *Y), *Gf = malloc(np * sizeof *Gf);
    double step = s->bisg_step > 0 ? s->bisg_step : 1.0;

    start_x0(in, delta, Z);
    for (int k = 1; k <= ITERS; k++) {
        mct_grad(in, outer, 0.0, Z, G);
        for (size_t e = 0; e < np; e++)
            Y[e] = Z[e] - step * G[e];
        mct_proj_nuclear(in->n, in->p, Y, delta, Y);
        double eta = s->bisg_c * pow(k, -s->bisg_alpha);
        mct_grad(in, outer, 1.0, Y, Gf);
        mct_grad(in, outer, 0.0, Y, G);
        for (size_t e = 0; e < np; e++)
            Z[e] = Y[e] - eta * (Gf[e] - G[e]);
        tr->gx[k] = mct_g(in, Y);
        tr->fx[k] = mct_f(in, outer, Y);
        tr->gz[k] = mct_g(in, Z);
        tr->fz[k] = mct_f(in, outer, Z);
    }
    tr->n = ITERS;
    free(Z);
    free(G);
    free(Y);
    free(Gf);
}

static void compare(int n, int p, double delta, ircg_outer_kind outer,
                    ircg_algorithm alg, ircg_projection mode, double step, trace *got)
{
    mct_inst in;
    trace ref = {0};
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_info info;

    memset(got, 0, sizeof *got);
    REQUIRE(mct_make(&in, n, p, 0.4, delta, outer, 1000 + (uint64_t)n + alg) == 0);
    ircg_settings_default(&s);
    s.varsigma = 0.05; /* the paper's absolute varsigma: the references use it */
    s.algorithm = alg;
    s.projection = mode;
    s.irpg_step = step;
    s.max_iter = ITERS;
    s.lmo_tol = 1e-12;
    s.callback = record;
    s.callback_data = got;
    if (alg == IRCG_ALG_IRPG)
        dense_irpg(&in, outer, delta, &s, &ref);
    else
        dense_bisg(&in, outer, delta, &s, &ref);
    REQUIRE(ircg_solver_new(in.pb, &s, &sv, NULL) == IRCG_OK);
    CHECK(ircg_solve(sv, &info) == IRCG_OK);
    CHECK_INT(info.status, IRCG_STATUS_MAX_ITER);
    CHECK_INT(got->n, ITERS);
    CHECK_INT(info.proj_full + info.proj_partial, ITERS + got->backtracks);
    for (int t = 1; t <= ITERS && !th_failed(); t++) {
        CHECK_REL(got->gx[t], ref.gx[t], 1e-9, 1e-12);
        CHECK_REL(got->fx[t], ref.fx[t], 1e-9, 1e-12);
        CHECK_REL(got->gz[t], ref.gz[t], 1e-9, 1e-12);
        CHECK_REL(got->fz[t], ref.fz[t], 1e-9, 1e-12);
    }
    if (mode == IRCG_PROJ_FULL)
        CHECK_INT(got->partial, 0);
    ircg_solver_free(sv);
    mct_free(&in);
}

static void both_modes(int n, int p, double delta, ircg_outer_kind outer,
                       ircg_algorithm alg, double step, int *backtracks)
{
    trace got;
    for (int mode = IRCG_PROJ_PARTIAL; mode <= IRCG_PROJ_FULL && !th_failed(); mode++) {
        compare(n, p, delta, outer, alg, mode, step, &got);
        *backtracks += got.backtracks;
        /* the paper's radius needs few triplets: certified by Lanczos every
         * time (at 30 x 20 the basis spans everything anyway) */
        if (mode == IRCG_PROJ_PARTIAL && delta <= DELTA)
            CHECK_INT(got.full, 0);
    }
}

TEST(mc_prox_dense, irpg_column_variance)
{
    int bt = 0;
    both_modes(30, 20, DELTA, IRCG_OUTER_COLUMN_VARIANCE, IRCG_ALG_IRPG, 0.5, &bt);
    both_modes(70, 50, DELTA, IRCG_OUTER_COLUMN_VARIANCE, IRCG_ALG_IRPG, 0.5, &bt);
    CHECK_INT(bt, 0); /* L_t <= 1.05 < 2 (1 - theta) / a: never backtracks */
}

/* With delta = 5 the projection of even a step of 4 lands where the
 * Armijo test holds; a larger ball leaves room for the overshoot. */
TEST(mc_prox_dense, irpg_backtracking)
{
    int bt = 0;
    both_modes(30, 20, 50.0, IRCG_OUTER_COLUMN_VARIANCE, IRCG_ALG_IRPG, 4.0, &bt);
    CHECK(bt > 0);
    bt = 0;
    both_modes(30, 20, 50.0, IRCG_OUTER_HALF_NORM_SQ, IRCG_ALG_IRPG, 4.0, &bt);
    CHECK(bt > 0);
    bt = 0;
    both_modes(70, 50, 200.0, IRCG_OUTER_COLUMN_VARIANCE, IRCG_ALG_IRPG, 4.0, &bt);
    CHECK(bt > 0);
}

TEST(mc_prox_dense, irpg_half_norm)
{
    int bt = 0;
    both_modes(30, 20, DELTA, IRCG_OUTER_HALF_NORM_SQ, IRCG_ALG_IRPG, 0.5, &bt);
}

TEST(mc_prox_dense, bisg_column_variance)
{
    int bt = 0;
    both_modes(30, 20, DELTA, IRCG_OUTER_COLUMN_VARIANCE, IRCG_ALG_BISG, 0.5, &bt);
    both_modes(70, 50, DELTA, IRCG_OUTER_COLUMN_VARIANCE, IRCG_ALG_BISG, 0.5, &bt);
}

TEST(mc_prox_dense, bisg_half_norm)
{
    int bt = 0;
    both_modes(30, 20, DELTA, IRCG_OUTER_HALF_NORM_SQ, IRCG_ALG_BISG, 0.5, &bt);
}

/* ----------------------------------------------------- checkpoints -- */

static ircg_solver *solver(const mct_inst *in, ircg_algorithm alg, int64_t iters,
                           int threads, trace *rec)
{
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_settings_default(&s);
    s.varsigma = 0.05; /* the paper's absolute varsigma: the references use it */
    s.algorithm = alg;
    s.max_iter = iters;
    s.threads = threads;
    s.callback = record;
    s.callback_data = rec;
    ircg_solver_new(in->pb, &s, &sv, NULL);
    return sv;
}

static void checkpoint_round_trip(ircg_algorithm alg)
{
    mct_inst in;
    trace a = {0}, b = {0}, c = {0};
    ircg_solver *s1, *s2, *s3;
    ircg_info info;
    ircg_diag diag = {0};
    void *blob = NULL;
    size_t len = 0;

    REQUIRE(mct_make(&in, 70, 50, 0.3, DELTA, IRCG_OUTER_COLUMN_VARIANCE, 4) == 0);
    REQUIRE((s1 = solver(&in, alg, 8, 1, &a)) != NULL);
    REQUIRE(ircg_solve(s1, &info) == IRCG_OK);
    REQUIRE(ircg_solver_save(s1, &blob, &len) == IRCG_OK);
    ircg_solver_settings(s1)->max_iter = 16;
    REQUIRE(ircg_solve(s1, &info) == IRCG_OK);

    /* damaged blobs are refused and leave s2 as it was (at its start) */
    REQUIRE((s2 = solver(&in, alg, 16, 1, &b)) != NULL);
    unsigned char *bad = malloc(len + 8);
    memcpy(bad, blob, len);
    memset(bad + len, 0, 8);
    CHECK(ircg_solver_restore(s2, blob, len - 9, &diag) == IRCG_ERR_INVALID);
    CHECK(ircg_solver_restore(s2, bad, len + 8, &diag) == IRCG_ERR_INVALID);
    double nan = NAN;
    memcpy(bad + len - 8, &nan, 8); /* the last residual entry */
    CHECK(ircg_solver_restore(s2, bad, len, &diag) == IRCG_ERR_INVALID);
    CHECK_STR(diag.field, "/checkpoint");
    REQUIRE((s3 = solver(&in, alg, 16, 1, &c)) != NULL);
    REQUIRE(ircg_solve(s2, &info) == IRCG_OK);
    REQUIRE(ircg_solve(s3, &info) == IRCG_OK);
    for (int t = 1; t <= 16; t++)
        CHECK(b.gx[t] == c.gx[t] && b.fz[t] == c.fz[t]);
    free(bad);

    /* the good blob continues exactly where s1 went on */
    memset(&b, 0, sizeof b);
    ircg_solver_free(s2);
    REQUIRE((s2 = solver(&in, alg, 16, 1, &b)) != NULL);
    REQUIRE(ircg_solver_restore(s2, blob, len, &diag) == IRCG_OK);
    REQUIRE(ircg_solve(s2, &info) == IRCG_OK);
    CHECK_INT(info.iterations, 16);
    CHECK_INT(b.n, 16);
    for (int t = 9; t <= 16; t++) {
        CHECK(a.gx[t] == b.gx[t]);
        CHECK(a.fx[t] == b.fx[t]);
        CHECK(a.gz[t] == b.gz[t]);
        CHECK(a.fz[t] == b.fz[t]);
    }
    free(blob);
    ircg_solver_free(s1);
    ircg_solver_free(s2);
    ircg_solver_free(s3);
    mct_free(&in);
}

TEST(mc_prox_dense, checkpoint_irpg) { checkpoint_round_trip(IRCG_ALG_IRPG); }
TEST(mc_prox_dense, checkpoint_bisg) { checkpoint_round_trip(IRCG_ALG_BISG); }

TEST(mc_prox_dense, checkpoint_of_another_algorithm_or_class)
{
    mct_inst in;
    trace a = {0}, b = {0};
    ircg_solver *s1, *s2;
    ircg_info info;
    ircg_diag diag = {0};
    void *blob = NULL;
    size_t len = 0;

    REQUIRE(mct_make(&in, 20, 15, 0.4, DELTA, IRCG_OUTER_COLUMN_VARIANCE, 6) == 0);
    REQUIRE((s1 = solver(&in, IRCG_ALG_IRCG, 3, 1, &a)) != NULL);
    REQUIRE(ircg_solve(s1, &info) == IRCG_OK);
    REQUIRE(ircg_solver_save(s1, &blob, &len) == IRCG_OK);
    REQUIRE((s2 = solver(&in, IRCG_ALG_IRPG, 3, 1, &b)) != NULL);
    CHECK(ircg_solver_restore(s2, blob, len, &diag) == IRCG_ERR_INVALID);
    free(blob);
    ircg_solver_free(s1);
    ircg_solver_free(s2);
    mct_free(&in);
}

TEST(mc_prox_dense, threads_do_not_change_values)
{
    mct_inst in;
    /* several chunks of 32768 entries, so the passes do split */
    REQUIRE(mct_make(&in, 500, 400, 0.4, DELTA, IRCG_OUTER_COLUMN_VARIANCE, 8) == 0);
    for (int alg = IRCG_ALG_IRPG; alg <= IRCG_ALG_BISG; alg++) {
        trace a = {0}, b = {0};
        ircg_solver *s1 = solver(&in, alg, 10, 1, &a), *s2 = solver(&in, alg, 10, 3, &b);
        ircg_info info;
        REQUIRE(s1 && s2);
        REQUIRE(ircg_solve(s1, &info) == IRCG_OK);
        REQUIRE(ircg_solve(s2, &info) == IRCG_OK);
        for (int t = 1; t <= 10; t++)
            CHECK(a.gx[t] == b.gx[t] && a.fx[t] == b.fx[t] && a.gz[t] == b.gz[t] &&
                  a.fz[t] == b.fz[t]);
        ircg_solver_free(s1);
        ircg_solver_free(s2);
    }
    mct_free(&in);
}

typedef struct armijo_count {
    int capped, stays;
} armijo_count;

static int count_armijo(void *user, const ircg_iter_info *it)
{
    armijo_count *c = user;
    c->capped += it->backtracks >= 60;
    c->stays += it->alpha == 0;
    return 0;
}

TEST(mc_prox_dense, irpg_stays_when_the_slope_is_rounding)
{
    /* Run to the limit of double precision: once x is a fixed point of the
     * projected step, the computed slope <grad Phi, d> is rounding and may
     * be >= 0 (in exact arithmetic it is <= -||d||^2 / a), which no smaller
     * step changes.  IR-PG must then stay for that iteration, not halve the
     * step 60 times, each time with a projection. */
    mct_inst in;
    ircg_settings s;
    ircg_solver *sv = NULL;
    armijo_count c = {0, 0};

    REQUIRE(mct_make(&in, 80, 60, 0.3, DELTA, IRCG_OUTER_COLUMN_VARIANCE, 5) == 0);
    ircg_settings_default(&s);
    s.varsigma = 0.05; /* the paper's absolute varsigma: the references use it */
    s.algorithm = IRCG_ALG_IRPG;
    s.max_iter = 3000;
    s.callback = count_armijo;
    s.callback_data = &c;
    REQUIRE(ircg_solver_new(in.pb, &s, &sv, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(sv, NULL) == IRCG_OK);
    CHECK_INT(c.capped, 0);
    CHECK(c.stays > 0); /* the instance does reach the rounding floor */
    ircg_solver_free(sv);
    mct_free(&in);
}
