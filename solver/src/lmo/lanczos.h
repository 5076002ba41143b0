/*
 * lanczos.h -- top singular triplets of an implicit operator by
 * Golub-Kahan-Lanczos bidiagonalization with full (twice repeated)
 * reorthogonalization and explicit restarts from the best Ritz vector.
 * Reentrant: all state lives in the lmo_lanczos object (unlike ARPACK).
 */
#ifndef IRCG_LMO_LANCZOS_H
#define IRCG_LMO_LANCZOS_H

#include <stdint.h>

#include "ircg.h"

/* y = A x (trans = 0, x in R^p, y in R^n) or y = A' x (trans = 1). */
typedef void (*lmo_op_fn)(void *ctx, int trans, const double *x, double *y);

typedef struct lmo_lanczos lmo_lanczos;

/* Basis of at most mmax vectors (clipped to min(n, p) + 1). */
lmo_lanczos *lmo_lanczos_new(int n, int p, int mmax);
void lmo_lanczos_free(lmo_lanczos *lz);

typedef struct lmo_svd_out {
    double sv[4];      /* top nsv singular values, descending              */
    double *u, *v;     /* caller's buffers (n, p): the top pair, unit norm  */
    int64_t matvecs;   /* products with A or A'                             */
    int converged;     /* residuals <= tol * sv[0]                          */
    int zero;          /* A vanished on every start tried: sv = 0           */
} lmo_svd_out;

/* nsv <= 4 values wanted; v0 (length p) warm start, NULL = a fixed
 * pseudo-random vector.  Stops when the residual ||A'u - s v|| of each
 * wanted Ritz pair is <= tol * s_1, or after max_mv products. */
ircg_error lmo_lanczos_run(lmo_lanczos *lz, lmo_op_fn op, void *ctx, const double *v0,
                          int nsv, double tol, int64_t max_mv, lmo_svd_out *out);

/* Shared with gram.c: removes from x (length len) its components along the
 * j columns of B (leading dimension len), twice, which is enough in
 * floating point ("twice is enough"); h is scratch of j doubles. */
void lmo_reorth(const double *B, int len, int j, double *x, double *h);
/* The fixed pseudo-random start vector used when none is given. */
void lmo_pseudo_random(double *x, int len);

#endif /* IRCG_LMO_LANCZOS_H */
