/*
 * mc_prox_state.c -- checkpoints and iterate exports of the projection
 * workspace.  A checkpoint holds both slots exactly as they are (factors,
 * residuals, cached sums) and the warm start of the next projection, so a
 * restored run continues bit for bit.  A restore reads everything into new
 * points first: a bad blob leaves the workspace as it was.
 */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/proj/mc_prox.h"

#define MP_MAGIC 0x3153575852504dULL /* "MPRXWS1" */

static void put_point(slv_buf *b, const mc_data *d, const mp_point *pt)
{
    slv_buf_put_f64(b, pt->c);
    slv_buf_put_f64(b, pt->a);
    slv_buf_put_i64(b, pt->k);
    slv_buf_put_i64(b, pt->has_w);
    slv_buf_put_f64(b, pt->g);
    slv_buf_put_f64(b, pt->f);
    slv_buf_put_f64s(b, pt->P, (size_t)d->n * pt->k);
    slv_buf_put_f64s(b, pt->Q, (size_t)d->p * pt->k);
    slv_buf_put_f64s(b, pt->s, (size_t)pt->k);
    if (pt->has_w)
        slv_buf_put_f64s(b, pt->w, (size_t)d->p);
    slv_buf_put_f64s(b, pt->cs, (size_t)d->p);
    slv_buf_put_f64s(b, pt->r, (size_t)d->nnz);
}

ircg_error mp_save(void *ws, slv_buf *b)
{
    mp_ws *w = ws;
    const mc_data *d = w->d;

    slv_buf_put_u64(b, MP_MAGIC);
    slv_buf_put_i64(b, d->n);
    slv_buf_put_i64(b, d->p);
    slv_buf_put_i64(b, d->nnz);
    slv_buf_put_i64(b, d->outer);
    slv_buf_put_i64(b, w->last_rank);
    slv_buf_put_i64(b, w->nwarm);
    slv_buf_put_f64s(b, w->warm, (size_t)d->p * w->nwarm);
    put_point(b, d, &w->x);
    put_point(b, d, &w->z);
    return b->failed ? IRCG_ERR_NOMEM : IRCG_OK;
}

static ircg_error bad(ircg_diag *diag, const char *what)
{
    return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                     "matrix-completion projection state: %s", what);
}

static size_t left(const slv_rbuf *r) { return r->failed ? 0 : r->len - r->pos; }

static int all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

static ircg_error get_point(slv_rbuf *r, const mc_data *d, mp_point *pt,
                            ircg_diag *diag)
{
    double c = slv_rbuf_f64(r), a = slv_rbuf_f64(r);
    int64_t k = slv_rbuf_i64(r), hw = slv_rbuf_i64(r);
    double g = slv_rbuf_f64(r), f = slv_rbuf_f64(r);

    if (r->failed)
        return bad(diag, "truncated");
    if (k < 0 || k > d->m0 || (hw != 0 && hw != 1) ||
        (uint64_t)k * (uint64_t)(d->n + d->p + 1) > left(r) / 8)
        return bad(diag, "corrupt atom count");
    if (!isfinite(c) || !isfinite(a) || !isfinite(g) || !isfinite(f))
        return bad(diag, "non-finite coefficient");
    if (mp_point_reserve(pt, d, (int)k) != IRCG_OK)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    pt->c = c;
    pt->a = a;
    pt->k = (int)k;
    pt->has_w = (int)hw;
    pt->g = g;
    pt->f = f;
    slv_rbuf_f64s(r, pt->P, (size_t)d->n * k);
    slv_rbuf_f64s(r, pt->Q, (size_t)d->p * k);
    slv_rbuf_f64s(r, pt->s, (size_t)k);
    if (hw)
        slv_rbuf_f64s(r, pt->w, (size_t)d->p);
    slv_rbuf_f64s(r, pt->cs, (size_t)d->p);
    slv_rbuf_f64s(r, pt->r, (size_t)d->nnz);
    if (r->failed)
        return bad(diag, "truncated");
    if (!all_finite(pt->P, (size_t)d->n * k) || !all_finite(pt->Q, (size_t)d->p * k) ||
        !all_finite(pt->s, (size_t)k) || !all_finite(pt->w, (size_t)d->p) ||
        !all_finite(pt->cs, (size_t)d->p) || !all_finite(pt->r, (size_t)d->nnz))
        return bad(diag, "non-finite entry");
    return IRCG_OK;
}

static void swap_points(mp_point *a, mp_point *b)
{
    mp_point t = *a;
    *a = *b;
    *b = t;
}

ircg_error mp_restore(void *ws, slv_rbuf *r, ircg_diag *diag)
{
    mp_ws *w = ws;
    const mc_data *d = w->d;
    mp_point x = {0}, z = {0};
    double *warm = NULL;
    ircg_error err;

    if (slv_rbuf_u64(r) != MP_MAGIC)
        return bad(diag, "not a matrix-completion projection checkpoint");
    int64_t n = slv_rbuf_i64(r), p = slv_rbuf_i64(r), nnz = slv_rbuf_i64(r);
    int64_t outer = slv_rbuf_i64(r), rank = slv_rbuf_i64(r), nw = slv_rbuf_i64(r);
    if (r->failed || n != d->n || p != d->p || nnz != d->nnz || outer != d->outer)
        return bad(diag, "shape differs from the problem's");
    if (rank < 0 || rank > d->m0 || nw < 0 || nw > d->m0 ||
        (uint64_t)nw * (uint64_t)p > left(r) / 8)
        return bad(diag, "corrupt warm start");
    if (!(warm = malloc((size_t)(p * (nw ? nw : 1)) * sizeof *warm)) ||
        mp_point_init(&x, d) != IRCG_OK || mp_point_init(&z, d) != IRCG_OK) {
        err = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
        goto done;
    }
    slv_rbuf_f64s(r, warm, (size_t)(p * nw));
    if ((err = get_point(r, d, &x, diag)) != IRCG_OK ||
        (err = get_point(r, d, &z, diag)) != IRCG_OK)
        goto done;
    /* the oracle's state ends the checkpoint (solver.c) */
    if (r->pos != r->len) {
        err = bad(diag, "trailing bytes");
        goto done;
    }
    if (!all_finite(warm, (size_t)(p * nw))) {
        err = bad(diag, "non-finite entry");
        goto done;
    }
    swap_points(&w->x, &x);
    swap_points(&w->z, &z);
    free(w->warm);
    w->warm = warm;
    warm = NULL;
    w->warm_cap = w->nwarm = (int)nw;
    w->last_rank = (int)rank;
    w->have_pend = 0;
    err = IRCG_OK;
done:
    mp_point_free(&x);
    mp_point_free(&z);
    free(warm);
    return err;
}

ircg_error mp_restart(void *ws)
{
    mp_ws *w = ws;
    return mp_point_copy(&w->z, &w->x, w->d);
}

ircg_error mp_iterate(void *ws, ircg_which which, int want_dense, ircg_iterate **out)
{
    mp_ws *w = ws;
    const mc_data *d = w->d;
    const mp_point *pt = which == IRCG_Z ? &w->z : &w->x;
    ircg_iterate *it = calloc(1, sizeof *it);
    size_t n = (size_t)d->n, p = (size_t)d->p;
    double wn = 0;
    int k = pt->k, kk;

    *out = NULL;
    if (!it)
        return IRCG_ERR_NOMEM;
    if (pt->has_w)
        for (size_t j = 0; j < p; j++)
            wn += pt->w[j] * pt->w[j];
    wn = sqrt(wn);
    int extra = wn > 0; /* the column-sum atom, when it is not zero */
    const int rank = k + extra;
    it->rank = rank;
    kk = it->rank > 0 ? it->rank : 1;
    it->kind = IRCG_PROBLEM_MATRIX_COMPLETION;
    it->a0 = pt->c * pt->a;
    it->x0_diag = malloc((size_t)d->m0 * sizeof(double));
    it->w = calloc((size_t)kk, sizeof(double));
    it->P = malloc(n * kk * sizeof(double));
    it->Q = malloc(p * kk * sizeof(double));
    if (want_dense)
        it->dense = calloc(n * p, sizeof(double));
    if (!it->x0_diag || !it->w || !it->P || !it->Q || (want_dense && !it->dense)) {
        ircg_iterate_free(it);
        return IRCG_ERR_NOMEM;
    }
    for (int i = 0; i < d->m0; i++)
        it->x0_diag[i] = w->d0;
    memcpy(it->P, pt->P, n * k * sizeof(double));
    for (int l = 0; l < k; l++) { /* weights >= 0: a negative c flips Q */
        double wl = pt->c * pt->s[l], sg = wl < 0 ? -1.0 : 1.0;
        it->w[l] = fabs(wl);
        for (size_t j = 0; j < p; j++)
            it->Q[j + l * p] = sg * pt->Q[j + l * p];
    }
    if (extra) { /* 1 w' = (1/sqrt(n)) e (w/|w|)' sqrt(n) |w| */
        double sn = sqrt((double)d->n_all);
        for (size_t i = 0; i < n; i++)
            it->P[i + k * n] = mc_row_weight(d, (int)i) / sn;
        for (size_t j = 0; j < p; j++)
            it->Q[j + k * p] = pt->w[j] / wn;
        it->w[k] = sn * wn;
    }
    if (want_dense) {
        for (int i = 0; i < d->m0; i++)
            it->dense[i + i * n] = it->a0 * w->d0;
        for (int l = 0; l < rank; l++)
            cblas_dger(CblasColMajor, d->n, d->p, it->w[l], it->P + l * n, 1,
                       it->Q + l * p, 1, it->dense, d->n);
    }
    if (mc_iterate_finish(d, it) != IRCG_OK) {
        ircg_iterate_free(it);
        return IRCG_ERR_NOMEM;
    }
    *out = it;
    return IRCG_OK;
}
