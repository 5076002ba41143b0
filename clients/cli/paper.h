/*
 * paper.h -- the pieces of `ircg paper` (cmd_paper.c): running one method
 * of the paper's Table 1 and writing the table, Figure 1 and the summary.
 */
#ifndef IRCG_CLI_PAPER_H
#define IRCG_CLI_PAPER_H

#include <cJSON.h>

#include "ircg.h"

#define PAPER_MAX_TTA 4

typedef struct paper_opts {
    const char *ratings, *out, *methods; /* methods NULL = all           */
    double budget;                       /* seconds per method            */
    double delta;
    int threads;
    double gopt_tol;
    /* --time-to: the accuracies (g(x_t) - g_opt) whose first reach is timed;
     * a method stops once it reached them all (ntta = 0: the paper's runs) */
    double tta[PAPER_MAX_TTA];
    int ntta;
    const char *results_md; /* --results-md: the file whose time-to-accuracy
                               section is written (NULL: none)            */
    double load_start;      /* the 1-minute load average when it started   */
} paper_opts;

typedef struct paper_method {
    const char *key;      /* file names and --methods                       */
    const char *label;    /* as in the paper's legend                       */
    ircg_algorithm alg;
    ircg_step_rule rule;
    ircg_projection proj;
    int paper_iters;      /* Table 1 of the paper: iterations in 600 s     */
} paper_method;

typedef struct paper_run {
    const paper_method *method;
    ircg_info info;
    double best_gap, f_at_best; /* best g(x_t) - g_opt and f(x_t) there     */
    double best_time;           /* when it was found                        */
    int failed;                 /* the run stopped on an error (reported)   */
    double tta_time[PAPER_MAX_TTA]; /* first time g - g_opt <= tta[k], NaN:
                                       not within the budget              */
    int64_t tta_iter[PAPER_MAX_TTA];
} paper_run;

/* Runs one method for opts->budget seconds, writing trace-KEY.csv and
 * best-KEY.dat into opts->out; 0 on success (a cancel is a success with
 * status cancelled), -1 with a message on stderr. */
int paper_run_method(const ircg_problem *pb, const ircg_reference *ref,
                     const paper_opts *opts, const volatile int *cancel,
                     paper_run *run);

/* table1.md, fig1.gp (and fig1.png, fig1.svg when gnuplot is installed)
 * and summary.json; 0 on success. */
int paper_write_outputs(const paper_opts *opts, const paper_run *runs, int nrun,
                        cJSON *summary);

/* paper_tta.c: the 1-minute load average (NaN when unknown) */
double paper_load_average(void);
/* tta.md (the table) and tta-section.md (the section, with how it was
 * made) in opts->out and, with opts->results_md, that section in that
 * file (between its markers, added at the end when absent); 0 on success. */
int paper_write_tta(const paper_opts *opts, const paper_run *runs, int nrun,
                    const ircg_reference *ref);

#endif /* IRCG_CLI_PAPER_H */
