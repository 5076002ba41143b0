/*
 * pool.h -- a tiny persistent thread pool for the sparse kernels of
 * matrix completion.  slv_pool_run(pool, fn, ctx, ntask) calls fn(ctx, i) for
 * i = 0..ntask-1 and returns when all are done; the caller's thread takes
 * part.  A NULL pool runs the tasks in order on the caller's thread.  Tasks
 * must be independent: which thread runs a task never changes its result.
 */
#ifndef IRCG_BASE_POOL_H
#define IRCG_BASE_POOL_H

typedef struct slv_pool slv_pool;
typedef void (*slv_task_fn)(void *ctx, int task);

/* NULL for threads <= 1 (no thread is created) or when creation fails. */
slv_pool *slv_pool_new(int threads);
/* Threads that run tasks, the caller's included: 1 for a NULL pool. */
int slv_pool_threads(const slv_pool *pool);
void slv_pool_run(slv_pool *pool, slv_task_fn fn, void *ctx, int ntask);
void slv_pool_free(slv_pool *pool);
/* The processors online (at least 1). */
int slv_processors(void);

#endif /* IRCG_BASE_POOL_H */
