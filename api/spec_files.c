/*
 * spec_files.c -- files named by a spec: resolution against a base
 * directory (optionally confined to it), the matrix A of a least squares or
 * logistic regression problem (Matrix Market or CSV), and its right-hand
 * side b (targets or labels).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec_internal.h"

/* Does path contain a ".." component? */
static int has_dotdot(const char *path)
{
    for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2) {
        int start = p == path || p[-1] == '/';
        int end = p[2] == '\0' || p[2] == '/';
        if (start && end)
            return 1;
    }
    return 0;
}

/* Is the canonical path inside the canonical directory dir? */
static int inside(const char *real, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return 1;
    return strncmp(real, dir, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

char *sp_resolve_path(sp_ctx *c, const char *ptr, const char *path)
{
    const char *base = c->opt->base_dir && *c->opt->base_dir ? c->opt->base_dir : ".";
    char full[PATH_MAX], real[PATH_MAX], rbase[PATH_MAX];
    char *out = NULL;
    if (path[0] == '/')
        snprintf(full, sizeof full, "%s", path);
    else if ((size_t)snprintf(full, sizeof full, "%s/%s", base, path) >= sizeof full) {
        sp_err(c, ptr, "path too long");
        return NULL;
    }
    if (c->opt->confine_paths && has_dotdot(path)) {
        sp_err(c, ptr, "path must not contain \"..\"");
        return NULL;
    }
    if (!realpath(full, real)) {
        sp_err(c, ptr, errno == ENOENT ? "file not found: %s" : "cannot open %s: %s",
               path, strerror(errno));
        return NULL;
    }
    if (c->opt->confine_paths &&
        (!realpath(base, rbase) || !inside(real, rbase))) {
        sp_err(c, ptr, "path %s is outside the data directory", path);
        return NULL;
    }
    if (access(real, R_OK) != 0) {
        sp_err(c, ptr, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    out = strdup(c->opt->confine_paths ? real : full);
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

static int read_mtx(sp_ctx *c, const char *ptr, const char *name, const char *path,
                    sp_mat *ls)
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

/* One CSV row of numbers into row (capacity cap, grown); *k = the count.
 * 0 with msg set when a field is not a finite number. */
static int csv_row(char *line, double **row, int64_t *cap, int64_t *k, char *msg, size_t mn)
{
    char *s = line, *end;
    *k = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '\r' || *s == '\n')
            break;
        double v = strtod(s, &end);
        if (end == s || !isfinite(v)) {
            int tok = (int)strcspn(s, ",\r\n");
            snprintf(msg, mn, "not a finite number: \"%.*s\"", tok < 20 ? tok : 20, s);
            return 0;
        }
        if (*k == *cap) {
            int64_t nc = *cap ? 2 * *cap : 64;
            double *p = realloc(*row, (size_t)nc * sizeof *p);
            if (!p) {
                snprintf(msg, mn, "out of memory");
                return 0;
            }
            *row = p;
            *cap = nc;
        }
        (*row)[(*k)++] = v;
        for (s = end; *s == ' ' || *s == '\t'; s++)
            ;
        if (*s == ',')
            s++;
    }
    return 1;
}

/* Is the first field of line a number?  (If not, it is a header.) */
static int starts_with_number(const char *line)
{
    char *end;
    while (*line == ' ' || *line == '\t')
        line++;
    strtod(line, &end);
    return end != line;
}

/* A dense CSV matrix: every non-blank line a row of the same length. */
static int read_csv(sp_ctx *c, const char *ptr, const char *name, const char *path,
                    sp_mat *mat)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, msg[200] = "";
    size_t lcap = 0;
    double *row = NULL, *A = NULL;
    int64_t rcap = 0, k = 0, m = 0, n = -1, acap = 0;
    long ln = 0;
    int ok = 1;
    if (!f) {
        sp_err(c, ptr, "cannot open %s: %s", name, strerror(errno));
        return 0;
    }
    while (ok && getline(&line, &lcap, f) >= 0) {
        ln++;
        if (strspn(line, " \t\r\n") == strlen(line) || (m == 0 && n < 0 && ln == 1 &&
                                                        !starts_with_number(line)))
            continue; /* blank, or the header */
        if (!(ok = csv_row(line, &row, &rcap, &k, msg, sizeof msg)))
            break;
        if (n >= 0 && k != n) {
            snprintf(msg, sizeof msg, "%lld fields, the first row has %lld", (long long)k,
                     (long long)n);
            ok = 0;
            break;
        }
        n = k;
        if ((m + 1) * n > acap) {
            int64_t nc = acap ? 2 * acap : 64 * n;
            double *p = realloc(A, (size_t)nc * sizeof *p);
            if (!(ok = p != NULL)) {
                snprintf(msg, sizeof msg, "out of memory");
                break;
            }
            A = p;
            acap = nc;
        }
        memcpy(A + m * n, row, (size_t)n * sizeof *row);
        m++;
    }
    fclose(f);
    free(line);
    free(row);
    if (ok && (m == 0 || n < 1 || m > 100000000 || n > 100000000)) {
        snprintf(msg, sizeof msg, m == 0 ? "no rows of numbers" : "too large");
        ok = 0;
        ln = 0;
    }
    if (!ok) {
        if (ln)
            sp_err(c, ptr, "%s: line %ld: %s", name, ln, msg);
        else
            sp_err(c, ptr, "%s: %s", name, msg);
        free(A);
        return 0;
    }
    mat->A = A;
    mat->m = (int)m;
    mat->n = (int)n;
    return 1;
}

int sp_read_matrix(sp_ctx *c, const char *ptr, const char *name, const char *path,
                   sp_mat *mat)
{
    char head[16] = "";
    FILE *f = fopen(path, "r");
    if (!f) {
        sp_err(c, ptr, "cannot open %s: %s", name, strerror(errno));
        return 0;
    }
    size_t n = fread(head, 1, 14, f);
    fclose(f);
    if (n == 14 && memcmp(head, "%%MatrixMarket", 14) == 0)
        return read_mtx(c, ptr, name, path, mat);
    return read_csv(c, ptr, name, path, mat);
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
        if (ln == 1 && !size_line && !starts_with_number(line) &&
            strspn(line, " \t\r\n") < strlen(line))
            continue; /* a CSV header */
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
