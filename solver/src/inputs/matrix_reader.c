/*
 * matrix_reader.c -- a dense matrix from a CSV file (the A of least squares
 * or logistic regression): every non-blank line a row of decimal numbers
 * separated by commas (blanks around them allowed), all rows of the same
 * length; a first line whose first field is not a number is a header (the
 * rule of the CSV ratings reader); '#' and '%' lines are comments.  Numbers
 * follow the ratings readers' rules, errors say "line N: what is wrong".
 */
#include <stdlib.h>

#include "base/util.h"
#include "inputs/readers.h"
#include "inputs/scan.h"

typedef struct mr {
    scan in;
    double *A;
    int64_t len, cap;  /* entries stored */
    int64_t rows, cols;
    int64_t max_rows;  /* stop after this many rows (-1: all)              */
    ircg_diag *diag;
} mr;

#define merr(r, ...) scan_fail(&(r)->in, (r)->diag, __VA_ARGS__)

static ircg_error store(mr *r, double x)
{
    return scan_push(&r->A, &r->len, &r->cap, x, r->diag);
}

/* The fields of one row; *k = how many. */
static ircg_error row(mr *r, span line, int64_t *k)
{
    const char *p = line.p, *end = line.p + line.n;
    *k = 0;
    for (;;) {
        const char *start = p;
        while (p < end && *p != ',')
            p++;
        span f = trim((span){start, (size_t)(p - start)});
        double x;
        int rc = slv_parse_decimal(f.p, f.n, &x);
        if (rc == -2)
            return merr(r, "'%.*s' is not a finite number", span_shown(f), f.p);
        if (rc != 0)
            return merr(r, "'%.*s' is not a decimal number (field %lld)", span_shown(f), f.p,
                        (long long)*k + 1);
        ircg_error e = store(r, x);
        if (e)
            return e;
        ++*k;
        if (p >= end)
            return IRCG_OK;
        p++; /* the comma */
    }
}

static int is_header(span t)
{
    const char *comma = memchr(t.p, ',', t.n);
    span f = trim((span){t.p, comma ? (size_t)(comma - t.p) : t.n});
    double x;
    return slv_parse_decimal(f.p, f.n, &x) == -1; /* not of a number's form */
}

static ircg_error read_rows(mr *r)
{
    span line = {0};
    while ((r->max_rows < 0 || r->rows < r->max_rows) && scan_line(&r->in, &line)) {
        span t = trim(line);
        if ((r->in.line & 4095) == 0 && slv_stop_due()) /* ircg_stop_set */
            return slv_stopped(r->diag, "");
        if (t.n == 0 || t.p[0] == '#' || t.p[0] == '%' ||
            (r->in.line == 1 && is_header(t)))
            continue;
        int64_t k;
        ircg_error e = row(r, t, &k);
        if (e)
            return e;
        if (r->rows > 0 && k != r->cols)
            return merr(r, "%lld fields, the first row has %lld", (long long)k,
                        (long long)r->cols);
        r->cols = k;
        r->rows++;
        if (r->rows > INT32_MAX || r->cols > INT32_MAX)
            return merr(r, "too many rows or columns");
    }
    if (r->rows == 0)
        return slv_fail(r->diag, IRCG_ERR_PARSE, "", "no rows of numbers found");
    return IRCG_OK;
}

static ircg_error dense_read_buffer(const char *buf, size_t len, int64_t max_rows,
                                    double **A, int *m, int *n, ircg_diag *diag)
{
    if (diag)
        diag->line = 0;
    *A = NULL;
    *m = *n = 0;
    buf = buf ? buf : "";
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        buf += 3, len -= 3;
    mr r = {.in = {buf, buf + len, 0}, .max_rows = max_rows, .diag = diag};
    ircg_error e = read_rows(&r);
    if (e) {
        free(r.A);
        return e;
    }
    *A = r.A;
    *m = (int)r.rows;
    *n = (int)r.cols;
    return IRCG_OK;
}

ircg_error ircg_dense_read_file(const char *path, double **A, int *m, int *n,
                                ircg_diag *diag)
{
    char *data = NULL;
    size_t len = 0;
    if (diag)
        diag->line = 0;
    if (!path || !A || !m || !n)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL path or output");
    *A = NULL;
    ircg_error e = slv_read_whole_file(path, &data, &len, diag);
    if (!e)
        e = dense_read_buffer(data, len, -1, A, m, n, diag);
    free(data);
    return e;
}

ircg_error ircg_dense_probe_file(const char *path, int *n, ircg_diag *diag)
{
    char *data = NULL;
    size_t len = 0;
    double *A = NULL;
    int m = 0;
    if (diag)
        diag->line = 0;
    if (!path || !n)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL path or output");
    int64_t size = 0;
    ircg_error e = slv_read_file_head(path, IRCG_PROBE_BYTES, &data, &len, &size, diag);
    if (!e && (int64_t)len < size) /* a cut line is no error: drop it */
        while (len > 0 && data[len - 1] != '\n')
            len--;
    if (!e)
        e = dense_read_buffer(data, len, IRCG_PROBE_ENTRIES, &A, &m, n, diag);
    free(A);
    free(data);
    return e;
}
