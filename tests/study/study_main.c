/*
 * study_main.c -- `study NAME --out DIR`: the measurements of
 * tests/paper/RESULTS.md beyond the paper's experiment, each written as
 * DIR/NAME.json (every number) and DIR/NAME.md (its table), which
 * tests/paper/results.py puts into RESULTS.md.  `make study` runs them all.
 *
 *   rates      the accelerated rates of Section 5 on Example 1 (rates.c,
 *              rates_study.c)
 *   selection  the outer objective selecting among many inner solutions
 *              (select.c, select_study.c)
 *   overparam  the trade-off curves of over-parameterized regression for
 *              IR-CG and CG-BiO (overparam.c, overparam_study.c)
 *   scale      the instances in other units (scale.c, scale_study.c)
 *   varsigma   the constant of the default varsigma_rel over a grid
 *              (varsigma_study.c)
 *   directions IR-CG's away-step and pairwise directions against its
 *              Frank-Wolfe steps on the polytopes' examples, to certified
 *              tolerances (directions.c, directions_study.c)
 */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/study.h"

static int usage(void)
{
    fputs("usage: study rates|selection|overparam|scale|varsigma|directions|all --out DIR\n", stderr);
    return 64;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *name = argc > 1 ? argv[1] : NULL;
    if (argc == 4 && !strcmp(argv[2], "--out"))
        out = argv[3];
    if (!name || !out)
        return usage();
    int all = !strcmp(name, "all"), ran = 0, rc = 0;
    for (const study_entry *e = study_entries; e->name; e++) {
        if (!all && strcmp(name, e->name))
            continue;
        ran++;
        printf("study %s ...\n", e->name);
        fflush(stdout);
        cJSON *j = cJSON_CreateObject();
        study_doc doc = {0};
        if (!j || study_mkdir(out) != 0 || e->run(j, &doc, out) != 0 ||
            study_write(out, e->name, j, &doc) != 0) {
            fprintf(stderr, "study %s failed\n", e->name);
            rc = 1;
        }
        study_doc_free(&doc);
        cJSON_Delete(j);
    }
    return ran ? rc : usage();
}
