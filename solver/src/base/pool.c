/* pool.c -- see pool.h.  Workers wait for a new generation and claim
 * tasks from a shared counter.  Both sides of a batch spin a while before
 * they sleep: an iteration of matrix completion runs about ten batches,
 * with microseconds of serial work between them, and a wake-up through
 * the condition variable (a futex) cost 10-30 us each, time in which the
 * caller ran the batch alone.  Threads spin only while the pools of the
 * process have no more threads than processors (a daemon's workers each
 * have one): with more, a spinning thread takes the processor of one that
 * works (8 threads on 2 cores: batches 1.5x slower). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/pool.h"
#include "base/util.h"

struct slv_pool {
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    pthread_t *tid;
    int nthread;         /* workers, besides the caller                     */
    int started;         /* workers actually created                        */
    int nproc;           /* processors online                               */
    /* Written under mu; read without it by the spins (below). */
    atomic_ulong gen;    /* bumped for every batch                          */
    atomic_int quit;
    atomic_int busy;     /* threads running tasks of the batch             */
    slv_task_fn fn;
    void *ctx;
    int ntask, next;
};

/* The threads of every live pool, their callers included. */
static atomic_int pool_threads;

static int may_spin(const slv_pool *p)
{
    return atomic_load_explicit(&pool_threads, memory_order_relaxed) <= p->nproc;
}

/* How long a thread spins before it sleeps: longer than the serial work
 * between the batches of an iteration, short enough that an idle pool
 * gives its cores back at once. */
#define SPIN_SECONDS 1e-4

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* What a thread waits for: the caller, that the workers running tasks of
 * its batch are done; a worker that saw generation `seen`, a new one (or
 * the end). */
static int waiting(slv_pool *p, int caller, unsigned long seen)
{
    if (caller)
        return atomic_load_explicit(&p->busy, memory_order_acquire) > 0;
    return atomic_load_explicit(&p->gen, memory_order_acquire) == seen &&
           !atomic_load_explicit(&p->quit, memory_order_relaxed);
}

/* Spins, without mu, while the thread waits, for at most SPIN_SECONDS
 * (the clock read every 64 pauses). */
static void spin(slv_pool *p, int caller, unsigned long seen)
{
    double end = slv_now() + SPIN_SECONDS;
    for (int i = 1; waiting(p, caller, seen); i++) {
        cpu_relax();
        if (i % 64 == 0 && slv_now() > end)
            return;
    }
}

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
        if (!p->quit && p->gen == seen && may_spin(p)) {
            pthread_mutex_unlock(&p->mu);
            spin(p, 0, seen);
            pthread_mutex_lock(&p->mu);
        }
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
    p->nproc = slv_processors();
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
    atomic_fetch_add(&pool_threads, p->started + 1);
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
    if (p->busy > 0 && may_spin(p)) {
        pthread_mutex_unlock(&p->mu);
        spin(p, 1, 0);
        pthread_mutex_lock(&p->mu);
    }
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
    atomic_fetch_sub(&pool_threads, p->started + 1);
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
