/*
 * gram.h -- the top singular triplet of an implicit operator C by the
 * symmetric Lanczos process on C'C, with full (twice repeated)
 * reorthogonalization and explicit restarts from the best Ritz vector.
 *
 * From the same start v0 it builds the same Krylov space K_m(C'C, v0) as
 * the Golub-Kahan bidiagonalization of lanczos.h, and its Ritz pairs and
 * residuals are the same (T_m = B_m' B_m; the residual of the pair
 * (sqrt(theta), C y / sqrt(theta), y) is beta_m |s_m| / sqrt(theta)), but
 * each step asks for one Gram product C'C x instead of two products, which
 * an operator that is a sparse matrix can make in one pass over its
 * entries.  The product also returns C x, so the left vector u = C v / s
 * costs no further product.  Reentrant: the state is in the object.
 */
#ifndef IRCG_LMO_GRAM_H
#define IRCG_LMO_GRAM_H

#include <stdint.h>

#include "ircg.h"
#include "lmo/lanczos.h"

/* cx = C x (length n) and ctcx = C'C x (length p) for x of length p. */
typedef void (*lmo_gram_fn)(void *ctx, const double *x, double *cx, double *ctcx);

typedef struct lmo_gram lmo_gram;

/* Basis of at most mmax vectors (clipped to p + 1). */
lmo_gram *lmo_gram_new(int n, int p, int mmax);
void lmo_gram_free(lmo_gram *g);

/* A distributed operator (NULL: none): the left vectors (length n) are
 * this rank's rows, and the norm of u is summed over the ranks.  The right
 * vectors are replicated, and so is all of the process on C'C. */
void lmo_gram_set_comm(lmo_gram *g, const ircg_comm *comm);

/* Whether lmo_gram_run starts from v0 itself rather than a rescaled copy:
 * when its norm is 1 to within a few ulps (an answer of the previous run
 * is), so a caller that computed the first product at v0 ahead of time
 * gets the same bits the run would. */
int lmo_gram_keeps_start(const double *v0, int p);

/* The top triplet into out (sv[0], u, v; the other sv are 0); v0 (length
 * p) warm start, NULL = a fixed pseudo-random vector.  Stops when the
 * residual ||C'u - s v|| of the top Ritz pair is <= tol * s, or once the
 * next step would exceed max_mv products with C or C' (a Gram product
 * counts two). */
ircg_error lmo_gram_run(lmo_gram *g, lmo_gram_fn op, void *ctx, const double *v0,
                        double tol, int64_t max_mv, lmo_svd_out *out);

#endif /* IRCG_LMO_GRAM_H */
