/*
 * overparam_study.c -- `study overparam`: the trade-off curves of
 * over-parameterized regression (overparam.h) for IR-CG and CG-BiO: the
 * training loss g and the validation loss f against the iterations, on
 * m = 30 training rows, n = 100 unknowns and 100 validation rows of the
 * generator (noise 1, scaled by 1/sqrt(n)) over the l1 ball of radius
 * 1.25 ||x*||_1, 2 10^4 iterations per method.  Writes the curves
 * (overparam-KEY.dat, log-spaced iterations) and their gnuplot script
 * (overparam.gp: overparam.png, .svg).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/overparam.h"
#include "study/study.h"

enum { M = 30, N = 100, MV = 100, T = 20000, NCUT = 5 };
static const int64_t CUTS[NCUT] = {10, 100, 1000, 10000, 20000};
#define EPS_G 1e-2 /* CG-BiO's eps_g: its warm start ends at gap eps_g / 2 */

typedef struct op_method {
    const char *key, *label;
    ircg_algorithm alg;
    ircg_step_rule rule;
} op_method;

static const op_method METHODS[3] = {
    {"ircg-open", "IR-CG (open loop)", IRCG_ALG_IRCG, IRCG_STEP_OPEN_LOOP},
    {"ircg-ls", "IR-CG (line search)", IRCG_ALG_IRCG, IRCG_STEP_LINE_SEARCH},
    {"cgbio", "CG-BiO", IRCG_ALG_CGBIO, IRCG_STEP_OPEN_LOOP},
};

typedef struct op_trace {
    double *g, *f;
} op_trace;

static int record(void *user, const ircg_iter_info *it)
{
    op_trace *tr = user;
    if (it->t <= T) {
        tr->g[it->t] = it->g_x;
        tr->f[it->t] = it->f_x;
    }
    return 0;
}

static int run(const op_inst *P, const op_method *me, op_trace *tr, ircg_info *info)
{
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_settings_default(&s);
    s.algorithm = me->alg;
    s.step_rule = me->rule;
    s.varsigma = 1;
    s.max_iter = T;
    s.cgbio_eps_g = EPS_G;
    s.callback = record;
    s.callback_data = tr;
    int ok = ircg_solver_new(P->pb, &s, &sv, NULL) == IRCG_OK &&
             ircg_solve(sv, info) == IRCG_OK && info->iterations == T;
    ircg_solver_free(sv);
    return ok;
}

/* t, g, f - f* at about 200 log-spaced iterations. */
static int write_curve(const char *dir, const op_method *me, const op_trace *tr, double f_opt)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/overparam-%s.dat", dir, me->key);
    FILE *fp = fopen(path, "w");
    if (!fp)
        return -1;
    int ok = fprintf(fp, "# t training_loss validation_loss_minus_f_opt\n") > 0;
    int64_t last = 0;
    for (int i = 0; i <= 200; i++) {
        int64_t t = (int64_t)floor(pow((double)T, i / 200.0) + 0.5);
        if (t <= last)
            continue;
        last = t;
        ok &= fprintf(fp, "%lld %.17g %.17g\n", (long long)t, tr->g[t], tr->f[t] - f_opt) > 0;
    }
    return fclose(fp) == 0 && ok ? 0 : -1;
}

static int write_script(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/overparam.gp", dir);
    FILE *fp = fopen(path, "w");
    if (!fp)
        return -1;
    int ok = 1;
    for (int term = 0; term < 2; term++) {
        ok &= fprintf(fp, "%s", term ? "set terminal svg size 1300,520 font ',11'\n"
                                       "set output 'overparam.svg'\n"
                                     : "set terminal pngcairo size 1300,520 font ',11'\n"
                                       "set output 'overparam.png'\n"
                                       "set logscale xy\nset xlabel 'iteration t'\n"
                                       "set grid\nset key top right\n") > 0;
        ok &= fputs("set multiplot layout 1,2\n", fp) >= 0;
        for (int panel = 0; panel < 2; panel++) {
            ok &= fprintf(fp, "set ylabel '%s'\nplot ", panel ? "validation loss - f*"
                                                               : "training loss (g* = 0)") > 0;
            for (int k = 0; k < 3; k++)
                ok &= fprintf(fp, "%s'overparam-%s.dat' using 1:(%s) with lines lw 2 title '%s'",
                              k ? ", " : "", METHODS[k].key,
                              panel ? "$3 > 0 ? $3 : 1/0" : "$2", METHODS[k].label) > 0;
            ok &= fputs("\n", fp) >= 0;
        }
        ok &= fputs("unset multiplot\n", fp) >= 0;
    }
    return fclose(fp) == 0 && ok ? 0 : -1;
}

static void instance_json(cJSON *out, const op_inst *P)
{
    cJSON *o = cJSON_AddObjectToObject(out, "instance");
    cJSON_AddNumberToObject(o, "training_rows", M);
    cJSON_AddNumberToObject(o, "unknowns", N);
    cJSON_AddNumberToObject(o, "validation_rows", MV);
    cJSON_AddNumberToObject(o, "noise", 1);
    cJSON_AddNumberToObject(o, "seed", 1);
    cJSON_AddNumberToObject(o, "l1_radius", P->radius);
    cJSON_AddNumberToObject(o, "f_opt", P->f_opt);
    cJSON_AddNumberToObject(o, "f_of_pinv", P->f_pinv);
    cJSON_AddNumberToObject(out, "iterations", T);
    cJSON_AddNumberToObject(out, "cgbio_eps_g", EPS_G);
}

int study_overparam(cJSON *out, study_doc *doc, const char *dir)
{
    op_inst P;
    op_trace tr = {malloc((T + 1) * sizeof(double)), malloc((T + 1) * sizeof(double))};
    int rc = -1;
    if (!tr.g || !tr.f || !op_make(&P, M, N, MV, 1.0, 1, IRCG_DOMAIN_L1_BALL, 1 / sqrt(N)))
        goto done;
    instance_json(out, &P);
    cJSON *runs = cJSON_AddArrayToObject(out, "runs");
    study_printf(doc, "| method | quantity |");
    for (int c = 0; c < NCUT; c++)
        study_printf(doc, " t = %lld |", (long long)CUTS[c]);
    study_printf(doc, "\n| --- | --- |");
    for (int c = 0; c < NCUT; c++)
        study_printf(doc, " ---: |");
    study_printf(doc, "\n");
    rc = 0;
    for (int k = 0; k < 3 && rc == 0; k++) {
        ircg_info info;
        if (!run(&P, &METHODS[k], &tr, &info) ||
            write_curve(dir, &METHODS[k], &tr, P.f_opt) != 0) {
            rc = -1;
            break;
        }
        cJSON *o = cJSON_CreateObject(), *cut = cJSON_AddArrayToObject(o, "checkpoints");
        cJSON_AddItemToArray(runs, o);
        cJSON_AddStringToObject(o, "method", METHODS[k].label);
        cJSON_AddNumberToObject(o, "solve_seconds", info.solve_seconds);
        cJSON_AddNumberToObject(o, "warmup_iterations", (double)info.warmup_iterations);
        for (int q = 0; q < 2; q++) {
            study_printf(doc, "| %s | %s |", METHODS[k].label,
                         q ? "validation loss - f*" : "training loss");
            for (int c = 0; c < NCUT; c++)
                study_printf(doc, " %.3g |", q ? tr.f[CUTS[c]] - P.f_opt : tr.g[CUTS[c]]);
            study_printf(doc, "\n");
        }
        for (int c = 0; c < NCUT; c++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddItemToArray(cut, e);
            cJSON_AddNumberToObject(e, "t", (double)CUTS[c]);
            cJSON_AddNumberToObject(e, "training_loss", tr.g[CUTS[c]]);
            cJSON_AddNumberToObject(e, "validation_loss", tr.f[CUTS[c]]);
        }
    }
    if (rc == 0) {
        cJSON *cg = cJSON_GetArrayItem(runs, 2);
        study_printf(doc, "\nf* = %.6g (closed form), f(A^+ b) = %.6g: the validation loss "
                     "of another inner solution.  CG-BiO's iterations start after its warm "
                     "start, %.0f iterations of conditional gradient on g to a gap of "
                     "eps_g / 2 = %g.\n", P.f_opt, P.f_pinv,
                     cJSON_GetObjectItem(cg, "warmup_iterations")->valuedouble, EPS_G / 2);
        rc = write_script(dir);
    }
    op_free(&P);
done:
    free(tr.g);
    free(tr.f);
    return rc;
}
