/*
 * brent.h -- Brent's minimizer of a scalar function on a bounded interval
 * (golden section with safeguarded parabolic steps; Brent 1973, Chapter 5,
 * the method of scipy.optimize.minimize_scalar(method="bounded") that the
 * paper uses for the multiplier of CG-BiO's cut, its Remark 3).
 *
 * Like scipy's version it never evaluates the end points.  For a unimodal f
 * it stops when the minimizer is bracketed to within 2 tol, with
 * tol = xrtol |x| + xatol / 3.
 */
#ifndef IRCG_BRENT_H
#define IRCG_BRENT_H

#include "ircg.h"

/* f(x); returns IRCG_OK or an error that stops the search. */
typedef ircg_error (*slv_scalar_fn)(void *ctx, double x, double *fx);

typedef struct slv_brent_out {
    double x, fx;    /* the best point evaluated and its value             */
    int evaluations;
    int converged;   /* the bracket met the tolerance before max_eval      */
} slv_brent_out;

/* Minimize f over [a, b] (a < b), at most max_eval evaluations. */
ircg_error slv_brent_min(slv_scalar_fn f, void *ctx, double a, double b,
                          double xrtol, double xatol, int max_eval,
                          slv_brent_out *out);

#endif /* IRCG_BRENT_H */
