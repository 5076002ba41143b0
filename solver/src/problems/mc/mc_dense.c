/*
 * mc_dense.c -- dense SVDs of the held n x p matrix, for small instances:
 * singular values with the margin of LAPACK's backward error (the
 * certificates' upper bounds of sigma_1 and of the nuclear norm: mc_cert.c,
 * mc_point_cert.c), and the Euclidean projection onto the nuclear ball
 * (FC-BiO's point oracle, mc_point.c).
 *
 * The held matrix has the whole matrix's singular values (mc_data's
 * compaction: the whole is E Y with E'E = I), so both are the whole
 * matrix's, and a projection of the held matrix is the held part of the
 * whole one's.
 *
 * LAPACK's SVDs are backward stable: the singular values computed for A
 * are the exact ones of A + E with ||E||_2 <= p(n, p) eps ||A||_2 for a
 * modest p(n, p) (LAPACK Users' Guide, "Error Bounds for the Singular
 * Value Decomposition"), so |sv_i - sigma_i(A)| <= p(n, p) eps sigma_1(A)
 * (Weyl); 16 (n + p) is taken for p(n, p).
 */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "base/rounding.h"
#include "problems/domain.h"
#include "problems/mc/mc.h"

double mc_svd_margin(int n, int p)
{
    return 16.0 * (n + p) * DBL_EPSILON;
}

int mc_dense_svals(double *A, int n, int p, double *sv)
{
    int k = n < p ? n : p;
    double *superb = malloc((size_t)(k > 1 ? k : 2) * sizeof *superb);
    int rc = !superb ? -1
                     : LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', n, p, A, n, sv, NULL, 1,
                                      NULL, 1, superb);
    free(superb);
    return rc == 0 ? 0 : -1;
}

double mc_sv1_hi(double sv1, int n, int p)
{
    return slv_up(sv1 * (1 + mc_svd_margin(n, p)), 2);
}

double mc_nuclear_hi(const double *sv, int n, int p)
{
    int k = n < p ? n : p;
    double s = 0;
    for (int i = 0; i < k; i++)
        s += sv[i];
    /* every value within the margin of sigma_1 <= mc_sv1_hi; the sum of k
     * nonnegative terms errs by gamma(k) of itself */
    return slv_up(s + k * (mc_svd_margin(n, p) * mc_sv1_hi(sv[0], n, p)), k + 4);
}

/* ---------------------------------------------------------- projection -- */

void mc_svd_buf_free(mc_svd_buf *b)
{
    free(b->a);
    free(b->u);
    free(b->vt);
    free(b->s);
    free(b->sp);
    *b = (mc_svd_buf){0};
}

int mc_svd_buf_init(mc_svd_buf *b, int n, int p)
{
    size_t k = (size_t)(n < p ? n : p);
    *b = (mc_svd_buf){.n = n, .p = p, .k = (int)k};
    b->a = malloc((size_t)n * p * sizeof *b->a);
    b->u = malloc((size_t)n * k * sizeof *b->u);
    b->vt = malloc(k * (size_t)p * sizeof *b->vt);
    b->s = malloc(k * sizeof *b->s);
    b->sp = malloc(k * sizeof *b->sp);
    if (!b->a || !b->u || !b->vt || !b->s || !b->sp) {
        mc_svd_buf_free(b);
        return -1;
    }
    return 0;
}

int mc_svd_thin(mc_svd_buf *b, const double *y)
{
    memcpy(b->a, y, (size_t)b->n * b->p * sizeof *b->a);
    return LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'S', b->n, b->p, b->a, b->n, b->s, b->u, b->n,
                          b->vt, b->k) == 0
               ? 0
               : -1;
}

int mc_svd_rank(const mc_svd_buf *b)
{
    /* values at dgesdd's rounding level are noise (mc_start.c's rule) */
    double cut = (double)b->k * DBL_EPSILON * b->s[0];
    int r = 0;
    while (r < b->k && b->s[r] > cut)
        r++;
    return r;
}

/* out = U[:, :r] diag(w) Vt[:r, :] from the buffer's factors (a: scratch). */
static void compose(mc_svd_buf *b, const double *w, int r, double *out)
{
    int n = b->n, p = b->p;
    if (r == 0) {
        memset(out, 0, (size_t)n * p * sizeof *out);
        return;
    }
    for (int l = 0; l < r; l++)
        for (int i = 0; i < n; i++)
            b->a[i + (size_t)l * n] = b->u[i + (size_t)l * n] * w[l];
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, p, r, 1.0, b->a, n, b->vt,
                b->k, 0.0, out, n);
}

/* Whether the values sv (k of them, computed) sum to at most delta. */
static int inside(const double *sv, int k, double delta, int *ok)
{
    slv_ksum sum = {0, 0};
    for (int i = 0; i < k; i++)
        slv_ksum_add(&sum, sv[i]);
    *ok = isfinite(slv_ksum_value(&sum));
    return slv_ksum_value(&sum) <= delta;
}

ircg_error mc_project_nuclear(mc_svd_buf *b, double delta, const double *y, double *out,
                              int *rank, int *hint)
{
    int64_t rho = 0;
    int ok = 1;
    size_t np = (size_t)b->n * b->p;
    if (*hint) { /* the values alone first: a third of the cost */
        memcpy(b->a, y, np * sizeof *b->a);
        if (mc_dense_svals(b->a, b->n, b->p, b->s) != 0)
            return IRCG_ERR_NUMERICAL;
        if (inside(b->s, b->k, delta, &ok)) {
            if (out != y)
                memcpy(out, y, np * sizeof *out);
            *rank = mc_svd_rank(b);
            return IRCG_OK;
        }
        if (!ok)
            return IRCG_ERR_NUMERICAL;
    }
    if (mc_svd_thin(b, y) != 0)
        return IRCG_ERR_NUMERICAL;
    *hint = inside(b->s, b->k, delta, &ok);
    if (!ok)
        return IRCG_ERR_NUMERICAL;
    if (*hint) { /* inside: y itself, exactly */
        if (out != y)
            memcpy(out, y, np * sizeof *out);
        *rank = mc_svd_rank(b);
        return IRCG_OK;
    }
    /* the values sorted decreasingly already: the simplex's threshold */
    double theta = slv_simplex_threshold_sorted(b->s, b->k, delta, &rho);
    int r = 0;
    for (int i = 0; i < b->k; i++) {
        b->sp[i] = fmax(b->s[i] - theta, 0.0);
        r += b->sp[i] > 0;
    }
    compose(b, b->sp, r, out);
    *rank = r;
    return IRCG_OK;
}
