/*
 * heartbeat.c -- job heartbeats on a timer.
 *
 * A job's heartbeat_at used to be written from the solver's per-iteration
 * callback only, but the reference computation (reference.compute) and
 * CG-BiO's warm start call no callback, for minutes on large problems:
 * the job looked dead and /readyz failed.  One ticker thread, with its own
 * store handle, now beats for every busy worker every `every` seconds.
 * Each beat names the worker's claim, so it also tells the worker what the
 * store knows: a cancel requested through any connection (the solver and
 * the reference computation both poll the flag), or a claim that another
 * run has taken over (the worker stops).
 *
 * /readyz reads the age of the last complete round: a store that cannot
 * be written for long, or a wedged ticker, makes the daemon unready; a long
 * silent phase of a solver does not.
 *
 * The ticker is also the watchdog of the rule "a job never shows running
 * without a live worker": this daemon owns its store (dblock.c), so a job
 * 'running' in the store whose claim none of its workers holds, with a
 * heartbeat older than SRV_ORPHAN_AFTER, has lost its worker.  It is
 * released as a crash would have released it: back to the queue to resume
 * from its checkpoint (the lost run counts as an attempt), or failed with
 * the reason once out of attempts.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "problem.h"
#include "jobs/jobs.h"

#define MAX_CLAIMS 256 /* = the largest --workers */

static pthread_mutex_t hb_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hb_cv; /* monotonic: see cv_ready() */
static pthread_once_t hb_cv_once = PTHREAD_ONCE_INIT;

static void hb_cv_init(void) { srv_cond_init_monotonic(&hb_cv); }

/* hb_cv is usable (initialized once, on first use from any thread). */
static void cv_ready(void) { pthread_once(&hb_cv_once, hb_cv_init); }
static pthread_t hb_thread;
static int hb_started;
static int hb_stopping;     /* under hb_mu */
static double hb_every;
static int64_t hb_round_ms; /* atomic: monotonic ms of the last full round */

static void round_done(void)
{
    __atomic_store_n(&hb_round_ms, (int64_t)(srv_mono() * 1000.0), __ATOMIC_RELEASE);
}

/* One heartbeat per busy worker: 0 when every write went through, else -1. */
static int beat_all(store *st, store_claim *claims)
{
    int n = srv_workers_claims(claims, MAX_CLAIMS), ok = 1;
    for (int i = 0; i < n; i++) {
        int cancel = 0;
        store_rc rc = store_job_progress(st, &claims[i], NULL, &cancel);
        srv_store_note(st, rc, "heartbeat");
        if (rc == STORE_OK && cancel) {
            srv_workers_stop_claim(&claims[i], SRV_STOP_USER);
        } else if (rc == STORE_STALE || rc == STORE_NOTFOUND) {
            /* Also the benign race with a worker that has just finished or
             * requeued its job: it writes nothing more anyway. */
            if (srv_workers_stop_claim(&claims[i], SRV_STOP_LOST) == 0)
                srv_log("job %s: heartbeat refused, its worker stops: %s", claims[i].id,
                        store_errmsg(st));
        } else if (rc != STORE_OK) {
            if (!store_rc_transient(rc)) /* faults: logged by the note */
                srv_log("job %s: heartbeat failed: %s", claims[i].id, store_errmsg(st));
            ok = 0;
        }
    }
    return ok ? 0 : -1;
}

static bool is_held(const store_claim *c, const store_claim *mine, int n)
{
    for (int i = 0; i < n; i++)
        if (mine[i].run == c->run && !strcmp(mine[i].id, c->id))
            return true;
    return false;
}

static void release(store *st, const store_claim *c, const char *why)
{
    store_state now = STORE_RUNNING;
    store_rc rc = store_job_release(st, c, srv.cfg.max_attempts, why, &now);
    srv_store_note(st, rc, "release");
    if (rc == STORE_OK) {
        srv_log("job %s: run %lld had no live worker (no heartbeat for %.0f s): %s",
                c->id, (long long)c->run, SRV_ORPHAN_AFTER(hb_every), store_state_name(now));
        if (store_state_terminal(now))
            srv_metrics_finished(now);
        srv_workers_wake();
        srv_notify_all();
    } else if (rc != STORE_STALE) {
        srv_log("job %s: release failed: %s", c->id, store_errmsg(st));
    }
}

/* Jobs running in the store without a worker of ours; after the beats, so
 * that our own jobs are fresh.  The claims are read before the store is:
 * a job claimed meanwhile has a fresh heartbeat. */
static void release_orphans(store *st, store_claim *mine, store_claim *stale)
{
    size_t n = 0;
    int nmine = srv_workers_claims(mine, MAX_CLAIMS);
    double before = srv_now() - SRV_ORPHAN_AFTER(hb_every);
    store_rc rc = store_job_stale(st, before, stale, MAX_CLAIMS, &n);
    if (rc != STORE_OK || n == 0)
        return;
    char *why = api_problem_text(api_problem_new(
        500, "worker-lost", "Job lost its worker",
        "the job's worker stopped reporting and the job has no attempts left", NULL));
    for (size_t i = 0; why && i < n; i++)
        if (!is_held(&stale[i], mine, nmine))
            release(st, &stale[i], why);
    free(why);
}

/* Sleeps until the next round is due; 0 when told to stop. */
static bool wait_round(void)
{
    struct timespec dl;
    cv_ready();
    srv_deadline(&dl, hb_every);
    pthread_mutex_lock(&hb_mu);
    int rc = 0;
    while (!hb_stopping && rc == 0)
        rc = pthread_cond_timedwait(&hb_cv, &hb_mu, &dl);
    bool go_on = !hb_stopping;
    pthread_mutex_unlock(&hb_mu);
    return go_on;
}

static void *ticker(void *arg)
{
    store *st = NULL;
    store_claim *claims = calloc(2 * MAX_CLAIMS, sizeof *claims);
    char err[STORE_ERRMAX] = "out of memory";
    (void)arg;
    if (!claims || !(st = srv_store_open(err))) {
        srv_log("heartbeat: cannot start: %s", err);
        goto done;
    }
    while (wait_round()) {
        if (beat_all(st, claims) == 0)
            round_done();
        release_orphans(st, claims, claims + MAX_CLAIMS);
    }
done:
    store_close(st);
    free(claims);
    return NULL;
}

int srv_heartbeat_start(double every_s)
{
    hb_every = every_s;
    hb_stopping = 0;
    round_done(); /* the clock starts now, not at the first round */
    hb_started = pthread_create(&hb_thread, NULL, ticker, NULL) == 0;
    return hb_started ? 0 : -1;
}

void srv_heartbeat_stop(void)
{
    pthread_mutex_lock(&hb_mu);
    hb_stopping = 1;
    cv_ready();
    pthread_cond_broadcast(&hb_cv);
    pthread_mutex_unlock(&hb_mu);
    if (hb_started)
        pthread_join(hb_thread, NULL);
    hb_started = 0;
}

double srv_heartbeat_age(void)
{
    int64_t last = __atomic_load_n(&hb_round_ms, __ATOMIC_ACQUIRE);
    return srv_mono() - (double)last / 1000.0;
}
