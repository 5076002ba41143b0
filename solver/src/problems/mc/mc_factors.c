/*
 * mc_factors.c -- the low-rank part P K Q' of the iterates: products with it,
 * atoms appended by the LMO, the small Gram matrices that give ||X||_F and
 * the column sums without forming X, and dense exports.
 */
#include <assert.h>
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "problems/mc/mc.h"

/* Grow a cap x cap column-major matrix to ncap x ncap, keeping the old
 * entries in place and zeroing the new ones. */
static int grow_square(double **A, int cap, int ncap)
{
    double *B = calloc((size_t)ncap * ncap, sizeof *B);
    if (!B)
        return -1;
    for (int j = 0; j < cap && *A; j++)
        memcpy(B + (size_t)j * ncap, *A + (size_t)j * cap, (size_t)cap * sizeof *B);
    free(*A);
    *A = B;
    return 0;
}

static int grow_vec(double **a, size_t nnew)
{
    double *b = realloc(*a, nnew * sizeof *b);
    if (!b)
        return -1;
    *a = b;
    return 0;
}

ircg_error mc_factors_reserve(mc_ws *w, int cap)
{
    const mc_data *d = w->d;
    int ncap = w->cap;

    if (cap <= w->cap)
        return IRCG_OK;
    while (ncap < cap)
        ncap = ncap < 8 ? 16 : 2 * ncap;
    if (grow_vec(&w->P, (size_t)d->n * ncap) || grow_vec(&w->Q, (size_t)d->p * ncap) ||
        grow_square(&w->x.K, w->cap, ncap) || grow_square(&w->z.K, w->cap, ncap) ||
        grow_square(&w->GP, w->cap, ncap) || grow_square(&w->GQ, w->cap, ncap) ||
        grow_square(&w->W, w->cap, ncap) || grow_vec(&w->sP, (size_t)ncap) ||
        grow_vec(&w->qm, (size_t)ncap) || grow_vec(&w->Pu, (size_t)ncap) ||
        grow_vec(&w->Qv, (size_t)ncap) || grow_vec(&w->tk, (size_t)ncap) ||
        grow_vec(&w->tk2, (size_t)ncap) ||
        (d->comm && grow_vec(&w->cbuf, (size_t)d->p + 2 * (size_t)ncap * ncap +
                                           2 * (size_t)ncap + 4)))
        return IRCG_ERR_NOMEM; /* whatever grew stays valid and owned */
    w->cap = ncap;
    return IRCG_OK;
}

/* y (n) = a X0 v + P K (Q' v) */
void mc_apply_x(const mc_ws *w, const mc_side *s, const double *v, double *y)
{
    const mc_data *d = w->d;
    int k = w->k;

    for (int i = 0; i < d->ndiag; i++)
        y[i] = s->a * w->d0 * v[d->row0 + i];
    for (int i = d->ndiag; i < d->n; i++)
        y[i] = 0;
    if (k == 0)
        return;
    cblas_dgemv(CblasColMajor, CblasTrans, d->p, k, 1.0, w->Q, d->p, v, 1, 0.0,
                w->tk, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, k, k, 1.0, s->K, w->cap, w->tk, 1,
                0.0, w->tk2, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, d->n, k, 1.0, w->P, d->n, w->tk2, 1,
                1.0, y, 1);
}

/* y (p) = a X0' u + Q K' (P' u); whole rows only (a distributed product
 * is mc_dist_lowrank_out) */
void mc_apply_xt(const mc_ws *w, const mc_side *s, const double *u, double *y)
{
    const mc_data *d = w->d;
    int k = w->k;

    assert(!d->comm);

    for (int j = 0; j < d->m0; j++)
        y[j] = s->a * w->d0 * u[j];
    for (int j = d->m0; j < d->p; j++)
        y[j] = 0;
    if (k == 0)
        return;
    cblas_dgemv(CblasColMajor, CblasTrans, d->n, k, 1.0, w->P, d->n, u, 1, 0.0,
                w->tk, 1);
    cblas_dgemv(CblasColMajor, CblasTrans, k, k, 1.0, s->K, w->cap, w->tk, 1,
                0.0, w->tk2, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, d->p, k, 1.0, w->Q, d->p, w->tk2, 1,
                1.0, y, 1);
}

static double sum(const double *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* Distributed: atom k's row sums (W's row and column k, P's Gram and
 * column sum) were this rank's part; one sum over the ranks makes them
 * whole.  GP's column k came whole from the LMO (P'u). */
static void sum_new_atom(mc_ws *w, int k)
{
    int c = w->cap;
    double *b = w->cbuf;
    for (int j = 0; j <= k; j++) {
        b[j] = w->W[k + (size_t)j * c];
        b[k + 1 + j] = w->W[j + (size_t)k * c];
    }
    b[2 * k + 2] = w->GP[k + (size_t)k * c];
    b[2 * k + 3] = w->sP[k];
    slv_comm_sum(w->d->comm, b, 2 * (int64_t)k + 4);
    for (int j = 0; j <= k; j++) {
        w->W[k + (size_t)j * c] = b[j];
        w->W[j + (size_t)k * c] = b[k + 1 + j];
    }
    w->GP[k + (size_t)k * c] = b[2 * k + 2];
    w->sP[k] = b[2 * k + 3];
}

/* Distributed: GP, W and sP rebuilt from this rank's rows, summed. */
static void sum_grams(mc_ws *w)
{
    int k = w->k, c = w->cap;
    size_t kk = (size_t)k * k;
    double *b = w->cbuf;
    for (int j = 0; j < k; j++) {
        memcpy(b + (size_t)j * k, w->GP + (size_t)j * c, (size_t)k * sizeof *b);
        memcpy(b + kk + (size_t)j * k, w->W + (size_t)j * c, (size_t)k * sizeof *b);
    }
    memcpy(b + 2 * kk, w->sP, (size_t)k * sizeof *b);
    slv_comm_sum(w->d->comm, b, (int64_t)(2 * kk + (size_t)k));
    for (int j = 0; j < k; j++) {
        memcpy(w->GP + (size_t)j * c, b + (size_t)j * k, (size_t)k * sizeof *b);
        memcpy(w->W + (size_t)j * c, b + kk + (size_t)j * k, (size_t)k * sizeof *b);
    }
    memcpy(w->sP, b + 2 * kk, (size_t)k * sizeof *b);
}

/* Appends column k = (u, v) with zero core weights; w->Pu = P'u and
 * w->Qv = Q'v (length k) come from the LMO, which needed them anyway (read
 * after the reserve, which may move them). */
ircg_error mc_append_atom(mc_ws *w, const double *u, const double *v)
{
    const mc_data *d = w->d;
    int k = w->k, c;

    if (mc_factors_reserve(w, k + 1) != IRCG_OK)
        return IRCG_ERR_NOMEM;
    c = w->cap;
    const double *Pu = w->Pu, *Qv = w->Qv;
    memcpy(w->P + (size_t)k * d->n, u, (size_t)d->n * sizeof *u);
    memcpy(w->Q + (size_t)k * d->p, v, (size_t)d->p * sizeof *v);
    for (int j = 0; j < k; j++) {
        w->GP[j + (size_t)k * c] = w->GP[k + (size_t)j * c] = Pu[j];
        w->GQ[j + (size_t)k * c] = w->GQ[k + (size_t)j * c] = Qv[j];
        w->W[k + (size_t)j * c] = cblas_ddot(d->ndiag, u, 1, w->Q + (size_t)j * d->p + d->row0, 1);
        w->W[j + (size_t)k * c] = cblas_ddot(d->ndiag, w->P + (size_t)j * d->n, 1, v + d->row0, 1);
        w->x.K[k + (size_t)j * c] = w->x.K[j + (size_t)k * c] = 0;
        w->z.K[k + (size_t)j * c] = w->z.K[j + (size_t)k * c] = 0;
    }
    w->GP[k + (size_t)k * c] = cblas_ddot(d->n, u, 1, u, 1);
    w->GQ[k + (size_t)k * c] = cblas_ddot(d->p, v, 1, v, 1);
    w->W[k + (size_t)k * c] = cblas_ddot(d->ndiag, u, 1, v + d->row0, 1);
    w->x.K[k + (size_t)k * c] = w->z.K[k + (size_t)k * c] = 0;
    w->sP[k] = mc_row_sum(d, u);
    w->qm[k] = sum(v, d->m0);
    w->k = k + 1;
    if (d->comm)
        sum_new_atom(w, k);
    assert(w->k <= w->cap);
    return IRCG_OK;
}

void mc_grams_rebuild(mc_ws *w)
{
    const mc_data *d = w->d;
    int k = w->k, c = w->cap;

    if (k == 0)
        return;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, k, k, d->n, 1.0, w->P,
                d->n, w->P, d->n, 0.0, w->GP, c);
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, k, k, d->p, 1.0, w->Q,
                d->p, w->Q, d->p, 0.0, w->GQ, c);
    if (d->ndiag > 0)
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, k, k, d->ndiag, 1.0, w->P,
                    d->n, w->Q + d->row0, d->p, 0.0, w->W, c);
    else
        for (int j = 0; j < k; j++)
            memset(w->W + (size_t)j * c, 0, (size_t)k * sizeof *w->W);
    for (int j = 0; j < k; j++) {
        w->sP[j] = mc_row_sum(d, w->P + (size_t)j * d->n);
        w->qm[j] = sum(w->Q + (size_t)j * d->p, d->m0);
    }
    if (d->comm)
        sum_grams(w);
}

/* fro2 = a^2 d0^2 m0 + 2 a d0 <K, W> + tr(K' GP K GQ)
 * cs2  = ||a d0 1_{m0} + Q K' P'1||^2 */
void mc_side_norms(const mc_ws *w, const mc_side *s, double *fro2, double *cs2)
{
    const mc_data *d = w->d;
    int k = w->k, c = w->cap;
    double a0 = s->a * w->d0, kw = 0, quad = 0, lin = 0, cq = 0;
    double *A = NULL;

    *fro2 = a0 * a0 * d->m0;
    *cs2 = a0 * a0 * d->m0;
    if (k == 0)
        return;
    A = malloc(2 * (size_t)k * k * sizeof *A);
    if (!A) { /* cannot happen in practice; report NaN rather than guess */
        *fro2 = *cs2 = 0.0 / 0.0;
        return;
    }
    double *B = A + (size_t)k * k;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, k, k, k, 1.0, w->GP, c,
                s->K, c, 0.0, A, k);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, k, k, k, 1.0, A, k,
                w->GQ, c, 0.0, B, k);
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++) {
            kw += s->K[i + (size_t)j * c] * w->W[i + (size_t)j * c];
            quad += s->K[i + (size_t)j * c] * B[i + (size_t)j * k];
        }
    *fro2 += 2 * a0 * kw + quad;
    /* t = K' sP; colsum = a0 1_m0 + Q t */
    cblas_dgemv(CblasColMajor, CblasTrans, k, k, 1.0, s->K, c, w->sP, 1, 0.0, A, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, k, k, 1.0, w->GQ, c, A, 1, 0.0, B, 1);
    lin = cblas_ddot(k, w->qm, 1, A, 1);
    cq = cblas_ddot(k, A, 1, B, 1);
    *cs2 += 2 * a0 * lin + cq;
    free(A);
}

double mc_side_f(const mc_ws *w, const mc_side *s)
{
    double fro2, cs2, f;
    mc_side_norms(w, s, &fro2, &cs2);
    f = w->d->outer == IRCG_OUTER_COLUMN_VARIANCE ? fro2 - cs2 / w->d->n_all : fro2;
    return f > 0 ? 0.5 * f : 0.0; /* rounding can push a zero below 0 */
}

/* X = a X0 + P K Q', column-major n x p. */
ircg_error mc_dense(const mc_ws *w, const mc_side *s, double *X)
{
    const mc_data *d = w->d;
    int k = w->k;

    memset(X, 0, (size_t)d->n * d->p * sizeof *X);
    for (int i = 0; i < d->ndiag; i++)
        X[i + (size_t)(d->row0 + i) * d->n] = s->a * w->d0;
    if (k == 0)
        return IRCG_OK;
    double *T = malloc((size_t)d->n * k * sizeof *T);
    if (!T)
        return IRCG_ERR_NOMEM;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, d->n, k, k, 1.0, w->P,
                d->n, s->K, w->cap, 0.0, T, d->n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, d->n, d->p, k, 1.0, T,
                d->n, w->Q, d->p, 1.0, X, d->n);
    free(T);
    return IRCG_OK;
}
