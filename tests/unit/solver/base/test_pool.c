/*
 * test_pool.c -- the thread pool of the sparse kernels (base/pool.c): every
 * task of a batch runs once, and all of them have finished, with their
 * writes visible, when slv_pool_run returns.  The batches come back to
 * back (the workers catch them spinning), after pauses longer than the
 * spin (they sleep and must be woken: the workers are seen to run tasks),
 * and with a slow task on a worker (the caller's spin ends first and it
 * sleeps until the task is done); pools with more threads than processors
 * (which do not spin) too.  Under `make tsan` a missing happens-before
 * between a task's plain writes and the caller's reads is reported.
 */
/* make tsan: pool. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "base/pool.h"

#define MAX_TASKS 17

typedef struct batch {
    pthread_t caller;
    int runs[MAX_TASKS];      /* plain ints: the pool must order them      */
    int on_worker[MAX_TASKS]; /* run by a worker, not by the caller        */
    long task_ns;             /* every task sleeps this long               */
    long slow_ns;             /* a task a worker runs sleeps this long     */
} batch;

static void pause_ns(long ns)
{
    struct timespec t = {ns / 1000000000L, ns % 1000000000L};
    nanosleep(&t, NULL);
}

static void count_task(void *vc, int i)
{
    batch *b = vc;
    int worker = !pthread_equal(pthread_self(), b->caller);
    if (b->task_ns > 0)
        pause_ns(b->task_ns);
    if (worker && b->slow_ns > 0)
        pause_ns(b->slow_ns);
    b->runs[i]++;
    b->on_worker[i] = worker;
}

/* n batches on a pool of `threads`, `gap_ns` apart; each batch's tasks
 * must each have run once.  Returns the batches in which a worker ran a
 * task. */
static int run_batches(int threads, int n, long gap_ns, long task_ns, long slow_ns)
{
    slv_pool *p = slv_pool_new(threads);
    int helped = 0;
    if (!p) {
        CHECK(p != NULL);
        return 0;
    }
    CHECK_INT(slv_pool_threads(p), threads);
    for (int k = 0; k < n; k++) {
        batch b;
        int ntask = k % (MAX_TASKS + 1), worker = 0; /* 0 and 1 included */
        memset(&b, 0, sizeof b);
        b.caller = pthread_self();
        b.task_ns = task_ns;
        b.slow_ns = slow_ns;
        slv_pool_run(p, count_task, &b, ntask);
        for (int i = 0; i < MAX_TASKS; i++) {
            worker |= b.on_worker[i];
            if (b.runs[i] != (i < ntask)) {
                CHECK_INT(b.runs[i], i < ntask);
                k = n;
                break;
            }
        }
        helped += worker;
        if (gap_ns > 0)
            pause_ns(gap_ns);
    }
    slv_pool_free(p);
    return helped;
}

TEST(pool, batches_back_to_back_run_every_task_once)
{
    run_batches(2, 5000, 0, 0, 0);
    run_batches(4, 2000, 0, 0, 0); /* more threads than this machine may have */
}

TEST(pool, workers_that_slept_are_woken)
{
    /* 1 ms between batches: longer than the spin (pool.c's SPIN_SECONDS, 0.1
     * ms); tasks of 50 us, so that a woken worker finds some left.  A
     * worker that is not woken leaves every batch to the caller. */
    int helped = run_batches(2, 40, 1000000L, 50000L, 0);
    CHECK(helped >= 10);
    helped = run_batches(3, 40, 1000000L, 50000L, 0);
    CHECK(helped >= 10);
}

TEST(pool, caller_waits_for_a_slow_task)
{
    /* a worker's task takes 2 ms: the caller's spin ends before it, and it
     * sleeps until the worker is done (the checks of every run) */
    int helped = run_batches(2, 40, 0, 20000L, 2000000L);
    CHECK(helped >= 10);
    run_batches(3, 20, 300000L, 20000L, 2000000L);
}

TEST(pool, freed_while_spinning_or_asleep)
{
    for (int k = 0; k < 50; k++) {
        slv_pool *p = slv_pool_new(2);
        batch b;
        REQUIRE(p != NULL);
        memset(&b, 0, sizeof b);
        b.caller = pthread_self();
        slv_pool_run(p, count_task, &b, 8);
        if (k % 2) /* the workers asleep; else still spinning */
            pause_ns(1000000L);
        slv_pool_free(p);
        CHECK_INT(b.runs[7], 1);
    }
    CHECK(slv_pool_new(1) == NULL); /* one thread: the caller's */
    slv_pool_free(NULL);
}

TEST(pool, two_live_pools_run_their_batches)
{
    /* together more threads than a 2-core machine has: they stop spinning
     * (pool.c counts the threads of every live pool) and still run all */
    slv_pool *a = slv_pool_new(2), *b = slv_pool_new(2);
    REQUIRE(a != NULL && b != NULL);
    for (int k = 0; k < 500; k++) {
        batch x, y;
        memset(&x, 0, sizeof x);
        memset(&y, 0, sizeof y);
        x.caller = y.caller = pthread_self();
        slv_pool_run(a, count_task, &x, 9);
        slv_pool_run(b, count_task, &y, 9);
        CHECK_INT(x.runs[8] + y.runs[8] + x.runs[0] + y.runs[0], 4);
    }
    slv_pool_free(a);
    slv_pool_free(b);
    run_batches(2, 200, 0, 0, 0); /* alone again: its own checks */
}
