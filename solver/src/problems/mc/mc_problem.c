/* mc_problem.c -- the matrix-completion problem handle: validation of the
 * ratings and a private CSR copy of Omega (sorted by row, then column). */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "problems/mc/mc.h"

/* Entries per chunk of the elementwise passes: small enough to stay in L2
 * between the update and the sum that follows it. */
#define MC_CHUNK_NNZ 32768
#define MC_MAX_CHUNKS 256
#define MC_MAX_GROUPS 16 /* tasks of the passes with a scatter: one per thread up to 16 */

static void mc_data_free(void *p)
{
    mc_data *d = p;
    if (!d)
        return;
    free(d->rowptr);
    free(d->col);
    free(d->col16);
    free(d->m);
    free(d->mf);
    free(d->chunk_row);
    free(d->row_id);
    free(d->col_id);
    free(d);
}

const mc_data *mc_data_of(const ircg_problem *pb) { return pb->data; }

/* A distributed part: its rows inside the matrix, a usable communicator. */
static ircg_error validate_part(const ircg_ratings *R, int row0, int n_local,
                                const ircg_comm *comm, ircg_diag *diag)
{
    if (!comm || !comm->sum || comm->size < 1 || comm->rank < 0 ||
        comm->rank >= comm->size)
        return slv_fail(diag, IRCG_ERR_INVALID, "/comm",
                        "a communicator with a sum and 0 <= rank < size is needed");
    if (row0 < 0 || n_local < 1 || (int64_t)row0 + n_local > R->n_rows)
        return slv_fail(diag, IRCG_ERR_INVALID, "/row0",
                        "rows [%d, %lld) are not inside the %d rows of the matrix", row0,
                        (long long)row0 + n_local, R->n_rows);
    return IRCG_OK;
}

static ircg_error validate(const ircg_ratings *R, int row0, int n_local,
                           const ircg_comm *comm, ircg_outer_kind outer,
                           double delta, ircg_diag *diag)
{
    ircg_error err;
    if (!R)
        return slv_fail(diag, IRCG_ERR_INVALID, "/ratings", "ratings are NULL");
    if (comm && (err = validate_part(R, row0, n_local, comm, diag)) != IRCG_OK)
        return err;
    if (!isfinite(delta) || delta <= 0)
        return slv_fail(diag, IRCG_ERR_INVALID, "/delta",
                         "delta must be a finite number > 0, got %g", delta);
    if (outer != IRCG_OUTER_COLUMN_VARIANCE && outer != IRCG_OUTER_HALF_NORM_SQ)
        return slv_fail(diag, IRCG_ERR_INVALID, "/outer",
                         "matrix completion supports the outer objectives "
                         "column_variance and half_norm_sq only");
    if (R->n_rows < 1 || R->n_cols < 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/ratings",
                         "the matrix must be at least 1 x 1, got %d x %d",
                         R->n_rows, R->n_cols);
    if (R->nnz < 1 || !R->row || !R->col || !R->val)
        return slv_fail(diag, IRCG_ERR_INVALID, "/ratings",
                         "at least one observed entry is needed");
    for (int64_t e = 0; e < R->nnz; e++) {
        if (R->row[e] < row0 || R->row[e] - row0 >= n_local || R->col[e] < 0 ||
            R->col[e] >= R->n_cols)
            return slv_fail(diag, IRCG_ERR_INVALID, "/ratings",
                             "entry %lld: index (%d, %d) outside rows [%d, %d) "
                             "of %d x %d", (long long)e, R->row[e], R->col[e], row0,
                             row0 + n_local, R->n_rows, R->n_cols);
        if (!isfinite(R->val[e]))
            return slv_fail(diag, IRCG_ERR_INVALID, "/ratings",
                             "entry %lld: value is not finite", (long long)e);
    }
    return IRCG_OK;
}

/* Counting sort by row, then each row sorted by column; duplicates fail. */
#ifndef NDEBUG
/* Row pointers nondecreasing from 0 to nnz, columns strictly increasing
 * within each row and below p: what every pass over Omega relies on. */
static int csr_ordered(const mc_data *d)
{
    if (d->rowptr[0] != 0 || d->rowptr[d->n] != d->nnz)
        return 0;
    for (int i = 0; i < d->n; i++) {
        if (d->rowptr[i + 1] < d->rowptr[i])
            return 0;
        for (int64_t a = d->rowptr[i]; a < d->rowptr[i + 1]; a++)
            if (d->col[a] < 0 || d->col[a] >= d->p ||
                (a > d->rowptr[i] && d->col[a] <= d->col[a - 1]))
                return 0;
    }
    return 1;
}
#endif

/* Rating e of the CSR order into whichever array holds them (a float
 * only ever receives a value that is one). */
static void put_rating(mc_data *d, int64_t e, double v)
{
    if (d->mf)
        d->mf[e] = (float)v;
    else
        d->m[e] = v;
}

/* ------------------------------------------------------- compaction -- */

/* An index of the whole matrix to the one held: identity below m0, else
 * its place among the ids held (a table when one is kept, else a binary
 * search of the ascending ids). */
typedef struct mc_map {
    const int32_t *id;  /* ascending, count of them; NULL: identity       */
    int count, m0;
    int32_t *table;     /* whole index -> held index, or NULL             */
} mc_map;

static int32_t map_index(const mc_map *m, int32_t i)
{
    if (!m->id || i < m->m0)
        return i;
    if (m->table)
        return m->table[i];
    int lo = m->m0, hi = m->count - 1; /* id[lo..hi] holds i */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (m->id[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The indices held of one side (`of` the ratings' rows or columns, `dim`
 * of them): [0, m0) and the ones >= m0 that occur, ascending, into t
 * (malloc'ed); their number, -1 when out of memory.  A bitmap over
 * [m0, dim) when it is no larger than the ratings' arrays (a sort of
 * 10^8 ids took seconds), else a sort of the ids that occur. */
static int64_t ids_by_bitmap(const int32_t *of, int64_t nnz, int dim, int m0, int32_t **t)
{
    size_t words = ((size_t)(dim - m0) + 63) / 64;
    uint64_t *bits = calloc(words ? words : 1, sizeof *bits);
    int64_t u = m0;
    *t = NULL;
    if (!bits)
        return -1;
    for (int64_t e = 0; e < nnz; e++)
        if (of[e] >= m0)
            bits[(of[e] - m0) >> 6] |= UINT64_C(1) << ((of[e] - m0) & 63);
    for (size_t w = 0; w < words; w++)
        u += __builtin_popcountll(bits[w]);
    if ((*t = malloc(((size_t)u + 1) * sizeof **t))) {
        u = 0;
        for (int i = 0; i < m0; i++)
            (*t)[u++] = i;
        for (size_t w = 0; w < words; w++)
            for (uint64_t b = bits[w]; b; b &= b - 1)
                (*t)[u++] = m0 + (int32_t)(w * 64) + __builtin_ctzll(b);
    }
    free(bits);
    return *t ? u : -1;
}

static int64_t ids_by_sort(const int32_t *of, int64_t nnz, int m0, int32_t **t)
{
    int64_t c = m0, u = m0;
    if (!(*t = malloc(((size_t)nnz + (size_t)m0 + 1) * sizeof **t)))
        return -1;
    for (int i = 0; i < m0; i++)
        (*t)[i] = i;
    for (int64_t e = 0; e < nnz; e++)
        if (of[e] >= m0)
            (*t)[c++] = of[e];
    qsort(*t + m0, (size_t)(c - m0), sizeof **t, cmp_i32);
    for (int64_t e = m0; e < c; e++)
        if (u == m0 || (*t)[e] != (*t)[u - 1])
            (*t)[u++] = (*t)[e];
    return u;
}

/* *ids is NULL when every index is held. */
static int held_ids(const int32_t *of, int64_t nnz, int dim, int m0, int32_t **ids,
                    int *count)
{
    int64_t u = (int64_t)(dim - m0) <= 64 * nnz ? ids_by_bitmap(of, nnz, dim, m0, ids)
                                                : ids_by_sort(of, nnz, m0, ids);
    *count = dim;
    if (u < 0)
        return -1;
    if (u == dim) {
        free(*ids);
        *ids = NULL;
    } else {
        *count = (int)u;
    }
    return 0;
}

/* A lookup table when it costs no more than the ratings' own arrays. */
static int map_init(mc_map *m, const int32_t *id, int count, int dim, int m0, int64_t nnz)
{
    *m = (mc_map){id, count, m0, NULL};
    if (!id || (int64_t)dim > 4 * nnz + 4096)
        return 0;
    m->table = malloc((size_t)dim * sizeof *m->table);
    if (!m->table)
        return -1;
    for (int i = 0; i < count; i++)
        m->table[id[i]] = i;
    return 0;
}

/* Which rows and columns are held (mc_data's compaction). */
static ircg_error plan_layout(mc_data *d, const ircg_ratings *R, int whole,
                              ircg_diag *diag)
{
    d->n_real = d->n;
    if (whole || d->comm)
        return IRCG_OK;
    if (held_ids(R->row, R->nnz, d->n_all, d->m0, &d->row_id, &d->n_real) != 0 ||
        held_ids(R->col, R->nnz, d->p_all, d->m0, &d->col_id, &d->p) != 0)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    d->n = d->n_real;
    if (d->row_id && d->outer == IRCG_OUTER_COLUMN_VARIANCE) {
        d->agg_w = sqrt((double)(d->n_all - d->n_real)); /* exact below 2^53 */
        d->n++;
    }
    return IRCG_OK;
}

/* ---------------------------------------------------------------- CSR -- */

/* Row i's entries [lo, hi) sorted by column: insertion sort for short
 * rows, else a sort of (column, rating) pairs (a long row in descending
 * order made insertion sort quadratic: one row of 10^6 ratings took
 * hours).  Columns are distinct in a valid row, so both give the same
 * order; with a repeat, the smallest repeated column is reported either
 * way. */
typedef struct col_val {
    int32_t col;
    double val;
} col_val;

static int cmp_col_val(const void *a, const void *b)
{
    int32_t x = ((const col_val *)a)->col, y = ((const col_val *)b)->col;
    return (x > y) - (x < y);
}

#define MC_INSERTION_MAX 64

static int sort_row(mc_data *d, int64_t lo, int64_t hi)
{
    if (hi - lo > MC_INSERTION_MAX) {
        col_val *t = malloc((size_t)(hi - lo) * sizeof *t);
        if (!t)
            return -1;
        for (int64_t a = lo; a < hi; a++)
            t[a - lo] = (col_val){d->col[a], mc_rating(d, a)};
        qsort(t, (size_t)(hi - lo), sizeof *t, cmp_col_val);
        for (int64_t a = lo; a < hi; a++) {
            d->col[a] = t[a - lo].col;
            put_rating(d, a, t[a - lo].val);
        }
        free(t);
        return 0;
    }
    for (int64_t a = lo + 1; a < hi; a++) {
        int32_t c = d->col[a];
        double v = mc_rating(d, a);
        int64_t b = a - 1;
        for (; b >= lo && d->col[b] > c; b--) {
            d->col[b + 1] = d->col[b];
            put_rating(d, b + 1, mc_rating(d, b));
        }
        d->col[b + 1] = c;
        put_rating(d, b + 1, v);
    }
    return 0;
}

/* R's rows less row0 are the local ones; compacted through the maps. */
static ircg_error fill_csr(mc_data *d, const ircg_ratings *R, const mc_map *rm,
                           const mc_map *cm, int64_t *next, ircg_diag *diag)
{
    for (int64_t e = 0; e < R->nnz; e++)
        d->rowptr[map_index(rm, R->row[e] - d->row0) + 1]++;
    for (int i = 0; i < d->n; i++)
        d->rowptr[i + 1] += d->rowptr[i];
    memcpy(next, d->rowptr, (size_t)d->n * sizeof *next);
    for (int64_t e = 0; e < R->nnz; e++) {
        int64_t q = next[map_index(rm, R->row[e] - d->row0)]++;
        d->col[q] = map_index(cm, R->col[e]);
        put_rating(d, q, R->val[e]);
    }
    for (int i = 0; i < d->n; i++) {
        if (slv_stop_due() || sort_row(d, d->rowptr[i], d->rowptr[i + 1]) != 0)
            return slv_stop_due() ? slv_stopped(diag, "/ratings")
                                  : slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
        for (int64_t a = d->rowptr[i] + 1; a < d->rowptr[i + 1]; a++)
            if (d->col[a] == d->col[a - 1])
                return slv_fail(diag, IRCG_ERR_INVALID, "/ratings",
                                "duplicate entry (%d, %d)",
                                (d->row_id ? d->row_id[i] : i) + d->row0,
                                d->col_id ? d->col_id[d->col[a]] : d->col[a]);
    }
    return IRCG_OK;
}

static ircg_error build_csr(mc_data *d, const ircg_ratings *R, ircg_diag *diag)
{
    int64_t *next = calloc((size_t)d->n + 1, sizeof *next);
    mc_map rm = {0}, cm = {0}; /* map_init leaves table NULL on failure */
    ircg_error err;

    if (!next || map_init(&rm, d->row_id, d->n_real, d->n_all, d->m0, R->nnz) != 0 ||
        map_init(&cm, d->col_id, d->p, d->p_all, d->m0, R->nnz) != 0)
        err = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    else
        err = fill_csr(d, R, &rm, &cm, next, diag);
    free(cm.table);
    free(rm.table);
    free(next);
    assert(err != IRCG_OK || csr_ordered(d));
    return err;
}

/* The ratings' array: floats when each rating is a float exactly, else
 * doubles (only one of them is kept, and only one is ever allocated: at
 * 100M ratings, the build's peak is the caller's ratings and 0.8 GB). */
static int alloc_ratings(mc_data *d, const ircg_ratings *R)
{
    int floats = 1;
    for (int64_t e = 0; e < R->nnz && floats; e++)
        floats = (double)(float)R->val[e] == R->val[e];
    /* build_csr sets every entry; zeroed so that clang-tidy sees it too */
    if (floats)
        d->mf = slv_big_alloc((size_t)d->nnz * sizeof *d->mf, 1);
    else
        d->m = slv_big_alloc((size_t)d->nnz * sizeof *d->m, 1);
    return d->mf || d->m;
}

/* The 16-bit copy of the columns when they fit (mc_data.col16); 0 when
 * out of memory. */
static int build_col16(mc_data *d)
{
    if (d->p > UINT16_MAX + 1)
        return 1;
    d->col16 = slv_big_alloc((size_t)d->nnz * sizeof *d->col16, 0);
    for (int64_t e = 0; d->col16 && e < d->nnz; e++)
        d->col16[e] = (uint16_t)d->col[e];
    return d->col16 != NULL;
}

/* Row-aligned chunks of about MC_CHUNK_NNZ entries. */
static ircg_error build_chunks(mc_data *d, ircg_diag *diag)
{
    int want = (int)((d->nnz + MC_CHUNK_NNZ - 1) / MC_CHUNK_NNZ);
    int c = 0;

    if (want > MC_MAX_CHUNKS)
        want = MC_MAX_CHUNKS;
    if (want > d->n)
        want = d->n;
    d->chunk_row = malloc(((size_t)want + 1) * sizeof *d->chunk_row);
    if (!d->chunk_row)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    d->chunk_row[0] = 0;
    for (int i = 0; i < d->n && c < want - 1; i++)
        if (d->rowptr[i + 1] >= (int64_t)(c + 1) * d->nnz / want)
            d->chunk_row[++c] = i + 1;
    d->chunk_row[++c] = d->n;
    d->nchunk = c;
    d->ngroup = c < MC_MAX_GROUPS ? c : MC_MAX_GROUPS;
    return IRCG_OK;
}

/* The dimensions of the whole and of the part held here. */
static void set_dims(mc_data *d, const ircg_ratings *R, int row0, int n_local,
                     const ircg_comm *comm)
{
    d->comm = comm;
    d->n_all = R->n_rows;
    d->row0 = comm ? row0 : 0;
    d->n = comm ? n_local : R->n_rows;
    d->p = d->p_all = R->n_cols;
    d->m0 = d->n_all < d->p ? d->n_all : d->p;
    d->ndiag = d->m0 - d->row0 < 0 ? 0 : d->m0 - d->row0 < d->n ? d->m0 - d->row0 : d->n;
    d->nnz = R->nnz;
    /* exact: counts below 2^53 */
    d->nnz_all = comm ? (int64_t)slv_comm_sum1(comm, (double)R->nnz) : R->nnz;
}

ircg_error mc_problem_new(const ircg_ratings *R, int row0, int n_local,
                          const ircg_comm *comm, ircg_outer_kind outer, double delta,
                          int whole, ircg_problem **out, ircg_diag *diag)
{
    ircg_problem *pb = NULL;
    mc_data *d = NULL;
    ircg_error err;

    if (!out)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "out is NULL");
    *out = NULL;
    if ((err = validate(R, row0, n_local, comm, outer, delta, diag)) != IRCG_OK)
        return err;
    pb = calloc(1, sizeof *pb);
    d = calloc(1, sizeof *d);
    if (!pb || !d)
        goto nomem;
    set_dims(d, R, row0, n_local, comm);
    d->outer = outer;
    d->delta = delta;
    if ((err = plan_layout(d, R, whole, diag)) != IRCG_OK)
        goto fail;
    d->rowptr = calloc((size_t)d->n + 1, sizeof *d->rowptr);
    d->col = slv_big_alloc((size_t)d->nnz * sizeof *d->col, 0);
    if (!d->rowptr || !d->col || !alloc_ratings(d, R))
        goto nomem;
    if ((err = build_csr(d, R, diag)) != IRCG_OK ||
        (err = build_chunks(d, diag)) != IRCG_OK)
        goto fail;
    if (!build_col16(d))
        goto nomem;
    pb->info = (ircg_problem_info){
        .kind = IRCG_PROBLEM_MATRIX_COMPLETION, .n_rows = d->n_all, .n_cols = d->p_all,
        .dim = (int64_t)d->n_all * d->p_all, .n_observed = d->nnz,
        .held_rows = d->n, .held_cols = d->p,
        .domain = {.kind = IRCG_DOMAIN_NUCLEAR_BALL, .radius = delta},
        .outer = outer, .L_f = 1.0, .L_g = 1.0, .diameter = 2.0 * delta};
    pb->ops = &slv_mc_ops;
    pb->comm = comm;
    pb->data = d;
    pb->free_data = mc_data_free;
    *out = pb;
    return IRCG_OK;
nomem:
    err = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
fail:
    mc_data_free(d);
    free(pb);
    return err;
}
