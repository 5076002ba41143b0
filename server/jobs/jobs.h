/*
 * jobs.h -- the jobs room of ircgd (docs/DESIGN.md, "The server's rooms"):
 * the workers and what one job's run does, whoever asks for it.  It
 * stands on the base room only.
 *
 *   workers.c     the solver worker pool
 *   job_run.c     one job on one worker: parse, resume, solve, finish
 *   job_output.c  what a running job writes, retried through store faults
 *   job_remote.c  a run whose solver is another process (srv_run_*)
 *   heartbeat.c   job heartbeats on a timer, independent of the solver
 *   warm_start.c  starts from another job's snapshot; the parse options
 *   datasets.c    uploaded datasets as the spec parser reads them
 *   trace_row.c   an iteration's report as the store's row, and back
 */
#ifndef IRCG_SERVER_JOBS_H
#define IRCG_SERVER_JOBS_H

#include "base/base.h"

/* The storage bounds of the configuration (snapshots of finished jobs,
 * retention, free pages): after every finished job and at start-up
 * (job_run.c).  A failure is logged, never fatal. */
void srv_maintain(store *st);

/* ----------------------------------------------------------- workers -- */

/* One claimed job run to its end (finish or requeue) by a worker; the
 * daemon hands the workers theirs (a solve here, or the MPI room's), so
 * that the jobs room calls nothing above it. */
typedef struct srv_worker_ctl srv_worker_ctl;
typedef void (*srv_job_runner)(srv_worker_ctl *ctl, store *st, const store_job *job);
int srv_workers_start(int n, srv_job_runner run);
/* Signal every worker to stop; running jobs are cancelled with reason
 * "shutdown" and requeued.  Then joins them. */
void srv_workers_stop(void);
void srv_workers_wake(void);       /* a job was queued */
/* The in-memory cancel flag of the worker running job `id` (if any). */
void srv_workers_cancel(const char *id);
int srv_workers_busy(void);
/* The claims of the busy workers (at most max) into out; returns how many. */
int srv_workers_claims(store_claim *out, int max);
/* Stops the worker holding exactly claim c (same job, same run) with
 * `reason`: 0, or -1 when no worker holds it. */
int srv_workers_stop_claim(const store_claim *c, int reason);

/* One worker's control block, shared with the HTTP and heartbeat threads
 * (atomics). */
struct srv_worker_ctl {
    int cancel;       /* the solver's cancel flag                          */
    int reason;       /* why it was raised: SRV_STOP_*                     */
};

/* Why a worker's solver was stopped; a higher reason is never replaced by
 * a lower one (a lost claim outranks a shutdown, which outranks a user's
 * cancel, whose request the store still honours on requeue). */
enum { SRV_STOP_NONE = 0, SRV_STOP_USER = 1, SRV_STOP_SHUTDOWN = 2,
       SRV_STOP_LOST = 3 /* the store says another run owns the job now */ };

/* trace_row.c: an iteration's report as the store's row, and back. */
store_trace_row srv_trace_row(const ircg_iter_info *it);
ircg_iter_info srv_trace_info(const store_trace_row *r);

/* job_run.c: run one claimed job to its end on this worker's thread. */
void srv_job_run(srv_worker_ctl *ctl, store *st, const store_job *job);
void srv_worker_stop(srv_worker_ctl *ctl, int reason);

/* A job's run (srv_run, job_run.h inside this room): a solve on the
 * worker (srv_job_run), or, through the calls below (job_remote.c), a run
 * whose solver is another process (the MPI room): the rows it reports go
 * through the same backlog, progress, events and store writes as a solve
 * on the worker (trace_every as the spec's).  Every write names the job's
 * claim; srv_run_is_lost says the claim is gone (then nothing more is
 * written).  finish/fail/requeue end the run. */
typedef struct srv_run srv_run;
srv_run *srv_run_open(srv_worker_ctl *ctl, store *st, const store_job *job,
                      int64_t trace_every);
void srv_run_close(srv_run *c);  /* NULL-safe */
/* Whether the store said another run owns the job. */
bool srv_run_is_lost(const srv_run *c);
/* The iteration of the latest row reported (0: none). */
int64_t srv_run_iteration(const srv_run *c);
/* The trace kept up to `iteration` (0: none), where the run goes on. */
int srv_run_truncate(srv_run *c, int64_t iteration);
void srv_run_row(srv_run *c, const ircg_iter_info *it);
/* The rows so far stored (through storage faults): 0, or -1 when they
 * could not be (or the claim is lost). */
int srv_run_flush(srv_run *c);
/* The rows so far, then blob as the job's resume point at `iteration`. */
void srv_run_checkpoint(srv_run *c, int64_t iteration, const void *blob, size_t len);
/* The rows so far, then a snapshot of the spec's made elsewhere: the
 * state, x and z blobs in that order, stored as a solve here stores its
 * own (through storage faults, with its event). */
void srv_run_snapshot(srv_run *c, int64_t iteration, const void *const blob[3],
                      const size_t len[3]);
/* Dataset id's bytes into the file path (its record into ds), read
 * through storage faults; 0, or -1 (store_errmsg says why). */
int srv_run_dataset_file(srv_run *c, const char *id, const char *path, store_dataset *ds);
/* The solver state of job's snapshot at iteration into the file path (a
 * start the ranks restore); 0, or -1 (the store said why). */
int srv_run_snapshot_file(srv_run *c, const char *job, int64_t iteration, const char *path);
/* Back to the queue at a shutdown, after the rows and (with a solver on
 * this worker) a final checkpoint at `iterations`. */
void srv_run_requeue(srv_run *c, int64_t iterations);
/* The rows first, then the outcome (fail: a problem document of slug,
 * title and detail); nothing when the rows cannot be stored (the job
 * resumes at the next start). */
void srv_run_finish(srv_run *c, store_state s, const char *result, const char *error);
void srv_run_fail(srv_run *c, const char *slug, const char *title, const char *detail);

/* ---------------------------------------------------------- heartbeat -- */

/* heartbeat.c: a ticker that writes heartbeat_at for every busy worker's
 * job every `every_s` seconds, whatever the solver is doing (a reference
 * computation or CG-BiO's warm start call no callback for minutes), and
 * passes on cancel requests and lost claims it learns from the store. */
int srv_heartbeat_start(double every_s);
void srv_heartbeat_stop(void); /* before srv_workers_stop */
/* Seconds since the ticker last completed a round of heartbeats. */
double srv_heartbeat_age(void);
/* The age beyond which /readyz reports the heartbeats stalled: several
 * missed rounds, and never less than a minute (a store busy for a few
 * seconds is no reason to take the daemon out of rotation). */
#define SRV_HEARTBEAT_STALE(every) ((every) * 12.0 > 60.0 ? (every) * 12.0 : 60.0)
/* The heartbeat age after which a running job that no worker of this
 * daemon holds is released by the watchdog (heartbeat.c): a few rounds. */
#define SRV_ORPHAN_AFTER(every) ((every) * 4.0 > 1.0 ? (every) * 4.0 : 1.0)

/* ---------------------------------------------------------- datasets -- */

struct api_parse_options;
/* datasets.c: api_dataset_fn for {"source":"dataset","id":...}
 * (user is a store*), given to api_parse_options_service with the data
 * directory and the size cap, at submission and in the worker alike. */
ircg_error srv_dataset_resolve(void *user, const char *id, ircg_ratings **out,
                               ircg_diag *diag);
/* Its size in bytes (api_parse_options.dataset_bytes: the estimate); -1
 * when there is no such dataset. */
int64_t srv_dataset_bytes(void *user, const char *id);
/* api_dataset_info_fn: a matrix or vector dataset's meta and file (user
 * is a store*). */
struct api_dataset_info;
ircg_error srv_dataset_info(void *user, const char *id, struct api_dataset_info *out,
                            ircg_diag *diag);

/* ------------------------------------------------------- warm start -- */

struct api_job_source;
struct api_spec;
struct api_start_job;
/* warm_start.c: api_job_fn for {"start": {"job": ...}} (user is a store*):
 * the job's spec and the head of its snapshot's state. */
ircg_error srv_job_source(void *user, const char *id, int64_t snapshot,
                          struct api_job_source *out, ircg_diag *diag);
/* The service's parse options (data directory, size cap, datasets and
 * jobs resolved in st), at submission and in the worker alike. */
void srv_parse_options(struct api_parse_options *o, store *st);
/* A spec's start from another job (sj; its snapshot's state read by the
 * worker, through store faults): restored into sv as the spec says; *iter
 * is where the run goes on (the snapshot's iteration, or 0 afresh).  0,
 * or -1 on failure (diag says why). */
int srv_warm_restore(ircg_solver *sv, const struct api_start_job *sj, const void *blob,
                     size_t len, int64_t *iter, ircg_diag *diag);

#endif /* IRCG_SERVER_JOBS_H */
