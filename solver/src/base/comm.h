/*
 * comm.h -- the sums of a solve distributed over several processes, through
 * the caller's ircg_comm (ircg.h).  A NULL communicator is one process:
 * every call is then a no-op, so single-process code pays nothing and
 * keeps its bits.
 */
#ifndef IRCG_BASE_COMM_H
#define IRCG_BASE_COMM_H

#include <stdint.h>

#include "ircg.h"
#include "base/digest.h"
#include "base/util.h"

/* buf[0, len) summed over the ranks (in rank order, the same bits on
 * every rank); nothing when c is NULL. */
static inline void slv_comm_sum(const ircg_comm *c, double *buf, int64_t len)
{
    if (c && len > 0)
        c->sum(c->ctx, buf, len);
}

/* One value summed over the ranks. */
static inline double slv_comm_sum1(const ircg_comm *c, double x)
{
    slv_comm_sum(c, &x, 1);
    return x;
}

/* Whether to stop, put to a vote so that every rank of a distributed
 * solve stops at the same iteration (any rank's cancel or clock stops them
 * all; a cancel wins over the clock).  Collective when c is set. */
static inline ircg_status slv_comm_vote(const ircg_comm *c, int cancel, int late)
{
    double v[2] = {cancel, late};
    slv_comm_sum(c, v, 2);
    return v[0] > 0 ? IRCG_STATUS_CANCELLED
           : v[1] > 0 ? IRCG_STATUS_TIME_LIMIT : IRCG_STATUS_UNSOLVED;
}

/* Rows [row0, row0 + n) of a column-major matrix with `total` rows and
 * ncols columns, gathered on every rank: each rank's rows are copied into
 * a zeroed whole (leading dimension total) and the wholes summed (an exact
 * sum: every entry has one nonzero term).  local has leading dimension n. */
void slv_comm_gather_rows(const ircg_comm *c, const double *local, int n, int row0,
                          int total, int ncols, double *whole);

/* A digest in progress, from rank `from` to every rank: the digest of
 * data spread over the ranks is fed rank by rank, in rank order, each
 * rank handing it on.  (Its state travels as 32-bit pieces, which a sum
 * with zeros carries exactly.) */
void slv_comm_pass_digest(const ircg_comm *c, slv_digest *h, int from);

/* A row-distributed vector (n values here) to s: every rank's values in
 * rank order, through sums of zero-padded pieces of bounded size, so that
 * no rank holds the whole.  Collective. */
void slv_comm_stream_rows(const ircg_comm *c, const double *local, int64_t n, slv_sink *s);

/* buf[0, len) of rank `from` to every rank, bit for bit (-0, NaN
 * payloads included): each double travels as two 32-bit words, which a sum
 * with zeros carries exactly.  Collective. */
void slv_comm_bcast_exact(const ircg_comm *c, int from, double *buf, int64_t len);

/* A blob that rank 0 reads (get, len bytes in all: its length is rank 0's
 * word) read by every rank together, for a state saved whole
 * (ircg_solver_restore_whole): the bytes travel as 32-bit words through
 * the sums, in bounded pieces, each piece with rank 0's verdict, so that
 * every rank sees the same bytes and the same failure.  On one process
 * (c NULL) get is called directly. */
typedef struct slv_csrc {
    const ircg_comm *c;
    ircg_read_fn get; /* rank 0 only */
    void *ctx;
    uint64_t len, pos;  /* the blob's length (every rank), bytes taken */
    int failed;         /* past the end, or rank 0 could not read: every
                           later call yields zeros (on every rank alike) */
    double *piece;      /* the sums' buffer */
    unsigned char *bytes; /* a piece's bytes */
} slv_csrc;

/* Starts s (collective: rank 0's len reaches every rank). */
ircg_error slv_csrc_open(slv_csrc *s, const ircg_comm *c, ircg_read_fn get, void *ctx,
                         uint64_t len);
void slv_csrc_close(slv_csrc *s);
/* The next n bytes on every rank (zeros once failed). */
void slv_csrc_bytes(slv_csrc *s, void *out, size_t n);
/* The next `total` little-endian doubles, of which those of index [from,
 * from + n) are appended to out (the others pass by): a row-distributed
 * vector's part. */
void slv_csrc_rows(slv_csrc *s, int64_t total, int64_t from, int64_t n, slv_buf *out);
/* The next n bytes appended to out whole. */
void slv_csrc_copy(slv_csrc *s, size_t n, slv_buf *out);

#endif /* IRCG_BASE_COMM_H */
