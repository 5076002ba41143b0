/*
 * mc_kernels.c -- the passes over Omega (about |Omega| = 1e6 entries for
 * MovieLens, the dominant memory traffic of an iteration).  Every pass is
 * split into the problem's fixed row-aligned chunks; per-chunk partial sums
 * are combined in chunk order, so the results are identical for any number
 * of threads.
 */
#include <stdlib.h>
#include <string.h>

#include "problems/mc/mc.h"

/* Four lanes of Knuth's branch-free TwoSum: the same accuracy as
 * slv_half_sq (compensated, about one rounding of the result) without its
 * serial dependency chain, which made it the most expensive pass of an
 * iteration (perf: 24% of the MovieLens run). */
/* Entries summed at a time in the step pass: two vectors of this many
 * doubles stay in L1. */
#define MC_SUM_BATCH 1024

typedef double v4d __attribute__((vector_size(32)));

/* TwoSum of accumulator (S, C) and x (macros: passing 32-byte vectors to
 * functions would change the ABI without AVX). */
#define TWO_SUM(S, C, X)                                                    \
    do {                                                                    \
        v4d x_ = (X), t_ = (S) + x_, bp_ = t_ - (S);                         \
        (C) += ((S) - (t_ - bp_)) + (x_ - bp_);                             \
        (S) = t_;                                                           \
    } while (0)

/* Compiled twice (AVX2 and baseline) and picked at load time: the TwoSum
 * is throughput-bound and AVX2 halves it; the results are identical. */
__attribute__((target_clones("avx2", "default")))
static double half_sq_fast(const double *r, int64_t n)
{
    /* named accumulators, not an array, which gcc kept in memory */
    v4d s0 = {0, 0, 0, 0}, s1 = s0, c0 = s0, c1 = s0;
    slv_ksum k = {0, 0};
    int64_t i = 0;

    for (; i + 8 <= n; i += 8) {
        v4d x, y;
        memcpy(&x, r + i, sizeof x);
        memcpy(&y, r + i + 4, sizeof y);
        TWO_SUM(s0, c0, 0.5 * x * x);
        TWO_SUM(s1, c1, 0.5 * y * y);
    }
    for (int l = 0; l < 4; l++) {
        slv_ksum_add(&k, s0[l]);
        slv_ksum_add(&k, s1[l]);
        slv_ksum_add(&k, c0[l]);
        slv_ksum_add(&k, c1[l]);
    }
    for (; i < n; i++)
        slv_ksum_add(&k, 0.5 * r[i] * r[i]);
    return slv_ksum_value(&k);
}

/* sum_e r_e x[col_e] over [lo, hi) with four partial sums (the single
 * accumulator chain made the product latency-bound). */
static inline double row_dot(const double *restrict r, const int32_t *restrict col,
                             const double *restrict x, int64_t lo, int64_t hi)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int64_t e = lo;
    for (; e + 4 <= hi; e += 4) {
        s0 += r[e] * x[col[e]];
        s1 += r[e + 1] * x[col[e + 1]];
        s2 += r[e + 2] * x[col[e + 2]];
        s3 += r[e + 3] * x[col[e + 3]];
    }
    for (; e < hi; e++)
        s0 += r[e] * x[col[e]];
    return (s0 + s1) + (s2 + s3);
}

typedef struct kctx {
    mc_ws *w;
    mc_exec *ex;
    const double *r, *x;
    double *y;
    double alpha, cz, cxo, cxn;
    int use_dir;
} kctx;

static void rows_of(const mc_data *d, int c, int *lo, int *hi)
{
    *lo = d->chunk_row[c];
    *hi = d->chunk_row[c + 1];
}

static void spmv_task(void *vc, int c)
{
    kctx *k = vc;
    const mc_data *d = k->ex->d;
    int lo, hi;

    rows_of(d, c, &lo, &hi);
    for (int i = lo; i < hi; i++)
        k->y[i] += row_dot(k->r, d->col, k->x, d->rowptr[i], d->rowptr[i + 1]);
}

void mc_spmv(mc_exec *ex, const double *r, const double *x, double *y)
{
    kctx k = {.ex = ex, .r = r, .x = x, .y = y};
    slv_pool_run(ex->pool, spmv_task, &k, ex->d->nchunk);
    mc_exec_count(ex, 12); /* col, r */
}

/* Group g scatters its chunks into a private column buffer (p doubles, in
 * cache), so no two threads write the same memory. */
static void spmvt_task(void *vc, int g)
{
    kctx *k = vc;
    const mc_data *d = k->ex->d;
    double *buf = k->ex->colbuf + (size_t)g * d->p;
    int c0 = g * d->nchunk / d->ngroup, c1 = (g + 1) * d->nchunk / d->ngroup;

    memset(buf, 0, (size_t)d->p * sizeof *buf);
    for (int i = d->chunk_row[c0]; i < d->chunk_row[c1]; i++) {
        double xi = k->x[i];
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++)
            buf[d->col[e]] += k->r[e] * xi;
    }
}

void mc_spmvt(mc_exec *ex, const double *r, const double *x, double *y)
{
    const mc_data *d = ex->d;
    kctx k = {.ex = ex, .r = r, .x = x, .y = y};

    slv_pool_run(ex->pool, spmvt_task, &k, d->ngroup);
    mc_exec_count(ex, 12); /* col, r */
    for (int g = 0; g < d->ngroup; g++) {
        const double *buf = ex->colbuf + (size_t)g * d->p;
        for (int j = 0; j < d->p; j++)
            y[j] += buf[j];
    }
}

/* Combine per-chunk partials in chunk order, compensated. */
static double chunk_total(const mc_ws *w, int slot)
{
    slv_ksum s = {0, 0};
    for (int c = 0; c < w->d->nchunk; c++)
        slv_ksum_add(&s, w->dsum[4 * c + slot]);
    return slv_ksum_value(&s);
}

/* Also y_i = (R_new v)_i with the vertex's v, which the next LMO's first
 * product needs (its warm start is this v): the gather is already done. */
static void step_task(void *vc, int c)
{
    const kctx *k = vc;
    mc_ws *w = k->w;
    const mc_data *d = w->d;
    double *restrict xx = w->x.xo, *restrict xz = w->z.xo, *restrict y = w->pre_rv;
    double *restrict rx = w->x.r, *restrict rz = w->z.r;
    const double *restrict m = d->m, *restrict v = w->v, *restrict u = w->u;
    const int32_t *restrict col = d->col;
    const int64_t *restrict rp = d->rowptr;
    const double a = k->alpha, a1 = 1.0 - a, cz = k->cz, cxo = k->cxo;
    const double cxn = k->cxn, dl = k->use_dir ? -d->delta : 0.0;
    int lo, hi;

    slv_ksum gx = {0, 0}, gz = {0, 0};
    int64_t batch0;

    rows_of(d, c, &lo, &hi);
    batch0 = rp[lo];
    for (int i = lo; i < hi; i++) {
        double ui = a * dl * u[i], acc = 0;
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
            double vj = v[col[e]], xo = xx[e];
            double xn = a1 * xo + ui * vj;
            double zn = cz * xz[e] + cxo * xo + cxn * xn;
            double rn = xn - m[e];
            xx[e] = xn;
            xz[e] = zn;
            rx[e] = rn;
            rz[e] = zn - m[e];
            acc += rn * vj;
        }
        y[i] = acc;
        /* sum the rows just written while they are in L1 (a separate pass
         * over the chunk re-read them from memory: 13% of the run) */
        if (rp[i + 1] - batch0 >= MC_SUM_BATCH || i + 1 == hi) {
            slv_ksum_add(&gx, half_sq_fast(rx + batch0, rp[i + 1] - batch0));
            slv_ksum_add(&gz, half_sq_fast(rz + batch0, rp[i + 1] - batch0));
            batch0 = rp[i + 1];
        }
    }
    w->dsum[4 * c + 0] = slv_ksum_value(&gx);
    w->dsum[4 * c + 1] = slv_ksum_value(&gz);
}

void mc_omega_step(mc_ws *w, double alpha, double cz, double cxo, double cxn)
{
    kctx k = {.w = w, .alpha = alpha, .cz = cz, .cxo = cxo, .cxn = cxn,
              .use_dir = alpha != 0};
    slv_pool_run(w->ex.pool, step_task, &k, w->d->nchunk);
    mc_exec_count(&w->ex, 60); /* col, m, x and z read and written, both r */
    w->pre_valid = w->have_v; /* v is zero before the first LMO */
    w->x.g = chunk_total(w, 0);
    w->z.g = chunk_total(w, 1);
    w->sums_valid = 1;
}

static void dir_task(void *vc, int c)
{
    kctx *k = vc;
    mc_ws *w = k->w;
    const mc_data *d = w->d;
    const double *restrict r = w->x.r, *restrict xo = w->x.xo, *restrict v = w->v;
    const int32_t *restrict col = d->col;
    const int64_t *restrict rp = d->rowptr;
    double rx0 = 0, rx1 = 0, hg0 = 0, hg1 = 0;
    int lo, hi;

    rows_of(d, c, &lo, &hi);
    for (int i = lo; i < hi; i++) {
        double ui = -d->delta * w->u[i];
        int64_t e = rp[i];
        for (; e + 2 <= rp[i + 1]; e += 2) { /* two chains per sum */
            double xa = xo[e], xb = xo[e + 1];
            double da = ui * v[col[e]] - xa, db = ui * v[col[e + 1]] - xb;
            rx0 += r[e] * xa;
            rx1 += r[e + 1] * xb;
            hg0 += da * da;
            hg1 += db * db;
        }
        if (e < rp[i + 1]) {
            double xa = xo[e], da = ui * v[col[e]] - xa;
            rx0 += r[e] * xa;
            hg0 += da * da;
        }
    }
    w->dsum[4 * c + 2] = rx0 + rx1;
    w->dsum[4 * c + 3] = hg0 + hg1;
}

void mc_omega_dir(mc_ws *w, double *rx_dot_x, double *d_hg_d)
{
    kctx k = {.w = w};
    slv_pool_run(w->ex.pool, dir_task, &k, w->d->nchunk);
    mc_exec_count(&w->ex, 20); /* col, r, x */
    *rx_dot_x = chunk_total(w, 2);
    *d_hg_d = chunk_total(w, 3);
}

void mc_omega_add_x0(mc_ws *w, double *xo, double a)
{
    const mc_data *d = w->d;
    for (int i = 0; i < d->m0; i++) {
        int64_t lo = d->rowptr[i], hi = d->rowptr[i + 1];
        while (lo < hi) { /* columns are sorted within a row */
            int64_t mid = lo + (hi - lo) / 2;
            if (d->col[mid] < i)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < d->rowptr[i + 1] && d->col[lo] == i)
            xo[lo] += a * w->d0;
    }
    w->sums_valid = 0;
}

static void residuals_task(void *vc, int c)
{
    kctx *k = vc;
    mc_ws *w = k->w;
    const mc_data *d = w->d;
    int64_t e0 = d->rowptr[d->chunk_row[c]], e1 = d->rowptr[d->chunk_row[c + 1]];
    for (int64_t e = e0; e < e1; e++) {
        w->x.r[e] = w->x.xo[e] - d->m[e];
        w->z.r[e] = w->z.xo[e] - d->m[e];
    }
    w->dsum[4 * c + 0] = half_sq_fast(w->x.r + e0, e1 - e0);
    w->dsum[4 * c + 1] = half_sq_fast(w->z.r + e0, e1 - e0);
}

void mc_omega_residuals(mc_ws *w)
{
    kctx k = {.w = w};
    slv_pool_run(w->ex.pool, residuals_task, &k, w->d->nchunk);
    mc_exec_count(&w->ex, 40); /* x, z, m; both r */
    w->x.g = chunk_total(w, 0);
    w->z.g = chunk_total(w, 1);
    w->sums_valid = 1;
}

ircg_error mc_exec_init(mc_exec *ex, const mc_data *d, int threads)
{
    ex->d = d;
    ex->passes = 0;
    ex->bytes = 0;
    ex->colbuf = malloc((size_t)d->ngroup * d->p * sizeof(double));
    ex->pool = slv_pool_new(threads); /* NULL: run on the caller's thread */
    return ex->colbuf ? IRCG_OK : IRCG_ERR_NOMEM;
}

void mc_exec_count(mc_exec *ex, double per_entry)
{
    ex->passes++;
    ex->bytes += per_entry * (double)ex->d->nnz;
}

void mc_exec_traffic(const mc_exec *ex, int64_t *passes, double *bytes, int *threads)
{
    *passes = ex->passes;
    *bytes = ex->bytes;
    *threads = slv_pool_threads(ex->pool);
}

void mc_exec_free(mc_exec *ex)
{
    slv_pool_free(ex->pool);
    free(ex->colbuf);
    ex->pool = NULL;
    ex->colbuf = NULL;
}
