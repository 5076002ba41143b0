/*
 * mc_pool.h -- a tiny persistent thread pool for the sparse kernels of
 * matrix completion.  mc_pool_run(pool, fn, ctx, ntask) calls fn(ctx, i) for
 * i = 0..ntask-1 and returns when all are done; the caller's thread takes
 * part.  A NULL pool runs the tasks in order on the caller's thread.  Tasks
 * must be independent: which thread runs a task never changes its result.
 */
#ifndef IRCG_MC_POOL_H
#define IRCG_MC_POOL_H

typedef struct mc_pool mc_pool;
typedef void (*mc_task_fn)(void *ctx, int task);

/* NULL for threads <= 1 (no thread is created) or when creation fails. */
mc_pool *mc_pool_new(int threads);
void mc_pool_run(mc_pool *pool, mc_task_fn fn, void *ctx, int ntask);
void mc_pool_free(mc_pool *pool);

#endif /* IRCG_MC_POOL_H */
