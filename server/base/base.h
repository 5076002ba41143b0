/*
 * base.h -- the base room of ircgd (docs/DESIGN.md, "The server's rooms"):
 * what every other room stands on, and which includes nothing of theirs.
 *
 *   config.c      flags + environment -> srv_config; cores, memory
 *   util.c        logging, clocks, time formatting
 *   storeio.c     opening store handles; the store's health from the
 *                 outcomes of writes; retry pacing
 *   storepool.c   a small pool of store handles for HTTP threads
 *   notify.c      the condition variable SSE readers and idle workers wait on
 *   auth.c        hashed bearer tokens and their scopes
 *   tls.c         HTTPS certificate and key; the healthcheck's TLS client
 *   metrics.c     Prometheus counters and histograms
 *   dblock.c      the exclusive lock on "<db>.lock": one daemon per store
 *   sockets.c     the listen socket (getaddrinfo), the healthcheck's client
 *   shutdown.c    the signal thread
 *   healthcheck.c `ircgd --healthcheck`
 *
 * Shared state lives in the global `srv` below, written once before any
 * thread starts except for the atomics.
 */
#ifndef IRCG_SERVER_BASE_H
#define IRCG_SERVER_BASE_H

#include <stdarg.h>
#include <stdbool.h>
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
    int64_t max_upload;   /* bytes of a dataset upload (streamed to disk) */
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
/* True while the store cannot take writes (a job waits to write, or a
 * write failed moments ago); why (may be NULL) receives the reason. */
bool srv_store_is_degraded(char *why, size_t len);
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

bool srv_is_shutting_down(void);

/* ----------------------------------------------------------- metrics -- */

void srv_metrics_request(const char *route, const char *method, unsigned code,
                         double seconds);
void srv_metrics_finished(store_state s);
void srv_metrics_queue_wait(double seconds);
void srv_metrics_run(double seconds);
void srv_metrics_iterations(int64_t n);
/* What the rooms above count, read by the caller (the metrics route) and
 * passed in, so that metrics.c reaches no room above the base. */
typedef struct srv_metrics_gauges {
    int workers_busy;           /* workers running a job                */
    uint64_t slow_closed;       /* connections shut for slowness        */
    uint64_t rate_refused;      /* requests refused by the rate limit   */
} srv_metrics_gauges;
/* The exposition text (malloc'ed) using `st` for the job gauges. */
char *srv_metrics_render(store *st, const srv_metrics_gauges *g);

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

#endif /* IRCG_SERVER_BASE_H */
