/*
 * test_sto_rates.c -- the follow-up paper's rates measured (study/
 * sto_rates.c): on the finite sums of Example 1, with and without
 * quadratic growth, the gaps of z_t of IR-SCG (p = 1/4) and IR-FSCG
 * (p = 1/2), averaged over 8 seeds, fall at least as fast as the theorems
 * say, O(t^-1/4) and O(t^-1/2): the inner gap's fitted slope over
 * [T/20, T] is at least the exponent less a margin for the fit's noise
 * (printed beside the measured slope; the theorems bound the gaps, so
 * faster is allowed), and f(z_t) - f*, bounded above only, stays under the
 * envelope C (t+1)^-rate that its first twentieth sets.
 */
#include <math.h>
#include <stdio.h>

#include "harness.h"
#include "study/sto_rates.h"

static void case_of(rq_kind kind, ircg_algorithm alg)
{
    rq_inst in;
    sr_result r;
    REQUIRE(rq_make(&in, kind, 12, 3));
    REQUIRE(sr_run(&in, alg, 1 << 14, 8, 0, &r) == 0);
    const char *a = alg == IRCG_ALG_IRSCG ? "IR-SCG" : "IR-FSCG";
    const char *k = kind == RQ_QG ? "QG" : "no QG";
    printf("    %s (%s, b = %lld): inner slope %.3f, theorem %.2f; g(z_T) - g* %.2e, "
           "f(z_T) - f* %+.2e, envelope %.3g\n", a, k, (long long)r.batch, r.slope_g,
           r.exponent, r.g_T, r.f_T, r.envelope);
    char what[96];
    snprintf(what, sizeof what, "%s %s: exponent - slope of g(z_t) - g*", a, k);
    CHECK_MEASURED(what, r.exponent - r.slope_g, 0.05);
    snprintf(what, sizeof what, "%s %s: (f(z_t) - f*)^+ (t+1)^rate late / early", a, k);
    CHECK_MEASURED(what, r.envelope, 1.0);
}

TEST(sto_rates, theorems_rates_on_example1)
{
    for (int kind = RQ_QG; kind <= RQ_NO_QG; kind++)
        for (int alg = IRCG_ALG_IRSCG; alg <= IRCG_ALG_IRFSCG; alg++)
            case_of((rq_kind)kind, (ircg_algorithm)alg);
}
