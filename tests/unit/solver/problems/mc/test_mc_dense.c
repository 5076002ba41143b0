/*
 * test_mc_dense.c -- IR-CG on matrix completion through the public API
 * against an independent dense IR-CG written here: dense X and Z, a full
 * LAPACK SVD for the LMO, and the paper's recursions for sigma_t, S_t, z_t
 * and the three step rules.  g and f at x_t and z_t must agree to 1e-9,
 * and so must every step alpha_t; the adaptive rules are run where their
 * steps are clipped (the paper's radius) and where they are not.
 */
/* make test-kernels: mc_dense. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "unit/solver/test_mc_util.h"

#define ITERS 50
/* The interior-step instances (see below): radius, observed fraction, and
 * how many of the 50 steps must lie strictly inside (0, 1). */
#define INTERIOR_DELTA 250.0
#define INTERIOR_FRAC 0.5
#define MIN_INTERIOR 45

typedef struct trace {
    int n;
    double gx[ITERS + 1], fx[ITERS + 1], gz[ITERS + 1], fz[ITERS + 1];
    double alpha[ITERS + 1]; /* alpha[t + 1] = alpha_t */
} trace;

static int record(void *user, const ircg_iter_info *it)
{
    trace *tr = user;
    if (it->t <= ITERS) {
        tr->gx[it->t] = it->g_x;
        tr->fx[it->t] = it->f_x;
        tr->gz[it->t] = it->g_z;
        tr->fz[it->t] = it->f_z;
        tr->alpha[it->t] = it->alpha;
        tr->n = (int)it->t;
    }
    return 0;
}

static double step_rule(ircg_step_rule rule, int t, double sigma, double gphi,
                        double dn2, double hf, double hg)
{
    double num = -gphi, den;
    if (rule == IRCG_STEP_OPEN_LOOP)
        return 2.0 / (t + 2.0);
    den = rule == IRCG_STEP_CLOSED_LOOP ? (sigma * 1.0 + 1.0) * dn2 : sigma * hf + hg;
    if (!(num > 0))
        return 0;
    return num >= den ? 1.0 : num / den;
}

/* The dense reference: X0 = 0.01 delta / min(n,p) on the diagonal. */
static void dense_ircg(const mct_inst *in, ircg_outer_kind outer, double delta,
                       double vs, double pw, ircg_step_rule rule, trace *tr)
{
    int n = in->n, p = in->p, m0 = n < p ? n : p;
    size_t np = (size_t)n * p;
    double *X = calloc(np, sizeof *X), *Z = calloc(np, sizeof *Z);
    double *G = malloc(np * sizeof *G), *D = malloc(np * sizeof *D);
    double *s = malloc((size_t)m0 * sizeof *s), *u = malloc((size_t)n * sizeof *u);
    double *v = malloc((size_t)p * sizeof *v), S = 0;

    for (int i = 0; i < m0; i++)
        X[i + (size_t)i * n] = 0.01 * delta / m0;
    memcpy(Z, X, np * sizeof *Z);
    for (int t = 0; t < ITERS; t++) {
        double sigma = vs * pow(t + 1.0, -pw);
        mct_grad(in, outer, sigma, X, G);
        mct_svd(n, p, G, s, u, v);
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++)
                D[i + (size_t)j * n] = -delta * u[i] * v[j] - X[i + (size_t)j * n];
        double a = step_rule(rule, t, sigma, mct_dot(G, D, np), mct_dot(D, D, np),
                             mct_hf(in, outer, D), mct_hg(in, D));
        double Sn = S + 2.0 * (t + 1) * sigma;
        for (size_t e = 0; e < np; e++) {
            double xn = X[e] + a * D[e];
            Z[e] = (S * Z[e] - (t + 1.0) * t * sigma * X[e] +
                    (t + 2.0) * (t + 1.0) * sigma * xn) / Sn;
            X[e] = xn;
        }
        S = Sn;
        tr->alpha[t + 1] = a;
        tr->gx[t + 1] = mct_g(in, X);
        tr->fx[t + 1] = mct_f(in, outer, X);
        tr->gz[t + 1] = mct_g(in, Z);
        tr->fz[t + 1] = mct_f(in, outer, Z);
    }
    tr->n = ITERS;
    free(X);
    free(Z);
    free(G);
    free(D);
    free(s);
    free(u);
    free(v);
}

/* Steps strictly inside (0, 1): only those depend on the rule's
 * denominator (a clipped step is 1 or 0 whatever it is). */
static int interior_steps(const trace *tr)
{
    int k = 0;
    for (int t = 1; t <= tr->n; t++)
        k += tr->alpha[t] > 0 && tr->alpha[t] < 1;
    return k;
}

/* 50 iterations on a random n x p instance observed with probability frac
 * against the dense reference; returns the library's interior steps. */
static int compare(ircg_outer_kind outer, ircg_step_rule rule, int n, int p,
                   double frac, double delta)
{
    mct_inst in;
    trace ref = {0}, got = {0};
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_info info;

    if (mct_make(&in, n, p, frac, delta, outer, 42 + (uint64_t)rule) != 0) {
        th_fail(__FILE__, __LINE__, "mct_make failed");
        mct_free(&in);
        return -1;
    }
    dense_ircg(&in, outer, delta, 0.05, 0.5, rule, &ref);
    ircg_settings_default(&s);
    s.varsigma = 0.05; /* the dense reference's */
    s.step_rule = rule;
    s.max_iter = ITERS;
    /* FW amplifies LMO errors once the gradient's top singular values
     * cluster (interior steps near an interior optimum): with 1e-12 the
     * two runs drifted 1e-9 apart by t = 40, with 1e-14 they stay within
     * 1e-11 over the 50 iterations */
    s.lmo_tol = 1e-14;
    s.callback = record;
    s.callback_data = &got;
    if (ircg_solver_new(in.pb, &s, &sv, NULL) != IRCG_OK) {
        th_fail(__FILE__, __LINE__, "ircg_solver_new failed");
        mct_free(&in);
        return -1;
    }
    CHECK(ircg_solve(sv, &info) == IRCG_OK);
    CHECK_INT(info.lmo_unconverged, 0);
    CHECK_INT(got.n, ITERS);
    for (int t = 1; t <= ITERS && !th_failed(); t++) {
        CHECK_NEAR(got.alpha[t], ref.alpha[t], 1e-9);
        CHECK_REL(got.gx[t], ref.gx[t], 1e-9, 1e-12);
        CHECK_REL(got.fx[t], ref.fx[t], 1e-9, 1e-12);
        CHECK_REL(got.gz[t], ref.gz[t], 1e-9, 1e-12);
        CHECK_REL(got.fz[t], ref.fz[t], 1e-9, 1e-12);
    }
    printf("    %s, delta %g: %d of %d steps in (0, 1) (dense reference: %d)\n",
           rule == IRCG_STEP_OPEN_LOOP ? "open loop" : rule == IRCG_STEP_CLOSED_LOOP
           ? "closed loop" : "line search", delta, interior_steps(&got), ITERS,
           interior_steps(&ref));
    ircg_solver_free(sv);
    mct_free(&in);
    return interior_steps(&got);
}

/* The paper's delta = 5 is tiny next to these ratings: every adaptive step
 * is clipped to 1 (FW with step 1 on a rank-one optimum). */
TEST(mc_dense, open_loop)
{
    compare(IRCG_OUTER_COLUMN_VARIANCE, IRCG_STEP_OPEN_LOOP, 60, 40, 0.3, 5.0);
}
TEST(mc_dense, paper_radius_clips_every_step)
{
    CHECK_INT(compare(IRCG_OUTER_COLUMN_VARIANCE, IRCG_STEP_CLOSED_LOOP, 60, 40, 0.3,
                      5.0), 0);
    CHECK_INT(compare(IRCG_OUTER_COLUMN_VARIANCE, IRCG_STEP_LINE_SEARCH, 60, 40, 0.3,
                      5.0), 0);
}

/* A radius far above ||M||_* of the data (half the entries observed) puts
 * the minimizers of g inside the ball: the adaptive steps stay inside
 * (0, 1), where the closed-loop
 * denominator (sigma L_f + L_g) ||d||^2 and the exact one
 * sigma ||U d||^2 + ||P_Omega d||^2 decide every step. */
TEST(mc_dense, closed_loop)
{
    int k = compare(IRCG_OUTER_COLUMN_VARIANCE, IRCG_STEP_CLOSED_LOOP, 60, 40, INTERIOR_FRAC,
                    INTERIOR_DELTA);
    CHECK(k >= MIN_INTERIOR);
}
TEST(mc_dense, line_search)
{
    int k = compare(IRCG_OUTER_COLUMN_VARIANCE, IRCG_STEP_LINE_SEARCH, 60, 40, INTERIOR_FRAC,
                    INTERIOR_DELTA);
    CHECK(k >= MIN_INTERIOR);
}
TEST(mc_dense, half_norm_line_search)
{
    int k = compare(IRCG_OUTER_HALF_NORM_SQ, IRCG_STEP_LINE_SEARCH, 60, 40, INTERIOR_FRAC,
                    INTERIOR_DELTA);
    CHECK(k >= MIN_INTERIOR);
}
TEST(mc_dense, half_norm_closed_loop)
{
    int k = compare(IRCG_OUTER_HALF_NORM_SQ, IRCG_STEP_CLOSED_LOOP, 60, 40, INTERIOR_FRAC,
                    INTERIOR_DELTA);
    CHECK(k >= MIN_INTERIOR);
}
