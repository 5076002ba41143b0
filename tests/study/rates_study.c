/*
 * rates_study.c -- `study rates`: the rate table of RESULTS.md, from the
 * same runs as tests/unit/solver/core/test_rates_qg.c (rates.c): Example 1 with
 * and without quadratic growth, p in {1/3, 1/2, 2/3}, the three step rules,
 * varsigma = 1, T = 20000 iterations.
 */
#include <math.h>
#include <stdio.h>

#include "study/rates.h"
#include "study/study.h"

enum { N = 20, T = 20000 };
static const char *const RULES[3] = {"open loop", "closed loop", "line search"};

static void add_num(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static cJSON *instance_json(const rq_inst *in)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", in->name);
    cJSON_AddNumberToObject(o, "n", in->n);
    cJSON_AddNumberToObject(o, "rank_A", in->m);
    add_num(o, "kappa", in->kappa);
    add_num(o, "G_f", in->G_f);
    add_num(o, "L_g", in->L_g);
    add_num(o, "f_opt", in->f_opt);
    return o;
}

static cJSON *result_json(const rq_result *r)
{
    cJSON *o = cJSON_CreateObject();
    add_num(o, "p", r->p);
    cJSON_AddStringToObject(o, "rule", RULES[r->rule]);
    add_num(o, "W", r->W);
    add_num(o, "H", r->H);
    add_num(o, "theorem_g_exponent", r->g_rate);
    add_num(o, "theorem_f_exponent", r->f_rate);
    add_num(o, "theorem_f_exponent_sc", r->f_rate_sc);
    add_num(o, "slope_g", r->slope_g);
    add_num(o, "slope_abs_f", r->slope_f);
    add_num(o, "max_ratio_g", r->ratio_g);
    add_num(o, "max_ratio_f", r->ratio_f);
    add_num(o, "max_ratio_f_sc", r->ratio_f_sc);
    add_num(o, "max_ratio_lemma_f", r->ratio_lemma_f);
    add_num(o, "max_ratio_lemma_g", r->ratio_lemma_g);
    cJSON_AddNumberToObject(o, "violations", r->bad_g + r->bad_f + r->bad_f_sc +
                                                 r->bad_lemma_f + r->bad_lemma_g);
    add_num(o, "g_T", r->g_T);
    add_num(o, "f_T", r->f_T);
    return o;
}

static void row(study_doc *d, const char *inst, const rq_result *r, int qg)
{
    char sc[32] = "-", bounds[96] = "-";
    if (isfinite(r->H))
        snprintf(sc, sizeof sc, "%.2g", r->ratio_f_sc);
    if (qg)
        snprintf(bounds, sizeof bounds, "%.2g / %.2g / %.2f / %s / %d", r->ratio_g, r->ratio_f,
                 r->ratio_lemma_f, sc,
                 r->bad_g + r->bad_f + r->bad_f_sc + r->bad_lemma_f + r->bad_lemma_g);
    study_printf(d, "| %s | %.3g | %s | %.3f | %.3f | %.3f | %.3f | %s |\n", inst, r->p,
                 RULES[r->rule], r->slope_g, r->g_rate, r->slope_f, r->f_rate, bounds);
}

int study_rates(cJSON *out, study_doc *doc, const char *dir)
{
    (void)dir;
    static const double PS[3] = {1.0 / 3, 0.5, 2.0 / 3};
    static const char *const SHORT[2] = {"quadratic growth", "no quadratic growth"};
    cJSON *insts = cJSON_AddArrayToObject(out, "instances");
    cJSON_AddNumberToObject(out, "iterations", T);
    cJSON_AddNumberToObject(out, "varsigma", 1);
    cJSON_AddStringToObject(out, "fit", "least squares of log against log(t+1) at 64 "
                                        "log-spaced t in [T/20, T]");
    study_printf(doc, "| instance | p | step rule | slope of g | theorem | slope of abs f | "
                      "min{p,1-p} | largest lhs/rhs: g, f (thm QG) / lemma f / f (thm SC) "
                      "/ violations |\n"
                      "| --- | ---: | --- | ---: | ---: | ---: | ---: | --- |\n");
    for (int k = 0; k < 2; k++) {
        rq_inst in;
        if (!rq_make(&in, k == 0 ? RQ_QG : RQ_NO_QG, N, 5))
            return -1;
        cJSON *ij = instance_json(&in), *runs = cJSON_AddArrayToObject(ij, "runs");
        cJSON_AddItemToArray(insts, ij);
        for (int pi = 0; pi < 3; pi++)
            for (int rule = 0; rule < 3; rule++) {
                rq_result r;
                if (rq_run(&in, PS[pi], 1.0, (ircg_step_rule)rule, T, k == 0 && rule > 0,
                           &r) != 0)
                    return -1;
                cJSON_AddItemToArray(runs, result_json(&r));
                row(doc, SHORT[k], &r, k == 0);
            }
    }
    return 0;
}
