/*
 * ircg_client.h -- public API of libircgclient, a C client of the ircgd
 * HTTP service (submit jobs, follow them, fetch traces, results, snapshots,
 * upload datasets), on libcurl.
 *
 * Conventions (the same as solver/include/ircg.h):
 *  - every function that talks to the server returns an ircg_client_code
 *    (0 = IRCG_CLIENT_OK) and, when the caller passes a non-NULL
 *    ircg_client_error, fills it with the HTTP status and, for an
 *    application/problem+json answer, its title, detail and each
 *    (pointer, reason) of its "errors" list;
 *  - every *_free and *_clear accepts NULL;
 *  - string arguments are borrowed for the duration of the call (the
 *    handle copies what it keeps); a job id may point into the job struct
 *    the same call fills ("ircg_client_wait(c, job.id, NULL, &job, &err)");
 *    buffers returned through char ** or
 *    void ** are malloc'ed, NUL-terminated (binary snapshots too, one byte
 *    past *len) and owned by the caller, who releases them with free();
 *    structs filled by the library own their pointer members and are
 *    released with the matching *_clear;
 *  - no printing, no signal handlers, no globals but libcurl's own state
 *    and the once-flag that initializes it.
 *
 * Threads: a handle (ircg_client) is not thread-safe -- it keeps one curl
 * easy handle so consecutive requests reuse the connection -- but distinct
 * handles may be used from distinct threads at the same time.  libcurl's
 * process-wide state is initialized exactly once (pthread_once) by the
 * first ircg_client_new or by ircg_client_global_init(); a program that
 * also calls curl_global_init itself, or that wants the initialization at
 * a known point, calls ircg_client_global_init() from main before starting
 * threads.  ircg_client_global_cleanup() may be called at exit, after every
 * handle is freed and no other thread uses libcurl; no handle may be
 * created after it.
 */
#ifndef IRCG_CLIENT_H
#define IRCG_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- codes -- */

typedef enum ircg_client_code {
    IRCG_CLIENT_OK = 0,
    IRCG_CLIENT_ERR_INVALID = 1,   /* a bad argument (NULL, empty id, URL)   */
    IRCG_CLIENT_ERR_NOMEM = 2,     /* an allocation failed                   */
    IRCG_CLIENT_ERR_TRANSPORT = 3, /* no HTTP answer: connection refused,
                                      timeout, reset (error.message says)   */
    IRCG_CLIENT_ERR_HTTP = 4,      /* the server answered 4xx/5xx or an
                                      unexpected status (error.status)      */
    IRCG_CLIENT_ERR_PROTOCOL = 5,  /* the answer is not what the API
                                      promises (unparsable JSON, ...)       */
    IRCG_CLIENT_ERR_TIMEOUT = 6,   /* ircg_client_wait: the deadline passed
                                      before the job finished               */
    IRCG_CLIENT_ERR_STOPPED = 7    /* ircg_client_wait: the callback asked
                                      to stop                               */
} ircg_client_code;

const char *ircg_client_code_string(ircg_client_code c); /* "transport error" */

/* One member of a problem's "errors" list: a JSON pointer into the request
 * ("/problem/domain/radius", "/query/state", "" for the whole body) and
 * why it is wrong. */
typedef struct ircg_client_member_error {
    char *pointer;
    char *reason;
} ircg_client_member_error;

/* What went wrong, filled by every call that fails (and cleared by every
 * call that succeeds).  Caller-owned: zero-initialize it ("= {0}") or call
 * ircg_client_error_init before its first use, then ircg_client_error_clear
 * when done; a call reusing it clears the previous content first. */
typedef struct ircg_client_error {
    ircg_client_code code;
    long status;          /* HTTP status; 0 when no answer was received    */
    char message[512];    /* one line for humans, always set on failure    */
    /* members of an application/problem+json answer ("" otherwise)        */
    char type[128];       /* "urn:ircg:problem:invalid-spec", ...          */
    char title[128];
    char detail[512];     /* a non-problem answer with a "reason" member
                             (/readyz) puts it here too                     */
    ircg_client_member_error *errors; /* n_errors entries, owned           */
    size_t n_errors;
    double retry_after;   /* seconds of a Retry-After header, -1 if none   */
    char *body;           /* the raw body of the failed answer, owned,
                             NULL when there was none (extension members:
                             "line" of an invalid dataset, "state" of a
                             result not ready)                              */
} ircg_client_error;

void ircg_client_error_init(ircg_client_error *e);
void ircg_client_error_clear(ircg_client_error *e); /* frees; e reusable  */
/* The reason given for `pointer`, or NULL when it is not listed. */
const char *ircg_client_error_reason(const ircg_client_error *e,
                                     const char *pointer);

/* --------------------------------------------------------------- handle -- */

typedef struct ircg_client_options {
    const char *token;       /* bearer token, NULL = none (copied)         */
    double connect_timeout;  /* seconds to establish a connection, > 0     */
    double timeout;          /* seconds for a whole request, > 0; event
                                streams use the wait deadline instead       */
    const char *user_agent;  /* NULL = "ircg-client/<version>" (copied)    */
} ircg_client_options;

/* connect_timeout 5 s, timeout 60 s, no token. */
void ircg_client_options_default(ircg_client_options *o);

typedef struct ircg_client ircg_client;

/* base_url: "http://host:port", optionally with a path prefix behind a
 * proxy ("https://example.org/ircg"); a trailing slash is ignored.  Only
 * http and https are accepted.  opt may be NULL (defaults).  No request is
 * made: a wrong address shows up on the first call. */
ircg_client_code ircg_client_new(const char *base_url,
                                 const ircg_client_options *opt,
                                 ircg_client **out, ircg_client_error *err);
void ircg_client_free(ircg_client *c);

ircg_client_code ircg_client_global_init(void);
void ircg_client_global_cleanup(void);

/* ----------------------------------------------------------------- jobs -- */

typedef enum ircg_client_state {
    IRCG_CLIENT_STATE_UNKNOWN = 0, /* not a job (dry run) or a new state   */
    IRCG_CLIENT_STATE_QUEUED,
    IRCG_CLIENT_STATE_RUNNING,
    IRCG_CLIENT_STATE_SUCCEEDED,
    IRCG_CLIENT_STATE_FAILED,
    IRCG_CLIENT_STATE_CANCELLED
} ircg_client_state;

const char *ircg_client_state_name(ircg_client_state s); /* "queued", ... */
ircg_client_state ircg_client_state_parse(const char *name); /* or UNKNOWN */
int ircg_client_state_terminal(ircg_client_state s); /* succeeded, failed,
                                                        cancelled          */

/* The job resource.  Timestamps are RFC 3339 strings, "" when not yet
 * reached; numbers the server reports as null are NaN. */
typedef struct ircg_client_job {
    char id[64];
    ircg_client_state state;
    char problem_type[32];        /* "least_squares", "matrix_completion"  */
    char created_at[40], started_at[40], finished_at[40], heartbeat_at[40];
    int attempt;                  /* runs started (crash recoveries + 1)   */
    int cancel_requested;
    int64_t version;              /* grows with every change (the ETag)    */
    /* progress: the latest reported iteration */
    int64_t iteration;
    double elapsed, g_x, f_x, g_z, f_z, gap;
    /* when finished: the solver's outcome ("converged", "max_iter",
     * "time_limit", "cancelled", ...; "" before) and, for a failed job,
     * the title and detail of its error */
    char result_status[32];
    char error_title[128];
    char error_detail[512];
    /* when finished with a certificate (NaN, -1 without): the certified
     * g(x) - g* <= inner_gap, f(x) - f* <= outer_gap, f* >= f_lower, made
     * at cert_iteration; and the result's warnings (api/SPEC.md): their
     * codes ("inner_unsolved,loose", "" when none) and the first one's
     * message */
    double inner_gap, outer_gap, f_lower;
    int64_t cert_iteration;
    char warning_codes[96];
    char warning[512];
    /* the answer as received, owned (a dry run: {"valid":true,"spec":...}) */
    char *json;
    /* submit only: 1 when an Idempotency-Key replayed an existing job */
    int replayed;
    /* from the spec: the algorithm ("ircg", ...) and its limits (max_iter
     * 0 and time_limit NaN when not reported), for progress and an ETA */
    char algorithm[16];
    int64_t max_iter;
    double time_limit;
} ircg_client_job;

void ircg_client_job_clear(ircg_client_job *j); /* frees json; zeroes j   */

typedef struct ircg_client_submit_options {
    const char *idempotency_key; /* NULL = none; 1..255 bytes             */
    int dry_run;                 /* validate only: 200 and the normalized
                                    spec in job->json, nothing queued      */
} ircg_client_submit_options;

/* POST /v1/jobs.  spec_json: the job specification (see api/); opt may be
 * NULL.  An invalid spec gives IRCG_CLIENT_ERR_HTTP with status 422 (400
 * for malformed JSON) and one entry per offending member in err->errors.
 * job may be NULL. */
ircg_client_code ircg_client_submit(ircg_client *c, const char *spec_json,
                                    const ircg_client_submit_options *opt,
                                    ircg_client_job *job, ircg_client_error *err);

/* GET /v1/jobs/{id}. */
ircg_client_code ircg_client_get_job(ircg_client *c, const char *id,
                                     ircg_client_job *job, ircg_client_error *err);

typedef struct ircg_client_list_options {
    ircg_client_state state;  /* UNKNOWN = every state                     */
    int page_size;            /* 1..1000; 0 = the server's default         */
    const char *page_token;   /* from a previous page; NULL = first page   */
} ircg_client_list_options;

typedef struct ircg_client_job_list {
    ircg_client_job *jobs;    /* n entries, newest first; json members NULL */
    size_t n;
    char *next_page_token;    /* NULL on the last page                     */
} ircg_client_job_list;

/* GET /v1/jobs; opt may be NULL (first page of every job). */
ircg_client_code ircg_client_list_jobs(ircg_client *c,
                                       const ircg_client_list_options *opt,
                                       ircg_client_job_list *list,
                                       ircg_client_error *err);
void ircg_client_job_list_clear(ircg_client_job_list *l);

/* POST /v1/jobs/{id}/cancel.  A queued job is cancelled at once; a running
 * one stops within an iteration (job->cancel_requested is set, the state
 * follows).  A finished job gives IRCG_CLIENT_ERR_HTTP, status 409.  job
 * may be NULL. */
ircg_client_code ircg_client_cancel(ircg_client *c, const char *id,
                                    ircg_client_job *job, ircg_client_error *err);

/* DELETE /v1/jobs/{id}: the job, its trace and snapshots.  A job not yet
 * finished gives status 409 (cancel it first). */
ircg_client_code ircg_client_delete(ircg_client *c, const char *id,
                                    ircg_client_error *err);

/* ----------------------------------------------------------------- wait -- */

typedef enum ircg_client_wait_mode {
    IRCG_CLIENT_WAIT_EVENTS = 0, /* follow GET /v1/jobs/{id}/events (SSE),
                                    reconnecting with Last-Event-ID        */
    IRCG_CLIENT_WAIT_POLL        /* GET /v1/jobs/{id} with If-None-Match,
                                    the interval growing geometrically     */
} ircg_client_wait_mode;

/* What a wait callback sees: a state change or a progress report. */
typedef struct ircg_client_event {
    const char *type;        /* "state", "progress", "snapshot" (events)   */
    int64_t event_id;        /* the SSE id; 0 when polling                 */
    ircg_client_state state; /* the latest known state                     */
    int64_t iteration;
    double elapsed, g_x, f_x, g_z, f_z, gap; /* NaN when not reported      */
    const char *data;        /* the event's JSON (borrowed, valid during
                                the call); the job resource when polling   */
} ircg_client_event;

/* Return nonzero to stop waiting (IRCG_CLIENT_ERR_STOPPED). */
typedef int (*ircg_client_event_fn)(void *user, const ircg_client_event *ev);

typedef struct ircg_client_wait_options {
    ircg_client_wait_mode mode;
    double timeout;          /* seconds; <= 0 = no limit                   */
    double poll_initial;     /* POLL: first interval, seconds (0.05)       */
    double poll_max;         /* POLL: largest interval (2); also the
                                largest pause before an SSE reconnect      */
    double poll_factor;      /* POLL: growth per unchanged answer (1.5)    */
    int max_failures;        /* consecutive transport errors or 5xx
                                answers tolerated (daemon restarting) (3)  */
    ircg_client_event_fn on_event; /* may be NULL                         */
    void *user;
} ircg_client_wait_options;

void ircg_client_wait_options_default(ircg_client_wait_options *o);

/* Waits until the job is succeeded, failed or cancelled and fills job
 * (may be NULL) with its final resource; when the wait fails, job holds
 * the last job resource fetched, if any (polling fetches it every time,
 * following events only when a stream closes early).  The events of a job
 * are replayed from its first one, so on_event sees the whole history.
 * opt may be NULL (events, no limit).  A 4xx answer (the job was
 * deleted: 404) ends the wait with IRCG_CLIENT_ERR_HTTP.  The deadline and
 * the callback's stop act within about a second on an idle stream. */
ircg_client_code ircg_client_wait(ircg_client *c, const char *id,
                                  const ircg_client_wait_options *opt,
                                  ircg_client_job *job, ircg_client_error *err);

/* --------------------------------------------------- what a job produced -- */

typedef enum ircg_client_trace_format {
    IRCG_CLIENT_TRACE_JSON = 0, /* {"rows":[{"t":..,...}],"next_after":N}  */
    IRCG_CLIENT_TRACE_CSV       /* header line, then one row per line      */
} ircg_client_trace_format;

/* GET /v1/jobs/{id}/trace: the rows with iteration t > after -- every one
 * of them when limit is 0 (the whole trace in one streamed response, as
 * long as it is), else at most limit (1..100000) of them, one page.
 * *text receives the body (*len its length, may be NULL); *next_after (may
 * be NULL) the cursor for the next call: the last row's t, or `after` when
 * no row came.  The body comes gzip-compressed over the wire when the
 * server can, and decoded here. */
ircg_client_code ircg_client_trace(ircg_client *c, const char *id,
                                   ircg_client_trace_format format,
                                   int64_t after, long limit, char **text,
                                   size_t *len, int64_t *next_after,
                                   ircg_client_error *err);

/* GET /v1/jobs/{id}/result: the result document (JSON).  Until the job is
 * finished: IRCG_CLIENT_ERR_HTTP with status 409 (err->retry_after set). */
ircg_client_code ircg_client_result(ircg_client *c, const char *id,
                                    char **json, ircg_client_error *err);

typedef struct ircg_client_snapshot {
    int64_t iteration;
    char kind[16];          /* "x", "z", "state"                           */
    int64_t bytes;
    char created_at[40];
} ircg_client_snapshot;

/* GET /v1/jobs/{id}/snapshots: *snaps (malloc'ed array, free()) of *n. */
ircg_client_code ircg_client_snapshots(ircg_client *c, const char *id,
                                       ircg_client_snapshot **snaps, size_t *n,
                                       ircg_client_error *err);
/* GET /v1/jobs/{id}/result?x=npz (which "x") or ?z=npz (which "z"): a
 * finished job's iterate as NumPy .npz bytes (the layout of its 'x' and
 * 'z' snapshots), its values the result's bit for bit. */
ircg_client_code ircg_client_result_npz(ircg_client *c, const char *id, const char *which,
                                        void **data, size_t *len, ircg_client_error *err);
/* GET /v1/jobs/{id}/snapshots/{iteration}/{kind}: the stored bytes. */
ircg_client_code ircg_client_snapshot_get(ircg_client *c, const char *id,
                                          int64_t iteration, const char *kind,
                                          void **data, size_t *len,
                                          ircg_client_error *err);

/* ------------------------------------------------------------- datasets -- */

typedef struct ircg_client_dataset {
    char id[72];            /* sha256 of the bytes, 64 hex digits           */
    char format[32];        /* ratings: "movielens", "udata", "csv",
                               "matrix_market"; matrices and vectors: "npy",
                               "npz", "libsvm", "matrix_market", "csv"      */
    int n_rows, n_cols;
    int64_t nnz, bytes;
    char created_at[40];
    int existed;            /* upload: 1 when the same bytes were there     */
    char kind[16];          /* "ratings", "matrix" or "vector"              */
    int sparse, labels;     /* a sparse matrix; a LIBSVM one (labels = b)   */
} ircg_client_dataset;

/* POST /v1/datasets: a ratings or Matrix Market file; format NULL = detect.
 * A malformed file gives status 422, the line in err->detail. */
ircg_client_code ircg_client_dataset_upload(ircg_client *c, const void *data,
                                            size_t len, const char *format,
                                            ircg_client_dataset *ds,
                                            ircg_client_error *err);
/* POST /v1/datasets?kind=K&format=F with the file at path as the body,
 * streamed from the disk (any size the server takes: --max-upload): a
 * matrix or vector of least squares and logistic regression (.npy, .npz,
 * LIBSVM, Matrix Market, CSV) or ratings.  kind and format NULL: told by
 * the server from the content.  A malformed file gives status 422, the
 * line or byte offset in err->detail. */
ircg_client_code ircg_client_dataset_upload_file(ircg_client *c, const char *path,
                                                 const char *kind, const char *format,
                                                 ircg_client_dataset *ds,
                                                 ircg_client_error *err);
ircg_client_code ircg_client_dataset_get(ircg_client *c, const char *id,
                                         ircg_client_dataset *ds,
                                         ircg_client_error *err);

/* ------------------------------------------------------------- service -- */

/* GET /healthz (alive) and /readyz (can take jobs; a 503 carries the
 * reason in err->detail).  Both are open even when tokens are on. */
ircg_client_code ircg_client_health(ircg_client *c, ircg_client_error *err);
ircg_client_code ircg_client_ready(ircg_client *c, ircg_client_error *err);
/* GET /v1/version: {"ircg":..,"ircgd":..,"libmicrohttpd":..,...}. */
ircg_client_code ircg_client_version(ircg_client *c, char **json,
                                     ircg_client_error *err);
/* GET /metrics: Prometheus text. */
ircg_client_code ircg_client_metrics(ircg_client *c, char **text,
                                     ircg_client_error *err);

/* Any request, for what the functions above do not cover.  path starts
 * with '/' and is appended to the base URL as is (escape it yourself);
 * body may be NULL.  Any HTTP status is a success here: *status gets it
 * and *resp (may be NULL) the body; only a missing answer fails. */
ircg_client_code ircg_client_request(ircg_client *c, const char *method,
                                     const char *path, const char *content_type,
                                     const void *body, size_t body_len,
                                     long *status, char **resp, size_t *resp_len,
                                     ircg_client_error *err);

#ifdef __cplusplus
}
#endif
#endif /* IRCG_CLIENT_H */
