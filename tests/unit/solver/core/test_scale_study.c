/*
 * test_scale_study.c -- the short version of `study scale`
 * (tests/study/scale.h): on the small synthetic MovieLens, g scaled by
 * 1e-4, 1 and 1e4, the relative default reaches the
 * study's tolerances (certified inner gap <= 1e-6 (g(x_0) - g_upper),
 * |f - f*| <= 1e-3 |f*|) at the same iteration at every scale where the
 * unscaled instance does, while the absolute varsigma 0.05 of the version
 * before does not reach them on least-norm data times 1e-2 (the issue's
 * table) but does on the data as drawn.  And the study's exact penalty
 * path (sc_penalty_path), below.
 */
#include <math.h>
#include <stdio.h>

#include "common/test_cli_util.h"
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

/* The default's constant is the one `study varsigma` chose
 * (tests/study/varsigma_study.c), as the run that RESULTS.md shows
 * recorded it: a default changed without the study, or a study whose
 * choice moved without the default, fails here. */
TEST(scale_study, the_default_is_the_choice_of_study_varsigma)
{
    const char *path = "tests/paper/studies/varsigma.json";
    FILE *f = fopen(path, "r");
    if (!f)
        SKIP("%s is missing (run from the repository root)", path);
    fclose(f);
    cJSON *doc = tcli_read_json(path);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "chosen");
    REQUIRE(cJSON_IsNumber(c));
    double chosen = c->valuedouble;
    cJSON_Delete(doc);
    ircg_settings st;
    ircg_settings_default(&st);
    printf("    study varsigma chose %g; the default is %g\n", chosen, st.varsigma_rel);
    CHECK(st.varsigma_rel == chosen);
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

/*
 * The exact penalty path of the study (sc_penalty_path), checked two ways.
 *
 * Theorems of the penalty: every minimizer x_s of s f + g over X has
 * s f(x_s) + g(x_s) <= s f* + g* and g(x_s) >= g*, so f(x_s) <= f* and
 * g(x_s) - g* <= s (f* - f(x_s)); and for s1 > s2 adding the two
 * optimality inequalities gives (s1 - s2)(f(x_s1) - f(x_s2)) <= 0: f rises
 * and g falls as s falls.  On least-norm (f* the closed form 1/2 ||A^+
 * b||^2 of sc_make, g* = 0) for s from 1 down to 1e-8.  The slack of each
 * inequality is the rounding of sums of squares of n = 80 terms computed
 * from a backward-stable dgelsd solution: 1e-12 of f*, printed with the
 * measured value.
 *
 * Against conditional gradient: IR-CG with sigma held (SC_P_HELD) on
 * least-norm and on least squares with a validation least squares outside
 * (the study's other branch; the study's logistic data, 40 training
 * and 20 validation rows of 10 features, labels as targets, so that
 * neither fits exactly and the minimum of Phi is not 0), line search,
 * ends with its Frank-Wolfe gap of
 * Phi = s f + g at x_{t-1}, and Phi(x_t) <= Phi(x_{t-1}) (exact line
 * search), so min_X Phi lies in [Phi(x_t) - gap, Phi(x_t)], with s the
 * last sigma the solver used.  The closed form's Phi must lie there too,
 * to the same rounding.
 */
TEST(scale_study, the_penalty_path_obeys_the_theorems_of_the_penalty)
{
    sc_inst s;
    REQUIRE(sc_make(&s, SC_LEAST_NORM, NULL) == 0);
    double tol = 1e-12 * s.fstar, worst_f = -INFINITY, worst_g = -INFINITY;
    double worst_mono = -INFINITY, last_f = -INFINITY, last_g = INFINITY;
    for (int k = 0; k <= 8; k++) {
        double sigma = pow(10, -k);
        sc_path p;
        REQUIRE(sc_penalty_path(&s, sigma, &p) == 0);
        worst_f = fmax(worst_f, p.f - s.fstar);
        worst_g = fmax(worst_g, p.g - sigma * (s.fstar - p.f));
        worst_mono = fmax(worst_mono, fmax(last_f - p.f, p.g - last_g));
        last_f = p.f, last_g = p.g;
        if (k == 8)
            printf("    s = 1e-8: f* - f(x_s) = %.3g (f* %.10g), g(x_s) = %.3g\n",
                   s.fstar - p.f, s.fstar, p.g);
    }
    CHECK_MEASURED("max over s of f(x_s) - f*", worst_f, tol);
    CHECK_MEASURED("max over s of g(x_s) - s (f* - f(x_s))", worst_g, tol);
    CHECK_MEASURED("max over s of the fall of f or the rise of g as s falls", worst_mono, tol);
    sc_free(&s);
}

static void against_cg(sc_kind kind, double sigma, int64_t T)
{
    sc_inst s;
    sc_path p;
    ircg_settings st;
    ircg_solver *sv = NULL;
    ircg_info in;
    REQUIRE(sc_make(&s, kind, NULL) == 0);
    if (kind == SC_LOGISTIC) { /* its data as least squares, in a ball that does not bind */
        s.kind = SC_OVERPARAM;
        s.name = "least squares on the logistic data";
        s.dom.radius = 1e3;
    }
    ircg_problem *pb = sc_problem(&s, 1);
    REQUIRE(pb != NULL);
    ircg_settings_default(&st);
    st.varsigma = sigma;
    st.p = SC_P_HELD;
    st.step_rule = IRCG_STEP_LINE_SEARCH;
    st.max_iter = T;
    REQUIRE(ircg_solver_new(pb, &st, &sv, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(sv, &in) == IRCG_OK);
    REQUIRE(sc_penalty_path(&s, in.sigma, &p) == 0);
    double phi_cg = in.sigma * in.f_x + in.g_x, phi = in.sigma * p.f + p.g;
    double tol = 1e-12 * (in.sigma * fabs(in.f_x) + in.g_x);
    printf("    %s, sigma %.3g: Phi(x_sigma) %.12g, conditional gradient's %.12g, gap %.3g "
           "after %lld steps\n", s.name, in.sigma, phi, phi_cg, in.gap, (long long)in.iterations);
    char what[96];
    snprintf(what, sizeof what, "%s: Phi(x_sigma) - Phi(x_t)", s.name);
    CHECK_MEASURED(what, phi - phi_cg, tol);
    snprintf(what, sizeof what, "%s: Phi(x_t) - gap - Phi(x_sigma)", s.name);
    CHECK_MEASURED(what, phi_cg - in.gap - phi, tol);
    ircg_solver_free(sv);
    ircg_problem_free(pb);
    sc_free(&s);
}

TEST(scale_study, the_penalty_path_lies_in_conditional_gradients_bounds)
{
    against_cg(SC_LEAST_NORM, 1.0, 2000);
    against_cg(SC_LOGISTIC, 0.1, 20000);
}
