/*
 * server.h -- internal interface of ircgd, the ircg HTTP daemon.
 *
 * Modules (one job each):
 *   config.c     flags + environment -> srv_config
 *   util.c       logging, time formatting
 *   storepool.c  a small pool of store handles for HTTP threads
 *   storeio.c    opening store handles; the store's health from the
 *                outcomes of writes; retry pacing
 *   connguard.c  a deadline on receiving a request (slow clients)
 *   ratelimit.c  per-client request rates (token buckets)
 *   notify.c     the condition variable SSE readers and idle workers wait on
 *   http.c       libmicrohttpd glue: request context, body, routing, replies
 *   problem.c    application/problem+json responses
 *   auth.c       hashed bearer tokens and their scopes
 *   tls.c        HTTPS certificate and key; the healthcheck's TLS client
 *   routes_*.c   the endpoints
 *   static.c     the dashboard (/ui), Chart.js from its Debian package, and
 *                /openapi.json, from files compiled in (assets.h)
 *   params.c     unknown query parameters -> 400
 *   cors.c       CORS for the origins an operator allows
 *   accesslog.c  X-Request-Id and the JSON access log
 *   sse.c        /v1/jobs/{id}/events
 *   workers.c    the solver worker pool
 *   heartbeat.c  job heartbeats on a timer, independent of the solver
 *   job_run.c    one job on one worker: parse, resume, solve, finish
 *   job_output.c what a running job writes, retried through store faults
 *   job_remote.c a run whose solver is another process (srv_run_*)
 *   mpi_job.c    a job solved by MPI ranks: the launcher, rank 0's progress
 *   mpi_proc.c   the launcher as a child process: its output, its stop
 *   mpi_inputs.c an MPI job's inline data or dataset as a file the ranks read
 *   mpi_resume.c where an MPI job's ranks go on: newest whole checkpoint
 *   mpi_sched.c  lost hosts in the launcher's words; Slurm's cancel, time
 *                limit and reasons
 *   metrics.c    Prometheus counters and histograms
 *   shutdown.c   the signal thread
 *   dblock.c     the exclusive lock on "<db>.lock": one daemon per store
 *   sockets.c    the listen socket (getaddrinfo), the healthcheck's client
 *   daemon.c     start-up and orderly stop (srv_main)
 *
 * Threads: MHD runs one thread per connection; the worker pool has its own
 * threads; one signal thread.  Shared state lives in the global `srv` below,
 * written once before any thread starts except for the atomics.
 */
#ifndef IRCG_SERVER_H
#define IRCG_SERVER_H

#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "buf.h"
#include "ircg.h"
#include "store.h"

#define SRV_NAME "ircgd"

/* ------------------------------------------------------------ config -- */

typedef struct srv_config {
    char listen[256];     /* ADDR:PORT or [ADDR6]:PORT                     */
    char db[1024];
    char data_dir[1024];  /* absolute after srv_config_finish()            */
    char tokens_file[1024];
    char tls_cert[1024], tls_key[1024]; /* PEM files; both or neither   */
    char hash_token[16];  /* --hash-token SCOPE: print an entry and exit */
    char cors_origins[1024]; /* comma-separated origins allowed by CORS;
                                "" = CORS off                            */
    char ui_chartjs[1024];   /* where Debian's libjs-chart.js put Chart.js */
    int workers;
    int job_threads;      /* most threads a job's sparse kernels may use;
                             0 = automatic: the cores over the workers    */
    int64_t max_body;
    int64_t max_queued;   /* 0 = unlimited                                 */
    int64_t max_elements; /* cap on synthetic/inline data (api_parse_options) */
    int64_t max_trace_rows; /* trace rows a job keeps (job_output.c)       */
    int64_t max_job_memory; /* bytes a job may hold by its estimate
                               (api_parse_options.max_memory); the
                               requests' bodies and JSON trees share one
                               such budget too.  0 until
                               srv_config_load: then the default,
                               srv_default_job_memory */
    int max_attempts;
    int snapshot_keep;    /* 0 = keep all                                  */
    int snapshot_keep_finished; /* once a job is finished; 0 = keep all    */
    double retain_finished; /* seconds a finished job is kept; 0 = forever */
    int conn_limit, per_ip_limit, conn_timeout;
    double request_timeout; /* seconds to receive a whole request       */
    double rate_limit;      /* requests per second per client; 0 = off  */
    double rate_burst;      /* bucket size of the rate limit            */
    double sse_max_seconds; /* lifetime of an event stream              */
    double heartbeat_every; /* seconds between job heartbeats             */
    double checkpoint_every; /* seconds of solving between crash
                                checkpoints; 0 = only the spec's snapshots */
    /* MPI jobs ("execution": {"ranks": N}, mpi_job.c) */
    char mpi_launch[1024];  /* the launcher, "{ranks}" in it; "" = off     */
    char mpi_program[1024]; /* ircg-mpi; "" = beside ircgd                 */
    char mpi_workdir[1024]; /* per-job spec, result and checkpoints; ""
                               = "<db>.mpi" (a shared file system when
                               the ranks run on other hosts)            */
    double mpi_stop_grace;  /* seconds the ranks get to stop on a cancel
                               before the launcher is terminated          */
    int healthcheck, help, version;
} srv_config;

/* The storage bounds of the configuration (snapshots of finished jobs,
 * retention, free pages): after every finished job and at start-up
 * (job_run.c).  A failure is logged, never fatal. */
void srv_maintain(store *st);

/* Defaults, then environment, then argv (flags win).  Returns 0 on
 * success; on a usage error writes a message into err and returns -1. */
int srv_config_load(srv_config *c, int argc, char **argv, char *err,
                    size_t errlen);
void srv_config_usage(void);
/* Cores this process may run on (its CPU affinity). */
int srv_cores(void);
/* The memory this process may use: the physical memory, or its cgroup's
 * limit when lower (a container); 0 when neither can be read. */
int64_t srv_memory_available(void);
/* --max-job-memory's default: 80% of that, shared by the workers, the
 * dry runs' worker and the requests in flight (workers + 2 shares), so
 * that all of them at their budgets leave a fifth of the memory for the
 * process itself and the rest of the machine; 4 GiB when the memory is
 * unknown. */
int64_t srv_default_job_memory(const srv_config *c);
/* The threads a job gets: its spec's, at most job_threads, or without
 * job_threads at most max(1, cores / workers), so that the workers' threads
 * never exceed the cores unless the operator asked for it. */
int srv_job_threads_cap(const srv_config *c);

/* -------------------------------------------------------------- util -- */

void srv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One line as is (the access log's JSON), under the same lock. */
void srv_log_raw(const char *line);
double srv_now(void);          /* unix seconds */
double srv_mono(void);         /* monotonic seconds */
/* Timed waits on CLOCK_MONOTONIC, so a step of the wall clock neither
 * stretches nor cuts them: init a condition variable for it (once, before
 * any use), and the deadline `seconds` from now for pthread_cond_timedwait. */
void srv_cond_init_monotonic(pthread_cond_t *cv);
void srv_deadline(struct timespec *dl, double seconds);
/* RFC 3339 UTC with milliseconds into buf (>= 32 bytes); "" for NaN. */
char *srv_time_rfc3339(char *buf, double t);


/* Constant-time string equality (time depends on the lengths only). */
int srv_ct_equal(const char *a, const char *b);

/* ----------------------------------------------------------- storeio -- */

/* A new handle on srv.cfg.db (NULL with err, STORE_ERRMAX bytes, set).
 * Every handle of the daemon comes from here. */
store *srv_store_open(char *err);
/* The outcome of a write to the store: STORE_OK ends a fault episode; a
 * storage fault (store_rc_transient) starts or extends one (logged once,
 * counted); any other code is an answer, not a fault, and is ignored. */
void srv_store_note(store *st, store_rc rc, const char *what);
/* Jobs holding data they could not write yet (+1 when one starts
 * waiting, -1 when its writes went through or it gave up). */
void srv_store_waiting(int delta);
/* 1 while the store cannot take writes (a job waits to write, or a write
 * failed moments ago); why (may be NULL) receives the reason. */
int srv_store_degraded(char *why, size_t len);
/* Storage faults of code rc since start (for /metrics). */
uint64_t srv_store_failures(store_rc rc);
/* Retry pacing: the wait before retry number `attempt` (0, 1, ...):
 * 0.1 s doubling up to SRV_STORE_BACKOFF_MAX. */
#define SRV_STORE_BACKOFF_MAX 5.0
double srv_store_backoff(int attempt);
/* Sleeps `seconds`, cut short when a shutdown begins meanwhile. */
void srv_store_pause(double seconds);
/* After a shutdown began, how long a worker keeps retrying the writes
 * that end its job before leaving the job to the next start's recovery. */
#define SRV_STORE_SHUTDOWN_GRACE 10.0

/* --------------------------------------------------------- connguard -- */

/* Slow clients (connguard.c): a connection must deliver each request
 * within request_timeout_s (after a response, plus idle_timeout_s). */
int srv_guard_start(double request_timeout_s, double idle_timeout_s);
void srv_guard_stop(void);              /* after MHD_stop_daemon */
void srv_guard_open(const void *conn, int fd);
void srv_guard_close(const void *conn);
/* busy 1: a request is being handled (no deadline); 0: it was answered. */
void srv_guard_busy(const void *conn, int busy);
uint64_t srv_guard_closed(void);        /* connections shut for slowness */

/* --------------------------------------------------------- ratelimit -- */

/* One request of `client` (its token, or its address) against its
 * bucket: 1 when allowed; 0 with *retry_after seconds otherwise. */
int srv_rate_take(const char *client, double *retry_after);
uint64_t srv_rate_refused(void);

/* --------------------------------------------------------- storepool -- */

int srv_pool_init(const char *db_path);
store *srv_pool_get(void);     /* NULL on failure (logged)        */
void srv_pool_put(store *st);  /* NULL-safe                        */
void srv_pool_close(void);

/* ------------------------------------------------------------ notify -- */

/* A generation counter bumped whenever a job's events change; readers
 * remember it before looking at the store and wait for it to move. */
uint64_t srv_notify_gen(void);
void srv_notify_all(void);
/* Waits until the generation differs from `seen`, shutdown begins, or
 * `timeout_s` elapses. */
void srv_notify_wait(uint64_t seen, double timeout_s);

/* -------------------------------------------------------------- auth -- */

/* What a token may do; each scope includes the ones below it.  NONE is
 * "no valid token" (and, for a route, "no token needed"). */
typedef enum srv_scope {
    SRV_SCOPE_NONE = 0, SRV_SCOPE_READ = 1, SRV_SCOPE_SUBMIT = 2, SRV_SCOPE_ADMIN = 3
} srv_scope;

#define SRV_DIGEST_LEN 32  /* SHA-256 */
#define SRV_TOKEN_MIN 16   /* shortest token --hash-token accepts */

typedef struct srv_token {
    uint8_t digest[SRV_DIGEST_LEN]; /* SHA-256 of the token */
    srv_scope scope;
} srv_token;

typedef struct srv_tokens {
    srv_token *list;       /* NULL = auth off */
    size_t n;
} srv_tokens;

/* Reads "sha256:<hex> SCOPE" lines; -1 with err naming the line. */
int srv_tokens_load(const char *path, srv_tokens *out, char *err, size_t errlen);
void srv_tokens_free(srv_tokens *ts);
/* The scope the Authorization header value grants: NONE without a known
 * token, ADMIN when auth is off. */
srv_scope srv_auth_scope(const char *authorization);
const char *srv_scope_name(srv_scope s);
int srv_scope_parse(const char *name, srv_scope *out); /* 0 on success */
void srv_token_digest(const char *token, size_t len, uint8_t digest[SRV_DIGEST_LEN]);
/* `ircgd --hash-token SCOPE`: a token on stdin -> its tokens-file entry on
 * stdout.  Returns the exit status. */
int srv_hash_token_main(const char *scope_name);

/* --------------------------------------------------------------- tls -- */

/* The PEM certificate (chain) and key of HTTPS, NUL-terminated; NULLs
 * when TLS is off. */
typedef struct srv_tls {
    char *cert, *key;
    size_t cert_len, key_len;
} srv_tls;

/* Reads and checks --tls-cert/--tls-key (a no-op without them); -1 with
 * err set when TLS is unsupported or the files are unusable. */
int srv_tls_load(const srv_config *c, srv_tls *t, char *err, size_t errlen);
void srv_tls_free(srv_tls *t); /* wipes the key */
/* --healthcheck over TLS: sends req on the connected fd, reads at most cap
 * bytes of the answer; -1 on failure. */
ssize_t srv_tls_exchange(int fd, const char *req, size_t len, char *resp, size_t cap);

/* ----------------------------------------------------------- globals -- */

typedef struct srv_state {
    srv_config cfg;
    srv_tokens tokens;      /* list NULL = auth off                     */
    srv_tls tls;            /* cert NULL = plain HTTP                   */
    volatile int shutting_down; /* atomic access only                   */
    double started_at;
} srv_state;

extern srv_state srv;

int srv_is_shutting_down(void);

/* ----------------------------------------------------------- workers -- */

int srv_workers_start(int n);
/* Signal every worker to stop; running jobs are cancelled with reason
 * "shutdown" and requeued.  Then joins them. */
void srv_workers_stop(void);
void srv_workers_wake(void);       /* a job was queued */
/* The in-memory cancel flag of the worker running job `id` (if any). */
void srv_workers_cancel(const char *id);
int srv_workers_busy(void);
/* The claims of the busy workers (at most max) into out; returns how many. */
int srv_workers_claims(store_claim *out, int max);
/* Stops the worker holding exactly claim c (same job, same run) with
 * `reason`; 1 if one did. */
int srv_workers_stop_claim(const store_claim *c, int reason);

/* One worker's control block, shared with the HTTP and heartbeat threads
 * (atomics). */
typedef struct srv_worker_ctl {
    int cancel;       /* the solver's cancel flag                          */
    int reason;       /* why it was raised: SRV_STOP_*                     */
} srv_worker_ctl;

/* Why a worker's solver was stopped; a higher reason is never replaced by
 * a lower one (a lost claim outranks a shutdown, which outranks a user's
 * cancel, whose request the store still honours on requeue). */
enum { SRV_STOP_NONE = 0, SRV_STOP_USER = 1, SRV_STOP_SHUTDOWN = 2,
       SRV_STOP_LOST = 3 /* the store says another run owns the job now */ };

/* trace_row.c: an iteration's report as the store's row, and back. */
store_trace_row srv_trace_row(const ircg_iter_info *it);
ircg_iter_info srv_trace_info(const store_trace_row *r);

/* job_run.c: run one claimed job to its end (finish or requeue). */
void srv_job_run(srv_worker_ctl *ctl, store *st, const store_job *job);
void srv_worker_stop(srv_worker_ctl *ctl, int reason);

/* job_remote.c, for a run whose solver is another process (mpi_job.c):
 * the rows it reports go through the same backlog, progress, events and
 * store writes as a solve on the worker (trace_every as the spec's).
 * Every write names the job's claim; srv_run_lost says the claim is gone
 * (then nothing more is written).  finish/fail/requeue end the run. */
typedef struct run_ctx srv_run;
srv_run *srv_run_open(srv_worker_ctl *ctl, store *st, const store_job *job,
                      int64_t trace_every);
void srv_run_close(srv_run *c);  /* NULL-safe */
int srv_run_lost(const srv_run *c);
/* The trace kept up to `iteration` (0: none), where the run goes on. */
int srv_run_truncate(srv_run *c, int64_t iteration);
void srv_run_row(srv_run *c, const ircg_iter_info *it);
/* The rows so far stored (through storage faults); 1 when they are. */
int srv_run_flush(srv_run *c);
/* The rows so far, then blob as the job's resume point at `iteration`. */
void srv_run_checkpoint(srv_run *c, int64_t iteration, const void *blob, size_t len);
/* The rows so far, then a snapshot of the spec's made elsewhere: the
 * state, x and z blobs in that order, stored as a solve here stores its
 * own (through storage faults, with its event). */
void srv_run_snapshot(srv_run *c, int64_t iteration, const void *const blob[3],
                      const size_t len[3]);
/* Dataset id's bytes into the file path (its record into ds), read
 * through storage faults; 0, or -1 (store_errmsg says why). */
int srv_run_dataset_file(srv_run *c, const char *id, const char *path, store_dataset *ds);
/* The solver state of job's snapshot at iteration into the file path (a
 * start the ranks restore); 0, or -1 (the store said why). */
int srv_run_snapshot_file(srv_run *c, const char *job, int64_t iteration, const char *path);
void srv_run_requeue(srv_run *c);
void srv_run_finish(srv_run *c, store_state s, const char *result, const char *error);
void srv_run_fail(srv_run *c, const char *slug, const char *title, const char *detail);

/* mpi_job.c: the ranks a job's spec asks for ("execution": {"ranks"}),
 * read from its stored spec; 0 for a job solved on the worker. */
int srv_mpi_ranks(const store_job *job);
/* Runs such a job to its end through the operator's launcher. */
void srv_mpi_job_run(srv_worker_ctl *ctl, store *st, const store_job *job);
/* At start-up: ircg-mpi and the work directory resolved (when a launcher
 * is configured); -1 (logged) when unusable. */
int srv_mpi_prepare(srv_config *c);
/* "execution": {"ranks", "hosts"} of the running MPI job `id` as JSON text
 * (malloc'ed), once its rank 0 reported them; else NULL. */
char *srv_mpi_execution(const char *id);

/* ---------------------------------------------------------- heartbeat -- */

/* heartbeat.c: a ticker that writes heartbeat_at for every busy worker's
 * job every `every_s` seconds, whatever the solver is doing (a reference
 * computation or CG-BiO's warm start call no callback for minutes), and
 * passes on cancel requests and lost claims it learns from the store. */
int srv_heartbeat_start(double every_s);
void srv_heartbeat_stop(void); /* before srv_workers_stop */
/* Seconds since the ticker last completed a round of heartbeats. */
double srv_heartbeat_age(void);
/* The age beyond which /readyz reports the heartbeats stalled: several
 * missed rounds, and never less than a minute (a store busy for a few
 * seconds is no reason to take the daemon out of rotation). */
#define SRV_HEARTBEAT_STALE(every) ((every) * 12.0 > 60.0 ? (every) * 12.0 : 60.0)
/* The heartbeat age after which a running job that no worker of this
 * daemon holds is released by the watchdog (heartbeat.c): a few rounds. */
#define SRV_ORPHAN_AFTER(every) ((every) * 4.0 > 1.0 ? (every) * 4.0 : 1.0)

/* ----------------------------------------------------------- metrics -- */

void srv_metrics_request(const char *route, const char *method, unsigned code,
                         double seconds);
void srv_metrics_finished(store_state s);
void srv_metrics_queue_wait(double seconds);
void srv_metrics_run(double seconds);
void srv_metrics_iterations(int64_t n);
/* The exposition text (malloc'ed) using `st` for the job gauges. */
char *srv_metrics_render(store *st);

/* ----------------------------------------------------------- dry runs -- */

/* dryrun.c: the worker of ?dry_run=full (one at a time, a job's limits);
 * started and stopped with the workers. */
int srv_dryrun_start(void);
void srv_dryrun_stop(void);
struct srv_req;
/* The full build of the request's body on that worker, this thread
 * waiting; the reply (200 with the normalized spec and the estimate, the
 * spec's problem document, 422 time-limit, or 503 dry-runs-busy) is sent
 * on r.  time_limit: the spec's (0: none; capped at --request-timeout). */
void srv_dryrun_full(struct srv_req *r, double time_limit);

/* ---------------------------------------------------------- datasets -- */

struct api_parse_options;
/* routes_datasets.c: api_dataset_fn for {"source":"dataset","id":...}
 * (user is a store*), given to api_parse_options_service with the data
 * directory and the size cap, at submission and in the worker alike. */
ircg_error srv_dataset_resolve(void *user, const char *id, ircg_ratings **out,
                               ircg_diag *diag);
/* Its size in bytes (api_parse_options.dataset_bytes: the estimate); -1
 * when there is no such dataset. */
int64_t srv_dataset_bytes(void *user, const char *id);

/* ------------------------------------------------------- warm start -- */

struct api_job_source;
struct api_spec;
struct api_start_job;
/* warm_start.c: api_job_fn for {"start": {"job": ...}} (user is a store*):
 * the job's spec and the head of its snapshot's state. */
ircg_error srv_job_source(void *user, const char *id, int64_t snapshot,
                          struct api_job_source *out, ircg_diag *diag);
/* The service's parse options (data directory, size cap, datasets and
 * jobs resolved in st), at submission and in the worker alike. */
void srv_parse_options(struct api_parse_options *o, store *st);
/* A spec's start from another job (sj; its snapshot's state read by the
 * worker, through store faults): restored into sv as the spec says; *iter
 * is where the run goes on (the snapshot's iteration, or 0 afresh).  1
 * when restored, -1 on failure (diag says why). */
int srv_warm_restore(ircg_solver *sv, const struct api_start_job *sj, const void *blob,
                     size_t len, int64_t *iter, ircg_diag *diag);

/* ------------------------------------------------------------ daemon -- */

int srv_main(int argc, char **argv);

/* Exit status of a daemon refused because another one holds the store. */
#define SRV_EXIT_DB_IN_USE 3
/* Exit status of a daemon refused because its store is damaged, not an
 * ircg store, or cannot be written. */
#define SRV_EXIT_STORE_UNUSABLE 4

/* dblock.c: takes the exclusive lock of `db` ("<db>.lock").  0: held, the
 * descriptor in *fd (close it to release); 1: another process holds it;
 * 2: the lock file cannot be written (read-only file system, no
 * permission); -1: another error.  err explains the last three. */
int srv_db_lock(const char *db, int *fd, char *err, size_t errlen);

/* sockets.c: a listening socket for ADDR:PORT (names resolved); `bound`
 * receives the numeric address ("127.0.0.1", "[::1]") and *port the port
 * (the one picked for port 0).  -1 with err set on failure. */
int srv_listen_open(const char *listen_addr, char *bound, size_t boundlen,
                    int *port, char *err, size_t errlen);
/* A connected client socket (send/receive timeouts set), or -1. */
int srv_connect(const char *host, int port, double timeout_s);

/* shutdown.c */
void srv_signals_block(void);  /* before any thread starts */
int srv_signals_start(void);
int srv_signals_wait(void);    /* blocks until SIGTERM/SIGINT */
int srv_healthcheck(const srv_config *c);
/* Parse ADDR:PORT; returns 0 on success. */
int srv_parse_listen(const char *s, char *host, size_t hostlen, int *port);

#endif /* IRCG_SERVER_H */
