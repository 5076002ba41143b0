/*
 * paper_output.c -- Table 1, Figure 1 and the summary of `ircg paper`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "paper.h"

static FILE *open_out(const paper_opts *o, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", o->out, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "ircg paper: cannot write %s\n", path);
    return f;
}

static int close_out(FILE *f, int ok)
{
    return fclose(f) == 0 && ok ? 0 : -1;
}

static int write_table(const paper_opts *o, const paper_run *runs, int nrun)
{
    FILE *f = open_out(o, "table1.md");
    int ok = f != NULL;

    if (!f)
        return -1;
    ok &= fprintf(f, "| method | iterations in %g s | paper (600 s) | seconds per "
                     "iteration | best g - g_opt | f there | outcome |\n"
                     "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n", o->budget) > 0;
    for (int i = 0; i < nrun; i++) {
        const paper_run *r = &runs[i];
        double per = r->info.iterations > 0
                         ? (r->info.solve_seconds - r->info.warmup_seconds) /
                               (double)r->info.iterations
                         : NAN;
        ok &= fprintf(f, "| %s | %lld | %d | %.3g | %.3e | %.6g | %s", r->method->label,
                      (long long)r->info.iterations, r->method->paper_iters, per,
                      r->best_gap, r->f_at_best,
                      r->failed ? "failed" : ircg_status_string(r->info.status)) > 0;
        if (r->method->alg == IRCG_ALG_CGBIO)
            ok &= fprintf(f, "; warm start %lld iterations, %.1f s",
                          (long long)r->info.warmup_iterations, r->info.warmup_seconds) > 0;
        if (r->info.proj_full + r->info.proj_partial > 0)
            ok &= fprintf(f, "; projections %lld partial, %lld full",
                          (long long)r->info.proj_partial, (long long)r->info.proj_full) > 0;
        ok &= fputs(" |\n", f) >= 0;
    }
    return close_out(f, ok);
}

/* Both panels of Figure 1 for the current terminal. */
static int write_panels(FILE *f, const paper_run *runs, int nrun)
{
    int ok = fputs("set multiplot layout 1,2\n"
                   "set logscale y\nset format y '10^{%L}'\n"
                   "set ylabel 'best g(x_t) - g_{opt} so far'\n", f) >= 0;
    for (int panel = 0; panel < 2; panel++) {
        if (panel == 1)
            ok &= fputs("unset logscale y\nset format y '%g'\n"
                        "set ylabel 'f(x_t) at that iterate'\n", f) >= 0;
        ok &= fputs("plot ", f) >= 0;
        for (int i = 0; i < nrun; i++)
            ok &= fprintf(f, "%s'best-%s.dat' using 1:(%s) with steps lw 2 title '%s'",
                          i ? ", \\\n     " : "", runs[i].method->key,
                          panel == 0 ? "$2 > 0 ? $2 : 1/0" : "$3",
                          runs[i].method->label) > 0;
        ok &= fputs("\n", f) >= 0;
    }
    return ok && fputs("unset multiplot\n", f) >= 0;
}

/* gnuplot fig1.gp in dir, without a shell (dir may hold any character);
 * a missing gnuplot is reported, not an error. */
static int run_gnuplot(const char *dir)
{
    int status = 0;
    pid_t pid;

    fflush(NULL);
    if ((pid = fork()) < 0)
        return -1;
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        execlp("gnuplot", "gnuplot", "fig1.gp", (char *)NULL);
        _exit(127);
    }
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        printf("gnuplot is not installed (`make deps-paper`): %s/fig1.gp was written "
               "but not run\n", dir);
        return 0;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "ircg paper: gnuplot fig1.gp in %s failed\n", dir);
        return -1;
    }
    printf("Figure 1: %s/fig1.png and %s/fig1.svg\n", dir, dir);
    return 0;
}

static int write_figure(const paper_opts *o, const paper_run *runs, int nrun)
{
    FILE *f = open_out(o, "fig1.gp");
    int ok = f != NULL;

    if (!f)
        return -1;
    ok &= fputs("# Figure 1 of the paper: run `gnuplot fig1.gp` in this folder.\n"
                "set xlabel 'time (s)'\nset key top right\nset grid\n"
                "set terminal pngcairo size 1500,560 font ',11'\n"
                "set output 'fig1.png'\n", f) >= 0;
    ok &= write_panels(f, runs, nrun);
    ok &= fputs("set terminal svg size 1500,560 font ',11'\nset output 'fig1.svg'\n", f) >= 0;
    ok &= write_panels(f, runs, nrun);
    if (close_out(f, ok) != 0)
        return -1;
    return run_gnuplot(o->out);
}

static int write_summary(const paper_opts *o, const paper_run *runs, int nrun,
                         cJSON *summary)
{
    cJSON *ms = cJSON_AddArrayToObject(summary, "methods");
    cJSON_AddStringToObject(summary, "ratings", o->ratings);
    cJSON_AddNumberToObject(summary, "budget_seconds", o->budget);
    cJSON_AddNumberToObject(summary, "delta", o->delta);
    for (int i = 0; i < nrun; i++) {
        const paper_run *r = &runs[i];
        cJSON *m = cJSON_CreateObject();
        cJSON_AddItemToArray(ms, m);
        cJSON_AddStringToObject(m, "key", r->method->key);
        cJSON_AddStringToObject(m, "label", r->method->label);
        cJSON_AddStringToObject(m, "status",
                                r->failed ? "failed" : ircg_status_string(r->info.status));
        cJSON_AddNumberToObject(m, "iterations", (double)r->info.iterations);
        cJSON_AddNumberToObject(m, "paper_iterations", r->method->paper_iters);
        cJSON_AddNumberToObject(m, "solve_seconds", r->info.solve_seconds);
        cJSON_AddNumberToObject(m, "oracle_seconds", r->info.lmo_seconds);
        cJSON_AddNumberToObject(m, "warmup_iterations", (double)r->info.warmup_iterations);
        cJSON_AddNumberToObject(m, "warmup_seconds", r->info.warmup_seconds);
        cJSON_AddNumberToObject(m, "projections_partial", (double)r->info.proj_partial);
        cJSON_AddNumberToObject(m, "projections_full", (double)r->info.proj_full);
        cJSON_AddNumberToObject(m, "best_g_gap", r->best_gap);
        cJSON_AddNumberToObject(m, "f_at_best", r->f_at_best);
        cJSON_AddNumberToObject(m, "best_found_at_seconds", r->best_time);
        cJSON_AddNumberToObject(m, "final_g_gap", r->info.g_gap_x);
        cJSON_AddNumberToObject(m, "final_f", r->info.f_x);
    }
    char *text = cJSON_Print(summary);
    FILE *f = text ? open_out(o, "summary.json") : NULL;
    int ok = f && fputs(text, f) >= 0 && fputs("\n", f) >= 0;
    free(text);
    return f ? close_out(f, ok) : -1;
}

int paper_write_outputs(const paper_opts *o, const paper_run *runs, int nrun,
                        cJSON *summary)
{
    if (write_table(o, runs, nrun) != 0 || write_summary(o, runs, nrun, summary) != 0 ||
        write_figure(o, runs, nrun) != 0)
        return -1;
    printf("Table 1: %s/table1.md\n", o->out);
    return 0;
}
