/*
 * mpi_resume.h -- where the ranks of an MPI job that ran before go on
 * (mpi_resume.c).
 */
#ifndef IRCG_SERVER_MPI_RESUME_H
#define IRCG_SERVER_MPI_RESUME_H

#include <stddef.h>

#include "mpi/mpi.h"

/* The iteration of the ranks' checkpoint (in dir/ckpt, of `ranks` ranks)
 * the job resumes from, its trace (a row every trace_every iterations)
 * made whole up to there; 0: from the start; -1 with why set when the
 * store cannot be read. */
int64_t srv_mpi_resume_point(srv_run *run, store *st, const store_job *job, const char *dir,
                             int ranks, int64_t trace_every, char *why, size_t whylen);

#endif /* IRCG_SERVER_MPI_RESUME_H */
