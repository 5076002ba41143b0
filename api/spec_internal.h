/*
 * spec_internal.h -- the parsed specification and the helpers that read
 * typed JSON members while recording (pointer, reason) errors.  Private to
 * api/.
 */
#ifndef IRCG_API_SPEC_INTERNAL_H
#define IRCG_API_SPEC_INTERNAL_H

#include <cJSON.h>

#include "spec.h"

#define SP_PTR 256 /* room for a JSON pointer */

/* Magnitude bounds that keep every quantity the solver forms finite (see
 * api/SPEC.md "Limits" for the budget): data values (A, b, c, Q, q,
 * ratings, rating scales, noise, x0) and scales (radii, delta, box bounds,
 * varsigma). */
#define SP_MAX_VALUE 1e30
#define SP_MAX_SCALE 1e12
/* Dense iterates of matrix completion: included by default ("auto") up to
 * SP_DENSE_AUTO entries, on request up to SP_DENSE_MAX entries. */
#define SP_DENSE_AUTO 10000
#define SP_DENSE_MAX 1000000

typedef enum sp_source {
    SP_SRC_FILE = 0,
    SP_SRC_INLINE,
    SP_SRC_SYNTHETIC,
    SP_SRC_DATASET
} sp_source;

/* Matrix completion data and model. */
extern const char *const API_FORMAT_NAMES[]; /* spec_normalize.c */

/* Largest row or column count a spec may name or a file may declare. */
#define SP_MAX_DIM 100000000

typedef struct sp_mc {
    sp_source source;
    char *path, *resolved;        /* file                                  */
    ircg_ratings_format format;   /* file                                  */
    int n_rows, n_cols;           /* file/inline: 0 = from the data         */
    ircg_ratings *inline_r;       /* inline: kept for the normalized echo   */
    ircg_synth_ratings_spec synth;/* synthetic                              */
    char *dataset_id;             /* dataset                                */
    double delta;
    ircg_outer_kind outer;
    int data_ok;                  /* "data" parsed without errors           */
    int model_ok;                 /* delta and outer parsed without errors  */
    int64_t dim;                  /* after loading: n_rows x n_cols, else 0  */
} sp_mc;

/* Least squares and logistic regression data and model. */
typedef enum sp_ls_a { SP_A_DENSE = 0, SP_A_CSR } sp_ls_a;

/* The format of a least-squares matrix file ("format"): AUTO is told by
 * the head (NumPy's magic, the Matrix Market banner, a LIBSVM row, else
 * CSV). */
typedef enum sp_mfmt {
    SP_FMT_AUTO = 0,
    SP_FMT_MTX,
    SP_FMT_CSV,
    SP_FMT_LIBSVM,
    SP_FMT_NPY,
    SP_FMT_NPZ
} sp_mfmt;
extern const char *const SP_MFMT_NAMES[]; /* spec_ls_data.c */

/* The synthetic generator ("shape"): SP_SHAPE_GAUSSIAN is
 * ircg_synth_least_squares, the others ircg_synth_rows's shapes. */
enum { SP_SHAPE_GAUSSIAN = 0 };
extern const char *const SP_SHAPE_NAMES[]; /* spec_ls_data.c */

/* One matrix with its right-hand side (targets or labels). */
typedef struct sp_mat {
    int m, n;
    sp_ls_a a_kind;               /* inline                                 */
    double *A;                    /* dense row-major m x n (inline, synthetic,
                                     CSV file)                              */
    int64_t *rowptr;              /* CSR (inline csr or Matrix Market file)  */
    int32_t *colind;
    double *val;
    double *b;                    /* length m                               */
    char *A_path, *A_resolved;    /* file                                   */
    char *b_path, *b_resolved;    /* file: NULL when b is inline            */
    char *A_id, *b_id;            /* dataset: the ids (A_path and b_path then
                                     name them in messages)                 */
    api_dataset_meta ds;          /* dataset: what A's holds (its upload's)  */
    int64_t b_len;                /* length of b as read                    */
    int m_given, n_given;         /* file: 0, or m/n the spec gives         */
    sp_mfmt fmt;                  /* file: the format of A_path (told)      */
} sp_mat;

typedef struct sp_ls {
    int logistic;                 /* "logistic_regression": b holds labels  */
    sp_source source;
    sp_mfmt format;               /* file: as given, then as told           */
    double positive;              /* logistic, LIBSVM: the label read as +1 */
    int positive_given;           /* 1: given, 2: told from the labels      */
    int shape;                    /* synthetic: SP_SHAPE_GAUSSIAN or an
                                     ircg_synth_shape                       */
    int nnz_row;                  /* synthetic sparse                       */
    char *features_path;          /* synthetic msd: the file's rows, as     */
    char *features_resolved;      /* given and resolved (or NULL: drawn)    */
    sp_mat tr;                    /* the (training) rows: "A", "b", ...     */
    sp_mat va;                    /* the validation rows: "A_val", "b_val",
                                     ... (when has_val)                     */
    int has_val;
    int m_val;                    /* synthetic: validation rows, 0 = none   */
    double noise;                 /* synthetic                              */
    uint64_t seed;
    ircg_domain domain;
    ircg_outer_kind outer;
    double *c, *Q, *q;            /* outer data (q may be NULL)             */
    int64_t c_len, q_len;
    int Q_dim;                    /* rows of Q                              */
    int data_ok, domain_ok, outer_ok; /* sections parsed without errors     */
    int loaded;                   /* the data is read or generated          */
} sp_ls;

void sp_mat_free(sp_mat *m);

typedef enum sp_dense { SP_DENSE_AUTO_MODE = 0, SP_DENSE_NO, SP_DENSE_YES } sp_dense;

/* "start": {"job", "snapshot", "schedule"} (spec_start.c). */
typedef struct sp_start {
    char *job;                    /* NULL: the start is not another job's   */
    int64_t snapshot;             /* as given; 0 = the latest               */
    int afresh;                   /* "schedule": "afresh"                   */
    int resolved;                 /* the source was found: below are valid  */
    int64_t iteration;            /* the snapshot's iteration               */
    ircg_checkpoint_info ck;      /* its state's header                     */
} sp_start;

struct api_spec {
    ircg_problem_kind kind;
    int typed;                    /* problem.type was recognized            */
    sp_mc mc;
    sp_ls ls;
    ircg_settings settings;       /* callback/cancel/reference unset        */
    const char *auto_why;         /* "name": "auto": why it chose settings'
                                     algorithm (static text); NULL else    */
    double *x0;                   /* start {"x0": [...]}                     */
    int64_t x0_len;
    sp_start start;               /* start {"job": ...}                      */
    int ranks;                    /* "execution": {"ranks"}; 0 = absent     */
    int threads_given;            /* "algorithm": {"threads"} was given     */
    api_reference_spec ref;
    api_output_spec output;       /* dense_iterate: resolved on output     */
    sp_dense dense;               /* "dense_iterate": "auto" | false | true */
    ircg_problem *problem;
    int64_t parse_bytes;          /* api_json_parse_bytes of the text       */
    int certify_async;            /* api_parse_options.certify_async        */
    api_estimate est;             /* from the members (spec_estimate.c)     */
};

/* Parsing context shared by the section parsers. */
typedef struct sp_ctx {
    api_errors *errs;
    const api_parse_options *opt;
    int nerr;                     /* errors recorded by this parse          */
} sp_ctx;

/* auto's choice of a method for the parsed problem and execution (a
 * distributed solve: ircg-mpi parsing its spec, or execution.ranks), and
 * why (static text). */
ircg_algorithm api_auto_choice(const api_spec *s, int distributed, const char **why);

/* Record an error at pointer. */
void sp_err(sp_ctx *c, const char *ptr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* dst = base + "/" + escaped(name) (RFC 6901 escaping of ~ and /). */
void sp_ptr(char *dst, const char *base, const char *name);
void sp_ptr_idx(char *dst, const char *base, long long idx);

/* Every member of obj must be in names (NULL-terminated); each unknown or
 * duplicate member is an error.  Returns 0 when obj is not an object
 * (and records that). */
int sp_members(sp_ctx *c, const cJSON *obj, const char *ptr,
               const char *const *names);
const cJSON *sp_get(const cJSON *obj, const char *name);

/* The shortest text that reads back as v ("1e+12", not "1000000000000"). */
const char *sp_num_text(char buf[32], double v);

/* Typed readers: when the member is absent, *out keeps its value (the
 * default) and 0 is returned; 1 when read; -1 after an error. */
int sp_number(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
              double *out);
/* Number with a range: lo/hi may be +-INFINITY; *_open excludes the end. */
int sp_number_in(sp_ctx *c, const cJSON *obj, const char *ptr,
                 const char *name, double lo, int lo_open, double hi,
                 int hi_open, double *out);
int sp_int64_in(sp_ctx *c, const cJSON *obj, const char *ptr,
                const char *name, int64_t lo, int64_t hi, int64_t *out);
int sp_int_in(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
              int lo, int hi, int *out);
int sp_bool(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
            int *out);
/* *out borrowed from the JSON tree. */
int sp_string(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
              const char **out);
/* names is NULL-terminated; *out = the index. */
int sp_enum(sp_ctx *c, const cJSON *obj, const char *ptr, const char *name,
            const char *const *names, int *out);
/* The "data" object d at ptr (NULL: absent) and its "source" among
 * sources: 1 with *out the index; 0 after an error naming the member. */
int sp_data_source(sp_ctx *c, const cJSON *d, const char *ptr, const char *const *sources,
                   int *out);
/* A JSON array of finite numbers with |v| <= SP_MAX_VALUE at item
 * (pointer ptr); *out malloc'ed. */
int sp_num_array(sp_ctx *c, const cJSON *item, const char *ptr, double **out,
                 int64_t *n);
/* Integer check of a JSON value (a number with no fraction in range). */
int sp_is_int(const cJSON *v, double lo, double hi);

/* Section parsers (spec_problem_mc.c, spec_problem_ls.c, spec_parse.c,
 * spec_algorithm.c).  The build stage of a section (loading data, building
 * the problem, the trial solver) runs whenever that section's own members
 * parsed cleanly, whatever errors other sections have: all errors of a
 * spec are reported together. */
void sp_parse_mc(sp_ctx *c, const cJSON *pb, api_spec *s);
/* "least_squares" and "logistic_regression" (logistic = 1). */
void sp_parse_ls(sp_ctx *c, const cJSON *pb, api_spec *s, int logistic);
/* Their "data" section (spec_ls_data.c): parse, then load (read files or
 * generate); sp_ls_load returns 1 when the data is known. */
void sp_parse_ls_data(sp_ctx *c, const cJSON *d, sp_ls *ls);
/* {"source": "dataset", ...} (spec_ls_dataset.c): the datasets resolved
 * (api_parse_options.dataset_info), their kinds and shapes checked against
 * each other, then read as files are. */
void sp_parse_ls_dataset(sp_ctx *c, const cJSON *d, sp_ls *ls);
/* "positive" of a LIBSVM matrix's labels (spec_ls_data.c). */
void sp_ls_positive(sp_ctx *c, const cJSON *d, sp_ls *ls);
/* The sp_mfmt of a dataset's format name. */
sp_mfmt sp_mfmt_of(const char *name);
int sp_ls_load(sp_ctx *c, sp_ls *ls);
/* A JSON array of equal-length arrays of finite numbers -> row-major. */
int sp_parse_dense(sp_ctx *c, const cJSON *a, const char *ptr, double **out, int *rows,
                   int *cols);
/* Load the data (when "data" is clean) and build the problem (when the
 * whole section is clean); return the number of variables once the data
 * is known (0 otherwise). */
int64_t sp_build_mc(sp_ctx *c, api_spec *s);
int64_t sp_build_ls(sp_ctx *c, api_spec *s);
void sp_parse_algorithm(sp_ctx *c, const cJSON *alg, api_spec *s);
/* x0 length against dim (0 = unknown), the library's checks of the
 * settings, and a trial solver when the problem is built. */
void sp_build_algorithm(sp_ctx *c, api_spec *s, int64_t dim);
cJSON *sp_norm_algorithm(const api_spec *s);

/* Starts from another job (spec_start.c): the members of {"job", ...};
 * the source checked against the spec once the problem and algorithm
 * parsed cleanly (its type, algorithm, model members, synthetic data),
 * and against the built problem (dimensions, data digest); the start's
 * normalized form. */
void sp_parse_start_job(sp_ctx *c, const cJSON *v, api_spec *s);
void sp_check_start(sp_ctx *c, api_spec *s, int problem_ok);
void sp_build_start(sp_ctx *c, const api_spec *s);
cJSON *sp_norm_start_job(const api_spec *s);

/* |v| <= SP_MAX_VALUE for values read from files or generated: error at
 * ptr naming what (e.g. "rating of user 3, item 7") when not. */
int sp_value_ok(sp_ctx *c, const char *ptr, double v, const char *what_fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* An error of a file reader at ptr: "<path>: line N: why". */
void sp_file_diag(sp_ctx *c, const char *ptr, const char *path, const ircg_diag *d);

/* Files (spec_files.c). */
/* Resolve path against opt->base_dir, enforcing confinement; returns a
 * malloc'ed path or NULL after recording an error at ptr. */
char *sp_resolve_path(sp_ctx *c, const char *ptr, const char *path);

/* A data file that changes while it is read (rewritten, truncated,
 * replaced) must not become a problem made of two versions: its stamp
 * (device, inode, size, modification time) is taken before the read and
 * compared after.  sp_stamp_same records "changed while it was being read"
 * at ptr and returns 0 when they differ. */
typedef struct sp_stamp {
    unsigned long long dev, ino;
    long long size, mtime_s, mtime_ns;
    int ok;
} sp_stamp;
void sp_stamp_take(const char *path, sp_stamp *s);
int sp_stamp_same(sp_ctx *c, const char *ptr, const char *name, const char *path,
                  const sp_stamp *before);
/* The format of a matrix file told by its head (SP_FMT_MTX, _LIBSVM or
 * _CSV), -1 after an error at ptr when it cannot be read. */
int sp_matrix_format(sp_ctx *c, const char *ptr, const char *name, const char *path);
/* The matrix of a file into mat in mat->fmt (AUTO: Matrix Market
 * coordinate (-> CSR) when it starts with the banner, else CSV); a LIBSVM
 * file (-> CSR) gives its labels as b (b_len = m), its columns the largest
 * index or n_given.  name is the path as the spec gives it (for
 * messages), path the resolved one. */
int sp_read_matrix(sp_ctx *c, const char *ptr, const char *name, const char *path,
                   sp_mat *mat);
/* The cheap check of a ratings or matrix file (build = 0): its head
 * parses (ircg_ratings_probe_file); the error, if any, at ptr. */
int sp_probe_file(sp_ctx *c, const char *ptr, const char *name, const char *path,
                  const ircg_read_options *ro);
/* The cheap check of a matrix file in format fmt (build = 0): for a
 * NumPy file its headers (api_npy_probe). */
int sp_probe_matrix(sp_ctx *c, const char *ptr, const char *name, const char *path,
                    int fmt, int m_given, int n_given);
/* b from Matrix Market (array or coordinate) or plain numbers (comma or
 * space separated; one column of CSV with an optional header line). */
int sp_read_vector(sp_ctx *c, const char *ptr, const char *name, const char *path,
                   double **b, int64_t *n);

/* The estimate (spec_estimate.c): from the members (0 when they cannot
 * say), or from the built problem's exact sizes; the budget
 * (api_parse_options.max_memory) checked, errors at the drivers. */
int sp_estimate(const api_spec *s, const api_parse_options *opt, api_estimate *out);
int sp_estimate_built(const api_spec *s, api_estimate *out);
/* A matrix completion's rows and columns held, known from the spec alone
 * (synthetic or inline ratings: an upper bound of the built problem's);
 * 0 when they are not (a file, a dataset) or the spec is no such problem. */
int sp_mc_held_known(const api_spec *s, double *rows, double *cols);
void sp_check_budget(sp_ctx *c, const api_estimate *e, const char *when);
void sp_check_parse_budget(sp_ctx *c, int64_t parse_bytes);

/* Map an ircg_diag of a constructor onto the spec: field "/x" under base. */
void sp_diag(sp_ctx *c, const char *base, const ircg_diag *d);

/* "execution" (spec_execution.c): the member, the checks of a
 * distributed solve (when it is one: ranks given, or the caller's
 * options say so) once the sections they read are parsed, and the
 * member of the normalized spec (added to root when given). */
void sp_parse_execution(sp_ctx *c, const cJSON *e, api_spec *s);
void sp_check_execution(sp_ctx *c, const api_spec *s, int problem_ok, int alg_ok);
void sp_norm_execution(const api_spec *s, cJSON *root);

/* Normalization (spec_normalize.c) */
cJSON *sp_norm_problem(const api_spec *s, int summarize);

#endif /* IRCG_API_SPEC_INTERNAL_H */
