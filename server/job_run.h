/*
 * job_run.h -- one job on one worker (internal to job_run.c and
 * job_output.c, and job_remote.c for a solver in other processes): the
 * run's context, and how its output reaches the store.
 *
 * What the solver produces is written in two classes:
 *   - what the job cannot do without -- its trace rows, the snapshots its
 *     spec asks for (with their events), its outcome, a shutdown's
 *     checkpoint and requeue -- is never dropped: a write refused by a
 *     storage fault is retried with backoff (jr_must).  Trace rows wait in
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
#include "server.h"

#define JR_TRACE_BATCH 256     /* rows per append when all is well       */
#define JR_TRACE_BACKLOG 16384 /* rows held while the store refuses them */

typedef struct run_ctx {
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
} run_ctx;

/* The solver's per-iteration callback (job_output.c). */
int jr_on_iteration(void *user, const ircg_iter_info *it);

/* 1 once the store said another run owns the job. */
int jr_lost(const run_ctx *c);

/* A write the job cannot do without: op(c, arg) retried while it fails
 * with a storage fault (see above).  Returns the last outcome. */
typedef store_rc (*jr_write_fn)(run_ctx *c, const void *arg);
store_rc jr_must(run_ctx *c, jr_write_fn op, const void *arg, const char *what);

/* Appends the latest iteration's row unless it is recorded already. */
void jr_record_last(run_ctx *c);
/* The latest progress and a heartbeat, tried once. */
void jr_report_progress(run_ctx *c);
/* Stores the whole backlog (jr_must); 1 when it is empty after. */
int jr_rows_must(run_ctx *c);
/* The spec's snapshot at `iteration` (state, x and z) and its event, after
 * every row up to there, all through jr_must: made from the solver here
 * (save), or made elsewhere (store: the three blobs, in that order). */
void jr_save_snapshot(run_ctx *c, int64_t iteration);
void jr_store_snapshot(run_ctx *c, int64_t iteration, const store_snapshot_blob blobs[3]);
/* The solver state at `iteration` as the job's crash checkpoint: tried
 * once, or through jr_must when `must`. */
void jr_save_checkpoint(run_ctx *c, int64_t iteration, int must);

/* job_run.c: the end of a run -- its outcome through jr_must (fail: a
 * problem document of slug, title and detail), or back to the queue at a
 * shutdown (after the rows and, with a solver here, a final checkpoint);
 * and the trace cut back to where a resumed run goes on (0: none). */
void jr_finish(run_ctx *c, store_state s, const char *result, const char *error);
void jr_fail(run_ctx *c, const char *slug, const char *title, const char *detail);
void jr_requeue(run_ctx *c, int64_t iterations);
int jr_truncate(run_ctx *c, int64_t iteration);

/* Releases what the output holds (the backlog, the waiting count). */
void jr_output_free(run_ctx *c);

#endif /* IRCG_SERVER_JOB_RUN_H */
