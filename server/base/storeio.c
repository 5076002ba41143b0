/*
 * storeio.c -- the store as a device that fails: opening the daemon's
 * handles, and what the outcomes of its writes say about its health.
 *
 * Every write of the daemon reports its outcome here (srv_store_note).  A
 * storage fault -- the write lock held by another process past the busy
 * timeout, a full disk, a read-only or moved file, an I/O error -- starts
 * an episode: logged once with its reason, counted in /metrics, and
 * /readyz answers "not ready" while it lasts.  It lasts while a job holds
 * writes it could not make (srv_store_waiting), or a write failed less
 * than a few heartbeat periods ago.  The first write that goes through
 * afterwards ends the episode (logged with the count and duration).
 *
 * Who retries is the writer's business (job_run.c keeps a job's rows in
 * memory and retries with srv_store_backoff); nothing here sleeps.
 *
 * IRCGD_TEST_MAX_PAGES (tests only, not a flag): PRAGMA max_page_count on
 * every handle of the daemon, so that a test can fill a real store to a
 * real SQLITE_FULL without a small file system.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"

static pthread_mutex_t io_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    double first_fail, last_fail, last_ok, last_log; /* monotonic       */
    double last_reclaim;                   /* the last checkpoint tried  */
    int reclaim_due;                       /* the disk was full since the
                                              last checkpoint went through */
    int64_t episode_fails;                 /* failures in this episode   */
    char reason[STORE_ERRMAX + 64];        /* the latest failure         */
    store_rc last_rc;
    int waiting;                           /* jobs holding unwritten data */
    uint64_t fails_by_rc[STORE_IOERR + 1];
} io;

static int64_t test_max_pages(void)
{
    const char *v = getenv("IRCGD_TEST_MAX_PAGES");
    return v && *v ? strtoll(v, NULL, 10) : 0;
}

store *srv_store_open(char *err)
{
    store *st = NULL;
    int64_t pages = test_max_pages();
    if (store_open(srv.cfg.db, &st, err) != STORE_OK)
        return NULL;
    if (pages > 0 && store_limit_pages(st, pages, NULL) != STORE_OK) {
        snprintf(err, STORE_ERRMAX, "IRCGD_TEST_MAX_PAGES: %s", store_errmsg(st));
        store_close(st);
        return NULL;
    }
    return st;
}

/* How long after its last failure the store still counts as degraded:
 * long enough that an idle daemon whose submits fail is not reported
 * ready between two of them. */
static double hold_s(void)
{
    double h = 2.0 * srv.cfg.heartbeat_every;
    return h > 2.0 ? h : 2.0;
}

/* An episode is a run of failures less than hold_s() apart; it ends with
 * the first write that goes through once no job waits to write and no
 * write failed for hold_s().  (A store that is full still takes the
 * writes that need no new page, heartbeats among them: a success alone
 * proves little.) */
static void note_ok(double now)
{
    if (io.episode_fails > 0 && io.waiting == 0 && now - io.last_fail >= hold_s()) {
        srv_log("store: writes go through again, after %lld failed write(s) over %.1f s",
                (long long)io.episode_fails, io.last_fail - io.first_fail);
        io.episode_fails = 0;
    }
    io.last_ok = now;
}

static void note_fail(store *st, store_rc rc, const char *what, double now)
{
    snprintf(io.reason, sizeof io.reason, "%s: %s", what, store_errmsg(st));
    io.last_rc = rc;
    if ((unsigned)rc < sizeof io.fails_by_rc / sizeof io.fails_by_rc[0])
        io.fails_by_rc[rc]++;
    if (io.episode_fails > 0 && now - io.last_fail >= hold_s() && io.waiting == 0)
        io.episode_fails = 0; /* the last episode ended unnoticed */
    /* One line when an episode starts, then one every 30 s: a full disk
     * must not also fill the log. */
    if (io.episode_fails == 0) {
        io.first_fail = io.last_log = now;
        srv_log("store: %s (%s); writes are retried", io.reason, store_rc_name(rc));
    } else if (now - io.last_log >= 30.0) {
        io.last_log = now;
        srv_log("store: still failing after %lld write(s) over %.0f s: %s (%s)",
                (long long)io.episode_fails, now - io.first_fail, io.reason,
                store_rc_name(rc));
    }
    io.episode_fails++;
    io.last_fail = now;
}

void srv_store_note(store *st, store_rc rc, const char *what)
{
    double now = srv_mono();
    if (rc != STORE_OK && !store_rc_transient(rc))
        return; /* an answer about the request or the job, not a fault */
    pthread_mutex_lock(&io_mu);
    if (rc == STORE_OK)
        note_ok(now);
    else
        note_fail(st, rc, what, now);
    /* A full disk may be full of WAL, which only a checkpoint gives back,
     * and a checkpoint needs room to grow the database file: tried five
     * times a second from the moment the disk is full until one goes
     * through -- soon after the first write that succeeds again, before
     * the waiting writers take the returned space too.  (The WAL is also
     * kept small: store_open's wal_autocheckpoint.) */
    io.reclaim_due |= rc == STORE_FULL;
    int reclaim = io.reclaim_due && now - io.last_reclaim >= 0.2;
    if (reclaim)
        io.last_reclaim = now;
    pthread_mutex_unlock(&io_mu);
    if (reclaim && store_checkpoint_within(st, 50) == STORE_OK) {
        pthread_mutex_lock(&io_mu);
        io.reclaim_due = 0;
        pthread_mutex_unlock(&io_mu);
    }
}

void srv_store_waiting(int delta)
{
    pthread_mutex_lock(&io_mu);
    io.waiting += delta;
    pthread_mutex_unlock(&io_mu);
}

bool srv_store_is_degraded(char *why, size_t len)
{
    bool bad;
    pthread_mutex_lock(&io_mu);
    bad = io.waiting > 0 ||
          (io.episode_fails > 0 && srv_mono() - io.last_fail < hold_s());
    if (bad && why)
        snprintf(why, len, "the store cannot take writes (%s%s): %s",
                 store_rc_name(io.last_rc),
                 io.waiting > 0 ? ", jobs are waiting to write" : "", io.reason);
    pthread_mutex_unlock(&io_mu);
    return bad;
}

uint64_t srv_store_failures(store_rc rc)
{
    uint64_t n = 0;
    pthread_mutex_lock(&io_mu);
    if ((unsigned)rc < sizeof io.fails_by_rc / sizeof io.fails_by_rc[0])
        n = io.fails_by_rc[rc];
    pthread_mutex_unlock(&io_mu);
    return n;
}

double srv_store_backoff(int attempt)
{
    double s = 0.1;
    for (int i = 0; i < attempt && s < SRV_STORE_BACKOFF_MAX; i++)
        s *= 2.0;
    return s < SRV_STORE_BACKOFF_MAX ? s : SRV_STORE_BACKOFF_MAX;
}

void srv_store_pause(double seconds)
{
    /* A shutdown that begins meanwhile cuts the pause short (the caller
     * makes its last attempt now); once it has begun, pauses run whole,
     * so the last attempts never spin. */
    int was_stopping = srv_is_shutting_down();
    double end = srv_mono() + seconds;
    for (double now = srv_mono(); now < end; now = srv_mono()) {
        double left = end - now < 0.05 ? end - now : 0.05;
        struct timespec ts = {0, (long)(left * 1e9)};
        if (!was_stopping && srv_is_shutting_down())
            return;
        nanosleep(&ts, NULL);
    }
}
