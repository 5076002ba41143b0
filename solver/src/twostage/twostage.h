/*
 * twostage.h -- the two-stage method's parts (README.md): the row space
 * of A (ts_basis.c) and stage 2's ADMM (ts_admm.c), dense, on the
 * two-stage oracle (core/oracle.h, slv_affine_ops).
 */
#ifndef IRCG_TWOSTAGE_H
#define IRCG_TWOSTAGE_H

#include <stdint.h>

#include "core/oracle.h"

/* range(A') and the map of a multiplier: B (n x r, column-major) spans
 * the rows of A, so that {A x = A xh} = {B'x = B'xh}; a multiplier mu of
 * B'x = beta is nu = map(mu) in R^m with A'nu = B mu (exactly, but for
 * rounding).  From the Gram matrix of A's smaller side (side):
 *   side n:  A'A = V L V',  B = V_r,                 nu = A V_r L_r^-1 mu
 *   side m:  A A' = U L U', B = A'U_r L_r^-1/2,      nu = U_r L_r^-1/2 mu
 * r counts the eigenvalues above TS_RANK_TOL side eps of the largest: the
 * directions dropped change A x by less than the Gram can resolve. */
typedef struct ts_basis {
    int64_t n, m, r, side;
    double *B; /* n x r */
    double *C; /* side x r: V_r L_r^-1 (side n) or U_r L_r^-1/2 (side m) */
    double *t; /* scratch, max(n, m) */
} ts_basis;

ircg_error ts_basis_make(const slv_affine_ops *af, void *ws, int64_t n, ts_basis *bs);
void ts_basis_free(ts_basis *bs);
/* nu (m) = map(mu). */
void ts_basis_nu(const ts_basis *bs, const slv_affine_ops *af, void *ws, const double *mu,
                 double *nu);

/* Stage 2: min 1/2 x'Hx + q'x over {x in X : B'x = beta} by ADMM on the
 * split x = w, w in X (scaled dual u):
 *   x  = argmin 1/2 x'Hx + q'x + rho/2 ||x - w + u||^2  s.t. B'x = beta
 *   w  = Proj_X(x + u),   u = u + x - w,
 * the first by the KKT system, (H + rho I) x + B mu = rho (w - u) - q,
 * B'x = beta, through the Cholesky factors of H + rho I and of the Schur
 * complement B'(H + rho I)^-1 B.  mu is the multiplier of B'x = beta. */
typedef struct ts_admm {
    int64_t n, r;
    double rho;
    const double *H, *q, *B; /* borrowed */
    double *L;               /* Cholesky factor of H + rho I (n x n)   */
    double *W;               /* (H + rho I)^-1 B (n x r)               */
    double *S;               /* Cholesky factor of B'W (r x r)          */
    double *x, *w, *u, *mu, *h;
    double prim, dual;       /* ||x - w|| and rho ||w - w_prev||       */
    int factors;             /* factorizations made                     */
} ts_admm;

ircg_error ts_admm_new(ts_admm *a, int64_t n, int64_t r, const double *H, const double *q,
                       const double *B, double rho);
void ts_admm_free(ts_admm *a);
/* A new rho: the factors again, u rescaled (u is the multiplier / rho). */
ircg_error ts_admm_set_rho(ts_admm *a, double rho);
/* One iteration; project: Proj_X (the point oracle's). */
ircg_error ts_admm_step(ts_admm *a, const double *beta,
                        ircg_error (*project)(void *ws, const double *y, double *out),
                        void *ws);

#endif /* IRCG_TWOSTAGE_H */
