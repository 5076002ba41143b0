/*
 * job_output.c -- what a running job writes, and how it survives a store
 * that refuses writes (the two classes of writes: job_run.h).
 *
 * The solver's callback
 *   - records a trace row every trace_every iterations (always the first
 *     and the last) into the backlog, and stores the backlog in batches
 *     (256 rows or 0.25 s; after a refused append, not before its backoff
 *     has passed);
 *   - reports progress + heartbeat, which also tells it about a cancel
 *     requested through another store handle;
 *   - appends at most 4 'progress' events per second for SSE readers;
 *   - every snapshot_every iterations stores a checkpoint ('state') and
 *     the iterates x and z (the spec's snapshots);
 *   - every --checkpoint-every seconds of solving stores the solver state
 *     alone as the job's crash checkpoint, so that a kill -9 loses at most
 *     that much work whatever the spec asked for.
 * Rows are stored BEFORE either checkpoint, so after a crash the rows up
 * to the checkpoint's iteration are all there and the resumed run (trace
 * truncated after that iteration) has no gap.
 *
 * Every write names the worker's claim (job id + run).  Should the store
 * answer STORE_STALE -- the job was requeued or finished behind our back --
 * the worker stops at the next iteration and writes nothing more.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_run.h"
#include "npz.h"
#include "result.h"

#define FLUSH_EVERY_S 0.25
#define EVENT_EVERY_S 0.25

bool srv_run_is_lost(const srv_run *c)
{
    return __atomic_load_n(&c->ctl->reason, __ATOMIC_ACQUIRE) == SRV_STOP_LOST;
}

static void set_waiting(srv_run *c, int on)
{
    if (on != c->waiting)
        srv_store_waiting(on ? 1 : -1);
    c->waiting = on;
}

/* Reports a write's outcome: storage faults to the store's health (which
 * logs them), a stale claim stops the worker for good, anything else is
 * logged here. */
static void outcome(srv_run *c, store_rc rc, const char *what)
{
    srv_store_note(c->st, rc, what);
    if (rc == STORE_STALE && !srv_run_is_lost(c)) {
        srv_log("job %s: claim lost (%s), stopping: %s", c->claim.id, what,
                store_errmsg(c->st));
        srv_worker_stop(c->ctl, SRV_STOP_LOST);
    } else if (rc != STORE_OK && rc != STORE_STALE && rc != STORE_NOTFOUND &&
               !store_rc_transient(rc)) {
        /* (not found: the caller says what it means -- no checkpoint yet) */
        srv_log("job %s: %s failed: %s", c->claim.id, what, store_errmsg(c->st));
    }
}

store_rc srv_run_must(srv_run *c, srv_run_write_fn op, const void *arg, const char *what)
{
    double give_up = 0;
    store_rc rc;
    for (int attempt = 0;; attempt++) {
        rc = op(c, arg);
        outcome(c, rc, what);
        if (rc == STORE_OK || !store_rc_transient(rc) || srv_run_is_lost(c))
            break;
        set_waiting(c, 1);
        if (srv_is_shutting_down()) {
            if (give_up == 0)
                give_up = srv_mono() + SRV_STORE_SHUTDOWN_GRACE;
            else if (srv_mono() >= give_up)
                break;
        }
        srv_store_pause(srv_store_backoff(attempt));
    }
    if (rc != STORE_OK && store_rc_transient(rc))
        srv_log("job %s: %s still refused at shutdown (%s); the job stays running "
                "in the store and resumes at the next start", c->claim.id, what,
                store_rc_name(rc));
    set_waiting(c, c->row_fails > 0);
    return rc;
}

/* --------------------------------------------------------- the trace -- */


/* One append of the whole backlog; emptied when it went through, and when
 * the store refused it for good (a lost claim: the rows belong to nobody). */
static store_rc append_backlog(srv_run *c, const void *arg)
{
    (void)arg;
    store_rc rc = c->nrows ? store_trace_append(c->st, &c->claim, c->rows, c->nrows)
                           : STORE_OK;
    if (rc == STORE_OK || !store_rc_transient(rc)) {
        c->nrows = 0;
        c->row_fails = 0;
    }
    return rc;
}

int srv_run_store_rows(srv_run *c)
{
    if (c->gap)
        return -1;
    if (c->nrows == 0)
        return 0;
    return srv_run_must(c, append_backlog, NULL, "trace append") == STORE_OK ? 0 : -1;
}

/* One try: 0 when the backlog is stored (or refused for good: nothing to
 * retry), -1 when it waits; after a refusal the next one waits for its
 * backoff. */
static int rows_try(srv_run *c)
{
    store_rc rc;
    if (c->gap)
        return -1;
    if (c->nrows == 0)
        return 0;
    rc = append_backlog(c, NULL);
    outcome(c, rc, "trace append");
    if (rc == STORE_OK || !store_rc_transient(rc)) {
        set_waiting(c, 0);
        return 0;
    }
    c->next_try = srv_mono() + srv_store_backoff(c->row_fails++);
    set_waiting(c, 1);
    return -1;
}

/* Room for one more row: the backlog grows up to SRV_RUN_TRACE_BACKLOG rows;
 * full, the solver waits here until the store takes them.  0, or -1 when
 * the rows cannot be stored (the claim is lost or a shutdown gave up). */
static int make_room(srv_run *c)
{
    if (c->nrows < c->caprows)
        return 0;
    if (c->caprows < SRV_RUN_TRACE_BACKLOG) {
        size_t cap = c->caprows ? 2 * c->caprows : SRV_RUN_TRACE_BATCH;
        void *p = realloc(c->rows, cap * sizeof *c->rows);
        if (p) {
            c->rows = p;
            c->caprows = cap;
            return 0;
        }
    }
    srv_log("job %s: %zu trace rows wait for the store; the solver pauses",
            c->claim.id, c->nrows);
    return srv_run_store_rows(c) == 0 || c->nrows < c->caprows ? 0 : -1;
}

static void record(srv_run *c, const ircg_iter_info *it)
{
    /* the trace's cursor: iterations only ever grow */
    assert(it->t > c->last_recorded);
    if (make_room(c) != 0) {
        /* Claim lost, or a shutdown gave up on the store: this row is not
         * kept, so no row or checkpoint after it may be stored either (a
         * resume from an earlier checkpoint recomputes it). */
        c->gap = 1;
        return;
    }
    c->rows[c->nrows++] = srv_trace_row(it);
    c->last_recorded = it->t;
}

void srv_run_record_last(srv_run *c)
{
    if (c->last.t > 0 && c->last_recorded != c->last.t)
        record(c, &c->last);
}

/* ----------------------------------------------- progress and events -- */

/* The job's progress and heartbeat, which picks up a cancel requested
 * through the API; tried once. */
void srv_run_report_progress(srv_run *c)
{
    int cancel_requested = 0;
    store_progress p = {
        .iteration = c->last.t, .elapsed = c->last.elapsed, .g_x = c->last.g_x,
        .f_x = c->last.f_x, .g_z = c->last.g_z, .f_z = c->last.f_z, .gap = c->last.gap,
    };
    store_rc rc = store_job_progress(c->st, &c->claim, c->last.t > 0 ? &p : NULL,
                                     &cancel_requested);
    outcome(c, rc, "progress");
    if (rc == STORE_OK && cancel_requested &&
        !__atomic_load_n(&c->ctl->cancel, __ATOMIC_ACQUIRE))
        srv_worker_stop(c->ctl, SRV_STOP_USER);
    srv_metrics_iterations(c->iters_unreported);
    c->iters_unreported = 0;
}

/* The backlog, then the progress unless the store refused the rows. */
static void flush(srv_run *c)
{
    if (srv_run_is_lost(c))
        return;
    c->last_flush = srv_mono();
    if (rows_try(c) == 0)
        srv_run_report_progress(c);
}

static void progress_event(srv_run *c)
{
    char json[640], n[9][32];
    const ircg_iter_info *it = &c->last;
    c->last_event = srv_mono();
    if (c->row_fails > 0)
        return; /* superseded by the next one anyway */
    /* what the dashboard plots live: the objectives, the gaps, the step */
    snprintf(json, sizeof json,
             "{\"id\":\"%s\",\"iteration\":%lld,\"elapsed\":%s,\"g_x\":%s,\"f_x\":%s,"
             "\"g_z\":%s,\"f_z\":%s,\"gap\":%s,\"g_gap_x\":%s,\"sigma\":%s,\"alpha\":%s}",
             c->job->id, (long long)it->t, api_fmt_double(n[0], it->elapsed),
             api_fmt_double(n[1], it->g_x), api_fmt_double(n[2], it->f_x),
             api_fmt_double(n[3], it->g_z), api_fmt_double(n[4], it->f_z),
             api_fmt_double(n[5], it->gap), api_fmt_double(n[6], it->g_gap_x),
             api_fmt_double(n[7], it->sigma), api_fmt_double(n[8], it->alpha));
    store_rc rc = store_event_append(c->st, &c->claim, STORE_EV_PROGRESS, json, NULL);
    outcome(c, rc, "progress event");
    if (rc == STORE_OK)
        srv_notify_all();
}

/* ------------------------------------------------------- checkpoints -- */

/* What a snapshot or a checkpoint writes: blobs of one iteration. */
typedef struct put_arg {
    int64_t iteration;
    const store_snapshot_blob *blobs;
    size_t n;
} put_arg;

static store_rc put_snapshot(srv_run *c, const void *arg)
{
    const put_arg *a = arg;
    return store_snapshot_put(c->st, &c->claim, a->iteration, a->blobs, a->n,
                              srv.cfg.snapshot_keep);
}

static store_rc put_snapshot_event(srv_run *c, const void *arg)
{
    char json[128];
    snprintf(json, sizeof json, "{\"id\":\"%s\",\"iteration\":%lld}", c->job->id,
             (long long)*(const int64_t *)arg);
    return store_event_append(c->st, &c->claim, STORE_EV_SNAPSHOT, json, NULL);
}

void srv_run_store_snapshot(srv_run *c, int64_t iteration, const store_snapshot_blob blobs[3])
{
    put_arg a = {iteration, blobs, 3};
    if (srv_run_store_rows(c) == 0 && srv_run_must(c, put_snapshot, &a, "snapshot") == STORE_OK) {
        c->last_checkpoint = srv_mono(); /* it holds the state too */
        if (srv_run_must(c, put_snapshot_event, &iteration, "snapshot event") == STORE_OK)
            srv_notify_all();
    }
}

/* Checkpoint + iterates of the current iteration. */
void srv_run_save_snapshot(srv_run *c, int64_t iteration)
{
    void *blob[3] = {NULL, NULL, NULL};
    size_t len[3] = {0, 0, 0};
    ircg_iterate *it[2] = {NULL, NULL};
    int ok = ircg_solver_save(c->sv, &blob[0], &len[0]) == IRCG_OK;
    for (int k = 0; ok && k < 2; k++)
        ok = ircg_solver_iterate(c->sv, k ? IRCG_Z : IRCG_X, 0, &it[k]) == IRCG_OK &&
             api_iterate_npz(it[k], &blob[k + 1], &len[k + 1]) == 0;
    store_snapshot_blob b[3] = {{STORE_SNAP_STATE, blob[0], len[0]},
                                {STORE_SNAP_X, blob[1], len[1]},
                                {STORE_SNAP_Z, blob[2], len[2]}};
    if (!ok)
        srv_log("job %s: snapshot at iteration %lld skipped: out of memory",
                c->claim.id, (long long)iteration);
    else
        srv_run_store_snapshot(c, iteration, b);
    for (int k = 0; k < 3; k++)
        free(blob[k]);
    ircg_iterate_free(it[0]);
    ircg_iterate_free(it[1]);
}

static store_rc put_checkpoint(srv_run *c, const void *arg)
{
    const put_arg *a = arg;
    return store_job_checkpoint_put(c->st, &c->claim, a->iteration, a->blobs[0].data,
                                    a->blobs[0].len);
}

void srv_run_save_checkpoint(srv_run *c, int64_t iteration, int must)
{
    store_snapshot_blob b = {STORE_SNAP_STATE, NULL, 0};
    put_arg a = {iteration, &b, 1};
    void *blob = NULL;
    c->last_checkpoint = srv_mono(); /* a failure is not retried at once */
    if (c->gap)
        return;
    if (ircg_solver_save(c->sv, &blob, &b.len) != IRCG_OK) {
        srv_log("job %s: checkpoint skipped: out of memory", c->claim.id);
        return;
    }
    b.data = blob;
    if (must)
        srv_run_must(c, put_checkpoint, &a, "checkpoint");
    else
        outcome(c, put_checkpoint(c, &a), "checkpoint");
    free(blob);
}

/* ------------------------------------------------------ the callback -- */

int srv_run_on_iteration(void *user, const ircg_iter_info *it)
{
    srv_run *c = user;
    if (srv_run_is_lost(c))
        return 1; /* write nothing more; the cancel flag is raised too */
    c->last = *it;
    c->iters_unreported++;
    /* A trace keeps its rows up to iteration --max-trace-rows x
     * trace_every, then only its last (at the end): a job of 10^9
     * iterations traced at each would fill the store's disk at ~15 bytes a
     * row.  Counted by iteration, so a resumed run keeps the same rows. */
    int keep = it->t / c->out.trace_every <= srv.cfg.max_trace_rows;
    if ((it->t == 1 || it->t % c->out.trace_every == 0) && keep)
        record(c, it);
    else if (!keep && !c->trace_capped) {
        c->trace_capped = 1;
        srv_log("job %s: its trace reached --max-trace-rows (%lld rows); only its last row "
                "is added from now on", c->claim.id, (long long)srv.cfg.max_trace_rows);
    }
    double now = srv_mono();
    int due = c->nrows >= SRV_RUN_TRACE_BATCH || now - c->last_flush >= FLUSH_EVERY_S;
    if (due && now >= c->next_try)
        flush(c);
    if (now - c->last_event >= EVENT_EVERY_S)
        progress_event(c);
    if (!c->sv) /* the solver runs elsewhere: it reports its own checkpoints */
        return 0;
    if (c->out.snapshot_every > 0 && it->t % c->out.snapshot_every == 0)
        srv_run_save_snapshot(c, it->t);
    /* timed: only once every row up to here is stored */
    if (srv.cfg.checkpoint_every > 0 && now - c->last_checkpoint >= srv.cfg.checkpoint_every &&
        now >= c->next_try && rows_try(c) == 0)
        srv_run_save_checkpoint(c, it->t, 0);
    return 0;
}

void srv_run_output_free(srv_run *c)
{
    set_waiting(c, 0);
    free(c->rows);
    c->rows = NULL;
    c->nrows = c->caprows = 0;
}
