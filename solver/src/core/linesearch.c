/*
 * linesearch.c -- the exact step along a curved direction: for a family
 * whose Phi_sigma = sigma f + g is convex but not quadratic along
 * d = v - x (logistic regression), the paper's line-search rule
 *   alpha = argmin_{a in [0, 1]} phi(a),   phi(a) = Phi_sigma(x + a d),
 * is the root of the nondecreasing phi' on [0, 1], or an end point.  The
 * oracle gives phi'(a) (oracle.h, slope) at O(observations) cost from the
 * margins it carries, so the root is bracketed and refined by the Illinois
 * variant of regula falsi (superlinear on smooth phi': both ends converge),
 * with a bisection whenever two secant points did not halve the bracket.
 */
#include <float.h>
#include <math.h>

#include "core/solver_internal.h"

/* Enough for the bracket to reach a few ulps of [0, 1] by bisection. */
#define LS_MAX_EVAL 100

double slv_line_search_1d(const slv_oracle_ops *ops, void *ws, double sigma,
                          double slope0, int *evaluations)
{
    double lo = 0, hi = 1, s_lo = slope0, s_hi, a, width_before = 2;
    int side = 0, n = 0, since = 0;

    if (!(slope0 < 0))
        return 0.0; /* not a descent direction: stay */
    s_hi = ops->slope(ws, sigma, 1.0);
    n++;
    if (!(s_hi > 0)) { /* phi decreases up to v (or a NaN: the full step) */
        if (evaluations)
            *evaluations = n;
        return 1.0;
    }
    /* s_lo < 0 < s_hi: the minimizer lies in (lo, hi) */
    while (n < LS_MAX_EVAL && hi - lo > 4 * DBL_EPSILON * hi) {
        a = lo - s_lo * (hi - lo) / (s_hi - s_lo);
        if (since == 2) { /* every second point: did the bracket halve? */
            if (hi - lo > 0.5 * width_before)
                a = 0.5 * (lo + hi);
            since = 0;
            width_before = hi - lo;
        }
        if (!(a > lo && a < hi)) /* rounding put the secant point outside */
            a = 0.5 * (lo + hi);
        since++;
        double s = ops->slope(ws, sigma, a);
        n++;
        if (s == 0) {
            lo = hi = a;
            break;
        }
        if (s < 0) {
            lo = a, s_lo = s;
            if (side < 0) /* the same end twice: halve the other's slope */
                s_hi *= 0.5;
            side = -1;
        } else {
            hi = a, s_hi = s;
            if (side > 0)
                s_lo *= 0.5;
            side = 1;
        }
    }
    if (evaluations)
        *evaluations = n;
    return 0.5 * (lo + hi);
}

double slv_step(const slv_oracle_ops *ops, void *ws, ircg_step_rule rule,
                int64_t t, double sigma, const slv_dir *d, double L_f, double L_g)
{
    if (d->curved && rule == IRCG_STEP_LINE_SEARCH)
        return slv_line_search_1d(ops, ws, sigma, d->gphi_d, NULL);
    return slv_step_size(rule, t, sigma, d, L_f, L_g);
}
