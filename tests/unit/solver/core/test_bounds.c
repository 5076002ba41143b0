/*
 * test_bounds.c -- the certified bounds (ircg_info's certificate) hold,
 * checked against what is known without the library:
 *  - least norm, closed forms by LAPACK: a consistent system (g* = 0,
 *    f* = 1/2 ||A^+ b||^2) and an overdetermined one (g* = 1/2 ||(I -
 *    A A^+) b||^2, x* = A^+ b the unique solution), over an l2 and an l1
 *    ball that hold x*, every step rule: at every certified iteration
 *    g_lower <= g* <= g_upper, g(x_t) - g* <= inner_gap_x (g(x_t) summed
 *    here in long double from the iterate), and f_lower <= f*;
 *  - the selection instance of matrix completion (tests/study/select.h:
 *    g* = 0, f* in closed form): the same, g of the dense iterate;
 *  - each oracle's certificate against a dense computation at an iterate:
 *    its gap_g and gap_phi are at least the exact Frank-Wolfe gaps (for
 *    the nuclear ball, the top singular value of the dense gradient by
 *    LAPACK), and within 1e-9 (nuclear ball, when the spectrum allows
 *    Kato-Temple: sharp = 1) or 1e-10 (vector domains) of them relative to
 *    the terms' magnitude: measured tolerances, printed beside the value.
 */
/* make test-kernels: bounds. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/solver_internal.h"
#include "ircg.h"
#include "study/select.h"
#include "test_num.h"

/* ---------------------------------------------------------- least norm -- */

enum { LM = 30, LN = 80, OM = 60, ON = 20 };

typedef struct ln {
    int m, n;
    double A[OM * LN], b[OM], xs[LN];
    double gstar, fstar;
} ln;

/* A (m x n) random, b random (consistent when m < n: full row rank), x* =
 * A^+ b by dgelsd, g* and f* in long double. */
static int ln_make(ln *L, int m, int n, uint64_t seed)
{
    double Ac[OM * LN], bx[LN > OM ? LN : OM], sv[OM];
    lapack_int rank;
    L->m = m, L->n = n;
    for (int i = 0; i < m * n; i++)
        L->A[i] = test_urand(&seed);
    for (int i = 0; i < m; i++)
        L->b[i] = 2 * test_urand(&seed);
    memcpy(Ac, L->A, (size_t)m * n * sizeof(double));
    memset(bx, 0, sizeof bx);
    memcpy(bx, L->b, (size_t)m * sizeof(double));
    if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, m, n, 1, Ac, n, bx, 1, sv, -1.0, &rank) != 0)
        return 0;
    memcpy(L->xs, bx, (size_t)n * sizeof(double));
    long double g = 0, f = 0;
    for (int i = 0; i < m; i++) {
        long double r = -(long double)L->b[i];
        for (int j = 0; j < n; j++)
            r += (long double)L->A[i * n + j] * L->xs[j];
        g += 0.5L * r * r;
    }
    for (int j = 0; j < n; j++)
        f += 0.5L * (long double)L->xs[j] * L->xs[j];
    L->gstar = m < n ? 0.0 : (double)g; /* consistent: exactly 0 */
    L->fstar = (double)f;
    return 1;
}

typedef struct check_ctx {
    const ln *L;
    ircg_solver *sv;
    double gstar, fstar;
    int certified, bad;
    double worst_f, worst_g; /* how close the bounds came: (f* - f_lower) / f*, ... */
} check_ctx;

static double ln_g(const ln *L, const double *x)
{
    long double g = 0;
    for (int i = 0; i < L->m; i++) {
        long double r = -(long double)L->b[i];
        for (int j = 0; j < L->n; j++)
            r += (long double)L->A[i * L->n + j] * x[j];
        g += 0.5L * r * r;
    }
    return (double)g;
}

/* At a certified iteration: every bound against the closed forms. */
static void check_bounds(check_ctx *c, double g_true, const ircg_iter_info *it)
{
    c->certified++;
    if (!(it->g_lower <= c->gstar) || !(c->gstar <= it->g_upper) ||
        !(g_true - c->gstar <= it->inner_gap_x) || !(it->f_lower <= c->fstar)) {
        if (!c->bad++)
            th_fail(__FILE__, __LINE__, "t %lld: g_lower %.17g g* %.17g g_upper %.17g; "
                    "g(x)-g* %.3g inner_gap %.3g; f_lower %.17g f* %.17g", (long long)it->t,
                    it->g_lower, c->gstar, it->g_upper, g_true - c->gstar, it->inner_gap_x,
                    it->f_lower, c->fstar);
    }
}

static int ln_cb(void *u, const ircg_iter_info *it)
{
    check_ctx *c = u;
    ircg_iterate *x = NULL;
    if (!it->certified || ircg_solver_iterate(c->sv, IRCG_X, 0, &x) != IRCG_OK)
        return 0;
    check_bounds(c, ln_g(c->L, x->dense), it);
    ircg_iterate_free(x);
    return 0;
}

static void ln_run(const ln *L, ircg_domain dom, ircg_step_rule rule, int64_t T)
{
    ircg_ls_data d = {.m = L->m, .n = L->n, .A_dense = L->A, .b = L->b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_problem *pb = NULL;
    ircg_settings st;
    ircg_info info;
    check_ctx c = {.L = L, .gstar = L->gstar, .fstar = L->fstar};
    REQUIRE(ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) == IRCG_OK);
    ircg_settings_default(&st);
    st.step_rule = rule;
    st.max_iter = T;
    st.certify_every = 25;
    st.callback = ln_cb;
    st.callback_data = &c;
    REQUIRE(ircg_solver_new(pb, &st, &c.sv, NULL) == IRCG_OK);
    CHECK(ircg_solve(c.sv, &info) == IRCG_OK);
    /* the result's: of the final iterate */
    ircg_iterate *x = NULL;
    REQUIRE(ircg_solver_iterate(c.sv, IRCG_X, 0, &x) == IRCG_OK);
    CHECK(info.cert_iteration == info.iterations);
    CHECK(info.g_lower <= L->gstar && L->gstar <= info.g_upper);
    CHECK(ln_g(L, x->dense) - L->gstar <= info.inner_gap_x);
    CHECK(info.f_lower <= L->fstar);
    CHECK(c.certified >= (int)(T / 25));
    printf("    %s, %s, rule %d: %d certificates; final g(x)-g* %.2e <= %.2e, f* - f_lower "
           "%.2e (f* %.6g)\n", L->m < L->n ? "consistent" : "overdetermined",
           dom.kind == IRCG_DOMAIN_L2_BALL ? "l2" : "l1", (int)rule, c.certified,
           ln_g(L, x->dense) - L->gstar, info.inner_gap_x, L->fstar - info.f_lower, L->fstar);
    ircg_iterate_free(x);
    ircg_solver_free(c.sv);
    ircg_problem_free(pb);
}

TEST(bounds, least_norm_closed_forms)
{
    static ln L;
    for (int k = 0; k < 2; k++) {
        REQUIRE(ln_make(&L, k ? OM : LM, k ? ON : LN, 41 + (uint64_t)k));
        double n1 = 0, n2 = 0;
        for (int j = 0; j < L.n; j++) {
            n1 += fabs(L.xs[j]);
            n2 += L.xs[j] * L.xs[j];
        }
        ircg_domain l2 = {.kind = IRCG_DOMAIN_L2_BALL, .radius = 1.5 * sqrt(n2)};
        ircg_domain l1 = {.kind = IRCG_DOMAIN_L1_BALL, .radius = 1.5 * n1};
        for (int r = 0; r < 3; r++) {
            ln_run(&L, l2, (ircg_step_rule)r, 800);
            ln_run(&L, l1, (ircg_step_rule)r, 800);
        }
    }
}

/* ----------------------------------------------------- the selection -- */

typedef struct sel_ctx {
    check_ctx c;
    const sel_inst *s;
} sel_ctx;

/* g of the dense iterate, in long double. */
static double mc_g(const sel_inst *s, const ircg_iterate *x)
{
    long double g = 0;
    for (int64_t e = 0; e < s->R->nnz; e++) {
        long double r = (long double)x->dense[s->R->row[e] + (size_t)s->R->col[e] * s->n] -
                        s->R->val[e];
        g += 0.5L * r * r;
    }
    return (double)g;
}

static int sel_cb(void *u, const ircg_iter_info *it)
{
    sel_ctx *c = u;
    ircg_iterate *x = NULL;
    if (!it->certified || ircg_solver_iterate(c->c.sv, IRCG_X, 1, &x) != IRCG_OK)
        return 0;
    check_bounds(&c->c, mc_g(c->s, x), it);
    ircg_iterate_free(x);
    return 0;
}

TEST(bounds, selection_instance)
{
    sel_inst s;
    ircg_settings st;
    ircg_info info;
    REQUIRE(sel_make(&s, 30, 30, 250, 7));
    sel_ctx c = {.c = {.gstar = 0, .fstar = s.f_opt}, .s = &s};
    ircg_settings_default(&st);
    st.varsigma = 1.0; /* test_selection's run */
    st.max_iter = 1000;
    st.certify_every = 50;
    st.callback = sel_cb;
    st.callback_data = &c;
    REQUIRE(ircg_solver_new(s.pb, &st, &c.c.sv, NULL) == IRCG_OK);
    CHECK(ircg_solve(c.c.sv, &info) == IRCG_OK);
    CHECK(c.c.certified >= 20 && c.c.bad == 0);
    CHECK(info.g_lower == 0 && info.f_lower <= s.f_opt);
    printf("    selection: %d certificates; final inner gap %.3g (g %.3g), f* %.6g, f_lower "
           "%.6g, sharp %d\n", c.c.certified, info.inner_gap_x, info.g_x, s.f_opt,
           info.f_lower, info.cert_sharp);
    ircg_solver_free(c.c.sv);
    sel_free(&s);
}

/* ------------------------------------------- the oracles, one by one -- */

/* sigma_1 of a dense n x p column-major matrix (destroyed). */
static double top_sv(double *C, int n, int p)
{
    int k = n < p ? n : p;
    double *s = malloc((size_t)k * sizeof *s), *sup = malloc((size_t)k * sizeof *sup), v = NAN;
    if (s && sup && LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', n, p, C, n, s, NULL, 1, NULL, 1,
                                   sup) == 0)
        v = s[0];
    free(s);
    free(sup);
    return v;
}

/* The exact gaps of g and Phi_sigma at the dense X on the nuclear ball of
 * radius delta, column-variance f. */
static void mc_dense_gaps(const ircg_ratings *R, const double *X, int n, int p, double delta,
                          double sigma, double *gap_g, double *gap_phi, double *scale)
{
    double *G = calloc((size_t)n * p, sizeof *G), *C = malloc((size_t)n * p * sizeof *C);
    long double gx = 0, cx = 0;
    for (int64_t e = 0; e < R->nnz; e++) {
        size_t k = R->row[e] + (size_t)R->col[e] * n;
        G[k] = X[k] - R->val[e];
    }
    for (int j = 0; j < p; j++) {
        long double mean = 0;
        for (int i = 0; i < n; i++)
            mean += X[i + (size_t)j * n];
        mean /= n;
        for (int i = 0; i < n; i++) {
            size_t k = i + (size_t)j * n;
            C[k] = (double)(sigma * ((long double)X[k] - mean)) + G[k];
            gx += (long double)G[k] * X[k];
            cx += (long double)C[k] * X[k];
        }
    }
    double *Gc = malloc((size_t)n * p * sizeof *Gc);
    memcpy(Gc, G, (size_t)n * p * sizeof *G);
    double s1 = top_sv(Gc, n, p), c1 = top_sv(C, n, p);
    *gap_g = (double)gx + delta * s1;
    *gap_phi = (double)cx + delta * c1;
    *scale = fabs((double)cx) + delta * c1;
    free(G);
    free(C);
    free(Gc);
}

TEST(bounds, matrix_completion_oracle_against_dense_svd)
{
    ircg_synth_ratings_spec sp = {40, 25, 3, 400, 1, 5, 0.5, 3, 1};
    ircg_ratings *R = NULL;
    ircg_problem *pb = NULL;
    ircg_solver *sv = NULL;
    ircg_settings st;
    REQUIRE(ircg_synth_ratings(&sp, &R, NULL) == IRCG_OK);
    /* delta 5: the paper's radius, far below the ratings' nuclear norm, so
     * sigma_1 of the gradient dominates (Kato-Temple applies) */
    REQUIRE(ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, 5, &pb, NULL) ==
            IRCG_OK);
    ircg_settings_default(&st);
    int64_t stops[] = {1, 7, 30};
    for (int k = 0; k < 3; k++) {
        st.max_iter = stops[k];
        REQUIRE(ircg_solver_new(pb, &st, &sv, NULL) == IRCG_OK);
        REQUIRE(ircg_solve(sv, NULL) == IRCG_OK);
        ircg_iterate *x = NULL;
        slv_cert c;
        double sigma = 0.05 / sqrt(stops[k] + 1.0), gg, gp, scale;
        REQUIRE(ircg_solver_iterate(sv, IRCG_X, 1, &x) == IRCG_OK);
        REQUIRE(sv->ops->certify(sv->ws, IRCG_X, sigma, &c) == IRCG_OK);
        mc_dense_gaps(R, x->dense, 40, 25, 5, sigma, &gg, &gp, &scale);
        CHECK(c.gap_g >= gg && c.gap_phi >= gp);
        CHECK(c.sharp == 1);
        printf("    t %lld: gap_g %.6e (dense %.6e, +%.1e), gap_phi %.6e (+%.1e), scale %.3g\n",
               (long long)stops[k], c.gap_g, gg, c.gap_g - gg, c.gap_phi, c.gap_phi - gp,
               scale);
        /* a measurement plus headroom (the certificate's rounding terms and
         * Kato-Temple's rho^2/(theta - a), against the dense SVD's own
         * rounding), printed: measured 3.6e-13 at t = 30 */
        CHECK_MEASURED("MC gap_g excess / scale", (c.gap_g - gg) / scale, 1e-9);
        CHECK_MEASURED("MC gap_phi excess / scale", (c.gap_phi - gp) / scale, 1e-9);
        ircg_iterate_free(x);
        ircg_solver_free(sv);
        sv = NULL;
    }
    ircg_problem_free(pb);
    ircg_ratings_free(R);
}

/* The least-squares oracle against long double on the same point. */
TEST(bounds, least_squares_oracle_against_long_double)
{
    static ln L;
    REQUIRE(ln_make(&L, LM, LN, 5));
    static const ircg_domain_kind KINDS[] = {IRCG_DOMAIN_L2_BALL, IRCG_DOMAIN_L1_BALL,
                                             IRCG_DOMAIN_SIMPLEX, IRCG_DOMAIN_BOX};
    for (int k = 0; k < 4; k++) {
        ircg_ls_data d = {.m = L.m, .n = L.n, .A_dense = L.A, .b = L.b};
        ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
        ircg_domain dom = {.kind = KINDS[k], .radius = 2, .lower = -0.3, .upper = 0.2};
        ircg_problem *pb = NULL;
        ircg_solver *sv = NULL;
        ircg_settings st;
        slv_cert c;
        REQUIRE(ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) == IRCG_OK);
        ircg_settings_default(&st);
        st.max_iter = 17;
        REQUIRE(ircg_solver_new(pb, &st, &sv, NULL) == IRCG_OK);
        REQUIRE(ircg_solve(sv, NULL) == IRCG_OK);
        ircg_iterate *x = NULL;
        REQUIRE(ircg_solver_iterate(sv, IRCG_X, 0, &x) == IRCG_OK);
        REQUIRE(sv->ops->certify(sv->ws, IRCG_X, 0.3, &c) == IRCG_OK);
        /* the gradients and the gaps in long double */
        long double gr[LN] = {0}, r[LM], gap = 0, gphi = 0, mag = 0;
        for (int i = 0; i < L.m; i++) {
            r[i] = -(long double)L.b[i];
            for (int j = 0; j < L.n; j++)
                r[i] += (long double)L.A[i * L.n + j] * x->dense[j];
        }
        for (int j = 0; j < L.n; j++)
            for (int i = 0; i < L.m; i++)
                gr[j] += (long double)L.A[i * L.n + j] * r[i];
        for (int w = 0; w < 2; w++) { /* w = 0: g, 1: Phi_0.3 */
            long double dot = 0, sup = 0, nrm = 0, best = INFINITY, cmax = 0;
            for (int j = 0; j < L.n; j++) {
                long double cj = gr[j] + (w ? 0.3L * x->dense[j] : 0);
                dot += cj * x->dense[j];
                nrm += cj * cj;
                best = cj < best ? cj : best;
                cmax = fabsl(cj) > cmax ? fabsl(cj) : cmax;
                sup += cj >= 0 ? -cj * dom.lower : -cj * dom.upper;
                mag += fabsl(cj * x->dense[j]);
            }
            long double h = KINDS[k] == IRCG_DOMAIN_L2_BALL   ? 2 * sqrtl(nrm)
                            : KINDS[k] == IRCG_DOMAIN_L1_BALL ? 2 * cmax
                            : KINDS[k] == IRCG_DOMAIN_SIMPLEX ? -2 * best
                                                              : sup;
            *(w ? &gphi : &gap) = dot + h;
            mag += fabsl(h);
        }
        CHECK(c.gap_g >= (double)gap && c.gap_phi >= (double)gphi);
        /* a measurement plus headroom (the certificate's rounding terms
         * against long double), printed */
        CHECK_MEASURED("LS gap_g excess / magnitude", (c.gap_g - (double)gap) / (double)mag,
                       1e-10);
        CHECK_MEASURED("LS gap_phi excess / magnitude",
                       (c.gap_phi - (double)gphi) / (double)mag, 1e-10);
        CHECK(fabs(c.g - ln_g(&L, x->dense)) <= c.g_err);
        printf("    domain %d: gap_g %.9e >= %.9e (+%.1e), gap_phi +%.1e, g_err %.1e\n", k,
               c.gap_g, (double)gap, c.gap_g - (double)gap, c.gap_phi - (double)gphi, c.g_err);
        ircg_iterate_free(x);
        ircg_solver_free(sv);
        ircg_problem_free(pb);
    }
}

/* Projection methods on the nuclear ball make no certificate (README, SPEC
 * "Results"): IR-PG and Bi-SG on a small synthetic matrix completion end
 * with none made (cert_iteration -1, the bounds NaN) and the warning
 * uncertified, where IR-CG on the same instance makes one. */
TEST(bounds, projections_on_the_nuclear_ball_are_uncertified)
{
    static const ircg_algorithm ALGS[] = {IRCG_ALG_IRCG, IRCG_ALG_IRPG, IRCG_ALG_BISG};
    ircg_synth_ratings_spec sp = {60, 40, 3, 600, 1, 5, 0.5, 1, 1};
    ircg_ratings *R = NULL;
    ircg_problem *pb = NULL;
    REQUIRE(ircg_synth_ratings(&sp, &R, NULL) == IRCG_OK);
    REQUIRE(ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, 5, &pb, NULL) ==
            IRCG_OK);
    for (int a = 0; a < 3; a++) {
        ircg_settings st;
        ircg_solver *sv = NULL;
        ircg_info in;
        ircg_settings_default(&st);
        st.algorithm = ALGS[a];
        st.max_iter = 20;
        REQUIRE(ircg_solver_new(pb, &st, &sv, NULL) == IRCG_OK);
        REQUIRE(ircg_solve(sv, &in) == IRCG_OK);
        int uncertified = (in.warnings & IRCG_WARN_UNCERTIFIED) != 0;
        printf("    algorithm %d: certificate at %lld, uncertified %d\n", (int)ALGS[a],
               (long long)in.cert_iteration, uncertified);
        if (ALGS[a] == IRCG_ALG_IRCG)
            CHECK(in.cert_iteration == 20 && !uncertified);
        else
            CHECK(in.cert_iteration == -1 && isnan(in.inner_gap_x) && uncertified);
        ircg_solver_free(sv);
    }
    ircg_problem_free(pb);
    ircg_ratings_free(R);
}
