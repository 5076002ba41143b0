/*
 * spec.h -- the job specification: JSON -> validated problem and settings.
 *
 * One JSON document describes a job (problem + data, algorithm, output,
 * reference).  api_spec_parse() checks every member and collects ALL
 * errors as (JSON pointer, reason) pairs: first the shape and ranges of
 * every member, then, for each section whose own members were clean, the
 * checks that need data (files, dimensions, the problem's constructor, x0,
 * a trial ircg_solver_new()).  A spec that validates has its ircg_problem
 * built and does not fail later for a reason validation could have caught.
 * See api/SPEC.md for the members and their bounds.
 *
 * Thread safety: distinct specs may be parsed on distinct threads (no
 * cJSON_GetErrorPtr, no globals).  Depends on libircg and cJSON only.
 */
#ifndef IRCG_API_SPEC_H
#define IRCG_API_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "dataset.h"
#include "ircg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------- errors -- */

typedef struct api_error {
    char pointer[256]; /* RFC 6901 pointer into the spec ("" = the root) */
    char reason[320];
} api_error;

/* A growable list of errors.  Zero-initialize (or api_errors_init) before
 * use; api_errors_clear() frees it and may be called repeatedly. */
typedef struct api_errors {
    api_error *items;
    int count, cap;
    int nomem;        /* an error could not be recorded (out of memory)  */
    int syntax;       /* the text is not JSON: offset/line/column below  */
    size_t offset;    /* byte offset of a syntax error                   */
    long line, column;/* 1-based position of a syntax error              */
} api_errors;

void api_errors_init(api_errors *e);
void api_errors_clear(api_errors *e);
/* Append an error; pointer may be NULL (= root).  Returns the new count. */
int api_errors_add(api_errors *e, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Problem details (RFC 9457) as a malloc'ed JSON string owned by the
 * caller: type, title, status (400 for a syntax error, 422 otherwise),
 * detail, instance (may be NULL) and errors[{pointer, reason}]; a syntax
 * error adds offset, line and column. */
char *api_errors_problem_json(const api_errors *e, const char *instance);

/* ----------------------------------------------------------- parse -- */

/* Resolves {"source":"dataset","id":...} for the daemon: fill *out (owned
 * by the caller of the callback, i.e. the spec) or return an error and a
 * message in diag->message.  out == NULL asks only whether the dataset
 * exists (the cheap checks of build = 0). */
typedef ircg_error (*api_dataset_fn)(void *user, const char *id,
                                     ircg_ratings **out, ircg_diag *diag);

/* Resolves a dataset of least squares or logistic regression for the
 * daemon ({"source": "dataset", "id", "b_id", "A_val_id", "b_val_id"}):
 * what it holds (kind, format, shape: known exactly from its upload) and
 * the file its bytes are in, read like a file of the spec's when the
 * problem is built.  On failure an error and diag->message. */
typedef struct api_dataset_info {
    api_dataset_meta meta;
    char path[4096];
} api_dataset_info;
typedef ircg_error (*api_dataset_info_fn)(void *user, const char *id, api_dataset_info *out,
                                          ircg_diag *diag);

/* Resolves {"start": {"job": ID, "snapshot": N}} for the daemon: the
 * job's stored (normalized) spec and its snapshot at iteration N (N = 0:
 * the latest snapshot holding a solver state), as the iteration and the
 * head of that state (at most IRCG_CHECKPOINT_HEAD bytes, for
 * ircg_checkpoint_peek).  On failure an error with diag->field "/job" (no
 * such job) or "/snapshot" (no such snapshot) and diag->message. */
typedef struct api_job_source {
    char *spec_json;     /* malloc'ed by the callback, freed by the api  */
    int64_t iteration;
    unsigned char head[IRCG_CHECKPOINT_HEAD];
    size_t head_len;
} api_job_source;
typedef ircg_error (*api_job_fn)(void *user, const char *job_id, int64_t snapshot,
                                 api_job_source *out, ircg_diag *diag);

typedef struct api_parse_options {
    const char *base_dir;  /* relative file paths are resolved here;
                              NULL = the current directory               */
    int confine_paths;     /* nonzero: every file must lie inside
                              base_dir, both after lexical normalisation
                              ("..", absolute paths) and after realpath
                              (symlinks followed)                         */
    int build;             /* nonzero (default): load data, build the
                              problem and trial the solver.  0 = the
                              cheap checks a service makes before it
                              accepts a job: the document's shape and
                              ranges, files resolved (and confined) and
                              their heads parsed (ircg_ratings_probe_file:
                              format, header, first lines, size line),
                              datasets known.  Nothing is loaded or
                              generated; the job's worker builds it     */
    int64_t max_elements;  /* 0 = none; otherwise a cap on ratings
                              (MC) and on m*n (LS) of synthetic/inline
                              data, to protect a shared service          */
    int64_t max_memory;    /* 0 = none; otherwise a budget in bytes for
                              the job's estimated peak (api_estimate):
                              a spec above it is refused, one error at
                              each member that drives the estimate, and
                              nothing is built; a document whose parse
                              alone would exceed it is refused before it
                              is parsed; with build, the estimate made
                              again from the data loaded is held to it
                              before the solver is tried             */
    api_dataset_fn dataset;/* NULL: "dataset" sources are rejected       */
    void *dataset_user;
    /* The size in bytes of a dataset, for the estimate (-1: unknown);
     * NULL: datasets are not estimated. */
    int64_t (*dataset_bytes)(void *user, const char *id);
    /* Datasets of least squares and logistic regression (dataset_user);
     * NULL: their "dataset" sources are rejected. */
    api_dataset_info_fn dataset_info;
    /* Polled while a NumPy file is read (the library's readers poll the
     * thread's ircg_stop_set): NULL, or the job's cancel flag and
     * deadline. */
    const api_stop *stop;
    api_job_fn job;        /* NULL: starts from a job are rejected       */
    void *job_user;
    /* "execution": {"ranks": N} (a solve spread over N processes):      */
    int distributed;       /* nonzero: the caller solves distributed
                              (ircg-mpi) whatever the spec says: the
                              member is accepted and the checks of a
                              distributed solve are made                */
    int ranks_allowed;     /* nonzero: the member is accepted (ircgd with
                              an MPI launcher) and, when given, the
                              checks are made; otherwise it is refused
                              with ranks_refusal (NULL: a default text) */
    const char *ranks_refusal;
    int certify_async;     /* nonzero: the caller makes IR-CG's
                              certificates of matrix completion on a
                              thread of their own where it can (ircg
                              solve on more than one core, for a spec
                              naming fewer threads than the cores): the
                              estimate of a spec that names its threads
                              counts their copies in flight            */
} api_parse_options;

void api_parse_options_default(api_parse_options *o); /* build = 1 */
/* The options of the service: files confined to data_dir (realpath),
 * synthetic and inline data capped at max_elements (0 = none), datasets
 * resolved by `dataset` (may be NULL: then refused). */
void api_parse_options_service(api_parse_options *o, const char *data_dir,
                               int64_t max_elements, api_dataset_fn dataset,
                               void *dataset_user);

typedef struct api_spec api_spec;

/* At most this many errors are listed; a final error at "" then says how
 * many more there were. */
#define API_MAX_ERRORS 100

/* Parses and validates len bytes of JSON (need not be NUL-terminated).
 * Returns the number of errors (0 = valid, *out set and owned by the
 * caller; otherwise *out = NULL and errs lists every error, up to
 * API_MAX_ERRORS).  opt may be NULL (defaults).  errs may be NULL (then
 * only the count is returned).  Note: cJSON 1.7.15 writes a static error
 * pointer on every parse (never read here); ThreadSanitizer reports it as
 * a benign race. */
int api_spec_parse(const char *json, size_t len, const api_parse_options *opt,
                   api_spec **out, api_errors *errs);
void api_spec_free(api_spec *s);

/* -------------------------------------------------------- estimate -- */

/* What a job holds at its peak, from its members alone (nothing loaded or
 * generated: a file's size, its head and a few windows of it give its
 * entries and dimensions), beyond the process's own code and libraries
 * (spec_estimate.c says how; SPEC.md, "Estimate").  The drivers are the
 * members whose terms are the largest in the peak's phase (at least 5%
 * of it each), with their shares. */
#define API_EST_DRIVERS 4
typedef struct api_estimate {
    int64_t memory;          /* bytes                                      */
    const char *phase;       /* the peak's: "parse", "data", "build",
                                "reference", "solve" or "output"         */
    int ndrivers;
    char drivers[API_EST_DRIVERS][64]; /* JSON pointers, largest first   */
    double shares[API_EST_DRIVERS];
    int64_t ratings;         /* MC: ratings; LS: stored entries of A       */
    int64_t rows, cols;      /* MC: rows and columns held; LS: m and n     */
    int64_t pass_bytes;      /* one pass over the data: an iteration makes
                                2 of them for least squares and logistic
                                regression, and for matrix completion one
                                a product of the LMO (warm-started: a few
                                to lmo_max_matvecs / 2) and one for the
                                step; divided by the memory bandwidth it
                                is the time of a pass                    */
    int exact;               /* 0: sizes guessed from a file's sample or a
                                dataset's bytes                          */
} api_estimate;
/* The spec's estimate (made when it was parsed; memory 0 when the
 * members could not say, e.g. a file that cannot be read). */
void api_spec_estimate(const api_spec *s, api_estimate *out);
/* {"memory_bytes", "peak_phase", "drivers": [{"pointer", "share"}],
 * "entries", "rows", "cols", "pass_bytes", "exact_sizes"}, malloc'ed;
 * and one line for people ("estimate: 48 MB at the peak (solve); from
 * /problem/data/n_ratings 80%, ..."). */
char *api_estimate_json(const api_estimate *e);
char *api_estimate_text(const api_estimate *e);
/* The bytes cJSON would allocate for this text (its values and strings,
 * counted in one pass without allocating): what parsing it costs. */
int64_t api_json_parse_bytes(const char *json, size_t len);

/* ------------------------------------------------------- accessors -- */

/* The built problem (NULL when parsed with build = 0).  Borrowed: it
 * lives as long as the spec. */
const ircg_problem *api_spec_problem(const api_spec *s);
/* The solver settings of the spec.  callback, callback_data, cancel,
 * reference and g_opt (unless the spec gives "reference":{"g_opt":..})
 * are left for the caller.  x0 points into the spec (borrowed).  A spec
 * that continues another job's schedule counts max_iter from there: the
 * solver's max_iter is the snapshot's iteration plus the spec's. */
void api_spec_settings(const api_spec *s, ircg_settings *out);

/* The length of the spec's {"start": {"x0": [...]}}, 0 without one: a
 * caller that builds the problem itself (parsed with build = 0) checks it
 * against the problem's dim. */
int64_t api_spec_x0_len(const api_spec *s);
/* Why "name": "auto" chose the spec's algorithm (a sentence), or NULL
 * when the spec named its method. */
const char *api_spec_auto_why(const api_spec *s);

/* {"start": {"job", "snapshot", "schedule"}}: 1 and *out filled (job
 * borrowed from the spec; iteration = the snapshot's, resolved when the
 * spec was parsed) when the spec starts from another job's snapshot,
 * else 0.  The caller restores that snapshot's state into its solver
 * with ircg_solver_restore_as(mode). */
typedef struct api_start_job {
    const char *job;
    int64_t iteration;
    ircg_restore_mode mode; /* CONTINUE or AFRESH */
} api_start_job;
int api_spec_start_job(const api_spec *s, api_start_job *out);

typedef struct api_reference_spec {
    int compute;          /* run ircg_reference_compute before solving   */
    ircg_reference_settings settings; /* cancel left NULL for the caller */
    double g_opt;         /* known value; NaN = unknown                  */
} api_reference_spec;
void api_spec_reference(const api_spec *s, api_reference_spec *out);

typedef struct api_output_spec {
    int64_t trace_every;    /* record every k-th iteration (>= 1); the
                               first and the last are always recorded   */
    int64_t snapshot_every; /* 0 = no snapshots                          */
    int dense_iterate;      /* matrix completion: include the dense X and
                               Z.  Resolved: "dense_iterate" true, or
                               "auto" (the default) and n_rows x n_cols
                               <= 10^4; true is refused above 10^6     */
} api_output_spec;
void api_spec_output(const api_spec *s, api_output_spec *out);

ircg_problem_kind api_spec_kind(const api_spec *s);

/* "execution": {"ranks": N}: N, or 0 when the spec does not ask for a
 * distributed solve. */
#define API_MAX_RANKS 65536
int api_spec_ranks(const api_spec *s);
/* Whether the spec named its threads ("algorithm": {"threads"}), rather
 * than taking the default: a local solve may then choose them (ircg solve
 * takes the machine's cores for matrix completion). */
int api_spec_threads_given(const api_spec *s);

/* Where a matrix-completion spec's ratings come from, for a caller that
 * loads them itself (a distributed solve parsed with build = 0, each
 * process reading its own part): 0 for other problems. */
typedef struct api_mc_source {
    enum { API_MC_FILE, API_MC_INLINE, API_MC_SYNTHETIC, API_MC_DATASET } kind;
    const char *path;              /* file: resolved (borrowed)             */
    const char *given_path;        /* file: as the spec gives it            */
    ircg_read_options read;        /* file: format and dimensions           */
    ircg_synth_ratings_spec synth; /* synthetic                             */
    ircg_outer_kind outer;
    double delta;
} api_mc_source;
int api_spec_mc_source(const api_spec *s, api_mc_source *out);

/* The normalized spec: every default filled in, enums spelled out, file
 * paths as given (relative to base_dir).  Parsing it again gives the same
 * normalized JSON.  Inline data is echoed in full unless flags has
 * API_NORM_SUMMARIZE and the data has more than 1000 numbers: it is then
 * replaced by a summary ("elided": true, counts) that does NOT parse back
 * (meant for job listings).  malloc'ed, owned by the caller; NULL when
 * out of memory. */
#define API_NORM_SUMMARIZE 1
char *api_spec_normalized_json(const api_spec *s, int flags);

/* Names of the enums as they appear in specs and results. */
const char *api_algorithm_name(ircg_algorithm a);
const char *api_projection_name(ircg_projection p);
const char *api_step_rule_name(ircg_step_rule r);
const char *api_direction_name(ircg_direction d);
const char *api_outer_name(ircg_outer_kind k);
const char *api_domain_name(ircg_domain_kind k);
/* "matrix_completion", "least_squares", "logistic_regression" */
const char *api_problem_type_name(ircg_problem_kind k);
/* "auto", "movielens", "udata", "csv", "matrix_market" */
const char *api_format_name(ircg_ratings_format f);
/* 1 and *out set when name is one of the format names, else 0. */
int api_format_parse(const char *name, ircg_ratings_format *out);

#ifdef __cplusplus
}
#endif
#endif /* IRCG_API_SPEC_H */
