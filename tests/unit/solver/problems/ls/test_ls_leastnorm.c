/*
 * test_ls_leastnorm.c -- IR-CG on the least-norm problem
 *
 *     min 1/2 ||x||^2  s.t.  x in argmin { 1/2 ||A z - b||^2 : z in X }
 *
 * with A 30 x 80 of full row rank, so the inner solutions are {Ax = b} and
 * the bilevel solution is x+ = A^+ b, computed here independently by LAPACK's
 * dgelsd.  X is an l2 ball of radius 2 ||x+|| or an l1 ball of radius
 * 2 ||x+||_1, both containing x+ in their interior.
 */
/* make test-kernels: ls_leastnorm. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "test_num.h"
#include "unit/solver/test_ln_util.h"

enum { M = 30, N = 80 };

typedef struct lninst {
    double A[M * N], b[M], xp[N]; /* xp = A^+ b */
    double nrm2, nrm1;
} lninst;

static int ln_make(lninst *L, uint64_t seed)
{
    if (!lnt_make(L->A, L->b, L->xp, M, N, seed))
        return 0;
    L->nrm2 = L->nrm1 = 0;
    for (int j = 0; j < N; j++) {
        L->nrm2 += L->xp[j] * L->xp[j];
        L->nrm1 += fabs(L->xp[j]);
    }
    L->nrm2 = sqrt(L->nrm2);
    return 1;
}

/* ||w - x+|| / ||x+|| for w = x_T or z_T after T iterations. */
static void run(const lninst *L, ircg_domain dom, ircg_step_rule rule, double p,
                int64_t T, double *err_x, double *err_z)
{
    ircg_ls_data d = {.m = M, .n = N, .A_dense = L->A, .b = L->b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_problem *pb = NULL;
    ircg_solver *sv = NULL;
    ircg_settings s;
    ircg_info info;
    *err_x = *err_z = NAN;
    if (ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) != IRCG_OK)
        return;
    ircg_settings_default(&s);
    s.step_rule = rule;
    s.varsigma = 1.0;
    s.p = p;
    s.max_iter = T;
    if (ircg_solver_new(pb, &s, &sv, NULL) == IRCG_OK && ircg_solve(sv, &info) == IRCG_OK) {
        for (int w = 0; w < 2; w++) {
            ircg_iterate *it = NULL;
            double e = 0;
            if (ircg_solver_iterate(sv, (ircg_which)w, 1, &it) != IRCG_OK)
                continue;
            for (int j = 0; j < N; j++)
                e += (it->dense[j] - L->xp[j]) * (it->dense[j] - L->xp[j]);
            *(w ? err_z : err_x) = sqrt(e) / L->nrm2;
            ircg_iterate_free(it);
        }
    }
    ircg_solver_free(sv);
    ircg_problem_free(pb);
}

/*
 * Tolerances.  The rate theorem bounds f(z_t) - f_opt and g(z_t) (tested in
 * test_rates.c) and, since f is 1-strongly convex and <x+, z - x+> =
 * <w, A z - b> with x+ = A'w, also ||z - x+||^2 <= 2 (f(z) - f_opt) +
 * 2 ||w|| ||A z - b||.  With this instance's constants (L_g ~ 70, D = 4||x+||)
 * that guarantee is vacuous before t ~ 1e7, so the tolerances are empirical:
 * with varsigma = 1, p = 1/2 the l2 ball run shows ||w_t - x+||/||x+|| ~ t^(-1/2)
 * (closed loop and line search: 2.2e-3 at t = 2000, 6.9e-4 at 2e4, 3.1e-4
 * at 1e5; open loop 5.3e-3, 9.9e-4, 3.7e-4), for x_t and z_t alike.  We ask
 * for 2.5x the measured error at T = 2e4 (3e-3 for all rules) and for a
 * decrease by at least 10^0.35 between T = 2000 and 2e4 (measured 10^0.5 to
 * 10^0.75).  On the l1 ball, x+ is dense (80 nonzeros) and lies deep inside
 * a polytope with 160 vertices, where conditional gradient zigzags: the
 * measured error is 0.21-0.66 at T = 2e4 and decreasing, so there we only
 * ask for progress (x 0.9 from T = 2000 to 2e4) and an error below 0.8.
 * Each rule takes about 30 ms.
 */
TEST(ls_leastnorm, l2_ball_converges_to_pseudoinverse_solution)
{
    lninst L;
    REQUIRE(ln_make(&L, 2024));
    ircg_domain dom = {IRCG_DOMAIN_L2_BALL, 2 * L.nrm2, 0, 0};
    for (int r = 0; r < 3; r++) {
        double ex1, ez1, ex2, ez2;
        run(&L, dom, (ircg_step_rule)r, 0.5, 2000, &ex1, &ez1);
        run(&L, dom, (ircg_step_rule)r, 0.5, 20000, &ex2, &ez2);
        char what[96];
        snprintf(what, sizeof what, "rule %d: relative error of x, z at T = 2e4", r);
        CHECK_MEASURED(what, fmax(ex2, ez2), 3e-3);
        snprintf(what, sizeof what, "rule %d: its decrease from T = 2000 (x, z)", r);
        CHECK_MEASURED(what, fmax(ex2 / ex1, ez2 / ez1), pow(10, -0.35));
        if (th_failed())
            th_fail(__FILE__, __LINE__, "rule %d: errors x %.3e -> %.3e, z %.3e -> %.3e",
                    r, ex1, ex2, ez1, ez2);
    }
}

TEST(ls_leastnorm, l1_ball_makes_progress)
{
    lninst L;
    REQUIRE(ln_make(&L, 2024));
    ircg_domain dom = {IRCG_DOMAIN_L1_BALL, 2 * L.nrm1, 0, 0};
    for (int r = 0; r < 3; r++) {
        double ex1, ez1, ex2, ez2;
        run(&L, dom, (ircg_step_rule)r, 0.5, 2000, &ex1, &ez1);
        run(&L, dom, (ircg_step_rule)r, 0.5, 20000, &ex2, &ez2);
        char what[96];
        snprintf(what, sizeof what, "rule %d: relative error of x, z at T = 2e4", r);
        CHECK_MEASURED(what, fmax(ex2, ez2), 0.8);
        snprintf(what, sizeof what, "rule %d: its decrease from T = 2000 (z)", r);
        CHECK_MEASURED(what, ez2 / ez1, 0.9);
        if (th_failed())
            th_fail(__FILE__, __LINE__, "rule %d: errors x %.3e -> %.3e, z %.3e -> %.3e",
                    r, ex1, ex2, ez1, ez2);
    }
}
