/*
 * test_twostage_lr.c -- logistic regression's local curvature bound
 * (problems/logreg/lr_cert.c, lr_curv.c) and the two-stage method on it,
 * against a reference computed here without the library: restarted FISTA
 * on g with the exact projections, run until its Frank-Wolfe gap is at
 * g's rounding, whose point is x* to about 1e-7 (g is strictly convex:
 * A has full column rank, the labels are not separable).  f = 1/2 |x -
 * c|^2 selects nothing (one inner solution), so f* = f(x*).
 *  - an l1 ball of radius 40 holds x* inside it: the global curvature over
 *    X (margins up to 40 max |a_ij|) is below 1e-12 of the local one;
 *  - an l2 ball of half |x*| makes the constraint active;
 * at every certificate of the two-stage method and of FC-BiO the bounds
 * bracket g* and f* (tests/test_cert.h), near x* and far from it; a stop
 * of (1e-10, 1e-5) ends converged (no bound but the ball's certifies f
 * here), with f within the tolerance of f*.  (On the boundary the radius
 * holds a square root of g's rounding: about 1e-6 of f* here.)  And where the inner solution
 * is not unique (duplicated columns) the bound is never made: the run
 * ends at its iteration limit, its bounds still brackets.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "test_cert.h"
#include "test_num.h"
#include "unit/solver/test_ln_util.h"

enum { M = 80, N = 6 };

static double loss(double s) { return s > 0 ? log1p(exp(-s)) : -s + log1p(exp(s)); }

/* g(x) and its gradient, A m x n row-major, labels y. */
static double g_grad(const double *A, const double *y, int m, int n, const double *x,
                     double *gr)
{
    double g = 0;
    memset(gr, 0, (size_t)n * sizeof *gr);
    for (int i = 0; i < m; i++) {
        double z = 0;
        for (int j = 0; j < n; j++)
            z += A[i * n + j] * x[j];
        g += loss(y[i] * z);
        double w = -y[i] / (1 + exp(y[i] * z));
        for (int j = 0; j < n; j++)
            gr[j] += w * A[i * n + j];
    }
    return g;
}

/* Projection onto the l2 ball, or the l1 ball by bisection on the
 * threshold (exact enough: 200 halvings). */
static void project(double *x, int n, double r, int l1)
{
    double s = 0;
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
    double lo = 0, hi = 0;
    for (int j = 0; j < n; j++)
        hi = fmax(hi, fabs(x[j]));
    for (int it = 0; it < 200; it++) {
        double th = 0.5 * (lo + hi), t = 0;
        for (int j = 0; j < n; j++)
            t += fmax(fabs(x[j]) - th, 0);
        if (t > r)
            lo = th;
        else
            hi = th;
    }
    for (int j = 0; j < n; j++)
        x[j] = copysign(fmax(fabs(x[j]) - hi, 0), x[j]);
}

/* x* by FISTA, restarted when the step turns back, step 1/L with L =
 * ||A||_F^2 / 4; returns g* and the final Frank-Wolfe gap in *gap. */
static double reference(const double *A, const double *y, double r, int l1, double *xs,
                        double *gap)
{
    double x[N] = {0}, xo[N] = {0}, yk[N] = {0}, gr[N], L = 0, t = 1;
    for (int i = 0; i < M * N; i++)
        L += A[i] * A[i] / 4;
    for (int k = 0; k < 200000; k++) {
        g_grad(A, y, M, N, yk, gr);
        memcpy(xo, x, sizeof x);
        for (int j = 0; j < N; j++)
            x[j] = yk[j] - gr[j] / L;
        project(x, N, r, l1);
        double turn = 0, tn = (1 + sqrt(1 + 4 * t * t)) / 2;
        for (int j = 0; j < N; j++)
            turn += (yk[j] - x[j]) * (x[j] - xo[j]);
        t = turn > 0 ? 1 : tn;
        for (int j = 0; j < N; j++)
            yk[j] = x[j] + (t - 1) / tn * (x[j] - xo[j]);
        t = turn > 0 ? 1 : tn;
    }
    double g = g_grad(A, y, M, N, x, gr), gx = 0, nv = 0, mx = 0;
    for (int j = 0; j < N; j++) {
        gx += gr[j] * x[j];
        nv += gr[j] * gr[j];
        mx = fmax(mx, fabs(gr[j]));
    }
    *gap = gx + r * (l1 ? mx : sqrt(nv));
    memcpy(xs, x, sizeof x);
    return g;
}

/* Features of a linear model with noisy labels: not separable. */
static void make_data(double *A, double *y, int m, int n, uint64_t s)
{
    double w[N];
    for (int j = 0; j < n && j < N; j++)
        w[j] = 2 * test_urand(&s);
    for (int i = 0; i < m; i++) {
        double z = 0;
        for (int j = 0; j < n; j++)
            z += (A[i * n + j] = test_urand(&s)) * w[j % N];
        y[i] = z + 3 * test_urand(&s) > 0 ? 1 : -1;
    }
}

/* Solve with alg to the stop (or max_iter), the brackets at the end. */
static void solve_and_check(const char *who, const ircg_problem *pb, const cert_data *cd,
                            ircg_algorithm alg, int64_t max_iter, double g_star,
                            double f_star, double ref_rel, ircg_info *in)
{
    ircg_settings st;
    ircg_solver *sv = NULL;
    ircg_diag dg = {0};
    ircg_settings_default(&st);
    st.algorithm = alg;
    st.max_iter = max_iter;
    st.time_limit = 600;
    st.stop.inner_gap_rel = 1e-10;
    st.stop.outer_gap_rel = 1e-5;
    REQUIRE(ircg_solver_new(pb, &st, &sv, &dg) == IRCG_OK);
    REQUIRE(ircg_solve(sv, in) == IRCG_OK);
    double gx, gz;
    cert_iterates_g(sv, cd, &gx, &gz);
    check_cert_brackets(who, in, gx, gz, g_star, f_star, ref_rel);
    ircg_solver_free(sv);
}

TEST(twostage_lr, local_curvature_certifies_the_unique_inner_solution)
{
    static double A[M * N], y[M];
    make_data(A, y, M, N, 7);
    double c[N];
    uint64_t s = 99;
    for (int j = 0; j < N; j++)
        c[j] = test_urand(&s);
    double x1[N], gap, n1 = 0, n2 = 0;
    reference(A, y, 1e6, 0, x1, &gap); /* the unconstrained minimizer */
    for (int j = 0; j < N; j++) {
        n1 += fabs(x1[j]);
        n2 += x1[j] * x1[j];
    }
    /* an l1 ball of radius 40 (x* inside), and l1 and l2 balls of half
     * the minimizer's norm (x* on the boundary) */
    for (int dom_kind = 0; dom_kind < 3; dom_kind++) {
        int l1 = dom_kind < 2;
        double xs[N], r = dom_kind == 0 ? 40 : dom_kind == 1 ? 0.5 * n1 : 0.5 * sqrt(n2);
        double g_star = reference(A, y, r, l1, xs, &gap), f_star = 0, r1 = 0;
        for (int j = 0; j < N; j++) {
            f_star += 0.5 * (xs[j] - c[j]) * (xs[j] - c[j]);
            r1 += fabs(xs[j]);
        }
        printf("  %s ball radius %g: |x*|_1 %.4g, g* %.12g (gap %.2g), f* %.12g\n",
               l1 ? "l1" : "l2", r, r1, g_star, gap, f_star);
        CHECK(gap <= 1e-12 * g_star);
        ircg_ls_data d = {.m = M, .n = N, .A_dense = A, .b = y};
        cert_data cd = {.A = A, .b = y, .m = M, .n = N, .logistic = 1};
        ircg_outer o = {.kind = IRCG_OUTER_DIST_SQ, .c = c};
        ircg_domain dom = {l1 ? IRCG_DOMAIN_L1_BALL : IRCG_DOMAIN_L2_BALL, r, 0, 0};
        ircg_problem *pb = NULL;
        REQUIRE(ircg_problem_logistic(&d, &o, &dom, &pb, NULL) == IRCG_OK);
        /* f* to about |grad f| |x_ref - x*|: 1e-6 of it covers the
         * reference's own error */
        const double ref_rel = 1e-6;
        static const int64_t stops[] = {1, 3, 16, 48, 160, 100000};
        for (size_t k = 0; k < sizeof stops / sizeof stops[0]; k++) {
            ircg_info in;
            char who[64];
            snprintf(who, sizeof who, "two-stage, %lld steps", (long long)stops[k]);
            solve_and_check(who, pb, &cd, IRCG_ALG_TWOSTAGE, stops[k], g_star, f_star,
                            ref_rel, &in);
            snprintf(who, sizeof who, "FC-BiO, %lld steps", (long long)stops[k]);
            ircg_info fb;
            solve_and_check(who, pb, &cd, IRCG_ALG_FCBIO, stops[k], g_star, f_star, ref_rel,
                            &fb);
            if (stops[k] < 100000)
                continue;
            double fz = in.f_z;
            printf("    two-stage: %s after %lld steps, (f - f*) / f* %.3g, certified "
                   "outer gap %.3g of f*\n", ircg_status_string(in.status),
                   (long long)in.iterations, (fz - f_star) / f_star,
                   (fz - in.f_lower) / f_star);
            CHECK_INT(in.status, IRCG_STATUS_CONVERGED);
            CHECK(fabs(fz - f_star) <= 1e-5 * f_star);
        }
        ircg_problem_free(pb);
    }
}

TEST(twostage_lr, no_bound_where_the_inner_solution_is_not_unique)
{
    /* A = [B B]: x_a + x_b = w* is a segment of inner solutions */
    static double B[M * 3], A[M * 6], y[M];
    make_data(B, y, M, 3, 21);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < 3; j++)
            A[i * 6 + j] = A[i * 6 + 3 + j] = B[i * 3 + j];
    double c[6] = {0.3, -0.2, 0.1, 0.4, 0.0, -0.5};
    ircg_ls_data d = {.m = M, .n = 6, .A_dense = A, .b = y};
    cert_data cd = {.A = A, .b = y, .m = M, .n = 6, .logistic = 1};
    ircg_outer o = {.kind = IRCG_OUTER_DIST_SQ, .c = c};
    ircg_domain dom = {IRCG_DOMAIN_L1_BALL, 40, 0, 0};
    ircg_problem *pb = NULL;
    ircg_info in;
    REQUIRE(ircg_problem_logistic(&d, &o, &dom, &pb, NULL) == IRCG_OK);
    /* g* from the reduced problem in B (full rank), its minimizer w; the
     * inner solutions are x_a + x_b = w (all inside the ball), and f
     * selects x_a - x_b = c_a - c_b: f* = sum_j (w_j - c_j - c_{j+3})^2 / 4 */
    double w[N], gap;
    static double Bn[M * N];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            Bn[i * N + j] = j < 3 ? B[i * 3 + j] : 0;
    double g_star = reference(Bn, y, 40, 1, w, &gap);
    double f_star = 0;
    for (int j = 0; j < 3; j++)
        f_star += 0.25 * (w[j] - c[j] - c[j + 3]) * (w[j] - c[j] - c[j + 3]);
    solve_and_check("two-stage, duplicated columns", pb, &cd, IRCG_ALG_TWOSTAGE, 3000, g_star,
                    f_star, 1e-9, &in);
    CHECK_INT(in.status, IRCG_STATUS_MAX_ITER);
    ircg_problem_free(pb);
}

/* x and z of a solver (n = N). */
static void points(const ircg_solver *sv, double *x, double *z)
{
    static const ircg_which W[2] = {IRCG_X, IRCG_Z};
    double *out[2] = {x, z};
    for (int k = 0; k < 2; k++) {
        ircg_iterate *it = NULL;
        memset(out[k], 0, N * sizeof(double));
        if (ircg_solver_iterate(sv, W[k], 1, &it) == IRCG_OK && it->dense && it->dim == N)
            memcpy(out[k], it->dense, N * sizeof(double));
        ircg_iterate_free(it);
    }
}

/* The local bound depends on the certified point alone, and the two-stage
 * method's check schedule is in its checkpoint: a run stopped and
 * continued is the uninterrupted one, iterates and bounds, bit for bit. */
TEST(twostage_lr, stopped_and_continued_is_the_uninterrupted_run)
{
    static double A[M * N], y[M];
    make_data(A, y, M, N, 7);
    double c[N] = {0.5, -0.5, 0.25, 0, 1, -1};
    ircg_ls_data d = {.m = M, .n = N, .A_dense = A, .b = y};
    ircg_outer o = {.kind = IRCG_OUTER_DIST_SQ, .c = c};
    ircg_domain dom = {IRCG_DOMAIN_L1_BALL, 40, 0, 0};
    ircg_problem *pb = NULL;
    REQUIRE(ircg_problem_logistic(&d, &o, &dom, &pb, NULL) == IRCG_OK);
    static const ircg_algorithm ALGS[] = {IRCG_ALG_TWOSTAGE, IRCG_ALG_FCBIO};
    for (int a = 0; a < 2; a++) {
        ircg_settings st;
        ircg_solver *one = NULL, *two = NULL;
        ircg_info i1, i2;
        double x1[N], z1[N], x2[N], z2[N];
        void *blob = NULL;
        size_t len = 0;
        ircg_settings_default(&st);
        st.algorithm = ALGS[a];
        st.stop.inner_gap_rel = 1e-300; /* never reached: the limit ends both */
        st.stop.outer_gap_rel = 1e-300;
        st.max_iter = 300;
        REQUIRE(ircg_solver_new(pb, &st, &one, NULL) == IRCG_OK);
        CHECK(ircg_solve(one, &i1) == IRCG_OK);
        points(one, x1, z1);
        st.max_iter = 120;
        REQUIRE(ircg_solver_new(pb, &st, &two, NULL) == IRCG_OK);
        CHECK(ircg_solve(two, NULL) == IRCG_OK);
        REQUIRE(ircg_solver_save(two, &blob, &len) == IRCG_OK);
        ircg_solver_free(two);
        st.max_iter = 300;
        REQUIRE(ircg_solver_new(pb, &st, &two, NULL) == IRCG_OK);
        CHECK(ircg_solver_restore_as(two, blob, len, IRCG_RESTORE_CONTINUE, NULL) == IRCG_OK);
        free(blob);
        CHECK(ircg_solve(two, &i2) == IRCG_OK);
        points(two, x2, z2);
        printf("    %s: %lld iterations, %s; f_lower %.12g, g_lower %.12g\n",
               a ? "FC-BiO" : "two-stage", (long long)i1.iterations,
               ircg_status_string(i1.status), i1.f_lower, i1.g_lower);
        CHECK_INT(i1.iterations, i2.iterations);
        CHECK(memcmp(x1, x2, sizeof x1) == 0 && memcmp(z1, z2, sizeof z1) == 0);
        CHECK(i1.f_lower == i2.f_lower && i1.g_upper == i2.g_upper && i1.g_lower == i2.g_lower);
        ircg_solver_free(one);
        ircg_solver_free(two);
    }
    ircg_problem_free(pb);
}
