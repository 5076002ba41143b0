/*
 * directions_study.c -- `study directions`: IR-CG's away-step and pairwise
 * directions against its Frank-Wolfe steps (directions.h) on the examples
 * over the polytopes: each method run to the certified tolerances
 * (inner_gap_rel, outer_gap_rel) = (1e-6, 1e-3) with a certificate every
 * 100 iterations, or BUDGET seconds.  The table: the status, the
 * iterations and seconds it took (or ran), and where its last certificate
 * left the two relative gaps and f.
 */
#include <math.h>
#include <stdio.h>

#include "study/directions.h"
#include "study/study.h"

#define BUDGET 30.0 /* seconds a run */

static const char *status_name(ircg_status st)
{
    return st == IRCG_STATUS_CONVERGED ? "converged"
           : st == IRCG_STATUS_TIME_LIMIT ? "time limit" : ircg_status_string(st);
}

int study_directions(cJSON *out, study_doc *doc, const char *dir)
{
    (void)dir;
    cJSON_AddNumberToObject(out, "budget_seconds", BUDGET);
    cJSON_AddNumberToObject(out, "inner_gap_rel", 1e-6);
    cJSON_AddNumberToObject(out, "outer_gap_rel", 1e-3);
    cJSON_AddNumberToObject(out, "certify_every", 100);
    cJSON *arr = cJSON_AddArrayToObject(out, "runs");
    study_printf(doc, "| instance | method | status | iterations | seconds | inner gap / "
                      "(g(x_0) - g_upper) | outer gap / max(\\|f\\|, \\|f_lower\\|) | f(x) | "
                      "f_lower |\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int k = 0; k < DR_NKIND; k++) {
        dr_inst s;
        if (dr_make(&s, (dr_kind)k) != 0)
            return -1;
        for (int me = 0; me < DR_NMETHOD; me++) {
            dr_result r;
            printf("  %s, %s ...\n", s.name, dr_methods[me].label);
            fflush(stdout);
            if (dr_run(&s, &dr_methods[me], BUDGET, INT64_C(1) << 40, &r) != 0) {
                dr_free(&s);
                return -1;
            }
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "instance", s.name);
            cJSON_AddStringToObject(o, "method", dr_methods[me].label);
            cJSON_AddStringToObject(o, "status", status_name(r.status));
            cJSON_AddNumberToObject(o, "iterations", (double)r.iterations);
            cJSON_AddNumberToObject(o, "seconds", r.seconds);
            cJSON_AddNumberToObject(o, "inner_gap_rel", r.inner_rel);
            cJSON_AddNumberToObject(o, "outer_gap_rel", r.outer_rel);
            cJSON_AddNumberToObject(o, "f", r.f);
            cJSON_AddNumberToObject(o, "f_lower", r.f_lower);
            cJSON_AddItemToArray(arr, o);
            study_printf(doc, "| %s | %s | %s | %lld | %.3g | %.2e | %.2e | %.6g | %.6g |\n",
                         s.name, dr_methods[me].label, status_name(r.status),
                         (long long)r.iterations, r.seconds, r.inner_rel, r.outer_rel, r.f,
                         r.f_lower);
        }
        dr_free(&s);
    }
    return 0;
}
