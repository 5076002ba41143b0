/*
 * readers.c -- ratings files: MovieLens "::", u.data (tab), CSV and Matrix
 * Market coordinate files: the head of a file (format, banner, size line)
 * and its data lines, by hand-written field parsers.  readers_run.c cuts a
 * buffer into ranges of lines for rd_parse_range (rd.h).
 *
 * The input buffer is not NUL-terminated: every scan is bounded by `end`.
 * Entries keep the order of the file.
 */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs/rd.h"
#include "inputs/readers.h"
#include "base/util.h"

/* A parse error at the range's current line: "line N: ..." in its diag. */
#define perr(r, ...) scan_fail(&(r)->in, &(r)->diag, __VA_ARGS__)

ircg_error rd_fail_at(long line, ircg_diag *diag, const char *fmt, ...)
{
    char msg[224];
    va_list ap;
    scan at = {NULL, NULL, line};
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return scan_fail(&at, diag, "%s", msg);
}

static int split(ircg_ratings_format fmt, span line, span *f)
{
    switch (fmt) {
    case IRCG_FORMAT_MOVIELENS: return split_delim(line, "::", 2, f);
    case IRCG_FORMAT_UDATA: return split_delim(line, "\t", 1, f);
    case IRCG_FORMAT_CSV: return split_delim(line, ",", 1, f);
    default: return split_ws(line, f);
    }
}

/* Digits only, no sign; -1 if not, -2 if above max. */
static int parse_uint(span s, int64_t max, int64_t *out)
{
    int64_t v = 0;
    if (s.n == 0)
        return -1;
    for (size_t i = 0; i < s.n; i++) {
        unsigned d = (unsigned)(unsigned char)s.p[i] - '0';
        if (d > 9)
            return -1;
        if (v > (max - (int64_t)d) / 10)
            return -2;
        v = v * 10 + (int64_t)d;
    }
    *out = v;
    return 0;
}

static int is_quoted(span s) { return s.n && (s.p[0] == '"' || s.p[0] == '\''); }

static ircg_error parse_id(rd *r, span s, const char *what, int32_t *out)
{
    int64_t v = 0;
    int rc = parse_uint(s, INT32_MAX, &v);
    if (rc == 0 && v > 0) { /* the common case first */
        *out = (int32_t)v;
        return IRCG_OK;
    }
    if (s.n == 0)
        return perr(r, "%s is empty", what);
    if (rc == -2)
        return perr(r, "%s '%.*s' is too large (max %ld)", what, span_shown(s),
                    s.p, (long)INT32_MAX);
    if (rc != 0 && is_quoted(s))
        return perr(r, "%s '%.*s' is quoted; quoted fields are not supported",
                    what, span_shown(s), s.p);
    return perr(r, "%s '%.*s' is not a positive integer", what, span_shown(s), s.p);
}

static ircg_error parse_value(rd *r, span s, const char *what, double *out)
{
    int rc = slv_parse_decimal(s.p, s.n, out);
    if (s.n == 0)
        return perr(r, "%s is empty", what);
    if (rc == -2)
        return perr(r, "%s '%.*s' is not a finite number", what, span_shown(s), s.p);
    if (rc != 0 && is_quoted(s))
        return perr(r, "%s '%.*s' is quoted; quoted fields are not supported",
                    what, span_shown(s), s.p);
    if (rc != 0)
        return perr(r, "%s '%.*s' is not a decimal number", what, span_shown(s), s.p);
    if (r->f->mm_field == MM_INTEGER && floor(*out) != *out)
        return perr(r, "%s '%.*s' is not an integer (the banner says integer)",
                    what, span_shown(s), s.p);
    return IRCG_OK;
}

static ircg_error add_entry(rd *r, int32_t i, int32_t j, double v)
{
    const rd_fmt *f = r->f;
    if (f->lim_r > 0 && i > f->lim_r)
        return perr(r, "%s %d exceeds the number of rows %d", f->rid, (int)i, f->lim_r);
    if (f->lim_c > 0 && j > f->lim_c)
        return perr(r, "%s %d exceeds the number of columns %d", f->cid, (int)j,
                    f->lim_c);
    assert(r->n < r->cap); /* a slice has room for every line of its range */
    r->max_r = i > r->max_r ? i : r->max_r;
    r->max_c = j > r->max_c ? j : r->max_c;
    r->row[r->n] = i - 1;
    r->col[r->n] = j - 1;
    r->val[r->n] = v;
    r->n++;
    return IRCG_OK;
}

static const char *sep_name(ircg_ratings_format f)
{
    switch (f) {
    case IRCG_FORMAT_MOVIELENS: return "'::'";
    case IRCG_FORMAT_UDATA: return "tabs";
    case IRCG_FORMAT_CSV: return "','";
    default: return "blanks";
    }
}

/* One data line of any format.  More entries than a Matrix Market size
 * line declares is found when the ranges are joined. */
ircg_error rd_parse_entry(rd *r, span line)
{
    const rd_fmt *f = r->f;
    span fl[MAX_FIELDS];
    int nf = split(f->fmt, line, fl);
    int32_t i = 0, j = 0;
    double v = 1.0;
    int mm = f->fmt == IRCG_FORMAT_MATRIX_MARKET;
    int want = mm ? (f->mm_field == MM_PATTERN ? 2 : 3) : 4;
    int ok = nf == want || (f->fmt == IRCG_FORMAT_CSV && nf == 3);
    if (!ok)
        return perr(r, "expected %s%d fields separated by %s, found %d",
                    f->fmt == IRCG_FORMAT_CSV ? "3 or " : "", want, sep_name(f->fmt), nf);
    ircg_error e = parse_id(r, fl[0], f->rid, &i);
    if (!e)
        e = parse_id(r, fl[1], f->cid, &j);
    if (!e && nf >= 3)
        e = parse_value(r, fl[2], mm ? "value" : "rating", &v);
    if (!e && nf == 4) {
        int64_t ts = 0;
        if (parse_uint(fl[3], INT64_MAX, &ts) != 0)
            e = perr(r, "timestamp '%.*s' is not a non-negative integer",
                     span_shown(fl[3]), fl[3].p);
    }
    if (!e)
        e = add_entry(r, i, j, v);
    r->err_in_entry = e != IRCG_OK;
    return e;
}

/* "%%MatrixMarket matrix coordinate real|integer|pattern general". */
static ircg_error parse_banner(rd_fmt *f, scan *in, ircg_diag *diag)
{
    span line = {0}, fl[MAX_FIELDS];
    if (!scan_line(in, &line) || !is_banner(line))
        return scan_fail(in, diag, "expected the banner '%%%%MatrixMarket matrix "
                                   "coordinate real general'");
    int nf = split_ws(line, fl);
    if (nf != 5 || !ieq(fl[0], "%%matrixmarket") || !ieq(fl[1], "matrix"))
        return scan_fail(in, diag, "malformed banner: expected '%%%%MatrixMarket "
                                   "matrix coordinate <field> general'");
    if (!ieq(fl[2], "coordinate"))
        return scan_fail(in, diag, "format '%.*s' is not supported (only coordinate)",
                         span_shown(fl[2]), fl[2].p);
    if (ieq(fl[3], "real") || ieq(fl[3], "double"))
        f->mm_field = MM_REAL;
    else if (ieq(fl[3], "integer"))
        f->mm_field = MM_INTEGER;
    else if (ieq(fl[3], "pattern"))
        f->mm_field = MM_PATTERN;
    else
        return scan_fail(in, diag, "field '%.*s' is not supported (real, integer or "
                                   "pattern)", span_shown(fl[3]), fl[3].p);
    if (!ieq(fl[4], "general"))
        return scan_fail(in, diag, "symmetry '%.*s' is not supported (only general)",
                         span_shown(fl[4]), fl[4].p);
    return IRCG_OK;
}

/* The size line "rows cols nnz", after comments and blank lines. */
static ircg_error parse_size(rd_fmt *f, scan *in, ircg_diag *diag)
{
    span line = {0}, fl[MAX_FIELDS];
    int32_t rows = 0, cols = 0;
    int64_t nnz = 0;
    do {
        if (!scan_line(in, &line))
            return scan_fail(in, diag, "missing the size line 'rows columns entries'");
        line = trim(line);
    } while (line.n == 0 || line.p[0] == '%');
    f->size_line = in->line;
    if (split_ws(line, fl) != 3)
        return scan_fail(in, diag, "expected the size line 'rows columns entries'");
    rd r = {.f = f, .in = *in};
    ircg_error e = parse_id(&r, fl[0], "row count", &rows);
    if (!e)
        e = parse_id(&r, fl[1], "column count", &cols);
    if (!e && parse_uint(fl[2], INT64_MAX, &nnz) != 0)
        e = perr(&r, "entry count '%.*s' is not a non-negative integer",
                 span_shown(fl[2]), fl[2].p);
    if (!e && nnz > (int64_t)rows * cols)
        e = perr(&r, "%lld entries do not fit in a %d x %d matrix", (long long)nnz,
                 (int)rows, (int)cols);
    if (!e && ((f->lim_r > 0 && f->lim_r != rows) || (f->lim_c > 0 && f->lim_c != cols)))
        e = perr(&r, "the size line says %d x %d but %d x %d was expected", (int)rows,
                 (int)cols, f->lim_r, f->lim_c);
    if (e && diag)
        *diag = r.diag;
    f->lim_r = rows;
    f->lim_c = cols;
    f->mm_nnz = nnz;
    return e;
}

/* First field of a CSV line is not a number: a header. */
static int csv_is_header(span line)
{
    span f[MAX_FIELDS];
    double v = 0;
    split_delim(line, ",", 1, f);
    return slv_parse_decimal(f[0].p, f[0].n, &v) == -1;
}

/* Column names: a letter first, then letters, digits and "_-. ,". */
static int looks_like_names(span line)
{
    static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789_-. ,";
    span t = trim(line);
    for (size_t q = 0; q < t.n; q++)
        if (!memchr(ok, t.p[q], q ? sizeof ok - 1 : 52))
            return 0;
    return t.n > 0;
}

ircg_error rd_csv_only_header(rd *r, span header, long line)
{
    r->in.line = line;
    if (looks_like_names(header))
        return perr(r, "a header line and no ratings after it");
    return rd_parse_entry(r, header);
}

/* What a line of the body is. */
typedef enum { L_BLANK, L_COMMENT, L_HEADER, L_DATA } line_kind;

static line_kind kind_of(const rd_fmt *f, span line)
{
    span t = trim(line);
    if (t.n == 0)
        return L_BLANK;
    if (f->fmt == IRCG_FORMAT_MATRIX_MARKET && t.p[0] == '%')
        return L_COMMENT;
    if (line.p == f->header_at && csv_is_header(line))
        return L_HEADER;
    return L_DATA;
}

/* Blank lines are allowed at the end only: one followed by data (a header
 * included) is an error at the blank line. */
void rd_parse_range(rd *r)
{
    span line = {0};
    while (!r->err && scan_line(&r->in, &line)) {
        line_kind k = kind_of(r->f, line);
        if (k == L_BLANK) {
            r->blank_line = r->blank_line ? r->blank_line : r->in.line;
            continue;
        }
        if (k == L_COMMENT)
            continue;
        r->has_data = 1;
        if (r->blank_line) {
            r->in.line = r->blank_line;
            r->err = perr(r, "empty line in the middle of the data");
            r->err_in_entry = 0;
            break;
        }
        if (k == L_HEADER) {
            r->header = line.p;
            r->header_line = r->in.line;
            continue;
        }
        r->err = rd_parse_entry(r, line);
        if (!r->err && r->max_entries > 0 && r->n >= r->max_entries) {
            r->stopped = 1;
            break;
        }
    }
}

long rd_entry_line(const rd_fmt *f, const char *beg, const char *end, long line0,
                   int64_t index)
{
    scan in = {beg, end, line0};
    span line = {0};
    while (scan_line(&in, &line))
        if (kind_of(f, line) == L_DATA && index-- == 0)
            return in.line;
    return 0;
}

/* AUTO: the banner, else the separator of the first non-blank line. */
static ircg_error detect(rd_fmt *f, const scan *in, ircg_diag *diag)
{
    scan probe = *in;
    span line = {0};
    while (scan_line(&probe, &line) && trim(line).n == 0)
        ;
    if (trim(line).n == 0) {
        f->fmt = IRCG_FORMAT_AUTO; /* empty input: reported by the caller */
        return IRCG_OK;
    }
    assert(line.p); /* a non-blank line points into the buffer */
    if (is_banner(line))
        f->fmt = IRCG_FORMAT_MATRIX_MARKET;
    else if (split_delim(line, "::", 2, (span[MAX_FIELDS]){{0}}) > 1)
        f->fmt = IRCG_FORMAT_MOVIELENS;
    else if (memchr(line.p, '\t', line.n))
        f->fmt = IRCG_FORMAT_UDATA;
    else if (memchr(line.p, ',', line.n))
        f->fmt = IRCG_FORMAT_CSV;
    else
        return scan_fail(&probe, diag, "cannot detect the format: no '::', tab or "
                                       "',' between fields and no %%%%MatrixMarket "
                                       "banner");
    return IRCG_OK;
}

ircg_error rd_head(rd_fmt *f, scan *in, ircg_diag *diag)
{
    ircg_error e = IRCG_OK;
    f->rname = "user";
    f->cname = "item";
    f->rid = "user id";
    f->cid = "item id";
    f->mm_nnz = -1;
    if (f->fmt == IRCG_FORMAT_AUTO && (e = detect(f, in, diag)) != IRCG_OK)
        return e;
    if (f->fmt == IRCG_FORMAT_MATRIX_MARKET) {
        f->rname = "row";
        f->cname = "column";
        f->rid = "row index";
        f->cid = "column index";
        if ((e = parse_banner(f, in, diag)) || (e = parse_size(f, in, diag)))
            return e;
    }
    if (f->fmt == IRCG_FORMAT_CSV) { /* the first non-blank line of the body */
        scan probe = *in;
        span line = {0};
        while (scan_line(&probe, &line) && trim(line).n == 0)
            ;
        f->header_at = trim(line).n ? line.p : NULL;
    }
    return IRCG_OK;
}
