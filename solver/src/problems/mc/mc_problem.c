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

/* R's rows less row0 are the local ones. */
static ircg_error build_csr(mc_data *d, const ircg_ratings *R, ircg_diag *diag)
{
    int64_t *next = calloc((size_t)d->n + 1, sizeof *next);
    ircg_error err = IRCG_OK;

    if (!next)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    for (int64_t e = 0; e < R->nnz; e++)
        d->rowptr[R->row[e] - d->row0 + 1]++;
    for (int i = 0; i < d->n; i++)
        d->rowptr[i + 1] += d->rowptr[i];
    memcpy(next, d->rowptr, (size_t)d->n * sizeof *next);
    for (int64_t e = 0; e < R->nnz; e++) {
        int64_t q = next[R->row[e] - d->row0]++;
        d->col[q] = R->col[e];
        put_rating(d, q, R->val[e]);
    }
    for (int i = 0; i < d->n && err == IRCG_OK; i++) {
        /* insertion sort: rows are short */
        for (int64_t a = d->rowptr[i] + 1; a < d->rowptr[i + 1]; a++) {
            int32_t c = d->col[a];
            double v = mc_rating(d, a);
            int64_t b = a - 1;
            for (; b >= d->rowptr[i] && d->col[b] > c; b--) {
                d->col[b + 1] = d->col[b];
                put_rating(d, b + 1, mc_rating(d, b));
            }
            d->col[b + 1] = c;
            put_rating(d, b + 1, v);
        }
        for (int64_t a = d->rowptr[i] + 1; a < d->rowptr[i + 1]; a++)
            if (d->col[a] == d->col[a - 1]) {
                err = slv_fail(diag, IRCG_ERR_INVALID, "/ratings",
                                "duplicate entry (%d, %d)", i + d->row0, d->col[a]);
                break;
            }
    }
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
    d->p = R->n_cols;
    d->m0 = d->n_all < d->p ? d->n_all : d->p;
    d->ndiag = d->m0 - d->row0 < 0 ? 0 : d->m0 - d->row0 < d->n ? d->m0 - d->row0 : d->n;
    d->nnz = R->nnz;
    /* exact: counts below 2^53 */
    d->nnz_all = comm ? (int64_t)slv_comm_sum1(comm, (double)R->nnz) : R->nnz;
}

ircg_error mc_problem_new(const ircg_ratings *R, int row0, int n_local,
                          const ircg_comm *comm, ircg_outer_kind outer, double delta,
                          ircg_problem **out, ircg_diag *diag)
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
        .kind = IRCG_PROBLEM_MATRIX_COMPLETION, .n_rows = d->n_all, .n_cols = d->p,
        .dim = (int64_t)d->n_all * d->p, .n_observed = d->nnz,
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
