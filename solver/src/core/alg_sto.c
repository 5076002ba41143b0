/*
 * alg_sto.c -- the stochastic methods of K.-H. Giang-Tran, S. Shafiee and
 * N. Ho-Nguyen, "Conditional Gradient Methods with Standard LMO for
 * Stochastic Simple Bilevel Optimization" (NeurIPS 2025, arXiv
 * 2505.18037), on the finite sums of oracle.h (slv_sto_ops): g = sum_k
 * g_k over m rows, f a sum over m_f rows of its own or no sum (then its
 * gradient is exact, which is what the estimators below would give it).
 * With grad h_B(y) = (m_h / b) sum_{k in B} grad h_k(y) for a batch B of
 * b rows drawn uniformly with replacement (unbiased for the sum):
 *
 * IR-SCG (STORM estimators, Algorithm 1):
 *   G_0 = grad g_B0(x_0),
 *   G_t = (1 - a_t) G_{t-1} + grad g_Bt(x_t) - (1 - a_t) grad g_Bt(x_{t-1}),
 *   and F_t the same for f with batches of its own;
 *   a_t = 2/(t+2), sigma_t = varsigma (t+1)^-p (p = 1/4 in the paper).
 * IR-FSCG (SPIDER estimators, Algorithm 2):
 *   G_t = grad g(x_t) (all m rows) when t = 0 mod q, else
 *   G_t = G_{t-1} + grad g_Bt(x_t) - grad g_Bt(x_{t-1}), the same for F;
 *   a_t = log(q)/q for t < q, then 2/(t+2); sigma_t = varsigma
 *   (max(t, q) + 1)^-p; the paper's b = q = floor(sqrt(m)), p = 1/2.
 * Both: v_t = argmin_{v in X} <sigma_t F_t + G_t, v>,
 *   x_{t+1} = x_t + a_t (v_t - x_t), and the paper's output
 *   z_{t+1} = [(t+2)(t+1) sigma_{t+1} x_{t+1}
 *              + sum_{i=1}^{t+1} (i+1) i (sigma_{i-1} - sigma_i) x_i] / S_{t+1}
 *   with S_{t+1} the sum of those weights.  Summing by parts, the weight
 *   of x_{t+1} is (t+2)(t+1) sigma_t and S_{t+1} = sum_{k<=t} 2(k+1)
 *   sigma_k: IR-CG's z and S_t (alg_ircg.c, Remark 1), so the same
 *   recursion.  IR-FSCG's sigma_t is constant for t <= q, so the weights
 *   of x_1..x_q vanish and z_{t+1} = x_{t+1} up to t = q ("z averages only
 *   outside the first q steps"); it is set so, exactly.
 *
 * The draws come from one xoshiro stream seeded with settings.seed, in a
 * fixed order (g's batch, then f's): the same seed, the same run on any
 * machine and any number of threads.  The stream, x_{t-1} and the
 * estimators are saved in checkpoints, so that a continued run goes on bit
 * for bit.  The iteration's gap is <c, x_t - v_t> of the estimator c, not
 * the true gap: gap_tol is refused for these methods (settings.c), and
 * the certificates (certificate.c, full passes at their cadence) say how
 * far x and z are from optimal.
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "core/solver_internal.h"

#define STA_TAG 0x31415453475243ULL   /* "CRGSTA1" */
#define RNG_STREAM 0x73746f6368ULL    /* "stoch": the draws' stream */

typedef struct sto_state {
    int fscg;
    int64_t n, m, mf;   /* dimension; rows of g and of f (0: f no sum) */
    int64_t batch, q;   /* resolved (the settings' 0 = the default)    */
    slv_rng rng;
    double *xprev;      /* x_{t-1}                                     */
    double *G, *F;      /* the estimators (F: f's exact gradient when
                           mf = 0, remade every step)                  */
    double *c;          /* sigma F + G                                 */
    int64_t *idx;       /* a batch's rows                              */
} sto_state;

static int64_t isqrt(int64_t m)
{
    int64_t r = (int64_t)sqrt((double)m);
    while (r > 0 && r * r > m)
        r--;
    while ((r + 1) * (r + 1) <= m)
        r++;
    return r;
}

static void state_free(sto_state *st)
{
    if (!st)
        return;
    free(st->xprev);
    free(st->G);
    free(st->F);
    free(st->c);
    free(st->idx);
    free(st);
}

static void sto_fini(ircg_solver *sv)
{
    state_free(sv->alg_state);
    sv->alg_state = NULL;
}

static ircg_error sto_init(ircg_solver *sv, ircg_diag *diag)
{
    const slv_sto_ops *so = sv->pb->sto;
    sto_state *st = calloc(1, sizeof *st);
    if (!st)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    st->fscg = sv->algorithm == IRCG_ALG_IRFSCG;
    st->n = sv->pb->info.dim;
    st->m = so->rows(sv->ws, 0);
    st->mf = so->rows(sv->ws, 1);
    int64_t root = isqrt(st->m) > 0 ? isqrt(st->m) : 1;
    st->batch = sv->set.batch > 0 ? sv->set.batch : st->fscg ? root : 1;
    st->q = sv->set.q > 0 ? sv->set.q : root;
    sv->sto_batch = st->batch;
    sv->sto_q = st->fscg ? st->q : 0;
    slv_rng_seed(&st->rng, sv->set.seed, RNG_STREAM);
    size_t n = (size_t)st->n;
    st->xprev = calloc(n, sizeof(double));
    st->G = calloc(n, sizeof(double));
    st->F = calloc(n, sizeof(double));
    st->c = calloc(n, sizeof(double));
    st->idx = malloc((size_t)st->batch * sizeof *st->idx);
    sv->alg_state = st;
    if (!st->xprev || !st->G || !st->F || !st->c || !st->idx) {
        long long b = (long long)st->batch;
        sto_fini(sv);
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory for a batch of %lld rows", b);
    }
    memcpy(st->xprev, so->point(sv->ws, IRCG_X), n * sizeof(double));
    return IRCG_OK;
}

/* b rows of the sum of mh rows into idx. */
static void draw(sto_state *st, int64_t mh)
{
    for (int64_t i = 0; i < st->batch; i++)
        st->idx[i] = (int64_t)slv_rng_below(&st->rng, (uint64_t)mh);
}

/* STORM: est = (1 - a)(est - grad h_B(x_{t-1})) + grad h_B(x_t), the plain
 * batch gradient at t = 0 (a_0 = 1).  Returns the rows evaluated. */
static int64_t storm(ircg_solver *sv, sto_state *st, int outer, double *est, double a)
{
    const slv_sto_ops *so = sv->pb->sto;
    int64_t mh = outer ? st->mf : st->m;
    double s = (double)mh / (double)st->batch;
    const double *x = so->point(sv->ws, IRCG_X);
    draw(st, mh);
    if (sv->t == 0) {
        memset(est, 0, (size_t)st->n * sizeof *est);
        so->grad_rows(sv->ws, outer, x, st->idx, st->batch, s, est);
        return st->batch;
    }
    for (int64_t i = 0; i < st->n; i++)
        est[i] *= 1.0 - a;
    so->grad_rows(sv->ws, outer, st->xprev, st->idx, st->batch, -(1.0 - a) * s, est);
    so->grad_rows(sv->ws, outer, x, st->idx, st->batch, s, est);
    return 2 * st->batch;
}

/* SPIDER: est = grad h(x_t) every q steps, else est + grad h_B(x_t) -
 * grad h_B(x_{t-1}).  Returns the rows evaluated. */
static int64_t spider(ircg_solver *sv, sto_state *st, int outer, double *est)
{
    const slv_sto_ops *so = sv->pb->sto;
    int64_t mh = outer ? st->mf : st->m;
    double s = (double)mh / (double)st->batch;
    const double *x = so->point(sv->ws, IRCG_X);
    if (sv->t % st->q == 0) {
        so->grad_full(sv->ws, outer, x, est);
        return mh;
    }
    draw(st, mh);
    so->grad_rows(sv->ws, outer, x, st->idx, st->batch, s, est);
    so->grad_rows(sv->ws, outer, st->xprev, st->idx, st->batch, -s, est);
    return 2 * st->batch;
}

/* G_t and F_t (f's exact gradient when it is no sum), in the order of
 * the draws: g's batch first.  Returns the rows evaluated. */
static int64_t estimate(ircg_solver *sv, sto_state *st, double a)
{
    const slv_sto_ops *so = sv->pb->sto;
    int64_t rows = st->fscg ? spider(sv, st, 0, st->G) : storm(sv, st, 0, st->G, a);
    if (st->mf == 0) {
        so->grad_full(sv->ws, 1, so->point(sv->ws, IRCG_X), st->F);
        return rows;
    }
    return rows + (st->fscg ? spider(sv, st, 1, st->F) : storm(sv, st, 1, st->F, a));
}

static double step_size(const sto_state *st, int64_t t)
{
    if (st->fscg && t < st->q)
        return log((double)st->q) / (double)st->q;
    return 2.0 / (double)(t + 2);
}

static double sigma_at(const ircg_solver *sv, const sto_state *st, int64_t t)
{
    return ircg_sigma(sv->varsigma, sv->set.p, st->fscg && t < st->q ? st->q : t);
}

/* The weights of z_{t+1} = cz z_t + co x_t + cn x_{t+1} and S_{t+1}
 * (the header's recursion); z = x while the weights are those of x alone. */
static double z_weights(const ircg_solver *sv, const sto_state *st, double sigma,
                        double *cz, double *co, double *cn)
{
    double tp1 = (double)(sv->t + 1), S_next = sv->S + 2.0 * tp1 * sigma;
    *cz = 0, *co = 0, *cn = 1;
    if (S_next > 0 && !(st->fscg && sv->t <= st->q)) {
        *cz = sv->S / S_next;
        *co = -tp1 * (double)sv->t * sigma / S_next;
        *cn = (tp1 + 1.0) * tp1 * sigma / S_next;
    }
    assert(fabs(*cz + *co + *cn - 1.0) <= 64 * DBL_EPSILON * (*cz + *cn - *co));
    return S_next;
}

static ircg_error sto_iterate(ircg_solver *sv, ircg_iter_info *it, int *converged)
{
    sto_state *st = sv->alg_state;
    const slv_sto_ops *so = sv->pb->sto;
    double a = step_size(st, sv->t), sigma = sigma_at(sv, st, sv->t), t0 = slv_now();
    double cz, co, cn;
    slv_dir dir = {0};

    (void)converged; /* gap_tol is refused: the gap is an estimate */
    int64_t rows = estimate(sv, st, a);
    for (int64_t i = 0; i < st->n; i++)
        st->c[i] = sigma * st->F[i] + st->G[i];
    so->lmo_dir(sv->ws, st->c, &dir);
    if (!isfinite(dir.gphi_d))
        return IRCG_ERR_NUMERICAL;
    it->lmo_seconds = slv_now() - t0;
    it->lmo_matvecs = rows;
    it->samples = rows;
    it->sigma = sigma;
    it->gap = -dir.gphi_d;
    it->alpha = a;
    double S_next = z_weights(sv, st, sigma, &cz, &co, &cn);
    memcpy(st->xprev, so->point(sv->ws, IRCG_X), (size_t)st->n * sizeof(double));
    ircg_error err = sv->ops->step(sv->ws, a, cz, co, cn);
    if (err != IRCG_OK)
        return err;
    sv->S = S_next;
    sv->t++;
    return IRCG_OK;
}

/* ---------------------------------------------------------- checkpoints -- */

/* tag, algorithm, n, m, mf, batch, q, the stream, x_{t-1}, G, F. */
static ircg_error sto_save(const ircg_solver *sv, slv_buf *b)
{
    const sto_state *st = sv->alg_state;
    size_t n = (size_t)st->n;
    slv_buf_put_u64(b, STA_TAG);
    slv_buf_put_u64(b, (uint64_t)st->fscg);
    slv_buf_put_i64(b, st->n);
    slv_buf_put_i64(b, st->m);
    slv_buf_put_i64(b, st->mf);
    slv_buf_put_i64(b, st->batch);
    slv_buf_put_i64(b, st->q);
    for (int i = 0; i < 4; i++)
        slv_buf_put_u64(b, st->rng.s[i]);
    slv_buf_put_f64s(b, st->xprev, n);
    slv_buf_put_f64s(b, st->G, n);
    slv_buf_put_f64s(b, st->F, n);
    return b->failed ? IRCG_ERR_NOMEM : IRCG_OK;
}

static ircg_error corrupt(ircg_diag *diag, const char *why)
{
    return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                    "the stochastic method's state %s", why);
}

/* Read into scratch first: a bad blob leaves the state untouched.  A run
 * started afresh (a new schedule at the saved x) keeps its own batch, q
 * and stream; one that goes on must have the saved ones, or it would not
 * be the run it continues. */
static ircg_error sto_restore(ircg_solver *sv, slv_rbuf *r, ircg_restore_mode mode,
                              ircg_diag *diag)
{
    sto_state *st = sv->alg_state;
    size_t n = (size_t)st->n;
    int64_t h[6];
    slv_rng rng;
    if (slv_rbuf_u64(r) != STA_TAG)
        return corrupt(diag, "is missing");
    h[0] = (int64_t)slv_rbuf_u64(r);
    for (int i = 1; i < 6; i++)
        h[i] = slv_rbuf_i64(r);
    for (int i = 0; i < 4; i++)
        rng.s[i] = slv_rbuf_u64(r);
    if (r->failed || h[0] != st->fscg || h[1] != st->n || h[2] != st->m || h[3] != st->mf)
        return corrupt(diag, "does not match this problem");
    if ((rng.s[0] | rng.s[1] | rng.s[2] | rng.s[3]) == 0) /* xoshiro's fixed point: */
        return corrupt(diag, "has a dead stream"); /* its draws would never end */
    if (mode != IRCG_RESTORE_AFRESH && (h[4] != st->batch || h[5] != st->q))
        return slv_fail(diag, IRCG_ERR_INVALID, h[4] != st->batch ? "/batch" : "/q",
                        "the state was made with batch %lld and q %lld, this solver has "
                        "batch %lld and q %lld: a run that goes on keeps them",
                        (long long)h[4], (long long)h[5], (long long)st->batch,
                        (long long)st->q);
    if ((r->len - r->pos) / 8 < 3 * n)
        return corrupt(diag, "is truncated");
    double *tmp = malloc(3 * n * sizeof *tmp);
    if (!tmp)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    slv_rbuf_f64s(r, tmp, 3 * n);
    if (mode != IRCG_RESTORE_AFRESH) {
        memcpy(st->xprev, tmp, n * sizeof *tmp);
        memcpy(st->G, tmp + n, n * sizeof *tmp);
        memcpy(st->F, tmp + 2 * n, n * sizeof *tmp);
        st->rng = rng;
    }
    free(tmp);
    return r->failed ? corrupt(diag, "is truncated") : IRCG_OK;
}

const slv_alg slv_alg_irscg = {
    .iterate = sto_iterate, .init = sto_init, .fini = sto_fini,
    .save = sto_save, .restore = sto_restore, .values_at_certificates = 1,
};
const slv_alg slv_alg_irfscg = {
    .iterate = sto_iterate, .init = sto_init, .fini = sto_fini,
    .save = sto_save, .restore = sto_restore, .values_at_certificates = 1,
};
