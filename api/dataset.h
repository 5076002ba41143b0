/*
 * dataset.h -- matrices and vectors as their users hold them: NumPy .npy
 * and .npz files (dense float64; SciPy's sparse archives of
 * scipy.sparse.save_npz in CSR, CSC or COO), besides the text formats the
 * library reads (LIBSVM, Matrix Market, CSV).  The readers a job uses
 * (npy_matrix.c), and the checks an uploaded dataset goes through before
 * it is kept (dataset_check.c): every value finite and within the bound
 * the spec puts on data, the structure sound, the shape known; errors name
 * the byte offset (binary files) or the line (text files) of the first
 * defect.  Checking a binary file holds 64 KiB whatever its size; a text
 * file is parsed by the library's reader, whose memory the caller is asked
 * to reserve first.
 */
#ifndef IRCG_API_DATASET_H
#define IRCG_API_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "ircg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What stops a long read: the job's cancel flag and deadline. */
typedef ircg_thread_stop api_stop;

typedef struct api_read_error {
    char message[320];   /* "offset 1184: A[3, 7] is NaN: ..." or "line 3: ..."  */
    int64_t line;        /* a text file's line (>= 1), else 0                  */
    int64_t offset;      /* a binary file's byte offset (-1: none); in a
                            deflated .npz member, the offset in its data        */
    int stopped;         /* the stop ended the read                            */
} api_read_error;

/* Largest row or column count of a matrix (the spec's bound). */
#define API_MAX_DIM 100000000

/* A matrix: dense row-major (A), or CSR (rowptr, colind, val; the
 * columns of a row in any order, repeats summed as SciPy does). */
typedef struct api_matrix {
    int64_t m, n, nnz;   /* nnz: stored values (dense: m n)                    */
    double *A;
    int64_t *rowptr;
    int32_t *colind;
    double *val;
} api_matrix;
void api_matrix_free(api_matrix *m);

/* What a NumPy file holds, without its values. */
typedef struct api_npy_shape {
    int ndim;            /* 1 or 2                                             */
    int64_t rows, cols;  /* a 1-D array: rows = its length, cols = 1           */
    int64_t nnz;         /* stored values                                      */
    char layout[8];      /* "dense", "csr", "csc" or "coo"                     */
} api_npy_shape;

/* By the first n bytes: 'y' for .npy ("\x93NUMPY"), 'z' for .npz (a ZIP
 * archive), 0 for anything else. */
int api_npy_sniff(const void *head, size_t n);

/* An .npy, or an .npz holding one array or one SciPy sparse matrix
 * (members format, shape, data and indices/indptr or row/col), checked
 * whole in bounded memory: the header, every value finite with |v| <=
 * max_abs, indices inside the shape, pointers that start at 0, never
 * decrease and end at the values' count, CRCs.  0 and *out, or -1 and e. */
int api_npy_check(const char *path, double max_abs, const api_stop *stop,
                  api_npy_shape *out, api_read_error *e);
/* Only the headers (and a sparse archive's format and shape): what the
 * file says it holds, without reading its values (cheap). */
int api_npy_probe(const char *path, api_npy_shape *out, api_read_error *e);
/* The 2-D array (or sparse matrix) of path, checked the same way; CSC and
 * COO become CSR.  0, or -1 and e. */
int api_npy_read_matrix(const char *path, double max_abs, const api_stop *stop,
                        api_matrix *out, api_read_error *e);
/* A 1-D array of n values (or n x 1), *v malloc'ed.  0, or -1 and e. */
int api_npy_read_vector(const char *path, double max_abs, const api_stop *stop, double **v,
                        int64_t *n, api_read_error *e);

/* ------------------------------------------------------------ uploads -- */

/* What a dataset holds (the service keeps it with the bytes). */
typedef struct api_dataset_meta {
    char kind[16];       /* "ratings", "matrix" or "vector"                    */
    char format[16];     /* npy, npz, libsvm, matrix_market, csv (matrices and
                            vectors); movielens, udata, csv, matrix_market
                            (ratings)                                          */
    int64_t rows, cols;  /* ratings: n_rows x n_cols; a vector: its length x 1 */
    int64_t nnz;         /* ratings, or stored values                          */
    int sparse;          /* a matrix held as CSR (sparse .npz, LIBSVM, Matrix
                            Market)                                            */
    int labels;          /* a LIBSVM matrix: its labels are b                  */
    int64_t memory;      /* bytes one copy of it takes in a job                */
} api_dataset_meta;

/* The kinds and formats an upload may name (NULL-terminated). */
extern const char *const API_DATASET_KINDS[];
extern const char *const API_DATASET_FORMATS[];

/* Asked before a text file is parsed: 0 when `bytes` may be held (until
 * the caller's request ends), else nonzero (the caller answers). */
typedef int (*api_reserve_fn)(void *user, int64_t bytes);

typedef enum api_check_rc {
    API_CHECK_OK = 0,
    API_CHECK_INVALID,   /* kind or format unknown, or not for that kind      */
    API_CHECK_BAD_DATA,  /* the file is malformed: e says where                */
    API_CHECK_REFUSED,   /* reserve said no                                    */
    API_CHECK_IO         /* the file cannot be read                            */
} api_check_rc;

/* The uploaded file at path as kind (NULL or "": told by the content:
 * a NumPy file by its dimensions, a LIBSVM file a matrix, any other text
 * ratings) in format (NULL or "auto": told by the content), checked
 * whole: binary files in bounded memory, text files by the library's
 * readers (the same a job uses) after reserve accepted what they hold. */
api_check_rc api_dataset_check(const char *path, const char *kind, const char *format,
                               api_reserve_fn reserve, void *user,
                               api_dataset_meta *out, api_read_error *e);

/* The metadata as JSON text ({"kind", "format", "rows", "cols", "nnz",
 * "sparse", "labels", "memory"}), malloc'ed; and back (0, or -1 when the
 * text is not such an object). */
char *api_dataset_meta_json(const api_dataset_meta *m);
int api_dataset_meta_parse(const char *json, api_dataset_meta *out);

#ifdef __cplusplus
}
#endif
#endif /* IRCG_API_DATASET_H */
