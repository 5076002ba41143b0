/*
 * test_mc_dense.c -- IR-CG on matrix completion through the public API
 * against an independent dense IR-CG written here: dense X and Z, a full
 * LAPACK SVD for the LMO, and the paper's recursions for sigma_t, S_t, z_t
 * and the three step rules.  g and f at x_t and z_t must agree to 1e-9.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "ircg.h"
#include "test_mc_util.h"

#define ITERS 50

typedef struct trace {
    int n;
    double gx[ITERS + 1], fx[ITERS + 1], gz[ITERS + 1], fz[ITERS + 1];
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

static void compare(ircg_outer_kind outer, ircg_step_rule rule)
{
    mct_inst in;
    trace ref = {0}, got = {0};
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_info info;

    REQUIRE(mct_make(&in, 60, 40, 0.3, 5.0, outer, 42 + (uint64_t)rule) == 0);
    dense_ircg(&in, outer, 5.0, 0.05, 0.5, rule, &ref);
    ircg_settings_default(&s);
    s.step_rule = rule;
    s.max_iter = ITERS;
    s.lmo_tol = 1e-12;
    s.callback = record;
    s.callback_data = &got;
    REQUIRE(ircg_solver_new(in.pb, &s, &sv, NULL) == IRCG_OK);
    CHECK(ircg_solve(sv, &info) == IRCG_OK);
    CHECK_INT(got.n, ITERS);
    for (int t = 1; t <= ITERS && !th_failed(); t++) {
        CHECK_REL(got.gx[t], ref.gx[t], 1e-9, 1e-12);
        CHECK_REL(got.fx[t], ref.fx[t], 1e-9, 1e-12);
        CHECK_REL(got.gz[t], ref.gz[t], 1e-9, 1e-12);
        CHECK_REL(got.fz[t], ref.fz[t], 1e-9, 1e-12);
    }
    ircg_solver_free(sv);
    mct_free(&in);
}

TEST(mc_dense, open_loop) { compare(IRCG_OUTER_COLUMN_VARIANCE, IRCG_STEP_OPEN_LOOP); }
TEST(mc_dense, closed_loop) { compare(IRCG_OUTER_COLUMN_VARIANCE, IRCG_STEP_CLOSED_LOOP); }
TEST(mc_dense, line_search) { compare(IRCG_OUTER_COLUMN_VARIANCE, IRCG_STEP_LINE_SEARCH); }
TEST(mc_dense, half_norm_line_search)
{
    compare(IRCG_OUTER_HALF_NORM_SQ, IRCG_STEP_LINE_SEARCH);
}
