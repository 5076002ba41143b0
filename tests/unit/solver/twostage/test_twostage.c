/*
 * test_twostage.c -- the two-stage method (solver/src/twostage/) against
 * what is known without the library: least norm (x* = A^+ b by LAPACK's
 * dgelsd, test_ln_util.h) over an l2 ball, an l1 ball and a box, where
 * the answer must be x* to the digits asked and the certificate must
 * bracket g* and f* (tests/test_cert.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "test_cert.h"
#include "unit/solver/test_ln_util.h"

enum { M = 30, N = 80 };

static ircg_error solve(const ircg_problem *pb, double inner_rel, double outer_rel,
                        double seconds, ircg_solver **sv, ircg_info *in)
{
    ircg_settings st;
    ircg_diag d = {0};
    ircg_settings_default(&st);
    st.algorithm = IRCG_ALG_TWOSTAGE;
    st.max_iter = 100000000;
    st.time_limit = seconds;
    st.stop.inner_gap_rel = inner_rel;
    st.stop.outer_gap_rel = outer_rel;
    ircg_error e = ircg_solver_new(pb, &st, sv, &d);
    if (e != IRCG_OK) {
        printf("    solver: %s (%s)\n", d.message, d.field);
        return e;
    }
    return ircg_solve(*sv, in);
}

static int answer(const ircg_solver *sv, double *z, int n)
{
    ircg_iterate *it = NULL;
    if (ircg_solver_iterate(sv, IRCG_Z, 1, &it) != IRCG_OK || !it->dense || it->dim != n) {
        ircg_iterate_free(it);
        return 0;
    }
    memcpy(z, it->dense, (size_t)n * sizeof *z);
    ircg_iterate_free(it);
    return 1;
}

TEST(twostage, least_norm_closed_form_every_vector_domain)
{
    static double A[M * N], b[M], xs[N];
    REQUIRE(lnt_make(A, b, xs, M, N, 5));
    long double fs = 0;
    double r2 = 0, r1 = 0, amax = 0;
    for (int j = 0; j < N; j++) {
        fs += 0.5L * (long double)xs[j] * xs[j];
        r2 += xs[j] * xs[j];
        r1 += fabs(xs[j]);
        amax = fmax(amax, fabs(xs[j]));
    }
    double fstar = (double)fs;
    r2 = sqrt(r2);
    const ircg_domain doms[] = {{.kind = IRCG_DOMAIN_L2_BALL, .radius = 1.5 * r2},
                                {.kind = IRCG_DOMAIN_L1_BALL, .radius = 1.5 * r1},
                                {.kind = IRCG_DOMAIN_BOX, .lower = -2 * amax, .upper = 2 * amax}};
    const char *names[] = {"l2 ball", "l1 ball", "box"};
    ircg_ls_data ld = {.m = M, .n = N, .A_dense = A, .b = b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    cert_data cd = {A, b, M, N, 0};
    for (int k = 0; k < 3; k++) {
        ircg_problem *pb = NULL;
        ircg_solver *sv = NULL;
        ircg_info in;
        double z[N], gx, gz, dmax = 0;
        REQUIRE(ircg_problem_least_squares(&ld, &o, &doms[k], &pb, NULL) == IRCG_OK);
        CHECK(solve(pb, 1e-8, 1e-4, 2, &sv, &in) == IRCG_OK);
        if (sv && answer(sv, z, N)) {
            cert_iterates_g(sv, &cd, &gx, &gz);
            check_cert_brackets(names[k], &in, gx, gz, 0.0, fstar, 1e-12);
            for (int j = 0; j < N; j++)
                dmax = fmax(dmax, fabs(z[j] - xs[j]));
            printf("    %s: %s, %lld iterations, %.3g s, |z - x*|_inf %.3g, f* - f_lower "
                   "%.3g of f*\n", names[k], ircg_status_string(in.status),
                   (long long)in.iterations, in.solve_seconds, dmax,
                   (fstar - in.f_lower) / fstar);
            CHECK_INT(in.status, IRCG_STATUS_CONVERGED);
            CHECK(in.f_lower <= fstar);
            CHECK(dmax <= 1e-6);
        }
        ircg_solver_free(sv);
        ircg_problem_free(pb);
    }
}
