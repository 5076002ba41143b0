/*
 * mpi_sched.h -- what the launcher and the scheduler say about an MPI job
 * beyond its exit status: the host its messages name as lost, and, for
 * ranks that run in a Slurm job (rank 0 reports its id: SLURM_JOB_ID),
 * Slurm's own controls -- a stop is an scancel, the solve's time limit
 * becomes the Slurm job's, and a job that ended badly gets Slurm's state
 * and reason and those of its nodes that are not up.
 *
 * Slurm's commands (scancel, scontrol) are run from the daemon's PATH, as
 * on a login node; each is given a few seconds, and its failure is logged,
 * never taken for the job's outcome.
 */
#ifndef IRCG_MPI_SCHED_H
#define IRCG_MPI_SCHED_H

#include <stdbool.h>
#include <stddef.h>

/* The host that a launcher's stderr line names as lost or failed, into
 * host (cap bytes); whether the line names one.  Open MPI's mpirun:
 * "Remote daemon: [[...]] on node X" (a daemon lost: its host killed or
 * cut off), "Peer host: X" (a peer's connection dropped), "... on node X
 * exited on signal N"; Slurm's srun: "srun: error: Node failure on X",
 * "srun: error: X: task N: Killed|Exited...". */
bool srv_sched_names_lost_host(const char *line, char *host, size_t cap);

/* scancel --signal=NAME JOB (sig USR1: the ranks vote and stop) or, sig
 * 0, scancel JOB (Slurm ends the job: SIGTERM, then SIGKILL after its
 * KillWait).  0 when scancel succeeded. */
int srv_slurm_cancel(const char *job, int sig);

/* scontrol update JobId=JOB TimeLimit=MINUTES: Slurm's time limit, set
 * once the ranks started solving (a user may lower a job's limit). */
int srv_slurm_time_limit(const char *job, int minutes);

/* Slurm's view of a job that ended without a result or was stopped from
 * outside: "Slurm job J: JobState=S Reason=R" and, for every host of
 * hosts whose node is down, drained or not responding, "; node X: STATE
 * (its reason)"; into buf ("" when scontrol cannot tell). */
void srv_slurm_describe(const char *job, const char *const *hosts, int nhosts, char *buf,
                        size_t len);

#endif /* IRCG_MPI_SCHED_H */
