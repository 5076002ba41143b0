/*
 * test_logreg.c -- the logistic regression family against computations
 * written here: the oracle's scalars, values, slopes and margins against
 * direct sums; the exact step against a brute-force minimization of
 * Phi along the direction; g - g_ref termwise against a long-double
 * oracle, with a relative tolerance derived from the rounding of each
 * term, for a far reference and one where the difference nearly cancels
 * (a naive difference of two sums misses that one by orders of magnitude
 * of its tolerance); checkpoints; labels 0/1; and the errors that name
 * their member.
 */
/* make test-kernels: logreg. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "core/solver_internal.h"
#include "test_num.h"

enum { M = 9, N = 5, MV = 7 };

typedef struct lr_inst {
    double A[M * N], y[M], Av[MV * N], yv[MV], c[N];
    ircg_ls_data tr, va;
    ircg_outer o;
    ircg_domain dom;
    ircg_problem *pb;
} lr_inst;

static void make(lr_inst *L, ircg_outer_kind ok, ircg_domain dom, uint64_t s, int zero_one)
{
    for (int i = 0; i < M * N; i++)
        L->A[i] = 2 * test_urand(&s);
    for (int i = 0; i < MV * N; i++)
        L->Av[i] = 2 * test_urand(&s);
    for (int i = 0; i < M; i++)
        L->y[i] = test_urand(&s) > 0 ? 1 : (zero_one ? 0 : -1);
    for (int i = 0; i < MV; i++)
        L->yv[i] = test_urand(&s) > 0 ? 1 : (zero_one ? 0 : -1);
    for (int i = 0; i < N; i++)
        L->c[i] = test_urand(&s);
    L->tr = (ircg_ls_data){.m = M, .n = N, .A_dense = L->A, .b = L->y};
    L->va = (ircg_ls_data){.m = MV, .n = N, .A_dense = L->Av, .b = L->yv};
    L->o = (ircg_outer){.kind = ok, .c = L->c, .val = &L->va};
    L->dom = dom;
    L->pb = NULL;
    ircg_problem_logistic(&L->tr, &L->o, &L->dom, &L->pb, NULL);
}

/* log(1 + e^-s) by the textbook formula (|s| stays small here). */
static double loss(double s) { return log(1 + exp(-s)); }

static double sum_loss(const double *A, const double *y, int m, const double *x)
{
    double s = 0;
    for (int i = 0; i < m; i++) {
        double z = 0, yi = y[i] == 0 ? -1 : y[i];
        for (int j = 0; j < N; j++)
            z += A[i * N + j] * x[j];
        s += loss(yi * z);
    }
    return s;
}

static double g_of(const lr_inst *L, const double *x) { return sum_loss(L->A, L->y, M, x); }

static double f_of(const lr_inst *L, const double *x)
{
    double s = 0;
    if (L->o.kind == IRCG_OUTER_VALIDATION)
        return sum_loss(L->Av, L->yv, MV, x);
    for (int j = 0; j < N; j++) {
        double e = L->o.kind == IRCG_OUTER_DIST_SQ ? x[j] - L->c[j] : x[j];
        s += 0.5 * e * e;
    }
    return s;
}

/* Phi along x + a d by central differences of order 4 (h = 1e-3: the
 * error is about h^4 Phi^(5), far below the 1e-8 compared). */
static double phi(const lr_inst *L, double sigma, const double *x, const double *d, double a)
{
    double p[N];
    for (int j = 0; j < N; j++)
        p[j] = x[j] + a * d[j];
    return sigma * f_of(L, p) + g_of(L, p);
}

static double dphi(const lr_inst *L, double sigma, const double *x, const double *d, double a)
{
    const double h = 1e-3;
    return (-phi(L, sigma, x, d, a + 2 * h) + 8 * phi(L, sigma, x, d, a + h) -
            8 * phi(L, sigma, x, d, a - h) + phi(L, sigma, x, d, a - 2 * h)) / (12 * h);
}

/* l(s) = log(1 + e^-s) in long double, without overflow. */
static long double loss_l(long double s)
{
    return s >= 0 ? log1pl(expl(-s)) : -s + log1pl(expl(s));
}

/* l(a) - l(b) in long double: for |a - b| <= 1 by the algebra
 * (1 + e^-a) / (1 + e^-b) = 1 + sigma(-b) (e^(b-a) - 1), b - a exact (two
 * doubles this close, a 64-bit significand), so the term keeps its own
 * relative accuracy (~2^-62) however small; else the plain difference,
 * within 2^-62 of the larger loss. */
static long double loss_diff_l(double a, double b)
{
    long double d = (long double)b - a;
    if (fabsl(d) > 1)
        return loss_l(a) - loss_l(b);
    long double sb = b >= 0 ? expl(-(long double)b) / (1 + expl(-(long double)b))
                            : 1 / (1 + expl((long double)b));
    return log1pl(sb * expm1l(d));
}

/* g - g_ref as the oracle sums it (lr_loss_diff termwise, compensated)
 * against the long-double sum of the same terms, l(y_i m_i) - l(y_i q_i)
 * of the margins m it holds and the reference's q.  Its rounding, in
 * eps = DBL_EPSILON: a close term (|a - b| <= 1) is log1p of
 * sigma(-b) expm1(b - a), whose argument carries b - a (0.5 eps, times
 * the condition of expm1, <= 1.6 on [-1, 1]), expm1 (1 eps), sigma(-b)
 * (2 eps) and the product (0.5 eps), magnified at most 1.72 times by
 * log1p on [e^-1 - 1, e - 1], plus log1p's own ulp: 8.4 eps of the term;
 * a far term is two losses (3 eps each: exp, log1p and the addition) and
 * their difference; the compensated sum adds eps |S| + 2 m eps^2 sum|t|.
 * That is the tolerance: relative to the terms, not to g.  Returns the
 * fraction of it used. */
static double check_gap(const lr_inst *L, const double *m, const double *q, double got)
{
    const double eps = DBL_EPSILON;
    long double S = 0, T = 0, tol = 0;
    for (int i = 0; i < M; i++) {
        double yi = L->y[i] == 0 ? -1 : L->y[i], a = yi * m[i], b = yi * q[i];
        long double t = loss_diff_l(a, b);
        S += t;
        T += fabsl(t);
        tol += fabs(a - b) <= 1 ? 9 * eps * fabsl(t)
                                : 3 * eps * (loss_l(a) + loss_l(b)) + eps * fabsl(t);
    }
    tol += eps * fabsl(S) + 2 * M * eps * eps * T;
    CHECK_NEAR(got, (double)S, (double)tol);
    return fabs(got - (double)S) / (double)tol;
}

static void get_vec(const ircg_problem *pb, void *ws, ircg_which w, double *x)
{
    ircg_iterate *it = NULL;
    if (pb->ops->iterate(ws, w, 0, &it) == IRCG_OK)
        memcpy(x, it->dense, N * sizeof *x);
    ircg_iterate_free(it);
}

/* Drive the oracle: each step with alpha = 1 exposes the vertex v; then
 * <grad Phi, d> and the slope at 0, 0.4, 1 against differences of Phi, the
 * exact step against a golden-section search of Phi, the values and the
 * margins against direct sums. */
static void drive(lr_inst *L, double *used)
{
    const slv_oracle_ops *ops = L->pb->ops;
    ircg_settings st;
    void *ws = NULL, *probe = NULL;
    double x[N], v[N], d[N];
    ircg_settings_default(&st);
    REQUIRE(ops->create(L->pb, &st, &ws, NULL) == IRCG_OK);
    REQUIRE(ops->create(L->pb, &st, &probe, NULL) == IRCG_OK);
    for (int t = 0; t < 12; t++) {
        double sigma = 0.8 / (t + 1);
        slv_dir dir = {.direction = IRCG_DIR_FRANK_WOLFE};
        get_vec(L->pb, ws, IRCG_X, x);
        REQUIRE(ops->lmo(ws, sigma, &dir) == IRCG_OK);
        CHECK(dir.curved && dir.d_hf_d == 0 && dir.d_hg_d == 0);
        /* v: from a twin workspace stepped with alpha = 1 */
        slv_dir d2 = {.direction = IRCG_DIR_FRANK_WOLFE};
        REQUIRE(ops->lmo(probe, sigma, &d2) == IRCG_OK);
        REQUIRE(ops->step(probe, 1.0, 0, 0, 1) == IRCG_OK);
        get_vec(L->pb, probe, IRCG_X, v);
        double dd = 0;
        for (int j = 0; j < N; j++) {
            d[j] = v[j] - x[j];
            dd += d[j] * d[j];
        }
        CHECK_NEAR(dir.d_norm2, dd, 1e-12 * (1 + dd));
        CHECK_NEAR(dir.gphi_d, dphi(L, sigma, x, d, 0), 1e-8 * (1 + fabs(dir.gphi_d)));
        for (int a = 0; a < 3; a++)
            CHECK_NEAR(ops->slope(ws, sigma, 0.5 * a), dphi(L, sigma, x, d, 0.5 * a),
                       1e-8 * (1 + fabs(dir.gphi_d)));
        /* the exact step against a golden-section search of phi on [0, 1] */
        double lo = 0, hi = 1, gr = (sqrt(5.0) - 1) / 2;
        for (int k = 0; k < 80; k++) {
            double a1 = hi - gr * (hi - lo), a2 = lo + gr * (hi - lo);
            if (phi(L, sigma, x, d, a1) < phi(L, sigma, x, d, a2))
                hi = a2;
            else
                lo = a1;
        }
        double a_ls = slv_step(ops, ws, IRCG_STEP_LINE_SEARCH, t, sigma, &dir, 1, 1);
        double a_bf = 0.5 * (lo + hi);
        /* both minimize phi: equal values up to phi's flatness */
        CHECK(phi(L, sigma, x, d, a_ls) <= phi(L, sigma, x, d, a_bf) + 1e-12);
        CHECK_NEAR(a_ls, a_bf, 1e-6);
        double a = (t % 3 == 2) ? a_ls : 2.0 / (t + 2);
        double xn[N], zn[N];
        REQUIRE(ops->step(ws, a, 0.25, 0.25, 0.5) == IRCG_OK);
        get_vec(L->pb, ws, IRCG_X, xn);
        get_vec(L->pb, ws, IRCG_Z, zn);
        slv_values sv = {0};
        ops->values(ws, NULL, &sv);
        CHECK_NEAR(sv.g_x, g_of(L, xn), 1e-12 * M);
        CHECK_NEAR(sv.g_z, g_of(L, zn), 1e-12 * M);
        CHECK_NEAR(sv.f_x, f_of(L, xn), 1e-12 * (M + N));
        CHECK_NEAR(sv.f_z, f_of(L, zn), 1e-12 * (M + N));
        /* margins of z, and g(x) - g(z) termwise against them */
        const double *mz = ops->residual(ws, IRCG_Z);
        for (int i = 0; i < M; i++) {
            double zz = 0;
            for (int j = 0; j < N; j++)
                zz += L->A[i * N + j] * zn[j];
            CHECK_NEAR(mz[i], zz, 1e-13 * (1 + fabs(zz)));
        }
        double ref[M];
        memcpy(ref, mz, sizeof ref);
        ops->values(ws, ref, &sv);
        CHECK_NEAR(sv.g_gap_z, 0, 0);
        const double *mx = ops->residual(ws, IRCG_X);
        *used = fmax(*used, check_gap(L, mx, ref, sv.g_gap_x));
        /* a reference near x: g - g_ref about 1e-8 of g, terms of both signs */
        uint64_t sd = 91 + (uint64_t)t;
        for (int i = 0; i < M; i++)
            ref[i] = mx[i] + 1e-8 * (1 + fabs(mx[i])) * test_urand(&sd);
        ops->values(ws, ref, &sv);
        *used = fmax(*used, check_gap(L, mx, ref, sv.g_gap_x));
        /* keep the probe on x's path */
        void *tmp = NULL;
        REQUIRE(ops->create(L->pb, &st, &tmp, NULL) == IRCG_OK);
        ops->destroy(probe);
        probe = tmp;
        slv_buf b = {0};
        REQUIRE(ops->save(ws, &b) == IRCG_OK);
        slv_rbuf r = {b.data, b.len, 0, 0};
        REQUIRE(ops->restore(probe, &r, NULL) == IRCG_OK);
        slv_buf_free(&b);
    }
    ops->destroy(ws);
    ops->destroy(probe);
}

TEST(logreg, oracle_matches_direct_computation)
{
    const ircg_domain doms[4] = {
        {IRCG_DOMAIN_L2_BALL, 1.5, 0, 0}, {IRCG_DOMAIN_L1_BALL, 2, 0, 0},
        {IRCG_DOMAIN_SIMPLEX, 1, 0, 0}, {IRCG_DOMAIN_BOX, 0, -0.5, 1}};
    const ircg_outer_kind outs[3] = {IRCG_OUTER_HALF_NORM_SQ, IRCG_OUTER_DIST_SQ,
                                     IRCG_OUTER_VALIDATION};
    double used = 0;
    for (int k = 0; k < 4; k++)
        for (int o = 0; o < 3; o++) {
            lr_inst L;
            make(&L, outs[o], doms[k], 40 + 7 * k + o, o == 1);
            REQUIRE(L.pb != NULL);
            drive(&L, &used);
            ircg_problem_free(L.pb);
        }
    printf("    g - g_ref against the long-double terms: at most %.2f of the derived "
           "tolerance used (288 sums, half near cancellation)\n", used);
}
