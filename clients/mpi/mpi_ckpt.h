/*
 * mpi_ckpt.h -- checkpoints of a distributed solve: every rank's solver
 * state (its rows of the factors and of Omega's iterates, the replicated
 * rest) in a file of its own, DIR/it-I/rank-R-of-N.ckpt, all at the same
 * iteration I.  The ranks decide together when (rank 0's clock, sent to
 * all), write, and agree that every file is complete before rank 0
 * announces the checkpoint ({"checkpoint": I} on the progress stream: the
 * daemon records it as the job's resume point only then).  The last two
 * checkpoints are kept, so the one a daemon recorded last still exists
 * while the next is written.  A resume restores every rank's file of one
 * iteration with the same number of ranks (the rows of each rank are the
 * same: the partition is a function of the data and N).
 */
#ifndef IRCG_MPI_CKPT_H
#define IRCG_MPI_CKPT_H

#include <mpi.h>

#include "ircg.h"

typedef struct mpi_ckpt {
    const char *dir;     /* NULL: no checkpoints                          */
    double every;        /* seconds between checkpoints (> 0)             */
    int progress;        /* announce them on stdout (rank 0)              */
    double last;         /* MPI_Wtime of the last one (or of the start)   */
    int64_t kept[2];     /* iterations of the files kept, newest first    */
} mpi_ckpt;

/* Collective, at an iteration every rank has finished: writes a
 * checkpoint when one is due (always when `now` is set).  0 when none was
 * due or all ranks wrote theirs, -1 (on every rank) when one failed; the
 * failing rank says why on stderr.  The solve goes on either way. */
int mpi_ckpt_tick(mpi_ckpt *k, const ircg_solver *sv, int64_t t, int now, MPI_Comm comm);

/* Collective: every rank restores its file of iteration `iter` into sv.
 * 0 on every rank, or -1 on every rank (nothing restored anywhere when a
 * file is missing or is not this rank's part; the failing rank says why). */
int mpi_ckpt_restore(const char *dir, int64_t iter, const ircg_problem *pb,
                     ircg_solver *sv, MPI_Comm comm);

#endif /* IRCG_MPI_CKPT_H */
