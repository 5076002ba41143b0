/*
 * spec_files.c -- files named by a spec: resolution against a base
 * directory (optionally confined to it), the Matrix Market matrix A of a
 * least squares problem, and its right-hand side b.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Reads the banner and the size line of a Matrix Market file. kind gets
 * "coordinate" or "array"; dims[2] = rows, cols, (nnz).  Returns the line
 * number of the size line, 0 on a malformed header (msg says why). */
static long mtx_header(FILE *f, char *kind, size_t kn, long dims[3], char *msg,
                       size_t mn)
{
    char line[1024];
    long ln = 0;
    kind[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        ln++;
        if (ln == 1 && strncmp(line, "%%MatrixMarket", 14) == 0) {
            char obj[64] = "", fmt[64] = "";
            if (sscanf(line + 14, "%63s %63s", obj, fmt) == 2)
                snprintf(kind, kn, "%s", fmt);
            continue;
        }
        if (line[0] == '%' || strspn(line, " \t\r\n") == strlen(line))
            continue;
        dims[2] = -1;
        int k = sscanf(line, "%ld %ld %ld", &dims[0], &dims[1], &dims[2]);
        if (k < 2 || dims[0] < 1 || dims[1] < 1) {
            snprintf(msg, mn, "line %ld: expected the size line \"rows cols [nnz]\"", ln);
            return 0;
        }
        return ln;
    }
    snprintf(msg, mn, "no size line (empty file?)");
    return 0;
}

/* COO (0-based) -> CSR by a counting sort on the rows. */
static int coo_to_csr(const ircg_ratings *r, sp_ls *ls)
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

int sp_read_mtx_csr(sp_ctx *c, const char *ptr, const char *name, const char *path,
                    sp_ls *ls)
{
    char kind[64], msg[200];
    long dims[3];
    FILE *f = fopen(path, "r");
    if (!f) {
        sp_err(c, ptr, "cannot open %s: %s", name, strerror(errno));
        return 0;
    }
    long ln = mtx_header(f, kind, sizeof kind, dims, msg, sizeof msg);
    fclose(f);
    if (!ln || strcmp(kind, "coordinate") != 0) {
        sp_err(c, ptr, "%s: %s", name,
               ln ? "A must be a Matrix Market coordinate file" : msg);
        return 0;
    }
    if (dims[0] > 100000000 || dims[1] > 100000000) {
        sp_err(c, ptr, "%s: dimensions %ld x %ld too large (at most 1e8 each)", name,
               dims[0], dims[1]);
        return 0;
    }
    ircg_read_options ro = {IRCG_FORMAT_MATRIX_MARKET, (int)dims[0], (int)dims[1]};
    ircg_ratings *r = NULL;
    ircg_diag d = {0};
    int ok = 0;
    if (ircg_ratings_read_file(path, &ro, &r, &d) != IRCG_OK) {
        sp_file_diag(c, ptr, name, &d);
    } else if (!(ok = coo_to_csr(r, ls))) {
        sp_err(c, ptr, "out of memory");
    }
    ircg_ratings_free(r);
    return ok;
}

/* Append v to the growable array (*b, *n, *cap). */
static int push(double **b, int64_t *n, int64_t *cap, double v)
{
    if (*n == *cap) {
        int64_t nc = *cap ? 2 * *cap : 64;
        double *p = realloc(*b, (size_t)nc * sizeof *p);
        if (!p)
            return 0;
        *b = p;
        *cap = nc;
    }
    (*b)[(*n)++] = v;
    return 1;
}

/* Parse every number of one line into (*b, *n); coordinate files carry
 * "i j v" triplets of which v is kept at index i-1. */
static int vector_line(char *line, int coord, double **b, int64_t *n, int64_t *cap,
                       char *msg, size_t mn)
{
    char *s = line, *end;
    double t[3];
    int k = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' || *s == ',')
            s++;
        if (!*s)
            break;
        double v = strtod(s, &end);
        if (end == s || !isfinite(v)) {
            /* show the token alone: never the line's newline */
            int tok = (int)strcspn(s, " \t\r\n,");
            snprintf(msg, mn, "not a finite number: \"%.*s\"", tok < 20 ? tok : 20, s);
            return 0;
        }
        s = end;
        if (!coord && !push(b, n, cap, v)) {
            snprintf(msg, mn, "out of memory");
            return 0;
        }
        if (coord && k < 3)
            t[k] = v;
        k++;
    }
    if (coord && k != 3 && k != 0) {
        snprintf(msg, mn, "expected \"row col value\"");
        return 0;
    }
    if (coord && k == 3) {
        if (t[0] < 1 || t[0] > (double)*n || t[0] != floor(t[0]) || t[1] != 1) {
            snprintf(msg, mn, "entry (%g, %g) is outside the %lld x 1 vector", t[0],
                     t[1], (long long)*n);
            return 0;
        }
        (*b)[(int64_t)t[0] - 1] = t[2];
    }
    return 1;
}

int sp_read_vector(sp_ctx *c, const char *ptr, const char *name, const char *path,
                   double **b, int64_t *n)
{
    FILE *f = fopen(path, "r");
    char line[4096], msg[200] = "";
    long ln = 0, size_line = 0;
    int coord = 0, ok = 1;
    int64_t cap = 0, expect = -1;
    *b = NULL;
    *n = 0;
    if (!f) {
        sp_err(c, ptr, "cannot open %s: %s", name, strerror(errno));
        return 0;
    }
    if (fgets(line, sizeof line, f) && strncmp(line, "%%MatrixMarket", 14) == 0) {
        char kind[64];
        long dims[3];
        rewind(f);
        size_line = mtx_header(f, kind, sizeof kind, dims, msg, sizeof msg);
        coord = strcmp(kind, "coordinate") == 0;
        ok = size_line && dims[1] == 1;
        if (size_line && dims[1] != 1)
            snprintf(msg, sizeof msg, "b must have one column, got %ld", dims[1]);
        ln = size_line;
        expect = coord ? -1 : dims[0];
        for (int64_t i = 0; ok && coord && i < dims[0]; i++)
            ok = push(b, n, &cap, 0.0);
    } else {
        rewind(f);
    }
    while (ok && fgets(line, sizeof line, f)) {
        ln++;
        if (line[0] == '%' || line[0] == '#')
            continue;
        ok = vector_line(line, coord, b, n, &cap, msg, sizeof msg);
    }
    fclose(f);
    if (ok && expect >= 0 && *n != expect) {
        ok = 0;
        snprintf(msg, sizeof msg, "%lld values, the size line says %lld",
                 (long long)*n, (long long)expect);
    }
    if (ok && *n == 0) {
        ok = 0;
        snprintf(msg, sizeof msg, "no numbers");
    }
    if (!ok) {
        if (ln)
            sp_err(c, ptr, "%s: line %ld: %s", name, ln, msg);
        else
            sp_err(c, ptr, "%s: %s", name, msg);
        free(*b);
        *b = NULL;
    }
    return ok;
}
