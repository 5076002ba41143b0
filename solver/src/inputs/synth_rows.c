/*
 * synth_rows.c -- large synthetic instances (synth_by_rows: at least 2^22
 * ratings, at most an eighth of the cells, 64 <= n_cols <= 2^21, 64 <=
 * n_rows), drawn row by row on a thread pool, the same for any number of
 * threads.
 *
 * The cells: every row and column is covered first, as in synth.c (a
 * random permutation of the rows paired with one of the columns, stream
 * ST_CELLS); the other ratings are shared out equally among the rows
 * (the remainder, one each, to the first rows of a third permutation).
 * Rows are cut into blocks of BLOCK_ROWS fixed by the spec; block b draws
 * its rows' columns -- distinct, uniform among those its row does not
 * have yet -- and their noise from a stream of its own (ST_BLOCK + b), and
 * writes its rows in place (row-major, columns ascending: the CSR order
 * the problem wants).  Which thread runs a block changes nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "base/rng.h"
#include "base/util.h"
#include "inputs/synth.h"

#if defined(__clang__) /* as synth.c: no contraction into FMAs */
#pragma STDC FP_CONTRACT OFF
#endif

enum { ST_CELLS = 2, ST_EXTRA = 4 };
#define ST_BLOCK (UINT64_C(1) << 32)
#define BLOCK_ROWS 2048
#define MAX_THREADS 8

int synth_by_rows(const ircg_synth_ratings_spec *s)
{
    int64_t cells = (int64_t)s->n_rows * s->n_cols, m = s->n_rows > s->n_cols ? s->n_rows
                                                                                : s->n_cols;
    return s->n_ratings >= (INT64_C(1) << 22) && s->n_ratings <= cells / 8 &&
           s->n_ratings >= m && s->n_rows >= 64 && s->n_cols >= 64 &&
           s->n_cols <= (1 << 21);
}

typedef struct rows_job {
    const ircg_synth_ratings_spec *s;
    const double *U, *V;
    synth_scale sc;
    const int64_t *cstart;   /* the cover cells by row: columns ccol[cstart[i]..] */
    const int32_t *ccol;
    const int64_t *rowptr;   /* where each row's entries go                  */
    int lo, hi;              /* the rows kept: entry e of row i in [lo, hi)
                                goes to R's entry e - rowptr[lo]; the other
                                rows of their blocks are drawn, not kept   */
    ircg_ratings *R;
    const slv_stop_frame *stop; /* the caller's (blocks run on the pool) */
    int failed;                 /* 1: out of memory, 2: stopped          */
} rows_job;

/* Row i: its cover cells and `draw` more distinct columns marked in the
 * bitmap, then written in ascending order with their ratings (the bitmap
 * is clear again after). */
static void one_row(const rows_job *j, slv_rng *g, uint64_t *bits, int i)
{
    const int p = j->s->n_cols;
    int64_t at = j->rowptr[i] - j->rowptr[j->lo];
    int64_t draw = j->rowptr[i + 1] - j->rowptr[i] - (j->cstart[i + 1] - j->cstart[i]);
    int keep = i >= j->lo && i < j->hi;
    for (int64_t c = j->cstart[i]; c < j->cstart[i + 1]; c++)
        bits[j->ccol[c] >> 6] |= UINT64_C(1) << (j->ccol[c] & 63);
    while (draw > 0) {
        uint64_t c = slv_rng_below(g, (uint64_t)p);
        uint64_t bit = UINT64_C(1) << (c & 63);
        if (!(bits[c >> 6] & bit)) {
            bits[c >> 6] |= bit;
            draw--;
        }
    }
    /* U holds the kept rows only */
    const double *u = keep ? j->U + (size_t)(i - j->lo) * (size_t)j->sc.rank : NULL;
    for (int w = 0; w <= (p - 1) >> 6; w++) {
        for (uint64_t b = bits[w]; b; b &= b - 1) {
            int col = (w << 6) + __builtin_ctzll(b);
            double z = j->sc.noise > 0 ? slv_rng_normal(g) : 0.0;
            if (!keep)
                continue;
            j->R->row[at] = i;
            j->R->col[at] = col;
            j->R->val[at++] = synth_rating(&j->sc, u, j->V + (size_t)col * (size_t)j->sc.rank, z);
        }
        bits[w] = 0;
    }
}

static void one_block(void *ctx, int b)
{
    rows_job *j = ctx;
    slv_rng g;
    if (__atomic_load_n(&j->failed, __ATOMIC_RELAXED))
        return;
    if (slv_stop_due_at(j->stop)) { /* a block is BLOCK_ROWS rows of draws */
        __atomic_store_n(&j->failed, 2, __ATOMIC_RELAXED);
        return;
    }
    uint64_t *bits = calloc(((size_t)j->s->n_cols + 63) / 64, sizeof *bits);
    if (!bits) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    int b0 = j->lo / BLOCK_ROWS + b; /* the blocks that hold [lo, hi) */
    int end = (b0 + 1) * BLOCK_ROWS < j->s->n_rows ? (b0 + 1) * BLOCK_ROWS : j->s->n_rows;
    slv_rng_seed(&g, j->s->seed, ST_BLOCK + (uint64_t)b0);
    for (int i = b0 * BLOCK_ROWS; i < end && i < j->hi; i++)
        one_row(j, &g, bits, i);
    free(bits);
}

/* The cover cells by row (t pairs row rp[t % n] with column cp[t % p]) and
 * each row's place: its cover cells, the equal share, one more for the
 * first `rem` rows of a permutation. */
static int layout(const ircg_synth_ratings_spec *s, int64_t *cstart, int32_t **ccol,
                  int64_t *rowptr)
{
    int n = s->n_rows, p = s->n_cols, m = n > p ? n : p;
    slv_rng g, ge;
    slv_rng_seed(&g, s->seed, ST_CELLS);
    slv_rng_seed(&ge, s->seed, ST_EXTRA);
    int32_t *rp = synth_permutation(&g, n), *cp = synth_permutation(&g, p);
    int32_t *xp = synth_permutation(&ge, n);
    int64_t *next = malloc((size_t)n * sizeof *next);
    *ccol = malloc((size_t)m * sizeof **ccol);
    int ok = rp && cp && xp && next && *ccol;
    if (ok) {
        int64_t rest = s->n_ratings - m, q = rest / n, rem = rest % n;
        memset(cstart, 0, ((size_t)n + 1) * sizeof *cstart);
        for (int t = 0; t < m; t++)
            cstart[rp[t % n] + 1]++;
        for (int i = 0; i < n; i++)
            cstart[i + 1] += cstart[i];
        memcpy(next, cstart, (size_t)n * sizeof *next);
        for (int t = 0; t < m; t++)
            (*ccol)[next[rp[t % n]]++] = cp[t % p];
        rowptr[0] = 0;
        for (int i = 0; i < n; i++)
            rowptr[i + 1] = q + (cstart[i + 1] - cstart[i]);
        for (int64_t k = 0; k < rem; k++)
            rowptr[xp[k] + 1]++;
        for (int i = 0; i < n; i++)
            rowptr[i + 1] += rowptr[i];
    }
    free(rp);
    free(cp);
    free(xp);
    free(next);
    return ok ? 0 : -1;
}

int synth_row_counts(const ircg_synth_ratings_spec *s, int64_t *counts)
{
    int n = s->n_rows;
    int64_t *cstart = malloc(((size_t)n + 1) * sizeof *cstart);
    int64_t *rowptr = malloc(((size_t)n + 1) * sizeof *rowptr);
    int32_t *ccol = NULL;
    int ok = cstart && rowptr && layout(s, cstart, &ccol, rowptr) == 0;
    for (int i = 0; ok && i < n; i++)
        counts[i] = rowptr[i + 1] - rowptr[i];
    free(cstart);
    free(rowptr);
    free(ccol);
    return ok ? 0 : -1;
}

ircg_error synth_rows(const ircg_synth_ratings_spec *s, int lo, int hi, const double *U,
                      const double *V, ircg_ratings **out, ircg_diag *diag)
{
    int n = s->n_rows;
    int64_t *cstart = malloc(((size_t)n + 1) * sizeof *cstart);
    int64_t *rowptr = malloc(((size_t)n + 1) * sizeof *rowptr);
    int32_t *ccol = NULL;
    ircg_ratings *R = NULL;
    ircg_error e = IRCG_OK;
    if (!cstart || !rowptr || layout(s, cstart, &ccol, rowptr) != 0 ||
        !(R = ircg_ratings_new(n, s->n_cols, rowptr[hi] - rowptr[lo]))) {
        e = slv_fail(diag, IRCG_ERR_NOMEM, "/n_ratings", "out of memory for %lld ratings",
                     (long long)s->n_ratings);
    } else {
        rows_job j = {s, U, V, synth_scale_of(s), cstart, ccol, rowptr, lo, hi, R,
                      slv_stop_current(), 0};
        int blocks = hi > lo ? (hi - 1) / BLOCK_ROWS - lo / BLOCK_ROWS + 1 : 0;
        int t = s->threads > 0 ? s->threads : slv_processors();
        t = t > MAX_THREADS ? MAX_THREADS : t;
        slv_pool *pool = slv_pool_new(t < blocks ? t : blocks);
        slv_pool_run(pool, one_block, &j, blocks);
        slv_pool_free(pool);
        if (j.failed)
            e = j.failed == 2 ? slv_stopped(diag, "/n_ratings")
                              : slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    }
    free(cstart);
    free(rowptr);
    free(ccol);
    if (e != IRCG_OK)
        ircg_ratings_free(R);
    else
        *out = R;
    return e;
}
