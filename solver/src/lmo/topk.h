/*
 * topk.h -- the top nsv singular triplets of an implicit operator, for
 * any nsv, by Golub-Kahan-Lanczos bidiagonalization with full
 * reorthogonalization and thick restarts (the top Ritz pairs are kept at a
 * restart, so several triplets converge together).
 *
 * Unlike lmo_lanczos_run (nsv <= 4, one start vector), a Krylov space that
 * becomes invariant before nsv triplets converged is continued from a fresh
 * pseudo-random vector orthogonal to the basis, so singular values that the
 * start vector does not reach are still found; when the basis spans the
 * whole of the smaller side every singular value is known exactly
 * (`exhausted`).  Reentrant: all state lives in the lmo_topk object.
 */
#ifndef IRCG_LMO_TOPK_H
#define IRCG_LMO_TOPK_H

#include <stdint.h>

#include "lmo/lanczos.h"

typedef struct lmo_topk lmo_topk;

/* For an n x p operator; the basis grows on demand in lmo_topk_run. */
lmo_topk *lmo_topk_new(int n, int p);
void lmo_topk_free(lmo_topk *tk);

typedef struct lmo_topk_out {
    int nsv;          /* triplets returned: min(wanted, basis)              */
    int basis;        /* size of the final Krylov basis                     */
    double *sv;       /* caller's, >= wanted: descending Ritz values        */
    double *res;      /* caller's, >= wanted: ||A'u - s v|| of each pair
                         (||A v - s u|| is 0 by construction); there is a
                         singular value within res of each Ritz value       */
    double *U, *V;    /* caller's, n x wanted and p x wanted column-major:
                         orthonormal Ritz vectors                          */
    int64_t matvecs;  /* products with A or A'                              */
    int converged;    /* every returned pair has res <= tol * sv[0]        */
    int exhausted;    /* A = U_b B V_b' on the final basis (b = basis): the
                         values are exact, and A has no other nonzero
                         singular values than the basis' ones (all of them
                         returned when basis <= wanted)                    */
} lmo_topk_out;

/* An earlier stop: fn sees the basis size m, the current top k Ritz values
 * (descending) and their residuals and returns nonzero when they already
 * answer the caller's question; the run then ends with converged = 1. */
typedef struct lmo_topk_stop {
    int (*fn)(void *ctx, int m, int k, const double *sv, const double *res);
    void *ctx;
} lmo_topk_stop;

/* v0 (length p, may be NULL: pseudo-random) starts the Krylov space.  Stops
 * when the top `wanted` pairs converged (residual <= tol * sv[0]) or stop
 * (may be NULL) says so, when the space is exhausted, or after max_mv
 * products (converged = 0).  The pseudo-random vectors come from a fixed
 * seed: the same call gives the same result. */
ircg_error lmo_topk_run(lmo_topk *tk, lmo_op_fn op, void *ctx, const double *v0,
                       int wanted, double tol, int64_t max_mv,
                       const lmo_topk_stop *stop, lmo_topk_out *out);

#endif /* IRCG_LMO_TOPK_H */
