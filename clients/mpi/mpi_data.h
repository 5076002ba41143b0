/*
 * mpi_data.h -- each rank's share of a matrix-completion spec's ratings:
 * its rows, balanced by ratings over the ranks, read from its byte range of
 * the file (then sent to the ranks that own their rows) or generated row
 * by row.  No rank holds the whole of Omega (but for synthetic instances
 * below 2^22 ratings, whose generator is not row by row: each rank draws
 * the whole and keeps its rows).
 */
#ifndef IRCG_MPI_DATA_H
#define IRCG_MPI_DATA_H

#include <mpi.h>

#include "ircg.h"
#include "spec.h"

typedef struct mpi_part {
    ircg_ratings *R;   /* this rank's ratings, global indices            */
    int row0, n_local; /* its rows [row0, row0 + n_local)                */
} mpi_part;

/* Collective.  0 on every rank, or on every rank an error (the same code);
 * the rank that met the first one (the lowest) printed it on stderr,
 * naming the spec's member (and the file's line). */
int mpi_load(const api_mc_source *src, MPI_Comm comm, mpi_part *out);
void mpi_part_free(mpi_part *p);

/* Whether any rank failed (collective): ok is this rank's outcome. */
int mpi_any_failed(MPI_Comm comm, int ok);

#endif /* IRCG_MPI_DATA_H */
