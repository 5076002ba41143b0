/*
 * npy_matrix.c -- what a NumPy file holds as a matrix or a vector: an
 * .npy array; an .npz archive of one array (numpy.savez(f, A)); or a
 * SciPy sparse matrix (scipy.sparse.save_npz: members "format" ("csr",
 * "csc" or "coo", bytes), "shape" (2 integers), "data" (the values) and
 * "indices"/"indptr" or "row"/"col").  Checked whole -- each value
 * finite and within the bound, each index inside the shape, pointers that
 * start at 0, never decrease and end at the count of values -- in one
 * pass of bounded memory (api_npy_check), or read into a dense row-major
 * or CSR matrix (CSC and COO turned into CSR by a counting sort; repeats
 * of a (row, column) kept, to be summed as SciPy sums them).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy_internal.h"

int api_npy_sniff(const void *head, size_t n)
{
    if (n >= 6 && !memcmp(head, "\x93NUMPY", 6))
        return 'y';
    if (n >= 4 && (!memcmp(head, "PK\x03\x04", 4) || !memcmp(head, "PK\x05\x06", 4)))
        return 'z';
    return 0;
}

void api_matrix_free(api_matrix *m)
{
    if (!m)
        return;
    free(m->A);
    free(m->rowptr);
    free(m->colind);
    free(m->val);
    memset(m, 0, sizeof *m);
}

/* An open NumPy file: a plain .npy or an archive's directory. */
typedef struct npf {
    int fd;
    int64_t size;
    int zip;
    zip_dir dir;
    const api_stop *stop;
    ar_stream *s;          /* the stream being read (one at a time)          */
} npf;

static void fail(api_read_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(api_read_error *e, const char *fmt, ...)
{
    va_list ap;
    if (!e)
        return;
    e->line = 0;
    e->offset = -1;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
}

static int npf_open(npf *f, const char *path, const api_stop *stop, api_read_error *e)
{
    struct stat st;
    unsigned char head[8] = {0};
    memset(f, 0, sizeof *f);
    f->stop = stop;
    if ((f->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(f->fd, &st) != 0) {
        fail(e, "cannot open %s", path);
        return -1;
    }
    f->size = (int64_t)st.st_size;
    ssize_t got = pread(f->fd, head, sizeof head, 0);
    int kind = got > 0 ? api_npy_sniff(head, (size_t)got) : 0;
    if (!kind) {
        fail(e, "offset 0: not a NumPy file (neither \\x93NUMPY nor a ZIP archive)");
        if (e)
            e->offset = 0;
        return -1;
    }
    f->zip = kind == 'z';
    return f->zip ? zip_read_dir(f->fd, f->size, &f->dir, e) : 0;
}

static void npf_close(npf *f)
{
    if (f->s) {
        ar_close(f->s);
        free(f->s);
        f->s = NULL;
    }
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}

/* A stream over the .npy `member` (NULL: a plain file's whole) with its
 * header read: 0, or -1 and e. */
static int npf_array(npf *f, const zip_member *member, npy_head *h, api_read_error *e)
{
    memset(h, 0, sizeof *h);
    if (f->s)
        ar_close(f->s);
    else if (!(f->s = malloc(sizeof *f->s))) {
        ar_fail(NULL, -1, e, "out of memory");
        return -1;
    }
    memset(f->s, 0, sizeof *f->s);
    f->s->stop = f->stop;
    int rc = member ? ar_open_member(f->s, f->fd, member, e) : ar_open_file(f->s, f->fd, f->size);
    return rc == 0 ? npy_read_head(f->s, h, e) : -1;
}

/* The member "name.npy" of an archive; NULL with e set when missing. */
static const zip_member *need(const npf *f, const char *name, api_read_error *e)
{
    char full[80];
    snprintf(full, sizeof full, "%s.npy", name);
    const zip_member *m = zip_find(&f->dir, full);
    if (!m)
        fail(e, "a SciPy sparse archive needs the member %s; it has none", full);
    return m;
}

/* The one array of a plain .npy or an archive of one member; -1 and e
 * when the archive holds something else. */
static int single(npf *f, npy_head *h, char *label, size_t cap, api_read_error *e)
{
    if (!f->zip) {
        snprintf(label, cap, "A");
        return npf_array(f, NULL, h, e);
    }
    if (f->dir.n != 1) {
        char names[200] = "";
        for (int i = 0; i < f->dir.n && strlen(names) < 150; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     i ? ", " : "", f->dir.m[i].name);
        fail(e, "the archive holds %s (%s): a dataset is one array "
             "(numpy.save, numpy.savez(f, a)) or one SciPy sparse matrix "
             "(scipy.sparse.save_npz)", f->dir.n ? "several members" : "no member", names);
        return -1;
    }
    size_t nl = strlen(f->dir.m[0].name);
    snprintf(label, cap, "%.*s", (int)(nl > 4 && !strcmp(f->dir.m[0].name + nl - 4, ".npy")
                                          ? nl - 4 : nl), f->dir.m[0].name);
    return npf_array(f, &f->dir.m[0], h, e);
}

/* ----------------------------------------------------------- sparse -- */

typedef struct sparse {
    char format[4];        /* "csr", "csc", "coo"                            */
    int64_t m, n;
    int64_t nnz;           /* the count of data                              */
} sparse;

/* SciPy's "format" member: 3 bytes ('|S3') or 3 UCS-4 characters ('<U3'). */
static int read_format(npf *f, sparse *sp, api_read_error *e)
{
    npy_head h = {0};
    unsigned char raw[16];
    const zip_member *m = need(f, "format", e);
    if (!m || npf_array(f, m, &h, e) != 0)
        return -1;
    if (h.ndim != 0 || (h.type != 'S' && h.type != 'U') || h.size > 16 ||
        (h.type == 'U' && h.size % 4))
        return ar_fail(f->s, -1, e, "the format is not a short string (dtype '%s')", h.descr);
    if (ar_read(f->s, raw, (size_t)h.size, e) != 0 || ar_end(f->s, e) != 0)
        return -1;
    int step = h.type == 'U' ? 4 : 1, k = 0;
    for (int i = 0; i < h.size && k < 3; i += step)
        if (raw[i + (h.type == 'U' && h.big ? 3 : 0)])
            sp->format[k++] = (char)raw[i + (h.type == 'U' && h.big ? 3 : 0)];
    sp->format[k] = '\0';
    if (strcmp(sp->format, "csr") != 0 && strcmp(sp->format, "csc") != 0 &&
        strcmp(sp->format, "coo") != 0)
        return ar_fail(f->s, -1, e, "format '%s': CSR, CSC and COO matrices are read "
                       "(matrix.tocsr())", sp->format);
    return 0;
}

static int read_shape(npf *f, sparse *sp, api_read_error *e)
{
    npy_head h = {0};
    int64_t v[2];
    const zip_member *m = need(f, "shape", e);
    if (!m || npf_array(f, m, &h, e) != 0)
        return -1;
    if (h.ndim != 1 || h.count != 2)
        return ar_fail(f->s, -1, e, "the shape is not 2 integers");
    if (npy_read_ints(f->s, &h, "shape", 1, API_MAX_DIM, v, NULL, NULL, e) != 0 ||
        ar_end(f->s, e) != 0)
        return -1;
    sp->m = v[0];
    sp->n = v[1];
    return 0;
}

/* The pointers' rules, checked as they stream by. */
typedef struct ptr_rule {
    int64_t prev, last_k, nnz;
} ptr_rule;

static int ptr_check(void *user, int64_t k, int64_t v, api_read_error *e)
{
    ptr_rule *r = user;
    const char *why = k == 0 && v != 0 ? "the first pointer must be 0"
                      : v < r->prev    ? "the pointers decrease here"
                      : k == r->last_k && v != r->nnz ? "the last pointer must be the count "
                                                        "of values"
                                                      : NULL;
    r->prev = v;
    if (why && e)
        snprintf(e->message, sizeof e->message, "%s", why);
    return why != NULL;
}

/* An integer member of `len` values in [0, hi); into dst when given. */
static int read_index(npf *f, const char *name, int64_t len, int64_t lo, int64_t hi,
                      int64_t *dst, npy_int_check check, void *user, api_read_error *e)
{
    npy_head h = {0};
    const zip_member *m = need(f, name, e);
    if (!m || npf_array(f, m, &h, e) != 0)
        return -1;
    if (h.ndim != 1 || h.count != len)
        return ar_fail(f->s, -1, e, "%s holds %lld values, %lld expected", name,
                       (long long)h.count, (long long)len);
    if (npy_read_ints(f->s, &h, name, lo, hi, dst, check, user, e) != 0)
        return -1;
    return ar_end(f->s, e);
}

static int read_data(npf *f, sparse *sp, double max_abs, double *dst, api_read_error *e)
{
    npy_head h = {0};
    const zip_member *m = need(f, "data", e);
    if (!m || npf_array(f, m, &h, e) != 0)
        return -1;
    if (h.ndim != 1)
        return ar_fail(f->s, -1, e, "the values are not a 1-D array");
    sp->nnz = h.count;
    if (max_abs < 0) /* the count only */
        return 0;
    if (npy_read_f8(f->s, &h, "data", max_abs, dst, 0, e) != 0)
        return -1;
    return ar_end(f->s, e);
}

static int is_sparse(const npf *f)
{
    return f->zip && zip_find(&f->dir, "format.npy") && zip_find(&f->dir, "shape.npy");
}

/* A sparse archive checked (dst NULL) or read into out (CSR). */
static int sparse_matrix(npf *f, double max_abs, api_matrix *out, api_npy_shape *shape,
                         api_read_error *e)
{
    sparse sp = {{0}, 0, 0, 0};
    if (read_format(f, &sp, e) != 0 || read_shape(f, &sp, e) != 0 ||
        read_data(f, &sp, -1, NULL, e) != 0)
        return -1;
    int csr = !strcmp(sp.format, "csr"), csc = !strcmp(sp.format, "csc");
    int64_t lines = csr ? sp.m : sp.n, nnz = sp.nnz;
    if (shape) {
        *shape = (api_npy_shape){2, sp.m, sp.n, nnz, {0}};
        snprintf(shape->layout, sizeof shape->layout, "%s", sp.format);
    }
    int64_t *ptr = NULL, *idx = NULL, *idx2 = NULL;
    double *val = NULL;
    int rc = 0;
    if (out) {
        ptr = calloc((size_t)lines + 1, sizeof *ptr);
        idx = calloc((size_t)(nnz ? nnz : 1), sizeof *idx);
        idx2 = csr || csc ? NULL : calloc((size_t)(nnz ? nnz : 1), sizeof *idx2);
        val = calloc((size_t)(nnz ? nnz : 1), sizeof *val);
        if ((csr || csc ? !ptr : !idx2) || !idx || !val)
            rc = ar_fail(NULL, -1, e, "out of memory");
    }
    if (rc == 0 && (csr || csc)) {
        ptr_rule r = {0, lines, nnz};
        rc = read_index(f, "indptr", lines + 1, 0, nnz, ptr, ptr_check, &r, e);
        if (rc == 0)
            rc = read_index(f, "indices", nnz, 0, (csr ? sp.n : sp.m) - 1, idx, NULL, NULL, e);
    } else if (rc == 0) {
        rc = read_index(f, "row", nnz, 0, sp.m - 1, idx, NULL, NULL, e);
        if (rc == 0)
            rc = read_index(f, "col", nnz, 0, sp.n - 1, idx2, NULL, NULL, e);
    }
    if (rc == 0)
        rc = read_data(f, &sp, max_abs, val, e);
    if (rc == 0 && out) {
        /* to CSR: by rows, a counting sort (CSC's columns, COO's entries in
         * their order) */
        out->m = sp.m;
        out->n = sp.n;
        out->nnz = nnz;
        out->rowptr = calloc((size_t)sp.m + 1, sizeof *out->rowptr);
        out->colind = malloc((size_t)(nnz ? nnz : 1) * sizeof *out->colind);
        if (!out->rowptr || !out->colind) {
            rc = ar_fail(NULL, -1, e, "out of memory");
        } else if (csr) {
            memcpy(out->rowptr, ptr, ((size_t)sp.m + 1) * sizeof *ptr);
            for (int64_t k = 0; k < nnz; k++)
                out->colind[k] = (int32_t)idx[k];
            out->val = val;
            val = NULL;
        } else {
            out->val = malloc((size_t)(nnz ? nnz : 1) * sizeof *out->val);
            int64_t *next = malloc(((size_t)sp.m + 1) * sizeof *next);
            if (!out->val || !next) {
                rc = ar_fail(NULL, -1, e, "out of memory");
            } else {
                for (int64_t k = 0; k < nnz; k++) /* a row's count */
                    out->rowptr[idx[k] + 1]++; /* CSC's indices are rows too */
                for (int64_t i = 0; i < sp.m; i++)
                    out->rowptr[i + 1] += out->rowptr[i];
                memcpy(next, out->rowptr, ((size_t)sp.m + 1) * sizeof *next);
                for (int64_t j = 0, k = 0; csc && j < sp.n; j++)
                    for (; k < ptr[j + 1]; k++) {
                        int64_t at = next[idx[k]]++;
                        out->colind[at] = (int32_t)j;
                        out->val[at] = val[k];
                    }
                for (int64_t k = 0; !csc && k < nnz; k++) {
                    int64_t at = next[idx[k]]++;
                    out->colind[at] = (int32_t)idx2[k];
                    out->val[at] = val[k];
                }
            }
            free(next);
        }
    }
    free(ptr);
    free(idx);
    free(idx2);
    free(val);
    if (rc != 0 && out)
        api_matrix_free(out);
    return rc;
}

/* ------------------------------------------------------------ entries -- */

static int dims_ok(npf *f, const npy_head *h, api_read_error *e)
{
    if (h->ndim == 0 || h->count == 0)
        return ar_fail(f->s, -1, e, "the array is %s", h->ndim ? "empty" : "a scalar");
    if (h->shape[0] > API_MAX_DIM || (h->ndim == 2 && h->shape[1] > API_MAX_DIM))
        return ar_fail(f->s, -1, e, "%lld x %lld is too large (at most %d rows and columns)",
                       (long long)h->shape[0], (long long)(h->ndim == 2 ? h->shape[1] : 1),
                       API_MAX_DIM);
    return 0;
}

int api_npy_check(const char *path, double max_abs, const api_stop *stop, api_npy_shape *out,
                  api_read_error *e)
{
    npf f;
    npy_head h = {0};
    char label[80];
    int rc = npf_open(&f, path, stop, e);
    if (rc == 0 && is_sparse(&f)) {
        rc = sparse_matrix(&f, max_abs, NULL, out, e);
    } else if (rc == 0) {
        rc = single(&f, &h, label, sizeof label, e);
        if (rc == 0)
            rc = dims_ok(&f, &h, e);
        if (rc == 0)
            rc = npy_read_f8(f.s, &h, label, max_abs, NULL, 0, e);
        if (rc == 0)
            rc = ar_end(f.s, e);
        if (rc == 0 && out) {
            *out = (api_npy_shape){h.ndim, h.shape[0], h.ndim == 2 ? h.shape[1] : 1, h.count,
                                   "dense"};
        }
    }
    npf_close(&f);
    return rc;
}

int api_npy_probe(const char *path, api_npy_shape *out, api_read_error *e)
{
    npf f;
    npy_head h = {0};
    sparse sp = {{0}, 0, 0, 0};
    char label[80];
    int rc = npf_open(&f, path, NULL, e);
    if (rc == 0 && is_sparse(&f)) {
        rc = read_format(&f, &sp, e);
        if (rc == 0)
            rc = read_shape(&f, &sp, e);
        if (rc == 0)
            rc = read_data(&f, &sp, -1, NULL, e);
        if (rc == 0 && out) {
            *out = (api_npy_shape){2, sp.m, sp.n, sp.nnz, {0}};
            snprintf(out->layout, sizeof out->layout, "%s", sp.format);
        }
    } else if (rc == 0) {
        rc = single(&f, &h, label, sizeof label, e);
        if (rc == 0)
            rc = dims_ok(&f, &h, e);
        if (rc == 0 && h.type != 'f')
            rc = ar_fail(f.s, -1, e, "%s has dtype '%s': float64 values are read "
                         "(numpy.asarray(a, dtype=numpy.float64))", label, h.descr);
        if (rc == 0 && out)
            *out = (api_npy_shape){h.ndim, h.shape[0], h.ndim == 2 ? h.shape[1] : 1, h.count,
                                   "dense"};
    }
    npf_close(&f);
    return rc;
}

int api_npy_read_matrix(const char *path, double max_abs, const api_stop *stop,
                        api_matrix *out, api_read_error *e)
{
    npf f;
    npy_head h = {0};
    char label[80];
    memset(out, 0, sizeof *out);
    int rc = npf_open(&f, path, stop, e);
    if (rc == 0 && is_sparse(&f)) {
        rc = sparse_matrix(&f, max_abs, out, NULL, e);
    } else if (rc == 0) {
        rc = single(&f, &h, label, sizeof label, e);
        if (rc == 0)
            rc = dims_ok(&f, &h, e);
        if (rc == 0 && h.ndim != 2)
            rc = ar_fail(f.s, -1, e, "%s has shape (%lld,): a matrix has 2 dimensions "
                         "(a.reshape(-1, 1) for one column)", label, (long long)h.shape[0]);
        if (rc == 0 && !(out->A = malloc((size_t)h.count * sizeof *out->A)))
            rc = ar_fail(f.s, -1, e, "out of memory (%lld values)", (long long)h.count);
        if (rc == 0)
            rc = npy_read_f8(f.s, &h, label, max_abs, out->A, 1, e);
        if (rc == 0)
            rc = ar_end(f.s, e);
        if (rc == 0) {
            out->m = h.shape[0];
            out->n = h.shape[1];
            out->nnz = h.count;
        } else {
            api_matrix_free(out);
        }
    }
    npf_close(&f);
    return rc;
}

int api_npy_read_vector(const char *path, double max_abs, const api_stop *stop, double **v,
                        int64_t *n, api_read_error *e)
{
    npf f;
    npy_head h = {0};
    char label[80];
    *v = NULL;
    *n = 0;
    int rc = npf_open(&f, path, stop, e);
    if (rc == 0 && is_sparse(&f))
        rc = ar_fail(NULL, -1, e, "a sparse matrix is no vector: save a 1-D array "
                     "(numpy.save)");
    else if (rc == 0)
        rc = single(&f, &h, label, sizeof label, e);
    if (rc == 0)
        rc = dims_ok(&f, &h, e);
    if (rc == 0 && h.ndim == 2 && h.shape[1] != 1)
        rc = ar_fail(f.s, -1, e, "%s has shape (%lld, %lld): a vector is 1-D (or one column)",
                     label, (long long)h.shape[0], (long long)h.shape[1]);
    if (rc == 0 && !(*v = malloc((size_t)h.count * sizeof **v)))
        rc = ar_fail(f.s, -1, e, "out of memory (%lld values)", (long long)h.count);
    if (rc == 0)
        rc = npy_read_f8(f.s, &h, label, max_abs, *v, 0, e);
    if (rc == 0)
        rc = ar_end(f.s, e);
    if (rc == 0) {
        *n = h.count;
    } else {
        free(*v);
        *v = NULL;
    }
    npf_close(&f);
    return rc;
}
