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

#endif /* IRCG_BASE_COMM_H */
