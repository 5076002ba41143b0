/*
 * mpi_comm.h -- libircg's communicator (ircg_comm) over MPI_COMM_WORLD.
 * The sums are deterministic: every rank adds the ranks' values in rank
 * order (compensated), whatever the timing, and gets the same bits.
 */
#ifndef IRCG_MPI_COMM_H
#define IRCG_MPI_COMM_H

#include <mpi.h>

#include "ircg.h"

typedef struct mpi_ctx {
    MPI_Comm comm;
    int rank, size;
    double *scratch;     /* size * (the longest slice so far)              */
    size_t scratch_len;
    double comm_seconds; /* time spent inside the sums                     */
    int64_t calls;
} mpi_ctx;

/* c's ircg_comm over comm; free with mpi_ctx_free. */
void mpi_ctx_init(mpi_ctx *c, MPI_Comm comm, ircg_comm *out);
void mpi_ctx_free(mpi_ctx *c);

#endif /* IRCG_MPI_COMM_H */
