/* topk.c -- see topk.h.
 *
 * Internally A is N x M with M = min(n, p) (the operator is transposed when
 * n < p), so the right basis V is the one that can span its whole space.
 * With full reorthogonalization, after j steps A V_j = U_j B_j and
 * A' U_j = V_j B_j' + beta_j v_{j+1} e_j', where B_j is upper triangular
 * (bidiagonal, plus one column of Ritz residuals after a thick restart).
 * A Ritz pair (U x, V y, s) of B_j = X S Y' has residual beta_j |x_j|.
 *
 * beta_j = 0 means (U_j, V_j) is an invariant pair: its Ritz values are
 * exact, but singular values whose vectors the start missed (for example
 * the second copy of a repeated value) lie in the complement, so the run
 * continues from a fresh random vector orthogonal to V_j, and does not stop
 * before that chain's own leading pair has converged.  If A maps the fresh
 * vector to 0, A vanishes on the complement (almost surely, the vector being
 * random): then A = U_j B_j V_j' and every singular value is known. */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "lmo/topk.h"
#include "base/rng.h"

#define TOPK_SEED 0x746f706b5eedULL
#define TOPK_TINY 1e-14 /* a norm below this times ||B|| counts as zero */

struct lmo_topk {
    int n, p, N, M, swap;
    int cap;                     /* basis vectors allocated                 */
    double *U, *V;               /* N x cap, M x (cap + 1)                  */
    double *B;                   /* cap x cap, upper triangular             */
    double *Bc, *X, *Yt, *Xb;    /* SVD scratch, cap x cap                  */
    double *s, *sb, *sup, *h, *h2, *rs; /* cap + 1                          */
    double *T;                   /* max(N, M) x cap, restart products       */
    slv_rng rng;
    lmo_op_fn op;
    void *ctx;
    int64_t mv;
};

lmo_topk *lmo_topk_new(int n, int p)
{
    lmo_topk *tk = calloc(1, sizeof *tk);
    if (!tk)
        return NULL;
    tk->n = n;
    tk->p = p;
    tk->swap = n < p;
    tk->N = tk->swap ? p : n;
    tk->M = tk->swap ? n : p;
    return tk;
}

static void free_arrays(lmo_topk *tk)
{
    double **a[] = {&tk->U, &tk->V, &tk->B, &tk->Bc, &tk->X, &tk->Yt, &tk->Xb,
                    &tk->s, &tk->sb, &tk->sup, &tk->h, &tk->h2, &tk->rs, &tk->T};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
        free(*a[i]);
        *a[i] = NULL;
    }
    tk->cap = 0;
}

void lmo_topk_free(lmo_topk *tk)
{
    if (!tk)
        return;
    free_arrays(tk);
    free(tk);
}

static ircg_error reserve(lmo_topk *tk, int cap)
{
    if (cap <= tk->cap)
        return IRCG_OK;
    free_arrays(tk);
    size_t c = (size_t)cap, big = (size_t)(tk->N > tk->M ? tk->N : tk->M);
    tk->U = malloc((size_t)tk->N * c * sizeof(double));
    tk->V = malloc((size_t)tk->M * (c + 1) * sizeof(double));
    tk->B = malloc(c * c * sizeof(double));
    tk->Bc = malloc(c * c * sizeof(double));
    tk->X = malloc(c * c * sizeof(double));
    tk->Yt = malloc(c * c * sizeof(double));
    tk->Xb = malloc(c * c * sizeof(double));
    tk->s = malloc((c + 1) * sizeof(double));
    tk->sb = malloc((c + 1) * sizeof(double));
    tk->sup = malloc((c + 1) * sizeof(double));
    tk->h = malloc((c + 1) * sizeof(double));
    tk->h2 = malloc((c + 1) * sizeof(double));
    tk->rs = malloc((c + 1) * sizeof(double));
    tk->T = malloc(big * c * sizeof(double));
    if (!tk->U || !tk->V || !tk->B || !tk->Bc || !tk->X || !tk->Yt || !tk->Xb ||
        !tk->s || !tk->sb || !tk->sup || !tk->h || !tk->h2 || !tk->rs || !tk->T) {
        free_arrays(tk);
        return IRCG_ERR_NOMEM;
    }
    tk->cap = cap;
    return IRCG_OK;
}

/* y = A_int x (trans 0: x in R^M, y in R^N) or A_int' x. */
static void iop(lmo_topk *tk, int trans, const double *x, double *y)
{
    tk->op(tk->ctx, tk->swap ? !trans : trans, x, y);
    tk->mv++;
}

/* x -= Bs (Bs' x) twice over the j columns of Bs (ld len); the summed
 * coefficients go to h when it is not NULL. */
static void reorth(lmo_topk *tk, const double *Bs, int len, int j, double *x,
                   double *h)
{
    if (j == 0)
        return;
    if (h)
        memset(h, 0, (size_t)j * sizeof *h);
    for (int pass = 0; pass < 2; pass++) {
        cblas_dgemv(CblasColMajor, CblasTrans, len, j, 1.0, Bs, len, x, 1, 0.0,
                    tk->h2, 1);
        cblas_dgemv(CblasColMajor, CblasNoTrans, len, j, -1.0, Bs, len, tk->h2, 1,
                    1.0, x, 1);
        if (h)
            cblas_daxpy(j, 1.0, tk->h2, 1, h, 1);
    }
}

/* x = a unit pseudo-random vector orthogonal to the j columns of Bs; 0 when
 * none could be made (the columns span the space). */
static int fresh(lmo_topk *tk, const double *Bs, int len, int j, double *x)
{
    if (j >= len)
        return 0;
    for (int tries = 0; tries < 4; tries++) {
        for (int i = 0; i < len; i++)
            x[i] = slv_rng_uniform(&tk->rng) - 0.5;
        double n0 = cblas_dnrm2(len, x, 1);
        reorth(tk, Bs, len, j, x, NULL);
        double n1 = cblas_dnrm2(len, x, 1);
        if (n1 > 1e-6 * n0) {
            cblas_dscal(len, 1.0 / n1, x, 1);
            return 1;
        }
    }
    return 0;
}

/* SVD of the leading (or trailing from c0) m x m block of B: values into s,
 * left vectors into Xo (ld m), right ones into Yt (ld m) when Yo != NULL. */
static int block_svd(lmo_topk *tk, int c0, int m, double *s, double *Xo, double *Yo)
{
    int cap = tk->cap;
    for (int j = 0; j < m; j++)
        memcpy(tk->Bc + (size_t)j * m, tk->B + c0 + (size_t)(c0 + j) * cap,
               (size_t)m * sizeof(double));
    return LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', Yo ? 'S' : 'N', m, m, tk->Bc, m, s,
                          Xo, m, Yo ? Yo : tk->Bc, m, tk->sup);
}

/* Ritz pairs 0..k-1 of B_m into Uo (N x k) and Vo (M x k). */
static void ritz_vectors(lmo_topk *tk, int m, int k, double *Uo, double *Vo)
{
    if (k == 0)
        return;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, tk->N, k, m, 1.0, tk->U,
                tk->N, tk->X, m, 0.0, Uo, tk->N);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, tk->M, k, m, 1.0, tk->V,
                tk->M, tk->Yt, m, 0.0, Vo, tk->M);
}

/* Thick restart keeping l Ritz pairs of B_m; V[:, m] continues the chain. */
static void restart(lmo_topk *tk, int m, int l)
{
    int N = tk->N, M = tk->M, cap = tk->cap;
    double *cont = tk->V + (size_t)m * M;

    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, l, m, 1.0, tk->U, N,
                tk->X, m, 0.0, tk->T, N);
    memcpy(tk->U, tk->T, (size_t)N * l * sizeof(double));
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, M, l, m, 1.0, tk->V, M,
                tk->Yt, m, 0.0, tk->T, M);
    memcpy(tk->V, tk->T, (size_t)M * l * sizeof(double));
    memmove(tk->V + (size_t)l * M, cont, (size_t)M * sizeof(double));
    memset(tk->B, 0, (size_t)cap * cap * sizeof(double));
    for (int i = 0; i < l; i++)
        tk->B[i + (size_t)i * cap] = tk->s[i];
}

static void set_start(lmo_topk *tk, const double *v0, int *is_fresh)
{
    double *v = tk->V, nv = 0;

    *is_fresh = 0;
    if (v0 && !tk->swap) {
        memcpy(v, v0, (size_t)tk->M * sizeof *v);
        nv = cblas_dnrm2(tk->M, v, 1);
    } else if (v0) { /* the internal right side is the n side: A v0 */
        tk->op(tk->ctx, 0, v0, v);
        tk->mv++;
        nv = cblas_dnrm2(tk->M, v, 1);
    }
    if (nv > 0 && isfinite(nv)) {
        cblas_dscal(tk->M, 1.0 / nv, v, 1);
        return;
    }
    fresh(tk, tk->U, tk->M, 0, v);
    *is_fresh = 1;
}

typedef struct run_state {
    int want, mmax, keep;
    double tol;
    int64_t max_mv;
    int c0, pending;   /* start of the chain begun by a fresh vector       */
    int v_fresh;       /* index of the last fresh right vector, or -1      */
    double bnorm;
} run_state;

/* Has the chain begun at c0 converged its leading pair? */
static int chain_settled(lmo_topk *tk, run_state *st, int m, double beta)
{
    int mb = m - st->c0;
    if (!st->pending)
        return 1;
    if (mb < 1 || block_svd(tk, st->c0, mb, tk->sb, tk->Xb, NULL) != 0)
        return 0;
    if (fabs(beta * tk->Xb[mb - 1]) <= st->tol * tk->s[0])
        st->pending = 0;
    return !st->pending;
}

/* The top `want` pairs converged, or the caller's test is met. */
static int top_converged(lmo_topk *tk, int m, int want, double beta, double tol,
                         const lmo_topk_stop *stop)
{
    int k = want < m ? want : m, ok = m >= want;
    for (int i = 0; i < k; i++) {
        tk->rs[i] = fabs(beta * tk->X[(m - 1) + (size_t)i * m]);
        if (!(tk->rs[i] <= tol * tk->s[0]))
            ok = 0;
    }
    return ok || (stop && stop->fn(stop->ctx, m, k, tk->s, tk->rs));
}

static void finish(lmo_topk *tk, int m, double beta, int exhausted, int converged,
                   const run_state *st, lmo_topk_out *out)
{
    int k = st->want < m ? st->want : m;
    double *Uo = tk->swap ? out->V : out->U, *Vo = tk->swap ? out->U : out->V;

    out->nsv = k;
    out->basis = m;
    out->exhausted = exhausted;
    out->converged = exhausted || converged;
    for (int i = 0; i < k; i++) {
        out->sv[i] = tk->s[i];
        out->res[i] = exhausted ? 0.0 : fabs(beta * tk->X[(m - 1) + (size_t)i * m]);
    }
    ritz_vectors(tk, m, k, Uo, Vo);
}

ircg_error lmo_topk_run(lmo_topk *tk, lmo_op_fn op, void *ctx, const double *v0,
                       int wanted, double tol, int64_t max_mv,
                       const lmo_topk_stop *stop, lmo_topk_out *out)
{
    int M = tk->M, N = tk->N, j = 0, is_fresh;
    run_state st = {.tol = tol, .max_mv = max_mv, .v_fresh = -1};

    out->nsv = out->basis = 0;
    out->matvecs = 0;
    out->converged = out->exhausted = 0;
    if (wanted < 1)
        return IRCG_ERR_INVALID;
    st.want = wanted < M ? wanted : M;
    st.mmax = 2 * st.want + 16 > 32 ? 2 * st.want + 16 : 32;
    if (st.mmax > M)
        st.mmax = M;
    st.keep = st.want + (st.mmax - st.want) / 2;
    if (reserve(tk, st.mmax) != IRCG_OK)
        return IRCG_ERR_NOMEM;
    tk->op = op;
    tk->ctx = ctx;
    tk->mv = 0;
    slv_rng_seed(&tk->rng, TOPK_SEED, 0);
    memset(tk->B, 0, (size_t)tk->cap * tk->cap * sizeof(double));
    set_start(tk, v0, &is_fresh);
    if (is_fresh)
        st.v_fresh = 0;

    for (;;) {
        int cap = tk->cap, m = j + 1;
        double *u = tk->U + (size_t)j * N, *v = tk->V + (size_t)j * M;
        double *w = tk->V + (size_t)m * M, alpha, beta;

        if (slv_stop_due()) /* a projection's products: one process's */
            return IRCG_ERR_STOPPED;
        iop(tk, 0, v, u);
        reorth(tk, tk->U, N, j, u, tk->h);
        memcpy(tk->B + (size_t)j * cap, tk->h, (size_t)j * sizeof(double));
        alpha = cblas_dnrm2(N, u, 1);
        if (!(alpha > TOPK_TINY * st.bnorm) || alpha == 0) {
            if (st.v_fresh == j) { /* A vanishes on the complement of V_j */
                if (j > 0 && block_svd(tk, 0, j, tk->s, tk->X, tk->Yt) != 0)
                    return IRCG_ERR_NUMERICAL;
                finish(tk, j, 0.0, 1, 1, &st, out);
                break;
            }
            alpha = 0; /* A v_j lies in span U_j: continue with a fresh u */
            if (!fresh(tk, tk->U, N, j, u))
                return IRCG_ERR_NUMERICAL;
        } else {
            cblas_dscal(N, 1.0 / alpha, u, 1);
            st.bnorm = fmax(st.bnorm, alpha);
        }
        tk->B[j + (size_t)j * cap] = alpha;
        iop(tk, 1, u, w);
        reorth(tk, tk->V, M, m, w, NULL);
        beta = cblas_dnrm2(M, w, 1);
        int inv = !(beta > TOPK_TINY * fmax(st.bnorm, beta));
        if (block_svd(tk, 0, m, tk->s, tk->X, tk->Yt) != 0)
            return IRCG_ERR_NUMERICAL;
        if (inv) {
            beta = 0;
            if (m == M) { /* V spans everything: every value is exact */
                finish(tk, m, 0.0, 1, 1, &st, out);
                break;
            }
        }
        if (!inv && chain_settled(tk, &st, m, beta) &&
            top_converged(tk, m, st.want, beta, tol, stop)) {
            finish(tk, m, beta, 0, 1, &st, out);
            break;
        }
        if (tk->mv + 2 > max_mv) {
            int ok = !inv && !st.pending &&
                     top_converged(tk, m, st.want, beta, tol, stop);
            finish(tk, m, beta, 0, ok, &st, out);
            break;
        }
        if (inv) { /* continue in the complement */
            if (!fresh(tk, tk->V, M, m, w))
                return IRCG_ERR_NUMERICAL;
            st.v_fresh = m;
            st.c0 = m;
            st.pending = 1;
        } else {
            cblas_dscal(M, 1.0 / beta, w, 1);
            st.bnorm = fmax(st.bnorm, beta);
        }
        if (m == st.mmax) {
            restart(tk, m, st.keep);
            j = st.keep;
            if (st.v_fresh == m)
                st.v_fresh = j;
            if (st.pending)
                st.c0 = j;
        } else {
            j = m;
        }
    }
    out->matvecs = tk->mv;
    return IRCG_OK;
}
