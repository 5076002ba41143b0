/*
 * test_scale_study.c -- the short version of `study scale`
 * (tests/study/scale.h): on the small synthetic MovieLens, g scaled by
 * 1e-4, 1 and 1e4, the relative default reaches the
 * study's tolerances (certified inner gap <= 1e-6 (g(x_0) - g_upper),
 * |f - f*| <= 1e-3 |f*|) at the same iteration at every scale where the
 * unscaled instance does, while the absolute varsigma 0.05 of the version
 * before does not reach them on least-norm data times 1e-2 (the issue's
 * table) but does on the data as drawn.
 */
#include <math.h>
#include <stdio.h>

#include "harness.h"
#include "study/scale.h"

static void one(sc_kind kind, ircg_step_rule rule, int64_t T)
{
    static const double C[] = {1e-4, 1, 1e4};
    sc_inst s;
    sc_run r[3];
    REQUIRE(sc_make(&s, kind, NULL) == 0);
    for (int k = 0; k < 3; k++)
        REQUIRE(sc_solve(&s, C[k], NAN, rule, T, &r[k]) == 0);
    printf("    %s, rule %d: default reaches both at %lld, %lld, %lld (c = 1e-4, 1, 1e4)\n",
           s.name, (int)rule, (long long)r[0].iterations, (long long)r[1].iterations,
           (long long)r[2].iterations);
    CHECK(r[1].iterations > 0);
    CHECK(r[0].iterations == r[1].iterations && r[2].iterations == r[1].iterations);
    sc_free(&s);
}

TEST(scale_study, the_default_reaches_the_tolerances_at_every_scale)
{
    /* (the least-norm example does not reach them with the default in 6e4
     * iterations: the study's table says where the default is slow) */
    one(SC_MC_SYNTH, IRCG_STEP_OPEN_LOOP, 2000);
    one(SC_MC_SYNTH, IRCG_STEP_LINE_SEARCH, 2000);
}

TEST(scale_study, the_absolute_varsigma_of_before_depends_on_the_units)
{
    sc_inst s;
    sc_run r1, r2;
    REQUIRE(sc_make(&s, SC_LEAST_NORM, NULL) == 0);
    REQUIRE(sc_solve(&s, 1, 0.05, IRCG_STEP_LINE_SEARCH, 5000, &r1) == 0);
    REQUIRE(sc_solve(&s, 1e-4, 0.05, IRCG_STEP_LINE_SEARCH, 5000, &r2) == 0);
    printf("    least-norm, varsigma 0.05, line search: both at %lld as drawn; data x 1e-2: "
           "%lld, inner gap %.1e of g(x0) at the end\n", (long long)r1.iterations,
           (long long)r2.iterations, r2.inner_rel);
    CHECK(r1.iterations > 0 && r2.iterations < 0 && r2.inner_rel > 1e-3);
    sc_free(&s);
}
