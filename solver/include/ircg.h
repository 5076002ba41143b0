/*
 * ircg.h -- public API of libircg, the iteratively regularized conditional
 * gradient (IR-CG) solver for convex simple bilevel problems
 *
 *     min f(x)  s.t.  x in argmin { g(z) : z in X }.
 *
 * The problem classes: least squares g(x) = 1/2 ||A x - b||^2 with A a
 * dense or sparse matrix, matrix completion (A the sampling operator
 * P_Omega), each with a convex quadratic f; and logistic regression, whose
 * g (and validation f) is convex and smooth but not quadratic.  X is
 * compact with a linear minimization oracle (LMO).
 *
 * Conventions (OSQP/SCS style):
 *  - functions that can fail return an ircg_error (0 = IRCG_OK) and, when the
 *    caller passes a non-NULL ircg_diag, fill it with the failing field and a
 *    message; the solver's outcome is a separate ircg_status;
 *  - every *_free accepts NULL;
 *  - inputs are deep-copied unless a comment says "borrowed"; outputs returned
 *    through pointer-to-pointer are owned by the caller and freed with the
 *    matching *_free;
 *  - no globals, no printing, no signal handlers.  The library is safe to use
 *    from several threads on distinct handles.
 */
#ifndef IRCG_H
#define IRCG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IRCG_VERSION "0.1.0"

/* ---------------------------------------------------------------- codes -- */

typedef enum ircg_error {
    IRCG_OK = 0,
    IRCG_ERR_INVALID = 1,   /* an argument or setting is out of range       */
    IRCG_ERR_NOMEM = 2,     /* an allocation failed                          */
    IRCG_ERR_NUMERICAL = 3, /* a numerical kernel broke down (NaN, LAPACK)   */
    IRCG_ERR_IO = 4,        /* a file could not be opened or read            */
    IRCG_ERR_PARSE = 5      /* a data file is malformed (diag.line says where)*/
} ircg_error;

typedef enum ircg_status {
    IRCG_STATUS_UNSOLVED = 0,   /* not run yet, or stopped by an error        */
    IRCG_STATUS_CONVERGED = 1,  /* gap_tol reached                            */
    IRCG_STATUS_MAX_ITER = 2,   /* iteration limit                            */
    IRCG_STATUS_TIME_LIMIT = 3, /* wall-clock limit                           */
    IRCG_STATUS_CANCELLED = 4,  /* the cancel flag was set                    */
    IRCG_STATUS_INTERRUPTED = 5,/* the callback asked to stop                 */
    IRCG_STATUS_STALLED = 6     /* g_opt only: the gap stopped decreasing
                                   above tol and its rounding floor        */
} ircg_status;

const char *ircg_error_string(ircg_error e);   /* "invalid argument", ...    */
const char *ircg_status_string(ircg_status s); /* "converged", "max_iter", ...*/

/* Where and why an operation failed.  field is a path into the input in JSON
 * pointer syntax relative to the object the caller passed ("/delta",
 * "/settings/p"); line is the 1-based line of a data file, 0 otherwise.
 * When line > 0 the message already begins with "line <line>: " (see the
 * readers below): a caller adding context prefixes only what the library
 * cannot know, e.g. "bad.dat: " + message, and never the line again. */
typedef struct ircg_diag {
    ircg_error code;
    char field[128];
    char message[256];
    long line;
} ircg_diag;

/* ------------------------------------------------------------- ratings -- */

/* Observed entries of an n_rows x n_cols matrix, 0-based indices. */
typedef enum ircg_ratings_format {
    IRCG_FORMAT_AUTO = 0,    /* by content: "::" -> MovieLens, tab -> u.data,
                                comma -> CSV, "%%MatrixMarket" -> mtx       */
    IRCG_FORMAT_MOVIELENS,   /* user::item::rating::timestamp               */
    IRCG_FORMAT_UDATA,       /* user<TAB>item<TAB>rating<TAB>timestamp      */
    IRCG_FORMAT_CSV,         /* user,item,rating[,timestamp], optional header */
    IRCG_FORMAT_MATRIX_MARKET /* coordinate real general, 1-based           */
} ircg_ratings_format;

typedef struct ircg_ratings {
    int n_rows, n_cols;
    int64_t nnz;
    int32_t *row;
    int32_t *col;
    double *val;
    ircg_ratings_format format; /* what a reader read (AUTO resolved); AUTO
                                   for ratings made otherwise          */
} ircg_ratings;

/* Ids in the files are 1-based positive decimal integers; ratings and
 * values are decimal numbers ([+-]digits[.digits][(e|E)[+-]digits]: no
 * hexadecimal, inf or nan) that must be finite.  Dimensions are the largest
 * ids seen (the paper's convention) unless n_rows/n_cols > 0 are given, in
 * which case an id beyond them is an error.  Duplicate (row, col) pairs are
 * an error.  Entries keep the order of the file.  CSV: a first line whose
 * first field is not a number is a header; quoted fields are not supported,
 * and a file with no rating after its header is an error at that line
 * (naming what is wrong when the line is no header either).  Matrix
 * Market: field real, integer or
 * pattern (value 1), symmetry general; the size line gives the dimensions
 * (given n_rows/n_cols must equal it) and must count the entries.  CRLF,
 * a UTF-8 byte order mark, blank lines at the end and a last line without
 * newline are accepted.  A malformed file gives IRCG_ERR_PARSE with
 * diag->line = N and diag->message exactly "line N: what is wrong" (e.g.
 * "line 3: rating '0x10' is not a decimal number"), without the file name;
 * a file or buffer without any rating gives "no ratings found" with line 0.
 * A file that cannot be read gives IRCG_ERR_IO naming the path.  The buffer need not be
 * NUL-terminated; opt may be NULL (AUTO, dimensions from the data). */
typedef struct ircg_read_options {
    ircg_ratings_format format;
    int n_rows, n_cols; /* 0 = from the data */
    int threads;        /* parsing threads; 0 = the machine's processors
                           (at most 8).  The result, errors included, never
                           depends on it */
} ircg_read_options;

ircg_error ircg_ratings_read_file(const char *path, const ircg_read_options *opt,
                                  ircg_ratings **out, ircg_diag *diag);
ircg_error ircg_ratings_read_buffer(const char *buf, size_t len,
                                    const ircg_read_options *opt,
                                    ircg_ratings **out, ircg_diag *diag);
/* A cheap look at the head of a ratings file, for a service that must
 * accept or refuse a job without reading gigabytes: the first
 * IRCG_PROBE_BYTES bytes (cut after their last newline) and at most
 * IRCG_PROBE_ENTRIES entries are parsed with the rules above, so a bad
 * header, a wrong separator or a malformed first line fails here with the
 * reader's own message ("line N: ..."); what lies further in the file is
 * checked only by a full read.  out->bytes is the file's (buffer's) size,
 * out->complete is 1 when the whole input was read. */
#define IRCG_PROBE_BYTES 65536
#define IRCG_PROBE_ENTRIES 1000
typedef struct ircg_ratings_probe {
    ircg_ratings_format format; /* detected or given                      */
    int64_t bytes;              /* size of the file or buffer             */
    int64_t entries;            /* entries read                           */
    int64_t declared;           /* Matrix Market: entries of the size line;
                                   -1 for the other formats               */
    int n_rows, n_cols;         /* Matrix Market: the size line; else the
                                   given dimensions, or the largest ids of
                                   a complete read, 0 otherwise           */
    int complete;
} ircg_ratings_probe;
ircg_error ircg_ratings_probe_file(const char *path, const ircg_read_options *opt,
                                   ircg_ratings_probe *out, ircg_diag *diag);
ircg_error ircg_ratings_probe_buffer(const char *buf, size_t len,
                                     const ircg_read_options *opt,
                                     ircg_ratings_probe *out, ircg_diag *diag);
/* A dense vector (length *n, malloc'ed into *out, owned by the caller):
 * a Matrix Market "array" file or a one-column "coordinate" file (entries
 * not listed are 0; field real or integer, symmetry general), or plain
 * decimal numbers separated by blanks or commas, any number per line, with
 * '#' and '%' lines as comments and, as in CSV, a first line whose first
 * field is not a number read as a header.  Numbers and errors follow the
 * rules of the ratings readers above ("line N: ..."; "no numbers found").
 * A Matrix Market size line may declare at most 1e8 rows. */
ircg_error ircg_vector_read_file(const char *path, double **out, int64_t *n,
                                 ircg_diag *diag);
ircg_error ircg_vector_read_buffer(const char *buf, size_t len, double **out,
                                   int64_t *n, ircg_diag *diag);
/* A dense matrix (m x n row-major, malloc'ed into *A, owned by the caller)
 * from a CSV file: every non-blank line a row of decimal numbers separated
 * by commas, all rows of the same length; a first line whose first field
 * is not a number is a header; '#' and '%' lines are comments.  Numbers and
 * errors follow the rules of the readers above ("line N: ..."; "no rows of
 * numbers found").  The probe parses the first IRCG_PROBE_BYTES bytes (at
 * most IRCG_PROBE_ENTRIES rows) the same way and reports the row length. */
ircg_error ircg_dense_read_file(const char *path, double **A, int *m, int *n,
                                ircg_diag *diag);
ircg_error ircg_dense_probe_file(const char *path, int *n, ircg_diag *diag);
/* The readers' number parser: the decimal number in p[0, n) (not
 * NUL-terminated, [+-]digits[.digits][(e|E)[+-]digits]) into *out,
 * exactly what strtod gives (a fast path for short ones).  0; -1 when it
 * is not of that form (hexadecimal, "inf", "nan", blanks, empty, 64
 * characters or more); -2 when it overflows. */
int ircg_parse_decimal(const char *p, size_t n, double *out);

/* Allocate an empty (nnz entries, zero-filled) ratings object. */
ircg_ratings *ircg_ratings_new(int n_rows, int n_cols, int64_t nnz);
void ircg_ratings_free(ircg_ratings *r);

/* Deterministic synthetic ratings shaped like MovieLens: a random rank-r
 * matrix scaled and rounded to the rating scale [min_rating, max_rating]
 * (step 1), observed on n_ratings distinct uniformly chosen entries, with
 * every row and every column rated at least once when n_ratings allows.
 * Large instances (at least 2^22 ratings, at most an eighth of the cells,
 * 64 <= n_cols <= 2^21, n_rows >= 64) are drawn row by row in parallel:
 * every row gets an equal share of the ratings (+-1) beyond its covering
 * ones, on distinct uniform columns, and the entries come row-major,
 * columns ascending.  The same spec (seed included) gives the same
 * ratings on every machine, whatever the number of threads. */
typedef struct ircg_synth_ratings_spec {
    int n_rows, n_cols, rank;
    int64_t n_ratings;
    double min_rating, max_rating;
    double noise;   /* std. dev. of Gaussian noise before rounding, >= 0   */
    uint64_t seed;
    int threads;    /* 0 = the machine's processors (at most 8); the
                       ratings never depend on it                          */
} ircg_synth_ratings_spec;

ircg_error ircg_synth_ratings(const ircg_synth_ratings_spec *spec,
                              ircg_ratings **out, ircg_diag *diag);

/* One process's share of ratings for a solve distributed over several
 * processes (ircg_problem_matrix_completion_part below).
 *
 * A file is cut into nparts parts of about equal size at line ends (part k
 * begins after the first newline at or after k/nparts of the file); part
 * `part` is parsed with the rules above -- its own head read from the
 * start of the file -- and only the bytes of that part (and the head) are
 * read.  line0 is the number of lines before the part (the sum of
 * ircg_ratings_part_lines of the parts before it), so that errors name
 * their line in the file.  What only the whole file can tell is the
 * caller's: that there are ratings at all, the size line's count,
 * duplicates in different parts, the dimensions (n_rows/n_cols are the
 * part's largest ids unless given). */
ircg_error ircg_ratings_part_lines(const char *path, int part, int nparts,
                                   int64_t *lines, ircg_diag *diag);
ircg_error ircg_ratings_read_file_part(const char *path, const ircg_read_options *opt,
                                       int part, int nparts, int64_t line0,
                                       ircg_ratings **out, ircg_diag *diag);
/* The synthetic instance's ratings in rows [row_lo, row_hi) only (the
 * same entries as ircg_synth_ratings, in the same order; a large instance
 * draws only the blocks of rows that hold them), and the number of
 * ratings of every row (counts, n_rows of them). */
ircg_error ircg_synth_ratings_rows(const ircg_synth_ratings_spec *spec, int row_lo,
                                   int row_hi, ircg_ratings **out, ircg_diag *diag);
ircg_error ircg_synth_row_counts(const ircg_synth_ratings_spec *spec, int64_t *counts,
                                 ircg_diag *diag);

/* Random underdetermined least squares: A m x n with i.i.d. N(0,1) entries
 * (dense, row-major) and b = A x_true + noise.  *A and *b are malloc'ed and
 * owned by the caller (free()). */
ircg_error ircg_synth_least_squares(int m, int n, double noise, uint64_t seed,
                                    double **A, double **b, ircg_diag *diag);

/* ------------------------------------------------------------- problems -- */

typedef enum ircg_domain_kind {
    IRCG_DOMAIN_NUCLEAR_BALL = 0, /* { X : ||X||_* <= radius } (matrix only) */
    IRCG_DOMAIN_L2_BALL,          /* { x : ||x||_2 <= radius }               */
    IRCG_DOMAIN_L1_BALL,          /* { x : ||x||_1 <= radius }               */
    IRCG_DOMAIN_SIMPLEX,          /* { x >= 0 : sum x = radius }             */
    IRCG_DOMAIN_BOX               /* { x : lower <= x_i <= upper }           */
} ircg_domain_kind;

typedef struct ircg_domain {
    ircg_domain_kind kind;
    double radius;       /* balls and simplex: > 0                          */
    double lower, upper; /* box: lower < upper, both finite                 */
} ircg_domain;

typedef enum ircg_outer_kind {
    IRCG_OUTER_COLUMN_VARIANCE = 0, /* 1/2 ||U X||_F^2, U = I - 11'/n (MC)  */
    IRCG_OUTER_HALF_NORM_SQ,        /* 1/2 ||x||^2                          */
    IRCG_OUTER_DIST_SQ,             /* 1/2 ||x - c||^2                      */
    IRCG_OUTER_QUADRATIC,           /* 1/2 x'Qx + q'x, Q symmetric PSD      */
    IRCG_OUTER_VALIDATION           /* the inner loss on held-out data:
                                       least squares 1/2 ||A_v x - b_v||^2,
                                       logistic sum log(1 + e^(-y_v a_v'x)) */
} ircg_outer_kind;

/* Least squares data: A is m x n, either dense (row-major, A_dense) or CSR
 * (A_rowptr[m+1], A_colind[nnz], A_val[nnz]); exactly one of the two.  b
 * holds the targets (least squares) or the labels (logistic regression:
 * -1/+1, or 0/1 read as -1/+1). */
typedef struct ircg_ls_data {
    int m, n;
    const double *A_dense;
    const int64_t *A_rowptr;
    const int32_t *A_colind;
    const double *A_val;
    const double *b;
} ircg_ls_data;

typedef struct ircg_outer {
    ircg_outer_kind kind;
    const double *c; /* DIST_SQ: length n (borrowed, copied by the problem) */
    const double *Q; /* QUADRATIC: n x n row-major (borrowed, copied)       */
    const double *q; /* QUADRATIC: length n, NULL = 0 (borrowed, copied)    */
    const ircg_ls_data *val; /* VALIDATION: the held-out rows, n columns
                                (borrowed, copied).  Never formed as
                                A_v'A_v: f and its gradient go through
                                products with A_v and A_v'              */
} ircg_outer;

typedef struct ircg_problem ircg_problem;

/* Matrix completion: g(X) = 1/2 sum_Omega (X_ij - M_ij)^2 over the nuclear
 * ball of radius delta; outer COLUMN_VARIANCE or HALF_NORM_SQ. */
ircg_error ircg_problem_matrix_completion(const ircg_ratings *R,
                                          ircg_outer_kind outer, double delta,
                                          ircg_problem **out, ircg_diag *diag);
/* How the processes of one distributed solve talk to each other.  The
 * library knows no transport: the caller implements this (over MPI in
 * ircg-mpi).  rank is in [0, size).  sum is a collective: every rank calls
 * it in the same order with the same len, and buf[0, len) becomes on every
 * rank the elementwise sum over the ranks, added in rank order so that
 * every rank gets the same bits whatever the timing.  A transport that
 * fails does not return (MPI aborts every rank). */
typedef struct ircg_comm ircg_comm;

/* The eigenproblem a distributed ARPACK engine (ircg_comm.top_eig) solves:
 * the largest eigenpair of a symmetric positive semidefinite operator A of
 * order p whose vectors are replicated -- the same on every rank.  For the
 * matrix-completion LMO A = C'C, whose vectors are the right (column-side)
 * ones, and apply is the distributed Gram product. */
typedef struct ircg_eig_request {
    int p;
    int ncv;              /* Lanczos basis size (ARPACK's NCV), 2..p      */
    /* y = A x, x and y of length p; collective: every rank calls it, in
     * the same order, with the same x, and gets the same y */
    void (*apply)(void *op_ctx, const double *x, double *y);
    void *op_ctx;
    const double *v0;     /* warm start (length p), NULL: the start serial
                             ARPACK draws on its first call in a process  */
    double tol;           /* ARPACK's test: Ritz estimate <= tol * lambda */
    int64_t max_apply;    /* applications of A allowed (about)            */
} ircg_eig_request;

typedef struct ircg_eig_answer {
    double lambda;        /* the top Ritz value                          */
    double *v;            /* caller's buffer (p): its unit Ritz vector,
                             the same on every rank                       */
    int64_t applied;      /* applications of A made                       */
    int converged;        /* it met tol (else max_apply stopped it)       */
} ircg_eig_answer;

struct ircg_comm {
    int rank, size;
    void *ctx;
    void (*sum)(void *ctx, double *buf, int64_t len);
    /* Optional (NULL: "lmo": {"engine": "arpack"} is refused on a
     * distributed problem): the ARPACK engine of a distributed LMO, which
     * ircg-mpi gives through PARPACK.  Collective; its outcome, error
     * included, is the same on every rank, so that every rank stops (the
     * solve then fails with it; why is the implementer's to report: ircg-mpi
     * prints it).  Called under the library's ARPACK lock. */
    ircg_error (*top_eig)(void *ctx, const ircg_eig_request *rq, ircg_eig_answer *ans);
};

/* Matrix completion with its rows spread over the processes of comm
 * (borrowed: it must outlive the problem).  R holds this process's ratings:
 * R->n_rows x R->n_cols is the whole matrix, and every entry's row lies in
 * [row0, row0 + n_local); the ranks' ranges, in rank order, tile
 * [0, n_rows).  Every process builds its part with the same outer, delta
 * and dimensions, then runs the same solver settings: each one holds its
 * rows of Omega, of the factors' left side and of the LMO's left vectors;
 * the column side is replicated, and the sums over Omega are reduced
 * through comm.  Only IR-CG runs on such a problem, with the Lanczos
 * engine or, when comm has a top_eig, the ARPACK one (the others are
 * refused by ircg_solver_new, naming the setting), from the default
 * start; ircg_reference_compute runs on it too (collectively: its residual
 * is this rank's rows, which the solver sums against; second_sv stays
 * NaN and nothing is certified unique there); the iterates it returns are
 * whole (gathered on every rank). */
ircg_error ircg_problem_matrix_completion_part(const ircg_ratings *R, int row0,
                                               int n_local, const ircg_comm *comm,
                                               ircg_outer_kind outer, double delta,
                                               ircg_problem **out, ircg_diag *diag);
/* Least squares over an l2/l1 ball, a simplex or a box. */
ircg_error ircg_problem_least_squares(const ircg_ls_data *data,
                                      const ircg_outer *outer,
                                      const ircg_domain *domain,
                                      ircg_problem **out, ircg_diag *diag);
/* Logistic regression: g(x) = sum_k log(1 + exp(-y_k a_k'x)) with the
 * labels y = data->b, all -1/+1 or all 0/1 (0 read as -1), over an l2/l1
 * ball, a simplex or a box; outer HALF_NORM_SQ, DIST_SQ or VALIDATION (the
 * logistic loss on outer->val, labels likewise).  g is convex and smooth
 * but not quadratic: L_g = ||A||_2^2 / 4, the exact line search is a 1-D
 * minimization, and g - g_opt is summed termwise over the margins.  Solved
 * by IR-CG (and g_opt by ircg_reference_compute); CG-BiO, IR-PG and Bi-SG
 * are not available for it (ircg_solver_new: "/algorithm"). */
ircg_error ircg_problem_logistic(const ircg_ls_data *data, const ircg_outer *outer,
                                 const ircg_domain *domain, ircg_problem **out,
                                 ircg_diag *diag);
void ircg_problem_free(ircg_problem *pb);

typedef enum ircg_problem_kind {
    IRCG_PROBLEM_MATRIX_COMPLETION = 0,
    IRCG_PROBLEM_LEAST_SQUARES = 1,
    IRCG_PROBLEM_LOGISTIC = 2
} ircg_problem_kind;

typedef struct ircg_problem_info {
    ircg_problem_kind kind;
    int n_rows, n_cols;  /* MC: matrix shape; LS, logistic: m x n of A     */
    int64_t dim;         /* number of variables                            */
    int64_t n_observed;  /* MC: |Omega|; LS, logistic: rows of A           */
    ircg_domain domain;
    ircg_outer_kind outer;
    double L_f, L_g;     /* Lipschitz constants of the gradients           */
    double diameter;     /* Euclidean/Frobenius diameter of X              */
    uint64_t data_digest;/* XXH64 of the data as the solver holds it (MC:
                            the dimensions, Omega in CSR order and the
                            ratings; LS: the dimensions, A and b), so that
                            a state is restored into the same instance
                            only; 0 = not computed (never checked)      */
} ircg_problem_info;

void ircg_problem_get_info(const ircg_problem *pb, ircg_problem_info *info);

/* ------------------------------------------------------------- settings -- */

typedef enum ircg_algorithm {
    IRCG_ALG_IRCG = 0, /* Algorithm 1 of the paper                          */
    IRCG_ALG_CGBIO,    /* CG-BiO, Jiang, Abolfazli, Mokhtari, Hamedani 2023:
                          conditional gradient over X cut by the half-space
                          {v : <grad g(x_k), v - x_k> <= g(x'_0) - g(x_k)},
                          from a warm start x'_0 with gap_g <= eps_g / 2    */
    IRCG_ALG_IRPG,     /* IR-PG, Solodov 2007: x+ = Proj_X(x - a grad Phi_t)
                          with Armijo backtracking, same sigma_t as IR-CG   */
    IRCG_ALG_BISG      /* Bi-SG, Merchav and Sabach 2023: y_k = Proj_X(x_{k-1}
                          - t grad g(x_{k-1})), x_k = y_k - c k^-alpha grad f(y_k) */
} ircg_algorithm;

/* How IR-PG and Bi-SG project onto the nuclear ball (vector domains have
 * exact closed-form or sort-based projections and ignore this). */
typedef enum ircg_projection {
    IRCG_PROJ_PARTIAL = 0, /* the leading singular triplets by Lanczos on the
                              implicit matrix, accepted only when the next
                              singular value is certified at most the
                              threshold (else more triplets; a full SVD when
                              too many are needed): exact and fast          */
    IRCG_PROJ_FULL         /* dense n x p matrix and its full SVD (LAPACK
                              dgesdd), then the singular values onto the
                              simplex: the paper's way                      */
} ircg_projection;

/* The singular-value engine of the conditional-gradient LMO on the nuclear
 * ball (IR-CG, and CG-BiO's warm start); the other singular-value
 * computations (CG-BiO's cut, the projections, g_opt) always use Lanczos.
 * Problems over vector domains have no such LMO: ircg_solver_new refuses
 * ARPACK for them. */
typedef enum ircg_lmo_engine {
    IRCG_LMO_LANCZOS = 0,  /* the library's reentrant Lanczos on C'C (one
                              pass over Omega per product), warm-started;
                              threads solve in parallel                   */
    IRCG_LMO_ARPACK        /* ARPACK-ng's implicitly restarted Lanczos on
                              C'C; ARPACK keeps Fortran state, so its calls
                              are serialized by one process-wide lock.  A
                              distributed problem runs its communicator's
                              engine (ircg_comm.top_eig: PARPACK)         */
} ircg_lmo_engine;

typedef enum ircg_step_rule {
    IRCG_STEP_OPEN_LOOP = 0, /* alpha_t = 2/(t+2)                            */
    IRCG_STEP_CLOSED_LOOP,   /* min{1, -<grad Phi_t, d>/((s L_f + L_g)|d|^2)}*/
    IRCG_STEP_LINE_SEARCH    /* argmin_[0,1] Phi_t(x + a d), closed form     */
} ircg_step_rule;

typedef enum ircg_start {
    IRCG_START_DEFAULT = 0, /* MC: the paper's X0 = 0.01 delta [I_p/p 0]';
                               LS: 0 projected onto X (simplex: its center)  */
    IRCG_START_ZERO,        /* 0 (must lie in X)                            */
    IRCG_START_GIVEN        /* settings.x0 (must lie in X)                  */
} ircg_start;

/* What the callback sees after every iteration t -> t+1.
 *
 * x and z per algorithm: IR-CG: the last iterate x_t and the averaged z_t;
 * Bi-SG: x is the feasible y_k and z the point x_k after the outer step
 * (possibly outside X); IR-PG and CG-BiO: x_t, with z = x.
 * gap per algorithm: IR-CG: the Frank-Wolfe gap of Phi_t at x_{t-1};
 * CG-BiO: the outer gap <grad f(x), x - s> over the cut set (gap_tol
 * stops CG-BiO only when also g(x) - g(x'_0) <= eps_g / 2); IR-PG and
 * Bi-SG: the norm of the projected-gradient step ||x_{t} - x_{t-1}|| / a. */
typedef struct ircg_iter_info {
    int64_t t;          /* iterations done (x_t, z_t below are after it)    */
    double elapsed;     /* seconds since the solve started (incl. restores
                           and CG-BiO's warm start)                         */
    double sigma;       /* sigma used in this iteration (IR-CG, IR-PG);
                           Bi-SG: its outer step c k^-alpha; CG-BiO: NaN    */
    double alpha;       /* step taken (IR-PG: after backtracking)           */
    double g_x, f_x;    /* at x_t                                           */
    double g_z, f_z;    /* at z_t                                           */
    double gap;         /* see above                                        */
    double g_gap_x;     /* g(x_t) - g_opt, NaN unless a reference is known  */
    double g_gap_z;     /* g(z_t) - g_opt, idem                             */
    double lmo_seconds; /* time of this iteration's oracle: the LMO (IR-CG,
                           CG-BiO's whole cut oracle) or the projections    */
    int64_t lmo_matvecs;/* operator applications (products with C and C')   */
    double top_sv;      /* nuclear ball: top singular value of the LMO's
                           matrix; NaN for the other domains and projections */
    int rank;           /* MC: number of atoms of the iterate; 0 otherwise  */
    int lmo_converged;  /* 1 when every singular triplet of this iteration
                           met lmo_tol; 0 when one stopped at
                           lmo_max_matvecs (its answer is less accurate)   */
    int backtracks;     /* IR-PG: step reductions of the Armijo rule        */
    int proj_full;      /* projections: 1 when a full SVD was used          */
    double lambda;      /* CG-BiO: multiplier of the cut; NaN otherwise     */
} ircg_iter_info;

/* Return nonzero to stop the solve (status IRCG_STATUS_INTERRUPTED). */
typedef int (*ircg_callback)(void *user, const ircg_iter_info *it);

typedef struct ircg_reference ircg_reference;

typedef struct ircg_settings {
    ircg_algorithm algorithm;
    ircg_step_rule step_rule;
    double varsigma;      /* sigma_t = varsigma (t+1)^(-p); >= 0.  0 makes
                             IR-CG conditional gradient on g alone (z = x)
                             and IR-PG projected gradient on g            */
    double p;             /* in (0, 1)                                     */
    int64_t max_iter;     /* >= 1                                          */
    double time_limit;    /* seconds; <= 0 means none                      */
    double gap_tol;       /* stop (CONVERGED) when the gap of ircg_iter_info
                             is <= it;
                             0 = never                                     */
    ircg_start start;
    const double *x0;     /* START_GIVEN: length dim (MC: column-major n x p)
                             borrowed for the duration of ircg_solver_new  */
    double lmo_tol;       /* relative tolerance of the top singular pair   */
    int lmo_max_matvecs;  /* per LMO call                                  */
    ircg_lmo_engine lmo_engine; /* nuclear ball; default LANCZOS           */
    int threads;          /* threads for the sparse kernels, >= 1          */
    ircg_callback callback;
    void *callback_data;
    const volatile int *cancel; /* polled every iteration; nonzero stops;
                             borrowed, may be NULL. Written by other threads
                             with an atomic store.                         */
    const ircg_reference *reference; /* borrowed, may be NULL: enables
                             g - g_opt by the difference formula           */
    double g_opt;         /* used when reference is NULL; NaN = unknown    */

    /* The baselines (ignored by the other algorithms).  step_rule must be
     * open loop for them: CG-BiO's steps are 2/(k+2), the projection
     * methods have their own rules below. */
    ircg_projection projection; /* IR-PG and Bi-SG on the nuclear ball     */
    double irpg_theta;    /* IR-PG Armijo: sufficient decrease, (0, 1); 1/2 */
    double irpg_step;     /* IR-PG: first trial step alpha~ > 0; 1/2       */
    double irpg_eta;      /* IR-PG: backtracking factor, (0, 1); 1/2       */
    double bisg_alpha;    /* Bi-SG: outer steps c k^-alpha, alpha in (0, 1];
                             the paper's 1/(2 - 0.01)                      */
    double bisg_c;        /* Bi-SG: c > 0; the paper's min(1/L_f, 1)       */
    double bisg_step;     /* Bi-SG: inner step t > 0; 0 = 1/L_g            */
    double cgbio_eps_g;   /* CG-BiO: warm start until the FW gap of g is
                             <= eps_g / 2; > 0, the paper's 1e-4            */
    int64_t cgbio_warmup_max_iter; /* CG-BiO: cap of the warm start, >= 1  */
} ircg_settings;

void ircg_settings_default(ircg_settings *s);
/* Checks every member; fills diag->field with "/<member>". */
ircg_error ircg_settings_validate(const ircg_settings *s, ircg_diag *diag);

/* --------------------------------------------------------------- solver -- */

typedef struct ircg_info {
    ircg_status status;
    int64_t iterations;
    double setup_seconds;
    double solve_seconds;   /* including time before a restore            */
    double lmo_seconds;     /* total oracle time (LMOs or projections)    */
    int64_t lmo_matvecs;    /* total                                      */
    double g_x, f_x, g_z, f_z;
    double gap;             /* last gap (see ircg_iter_info)               */
    double g_gap_x, g_gap_z;/* NaN unless a reference or g_opt is known   */
    double sigma;           /* last sigma                                 */
    int rank;               /* MC: atoms of the iterate                   */
    int64_t lmo_unconverged;/* oracle calls that stopped at lmo_max_matvecs */
    int64_t proj_partial;   /* nuclear-ball projections by leading triplets */
    int64_t proj_full;      /* nuclear-ball projections by a full SVD      */
    int64_t warmup_iterations; /* CG-BiO: conditional-gradient steps of the
                               warm start (its time is in solve_seconds)  */
    double warmup_seconds;
    /* The memory traffic of matrix completion (0 for least squares): the
     * passes over the observed entries Omega made by this solver object
     * since it was created (not saved in checkpoints), and the bytes those
     * passes read and wrote by the kernels' traffic model (each array entry
     * counted once per pass, as STREAM counts).  omega_bytes / solve_seconds
     * against the machine's memory bandwidth shows how far a solve is from
     * the hardware floor. */
    int64_t omega_passes;
    double omega_bytes;
    int threads;            /* threads the sparse kernels ran on           */
} ircg_info;

typedef struct ircg_solver ircg_solver;

/* Validates settings against the problem and sets x_0 = z_0 = start.
 * pb is borrowed and must outlive the solver. */
ircg_error ircg_solver_new(const ircg_problem *pb, const ircg_settings *s,
                           ircg_solver **out, ircg_diag *diag);
/* Runs until a stopping rule fires; may be called again after raising
 * max_iter or time_limit through ircg_solver_settings().  The algorithm
 * and the start are fixed at creation: changing the algorithm there gives
 * IRCG_ERR_INVALID. */
ircg_error ircg_solve(ircg_solver *sv, ircg_info *info);
ircg_settings *ircg_solver_settings(ircg_solver *sv);
void ircg_solver_free(ircg_solver *sv);

/* Iterates.  For least squares `dense` holds the vector (length n).  For
 * matrix completion the iterate is a0 * X0 + P * diag(w) * Q' with P n x k and
 * Q p x k column-major, X0 the start point (diagonal, see IRCG_START_DEFAULT;
 * x0_diag gives its diagonal); dense is filled (column-major n x p) only when
 * want_dense is set. */
typedef struct ircg_iterate {
    ircg_problem_kind kind;
    int n_rows, n_cols;
    int64_t dim;
    double *dense;      /* NULL unless LS or want_dense                   */
    double a0;          /* MC: coefficient of X0                          */
    double *x0_diag;    /* MC: min(n,p) diagonal of X0                    */
    int rank;           /* MC: k                                          */
    double *w;          /* MC: k weights                                  */
    double *P;          /* MC: n x k                                      */
    double *Q;          /* MC: p x k                                      */
} ircg_iterate;

typedef enum ircg_which { IRCG_X = 0, IRCG_Z = 1 } ircg_which;

ircg_error ircg_solver_iterate(const ircg_solver *sv, ircg_which which,
                               int want_dense, ircg_iterate **out);
void ircg_iterate_free(ircg_iterate *it);

/* Checkpoints: the complete state (t, S_t, x_t, z_t, warm-start vectors), so
 * that a restored solver continues exactly as the original would have.  The
 * blob is little-endian, versioned, and checked against the problem: its
 * kind, dimensions and number of observations, and (blobs of version 3 on,
 * when both digests are known) the data digest.  A mismatch is
 * IRCG_ERR_INVALID with diag->field "/checkpoint" (shape) or "/data"
 * (same shape, other data); the solver is then unchanged. */
ircg_error ircg_solver_save(const ircg_solver *sv, void **blob, size_t *len);
ircg_error ircg_solver_restore(ircg_solver *sv, const void *blob, size_t len,
                               ircg_diag *diag);

/* The state of a solver whose problem is spread over processes
 * (ircg_problem_matrix_completion_part) as the blob ircg_solver_save gives
 * on one process for the whole instance: the whole |Omega|, the data digest
 * of all the ratings, every rank's rows in row order.  One process
 * restores it, or starts from it (ircg_solver_restore_as), and goes on as
 * the distributed solve would have, to rounding.  Collective: every rank
 * calls it; the blob's bytes are handed in order to put on rank 0 only
 * (the other ranks' put is never called), so that no rank holds the whole
 * state: the rows travel through comm's sum in bounded pieces.  put
 * returns 0, or nonzero to refuse (the rest is skipped on rank 0; the
 * ranks still go through every sum): IRCG_ERR_IO on rank 0 then, and
 * IRCG_ERR_NOMEM when a buffer could not be had.  On one process: the
 * blob of ircg_solver_save, handed to put in one piece. */
typedef int (*ircg_write_fn)(void *ctx, const void *data, size_t len);
ircg_error ircg_solver_save_whole(const ircg_solver *sv, ircg_write_fn put, void *ctx);

/* What a restored state starts.  The solver must run the algorithm that
 * saved it (else IRCG_ERR_INVALID, field "/checkpoint").
 *  - RESUME: the same run goes on (crash recovery): everything is restored,
 *    the clock and the oracle totals included.
 *  - CONTINUE: a new run that goes on from the saved state: x_t, the
 *    averaged z_t and the schedule (t, S_t, so sigma_t and the steps) as if
 *    the solve had never stopped, bit for bit; the clock (elapsed), the
 *    oracle totals and the counters of ircg_info start at zero.  max_iter
 *    still counts iterations from the schedule's start (t).
 *  - AFRESH: a new run started at the saved x: z_0 = x_0 = x, t = 0,
 *    S_0 = 0, the clock and totals at zero; the last LMO vertex stays as
 *    the oracle's warm start, and CG-BiO makes its warm start again. */
typedef enum ircg_restore_mode {
    IRCG_RESTORE_RESUME = 0,
    IRCG_RESTORE_CONTINUE,
    IRCG_RESTORE_AFRESH
} ircg_restore_mode;
ircg_error ircg_solver_restore_as(ircg_solver *sv, const void *blob, size_t len,
                                  ircg_restore_mode mode, ircg_diag *diag);

/* The header of a checkpoint blob, read without a solver: a service checks
 * a warm start against a job before it builds anything.  At least
 * IRCG_CHECKPOINT_HEAD bytes of the blob (or the whole blob when shorter)
 * are needed; IRCG_ERR_INVALID ("/checkpoint") when they are not a
 * checkpoint's.  data_digest is 0 for blobs before version 3. */
#define IRCG_CHECKPOINT_HEAD 128
typedef struct ircg_checkpoint_info {
    int version;
    ircg_problem_kind kind;
    ircg_algorithm algorithm;
    int64_t dim, n_observed;
    uint64_t data_digest;
    int64_t iterations;   /* t of the saved state                        */
} ircg_checkpoint_info;
ircg_error ircg_checkpoint_peek(const void *head, size_t len,
                                ircg_checkpoint_info *out, ircg_diag *diag);

/* ------------------------------------------------ inner optimum (g_opt) -- */

/* Conditional gradient on g alone with exact line search, as the paper uses
 * for its reference values, stopped on the Frank-Wolfe gap
 *   gap(x) = <grad g(x), x> - min_{v in X} <grad g(x), v>  >=  g(x) - g_opt
 * (nuclear ball: min_v <grad g, v> = -delta sigma_1(grad g)).
 *
 * The computed gap is a cancelling difference of two terms of size about
 * scale = |<grad g(x), x>| + |min_v <grad g(x), v>| (delta sigma_1 ~ 1e4 on
 * MovieLens), so its rounding error is a few ulps of scale and no gap below
 * that can be certified.  The library takes
 *   gap_floor = 8 DBL_EPSILON scale
 * (measured: the error of the computed gap reached 3.5 DBL_EPSILON scale on
 * MovieLens 100K and 1M, mostly the sum of <R, X_Omega> over Omega) and
 * reports the certificate
 *   gap = max(raw gap, 0) + gap_floor,
 * never a negative number.  The iteration stops at the first of:
 *  - CONVERGED: gap <= tol, or raw gap <= gap_floor ("at the floor"; then
 *    gap <= 2 gap_floor, and gap > tol says tol was below what double
 *    precision can certify: ask for tol >= 2 gap_floor);
 *  - STALLED: the raw gap made no new minimum over the last max(100, t/4)
 *    iterations (t = iterations so far) while above both thresholds;
 *  - MAX_ITER, TIME_LIMIT, CANCELLED as for the solver.
 * A gap is only trusted when the LMO met lmo_tol: an LMO that stopped at its
 * product limit is retried (warm-started, so each retry continues the
 * Lanczos) up to 4 times; if it still did not converge, that iteration
 * neither stops the run nor enters lower_bound, and lmo_converged = 0 says
 * the final gap is not a certificate.  The top singular value is a Ritz
 * value; its error is of second order in lmo_tol (about
 * (lmo_tol sigma_1)^2 / (sigma_1 - sigma_2)), below the floor unless
 * sigma_1 and sigma_2 nearly coincide: check top_sv and second_sv. */
typedef struct ircg_reference_settings {
    double tol;           /* requested certified gap, > 0 (paper: 1e-12)   */
    int64_t max_iter;
    double time_limit;    /* seconds, <= 0 none                            */
    double lmo_tol;
    int threads;
    const volatile int *cancel;
    int certify_unique;   /* matrix completion: prove (or fail to prove)
                             that the inner solution set is a single point,
                             see ircg_reference_info.unique; costs a dense
                             p x p eigensolve (seconds at p = 3449), refused
                             (unique = -1) above p = 16000; 0 = skip     */
} ircg_reference_settings;

void ircg_reference_settings_default(ircg_reference_settings *s);
ircg_error ircg_reference_compute(const ircg_problem *pb,
                                  const ircg_reference_settings *s,
                                  ircg_reference **out, ircg_diag *diag);

typedef struct ircg_reference_info {
    double g_opt;         /* g at the final iterate                        */
    double f_x;           /* f at that iterate: f of the inner solution
                             when it is unique, up to the iterate's
                             distance to it                                */
    double gap;           /* its certificate max(raw, 0) + gap_floor:
                             g_opt - gap <= true min (see above)           */
    double gap_floor;     /* rounding floor of the final gap, see above    */
    double lower_bound;   /* best Wolfe bound max_t g(x_t) - gap_t over the
                             iterations with a converged LMO               */
    int64_t iterations;
    double seconds;
    ircg_status status;   /* CONVERGED, STALLED, MAX_ITER, ... (see above) */
    int lmo_converged;    /* 1 when the final gap's LMO met lmo_tol        */
    double top_sv, second_sv; /* MC: sigma_1, sigma_2 of grad g at the end
                                 (NaN when not computed)                   */
    /* MC with certify_unique.  Every inner solution x* has the same
     * gradient G*, and the solution set is a single point when
     * sigma_1(G*) > sigma_2(G*).  From the final iterate x^: the top
     * singular values cert_sv1 >= cert_sv2 of the gradient computed there
     * (dense eigensolve), and a rigorous bound |sigma_i(G*) - cert_sv_i| <=
     * unique_bound that adds the rounding of that gradient and of the
     * eigensolve to ||P_Omega(x^ - x*)||, bounded from the recomputed
     * Frank-Wolfe gap (problems/mc/mc_certify.c derives each term); by
     * Weyl's inequality sigma_1(G*) - sigma_2(G*) >= unique_margin =
     * cert_sv1 - cert_sv2 - 2 unique_bound.  unique = 1 when that margin is
     * positive (certified), 0 when it is not, -1 when not computed. */
    int unique;
    double unique_margin, unique_bound;
    double cert_sv1, cert_sv2;
    double unique_dist;       /* its part ||P_Omega(x^ - x*)||_F <= this   */
    double unique_rounding;   /* its rounding part (gradient + eigensolve) */
    double f_vertex;          /* f(-delta u v') with (u, v) the top singular
                                 pair of grad g at the end: f of the unique
                                 solution, as far as that pair is exact    */
} ircg_reference_info;

void ircg_reference_get_info(const ircg_reference *ref, ircg_reference_info *info);
/* A reference known only by its value (no difference formula). */
ircg_reference *ircg_reference_from_value(double g_opt);
void ircg_reference_free(ircg_reference *ref);

/* ------------------------------------------------------------- helpers -- */

/* sigma_t = varsigma (t+1)^(-p) */
double ircg_sigma(double varsigma, double p, int64_t t);

#ifdef __cplusplus
}
#endif
#endif /* IRCG_H */
