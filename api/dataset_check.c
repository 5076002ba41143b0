/*
 * dataset_check.c -- an uploaded file checked before the service keeps
 * it as a dataset: its kind (ratings, a matrix, a vector) and format told
 * or checked against the content, every value read once, its shape and
 * the memory one copy of it takes in a job recorded (api_dataset_meta).
 *
 * NumPy files are checked in one pass of bounded memory (npy_matrix.c).
 * Text files are parsed by the library's readers -- the same a job's
 * build uses, so that a dataset accepted here is read the same way
 * there, errors and all -- which hold the data they read: first a pass
 * over the bytes counts what they can hold at most (lines, separators),
 * and the caller reserves that against its budget (or refuses).
 */
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "dataset.h"
#include "spec.h"

/* The bound the spec puts on every value (spec_internal.h's SP_MAX_VALUE). */
#define MAX_VALUE 1e30

const char *const API_DATASET_KINDS[] = {"ratings", "matrix", "vector", NULL};
const char *const API_DATASET_FORMATS[] = {"auto", "npy", "npz", "libsvm", "matrix_market",
                                           "csv", "movielens", "udata", NULL};

static int in(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(s, list[i]))
            return 1;
    return 0;
}

static api_check_rc bad(api_read_error *e, api_check_rc rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static api_check_rc bad(api_read_error *e, api_check_rc rc, const char *fmt, ...)
{
    va_list ap;
    if (e) {
        e->line = 0;
        e->offset = -1;
        va_start(ap, fmt);
        vsnprintf(e->message, sizeof e->message, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* A reader's error: "line N: why". */
static api_check_rc from_diag(api_read_error *e, ircg_error err, const ircg_diag *d)
{
    api_check_rc rc = bad(e, err == IRCG_ERR_IO ? API_CHECK_IO : API_CHECK_BAD_DATA, "%s",
                          d->message[0] ? d->message : ircg_error_string(err));
    if (e)
        e->line = d->line;
    return rc;
}

/* What a text file can hold at most: its lines and separators. */
typedef struct counts {
    int64_t bytes, lines, commas, colons, blanks;
} counts;

static int count(const char *path, counts *c)
{
    char *buf = malloc(1 << 20);
    int fd = buf ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    ssize_t got;
    *c = (counts){0, 1, 0, 0, 0};
    if (fd < 0) {
        free(buf);
        return -1;
    }
    while ((got = read(fd, buf, 1 << 20)) > 0) {
        c->bytes += got;
        for (ssize_t i = 0; i < got; i++) {
            char ch = buf[i];
            c->lines += ch == '\n';
            c->commas += ch == ',';
            c->colons += ch == ':';
            c->blanks += ch == ' ' || ch == '\t';
        }
    }
    close(fd);
    free(buf);
    return got < 0 ? -1 : 0;
}

/* The format a text file's head says: the Matrix Market banner, a LIBSVM
 * row; else NULL (the kind decides). */
static const char *text_format(const char *head, size_t n)
{
    if (n >= 14 && !memcmp(head, "%%MatrixMarket", 14))
        return "matrix_market";
    return ircg_svm_sniff(head, n) ? "libsvm" : NULL;
}

/* ------------------------------------------------------------- binary -- */

static api_check_rc check_npy(const char *path, const char *kind, api_dataset_meta *out,
                              api_read_error *e)
{
    api_npy_shape sh;
    if (api_npy_check(path, MAX_VALUE, NULL, &sh, e) != 0)
        return API_CHECK_BAD_DATA;
    int vec = sh.ndim == 1 || (sh.cols == 1 && !strcmp(sh.layout, "dense"));
    if (!kind[0])
        kind = sh.ndim == 1 ? "vector" : "matrix";
    if (!strcmp(kind, "ratings"))
        return bad(e, API_CHECK_INVALID, "kind ratings: a NumPy file holds a matrix or a "
                   "vector (kind=matrix or kind=vector)");
    if (!strcmp(kind, "vector") && !vec)
        return bad(e, API_CHECK_BAD_DATA, "a vector is 1-D (or one column); this array is "
                   "%lld x %lld", (long long)sh.rows, (long long)sh.cols);
    if (!strcmp(kind, "matrix") && sh.ndim == 1)
        return bad(e, API_CHECK_BAD_DATA, "a matrix has 2 dimensions; this array has shape "
                   "(%lld,) (a.reshape(-1, 1) for one column)", (long long)sh.rows);
    snprintf(out->kind, sizeof out->kind, "%s", kind);
    out->rows = sh.rows;
    out->cols = sh.cols;
    out->nnz = sh.nnz;
    out->sparse = strcmp(sh.layout, "dense") != 0;
    out->memory = out->sparse ? 12 * sh.nnz + 8 * (sh.rows + 1) : 8 * sh.nnz;
    return API_CHECK_OK;
}

/* --------------------------------------------------------------- text -- */

static api_check_rc reserve_for(api_reserve_fn reserve, void *user, int64_t bytes,
                                api_read_error *e)
{
    if (!reserve || reserve(user, bytes) == 0)
        return API_CHECK_OK;
    return bad(e, API_CHECK_REFUSED, "parsing it would hold %.0f MB", (double)bytes / 1e6);
}

static api_check_rc check_svm(const char *path, const counts *c, api_reserve_fn reserve,
                              void *user, api_dataset_meta *out, api_read_error *e)
{
    ircg_svm_options o = {0};
    ircg_svm *s = NULL;
    ircg_diag d = {0};
    /* the mapping, the ranges' arrays and the joined CSR (svm_reader.c) */
    api_check_rc rc = reserve_for(reserve, user, c->bytes + 2 * (12 * c->colons + 24 * c->lines),
                                  e);
    if (rc != API_CHECK_OK)
        return rc;
    ircg_error err = ircg_svm_read_file(path, &o, &s, &d);
    if (err != IRCG_OK)
        return from_diag(e, err, &d);
    for (int64_t k = 0; k < s->nnz && rc == API_CHECK_OK; k++)
        if (fabs(s->val[k]) > MAX_VALUE)
            rc = bad(e, API_CHECK_BAD_DATA, "a value %.17g: |v| must be <= 1e+30", s->val[k]);
    for (int i = 0; i < s->m && rc == API_CHECK_OK; i++)
        if (fabs(s->labels[i]) > MAX_VALUE)
            rc = bad(e, API_CHECK_BAD_DATA, "the label of row %d is %.17g: |v| must be <= "
                     "1e+30", i + 1, s->labels[i]);
    snprintf(out->kind, sizeof out->kind, "matrix");
    out->rows = s->m;
    out->cols = s->n;
    out->nnz = s->nnz;
    out->sparse = out->labels = 1;
    out->memory = 12 * s->nnz + 8 * ((int64_t)s->m + 1) + 8 * (int64_t)s->m;
    ircg_svm_free(s);
    return rc;
}

/* Ratings, or a Matrix Market matrix (coordinates, as A is read). */
static api_check_rc check_coords(const char *path, const char *kind, ircg_ratings_format f,
                                 const counts *c, api_reserve_fn reserve, void *user,
                                 api_dataset_meta *out, api_read_error *e)
{
    ircg_read_options ro = {f, 0, 0, 0};
    ircg_ratings *r = NULL;
    ircg_diag d = {0};
    /* the mapping, the ranges' arrays, the joined triplets and the
     * duplicate check's sort (readers_run.c) */
    api_check_rc rc = reserve_for(reserve, user, c->bytes + 32 * c->lines, e);
    if (rc != API_CHECK_OK)
        return rc;
    ircg_error err = ircg_ratings_read_file(path, &ro, &r, &d);
    if (err != IRCG_OK)
        return from_diag(e, err, &d);
    for (int64_t k = 0; k < r->nnz && rc == API_CHECK_OK; k++)
        if (fabs(r->val[k]) > MAX_VALUE)
            rc = bad(e, API_CHECK_BAD_DATA, "the value at (%d, %d) is %.17g: |v| must be <= "
                     "1e+30", r->row[k] + 1, r->col[k] + 1, r->val[k]);
    if (rc == API_CHECK_OK && !strcmp(kind, "matrix") &&
        (r->n_rows > API_MAX_DIM || r->n_cols > API_MAX_DIM))
        rc = bad(e, API_CHECK_BAD_DATA, "dimensions %d x %d too large (at most %d each)",
                 r->n_rows, r->n_cols, API_MAX_DIM);
    snprintf(out->kind, sizeof out->kind, "%s", kind);
    snprintf(out->format, sizeof out->format, "%s", api_format_name(r->format));
    out->rows = r->n_rows;
    out->cols = r->n_cols;
    out->nnz = r->nnz;
    out->sparse = !strcmp(kind, "matrix");
    out->memory = out->sparse ? 12 * r->nnz + 8 * ((int64_t)r->n_rows + 1) : 16 * r->nnz;
    ircg_ratings_free(r);
    return rc;
}

static api_check_rc check_csv_matrix(const char *path, const counts *c, api_reserve_fn reserve,
                                     void *user, api_dataset_meta *out, api_read_error *e)
{
    double *A = NULL;
    int m = 0, n = 0;
    ircg_diag d = {0};
    /* the mapping and the values, in an array that doubles as it grows */
    api_check_rc rc = reserve_for(reserve, user, c->bytes + 16 * (c->commas + c->lines), e);
    if (rc != API_CHECK_OK)
        return rc;
    ircg_error err = ircg_dense_read_file(path, &A, &m, &n, &d);
    if (err != IRCG_OK)
        return from_diag(e, err, &d);
    for (int64_t k = 0; k < (int64_t)m * n && rc == API_CHECK_OK; k++)
        if (fabs(A[k]) > MAX_VALUE)
            rc = bad(e, API_CHECK_BAD_DATA, "the value in row %lld, column %lld is %.17g: "
                     "|v| must be <= 1e+30", (long long)(k / n) + 1, (long long)(k % n) + 1,
                     A[k]);
    free(A);
    snprintf(out->kind, sizeof out->kind, "matrix");
    out->rows = m;
    out->cols = n;
    out->nnz = (int64_t)m * n;
    out->memory = 8 * out->nnz;
    return rc;
}

static api_check_rc check_vector(const char *path, const counts *c, api_reserve_fn reserve,
                                 void *user, api_dataset_meta *out, api_read_error *e)
{
    double *v = NULL;
    int64_t n = 0;
    ircg_diag d = {0};
    api_check_rc rc = reserve_for(reserve, user,
                                  c->bytes + 16 * (c->commas + c->blanks + c->lines), e);
    if (rc != API_CHECK_OK)
        return rc;
    ircg_error err = ircg_vector_read_file(path, &v, &n, &d);
    if (err != IRCG_OK)
        return from_diag(e, err, &d);
    for (int64_t k = 0; k < n && rc == API_CHECK_OK; k++)
        if (fabs(v[k]) > MAX_VALUE)
            rc = bad(e, API_CHECK_BAD_DATA, "entry %lld is %.17g: |v| must be <= 1e+30",
                     (long long)k + 1, v[k]);
    free(v);
    snprintf(out->kind, sizeof out->kind, "vector");
    out->rows = out->nnz = n;
    out->cols = 1;
    out->memory = 8 * n;
    return rc;
}

/* -------------------------------------------------------------- entry -- */

/* Which formats each kind takes. */
static int format_fits(const char *kind, const char *f)
{
    static const char *const RATINGS[] = {"movielens", "udata", "csv", "matrix_market", NULL};
    static const char *const MATRIX[] = {"npy", "npz", "libsvm", "matrix_market", "csv", NULL};
    static const char *const VECTOR[] = {"npy", "npz", "matrix_market", "csv", NULL};
    return in(f, !strcmp(kind, "ratings") ? RATINGS : !strcmp(kind, "matrix") ? MATRIX
                                                                              : VECTOR);
}

api_check_rc api_dataset_check(const char *path, const char *kind, const char *format,
                               api_reserve_fn reserve, void *user, api_dataset_meta *out,
                               api_read_error *e)
{
    char head[IRCG_PROBE_BYTES];
    counts c;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? pread(fd, head, sizeof head, 0) : -1;
    if (fd >= 0)
        close(fd);
    memset(out, 0, sizeof *out);
    if (e)
        memset(e, 0, sizeof *e);
    kind = kind ? kind : "";
    format = format && strcmp(format, "auto") != 0 ? format : "";
    if (kind[0] && !in(kind, API_DATASET_KINDS))
        return bad(e, API_CHECK_INVALID, "kind \"%s\": ratings, matrix or vector", kind);
    if (format[0] && !in(format, API_DATASET_FORMATS))
        return bad(e, API_CHECK_INVALID, "format \"%s\": npy, npz, libsvm, matrix_market, csv, "
                   "movielens, udata or auto", format);
    if (n < 0)
        return bad(e, API_CHECK_IO, "the upload cannot be read back");
    if (n == 0)
        return bad(e, API_CHECK_BAD_DATA, "the body is empty");
    /* a NumPy file says what it is; a format that says otherwise is wrong */
    int magic = api_npy_sniff(head, (size_t)n);
    const char *told = magic == 'y' ? "npy" : magic == 'z' ? "npz"
                                                          : text_format(head, (size_t)n);
    if (format[0] && (!strcmp(format, "npy") || !strcmp(format, "npz")) &&
        (!told || strcmp(format, told) != 0))
        return bad(e, API_CHECK_BAD_DATA, "offset 0: not a%s %s file (it does not start "
                   "with %s)", strcmp(format, "npy") ? "n" : "", format,
                   strcmp(format, "npy") ? "PK\\x03\\x04" : "\\x93NUMPY");
    if (format[0] && magic && strcmp(format, told) != 0)
        return bad(e, API_CHECK_BAD_DATA, "offset 0: a NumPy %s file, not %s", told, format);
    /* without a kind, text is ratings (as before matrices were uploaded)
     * unless it is LIBSVM's; NumPy files say by their dimensions */
    if (!kind[0] && !magic)
        kind = !strcmp(format[0] ? format : told ? told : "", "libsvm") ? "matrix" : "ratings";
    if (!format[0] && magic)
        format = told;
    else if (!format[0] && strcmp(kind, "ratings") != 0) /* a matrix or a vector: CSV by default */
        format = told ? told : "csv";
    if (magic) {
        snprintf(out->format, sizeof out->format, "%s", format);
        return check_npy(path, kind, out, e);
    }
    if (format[0] && !format_fits(kind, format))
        return bad(e, API_CHECK_INVALID, "format %s does not hold a %s", format,
                   !strcmp(kind, "ratings") ? "set of ratings" : kind);
    if (count(path, &c) != 0)
        return bad(e, API_CHECK_IO, "the upload cannot be read back");
    if (!strcmp(kind, "ratings")) {
        ircg_ratings_format f = IRCG_FORMAT_AUTO;
        api_format_parse(format[0] ? format : "auto", &f);
        return check_coords(path, kind, f, &c, reserve, user, out, e);
    }
    snprintf(out->format, sizeof out->format, "%s", format);
    if (!strcmp(kind, "vector"))
        return check_vector(path, &c, reserve, user, out, e);
    if (!strcmp(format, "libsvm"))
        return check_svm(path, &c, reserve, user, out, e);
    if (!strcmp(format, "matrix_market"))
        return check_coords(path, kind, IRCG_FORMAT_MATRIX_MARKET, &c, reserve, user, out, e);
    return check_csv_matrix(path, &c, reserve, user, out, e);
}

/* --------------------------------------------------------------- JSON -- */

char *api_dataset_meta_json(const api_dataset_meta *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", m->kind);
    cJSON_AddStringToObject(o, "format", m->format);
    cJSON_AddNumberToObject(o, "rows", (double)m->rows);
    cJSON_AddNumberToObject(o, "cols", (double)m->cols);
    cJSON_AddNumberToObject(o, "nnz", (double)m->nnz);
    cJSON_AddBoolToObject(o, "sparse", m->sparse);
    cJSON_AddBoolToObject(o, "labels", m->labels);
    cJSON_AddNumberToObject(o, "memory", (double)m->memory);
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

static int64_t num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : -1;
}

int api_dataset_meta_parse(const char *json, api_dataset_meta *out)
{
    cJSON *o = json ? cJSON_Parse(json) : NULL;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(o, "format");
    int rc = -1;
    memset(out, 0, sizeof *out);
    if (cJSON_IsString(kind) && cJSON_IsString(fmt)) {
        snprintf(out->kind, sizeof out->kind, "%s", kind->valuestring);
        snprintf(out->format, sizeof out->format, "%s", fmt->valuestring);
        out->rows = num(o, "rows");
        out->cols = num(o, "cols");
        out->nnz = num(o, "nnz");
        out->memory = num(o, "memory");
        out->sparse = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "sparse"));
        out->labels = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "labels"));
        rc = out->rows >= 0 && out->cols >= 0 && out->nnz >= 0 ? 0 : -1;
    }
    cJSON_Delete(o);
    return rc;
}
