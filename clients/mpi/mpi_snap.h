/*
 * mpi_snap.h -- the spec's iterate snapshots (output.snapshot_every) of a
 * distributed solve, for ircgd to store as it stores a single-process
 * job's: at iteration I every rank takes part and rank 0 writes
 *   DIR/it-I/state    the whole solver state, one process's blob
 *                     (ircg_solver_save_whole: the rows travel in pieces)
 *   DIR/it-I/x.npz    the iterates, gathered, as the snapshots' .npz
 *   DIR/it-I/z.npz    (api_iterate_npz, the bytes ircgd writes)
 * each under a temporary name then renamed, and announces the whole
 * {"snapshot": I} on the progress stream; the daemon reads the three
 * files into its store and removes them.  Without --snapshot-dir no
 * snapshot is taken (a solve on the command line has its result).
 */
#ifndef IRCG_MPI_SNAP_H
#define IRCG_MPI_SNAP_H

#include <mpi.h>

#include "ircg.h"

typedef struct mpi_snap {
    const char *dir;   /* NULL: no snapshots                            */
    int64_t every;     /* the spec's snapshot_every; 0: none            */
    int progress;      /* announce them on stdout (rank 0)              */
    int64_t last;      /* iteration of the last one taken               */
} mpi_snap;

/* Collective, at an iteration every rank has finished: a snapshot when
 * one is due (t a multiple of every, or `now`: the last iterate).  0, or
 * -1 when rank 0 could not write it (said on stderr; not announced; the
 * solve goes on). */
int mpi_snap_tick(mpi_snap *s, const ircg_solver *sv, int64_t t, int now, MPI_Comm comm);

#endif /* IRCG_MPI_SNAP_H */
