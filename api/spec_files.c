/*
 * spec_files.c -- files named by a spec: resolution against a base
 * directory (optionally confined to it), the matrix A of a least squares or
 * logistic regression problem (Matrix Market, CSV, LIBSVM, or NumPy's .npy
 * and .npz: dataset.h), and its right-hand side b (targets or labels).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec_internal.h"

/* Collapses ".", ".." and repeated slashes of an absolute path in place,
 * lexically (as if no component were a symlink; realpath() judges those
 * afterwards).  ".." above the root stays at the root. */
static void normalize(char *path)
{
    char in[PATH_MAX], *save = NULL;
    size_t n = 0; /* the result's length; it is never longer than the input */
    snprintf(in, sizeof in, "%s", path);
    for (char *c = strtok_r(in, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (!strcmp(c, "."))
            continue;
        if (!strcmp(c, "..")) {
            while (n > 0 && path[n - 1] != '/')
                n--;
            n -= n > 0; /* and its slash */
            continue;
        }
        size_t l = strlen(c);
        path[n++] = '/';
        memcpy(path + n, c, l);
        n += l;
    }
    if (n == 0)
        path[n++] = '/';
    path[n] = '\0';
}

/* Is the canonical path inside the canonical directory dir? */
static int inside(const char *real, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return 1;
    return strncmp(real, dir, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* The path to open, checked twice when confined: lexically after
 * normalisation (so "../x" or "/etc/x" is refused without looking at the
 * filesystem, and a probe outside learns nothing of what exists there),
 * then by realpath() (so a symlink that leads out is refused too). */
char *sp_resolve_path(sp_ctx *c, const char *ptr, const char *path)
{
    const char *base = c->opt->base_dir && *c->opt->base_dir ? c->opt->base_dir : ".";
    int confine = c->opt->confine_paths;
    char full[PATH_MAX], real[PATH_MAX], rbase[PATH_MAX];
    if (confine && !realpath(base, rbase)) {
        sp_err(c, ptr, "the data directory cannot be resolved: %s", strerror(errno));
        return NULL;
    }
    if ((size_t)snprintf(full, sizeof full, "%s%s%s", path[0] == '/' ? "" : confine ? rbase : base,
                         path[0] == '/' ? "" : "/", path) >= sizeof full) {
        sp_err(c, ptr, "path too long");
        return NULL;
    }
    if (confine) {
        snprintf(real, sizeof real, "%s", full);
        normalize(real);
        if (!inside(real, rbase)) {
            sp_err(c, ptr, "path %s is outside the data directory", path);
            return NULL;
        }
    }
    if (!realpath(full, real)) {
        sp_err(c, ptr, errno == ENOENT ? "file not found: %s" : "cannot open %s: %s",
               path, strerror(errno));
        return NULL;
    }
    if (confine && !inside(real, rbase)) {
        sp_err(c, ptr, "path %s is outside the data directory (a symlink leads out)", path);
        return NULL;
    }
    if (access(real, R_OK) != 0) {
        sp_err(c, ptr, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    char *out = strdup(confine ? real : full);
    if (!out)
        sp_err(c, ptr, "out of memory");
    return out;
}

void sp_stamp_take(const char *path, sp_stamp *s)
{
    struct stat st;
    memset(s, 0, sizeof *s);
    if (stat(path, &st) != 0)
        return;
    s->dev = (unsigned long long)st.st_dev;
    s->ino = (unsigned long long)st.st_ino;
    s->size = (long long)st.st_size;
    s->mtime_s = (long long)st.st_mtim.tv_sec;
    s->mtime_ns = (long long)st.st_mtim.tv_nsec;
    s->ok = 1;
}

int sp_stamp_same(sp_ctx *c, const char *ptr, const char *name, const char *path,
                  const sp_stamp *before)
{
    sp_stamp after;
    sp_stamp_take(path, &after);
    if (before->ok && after.ok && !memcmp(before, &after, sizeof after))
        return 1;
    sp_err(c, ptr, "%s: the file %s while it was being read; nothing of it was used",
           name, after.ok ? "changed" : "disappeared");
    return 0;
}

/* COO (0-based) -> CSR by a counting sort on the rows. */
static int coo_to_csr(const ircg_ratings *r, sp_mat *ls)
{
    ls->m = r->n_rows;
    ls->n = r->n_cols;
    ls->rowptr = calloc((size_t)r->n_rows + 1, sizeof *ls->rowptr);
    ls->colind = malloc((size_t)(r->nnz ? r->nnz : 1) * sizeof *ls->colind);
    ls->val = malloc((size_t)(r->nnz ? r->nnz : 1) * sizeof *ls->val);
    int64_t *next = malloc(((size_t)r->n_rows + 1) * sizeof *next);
    int ok = ls->rowptr && ls->colind && ls->val && next;
    for (int64_t i = 0; ok && i < r->nnz; i++)
        ls->rowptr[r->row[i] + 1]++;
    for (int i = 0; ok && i < r->n_rows; i++)
        ls->rowptr[i + 1] += ls->rowptr[i];
    if (ok)
        memcpy(next, ls->rowptr, ((size_t)r->n_rows + 1) * sizeof *next);
    for (int64_t i = 0; ok && i < r->nnz; i++) {
        int64_t k = next[r->row[i]]++;
        ls->colind[k] = r->col[i];
        ls->val[k] = r->val[i];
    }
    free(next);
    return ok;
}

/* A: a Matrix Market coordinate file, read by the library's reader (its
 * size line gives the dimensions). */
static int read_mtx(sp_ctx *c, const char *ptr, const char *name, const char *path,
                    sp_mat *ls)
{
    ircg_read_options ro = {IRCG_FORMAT_MATRIX_MARKET, 0, 0, 0};
    ircg_ratings *r = NULL;
    ircg_diag d = {0};
    sp_stamp before;
    int ok = 0;
    sp_stamp_take(path, &before);
    if (ircg_ratings_read_file(path, &ro, &r, &d) != IRCG_OK)
        sp_file_diag(c, ptr, name, &d);
    else if (!sp_stamp_same(c, ptr, name, path, &before))
        ok = 0;
    else if (r->n_rows > SP_MAX_DIM || r->n_cols > SP_MAX_DIM)
        sp_err(c, ptr, "%s: dimensions %d x %d too large (at most %d each)", name,
               r->n_rows, r->n_cols, SP_MAX_DIM);
    else if (!(ok = coo_to_csr(r, ls)))
        sp_err(c, ptr, "out of memory");
    ircg_ratings_free(r);
    return ok;
}

/* Does the file start with the Matrix Market banner?  -1 when it cannot
 * be opened (after an error at ptr). */
static int mtx_banner(sp_ctx *c, const char *ptr, const char *name, const char *path)
{
    char head[16] = "";
    FILE *f = fopen(path, "r");
    if (!f) {
        sp_err(c, ptr, "cannot open %s: %s", name, strerror(errno));
        return -1;
    }
    size_t n = fread(head, 1, 14, f);
    fclose(f);
    return n == 14 && memcmp(head, "%%MatrixMarket", 14) == 0;
}

/* A: a LIBSVM file, its labels into b (as read; the caller maps them). */
static int read_svm(sp_ctx *c, const char *ptr, const char *name, const char *path,
                    sp_mat *mat)
{
    ircg_svm_options o = {.n_cols = mat->n_given};
    ircg_svm *s = NULL;
    ircg_diag d = {0};
    sp_stamp before;
    sp_stamp_take(path, &before);
    if (ircg_svm_read_file(path, &o, &s, &d) != IRCG_OK) {
        sp_file_diag(c, ptr, name, &d);
        return 0;
    }
    int ok = sp_stamp_same(c, ptr, name, path, &before);
    if (ok && (s->m > SP_MAX_DIM || s->n > SP_MAX_DIM)) {
        sp_err(c, ptr, "%s: dimensions %d x %d too large (at most %d each)", name, s->m, s->n,
               SP_MAX_DIM);
        ok = 0;
    }
    if (ok) { /* the arrays change hands */
        mat->m = s->m;
        mat->n = s->n;
        mat->rowptr = s->rowptr;
        mat->colind = s->colind;
        mat->val = s->val;
        free(mat->b);
        mat->b = s->labels;
        mat->b_len = s->m;
        s->rowptr = NULL;
        s->colind = NULL;
        s->val = NULL;
        s->labels = NULL;
    }
    ircg_svm_free(s);
    return ok;
}

/* A: a NumPy file, dense or sparse (dataset.h), every value checked
 * within SP_MAX_VALUE as it is read. */
static int read_npy(sp_ctx *c, const char *ptr, const char *name, const char *path,
                    sp_mat *mat)
{
    api_matrix a;
    api_read_error e = {0};
    sp_stamp before;
    sp_stamp_take(path, &before);
    if (api_npy_read_matrix(path, SP_MAX_VALUE, c->opt->stop, &a, &e) != 0) {
        sp_err(c, ptr, "%s: %s", name, e.message);
        return 0;
    }
    if (!sp_stamp_same(c, ptr, name, path, &before)) {
        api_matrix_free(&a);
        return 0;
    }
    mat->m = (int)a.m;
    mat->n = (int)a.n;
    mat->A = a.A;
    mat->rowptr = a.rowptr;
    mat->colind = a.colind;
    mat->val = a.val;
    return 1;
}

/* The first bytes of a matrix file tell its format: NumPy's magic, the
 * Matrix Market banner, a LIBSVM row (ircg_svm_sniff), else CSV; -1 when
 * it cannot be read (after an error at ptr). */
int sp_matrix_format(sp_ctx *c, const char *ptr, const char *name, const char *path)
{
    char *head = malloc(IRCG_PROBE_BYTES);
    FILE *f = head ? fopen(path, "rb") : NULL;
    if (!f) {
        sp_err(c, ptr, "cannot open %s: %s", name, head ? strerror(errno) : "out of memory");
        free(head);
        return -1;
    }
    size_t n = fread(head, 1, IRCG_PROBE_BYTES, f);
    fclose(f);
    int npy = api_npy_sniff(head, n);
    int fmt = npy == 'y'                                          ? SP_FMT_NPY
              : npy == 'z'                                        ? SP_FMT_NPZ
              : n >= 14 && memcmp(head, "%%MatrixMarket", 14) == 0 ? SP_FMT_MTX
              : ircg_svm_sniff(head, n)                          ? SP_FMT_LIBSVM
                                                                 : SP_FMT_CSV;
    free(head);
    return fmt;
}

int sp_read_matrix(sp_ctx *c, const char *ptr, const char *name, const char *path,
                   sp_mat *mat)
{
    ircg_diag d = {0};
    if (mat->fmt == SP_FMT_LIBSVM)
        return read_svm(c, ptr, name, path, mat);
    if (mat->fmt == SP_FMT_NPY || mat->fmt == SP_FMT_NPZ)
        return read_npy(c, ptr, name, path, mat);
    int mm = mat->fmt == SP_FMT_MTX ? 1 : mat->fmt == SP_FMT_CSV ? 0
                                                                 : mtx_banner(c, ptr, name, path);
    if (mm)
        return mm > 0 && read_mtx(c, ptr, name, path, mat);
    if (ircg_dense_read_file(path, &mat->A, &mat->m, &mat->n, &d) != IRCG_OK) {
        sp_file_diag(c, ptr, name, &d);
        return 0;
    }
    return 1;
}

int sp_probe_matrix(sp_ctx *c, const char *ptr, const char *name, const char *path,
                    int fmt, int m_given, int n_given)
{
    ircg_diag d = {0};
    if (fmt == SP_FMT_NPY || fmt == SP_FMT_NPZ) { /* the headers: the shape */
        api_npy_shape sh;
        api_read_error e = {0};
        if (api_npy_probe(path, &sh, &e) != 0) {
            sp_err(c, ptr, "%s: %s", name, e.message);
            return 0;
        }
        if (sh.ndim != 2 || (m_given > 0 && sh.rows != m_given) ||
            (n_given > 0 && sh.cols != n_given)) {
            sp_err(c, ptr, "%s: an array of %lld x %lld%s, not a matrix of %s x %s", name,
                   (long long)sh.rows, (long long)sh.cols, sh.ndim == 2 ? "" : " (1-D)",
                   m_given > 0 ? "m" : "rows", n_given > 0 ? "n" : "columns");
            return 0;
        }
        return 1;
    }
    if (fmt == SP_FMT_LIBSVM) {
        ircg_svm_options o = {.n_cols = n_given};
        ircg_svm_probe pr;
        if (ircg_svm_probe_file(path, &o, &pr, &d) == IRCG_OK)
            return 1;
        sp_file_diag(c, ptr, name, &d);
        return 0;
    }
    int n = 0, mm = fmt == SP_FMT_MTX ? 1 : fmt == SP_FMT_CSV ? 0
                                                              : mtx_banner(c, ptr, name, path);
    if (mm) {
        ircg_read_options ro = {IRCG_FORMAT_MATRIX_MARKET, m_given, n_given, 0};
        return mm > 0 && sp_probe_file(c, ptr, name, path, &ro);
    }
    if (ircg_dense_probe_file(path, &n, &d) != IRCG_OK) {
        sp_file_diag(c, ptr, name, &d);
        return 0;
    }
    if (n_given > 0 && n != n_given) {
        sp_err(c, ptr, "%s: rows of %d numbers, n is %d", name, n, n_given);
        return 0;
    }
    return 1;
}

int sp_probe_file(sp_ctx *c, const char *ptr, const char *name, const char *path,
                  const ircg_read_options *ro)
{
    ircg_ratings_probe pr;
    ircg_diag d = {0};
    if (ircg_ratings_probe_file(path, ro, &pr, &d) == IRCG_OK)
        return 1;
    sp_file_diag(c, ptr, name, &d);
    return 0;
}

/* Does the file start with NumPy's magic? */
static int is_npy(const char *path)
{
    unsigned char head[8] = {0};
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return api_npy_sniff(head, n) != 0;
}

/* b: a vector file, read by the library's reader (or a NumPy file's). */
int sp_read_vector(sp_ctx *c, const char *ptr, const char *name, const char *path,
                   double **b, int64_t *n)
{
    ircg_diag d = {0};
    api_read_error e = {0};
    sp_stamp before;
    sp_stamp_take(path, &before);
    if (is_npy(path)) {
        if (api_npy_read_vector(path, SP_MAX_VALUE, c->opt->stop, b, n, &e) != 0)
            sp_err(c, ptr, "%s: %s", name, e.message);
        else if (!sp_stamp_same(c, ptr, name, path, &before)) {
            free(*b);
            *b = NULL;
        } else
            return 1;
        return 0;
    }
    if (ircg_vector_read_file(path, b, n, &d) != IRCG_OK) {
        sp_file_diag(c, ptr, name, &d);
    } else if (!sp_stamp_same(c, ptr, name, path, &before)) {
        free(*b);
        *b = NULL;
    } else {
        return 1;
    }
    return 0;
}
