/*
 * rates.h -- the accelerated rates of Section 5 of the paper measured on
 * its own Example 1: g(x) = x'Ax - 2b'x over the unit l2 ball, A PSD,
 * b in col(A), with the outer f(x) = 1/2 ||x - c||^2.
 *
 * Everything the theorems need is computed here, independently of
 * libircg, from the instance's closed form: x*, g*, f*, the quadratic
 * growth constant kappa, G_f = ||grad f(x*)||, L_g = 2 lambda_max(A),
 * L_f = 1, D = 2, the constant W of the theorem under quadratic growth of g and
 * H of the theorem for strongly convex f and X.  The solver only runs IR-CG (on
 * the least-squares form 1/2 ||sqrt2 B x - sqrt2 B y||^2 = g + y'Ay with
 * B'B = A and A y = b) and reports g and f at every iteration.
 *
 * Used by tests/unit/solver/core/test_rates_qg.c (the assertions) and by the
 * study program (tests/study/study_main.c: the rate table of RESULTS.md).
 */
#ifndef IRCG_STUDY_RATES_H
#define IRCG_STUDY_RATES_H

#include <stdint.h>

#include "ircg.h"

enum { RQ_MAXN = 24 };

typedef enum rq_kind {
    RQ_QG = 0,   /* lambda_min(A) > 0, ||A^-1 b|| < 1: quadratic growth,
                    kappa = lambda_min(A) (and f, X strongly convex)      */
    RQ_NO_QG     /* A = u u', b = u: ||A^+ b|| = 1 with lambda_min = 0, the
                    case Example 1 excludes: g - g* grows like dist^4    */
} rq_kind;

typedef struct rq_inst {
    rq_kind kind;
    const char *name;
    int n, m;                     /* m = rank of A = rows of B              */
    double A[RQ_MAXN * RQ_MAXN];  /* Example 1's A (row-major)              */
    double B[RQ_MAXN * RQ_MAXN];  /* sqrt2 B, m x n: the least-squares A    */
    double bt[RQ_MAXN];           /* sqrt2 B y: the least-squares b         */
    double c[RQ_MAXN];            /* f = 1/2 ||x - c||^2                     */
    double xs[RQ_MAXN];           /* x* (X_opt = {x*} on both instances)    */
    double f_opt;                 /* f(x*); g* = 0 in the least-squares form */
    double kappa;                 /* quadratic growth; 0 when there is none */
    double G_f, L_f, L_g, D;
    double alpha_f, alpha_X;      /* strong convexity of f and of the ball  */
} rq_inst;

/* Instances of n variables (n <= RQ_MAXN), deterministic in seed. */
int rq_make(rq_inst *in, rq_kind kind, int n, uint64_t seed);

enum { RQ_FIT_POINTS = 64 };

typedef struct rq_result {
    double p, vs;
    ircg_step_rule rule;
    int64_t T;
    double W, H;            /* the theorems' constants (H: NaN unless run
                               with check_sc)                              */
    double g_rate, f_rate;  /* min{2p,1}, min{p,1-p} (thm QG)              */
    double f_rate_sc;       /* min{2/3, 1-2p/3, 2-2p} (thm SC)             */
    double slope_g, slope_f;/* fitted: -d log(g_t) / d log(t+1), and the
                               same for |f_t|, over t in [T/20, T]        */
    /* violations over t = 1..T (0 expected), and the largest lhs/rhs */
    int bad_g, bad_f, bad_f_sc, bad_lemma_f, bad_lemma_g;
    double ratio_g, ratio_f, ratio_f_sc, ratio_lemma_f, ratio_lemma_g;
    double g_T, f_T;        /* g(x_T) - g*, f(x_T) - f*                    */
} rq_result;

/* IR-CG with sigma_t = vs (t+1)^-p and the rule for T iterations, every
 * bound checked at every t >= 1: thm QG (when kappa > 0), its
 * the lemma bounding f and g, and with check_sc thm SC as well.  0 on
 * success, -1 when the solver could not run. */
int rq_run(const rq_inst *in, double p, double vs, ircg_step_rule rule, int64_t T,
           int check_sc, rq_result *out);

/* Least-squares slope of log y against log x over the points with y > 0
 * (NaN when fewer than 2). */
double rq_fit_slope(const double *x, const double *y, int n);

#endif /* IRCG_STUDY_RATES_H */
