/* ls_linalg.c -- products with A and Q, the outer objective, and the
 * Lipschitz constants L_g = ||A||_2^2 and L_f = lambda_max(Q) (or
 * ||A_v||_2^2 for the validation loss).  L_g must be
 * an upper bound, not an estimate: the closed-loop step and Bi-SG's step
 * 1/L_g are only safe with one. */
#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/ls/ls.h"
#include "base/rng.h"
#include "base/rounding.h"

/* Exact Gram eigenvalues while the Gram product costs at most this many
 * flops (about a second), and CSR is expanded to dense up to this size. */
#define GRAM_MAX_DIM 2000
#define GRAM_MAX_FLOPS 2e10
#define DENSIFY_MAX 4000000.0
/* A CSR A too big to densify but of few columns: its Gram matrix A'A
 * summed row by row (nnz_i^2 products a row), up to this many products
 * (a minute or so; Lanczos would make hundreds of passes over A). */
#define SPARSE_GRAM_MAX 3e10
/* The Lanczos bound: its failure probability and the margin aimed at. */
#define KW_FAIL 1e-10
#define KW_EPS 0.01
#define LZ_MAX_STEPS 400
#define LZ_BREAKDOWN 1e-10

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
    if (d->colptr) { /* the same sums, by gathers (ls.h) */
        for (int j = 0; j < d->n; j++) {
            double s = 0;
            for (int64_t k = d->colptr[j]; k < d->colptr[j + 1]; k++)
                s += d->cval[k] * r[d->rowind[k]];
            y[j] = s;
        }
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
    if (d->outer == IRCG_OUTER_VALIDATION) {
        ls_residual(d->vset, x, y);
        return;
    }
    cblas_dsymv(CblasRowMajor, CblasUpper, d->n, 1.0, d->Q, d->n, x, 1, 0.0,
                y, 1);
}

/* y += alpha A' r. */
static void rmatvec_add(const ls_data *d, double alpha, const double *r, double *y)
{
    if (d->A) {
        cblas_dgemv(CblasRowMajor, CblasTrans, d->m, d->n, alpha, d->A, d->n,
                    r, 1, 1.0, y, 1);
        return;
    }
    if (d->colptr) {
        for (int j = 0; j < d->n; j++) {
            double s = y[j];
            for (int64_t k = d->colptr[j]; k < d->colptr[j + 1]; k++)
                s += alpha * d->cval[k] * r[d->rowind[k]];
            y[j] = s;
        }
        return;
    }
    for (int i = 0; i < d->m; i++)
        for (int64_t k = d->rowptr[i]; k < d->rowptr[i + 1]; k++)
            y[d->colind[k]] += alpha * d->val[k] * r[i];
}

double ls_f_value(const ls_data *d, const double *x, const double *qx)
{
    slv_ksum k = {0, 0};
    if (d->outer == IRCG_OUTER_VALIDATION)
        return slv_half_sq(qx, d->vset->m);
    for (int i = 0; i < d->n; i++) {
        switch (d->outer) {
        case IRCG_OUTER_DIST_SQ:
            slv_ksum_add(&k, 0.5 * (x[i] - d->c[i]) * (x[i] - d->c[i]));
            break;
        case IRCG_OUTER_QUADRATIC:
            slv_ksum_add(&k, x[i] * (0.5 * qx[i] + (d->q ? d->q[i] : 0.0)));
            break;
        default:
            slv_ksum_add(&k, 0.5 * x[i] * x[i]);
            break;
        }
    }
    return slv_ksum_value(&k);
}

void ls_f_grad_add(const ls_data *d, double sigma, const double *x,
                   const double *qx, double *g)
{
    if (d->outer == IRCG_OUTER_VALIDATION) {
        rmatvec_add(d->vset, sigma, qx, g); /* A_v'(A_v x - b_v) */
        return;
    }
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

double ls_f_curvature(const ls_data *d, const double *y1, const double *y0,
                      const double *q1, const double *q0)
{
    slv_ksum k = {0, 0};
    if (d->outer == IRCG_OUTER_VALIDATION)
        for (int i = 0; i < d->vset->m; i++)
            slv_ksum_add(&k, (q1[i] - q0[i]) * (q1[i] - q0[i]));
    else if (d->outer == IRCG_OUTER_QUADRATIC)
        for (int i = 0; i < d->n; i++)
            slv_ksum_add(&k, (y1[i] - y0[i]) * (q1[i] - q0[i]));
    else
        for (int i = 0; i < d->n; i++)
            slv_ksum_add(&k, (y1[i] - y0[i]) * (y1[i] - y0[i]));
    return fmax(slv_ksum_value(&k), 0.0);
}

double ls_f_slope(const ls_data *d, const double *y1, const double *y0, const double *q1,
                  const double *q0)
{
    slv_ksum k = {0, 0};
    if (d->outer == IRCG_OUTER_VALIDATION) /* <A_v'(A_v y0 - b_v), d> */
        for (int i = 0; i < d->vset->m; i++)
            slv_ksum_add(&k, q0[i] * (q1[i] - q0[i]));
    else
        for (int i = 0; i < d->n; i++) {
            double gi = d->outer == IRCG_OUTER_QUADRATIC ? q0[i] + (d->q ? d->q[i] : 0.0)
                        : d->outer == IRCG_OUTER_DIST_SQ ? y0[i] - d->c[i]
                                                         : y0[i];
            slv_ksum_add(&k, gi * (y1[i] - y0[i]));
        }
    return slv_ksum_value(&k);
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

/* ||A||^2 = lambda_max of the smaller Gram matrix of the dense m x n A,
 * and a certified lower bound of lambda_min(A'A) (0 when m < n, where
 * A'A is singular): the computed lambda_min less the error of forming the
 * Gram matrix (each entry within gamma_m of sum |a_li a_lj|, so in norm
 * within gamma_m ||A||_F^2) and of dsyev (a few k eps ||G||). */
static ircg_error gram_norm2_sq(const double *A, int m, int n, double *out, double *mu)
{
    int k = m < n ? m : n;
    double lmin, trace = 0, *G = calloc((size_t)k * (size_t)k, sizeof *G);
    ircg_error err;
    if (!G)
        return IRCG_ERR_NOMEM;
    cblas_dsyrk(CblasRowMajor, CblasUpper, n <= m ? CblasTrans : CblasNoTrans,
                k, n <= m ? m : n, 1.0, A, n, 0.0, G, k);
    for (int i = 0; i < k; i++)
        trace += G[(size_t)i * k + i]; /* ||A||_F^2 */
    err = sym_lmax(G, k, &lmin, out);
    *out = fmax(*out, 0.0);
    *mu = 0;
    if (err == IRCG_OK && n <= m)
        *mu = fmax(0.0, lmin - slv_gamma(m) * trace - 8.0 * k * DBL_EPSILON * *out);
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
    slv_ksum k = {0, 0};
    for (size_t i = 0; i < len; i++)
        slv_ksum_add(&k, a[i] * a[i]);
    return slv_ksum_value(&k);
}

/* ||A||_1 ||A||_inf (largest column and row sums of |A|), an upper bound
 * of ||A||_2^2 by Hoelder's inequality; often far below ||A||_F^2 for
 * sparse A. */
static ircg_error holder_bound(const ls_data *d, double *out)
{
    double *col = calloc((size_t)d->n, sizeof *col), rmax = 0, cmax = 0;
    if (!col)
        return IRCG_ERR_NOMEM;
    for (int i = 0; i < d->m; i++) {
        double r = 0;
        if (d->A) {
            for (int j = 0; j < d->n; j++) {
                double a = fabs(d->A[(size_t)i * d->n + j]);
                r += a;
                col[j] += a;
            }
        } else {
            for (int64_t k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
                r += fabs(d->val[k]);
                col[d->colind[k]] += fabs(d->val[k]);
            }
        }
        rmax = fmax(rmax, r);
    }
    for (int j = 0; j < d->n; j++)
        cmax = fmax(cmax, col[j]);
    free(col);
    *out = rmax * cmax;
    return IRCG_OK;
}

/* The Kuczynski-Wozniakowski failure bound of Lanczos from a start uniform
 * on the sphere (SIAM J. Matrix Anal. Appl. 13 (1992), Thm. 4.2): for a
 * positive semidefinite n x n M, after k products the largest Ritz value
 * theta satisfies theta < (1 - eps) lambda_max(M) with probability at most
 * 1.648 sqrt(n) exp(-sqrt(eps) (2k - 1)), whatever the spectrum -- clusters
 * and gaps do not enter, unlike the power method's ratio lambda_2/lambda_1.
 * The eps that makes that probability KW_FAIL after k products: */
static double kw_eps(int n, int k)
{
    double s = log(1.648 * sqrt((double)n) / KW_FAIL) / (2.0 * k - 1.0);
    return s * s;
}

/* Lanczos on A'A (three-term recurrence, local reorthogonalization) from a
 * normal pseudo-random start (a normal vector divided by its norm is
 * uniform on the sphere; slv_rng_normal is Irwin-Hall, normal to within
 * its 12-term sum, and reproducible on every machine), until
 * kw_eps <= KW_EPS: about 150 products for n = 1e6.  Returns
 * theta / (1 - eps) with a 1e-10 rounding margin: an upper bound of
 * ||A||_2^2 except with probability KW_FAIL over the start.  A breakdown
 * (beta tiny) means the Krylov space is invariant; from a random start it
 * then holds the top eigenvector (almost surely) and theta is exact.
 * INFINITY when k would exceed LZ_MAX_STEPS. */
ircg_error ls_norm2_sq_lanczos(const ls_data *d, double *out)
{
    int n = d->n, k = 2, j = 0, breakdown = 0;
    ircg_error err = IRCG_OK;
    while (k < LZ_MAX_STEPS && kw_eps(n, k) > KW_EPS)
        k++;
    double *q = malloc((size_t)n * sizeof *q), *qp = calloc((size_t)n, sizeof *qp);
    double *w = malloc((size_t)n * sizeof *w), *ax = malloc((size_t)d->m * sizeof *ax);
    double *al = malloc((size_t)k * sizeof *al), *be = malloc((size_t)k * sizeof *be);
    double bprev = 0, amax = 0;
    slv_rng rng;
    if (!q || !qp || !w || !ax || !al || !be) {
        err = IRCG_ERR_NOMEM;
        goto done;
    }
    slv_rng_seed(&rng, 0x6c616e637a6f73ULL, (uint64_t)n);
    for (int i = 0; i < n; i++)
        q[i] = slv_rng_normal(&rng);
    cblas_dscal(n, 1.0 / norm2(q, n), q, 1);
    for (j = 0; j < k; j++) {
        if (slv_stop_due()) { /* ircg_stop_set: between two products */
            err = IRCG_ERR_STOPPED;
            goto done;
        }
        ls_matvec(d, q, ax);
        ls_rmatvec(d, ax, w);
        al[j] = cblas_ddot(n, q, 1, w, 1);
        amax = fmax(amax, fabs(al[j]));
        cblas_daxpy(n, -al[j], q, 1, w, 1);
        cblas_daxpy(n, -bprev, qp, 1, w, 1);
        double c = cblas_ddot(n, q, 1, w, 1); /* once more against q */
        cblas_daxpy(n, -c, q, 1, w, 1);
        al[j] += c;
        be[j] = norm2(w, n);
        if (!(be[j] > LZ_BREAKDOWN * amax)) {
            breakdown = 1;
            j++;
            break;
        }
        memcpy(qp, q, (size_t)n * sizeof *q);
        for (int i = 0; i < n; i++)
            q[i] = w[i] / be[j];
        bprev = be[j];
    }
    /* eigenvalues of the j x j tridiagonal T (al on, be off the diagonal) */
    if (LAPACKE_dsterf(j, al, be) != 0) {
        err = IRCG_ERR_NUMERICAL;
        goto done;
    }
    double theta = fmax(al[j - 1], 0.0), eps = breakdown ? 0.0 : kw_eps(n, j);
    *out = eps < 1 ? theta * (1 + 1e-10) / (1 - eps) : INFINITY;
done:
    free(q);
    free(qp);
    free(w);
    free(ax);
    free(al);
    free(be);
    return err;
}

/* Beyond the exact path's sizes: the smallest of two rigorous bounds
 * (||A||_F^2 and Hoelder's) and the Lanczos one. */
static ircg_error iterative_norm2_sq(const ls_data *d, double *out)
{
    double lz = INFINITY, ho = INFINITY;
    ircg_error err = ls_norm2_sq_lanczos(d, &lz);
    if (err == IRCG_OK)
        err = holder_bound(d, &ho);
    *out = fmin(fmin(lz, ho), frobenius_sq(d));
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

/* The products of the row-by-row Gram matrix of a CSR A. */
static double sparse_gram_cost(const ls_data *d)
{
    double c = 0;
    for (int i = 0; i < d->m; i++) {
        double k = (double)(d->rowptr[i + 1] - d->rowptr[i]);
        c += k * k;
    }
    return c;
}

/* ||A||^2 = lambda_max(A'A) of a CSR A with few columns: A'A (n x n, the
 * upper triangle) summed over the rows' outer products, then LAPACK. */
static ircg_error sparse_gram_norm2_sq(const ls_data *d, double *out)
{
    int n = d->n;
    double lmin, *G = calloc((size_t)n * (size_t)n, sizeof *G);
    if (!G)
        return IRCG_ERR_NOMEM;
    for (int i = 0; i < d->m; i++)
        for (int64_t p = d->rowptr[i]; p < d->rowptr[i + 1]; p++)
            for (int64_t q = d->rowptr[i]; q < d->rowptr[i + 1]; q++) {
                int a = d->colind[p], b = d->colind[q];
                if (a <= b) /* each pair once per order: (a, b) and (b, a) */
                    G[(size_t)a * n + b] += d->val[p] * d->val[q];
            }
    ircg_error err = sym_lmax(G, n, &lmin, out);
    *out = fmax(*out, 0.0);
    free(G);
    return err;
}

ircg_error ls_norm2_sq(const ls_data *d, double *out, double *mu)
{
    double k = d->m < d->n ? d->m : d->n;
    double mn = (double)d->m * (double)d->n, mu_ = 0;
    int exact = k <= GRAM_MAX_DIM && mn * k <= GRAM_MAX_FLOPS &&
                (d->A || mn <= DENSIFY_MAX);
    ircg_error err;

    if (!mu)
        mu = &mu_;
    *mu = 0; /* unknown but where the Gram matrix is made */
    if (!exact && !d->A && d->n <= GRAM_MAX_DIM && sparse_gram_cost(d) <= SPARSE_GRAM_MAX)
        return sparse_gram_norm2_sq(d, out);
    if (!exact)
        return iterative_norm2_sq(d, out);
    if (d->A)
        return gram_norm2_sq(d->A, d->m, d->n, out, mu);
    double *A = densify(d);
    if (!A)
        return IRCG_ERR_NOMEM;
    err = gram_norm2_sq(A, d->m, d->n, out, mu);
    free(A);
    return err;
}

ircg_error ls_check_Q(const double *Q, int n, double *lmax, double *mu, ircg_diag *diag)
{
    double amax = 0, lmin = 0;
    ircg_error err;
    for (size_t i = 0; i < (size_t)n * n; i++)
        amax = fmax(amax, fabs(Q[i]));
    /* Symmetry up to rounding of whoever computed Q. */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (fabs(Q[(size_t)i * n + j] - Q[(size_t)j * n + i]) > 1e-12 * amax)
                return slv_fail(diag, IRCG_ERR_INVALID, "/outer/Q",
                                 "Q is not symmetric: Q[%d][%d] = %g but "
                                 "Q[%d][%d] = %g", i, j, Q[(size_t)i * n + j],
                                 j, i, Q[(size_t)j * n + i]);
    double *G = malloc((size_t)n * (size_t)n * sizeof *G);
    if (!G)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    memcpy(G, Q, (size_t)n * (size_t)n * sizeof *G);
    err = sym_lmax(G, n, &lmin, lmax);
    free(G);
    if (err != IRCG_OK)
        return slv_fail(diag, err, "/outer/Q", "eigenvalues of Q failed");
    /* n max|Q_ij| >= ||Q||_2: the eigenvalue error scale of dsyev. */
    if (lmin < -1e-10 * fmax(amax * n, fabs(*lmax)))
        return slv_fail(diag, IRCG_ERR_INVALID, "/outer/Q",
                         "Q is not positive semidefinite (smallest "
                         "eigenvalue %g)", lmin);
    *lmax = fmax(*lmax, 0.0);
    /* lambda_min less dsyev's error scale: a certified curvature of f */
    *mu = fmax(0.0, lmin - 8.0 * n * DBL_EPSILON * fmax(amax * n, *lmax));
    return IRCG_OK;
}

/* Both triangles of the upper one of G (k x k, row-major). */
static void mirror(double *G, int k)
{
    for (int i = 0; i < k; i++)
        for (int j = 0; j < i; j++)
            G[(size_t)i * k + j] = G[(size_t)j * k + i];
}

/* G = A'A (n x n, both triangles): by BLAS for a dense A or a CSR one
 * small enough to densify, else by the rows' outer products. */
void ls_ata(const ls_data *d, double *G)
{
    int n = d->n;
    double *dense = !d->A && (double)d->m * d->n <= DENSIFY_MAX ? densify(d) : NULL;
    const double *A = d->A ? d->A : dense;
    if (A) {
        cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, n, d->m, 1.0, A, n, 0.0, G, n);
        mirror(G, n);
        free(dense);
        return;
    }
    memset(G, 0, (size_t)n * (size_t)n * sizeof *G);
    for (int i = 0; i < d->m; i++)
        for (int64_t p = d->rowptr[i]; p < d->rowptr[i + 1]; p++)
            for (int64_t q = d->rowptr[i]; q < d->rowptr[i + 1]; q++)
                G[(size_t)d->colind[p] * n + d->colind[q]] += d->val[p] * d->val[q];
}

ircg_error ls_gram(const ls_data *d, double *G, int64_t *side)
{
    if (d->n <= d->m) {
        *side = d->n;
        ls_ata(d, G);
        return IRCG_OK;
    }
    double *dense = d->A ? NULL : densify(d);
    const double *A = d->A ? d->A : dense;
    if (!A)
        return IRCG_ERR_NOMEM;
    *side = d->m;
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasNoTrans, d->m, d->n, 1.0, A, d->n, 0.0, G,
                d->m);
    mirror(G, d->m);
    free(dense);
    return IRCG_OK;
}
