/*
 * job_run.h -- a job's run, inside the jobs room (job_run.c, job_output.c,
 * and job_remote.c for a solver in other processes): what the run holds,
 * and how its output reaches the store.
 *
 * What the solver produces is written in two classes:
 *   - what the job cannot do without -- its trace rows, the snapshots its
 *     spec asks for (with their events), its outcome, a shutdown's
 *     checkpoint and requeue -- is never dropped: a write refused by a
 *     storage fault is retried with backoff (srv_run_must).  Trace rows wait in
 *     a bounded backlog while the solver goes on; when the backlog is full
 *     the solver pauses until the store takes them.  Only a lost claim
 *     (the job belongs to another run) or the end of a shutdown's grace
 *     period stops the retries; in the second case the job stays
 *     'running' in the store, and the next start resumes it from its last
 *     checkpoint.
 *   - what is superseded anyway -- progress and heartbeats, 'progress'
 *     events, timed crash checkpoints -- is tried once and skipped while
 *     the store has a fault (its failures are still counted and logged).
 * A checkpoint is written only when every row up to its iteration is
 * stored, so a run resumed from it has a trace without a gap.
 */
#ifndef IRCG_SERVER_JOB_RUN_H
#define IRCG_SERVER_JOB_RUN_H

#include "spec.h"
#include "jobs/jobs.h"

#define SRV_RUN_TRACE_BATCH 256     /* rows per append when all is well       */
#define SRV_RUN_TRACE_BACKLOG 16384 /* rows held while the store refuses them */

struct srv_run {
    srv_worker_ctl *ctl;
    store *st;
    const store_job *job;
    store_claim claim;
    ircg_solver *sv;          /* NULL: the solver runs elsewhere (MPI)  */
    api_output_spec out;
    store_trace_row *rows;    /* the backlog: recorded, not yet stored  */
    size_t nrows, caprows;
    int row_fails;            /* appends refused in a row               */
    double next_try;          /* monotonic: no append before (backoff)  */
    int waiting;              /* counted in srv_store_waiting           */
    int gap;                  /* a row was dropped: store no more rows,
                                 checkpoints or outcome                 */
    int64_t iters_unreported; /* for the iterations counter             */
    ircg_iter_info last;      /* latest callback                        */
    int64_t last_recorded;    /* iteration of the latest recorded row   */
    int trace_capped;         /* past --max-trace-rows: logged once       */
    double last_flush, last_event;
    double last_checkpoint;   /* monotonic time of the last saved state */
    /* a solve on the worker (job_run.c): what it made, freed at its end */
    api_spec *spec;
    ircg_reference *ref;      /* "reference": {"compute": true}        */
    double g_opt;             /* the spec's or the reference's          */
    ircg_info info;
    ircg_error err;
    ircg_diag diag;
};

/* The solver's per-iteration callback (job_output.c). */
int srv_run_on_iteration(void *user, const ircg_iter_info *it);

/* A write the job cannot do without: op(c, arg) retried while it fails
 * with a storage fault (see above).  Returns the last outcome. */
typedef store_rc (*srv_run_write_fn)(srv_run *c, const void *arg);
store_rc srv_run_must(srv_run *c, srv_run_write_fn op, const void *arg, const char *what);

/* Appends the latest iteration's row unless it is recorded already. */
void srv_run_record_last(srv_run *c);
/* The latest progress and a heartbeat, tried once. */
void srv_run_report_progress(srv_run *c);
/* Stores the whole backlog (srv_run_must): 0 when it is empty after, -1
 * when not. */
int srv_run_store_rows(srv_run *c);
/* The spec's snapshot at `iteration` (state, x and z) and its event, after
 * every row up to there, all through srv_run_must: made from the solver here
 * (save), or made elsewhere (store: the three blobs, in that order). */
void srv_run_save_snapshot(srv_run *c, int64_t iteration);
void srv_run_store_snapshot(srv_run *c, int64_t iteration, const store_snapshot_blob blobs[3]);
/* The solver state at `iteration` as the job's crash checkpoint: tried
 * once, or through srv_run_must when `must`. */
void srv_run_save_checkpoint(srv_run *c, int64_t iteration, int must);

/* job_run.c: the outcome alone, through srv_run_must (failed: a problem
 * document of slug, title and detail) -- srv_run_finish and srv_run_fail
 * store the rows before it. */
void srv_run_end(srv_run *c, store_state s, const char *result, const char *error);
void srv_run_end_failed(srv_run *c, const char *slug, const char *title, const char *detail);
/* The last row and every row before it stored, then the progress: 0 when
 * they are (an outcome without its trace is never stored); -1 when the
 * claim is lost or the rows could not be stored (the job resumes at the
 * next start, logged). */
int srv_run_store_trace(srv_run *c);

/* Releases what the output holds (the backlog, the waiting count). */
void srv_run_output_free(srv_run *c);

#endif /* IRCG_SERVER_JOB_RUN_H */
