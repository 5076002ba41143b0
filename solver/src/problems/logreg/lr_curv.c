/*
 * lr_curv.c -- the curvature of logistic regression's g near a point: a
 * certified lower bound of the least eigenvalue of its Hessian
 *   A' diag(l''(y_k a_k'v)) A
 * over every v within rho of y (the local bound of lr_cert.c;
 * docs/DESIGN.md "Logistic regression's local curvature").
 *
 * Over the whole domain l'' can be as small as e^-(the largest margin X
 * allows): on an l1 ball of radius 100 and 0/1 features that is e^-100,
 * and the global bound (lr_least_curvature) is worthless.  Near y the
 * margins move by at most ||a_k|| rho, so l'' of each row is at least
 * kappa_k = l''(|s_k| + e_k + ||a_k|| rho) (l'' is even and falls with
 * |s|), and the Hessian dominates A' diag(kappa) A.  Its least eigenvalue
 * is made a bound as ls_linalg.c's gram_norm2_sq does: LAPACK's value less
 * the error of forming the weighted Gram matrix (each entry a sum of at
 * most m products, within gamma(m + 2) of sum kappa_k |a_ki a_kj|, whose
 * matrix has its trace, sum kappa_k ||a_k||^2, as a norm bound) and of
 * dsyev (8 n eps times the largest eigenvalue in magnitude, the
 * convention of ls_linalg.c).  Rows that name a column twice
 * (ls_data.repeats) get no bound: a row's norm is not its entries'.
 */
#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rounding.h"
#include "problems/logreg/lr.h"

/* The local bound is made only where its two Gram matrices and their
 * eigenvalues cost at most this many multiply-adds each (half the sum of
 * the squared row lengths, and n^3). */
#define CURV_MAX_PRODUCTS 4e8
/* Weights below this are taken as 0: their products with the entries
 * could be subnormal, where the relative rounding model fails. */
#define CURV_MIN_WEIGHT 1e-200

static int64_t row_len(const ls_data *d, int i)
{
    return d->A ? d->n : d->rowptr[i + 1] - d->rowptr[i];
}

static const double *row_val(const ls_data *d, int i)
{
    return d->A ? d->A + (size_t)i * d->n : d->val + d->rowptr[i];
}

int lr_curv_affordable(const ls_data *d)
{
    double c = (double)d->n * d->n * d->n;
    if (d->n > IRCG_TWOSTAGE_MAX_DIM || d->repeats)
        return 0;
    for (int i = 0; i < d->m; i++) {
        double k = (double)row_len(d, i);
        c += 0.5 * k * (k + 1);
    }
    return c <= CURV_MAX_PRODUCTS;
}

/* ||a_k||, rounded up, into b->rown (made once). */
static ircg_error row_norms(const ls_data *d, ls_cert_buf *b)
{
    if (b->rown)
        return IRCG_OK;
    if (!(b->rown = malloc((size_t)d->m * sizeof *b->rown)))
        return IRCG_ERR_NOMEM;
    for (int i = 0; i < d->m; i++) {
        const double *a = row_val(d, i);
        int64_t k = row_len(d, i);
        double s = 0;
        for (int64_t j = 0; j < k; j++)
            s += a[j] * a[j];
        b->rown[i] = slv_up(sqrt(slv_up(s, (int)(k < 1000000 ? k : 1000000))), 1);
    }
    return IRCG_OK;
}

/* l''(t) = e^-t / (1 + e^-t)^2 at t >= 0, rounded down (exp's error is an
 * ulp or two: 1e-12 covers it and the three operations). */
static double curvature_at(double t)
{
    if (!(t < 700))
        return 0;
    double e = exp(-t), k = e / ((1 + e) * (1 + e)) * (1 - 1e-12);
    return k >= CURV_MIN_WEIGHT ? k : 0;
}

/* G (upper triangle, row-major) = sum_k w_k a_k a_k'; returns the trace
 * bound sum_k w_k ||a_k||^2. */
static double weighted_gram(const ls_data *d, const double *w, const double *rown, double *G)
{
    size_t n = (size_t)d->n;
    double trace = 0;
    memset(G, 0, n * n * sizeof *G);
    for (int i = 0; i < d->m; i++) {
        if (!(w[i] > 0))
            continue;
        trace += w[i] * rown[i] * rown[i];
        if (d->A) {
            cblas_dsyr(CblasRowMajor, CblasUpper, d->n, w[i], d->A + (size_t)i * n, 1, G, d->n);
            continue;
        }
        /* each pair of entries once: the row names no column twice
         * (lr_curv_affordable), so p < q is an entry off the diagonal */
        for (int64_t p = d->rowptr[i]; p < d->rowptr[i + 1]; p++) {
            double wa = w[i] * d->val[p];
            int cp = d->colind[p];
            for (int64_t q = p; q < d->rowptr[i + 1]; q++) {
                int cq = d->colind[q];
                size_t at = cp < cq ? (size_t)cp * n + (size_t)cq : (size_t)cq * n + (size_t)cp;
                G[at] += wa * d->val[q];
            }
        }
    }
    return slv_up(trace, d->m + 2);
}

ircg_error lr_curvature(const ls_data *d, ls_cert_buf *b, const double *s, const double *es,
                        double rho, double *mu)
{
    size_t n = (size_t)d->n;
    ircg_error err;
    *mu = 0;
    if ((err = row_norms(d, b)) != IRCG_OK)
        return err;
    if (!b->gram && !(b->gram = malloc(n * n * sizeof *b->gram)))
        return IRCG_ERR_NOMEM;
    if (!b->kw && !(b->kw = malloc(((size_t)d->m > n ? (size_t)d->m : n) * sizeof *b->kw)))
        return IRCG_ERR_NOMEM;
    for (int i = 0; i < d->m; i++)
        b->kw[i] = curvature_at(slv_up(fabs(s[i]) + es[i] + b->rown[i] * rho, 2));
    double trace = weighted_gram(d, b->kw, b->rown, b->gram);
    /* the eigenvalues overwrite kw: the weights are spent; dsyev failing
     * to converge leaves no bound (mu 0), not a failed certificate */
    if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', d->n, b->gram, d->n, b->kw) != 0)
        return IRCG_OK;
    double lmin = b->kw[0], scale = fmax(fabs(lmin), fabs(b->kw[n - 1]));
    double e1 = slv_gamma(d->m + 2) * trace, e2 = 8.0 * (double)n * DBL_EPSILON * scale;
    double lower = lmin - e1 - e2;
    /* the subtraction's own rounding, and this line's */
    lower -= slv_gamma(4) * (fabs(lmin) + e1 + e2);
    *mu = isfinite(lower) && lower > 0 ? lower * (1 - 2 * DBL_EPSILON) : 0;
    return IRCG_OK;
}
