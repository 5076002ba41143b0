/*
 * notify.c -- wake-ups for SSE readers.
 *
 * Workers and request handlers append job events to the store; readers of
 * /events block here instead of polling the database.  One process-wide
 * generation counter is enough: traffic is small and a spurious wake-up
 * costs one indexed query.
 */
#include <math.h>
#include <pthread.h>
#include <time.h>

#include "base/base.h"

static pthread_mutex_t nt_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nt_cv; /* monotonic: see cv_ready() */
static pthread_once_t nt_cv_once = PTHREAD_ONCE_INIT;

static void nt_cv_init(void) { srv_cond_init_monotonic(&nt_cv); }

/* nt_cv is usable (initialized once, on first use from any thread). */
static void cv_ready(void) { pthread_once(&nt_cv_once, nt_cv_init); }
static uint64_t nt_gen;

uint64_t srv_notify_gen(void)
{
    pthread_mutex_lock(&nt_mu);
    uint64_t g = nt_gen;
    pthread_mutex_unlock(&nt_mu);
    return g;
}

void srv_notify_all(void)
{
    pthread_mutex_lock(&nt_mu);
    nt_gen++;
    cv_ready();
    pthread_cond_broadcast(&nt_cv);
    pthread_mutex_unlock(&nt_mu);
}

void srv_notify_wait(uint64_t seen, double timeout_s)
{
    struct timespec dl;
    cv_ready();
    srv_deadline(&dl, timeout_s);
    pthread_mutex_lock(&nt_mu);
    int rc = 0;
    while (nt_gen == seen && !srv_is_shutting_down() && rc == 0)
        rc = pthread_cond_timedwait(&nt_cv, &nt_mu, &dl);
    pthread_mutex_unlock(&nt_mu);
}
