/*
 * paper_run.c -- one method of `ircg paper`: the paper's settings, the
 * budget as time limit, every iteration into trace-KEY.csv and the best
 * inner gap so far into best-KEY.dat (thinned to the points where it
 * improves, at most one per 1/2000 of the budget, so a figure of a 100,000
 * iteration run stays small; the last point is always kept).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "paper.h"
#include "result.h"

typedef struct run_state {
    paper_run *run;
    FILE *trace, *best;
    double spacing, last_written;
    int pending;               /* an improvement not yet written           */
    double p_time, p_gap, p_f; /* that improvement                         */
    int failed;                /* a write failed                           */
    const paper_opts *o;
    int reached;               /* accuracies of --time-to reached          */
} run_state;

static void write_best(run_state *s)
{
    if (fprintf(s->best, "%.6f %.17g %.17g\n", s->p_time, s->p_gap, s->p_f) < 0)
        s->failed = 1;
    s->last_written = s->p_time;
    s->pending = 0;
}

static int on_iter(void *user, const ircg_iter_info *it)
{
    run_state *s = user;
    paper_run *r = s->run;
    char row[1024];

    if (api_trace_csv_row(row, sizeof row, it) < 0 || fputs(row, s->trace) < 0)
        s->failed = 1;
    if (it->g_gap_x < r->best_gap || isnan(r->best_gap)) {
        r->best_gap = it->g_gap_x;
        r->f_at_best = it->f_x;
        r->best_time = it->elapsed;
        s->pending = 1;
        s->p_time = it->elapsed;
        s->p_gap = it->g_gap_x;
        s->p_f = it->f_x;
        if (it->elapsed - s->last_written >= s->spacing || it->t == 1)
            write_best(s);
    }
    for (int k = 0; k < s->o->ntta; k++)
        if (isnan(r->tta_time[k]) && it->g_gap_x <= s->o->tta[k]) {
            r->tta_time[k] = it->elapsed;
            r->tta_iter[k] = it->t;
            s->reached++;
        }
    /* stop rather than produce a silently short trace; and once every
     * accuracy of --time-to is reached */
    return s->failed || (s->o->ntta > 0 && s->reached == s->o->ntta);
}

static void settings_of(const paper_method *m, const paper_opts *o,
                        const ircg_reference *ref, const volatile int *cancel,
                        ircg_settings *st)
{
    ircg_settings_default(st); /* the paper's varsigma, p and baselines */
    st->algorithm = m->alg;
    st->step_rule = m->rule;
    st->projection = m->proj;
    st->max_iter = INT64_MAX / 2;
    st->time_limit = o->budget;
    st->threads = o->threads;
    st->reference = ref;
    st->cancel = cancel;
}

int paper_run_method(const ircg_problem *pb, const ircg_reference *ref,
                     const paper_opts *o, const volatile int *cancel, paper_run *run)
{
    char path[4096];
    ircg_settings st;
    ircg_solver *sv = NULL;
    ircg_diag diag = {0};
    run_state s = {.run = run, .spacing = o->budget / 2000, .last_written = -1, .o = o};
    int rc = -1;

    run->best_gap = run->f_at_best = run->best_time = NAN;
    for (int k = 0; k < PAPER_MAX_TTA; k++) {
        run->tta_time[k] = NAN;
        run->tta_iter[k] = -1;
    }
    snprintf(path, sizeof path, "%s/trace-%s.csv", o->out, run->method->key);
    s.trace = fopen(path, "w");
    snprintf(path, sizeof path, "%s/best-%s.dat", o->out, run->method->key);
    s.best = fopen(path, "w");
    if (!s.trace || !s.best || fputs(API_TRACE_CSV_HEADER, s.trace) < 0 ||
        fputs("# elapsed_s best_g_minus_g_opt f_at_best\n", s.best) < 0) {
        fprintf(stderr, "ircg paper: cannot write into %s\n", o->out);
        goto done;
    }
    settings_of(run->method, o, ref, cancel, &st);
    st.callback = on_iter;
    st.callback_data = &s;
    printf("%-20s running for %g s ...\n", run->method->label, o->budget);
    fflush(stdout);
    if (ircg_solver_new(pb, &st, &sv, &diag) != IRCG_OK) {
        fprintf(stderr, "ircg paper: %s: %s %s\n", run->method->key, diag.field, diag.message);
        goto done;
    }
    ircg_error err = ircg_solve(sv, &run->info);
    if (err != IRCG_OK) {
        fprintf(stderr, "ircg paper: %s: the solve failed: %s\n", run->method->key,
                ircg_error_string(err));
        goto done;
    }
    if (s.pending)
        write_best(&s);
    if (s.failed) {
        fprintf(stderr, "ircg paper: writing the trace of %s failed\n", run->method->key);
        goto done;
    }
    printf("%-20s %s after %lld iterations, %.1f s: best g - g_opt %.3e, f there %.6g\n",
           run->method->label, ircg_status_string(run->info.status),
           (long long)run->info.iterations, run->info.solve_seconds, run->best_gap,
           run->f_at_best);
    rc = 0;
done:
    if (s.trace && fclose(s.trace) != 0)
        rc = -1;
    if (s.best && fclose(s.best) != 0)
        rc = -1;
    ircg_solver_free(sv);
    return rc;
}
