/*
 * workers.c -- the fixed pool of solver threads.
 *
 * Each worker owns a store handle and claims queued jobs in submission
 * order.  Idle workers sleep on a condition variable that submissions
 * signal (with a 1 s timeout as a safety net, e.g. for jobs queued by a
 * cancel-free requeue).  The control block of each worker is what the HTTP
 * side uses to cancel a running job at once, and what the heartbeat ticker
 * uses to stop a worker whose claim the store no longer honours.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobs/jobs.h"

typedef struct worker {
    pthread_t th;
    int started;
    int index;
    int busy;                          /* under w_mu */
    store_claim claim;                 /* under w_mu: the job it runs */
    srv_worker_ctl ctl;
} worker;

static pthread_mutex_t w_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t w_cv; /* monotonic: see cv_ready() */
static pthread_once_t w_cv_once = PTHREAD_ONCE_INIT;

static void w_cv_init(void) { srv_cond_init_monotonic(&w_cv); }

/* w_cv is usable (initialized once, on first use from any thread). */
static void cv_ready(void) { pthread_once(&w_cv_once, w_cv_init); }
static worker *pool;
static int n_pool;
static srv_job_runner runner; /* set before the threads start */
static int stopping;     /* under w_mu */
static uint64_t wake_gen; /* under w_mu */

/* Sleeps until woken or 1 s passed. */
static void idle_wait(uint64_t seen)
{
    struct timespec dl;
    cv_ready();
    srv_deadline(&dl, 1.0);
    pthread_mutex_lock(&w_mu);
    int rc = 0;
    while (!stopping && wake_gen == seen && rc == 0)
        rc = pthread_cond_timedwait(&w_cv, &w_mu, &dl);
    pthread_mutex_unlock(&w_mu);
}

/* Marks the worker busy with `job` (NULL: idle); a shutdown that began
 * meanwhile stops the job at once (it will be requeued). */
static void set_busy(worker *w, const store_job *job)
{
    pthread_mutex_lock(&w_mu);
    w->busy = job != NULL;
    memset(&w->ctl, 0, sizeof w->ctl);
    memset(&w->claim, 0, sizeof w->claim);
    if (job)
        w->claim = store_claim_of(job);
    if (job && stopping)
        srv_worker_stop(&w->ctl, SRV_STOP_SHUTDOWN);
    pthread_mutex_unlock(&w_mu);
}

static bool is_stopping(uint64_t *gen)
{
    pthread_mutex_lock(&w_mu);
    int s = stopping;
    *gen = wake_gen;
    pthread_mutex_unlock(&w_mu);
    return s;
}

static void run_one(worker *w, store *st, store_job *job)
{
    set_busy(w, job);
    srv_notify_all(); /* the claim appended a 'state' event */
    if (job->run <= 1) /* the wait from submission to the first start */
        srv_metrics_queue_wait(job->started_at - job->created_at);
    srv_log("worker %d: job %s started (run %lld, attempt %d)", w->index, job->id,
            (long long)job->run, job->attempt);
    runner(&w->ctl, st, job);
    set_busy(w, NULL);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    store *st = NULL;
    char err[STORE_ERRMAX];
    uint64_t gen = 0;
    if (!(st = srv_store_open(err))) {
        srv_log("worker %d: cannot open the store: %s", w->index, err);
        return NULL;
    }
    while (!is_stopping(&gen)) {
        store_job job = {0};
        store_rc rc = store_job_claim_next(st, &job);
        if (rc == STORE_OK || store_rc_transient(rc))
            srv_store_note(st, rc, "claim"); /* faults: logged there, once */
        if (rc == STORE_OK)
            run_one(w, st, &job);
        else if (rc != STORE_NOTFOUND && !store_rc_transient(rc))
            srv_log("worker %d: claim failed: %s", w->index, store_errmsg(st));
        store_job_clear(&job);
        if (rc != STORE_OK)
            idle_wait(gen);
    }
    store_close(st);
    return NULL;
}

int srv_workers_start(int n, srv_job_runner run)
{
    runner = run;
    pool = calloc((size_t)n, sizeof *pool);
    if (!pool)
        return -1;
    n_pool = n;
    for (int i = 0; i < n; i++) {
        pool[i].index = i;
        if (pthread_create(&pool[i].th, NULL, worker_main, &pool[i]) != 0) {
            srv_log("cannot start worker %d", i);
            return -1;
        }
        pool[i].started = 1;
    }
    return 0;
}

void srv_workers_stop(void)
{
    pthread_mutex_lock(&w_mu);
    stopping = 1;
    for (int i = 0; i < n_pool; i++)
        if (pool[i].busy)
            srv_worker_stop(&pool[i].ctl, SRV_STOP_SHUTDOWN);
    cv_ready();
    pthread_cond_broadcast(&w_cv);
    pthread_mutex_unlock(&w_mu);
    for (int i = 0; i < n_pool; i++)
        if (pool[i].started)
            pthread_join(pool[i].th, NULL);
    free(pool);
    pool = NULL;
    n_pool = 0;
}

void srv_workers_wake(void)
{
    pthread_mutex_lock(&w_mu);
    wake_gen++;
    cv_ready();
    pthread_cond_broadcast(&w_cv);
    pthread_mutex_unlock(&w_mu);
}

void srv_workers_cancel(const char *id)
{
    pthread_mutex_lock(&w_mu);
    for (int i = 0; i < n_pool; i++)
        if (pool[i].busy && !strcmp(pool[i].claim.id, id))
            srv_worker_stop(&pool[i].ctl, SRV_STOP_USER);
    pthread_mutex_unlock(&w_mu);
}

int srv_workers_busy(void)
{
    int n = 0;
    pthread_mutex_lock(&w_mu);
    for (int i = 0; i < n_pool; i++)
        n += pool[i].busy;
    pthread_mutex_unlock(&w_mu);
    return n;
}

int srv_workers_claims(store_claim *out, int max)
{
    int n = 0;
    pthread_mutex_lock(&w_mu);
    for (int i = 0; i < n_pool && n < max; i++)
        if (pool[i].busy)
            out[n++] = pool[i].claim;
    pthread_mutex_unlock(&w_mu);
    return n;
}

int srv_workers_stop_claim(const store_claim *c, int reason)
{
    int found = 0;
    pthread_mutex_lock(&w_mu);
    for (int i = 0; i < n_pool; i++)
        if (pool[i].busy && pool[i].claim.run == c->run &&
            !strcmp(pool[i].claim.id, c->id)) {
            srv_worker_stop(&pool[i].ctl, reason);
            found = 1;
        }
    pthread_mutex_unlock(&w_mu);
    return found ? 0 : -1;
}
