/*
 * mc_kernels.c -- the plain sparse products over Omega (the projection
 * methods' and the Golub-Kahan Lanczos's), the curvature pass of the exact
 * line search, and the execution context the passes share.  Every pass is
 * split into the problem's fixed row-aligned chunks; per-chunk partial sums
 * are combined in chunk order, so the results are identical for any number
 * of threads.  The fused passes of an iteration are in mc_sweep.c.
 */
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "problems/mc/mc.h"

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

/* sum (-delta u_i v_j - x_e)^2 over a chunk, two chains */
static void hg_task(void *vc, int c)
{
    kctx *k = vc;
    mc_ws *w = k->w;
    const mc_data *d = w->d;
    const double *restrict xo = w->x.xo, *restrict v = w->v;
    const int32_t *restrict col = d->col;
    const int64_t *restrict rp = d->rowptr;
    double hg0 = 0, hg1 = 0;
    int lo, hi;

    rows_of(d, c, &lo, &hi);
    for (int i = lo; i < hi; i++) {
        double ui = -d->delta * w->u[i];
        int64_t e = rp[i];
        for (; e + 2 <= rp[i + 1]; e += 2) {
            double da = ui * v[col[e]] - xo[e], db = ui * v[col[e + 1]] - xo[e + 1];
            hg0 += da * da;
            hg1 += db * db;
        }
        if (e < rp[i + 1]) {
            double da = ui * v[col[e]] - xo[e];
            hg0 += da * da;
        }
    }
    w->dsum[MC_NSUM * c] = hg0 + hg1;
}

double mc_omega_hg(mc_ws *w)
{
    kctx k = {.w = w};
    slv_ksum s = {0, 0};

    slv_pool_run(w->ex.pool, hg_task, &k, w->d->nchunk);
    mc_exec_count(&w->ex, 12); /* col, x */
    for (int c = 0; c < w->d->nchunk; c++)
        slv_ksum_add(&s, w->dsum[MC_NSUM * c]);
    return slv_comm_sum1(w->d->comm, slv_ksum_value(&s));
}

void mc_omega_add_x0(mc_ws *w, double *xo, double a)
{
    const mc_data *d = w->d;
    for (int i = 0; i < d->ndiag; i++) { /* local row i, column row0 + i */
        int j = d->row0 + i;
        int64_t lo = d->rowptr[i], hi = d->rowptr[i + 1];
        while (lo < hi) { /* columns are sorted within a row */
            int64_t mid = lo + (hi - lo) / 2;
            if (d->col[mid] < j)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < d->rowptr[i + 1] && d->col[lo] == j)
            xo[lo] += a * w->d0;
    }
    w->sums.valid = 0;
    w->xr_valid = 0;
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
