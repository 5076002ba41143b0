/*
 * test_bisect.c -- the bisection methods (solver/src/bisect/) against what
 * is known without the library:
 *  - least norm (A of full row rank, g* = 0, x* = A^+ b by LAPACK's
 *    dgelsd, inside the domain) over an l2 ball, an l1 ball and a box:
 *    FC-BiO stopped at (inner_gap_rel, outer_gap_rel) = (1e-8, 1e-4) ends
 *    converged, its certificate brackets g* and f* (tests/test_cert.h: g of
 *    z summed here in long double), and f(z) lies within 1e-4 of f* on
 *    both sides (the lower side is the safeguard's, not a certificate);
 *  - over-parameterized regression (validation rows of full column rank:
 *    x* = x_p + N z*, the closed form of tests/study/overparam.c, by LAPACK)
 *    and logistic regression (g strictly convex: x* by Newton's method here,
 *    to the rounding of double) the same;
 *  - a unique inner solution whose f lies above min_X f (the levels below
 *    min_X f are rejected by f's own gap) the same;
 *  - FC-BiO-CG on least norm: the same bounds at a looser accuracy;
 *  - the prox-max step against a brute-force minimization of its model;
 *  - a run stopped, saved and continued gives the uninterrupted run's
 *    iterates and bounds, bit for bit;
 *  - the combinations the library refuses, by the field they name (the
 *    two-stage method's too, which decides by certificates as they do).
 */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/bisect.h"
#include "harness.h"
#include "ircg.h"
#include "test_cert.h"
#include "test_num.h"
#include "unit/solver/test_ln_util.h"

enum { M = 30, N = 80, MV = 120 };

typedef struct inst {
    double A[M * N], b[M], Av[MV * N], bv[MV];
    double xs[N], fstar;
} inst;

/* The least-norm instance: x* = A^+ b (unit/solver/test_ln_util.h). */
static int least_norm(inst *L, uint64_t seed)
{
    if (!lnt_make(L->A, L->b, L->xs, M, N, seed))
        return 0;
    long double f = 0;
    for (int j = 0; j < N; j++)
        f += 0.5L * (long double)L->xs[j] * L->xs[j];
    L->fstar = (double)f;
    return 1;
}

static double norm2(const double *x, int n, int p)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += p == 1 ? fabs(x[i]) : x[i] * x[i];
    return p == 1 ? s : sqrt(s);
}

/* A converged run's certificate and answer against g* and f*: the bounds
 * hold, the stop holds for z (f(z) - f* <= outer_rel |f*|, certified),
 * the warning below_optimum is there exactly when f_lower refutes f(z)'s
 * lower side by more than the tolerance,
 * an x within the stop too is no nearer the inner solution set than z
 * (else it would have been taken), and f(z) lies within below_rel of f*
 * from below (the safeguard's side, measured: no certificate exists for
 * it). */
static void check_answer(const char *who, ircg_solver *sv, const ircg_info *in,
                         const cert_data *cd, double gstar, double fstar, double fz,
                         double outer_rel, double below_rel)
{
    double gx, gz;
    cert_iterates_g(sv, cd, &gx, &gz);
    check_cert_brackets(who, in, gx, gz, gstar, fstar, 1e-12);
    printf("    %s: %s after %lld iterations, %.3g s; f(z) - f* = %.3g of f*, f* - f_lower "
           "= %.3g of f*\n", who, ircg_status_string(in->status), (long long)in->iterations,
           in->solve_seconds, (fz - fstar) / fabs(fstar), (fstar - in->f_lower) / fabs(fstar));
    CHECK_INT(in->status, IRCG_STATUS_CONVERGED);
    CHECK_INT(in->answer, IRCG_Z);
    /* below_optimum, and only it, exactly when f(z) lies below f_lower by
     * more than the tolerance -- and then below f* too */
    double tol = outer_rel * fmax(fabs(in->cert_f_z), fabs(in->f_lower));
    int below = in->f_lower - in->cert_f_z > tol;
    CHECK_INT(in->warnings, below ? IRCG_WARN_BELOW_OPTIMUM : 0);
    if (below)
        CHECK(fz < fstar);
    CHECK(in->outer_gap_z <= tol);
    CHECK(fz - fstar <= outer_rel * fabs(fstar));
    double inner = ircg_solver_settings(sv)->stop.inner_gap_rel * (in->g_x0 - in->g_upper);
    if (in->inner_gap_x <= inner &&
        in->outer_gap_x <= outer_rel * fmax(fabs(in->cert_f_x), fabs(in->f_lower)))
        CHECK(in->inner_gap_z <= in->inner_gap_x);
    CHECK_MEASURED("(f* - f(z)) / f*", (fstar - fz) / fabs(fstar), below_rel);
}

TEST(bisect, least_norm_closed_form_every_vector_domain)
{
    static inst S;
    REQUIRE(least_norm(&S, 5));
    ircg_domain doms[3];
    const char *names[3];
    lnt_domains(S.xs, N, doms, names);
    ircg_ls_data ld = {.m = M, .n = N, .A_dense = S.A, .b = S.b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    cert_data cd = {S.A, S.b, M, N, 0};
    for (int k = 0; k < 3; k++) {
        ircg_problem *pb = NULL;
        ircg_solver *sv = NULL;
        ircg_info in;
        double z[N];
        REQUIRE(ircg_problem_least_squares(&ld, &o, &doms[k], &pb, NULL) == IRCG_OK);
        CHECK(lnt_solve(pb, IRCG_ALG_FCBIO, 1e-8, 1e-4, 30, &sv, &in) == IRCG_OK);
        if (sv && lnt_answer(sv, z, N))
            check_answer(names[k], sv, &in, &cd, 0.0, S.fstar, lnt_half_norm_sq(z, N), 1e-4,
                         1e-4);
        ircg_solver_free(sv);
        ircg_problem_free(pb);
    }
}

/* Over-parameterized regression on the least-norm instance of seed 3
 * (unit/solver/test_ln_util.h, lnt_overparam): x* and f* in closed form. */
static int overparam(inst *L, double *xs, double *fstar)
{
    return least_norm(L, 3) && lnt_overparam(L->A, L->xs, M, N, L->Av, L->bv, MV, 77, xs,
                                             fstar);
}

static double validation_loss(const inst *L, const double *x)
{
    return lnt_half_sq(L->Av, L->bv, MV, N, x);
}

TEST(bisect, overparam_closed_form)
{
    static inst S;
    double xs[N], fstar, z[N];
    REQUIRE(overparam(&S, xs, &fstar));
    ircg_ls_data ld = {.m = M, .n = N, .A_dense = S.A, .b = S.b};
    ircg_ls_data vd = {.m = MV, .n = N, .A_dense = S.Av, .b = S.bv};
    ircg_outer o = {.kind = IRCG_OUTER_VALIDATION, .val = &vd};
    ircg_domain dom = {.kind = IRCG_DOMAIN_L2_BALL, .radius = 1.5 * norm2(xs, N, 2)};
    ircg_problem *pb = NULL;
    ircg_solver *sv = NULL;
    ircg_info in;
    cert_data cd = {S.A, S.b, M, N, 0};
    REQUIRE(ircg_problem_least_squares(&ld, &o, &dom, &pb, NULL) == IRCG_OK);
    CHECK(lnt_solve(pb, IRCG_ALG_FCBIO, 1e-8, 1e-4, 30, &sv, &in) == IRCG_OK);
    if (sv && lnt_answer(sv, z, N))
        check_answer("overparam", sv, &in, &cd, 0.0, fstar, validation_loss(&S, z), 1e-4,
                     1e-4);
    ircg_solver_free(sv);
    ircg_problem_free(pb);
}

/* A unique inner solution above f's own minimum: A of full column rank
 * (UM > UN), b = A w, so that x* is the least squares solution (dgelsd
 * here, g* its rounding), and validation rows with noise: min_X f < f*.
 * The first levels lie below min_X f, where psi_t's minimizer puts all
 * the weight on f (lambda = 1) and only f's own bound f(y) - gap_f(y)
 * rejects them: without it FC-BiO ran to its time limit at the first
 * level (the 2000 x 50 instance of this shape, 20 s, f_lower 0). */
enum { UM = 60, UN = 8, UV = 40 };

TEST(bisect, unique_inner_solution_above_min_f)
{
    double A[UM * UN], b[UM], Av[UV * UN], bv[UV], w[UN], Ac[UM * UN], bx[UM], svals[UN];
    double z[UN];
    uint64_t s = 13;
    for (int i = 0; i < UM * UN; i++)
        A[i] = test_urand(&s);
    for (int i = 0; i < UV * UN; i++)
        Av[i] = test_urand(&s);
    for (int j = 0; j < UN; j++)
        w[j] = 20 * test_urand(&s); /* g0 large against g at argmin_X f */
    for (int i = 0; i < UM; i++) {
        b[i] = 0;
        for (int j = 0; j < UN; j++)
            b[i] += A[i * UN + j] * w[j];
    }
    for (int i = 0; i < UV; i++) {
        bv[i] = 0.1 * test_urand(&s);
        for (int j = 0; j < UN; j++)
            bv[i] += Av[i * UN + j] * w[j];
    }
    lapack_int rank = 0;
    memcpy(Ac, A, sizeof Ac);
    memcpy(bx, b, sizeof bx);
    REQUIRE(LAPACKE_dgelsd(LAPACK_ROW_MAJOR, UM, UN, 1, Ac, UN, bx, 1, svals, -1.0, &rank) ==
                0 && rank == UN);
    double fstar = lnt_half_sq(Av, bv, UV, UN, bx);
    cert_data cd = {A, b, UM, UN, 0};
    ircg_ls_data ld = {.m = UM, .n = UN, .A_dense = A, .b = b};
    ircg_ls_data vd = {.m = UV, .n = UN, .A_dense = Av, .b = bv};
    ircg_outer o = {.kind = IRCG_OUTER_VALIDATION, .val = &vd};
    ircg_domain dom = {.kind = IRCG_DOMAIN_L2_BALL, .radius = 2 * norm2(bx, UN, 2)};
    ircg_problem *pb = NULL;
    ircg_solver *sv = NULL;
    ircg_info in;
    REQUIRE(ircg_problem_least_squares(&ld, &o, &dom, &pb, NULL) == IRCG_OK);
    CHECK(lnt_solve(pb, IRCG_ALG_FCBIO, 1e-8, 1e-4, 10, &sv, &in) == IRCG_OK);
    if (sv && lnt_answer(sv, z, UN)) {
        double fz = lnt_half_sq(Av, bv, UV, UN, z);
        /* below f*: v(c) = min {f : g <= c} grows like the square root of
         * c - g* at a unique x* (g strongly convex), so g's slack of a few
         * 1e-7 here buys f about 1e-3 of f* -- the weak guarantee's side,
         * which no first-order certificate bounds (FC-BiO's lower bound) */
        check_answer("unique x*", sv, &in, &cd, cert_g(&cd, bx), fstar, fz, 1e-4, 2e-3);
    }
    ircg_solver_free(sv);
    ircg_problem_free(pb);
}

/* Logistic regression with more rows than unknowns: g strictly convex, its
 * unconstrained minimizer x* (inside the ball) by Newton's method in long
 * double to the rounding of double; f = 1/2 ||x||^2, f* = f(x*). */
enum { LM = 60, LN = 5 };

static int logistic_newton(const double *A, const double *y, double *x)
{
    long double xl[LN] = {0};
    for (int it = 0; it < 60; it++) {
        long double g[LN] = {0}, H[LN][LN] = {{0}};
        for (int i = 0; i < LM; i++) {
            long double s = 0;
            for (int j = 0; j < LN; j++)
                s += (long double)A[i * LN + j] * xl[j];
            long double e = expl(-y[i] * s), p = e / (1 + e); /* sigma(-y s) */
            for (int j = 0; j < LN; j++) {
                g[j] += -y[i] * p * A[i * LN + j];
                for (int k = 0; k < LN; k++)
                    H[j][k] += p * (1 - p) * A[i * LN + j] * A[i * LN + k];
            }
        }
        for (int c = 0; c < LN; c++) { /* Gaussian elimination, H symmetric PD */
            for (int r = c + 1; r < LN; r++) {
                long double m = H[r][c] / H[c][c];
                for (int k = c; k < LN; k++)
                    H[r][k] -= m * H[c][k];
                g[r] -= m * g[c];
            }
        }
        for (int r = LN - 1; r >= 0; r--) {
            long double v = g[r];
            for (int k = r + 1; k < LN; k++)
                v -= H[r][k] * g[k];
            g[r] = v / H[r][r];
        }
        for (int j = 0; j < LN; j++)
            xl[j] -= g[j];
    }
    for (int j = 0; j < LN; j++)
        x[j] = (double)xl[j];
    return isfinite(x[0]);
}

TEST(bisect, logistic_newton_reference)
{
    double A[LM * LN], y[LM], xs[LN], z[LN];
    uint64_t s = 21;
    for (int i = 0; i < LM * LN; i++)
        A[i] = test_urand(&s);
    for (int i = 0; i < LM; i++) /* labels from a model with noise: not separable */
        y[i] = test_urand(&s) + 0.3 * A[i * LN] > 0 ? 1 : -1;
    REQUIRE(logistic_newton(A, y, xs));
    long double f = 0;
    for (int j = 0; j < LN; j++)
        f += 0.5L * (long double)xs[j] * xs[j];
    double fstar = (double)f;
    cert_data cd = {A, y, LM, LN, 1};
    double gstar = cert_g(&cd, xs);
    ircg_ls_data ld = {.m = LM, .n = LN, .A_dense = A, .b = y};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {.kind = IRCG_DOMAIN_L2_BALL, .radius = 2 * norm2(xs, LN, 2) + 1};
    ircg_problem *pb = NULL;
    ircg_solver *sv = NULL;
    ircg_info in;
    REQUIRE(ircg_problem_logistic(&ld, &o, &dom, &pb, NULL) == IRCG_OK);
    CHECK(lnt_solve(pb, IRCG_ALG_FCBIO, 1e-8, 1e-5, 30, &sv, &in) == IRCG_OK);
    if (sv && lnt_answer(sv, z, LN)) {
        long double fz = 0;
        for (int j = 0; j < LN; j++)
            fz += 0.5L * (long double)z[j] * z[j];
        /* an interior inner solution, f* - f(z) about sqrt of g's slack:
         * the safeguard stops where g's values no longer resolve a
         * narrower slack (1e-4 here, ten times the outer tolerance) */
        check_answer("logistic", sv, &in, &cd, gstar, fstar, (double)fz, 1e-5, 1e-3);
    }
    ircg_solver_free(sv);
    ircg_problem_free(pb);
}

/* FC-BiO-CG on least norm: conditional gradient inside, a looser accuracy
 * (its rate is conditional gradient's): the same bounds. */
TEST(bisect, fcbio_cg_least_norm_closed_form)
{
    static inst S;
    REQUIRE(least_norm(&S, 9));
    ircg_ls_data ld = {.m = M, .n = N, .A_dense = S.A, .b = S.b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {.kind = IRCG_DOMAIN_L2_BALL, .radius = 1.5 * norm2(S.xs, N, 2)};
    ircg_problem *pb = NULL;
    ircg_solver *sv = NULL;
    ircg_info in;
    double z[N];
    cert_data cd = {S.A, S.b, M, N, 0};
    REQUIRE(ircg_problem_least_squares(&ld, &o, &dom, &pb, NULL) == IRCG_OK);
    CHECK(lnt_solve(pb, IRCG_ALG_FCBIO_CG, 1e-6, 1e-3, 60, &sv, &in) == IRCG_OK);
    if (sv && lnt_answer(sv, z, N)) {
        long double fz = 0;
        for (int j = 0; j < N; j++)
            fz += 0.5L * (long double)z[j] * z[j];
        check_answer("fcbio-cg least norm", sv, &in, &cd, 0.0, S.fstar, (double)fz, 1e-3,
                     1e-3);
    }
    ircg_solver_free(sv);
    ircg_problem_free(pb);
}

/* ------------------------------------------------------- the prox step -- */

/* The projection of a box [-1, 1]^2, for the brute force. */
static ircg_error box_project(void *ws, const double *y, double *out)
{
    (void)ws;
    for (int i = 0; i < 2; i++)
        out[i] = fmin(1.0, fmax(-1.0, y[i]));
    return IRCG_OK;
}

/* max(m_F, m_G) at x for the models of p. */
static double model_max(const bs_prox *p, const double *x)
{
    double sf = 0, sg = 0, dd = 0;
    for (int i = 0; i < 2; i++) {
        double d = x[i] - p->y[i];
        sf += p->c_f[i] * d;
        sg += p->c_g[i] * d;
        dd += d * d;
    }
    return fmax(p->a_f + sf + 0.5 * p->L_f * dd, p->a_g + sg + 0.5 * p->L_g * dd);
}

TEST(bisect, prox_max_step_against_brute_force)
{
    uint64_t s = 3;
    double worst = 0;
    for (int trial = 0; trial < 40; trial++) {
        double y[2] = {0.8 * test_urand(&s), 0.8 * test_urand(&s)};
        double cf[2] = {3 * test_urand(&s), 3 * test_urand(&s)};
        double cg[2] = {3 * test_urand(&s), 3 * test_urand(&s)}, u[2], x[2];
        bs_prox p = {.n = 2, .y = y, .c_f = cf, .c_g = cg, .a_f = test_urand(&s),
                     .a_g = test_urand(&s), .L_f = 1 + 2 * (test_urand(&s) + 1),
                     .L_g = 1 + 2 * (test_urand(&s) + 1), .u = u, .project = box_project};
        double lambda = 0.5;
        int evals = 0;
        REQUIRE(bs_prox_max(&p, &lambda, x, &evals) == IRCG_OK);
        double best = INFINITY;
        for (int i = 0; i <= 2000; i++) /* the box on a 2001 x 2001 grid */
            for (int j = 0; j <= 2000; j++) {
                double v[2] = {-1 + i / 1000.0, -1 + j / 1000.0};
                best = fmin(best, model_max(&p, v));
            }
        /* the grid's spacing bounds how far below its best the minimum lies:
         * the models' slopes on the box are below 3 sqrt(2) + 2 max(L) */
        double slack = 1e-3 * sqrt(2.0) * (6 + 2 * fmax(p.L_f, p.L_g));
        double got = model_max(&p, x);
        CHECK(got <= best + 1e-12 && got >= best - slack);
        CHECK(lambda >= 0 && lambda <= 1 && fabs(x[0]) <= 1 && fabs(x[1]) <= 1);
        worst = fmax(worst, got - best);
    }
    printf("    40 steps: the step's value at most %.2g above the grid's best\n", worst);
}

/* -------------------------------------------------------- checkpoints -- */

/* x and z of a solver. */
typedef struct snap {
    double x[N], z[N];
} snap;

static void take(const ircg_solver *sv, snap *s)
{
    ircg_iterate *a = NULL, *b = NULL;
    memset(s, 0, sizeof *s);
    if (ircg_solver_iterate(sv, IRCG_X, 1, &a) == IRCG_OK &&
        ircg_solver_iterate(sv, IRCG_Z, 1, &b) == IRCG_OK) {
        memcpy(s->x, a->dense, sizeof s->x);
        memcpy(s->z, b->dense, sizeof s->z);
    }
    ircg_iterate_free(a);
    ircg_iterate_free(b);
}

TEST(bisect, stopped_and_continued_is_the_uninterrupted_run)
{
    static const ircg_algorithm ALGS[] = {IRCG_ALG_FCBIO, IRCG_ALG_FCBIO_CG,
                                          IRCG_ALG_TWOSTAGE};
    static const char *const NAMES[] = {"FC-BiO", "FC-BiO-CG", "two-stage"};
    static inst S;
    double xs[N], fstar;
    REQUIRE(overparam(&S, xs, &fstar));
    ircg_ls_data ld = {.m = M, .n = N, .A_dense = S.A, .b = S.b};
    ircg_ls_data vd = {.m = MV, .n = N, .A_dense = S.Av, .b = S.bv};
    ircg_outer o = {.kind = IRCG_OUTER_VALIDATION, .val = &vd};
    ircg_domain dom = {.kind = IRCG_DOMAIN_L1_BALL, .radius = norm2(xs, N, 1)};
    ircg_problem *pb = NULL;
    REQUIRE(ircg_problem_least_squares(&ld, &o, &dom, &pb, NULL) == IRCG_OK);
    for (int a = 0; a < 3; a++) {
        ircg_settings st;
        ircg_solver *one = NULL, *two = NULL;
        ircg_info i1, i2;
        snap s1, s2;
        ircg_settings_default(&st);
        st.algorithm = ALGS[a];
        st.stop.inner_gap_rel = 1e-12; /* not reached in these iterations */
        st.stop.outer_gap_rel = 1e-9;
        int64_t total = a == 2 ? 100 : 600, part = a == 2 ? 40 : 250;
        st.max_iter = total;
        REQUIRE(ircg_solver_new(pb, &st, &one, NULL) == IRCG_OK);
        CHECK(ircg_solve(one, &i1) == IRCG_OK);
        take(one, &s1);
        st.max_iter = part;
        REQUIRE(ircg_solver_new(pb, &st, &two, NULL) == IRCG_OK);
        CHECK(ircg_solve(two, NULL) == IRCG_OK);
        void *blob = NULL;
        size_t len = 0;
        REQUIRE(ircg_solver_save(two, &blob, &len) == IRCG_OK);
        ircg_solver_free(two);
        st.max_iter = total;
        REQUIRE(ircg_solver_new(pb, &st, &two, NULL) == IRCG_OK);
        ircg_diag dg = {0};
        CHECK(ircg_solver_restore_as(two, blob, len, IRCG_RESTORE_CONTINUE, &dg) == IRCG_OK);
        if (dg.message[0])
            printf("    %s: %s\n", dg.field, dg.message);
        free(blob);
        CHECK(ircg_solve(two, &i2) == IRCG_OK);
        take(two, &s2);
        CHECK_INT(i1.iterations, i2.iterations);
        CHECK(memcmp(s1.x, s2.x, sizeof s1.x) == 0 && memcmp(s1.z, s2.z, sizeof s1.z) == 0);
        CHECK(i1.f_lower == i2.f_lower && i1.g_upper == i2.g_upper && i1.g_lower == i2.g_lower);
        printf("    %s: %lld iterations in one run and in %lld + a continued run: x, z, "
               "f_lower (%.10g), g_upper the same bits\n", NAMES[a],
               (long long)i1.iterations, (long long)part, i1.f_lower);
        ircg_solver_free(one);
        ircg_solver_free(two);
    }
    ircg_problem_free(pb);
}

/* ------------------------------------------------------------ refusals -- */

TEST(bisect, refused_where_they_do_not_apply)
{
    static inst S;
    REQUIRE(least_norm(&S, 1));
    ircg_ls_data ld = {.m = M, .n = N, .A_dense = S.A, .b = S.b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {.kind = IRCG_DOMAIN_L2_BALL, .radius = 10};
    ircg_problem *ls = NULL, *lr = NULL;
    double y[M];
    for (int i = 0; i < M; i++)
        y[i] = S.b[i] > 0 ? 1 : -1;
    ircg_ls_data yd = {.m = M, .n = N, .A_dense = S.A, .b = y};
    REQUIRE(ircg_problem_least_squares(&ld, &o, &dom, &ls, NULL) == IRCG_OK);
    REQUIRE(ircg_problem_logistic(&yd, &o, &dom, &lr, NULL) == IRCG_OK);
    struct {
        const ircg_problem *pb;
        ircg_algorithm alg;
        double gap_tol;
        int certify;
        const char *field;
    } cases[] = {
        {lr, IRCG_ALG_FCBIO_CG, 0, 1, "/algorithm"},
        {ls, IRCG_ALG_FCBIO, 1e-3, 1, "/gap_tol"},
        {ls, IRCG_ALG_FCBIO_CG, 0, 0, "/certify"},
        {lr, IRCG_ALG_TWOSTAGE, 1e-3, 1, "/gap_tol"},
        {ls, IRCG_ALG_TWOSTAGE, 1e-3, 1, "/gap_tol"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ircg_settings st;
        ircg_solver *sv = NULL;
        ircg_diag d = {0};
        ircg_settings_default(&st);
        st.algorithm = cases[k].alg;
        st.gap_tol = cases[k].gap_tol;
        st.certify = cases[k].certify;
        CHECK(ircg_solver_new(cases[k].pb, &st, &sv, &d) == IRCG_ERR_INVALID);
        CHECK_STR(d.field, cases[k].field);
        printf("    %s: %s\n", d.field, d.message);
        ircg_solver_free(sv);
    }
    ircg_problem_free(ls);
    ircg_problem_free(lr);
}
