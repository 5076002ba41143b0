/*
 * mpi_parpack.h -- the ARPACK engine of a distributed solve
 * (ircg_comm.top_eig, "lmo": {"engine": "arpack"}): PARPACK's
 * pdsaupd/pdseupd on the ranks of the communicator.
 *
 * Where the vectors live.  The single-process engine gives ARPACK the
 * eigenproblem of C'C, whose vectors are the right (column-side) ones, of
 * length p; the distributed solve replicates that side (mc_dist.c: rows
 * are cut, columns are not).  PARPACK adds its inner products over the
 * ranks, so a replicated vector would count N times: each rank keeps a
 * slice of the column index range [p r / N, p (r + 1) / N) of every
 * Lanczos vector instead (NCV x p / N numbers a rank, not NCV x p), and a
 * product gathers the slices into the replicated x (MPI_Allgatherv:
 * copies, no arithmetic), runs the library's distributed Gram product (its
 * one sum of p + k + 1 numbers) and keeps its slice of C'C x.  The same
 * eigenproblem as the single-process engine, from the same start, so the
 * two agree to lmo_tol; working on the row side instead (CC', n-vectors
 * sliced as the rows already are) would save the gather but change the
 * Krylov space, the start and the memory (n >> p).
 *
 * PARPACK's own reductions are MPI_Allreduce, whose order of addition is
 * Open MPI's and differs with the number of ranks: the Lanczos vectors,
 * and so the vertex, differ between rank counts in their last bits (within
 * lmo_tol of the top pair either way; tests/integration/mpi/test_mpi.c).
 *
 * Every rank must take the same path through the reverse communication:
 * each exchange carries every rank's ido and info beside its slice, so the
 * ranks see at once whether all ask for a product, all have finished, or
 * (which PARPACK should never do) they part ways -- then all stop with
 * the same error rather than wait in different collectives.
 */
#ifndef IRCG_MPI_PARPACK_H
#define IRCG_MPI_PARPACK_H

#include "mpi_comm.h"

/* ircg_comm.top_eig over the mpi_ctx ctx; on failure ctx's eig_error says
 * why, naming the engine and PARPACK's info (the same text on every rank). */
ircg_error mpi_parpack_top_eig(void *ctx, const ircg_eig_request *rq, ircg_eig_answer *ans);

#endif /* IRCG_MPI_PARPACK_H */
