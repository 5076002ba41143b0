/*
 * job_run.c -- one job on one worker thread.
 *
 * The stored (normalized) spec is parsed again with the options used at
 * submission, the solver runs with a callback that
 *   - buffers trace rows (every trace_every iterations, always the first
 *     and the last) and writes them in batches (256 rows or 0.25 s),
 *   - reports progress + heartbeat, which also tells us about a cancel
 *     requested through another store handle,
 *   - appends at most 4 'progress' events per second for SSE readers,
 *   - every snapshot_every iterations stores a checkpoint ('state') and the
 *     iterates x and z (the spec's snapshots),
 *   - every --checkpoint-every seconds of solving stores the solver state
 *     alone as the job's crash checkpoint, so that a kill -9 loses at most
 *     that much work whatever the spec asked for.
 * The trace is flushed BEFORE either, so after a crash the rows up to the
 * checkpoint's iteration are all there and the resumed run (trace
 * truncated after that iteration) has no gap.
 * A shutdown stops the solver through the same cancel flag; the job then
 * takes a final checkpoint and goes back to the queue.
 *
 * Every write names the worker's claim (job id + run).  Should the store
 * answer STORE_STALE -- the job was requeued or finished behind our back --
 * the worker stops at the next iteration and writes nothing more: the
 * job belongs to another run now.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "problem.h"
#include "result.h"
#include "spec.h"
#include "server.h"

#define TRACE_BATCH 256
#define FLUSH_EVERY_S 0.25
#define EVENT_EVERY_S 0.25

typedef struct run_ctx {
    srv_worker_ctl *ctl;
    store *st;
    const store_job *job;
    store_claim claim;
    ircg_solver *sv;
    api_output_spec out;
    store_trace_row rows[TRACE_BATCH];
    size_t nrows;
    int64_t iters_unreported; /* for the iterations counter          */
    ircg_iter_info last;      /* latest callback                     */
    int64_t last_recorded;    /* iteration of the latest buffered row */
    double last_flush, last_event;
    double last_checkpoint;   /* monotonic time of the last saved state  */
} run_ctx;

void srv_worker_stop(srv_worker_ctl *ctl, int reason)
{
    int old = __atomic_load_n(&ctl->reason, __ATOMIC_ACQUIRE);
    while (old < reason &&
           !__atomic_compare_exchange_n(&ctl->reason, &old, reason, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        ;
    __atomic_store_n(&ctl->cancel, 1, __ATOMIC_RELEASE);
}

static int lost(const run_ctx *c)
{
    return __atomic_load_n(&c->ctl->reason, __ATOMIC_ACQUIRE) == SRV_STOP_LOST;
}

/* Logs a failed write; a stale claim stops the worker for good. */
static void write_failed(run_ctx *c, store_rc rc, const char *what)
{
    if (rc == STORE_STALE && !lost(c)) {
        srv_log("job %s: claim lost (%s), stopping: %s", c->claim.id, what,
                store_errmsg(c->st));
        srv_worker_stop(c->ctl, SRV_STOP_LOST);
    } else if (rc != STORE_STALE) {
        srv_log("job %s: %s failed: %s", c->claim.id, what, store_errmsg(c->st));
    }
}

/* ------------------------------------------------------------ output -- */

static store_trace_row to_row(const ircg_iter_info *it)
{
    store_trace_row r = {
        .iteration = it->t, .elapsed = it->elapsed, .sigma = it->sigma,
        .alpha = it->alpha, .g_x = it->g_x, .f_x = it->f_x, .g_z = it->g_z,
        .f_z = it->f_z, .gap = it->gap, .g_gap_x = it->g_gap_x,
        .g_gap_z = it->g_gap_z, .lmo_seconds = it->lmo_seconds,
        .lmo_matvecs = it->lmo_matvecs, .top_sv = it->top_sv, .rank = it->rank,
        .lmo_converged = it->lmo_converged, .backtracks = it->backtracks,
        .proj_full = it->proj_full, .lambda = it->lambda,
    };
    return r;
}

/* Writes the buffered rows and the progress/heartbeat; picks up a cancel
 * requested through the API. */
static void flush(run_ctx *c)
{
    int cancel_requested = 0;
    store_rc rc = STORE_OK;
    if (lost(c))
        return;
    if (c->nrows > 0 &&
        (rc = store_trace_append(c->st, &c->claim, c->rows, c->nrows)) != STORE_OK)
        write_failed(c, rc, "trace append");
    c->nrows = 0;
    store_progress p = {
        .iteration = c->last.t, .elapsed = c->last.elapsed, .g_x = c->last.g_x,
        .f_x = c->last.f_x, .g_z = c->last.g_z, .f_z = c->last.f_z, .gap = c->last.gap,
    };
    rc = store_job_progress(c->st, &c->claim, c->last.t > 0 ? &p : NULL,
                            &cancel_requested);
    if (rc != STORE_OK)
        write_failed(c, rc, "progress");
    else if (cancel_requested && !__atomic_load_n(&c->ctl->cancel, __ATOMIC_ACQUIRE))
        srv_worker_stop(c->ctl, SRV_STOP_USER);
    srv_metrics_iterations(c->iters_unreported);
    c->iters_unreported = 0;
    c->last_flush = srv_mono();
}

static void progress_event(run_ctx *c)
{
    char json[640], n[9][32];
    const ircg_iter_info *it = &c->last;
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
    if (rc == STORE_OK)
        srv_notify_all();
    else
        write_failed(c, rc, "progress event");
    c->last_event = srv_mono();
}

/* Checkpoint + iterates of the current iteration, in one transaction. */
static int save_snapshot(run_ctx *c, int64_t iteration)
{
    void *blob[3] = {NULL, NULL, NULL};
    size_t len[3] = {0, 0, 0};
    ircg_iterate *it[2] = {NULL, NULL};
    int ok = ircg_solver_save(c->sv, &blob[0], &len[0]) == IRCG_OK;
    for (int k = 0; ok && k < 2; k++)
        ok = ircg_solver_iterate(c->sv, k ? IRCG_Z : IRCG_X, 0, &it[k]) == IRCG_OK &&
             srv_iterate_encode(it[k], &blob[k + 1], &len[k + 1]) == 0;
    store_snapshot_blob b[3] = {{STORE_SNAP_STATE, blob[0], len[0]},
                                {STORE_SNAP_X, blob[1], len[1]},
                                {STORE_SNAP_Z, blob[2], len[2]}};
    store_rc rc = STORE_NOMEM;
    if (ok)
        rc = store_snapshot_put(c->st, &c->claim, iteration, b, 3,
                                srv.cfg.snapshot_keep);
    if (rc != STORE_OK) {
        write_failed(c, rc, "snapshot");
        ok = 0;
    } else {
        c->last_checkpoint = srv_mono(); /* it holds the state too */
    }
    for (int k = 0; k < 3; k++)
        free(blob[k]);
    ircg_iterate_free(it[0]);
    ircg_iterate_free(it[1]);
    return ok;
}

/* The solver state alone, as the job's crash checkpoint. */
static void save_checkpoint(run_ctx *c, int64_t iteration)
{
    void *blob = NULL;
    size_t len = 0;
    store_rc rc = STORE_NOMEM;
    if (ircg_solver_save(c->sv, &blob, &len) == IRCG_OK)
        rc = store_job_checkpoint_put(c->st, &c->claim, iteration, blob, len);
    if (rc != STORE_OK)
        write_failed(c, rc, "checkpoint");
    c->last_checkpoint = srv_mono(); /* a failure is not retried at once */
    free(blob);
}

static void snapshot_event(run_ctx *c, int64_t iteration)
{
    char json[128];
    snprintf(json, sizeof json, "{\"id\":\"%s\",\"iteration\":%lld}", c->job->id,
             (long long)iteration);
    store_rc rc = store_event_append(c->st, &c->claim, STORE_EV_SNAPSHOT, json, NULL);
    if (rc == STORE_OK)
        srv_notify_all();
    else
        write_failed(c, rc, "snapshot event");
}

static int on_iteration(void *user, const ircg_iter_info *it)
{
    run_ctx *c = user;
    if (lost(c))
        return 1; /* write nothing more; the cancel flag is raised too */
    c->last = *it;
    c->iters_unreported++;
    if (it->t == 1 || it->t % c->out.trace_every == 0) {
        /* the trace's cursor: iterations only ever grow */
        assert(it->t > c->last_recorded);
        c->rows[c->nrows++] = to_row(it);
        c->last_recorded = it->t;
    }
    double now = srv_mono();
    if (c->nrows == TRACE_BATCH || now - c->last_flush >= FLUSH_EVERY_S)
        flush(c);
    if (now - c->last_event >= EVENT_EVERY_S)
        progress_event(c);
    if (c->out.snapshot_every > 0 && it->t % c->out.snapshot_every == 0) {
        flush(c); /* rows first: a resume from here must find them all */
        if (save_snapshot(c, it->t))
            snapshot_event(c, it->t);
    }
    if (srv.cfg.checkpoint_every > 0 && now - c->last_checkpoint >= srv.cfg.checkpoint_every) {
        flush(c);
        save_checkpoint(c, it->t);
    }
    return 0;
}

/* ---------------------------------------------------------- finishing -- */

static char *problem_json(const char *slug, const char *title, const char *detail,
                          const char *id)
{
    char inst[64];
    snprintf(inst, sizeof inst, "/v1/jobs/%s", id);
    return api_problem_text(api_problem_new(500, slug, title, detail, inst));
}

static void finish(store *st, const store_job *job, store_state s,
                   const char *result, const char *error)
{
    store_claim claim = store_claim_of(job);
    store_rc rc = store_job_finish(st, &claim, s, result, error);
    if (rc != STORE_OK)
        srv_log("job %s: finish as %s %s: %s", job->id, store_state_name(s),
                rc == STORE_STALE ? "refused, the claim is gone" : "failed",
                store_errmsg(st));
    else
        srv_metrics_finished(s);
    srv_metrics_run(srv_now() - job->started_at);
    srv_log("job %s %s", job->id, store_state_name(s));
    srv_maintain(st);
    srv_notify_all();
}

static void fail(store *st, const store_job *job, const char *slug,
                 const char *title, const char *detail)
{
    char *err = problem_json(slug, title, detail, job->id);
    finish(st, job, STORE_FAILED, NULL, err);
    free(err);
}

static char *result_json(run_ctx *c, const ircg_info *info, ircg_error err,
                         const ircg_diag *diag, const ircg_reference *ref,
                         double g_opt)
{
    ircg_iterate *x = NULL, *z = NULL;
    ircg_reference_info ri;
    if (ref)
        ircg_reference_get_info(ref, &ri);
    ircg_solver_iterate(c->sv, IRCG_X, c->out.dense_iterate, &x);
    ircg_solver_iterate(c->sv, IRCG_Z, c->out.dense_iterate, &z);
    api_result r = {
        .info = info, .error = err,
        .error_message = err != IRCG_OK ? diag->message : NULL,
        .reference = ref ? &ri : NULL, .g_opt = ref ? ri.g_opt : g_opt, .x = x, .z = z,
        .settings = ircg_solver_settings(c->sv),
    };
    char *text = api_result_json(&r);
    ircg_iterate_free(x);
    ircg_iterate_free(z);
    return text;
}

/* The solve ended: record the last row, then finish, or requeue on
 * shutdown (after a final checkpoint so nothing is lost). */
static void conclude(run_ctx *c, const ircg_info *info, ircg_error err,
                     const ircg_diag *diag, const ircg_reference *ref, double g_opt)
{
    int reason = __atomic_load_n(&c->ctl->reason, __ATOMIC_ACQUIRE);
    store_rc rc;
    if (reason == SRV_STOP_LOST) {
        srv_log("job %s: run %lld abandoned at iteration %lld (another run owns it)",
                c->claim.id, (long long)c->claim.run, (long long)info->iterations);
        return;
    }
    if (reason == SRV_STOP_SHUTDOWN && err == IRCG_OK) {
        flush(c);
        if (info->iterations > 0)
            save_checkpoint(c, info->iterations);
        if ((rc = store_job_requeue(c->st, &c->claim)) != STORE_OK)
            write_failed(c, rc, "requeue");
        else
            srv_log("job %s requeued at iteration %lld (shutdown)", c->job->id,
                    (long long)info->iterations);
        srv_notify_all();
        return;
    }
    if (c->last.t > 0 && c->last_recorded != c->last.t)
        c->rows[c->nrows++] = to_row(&c->last); /* the last row, always */
    flush(c);
    /* a job that keeps snapshots keeps its last iterate, so that another
     * job can start where it stopped */
    if (err == IRCG_OK && c->out.snapshot_every > 0 && c->last.t > 0 &&
        c->last.t % c->out.snapshot_every != 0 && save_snapshot(c, c->last.t))
        snapshot_event(c, c->last.t);
    char *res = result_json(c, info, err, diag, ref, g_opt);
    if (err != IRCG_OK) {
        char detail[320];
        snprintf(detail, sizeof detail, "%s at iteration %lld",
                 diag->message[0] ? diag->message : ircg_error_string(err),
                 (long long)info->iterations);
        char *pj = problem_json("solver-error", ircg_error_string(err), detail,
                                c->job->id);
        finish(c->st, c->job, STORE_FAILED, res, pj);
        free(pj);
    } else {
        int cancelled = info->status == IRCG_STATUS_CANCELLED || reason == SRV_STOP_USER;
        finish(c->st, c->job, cancelled ? STORE_CANCELLED : STORE_SUCCEEDED, res, NULL);
    }
    free(res);
}

/* ------------------------------------------------------------ the run -- */

/* Resume from the latest checkpoint, or start over (from another job's
 * snapshot when the spec says so); the trace keeps the rows up to where
 * the solver continues.  0 on success. */
static int resume(run_ctx *c, const api_spec *spec, ircg_diag *diag)
{
    int64_t iter = 0;
    void *blob = NULL;
    size_t len = 0;
    int rc = 0, warm = 0;
    store_rc src = store_job_resume_point(c->st, c->job->id, &iter, &blob, &len);
    if (src == STORE_OK && ircg_solver_restore(c->sv, blob, len, diag) != IRCG_OK) {
        rc = -1;
    } else if (src == STORE_NOTFOUND) {
        iter = 0; /* no checkpoint: start over */
        if ((warm = srv_warm_start(c->st, spec, c->sv, &iter, diag)) < 0)
            rc = -1;
    } else if (src != STORE_OK) {
        /* the checkpoint may exist but could not be read: starting over
         * would truncate the trace, so fail and keep everything */
        snprintf(diag->message, sizeof diag->message,
                 "cannot read the job's checkpoint: %s", store_errmsg(c->st));
        rc = -1;
    }
    if (rc == 0 && (src = store_trace_truncate(c->st, &c->claim, iter)) != STORE_OK) {
        write_failed(c, src, "trace truncate");
        rc = -1;
    }
    if (rc == 0 && iter > 0) {
        /* c->last stays empty until the first new iteration: the job's
         * progress keeps the values of the run that wrote the checkpoint */
        c->last_recorded = iter;
        srv_log("job %s %s at iteration %lld", c->job->id,
                warm ? "continues another job's snapshot" : "resumes from its checkpoint",
                (long long)iter);
    }
    free(blob);
    return rc;
}

static int parse_spec(store *st, const store_job *job, api_spec **spec)
{
    api_parse_options opt;
    api_errors errs;
    api_errors_init(&errs);
    srv_parse_options(&opt, st);
    const char *text = job->spec_json ? job->spec_json : "";
    int n = api_spec_parse(text, strlen(text), &opt, spec, &errs);
    if (n > 0) {
        char *pj = api_errors_problem_json(&errs, NULL);
        finish(st, job, STORE_FAILED, NULL, pj);
        free(pj);
    }
    api_errors_clear(&errs);
    return n == 0 && *spec;
}

static ircg_reference *reference(run_ctx *c, const api_spec *spec, double *g_opt,
                                 ircg_diag *diag, ircg_error *err)
{
    api_reference_spec rs;
    ircg_reference *ref = NULL;
    api_spec_reference(spec, &rs);
    *g_opt = rs.g_opt;
    if (rs.compute) {
        /* No callback in here: the heartbeat ticker keeps the job alive and
         * raises this flag on a cancel, a shutdown or a lost claim.  A
         * stopped reference comes back with status "cancelled"; the solve
         * that follows stops before its first iteration, and the job ends
         * (or is requeued) the usual way, the reference's status in the
         * result saying what happened. */
        rs.settings.cancel = (const volatile int *)&c->ctl->cancel;
        if (rs.settings.threads > srv_job_threads_cap(&srv.cfg))
            rs.settings.threads = srv_job_threads_cap(&srv.cfg);
        *err = ircg_reference_compute(api_spec_problem(spec), &rs.settings, &ref, diag);
    }
    return ref;
}

void srv_job_run(srv_worker_ctl *ctl, store *st, const store_job *job)
{
    run_ctx *c = calloc(1, sizeof *c);
    api_spec *spec = NULL;
    ircg_reference *ref = NULL;
    ircg_diag diag = {0};
    ircg_error err = IRCG_OK;
    ircg_info info = {0};
    ircg_settings set;
    double g_opt = NAN;

    if (!c) {
        fail(st, job, "internal", "Out of memory", "the worker is out of memory");
        goto done;
    }
    *c = (run_ctx){.ctl = ctl, .st = st, .job = job, .claim = store_claim_of(job),
                   .last_flush = srv_mono(), .last_checkpoint = srv_mono()};
    if (!parse_spec(st, job, &spec))
        goto done;
    api_spec_output(spec, &c->out);
    if (c->out.trace_every < 1)
        c->out.trace_every = 1;
    ref = reference(c, spec, &g_opt, &diag, &err);
    api_spec_settings(spec, &set);
    if (set.threads > srv_job_threads_cap(&srv.cfg)) /* the result says so */
        set.threads = srv_job_threads_cap(&srv.cfg);
    set.callback = on_iteration;
    set.callback_data = c;
    set.cancel = (const volatile int *)&ctl->cancel;
    set.reference = ref;
    if (ref == NULL && isfinite(g_opt))
        set.g_opt = g_opt;
    if (err == IRCG_OK)
        err = ircg_solver_new(api_spec_problem(spec), &set, &c->sv, &diag);
    if (err != IRCG_OK) {
        fail(st, job, "solver-error", ircg_error_string(err), diag.message);
        goto done;
    }
    if (resume(c, spec, &diag) != 0) {
        if (!lost(c))
            fail(st, job, "resume-failed", "Cannot resume from the checkpoint",
                 diag.message[0] ? diag.message : store_errmsg(st));
        goto done;
    }
    err = ircg_solve(c->sv, &info);
    conclude(c, &info, err, &diag, ref, g_opt);
done:
    if (c)
        ircg_solver_free(c->sv);
    ircg_reference_free(ref);
    api_spec_free(spec);
    free(c);
}

void srv_maintain(store *st)
{
    store_bounds b = {srv.cfg.snapshot_keep_finished, srv.cfg.retain_finished};
    int64_t deleted = 0;
    if (store_maintain(st, &b, &deleted) != STORE_OK)
        srv_log("storage maintenance failed: %s", store_errmsg(st));
    else if (deleted > 0)
        srv_log("retention: %lld finished jobs deleted", (long long)deleted);
}
