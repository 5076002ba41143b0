/* lanczos.c -- see lanczos.h.  With A V_j = U_j B_j and
 * A' U_j = V_j B_j' + beta_j v_{j+1} e_j', a Ritz pair (U x, V y, s) of the
 * bidiagonal B_j = X S Y' has residual beta_j |x_j| (its last entry). */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "lmo/lanczos.h"

struct lmo_lanczos {
    int n, p, mmax;
    double *U, *V;          /* n x mmax, p x (mmax + 1)                     */
    double *alpha, *beta;   /* mmax                                         */
    double *d, *e, *X, *Yt, *work; /* bidiagonal SVD scratch               */
    double *h;              /* reorthogonalization coefficients, mmax + 1   */
};

lmo_lanczos *lmo_lanczos_new(int n, int p, int mmax)
{
    lmo_lanczos *lz = calloc(1, sizeof *lz);
    /* one step past min(n, p): that step breaks down and certifies the
     * pair of subspaces as invariant (see cycle) */
    int lim = (n < p ? n : p) + 1;

    if (!lz)
        return NULL;
    lz->mmax = mmax < lim ? mmax : lim;
    if (lz->mmax < 1)
        lz->mmax = 1;
    lz->n = n;
    lz->p = p;
    size_t m = (size_t)lz->mmax;
    lz->U = malloc((size_t)n * m * sizeof(double));
    lz->V = malloc((size_t)p * (m + 1) * sizeof(double));
    lz->alpha = malloc(m * sizeof(double));
    lz->beta = malloc(m * sizeof(double));
    lz->d = malloc(m * sizeof(double));
    lz->e = malloc(m * sizeof(double));
    lz->X = malloc(m * m * sizeof(double));
    lz->Yt = malloc(m * m * sizeof(double));
    lz->work = malloc(4 * m * sizeof(double));
    lz->h = malloc((m + 1) * sizeof(double));
    if (!lz->U || !lz->V || !lz->alpha || !lz->beta || !lz->d || !lz->e ||
        !lz->X || !lz->Yt || !lz->work || !lz->h) {
        lmo_lanczos_free(lz);
        return NULL;
    }
    return lz;
}

void lmo_lanczos_free(lmo_lanczos *lz)
{
    if (!lz)
        return;
    free(lz->U);
    free(lz->V);
    free(lz->alpha);
    free(lz->beta);
    free(lz->d);
    free(lz->e);
    free(lz->X);
    free(lz->Yt);
    free(lz->work);
    free(lz->h);
    free(lz);
}

void lmo_reorth(const double *B, int len, int j, double *x, double *h)
{
    if (j == 0)
        return;
    for (int pass = 0; pass < 2; pass++) {
        cblas_dgemv(CblasColMajor, CblasTrans, len, j, 1.0, B, len, x, 1, 0.0, h, 1);
        cblas_dgemv(CblasColMajor, CblasNoTrans, len, j, -1.0, B, len, h, 1, 1.0, x, 1);
    }
}

void lmo_pseudo_random(double *x, int len)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < len; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        x[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
}

/* SVD of the (m x m) upper bidiagonal B_m; 0 on success. */
static int bidiag_svd(lmo_lanczos *lz, int m)
{
    memcpy(lz->d, lz->alpha, (size_t)m * sizeof(double));
    if (m > 1)
        memcpy(lz->e, lz->beta, (size_t)(m - 1) * sizeof(double));
    memset(lz->X, 0, (size_t)m * m * sizeof(double));
    memset(lz->Yt, 0, (size_t)m * m * sizeof(double));
    for (int i = 0; i < m; i++)
        lz->X[i + (size_t)i * m] = lz->Yt[i + (size_t)i * m] = 1.0;
    return LAPACKE_dbdsqr_work(LAPACK_COL_MAJOR, 'U', m, m, m, 0, lz->d, lz->e,
                               lz->Yt, m, lz->X, m, NULL, 1, lz->work);
}

/* Are the nsv top Ritz pairs of B_m converged (residual beta |x_last|)? */
static int ritz_converged(const lmo_lanczos *lz, int m, int nsv, double b, double tol)
{
    int k = nsv < m ? nsv : m;
    for (int i = 0; i < k; i++)
        if (fabs(b * lz->X[(m - 1) + (size_t)i * m]) > tol * lz->d[0])
            return 0;
    return k == nsv;
}

/* The top Ritz pair into out->u, out->v and restart vector V[:,0]. */
static void ritz_pair(lmo_lanczos *lz, int m, lmo_svd_out *out)
{
    cblas_dgemv(CblasColMajor, CblasNoTrans, lz->n, m, 1.0, lz->U, lz->n, lz->X, 1,
                0.0, out->u, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, lz->p, m, 1.0, lz->V, lz->p, lz->Yt, m,
                0.0, out->v, 1);
    cblas_dscal(lz->n, 1.0 / cblas_dnrm2(lz->n, out->u, 1), out->u, 1);
    cblas_dscal(lz->p, 1.0 / cblas_dnrm2(lz->p, out->v, 1), out->v, 1);
}

/* Normalizes the start vector into V[:,0]; 0 if it is zero. */
static int set_start(lmo_lanczos *lz, const double *v0)
{
    double nv;
    if (v0)
        memcpy(lz->V, v0, (size_t)lz->p * sizeof(double));
    else
        lmo_pseudo_random(lz->V, lz->p);
    nv = cblas_dnrm2(lz->p, lz->V, 1);
    if (!(nv > 0) || !isfinite(nv))
        return 0;
    cblas_dscal(lz->p, 1.0 / nv, lz->V, 1);
    return 1;
}

/* One restart cycle from V[:,0].  Returns the basis size m used (0: A V0 = 0)
 * and sets *done when converged, invariant or out of products. */
static int cycle(lmo_lanczos *lz, lmo_op_fn op, void *ctx, int nsv, double tol,
                 int64_t max_mv, lmo_svd_out *out, int *done, int *err)
{
    int n = lz->n, p = lz->p, j;
    double bnorm = 0;

    for (j = 0; j < lz->mmax; j++) {
        double *uj = lz->U + (size_t)j * n, *vj = lz->V + (size_t)j * p;
        double *w = lz->V + (size_t)(j + 1) * p;
        if (slv_stop_due()) { /* its operators are one process's */
            *err = 2;
            return j;
        }
        op(ctx, 0, vj, uj);
        out->matvecs++;
        if (j > 0)
            cblas_daxpy(n, -lz->beta[j - 1], lz->U + (size_t)(j - 1) * n, 1, uj, 1);
        lmo_reorth(lz->U, n, j, uj, lz->h);
        lz->alpha[j] = cblas_dnrm2(n, uj, 1);
        if (!(lz->alpha[j] > 1e-14 * bnorm) || lz->alpha[j] == 0) {
            if (j == 0)
                return 0;
            /* A V_{j+1} lies in span U_j: the pair of subspaces is
             * invariant and B_{j+1} with alpha_j = 0 is exact; the zero
             * last row keeps U[:,j] out of every nonzero Ritz pair */
            lz->alpha[j] = 0;
            memset(uj, 0, (size_t)n * sizeof *uj);
            *done = out->converged = 1;
            if (bidiag_svd(lz, j + 1) != 0)
                *err = 1;
            return j + 1;
        }
        bnorm = fmax(bnorm, lz->alpha[j]);
        cblas_dscal(n, 1.0 / lz->alpha[j], uj, 1);
        op(ctx, 1, uj, w);
        out->matvecs++;
        cblas_daxpy(p, -lz->alpha[j], vj, 1, w, 1);
        lmo_reorth(lz->V, p, j + 1, w, lz->h);
        lz->beta[j] = cblas_dnrm2(p, w, 1);
        if (bidiag_svd(lz, j + 1) != 0) {
            *err = 1;
            return j + 1;
        }
        int inv = !(lz->beta[j] > 1e-14 * fmax(bnorm, lz->beta[j]));
        out->converged = inv || ritz_converged(lz, j + 1, nsv, lz->beta[j], tol);
        if (out->converged || out->matvecs + 2 > max_mv) {
            *done = 1;
            return j + 1;
        }
        bnorm = fmax(bnorm, lz->beta[j]);
        cblas_dscal(p, 1.0 / lz->beta[j], w, 1);
    }
    return j; /* basis full: restart */
}

ircg_error lmo_lanczos_run(lmo_lanczos *lz, lmo_op_fn op, void *ctx, const double *v0,
                          int nsv, double tol, int64_t max_mv, lmo_svd_out *out)
{
    int done = 0, err = 0, tries = 0, m = 0;

    out->matvecs = 0;
    out->converged = out->zero = 0;
    if (!set_start(lz, v0))
        set_start(lz, NULL);
    while (!done) {
        m = cycle(lz, op, ctx, nsv, tol, max_mv, out, &done, &err);
        if (err)
            return err == 2 ? IRCG_ERR_STOPPED : IRCG_ERR_NUMERICAL;
        if (m == 0) { /* A v0 = 0: retry once from another start */
            if (tries++ > 0 || !v0) {
                out->zero = 1;
                break;
            }
            set_start(lz, NULL);
            done = 0;
            continue;
        }
        ritz_pair(lz, m, out);
        if (!done) /* explicit restart from the best right Ritz vector */
            memcpy(lz->V, out->v, (size_t)lz->p * sizeof(double));
    }
    if (out->zero) {
        memset(out->sv, 0, sizeof out->sv);
        memset(out->u, 0, (size_t)lz->n * sizeof(double));
        out->u[0] = 1.0;
        memcpy(out->v, lz->V, (size_t)lz->p * sizeof(double));
        out->converged = 1;
        return IRCG_OK;
    }
    for (int i = 0; i < 4; i++)
        out->sv[i] = i < nsv && i < m ? lz->d[i] : 0.0;
    return IRCG_OK;
}
