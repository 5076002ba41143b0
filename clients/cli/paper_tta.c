/*
 * paper_tta.c -- the time-to-accuracy table of `ircg paper --time-to`:
 * tta.md in the output folder, the same table with how it was made as a
 * section (tta-section.md, which tests/paper/results.py puts into
 * tests/paper/RESULTS.md: the numbers there are written by a run, never by
 * hand) and, with --results-md, that section written into a file.  The
 * section lies between two marker comments; everything outside them is
 * kept.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "paper.h"

#define BEGIN_MARK "<!-- time-to-accuracy: begin"
#define END_MARK "<!-- time-to-accuracy: end -->"

double paper_load_average(void)
{
    double load = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf", &load) != 1)
        load = NAN;
    if (f)
        fclose(f);
    return load;
}

/* The table, one row per method. */
static int put_table(FILE *f, const paper_opts *o, const paper_run *runs, int nrun)
{
    int ok = fputs("| method |", f) >= 0;
    for (int k = 0; k < o->ntta; k++)
        ok &= fprintf(f, " g - g_opt <= %.0e |", o->tta[k]) > 0;
    ok &= fputs(" seconds per iteration | outcome |\n| --- |", f) >= 0;
    for (int k = 0; k < o->ntta; k++)
        ok &= fputs(" ---: |", f) >= 0;
    ok &= fputs(" ---: | --- |\n", f) >= 0;
    for (int i = 0; i < nrun; i++) {
        const paper_run *r = &runs[i];
        int all = 1;
        ok &= fprintf(f, "| %s |", r->method->label) > 0;
        for (int k = 0; k < o->ntta; k++) {
            if (isnan(r->tta_time[k]))
                ok &= fprintf(f, " not in %g s |", o->budget) > 0;
            else
                ok &= fprintf(f, " %.3g s (iteration %lld) |", r->tta_time[k],
                              (long long)r->tta_iter[k]) > 0;
            all &= !isnan(r->tta_time[k]);
        }
        double per = r->info.iterations > 0
                         ? (r->info.solve_seconds - r->info.warmup_seconds) /
                               (double)r->info.iterations
                         : NAN;
        ok &= fprintf(f, " %.3g | %s", per,
                      r->failed ? "failed" : all ? "reached" : "budget spent") > 0;
        if (!all && !r->failed)
            ok &= fprintf(f, ", best %.2e", r->best_gap) > 0;
        if (r->method->alg == IRCG_ALG_CGBIO)
            ok &= fprintf(f, "; warm start %lld iterations, %.2f s",
                          (long long)r->info.warmup_iterations, r->info.warmup_seconds) > 0;
        ok &= fputs(" |\n", f) >= 0;
    }
    return ok;
}

/* The command that makes the section again. */
static int put_command(FILE *f, const paper_opts *o, const paper_run *runs, int nrun)
{
    int ok = fprintf(f, "    ircg paper --ratings %s --budget %g --threads %d --time-to ",
                     o->ratings, o->budget, o->threads) > 0;
    for (int k = 0; k < o->ntta; k++)
        ok &= fprintf(f, "%s%.0e", k ? "," : "", o->tta[k]) > 0;
    ok &= fputs(" \\\n        --methods ", f) >= 0;
    for (int i = 0; i < nrun; i++)
        ok &= fprintf(f, "%s%s", i ? "," : "", runs[i].method->key) > 0;
    return ok && fprintf(f, " --out %s\n", o->out) > 0;
}

static int put_section(FILE *f, const paper_opts *o, const paper_run *runs, int nrun,
                       const ircg_reference *ref)
{
    ircg_reference_info ri;
    char day[32];
    time_t now = time(NULL);
    int ok;

    ircg_reference_get_info(ref, &ri);
    strftime(day, sizeof day, "%Y-%m-%d", gmtime(&now));
    ok = fprintf(f, BEGIN_MARK " (written by `make tta`: change the command, not "
                    "the text) -->\n## Time to accuracy\n\n"
                    "How long each method takes until its iterate first has an inner\n"
                    "gap g(x_t) - g_opt at most") > 0;
    for (int k = 0; k < o->ntta; k++)
        ok &= fprintf(f, "%s %.0e", k == 0 ? "" : k + 1 < o->ntta ? "," : " and", o->tta[k]) > 0;
    ok &= fprintf(f, ", on the instance, g_opt and\n"
                     "parameters of Table 1 (the paper's; IR-PG and Bi-SG with the exact\n"
                     "partial projection). The clock is the solver's: from the start of\n"
                     "the solve, CG-BiO's warm start included; reading the ratings and\n"
                     "computing g_opt are not. A method stops once it reached all, or\n"
                     "after %g s.\n\n", o->budget) > 0;
    ok &= fprintf(f, "Made on %s (%ld cores online, %d solver threads; the load\n"
                     "average was %.1f at the start and %.1f at the end: above the\n"
                     "core count, other work shared the cores and the times are\n"
                     "longer) by\n\n", day, sysconf(_SC_NPROCESSORS_ONLN), o->threads,
                  o->load_start, paper_load_average()) > 0;
    ok &= put_command(f, o, runs, nrun);
    ok &= fprintf(f, "\ng_opt = %.17g, certified gap %.2g.\n\n", ri.g_opt, ri.gap) > 0;
    ok &= put_table(f, o, runs, nrun);
    return ok && fputs("\n" END_MARK "\n", f) >= 0;
}

/* FILE with its section replaced by `section` (or appended), through a
 * temporary file renamed over it. */
static int update_results(const char *file, const char *section)
{
    size_t len = 0;
    char *text = cli_read_file(file, &len), tmp[4200];
    if (!text) /* said why */
        return -1;
    char *b = strstr(text, BEGIN_MARK), *e = b ? strstr(b, END_MARK) : NULL;
    size_t head = b && e ? (size_t)(b - text) : len;
    const char *tail = b && e ? e + strlen(END_MARK) : "";
    if (tail[0] == '\n')
        tail++;
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    FILE *f = fopen(tmp, "w");
    int ok = f && fwrite(text, 1, head, f) == head;
    if (ok && !(b && e) && head > 0 && text[head - 1] != '\n')
        ok = fputs("\n", f) >= 0;
    if (ok && !(b && e))
        ok = fputs("\n", f) >= 0;
    ok = ok && fputs(section, f) >= 0 && fputs(tail, f) >= 0;
    if (f && fclose(f) != 0)
        ok = 0;
    free(text);
    if (!ok || rename(tmp, file) != 0) {
        fprintf(stderr, "ircg paper: cannot write %s\n", file);
        remove(tmp);
        return -1;
    }
    printf("time to accuracy: the section of %s\n", file);
    return 0;
}

/* OUT/NAME holding text; 0 on success. */
static int write_out(const paper_opts *o, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", o->out, name);
    FILE *f = fopen(path, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok) {
        fprintf(stderr, "ircg paper: cannot write %s\n", path);
        return -1;
    }
    printf("time to accuracy: %s\n", path);
    return 0;
}

int paper_write_tta(const paper_opts *o, const paper_run *runs, int nrun,
                    const ircg_reference *ref)
{
    char *table = NULL, *section = NULL;
    size_t ntable = 0, nsection = 0;
    FILE *ft = open_memstream(&table, &ntable), *fs = open_memstream(&section, &nsection);
    int ok = ft && fs && put_table(ft, o, runs, nrun) && put_section(fs, o, runs, nrun, ref);
    if (ft && fclose(ft) != 0)
        ok = 0;
    if (fs && fclose(fs) != 0)
        ok = 0;
    int rc = -1;
    if (!ok)
        fprintf(stderr, "ircg paper: out of memory for the time-to-accuracy table\n");
    /* the section rendered once: tta-section.md is what tests/paper/results.py
     * puts into RESULTS.md (make paper, make tta), --results-md the same */
    else if (write_out(o, "tta.md", table) == 0 && write_out(o, "tta-section.md", section) == 0)
        rc = o->results_md ? update_results(o->results_md, section) : 0;
    free(table);
    free(section);
    return rc;
}
