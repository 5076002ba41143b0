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
    int64_t small_calls; /* of the calls, those gathered whole (at most
                            SMALL_LEN numbers: each rank sends its len to
                            every other), and their numbers              */
    int64_t small_doubles;
    int profile;         /* a timed barrier before each sum: splits the
                            ranks' waits for each other (imbalance) from
                            the transfers (make bench-mpi)               */
    double wait_seconds; /* in those barriers                            */
    char eig_error[200]; /* why the last top_eig failed (mpi_parpack.c)  */
} mpi_ctx;

/* Sums of at most this many numbers are gathered whole on every rank;
 * longer ones go by slices. */
#define MPI_SUM_SMALL_LEN 2048

/* c's ircg_comm over comm; free with mpi_ctx_free. */
void mpi_ctx_init(mpi_ctx *c, MPI_Comm comm, ircg_comm *out);
void mpi_ctx_free(mpi_ctx *c);

/* make bench-cluster's measurement of one sum: for each length of the
 * comma-separated list, `reps` sums of that many numbers through c's
 * ircg_comm (after one unmeasured), rank 0 printing on stdout one JSON
 * line {"ranks": N, "len": L, "seconds": the median of the reps}.
 * Collective; 0, or 2 when the list is not lengths. */
int mpi_bench_sums(mpi_ctx *c, const ircg_comm *comm, const char *lens, int reps);

#endif /* IRCG_MPI_COMM_H */
