/*
 * storepool.c -- store handles for the HTTP threads.
 *
 * A store handle is one SQLite connection and serves one thread at a time.
 * Connection threads come and go (thread-per-connection), so instead of a
 * handle per thread they borrow one from this pool for the duration of a
 * request and give it back.  Idle handles beyond POOL_MAX are closed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define POOL_MAX 64

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static store *idle[POOL_MAX];
static int n_idle;
static char *pool_path;

int srv_pool_init(const char *db_path)
{
    pool_path = strdup(db_path);
    return pool_path ? 0 : -1;
}

store *srv_pool_get(void)
{
    store *st = NULL;
    pthread_mutex_lock(&pool_mu);
    if (n_idle > 0)
        st = idle[--n_idle];
    pthread_mutex_unlock(&pool_mu);
    if (!st && pool_path) {
        char err[STORE_ERRMAX];
        if (!(st = srv_store_open(err))) {
            srv_log("cannot open the store %s: %s", pool_path, err);
            st = NULL;
        }
    }
    return st;
}

void srv_pool_put(store *st)
{
    if (!st)
        return;
    pthread_mutex_lock(&pool_mu);
    if (n_idle < POOL_MAX) {
        idle[n_idle++] = st;
        st = NULL;
    }
    pthread_mutex_unlock(&pool_mu);
    store_close(st);
}

void srv_pool_close(void)
{
    pthread_mutex_lock(&pool_mu);
    while (n_idle > 0)
        store_close(idle[--n_idle]);
    free(pool_path);
    pool_path = NULL;
    pthread_mutex_unlock(&pool_mu);
}
