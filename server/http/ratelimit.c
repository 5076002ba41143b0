/*
 * ratelimit.c -- per-client request rates: token buckets.
 *
 * With --rate-limit R (requests per second; 0 = off) each client has a
 * bucket of --rate-burst B requests that refills at R per second; a
 * request that finds it empty is answered 429 with Retry-After (the
 * seconds until a request's worth is back).  A client is its bearer token
 * when tokens are configured, its address otherwise; the key is the
 * SHA-256 of that (a token is never kept in clear).  At most RL_MAX
 * buckets are kept; when full, the one idle longest is reused -- a client
 * evicted that way merely starts again with a full bucket.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "http/http.h"

#define RL_MAX 4096

typedef struct bucket {
    uint8_t key[STORE_SHA256_LEN];
    double tokens, last; /* last: monotonic time of the last refill */
    int used;
} bucket;

static pthread_mutex_t rl_mu = PTHREAD_MUTEX_INITIALIZER;
static bucket buckets[RL_MAX];
static uint64_t rl_refused;

/* Under rl_mu: the client's bucket, a free one, or the one idle longest. */
static bucket *bucket_of(const uint8_t key[STORE_SHA256_LEN])
{
    bucket *oldest = &buckets[0];
    for (int i = 0; i < RL_MAX; i++) {
        if (!buckets[i].used || !memcmp(buckets[i].key, key, STORE_SHA256_LEN))
            return &buckets[i];
        if (buckets[i].last < oldest->last)
            oldest = &buckets[i];
    }
    oldest->used = 0;
    return oldest;
}

int srv_rate_take(const char *client, double *retry_after)
{
    uint8_t key[STORE_SHA256_LEN];
    double rate = srv.cfg.rate_limit, burst = srv.cfg.rate_burst, now = srv_mono();
    int ok;
    *retry_after = 0;
    if (rate <= 0)
        return 0;
    store_sha256(client, strlen(client), key);
    pthread_mutex_lock(&rl_mu);
    bucket *b = bucket_of(key);
    if (!b->used) {
        memcpy(b->key, key, sizeof key);
        b->tokens = burst;
        b->last = now;
        b->used = 1;
    }
    b->tokens = fmin(burst, b->tokens + (now - b->last) * rate);
    b->last = now;
    ok = b->tokens >= 1.0;
    if (ok)
        b->tokens -= 1.0;
    else
        *retry_after = (1.0 - b->tokens) / rate;
    rl_refused += !ok;
    pthread_mutex_unlock(&rl_mu);
    return ok ? 0 : -1;
}

uint64_t srv_rate_refused(void)
{
    pthread_mutex_lock(&rl_mu);
    uint64_t n = rl_refused;
    pthread_mutex_unlock(&rl_mu);
    return n;
}
