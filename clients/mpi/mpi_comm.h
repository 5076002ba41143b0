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
    double comm_seconds; /* time spent inside the sums (waits included)    */
    int64_t calls;
    int64_t doubles;     /* numbers summed (each rank sends and receives
                            about 2 of them per number above SMALL_LEN)   */
    int profile;         /* a timed barrier before each sum: splits the
                            ranks' waits for each other (imbalance) from
                            the transfers (make bench-mpi)               */
    double wait_seconds; /* in those barriers                            */
    char eig_error[200]; /* why the last top_eig failed (mpi_parpack.c)  */
} mpi_ctx;

/* c's ircg_comm over comm; free with mpi_ctx_free. */
void mpi_ctx_init(mpi_ctx *c, MPI_Comm comm, ircg_comm *out);
void mpi_ctx_free(mpi_ctx *c);

#endif /* IRCG_MPI_COMM_H */
