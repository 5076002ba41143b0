/*
 * mc_state.c -- checkpoints of the matrix-completion workspace and iterate
 * exports.  A checkpoint holds everything a step reads, including the
 * incrementally built Grams (rebuilding them would change their rounding),
 * so a restored solve continues bit for bit.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "problems/mc/mc.h"

#define MC_MAGIC_V1 0x3153574b43434dULL /* "MCCKWS1" */
#define MC_MAGIC 0x3253574b43434dULL    /* "MCCKWS2": since_refresh, and the
                                           sides on Omega, not residuals */

static void put_block(slv_buf *b, const double *A, int k, int ld)
{
    for (int j = 0; j < k; j++)
        slv_buf_put_f64s(b, A + (size_t)j * ld, (size_t)k);
}

static void get_block(slv_rbuf *r, double *A, int k, int ld)
{
    for (int j = 0; j < k; j++)
        slv_rbuf_f64s(r, A + (size_t)j * ld, (size_t)k);
}

/* The scalars, with the shape (n, nnz) of the instance saved. */
static void put_scalars(slv_buf *b, const mc_ws *w, int64_t n, int64_t nnz)
{
    slv_buf_put_u64(b, MC_MAGIC);
    slv_buf_put_i64(b, n);
    slv_buf_put_i64(b, w->d->p);
    slv_buf_put_i64(b, nnz);
    slv_buf_put_i64(b, w->k);
    slv_buf_put_i64(b, w->compress_at);
    slv_buf_put_i64(b, w->have_v);
    slv_buf_put_i64(b, w->have_dir);
    slv_buf_put_i64(b, w->sums.valid);
    slv_buf_put_i64(b, 0); /* pre_valid: the first Gram product is not kept */
    slv_buf_put_i64(b, w->since_refresh);
    slv_buf_put_f64(b, w->x.a);
    slv_buf_put_f64(b, w->z.a);
    slv_buf_put_f64(b, w->sums.g_x);
    slv_buf_put_f64(b, w->sums.g_z);
    slv_buf_put_f64(b, w->sv);
}

/* What follows P: Q, the k x k blocks and the k-vectors (the same on
 * every rank of a distributed solve). */
static void put_column_side(slv_buf *b, const mc_ws *w)
{
    int k = w->k;
    slv_buf_put_f64s(b, w->Q, (size_t)w->d->p * k);
    put_block(b, w->x.K, k, w->cap);
    put_block(b, w->z.K, k, w->cap);
    put_block(b, w->GP, k, w->cap);
    put_block(b, w->GQ, k, w->cap);
    put_block(b, w->W, k, w->cap);
    slv_buf_put_f64s(b, w->sP, (size_t)k);
    slv_buf_put_f64s(b, w->qm, (size_t)k);
    slv_buf_put_f64s(b, w->Pu, (size_t)k);
    slv_buf_put_f64s(b, w->Qv, (size_t)k);
}

ircg_error mc_save(void *ws, slv_buf *b)
{
    mc_ws *w = ws;
    const mc_data *d = w->d;

    put_scalars(b, w, d->n, d->nnz);
    slv_buf_put_f64s(b, w->P, (size_t)d->n * w->k);
    put_column_side(b, w);
    slv_buf_put_f64s(b, w->u, (size_t)d->n);
    slv_buf_put_f64s(b, w->v, (size_t)d->p);
    /* the slot of version 2's R v: the restored solver makes the first
     * Gram product itself, the same bits the step pass made (mc_sweep.c) */
    for (int i = 0; i < d->n; i++)
        slv_buf_put_f64(b, 0.0);
    slv_buf_put_f64s(b, w->x.xo, (size_t)d->nnz);
    slv_buf_put_f64s(b, w->z.xo, (size_t)d->nnz);
    return b->failed ? IRCG_ERR_NOMEM : IRCG_OK;
}

ircg_error mc_whole_identity(void *ws, int *rank, int64_t *n_observed, uint64_t *digest)
{
    mc_ws *w = ws;
    const mc_data *d = w->d;
    *rank = d->comm ? d->comm->rank : 0;
    *n_observed = d->nnz_all;
    if (!w->whole_digest_known) { /* collective: every rank's first save */
        w->whole_digest = mc_whole_digest(d);
        w->whole_digest_known = 1;
    }
    *digest = w->whole_digest;
    return IRCG_OK;
}

/* mc_save's layout for the whole instance: the replicated parts from this
 * rank (rank 0 writes), the row parts (P by columns, u, X and Z on Omega)
 * of every rank in rank order, which is row order. */
ircg_error mc_save_whole(void *ws, slv_sink *s)
{
    mc_ws *w = ws;
    const mc_data *d = w->d;
    const ircg_comm *c = d->comm;
    slv_buf b = {0};
    double zeros[64] = {0};

    if (!c) { /* one process: mc_save's blob itself */
        ircg_error err = mc_save(ws, &b);
        slv_sink_buf(s, &b);
        slv_buf_free(&b);
        return err != IRCG_OK ? err : s->err;
    }
    put_scalars(&b, w, d->n_all, d->nnz_all);
    slv_sink_buf(s, &b);
    for (int j = 0; j < w->k; j++)
        slv_comm_stream_rows(c, w->P + (size_t)j * d->n, d->n, s);
    put_column_side(&b, w);
    slv_sink_buf(s, &b);
    slv_comm_stream_rows(c, w->u, d->n, s);
    slv_buf_put_f64s(&b, w->v, (size_t)d->p);
    slv_sink_buf(s, &b);
    for (int64_t i = 0; i < d->n_all; i += 64) /* the slot of R v, as in mc_save */
        slv_sink_f64s(s, zeros, (size_t)(d->n_all - i < 64 ? d->n_all - i : 64));
    slv_comm_stream_rows(c, w->x.xo, d->nnz, s);
    slv_comm_stream_rows(c, w->z.xo, d->nnz, s);
    slv_buf_free(&b);
    return s->err;
}

static ircg_error bad(ircg_diag *diag, const char *what)
{
    return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                     "matrix-completion state: %s", what);
}

/* The ratings of the ranks before this one (collective). */
static int64_t nnz_before(const mc_data *d)
{
    const ircg_comm *c = d->comm;
    int64_t before = 0;
    for (int r = 0; r < c->size - 1; r++) {
        double nr = slv_comm_sum1(c, c->rank == r ? (double)d->nnz : 0.0);
        if (r < c->rank)
            before += (int64_t)nr;
    }
    return before;
}

/* An i64 of the little-endian bytes at b. */
static int64_t le_i64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return (int64_t)v;
}

static void put_le_i64(unsigned char *b, int64_t x)
{
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)x >> (8 * i));
}

/* mc_save_whole's inverse, for this rank: the whole workspace state read
 * from src (every rank reads every byte; mc_save's layout for the whole
 * instance) into out as mc_save would have written this rank's part of
 * it -- its rows of P, u, R v's slot and X, Z on Omega, the replicated
 * rest whole.  mc_restore then takes it as any checkpoint of the part.
 * Collective; every rank gets the same verdict (its checks read only
 * what every rank read). */
ircg_error mc_split_whole(void *ws, slv_csrc *src, slv_buf *out, ircg_diag *diag)
{
    mc_ws *w = ws;
    const mc_data *d = w->d;
    unsigned char sc[16 * 8];
    int64_t before = d->comm ? nnz_before(d) : 0;

    slv_csrc_bytes(src, sc, 8);
    uint64_t magic = (uint64_t)le_i64(sc);
    if (src->failed || (magic != MC_MAGIC && magic != MC_MAGIC_V1))
        return bad(diag, "not a matrix-completion checkpoint");
    size_t nsc = magic == MC_MAGIC ? 16 : 15; /* version 1: no refresh counter */
    slv_csrc_bytes(src, sc + 8, (nsc - 1) * 8);
    int64_t n = le_i64(sc + 8), p = le_i64(sc + 16), nnz = le_i64(sc + 24);
    int64_t k = le_i64(sc + 32);
    if (src->failed || n != d->n_all || p != d->p || nnz != d->nnz_all)
        return bad(diag, "shape differs from the problem's");
    /* k bounds what is allocated below, before the blob's length does */
    if (k < 0 || (uint64_t)k > (src->len - src->pos) / 8 / (uint64_t)(n + p))
        return bad(diag, "corrupt atom count");
    put_le_i64(sc + 8, d->n);
    put_le_i64(sc + 24, d->nnz);
    slv_buf_put_raw(out, sc, nsc * 8);
    for (int64_t j = 0; j < k; j++)                      /* P */
        slv_csrc_rows(src, n, d->row0, d->n, out);
    slv_csrc_copy(src, (size_t)(p * k + 5 * k * k + 4 * k) * 8, out); /* Q, blocks */
    slv_csrc_rows(src, n, d->row0, d->n, out);           /* u */
    slv_csrc_copy(src, (size_t)p * 8, out);              /* v */
    slv_csrc_rows(src, n, d->row0, d->n, out);           /* R v's slot */
    slv_csrc_rows(src, nnz, before, d->nnz, out);        /* X on Omega */
    slv_csrc_rows(src, nnz, before, d->nnz, out);        /* Z on Omega */
    if (src->failed)
        return bad(diag, "truncated");
    return out->failed ? slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory") : IRCG_OK;
}

ircg_error mc_restore(void *ws, slv_rbuf *r, ircg_diag *diag)
{
    mc_ws *w = ws;
    const mc_data *d = w->d;

    uint64_t magic = slv_rbuf_u64(r);
    if (magic != MC_MAGIC && magic != MC_MAGIC_V1)
        return bad(diag, "not a matrix-completion checkpoint");
    int64_t n = slv_rbuf_i64(r), p = slv_rbuf_i64(r), nnz = slv_rbuf_i64(r);
    int64_t k = slv_rbuf_i64(r), cat = slv_rbuf_i64(r);
    int64_t hv = slv_rbuf_i64(r), hd = slv_rbuf_i64(r), sv = slv_rbuf_i64(r);
    int64_t pv = slv_rbuf_i64(r);
    int v1 = magic == MC_MAGIC_V1;
    /* version 1 had no refresh schedule: the next step refreshes.  A refresh
     * that failed (out of memory) leaves the counter at MC_REFRESH_EVERY. */
    int64_t sr = v1 ? MC_REFRESH_EVERY - 1 : slv_rbuf_i64(r);
    if (sr < 0 || sr > MC_REFRESH_EVERY)
        return bad(diag, "corrupt refresh counter");
    if (r->failed || n != d->n || p != d->p || nnz != d->nnz)
        return bad(diag, "shape differs from the problem's");
    /* bound k by the bytes left before allocating anything; cat is kept
     * as an int (found by fuzzing: tests/fuzz/regress/checkpoint) */
    if (k < 0 || k > (int64_t)((r->len - r->pos) / 8 / (uint64_t)(n + p)) || cat < 1 || cat > INT_MAX)
        return bad(diag, "corrupt atom count");
    if (mc_factors_reserve(w, (int)k) != IRCG_OK)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    w->k = (int)k;
    w->compress_at = (int)cat;
    w->have_v = hv != 0;
    w->have_dir = hd != 0;
    (void)sv; /* the sums are made again below */
    (void)pv;
    w->pre_valid = 0;
    w->plan_valid = 0;
    w->gen++;
    w->since_refresh = (int)sr;
    w->x.a = slv_rbuf_f64(r);
    w->z.a = slv_rbuf_f64(r);
    (void)slv_rbuf_f64(r); /* g of both sides: summed again below */
    (void)slv_rbuf_f64(r);
    w->sv = slv_rbuf_f64(r);
    slv_rbuf_f64s(r, w->P, (size_t)n * k);
    slv_rbuf_f64s(r, w->Q, (size_t)p * k);
    get_block(r, w->x.K, (int)k, w->cap);
    get_block(r, w->z.K, (int)k, w->cap);
    get_block(r, w->GP, (int)k, w->cap);
    get_block(r, w->GQ, (int)k, w->cap);
    get_block(r, w->W, (int)k, w->cap);
    slv_rbuf_f64s(r, w->sP, (size_t)k);
    slv_rbuf_f64s(r, w->qm, (size_t)k);
    slv_rbuf_f64s(r, w->Pu, (size_t)k);
    slv_rbuf_f64s(r, w->Qv, (size_t)k);
    slv_rbuf_f64s(r, w->u, (size_t)n);
    slv_rbuf_f64s(r, w->v, (size_t)p);
    for (int64_t i = 0; i < n; i++)
        (void)slv_rbuf_f64(r);
    /* Version 2 saved X and Z on Omega.  Version 1 saved their residuals:
     * X and Z follow (the residuals made from them again may differ from
     * the saved ones in the last bit; the next step refreshes anyway). */
    slv_rbuf_f64s(r, w->x.xo, (size_t)nnz);
    slv_rbuf_f64s(r, w->z.xo, (size_t)nnz);
    for (int64_t e = 0; v1 && e < nnz && !r->failed; e++) {
        w->x.xo[e] += mc_rating(d, e);
        w->z.xo[e] += mc_rating(d, e);
    }
    if (r->failed)
        return bad(diag, "truncated");
    w->xr_valid = 0;
    mc_omega_sums(w);
    return IRCG_OK;
}

ircg_error mc_restart(void *ws)
{
    mc_ws *w = ws;
    w->z.a = w->x.a;
    for (int j = 0; j < w->k; j++)
        memcpy(w->z.K + (size_t)j * w->cap, w->x.K + (size_t)j * w->cap,
               (size_t)w->k * sizeof(double));
    memcpy(w->z.xo, w->x.xo, (size_t)w->d->nnz * sizeof(double));
    w->gen++;
    mc_omega_sums(w); /* z's sums follow x's (z.r is made afresh when asked) */
    return IRCG_OK;
}

ircg_error mc_iterate(void *ws, ircg_which which, int want_dense, ircg_iterate **out)
{
    mc_ws *w = ws;
    const mc_data *d = w->d;
    const mc_side *s = which == IRCG_Z ? &w->z : &w->x;
    ircg_iterate *it = calloc(1, sizeof *it);
    int kk = w->k > 0 ? w->k : 1;
    ircg_error err = IRCG_ERR_NOMEM;

    *out = NULL;
    if (!it)
        return err;
    it->kind = IRCG_PROBLEM_MATRIX_COMPLETION;
    it->a0 = s->a;
    it->x0_diag = malloc((size_t)d->m0 * sizeof(double));
    it->w = malloc((size_t)kk * sizeof(double));
    it->P = malloc((size_t)d->n * kk * sizeof(double));
    it->Q = malloc((size_t)d->p * kk * sizeof(double));
    if (!it->x0_diag || !it->w || !it->P || !it->Q)
        goto fail;
    for (int i = 0; i < d->m0; i++)
        it->x0_diag[i] = w->d0;
    if ((err = mc_core_svd(w, s->K, it->P, it->Q, it->w, &it->rank)) != IRCG_OK)
        goto fail;
    if (want_dense) {
        it->dense = malloc((size_t)d->n * d->p * sizeof(double));
        err = IRCG_ERR_NOMEM;
        if (!it->dense || (err = mc_dense(w, s, it->dense)) != IRCG_OK)
            goto fail;
    }
    if ((err = mc_iterate_finish(d, it)) != IRCG_OK ||
        (d->comm && (err = mc_dist_gather(w, it)) != IRCG_OK))
        goto fail;
    *out = it;
    return IRCG_OK;
fail:
    ircg_iterate_free(it);
    return err;
}
