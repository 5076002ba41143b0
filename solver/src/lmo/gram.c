/* gram.c -- see gram.h.  With C'C V_m = V_m T_m + beta_m v_{m+1} e_m' and
 * T_m = S Theta S', the Ritz pair (theta, V s) has the eigen-residual
 * beta_m |s_m|, and its singular triplet (sqrt(theta), C V s / sqrt(theta),
 * V s) the residual ||C'u - sqrt(theta) v|| = beta_m |s_m| / sqrt(theta):
 * the test "<= tol sqrt(theta)" reads beta_m |s_m| <= tol theta. */
#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "base/util.h"
#include "lmo/gram.h"

struct lmo_gram {
    int n, p, mmax;
    double *V;              /* p x (mmax + 1): the Lanczos basis            */
    double *Y;              /* n x mmax: C V[:, j], from the products       */
    double *alpha, *beta;   /* T's diagonal and off-diagonal (mmax)         */
    double *d, *e, *Z;      /* eigen-decomposition scratch of T             */
    double *h;              /* reorthogonalization coefficients, mmax + 1   */
    double theta;           /* top Ritz value of the last cycle             */
    const ircg_comm *comm;  /* NULL, or the ranks holding rows of u        */
};

void lmo_gram_set_comm(lmo_gram *g, const ircg_comm *comm) { g->comm = comm; }

lmo_gram *lmo_gram_new(int n, int p, int mmax)
{
    lmo_gram *g = calloc(1, sizeof *g);

    if (!g)
        return NULL;
    /* one step past p: that step finds the space invariant */
    g->mmax = mmax < p + 1 ? mmax : p + 1;
    if (g->mmax < 1)
        g->mmax = 1;
    g->n = n;
    g->p = p;
    size_t m = (size_t)g->mmax;
    g->V = malloc((size_t)p * (m + 1) * sizeof(double));
    g->Y = malloc((size_t)n * m * sizeof(double));
    g->alpha = malloc(m * sizeof(double));
    g->beta = malloc(m * sizeof(double));
    g->d = malloc(m * sizeof(double));
    g->e = malloc(m * sizeof(double));
    g->Z = malloc(m * m * sizeof(double));
    g->h = malloc((m + 1) * sizeof(double));
    if (!g->V || !g->Y || !g->alpha || !g->beta || !g->d || !g->e || !g->Z || !g->h) {
        lmo_gram_free(g);
        return NULL;
    }
    return g;
}

void lmo_gram_free(lmo_gram *g)
{
    if (!g)
        return;
    free(g->V);
    free(g->Y);
    free(g->alpha);
    free(g->beta);
    free(g->d);
    free(g->e);
    free(g->Z);
    free(g->h);
    free(g);
}

int lmo_gram_keeps_start(const double *v0, int p)
{
    return fabs(cblas_dnrm2(p, v0, 1) - 1.0) <= 4 * DBL_EPSILON;
}

/* V[:,0] = v0, or v0 / ||v0|| unless it is unit already (gram.h); 0 when
 * there is no usable start. */
static int set_start(lmo_gram *g, const double *v0)
{
    double nv;

    if (v0)
        memcpy(g->V, v0, (size_t)g->p * sizeof(double));
    else
        lmo_pseudo_random(g->V, g->p);
    nv = cblas_dnrm2(g->p, g->V, 1);
    if (!(nv > 0) || !isfinite(nv))
        return 0;
    if (!(v0 && lmo_gram_keeps_start(v0, g->p)))
        cblas_dscal(g->p, 1.0 / nv, g->V, 1);
    return 1;
}

/* Top eigenpair of T_m: g->theta and, in Z's column m - 1, its vector.
 * 0 on success. */
static int tridiag_top(lmo_gram *g, int m)
{
    memcpy(g->d, g->alpha, (size_t)m * sizeof(double));
    if (m > 1)
        memcpy(g->e, g->beta, (size_t)(m - 1) * sizeof(double));
    if (LAPACKE_dstev(LAPACK_COL_MAJOR, 'V', m, g->d, g->e, g->Z, m) != 0)
        return -1;
    g->theta = g->d[m - 1]; /* ascending */
    return 0;
}

/* One restart cycle from V[:,0].  Returns the basis size m used (0: C V0 =
 * 0) and sets *done when converged, invariant or out of products; *err 1
 * on a numerical failure, 2 when the thread's stop was due before a
 * product (one process only: the ranks of a distributed operator take
 * every product together, and stop between iterations by their vote). */
static int cycle(lmo_gram *g, lmo_gram_fn op, void *ctx, double tol, int64_t max_mv,
                 lmo_svd_out *out, int *done, int *err)
{
    int p = g->p, j;
    double tnorm = 0;

    for (j = 0; j < g->mmax; j++) {
        double *vj = g->V + (size_t)j * p, *w = g->V + (size_t)(j + 1) * p;
        if (!g->comm && slv_stop_due()) {
            *err = 2;
            return j;
        }
        op(ctx, vj, g->Y + (size_t)j * g->n, w);
        out->matvecs += 2;
        if (j > 0)
            cblas_daxpy(p, -g->beta[j - 1], g->V + (size_t)(j - 1) * p, 1, w, 1);
        g->alpha[j] = cblas_ddot(p, vj, 1, w, 1); /* ||C v_j||^2 */
        if (j == 0 && !(g->alpha[0] > 0))
            return 0;
        cblas_daxpy(p, -g->alpha[j], vj, 1, w, 1);
        lmo_reorth(g->V, p, j + 1, w, g->h);
        g->beta[j] = cblas_dnrm2(p, w, 1);
        tnorm = fmax(tnorm, fmax(fabs(g->alpha[j]), g->beta[j]));
        if (tridiag_top(g, j + 1) != 0) {
            *err = 1;
            return j + 1;
        }
        /* C'C V_{j+1} lies in span V_{j+1}: T_{j+1} is exact */
        int inv = !(g->beta[j] > 1e-14 * tnorm);
        double s_last = g->Z[j + (size_t)j * (j + 1)];
        out->converged = inv || fabs(g->beta[j] * s_last) <= tol * g->theta;
        if (out->converged || out->matvecs + 2 > max_mv) {
            *done = 1;
            return j + 1;
        }
        cblas_dscal(p, 1.0 / g->beta[j], w, 1);
    }
    return j; /* basis full: restart */
}

/* The top right Ritz vector of the last cycle (basis size m) into v (p:
 * the answer's, or the basis's column m, free after the cycle). */
static void ritz_v(lmo_gram *g, int m, double *v)
{
    const double *s = g->Z + (size_t)(m - 1) * m;
    cblas_dgemv(CblasColMajor, CblasNoTrans, g->p, m, 1.0, g->V, g->p, s, 1, 0.0, v, 1);
    cblas_dscal(g->p, 1.0 / cblas_dnrm2(g->p, v, 1), v, 1);
}

/* The top Ritz triplet of the last cycle (basis size m) into out. */
static void ritz(lmo_gram *g, int m, lmo_svd_out *out)
{
    const double *s = g->Z + (size_t)(m - 1) * m;
    double nu;

    ritz_v(g, m, out->v);
    cblas_dgemv(CblasColMajor, CblasNoTrans, g->n, m, 1.0, g->Y, g->n, s, 1, 0.0,
                out->u, 1);
    /* C v / ||v|| up to the scaling */
    nu = g->comm ? sqrt(slv_comm_sum1(g->comm, cblas_ddot(g->n, out->u, 1, out->u, 1)))
                 : cblas_dnrm2(g->n, out->u, 1);
    if (nu > 0)
        cblas_dscal(g->n, 1.0 / nu, out->u, 1);
    out->sv[0] = sqrt(fmax(g->theta, 0.0));
}

ircg_error lmo_gram_run(lmo_gram *g, lmo_gram_fn op, void *ctx, const double *v0,
                        double tol, int64_t max_mv, lmo_svd_out *out)
{
    int done = 0, err = 0, tries = 0, m;

    out->matvecs = 0;
    out->converged = out->zero = 0;
    memset(out->sv, 0, sizeof out->sv);
    if (!set_start(g, v0))
        set_start(g, NULL);
    while (!done) {
        m = cycle(g, op, ctx, tol, max_mv, out, &done, &err);
        if (err) /* out's vectors untouched: the caller's warm start stays */
            return err == 2 ? IRCG_ERR_STOPPED : IRCG_ERR_NUMERICAL;
        if (m == 0) { /* C v0 = 0: retry once from another start */
            if (tries++ > 0 || !v0) {
                out->zero = 1;
                break;
            }
            set_start(g, NULL);
            done = 0;
            continue;
        }
        if (done) {
            ritz(g, m, out);
        } else { /* explicit restart from the best right Ritz vector */
            double *next = g->V + (size_t)m * g->p;
            ritz_v(g, m, next);
            memcpy(g->V, next, (size_t)g->p * sizeof(double));
        }
    }
    if (out->zero) {
        memset(out->u, 0, (size_t)g->n * sizeof(double));
        if (!g->comm || g->comm->rank == 0) /* rank 0 holds row 0 */
            out->u[0] = 1.0;
        memcpy(out->v, g->V, (size_t)g->p * sizeof(double));
        out->converged = 1;
    }
    return IRCG_OK;
}
