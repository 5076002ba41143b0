/*
 * dryrun.c -- ?dry_run=full off the connection threads.
 *
 * A full dry run loads or generates the data, builds the problem and
 * tries the solver: the work of a job's first seconds, or minutes.  It
 * runs where jobs run -- on a worker thread of its own, one dry run at a
 * time, with a job's limits: the memory budget (the spec's estimate was
 * held to it by the cheap checks before it came here, and is again once
 * the data is loaded), and a time limit, the spec's algorithm.time_limit
 * capped at --request-timeout, enforced by the library's stop
 * (ircg_stop_set).  The connection's thread only waits on a condition
 * variable; when the dry run has not ended by the limit and a grace of
 * one second, it is cancelled, and the thread waits for the stop (the
 * library's latency: one block of work).  At most SRV_DRY_QUEUE dry runs
 * wait; more get 503 with Retry-After.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/jobs.h"
#include "routes/routes.h"
#include "problem.h"
#include "spec.h"

#define SRV_DRY_QUEUE 4

typedef struct dry_task {
    char *text;               /* the body, copied                         */
    size_t len;
    double limit;             /* seconds                                   */
    int cancel;               /* raised by the waiting connection          */
    int done;                 /* under d_mu                                */
    int stopped;              /* the limit or the cancel cut it short      */
    int nerr;
    char *reply;              /* JSON text: the dry run's answer, or its
                                 problem document (nerr > 0)              */
    int syntax;
    struct dry_task *next;
} dry_task;

static pthread_mutex_t d_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t d_cv; /* monotonic */
static pthread_once_t d_once = PTHREAD_ONCE_INIT;
static pthread_t d_thread;
static int d_started, d_stopping, d_waiting;
static dry_task *d_head, *d_tail;
static dry_task *d_current; /* the one running: a shutdown cancels it */

static void d_cv_init(void) { srv_cond_init_monotonic(&d_cv); }

/* The answer of a full build: the normalized spec and the estimate made
 * again from the data loaded. */
static char *answer(const api_spec *spec)
{
    char *norm = api_spec_normalized_json(spec, 0), *est = NULL, *text = NULL;
    api_estimate e;
    api_spec_estimate(spec, &e);
    est = e.memory > 0 ? api_estimate_json(&e) : NULL;
    cJSON *o = cJSON_CreateObject();
    if (o && norm) {
        cJSON_AddBoolToObject(o, "valid", 1);
        cJSON_AddStringToObject(o, "checks", "full");
        cJSON_AddItemToObject(o, "spec", cJSON_Parse(norm));
        if (est)
            cJSON_AddItemToObject(o, "estimate", cJSON_Parse(est));
        text = cJSON_PrintUnformatted(o);
    }
    cJSON_Delete(o);
    free(norm);
    free(est);
    return text;
}

static void run_task(dry_task *t, store *st)
{
    api_parse_options opt;
    api_errors errs;
    api_spec *spec = NULL;
    ircg_thread_stop stop = {(const volatile int *)&t->cancel, ircg_clock() + t->limit};
    api_errors_init(&errs);
    srv_parse_options(&opt, st);
    ircg_stop_set(&stop);
    t->nerr = api_spec_parse(t->text, t->len, &opt, &spec, &errs);
    t->stopped = ircg_clock() >= stop.deadline || __atomic_load_n(&t->cancel, __ATOMIC_ACQUIRE);
    ircg_stop_set(NULL);
    t->syntax = errs.syntax;
    t->reply = t->nerr > 0 ? api_errors_problem_json(&errs, "/v1/jobs") : answer(spec);
    api_errors_clear(&errs);
    api_spec_free(spec);
}

static dry_task *next_task(void)
{
    dry_task *t = NULL;
    pthread_mutex_lock(&d_mu);
    while (!d_stopping && !d_head)
        pthread_cond_wait(&d_cv, &d_mu);
    if (!d_stopping) {
        t = d_head;
        d_head = t->next;
        if (!d_head)
            d_tail = NULL;
    }
    d_current = t;
    pthread_mutex_unlock(&d_mu);
    return t;
}

static void *dry_main(void *arg)
{
    char err[STORE_ERRMAX];
    store *st = srv_store_open(err);
    dry_task *t;
    (void)arg;
    if (!st)
        srv_log("dry runs: cannot open the store: %s", err);
    while ((t = next_task())) {
        if (st)
            run_task(t, st);
        pthread_mutex_lock(&d_mu);
        t->done = 1;
        d_current = NULL;
        pthread_cond_broadcast(&d_cv);
        pthread_mutex_unlock(&d_mu);
    }
    store_close(st);
    return NULL;
}

int srv_dryrun_start(void)
{
    pthread_once(&d_once, d_cv_init);
    d_stopping = 0;
    d_started = pthread_create(&d_thread, NULL, dry_main, NULL) == 0;
    return d_started ? 0 : -1;
}

void srv_dryrun_stop(void)
{
    pthread_once(&d_once, d_cv_init);
    pthread_mutex_lock(&d_mu);
    d_stopping = 1;
    if (d_current)
        __atomic_store_n(&d_current->cancel, 1, __ATOMIC_RELEASE);
    for (dry_task *t = d_head; t; t = t->next)
        t->done = 1; /* never run: their connections answer 503 */
    d_head = d_tail = NULL;
    pthread_cond_broadcast(&d_cv);
    pthread_mutex_unlock(&d_mu);
    if (d_started)
        pthread_join(d_thread, NULL);
    d_started = 0;
}

/* Queued: 0, or -1 when the queue is full or no dry runs are served. */
static int enqueue(dry_task *t)
{
    int rc = -1;
    pthread_mutex_lock(&d_mu);
    if (d_started && !d_stopping && d_waiting < SRV_DRY_QUEUE) {
        if (d_tail)
            d_tail->next = t;
        else
            d_head = t;
        d_tail = t;
        d_waiting++;
        pthread_cond_broadcast(&d_cv);
        rc = 0;
    }
    pthread_mutex_unlock(&d_mu);
    return rc;
}

/* Waits for t, cancelling it past its limit (and the time it waited in
 * the queue) plus a second. */
static void wait_task(dry_task *t)
{
    struct timespec dl;
    srv_deadline(&dl, t->limit + 1.0 + SRV_DRY_QUEUE * t->limit);
    pthread_mutex_lock(&d_mu);
    int rc = 0;
    while (!t->done && rc == 0)
        rc = pthread_cond_timedwait(&d_cv, &d_mu, &dl);
    if (!t->done) /* the stop's latency is one block of work */
        __atomic_store_n(&t->cancel, 1, __ATOMIC_RELEASE);
    while (!t->done)
        pthread_cond_wait(&d_cv, &d_mu);
    d_waiting--;
    pthread_mutex_unlock(&d_mu);
}

void srv_dryrun_full(srv_req *r, double time_limit)
{
    dry_task t = {.len = r->body.len};
    double cap = srv.cfg.request_timeout;
    t.limit = time_limit > 0 && time_limit < cap ? time_limit : cap;
    if (!(t.text = malloc(t.len + 1))) {
        srv_problem_internal(r, "out of memory");
        return;
    }
    memcpy(t.text, r->body.p ? r->body.p : "", t.len);
    if (enqueue(&t) != 0) {
        srv_reply_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "%d", (int)t.limit + 1);
        srv_problem(r, MHD_HTTP_SERVICE_UNAVAILABLE, "dry-runs-busy", "Dry runs busy",
                    "%d full dry runs are waiting (or none are served now); retry later",
                    SRV_DRY_QUEUE);
    } else {
        wait_task(&t);
        if (!t.reply) {
            srv_reply_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "5");
            srv_problem(r, MHD_HTTP_SERVICE_UNAVAILABLE, "dry-runs-busy", "Dry run not run",
                        "the service stopped before the dry run ran");
        } else if (t.stopped && t.nerr > 0) {
            char why[200];
            snprintf(why, sizeof why, "the build did not end within the dry run's limit of "
                     "%g s (the spec's time_limit, at most --request-timeout)", t.limit);
            srv_problem_member(r, MHD_HTTP_UNPROCESSABLE_CONTENT, "time-limit",
                               "Time limit reached", "/algorithm/time_limit", why);
        } else {
            unsigned status = t.nerr == 0 ? MHD_HTTP_OK
                              : t.syntax  ? MHD_HTTP_BAD_REQUEST
                                          : MHD_HTTP_UNPROCESSABLE_CONTENT;
            srv_reply(r, status, t.nerr ? "application/problem+json" : "application/json",
                      t.reply, strlen(t.reply));
            t.reply = NULL; /* the response owns it */
        }
    }
    free(t.reply);
    free(t.text);
}
