/*
 * ircg/ratings.h -- part of libircg's public API: ratings and vectors read
 * from files and buffers, synthetic instances. Include <ircg.h>, which
 * includes every part in order; the conventions of the whole API are written
 * at its top.
 */
#ifndef IRCG_RATINGS_H
#define IRCG_RATINGS_H

#include "codes.h"

#ifdef __cplusplus
extern "C" {
#endif

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
/* A LIBSVM / svmlight file: the A and labels of least squares or logistic
 * regression.  One row a line: a label, then features "index:value" with
 * 1-based indices that strictly increase along the line, separated by
 * blanks; an optional "qid:N" right after the label (N an integer; read
 * and dropped); anything from '#' to the end of the line is a comment;
 * blank and comment-only lines are skipped; a row may have no feature.
 * Labels and values follow the readers' rules (decimal, finite: +1, -1,
 * 0, 1, 2011, 0.25e-3), and the labels are returned as read (the caller
 * maps them: ircg does it in its spec, api/SPEC.md).  CRLF, a UTF-8 byte
 * order mark and a last line without newline are accepted.  Columns are
 * the largest index seen, unless n_cols > 0 is given (then an index
 * beyond is an error).  Errors as the readers above ("line N: ...",
 * IRCG_ERR_PARSE; "no rows found" with line 0); the file is memory-mapped
 * and parsed on opt->threads threads by ranges of lines, and neither the
 * result nor the first error depends on their number. */
typedef struct ircg_svm {
    int m, n;             /* rows, columns                                 */
    int64_t nnz;
    int64_t *rowptr;      /* m + 1                                         */
    int32_t *colind;      /* nnz, 0-based, increasing along each row       */
    double *val;          /* nnz (explicit zeros kept)                     */
    double *labels;       /* m, as read                                    */
} ircg_svm;
typedef struct ircg_svm_options {
    int n_cols;           /* 0 = the largest index                         */
    int64_t max_rows;     /* > 0: stop after that many rows                */
    int threads;          /* 0 = the machine's processors (at most 8)      */
} ircg_svm_options;
ircg_error ircg_svm_read_file(const char *path, const ircg_svm_options *opt,
                              ircg_svm **out, ircg_diag *diag);
ircg_error ircg_svm_read_buffer(const char *buf, size_t len, const ircg_svm_options *opt,
                                ircg_svm **out, ircg_diag *diag);
void ircg_svm_free(ircg_svm *s);
/* The cheap look of ircg_ratings_probe_file: the first IRCG_PROBE_BYTES
 * (cut after their last newline), at most IRCG_PROBE_ENTRIES rows. */
typedef struct ircg_svm_probe {
    int64_t bytes;        /* the file's (buffer's) size                    */
    int64_t rows, nnz;    /* read                                          */
    int n_cols;           /* the largest index read (or the given n_cols)  */
    int complete;         /* the whole input was read                      */
} ircg_svm_probe;
ircg_error ircg_svm_probe_file(const char *path, const ircg_svm_options *opt,
                               ircg_svm_probe *out, ircg_diag *diag);
ircg_error ircg_svm_probe_buffer(const char *buf, size_t len, const ircg_svm_options *opt,
                                 ircg_svm_probe *out, ircg_diag *diag);
/* 1 when the first line that is neither blank nor a comment reads as a
 * LIBSVM row with a feature ("label idx:val ..."), else 0: how a matrix
 * file's format is told when the spec says "auto". */
int ircg_svm_sniff(const char *buf, size_t len);

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

/* Synthetic rows of the shapes of the bilevel literature's data sets, as
 * CSR with labels (an ircg_svm, freed by ircg_svm_free); the same spec
 * gives the same rows on every machine, whatever the threads
 * (inputs/synth_shapes.c says how each is drawn):
 *  SPARSE  nnz_row entries a row on distinct columns, N(0,1)/sqrt(nnz_row)
 *          values, b = A x* + noise (the big finite sums of the benchmark);
 *  ADULT   the one-hot rows of LIBSVM's a1a/a9a (n = 123: 14 attributes
 *          with UCI Adult's bin counts), labels +-1 of a logistic model;
 *  MSD     Bisec-BiO's minimum-norm instance on YearPredictionMSD: an
 *          intercept and n - 1 columns each a combination of 10 of 90
 *          features in [-1, 1] with U(-1, 1) weights, b years; drawn, or
 *          the first m rows of a LIBSVM file (features_path: the year,
 *          then 90 features, each scaled to [-1, 1] over those rows; its
 *          errors as the reader's, "/features_path" when it is short).
 * logistic: labels sign(b) (+-1) instead of the targets (SPARSE, MSD: b
 * against 1998; ADULT's are labels anyway). */
typedef enum ircg_synth_shape {
    IRCG_SHAPE_SPARSE = 1,
    IRCG_SHAPE_ADULT,
    IRCG_SHAPE_MSD
} ircg_synth_shape;
typedef struct ircg_synth_rows_spec {
    ircg_synth_shape shape;
    int m, n;
    int nnz_row;              /* SPARSE                                   */
    double noise;             /* >= 0                                     */
    int logistic;
    uint64_t seed;
    int threads;              /* SPARSE: 0 = the machine's processors     */
    const char *features_path;/* MSD: a LIBSVM file (NULL: drawn)         */
} ircg_synth_rows_spec;
ircg_error ircg_synth_rows(const ircg_synth_rows_spec *spec, ircg_svm **out,
                           ircg_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* IRCG_RATINGS_H */
