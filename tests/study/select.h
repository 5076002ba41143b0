/*
 * select.h -- a bilevel problem whose answer depends on the outer
 * objective: matrix completion with a nuclear radius so large that many
 * completions fit the observed ratings exactly.
 *
 * The instance: the generator's ratings (n x p, nr of them), and delta =
 * 1.1 ||X_fill||_*, where X_fill keeps the observed ratings and fills each
 * column with the mean of its observed ones.  X_fill fits every rating,
 * so g* = 0 and X_opt = {X : P_Omega X = M_Omega, ||X||_* <= delta}, a large
 * set.  The outer f(X) = 1/2 ||U X||_F^2 is separable by columns, and a
 * column's variance with its observed entries fixed is least when the
 * others equal their mean: f* = 1/2 sum_j sum_(i in Omega_j)
 * (M_ij - mean_j)^2, attained by X_fill, which lies in X_opt.  (Computed
 * here with LAPACK and sums, not with the library.)
 *
 * Used by tests/unit/solver/core/test_selection.c and `study selection`.
 */
#ifndef IRCG_STUDY_SELECT_H
#define IRCG_STUDY_SELECT_H

#include <stdint.h>

#include "ircg.h"

typedef struct sel_inst {
    int n, p;
    ircg_ratings *R;
    double delta, nuc_fill, f_opt;
    double g_zero;          /* g(0) = 1/2 ||M_Omega||^2: the scale of g  */
    ircg_problem *pb;
} sel_inst;

int sel_make(sel_inst *s, int n, int p, int64_t nr, uint64_t seed);
void sel_free(sel_inst *s);

typedef struct sel_run_out {
    int64_t T;              /* the iterations run: the limit asked for, or
                               fewer when the run converged               */
    int converged;          /* its certificate found an exact answer     */
    double g, f;            /* at x_T (g* = 0)                            */
    double seconds;
    double *g_t, *f_t;      /* every iteration (T + 1 entries), owned     */
} sel_run_out;

/* IR-CG with sigma_t = vs (t+1)^-1/2 (vs = 0: conditional gradient on g
 * alone) and the rule, T iterations from the paper's X_0, or fewer when a
 * certificate shows an exact answer (status converged); 0 on success. */
int sel_run(const sel_inst *s, double vs, ircg_step_rule rule, int64_t T, sel_run_out *o);
void sel_run_free(sel_run_out *o);

/* A solve to a stated accuracy: the method's answer and its certificate. */
typedef struct sel_solve_out {
    ircg_status status;
    int64_t iterations;
    double seconds;
    double f, g;            /* the answer's (z for the bisection methods)  */
    double f_lower;         /* certified: f_lower <= f*                   */
    double outer_gap;       /* certified: f(answer) - f* <= outer_gap     */
    double inner_gap;       /* certified: g(answer) - g* <= inner_gap     */
} sel_solve_out;

/* alg with stop (inner_gap_rel, outer_gap_rel) and a time limit, no
 * iteration cap; 0 on success. */
int sel_solve(const sel_inst *s, ircg_algorithm alg, double inner_rel, double outer_rel,
              double seconds, sel_solve_out *o);

#endif /* IRCG_STUDY_SELECT_H */
