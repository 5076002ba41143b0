/*
 * sto_rates.h -- the rates of the follow-up paper's theorems for its
 * stochastic methods, measured on the finite sums of Example 1 (rates.h:
 * the least-squares form g = 1/2 ||sqrt2 B x - sqrt2 B y||^2, a sum over
 * the m rows of sqrt2 B, with g* = 0, f = 1/2 ||x - c||^2 and f* known in
 * closed form): IR-SCG with p = 1/4 (its convex theorem: O(t^-1/4) for the
 * inner and the outer gap of z_t) and IR-FSCG with p = 1/2 (O(t^-1/2)).
 * The gaps of z_t, averaged over seeds (the theorems bound them with high
 * probability): the inner one's slope against log(t+1) over t in
 * [T/20, T]; the outer one, f(z_t) - f*, is bounded above only (z_t below
 * f* is not yet inner-optimal, which the inner gap measures), so its check
 * is an envelope: (f(z_t) - f*)^+ (t+1)^rate over [T/20, T] against its
 * largest value before T/20, which the theorem's rate keeps bounded.
 *
 * Used by tests/unit/solver/core/test_sto_rates.c (the assertions) and the
 * study program (its table).
 */
#ifndef IRCG_STUDY_STO_RATES_H
#define IRCG_STUDY_STO_RATES_H

#include "study/rates.h"

typedef struct sr_result {
    ircg_algorithm alg;
    double p, exponent;       /* the theorem's rate: 1/4 or 1/2           */
    int64_t T, batch;
    int seeds;
    double slope_g;           /* fitted -d log(g(z_t) - g*) / d log(t+1)   */
    double envelope;          /* max over [T/20, T] of (f(z_t) - f*)^+
                                 (t+1)^rate over its max before T/20: <= 1
                                 when the rate holds with that constant  */
    double g_T, f_T;          /* mean g(z_T) - g*, f(z_T) - f* (signed)   */
} sr_result;

/* alg on in for T iterations from `seeds` seeds (batch 0: the method's
 * default, q its default); 0, or -1 when the solver could not run. */
int sr_run(const rq_inst *in, ircg_algorithm alg, int64_t T, int seeds, int64_t batch,
           sr_result *out);

#endif /* IRCG_STUDY_STO_RATES_H */
