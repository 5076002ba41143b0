/*
 * mc_digest.c -- the data digest of a matrix-completion instance
 * (ircg_problem_info.data_digest): Omega in CSR order and the ratings,
 * what the solver reads, in the order it reads them (the same ratings in
 * another order round otherwise).  The bytes are the dimensions, the row
 * pointers, the columns, then the ratings; for an instance spread over
 * processes the same bytes are fed rank by rank (each rank's rows follow
 * the rows before it), so the whole instance has one digest however it
 * is spread -- that of one process holding it all.
 */
#include "base/comm.h"
#include "base/digest.h"
#include "problems/mc/mc.h"

#define DIGEST_PIECE 512

static void feed_rowptr(slv_digest *h, const mc_data *d, int64_t before, int last)
{
    int64_t buf[DIGEST_PIECE];
    int64_t n = last ? (int64_t)d->n + 1 : d->n;
    for (int64_t i = 0; i < n;) {
        size_t k = 0;
        for (; k < DIGEST_PIECE && i < n; k++, i++)
            buf[k] = before + d->rowptr[i];
        slv_digest_i64s(h, buf, k);
    }
}

/* The ratings as doubles: from floats when the problem keeps floats. */
static void feed_ratings(slv_digest *h, const mc_data *d)
{
    if (d->m)
        slv_digest_f64s(h, d->m, (size_t)d->nnz);
    for (int64_t e = 0; !d->m && e < d->nnz;) {
        double buf[DIGEST_PIECE];
        size_t k = 0;
        for (; k < DIGEST_PIECE && e < d->nnz; k++, e++)
            buf[k] = (double)d->mf[e];
        slv_digest_f64s(h, buf, k);
    }
}

static void feed_head(slv_digest *h, int64_t n, int64_t p, int64_t nnz)
{
    slv_digest_update(h, "mc", 2);
    slv_digest_i64(h, n);
    slv_digest_i64(h, p);
    slv_digest_i64(h, nnz);
}

/* A compacted problem's rows and columns: the whole matrix's dimensions,
 * the ids held and whether the rows without ratings share one (a
 * compacted instance has its own digest: its states hold its rows). */
static void feed_layout(slv_digest *h, const mc_data *d)
{
    slv_digest_update(h, "mcc", 3);
    slv_digest_i64(h, d->n_all);
    slv_digest_i64(h, d->p_all);
    slv_digest_i64(h, d->agg_w > 0);
    if (d->row_id)
        slv_digest_i32s(h, d->row_id, (size_t)d->n_real);
    if (d->col_id)
        slv_digest_i32s(h, d->col_id, (size_t)d->p);
}

uint64_t mc_data_digest(const mc_data *d)
{
    slv_digest h;
    slv_digest_init(&h);
    if (d->row_id || d->col_id)
        feed_layout(&h, d);
    feed_head(&h, d->n, d->p, d->nnz);
    feed_rowptr(&h, d, 0, 1);
    slv_digest_i32s(&h, d->col, (size_t)d->nnz);
    feed_ratings(&h, d);
    return slv_digest_final(&h);
}

uint64_t mc_whole_digest(const mc_data *d)
{
    const ircg_comm *c = d->comm;
    int64_t before = 0;
    slv_digest h;
    if (!c)
        return mc_data_digest(d);
    for (int r = 0; r < c->size - 1; r++) { /* the ratings of the ranks before */
        double nr = slv_comm_sum1(c, c->rank == r ? (double)d->nnz : 0.0);
        if (r < c->rank)
            before += (int64_t)nr;
    }
    slv_digest_init(&h);
    for (int stage = 0; stage < 3; stage++)
        for (int r = 0; r < c->size; r++) {
            if (c->rank == r && stage == 0 && r == 0)
                feed_head(&h, d->n_all, d->p, d->nnz_all);
            if (c->rank == r && stage == 0)
                feed_rowptr(&h, d, before, r == c->size - 1);
            else if (c->rank == r && stage == 1)
                slv_digest_i32s(&h, d->col, (size_t)d->nnz);
            else if (c->rank == r)
                feed_ratings(&h, d);
            slv_comm_pass_digest(c, &h, r);
        }
    return slv_digest_final(&h);
}
