/*
 * mc_lmo.c -- the linear minimization oracle over the nuclear ball:
 * V = -delta u v' with (u, v) the top singular pair of the implicit gradient
 * C = sigma grad f(X) + P_Omega(X - M), grad f = U X or X, and the scalars
 * of the direction d = V - X from the small Grams (never forming X).  The
 * pair comes from the Lanczos process on C'C (lmo/gram.h), whose Gram
 * products take one pass over Omega each (mc_sweep.c); the first, at the
 * previous vertex, is usually made by the step pass already.
 */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "problems/mc/mc.h"
#include "lmo/arpack.h"
#include "lmo/gram.h"
#include "lmo/lanczos.h"

/* y = C x (trans 0) or C' x (trans 1) for C = wf grad f(X) + wg R; U is
 * symmetric and idempotent, so C' = wf X' U + wg R'. */
void mc_grad_op(void *vc, int trans, const double *x, double *y)
{
    mc_grad_ctx *c = vc;
    mc_ws *w = c->w;
    const mc_data *d = w->d;
    int colvar = d->outer == IRCG_OUTER_COLUMN_VARIANCE;
    const double *r = c->wg != 0 ? mc_x_residual(w) : NULL;

    if (c->wg != 0 && !r) { /* out of memory: a NaN the caller will see */
        for (int i = 0; i < (trans ? d->p : d->n); i++)
            y[i] = NAN;
        return;
    }
    if (!trans) {
        if (c->wf != 0) {
            mc_apply_x(w, &w->x, x, y);
            cblas_dscal(d->n, c->wf, y, 1);
            if (colvar)
                mc_center(d, y);
        } else {
            memset(y, 0, (size_t)d->n * sizeof *y);
        }
        if (c->wg == 1)
            mc_spmv(&w->ex, r, x, y);
        else if (c->wg != 0) {
            memset(w->tn2, 0, (size_t)d->n * sizeof *w->tn2);
            mc_spmv(&w->ex, r, x, w->tn2);
            cblas_daxpy(d->n, c->wg, w->tn2, 1, y, 1);
        }
        return;
    }
    if (c->wf != 0) {
        const double *xs = x;
        if (colvar) {
            cblas_dcopy(d->n, x, 1, w->tn, 1);
            mc_center(d, w->tn);
            xs = w->tn;
        }
        mc_apply_xt(w, &w->x, xs, y);
        cblas_dscal(d->p, c->wf, y, 1);
    } else {
        memset(y, 0, (size_t)d->p * sizeof *y);
    }
    if (c->wg == 1) {
        mc_spmvt(&w->ex, r, x, y);
    } else if (c->wg != 0) {
        memset(w->tp, 0, (size_t)d->p * sizeof *w->tp);
        mc_spmvt(&w->ex, r, x, w->tp);
        cblas_daxpy(d->p, c->wg, w->tp, 1, y, 1);
    }
}

void mc_gram_lowrank_in(mc_ws *w, double sigma, const double *x, double *a)
{
    const mc_data *d = w->d;

    if (sigma == 0) {
        memset(a, 0, (size_t)d->n * sizeof *a);
        return;
    }
    mc_apply_x(w, &w->x, x, a);
    cblas_dscal(d->n, sigma, a, 1);
    if (d->outer == IRCG_OUTER_COLUMN_VARIANCE)
        mc_center(d, a);
}

void mc_gram_lowrank_out(mc_ws *w, double sigma, const double *cx, double *ctcx)
{
    const mc_data *d = w->d;
    const double *xs = cx;

    if (d->comm) { /* R' cx is this rank's part: summed with the rest */
        mc_dist_lowrank_out(w, sigma, cx, ctcx);
        return;
    }
    if (sigma == 0)
        return;
    if (d->outer == IRCG_OUTER_COLUMN_VARIANCE) {
        cblas_dcopy(d->n, cx, 1, w->tn, 1);
        mc_center(d, w->tn);
        xs = w->tn;
    }
    mc_apply_xt(w, &w->x, xs, w->tp);
    for (int j = 0; j < d->p; j++)
        ctcx[j] += sigma * w->tp[j];
}

/* The LMO's Gram products; the first one may come from the step pass. */
typedef struct gram_ctx {
    mc_ws *w;
    double sigma;
    int use_pre, calls;
} gram_ctx;

static void gram_op(void *vc, const double *x, double *cx, double *ctcx)
{
    gram_ctx *c = vc;
    mc_ws *w = c->w;

    if (c->calls++ == 0 && c->use_pre) { /* x is v, bit for bit (gram.h) */
        memcpy(cx, w->pre_cv, (size_t)w->d->n * sizeof *cx);
        memcpy(ctcx, w->pre_rtc, (size_t)w->d->p * sizeof *ctcx);
        mc_gram_lowrank_out(w, c->sigma, cx, ctcx);
        return;
    }
    mc_gram_product(w, c->sigma, x, cx, ctcx);
}

static double sum(const double *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* The row sums of the new vertex's left vector u: Pu = P'u, and the
 * u'X0 v / d0 and 1'u of dir_norms (uv[0], uv[1]), summed over the ranks
 * of a distributed problem in one go. */
static void vertex_sums(mc_ws *w, double *uv)
{
    const mc_data *d = w->d;
    int k = w->k;
    double *b = d->comm ? w->cbuf : NULL;

    if (k > 0)
        cblas_dgemv(CblasColMajor, CblasTrans, d->n, k, 1.0, w->P, d->n, w->u, 1, 0.0,
                    w->Pu, 1);
    uv[0] = cblas_ddot(d->ndiag, w->u, 1, w->v + d->row0, 1);
    uv[1] = mc_row_sum(d, w->u);
    if (!b)
        return;
    memcpy(b, w->Pu, (size_t)k * sizeof *b);
    b[k] = uv[0];
    b[k + 1] = uv[1];
    slv_comm_sum(d->comm, b, k + 2);
    memcpy(w->Pu, b, (size_t)k * sizeof *b);
    uv[0] = b[k];
    uv[1] = b[k + 1];
}

/* ||d||^2, ||U d||^2 (or ||d||^2) and <grad f(X), d> for d = -delta u v'
 * - X, unit u and v; uv from vertex_sums, gfx = <grad f(X), X>. */
static void dir_norms(mc_ws *w, double fro2, double cs2, const double *uv, double gfx,
                      slv_dir *dir)
{
    const mc_data *d = w->d;
    int k = w->k, c = w->cap;
    double a0 = w->x.a * w->d0, dl = d->delta;
    double uXv = a0 * uv[0];
    double vcs = a0 * sum(w->v, d->m0), su = uv[1];

    if (k > 0) {
        cblas_dgemv(CblasColMajor, CblasNoTrans, k, k, 1.0, w->x.K, c, w->Qv, 1,
                    0.0, w->tk, 1);
        uXv += cblas_ddot(k, w->Pu, 1, w->tk, 1);
        cblas_dgemv(CblasColMajor, CblasTrans, k, k, 1.0, w->x.K, c, w->sP, 1, 0.0,
                    w->tk, 1);
        vcs += cblas_ddot(k, w->Qv, 1, w->tk, 1);
    }
    /* <V, X> = -delta u'Xv; colsum(V) = -delta (1'u) v */
    dir->d_norm2 = fmax(0.0, dl * dl + 2 * dl * uXv + fro2);
    /* <grad f(X), V> = <U X, -delta u v'> = -delta (u'Xv - (1'u)(1'X v) / n) */
    if (d->outer == IRCG_OUTER_COLUMN_VARIANCE) {
        double csd = dl * dl * su * su + 2 * dl * su * vcs + cs2;
        dir->d_hf_d = fmax(0.0, dir->d_norm2 - csd / d->n_all);
        dir->gf_d = -dl * (uXv - su * vcs / d->n_all) - gfx;
    } else {
        dir->d_hf_d = dir->d_norm2;
        dir->gf_d = -dl * uXv - gfx;
    }
}

/* The Lanczos process of the LMO at sigma from the vertex's v into so. */
static ircg_error lmo_process(mc_ws *w, double sigma, lmo_svd_out *so)
{
    const double *v0 = w->have_v ? w->v : NULL;
    gram_ctx gc = {.w = w, .sigma = sigma};
    gc.use_pre = v0 && w->pre_valid && w->pre_sigma == sigma &&
                 lmo_gram_keeps_start(v0, w->d->p);
    return lmo_gram_run(w->gram, gram_op, &gc, v0, w->lmo_tol, w->lmo_max_mv, so);
}

int mc_lmo_staged(const mc_ws *w, double sigma)
{
    return w->st_valid && w->st_gen == w->gen && w->st_sigma == sigma;
}

ircg_error mc_lmo_stage(mc_ws *w, double sigma)
{
    const mc_data *d = w->d;
    if (w->engine == IRCG_LMO_ARPACK)
        return IRCG_ERR_INVALID;
    if (mc_lmo_staged(w, sigma))
        return IRCG_OK;
    if (!w->st_u && !(w->st_u = malloc((size_t)d->n * sizeof *w->st_u)))
        return IRCG_ERR_NOMEM;
    if (!w->st_v && !(w->st_v = malloc((size_t)d->p * sizeof *w->st_v)))
        return IRCG_ERR_NOMEM;
    double t0 = slv_now();
    lmo_svd_out so = {.u = w->st_u, .v = w->st_v};
    w->st_valid = 0;
    ircg_error err = lmo_process(w, sigma, &so);
    if (err != IRCG_OK)
        return err;
    w->st_valid = 1;
    w->st_gen = w->gen;
    w->st_sigma = sigma;
    w->st_sv = so.sv[0];
    w->st_matvecs = so.matvecs;
    w->st_converged = so.converged;
    w->st_seconds = slv_now() - t0;
    return IRCG_OK;
}

ircg_error mc_lmo(void *ws, double sigma, slv_dir *dir)
{
    mc_ws *w = ws;
    const mc_data *d = w->d;
    lmo_svd_out so = {.u = w->u, .v = w->v};
    const double *v0 = w->have_v ? w->v : NULL;
    double fro2, cs2, f, rx_dot_x, uv[2];
    ircg_error err;

    dir->staged_seconds = 0;
    if (mc_lmo_staged(w, sigma)) { /* made by the certificate of this x */
        memcpy(w->u, w->st_u, (size_t)d->n * sizeof *w->u);
        memcpy(w->v, w->st_v, (size_t)d->p * sizeof *w->v);
        so.sv[0] = w->st_sv;
        so.matvecs = w->st_matvecs;
        so.converged = w->st_converged;
        dir->staged_seconds = w->st_seconds;
        err = IRCG_OK;
    } else if (w->engine == IRCG_LMO_ARPACK) { /* its first product is on a rescaled vector */
        mc_grad_ctx oc = {.w = w, .wf = sigma, .wg = 1};
        gram_ctx gc = {.w = w, .sigma = sigma};
        lmo_dist_ops ops = {gram_op, &gc, w->tn2, mc_grad_op, &oc};
        err = d->comm ? lmo_arpack_dist_run(d->comm, d->n, d->row0, d->p, &ops, v0,
                                            w->lmo_tol, w->lmo_max_mv, &so)
                      : lmo_arpack_run(d->n, d->p, mc_grad_op, &oc, v0, w->lmo_tol,
                                       w->lmo_max_mv, w->tn2, &so);
    } else {
        err = lmo_process(w, sigma, &so);
    }
    w->pre_valid = 0;
    w->st_valid = 0;
    if (err != IRCG_OK)
        return err;
    w->gen++; /* a new vertex */
    w->have_v = 1;
    w->sv = so.sv[0];
    vertex_sums(w, uv);
    if (w->k > 0)
        cblas_dgemv(CblasColMajor, CblasTrans, d->p, w->k, 1.0, w->Q, d->p, w->v, 1,
                    0.0, w->Qv, 1);
    mc_side_norms(w, &w->x, &fro2, &cs2);
    f = d->outer == IRCG_OUTER_COLUMN_VARIANCE ? fro2 - cs2 / d->n_all : fro2;
    rx_dot_x = mc_rx_dot_x(w); /* from the last step's pass */
    /* <grad Phi, X> = sigma <grad f(X), X> + <R, X_Omega>, f 2-homogeneous */
    dir->gphi_d = -d->delta * w->sv - (sigma * f + rx_dot_x);
    dir->gphi_scale = d->delta * w->sv + fabs(sigma * f + rx_dot_x);
    dir->d_hg_d = dir->need_hg ? mc_omega_hg(w) : NAN;
    dir_norms(w, fro2, cs2, uv, f, dir);
    dir->top_sv = w->sv;
    dir->matvecs = so.matvecs;
    dir->converged = so.converged;
    if (!isfinite(dir->gphi_d) || !isfinite(dir->d_norm2))
        return IRCG_ERR_NUMERICAL;
    w->have_dir = 1;
    return IRCG_OK;
}

void mc_set_vertex(mc_ws *w, const double *u, const double *v)
{
    const mc_data *d = w->d;

    memcpy(w->u, u, (size_t)d->n * sizeof *u);
    memcpy(w->v, v, (size_t)d->p * sizeof *v);
    if (w->k > 0) {
        cblas_dgemv(CblasColMajor, CblasTrans, d->n, w->k, 1.0, w->P, d->n, w->u, 1,
                    0.0, w->Pu, 1);
        cblas_dgemv(CblasColMajor, CblasTrans, d->p, w->k, 1.0, w->Q, d->p, w->v, 1,
                    0.0, w->Qv, 1);
    }
    w->pre_valid = 0; /* C'C v was for the old v */
    w->have_v = w->have_dir = 1;
    w->gen++;
}

lmo_lanczos *mc_lanczos(mc_ws *w)
{
    if (!w->lz)
        w->lz = lmo_lanczos_new(w->d->n, w->d->p, MC_LANCZOS_BASIS);
    return w->lz;
}

ircg_error mc_grad_singular_values(void *ws, int k, double *sv)
{
    mc_ws *w = ws;
    const mc_data *d = w->d;
    mc_grad_ctx oc = {.w = w, .wf = 0, .wg = 1};
    lmo_lanczos *lz = NULL;
    lmo_svd_out so = {0};
    ircg_error err = IRCG_ERR_NOMEM;

    if (k < 1 || k > 4 || d->comm) /* the Golub-Kahan products are whole */
        return IRCG_ERR_INVALID;
    lz = lmo_lanczos_new(d->n, d->p, 160);
    so.u = malloc((size_t)d->n * sizeof *so.u);
    so.v = malloc((size_t)d->p * sizeof *so.v);
    if (!lz || !so.u || !so.v)
        goto done;
    /* cold start for k > 1: from the (nearly exact) top vector of the last
     * LMO the Krylov space is invariant after one step, and sigma_2 would
     * come back 0 */
    err = lmo_lanczos_run(lz, mc_grad_op, &oc, k == 1 && w->have_v ? w->v : NULL, k,
                         fmax(w->lmo_tol, 1e-13), 20 * (int64_t)w->lmo_max_mv, &so);
    for (int i = 0; i < k; i++)
        sv[i] = so.sv[i];
done:
    lmo_lanczos_free(lz);
    free(so.u);
    free(so.v);
    return err;
}
