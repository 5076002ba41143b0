/*
 * mc_cert_snap.c -- what a certificate of matrix completion reads of the
 * workspace, copied, so that it can be made on another thread while the
 * solve moves on (core/cert_async.c; the oracle's snap_* ops).
 *
 * A snapshot is a workspace of its own (mc_ws) holding copies of x and z
 * on Omega, the factors and their Grams, the vertex's v and the refresh
 * counter, with scratch of its own (its Lanczos process, the next LMO's
 * stage, the column buffer of one thread: no pool), so mc_certify runs on
 * it unchanged and makes the bits it would have made on the workspace:
 * the same operations on the same values, and the passes give the same
 * bits for any thread count.  The certificates' buffers and the anchor
 * (mc_cert_buf) are the workspace's own, shared: the snapshots are
 * certified one at a time, on one thread, and the workspace certifies
 * synchronously only when none is running (cert_async.c drains them
 * first).  A distributed problem has none (its sums are collective).
 */
#include <stdlib.h>
#include <string.h>

#include "lmo/gram.h"
#include "problems/mc/mc.h"

void mc_snap_free(void *snap)
{
    mc_ws *s = snap;
    if (!s)
        return;
    mc_exec_free(&s->ex);
    lmo_gram_free(s->gram);
    free(s->P);
    free(s->Q);
    free(s->GP);
    free(s->GQ);
    free(s->W);
    free(s->sP);
    free(s->qm);
    free(s->x.K);
    free(s->z.K);
    free(s->x.xo);
    free(s->z.xo);
    free(s->u);
    free(s->v);
    free(s->pre_a);
    free(s->st_u);
    free(s->st_v);
    free(s->Pu);
    free(s->Qv);
    free(s->tn);
    free(s->tn2);
    free(s->tp);
    free(s->tk);
    free(s->tk2);
    free(s);
}

void *mc_snap_new(void *ws)
{
    const mc_ws *w = ws;
    const mc_data *d = w->d;
    mc_ws *s;
    if (d->comm || !(s = calloc(1, sizeof *s)))
        return NULL;
    s->d = d;
    s->x.xo = slv_big_alloc((size_t)d->nnz * sizeof(double), 0);
    s->z.xo = slv_big_alloc((size_t)d->nnz * sizeof(double), 0);
    s->u = calloc((size_t)d->n, sizeof(double));
    s->v = calloc((size_t)d->p, sizeof(double));
    s->pre_a = malloc((size_t)d->n * sizeof(double));
    s->tn = malloc((size_t)d->n * sizeof(double));
    s->tn2 = malloc((size_t)d->n * sizeof(double));
    s->tp = malloc((size_t)d->p * sizeof(double));
    s->gram = lmo_gram_new(d->n, d->p, MC_LANCZOS_BASIS);
    if (!s->x.xo || !s->z.xo || !s->u || !s->v || !s->pre_a || !s->tn || !s->tn2 ||
        !s->tp || !s->gram || mc_exec_init(&s->ex, d, 1) != IRCG_OK) {
        mc_snap_free(s);
        return NULL;
    }
    return s;
}

/* A k x k block of leading dimension cap. */
static void copy_block(double *dst, const double *src, int k, int cap)
{
    for (int j = 0; j < k; j++)
        memcpy(dst + (size_t)j * cap, src + (size_t)j * cap, (size_t)k * sizeof *dst);
}

ircg_error mc_snap_take(void *ws, void *snap)
{
    mc_ws *w = ws, *s = snap;
    const mc_data *d = w->d;
    int k = w->k;

    /* the certificates' buffers (and the anchor) are the workspace's */
    if (!mc_cert_buf_get(w) || mc_factors_reserve(s, w->cap) != IRCG_OK)
        return IRCG_ERR_NOMEM;
    /* the capacity too: the Grams' leading dimension, and what xo_drift
     * and the products read are the same values at the same places */
    s->cap = w->cap;
    s->k = k;
    s->lmo_tol = w->lmo_tol;
    s->lmo_max_mv = w->lmo_max_mv;
    s->engine = w->engine;
    s->d0 = w->d0;
    s->since_refresh = w->since_refresh;
    s->x.a = w->x.a;
    s->z.a = w->z.a;
    s->have_v = w->have_v;
    s->sv = w->sv;
    s->gen = w->gen;
    s->st_valid = 0;
    s->pre_valid = s->plan_valid = 0;
    s->cert = w->cert;
    memcpy(s->P, w->P, (size_t)d->n * k * sizeof *s->P);
    memcpy(s->Q, w->Q, (size_t)d->p * k * sizeof *s->Q);
    copy_block(s->x.K, w->x.K, k, w->cap);
    copy_block(s->z.K, w->z.K, k, w->cap);
    copy_block(s->GP, w->GP, k, w->cap);
    copy_block(s->GQ, w->GQ, k, w->cap);
    copy_block(s->W, w->W, k, w->cap);
    memcpy(s->sP, w->sP, (size_t)k * sizeof *s->sP);
    memcpy(s->qm, w->qm, (size_t)k * sizeof *s->qm);
    memcpy(s->v, w->v, (size_t)d->p * sizeof *s->v);
    memcpy(s->x.xo, w->x.xo, (size_t)d->nnz * sizeof *s->x.xo);
    memcpy(s->z.xo, w->z.xo, (size_t)d->nnz * sizeof *s->z.xo);
    return IRCG_OK;
}

void mc_snap_done(void *ws, void *snap)
{
    mc_ws *w = ws, *s = snap;
    w->ex.passes += s->ex.passes;
    w->ex.bytes += s->ex.bytes;
    s->ex.passes = 0;
    s->ex.bytes = 0;
}
