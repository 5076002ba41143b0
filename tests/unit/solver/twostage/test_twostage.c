/*
 * test_twostage.c -- the two-stage method (solver/src/twostage/) against
 * what is known without the library (test_ln_util.h, by LAPACK):
 *  - least norm, x* = A^+ b, over an l2 ball, an l1 ball and a box;
 *  - over-parameterized regression, x* = xs + N z*, f the validation loss,
 *    over an l2 and an l1 ball, the l1 ball's radius that of x* (active);
 * each stopped at (inner_gap_rel, outer_gap_rel) = (1e-8, 1e-4): converged,
 * the certificate brackets g* and f* (tests/test_cert.h), and -- beyond
 * the weak optimality that is certified -- f(z) within 1e-4 of f* on both
 * sides and z near x*: stage 2 solves on the inner solution set itself.
 * And the iterates do not depend on the units of f and g (powers of 2:
 * the same bits).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "test_cert.h"
#include "unit/solver/test_ln_util.h"

enum { M = 30, N = 80, MV = 120 };

/* f(z) - f* against the tolerance, z against x*, the certificate's
 * brackets. */
static void check(const char *who, ircg_solver *sv, const ircg_info *in, const cert_data *cd,
                  const double *z, const double *xs, double fz, double fstar)
{
    double gx, gz, dmax = 0, xmax = 0;
    cert_iterates_g(sv, cd, &gx, &gz);
    check_cert_brackets(who, in, gx, gz, 0.0, fstar, 1e-12);
    for (int j = 0; j < N; j++) {
        dmax = fmax(dmax, fabs(z[j] - xs[j]));
        xmax = fmax(xmax, fabs(xs[j]));
    }
    printf("    %s: %s, %lld iterations, %.3g s, (f(z) - f*) / f* %.3g, |z - x*|_inf / |x*|_inf "
           "%.3g, (f* - f_lower) / f* %.3g\n", who, ircg_status_string(in->status),
           (long long)in->iterations, in->solve_seconds, (fz - fstar) / fstar, dmax / xmax,
           (fstar - in->f_lower) / fstar);
    CHECK_INT(in->status, IRCG_STATUS_CONVERGED);
    CHECK_INT(in->warnings, 0);
    CHECK(in->f_lower <= fstar);
    CHECK(fabs(fz - fstar) <= 1e-4 * fabs(fstar));
    CHECK(dmax <= 1e-2 * xmax);
}

TEST(twostage, least_norm_closed_form_every_vector_domain)
{
    static double A[M * N], b[M], xs[N];
    REQUIRE(lnt_make(A, b, xs, M, N, 5));
    double fstar = lnt_half_norm_sq(xs, N);
    ircg_domain doms[3];
    const char *names[3];
    lnt_domains(xs, N, doms, names);
    ircg_ls_data ld = {.m = M, .n = N, .A_dense = A, .b = b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    cert_data cd = {A, b, M, N, 0};
    for (int k = 0; k < 3; k++) {
        ircg_problem *pb = NULL;
        ircg_solver *sv = NULL;
        ircg_info in;
        double z[N];
        REQUIRE(ircg_problem_least_squares(&ld, &o, &doms[k], &pb, NULL) == IRCG_OK);
        CHECK(lnt_solve(pb, IRCG_ALG_TWOSTAGE, 1e-8, 1e-4, 30, &sv, &in) == IRCG_OK);
        if (sv && lnt_answer(sv, z, N))
            check(names[k], sv, &in, &cd, z, xs, lnt_half_norm_sq(z, N), fstar);
        ircg_solver_free(sv);
        ircg_problem_free(pb);
    }
}

TEST(twostage, overparam_closed_form)
{
    static double A[M * N], b[M], xs[N], Av[MV * N], bv[MV], xstar[N];
    double fstar, r1 = 0, r2 = 0;
    REQUIRE(lnt_make(A, b, xs, M, N, 3));
    REQUIRE(lnt_overparam(A, xs, M, N, Av, bv, MV, 77, xstar, &fstar));
    for (int j = 0; j < N; j++) {
        r1 += fabs(xstar[j]);
        r2 += xstar[j] * xstar[j];
    }
    /* the l2 ball holds x* inside; the l1 ball of x*'s own radius makes
     * the constraint active at x* (x* stays the solution: it is in X) */
    const ircg_domain doms[] = {{.kind = IRCG_DOMAIN_L2_BALL, .radius = 1.5 * sqrt(r2)},
                                {.kind = IRCG_DOMAIN_L1_BALL, .radius = r1}};
    const char *names[] = {"l2 ball", "l1 ball (active)"};
    ircg_ls_data ld = {.m = M, .n = N, .A_dense = A, .b = b};
    ircg_ls_data vd = {.m = MV, .n = N, .A_dense = Av, .b = bv};
    ircg_outer o = {.kind = IRCG_OUTER_VALIDATION, .val = &vd};
    cert_data cd = {A, b, M, N, 0};
    for (int k = 0; k < 2; k++) {
        ircg_problem *pb = NULL;
        ircg_solver *sv = NULL;
        ircg_info in;
        double z[N];
        REQUIRE(ircg_problem_least_squares(&ld, &o, &doms[k], &pb, NULL) == IRCG_OK);
        CHECK(lnt_solve(pb, IRCG_ALG_TWOSTAGE, 1e-8, 1e-4, 30, &sv, &in) == IRCG_OK);
        if (sv && lnt_answer(sv, z, N))
            check(names[k], sv, &in, &cd, z, xstar, lnt_half_sq(Av, bv, MV, N, z), fstar);
        ircg_solver_free(sv);
        ircg_problem_free(pb);
    }
}

/* f scaled by 4 (the validation rows by 2) and g by 16 (A and b by 4):
 * every scaling a power of 2, so every product and sum scales exactly and
 * the iterates of a scale-free method are the same bits. */
TEST(twostage, iterates_do_not_depend_on_the_units_of_f_and_g)
{
    static double A[M * N], b[M], xs[N], Av[MV * N], bv[MV], xstar[N];
    static double A4[M * N], b4[M], Av2[MV * N], bv2[MV];
    double fstar, z1[N], z2[N];
    REQUIRE(lnt_make(A, b, xs, M, N, 3));
    REQUIRE(lnt_overparam(A, xs, M, N, Av, bv, MV, 77, xstar, &fstar));
    for (int i = 0; i < M * N; i++)
        A4[i] = 4 * A[i];
    for (int i = 0; i < M; i++)
        b4[i] = 4 * b[i];
    for (int i = 0; i < MV * N; i++)
        Av2[i] = 2 * Av[i];
    for (int i = 0; i < MV; i++)
        bv2[i] = 2 * bv[i];
    ircg_domain dom = {.kind = IRCG_DOMAIN_L1_BALL, .radius = 20};
    ircg_ls_data l1 = {.m = M, .n = N, .A_dense = A, .b = b};
    ircg_ls_data v1 = {.m = MV, .n = N, .A_dense = Av, .b = bv};
    ircg_ls_data l2 = {.m = M, .n = N, .A_dense = A4, .b = b4};
    ircg_ls_data v2 = {.m = MV, .n = N, .A_dense = Av2, .b = bv2};
    ircg_outer o1 = {.kind = IRCG_OUTER_VALIDATION, .val = &v1};
    ircg_outer o2 = {.kind = IRCG_OUTER_VALIDATION, .val = &v2};
    ircg_problem *p1 = NULL, *p2 = NULL;
    ircg_solver *s1 = NULL, *s2 = NULL;
    ircg_info i1, i2;
    REQUIRE(ircg_problem_least_squares(&l1, &o1, &dom, &p1, NULL) == IRCG_OK);
    REQUIRE(ircg_problem_least_squares(&l2, &o2, &dom, &p2, NULL) == IRCG_OK);
    CHECK(lnt_solve(p1, IRCG_ALG_TWOSTAGE, 1e-8, 1e-4, 30, &s1, &i1) == IRCG_OK);
    CHECK(lnt_solve(p2, IRCG_ALG_TWOSTAGE, 1e-8, 1e-4, 30, &s2, &i2) == IRCG_OK);
    if (s1 && s2 && lnt_answer(s1, z1, N) && lnt_answer(s2, z2, N)) {
        CHECK_INT(i1.iterations, i2.iterations);
        CHECK(memcmp(z1, z2, sizeof z1) == 0);
        printf("    %lld iterations either way, z the same bits; f_lower %.10g and %.10g "
               "(x 4)\n", (long long)i1.iterations, i1.f_lower, i2.f_lower);
    }
    ircg_solver_free(s1);
    ircg_solver_free(s2);
    ircg_problem_free(p1);
    ircg_problem_free(p2);
}
