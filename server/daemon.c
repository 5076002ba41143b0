/*
 * daemon.c -- start-up and orderly stop of ircgd.
 *
 * Start, in an order that never lets a refused daemon touch the store:
 *   1. the exclusive lock on "<db>.lock" (another daemon on the same file:
 *      refuse, exit status 3);
 *   2. the listen socket, bound by us (address in use: refuse, exit 1);
 *   3. recovery of the jobs a crash left running (they resume from their
 *      last checkpoint), then the HTTP daemon on the bound socket;
 *   4. the workers, which claim queued jobs, and their heartbeat ticker.
 * Stop (SIGTERM/SIGINT): stop accepting (quiesce), cancel running jobs with
 * reason "shutdown" (each takes a final checkpoint and returns to the
 * queue), wake the SSE streams, stop MHD, close the stores, drop the lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "daemon.h"
#include "http/http.h"
#include "jobs/jobs.h"
#include "mpi/mpi.h"
#include "routes/routes.h"
#include "problem.h"

extern void openblas_set_num_threads(int num_threads);

/* The data directory must exist; spec paths are confined to its real
 * path (symlinks resolved). */
static int prepare_data_dir(srv_config *c)
{
    char real[PATH_MAX];
    if (mkdir(c->data_dir, 0700) != 0 && errno != EEXIST) {
        srv_log("cannot create the data directory %s", c->data_dir);
        return -1;
    }
    if (!realpath(c->data_dir, real) || strlen(real) >= sizeof c->data_dir) {
        srv_log("cannot resolve the data directory %s", c->data_dir);
        return -1;
    }
    memcpy(c->data_dir, real, strlen(real) + 1); /* length checked above */
    return 0;
}

/* Why a store cannot be used at all, for the log and the exit status. */
static int refuse_store(const srv_config *c, store_rc rc, const char *err)
{
    if (rc == STORE_CORRUPT || rc == STORE_FOREIGN) {
        srv_log("refusing to start: %s", err);
        return SRV_EXIT_STORE_UNUSABLE;
    }
    if (rc == STORE_READONLY) {
        srv_log("refusing to start: the store %s cannot be written (%s); ircgd needs "
                "write access to it and to its directory", c->db, err);
        return SRV_EXIT_STORE_UNUSABLE;
    }
    srv_log("cannot open the store %s: %s", c->db, err);
    return 1;
}

/* Files made by an older ircgd (or by hand) may be readable by others:
 * say so, without changing modes the operator may have chosen. */
static void warn_if_shared(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && (sb.st_mode & 077))
        srv_log("warning: %s is accessible to group or others (mode %03o); it holds "
                "every job: chmod 600 it (0700 for a directory)", path,
                (unsigned)(sb.st_mode & 0777));
}

/* Jobs left running by a crash go back to the queue (or fail after
 * max_attempts); their workers resume them from the last checkpoint.
 * Then the events of finished jobs are brought within their bound.  The
 * file is checked (quick_check) before anything writes to it: a damaged
 * store is refused and left as it was.  0, or the exit status. */
static int recover(const srv_config *c)
{
    store *st = NULL;
    char err[STORE_ERRMAX];
    int requeued = 0, failed = 0;
    store_rc rc = store_open_ex(c->db, STORE_OPEN_CHECK, &st, err);
    if (rc != STORE_OK)
        return refuse_store(c, rc, err);
    int64_t trimmed = 0;
    char *interrupted = api_problem_text(api_problem_new(
        500, "interrupted", "Job interrupted",
        "the service stopped while the job was running, and the job has no "
        "attempts left", NULL));
    rc = interrupted ? store_recover(st, c->max_attempts, interrupted, &requeued, &failed)
                     : STORE_NOMEM;
    free(interrupted);
    if (rc != STORE_OK) {
        int status = refuse_store(c, rc, store_errmsg(st));
        store_close(st);
        return status;
    }
    if (requeued || failed)
        srv_log("recovery: %d job(s) requeued, %d failed after %d attempts", requeued,
                failed, c->max_attempts);
    /* Files from before the events were trimmed; a no-op afterwards. */
    if ((rc = store_events_compact(st, &trimmed)) != STORE_OK)
        srv_log("compacting the events failed: %s", store_errmsg(st));
    else if (trimmed > 0)
        srv_log("compacted the events of finished jobs: %lld removed", (long long)trimmed);
    if (rc == STORE_OK)
        srv_maintain(st); /* retention runs at start too, not only as jobs end */
    store_close(st);
    return rc == STORE_OK ? 0 : 1;
}

static int setup(srv_config *c)
{
    char err[512];
    if (srv_tls_load(c, &srv.tls, err, sizeof err) != 0 ||
        (c->tokens_file[0] && srv_tokens_load(c->tokens_file, &srv.tokens, err, sizeof err))) {
        srv_log("%s", err);
        return -1;
    }
    warn_if_shared(c->db);
    if (prepare_data_dir(c) || srv_mpi_prepare(c))
        return 1;
    srv_uploads_sweep();
    int rc = recover(c);
    if (rc == 0 && srv_pool_init(c->db))
        rc = 1;
    return rc;
}

static void stop(struct MHD_Daemon *d)
{
    __atomic_store_n(&srv.shutting_down, 1, __ATOMIC_RELEASE);
    MHD_socket fd = d ? MHD_quiesce_daemon(d) : MHD_INVALID_SOCKET;
    srv_heartbeat_stop(); /* it reads the worker pool */
    srv_dryrun_stop();    /* the connections waiting get their answer */
    srv_workers_stop();   /* cancel with reason shutdown, requeue, join */
    srv_notify_all();     /* SSE readers see shutting_down and end */
    if (d)
        MHD_stop_daemon(d);
    srv_guard_stop(); /* the connections are gone */
    if (fd != MHD_INVALID_SOCKET)
        close(fd);
    srv_pool_close();
    srv_tokens_free(&srv.tokens);
    srv_tls_free(&srv.tls);
}

/* The workers' runner: a job whose spec asks for ranks goes to the MPI
 * room (its ranks load the data, not this process), any other is solved
 * on the worker's thread. */
static void run_job(srv_worker_ctl *ctl, store *st, const store_job *job)
{
    if (srv_mpi_ranks(job) > 0)
        srv_mpi_job_run(ctl, st, job);
    else
        srv_job_run(ctl, st, job);
}

/* Steps 3 and 4 of the start and the wait for a signal; the socket is
 * MHD's once it started. */
static int serve(srv_config *c, int *listen_fd, const char *bound, int port)
{
    struct MHD_Daemon *d = NULL;
    int rc = 1;
    if ((rc = setup(c)) != 0 || (rc = srv_signals_start()) != 0) {
        rc = rc > 0 ? rc : 1;
        goto done;
    }
    rc = 1;
    srv_http_routes(srv_routes);
    if (srv_guard_start(c->request_timeout, c->conn_timeout) != 0 ||
        !(d = srv_http_start(c, *listen_fd))) {
        srv_log("cannot start the HTTP daemon on %s", c->listen);
        goto done;
    }
    *listen_fd = -1;
    if (srv_workers_start(c->workers, run_job) != 0 || srv_dryrun_start() != 0 ||
        srv_heartbeat_start(c->heartbeat_every) != 0)
        goto done;
    printf("listening on %s://%s:%d\n", srv.tls.cert ? "https" : "http", bound, port);
    fflush(stdout);
    srv_log("ircgd %s: %d worker(s) of at most %d thread(s) on %d core(s), db %s, "
            "data dir %s, auth %s (%zu token(s)), %s", IRCG_VERSION, c->workers,
            srv_job_threads_cap(c), srv_cores(), c->db, c->data_dir,
            srv.tokens.list ? "on" : "off", srv.tokens.n,
            srv.tls.cert ? "HTTPS" : "plain HTTP");
    srv_log("a job may hold %.0f MB by its estimate (--max-job-memory)",
            (double)c->max_job_memory / 1e6);
    if (c->workers * srv_job_threads_cap(c) > srv_cores())
        srv_log("note: %d workers x %d threads exceed the %d cores (as configured)",
                c->workers, srv_job_threads_cap(c), srv_cores());
    srv_signals_wait();
    rc = 0;
done:
    if (rc != 0) /* a failed start still stops what did start */
        __atomic_store_n(&srv.shutting_down, 1, __ATOMIC_RELEASE);
    stop(d);
    return rc;
}

static int run(srv_config *c)
{
    char err[1024], bound[300];
    int lock_fd = -1, listen_fd = -1, port = 0, rc = 1;
    int locked = srv_db_lock(c->db, &lock_fd, err, sizeof err);
    if (locked != 0) {
        srv_log("%s", err);
        return locked == 1 ? SRV_EXIT_DB_IN_USE
               : locked == 2 ? SRV_EXIT_STORE_UNUSABLE : 1;
    }
    listen_fd = srv_listen_open(c->listen, bound, sizeof bound, &port, err, sizeof err);
    if (listen_fd < 0)
        srv_log("%s", err);
    else
        rc = serve(c, &listen_fd, bound, port);
    /* MHD may or may not have closed a socket it failed to start on; no
     * other thread opens files at that point, so the check is exact. */
    if (listen_fd >= 0 && fcntl(listen_fd, F_GETFD) != -1)
        close(listen_fd);
    srv_log("stopped");
    close(lock_fd);
    return rc;
}

int srv_main(int argc, char **argv)
{
    char err[512];
    srv_signals_block();
    if (srv_config_load(&srv.cfg, argc, argv, err, sizeof err) != 0) {
        fprintf(stderr, "ircgd: %s (try --help)\n", err);
        return 2;
    }
    if (srv.cfg.help) {
        srv_config_usage();
        return 0;
    }
    if (srv.cfg.version) {
        printf("ircgd %s (libmicrohttpd %s)\n", IRCG_VERSION, MHD_get_version());
        return 0;
    }
    if (srv.cfg.healthcheck)
        return srv_healthcheck(&srv.cfg);
    if (srv.cfg.hash_token[0])
        return srv_hash_token_main(srv.cfg.hash_token);
    /* Everything the daemon creates -- the database and its -wal/-shm
     * (SQLite gives them the database's mode), the lock, the data
     * directory, dataset copies -- is its own alone: files 0600,
     * directories 0700. */
    umask(077);
    openblas_set_num_threads(1); /* parallelism comes from the workers */
    srv.started_at = srv_now();
    return run(&srv.cfg);
}
