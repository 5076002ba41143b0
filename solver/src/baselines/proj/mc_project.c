/*
 * mc_project.c -- Euclidean projection of the implicit matrix
 * Y = cY B + 1 wY' - a_g R_y (mc_prox.h) onto the nuclear ball
 * {||X||_* <= delta}: with Y = sum sigma_i u_i v_i', the projection is
 * sum s_i u_i v_i' with s the projection of sigma onto
 * {s >= 0, sum s <= delta} (Beck 2017, Section 7.3.2): s_i = max(sigma_i -
 * theta, 0) with theta from Condat's sort-based algorithm, or s = sigma when
 * sum sigma <= delta.
 *
 * FULL, the paper's way: Y formed densely and its full SVD (dgesdd).
 * PARTIAL: only the singular values above theta matter, so the leading
 * triplets are computed by Lanczos on the implicit Y (topk.c).  theta
 * from the top nsv values is the true one iff sigma_{rho+1} <= theta (rho
 * the number of values above it).  Two tests must pass, each allowing
 * lmo_tol * sigma_1 for rounding, the accuracy the triplets themselves are
 * computed to:
 *  - in the run itself, the Ritz value of index rho+1 plus its residual
 *    (a singular value lies within the residual of every Ritz value) is at
 *    most theta;
 *  - a second run on Y (I - V V'), V the rho accepted right vectors, from
 *    an independent random start, bounds its top value (sigma_{rho+1} of
 *    Y) by theta the same way.  A single Krylov space holds one vector per
 *    distinct singular value, so it cannot see a second copy of a repeated
 *    value; the second start reaches it.
 * When either test fails, nsv doubles (once more at the cap, see nsv_cap)
 * and the run starts again from the vectors found; past the cap the full
 * SVD is used.
 * Both are the usual Krylov certificates: they hold unless a start vector
 * is nearly orthogonal to a singular vector above theta, which for random
 * starts is an event of negligible probability.
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/domain.h"
#include "baselines/proj/mc_prox.h"
#include "base/rng.h"

/* Most triplets a PARTIAL projection computes before it falls back to the
 * full SVD: min(64, max(8, min(n, p) / 4)).  Past a few dozen triplets a
 * Lanczos basis of 2 nsv + 16 vectors costs about as much as the dense
 * SVD on MovieLens-sized problems. */
#define PROJ_NSV_MAX 64
#define PROJ_NSV_MIN 8
/* Lanczos steps of the verification on the deflated matrix before its
 * bound may be trusted: a value hidden from the start vector is amplified
 * by (sigma / sigma_next)^(2 m) over m steps. */
#define VERIFY_MIN_STEPS 5
#define VERIFY_SEED 0x7665726966ULL

static int nsv_cap(const mc_data *d)
{
    int c = d->m0 / 4;
    if (c < PROJ_NSV_MIN)
        c = PROJ_NSV_MIN;
    return c > PROJ_NSV_MAX ? PROJ_NSV_MAX : c;
}

int mp_simplex_threshold(const double *s, int n, double delta, double *theta,
                         int *rho)
{
    slv_ksum tot = {0, 0};
    int pos = 0;

    for (int i = 0; i < n; i++)
        if (s[i] > 0) {
            slv_ksum_add(&tot, s[i]);
            pos++;
        }
    if (slv_ksum_value(&tot) <= delta) {
        *theta = 0;
        *rho = pos;
        return 0;
    }
    /* Condat 2016, Algorithm 1 on the values, sorted already */
    int64_t r;
    *theta = slv_simplex_threshold_sorted(s, n, delta, &r);
    *rho = (int)r;
    return 1;
}

/* The implicit Y and products with it. */
typedef struct yop {
    mp_ws *w;
    const mp_point *y;
    double cY, a_g;
    const double *wY; /* NULL when zero */
    double *tk;       /* k scratch */
} yop;

static void y_apply(void *vc, int trans, const double *x, double *out)
{
    yop *o = vc;
    mp_ws *w = o->w;
    const mc_data *d = w->d;
    const mp_point *y = o->y;
    int k = y->k, nout = trans ? d->p : d->n, nin = trans ? d->n : d->p;
    const double *F = trans ? y->Q : y->P, *G = trans ? y->P : y->Q;
    double ad = o->cY * y->a * w->d0;

    for (int i = 0; i < nout; i++)
        out[i] = i < d->m0 ? ad * x[i] : 0.0;
    if (k > 0) {
        cblas_dgemv(CblasColMajor, CblasTrans, nin, k, 1.0, G, nin, x, 1, 0.0, o->tk, 1);
        for (int l = 0; l < k; l++)
            o->tk[l] *= o->cY * y->s[l];
        cblas_dgemv(CblasColMajor, CblasNoTrans, nout, k, 1.0, F, nout, o->tk, 1, 1.0,
                    out, 1);
    }
    if (o->wY) { /* e wY' x, or wY (e'x) */
        if (!trans) {
            double t = cblas_ddot(d->p, o->wY, 1, x, 1);
            for (int i = 0; i < d->n_real; i++)
                out[i] += t;
            if (d->agg_w > 0)
                out[d->n - 1] += d->agg_w * t;
        } else {
            cblas_daxpy(d->p, mc_row_sum(d, x), o->wY, 1, out, 1);
        }
    }
    if (o->a_g != 0) {
        double *xs = trans ? w->tn : w->tp;
        for (int i = 0; i < nin; i++)
            xs[i] = -o->a_g * x[i];
        if (trans)
            mc_spmvt(&w->ex, y->r, xs, out);
        else
            mc_spmv(&w->ex, y->r, xs, out);
    }
}

/* The pending point P diag(s) Q' with P, Q from U (ld n), V (ld p). */
static ircg_error set_pending(mp_ws *w, const double *U, const double *V,
                              const double *s, int k)
{
    const mc_data *d = w->d;
    mp_point *pt = &w->pend;

    if (mp_point_reserve(pt, d, k) != IRCG_OK)
        return IRCG_ERR_NOMEM;
    memcpy(pt->P, U, (size_t)d->n * k * sizeof(double));
    memcpy(pt->Q, V, (size_t)d->p * k * sizeof(double));
    memcpy(pt->s, s, (size_t)k * sizeof(double));
    pt->k = k;
    pt->c = 1.0;
    pt->a = 0.0;
    pt->has_w = 0;
    memset(pt->w, 0, (size_t)d->p * sizeof(double));
    return IRCG_OK;
}

/* The next start: right singular vectors V (p x k) of this projection. */
static ircg_error keep_warm(mp_ws *w, const double *V, int k)
{
    const mc_data *d = w->d;
    if (k > w->warm_cap) {
        double *nw = realloc(w->warm, (size_t)d->p * k * sizeof *nw);
        if (!nw)
            return IRCG_ERR_NOMEM;
        w->warm = nw;
        w->warm_cap = k;
    }
    if (k > 0)
        memcpy(w->warm, V, (size_t)d->p * k * sizeof(double));
    w->nwarm = k;
    return IRCG_OK;
}

/* v0 = the sum of the k warm vectors V (p x k); NULL when there are none */
static const double *warm_start(const mp_ws *w, const double *V, int k, double *v0)
{
    const mc_data *d = w->d;
    if (k == 0)
        return NULL;
    memset(v0, 0, (size_t)d->p * sizeof *v0);
    for (int l = 0; l < k; l++)
        cblas_daxpy(d->p, 1.0, V + (size_t)l * d->p, 1, v0, 1);
    return v0;
}

typedef struct topk_buf {
    double *sv, *res, *U, *V, *v0, *sp;
} topk_buf;

static void topk_buf_free(topk_buf *b)
{
    free(b->sv);
    free(b->res);
    free(b->U);
    free(b->V);
    free(b->v0);
    free(b->sp);
}

static int topk_buf_alloc(topk_buf *b, const mc_data *d, int nsv)
{
    topk_buf_free(b);
    b->sv = malloc((size_t)nsv * sizeof(double));
    b->res = malloc((size_t)nsv * sizeof(double));
    b->sp = malloc((size_t)nsv * sizeof(double));
    b->U = malloc((size_t)d->n * nsv * sizeof(double));
    b->V = malloc((size_t)d->p * nsv * sizeof(double));
    b->v0 = malloc((size_t)d->p * sizeof(double));
    return b->sv && b->res && b->sp && b->U && b->V && b->v0;
}

/* Stop the Lanczos once the answer is certified: the top rho pairs
 * converged and the next value's upper bound at most theta; the next pair
 * itself need not have converged. */
static int certified(void *ctx, int m, int k, const double *sv, const double *res)
{
    const mp_ws *w = ctx;
    double theta;
    int rho;

    (void)m;
    if (!mp_simplex_threshold(sv, k, w->d->delta, &theta, &rho) || rho >= k)
        return 0;
    for (int i = 0; i < rho; i++)
        if (!(res[i] <= w->tol * sv[0]))
            return 0;
    return sv[rho] + res[rho] <= theta + w->tol * sv[0];
}

/* Decides from one Lanczos answer: *kk >= 0 components (values in b->sp)
 * when certified, else -1; *complete when every nonzero singular value is
 * known (nothing left to verify). */
static void decide(const mp_ws *w, const lmo_topk_out *o, topk_buf *b, int *kk,
                   double *theta, int *complete)
{
    int rho, above, n = o->nsv;

    *kk = -1;
    *complete = o->exhausted && o->basis <= n;
    above = mp_simplex_threshold(b->sv, n, w->d->delta, theta, &rho);
    if (!*complete && (!above || rho >= n || !certified((void *)w, o->basis, n, b->sv,
                                                        b->res)))
        return;
    for (int i = 0; i < rho; i++)
        b->sp[i] = b->sv[i] - *theta;
    *kk = rho;
}

/* The deflated operator Y (I - V V') for the r accepted right vectors V. */
typedef struct dctx {
    yop *op;
    const double *V;
    int r;
    double *xt, *h; /* p and r scratch */
    double bound;   /* theta + tol sigma_1 */
} dctx;

static void deflate(const dctx *c, double *x, int p)
{
    cblas_dgemv(CblasColMajor, CblasTrans, p, c->r, 1.0, c->V, p, x, 1, 0.0, c->h, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, p, c->r, -1.0, c->V, p, c->h, 1, 1.0, x, 1);
}

static void deflated_apply(void *vc, int trans, const double *x, double *out)
{
    dctx *c = vc;
    int p = c->op->w->d->p;
    if (!trans) {
        memcpy(c->xt, x, (size_t)p * sizeof *x);
        deflate(c, c->xt, p);
        y_apply(c->op, 0, c->xt, out);
    } else {
        y_apply(c->op, 1, x, out);
        deflate(c, out, p);
    }
}

static int below_bound(void *vc, int m, int k, const double *sv, const double *res)
{
    const dctx *c = vc;
    return m >= VERIFY_MIN_STEPS && k > 0 && sv[0] + res[0] <= c->bound;
}

/* sigma_{rho+1}(Y) = sigma_1(Y (I - V V')) for the exact leading vectors V:
 * from a random start, which reaches every singular vector the first run
 * missed, such as a second copy of a repeated value, that a single Krylov
 * space cannot see; *ok when it is at most theta. */
static ircg_error verify(mp_ws *w, yop *op, const double *V, int r, double bound,
                         mp_proj_info *info, int *ok)
{
    const mc_data *d = w->d;
    double sv, res, *u = malloc((size_t)d->n * sizeof *u);
    double *v = malloc((size_t)d->p * sizeof *v);
    dctx c = {.op = op, .V = V, .r = r, .bound = bound};
    lmo_topk_stop stop = {.fn = below_bound, .ctx = &c};
    lmo_topk_out o = {.sv = &sv, .res = &res, .U = u, .V = v};
    ircg_error err = IRCG_ERR_NOMEM;

    *ok = 0;
    c.xt = malloc((size_t)d->p * sizeof *c.xt);
    c.h = malloc((size_t)(r ? r : 1) * sizeof *c.h);
    if (!u || !v || !c.xt || !c.h)
        goto done;
    /* a start independent of the first run's, whose component on a
     * missed copy may be zero */
    slv_rng rng;
    slv_rng_seed(&rng, VERIFY_SEED, 0);
    for (int j = 0; j < d->p; j++)
        v[j] = slv_rng_uniform(&rng) - 0.5;
    err = lmo_topk_run(w->tk, deflated_apply, &c, v, 1, w->tol, w->max_mv, &stop, &o);
    info->matvecs += o.matvecs;
    *ok = err == IRCG_OK &&
          (o.nsv == 0 || ((o.exhausted || o.basis >= VERIFY_MIN_STEPS) &&
                          sv + res <= bound));
done:
    free(u);
    free(v);
    free(c.xt);
    free(c.h);
    return err;
}

/* *done = 0 when the full SVD must take over. */
static ircg_error project_partial(mp_ws *w, yop *op, mp_proj_info *info, int *done)
{
    const mc_data *d = w->d;
    int cap = nsv_cap(d), nsv = w->last_rank + 2, kk = -1, complete, ok;
    double theta;
    topk_buf b = {0};
    const double *v0;
    ircg_error err = IRCG_OK;

    *done = 0;
    if (nsv < 2)
        nsv = 2;
    if (nsv > d->m0)
        nsv = d->m0;
    if (nsv > cap && nsv < d->m0)
        return IRCG_OK;
    if (!topk_buf_alloc(&b, d, nsv))
        goto nomem;
    v0 = warm_start(w, w->warm, w->nwarm, b.v0);
    lmo_topk_stop stop = {.fn = certified, .ctx = w};
    for (;;) {
        lmo_topk_out o = {.sv = b.sv, .res = b.res, .U = b.U, .V = b.V};
        int64_t budget = (int64_t)w->max_mv * ((nsv + 3) / 4);
        if ((err = lmo_topk_run(w->tk, y_apply, op, v0, nsv, w->tol, budget, &stop,
                               &o)) !=
            IRCG_OK)
            goto done;
        info->matvecs += o.matvecs;
        decide(w, &o, &b, &kk, &theta, &complete);
        if (kk >= 0 && !complete) {
            err = verify(w, op, b.V, kk, theta + w->tol * b.sv[0], info, &ok);
            if (err != IRCG_OK)
                goto done;
            if (!ok)
                kk = -1; /* a value this run missed: more triplets */
        }
        if (kk >= 0) {
            info->converged = o.converged;
            if ((err = set_pending(w, b.U, b.V, b.sp, kk)) != IRCG_OK ||
                (err = keep_warm(w, b.V, o.nsv)) != IRCG_OK)
                goto done;
            w->last_rank = kk;
            *done = 1;
            goto done;
        }
        /* double nsv, once more at the cap; past it the full SVD, unless
         * nsv reaches min(n, p), where the Lanczos basis spans everything */
        int n2 = 2 * nsv < d->m0 ? 2 * nsv : d->m0;
        if (n2 > cap && n2 < d->m0)
            n2 = cap;
        if (nsv >= d->m0 || n2 <= nsv)
            goto done;
        /* restart from this answer's vectors, which hold the top ones */
        if ((err = keep_warm(w, b.V, o.nsv)) != IRCG_OK)
            goto done;
        nsv = n2;
        if (!topk_buf_alloc(&b, d, nsv))
            goto nomem;
        v0 = warm_start(w, w->warm, w->nwarm, b.v0);
    }
nomem:
    err = IRCG_ERR_NOMEM;
done:
    topk_buf_free(&b);
    return err;
}

/* Y densely, column-major n x p. */
static void dense_y(const mp_ws *w, const yop *op, double *Y)
{
    const mc_data *d = w->d;
    const mp_point *y = op->y;
    size_t n = (size_t)d->n;

    memset(Y, 0, n * d->p * sizeof *Y);
    for (int i = 0; i < d->m0; i++)
        Y[i + i * n] = op->cY * y->a * w->d0;
    for (int l = 0; l < y->k; l++) /* rank-one updates: no n x k scratch */
        cblas_dger(CblasColMajor, d->n, d->p, op->cY * y->s[l], y->P + l * n, 1,
                   y->Q + (size_t)l * d->p, 1, Y, d->n);
    if (op->wY)
        for (int j = 0; j < d->p; j++)
            for (size_t i = 0; i < n; i++)
                Y[i + j * n] += mc_row_weight(d, (int)i) * op->wY[j];
    if (op->a_g != 0)
        for (int i = 0; i < d->n; i++)
            for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++)
                Y[i + (size_t)d->col[e] * n] -= op->a_g * y->r[e];
}

static ircg_error project_full(mp_ws *w, const yop *op)
{
    const mc_data *d = w->d;
    int m0 = d->m0, kk = 0;
    size_t n = (size_t)d->n, p = (size_t)d->p;
    double *Y = malloc(n * p * sizeof *Y), *s = malloc((size_t)m0 * sizeof *s);
    double *sp = malloc((size_t)m0 * sizeof *sp), *U = malloc(n * m0 * sizeof *U);
    double *Vt = malloc((size_t)m0 * p * sizeof *Vt), *V = NULL;
    ircg_error err = IRCG_ERR_NOMEM;

    if (!Y || !s || !sp || !U || !Vt)
        goto done;
    dense_y(w, op, Y);
    if (LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'S', d->n, d->p, Y, d->n, s, U, d->n, Vt,
                       m0) != 0) {
        /* divide and conquer rarely fails to converge; QR iteration then */
        double *sup = malloc((size_t)m0 * sizeof *sup);
        int rc = -1;
        if (!sup)
            goto done;
        dense_y(w, op, Y);
        rc = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', d->n, d->p, Y, d->n, s, U, d->n,
                            Vt, m0, sup);
        free(sup);
        err = IRCG_ERR_NUMERICAL;
        if (rc != 0)
            goto done;
    }
    if ((err = slv_project_simplex_ineq(s, m0, d->delta, sp)) != IRCG_OK)
        goto done;
    while (kk < m0 && sp[kk] > 0)
        kk++;
    int kw = kk < m0 ? kk + 1 : kk; /* and the next vector for the warm start */
    err = IRCG_ERR_NOMEM;
    if (!(V = malloc(p * (kw ? kw : 1) * sizeof *V)))
        goto done;
    for (int l = 0; l < kw; l++)
        for (size_t j = 0; j < p; j++)
            V[j + l * p] = Vt[l + j * m0];
    if ((err = set_pending(w, U, V, sp, kk)) != IRCG_OK ||
        (err = keep_warm(w, V, kw)) != IRCG_OK)
        goto done;
    w->last_rank = kk;
done:
    free(Y);
    free(s);
    free(sp);
    free(U);
    free(Vt);
    free(V);
    return err;
}

ircg_error mp_project(mp_ws *w, const mp_point *y, double a_f, double a_g,
                      ircg_projection mode, mp_proj_info *info)
{
    const mc_data *d = w->d;
    int done = 0;
    double *wY = NULL, *tk = malloc((size_t)(y->k ? y->k : 1) * sizeof *tk);
    ircg_error err = IRCG_ERR_NOMEM;

    *info = (mp_proj_info){.converged = 1};
    if (!tk)
        goto out;
    if (!(wY = malloc((size_t)d->p * sizeof *wY)))
        goto out;
    yop op = {.w = w, .y = y, .cY = (1.0 - a_f) * y->c, .a_g = a_g,
              .wY = mp_shifted_w(d, y, a_f, wY) ? wY : NULL, .tk = tk};
    err = IRCG_OK;
    if (mode == IRCG_PROJ_PARTIAL)
        err = project_partial(w, &op, info, &done);
    if (err == IRCG_OK && !done) {
        info->full = 1;
        info->converged = 1;
        err = project_full(w, &op);
    }
out:
    free(wY);
    free(tk);
    return err;
}
