/*
 * mpi.h -- the MPI room of ircgd (docs/DESIGN.md, "The server's rooms"):
 * jobs solved by ranks of ircg-mpi through the operator's launcher.  It
 * stands on the jobs room's interface (a run whose solver is another
 * process, srv_run_*) and the base.
 *
 *   mpi_job.c     a job solved by MPI ranks: the launcher, rank 0's progress
 *   mpi_proc.c    the launcher as a child process: its output, its stop
 *   mpi_inputs.c  an MPI job's inline data or dataset as a file the ranks read
 *   mpi_resume.c  where an MPI job's ranks go on: newest whole checkpoint
 *   mpi_sched.c   lost hosts in the launcher's words; Slurm's cancel, time
 *                 limit and reasons
 */
#ifndef IRCG_SERVER_MPI_H
#define IRCG_SERVER_MPI_H

#include "base/base.h"
#include "jobs/jobs.h"

/* mpi_job.c: the ranks a job's spec asks for ("execution": {"ranks"}),
 * read from its stored spec; 0 for a job solved on the worker. */
int srv_mpi_ranks(const store_job *job);
/* Runs such a job to its end through the operator's launcher. */
void srv_mpi_job_run(srv_worker_ctl *ctl, store *st, const store_job *job);
/* At start-up: ircg-mpi and the work directory resolved (when a launcher
 * is configured); -1 (logged) when unusable. */
int srv_mpi_prepare(srv_config *c);
/* "execution": {"ranks", "hosts"} of the running MPI job `id` as JSON text
 * (malloc'ed), once its rank 0 reported them; else NULL. */
char *srv_mpi_execution(const char *id);

#endif /* IRCG_SERVER_MPI_H */
