/*
 * test_logreg_ref.c -- logistic regression against independent methods:
 *
 *  - g_opt: ircg_reference_compute (conditional gradient with the 1-D
 *    line search, certified by its Frank-Wolfe gap) against FISTA with the
 *    exact projections written here, whose own gap certifies it: the two
 *    intervals [g - gap, g] must intersect, on the l2 and the l1 ball;
 *  - the bilevel problem: with duplicated features A = [B B] the inner
 *    solution set {x_a + x_b = w} n X is a segment, and f = 1/2||x||^2
 *    selects x = (w, w) / 2, f* = ||w||^2 / 4, with w the unconstrained
 *    minimizer of the reduced problem in B (Newton's method here, LAPACK
 *    for the linear systems); IR-CG gets there;
 *  - errors that name the member: labels, outer objectives, methods.
 */
/* make test-kernels: logreg_ref. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "test_cert.h"
#include "test_num.h"

enum { M = 60, N = 8, K = 4 };

static double loss(double s) { return s > 0 ? log1p(exp(-s)) : -s + log1p(exp(s)); }
static double sig(double s) { return 1 / (1 + exp(-s)); }

/* g and its gradient at x for A (m x n). */
static double g_grad(const double *A, const double *y, int m, int n, const double *x,
                     double *gr)
{
    double g = 0;
    if (gr)
        memset(gr, 0, (size_t)n * sizeof *gr);
    for (int i = 0; i < m; i++) {
        double z = 0;
        for (int j = 0; j < n; j++)
            z += A[i * n + j] * x[j];
        g += loss(y[i] * z);
        for (int j = 0; gr && j < n; j++)
            gr[j] -= y[i] * sig(-y[i] * z) * A[i * n + j];
    }
    return g;
}

/* Noisy labels of a linear model: not separable. */
static void data(double *A, double *y, int m, int n, uint64_t s)
{
    double w[64];
    for (int j = 0; j < n; j++)
        w[j] = test_urand(&s);
    for (int i = 0; i < m; i++) {
        double z = 0;
        for (int j = 0; j < n; j++)
            z += (A[i * n + j] = test_urand(&s)) * w[j];
        y[i] = z + 0.6 * test_urand(&s) > 0 ? 1 : -1;
    }
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* Projection onto the l2 or l1 ball of radius r (Duchi et al., sorting). */
static void project(double *x, int n, double r, int l1)
{
    double s = 0, u[64];
    for (int j = 0; j < n; j++)
        s += l1 ? fabs(x[j]) : x[j] * x[j];
    if (!l1) {
        double f = sqrt(s) > r ? r / sqrt(s) : 1;
        for (int j = 0; j < n; j++)
            x[j] *= f;
        return;
    }
    if (s <= r)
        return;
    for (int j = 0; j < n; j++)
        u[j] = fabs(x[j]);
    qsort(u, (size_t)n, sizeof *u, cmp_desc);
    double cs = 0, th = 0;
    for (int j = 0; j < n; j++) {
        cs += u[j];
        if (u[j] > (cs - r) / (j + 1))
            th = (cs - r) / (j + 1);
    }
    for (int j = 0; j < n; j++)
        x[j] = copysign(fmax(fabs(x[j]) - th, 0), x[j]);
}

/* FISTA, step 1/L with L = ||A||_F^2 / 4 >= ||A||_2^2 / 4; returns g at the
 * last point and its Frank-Wolfe gap over the ball in *gap, the point in
 * xout (n, when not NULL). */
static double fista(const double *A, const double *y, int m, int n, double r, int l1,
                    int iters, double *gap, double *xout)
{
    double x[64] = {0}, xo[64] = {0}, yk[64] = {0}, gr[64], L = 0, t = 1;
    for (int i = 0; i < m * n; i++)
        L += A[i] * A[i] / 4;
    for (int k = 0; k < iters; k++) {
        g_grad(A, y, m, n, yk, gr);
        memcpy(xo, x, sizeof x);
        for (int j = 0; j < n; j++)
            x[j] = yk[j] - gr[j] / L;
        project(x, n, r, l1);
        double tn = (1 + sqrt(1 + 4 * t * t)) / 2;
        for (int j = 0; j < n; j++)
            yk[j] = x[j] + (t - 1) / tn * (x[j] - xo[j]);
        t = tn;
    }
    double g = g_grad(A, y, m, n, x, gr), gx = 0, nv = 0, mx = 0;
    for (int j = 0; j < n; j++) {
        gx += gr[j] * x[j];
        nv += gr[j] * gr[j];
        mx = fmax(mx, fabs(gr[j]));
    }
    *gap = gx + r * (l1 ? mx : sqrt(nv)); /* <grad, x> - min_ball <grad, v> */
    if (xout)
        memcpy(xout, x, (size_t)n * sizeof *x);
    return g;
}

TEST(logreg_ref, g_opt_agrees_with_fista)
{
    static double A[M * N], y[M];
    data(A, y, M, N, 3);
    /* l2 ball: optimum on the boundary, then inside; l1 ball: on a face */
    static const double RADII[3] = {0.5, 30, 1.5};
    for (int c = 0; c < 3; c++) {
        int l1 = c == 2;
        double r = RADII[c], fgap;
        ircg_ls_data d = {.m = M, .n = N, .A_dense = A, .b = y};
        ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
        ircg_domain dom = {l1 ? IRCG_DOMAIN_L1_BALL : IRCG_DOMAIN_L2_BALL, r, 0, 0};
        ircg_problem *pb = NULL;
        ircg_reference *ref = NULL;
        ircg_reference_settings rs;
        ircg_reference_info ri;
        REQUIRE(ircg_problem_logistic(&d, &o, &dom, &pb, NULL) == IRCG_OK);
        ircg_reference_settings_default(&rs);
        rs.tol = 1e-10;
        rs.max_iter = 20000;
        REQUIRE(ircg_reference_compute(pb, &rs, &ref, NULL) == IRCG_OK);
        ircg_reference_get_info(ref, &ri);
        double gf = fista(A, y, M, N, r, l1, 3000, &fgap, NULL);
        printf("    %s ball, radius %g: g_opt %.15g (gap %.2g, %s, %lld iterations), FISTA %.15g "
               "(gap %.2g)\n", l1 ? "l1" : "l2", r, ri.g_opt, ri.gap,
               ircg_status_string(ri.status), (long long)ri.iterations, gf, fgap);
        /* both certificates are honest: the intervals meet */
        CHECK(ri.g_opt - ri.gap <= gf + 1e-12 * gf);
        CHECK(gf - fgap <= ri.g_opt + 1e-12 * gf);
        /* and tight: measured 3.8e-11 (boundary), 6.9e-11 (inside), 3.6e-11
         * (face, 23 iterations) */
        CHECK(ri.gap <= 1e-9);
        CHECK(fgap <= 1e-8);
        CHECK_INT(ri.status, IRCG_STATUS_CONVERGED);
        ircg_reference_free(ref);
        ircg_problem_free(pb);
    }
}

/* The unconstrained minimizer of sum_i l(y_i b_i'w), B m x k, by Newton's
 * method with a halving line search (strictly convex: labels not
 * separable, B of full column rank). */
static int newton(const double *B, const double *y, int m, int k, double *w)
{
    double gr[K], H[K * K], dw[K];
    memset(w, 0, (size_t)k * sizeof *w);
    for (int it = 0; it < 100; it++) {
        double g = g_grad(B, y, m, k, w, gr), gn = 0;
        memset(H, 0, sizeof H);
        for (int i = 0; i < m; i++) {
            double z = 0;
            for (int j = 0; j < k; j++)
                z += B[i * k + j] * w[j];
            double s = sig(z) * sig(-z);
            for (int a = 0; a < k; a++)
                for (int b = 0; b < k; b++)
                    H[a * k + b] += s * B[i * k + a] * B[i * k + b];
        }
        for (int j = 0; j < k; j++) {
            dw[j] = -gr[j];
            gn += gr[j] * gr[j];
        }
        if (sqrt(gn) < 1e-13 * (1 + g))
            return 1;
        if (LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', k, 1, H, k, dw, 1) != 0)
            return 0;
        double t = 1, wn[K];
        for (;;) {
            for (int j = 0; j < k; j++)
                wn[j] = w[j] + t * dw[j];
            if (g_grad(B, y, m, k, wn, NULL) <= g || t < 1e-8)
                break;
            t /= 2;
        }
        memcpy(w, wn, sizeof wn);
    }
    return 1;
}

TEST(logreg_ref, duplicated_features_select_the_least_norm_solution)
{
    static double B[M * K], y[M], A[M * 2 * K];
    double w[K], nw = 0;
    data(B, y, M, K, 21);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < K; j++)
            A[i * 2 * K + j] = A[i * 2 * K + K + j] = B[i * K + j];
    REQUIRE(newton(B, y, M, K, w));
    for (int j = 0; j < K; j++)
        nw += w[j] * w[j];
    double g_star = g_grad(B, y, M, K, w, NULL), f_star = nw / 4;
    ircg_ls_data d = {.m = M, .n = 2 * K, .A_dense = A, .b = y};
    cert_data cd = {.A = A, .b = y, .m = M, .n = 2 * K, .logistic = 1};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {IRCG_DOMAIN_L2_BALL, 2 * sqrt(nw), 0, 0}; /* holds (w, w)/2 */
    ircg_problem *pb = NULL;
    ircg_reference *ref = NULL;
    ircg_reference_settings rs;
    ircg_reference_info ri;
    REQUIRE(ircg_problem_logistic(&d, &o, &dom, &pb, NULL) == IRCG_OK);
    ircg_reference_settings_default(&rs);
    REQUIRE(ircg_reference_compute(pb, &rs, &ref, NULL) == IRCG_OK);
    ircg_reference_get_info(ref, &ri);
    CHECK(ri.g_opt - ri.gap <= g_star && g_star <= ri.g_opt + 1e-12 * g_star);
    /* from x0 = (w, 0), an inner solution with f = 2 f*: IR-CG moves to the
     * selected one, conditional gradient on g alone (varsigma = 0, exact
     * steps) has nothing to gain in g and stays */
    double x0[2 * K] = {0};
    memcpy(x0, w, sizeof w);
    for (int rule = 0; rule < 4; rule++) {
        ircg_settings s;
        ircg_solver *sv = NULL;
        ircg_info info;
        ircg_settings_default(&s);
        s.step_rule = rule < 3 ? (ircg_step_rule)rule : IRCG_STEP_LINE_SEARCH;
        s.varsigma = rule < 3 ? 1 : 0;
        s.max_iter = 3000;
        s.reference = ref;
        s.start = IRCG_START_GIVEN;
        s.x0 = x0;
        REQUIRE(ircg_solver_new(pb, &s, &sv, NULL) == IRCG_OK);
        REQUIRE(ircg_solve(sv, &info) == IRCG_OK);
        double gx, gz;
        cert_iterates_g(sv, &cd, &gx, &gz);
        printf("    %s rule %d: g(z) - g* %.3g, f(z) %.6g, f* %.6g\n",
               rule < 3 ? "IR-CG" : "CG on g", (int)s.step_rule, info.g_gap_z, info.f_z,
               f_star);
        /* measured after 3000 steps: IR-CG g gap <= 2.1e-3, f 3.1% below f* */
        CHECK(info.g_gap_z >= -ri.gap);
        CHECK_MEASURED("g(z) - g*", info.g_gap_z, 1e-2);
        if (rule < 3)
            CHECK_MEASURED("IR-CG |f(z) - f*| / f*", fabs(info.f_z - f_star) / f_star, 0.1);
        else
            CHECK(fabs(info.f_z - 2 * f_star) <= 1e-6 * f_star);
        /* g* and f* from Newton's method to its own rounding (the check of
         * g_opt above holds it to 1e-12) */
        check_cert_brackets(rule < 3 ? "IR-CG" : "CG on g", &info, gx, gz, g_star, f_star,
                            1e-10);
        ircg_solver_free(sv);
    }
    ircg_reference_free(ref);
    ircg_problem_free(pb);
}

/* Bad labels, an outer objective logistic regression does not take, and
 * the methods it has no oracle for: each error names its member. */
TEST(logreg_ref, errors_name_the_member)
{
    double A[6] = {1, 0, 0, 1, 1, 1}, y[3] = {1, -1, 1}, yb[3] = {1, 0.5, 1};
    double y01[3] = {1, 0, 0}, ymix[3] = {1, 0, -1}, Q[4] = {1, 0, 0, 1};
    ircg_ls_data d = {.m = 3, .n = 2, .A_dense = A, .b = y};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {IRCG_DOMAIN_L2_BALL, 1, 0, 0};
    ircg_problem *pb = NULL;
    ircg_diag dg = {0};
    d.b = yb;
    CHECK_INT(ircg_problem_logistic(&d, &o, &dom, &pb, &dg), IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/b");
    d.b = ymix;
    CHECK_INT(ircg_problem_logistic(&d, &o, &dom, &pb, &dg), IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/b");
    d.b = y01; /* 0/1 labels are fine */
    CHECK_INT(ircg_problem_logistic(&d, &o, &dom, &pb, NULL), IRCG_OK);
    ircg_problem_free(pb);
    pb = NULL;
    d.b = y;
    ircg_outer cv = {.kind = IRCG_OUTER_COLUMN_VARIANCE};
    CHECK_INT(ircg_problem_logistic(&d, &cv, &dom, &pb, &dg), IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/outer/kind");
    ircg_outer q = {.kind = IRCG_OUTER_QUADRATIC, .Q = Q}; /* fair classification's */
    CHECK_INT(ircg_problem_logistic(&d, &q, &dom, &pb, &dg), IRCG_OK);
    ircg_problem_free(pb);
    pb = NULL;
    ircg_ls_data vbad = {.m = 3, .n = 2, .A_dense = A, .b = yb};
    ircg_outer vo = {.kind = IRCG_OUTER_VALIDATION, .val = &vbad};
    CHECK_INT(ircg_problem_logistic(&d, &vo, &dom, &pb, &dg), IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/outer/val/b");
    REQUIRE(ircg_problem_logistic(&d, &o, &dom, &pb, NULL) == IRCG_OK);
    ircg_problem_info pi;
    ircg_problem_get_info(pb, &pi);
    CHECK_INT(pi.kind, IRCG_PROBLEM_LOGISTIC);
    CHECK_NEAR(pi.L_g, 3.0 / 4, 1e-14); /* ||A||^2 = 3 ([1 0; 0 1; 1 1]) */
    static const ircg_algorithm ALGS[3] = {IRCG_ALG_CGBIO, IRCG_ALG_IRPG, IRCG_ALG_BISG};
    for (int a = 0; a < 3; a++) {
        ircg_settings s;
        ircg_solver *sv = NULL;
        ircg_settings_default(&s);
        s.algorithm = ALGS[a];
        CHECK_INT(ircg_solver_new(pb, &s, &sv, &dg), IRCG_ERR_INVALID);
        CHECK_STR(dg.field, "/algorithm");
        CHECK(strstr(dg.message, "not available for logistic regression") != NULL);
        CHECK(sv == NULL);
    }
    ircg_problem_free(pb);
}

/* The quadratic outer objective (fair classification's (c'x)^2 is one):
 * with Q = I and q = 0 it is 1/2||x||^2, so IR-CG with the exact line
 * search takes the same steps as on half_norm_sq, to rounding (the
 * gradient Q x and the curvature d'Qd are formed by a product with the
 * identity, exact in every entry); the certificates agree too.  With
 * Q = 2cc' the value at the end is (c'x)^2 of x itself. */
TEST(logreg_ref, quadratic_outer_with_q_identity_is_the_norm)
{
    double A[M * N], y[M], Q[N * N] = {0}, c[N];
    data(A, y, M, N, 21);
    for (int j = 0; j < N; j++)
        Q[j * N + j] = 1;
    ircg_ls_data d = {.m = M, .n = N, .A_dense = A, .b = y};
    ircg_outer half = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_outer quad = {.kind = IRCG_OUTER_QUADRATIC, .Q = Q};
    ircg_domain dom = {IRCG_DOMAIN_L1_BALL, 2, 0, 0};
    ircg_problem *ph = NULL, *pq = NULL;
    REQUIRE(ircg_problem_logistic(&d, &half, &dom, &ph, NULL) == IRCG_OK);
    REQUIRE(ircg_problem_logistic(&d, &quad, &dom, &pq, NULL) == IRCG_OK);
    ircg_settings s;
    ircg_settings_default(&s);
    s.step_rule = IRCG_STEP_LINE_SEARCH;
    s.max_iter = 200;
    ircg_solver *sh = NULL, *sq = NULL;
    ircg_info ih, iq;
    REQUIRE(ircg_solver_new(ph, &s, &sh, NULL) == IRCG_OK);
    REQUIRE(ircg_solver_new(pq, &s, &sq, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(sh, &ih) == IRCG_OK);
    REQUIRE(ircg_solve(sq, &iq) == IRCG_OK);
    CHECK_REL(ih.f_z, iq.f_z, 1e-12, 1e-12);
    CHECK_REL(ih.g_z, iq.g_z, 1e-12, 1e-12);
    CHECK_REL(ih.f_lower, iq.f_lower, 1e-9, 1e-9);
    CHECK_REL(ih.inner_gap_z, iq.inner_gap_z, 1e-9, 1e-12);
    ircg_solver_free(sh);
    ircg_solver_free(sq);
    ircg_problem_free(pq);
    pq = NULL;
    /* Q = 2cc': f(x) = (c'x)^2 */
    for (int j = 0; j < N; j++)
        c[j] = 0.1 * (j + 1);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            Q[i * N + j] = 2 * c[i] * c[j];
    REQUIRE(ircg_problem_logistic(&d, &quad, &dom, &pq, NULL) == IRCG_OK);
    REQUIRE(ircg_solver_new(pq, &s, &sq, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(sq, &iq) == IRCG_OK);
    ircg_iterate *it = NULL;
    REQUIRE(ircg_solver_iterate(sq, IRCG_Z, 0, &it) == IRCG_OK);
    double cx = 0;
    for (int j = 0; j < N; j++)
        cx += c[j] * it->dense[j];
    CHECK_REL(iq.f_z, cx * cx, 1e-12, 1e-300);
    /* f_lower <= f*, the certificate's promise: A has full column rank, so
     * g is strictly convex, X_opt = {x*} and f* = (c'x*)^2.  FISTA's x_F
     * brackets it: on the l1 ball |a_i'x| <= s_max = r max_ij |a_ij|, so g
     * is mu-strongly convex there with mu = lambda_min(A'A) l''(s_max)
     * (l'' = sigma(s) sigma(-s), even, decreasing in |s|), and as x*
     * minimizes g over the ball, mu/2 ||x_F - x*||^2 <= g(x_F) - g* <= the
     * Frank-Wolfe gap of x_F.  FISTA projects onto the radius r(1 - 1e-13),
     * so x_F lies in X despite the projection's rounding; its gap over the
     * radius r is at most (r 1e-13) max|grad g| (<= 60: 60 rows, |a_ij| <
     * 1) more, and the double rounding of that gap is below 1e-11 (each
     * gradient entry within 60 u of 60 terms of magnitude <= 1, 1e-12, the
     * gap of 9 terms within ||x_F||_1 + r = 4 of them plus 9 u of its
     * terms' magnitude 240); so gap_hi = fgap + 2e-11 + 1.2e-11.  mu is
     * taken 0.999 of its computed value, far more than the rounding of
     * the eigenvalue (N u ||A'A||) and of l'', which only widens the
     * bracket. */
    {
        double xF[N], fgap, AtA[N * N] = {0}, ev[N], amax = 0, cn = 0, cxF = 0;
        fista(A, y, M, N, 2 * (1 - 1e-13), 1, 20000, &fgap, xF);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                amax = fmax(amax, fabs(A[i * N + j]));
                for (int k = 0; k < N; k++)
                    AtA[j * N + k] += A[i * N + j] * A[i * N + k];
            }
        REQUIRE(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', N, AtA, N, ev) == 0);
        double smax = 2 * amax, mu = 0.999 * ev[0] * sig(smax) * sig(-smax);
        double gap_hi = fmax(fgap, 0) + 2e-11 + 1.2e-11;
        for (int j = 0; j < N; j++) {
            cn += c[j] * c[j];
            cxF += c[j] * xF[j];
        }
        double dist = sqrt(2 * gap_hi / mu), w = sqrt(cn) * dist;
        double f_lo = pow(fmax(fabs(cxF) - w, 0), 2), f_hi = pow(fabs(cxF) + w, 2);
        REQUIRE(mu > 0);
        printf("    (c'x)^2: f* in [%.10g, %.10g] (FISTA gap %.2g, mu %.3g, ||x_F - x*|| <= "
               "%.2g); f_lower %.10g, f* - f_lower >= %.3g, f(z) %.10g\n", f_lo, f_hi, fgap,
               mu, dist, iq.f_lower, f_lo - iq.f_lower, iq.f_z);
        CHECK(iq.f_lower <= f_hi);
    }
    ircg_iterate_free(it);
    ircg_solver_free(sq);
    ircg_problem_free(ph);
    ircg_problem_free(pq);
}
