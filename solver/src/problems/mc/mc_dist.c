/*
 * mc_dist.c -- what a matrix-completion problem spread over several
 * processes does differently (d->comm set; ircg.h): its rows of Omega, of
 * P and of the left vectors are local, Q and the right vectors are
 * replicated, and every sum over rows is reduced through the communicator,
 * whose sums come back the same on every rank, so every rank takes the
 * same decisions (steps, compressions, restarts of the Lanczos process).
 *
 * Why rows: a Gram product C'C x (the LMO's unit of work) then makes
 * C x locally, row by row, and only R'(C x) -- p numbers, plus the k of
 * P'(C x) and a sum -- crosses the network, once per product; partitioned
 * by columns, C x would be the partial sum to reduce, with n >> p on
 * MovieLens-shaped data (users outnumber items).
 */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "problems/mc/mc.h"

ircg_error mc_dist_qr(const mc_data *d, const double *A, int k, double *F, double *R)
{
    const ircg_comm *c = d->comm;
    int n = d->n, kl = n < k ? n : k, rows = c->size * k;
    double *Fl = malloc((size_t)n * kl * sizeof *Fl);
    double *Rl = malloc((size_t)kl * k * sizeof *Rl);
    double *S = calloc((size_t)rows * k, sizeof *S);
    double *F2 = malloc((size_t)rows * k * sizeof *F2);
    ircg_error err = IRCG_ERR_NOMEM;

    /* every rank must make the same calls whatever fails here: an
     * allocation failure on one rank alone would leave the others waiting,
     * so it is reported after the collective */
    int ok = Fl && Rl && S && F2 && mc_thin_qr(A, n, k, Fl, Rl) == IRCG_OK;
    if (ok) /* this rank's R, in its block of the stack of k x k blocks */
        for (int j = 0; j < k; j++)
            for (int i = 0; i < kl; i++)
                S[(size_t)c->rank * k + i + (size_t)j * rows] = Rl[i + (size_t)j * kl];
    if (S)
        slv_comm_sum(c, S, (int64_t)rows * k);
    if (!ok || !S)
        goto done;
    if ((err = mc_thin_qr(S, rows, k, F2, R)) != IRCG_OK)
        goto done;
    /* F = Fl times this rank's block of the stack's Q */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, k, kl, 1.0, Fl, n,
                F2 + (size_t)c->rank * k, rows, 0.0, F, n);
    err = IRCG_OK;
done:
    free(Fl);
    free(Rl);
    free(S);
    free(F2);
    return err;
}

void mc_center(const mc_data *d, double *y)
{
    double s = slv_comm_sum1(d->comm, mc_row_sum(d, y)) / d->n_all;
    for (int i = 0; i < d->n_real; i++)
        y[i] -= s;
    if (d->agg_w > 0) /* U y = y - e (e'y) / n_all */
        y[d->n - 1] -= d->agg_w * s;
}

/* ctcx += sigma grad f(X)' cx with grad f(X)' = X' U: the local parts of
 * a d0 X0' cx (the diagonal rows held here), P' cx and 1' cx travel with
 * R' cx in one sum; the centring of U is applied after it, through
 * X0'1 = 1_m0 and P'1 = sP. */
void mc_dist_lowrank_out(mc_ws *w, double sigma, const double *cx, double *ctcx)
{
    const mc_data *d = w->d;
    int k = w->k, p = d->p, colvar = d->outer == IRCG_OUTER_COLUMN_VARIANCE;
    double *b = w->cbuf, a0 = sigma * w->x.a * w->d0, s = 0;
    int64_t len = p;

    memcpy(b, ctcx, (size_t)p * sizeof *b);
    if (sigma != 0) {
        for (int i = 0; i < d->ndiag; i++)
            b[d->row0 + i] += a0 * cx[i];
        if (k > 0)
            cblas_dgemv(CblasColMajor, CblasTrans, d->n, k, 1.0, w->P, d->n, cx, 1, 0.0,
                        b + p, 1);
        for (int i = 0; i < d->n; i++)
            s += cx[i];
        b[p + k] = s;
        len += k + 1;
    }
    slv_comm_sum(d->comm, b, len);
    memcpy(ctcx, b, (size_t)p * sizeof *b);
    if (sigma == 0)
        return;
    if (colvar) {
        double mean = b[p + k] / d->n_all;
        for (int j = 0; j < d->m0; j++)
            ctcx[j] -= a0 * mean;
        for (int l = 0; l < k; l++)
            b[p + l] -= mean * w->sP[l];
    }
    if (k > 0) {
        cblas_dgemv(CblasColMajor, CblasTrans, k, k, 1.0, w->x.K, w->cap, b + p, 1, 0.0,
                    w->tk2, 1);
        cblas_dgemv(CblasColMajor, CblasNoTrans, p, k, sigma, w->Q, p, w->tk2, 1, 1.0,
                    ctcx, 1);
    }
}

/* Rows of a local n x ncols block (*A, leading dimension n) gathered into
 * a new n_all x ncols one that replaces it; 0 when out of memory. */
static int gather(const mc_data *d, double **A, int ncols)
{
    double *whole = malloc((size_t)d->n_all * (ncols > 0 ? ncols : 1) * sizeof *whole);
    if (!whole)
        return 0;
    slv_comm_gather_rows(d->comm, *A, d->n, d->row0, d->n_all, ncols, whole);
    free(*A);
    *A = whole;
    return 1;
}

ircg_error mc_dist_gather(const mc_ws *w, ircg_iterate *it)
{
    const mc_data *d = w->d;
    int okp = gather(d, &it->P, it->rank);
    int okd = !it->dense || gather(d, &it->dense, d->p);
    it->n_rows = d->n_all;
    return okp && okd ? IRCG_OK : IRCG_ERR_NOMEM;
}
