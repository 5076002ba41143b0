/*
 * job_run.c -- one job on one worker thread: the stored (normalized) spec
 * parsed again with the options used at submission, the resume from the
 * latest checkpoint, the solve (its output: job_output.c), and the end --
 * finished with its result or its reason, or, on a shutdown, a final
 * checkpoint and back to the queue.
 *
 * The writes that end a job go through jr_must (job_run.h): a store that
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

static store_rc put_finish(run_ctx *c, const void *arg)
{
    const finish_arg *a = arg;
    return store_job_finish(c->st, &c->claim, a->state, a->result, a->error);
}

void jr_finish(run_ctx *c, store_state s, const char *result, const char *error)
{
    finish_arg a = {s, result, error};
    store_rc rc = jr_must(c, put_finish, &a, "finish");
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

void jr_fail(run_ctx *c, const char *slug, const char *title, const char *detail)
{
    char *err = problem_json(slug, title, detail, c->job->id);
    jr_finish(c, STORE_FAILED, NULL, err);
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

static store_rc put_requeue(run_ctx *c, const void *arg)
{
    (void)arg;
    return store_job_requeue(c->st, &c->claim);
}

/* Shutdown: the rows, a final checkpoint where the solver stopped (only
 * when every row is stored; a solver elsewhere recorded its own), back to
 * the queue. */
void jr_requeue(run_ctx *c, int64_t iterations)
{
    if (jr_rows_must(c) && iterations > 0) {
        jr_report_progress(c);
        if (c->sv)
            jr_save_checkpoint(c, iterations, 1);
    }
    if (jr_must(c, put_requeue, NULL, "requeue") == STORE_OK)
        srv_log("job %s requeued at iteration %lld (shutdown)", c->job->id,
                (long long)iterations);
    srv_notify_all();
}

/* The solve ended: record the last row, then finish, or requeue on
 * shutdown (after a final checkpoint so nothing is lost). */
static void conclude(run_ctx *c, const ircg_info *info, ircg_error err,
                     const ircg_diag *diag, const ircg_reference *ref, double g_opt)
{
    int reason = __atomic_load_n(&c->ctl->reason, __ATOMIC_ACQUIRE);
    if (reason == SRV_STOP_LOST) {
        srv_log("job %s: run %lld abandoned at iteration %lld (another run owns it)",
                c->claim.id, (long long)c->claim.run, (long long)info->iterations);
        return;
    }
    if (reason == SRV_STOP_SHUTDOWN && err == IRCG_OK) {
        jr_requeue(c, info->iterations);
        return;
    }
    jr_record_last(c);
    if (!jr_rows_must(c)) {
        /* rows, then the outcome: a result without its trace is never stored */
        srv_log("job %s: its trace could not be stored; the job stays running in the "
                "store and resumes from its last checkpoint at the next start", c->job->id);
        return;
    }
    jr_report_progress(c); /* the job's progress shows where it ended */
    /* a job that keeps snapshots keeps its last iterate, so that another
     * job can start where it stopped */
    if (err == IRCG_OK && c->out.snapshot_every > 0 && c->last.t > 0 &&
        c->last.t % c->out.snapshot_every != 0)
        jr_save_snapshot(c, c->last.t);
    char *res = result_json(c, info, err, diag, ref, g_opt);
    if (err != IRCG_OK) {
        char detail[320];
        snprintf(detail, sizeof detail, "%s at iteration %lld",
                 diag->message[0] ? diag->message : ircg_error_string(err),
                 (long long)info->iterations);
        char *pj = problem_json("solver-error", ircg_error_string(err), detail,
                                c->job->id);
        jr_finish(c, STORE_FAILED, res, pj);
        free(pj);
    } else {
        int cancelled = info->status == IRCG_STATUS_CANCELLED || reason == SRV_STOP_USER;
        jr_finish(c, cancelled ? STORE_CANCELLED : STORE_SUCCEEDED, res, NULL);
    }
    free(res);
}

/* ------------------------------------------------------------ the run -- */

typedef struct resume_arg {
    int64_t *iter;
    void **blob;
    size_t *len;
} resume_arg;

static store_rc get_resume_point(run_ctx *c, const void *arg)
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

static store_rc get_warm_snapshot(run_ctx *c, const void *arg)
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
static int warm_start(run_ctx *c, const api_spec *spec, int64_t *iter, ircg_diag *diag)
{
    api_start_job sj;
    void *blob = NULL;
    size_t len = 0;
    warm_arg a = {&sj, &blob, &len};
    int rc;
    if (!api_spec_start_job(spec, &sj))
        return 0;
    store_rc src = jr_must(c, get_warm_snapshot, &a, "read the snapshot to start from");
    if (src != STORE_OK) {
        snprintf(diag->message, sizeof diag->message,
                 "cannot read the snapshot of job %s at iteration %lld to start from: %s",
                 sj.job, (long long)sj.iteration, store_errmsg(c->st));
        rc = -1;
    } else {
        rc = srv_warm_restore(c->sv, &sj, blob, len, iter, diag);
    }
    free(blob);
    return rc;
}

static store_rc put_truncate(run_ctx *c, const void *arg)
{
    return store_trace_truncate(c->st, &c->claim, *(const int64_t *)arg);
}

int jr_truncate(run_ctx *c, int64_t iteration)
{
    if (jr_must(c, put_truncate, &iteration, "trace truncate") != STORE_OK)
        return -1;
    c->last_recorded = iteration;
    return 0;
}

/* Resume from the latest checkpoint, or start over (from another job's
 * snapshot when the spec says so); the trace keeps the rows up to where
 * the solver continues.  0 on success. */
static int resume(run_ctx *c, const api_spec *spec, ircg_diag *diag)
{
    int64_t iter = 0;
    void *blob = NULL;
    size_t len = 0;
    int rc = 0, warm = 0;
    resume_arg a = {&iter, &blob, &len};
    store_rc src = jr_must(c, get_resume_point, &a, "read the checkpoint");
    if (src == STORE_OK && ircg_solver_restore(c->sv, blob, len, diag) != IRCG_OK) {
        rc = -1;
    } else if (src == STORE_NOTFOUND) {
        iter = 0; /* no checkpoint: start over */
        if ((warm = warm_start(c, spec, &iter, diag)) < 0)
            rc = -1;
    } else if (src != STORE_OK) {
        /* the checkpoint may exist but could not be read: starting over
         * would truncate the trace, so fail and keep everything */
        snprintf(diag->message, sizeof diag->message,
                 "cannot read the job's checkpoint: %s", store_errmsg(c->st));
        rc = -1;
    }
    if (rc == 0 && jr_must(c, put_truncate, &iter, "trace truncate") != STORE_OK)
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
static int stopped_building(run_ctx *c, double deadline)
{
    int reason = __atomic_load_n(&c->ctl->reason, __ATOMIC_ACQUIRE);
    char detail[320];
    if (__atomic_load_n(&c->ctl->cancel, __ATOMIC_ACQUIRE)) {
        if (reason == SRV_STOP_USER)
            jr_finish(c, STORE_CANCELLED, NULL, NULL);
        else if (reason == SRV_STOP_SHUTDOWN)
            jr_requeue(c, 0);
        return 1;
    }
    if (deadline > 0 && ircg_clock() >= deadline) {
        snprintf(detail, sizeof detail, "the job's time limit (algorithm.time_limit, %g s) "
                 "was reached while its data was read or generated or its problem built",
                 c->job->time_limit);
        jr_fail(c, "time-limit", "Time limit reached", detail);
        return 1;
    }
    return 0;
}

static int parse_spec(run_ctx *c, api_spec **spec, double deadline)
{
    api_parse_options opt;
    api_errors errs;
    api_errors_init(&errs);
    srv_parse_options(&opt, c->st);
    const char *text = c->job->spec_json ? c->job->spec_json : "";
    int n = api_spec_parse(text, strlen(text), &opt, spec, &errs);
    if (n > 0 && !stopped_building(c, deadline)) {
        char *pj = api_errors_problem_json(&errs, NULL);
        jr_finish(c, STORE_FAILED, NULL, pj);
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

/* Parse, build, resume and solve; 0 when the solve ran (conclude next),
 * -1 when the job already ended (failed with its reason) or was lost. */
static int run(run_ctx *c, api_spec **spec, ircg_reference **ref, double *g_opt,
               ircg_info *info, ircg_error *err, ircg_diag *diag, double deadline)
{
    ircg_settings set;
    if (!parse_spec(c, spec, deadline))
        return -1;
    api_spec_output(*spec, &c->out);
    if (c->out.trace_every < 1)
        c->out.trace_every = 1;
    *ref = reference(c, *spec, g_opt, diag, err);
    api_spec_settings(*spec, &set);
    if (set.threads > srv_job_threads_cap(&srv.cfg)) /* the result says so */
        set.threads = srv_job_threads_cap(&srv.cfg);
    set.callback = jr_on_iteration;
    set.callback_data = c;
    set.cancel = (const volatile int *)&c->ctl->cancel;
    set.reference = *ref;
    if (*ref == NULL && isfinite(*g_opt))
        set.g_opt = *g_opt;
    if (*err == IRCG_OK)
        *err = ircg_solver_new(api_spec_problem(*spec), &set, &c->sv, diag);
    if (*err != IRCG_OK) {
        jr_fail(c, "solver-error", ircg_error_string(*err), diag->message);
        return -1;
    }
    if (resume(c, *spec, diag) != 0) {
        if (!jr_lost(c))
            jr_fail(c, "resume-failed", "Cannot resume from the checkpoint",
                 diag->message[0] ? diag->message : store_errmsg(c->st));
        return -1;
    }
    *err = ircg_solve(c->sv, info);
    return 0;
}

void srv_job_run(srv_worker_ctl *ctl, store *st, const store_job *job)
{
    run_ctx c = {.ctl = ctl, .st = st, .job = job, .claim = store_claim_of(job),
                 .last_flush = srv_mono(), .last_checkpoint = srv_mono()};
    api_spec *spec = NULL;
    ircg_reference *ref = NULL;
    ircg_diag diag = {0};
    ircg_error err = IRCG_OK;
    ircg_info info = {0};
    double g_opt = NAN;

    if (srv_mpi_ranks(job) > 0) { /* its ranks load the data, not this process */
        srv_mpi_job_run(ctl, st, job);
        return;
    }
    /* The job's time limit bounds all of it -- reading or generating the
     * data, building the problem, g_opt, the solve -- and a cancel stops
     * any of them: the library polls this stop (ircg_stop_set) within a
     * block of its work (SPEC.md, "Limits"). */
    double deadline = job->time_limit > 0 ? ircg_clock() + job->time_limit : 0;
    ircg_thread_stop stop = {(const volatile int *)&ctl->cancel, deadline};
    ircg_stop_set(&stop);
    if (run(&c, &spec, &ref, &g_opt, &info, &err, &diag, deadline) == 0)
        conclude(&c, &info, err, &diag, ref, g_opt);
    ircg_stop_set(NULL);
    jr_output_free(&c);
    ircg_solver_free(c.sv);
    ircg_reference_free(ref);
    api_spec_free(spec);
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
