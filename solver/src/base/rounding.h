/*
 * rounding.h -- the constants of the standard model of floating-point
 * arithmetic, for the certificates' error bounds (Higham, "Accuracy and
 * Stability of Numerical Algorithms", 2nd ed., chapter 3).
 *
 * Every operation of IEEE double arithmetic (round to nearest) gives
 * fl(a op b) = (a op b)(1 + d), |d| <= u = 2^-53, also with a fused
 * multiply-add.  A sum of k terms, in any order and grouping, errs by at
 * most gamma(k - 1) times the sum of their magnitudes, and a dot product
 * of length k by gamma(k) times sum |a_i b_i|, where
 * gamma(k) = k u / (1 - k u).  The bounds below are computed in floating
 * point themselves; slv_up inflates such a computed bound of a few
 * operations so that it stays a bound.  Underflow is not modelled: the
 * bounds assume the values of interest are normal numbers, or carry an
 * absolute allowance of a few DBL_TRUE_MIN where they are not.
 */
#ifndef IRCG_ROUNDING_H
#define IRCG_ROUNDING_H

#include <float.h>
#include <stdint.h>

#define SLV_U (DBL_EPSILON / 2)

/* gamma(k) = k u / (1 - k u), for k u < 1/2 (else a bound of 1 is
 * meaningless anyway: returned as 1). */
static inline double slv_gamma(int64_t k)
{
    double ku = (double)k * SLV_U;
    return ku < 0.5 ? ku / (1.0 - ku) : 1.0;
}

/* x, computed with at most k roundings of its own, made a bound again:
 * x (1 + gamma(k + 1)), rounded up by one more relative u. */
static inline double slv_up(double x, int k)
{
    return x * (1.0 + slv_gamma(k + 2));
}

#endif /* IRCG_ROUNDING_H */
