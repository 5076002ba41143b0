/*
 * mpi_start.h -- a distributed solve started from a state saved whole:
 * another job's snapshot (ircgd writes its solver state to a file and
 * passes --start-state FILE --start-schedule continue|afresh).  Rank 0
 * alone reads the file; the library's collective inverse of the whole save
 * (ircg_solver_restore_whole) hands every rank its rows.
 */
#ifndef IRCG_MPI_START_H
#define IRCG_MPI_START_H

#include <mpi.h>

#include "ircg.h"

typedef struct mpi_start {
    const char *path;        /* NULL: the spec's start                     */
    ircg_restore_mode mode;  /* CONTINUE or AFRESH                         */
    int64_t iteration;       /* the state's t (mpi_start_peek)             */
} mpi_start;

/* The state's iteration into s->iteration, read by rank 0 and sent to
 * all (a continuing solve counts max_iter from there).  Collective: 0 on
 * every rank, or -1 on every rank (rank 0 says why on stderr). */
int mpi_start_peek(mpi_start *s, MPI_Comm comm);

/* The state restored into sv, every rank its rows.  Collective; the
 * library's verdict, the same on every rank, in d. */
ircg_error mpi_start_restore(const mpi_start *s, ircg_solver *sv, MPI_Comm comm,
                             ircg_diag *d);

#endif /* IRCG_MPI_START_H */
