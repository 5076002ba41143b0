/*
 * test_rates_qg.c -- the accelerated rates of Section 5 on the paper's own
 * Example 1 (tests/study/rates.c builds the instances and checks every
 * bound at every iteration; constants and misprints are documented
 * there):
 *
 *  - quadratic growth (the paper's theorem under quadratic growth of g): with kappa =
 *    lambda_min(A) (checked here against LAPACK's eigenvalues of A), for
 *    p in {1/3, 1/2, 2/3} and every step rule, g_t <= W/(t+1)^min{2p,1}
 *    and f_t <= W/(2 vs (t+1)^min{p,1-p}) at every t <= T, and the two
 *    inequalities of the lemma bounding f and g, whose lower bound
 *    f_t >= -G_f sqrt(g_t / kappa) is nearly tight here (lhs/rhs about
 *    0.69): a kappa twice too large would break it.  The fitted slope of
 *    g_t over t in [T/20, T] is at least min{2p,1} - 0.1, and that of |f_t|
 *    at least min{p,1-p} - 0.1 (|f_t| <= max of the theorem's f bound and
 *    the lemma's G_f sqrt(g_t / kappa)).
 *  - strong convexity of f and X (the paper's theorem for strongly convex f and X): the
 *    same instance satisfies it (f = 1/2||x - c||^2, alpha_f = 1; the unit
 *    ball, alpha_X = 1); with the closed loop and the line search,
 *    f_t <= H / (vs (t+2)^min{2/3, 1-2p/3, 2-2p}) at every t.
 *  - without quadratic growth (A = uu', b = u: ||A^+ b|| = 1, the case the
 *    example excludes), the fitted slope of g_t stays below min{2p,1} - 0.1,
 *    near 4p/3: along the sphere g - g* grows like dist^4 while f pulls
 *    tangentially, so the regularized minimizer sits at angle
 *    theta ~ sigma^(1/3) and g(x) - g* ~ theta^4 ~ sigma^(4/3).
 */
/* make test-kernels: rates_qg. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "study/rates.h"

enum { N = 20, T = 20000 };
static const double PS[3] = {1.0 / 3, 0.5, 2.0 / 3};

/* kappa and L_g of the instance against LAPACK's eigenvalues of A. */
static void check_constants(const rq_inst *in)
{
    double A[RQ_MAXN * RQ_MAXN], w[RQ_MAXN];
    memcpy(A, in->A, sizeof A);
    REQUIRE(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', in->n, A, in->n, w) == 0);
    CHECK_NEAR(in->kappa, w[0], 1e-13 * w[in->n - 1]);
    CHECK_NEAR(in->L_g, 2 * w[in->n - 1], 1e-13 * w[in->n - 1]);
}

static void report(const char *what, const rq_result *r)
{
    printf("    %s p %.3f rule %d: slope g %.3f (theorem %.3f), |f| %.3f (%.3f); "
           "largest lhs/rhs: g %.3g, f %.3g, lemma f %.3g, lemma g %.3g, SC f %.3g\n",
           what, r->p, (int)r->rule, r->slope_g, r->g_rate, r->slope_f, r->f_rate,
           r->ratio_g, r->ratio_f, r->ratio_lemma_f, r->ratio_lemma_g, r->ratio_f_sc);
}

TEST(rates_qg, quadratic_growth_bounds_and_slopes)
{
    rq_inst in;
    REQUIRE(rq_make(&in, RQ_QG, N, 5));
    check_constants(&in);
    for (int pi = 0; pi < 3; pi++)
        for (int rule = 0; rule < 3; rule++) {
            rq_result r;
            REQUIRE(rq_run(&in, PS[pi], 1.0, (ircg_step_rule)rule, T, rule > 0, &r) == 0);
            CHECK_INT(r.bad_g, 0);
            CHECK_INT(r.bad_f, 0);
            CHECK_INT(r.bad_lemma_f, 0);
            CHECK_INT(r.bad_lemma_g, 0);
            CHECK(r.slope_g >= r.g_rate - 0.1);
            CHECK(r.slope_f >= r.f_rate - 0.1);
            /* the lemma's kappa-dependent bound is nearly attained */
            CHECK(r.ratio_lemma_f >= 0.5 && r.ratio_lemma_f <= 1);
            if (rule > 0) { /* the paper's theorem for strongly convex f and X */
                CHECK(isfinite(r.H) && r.H > 0);
                CHECK_INT(r.bad_f_sc, 0);
            }
            report("QG", &r);
        }
}

/* varsigma other than 1 changes W and H (and max(1, vs) in H's base case). */
TEST(rates_qg, bounds_hold_for_other_varsigma)
{
    rq_inst in;
    REQUIRE(rq_make(&in, RQ_QG, 12, 9));
    static const double VS[2] = {0.05, 4.0};
    for (int v = 0; v < 2; v++)
        for (int rule = 1; rule < 3; rule++) {
            rq_result r;
            REQUIRE(rq_run(&in, 0.5, VS[v], (ircg_step_rule)rule, 5000, 1, &r) == 0);
            CHECK_INT(r.bad_g + r.bad_f + r.bad_lemma_f + r.bad_lemma_g + r.bad_f_sc, 0);
        }
}

TEST(rates_qg, without_quadratic_growth_the_rate_is_slower)
{
    rq_inst in;
    REQUIRE(rq_make(&in, RQ_NO_QG, N, 5));
    for (int pi = 0; pi < 3; pi++)
        for (int rule = 0; rule < 3; rule++) {
            rq_result r;
            REQUIRE(rq_run(&in, PS[pi], 1.0, (ircg_step_rule)rule, T, 0, &r) == 0);
            CHECK(r.slope_g < r.g_rate - 0.1);
            CHECK_NEAR(r.slope_g, 4 * PS[pi] / 3, 0.15);
            report("no QG", &r);
        }
}
