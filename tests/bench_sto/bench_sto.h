/* bench_sto.h -- what bench_sto.c's parts share: the options of the
 * command line, and the follow-up paper's experiment
 * (bench_sto_followup.c). */
#ifndef IRCG_BENCH_STO_H
#define IRCG_BENCH_STO_H

typedef struct opts {
    char sizes[64], cols[64], problems[32], tmp[512];
    double budget, fu_budget, fu_radius;
    int reader, followup, instances;
} opts;

/* Part 3 of bench_sto.c's header: IR-SCG and IR-FSCG on the instance of
 * `ircg example overparam-stochastic` for o->fu_budget seconds each, its
 * tables on stdout and its plots in o->tmp. */
void bench_followup(const opts *o);

#endif
