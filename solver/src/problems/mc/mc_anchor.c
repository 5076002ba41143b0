/*
 * mc_anchor.c -- an upper bound of sigma_2(M_Omega), the second singular
 * value of the ratings, for the Kato-Temple bounds of the certificates
 * (mc_cert.c).  Made once per workspace, on the first certificate.
 *
 * With lambda_i the eigenvalues of B = M'M (M = M_Omega, p x p), the sum
 * of lambda_i^2 is ||B||_F^2, and lambda_1 >= theta for any Rayleigh
 * quotient theta, so
 *     sigma_2(M)^4 = lambda_2^2 <= ||B||_F^2 - theta^2.
 * That bound is useful when the top singular value of the ratings holds
 * most of the fourth-power mass of the spectrum (MovieLens: sigma_1 near
 * 1890 against sigma_2 near 670, and 0.95 of it).  ||B||_F^2 takes about
 * half of sum_i nnz_i^2 multiply-adds: B is made a block of 256 columns
 * at a time, column by column from the rows that rate it (each row sorted
 * by column, so its entries from a column on are contiguous), its upper
 * triangle only (B is symmetric: the terms off the diagonal count twice),
 * on the workspace's threads by blocks whose sums are added in block
 * order (the same bits for any thread count), summed over the ranks of a
 * distributed problem.  Each
 * entry of B errs by at most gamma(n + ranks + 4) (|M|'|M|)_jk; with
 * ratings of both signs that second Gram is made beside it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "base/rounding.h"
#include "problems/mc/mc.h"

#define ANCHOR_BLOCK 256
/* Beyond these the anchor is not made (the bounds fall back to ||C||_F):
 * multiply-adds of sum_i nnz_i^2, and doubles of a block. */
#define ANCHOR_MAX_WORK 4e9
#define ANCHOR_MAX_BLOCK_DOUBLES (1 << 24)
/* Entries listed at a time (block_list): 768 KB. */
#define ANCHOR_LIST (1 << 16)

/* The first entry of row i whose column is >= j (rows are sorted). */
static int64_t lower_col(const mc_data *d, int i, int j)
{
    int64_t lo = d->rowptr[i], hi = d->rowptr[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (d->col[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A list of a block's entries, column by column and each column's in row
 * order: their positions in the rows (at[]) and their rows (row[]).  It
 * holds at most cap = max(n, ANCHOR_LIST) entries (any one column's fit),
 * so a block with more is listed a few columns at a time, each part a
 * scan of the rows: 12 bytes an entry. */
typedef struct block_list {
    int64_t cap, *start, *next, *at; /* start, next: nb + 1 */
    int32_t *row;
} block_list;

static void block_list_free(block_list *l)
{
    free(l->start);
    free(l->next);
    free(l->at);
    free(l->row);
}

static int block_list_init(block_list *l, const mc_data *d, int nb)
{
    int64_t cap = d->n > ANCHOR_LIST ? d->n : ANCHOR_LIST;
    l->cap = cap < d->nnz ? cap : d->nnz + 1;
    l->start = malloc(((size_t)nb + 1) * sizeof *l->start);
    l->next = malloc(((size_t)nb + 1) * sizeof *l->next);
    /* zeroed, though each part fills what it reads: clang-tidy's analyzer
     * cannot follow that */
    l->at = calloc((size_t)l->cap, sizeof *l->at);
    l->row = calloc((size_t)l->cap, sizeof *l->row);
    return l->start && l->next && l->at && l->row ? 0 : -1;
}

/* List the entries of the block's columns [c0, c1) (relative to j0): column
 * c's at at[start[c] - start[c0] .. start[c + 1] - start[c0]). */
static void block_list_fill(block_list *l, const mc_data *d, int j0, int c0, int c1)
{
    memcpy(l->next + c0, l->start + c0, (size_t)(c1 - c0) * sizeof *l->next);
    for (int i = 0; i < d->n; i++)
        for (int64_t a = lower_col(d, i, j0 + c0);
             a < d->rowptr[i + 1] && d->col[a] < j0 + c1; a++) {
            int64_t q = l->next[d->col[a] - j0]++ - l->start[c0];
            l->at[q] = a;
            l->row[q] = i;
        }
}

/* T (p x nb, column c for column j0 + c) += the rows' products with the
 * columns k >= j of each j of the block (B is symmetric: its upper
 * triangle, half the work), and TA the same of |M| when signed (else
 * NULL).  Column by column, so that the column being made (p doubles)
 * stays in the first-level cache while its rows' products scatter into
 * it.  Made row by row instead (each product into another of the block's
 * columns, 7 MB of them on MovieLens), the anchor of the paper's instance
 * took 0.63 s on two threads against 0.54 s.  Each entry of T adds its
 * rows' terms in row order either way: the same bits. */
static void block_gram(const mc_data *d, block_list *l, int j0, int nb, double *T, double *TA)
{
    const int32_t *restrict col = d->col;
    const float *restrict mf = d->mf;
    const double *restrict m = d->m;
    memset(l->start, 0, ((size_t)nb + 1) * sizeof *l->start);
    for (int i = 0; i < d->n; i++)
        for (int64_t a = lower_col(d, i, j0); a < d->rowptr[i + 1] && col[a] < j0 + nb; a++)
            l->start[col[a] - j0 + 1]++;
    for (int c = 0; c < nb; c++)
        l->start[c + 1] += l->start[c];
    for (int c0 = 0, c1; c0 < nb; c0 = c1) {
        for (c1 = c0 + 1; c1 < nb && l->start[c1 + 1] - l->start[c0] <= l->cap; c1++)
            ;
        block_list_fill(l, d, j0, c0, c1);
        for (int c = c0; c < c1; c++) {
            double *restrict t = T + (size_t)c * d->p;
            for (int64_t q = l->start[c] - l->start[c0]; q < l->start[c + 1] - l->start[c0];
                 q++) {
                int64_t a = l->at[q], end = d->rowptr[l->row[q] + 1];
                double mj = mc_rating(d, a);
                /* the inner loop without the choice of array in it (the
                 * same products and additions): half the instructions */
                if (mf)
                    for (int64_t b = a; b < end; b++)
                        t[col[b]] += mj * (double)mf[b];
                else
                    for (int64_t b = a; b < end; b++)
                        t[col[b]] += mj * m[b];
                if (TA) {
                    double *restrict ta = TA + (size_t)c * d->p;
                    for (int64_t b = a; b < end; b++)
                        ta[col[b]] += fabs(mj * mc_rating(d, b));
                }
            }
        }
    }
}

/* sum_jk T_jk^2 over the block's upper triangle (k >= j): the terms off
 * the diagonal twice (exact scaling), compensated, in column order. */
static void block_sums(const mc_data *d, int j0, int w, const double *T, const double *TA,
                       slv_ksum *ft, slv_ksum *fa)
{
    for (int c = 0; c < w; c++) {
        int j = j0 + c;
        const double *t = T + (size_t)c * d->p, *ta = TA ? TA + (size_t)c * d->p : NULL;
        slv_ksum_add(ft, t[j] * t[j]);
        if (ta)
            slv_ksum_add(fa, ta[j] * ta[j]);
        for (int k = j + 1; k < d->p; k++) {
            slv_ksum_add(ft, 2 * (t[k] * t[k]));
            if (ta)
                slv_ksum_add(fa, 2 * (ta[k] * ta[k]));
        }
    }
}

/* The blocks of one process, on the workspace's threads: block b's sums
 * into sums[2 b], sums[2 b + 1] (each compensated), added in block order
 * by the caller, so the anchor does not depend on the thread count. */
typedef struct anchor_ctx {
    const mc_data *d;
    int nb, nblock, ntask, neg;
    double *sums;
    int failed;
} anchor_ctx;

static void anchor_task(void *vc, int task)
{
    anchor_ctx *a = vc;
    const mc_data *d = a->d;
    size_t len = (size_t)d->p * (size_t)a->nb;
    double *T = malloc(len * sizeof *T), *TA = a->neg ? malloc(len * sizeof *TA) : NULL;
    block_list bl;
    if (block_list_init(&bl, d, a->nb) < 0 || !T || (a->neg && !TA)) {
        __atomic_store_n(&a->failed, 1, __ATOMIC_RELAXED);
        task = a->nblock; /* no blocks: to the one exit */
    }
    for (int b = task; b < a->nblock; b += a->ntask) {
        int j0 = b * a->nb, w = d->p - j0 < a->nb ? d->p - j0 : a->nb;
        size_t l = (size_t)d->p * (size_t)w;
        slv_ksum ft = {0, 0}, fa = {0, 0};
        memset(T, 0, l * sizeof *T);
        if (TA)
            memset(TA, 0, l * sizeof *TA);
        block_gram(d, &bl, j0, w, T, TA);
        block_sums(d, j0, w, T, TA, &ft, &fa);
        a->sums[2 * b] = slv_ksum_value(&ft);
        a->sums[2 * b + 1] = slv_ksum_value(&fa);
    }
    block_list_free(&bl);
    free(T);
    free(TA);
}

/* ||M'M||_F^2, an upper bound (NaN when it was not made). */
static double gram_fro2(mc_ws *ws)
{
    const mc_data *d = ws->d;
    double work = 0;
    int neg = 0;
    for (int i = 0; i < d->n; i++) {
        double c = (double)(d->rowptr[i + 1] - d->rowptr[i]);
        work += c * c;
    }
    for (int64_t e = 0; e < d->nnz && !neg; e++)
        neg = mc_rating(d, e) < 0;
    double v[2] = {work, neg};
    slv_comm_sum(d->comm, v, 2); /* every rank decides alike */
    neg = v[1] > 0;
    int nb = ANCHOR_MAX_BLOCK_DOUBLES / d->p;
    nb = nb > ANCHOR_BLOCK ? ANCHOR_BLOCK : nb;
    if (v[0] > ANCHOR_MAX_WORK || nb < 1)
        return NAN;
    slv_ksum ft = {0, 0}, fa = {0, 0};
    int nblock = (d->p + nb - 1) / nb;
    if (!d->comm) {
        int th = slv_pool_threads(ws->ex.pool);
        anchor_ctx a = {d, nb, nblock, th < nblock ? th : nblock, neg,
                        malloc(2 * (size_t)nblock * sizeof(double)), 0};
        if (!a.sums)
            return NAN;
        slv_pool_run(ws->ex.pool, anchor_task, &a, a.ntask);
        for (int b = 0; b < nblock && !a.failed; b++) {
            slv_ksum_add(&ft, a.sums[2 * b]);
            slv_ksum_add(&fa, a.sums[2 * b + 1]);
        }
        free(a.sums);
        if (a.failed)
            return NAN;
    } else { /* the blocks' sums over the ranks, collective: one block at a time */
        size_t len = (size_t)d->p * (size_t)nb;
        double *T = malloc(len * sizeof *T), *TA = neg ? malloc(len * sizeof *TA) : NULL;
        block_list bl;
        /* a rank without the memory stops them all: the sums are collective */
        int none = block_list_init(&bl, d, nb) < 0 || !T || (neg && !TA);
        if (slv_comm_sum1(d->comm, none) > 0 || none) {
            block_list_free(&bl);
            free(T);
            free(TA);
            return NAN;
        }
        for (int j0 = 0; j0 < d->p; j0 += nb) {
            int w = d->p - j0 < nb ? d->p - j0 : nb;
            size_t l = (size_t)d->p * (size_t)w;
            memset(T, 0, l * sizeof *T);
            if (TA)
                memset(TA, 0, l * sizeof *TA);
            block_gram(d, &bl, j0, w, T, TA);
            slv_comm_sum(d->comm, T, (int64_t)l);
            if (TA)
                slv_comm_sum(d->comm, TA, (int64_t)l);
            block_sums(d, j0, w, T, TA, &ft, &fa);
        }
        block_list_free(&bl);
        free(T);
        free(TA);
    }
    /* ||B||_F <= ||B^||_F + gamma ||(|M|'|M|)||_F, each sum of squares
     * within 4u (Neumaier; the blocks' compensated sums added by another:
     * positive terms); unsigned ratings: |M|'|M| = B */
    int ranks = d->comm ? d->comm->size : 1;
    double g = slv_gamma(d->n_all + ranks + 4);
    double nt = sqrt(slv_ksum_value(&ft)) * (1 + slv_gamma(4));
    double na = neg ? sqrt(slv_ksum_value(&fa)) * (1 + slv_gamma(4)) : nt;
    double nb2 = slv_up(nt + g * na, 4);
    return slv_up(nb2 * nb2, 2);
}

double mc_anchor_sv2(mc_ws *w)
{
    mc_cert_buf *b = w->cert;
    if (!b)
        return INFINITY;
    if (!isnan(b->sv2_m))
        return b->sv2_m;
    double t0 = slv_now(), theta = 0;
    double f4 = gram_fro2(w);
    b->sv2_m = INFINITY;
    if (!isnan(f4) && mc_cert_ratings_theta(w, &theta) == IRCG_OK) {
        double l2sq = fmax(0.0, f4 - theta * theta * (1 - slv_gamma(2)));
        b->sv2_m = slv_up(sqrt(sqrt(l2sq)), 4);
    }
    b->anchor_seconds = slv_now() - t0;
    return b->sv2_m;
}
