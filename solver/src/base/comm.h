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

#endif /* IRCG_BASE_COMM_H */
