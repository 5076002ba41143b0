/*
 * ts_basis.c -- the row space of A for stage 2 (twostage.h), from the
 * eigenvectors of the Gram matrix of A's smaller side (LAPACK's dsyevd).
 */
#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "twostage/twostage.h"

/* Eigenvalues at most this many times side eps of the largest are taken
 * for 0: the Gram matrix holds them to about that (its rounding). */
#define TS_RANK_TOL 64.0

void ts_basis_free(ts_basis *bs)
{
    if (!bs)
        return;
    free(bs->B);
    free(bs->C);
    free(bs->t);
    memset(bs, 0, sizeof *bs);
}

/* C's columns: the r top eigenvectors (the last of G's, ascending) each
 * scaled by lambda^-pow. */
static void scaled_top(const double *G, const double *ev, int64_t side, int64_t r, double pw,
                       double *C)
{
    for (int64_t j = 0; j < r; j++) {
        int64_t k = side - r + j;
        double s = pow(ev[k], -pw);
        for (int64_t i = 0; i < side; i++)
            C[i + j * side] = s * G[i + k * side];
    }
}

ircg_error ts_basis_make(const slv_affine_ops *af, void *ws, int64_t n, ts_basis *bs)
{
    int64_t m = af->rows(ws), side = n <= m ? n : m, r = 0;
    double *G = malloc((size_t)side * (size_t)side * sizeof *G);
    double *ev = malloc((size_t)side * sizeof *ev);
    ircg_error err = IRCG_ERR_NOMEM;
    memset(bs, 0, sizeof *bs);
    bs->n = n;
    bs->m = m;
    if (!G || !ev || !(bs->t = malloc((size_t)(n > m ? n : m) * sizeof *bs->t)))
        goto done;
    if ((err = af->gram(ws, G, &bs->side)) != IRCG_OK)
        goto done;
    err = IRCG_ERR_NUMERICAL;
    if (bs->side != side || LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', (lapack_int)side, G,
                                           (lapack_int)side, ev) != 0)
        goto done;
    double top = side > 0 ? ev[side - 1] : 0.0;
    while (r < side && ev[side - 1 - r] > TS_RANK_TOL * (double)side * DBL_EPSILON * top)
        r++;
    bs->r = r;
    err = IRCG_ERR_NOMEM;
    if (!(bs->B = malloc((size_t)n * (size_t)(r ? r : 1) * sizeof *bs->B)) ||
        !(bs->C = malloc((size_t)side * (size_t)(r ? r : 1) * sizeof *bs->C)))
        goto done;
    if (side == n) {
        scaled_top(G, ev, side, r, 0.0, bs->B);
        scaled_top(G, ev, side, r, 1.0, bs->C);
    } else {
        scaled_top(G, ev, side, r, 0.5, bs->C);
        for (int64_t j = 0; j < r; j++)
            af->apply_t(ws, bs->C + j * side, bs->B + j * n);
    }
    err = IRCG_OK;
done:
    free(G);
    free(ev);
    if (err != IRCG_OK)
        ts_basis_free(bs);
    return err;
}

void ts_basis_nu(const ts_basis *bs, const slv_affine_ops *af, void *ws, const double *mu,
                 double *nu)
{
    if (bs->r == 0) {
        memset(nu, 0, (size_t)bs->m * sizeof *nu);
        return;
    }
    if (bs->side == bs->n) {
        cblas_dgemv(CblasColMajor, CblasNoTrans, (int)bs->n, (int)bs->r, 1.0, bs->C,
                    (int)bs->n, mu, 1, 0.0, bs->t, 1);
        af->apply(ws, bs->t, nu);
        return;
    }
    cblas_dgemv(CblasColMajor, CblasNoTrans, (int)bs->m, (int)bs->r, 1.0, bs->C, (int)bs->m,
                mu, 1, 0.0, nu, 1);
}
