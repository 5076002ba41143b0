/*
 * store.h -- the ircg job store: jobs, objective traces, iterate snapshots,
 * datasets and SSE events in one SQLite file.
 *
 * Threads: a `store` handle is a single SQLite connection and must be used by
 * one thread at a time (open one handle per worker / HTTP thread).  Any
 * number of handles, in any number of threads or processes on one host, may
 * share the same file: readers never block the writer (WAL) and writers queue
 * on the file lock for up to 5 s (busy_timeout) before STORE_BUSY.
 *
 * Durability: journal_mode=WAL with synchronous=NORMAL.  The file is always
 * consistent after a crash of the process or the machine; a power loss or OS
 * crash may roll back the last few commits (they were in the WAL but not yet
 * fsynced).  That loses at most a heartbeat, a trace batch or, in the worst
 * case, a just-acknowledged submission; the recovery path (store_recover)
 * copes with any such prefix.  Use STORE_OPEN_SYNC_FULL to fsync every commit.
 *
 * Errors: every function returns a store_rc; on failure the handle keeps a
 * message readable with store_errmsg() until the next failure.  Nothing is
 * printed.  A failed write transaction is rolled back whole: it wrote
 * nothing.  STORE_BUSY (lock wait over 5 s), STORE_FULL, STORE_READONLY
 * and STORE_IOERR are storage faults worth retrying later
 * (store_rc_transient); the others are answers about the request.
 *
 * Ownership: `store_job`, `store_job_list`, `store_event` arrays, trace-row
 * arrays, snapshot-info arrays and blobs returned through `void **` are
 * allocated by the store and owned by the caller, who releases them with the
 * matching *_clear / *_free function (or free() where stated).  Every free /
 * clear accepts NULL.  Input pointers are borrowed for the duration of the
 * call only; the store copies what it keeps.
 *
 * Time: every time stamp is unix seconds as a double, from store_now().
 * Unset times and unknown numbers are NaN (stored as SQL NULL).
 *
 * A worker's round, for orientation (c = store_claim_of(&job)):
 *   store_job_claim_next(st, &job)       -> running, run + 1, attempt + 1
 *   if store_job_resume_point(st, id, &it, ...) == STORE_OK:
 *       ircg_solver_restore(...); store_trace_truncate(st, &c, it)
 *   else store_trace_truncate(st, &c, 0)           (a retry starts afresh)
 *   every k iterations: store_trace_append (buffered rows),
 *       store_job_progress (stop if *cancel_requested),
 *       store_event_append(PROGRESS), and now and then
 *       store_snapshot_put({state, x, z}, keep_last) + event SNAPSHOT
 *       (per the spec) or store_job_checkpoint_put(state) (on a timer)
 *   store_job_finish(st, &c, SUCCEEDED | FAILED | CANCELLED, result, error)
 * Any of these returning STORE_STALE means the claim is gone: stop, write
 * nothing more.  On SIGTERM: store_job_requeue(st, &c) for each running
 * job.  At startup, before the workers: store_recover(st, max_attempts, ...)
 * -- by the one process that owns the file (ircgd holds "<db>.lock").
 */
#ifndef IRCG_STORE_H
#define IRCG_STORE_H

#include <stddef.h>
#include <stdint.h>

/* SHA-256 (store_digest.c, by Nettle): dataset ids and request hashes. */
#define STORE_SHA256_LEN 32
void store_sha256(const void *data, size_t len, uint8_t out[STORE_SHA256_LEN]);
/* 64 lowercase hex digits + NUL into hex[65]. */
void store_sha256_hex(const uint8_t d[STORE_SHA256_LEN], char hex[65]);
/* The same digest of bytes that come in pieces (an upload as it streams):
 * init, update for each piece, final. */
typedef struct store_sha256_ctx {
    _Alignas(16) unsigned char opaque[128]; /* Nettle's sha256_ctx */
} store_sha256_ctx;
void store_sha256_init(store_sha256_ctx *c);
void store_sha256_update(store_sha256_ctx *c, const void *data, size_t len);
void store_sha256_final(store_sha256_ctx *c, uint8_t out[STORE_SHA256_LEN]);


#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------- basics -- */

typedef enum store_rc {
    STORE_OK = 0,
    STORE_NOTFOUND,  /* no such job / snapshot / dataset; claim: queue empty */
    STORE_CONFLICT,  /* not allowed in the job's current state, or an
                        idempotency key reused with a different request    */
    STORE_INVALID,   /* bad argument (NULL, out of range, too long)        */
    STORE_BUSY,      /* the file stayed locked longer than busy_timeout    */
    STORE_NOMEM,
    STORE_FOREIGN,   /* not an ircg store (application_id), or a schema
                        newer than this build                              */
    STORE_ERROR,     /* any other SQLite or I/O error (see store_errmsg)   */
    STORE_STALE,     /* the caller's claim on the job is gone: the job was
                        requeued, finished or claimed again since          */
    STORE_FULL,      /* the disk (or the page limit, store_limit_pages) is
                        full: nothing was written                          */
    STORE_READONLY,  /* the file cannot be written: read-only file or
                        mount, or it was moved or deleted while open       */
    STORE_CORRUPT,   /* SQLite found the file malformed                    */
    STORE_IOERR      /* the operating system failed a read or write        */
} store_rc;

/* A storage fault that may go away by itself (lock held by another
 * process, disk full, read-only, I/O error, out of memory): the write is
 * worth retrying later, unlike a refusal about the request or the job. */
int store_rc_transient(store_rc rc);

const char *store_rc_name(store_rc rc); /* "ok", "not_found", ... static */

typedef struct store store;

#define STORE_ERRMAX 512              /* size of store_open's errbuf      */
#define STORE_APPLICATION_ID 1230127943 /* 0x49524347 = 'IRCG' (decimal:
                                           pasted into the schema SQL) */
#define STORE_BUSY_TIMEOUT_MS 5000

/* Flags for store_open_ex.  STORE_OPEN_CHECK runs PRAGMA quick_check
 * before anything is written to the file (the WAL switch, migrations):
 * a damaged store is refused with STORE_CORRUPT and left as it was. */
enum { STORE_OPEN_SYNC_FULL = 1, STORE_OPEN_CHECK = 2 };

/* Opens (creating if needed) the store at `path` and migrates its schema.
 * On success *out is a new handle (close with store_close).  On failure
 * *out is NULL and errbuf (may be NULL, else STORE_ERRMAX bytes) holds the
 * reason; a file of another application gives STORE_FOREIGN. */
store_rc store_open(const char *path, store **out, char *errbuf);
store_rc store_open_ex(const char *path, int flags, store **out,
                       char *errbuf);
void store_close(store *st); /* NULL-safe; finalizes cached statements */

/* Message of the most recent failure on this handle ("" if none yet).
 * Owned by the handle, valid until the next call on it. */
const char *store_errmsg(const store *st);

/* Number of schema migrations of this build (== PRAGMA user_version after
 * a successful open). */
int store_schema_version(void);

double store_now(void); /* unix time in seconds, sub-second resolution */

/* PRAGMA integrity_check: *ok = 1 when the file is sound; otherwise 0 and
 * store_errmsg() holds the first problem reported. */
store_rc store_integrity_check(store *st, int *ok);

/* Can this handle take the write lock now?  BEGIN IMMEDIATE waiting at
 * most timeout_ms, then ROLLBACK: STORE_OK, or STORE_BUSY (another
 * connection holds the lock), STORE_READONLY, ... Writes nothing. */
store_rc store_write_probe(store *st, int timeout_ms);

/* PRAGMA max_page_count on this handle: writes that would grow the file
 * beyond `pages` pages fail with STORE_FULL, as on a full disk.  For
 * tests of the full-disk paths (ircgd's IRCGD_TEST_MAX_PAGES); 0 leaves
 * SQLite's default.  *now (may be NULL) receives the file's page count. */
store_rc store_limit_pages(store *st, int64_t pages, int64_t *now);

/* Checkpoints the WAL into the database file and truncates it (run it now
 * and then from a maintenance thread: long readers otherwise let the WAL
 * grow).  STORE_BUSY when readers kept it from completing; harmless. */
store_rc store_checkpoint(store *st);
/* The same, waiting at most timeout_ms for readers and writers (not the
 * busy timeout): what a writer refused for a full disk tries, since a WAL
 * that grew into the last free space is only given back by a checkpoint
 * (SQLite's own comes at 1000 pages, more than a small disk holds). */
store_rc store_checkpoint_within(store *st, int timeout_ms);

/* Storage bounds, for a maintenance pass (store_maintain):
 *  - the snapshots of every finished job are pruned to the keep_snapshots
 *    highest iterations (0 = all kept);
 *  - finished jobs whose finished_at is older than retain_seconds (<= 0 =
 *    kept forever) are deleted with their traces, snapshots and events;
 *  - the free pages go back to the file system (PRAGMA incremental_vacuum,
 *    on files created with auto_vacuum=INCREMENTAL, i.e. by this build).
 * *deleted (may be NULL) counts the jobs deleted. */
typedef struct store_bounds {
    int keep_snapshots;
    double retain_seconds;
} store_bounds;
store_rc store_maintain(store *st, const store_bounds *b, int64_t *deleted);

/* A counter bumped by every change to any job row (insert, update,
 * delete).  Long-polling: remember it, sleep, compare.  Cheap (one row). */
store_rc store_changes(store *st, int64_t *counter);

/* ------------------------------------------------------------- jobs -- */

typedef enum store_state {
    STORE_QUEUED = 0,
    STORE_RUNNING,
    STORE_SUCCEEDED,
    STORE_FAILED,
    STORE_CANCELLED,
    STORE_NSTATES
} store_state;

const char *store_state_name(store_state s); /* "queued", ...; static     */
/* Parses a state name; returns STORE_INVALID for anything else. */
store_rc store_state_parse(const char *name, store_state *out);
int store_state_terminal(store_state s); /* succeeded, failed, cancelled */

#define STORE_JOB_ID_LEN 22 /* "j_" + 20 base32 chars, time-ordered */

typedef struct store_progress {
    int64_t iteration;  /* 0 before the first report                   */
    double elapsed;     /* solver seconds                               */
    double g_x, f_x, g_z, f_z, gap; /* latest values, NaN if unknown    */
} store_progress;

typedef struct store_job {
    char id[STORE_JOB_ID_LEN + 1];
    int64_t seq;             /* submission order, 1, 2, ...; never reused */
    store_state state;
    char *problem_type;      /* owned */
    char *spec_json;         /* owned; NULL in lists without bodies       */
    char *result_json;       /* owned; NULL unless set by finish          */
    char *error_json;        /* owned; problem detail of a failure        */
    char *estimate_json;     /* owned; the spec's estimate at submission
                                (NULL: none, or a list without bodies)   */
    char *idempotency_key;   /* owned; NULL if none                       */
    uint8_t request_sha256[32];
    int has_request_sha256;
    double created_at, started_at, finished_at, heartbeat_at; /* NaN = unset */
    int attempt;             /* claims that did not end in a clean
                                shutdown requeue (see store_job_requeue) */
    int64_t run;             /* claims so far: the current claim's number */
    int cancel_requested;
    store_progress progress;
    int64_t version;         /* +1 on every change: ETag, long-poll       */
    int64_t event_seq;       /* seq of the job's last event (0 = none)    */
    /* from the spec, for listings: its algorithm's name ("" if none) and
     * limits (max_iter 0, time_limit NaN when absent) */
    char algorithm[16];
    int64_t max_iter;
    double time_limit;
} store_job;

/* Frees the owned strings and zeroes *j.  NULL-safe. */
void store_job_clear(store_job *j);

/* A worker's hold on a running job: its id and the number of the run its
 * claim started (jobs.run, bumped by every claim).  Every write a worker
 * makes about its job names the claim, and is refused with STORE_STALE
 * once the job is no longer running under that run -- requeued by a
 * recovery, finished, claimed again --, so a worker that lost its job can
 * never touch the trace, checkpoints, events or outcome of the run that
 * replaced it. */
typedef struct store_claim {
    char id[STORE_JOB_ID_LEN + 1];
    int64_t run;
} store_claim;

store_claim store_claim_of(const store_job *j);

typedef struct store_new_job {
    const char *problem_type;    /* required, <= 64 bytes                 */
    const char *spec_json;       /* required: the normalized request      */
    const char *idempotency_key; /* optional, <= 255 bytes                */
    const uint8_t *request_sha256; /* 32 bytes; required with a key:
                                      store_sha256 of the normalized body */
    const char *estimate_json;   /* optional: the spec's estimate
                                    (api_estimate_json)                  */
} store_new_job;

/* Inserts a queued job with a fresh id.  With an idempotency key already
 * used: same request_sha256 -> STORE_OK, *out = the existing job and
 * *replayed = 1; another hash -> STORE_CONFLICT.  `replayed` may be NULL.
 * `out` (may be NULL) receives the job; clear it with store_job_clear. */
store_rc store_job_create(store *st, const store_new_job *nj, store_job *out,
                          int *replayed);

/* STORE_NOTFOUND if there is no such job. */
store_rc store_job_get(store *st, const char *id, store_job *out);

typedef struct store_list_opts {
    int state;        /* -1 = any, else a store_state                     */
    int oldest_first; /* 0: newest first (default listing); 1: FIFO       */
    int page_size;    /* 1..1000; 0 means 50                              */
    int64_t cursor;   /* 0 = first page, else next_cursor of the last page */
    int with_bodies;  /* 0: spec/result/error JSON left NULL (cheaper)     */
    const char *problem_type; /* NULL = any; borrowed                     */
} store_list_opts;

typedef struct store_job_list {
    store_job *jobs;     /* owned, n entries */
    size_t n;
    int64_t next_cursor; /* 0 when this is the last page; opaque to clients
                            (it is a submission seq; encode it as you like) */
} store_job_list;

void store_job_list_init_opts(store_list_opts *o); /* any state, newest, 50 */
store_rc store_job_list_page(store *st, const store_list_opts *o,
                             store_job_list *out);
void store_job_list_clear(store_job_list *l); /* NULL-safe */

/* counts[s] = number of jobs in state s (for /metrics). */
store_rc store_job_counts(store *st, int64_t counts[STORE_NSTATES]);

/* ------------------------------------------------------- lifecycle -- */
/* Every transition below appends a 'state' event (data: {"id","state",
 * "cancel_requested","attempt","version"}) in the same transaction, and a
 * transition into a terminal state also an 'end' event, so an SSE stream
 * sees every transition exactly once. */

/* Atomically takes the oldest queued job (by submission seq): state
 * running, started_at = heartbeat_at = now, run + 1, attempt + 1.
 * STORE_NOTFOUND when nothing is queued.  `out` (may be NULL) receives
 * the job; store_claim_of(out) is the claim for the calls below. */
store_rc store_job_claim_next(store *st, store_job *out);

/* The claimed run only (else STORE_STALE; STORE_NOTFOUND: no such job):
 * heartbeat_at = now, and when p is not NULL the progress fields (NaN
 * stored as unknown); bumps version.  *cancel_requested (may be NULL)
 * tells the worker to stop. */
store_rc store_job_progress(store *st, const store_claim *c,
                            const store_progress *p, int *cancel_requested);

/* The claimed run -> final (succeeded, failed or cancelled), finished_at =
 * now, with result_json / error_json (either may be NULL).  STORE_STALE
 * when the claim is gone; STORE_INVALID when final is not terminal. */
store_rc store_job_finish(store *st, const store_claim *c, store_state final,
                          const char *result_json, const char *error_json);

/* queued -> cancelled now; running -> cancel_requested = 1 (the worker
 * winds down and finishes it); terminal (including already cancelled) ->
 * STORE_CONFLICT.  In every case but NOTFOUND `out` (may be NULL) receives
 * the job as it is after the call, so the server can answer 200 for an
 * already cancelled job and 409 for a finished one. */
store_rc store_job_request_cancel(store *st, const char *id, store_job *out);

/* Deletes a terminal job with its traces, snapshots and events.
 * STORE_CONFLICT when queued or running. */
store_rc store_job_delete(store *st, const char *id);

/* Graceful shutdown of the claimed run: back to queued (keeping its seq,
 * so it is claimed first again, and its snapshots).  A clean stop is not
 * a failed attempt: the claim's attempt is given back (attempt - 1), so
 * only crashes count towards max_attempts.  A job whose cancel was
 * requested becomes cancelled instead.  STORE_STALE if the claim is gone. */
store_rc store_job_requeue(store *st, const store_claim *c);

/* Running jobs whose heartbeat is older than `before` (unix seconds),
 * oldest first, at most max, as claims into out; *n their number.  The
 * daemon's watchdog releases those no worker of its own holds. */
store_rc store_job_stale(store *st, double before, store_claim *out,
                         size_t max, size_t *n);

/* A claimed run whose worker is gone (no heartbeat) while the daemon
 * lives: settled as a crash recovery would settle it -- back to queued
 * (the lost run counts as an attempt), failed with error_json once out of
 * attempts, cancelled when a cancel was requested.  STORE_STALE when the
 * job is no longer running under that run.  *now (may be NULL) receives
 * the job's new state. */
store_rc store_job_release(store *st, const store_claim *c, int max_attempts,
                           const char *error_json, store_state *now);

/* Startup recovery, to run before the workers start and while no other
 * process uses the file: every job left 'running' by a crash goes back to
 * queued (attempt kept: the crash counts; it resumes from its latest
 * checkpoint) or, when attempt >= max_attempts, to failed with error_json
 * (the caller's problem document) as its error; a job whose cancel was
 * requested becomes cancelled.  *requeued and *failed (either may be NULL)
 * count the two outcomes. */
store_rc store_recover(store *st, int max_attempts, const char *error_json,
                       int *requeued, int *failed);

/* ----------------------------------------------------------- traces -- */

typedef struct store_trace_row {
    int64_t iteration;   /* key within the job */
    double elapsed, sigma, alpha;
    double g_x, f_x, g_z, f_z, gap;
    double g_gap_x, g_gap_z; /* NaN when no reference optimum is known */
    double lmo_seconds;
    int64_t lmo_matvecs;
    double top_sv;       /* NaN outside the nuclear-norm ball */
    int rank;
    /* Schema 4.  The integers are -1 when unknown (stored as NULL): rows
     * written before the upgrade read back that way. */
    int lmo_converged;   /* 1: every singular triplet met lmo_tol; 0: not */
    int backtracks;      /* IR-PG: Armijo step reductions */
    int proj_full;       /* projections: 1 when a full SVD was used */
    double lambda;       /* CG-BiO: multiplier of the cut; NaN otherwise */
    /* Trace chunks of version 3: the certified bounds (ircg_iter_info);
     * rows of earlier chunks read back certified = -1 and NaNs. */
    int certified;
    double inner_gap_x, inner_gap_z, g_lower, f_lower;
} store_trace_row;

/* Inserts n rows of the claimed run in one transaction (all or nothing).
 * The rows are kept as compressed chunks (store_trace_codec.h), every
 * value bit for bit; any NaN reads back as NaN (unknown).  They must come
 * in ascending iteration order after the rows already stored.
 * STORE_NOTFOUND: no such job; STORE_STALE: the claim is gone;
 * STORE_CONFLICT: an iteration is not after the stored ones (truncate
 * first when resuming) or the rows are not ascending. */
store_rc store_trace_append(store *st, const store_claim *c,
                            const store_trace_row *rows, size_t n);

/* Rows with iteration > after, ascending, at most `limit` (1..100000).
 * *rows is malloc'd (caller free()s; NULL when *n == 0).  NULLs read back
 * as NaN.  An unknown job reads as no rows. */
store_rc store_trace_read(store *st, const char *job_id, int64_t after,
                          size_t limit, store_trace_row **rows, size_t *n);

/* Deletes rows with iteration > after_iteration (resume from a snapshot
 * taken at after_iteration: no gap, no duplicate).  Claimed run only. */
store_rc store_trace_truncate(store *st, const store_claim *c,
                              int64_t after_iteration);

/* -------------------------------------------------------- snapshots -- */

typedef enum store_snap_kind {
    STORE_SNAP_STATE = 0, /* ircg_solver_save checkpoint blob */
    STORE_SNAP_X,         /* iterate x, as serialized by the caller */
    STORE_SNAP_Z
} store_snap_kind;

const char *store_snap_kind_name(store_snap_kind k); /* "state","x","z" */
store_rc store_snap_kind_parse(const char *name, store_snap_kind *out);

typedef struct store_snapshot_blob {
    store_snap_kind kind;
    const void *data;     /* borrowed */
    size_t len;
} store_snapshot_blob;

typedef struct store_snapshot_info {
    int64_t iteration;
    store_snap_kind kind;
    int64_t bytes;
    double created_at;
} store_snapshot_info;

/* Stores the n blobs of one snapshot (iteration `iteration`) in one
 * transaction, replacing blobs of the same (iteration, kind), then, when
 * keep_last > 0, deletes every snapshot of the job whose iteration is not
 * among the keep_last highest iterations.  STORE_NOTFOUND: no such job;
 * STORE_STALE: the claim is gone. */
store_rc store_snapshot_put(store *st, const store_claim *c, int64_t iteration,
                            const store_snapshot_blob *blobs, size_t n,
                            int keep_last);

/* All snapshots of a job, by iteration then kind.  *out malloc'd (caller
 * free()s; NULL when *n == 0). */
store_rc store_snapshot_list(store *st, const char *job_id,
                             store_snapshot_info **out, size_t *n);

/* One blob: *data malloc'd (caller free()s; non-NULL even for 0 bytes).
 * `info` may be NULL.  STORE_NOTFOUND if absent. */
store_rc store_snapshot_get(store *st, const char *job_id, int64_t iteration,
                            store_snap_kind kind, void **data, size_t *len,
                            store_snapshot_info *info);

/* The 'state' snapshot blob with the highest iteration (a resumed job
 * restores the newer of it and the crash checkpoint: see
 * store_job_resume_point).  STORE_NOTFOUND when the job has none. */
store_rc store_snapshot_latest_state(store *st, const char *job_id,
                                     int64_t *iteration, void **data,
                                     size_t *len);

/* The first bytes of one blob without reading the rest (a state's header,
 * for a warm start checked before anything is built): the blob of `kind`
 * at `iteration`, or when iteration is 0 the one with the highest
 * iteration.  min(cap, its size) bytes go to buf; *len (may be NULL) is
 * their count, *at (may be NULL) the blob's iteration.  STORE_NOTFOUND
 * when there is no such blob. */
store_rc store_snapshot_head(store *st, const char *job_id, int64_t iteration,
                             store_snap_kind kind, void *buf, size_t cap,
                             size_t *len, int64_t *at);

/* ------------------------------------------------------ checkpoints -- */
/* The server's crash checkpoints (solver state only, ircg_solver_save), on
 * a timer rather than per the spec's snapshot_every: at most one per job,
 * each put replacing the last, deleted when the job finishes. */

/* Stores the claimed run's state at `iteration`, replacing the job's
 * previous checkpoint.  STORE_STALE: the claim is gone. */
store_rc store_job_checkpoint_put(store *st, const store_claim *c,
                                  int64_t iteration, const void *data,
                                  size_t len);

/* Where a restarted job resumes: the state with the highest iteration among
 * its checkpoint and its 'state' snapshots.  *data malloc'd (caller
 * free()s).  STORE_NOTFOUND when it has neither. */
store_rc store_job_resume_point(store *st, const char *job_id,
                                int64_t *iteration, void **data, size_t *len);
/* The checkpoint alone (store_job_checkpoint_put's), whatever snapshots
 * the job has: a job whose solver keeps its own checkpoints elsewhere
 * (an MPI job: its blob says where) resumes from it, never from a
 * snapshot's state.  STORE_NOTFOUND when it has none. */
store_rc store_job_checkpoint_get(store *st, const char *job_id, int64_t *iteration,
                                  void **data, size_t *len);

/* --------------------------------------------------------- datasets -- */

#define STORE_DATASET_ID_LEN 64 /* lowercase hex SHA-256 of the bytes */

typedef struct store_dataset {
    char id[STORE_DATASET_ID_LEN + 1];
    char format[32];     /* caller's tag, e.g. "movielens-100k" */
    char filename[256];  /* original name, "" if none */
    int64_t bytes;
    double created_at;
    char kind[16];       /* "ratings" (the default), "matrix", "vector" */
    char meta[512];      /* the caller's description (JSON), "" if none:
                            datasets stored before it existed have none */
    int in_file;         /* the bytes live in a file the caller keeps, not
                            in the store (store_dataset_add with data NULL) */
} store_dataset;

/* Content-addressed insert: id = SHA-256 of the bytes.  If that id exists
 * nothing is written and *existed = 1 (may be NULL); the stored format and
 * filename are those of the first upload.  format: 1..31 bytes; filename
 * may be NULL, else <= 255 bytes.  `out` may be NULL.  The kind is
 * "ratings", without meta. */
store_rc store_dataset_put(store *st, const void *data, size_t len,
                           const char *format, const char *filename,
                           store_dataset *out, int *existed);
/* The same for a dataset the caller describes: row's id (the SHA-256 of
 * the bytes, 64 lowercase hex digits, which the caller computed as they
 * came), kind (1..15 bytes), format, filename, bytes and meta (< 512
 * bytes).  data (row->bytes of them) is kept in the store; data NULL:
 * the bytes live in a file of the caller's (in_file). */
store_rc store_dataset_add(store *st, const store_dataset *row, const void *data,
                           store_dataset *out, int *existed);
store_rc store_dataset_get(store *st, const char *id, store_dataset *out);
/* *data malloc'd (caller free()s); an in_file dataset has none here. */
store_rc store_dataset_bytes(store *st, const char *id, void **data,
                             size_t *len);
/* Writes the bytes to `path` (through path.tmp + rename, so a reader never
 * sees a partial file) -- for the solver's file readers. */
store_rc store_dataset_write_file(store *st, const char *id,
                                  const char *path);

/* ----------------------------------------------------------- events -- */
/* The table stays bounded.  'state' and 'end' events are kept for the
 * job's life; 'progress' and 'snapshot' events are trimmed:
 *  - while the job runs, to the newest STORE_EVENTS_KEEP_RUNNING of each
 *    type (a client resuming from further back simply gets fewer old
 *    progress events -- they are superseded by the newer ones anyway);
 *  - when the job ends, to at most STORE_EVENTS_KEEP_FINISHED of each
 *    type, evenly spaced over the run, the last one always kept.
 * Seqs are never reused, so Last-Event-ID keeps working across the gaps. */
#define STORE_EVENTS_KEEP_RUNNING 1000
#define STORE_EVENTS_KEEP_FINISHED 100

typedef enum store_event_type {
    STORE_EV_STATE = 0,
    STORE_EV_PROGRESS,
    STORE_EV_SNAPSHOT,
    STORE_EV_END
} store_event_type;

const char *store_event_type_name(store_event_type t); /* "state", ... */

typedef struct store_event {
    int64_t seq;          /* increasing per job (gaps where trimmed): the
                             SSE id */
    store_event_type type;
    char *data;           /* owned JSON text */
    double created_at;
} store_event;

/* Appends an event of the claimed run with the next per-job seq
 * (returned in *seq, may be NULL).  data_json is stored verbatim (the
 * caller builds it).  How often to append progress events is the caller's
 * choice; keep it bounded.  STORE_STALE: the claim is gone. */
store_rc store_event_append(store *st, const store_claim *c,
                            store_event_type type, const char *data_json,
                            int64_t *seq);

/* Events with seq > after_seq (Last-Event-ID), ascending, at most limit
 * (1..10000).  *ev malloc'd; free with store_events_free. */
store_rc store_event_read(store *st, const char *job_id, int64_t after_seq,
                          size_t limit, store_event **ev, size_t *n);
void store_events_free(store_event *ev, size_t n); /* NULL-safe */

/* Trims the events of every finished job as its end would have (files
 * written before the trimming existed); *removed (may be NULL) counts the
 * deleted events.  Cheap when there is nothing to do; run it at start-up. */
store_rc store_events_compact(store *st, int64_t *removed);

#ifdef __cplusplus
}
#endif

#endif /* IRCG_STORE_H */
