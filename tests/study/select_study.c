/*
 * select_study.c -- `study selection`: the selection instance of
 * select.h at 50 x 50 with 600 ratings, IR-CG (varsigma 1, p 1/2) and
 * conditional gradient on g alone (varsigma 0), open loop and line search,
 * 10^4 iterations each; f and f - f* at the end, and, for conditional
 * gradient, f at the first iterate whose g is as small as IR-CG's final g
 * (the same inner accuracy).
 */
#include <math.h>
#include <stdio.h>

#include "study/select.h"
#include "study/study.h"

enum { N = 50, NR = 600, T = 10000 };

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
    sel_free(&s);
    return rc;
}
