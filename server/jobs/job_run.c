/*
 * job_run.c -- one job on one worker thread: the stored (normalized) spec
 * parsed again with the options used at submission, the resume from the
 * latest checkpoint, the solve (its output: job_output.c), and the end --
 * finished with its result or its reason, or, on a shutdown, a final
 * checkpoint and back to the queue.
 *
 * The writes that end a job go through srv_run_must (job_run.h): a store that
 * refuses them (busy, full, read-only) has them retried with backoff, the
 * result held in memory meanwhile, so a finished job never stays
 * 'running' without a worker.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "job_run.h"
#include "problem.h"
#include "result.h"

void srv_worker_stop(srv_worker_ctl *ctl, int reason)
{
    int old = __atomic_load_n(&ctl->reason, __ATOMIC_ACQUIRE);
    while (old < reason &&
           !__atomic_compare_exchange_n(&ctl->reason, &old, reason, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        ;
    __atomic_store_n(&ctl->cancel, 1, __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------- finishing -- */

static char *problem_json(const char *slug, const char *title, const char *detail,
                          const char *id)
{
    char inst[64];
    snprintf(inst, sizeof inst, "/v1/jobs/%s", id);
    return api_problem_text(api_problem_new(500, slug, title, detail, inst));
}

typedef struct finish_arg {
    store_state state;
    const char *result, *error;
} finish_arg;

static store_rc put_finish(srv_run *c, const void *arg)
{
    const finish_arg *a = arg;
    return store_job_finish(c->st, &c->claim, a->state, a->result, a->error);
}

void srv_run_end(srv_run *c, store_state s, const char *result, const char *error)
{
    finish_arg a = {s, result, error};
    store_rc rc = srv_run_must(c, put_finish, &a, "finish");
    if (rc == STORE_OK) {
        srv_metrics_finished(s);
        srv_log("job %s %s", c->job->id, store_state_name(s));
    } else {
        srv_log("job %s: finish as %s %s: %s", c->job->id, store_state_name(s),
                rc == STORE_STALE ? "refused, the claim is gone" : "failed",
                store_errmsg(c->st));
    }
    srv_metrics_run(srv_now() - c->job->started_at);
    srv_maintain(c->st);
    srv_notify_all();
}

void srv_run_end_failed(srv_run *c, const char *slug, const char *title, const char *detail)
{
    char *err = problem_json(slug, title, detail, c->job->id);
    srv_run_end(c, STORE_FAILED, NULL, err);
    free(err);
}

static char *result_json(srv_run *c)
{
    ircg_iterate *x = NULL, *z = NULL;
    ircg_reference_info ri = {0};
    if (c->ref)
        ircg_reference_get_info(c->ref, &ri);
    ircg_solver_iterate(c->sv, IRCG_X, c->out.dense_iterate, &x);
    ircg_solver_iterate(c->sv, IRCG_Z, c->out.dense_iterate, &z);
    api_result r = {
        .info = &c->info, .error = c->err,
        .error_message = c->err != IRCG_OK ? c->diag.message : NULL,
        .reference = c->ref ? &ri : NULL, .g_opt = c->ref ? ri.g_opt : c->g_opt,
        .x = x, .z = z,
        .settings = ircg_solver_settings(c->sv),
        .auto_why = api_spec_auto_why(c->spec),
    };
    char *text = api_result_json(&r);
    ircg_iterate_free(x);
    ircg_iterate_free(z);
    return text;
}

static store_rc put_requeue(srv_run *c, const void *arg)
{
    (void)arg;
    return store_job_requeue(c->st, &c->claim);
}

/* Shutdown: the rows, a final checkpoint where the solver stopped (only
 * when every row is stored; a solver elsewhere recorded its own), back to
 * the queue. */
void srv_run_requeue(srv_run *c, int64_t iterations)
{
    if (srv_run_store_rows(c) == 0 && iterations > 0) {
        srv_run_report_progress(c);
        if (c->sv)
            srv_run_save_checkpoint(c, iterations, 1);
    }
    if (srv_run_must(c, put_requeue, NULL, "requeue") == STORE_OK)
        srv_log("job %s requeued at iteration %lld (shutdown)", c->job->id,
                (long long)iterations);
    srv_notify_all();
}

int srv_run_store_trace(srv_run *c)
{
    srv_run_record_last(c);
    if (srv_run_is_lost(c) || srv_run_store_rows(c) != 0) {
        if (!srv_run_is_lost(c))
            srv_log("job %s: its trace could not be stored; the job stays running in the "
                    "store and resumes from its last checkpoint at the next start",
                    c->job->id);
        return -1;
    }
    srv_run_report_progress(c); /* the job's progress shows where it ended */
    return 0;
}

void srv_run_finish(srv_run *c, store_state s, const char *result, const char *error)
{
    if (srv_run_store_trace(c) == 0)
        srv_run_end(c, s, result, error);
}

void srv_run_fail(srv_run *c, const char *slug, const char *title, const char *detail)
{
    if (srv_run_store_trace(c) == 0)
        srv_run_end_failed(c, slug, title, detail);
}

/* The solve ended: record the last row, then finish, or requeue on
 * shutdown (after a final checkpoint so nothing is lost). */
static void conclude(srv_run *c)
{
    const ircg_info *info = &c->info;
    ircg_error err = c->err;
    int reason = __atomic_load_n(&c->ctl->reason, __ATOMIC_ACQUIRE);
    if (reason == SRV_STOP_LOST) {
        srv_log("job %s: run %lld abandoned at iteration %lld (another run owns it)",
                c->claim.id, (long long)c->claim.run, (long long)info->iterations);
        return;
    }
    if (reason == SRV_STOP_SHUTDOWN && err == IRCG_OK) {
        srv_run_requeue(c, info->iterations);
        return;
    }
    if (srv_run_store_trace(c) != 0)
        return;
    /* a job that keeps snapshots keeps its last iterate, so that another
     * job can start where it stopped */
    if (err == IRCG_OK && c->out.snapshot_every > 0 && c->last.t > 0 &&
        c->last.t % c->out.snapshot_every != 0)
        srv_run_save_snapshot(c, c->last.t);
    char *res = result_json(c);
    if (err != IRCG_OK) {
        char detail[320];
        snprintf(detail, sizeof detail, "%s at iteration %lld",
                 c->diag.message[0] ? c->diag.message : ircg_error_string(err),
                 (long long)info->iterations);
        char *pj = problem_json("solver-error", ircg_error_string(err), detail,
                                c->job->id);
        srv_run_end(c, STORE_FAILED, res, pj);
        free(pj);
    } else {
        int cancelled = info->status == IRCG_STATUS_CANCELLED || reason == SRV_STOP_USER;
        srv_run_end(c, cancelled ? STORE_CANCELLED : STORE_SUCCEEDED, res, NULL);
    }
    free(res);
}

/* ------------------------------------------------------------ the run -- */

typedef struct resume_arg {
    int64_t *iter;
    void **blob;
    size_t *len;
} resume_arg;

static store_rc get_resume_point(srv_run *c, const void *arg)
{
    const resume_arg *a = arg;
    free(*a->blob);
    *a->blob = NULL;
    return store_job_resume_point(c->st, c->job->id, a->iter, a->blob, a->len);
}

typedef struct warm_arg {
    const api_start_job *sj;
    void **blob;
    size_t *len;
} warm_arg;

static store_rc get_warm_snapshot(srv_run *c, const void *arg)
{
    const warm_arg *a = arg;
    free(*a->blob);
    *a->blob = NULL;
    return store_snapshot_get(c->st, a->sj->job, a->sj->iteration, STORE_SNAP_STATE,
                              a->blob, a->len, NULL);
}

/* No checkpoint of its own: start from another job's snapshot when the
 * spec says so (read through store faults like the job's own checkpoint).
 * 1 when it did, 0 when the spec starts afresh, -1 on failure. */
static int warm_start(srv_run *c, int64_t *iter)
{
    api_start_job sj;
    void *blob = NULL;
    size_t len = 0;
    warm_arg a = {&sj, &blob, &len};
    int rc;
    if (!api_spec_start_job(c->spec, &sj))
        return 0;
    store_rc src = srv_run_must(c, get_warm_snapshot, &a, "read the snapshot to start from");
    if (src != STORE_OK) {
        snprintf(c->diag.message, sizeof c->diag.message,
                 "cannot read the snapshot of job %s at iteration %lld to start from: %s",
                 sj.job, (long long)sj.iteration, store_errmsg(c->st));
        rc = -1;
    } else {
        rc = srv_warm_restore(c->sv, &sj, blob, len, iter, &c->diag) == 0 ? 1 : -1;
    }
    free(blob);
    return rc;
}

static store_rc put_truncate(srv_run *c, const void *arg)
{
    return store_trace_truncate(c->st, &c->claim, *(const int64_t *)arg);
}

int srv_run_truncate(srv_run *c, int64_t iteration)
{
    if (srv_run_must(c, put_truncate, &iteration, "trace truncate") != STORE_OK)
        return -1;
    c->last_recorded = iteration;
    return 0;
}

/* Resume from the latest checkpoint, or start over (from another job's
 * snapshot when the spec says so); the trace keeps the rows up to where
 * the solver continues.  0 on success. */
static int resume(srv_run *c)
{
    int64_t iter = 0;
    void *blob = NULL;
    size_t len = 0;
    int rc = 0, warm = 0;
    resume_arg a = {&iter, &blob, &len};
    store_rc src = srv_run_must(c, get_resume_point, &a, "read the checkpoint");
    if (src == STORE_OK && ircg_solver_restore(c->sv, blob, len, &c->diag) != IRCG_OK) {
        rc = -1;
    } else if (src == STORE_NOTFOUND) {
        iter = 0; /* no checkpoint: start over */
        if ((warm = warm_start(c, &iter)) < 0)
            rc = -1;
    } else if (src != STORE_OK) {
        /* the checkpoint may exist but could not be read: starting over
         * would truncate the trace, so fail and keep everything */
        snprintf(c->diag.message, sizeof c->diag.message,
                 "cannot read the job's checkpoint: %s", store_errmsg(c->st));
        rc = -1;
    }
    if (rc == 0 && srv_run_must(c, put_truncate, &iter, "trace truncate") != STORE_OK)
        rc = -1;
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

/* The build stopped by the job's stop (ircg_stop_set in srv_job_run): a
 * cancel ends the job cancelled, a shutdown puts it back in the queue, a
 * lost claim leaves it, the deadline fails it ("time-limit").  0 when
 * nothing stopped it: its errors are the spec's. */
static int stopped_building(srv_run *c, double deadline)
{
    int reason = __atomic_load_n(&c->ctl->reason, __ATOMIC_ACQUIRE);
    char detail[320];
    if (__atomic_load_n(&c->ctl->cancel, __ATOMIC_ACQUIRE)) {
        if (reason == SRV_STOP_USER)
            srv_run_end(c, STORE_CANCELLED, NULL, NULL);
        else if (reason == SRV_STOP_SHUTDOWN)
            srv_run_requeue(c, 0);
        return 1;
    }
    if (deadline > 0 && ircg_clock() >= deadline) {
        snprintf(detail, sizeof detail, "the job's time limit (algorithm.time_limit, %g s) "
                 "was reached while its data was read or generated or its problem built",
                 c->job->time_limit);
        srv_run_end_failed(c, "time-limit", "Time limit reached", detail);
        return 1;
    }
    return 0;
}

static int parse_spec(srv_run *c, double deadline)
{
    api_parse_options opt;
    api_errors errs;
    /* a NumPy file is read in blocks, between which the job's stop is
     * polled as the library's readers poll it */
    api_stop stop = {(const volatile int *)&c->ctl->cancel, deadline};
    api_errors_init(&errs);
    srv_parse_options(&opt, c->st);
    opt.stop = &stop;
    const char *text = c->job->spec_json ? c->job->spec_json : "";
    int n = api_spec_parse(text, strlen(text), &opt, &c->spec, &errs);
    if (n > 0 && !stopped_building(c, deadline)) {
        char *pj = api_errors_problem_json(&errs, NULL);
        srv_run_end(c, STORE_FAILED, NULL, pj);
        free(pj);
    }
    api_errors_clear(&errs);
    return n == 0 && c->spec;
}

/* The spec's g_opt, or the reference computed when the spec asks for it
 * (c->ref; its error in c->err and c->diag). */
static void reference(srv_run *c)
{
    api_reference_spec rs;
    api_spec_reference(c->spec, &rs);
    c->g_opt = rs.g_opt;
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
        c->err = ircg_reference_compute(api_spec_problem(c->spec), &rs.settings, &c->ref,
                                        &c->diag);
    }
}

/* Parse, build, resume and solve; 0 when the solve ran (conclude next),
 * -1 when the job already ended (failed with its reason) or was lost. */
static int run(srv_run *c, double deadline)
{
    ircg_settings set;
    if (!parse_spec(c, deadline))
        return -1;
    api_spec_output(c->spec, &c->out);
    if (c->out.trace_every < 1)
        c->out.trace_every = 1;
    reference(c);
    api_spec_settings(c->spec, &set);
    if (set.threads > srv_job_threads_cap(&srv.cfg)) /* the result says so */
        set.threads = srv_job_threads_cap(&srv.cfg);
    set.callback = srv_run_on_iteration;
    set.callback_data = c;
    set.cancel = (const volatile int *)&c->ctl->cancel;
    set.reference = c->ref;
    if (c->ref == NULL && isfinite(c->g_opt))
        set.g_opt = c->g_opt;
    if (c->err == IRCG_OK)
        c->err = ircg_solver_new(api_spec_problem(c->spec), &set, &c->sv, &c->diag);
    if (c->err != IRCG_OK) {
        srv_run_end_failed(c, "solver-error", ircg_error_string(c->err), c->diag.message);
        return -1;
    }
    if (resume(c) != 0) {
        if (!srv_run_is_lost(c))
            srv_run_end_failed(c, "resume-failed", "Cannot resume from the checkpoint",
                               c->diag.message[0] ? c->diag.message : store_errmsg(c->st));
        return -1;
    }
    c->err = ircg_solve(c->sv, &c->info);
    return 0;
}

void srv_job_run(srv_worker_ctl *ctl, store *st, const store_job *job)
{
    srv_run c = {.ctl = ctl, .st = st, .job = job, .claim = store_claim_of(job),
                 .last_flush = srv_mono(), .last_checkpoint = srv_mono(),
                 .g_opt = NAN, .err = IRCG_OK};

    /* The job's time limit bounds all of it -- reading or generating the
     * data, building the problem, g_opt, the solve -- and a cancel stops
     * any of them: the library polls this stop (ircg_stop_set) within a
     * block of its work (SPEC.md, "Limits"). */
    double deadline = job->time_limit > 0 ? ircg_clock() + job->time_limit : 0;
    ircg_thread_stop stop = {(const volatile int *)&ctl->cancel, deadline};
    ircg_stop_set(&stop);
    if (run(&c, deadline) == 0)
        conclude(&c);
    ircg_stop_set(NULL);
    srv_run_output_free(&c);
    ircg_solver_free(c.sv);
    ircg_reference_free(c.ref);
    api_spec_free(c.spec);
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
