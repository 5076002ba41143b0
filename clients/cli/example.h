/*
 * example.h -- the pieces of `ircg example` (cmd_example.c) shared with the
 * examples of the families beyond the paper's (examples_families.c).
 */
#ifndef IRCG_CLI_EXAMPLE_H
#define IRCG_CLI_EXAMPLE_H

#include <cJSON.h>
#include <stdint.h>

typedef struct ex_opts {
    const char *ratings;    /* paper-movielens; NULL = DEFAULT_RATINGS      */
    const char *data;       /* the literature's examples: a data file;
                               NULL = build/data/<its name> when there   */
    const char *algorithm;  /* NULL = ircg                                  */
    const char *step_rule;  /* NULL = open_loop (ircg only)                 */
    const char *projection; /* NULL = the library's default (irpg, bisg)    */
    long long max_iter;     /* 0 = the example's own                        */
    const char *size;       /* "small" | "full" | NULL (= full)             */
    int small;
    int list;               /* --list: the names, one a line               */
} ex_opts;

/* The "algorithm" section: only the members of the chosen algorithm
 * (--algorithm, else ircg, or else def for ex_algorithm_default). */
cJSON *ex_algorithm(const ex_opts *o, long long max_iter, double time_limit);
cJSON *ex_algorithm_default(const ex_opts *o, const char *def, long long max_iter,
                            double time_limit);
/* ||A^+ b||_2 and ||A^+ b||_1 of the generator's m x n instance (m <= n);
 * 0 when they cannot be computed. */
int ex_min_norm(int m, int n, double noise, uint64_t seed, double *l2, double *l1);
/* x > 0 rounded up to 2 significant digits (a radius that reads well). */
double ex_round_up(double x);

/* examples_families.c: over-parameterized regression (least squares with
 * the validation loss), logistic regression, least squares over the
 * simplex with the minimum-variance outer objective. */
cJSON *ex_overparam(const ex_opts *o);
cJSON *ex_logistic(const ex_opts *o);
cJSON *ex_portfolio(const ex_opts *o);

/* examples_literature.c: the instances of the bilevel literature (the
 * follow-up's over-parameterized regression, Bisec-BiO's minimum-norm
 * problem on YearPredictionMSD, logistic regression on a1a, CG-BiO's fair
 * classification on a9a): the data files when fetched, else synthetic
 * data of their shapes.  NULL after a message when they cannot be made. */
cJSON *ex_overparam_sto(const ex_opts *o);
cJSON *ex_min_norm_msd(const ex_opts *o);
cJSON *ex_logistic_a1a(const ex_opts *o);
cJSON *ex_fair_a9a(const ex_opts *o);

#endif /* IRCG_CLI_EXAMPLE_H */
