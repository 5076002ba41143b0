/*
 * readers.c -- ratings files: MovieLens "::", u.data (tab), CSV and Matrix
 * Market coordinate files, read in one pass by hand-written field parsers.
 *
 * The input buffer is not NUL-terminated: every scan is bounded by `end`, and
 * the only libc number parser (strtod) runs on a bounded local copy.  Entries
 * keep the order of the file; dimensions and duplicates are settled after
 * the pass (duplicates by a radix sort of (row, col) keys, readers_util.c).
 */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs/readers.h"
#include "inputs/scan.h"
#include "base/util.h"

enum { MM_REAL = 0, MM_INTEGER = 1, MM_PATTERN = 2 };

/* Reader state: the unread input, the current line and the growing arrays. */
typedef struct rd {
    scan in;                  /* the unread input and the line number      */
    ircg_ratings_format fmt;
    int lim_r, lim_c;         /* > 0: ids beyond are errors                */
    int max_r, max_c;         /* largest ids seen                          */
    int mm_field;             /* MM_REAL, MM_INTEGER or MM_PATTERN         */
    int64_t mm_nnz;           /* MM: entries declared by the size line     */
    long size_line;           /* MM: line of the size line                 */
    long blank_line;          /* first blank line since the last entry     */
    const char *rname, *cname;/* "user"/"item" or "row"/"column"          */
    const char *rid, *cid;    /* "user id"/"item id" or "row/column index" */
    int64_t est;              /* first capacity, from the input size       */
    int32_t *row, *col;
    double *val;
    long *lines;              /* file line of every entry, for duplicates  */
    int64_t n, cap;
    int64_t max_entries;      /* > 0: stop after this many (a probe)       */
    int stopped;              /* stopped at max_entries: the rest unread   */
    ircg_diag *diag;
} rd;

/* A parse error at the current line: "line N: ..." in diag->message. */
#define perr(r, ...) scan_fail(&(r)->in, (r)->diag, __VA_ARGS__)

static int split(const rd *r, span line, span *f)
{
    switch (r->fmt) {
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
    if (s.n == 0)
        return perr(r, "%s is empty", what);
    if (rc == -2)
        return perr(r, "%s '%.*s' is too large (max %ld)", what, span_shown(s),
                    s.p, (long)INT32_MAX);
    if (rc != 0 && is_quoted(s))
        return perr(r, "%s '%.*s' is quoted; quoted fields are not supported",
                    what, span_shown(s), s.p);
    if (rc != 0 || v == 0)
        return perr(r, "%s '%.*s' is not a positive integer", what,
                    span_shown(s), s.p);
    *out = (int32_t)v;
    return IRCG_OK;
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
    if (r->mm_field == MM_INTEGER && floor(*out) != *out)
        return perr(r, "%s '%.*s' is not an integer (the banner says integer)",
                    what, span_shown(s), s.p);
    return IRCG_OK;
}

/* Grow the four arrays geometrically; the old ones stay valid on failure. */
static ircg_error grow(rd *r)
{
    int64_t cap = r->cap ? 2 * r->cap : r->est;
    int32_t *row = realloc(r->row, (size_t)cap * sizeof *row);
    if (row)
        r->row = row;
    int32_t *col = realloc(r->col, (size_t)cap * sizeof *col);
    if (col)
        r->col = col;
    double *val = realloc(r->val, (size_t)cap * sizeof *val);
    if (val)
        r->val = val;
    long *lines = realloc(r->lines, (size_t)cap * sizeof *lines);
    if (lines)
        r->lines = lines;
    if (!row || !col || !val || !lines)
        return slv_fail(r->diag, IRCG_ERR_NOMEM, "",
                         "out of memory after %lld entries", (long long)r->n);
    r->cap = cap;
    return IRCG_OK;
}

static ircg_error add_entry(rd *r, int32_t i, int32_t j, double v)
{
    if (r->lim_r > 0 && i > r->lim_r)
        return perr(r, "%s %d exceeds the number of rows %d", r->rid,
                    (int)i, r->lim_r);
    if (r->lim_c > 0 && j > r->lim_c)
        return perr(r, "%s %d exceeds the number of columns %d", r->cid,
                    (int)j, r->lim_c);
    if (r->n == r->cap && grow(r) != IRCG_OK)
        return IRCG_ERR_NOMEM;
    r->max_r = i > r->max_r ? i : r->max_r;
    r->max_c = j > r->max_c ? j : r->max_c;
    r->row[r->n] = i - 1;
    r->col[r->n] = j - 1;
    r->val[r->n] = v;
    r->lines[r->n] = r->in.line;
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

/* One data line of any format. */
static ircg_error parse_entry(rd *r, span line)
{
    span f[MAX_FIELDS];
    int nf = split(r, line, f);
    int32_t i = 0, j = 0;
    double v = 1.0;
    int mm = r->fmt == IRCG_FORMAT_MATRIX_MARKET;
    int want = mm ? (r->mm_field == MM_PATTERN ? 2 : 3) : 4;
    int ok = nf == want || (r->fmt == IRCG_FORMAT_CSV && nf == 3);
    if (!ok)
        return perr(r, "expected %s%d fields separated by %s, found %d",
                    r->fmt == IRCG_FORMAT_CSV ? "3 or " : "", want,
                    sep_name(r->fmt), nf);
    if (mm && r->n == r->mm_nnz)
        return perr(r, "more entries than the %lld of the size line (line %ld)",
                    (long long)r->mm_nnz, r->size_line);
    ircg_error e = parse_id(r, f[0], r->rid, &i);
    if (!e)
        e = parse_id(r, f[1], r->cid, &j);
    if (!e && nf >= 3)
        e = parse_value(r, f[2], mm ? "value" : "rating", &v);
    if (!e && nf == 4) {
        int64_t ts = 0;
        if (parse_uint(f[3], INT64_MAX, &ts) != 0)
            e = perr(r, "timestamp '%.*s' is not a non-negative integer",
                     span_shown(f[3]), f[3].p);
    }
    return e ? e : add_entry(r, i, j, v);
}

/* "%%MatrixMarket matrix coordinate real|integer|pattern general". */
static ircg_error parse_banner(rd *r)
{
    span line = {0}, f[MAX_FIELDS];
    if (!scan_line(&r->in, &line) || !is_banner(line))
        return perr(r, "expected the banner '%%%%MatrixMarket matrix coordinate "
                       "real general'");
    int nf = split_ws(line, f);
    if (nf != 5 || !ieq(f[0], "%%matrixmarket") || !ieq(f[1], "matrix"))
        return perr(r, "malformed banner: expected '%%%%MatrixMarket matrix "
                       "coordinate <field> general'");
    if (!ieq(f[2], "coordinate"))
        return perr(r, "format '%.*s' is not supported (only coordinate)",
                    span_shown(f[2]), f[2].p);
    if (ieq(f[3], "real") || ieq(f[3], "double"))
        r->mm_field = MM_REAL;
    else if (ieq(f[3], "integer"))
        r->mm_field = MM_INTEGER;
    else if (ieq(f[3], "pattern"))
        r->mm_field = MM_PATTERN;
    else
        return perr(r, "field '%.*s' is not supported (real, integer or "
                       "pattern)", span_shown(f[3]), f[3].p);
    if (!ieq(f[4], "general"))
        return perr(r, "symmetry '%.*s' is not supported (only general)",
                    span_shown(f[4]), f[4].p);
    return IRCG_OK;
}

/* The size line "rows cols nnz", after comments and blank lines. */
static ircg_error parse_size(rd *r)
{
    span line = {0}, f[MAX_FIELDS];
    int32_t rows = 0, cols = 0;
    int64_t nnz = 0;
    do {
        if (!scan_line(&r->in, &line))
            return perr(r, "missing the size line 'rows columns entries'");
        line = trim(line);
    } while (line.n == 0 || line.p[0] == '%');
    r->size_line = r->in.line;
    if (split_ws(line, f) != 3)
        return perr(r, "expected the size line 'rows columns entries'");
    ircg_error e = parse_id(r, f[0], "row count", &rows);
    if (!e)
        e = parse_id(r, f[1], "column count", &cols);
    if (!e && parse_uint(f[2], INT64_MAX, &nnz) != 0)
        e = perr(r, "entry count '%.*s' is not a non-negative integer",
                 span_shown(f[2]), f[2].p);
    if (!e && nnz > (int64_t)rows * cols)
        e = perr(r, "%lld entries do not fit in a %d x %d matrix",
                 (long long)nnz, (int)rows, (int)cols);
    if (!e && ((r->lim_r > 0 && r->lim_r != rows) ||
               (r->lim_c > 0 && r->lim_c != cols)))
        e = perr(r, "the size line says %d x %d but %d x %d was expected",
                 (int)rows, (int)cols, r->lim_r, r->lim_c);
    r->lim_r = rows;
    r->lim_c = cols;
    r->mm_nnz = nnz;
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

/* The CSV's first line was skipped as a header and no rating followed:
 * a header alone, or a malformed line (quoted fields, say), whose error as
 * a rating line says what is wrong with it. */
static ircg_error csv_only_header(rd *r, span header, long line)
{
    r->in.line = line;
    if (looks_like_names(header))
        return perr(r, "a header line and no ratings after it");
    return parse_entry(r, header);
}

/* All data lines; blank lines are allowed only at the end. */
static ircg_error parse_body(rd *r)
{
    span line = {0}, header = {0};
    long header_line = 0;
    int first = 1;
    while (scan_line(&r->in, &line)) {
        span t = trim(line);
        if (t.n == 0) {
            r->blank_line = r->blank_line ? r->blank_line : r->in.line;
            continue;
        }
        if (r->fmt == IRCG_FORMAT_MATRIX_MARKET && t.p[0] == '%')
            continue;
        if (r->blank_line) {
            r->in.line = r->blank_line;
            return perr(r, "empty line in the middle of the data");
        }
        if (first && r->fmt == IRCG_FORMAT_CSV && csv_is_header(line)) {
            first = 0;
            header = line;
            header_line = r->in.line;
            continue;
        }
        first = 0;
        ircg_error e = parse_entry(r, line);
        if (e)
            return e;
        if (r->max_entries > 0 && r->n >= r->max_entries) {
            r->stopped = 1;
            break;
        }
    }
    if (r->n == 0 && header_line > 0)
        return csv_only_header(r, header, header_line);
    return IRCG_OK;
}

/* AUTO: the banner, else the separator of the first non-blank line. */
static ircg_error detect(rd *r)
{
    rd probe = *r;
    span line = {0};
    while (scan_line(&probe.in, &line) && trim(line).n == 0)
        ;
    r->in.line = probe.in.line;
    if (trim(line).n == 0) {
        r->fmt = IRCG_FORMAT_AUTO; /* empty input: reported by the caller */
        r->in.line = 0;
        return IRCG_OK;
    }
    assert(line.p); /* a non-blank line points into the buffer */
    if (is_banner(line))
        r->fmt = IRCG_FORMAT_MATRIX_MARKET;
    else if (split_delim(line, "::", 2, (span[MAX_FIELDS]){{0}}) > 1)
        r->fmt = IRCG_FORMAT_MOVIELENS;
    else if (memchr(line.p, '\t', line.n))
        r->fmt = IRCG_FORMAT_UDATA;
    else if (memchr(line.p, ',', line.n))
        r->fmt = IRCG_FORMAT_CSV;
    else
        return perr(r, "cannot detect the format: no '::', tab or ',' between "
                       "fields and no %%%%MatrixMarket banner");
    r->in.line = 0;
    return IRCG_OK;
}

/* Duplicates: the one whose second occurrence comes first in the file. */
static ircg_error check_duplicates(rd *r)
{
    int64_t first = -1;
    int64_t second = slv_find_duplicate(r->row, r->col, r->n, &first);
    if (second == -2)
        return slv_fail(r->diag, IRCG_ERR_NOMEM, "", "out of memory");
    if (second < 0)
        return IRCG_OK;
    r->in.line = r->lines[second];
    return perr(r, "duplicate entry (%s %d, %s %d) first seen on line %ld",
                r->rname, (int)r->row[second] + 1, r->cname,
                (int)r->col[second] + 1, r->lines[first]);
}

/* ------------------------------------------------------------ public API */

ircg_ratings *ircg_ratings_new(int n_rows, int n_cols, int64_t nnz)
{
    if (n_rows < 0 || n_cols < 0 || nnz < 0 ||
        (uint64_t)nnz > SIZE_MAX / sizeof(double) - 1)
        return NULL;
    ircg_ratings *r = calloc(1, sizeof *r);
    size_t m = nnz > 0 ? (size_t)nnz : 1; /* never NULL arrays */
    if (!r)
        return NULL;
    r->n_rows = n_rows;
    r->n_cols = n_cols;
    r->nnz = nnz;
    r->row = calloc(m, sizeof *r->row);
    r->col = calloc(m, sizeof *r->col);
    r->val = calloc(m, sizeof *r->val);
    if (!r->row || !r->col || !r->val) {
        ircg_ratings_free(r);
        return NULL;
    }
    return r;
}

void ircg_ratings_free(ircg_ratings *r)
{
    if (!r)
        return;
    free(r->row);
    free(r->col);
    free(r->val);
    free(r);
}

/* Hand the arrays of r over to a new ratings object, trimmed to size. */
static ircg_error finish(rd *r, ircg_ratings **out)
{
    ircg_ratings *R = calloc(1, sizeof *R);
    if (!R)
        return slv_fail(r->diag, IRCG_ERR_NOMEM, "", "out of memory");
    size_t m = r->n > 0 ? (size_t)r->n : 1;
    int32_t *row = realloc(r->row, m * sizeof *row);
    int32_t *col = realloc(r->col, m * sizeof *col);
    double *val = realloc(r->val, m * sizeof *val);
    /* Shrinking never fails in practice; if it does, keep the old block. */
    R->row = row ? row : r->row;
    R->col = col ? col : r->col;
    R->val = val ? val : r->val;
    r->row = r->col = NULL; /* now owned by R */
    r->val = NULL;
    R->n_rows = r->lim_r > 0 ? r->lim_r : r->max_r;
    R->n_cols = r->lim_c > 0 ? r->lim_c : r->max_c;
    R->nnz = r->n;
    R->format = r->fmt;
    *out = R;
    /* cppcheck-suppress memleak ; the arrays are R's, which *out owns */
    return IRCG_OK;
}

static ircg_error read_all(rd *r, ircg_ratings **out)
{
    ircg_error e = IRCG_OK;
    if (r->fmt == IRCG_FORMAT_AUTO && (e = detect(r)) != IRCG_OK)
        return e;
    if (r->fmt == IRCG_FORMAT_MATRIX_MARKET) {
        r->rname = "row";
        r->cname = "column";
        r->rid = "row index";
        r->cid = "column index";
        if ((e = parse_banner(r)) || (e = parse_size(r)))
            return e;
    }
    if ((e = parse_body(r)) != IRCG_OK)
        return e;
    if (r->fmt == IRCG_FORMAT_MATRIX_MARKET && !r->stopped && r->n != r->mm_nnz) {
        r->in.line = r->size_line;
        return perr(r, "the size line declares %lld entries but %lld were "
                       "found", (long long)r->mm_nnz, (long long)r->n);
    }
    if (r->fmt != IRCG_FORMAT_MATRIX_MARKET && r->n == 0)
        return slv_fail(r->diag, IRCG_ERR_PARSE, "", "no ratings found");
    if ((e = check_duplicates(r)) != IRCG_OK)
        return e;
    return finish(r, out);
}

/* The reader on buf with the caller's options; max_entries > 0 stops
 * after that many entries (then *out is NULL and *head describes what was
 * read).  Either of out and head may be NULL. */
static ircg_error run_reader(const char *buf, size_t len, const ircg_read_options *opt,
                             int64_t max_entries, ircg_ratings **out,
                             ircg_ratings_probe *head, ircg_diag *diag)
{
    ircg_read_options o = opt ? *opt : (ircg_read_options){0};
    ircg_ratings *got = NULL;
    if (diag)
        diag->line = 0;
    if ((!out && !head) || (!buf && len > 0))
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL buffer or output");
    if (out)
        *out = NULL;
    buf = buf ? buf : ""; /* NULL + 0 is undefined behaviour */
    if (o.n_rows < 0 || o.n_cols < 0)
        return slv_fail(diag, IRCG_ERR_INVALID, o.n_rows < 0 ? "/n_rows"
                         : "/n_cols", "must be >= 0 (0 = from the data)");
    if ((unsigned)o.format > IRCG_FORMAT_MATRIX_MARKET)
        return slv_fail(diag, IRCG_ERR_INVALID, "/format", "unknown format %d",
                         (int)o.format);
    /* A UTF-8 byte order mark would otherwise turn a first data line of a
     * CSV file into a "header" and drop it silently. */
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        buf += 3, len -= 3;
    rd r = {.in = {buf, buf + len, 0}, .fmt = o.format, .lim_r = o.n_rows,
            .lim_c = o.n_cols, .rname = "user", .cname = "item",
            .rid = "user id", .cid = "item id",
            /* MovieLens lines are >= 10 bytes: usually no realloc at all;
             * capped so that a huge file does not over-reserve. */
            .est = (int64_t)(len / 10 < 1024 ? 1024
                             : len / 10 > (1 << 22) ? (1 << 22) : len / 10),
            .mm_nnz = -1, .max_entries = max_entries, .diag = diag};
    ircg_error e = read_all(&r, &got);
    if (!e && head)
        *head = (ircg_ratings_probe){.format = r.fmt, .entries = r.n,
                                     .declared = r.mm_nnz, .complete = !r.stopped,
                                     .n_rows = r.lim_r > 0 || r.stopped || !got ? r.lim_r
                                                                        : got->n_rows,
                                     .n_cols = r.lim_c > 0 || r.stopped || !got ? r.lim_c
                                                                        : got->n_cols};
    if (out)
        *out = got;
    else
        ircg_ratings_free(got);
    free(r.row);
    free(r.col);
    free(r.val);
    free(r.lines);
    return e;
}

ircg_error ircg_ratings_read_buffer(const char *buf, size_t len,
                                    const ircg_read_options *opt,
                                    ircg_ratings **out, ircg_diag *diag)
{
    if (!out) {
        if (diag)
            diag->line = 0;
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL buffer or output");
    }
    return run_reader(buf, len, opt, 0, out, NULL, diag);
}

/* The head: at most IRCG_PROBE_BYTES, cut after its last newline when
 * the buffer goes on (a line cut in two would read as malformed). */
ircg_error ircg_ratings_probe_buffer(const char *buf, size_t len,
                                     const ircg_read_options *opt,
                                     ircg_ratings_probe *out, ircg_diag *diag)
{
    size_t n = len;
    if (!out)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL output");
    if (buf && len > IRCG_PROBE_BYTES) {
        const char *nl = NULL;
        for (size_t k = IRCG_PROBE_BYTES; k > 0 && !nl; k--)
            if (buf[k - 1] == '\n')
                nl = buf + k;
        n = nl ? (size_t)(nl - buf) : IRCG_PROBE_BYTES;
    }
    ircg_error e = run_reader(buf, n, opt, IRCG_PROBE_ENTRIES, NULL, out, diag);
    if (!e) {
        out->bytes = (int64_t)len;
        out->complete = out->complete && n == len;
    }
    return e;
}

ircg_error ircg_ratings_read_file(const char *path, const ircg_read_options *opt,
                                  ircg_ratings **out, ircg_diag *diag)
{
    char *data = NULL;
    size_t len = 0;
    if (diag)
        diag->line = 0;
    if (!path || !out)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL path or output");
    *out = NULL;
    ircg_error e = slv_read_whole_file(path, &data, &len, diag);
    if (!e)
        e = ircg_ratings_read_buffer(data, len, opt, out, diag);
    free(data);
    return e;
}

ircg_error ircg_ratings_probe_file(const char *path, const ircg_read_options *opt,
                                   ircg_ratings_probe *out, ircg_diag *diag)
{
    char *data = NULL;
    size_t len = 0;
    int64_t size = 0;
    if (diag)
        diag->line = 0;
    if (!path || !out)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL path or output");
    ircg_error e = slv_read_file_head(path, IRCG_PROBE_BYTES + 1, &data, &len, &size, diag);
    if (!e)
        e = ircg_ratings_probe_buffer(data, len, opt, out, diag);
    if (!e) {
        out->bytes = size;
        out->complete = out->complete && (int64_t)len == size;
    }
    free(data);
    return e;
}
