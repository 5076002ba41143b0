/*
 * mc_sweep.c -- the fused passes over Omega, which carry the memory traffic
 * of an iteration (|Omega| = 1e6 entries on MovieLens 1M, 1e7 at 10M).
 *
 * The step pass updates X and Z on Omega, and in the same pass makes every
 * sum the iteration needs next: g of both sides (or, when a reference is
 * traced, g - g_opt, from which g follows), <R, X_Omega> (the FW gap's
 * inner product), and -- when the next LMO is planned --
 * its first Gram product C'C v at the current vertex v, which is where
 * that LMO starts.  The Gram pass of the LMO makes C x and R'(C x) row by
 * row: the row's entries are in L1 when they are scattered back.
 *
 * Determinism: sums are made per chunk in the four lanes of base/ksum.h and
 * combined in chunk order; the transposed products scatter into one buffer
 * per group of chunks, combined in group order; chunks and groups are fixed
 * by the problem.  So the results do not depend on the thread count, and
 * the step pass's Gram product is, bit for bit, the one the LMO's first
 * pass would make (same row code, same a, same reduction).
 *
 * Traffic: the residual R = X_Omega - M is not stored; every pass forms it
 * from X_Omega and the ratings as it reads them (the same bits), and reads
 * the ratings as floats when they all are (MovieLens: 4 bytes an entry,
 * not 8), and the columns in 16 bits when p <= 65536 (mc_data.col16: 2
 * bytes, not 4).  A step then moves 38 bytes an entry (it moved 76), and
 * X, Z, the ratings and Omega of MovieLens 1M (22 MB) stay in a 32 MB L3.  A
 * traced reference adds its squared residual in 16 bits, 2 bytes an entry
 * (q as doubles added 8 and pushed MovieLens 1M's 32 MB out of that L3:
 * the trace cost 12-38% of a solve; q as floats added 4, and 6-9% of a
 * solve).  mc_x_residual makes R when a plain product needs it.
 */
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "base/ksum.h"
#include "base/simd.h"
#include "problems/mc/mc.h"

typedef slv_v4d v4d;

/* Entries of the rows whose dot products are made before they are
 * scattered back (while they are in L1). */
#define MC_SUM_BATCH 1024

/* Inlined into every instruction set's kernel (base/simd.h): a call
 * would run the base code.  The kernels make no calls in their loops: gcc
 * then ends the AVX ones with vzeroupper, without which every later SSE
 * instruction of the process ran 2-4 times slower (measured: a plain
 * sparse product 1.2 ms instead of 0.31 ms).  Their callers do the
 * memsets. */
#define MC_INLINE static inline __attribute__((always_inline))

/* Column e: from the 16-bit copy c16 when the problem has one (fc, a
 * constant in each specialization, like fm below), the same value. */
#define COL(col, c16, e, fc) ((fc) ? (int)(c16)[(e)] : (col)[(e)])

#define GATHER4(X, col, c16, e, fc)                                         \
    ((v4d){(X)[COL(col, c16, e, fc)], (X)[COL(col, c16, (e) + 1, fc)],      \
           (X)[COL(col, c16, (e) + 2, fc)], (X)[COL(col, c16, (e) + 3, fc)]})

/* The row dot product's four lanes and scalar tail s0, combined as
 * mc_kernels.c's row_dot does. */
#define ROW_TOTAL(s, s0) (((s0) + (s)[1]) + ((s)[2] + (s)[3]))

/* Four floats at p as doubles (exact).  Written element by element: gcc
 * 12 makes that one vcvtps2pd ymm, (mem) in the AVX2 clone, where
 * __builtin_convertvector of a v4f gave five instructions (two half
 * conversions and a shuffle). */
#define LOAD_F4(dst, p)                                                     \
    do {                                                                    \
        const float *p_ = (p);                                              \
        (dst) = (v4d){p_[0], p_[1], p_[2], p_[3]};                          \
    } while (0)

/* The ratings of entries e..e+3 (and of e alone): from their float copy
 * when the problem has one (fm, a constant in each specialization), the
 * same values. */
#define LOAD_M(mm, d, e, fm)                                                \
    do {                                                                    \
        if (fm)                                                             \
            LOAD_F4(mm, (d)->mf + (e));                                     \
        else                                                                \
            SLV_V4D_LOAD(mm, (d)->m + (e));                                 \
    } while (0)
#define M_AT(d, e, fm) ((fm) ? (double)(d)->mf[(e)] : (d)->m[(e)])

/* ------------------------------------------------------------ the sums -- */

/* The reference residual q as the passes read it: Q~, q^2 in 16-bit fixed
 * point (2 bytes an entry, not the 8 of q; mc_reference.c).  The gaps need
 * no more: for any Q~,
 *   1/2 sum (r^2 - q^2) = 1/2 sum (r^2 - Q~) + 1/2 sum (Q~ - q^2),
 * and the last sum is a constant (w->qcorr, made once by mc_reference_set).
 * The price is in the terms' magnitude: |r^2 - Q~| <= |r^2 - q^2| +
 * |q^2 - Q~|, with |q^2 - Q~| at most half a unit, about 2^-17 of the
 * largest q^2, but for outliers (MovieLens 1M: 1/2 sum |q^2 - Q~| is 9e-6
 * of g; mc_reference.c).
 *
 * With a reference the passes sum r^2 - Q~ and not r^2: g is then
 *   1/2 sum r^2 = 1/2 sum (r^2 - Q~) + 1/2 sum Q~,
 * the last sum a constant too (w->gq; its terms are exact).  One sum per
 * side: tracing g - g_opt costs the pass the load of Q~ (three
 * instructions a quad) and an FMA where r^2 took a product, 4-5% of a
 * MovieLens 1M solve; the sums of (r - q~)(r + q~) against q as floats,
 * q~, took 4 bytes and four more operations a quad, and 6-9%.
 *
 * A term is r^2 - Q~ rounded once, by an FMA (r^2 rounded first would err
 * by ulps of r^2, not of the term).  The x86-64 kernel has no FMA
 * instruction: there the term is (p - Q~) + pe, with r^2 = p + pe exactly
 * (base/ksum.h's Dekker product, exact while |r| < 2^511), within an ulp
 * of the FMA's: the same bits wherever p and Q~ are within a factor 2 of
 * each other, as they are near the reference for every entry whose q^2 is
 * a few units or more.  The sum of a side errs
 * by at most 4 ulps of its terms' magnitude, gq by an ulp of itself, the
 * addition by half an ulp of g: near the reference, where the gaps
 * matter, the terms are small and g is within 2 ulps (its own sums: 3);
 * far from it (terms as large as g) within 6.
 * tests/unit/solver/problems/mc/test_mc_sweep.c checks both sums to these
 * bounds, with every kernel. */
typedef int v4i __attribute__((vector_size(16)));

/* Q~ of entries e..e+3 as doubles: 16-bit integers to 32-bit ones to
 * doubles in units, all exact.  Element by element, as LOAD_F4: gcc 12
 * makes that vpmovzxwd (mem), vcvtdq2pd and the product in the AVX
 * kernels (from 16 bits straight, a conversion per entry; by
 * __builtin_convertvector, eight instructions). */
#define LOAD_Q(qq, qsq, unit, e)                                            \
    do {                                                                    \
        const uint16_t *p_ = (qsq) + (e);                                   \
        v4i i_ = {p_[0], p_[1], p_[2], p_[3]};                              \
        (qq) = (v4d){i_[0], i_[1], i_[2], i_[3]} * (unit);                  \
    } while (0)

/* acc += r^2 - Q, lane by lane, rounded once where the kernel has an FMA
 * (hw); else from Dekker's exact square (above). */
#define ADD_SQ_MINUS(acc, r, Q, hw)                                         \
    do {                                                                    \
        if (hw) {                                                           \
            (acc) += (v4d){__builtin_fma((r)[0], (r)[0], -(Q)[0]),          \
                           __builtin_fma((r)[1], (r)[1], -(Q)[1]),          \
                           __builtin_fma((r)[2], (r)[2], -(Q)[2]),          \
                           __builtin_fma((r)[3], (r)[3], -(Q)[3])};         \
        } else {                                                            \
            v4d p_, pe_;                                                    \
            SLV_V4D_SQUARE(p_, pe_, r);                                     \
            (acc) += ((p_ - (Q)) + pe_);                                    \
        }                                                                   \
    } while (0)

/* A block's plain partial sums, of at most MC_BLOCK_QUADS quads of one row:
 * of r^2 and rz^2, or with a reference of their differences (above). */
typedef struct blk {
    v4d sx, sz;
} blk;
#define MC_BLOCK_QUADS 4

/* A chunk's sums: the blocks' sums added by TwoSum, <R, X> plainly (as it
 * always was). */
typedef struct lanes {
    slv_lsum sx, sz;
    v4d rx;
} lanes;

/* The terms of one quad of a row, with r = x - M, rz = z - M and qq = Q~
 * when fq.  The halves of the terms are taken once, from the totals
 * (store_sums): scaling by 2 is exact, so the bits are those of summing
 * halved terms. */
#define QUAD_TERMS(L, b, r, rz, x, qq, fq, hw)                              \
    do {                                                                    \
        if (fq) {                                                           \
            ADD_SQ_MINUS((b).sx, r, qq, hw);                                \
            ADD_SQ_MINUS((b).sz, rz, qq, hw);                               \
        } else {                                                            \
            (b).sx += (r) * (r);                                            \
            (b).sz += (rz) * (rz);                                          \
        }                                                                   \
        (L).rx += (r) * (x);                                                \
    } while (0)

/* A block into the chunk's lanes by TwoSum, at a quarter of the cost of a
 * TwoSum per term: the sums' error is then at most 3 ulps of the terms'
 * magnitude, whatever |Omega|, besides the terms' own rounding (g: 3 ulps
 * of g in all; with a reference, above). */
#define FLUSH(L, b, zero)                                                   \
    do {                                                                    \
        SLV_LSUM_ADD((L).sx, (b).sx);                                       \
        SLV_LSUM_ADD((L).sz, (b).sz);                                       \
        (b).sx = (b).sz = (zero);                                           \
    } while (0)

/* The row ended: its last (partial) block into the lanes.  Full blocks
 * are flushed by the loops over a row's quads, every MC_BLOCK_QUADS quads
 * (a loop of fixed length inside: no counter per quad). */
#define ROW_DONE(L, b, nq, zero)                                            \
    do {                                                                    \
        if ((nq) > 0)                                                       \
            FLUSH(L, b, zero);                                              \
    } while (0)

/* Entries [e, end) of a row (fewer than four) as one quad padded with
 * zero terms: x, z, M and Q~ (a copy loop here became calls to memcpy). */
MC_INLINE void tail_quad(const mc_ws *w, int64_t e, int64_t end, v4d *x, v4d *z,
                         v4d *mm, v4d *qq, const int fm, const int fq)
{
    for (int l = 0; l < 4; l++) {
        int in = e + l < end;
        (*x)[l] = in ? w->x.xo[e + l] : 0.0;
        (*z)[l] = in ? w->z.xo[e + l] : 0.0;
        (*mm)[l] = in ? M_AT(w->d, e + l, fm) : 0.0;
        (*qq)[l] = in && fq ? w->qsq[e + l] * w->qsq_unit : 0.0;
    }
}

/* The sums of one row [e, end) read from x and z on Omega: the blocks the
 * step pass forms in registers as it writes the row (step_body), so the
 * two give the same bits. */
MC_INLINE void row_sums(const mc_ws *w, int64_t e, int64_t end, lanes *L, const int fm,
                        const int fq, const int hw)
{
    const double *restrict xx = w->x.xo, *restrict xz = w->z.xo;
    const uint16_t *restrict qsq = w->qsq;
    const double unit = w->qsq_unit;
    const mc_data dd = *w->d, *d = &dd; /* a copy: no reload per quad */
    const v4d zero = {0, 0, 0, 0};
    v4d x, z, mm, qq = zero, r, rz;
    blk b = {zero, zero};
    int nq = 0;

#define SUMS_QUAD(e)                                                        \
    do {                                                                    \
        SLV_V4D_LOAD(x, xx + (e));                                          \
        SLV_V4D_LOAD(z, xz + (e));                                          \
        LOAD_M(mm, d, e, fm);                                               \
        if (fq)                                                             \
            LOAD_Q(qq, qsq, unit, e);                                       \
        r = x - mm;                                                         \
        rz = z - mm;                                                        \
        QUAD_TERMS(*L, b, r, rz, x, qq, fq, hw);                            \
    } while (0)

    for (; e + 4 * MC_BLOCK_QUADS <= end;) {
        for (int q = 0; q < MC_BLOCK_QUADS; q++, e += 4)
            SUMS_QUAD(e);
        FLUSH(*L, b, zero);
    }
    for (; e + 4 <= end; e += 4, nq++)
        SUMS_QUAD(e);
#undef SUMS_QUAD
    if (e < end) {
        tail_quad(w, e, end, &x, &z, &mm, &qq, fm, fq);
        r = x - mm;
        rz = z - mm;
        QUAD_TERMS(*L, b, r, rz, x, qq, fq, hw);
        nq++;
    }
    ROW_DONE(*L, b, nq, zero);
}

MC_INLINE void clear_lanes(lanes *L)
{
    memset(L, 0, sizeof *L);
}

static void store_sums(mc_ws *w, int c, const lanes *L)
{
    double *out = w->dsum + MC_NSUM * c;
    slv_lsum rx = {L->rx, {0, 0, 0, 0}};
    /* all but <R, X> are halves */
    out[MC_S_X] = 0.5 * slv_lsum_value(&L->sx);
    out[MC_S_Z] = 0.5 * slv_lsum_value(&L->sz);
    out[MC_S_RX] = slv_lsum_value(&rx);
}

double mc_chunk_total(const mc_ws *w, int slot)
{
    slv_ksum k = {0, 0};
    for (int c = 0; c < w->d->nchunk; c++)
        slv_ksum_add(&k, w->dsum[MC_NSUM * c + slot]);
    return slv_ksum_value(&k);
}

/* The chunks' sums in chunk order, and g and the gaps from them: with Q~,
 * the sums are the gaps' but for their constant, and g is theirs plus
 * that of Q~; without Q~ (no memory for it) they are g's, and the gaps
 * those of Q~ = 0, g's minus 1/2 sum q^2, by cancellation.  Distributed,
 * the ranks' totals then in rank order. */
static void finish_sums(mc_ws *w)
{
    enum { GX, GZ, RX, GAPX, GAPZ, NT };
    const double *q = w->ref;
    double sx = mc_chunk_total(w, MC_S_X), sz = mc_chunk_total(w, MC_S_Z);
    double t[NT] = {[GX] = sx, [GZ] = sz, [RX] = mc_chunk_total(w, MC_S_RX)};
    if (q && w->qsq) {
        t[GX] = w->gq + sx;
        t[GZ] = w->gq + sz;
    }
    if (q) {
        t[GAPX] = sx + w->qcorr;
        t[GAPZ] = sz + w->qcorr;
    }
    slv_comm_sum(w->d->comm, t, NT);
    w->sums = (mc_sums){.g_x = t[GX], .g_z = t[GZ], .rx_x = t[RX], .ref = q, .valid = 1,
                        .gap_x = t[GAPX], .gap_z = t[GAPZ]};
}

/* --------------------------------------------------- the Gram products -- */

static void group_chunks(const mc_data *d, int g, int *c0, int *c1)
{
    *c0 = g * d->nchunk / d->ngroup;
    *c1 = (g + 1) * d->nchunk / d->ngroup;
}

/* buf[col_e] += r_e y over one row, with r_e = x_e - M_e; the products
 * four at a time (a row's columns are distinct, so every buf entry gets
 * the same additions in the same order as one by one). */
MC_INLINE void scatter_row(double *restrict buf, const double *restrict xx,
                           const mc_data *d, int64_t e, int64_t end, double y,
                           const int fm, const int fc)
{
    const int32_t *restrict col = d->col;
    const uint16_t *restrict c16 = d->col16;
    v4d xo, mm;
    for (; e + 4 <= end; e += 4) {
        SLV_V4D_LOAD(xo, xx + e);
        LOAD_M(mm, d, e, fm);
        v4d pr = (xo - mm) * y;
        buf[COL(col, c16, e, fc)] += pr[0];
        buf[COL(col, c16, e + 1, fc)] += pr[1];
        buf[COL(col, c16, e + 2, fc)] += pr[2];
        buf[COL(col, c16, e + 3, fc)] += pr[3];
    }
    for (; e < end; e++)
        buf[COL(col, c16, e, fc)] += (xx[e] - M_AT(d, e, fm)) * y;
}

typedef struct redctx {
    const mc_exec *ex;
    double *rtc;
} redctx;

/* Columns [j0, j1) of the group buffers, added in group order. */
static void reduce_task(void *vc, int t)
{
    const redctx *k = vc;
    const mc_data *d = k->ex->d;
    int j0 = (int)((int64_t)t * d->p / d->ngroup);
    int j1 = (int)((int64_t)(t + 1) * d->p / d->ngroup);
    double *restrict rtc = k->rtc;

    memcpy(rtc + j0, k->ex->colbuf + j0, (size_t)(j1 - j0) * sizeof *rtc);
    for (int g = 1; g < d->ngroup; g++) {
        const double *restrict buf = k->ex->colbuf + (size_t)g * d->p;
        for (int j = j0; j < j1; j++)
            rtc[j] += buf[j];
    }
}

/* The group buffers in group order: rtc = R' y (by column slices, in
 * parallel: serial, it was 4% of a 2-thread iteration). */
static void reduce_groups(mc_exec *ex, double *rtc)
{
    redctx k = {.ex = ex, .rtc = rtc};
    slv_pool_run(ex->pool, reduce_task, &k, ex->d->ngroup);
}

typedef struct gctx {
    mc_ws *w;
    const double *xo;    /* the side on Omega whose residual is R        */
    const double *x, *a; /* the vector and sigma grad f(X) x              */
    double *cx;
} gctx;

/* Rows [lo, hi): cx_i = a_i + (R x)_i, then buf += R'_i cx_i, a batch of
 * rows at a time: the dot products of the batch first (10% faster than
 * alternating row by row, measured), then its scatter while its entries
 * are still in cache (over a whole group they were not: at 10M ratings
 * that read the group twice from memory). */
MC_INLINE void gram_body(const gctx *k, int lo, int hi, double *buf, const int fm,
                         const int fc)
{
    const mc_data *d = k->w->d;
    const double *restrict xx = k->xo, *restrict x = k->x, *restrict a = k->a;
    const int32_t *restrict col = d->col;
    const uint16_t *restrict c16 = d->col16;
    const int64_t *restrict rp = d->rowptr;
    double *restrict cx = k->cx;

    for (int b = lo; b < hi;) {
        int i = b;
        for (; i < hi && (i == b || rp[i] - rp[b] < MC_SUM_BATCH); i++) {
            int64_t e = rp[i], end = rp[i + 1];
            v4d s = {0, 0, 0, 0}, xo, mm;
            for (; e + 4 <= end; e += 4) {
                SLV_V4D_LOAD(xo, xx + e);
                LOAD_M(mm, d, e, fm);
                s += (xo - mm) * GATHER4(x, col, c16, e, fc);
            }
            double s0 = s[0];
            for (; e < end; e++)
                s0 += (xx[e] - M_AT(d, e, fm)) * x[COL(col, c16, e, fc)];
            cx[i] = a[i] + ROW_TOTAL(s, s0);
        }
        for (; b < i; b++)
            scatter_row(buf, xx, d, rp[b], rp[b + 1], cx[b], fm, fc);
    }
}

MC_INLINE void gram_rows_impl(const gctx *k, int lo, int hi, double *buf)
{
    int fm = k->w->d->mf != NULL, fc = k->w->d->col16 != NULL;
    if (fm && fc)
        gram_body(k, lo, hi, buf, 1, 1);
    else if (fm)
        gram_body(k, lo, hi, buf, 1, 0);
    else if (fc)
        gram_body(k, lo, hi, buf, 0, 1);
    else
        gram_body(k, lo, hi, buf, 0, 0);
}
SLV_ISA_DISPATCH(gram_rows, (const gctx *k, int lo, int hi, double *buf), (k, lo, hi, buf))

static void gram_group(void *vc, int g)
{
    const gctx *k = vc;
    const mc_data *d = k->w->d;
    double *buf = k->w->ex.colbuf + (size_t)g * d->p;
    int c0, c1;

    group_chunks(d, g, &c0, &c1);
    memset(buf, 0, (size_t)d->p * sizeof *buf);
    gram_rows(k, d->chunk_row[c0], d->chunk_row[c1], buf);
}

void mc_gram_product(mc_ws *w, double sigma, const double *x, double *cx, double *ctcx)
{
    gctx k = {.w = w, .xo = w->x.xo, .x = x, .a = w->pre_a, .cx = cx};

    mc_gram_lowrank_in(w, sigma, x, w->pre_a);
    slv_pool_run(w->ex.pool, gram_group, &k, w->d->ngroup);
    mc_exec_count(&w->ex, mc_col_bytes(w->d) + (w->d->mf ? 12 : 16)); /* col, x, M */
    reduce_groups(&w->ex, ctcx);
    mc_gram_lowrank_out(w, sigma, cx, ctcx);
}

void mc_gram_product_r(mc_ws *w, const mc_side *s, const double *x, double *cx,
                       double *ctcx)
{
    gctx k = {.w = w, .xo = s->xo, .x = x, .a = w->pre_a, .cx = cx};

    mc_gram_lowrank_in(w, 0.0, x, w->pre_a); /* zeros */
    slv_pool_run(w->ex.pool, gram_group, &k, w->d->ngroup);
    mc_exec_count(&w->ex, mc_col_bytes(w->d) + (w->d->mf ? 12 : 16));
    reduce_groups(&w->ex, ctcx);
    mc_gram_lowrank_out(w, 0.0, cx, ctcx); /* a distributed problem's sum */
}

/* ------------------------------------------------------ the step pass -- */

typedef struct sctx {
    mc_ws *w;
    double alpha, cz, cxo, cxn;
    int use_dir, pre;
} sctx;

/* One chunk of the step; buf: the group's column buffer when the planned
 * LMO's Gram product is made too.  The sums are made from the new values
 * as they are written (row_sums' blocks, in registers); the scatter of a
 * batch of rows follows while they are in L1. */
MC_INLINE void step_body(const sctx *k, int c, double *buf, const int fm, const int fq,
                         const int fc, const int hw)
{
    mc_ws *w = k->w;
    const mc_data dd = *w->d, *d = &dd; /* a copy: no reload per quad */
    double *restrict xx = w->x.xo, *restrict xz = w->z.xo;
    const double *restrict v = w->v, *restrict u = w->u;
    const double *restrict pa = w->pre_a;
    const uint16_t *restrict qsq = w->qsq;
    const double unit = w->qsq_unit;
    double *restrict cv = w->pre_cv;
    const int32_t *restrict col = d->col;
    const uint16_t *restrict c16 = d->col16;
    const int64_t *restrict rp = d->rowptr;
    const double a = k->alpha, a1 = 1.0 - a, cz = k->cz, cxo = k->cxo;
    const double cxn = k->cxn, dl = k->use_dir ? -d->delta : 0.0;
    const v4d zero = {0, 0, 0, 0};
    int lo = d->chunk_row[c], hi = d->chunk_row[c + 1], row0 = lo;
    int64_t done = rp[lo];
    lanes L;

    clear_lanes(&L);
    for (int i = lo; i < hi; i++) {
        double ui = a * dl * u[i];
        int64_t e = rp[i], end = rp[i + 1];
        v4d s = zero, xo, zo, mm, qq = zero, r, rz;
        blk b = {zero, zero};
        int nq = 0;
#define STEP_QUAD(e)                                                        \
    do {                                                                    \
        v4d vj = GATHER4(v, col, c16, e, fc);                               \
        SLV_V4D_LOAD(xo, xx + (e));                                         \
        SLV_V4D_LOAD(zo, xz + (e));                                         \
        LOAD_M(mm, d, e, fm);                                               \
        v4d xn = a1 * xo + ui * vj;                                         \
        v4d zn = cz * zo + cxo * xo + cxn * xn;                             \
        SLV_V4D_STORE(xx + (e), xn);                                        \
        SLV_V4D_STORE(xz + (e), zn);                                        \
        r = xn - mm;                                                        \
        rz = zn - mm;                                                       \
        s += r * vj;                                                        \
        if (fq)                                                             \
            LOAD_Q(qq, qsq, unit, e);                                       \
        QUAD_TERMS(L, b, r, rz, xn, qq, fq, hw);                            \
    } while (0)
        for (; e + 4 * MC_BLOCK_QUADS <= end;) {
            for (int q = 0; q < MC_BLOCK_QUADS; q++, e += 4)
                STEP_QUAD(e);
            FLUSH(L, b, zero);
        }
        for (; e + 4 <= end; e += 4, nq++)
            STEP_QUAD(e);
#undef STEP_QUAD
        double s0 = s[0];
        int64_t tail = e;
        for (; e < end; e++) {
            double vj = v[COL(col, c16, e, fc)], xs = xx[e];
            double xn = a1 * xs + ui * vj;
            double zn = cz * xz[e] + cxo * xs + cxn * xn;
            xx[e] = xn;
            xz[e] = zn;
            s0 += (xn - M_AT(d, e, fm)) * vj;
        }
        if (tail < end) {
            tail_quad(w, tail, end, &xo, &zo, &mm, &qq, fm, fq);
            r = xo - mm;
            rz = zo - mm;
            QUAD_TERMS(L, b, r, rz, xo, qq, fq, hw);
            nq++;
        }
        ROW_DONE(L, b, nq, zero);
        if (buf)
            cv[i] = pa[i] + ROW_TOTAL(s, s0);
        if (buf && end - done >= MC_SUM_BATCH) {
            for (; row0 <= i; row0++)
                scatter_row(buf, xx, d, rp[row0], rp[row0 + 1], cv[row0], fm, fc);
            done = end;
        }
    }
    for (; buf && row0 < hi; row0++)
        scatter_row(buf, xx, d, rp[row0], rp[row0 + 1], cv[row0], fm, fc);
    store_sums(w, c, &L);
}

MC_INLINE void step_chunk_impl(const slv_isa isa, const sctx *k, int c, double *buf)
{
    int fm = k->w->d->mf != NULL, fq = k->w->ref && k->w->qsq, fc = k->w->d->col16 != NULL;
    const int hw = SLV_ISA_HAS_FMA(isa);
    switch (fm * 4 + fq * 2 + fc) { /* every case a constant: 8 specializations */
    case 7: step_body(k, c, buf, 1, 1, 1, hw); break;
    case 6: step_body(k, c, buf, 1, 1, 0, hw); break;
    case 5: step_body(k, c, buf, 1, 0, 1, hw); break;
    case 4: step_body(k, c, buf, 1, 0, 0, hw); break;
    case 3: step_body(k, c, buf, 0, 1, 1, hw); break;
    case 2: step_body(k, c, buf, 0, 1, 0, hw); break;
    case 1: step_body(k, c, buf, 0, 0, 1, hw); break;
    default: step_body(k, c, buf, 0, 0, 0, hw);
    }
}
SLV_ISA_DISPATCH_ISA(step_chunk, (const sctx *k, int c, double *buf), (k, c, buf))

static void step_group(void *vc, int g)
{
    const sctx *k = vc;
    const mc_data *d = k->w->d;
    double *buf = k->pre ? k->w->ex.colbuf + (size_t)g * d->p : NULL;
    int c0, c1;

    group_chunks(d, g, &c0, &c1);
    if (buf)
        memset(buf, 0, (size_t)d->p * sizeof *buf);
    for (int c = c0; c < c1; c++)
        step_chunk(k, c, buf);
}

double mc_sums_data_bytes(const mc_ws *w)
{
    return (w->d->mf ? 4 : 8) + (w->ref && w->qsq ? 2 : 0);
}

/* The bytes a pass moves for the sums: x and z read, then M and Q~. */
static double sums_bytes(const mc_ws *w)
{
    return 16 + mc_sums_data_bytes(w);
}

void mc_omega_step(mc_ws *w, double alpha, double cz, double cxo, double cxn, int pre)
{
    sctx k = {.w = w, .alpha = alpha, .cz = cz, .cxo = cxo, .cxn = cxn,
              .use_dir = alpha != 0, .pre = pre};

    slv_pool_run(w->ex.pool, step_group, &k, w->d->ngroup);
    /* and col; x and z written */
    mc_exec_count(&w->ex, sums_bytes(w) + 16 + mc_col_bytes(w->d));
    w->xr_valid = 0;
    w->pre_valid = pre;
    if (pre) {
        reduce_groups(&w->ex, w->pre_rtc);
        w->pre_sigma = w->plan_sigma;
    }
    finish_sums(w);
}

/* ------------------------------------------------------ the sums pass -- */

MC_INLINE void sums_rows_impl(const slv_isa isa, const mc_ws *w, int lo, int hi, lanes *L)
{
    const int64_t *rp = w->d->rowptr;
    int fm = w->d->mf != NULL, fq = w->ref && w->qsq;
    const int hw = SLV_ISA_HAS_FMA(isa);
    for (int i = lo; i < hi; i++) {
        if (fm && fq)
            row_sums(w, rp[i], rp[i + 1], L, 1, 1, hw);
        else if (fm)
            row_sums(w, rp[i], rp[i + 1], L, 1, 0, hw);
        else if (fq)
            row_sums(w, rp[i], rp[i + 1], L, 0, 1, hw);
        else
            row_sums(w, rp[i], rp[i + 1], L, 0, 0, hw);
    }
}
SLV_ISA_DISPATCH_ISA(sums_rows, (const mc_ws *w, int lo, int hi, lanes *L), (w, lo, hi, L))

void mc_omega_sums_chunk(mc_ws *w, int c)
{
    lanes L;

    clear_lanes(&L);
    sums_rows(w, w->d->chunk_row[c], w->d->chunk_row[c + 1], &L);
    store_sums(w, c, &L);
}

void mc_omega_sums_finish(mc_ws *w)
{
    finish_sums(w);
}

static void sums_task(void *vc, int c)
{
    mc_omega_sums_chunk(vc, c);
}

void mc_omega_sums(mc_ws *w)
{
    slv_pool_run(w->ex.pool, sums_task, w, w->d->nchunk);
    mc_exec_count(&w->ex, sums_bytes(w));
    finish_sums(w);
}

double mc_rx_dot_x(mc_ws *w)
{
    if (!w->sums.valid)
        mc_omega_sums(w);
    return w->sums.rx_x;
}

/* ------------------------------------------------- the plain residual -- */

static void residual_task(void *vc, int c)
{
    mc_ws *w = vc;
    const mc_data *d = w->d;
    for (int64_t e = d->rowptr[d->chunk_row[c]]; e < d->rowptr[d->chunk_row[c + 1]]; e++)
        w->x.r[e] = w->x.xo[e] - mc_rating(d, e);
}

const double *mc_x_residual(mc_ws *w)
{
    if (w->xr_valid)
        return w->x.r;
    if (!w->x.r && !(w->x.r = slv_big_alloc((size_t)w->d->nnz * sizeof *w->x.r, 0)))
        return NULL;
    slv_pool_run(w->ex.pool, residual_task, w, w->d->nchunk);
    mc_exec_count(&w->ex, 24); /* x, M, r */
    w->xr_valid = 1;
    return w->x.r;
}
