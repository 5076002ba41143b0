/*
 * test_pool.c -- the thread pool of the sparse kernels (base/pool.c): every
 * task of a batch runs once, and all of them have finished, with their
 * writes visible, when slv_pool_run returns.  The batches come back to
 * back (the workers catch them spinning), after pauses longer than the
 * spin (they sleep and are woken), and with a task slower than the spin
 * (the caller sleeps until it is done).  Under `make tsan` a missing
 * happens-before between a task's plain writes and the caller's reads is
 * reported.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../harness.h"
#include "base/pool.h"

#define MAX_TASKS 17

typedef struct batch {
    int runs[MAX_TASKS]; /* plain ints: the pool must order them */
    long slow_ns;        /* task 0 sleeps this long                      */
} batch;

static void pause_ns(long ns)
{
    struct timespec t = {ns / 1000000000L, ns % 1000000000L};
    nanosleep(&t, NULL);
}

static void count_task(void *vc, int i)
{
    batch *b = vc;
    if (i == 0 && b->slow_ns > 0)
        pause_ns(b->slow_ns);
    b->runs[i]++;
}

/* n batches on a pool of `threads`, with `gap_ns` between them and task 0
 * sleeping `slow_ns`; each batch's tasks must each have run once. */
static void run_batches(int threads, int n, long gap_ns, long slow_ns)
{
    slv_pool *p = slv_pool_new(threads);
    REQUIRE(p != NULL);
    CHECK_INT(slv_pool_threads(p), threads);
    for (int k = 0; k < n; k++) {
        batch b;
        int ntask = k % (MAX_TASKS + 1); /* 0 and 1 included */
        memset(&b, 0, sizeof b);
        b.slow_ns = slow_ns;
        slv_pool_run(p, count_task, &b, ntask);
        for (int i = 0; i < MAX_TASKS; i++)
            if (b.runs[i] != (i < ntask)) {
                CHECK_INT(b.runs[i], i < ntask);
                k = n;
                break;
            }
        if (gap_ns > 0)
            pause_ns(gap_ns);
    }
    slv_pool_free(p);
}

TEST(pool, batches_back_to_back_run_every_task_once)
{
    run_batches(2, 5000, 0, 0);
    run_batches(4, 2000, 0, 0); /* more threads than this machine may have */
}

TEST(pool, workers_that_slept_are_woken)
{
    /* pauses of 1 ms: longer than the spin (pool.c's SPIN_NS, 0.1 ms) */
    run_batches(3, 60, 1000000L, 0);
}

TEST(pool, caller_waits_for_a_slow_task)
{
    /* task 0 takes 2 ms: the caller's spin ends before it, and it sleeps */
    run_batches(2, 40, 0, 2000000L);
    run_batches(3, 20, 300000L, 2000000L);
}

TEST(pool, freed_while_spinning_or_asleep)
{
    for (int k = 0; k < 50; k++) {
        slv_pool *p = slv_pool_new(3);
        batch b;
        REQUIRE(p != NULL);
        memset(&b, 0, sizeof b);
        slv_pool_run(p, count_task, &b, 8);
        if (k % 2) /* the workers asleep; else still spinning */
            pause_ns(1000000L);
        slv_pool_free(p);
        CHECK_INT(b.runs[7], 1);
    }
    CHECK(slv_pool_new(1) == NULL); /* one thread: the caller's */
    slv_pool_free(NULL);
}
