/*
 * select_study.c -- `study selection`: the selection instance of
 * select.h at 50 x 50 with 600 ratings, IR-CG (varsigma 1, p 1/2) and
 * conditional gradient on g alone (varsigma 0), open loop and line search,
 * 10^4 iterations each; f and f - f* at the end, and, for conditional
 * gradient, f at the first iterate whose g is as small as IR-CG's final g
 * (the same inner accuracy).  Then the accuracy asked for: FC-BiO (what
 * "auto" chooses for a matrix completion this small), FC-BiO-CG and
 * IR-CG with the stop (inner_gap_rel, outer_gap_rel) = (1e-6, 1e-3) and
 * (1e-8, 1e-4) and 60 s each, the answer's f against the closed form
 * and its certificate.
 */
#include <math.h>
#include <stdio.h>

#include "study/select.h"
#include "study/study.h"

enum { N = 50, NR = 600, T = 10000 };
#define STATED_SECONDS 60.0

/* f at the first t whose g is at most g_target (NaN when none). */
static double f_at_g(const sel_run_out *o, double g_target, int64_t *t_at)
{
    for (int64_t t = 1; t <= o->T; t++)
        if (o->g_t[t] <= g_target) {
            *t_at = t;
            return o->f_t[t];
        }
    *t_at = -1;
    return NAN;
}

/* The second table: each method with each stated accuracy. */
static int stated(cJSON *out, study_doc *doc, const sel_inst *s)
{
    static const struct {
        ircg_algorithm alg;
        const char *name;
    } M[] = {{IRCG_ALG_FCBIO, "FC-BiO"}, {IRCG_ALG_FCBIO_CG, "FC-BiO-CG"},
             {IRCG_ALG_IRCG, "IR-CG"}};
    static const double TOL[2][2] = {{1e-6, 1e-3}, {1e-8, 1e-4}};
    cJSON *runs = cJSON_AddArrayToObject(out, "stated");
    cJSON_AddNumberToObject(out, "stated_seconds", STATED_SECONDS);
    study_printf(doc, "\n| method | stop (inner, outer) | status | iterations | seconds | "
                      "(f - f*) / f* | certified outer gap / f* | f_lower <= f* |\n"
                      "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |\n");
    for (size_t m = 0; m < sizeof M / sizeof M[0]; m++)
        for (int k = 0; k < 2; k++) {
            sel_solve_out o;
            if (sel_solve(s, M[m].alg, TOL[k][0], TOL[k][1], STATED_SECONDS, &o) != 0)
                return -1;
            double rel = (o.f - s->f_opt) / s->f_opt, gap = o.outer_gap / s->f_opt;
            cJSON *j = cJSON_CreateObject();
            cJSON_AddItemToArray(runs, j);
            cJSON_AddStringToObject(j, "method", M[m].name);
            cJSON_AddNumberToObject(j, "inner_gap_rel", TOL[k][0]);
            cJSON_AddNumberToObject(j, "outer_gap_rel", TOL[k][1]);
            cJSON_AddStringToObject(j, "status", ircg_status_string(o.status));
            cJSON_AddNumberToObject(j, "iterations", (double)o.iterations);
            cJSON_AddNumberToObject(j, "seconds", o.seconds);
            cJSON_AddNumberToObject(j, "f", o.f);
            cJSON_AddNumberToObject(j, "g", o.g);
            cJSON_AddNumberToObject(j, "f_lower", o.f_lower);
            cJSON_AddNumberToObject(j, "outer_gap", o.outer_gap);
            cJSON_AddNumberToObject(j, "inner_gap", o.inner_gap);
            study_printf(doc, "| %s | (%.0e, %.0e) | %s | %lld | %.2f | %+.2e | %.2e | %s |\n",
                         M[m].name, TOL[k][0], TOL[k][1], ircg_status_string(o.status),
                         (long long)o.iterations, o.seconds, rel, gap,
                         o.f_lower <= s->f_opt ? "yes" : "**no**");
        }
    return 0;
}

int study_selection(cJSON *out, study_doc *doc, const char *dir)
{
    (void)dir;
    static const char *const NAMES[4] = {"IR-CG, open loop", "IR-CG, line search",
                                         "CG on g, open loop", "CG on g, line search"};
    sel_inst s;
    sel_run_out r[4];
    if (!sel_make(&s, N, N, NR, 7))
        return -1;
    cJSON *inst = cJSON_AddObjectToObject(out, "instance");
    cJSON_AddNumberToObject(inst, "n_rows", N);
    cJSON_AddNumberToObject(inst, "n_cols", N);
    cJSON_AddNumberToObject(inst, "ratings", NR);
    cJSON_AddNumberToObject(inst, "seed", 7);
    cJSON_AddNumberToObject(inst, "nuclear_norm_of_fill", s.nuc_fill);
    cJSON_AddNumberToObject(inst, "delta", s.delta);
    cJSON_AddNumberToObject(inst, "f_opt", s.f_opt);
    cJSON_AddNumberToObject(inst, "g_of_zero", s.g_zero);
    cJSON_AddNumberToObject(out, "iterations", T);
    cJSON *runs = cJSON_AddArrayToObject(out, "runs");
    study_printf(doc, "| method | iterations | g(x_T) | g(x_T) / g(0) | f(x_T) | f(x_T) - f* | "
                      "f at IR-CG's final g |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: "
                      "|\n");
    int rc = 0;
    for (int k = 0; k < 4; k++)
        if (sel_run(&s, k < 2 ? 1.0 : 0.0,
                    k % 2 ? IRCG_STEP_LINE_SEARCH : IRCG_STEP_OPEN_LOOP, T, &r[k]) != 0)
            rc = -1;
    for (int k = 0; rc == 0 && k < 4; k++) {
        int64_t t_at = -1;
        double fm = k < 2 ? NAN : f_at_g(&r[k], r[k - 2].g, &t_at);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(runs, o);
        cJSON_AddStringToObject(o, "method", NAMES[k]);
        cJSON_AddNumberToObject(o, "g", r[k].g);
        cJSON_AddNumberToObject(o, "f", r[k].f);
        cJSON_AddNumberToObject(o, "f_minus_f_opt", r[k].f - s.f_opt);
        cJSON_AddNumberToObject(o, "seconds", r[k].seconds);
        cJSON_AddNumberToObject(o, "iterations", (double)r[k].T);
        cJSON_AddBoolToObject(o, "converged", r[k].converged);
        if (k >= 2 && t_at > 0) {
            cJSON_AddNumberToObject(o, "iteration_at_ircg_g", (double)t_at);
            cJSON_AddNumberToObject(o, "f_at_ircg_g", fm);
        }
        char fm_s[64] = "-";
        if (k >= 2 && t_at > 0)
            snprintf(fm_s, sizeof fm_s, "%.6g (t = %lld)", fm, (long long)t_at);
        char its[48];
        snprintf(its, sizeof its, "%lld%s", (long long)r[k].T,
                 r[k].converged ? " (converged)" : "");
        study_printf(doc, "| %s | %s | %.3g | %.2g | %.6g | %+.4g | %s |\n", NAMES[k], its,
                     r[k].g, r[k].g / s.g_zero, r[k].f, r[k].f - s.f_opt, fm_s);
    }
    for (int k = 0; k < 4; k++)
        sel_run_free(&r[k]);
    if (rc == 0)
        rc = stated(out, doc, &s);
    sel_free(&s);
    return rc;
}
