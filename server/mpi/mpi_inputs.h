/*
 * mpi_inputs.h -- the spec the ranks of an MPI job read: inline data and
 * stored datasets written as files in the job's folder (mpi_inputs.c).
 */
#ifndef IRCG_SERVER_MPI_INPUTS_H
#define IRCG_SERVER_MPI_INPUTS_H

#include <stddef.h>

#include "mpi/mpi.h"

/* The job's stored spec with its data made a file in dir where it is not
 * one already: malloc'ed JSON text, or NULL with err set (err starts ""). */
char *srv_mpi_rank_spec(srv_run *run, store *st, const char *spec_json, const char *dir,
                        char *err, size_t errlen);

#endif /* IRCG_SERVER_MPI_INPUTS_H */
