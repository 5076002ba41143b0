/*
 * shutdown.c -- SIGTERM/SIGINT handling on a dedicated thread.
 *
 * The signals are blocked in the main thread before any other thread
 * starts, so every thread (MHD's, the workers') inherits the mask and only
 * this thread receives them, through sigwait: no async-signal-safety
 * constraints, and the main thread is told through a condition variable.
 *
 * One exception: threads created before main() runs -- OpenBLAS starts
 * its pool from a library constructor unless OPENBLAS_NUM_THREADS=1 -- do
 * not have the signals blocked, and the kernel may deliver SIGTERM to one
 * of them, whose default action would kill the process.  A handler catches
 * that case and forwards the signal to the signal thread (pthread_kill is
 * async-signal-safe), where sigwait picks it up.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "base/base.h"

static sigset_t sig_set;
static pthread_t sig_thread;
static int sig_started;
static pthread_mutex_t sd_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sd_cv = PTHREAD_COND_INITIALIZER;
static int sd_signal; /* under sd_mu: the signal received, 0 = none */

static volatile sig_atomic_t sig_ready;   /* sig_thread is waiting */
static volatile sig_atomic_t sig_pending; /* caught before it was   */

static void forward(int sig)
{
    sig_pending = sig;
    if (sig_ready)
        pthread_kill(sig_thread, sig);
}

void srv_signals_block(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigemptyset(&sig_set);
    sigaddset(&sig_set, SIGTERM);
    sigaddset(&sig_set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sig_set, NULL);
    /* a client that hangs up must not kill the daemon */
    signal(SIGPIPE, SIG_IGN);
}

/* Marks the shutdown, wakes every SSE reader, tells the main thread. */
static void begin_shutdown(int sig)
{
    __atomic_store_n(&srv.shutting_down, 1, __ATOMIC_RELEASE);
    srv_notify_all();
    pthread_mutex_lock(&sd_mu);
    sd_signal = sig;
    pthread_cond_broadcast(&sd_cv);
    pthread_mutex_unlock(&sd_mu);
}

static void *signal_main(void *arg)
{
    (void)arg;
    int sig = 0;
    sig_thread = pthread_self(); /* before sig_ready: the handler reads it */
    sig_ready = 1;
    if (sig_pending)
        sig = sig_pending;
    if (sig || sigwait(&sig_set, &sig) == 0) {
        srv_log("received %s, shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
        begin_shutdown(sig);
    }
    return NULL;
}

int srv_signals_start(void)
{
    sig_started = pthread_create(&sig_thread, NULL, signal_main, NULL) == 0;
    return sig_started ? 0 : -1;
}

int srv_signals_wait(void)
{
    pthread_mutex_lock(&sd_mu);
    while (sd_signal == 0)
        pthread_cond_wait(&sd_cv, &sd_mu);
    int sig = sd_signal;
    pthread_mutex_unlock(&sd_mu);
    if (sig_started)
        pthread_join(sig_thread, NULL);
    sig_started = 0;
    return sig;
}
