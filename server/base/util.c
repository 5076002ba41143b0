/*
 * util.c -- logging, clocks, growable buffers, constant-time comparison.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"

srv_state srv;

bool srv_is_shutting_down(void)
{
    return __atomic_load_n(&srv.shutting_down, __ATOMIC_ACQUIRE);
}

double srv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double srv_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void srv_cond_init_monotonic(pthread_cond_t *cv)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &a);
    pthread_condattr_destroy(&a);
}

void srv_deadline(struct timespec *dl, double seconds)
{
    double whole = floor(seconds);
    clock_gettime(CLOCK_MONOTONIC, dl);
    dl->tv_sec += (time_t)whole;
    dl->tv_nsec += (long)((seconds - whole) * 1e9);
    if (dl->tv_nsec >= 1000000000L) {
        dl->tv_sec++;
        dl->tv_nsec -= 1000000000L;
    }
}

char *srv_time_rfc3339(char *buf, double t)
{
    buf[0] = '\0';
    if (isfinite(t) && t >= 0) {
        time_t s = (time_t)floor(t);
        int ms = (int)((t - floor(t)) * 1000.0);
        struct tm tm;
        gmtime_r(&s, &tm);
        size_t n = strftime(buf, 32, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf + n, 32 - n, ".%03dZ", ms > 999 ? 999 : ms);
    }
    return buf;
}

/* One line per call; a mutex keeps lines from interleaving. */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

void srv_log_raw(const char *line)
{
    pthread_mutex_lock(&log_mu);
    fputs(line, stderr);
    fputc('\n', stderr);
    pthread_mutex_unlock(&log_mu);
}

void srv_log(const char *fmt, ...)
{
    char ts[40];
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&log_mu);
    fprintf(stderr, "%s %s: ", srv_time_rfc3339(ts, srv_now()), SRV_NAME);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    pthread_mutex_unlock(&log_mu);
    va_end(ap);
}
