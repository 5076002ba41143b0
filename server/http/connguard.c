/*
 * connguard.c -- a deadline on receiving a request (slowloris).
 *
 * --conn-timeout is libmicrohttpd's idle timeout: a client that sends a
 * byte of its headers every few seconds is never idle, and with a thread
 * per connection a few hundred such clients hold every connection slot.
 * So every connection is registered here (MHD's connection notifications)
 * and must deliver a whole request -- headers and body -- within
 * --request-timeout seconds: counted from the connection's start, or, on
 * a kept-alive connection, from the end of its previous response (plus
 * the idle timeout, which MHD enforces itself meanwhile); a streamed upload
 * earns a second more for each 64 KiB it delivers (srv_guard_extend), so
 * a large one arriving at a reasonable rate is not cut.  While a request
 * is being handled (a handler runs, a response or an event stream is
 * sent) there is no deadline: a client that stops reading a response is
 * MHD's idle timeout's business.
 *
 * A watcher thread shuts down (shutdown(2), not close) the socket of a
 * connection past its deadline; MHD's connection thread then sees the end
 * of the stream and closes the connection itself.  An entry leaves the
 * table in MHD's CLOSED notification, which MHD makes before it closes the
 * socket, under the same mutex as the watcher: the watcher never touches a
 * closed, or reused, descriptor.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "http/http.h"

typedef struct guarded {
    const void *conn;  /* MHD's connection: a key, never dereferenced here */
    int fd;
    int busy;          /* a request is being handled: no deadline */
    double deadline;   /* monotonic */
} guarded;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv; /* monotonic */
static guarded *table;
static int ntable, captable;
static double request_timeout, idle_timeout;
static pthread_t g_thread;
static int g_started, g_stopping;
static uint64_t g_closed; /* connections shut down for being too slow */

static guarded *find(const void *conn)
{
    for (int i = 0; i < ntable; i++)
        if (table[i].conn == conn)
            return &table[i];
    return NULL;
}

void srv_guard_open(const void *conn, int fd)
{
    pthread_mutex_lock(&g_mu);
    if (ntable == captable) {
        int cap = captable ? 2 * captable : 64;
        guarded *t = realloc(table, (size_t)cap * sizeof *t);
        if (t) {
            table = t;
            captable = cap;
        }
    }
    if (ntable < captable) /* out of memory: this one goes unguarded */
        table[ntable++] = (guarded){conn, fd, 0, srv_mono() + request_timeout};
    pthread_mutex_unlock(&g_mu);
}

void srv_guard_close(const void *conn)
{
    pthread_mutex_lock(&g_mu);
    guarded *g = find(conn);
    if (g)
        *g = table[--ntable];
    pthread_mutex_unlock(&g_mu);
}

void srv_guard_busy(const void *conn, int busy)
{
    pthread_mutex_lock(&g_mu);
    guarded *g = find(conn);
    if (g) {
        g->busy = busy;
        g->deadline = srv_mono() + request_timeout + (busy ? 0 : idle_timeout);
    }
    pthread_mutex_unlock(&g_mu);
}

void srv_guard_extend(const void *conn, double seconds)
{
    pthread_mutex_lock(&g_mu);
    guarded *g = find(conn);
    if (g && !g->busy)
        g->deadline += seconds;
    pthread_mutex_unlock(&g_mu);
}

uint64_t srv_guard_closed(void)
{
    return __atomic_load_n(&g_closed, __ATOMIC_RELAXED);
}

/* Under g_mu: shuts down every connection past its deadline. */
static void sweep(void)
{
    double now = srv_mono();
    for (int i = 0; i < ntable; i++)
        if (!table[i].busy && now > table[i].deadline && table[i].fd >= 0) {
            shutdown(table[i].fd, SHUT_RDWR);
            table[i].fd = -1; /* once */
            __atomic_add_fetch(&g_closed, 1, __ATOMIC_RELAXED);
            srv_log("closing a connection that took over %.0f s to send its request",
                    request_timeout);
        }
}

static void *watcher(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_mu);
    while (!g_stopping) {
        struct timespec dl;
        srv_deadline(&dl, 0.5);
        pthread_cond_timedwait(&g_cv, &g_mu, &dl);
        sweep();
    }
    pthread_mutex_unlock(&g_mu);
    return NULL;
}

int srv_guard_start(double request_timeout_s, double idle_timeout_s)
{
    request_timeout = request_timeout_s;
    idle_timeout = idle_timeout_s;
    srv_cond_init_monotonic(&g_cv);
    g_started = pthread_create(&g_thread, NULL, watcher, NULL) == 0;
    return g_started ? 0 : -1;
}

void srv_guard_stop(void)
{
    pthread_mutex_lock(&g_mu);
    g_stopping = 1;
    if (g_started)
        pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_mu);
    if (g_started)
        pthread_join(g_thread, NULL);
    g_started = 0;
    free(table);
    table = NULL;
    ntable = captable = 0;
}
