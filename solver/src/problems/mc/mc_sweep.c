/*
 * mc_sweep.c -- the fused passes over Omega, which carry the memory traffic
 * of an iteration (|Omega| = 1e6 entries on MovieLens 1M, 1e7 at 10M).
 *
 * The step pass updates X and Z on Omega, and in the same pass makes every
 * sum the iteration needs next: g of both sides,
 * <R, X_Omega> (the FW gap's inner product), the differences to a
 * reference residual (g - g_opt), and -- when the next LMO is planned --
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
 * not 8).  A step then moves 40 bytes an entry (it moved 76), and X, Z,
 * the ratings and Omega of MovieLens 1M (24 MB) stay in a 32 MB L3.
 * mc_x_residual makes R when a plain product needs it.
 */
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "base/ksum.h"
#include "problems/mc/mc.h"

typedef slv_v4d v4d;
typedef float v4f __attribute__((vector_size(16)));

/* Entries summed at a time while the rows just written are in L1, in
 * blocks of MC_SUM_BLOCK (see add_terms); a multiple of it, so batching
 * leaves the sums' bits unchanged. */
#define MC_SUM_BATCH 1024
#define MC_SUM_BLOCK 16

/* Inlined into both clones of the kernels: a call would run the default
 * target's code.  The clones make no calls at all: gcc then ends the AVX
 * clone with vzeroupper, without which every later SSE instruction of the
 * process ran 2-4 times slower (measured: a plain sparse product 1.2 ms
 * instead of 0.31 ms).  Their callers do the memsets. */
#define MC_INLINE static inline __attribute__((always_inline))
#define MC_CLONES __attribute__((target_clones("avx2", "default")))

#define GATHER4(X, col, e)                                                  \
    ((v4d){(X)[(col)[(e)]], (X)[(col)[(e) + 1]], (X)[(col)[(e) + 2]],        \
           (X)[(col)[(e) + 3]]})

/* The row dot product's four lanes and scalar tail s0, combined as
 * mc_kernels.c's row_dot does. */
#define ROW_TOTAL(s, s0) (((s0) + (s)[1]) + ((s)[2] + (s)[3]))

/* The ratings of entries e..e+3 (and of e alone): from their float copy
 * when the problem has one (fm, a constant in each specialization), the
 * same values. */
#define LOAD_M(mm, d, e, fm)                                                \
    do {                                                                    \
        if (fm) {                                                           \
            v4f f_;                                                         \
            memcpy(&f_, (d)->mf + (e), sizeof f_);                          \
            (mm) = __builtin_convertvector(f_, v4d);                        \
        } else {                                                            \
            SLV_V4D_LOAD(mm, (d)->m + (e));                                 \
        }                                                                   \
    } while (0)
#define M_AT(d, e, fm) ((fm) ? (double)(d)->mf[(e)] : (d)->m[(e)])

/* ------------------------------------------------------------ the sums -- */

/* One quad of terms into the block's plain partials (see add_terms);
 * <R, X> plainly, as it always was.  The halves of g's terms are taken
 * once, from the totals (store_sums): scaling by 2 is exact, so the bits
 * are those of summing the halved terms. */
#define QUAD_TERMS(acc, pb, r, x, z, mm, q, qq)                             \
    do {                                                                    \
        v4d rz_ = (z) - (mm);                                               \
        (pb)[MC_S_GX] += (r) * (r);                                         \
        (pb)[MC_S_GZ] += rz_ * rz_;                                         \
        (acc)[MC_S_RX].s += (r) * (x);                                      \
        if (q) {                                                            \
            (pb)[MC_S_DX] += ((r) - (qq)) * ((r) + (qq));                   \
            (pb)[MC_S_DZ] += (rz_ - (qq)) * (rz_ + (qq));                   \
        }                                                                   \
    } while (0)

/* The terms of entries [e0, e1) into the lanes, MC_SUM_BLOCK at a time: a
 * block's terms are summed plainly, and the block sums by TwoSum (at a
 * third of the cost of a TwoSum per term).  The error of a sum is then at
 * most 3 ulps of the sum of its terms' magnitudes, whatever |Omega|:
 * - g: positive terms, so a few ulps of g;
 * - g - g_ref, termwise 1/2 (r - q)(r + q): at most 1.5 eps ||r - q||
 *   ||r + q||, below 1e-16 on MovieLens near the optimum (gaps 1e-10),
 *   far below the certified floor of g_opt (3e-11).
 * e1 - e0 is a multiple of MC_SUM_BLOCK unless e1 ends the chunk: the
 * blocks then fall on the same entries however a pass batches its calls. */
MC_INLINE void add_terms(const mc_ws *w, const double *q, int64_t e0, int64_t e1,
                         slv_lsum *acc, const int fm)
{
    const mc_data *d = w->d;
    const double *restrict xx = w->x.xo, *restrict xz = w->z.xo;
    const v4d zero = {0, 0, 0, 0};
    v4d r, x, z, mm, qq = zero, pb[MC_NSUM];

    for (int64_t e = e0; e < e1;) {
        int64_t bend = e1 - e > MC_SUM_BLOCK ? e + MC_SUM_BLOCK : e1;
        for (int s = 0; s < MC_NSUM; s++)
            pb[s] = zero;
        for (; e + 4 <= bend; e += 4) {
            SLV_V4D_LOAD(x, xx + e);
            SLV_V4D_LOAD(z, xz + e);
            LOAD_M(mm, d, e, fm);
            if (q)
                SLV_V4D_LOAD(qq, q + e);
            r = x - mm;
            QUAD_TERMS(acc, pb, r, x, z, mm, q, qq);
        }
        if (e < bend) { /* the chunk's last entries, padded with zero terms
                         * (a copy loop here became calls to memcpy) */
            for (int l = 0; l < 4; l++) {
                int in = e + l < bend;
                x[l] = in ? xx[e + l] : 0.0;
                z[l] = in ? xz[e + l] : 0.0;
                mm[l] = in ? M_AT(d, e + l, fm) : 0.0;
                qq[l] = in && q ? q[e + l] : 0.0;
            }
            r = x - mm;
            QUAD_TERMS(acc, pb, r, x, z, mm, q, qq);
            e = bend;
        }
        SLV_LSUM_ADD(acc[MC_S_GX], pb[MC_S_GX]);
        SLV_LSUM_ADD(acc[MC_S_GZ], pb[MC_S_GZ]);
        if (q) {
            SLV_LSUM_ADD(acc[MC_S_DX], pb[MC_S_DX]);
            SLV_LSUM_ADD(acc[MC_S_DZ], pb[MC_S_DZ]);
        }
    }
}

MC_INLINE void clear_sums(slv_lsum *acc)
{
    for (int s = 0; s < MC_NSUM; s++)
        slv_lsum_clear(&acc[s]);
}

MC_INLINE void store_sums(mc_ws *w, int c, const slv_lsum *acc)
{
    for (int s = 0; s < MC_NSUM; s++) /* all but <R, X> are halves */
        w->dsum[MC_NSUM * c + s] = (s == MC_S_RX ? 1.0 : 0.5) * slv_lsum_value(&acc[s]);
}

static double chunk_total(const mc_ws *w, int slot)
{
    slv_ksum k = {0, 0};
    for (int c = 0; c < w->d->nchunk; c++)
        slv_ksum_add(&k, w->dsum[MC_NSUM * c + slot]);
    return slv_ksum_value(&k);
}

/* The chunks' sums in chunk order; distributed, the ranks' totals then
 * in rank order. */
static void finish_sums(mc_ws *w, const double *q)
{
    double t[MC_NSUM];
    for (int s = 0; s < MC_NSUM; s++)
        t[s] = (s == MC_S_DX || s == MC_S_DZ) && !q ? 0.0 : chunk_total(w, s);
    slv_comm_sum(w->d->comm, t, MC_NSUM);
    w->sums = (mc_sums){
        .g_x = t[MC_S_GX], .g_z = t[MC_S_GZ], .rx_x = t[MC_S_RX], .ref = q, .valid = 1,
        .gap_x = t[MC_S_DX], .gap_z = t[MC_S_DZ]};
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
                           const int fm)
{
    const int32_t *restrict col = d->col;
    v4d xo, mm;
    for (; e + 4 <= end; e += 4) {
        SLV_V4D_LOAD(xo, xx + e);
        LOAD_M(mm, d, e, fm);
        v4d pr = (xo - mm) * y;
        buf[col[e]] += pr[0];
        buf[col[e + 1]] += pr[1];
        buf[col[e + 2]] += pr[2];
        buf[col[e + 3]] += pr[3];
    }
    for (; e < end; e++)
        buf[col[e]] += (xx[e] - M_AT(d, e, fm)) * y;
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
    const double *x, *a; /* the vector and sigma grad f(X) x              */
    double *cx;
} gctx;

/* Rows [lo, hi): cx_i = a_i + (R x)_i, then buf += R'_i cx_i, a batch of
 * rows at a time: the dot products of the batch first (10% faster than
 * alternating row by row, measured), then its scatter while its entries
 * are still in cache (over a whole group they were not: at 10M ratings
 * that read the group twice from memory). */
MC_INLINE void gram_body(const gctx *k, int lo, int hi, double *buf, const int fm)
{
    const mc_data *d = k->w->d;
    const double *restrict xx = k->w->x.xo, *restrict x = k->x, *restrict a = k->a;
    const int32_t *restrict col = d->col;
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
                s += (xo - mm) * GATHER4(x, col, e);
            }
            double s0 = s[0];
            for (; e < end; e++)
                s0 += (xx[e] - M_AT(d, e, fm)) * x[col[e]];
            cx[i] = a[i] + ROW_TOTAL(s, s0);
        }
        for (; b < i; b++)
            scatter_row(buf, xx, d, rp[b], rp[b + 1], cx[b], fm);
    }
}

MC_CLONES
static void gram_rows(const gctx *k, int lo, int hi, double *buf)
{
    if (k->w->d->mf)
        gram_body(k, lo, hi, buf, 1);
    else
        gram_body(k, lo, hi, buf, 0);
}

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
    gctx k = {.w = w, .x = x, .a = w->pre_a, .cx = cx};

    mc_gram_lowrank_in(w, sigma, x, w->pre_a);
    slv_pool_run(w->ex.pool, gram_group, &k, w->d->ngroup);
    mc_exec_count(&w->ex, w->d->mf ? 16 : 20); /* col, x, M */
    reduce_groups(&w->ex, ctcx);
    mc_gram_lowrank_out(w, sigma, cx, ctcx);
}

/* ------------------------------------------------------ the step pass -- */

typedef struct sctx {
    mc_ws *w;
    double alpha, cz, cxo, cxn;
    int use_dir, pre;
    const double *q;
} sctx;

/* One chunk of the step; buf: the group's column buffer when the planned
 * LMO's Gram product is made too. */
MC_INLINE void step_body(const sctx *k, int c, double *buf, const int fm)
{
    mc_ws *w = k->w;
    const mc_data *d = w->d;
    double *restrict xx = w->x.xo, *restrict xz = w->z.xo;
    const double *restrict v = w->v, *restrict u = w->u;
    const double *restrict pa = w->pre_a;
    double *restrict cv = w->pre_cv;
    const int32_t *restrict col = d->col;
    const int64_t *restrict rp = d->rowptr;
    const double a = k->alpha, a1 = 1.0 - a, cz = k->cz, cxo = k->cxo;
    const double cxn = k->cxn, dl = k->use_dir ? -d->delta : 0.0;
    int lo = d->chunk_row[c], hi = d->chunk_row[c + 1], row0 = lo;
    int64_t done = rp[lo];
    slv_lsum acc[MC_NSUM];

    clear_sums(acc);
    for (int i = lo; i < hi; i++) {
        double ui = a * dl * u[i];
        int64_t e = rp[i], end = rp[i + 1];
        v4d s = {0, 0, 0, 0}, xo, zo, mm;
        for (; e + 4 <= end; e += 4) {
            v4d vj = GATHER4(v, col, e);
            SLV_V4D_LOAD(xo, xx + e);
            SLV_V4D_LOAD(zo, xz + e);
            LOAD_M(mm, d, e, fm);
            v4d xn = a1 * xo + ui * vj;
            v4d zn = cz * zo + cxo * xo + cxn * xn;
            SLV_V4D_STORE(xx + e, xn);
            SLV_V4D_STORE(xz + e, zn);
            s += (xn - mm) * vj;
        }
        double s0 = s[0];
        for (; e < end; e++) {
            double vj = v[col[e]], xs = xx[e];
            double xn = a1 * xs + ui * vj;
            double zn = cz * xz[e] + cxo * xs + cxn * xn;
            xx[e] = xn;
            xz[e] = zn;
            s0 += (xn - M_AT(d, e, fm)) * vj;
        }
        if (buf)
            cv[i] = pa[i] + ROW_TOTAL(s, s0);
        /* sum (and scatter) the rows just written while they are in L1 (a
         * separate pass re-read them from memory: 13% of the run) */
        if (end - done >= MC_SUM_BATCH) {
            int64_t upto = done + (end - done) / MC_SUM_BLOCK * MC_SUM_BLOCK;
            add_terms(w, k->q, done, upto, acc, fm);
            done = upto;
            for (; buf && row0 <= i; row0++)
                scatter_row(buf, xx, d, rp[row0], rp[row0 + 1], cv[row0], fm);
        }
    }
    add_terms(w, k->q, done, rp[hi], acc, fm);
    for (; buf && row0 < hi; row0++)
        scatter_row(buf, xx, d, rp[row0], rp[row0 + 1], cv[row0], fm);
    store_sums(w, c, acc);
}

MC_CLONES
static void step_chunk(const sctx *k, int c, double *buf)
{
    if (k->w->d->mf)
        step_body(k, c, buf, 1);
    else
        step_body(k, c, buf, 0);
}

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

void mc_omega_step(mc_ws *w, double alpha, double cz, double cxo, double cxn, int pre)
{
    sctx k = {.w = w, .alpha = alpha, .cz = cz, .cxo = cxo, .cxn = cxn,
              .use_dir = alpha != 0, .pre = pre, .q = w->ref};

    slv_pool_run(w->ex.pool, step_group, &k, w->d->ngroup);
    /* col, M; x and z read and written; the reference */
    mc_exec_count(&w->ex, (w->d->mf ? 36 : 40) + (k.q ? 8 : 0));
    w->xr_valid = 0;
    w->pre_valid = pre;
    if (pre) {
        reduce_groups(&w->ex, w->pre_rtc);
        w->pre_sigma = w->plan_sigma;
    }
    finish_sums(w, k.q);
}

/* ------------------------------------------------------ the sums pass -- */

MC_CLONES
static void sums_chunk(mc_ws *w, int c, int64_t e0, int64_t e1)
{
    slv_lsum acc[MC_NSUM];

    clear_sums(acc);
    if (w->d->mf)
        add_terms(w, w->ref, e0, e1, acc, 1);
    else
        add_terms(w, w->ref, e0, e1, acc, 0);
    store_sums(w, c, acc);
}

static void sums_task(void *vc, int c)
{
    mc_ws *w = vc;
    const mc_data *d = w->d;
    sums_chunk(w, c, d->rowptr[d->chunk_row[c]], d->rowptr[d->chunk_row[c + 1]]);
}

void mc_omega_sums(mc_ws *w)
{
    slv_pool_run(w->ex.pool, sums_task, w, w->d->nchunk);
    /* x, z, M, the reference */
    mc_exec_count(&w->ex, (w->d->mf ? 20 : 24) + (w->ref ? 8 : 0));
    finish_sums(w, w->ref);
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
        w->x.r[e] = w->x.xo[e] - d->m[e];
}

const double *mc_x_residual(mc_ws *w)
{
    if (w->xr_valid)
        return w->x.r;
    if (!w->x.r && !(w->x.r = malloc((size_t)w->d->nnz * sizeof *w->x.r)))
        return NULL;
    slv_pool_run(w->ex.pool, residual_task, w, w->d->nchunk);
    mc_exec_count(&w->ex, 24); /* x, M, r */
    w->xr_valid = 1;
    return w->x.r;
}
