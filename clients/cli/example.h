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
    const char *algorithm;  /* NULL = ircg                                  */
    const char *step_rule;  /* NULL = open_loop (ircg only)                 */
    const char *projection; /* NULL = the library's default (irpg, bisg)    */
    long long max_iter;     /* 0 = the example's own                        */
    const char *size;       /* "small" | "full" | NULL (= full)             */
    int small;
    int list;               /* --list: the names, one a line               */
} ex_opts;

/* The "algorithm" section: only the members of the chosen algorithm. */
cJSON *ex_algorithm(const ex_opts *o, long long max_iter, double time_limit);
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

#endif /* IRCG_CLI_EXAMPLE_H */
