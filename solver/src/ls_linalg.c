/* ls_linalg.c -- products with A and Q, the outer objective, and the
 * Lipschitz constants L_g = ||A||_2^2 and L_f = lambda_max(Q). */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ls_internal.h"

/* Exact Gram eigenvalues while the Gram product costs at most this many
 * flops (about a second), and CSR is expanded to dense up to this size. */
#define GRAM_MAX_DIM 2000
#define GRAM_MAX_FLOPS 2e10
#define DENSIFY_MAX 4000000.0
#define POWER_MAX_ITER 3000
#define POWER_RTOL 1e-13

void ls_matvec(const ls_data *d, const double *x, double *y)
{
    if (d->A) {
        cblas_dgemv(CblasRowMajor, CblasNoTrans, d->m, d->n, 1.0, d->A, d->n,
                    x, 1, 0.0, y, 1);
        return;
    }
    for (int i = 0; i < d->m; i++) {
        double s = 0;
        for (int64_t k = d->rowptr[i]; k < d->rowptr[i + 1]; k++)
            s += d->val[k] * x[d->colind[k]];
        y[i] = s;
    }
}

void ls_rmatvec(const ls_data *d, const double *r, double *y)
{
    if (d->A) {
        cblas_dgemv(CblasRowMajor, CblasTrans, d->m, d->n, 1.0, d->A, d->n,
                    r, 1, 0.0, y, 1);
        return;
    }
    memset(y, 0, (size_t)d->n * sizeof *y);
    for (int i = 0; i < d->m; i++)
        for (int64_t k = d->rowptr[i]; k < d->rowptr[i + 1]; k++)
            y[d->colind[k]] += d->val[k] * r[i];
}

void ls_residual(const ls_data *d, const double *x, double *r)
{
    ls_matvec(d, x, r);
    for (int i = 0; i < d->m; i++)
        r[i] -= d->b[i];
}

void ls_qmatvec(const ls_data *d, const double *x, double *y)
{
    cblas_dsymv(CblasRowMajor, CblasUpper, d->n, 1.0, d->Q, d->n, x, 1, 0.0,
                y, 1);
}

double ls_f_value(const ls_data *d, const double *x, const double *qx)
{
    ircg_ksum k = {0, 0};
    for (int i = 0; i < d->n; i++) {
        switch (d->outer) {
        case IRCG_OUTER_DIST_SQ:
            ircg_ksum_add(&k, 0.5 * (x[i] - d->c[i]) * (x[i] - d->c[i]));
            break;
        case IRCG_OUTER_QUADRATIC:
            ircg_ksum_add(&k, x[i] * (0.5 * qx[i] + (d->q ? d->q[i] : 0.0)));
            break;
        default:
            ircg_ksum_add(&k, 0.5 * x[i] * x[i]);
            break;
        }
    }
    return ircg_ksum_value(&k);
}

void ls_f_grad_add(const ls_data *d, double sigma, const double *x,
                   const double *qx, double *g)
{
    for (int i = 0; i < d->n; i++) {
        double gi;
        switch (d->outer) {
        case IRCG_OUTER_DIST_SQ: gi = x[i] - d->c[i]; break;
        case IRCG_OUTER_QUADRATIC: gi = qx[i] + (d->q ? d->q[i] : 0.0); break;
        default: gi = x[i]; break;
        }
        g[i] += sigma * gi;
    }
}

/* Largest eigenvalue of the symmetric k x k matrix G (destroyed). */
static ircg_error sym_lmax(double *G, int k, double *lmin, double *lmax)
{
    ircg_error err = IRCG_OK;
    double *w = malloc((size_t)k * sizeof *w);
    if (!w)
        return IRCG_ERR_NOMEM;
    if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', k, G, k, w) != 0)
        err = IRCG_ERR_NUMERICAL;
    else {
        *lmin = w[0]; /* ascending */
        *lmax = w[k - 1];
    }
    free(w);
    return err;
}

/* ||A||^2 = lambda_max of the smaller Gram matrix of the dense m x n A. */
static ircg_error gram_norm2_sq(const double *A, int m, int n, double *out)
{
    int k = m < n ? m : n;
    double lmin, *G = calloc((size_t)k * (size_t)k, sizeof *G);
    ircg_error err;
    if (!G)
        return IRCG_ERR_NOMEM;
    cblas_dsyrk(CblasRowMajor, CblasUpper, n <= m ? CblasTrans : CblasNoTrans,
                k, n <= m ? m : n, 1.0, A, n, 0.0, G, k);
    err = sym_lmax(G, k, &lmin, out);
    *out = fmax(*out, 0.0);
    free(G);
    return err;
}

static double norm2(const double *x, int n)
{
    return cblas_dnrm2(n, x, 1);
}

static double frobenius_sq(const ls_data *d)
{
    const double *a = d->A ? d->A : d->val;
    size_t len = d->A ? (size_t)d->m * (size_t)d->n : (size_t)d->rowptr[d->m];
    ircg_ksum k = {0, 0};
    for (size_t i = 0; i < len; i++)
        ircg_ksum_add(&k, a[i] * a[i]);
    return ircg_ksum_value(&k);
}

/* Power iteration on A'A from a fixed start.  The Rayleigh quotient mu is
 * a lower bound; mu + ||A'A x - mu x|| bounds the eigenvalue it converged
 * to from above, which we take (with a 1e-6 relative margin) as L_g, capped
 * by the always-valid ||A||_F^2.  Used only beyond the exact path's sizes. */
static ircg_error power_norm2_sq(const ls_data *d, double *out)
{
    ircg_error err = IRCG_OK;
    double *x = malloc((size_t)d->n * sizeof *x);
    double *y = malloc((size_t)d->n * sizeof *y);
    double *ax = malloc((size_t)d->m * sizeof *ax);
    double mu = 0, rho = 0, fro = 0;
    if (!x || !y || !ax) {
        err = IRCG_ERR_NOMEM;
        goto done;
    }
    for (int j = 0; j < d->n; j++) /* deterministic, not orthogonal to much */
        x[j] = 1.0 + 0.5 * sin(1.0 + j);
    cblas_dscal(d->n, 1.0 / norm2(x, d->n), x, 1);
    for (int it = 0; it < POWER_MAX_ITER; it++) {
        ls_matvec(d, x, ax);
        ls_rmatvec(d, ax, y);
        double mu_new = cblas_ddot(d->n, x, 1, y, 1);
        cblas_daxpy(d->n, -mu_new, x, 1, y, 1); /* y = A'A x - mu x */
        rho = norm2(y, d->n);
        cblas_daxpy(d->n, mu_new, x, 1, y, 1);
        double ny = norm2(y, d->n);
        int converged = fabs(mu_new - mu) <= POWER_RTOL * mu_new;
        mu = mu_new;
        if (!(ny > 0) || converged)
            break;
        for (int j = 0; j < d->n; j++)
            x[j] = y[j] / ny;
    }
    fro = frobenius_sq(d);
    *out = fmin((mu + rho) * (1.0 + 1e-6), fro);
done:
    free(x);
    free(y);
    free(ax);
    return err;
}

static double *densify(const ls_data *d)
{
    double *A = calloc((size_t)d->m * (size_t)d->n, sizeof *A);
    if (!A)
        return NULL;
    for (int i = 0; i < d->m; i++)
        for (int64_t k = d->rowptr[i]; k < d->rowptr[i + 1]; k++)
            A[(size_t)i * d->n + d->colind[k]] += d->val[k];
    return A;
}

ircg_error ls_norm2_sq(const ls_data *d, double *out)
{
    double k = d->m < d->n ? d->m : d->n;
    double mn = (double)d->m * (double)d->n;
    int exact = k <= GRAM_MAX_DIM && mn * k <= GRAM_MAX_FLOPS &&
                (d->A || mn <= DENSIFY_MAX);
    ircg_error err;

    if (!exact)
        return power_norm2_sq(d, out);
    if (d->A)
        return gram_norm2_sq(d->A, d->m, d->n, out);
    double *A = densify(d);
    if (!A)
        return IRCG_ERR_NOMEM;
    err = gram_norm2_sq(A, d->m, d->n, out);
    free(A);
    return err;
}

ircg_error ls_check_Q(const double *Q, int n, double *lmax, ircg_diag *diag)
{
    double amax = 0, lmin = 0;
    ircg_error err;
    for (size_t i = 0; i < (size_t)n * n; i++)
        amax = fmax(amax, fabs(Q[i]));
    /* Symmetry up to rounding of whoever computed Q. */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (fabs(Q[(size_t)i * n + j] - Q[(size_t)j * n + i]) > 1e-12 * amax)
                return ircg_fail(diag, IRCG_ERR_INVALID, "/outer/Q",
                                 "Q is not symmetric: Q[%d][%d] = %g but "
                                 "Q[%d][%d] = %g", i, j, Q[(size_t)i * n + j],
                                 j, i, Q[(size_t)j * n + i]);
    double *G = malloc((size_t)n * (size_t)n * sizeof *G);
    if (!G)
        return ircg_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    memcpy(G, Q, (size_t)n * (size_t)n * sizeof *G);
    err = sym_lmax(G, n, &lmin, lmax);
    free(G);
    if (err != IRCG_OK)
        return ircg_fail(diag, err, "/outer/Q", "eigenvalues of Q failed");
    /* n max|Q_ij| >= ||Q||_2: the eigenvalue error scale of dsyev. */
    if (lmin < -1e-10 * fmax(amax * n, fabs(*lmax)))
        return ircg_fail(diag, IRCG_ERR_INVALID, "/outer/Q",
                         "Q is not positive semidefinite (smallest "
                         "eigenvalue %g)", lmin);
    *lmax = fmax(*lmax, 0.0);
    return IRCG_OK;
}
