/* pool.c -- see pool.h.  Workers sleep on a condition variable and
 * wake on a new generation; tasks are claimed from a shared counter. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/pool.h"

struct slv_pool {
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    pthread_t *tid;
    int nthread;         /* workers, besides the caller                     */
    int started;         /* workers actually created                        */
    unsigned long gen;   /* bumped for every batch                          */
    int quit;
    slv_task_fn fn;
    void *ctx;
    int ntask, next, busy;
};

/* Claim and run tasks until none is left; returns with mu held. */
static void drain(slv_pool *p)
{
    while (p->next < p->ntask) {
        int i = p->next++;
        slv_task_fn fn = p->fn;
        void *ctx = p->ctx;
        pthread_mutex_unlock(&p->mu);
        fn(ctx, i);
        pthread_mutex_lock(&p->mu);
    }
}

static void *worker(void *arg)
{
    slv_pool *p = arg;
    unsigned long seen = 0;

    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->gen == seen)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit)
            break;
        seen = p->gen;
        p->busy++;
        drain(p);
        if (--p->busy == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

slv_pool *slv_pool_new(int threads)
{
    slv_pool *p;

    if (threads <= 1)
        return NULL;
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->nthread = threads - 1;
    p->tid = calloc((size_t)p->nthread, sizeof *p->tid);
    if (!p->tid || pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p->tid);
        free(p);
        return NULL;
    }
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    for (int i = 0; i < p->nthread; i++) {
        if (pthread_create(&p->tid[i], NULL, worker, p) != 0)
            break;
        p->started++;
    }
    if (p->started == 0) {
        slv_pool_free(p);
        return NULL;
    }
    return p;
}

int slv_pool_threads(const slv_pool *p)
{
    return p ? p->started + 1 : 1;
}

void slv_pool_run(slv_pool *p, slv_task_fn fn, void *ctx, int ntask)
{
    if (!p || ntask <= 1) {
        for (int i = 0; i < ntask; i++)
            fn(ctx, i);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->ntask = ntask;
    p->next = 0;
    p->gen++;
    pthread_cond_broadcast(&p->wake);
    p->busy++;
    drain(p);
    p->busy--;
    /* wait until every worker that claimed a task has finished it */
    while (p->busy > 0)
        pthread_cond_wait(&p->done, &p->mu);
    p->ntask = 0;
    pthread_mutex_unlock(&p->mu);
}

void slv_pool_free(slv_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->started; i++)
        pthread_join(p->tid[i], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p->tid);
    free(p);
}

int slv_processors(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
