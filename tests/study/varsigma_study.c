/*
 * varsigma_study.c -- `study varsigma`: the constant of IR-CG's default,
 * varsigma_rel, chosen over a grid (api/SPEC.md, "The scale-free
 * varsigma").  Every instance of `study scale` (scale.h; breast-cancer
 * too, at the budget of the other vector instances; the paper's instance
 * when STUDY_RATINGS names the MovieLens 1M file), both step rules, at
 * c = 1: the relative varsigma's iterates do not depend on the units
 * (test_scale.c), so one scale measures them all.
 *
 * Each run is scored by its error at the end,
 *   e = max(1, inner / 1e-6, outer / 1e-3),
 * inner the certified inner gap over g(x_0) - g_upper and outer |f - f*| /
 * |f*| (scale.h's tolerances: e = 1 when the run reached both).  The
 * criterion:
 *   1. the most runs reaching both tolerances, counting as tied every
 *      value within one run of the most (one run is the noise of a grid:
 *      the neighbouring value often gets it);
 *   2. among those, the least geometric mean of e over the runs of the
 *      instances where f selects (overparam-regression, portfolio,
 *      breast-cancer: many inner solutions, among which the start does
 *      not already choose): how far from f* the method ends where the
 *      outer objective is the point;
 *   3. then the least geometric mean of the iterations of those that
 *      reached.
 * On the other instances f follows g whatever sigma (one inner solution:
 * logistic, matrix completion; least-norm from 0, whose iterates stay in
 * A's row space, where conditional gradient on g alone finds A^+ b), so a
 * smaller sigma is faster there, down to 0.  Step 2 was first written
 * over all runs; it then chose the grid's least value, 1e-5: conditional
 * gradient on g nearly alone, which leaves the selecting instances 1e-2
 * to 1 away from f*.  The summary shows both means.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "study/scale.h"
#include "study/study.h"

static const double REL_GRID[] = {1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2,
                                  5e-2, 0.1, 0.3, 1, 3, 10, 30};
#define NREL ((int)(sizeof REL_GRID / sizeof REL_GRID[0]))

static double run_error(const sc_run *r)
{
    if (r->iterations >= 0)
        return 1;
    double e = fmax(r->inner_rel / 1e-6, r->outer_rel / 1e-3);
    return isfinite(e) ? fmax(1, e) : 1e12; /* an end without a certificate */
}

typedef struct rel_score {
    int reached, nsel;
    double log_err, log_sel, log_iter; /* sums: over every run; over the runs
                                         where f selects; over those that reached */
} rel_score;

/* The instances where f selects among many inner solutions that the start
 * does not already choose (see above). */
static int selects(sc_kind k)
{
    return k == SC_OVERPARAM || k == SC_PORTFOLIO || k == SC_CANCER;
}

/* The index of the value the criterion (above) chooses. */
static int rel_choice(const rel_score *sc, int nruns)
{
    int most = 0, best = -1;
    for (int k = 0; k < NREL; k++)
        most = sc[k].reached > most ? sc[k].reached : most;
    for (int k = 0; k < NREL; k++) {
        if (sc[k].reached < most - 1)
            continue;
        if (best < 0) {
            best = k;
            continue;
        }
        double e = sc[k].nsel ? sc[k].log_sel / sc[k].nsel : sc[k].log_err / nruns;
        double eb = sc[best].nsel ? sc[best].log_sel / sc[best].nsel : sc[best].log_err / nruns;
        double it = sc[k].reached ? sc[k].log_iter / sc[k].reached : INFINITY;
        double ib = sc[best].reached ? sc[best].log_iter / sc[best].reached : INFINITY;
        if (e < eb - 1e-12 || (fabs(e - eb) <= 1e-12 && it < ib))
            best = k;
    }
    return best;
}

static cJSON *run_json(const sc_run *r, double rel, double e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "varsigma_rel", rel);
    study_run_members(o, r);
    cJSON_AddNumberToObject(o, "outer_signed_end", r->outer_signed);
    cJSON_AddNumberToObject(o, "error", e);
    return o;
}

/* One instance, both step rules, every value: rows of the table, scores. */
static int one_instance(const sc_inst *s, cJSON *arr, study_doc *rows, rel_score *sc,
                        int *nruns)
{
    int64_t T = s->R ? 3000 : 20000;
    printf("  %s: varsigma_rel over %d values, %lld iterations\n", s->name, NREL,
           (long long)T);
    fflush(stdout);
    for (int r = 0; r < 3; r += 2) {
        cJSON *o = cJSON_CreateObject(), *ra = cJSON_AddArrayToObject(o, "runs");
        cJSON_AddStringToObject(o, "instance", s->name);
        cJSON_AddStringToObject(o, "step_rule", r ? "line search" : "open loop");
        cJSON_AddBoolToObject(o, "f_selects", selects(s->kind));
        cJSON_AddNumberToObject(o, "f_star", s->fstar);
        cJSON_AddNumberToObject(o, "max_iter", (double)T);
        cJSON_AddItemToArray(arr, o);
        study_printf(rows, "| %s | %s |", s->name, r ? "line search" : "open loop");
        for (int k = 0; k < NREL; k++) {
            sc_run run;
            if (sc_solve_rel(s, 1, REL_GRID[k], (ircg_step_rule)r, T, &run) != 0)
                return -1;
            double e = run_error(&run);
            cJSON_AddItemToArray(ra, run_json(&run, REL_GRID[k], e));
            sc[k].log_err += log(e);
            if (selects(s->kind)) {
                sc[k].log_sel += log(e);
                sc[k].nsel++;
            }
            if (run.iterations >= 0) {
                sc[k].reached++;
                sc[k].log_iter += log((double)(run.iterations > 0 ? run.iterations : 1));
                study_printf(rows, " %lld |", (long long)run.iterations);
            } else {
                study_printf(rows, " (%.0e) |", e);
            }
        }
        (*nruns)++;
        study_printf(rows, "\n");
    }
    return 0;
}

static void summary(cJSON *g, study_doc *doc, const rel_score *sc, int nruns)
{
    int pick = rel_choice(sc, nruns);
    cJSON *sum = cJSON_AddArrayToObject(g, "summary");
    study_printf(doc, "\nBy value, over the %d runs: how many reached both, the geometric mean "
                      "of e (1 where reached) over all of them and over the %d runs of the "
                      "instances where f selects, and that of the iterations of those that "
                      "reached; the "
                      "value chosen in bold:\n\n"
                      "| varsigma_rel | reached | geometric mean of e | where f selects | "
                      "geometric mean of iterations |\n| ---: | ---: | ---: | ---: | ---: |\n",
                 nruns, sc[0].nsel);
    for (int k = 0; k < NREL; k++) {
        double ge = exp(sc[k].log_err / nruns);
        double gs = sc[k].nsel ? exp(sc[k].log_sel / sc[k].nsel) : NAN;
        double gi = sc[k].reached ? exp(sc[k].log_iter / sc[k].reached) : NAN;
        cJSON *j = cJSON_CreateObject();
        cJSON_AddNumberToObject(j, "varsigma_rel", REL_GRID[k]);
        cJSON_AddNumberToObject(j, "reached", sc[k].reached);
        cJSON_AddNumberToObject(j, "geomean_error", ge);
        cJSON_AddNumberToObject(j, "geomean_error_selecting", gs);
        if (sc[k].reached)
            cJSON_AddNumberToObject(j, "geomean_iterations", gi);
        else
            cJSON_AddNullToObject(j, "geomean_iterations");
        cJSON_AddItemToArray(sum, j);
        const char *b = k == pick ? "**" : "";
        if (sc[k].reached)
            study_printf(doc, "| %s%g%s | %d | %.3g | %.3g | %.4g |\n", b, REL_GRID[k], b,
                         sc[k].reached, ge, gs, gi);
        else
            study_printf(doc, "| %s%g%s | 0 | %.3g | %.3g | - |\n", b, REL_GRID[k], b, ge, gs);
    }
    cJSON_AddNumberToObject(g, "runs_per_value", nruns);
    cJSON_AddNumberToObject(g, "chosen", REL_GRID[pick]);
    ircg_settings st;
    ircg_settings_default(&st);
    cJSON_AddNumberToObject(g, "default_now", st.varsigma_rel);
}

int study_varsigma(cJSON *out, study_doc *doc, const char *dir)
{
    (void)dir;
    const char *ratings = getenv("STUDY_RATINGS"); /* the MovieLens 1M file, optional */
    rel_score sc[NREL] = {{0}};
    study_doc rows = {0};
    int nruns = 0, rc = 0;
    cJSON *vals = cJSON_AddArrayToObject(out, "values"), *arr = cJSON_AddArrayToObject(out, "runs");
    for (int k = 0; k < NREL; k++)
        cJSON_AddItemToArray(vals, cJSON_CreateNumber(REL_GRID[k]));
    cJSON_AddStringToObject(out, "inner_target", "certified g(x) - g* <= 1e-6 (g(x0) - g_upper)");
    cJSON_AddStringToObject(out, "outer_target", "|f(x) - f*| <= 1e-3 |f*|");
    cJSON_AddStringToObject(out, "criterion",
                            "the most runs reaching both tolerances (values within one run of "
                            "the most tie); then the least geometric mean of the end error e "
                            "over the runs of the instances where f selects; then the least "
                            "geometric mean of the iterations of those that reached");
    study_printf(&rows, "| instance | steps |");
    for (int k = 0; k < NREL; k++)
        study_printf(&rows, " %g |", REL_GRID[k]);
    study_printf(&rows, "\n| --- | --- |");
    for (int k = 0; k < NREL; k++)
        study_printf(&rows, " ---: |");
    study_printf(&rows, "\n");
    for (int kind = 0; kind < SC_NKIND && rc == 0; kind++) {
        sc_inst s;
        const char *file = kind == SC_MC_PAPER ? ratings
                           : kind == SC_CANCER ? SC_CANCER_CSV : NULL;
        if (kind == SC_MC_PAPER && !ratings) {
            study_printf(&rows, "| paper-movielens | | not run: no STUDY_RATINGS file |\n");
            continue;
        }
        if (sc_make(&s, (sc_kind)kind, file) != 0) {
            if (kind != SC_CANCER) {
                rc = -1;
                break;
            }
            study_printf(&rows, "| breast-cancer | | not run: its data is absent "
                                "(python3-sklearn) |\n");
            continue;
        }
        rc = one_instance(&s, arr, &rows, sc, &nruns);
        sc_free(&s);
    }
    if (rc == 0) {
        study_printf(doc, "Each run: the iterations to both tolerances, or (e) its error where it "
                          "ended, after 20000 iterations (3000 on matrix completion):\n\n%s",
                     rows.text ? rows.text : "");
        summary(out, doc, sc, nruns);
    }
    study_doc_free(&rows);
    return rc;
}
