/*
 * ts_admm.c -- stage 2 of the two-stage method (twostage.h): ADMM on
 * min 1/2 x'Hx + q'x over {x in X : B'x = beta}, dense.  A factorization
 * costs n^3/3 + n^2 r + n r^2 + r^3/3 flops, an iteration 2 n^2 + 4 n r
 * and a projection.
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "twostage/twostage.h"

void ts_admm_free(ts_admm *a)
{
    if (!a)
        return;
    double *arr[] = {a->L, a->W, a->S, a->x, a->w, a->u, a->mu, a->h};
    for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++)
        free(arr[i]);
    memset(a, 0, sizeof *a);
}

/* L = chol(H + rho I), W = (H + rho I)^-1 B, S = chol(B'W). */
static ircg_error factor(ts_admm *a)
{
    int64_t n = a->n, r = a->r;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++)
            a->L[i + j * n] = a->H[i + j * n] + (i == j ? a->rho : 0.0);
    a->factors++;
    if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)n, a->L, (lapack_int)n) != 0)
        return IRCG_ERR_NUMERICAL;
    if (r == 0)
        return IRCG_OK;
    memcpy(a->W, a->B, (size_t)n * (size_t)r * sizeof *a->W);
    if (LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', (lapack_int)n, (lapack_int)r, a->L,
                       (lapack_int)n, a->W, (lapack_int)n) != 0)
        return IRCG_ERR_NUMERICAL;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)r, (int)r, (int)n, 1.0, a->B,
                (int)n, a->W, (int)n, 0.0, a->S, (int)r);
    return LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)r, a->S, (lapack_int)r) == 0
               ? IRCG_OK
               : IRCG_ERR_NUMERICAL;
}

ircg_error ts_admm_new(ts_admm *a, int64_t n, int64_t r, const double *H, const double *q,
                       const double *B, double rho)
{
    memset(a, 0, sizeof *a);
    a->n = n;
    a->r = r;
    a->H = H;
    a->q = q;
    a->B = B;
    a->rho = rho;
    size_t nn = (size_t)n, rr = (size_t)(r ? r : 1);
    a->L = malloc(nn * nn * sizeof *a->L);
    a->W = malloc(nn * rr * sizeof *a->W);
    a->S = malloc(rr * rr * sizeof *a->S);
    a->x = calloc(nn, sizeof *a->x);
    a->w = calloc(nn, sizeof *a->w);
    a->u = calloc(nn, sizeof *a->u);
    a->mu = calloc(rr, sizeof *a->mu);
    a->h = malloc(nn * sizeof *a->h);
    if (!a->L || !a->W || !a->S || !a->x || !a->w || !a->u || !a->mu || !a->h) {
        ts_admm_free(a);
        return IRCG_ERR_NOMEM;
    }
    ircg_error err = factor(a);
    if (err != IRCG_OK)
        ts_admm_free(a);
    return err;
}

ircg_error ts_admm_set_rho(ts_admm *a, double rho)
{
    double s = a->rho / rho;
    for (int64_t i = 0; i < a->n; i++)
        a->u[i] *= s;
    a->rho = rho;
    return factor(a);
}

ircg_error ts_admm_step(ts_admm *a, const double *beta,
                        ircg_error (*project)(void *ws, const double *y, double *out),
                        void *ws)
{
    int64_t n = a->n, r = a->r;
    /* x0 = (H + rho I)^-1 (rho (w - u) - q), then the Schur step onto B'x = beta */
    for (int64_t i = 0; i < n; i++)
        a->x[i] = a->rho * (a->w[i] - a->u[i]) - a->q[i];
    if (LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', (lapack_int)n, 1, a->L, (lapack_int)n, a->x,
                       (lapack_int)n) != 0)
        return IRCG_ERR_NUMERICAL;
    if (r > 0) {
        memcpy(a->mu, beta, (size_t)r * sizeof *a->mu);
        cblas_dgemv(CblasColMajor, CblasTrans, (int)n, (int)r, 1.0, a->B, (int)n, a->x, 1,
                    -1.0, a->mu, 1);
        if (LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', (lapack_int)r, 1, a->S, (lapack_int)r,
                           a->mu, (lapack_int)r) != 0)
            return IRCG_ERR_NUMERICAL;
        cblas_dgemv(CblasColMajor, CblasNoTrans, (int)n, (int)r, -1.0, a->W, (int)n, a->mu, 1,
                    1.0, a->x, 1);
    }
    /* w = Proj_X(x + u), u += x - w */
    for (int64_t i = 0; i < n; i++)
        a->h[i] = a->x[i] + a->u[i];
    ircg_error err = project(ws, a->h, a->h);
    if (err != IRCG_OK)
        return err;
    double p2 = 0, d2 = 0;
    for (int64_t i = 0; i < n; i++) {
        double dx = a->x[i] - a->h[i], dw = a->h[i] - a->w[i];
        a->u[i] += dx;
        p2 += dx * dx;
        d2 += dw * dw;
        a->w[i] = a->h[i];
    }
    a->prim = sqrt(p2);
    a->dual = a->rho * sqrt(d2);
    return IRCG_OK;
}
