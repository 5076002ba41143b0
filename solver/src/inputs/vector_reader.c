/*
 * vector_reader.c -- dense vectors from files (the right-hand side b of a
 * least-squares problem, say): Matrix Market "array" or one-column
 * "coordinate" files, or plain numbers separated by blanks or commas (one
 * CSV column with its header line, too).
 * Numbers follow the ratings readers' rules (slv_parse_decimal: decimal
 * only, finite), and every error says "line N: what is wrong".
 */
#include <stdlib.h>

#include "base/util.h"
#include "inputs/readers.h"
#include "inputs/scan.h"

typedef struct vr {
    scan in;
    double *v;
    int64_t n, cap;
    int64_t rows;    /* Matrix Market: the size line's rows; -1 plain text  */
    int coordinate;  /* Matrix Market coordinate: entries "i 1 value"       */
    int integer;     /* the banner says integer                             */
    ircg_diag *diag;
} vr;

/* A parse error at the current line: "line N: ..." in diag->message. */
#define MAX_ROWS INT64_C(100000000) /* see mm_header */
#define verr(r, ...) scan_fail(&(r)->in, (r)->diag, __VA_ARGS__)

static ircg_error value(vr *r, span s, double *out)
{
    int rc = slv_parse_decimal(s.p, s.n, out);
    if (rc == -2)
        return verr(r, "'%.*s' is not a finite number", span_shown(s), s.p);
    if (rc != 0)
        return verr(r, "'%.*s' is not a decimal number", span_shown(s), s.p);
    if (r->integer && *out != (double)(int64_t)*out)
        return verr(r, "'%.*s' is not an integer (the banner says integer)",
                    span_shown(s), s.p);
    return IRCG_OK;
}

static ircg_error push(vr *r, double x)
{
    return scan_push(&r->v, &r->n, &r->cap, x, r->diag);
}

static int64_t count(span s)
{
    int64_t v = 0;
    for (size_t i = 0; i < s.n; i++) {
        unsigned d = (unsigned)(unsigned char)s.p[i] - '0';
        if (d > 9 || v > (INT64_MAX - 9) / 10)
            return -1;
        v = 10 * v + d;
    }
    return s.n ? v : -1;
}

/* "%%MatrixMarket matrix array|coordinate real|integer general", then the
 * size line "rows 1" (array) or "rows 1 entries" (coordinate). */
static ircg_error mm_header(vr *r, span banner)
{
    span f[MAX_FIELDS], line = {0};
    int nf = split_ws(banner, f);
    if (nf != 5 || !ieq(f[1], "matrix") || !(ieq(f[2], "array") || ieq(f[2], "coordinate")))
        return verr(r, "expected the banner '%%%%MatrixMarket matrix array|coordinate "
                       "real|integer general'");
    if (!ieq(f[3], "real") && !ieq(f[3], "double") && !ieq(f[3], "integer"))
        return verr(r, "field '%.*s' is not supported (real or integer)", span_shown(f[3]),
                    f[3].p);
    if (!ieq(f[4], "general"))
        return verr(r, "symmetry '%.*s' is not supported (only general)", span_shown(f[4]),
                    f[4].p);
    r->coordinate = ieq(f[2], "coordinate");
    r->integer = ieq(f[3], "integer");
    do {
        if (!scan_line(&r->in, &line))
            return verr(r, "missing the size line");
        line = trim(line);
    } while (line.n == 0 || line.p[0] == '%');
    nf = split_ws(line, f);
    if (nf != 2 + r->coordinate || (r->rows = count(f[0])) < 1 || count(f[1]) != 1)
        return verr(r, "expected the size line 'rows 1%s' of a vector",
                    r->coordinate ? " entries" : "");
    /* A coordinate file lists only its nonzeros, so the declared length,
     * not the file's size, sets the allocation: a 40-byte file must not
     * claim terabytes (found by fuzzing: tests/fuzz/regress/vector).  The
     * bound is the service's largest dimension (api's SP_MAX_DIM). */
    if (r->rows > MAX_ROWS)
        return verr(r, "%lld rows is too many (at most %lld)", (long long)r->rows,
                    (long long)MAX_ROWS);
    if (!r->coordinate)
        return IRCG_OK;
    r->v = calloc((size_t)r->rows, sizeof *r->v); /* entries not listed are 0 */
    if (!r->v)
        return slv_fail(r->diag, IRCG_ERR_NOMEM, "", "out of memory for %lld rows",
                        (long long)r->rows);
    r->n = r->cap = r->rows;
    return IRCG_OK;
}

/* "i 1 value" of a coordinate file. */
static ircg_error mm_entry(vr *r, span line)
{
    span f[MAX_FIELDS];
    double x;
    if (split_ws(line, f) != 3)
        return verr(r, "expected 'row 1 value'");
    int64_t i = count(f[0]);
    if (i < 1 || i > r->rows || count(f[1]) != 1)
        return verr(r, "entry (%.*s, %.*s) is outside the %lld x 1 vector", span_shown(f[0]),
                    f[0].p, span_shown(f[1]), f[1].p, (long long)r->rows);
    ircg_error e = value(r, f[2], &x);
    if (!e)
        r->v[i - 1] = x;
    return e;
}

/* Every number of a line (blanks or commas between them). */
static ircg_error numbers(vr *r, span line)
{
    const char *p = line.p, *end = line.p + line.n;
    while (p < end) {
        while (p < end && (is_blank_char(*p) || *p == ','))
            p++;
        const char *start = p;
        while (p < end && !is_blank_char(*p) && *p != ',')
            p++;
        double x;
        ircg_error e = IRCG_OK;
        if (p > start && ((e = value(r, (span){start, (size_t)(p - start)}, &x)) ||
                          (e = push(r, x))))
            return e;
    }
    return IRCG_OK;
}

/* A first line whose first field (up to a blank or a comma) is not of a
 * number's form (an overflowing number is one, and an error): the header
 * of a CSV column. */
static int csv_header(span t)
{
    size_t k = 0;
    double x;
    while (k < t.n && !is_blank_char(t.p[k]) && t.p[k] != ',')
        k++;
    return slv_parse_decimal(t.p, k, &x) == -1;
}

static ircg_error read_vector(vr *r)
{
    span line = {0};
    ircg_error e = IRCG_OK;
    while (!e && scan_line(&r->in, &line)) {
        span t = trim(line);
        if ((r->in.line & 4095) == 0 && slv_stop_due()) /* ircg_stop_set */
            return slv_stopped(r->diag, "");
        if (r->in.line == 1 && is_banner(t)) {
            e = mm_header(r, t);
            continue;
        }
        if (t.n == 0 || t.p[0] == '%' || t.p[0] == '#' ||
            (r->in.line == 1 && csv_header(t)))
            continue;
        e = r->coordinate ? mm_entry(r, t) : numbers(r, t);
    }
    if (e)
        return e;
    if (!r->coordinate && r->rows >= 0 && r->n != r->rows)
        return verr(r, "%lld values, the size line says %lld", (long long)r->n,
                    (long long)r->rows);
    if (r->n == 0)
        return slv_fail(r->diag, IRCG_ERR_PARSE, "", "no numbers found");
    return IRCG_OK;
}

ircg_error ircg_vector_read_buffer(const char *buf, size_t len, double **out,
                                   int64_t *n, ircg_diag *diag)
{
    if (diag)
        diag->line = 0;
    if (!out || !n || (!buf && len > 0))
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL buffer or output");
    *out = NULL;
    *n = 0;
    buf = buf ? buf : "";
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        buf += 3, len -= 3;
    vr r = {.in = {buf, buf + len, 0}, .rows = -1, .diag = diag};
    ircg_error e = read_vector(&r);
    if (e) {
        free(r.v);
        return e;
    }
    *out = r.v;
    *n = r.n;
    return IRCG_OK;
}

ircg_error ircg_vector_read_file(const char *path, double **out, int64_t *n,
                                 ircg_diag *diag)
{
    char *data = NULL;
    size_t len = 0;
    if (diag)
        diag->line = 0;
    if (!path || !out || !n)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL path or output");
    *out = NULL;
    ircg_error e = slv_read_whole_file(path, &data, &len, diag);
    if (!e)
        e = ircg_vector_read_buffer(data, len, out, n, diag);
    free(data);
    return e;
}
