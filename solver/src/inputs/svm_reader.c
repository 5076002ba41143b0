/*
 * svm_reader.c -- LIBSVM / svmlight files (ircg_svm_read_file): one row a
 * line, "label idx:val idx:val ... # comment", 1-based strictly increasing
 * indices, an optional "qid:N" after the label (read and dropped), into
 * CSR with the labels beside.
 *
 * Like the ratings readers (readers_run.c): the file is memory-mapped,
 * cut into ranges of whole lines, and a first pass counts each range's
 * newlines and colons, upper bounds of its rows and entries, so that one
 * set of arrays is allocated at its final size and every range parses
 * into a slice of its own on the thread pool; the slices are packed in
 * file order.  Each range keeps its first error with the file's line
 * number, and the first range with one reports it: the rows and the
 * error never depend on the number of threads or ranges.  Numbers follow
 * the readers' rules (slv_parse_decimal: decimal, finite).
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/pool.h"
#include "base/util.h"
#include "inputs/rd.h"
#include "inputs/readers.h"

#define RANGE_BYTES ((size_t)1 << 20)
#define MAX_RANGES 65536
#define MAX_THREADS 8

typedef struct sv_range {
    const char *beg, *end;
    long line0;               /* lines before the range                    */
    int64_t rows_cap, ents_cap;
    int64_t row_off, ent_off; /* its slices                                */
    int64_t rows, ents;       /* parsed                                    */
    int max_idx;
    int stopped;              /* at max_rows                               */
    ircg_error err;
    ircg_diag diag;
} sv_range;

typedef struct sv_run {
    int n_cols;               /* > 0: an index beyond is an error          */
    int64_t max_rows;         /* > 0: stop there (a probe)                 */
    int release;              /* a mapped file: give pages back            */
    sv_range *r;
    int nr;
    double *labels;
    int32_t *len;             /* entries of each row                       */
    int32_t *col;
    double *val;
} sv_run;

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* A positive decimal integer of at most 10 digits <= INT32_MAX; 0 else. */
static int32_t index_of(const char *p, size_t n)
{
    int64_t v = 0;
    if (n == 0 || n > 10)
        return 0;
    for (size_t k = 0; k < n; k++) {
        unsigned d = (unsigned)(unsigned char)p[k] - '0';
        if (d > 9)
            return 0;
        v = 10 * v + d;
    }
    return v <= INT32_MAX ? (int32_t)v : 0;
}

#define SHOW(p, n) (int)((n) > 40 ? 40 : (n)), (p)

/* One "idx:val" token [s, e) after index *prev of row r's line. */
static ircg_error feature(sv_run *u, sv_range *r, const char *s, const char *e, long line,
                          int32_t *prev)
{
    const char *colon = memchr(s, ':', (size_t)(e - s));
    size_t n = (size_t)(e - s);
    if (!colon)
        return rd_fail_at(line, &r->diag, "'%.*s' is not index:value", SHOW(s, n));
    int32_t idx = index_of(s, (size_t)(colon - s));
    if (idx == 0)
        return rd_fail_at(line, &r->diag, "index '%.*s' is not an integer in [1, 2^31)",
                          SHOW(s, (size_t)(colon - s)));
    if (idx <= *prev)
        return rd_fail_at(line, &r->diag, "index %d after %d: the indices of a row must "
                          "increase", (int)idx, (int)*prev);
    if (u->n_cols > 0 && idx > u->n_cols)
        return rd_fail_at(line, &r->diag, "index %d is beyond the %d columns given",
                          (int)idx, u->n_cols);
    double v;
    int rc = slv_parse_decimal(colon + 1, (size_t)(e - colon - 1), &v);
    if (rc != 0)
        return rd_fail_at(line, &r->diag, "value '%.*s' of index %d is %s", SHOW(colon + 1,
                          (size_t)(e - colon - 1)), (int)idx,
                          rc == -2 ? "not a finite number" : "not a decimal number");
    int64_t k = r->ent_off + r->ents++;
    u->col[k] = idx - 1;
    u->val[k] = v;
    *prev = idx;
    r->max_idx = idx > r->max_idx ? idx : r->max_idx;
    return IRCG_OK;
}

/* "qid:N" right after the label: N a non-negative integer, dropped. */
static int is_qid(const char *s, const char *e)
{
    return e - s > 4 && memcmp(s, "qid:", 4) == 0;
}

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The common number [+-]digits[.digits][(e|E)[+-]digits], ended by a
 * blank or the end, in one pass: *out and its end in *stop, exactly what
 * slv_parse_decimal gives it (the same Clinger fast path on the same m and
 * exponent); 0 for anything else (more than 19 significant digits, m above
 * 2^53, an exponent beyond 10^+-22, 64 characters or more, not a number),
 * which the caller hands to slv_parse_decimal. */
static int fast_number(const char *p, const char *end, double *out, const char **stop)
{
    const char *s = p;
    uint64_t m = 0;
    int neg = 0, nd = 0, e10 = 0, frac = 0, mant = 0;
    if (p < end && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    for (; p < end; p++) {
        unsigned d = (unsigned)(unsigned char)*p - '0';
        if (d > 9) {
            if (*p == '.' && !frac) {
                frac = 1;
                continue;
            }
            break;
        }
        mant++;
        if (nd == 0 && d == 0) {
            e10 -= frac;
            continue;
        }
        if (++nd > 19)
            return 0;
        m = m * 10 + d;
        e10 -= frac;
    }
    if (p < end && (*p == 'e' || *p == 'E')) { /* a short exponent */
        int eneg = 0, ed = 0, ev = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        for (; p < end && *p >= '0' && *p <= '9' && ed < 4; p++, ed++)
            ev = ev * 10 + (*p - '0');
        if (ed == 0 || ed == 4)
            return 0;
        e10 += eneg ? -ev : ev;
    }
    if (mant == 0 || (p < end && !blank(*p)) || p - s >= 64 || m > (UINT64_C(1) << 53) ||
        e10 < -22 || e10 > 22)
        return 0;
    double x = m == 0 ? 0.0 : e10 < 0 ? (double)m / POW10[-e10] : (double)m * POW10[e10];
    *out = neg ? -x : x;
    *stop = p;
    return 1;
}

/* "idx:val" at p (a token's start) in one pass, for the common case: the
 * index's digits, the colon, a number fast_number reads, all the checks of
 * feature() but the messages.  0 when the token needs feature(). */
static int fast_feature(sv_run *u, sv_range *r, const char **pp, const char *end,
                        int32_t *prev)
{
    const char *p = *pp;
    int64_t idx = 0;
    int nd = 0;
    for (; p < end && nd <= 10; p++, nd++) {
        unsigned d = (unsigned)(unsigned char)*p - '0';
        if (d > 9)
            break;
        idx = 10 * idx + d;
    }
    double v;
    if (p == end || *p != ':' || nd == 0 || nd > 10 || idx <= *prev || idx > INT32_MAX ||
        (u->n_cols > 0 && idx > u->n_cols) || !fast_number(p + 1, end, &v, &p))
        return 0;
    int64_t k = r->ent_off + r->ents++;
    u->col[k] = (int32_t)(idx - 1);
    u->val[k] = v;
    *prev = (int32_t)idx;
    r->max_idx = *prev > r->max_idx ? *prev : r->max_idx;
    *pp = p;
    return 1;
}

/* The label token [s, p) of a line. */
static ircg_error label_of(sv_range *r, const char *s, const char *p, long line, double *out)
{
    const char *stop;
    if (fast_number(s, p, out, &stop) && stop == p)
        return IRCG_OK;
    int rc = slv_parse_decimal(s, (size_t)(p - s), out);
    if (rc != 0)
        return rd_fail_at(line, &r->diag, "label '%.*s' is %s", SHOW(s, (size_t)(p - s)),
                          rc == -2 ? "not a finite number" : "not a decimal number");
    return IRCG_OK;
}

/* The line [p, end) numbered `line` (no newline): a row, or nothing when
 * it is blank or a comment. */
static ircg_error parse_line(sv_run *u, sv_range *r, const char *p, const char *end, long line)
{
    const char *hash = memchr(p, '#', (size_t)(end - p));
    end = hash ? hash : end;
    while (p < end && blank(*p))
        p++;
    if (p == end)
        return IRCG_OK;
    const char *s = p;
    while (p < end && !blank(*p))
        p++;
    double label;
    ircg_error err = label_of(r, s, p, line, &label);
    if (err != IRCG_OK)
        return err;
    int64_t e0 = r->ents;
    int32_t prev = 0;
    for (int first = 1;; first = 0) {
        while (p < end && blank(*p))
            p++;
        if (p == end)
            break;
        if (fast_feature(u, r, &p, end, &prev))
            continue;
        s = p;
        while (p < end && !blank(*p))
            p++;
        if (first && is_qid(s, p)) {
            if (index_of(s + 4, (size_t)(p - s - 4)) == 0 && !(p - s == 5 && s[4] == '0'))
                return rd_fail_at(line, &r->diag, "'%.*s' is not qid:N with N an integer",
                                  SHOW(s, (size_t)(p - s)));
            continue;
        }
        if ((err = feature(u, r, s, p, line, &prev)) != IRCG_OK)
            return err;
    }
    int64_t row = r->row_off + r->rows++;
    u->labels[row] = label;
    u->len[row] = (int32_t)(r->ents - e0);
    return IRCG_OK;
}

static void parse_range(void *ctx, int k)
{
    sv_run *u = ctx;
    sv_range *r = &u->r[k];
    const char *p = r->beg;
    long line = r->line0;
    while (p < r->end) {
        const char *nl = memchr(p, '\n', (size_t)(r->end - p));
        const char *stop = nl ? nl : r->end;
        if ((r->err = parse_line(u, r, p, stop, ++line)) != IRCG_OK)
            break;
        p = nl ? nl + 1 : r->end;
        if (u->max_rows > 0 && r->rows >= u->max_rows) {
            r->stopped = 1;
            break;
        }
    }
    if (u->release) { /* the pages inside the range: parsed, not needed now */
        long pg = sysconf(_SC_PAGESIZE);
        uintptr_t a = (uintptr_t)r->beg + (uintptr_t)pg - 1;
        a -= a % (uintptr_t)pg;
        uintptr_t b = (uintptr_t)r->end - (uintptr_t)r->end % (uintptr_t)pg;
        if (pg > 0 && b > a)
            madvise((void *)a, b - a, MADV_DONTNEED);
    }
}

/* The bytes equal to c in the 8 of w, exactly (no carry between bytes:
 * the high bit is tested apart from the low seven). */
static int count_byte(uint64_t w, uint64_t c8)
{
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7fULL;
    uint64_t x = w ^ c8;
    uint64_t t = ((x & lo7) + lo7) | x; /* high bit set where the byte is not 0 */
    /* one bit a matching byte, at the byte's bottom; their sum in the top
     * byte by one multiplication (no popcnt instruction in the baseline
     * x86-64 the library is built for) */
    return (int)((((~t & ~lo7) >> 7) * 0x0101010101010101ULL) >> 56);
}

/* Newlines (a last line without one counts) and colons of a range, 8
 * bytes at a time. */
static void count_range(void *ctx, int k)
{
    sv_range *r = &((sv_run *)ctx)->r[k];
    const uint64_t nl8 = 0x0a0a0a0a0a0a0a0aULL, co8 = 0x3a3a3a3a3a3a3a3aULL;
    int64_t lines = 0, colons = 0;
    const char *p = r->beg;
    for (; r->end - p >= 8; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        lines += count_byte(w, nl8);
        colons += count_byte(w, co8);
    }
    for (; p < r->end; p++) {
        lines += *p == '\n';
        colons += *p == ':';
    }
    r->rows_cap = lines + (r->end > r->beg && r->end[-1] != '\n');
    r->ents_cap = colons;
}

/* Ranges of about range_bytes, each ending after a newline. */
static int cut(sv_run *u, const char *buf, size_t len, size_t range_bytes)
{
    size_t k = range_bytes ? len / range_bytes : 1;
    int nr = k < 1 ? 1 : k > MAX_RANGES ? MAX_RANGES : (int)k;
    if (!(u->r = calloc((size_t)nr, sizeof *u->r)))
        return -1;
    const char *at = buf, *end = buf + len;
    int n = 0;
    for (int i = 1; i <= nr && (at < end || n == 0); i++) {
        const char *stop = i == nr ? end : buf + (size_t)((double)len * i / nr);
        stop = stop < at ? at : stop;
        const char *nl = stop < end ? memchr(stop, '\n', (size_t)(end - stop)) : NULL;
        stop = i == nr || !nl ? end : nl + 1;
        u->r[n].beg = at;
        u->r[n++].end = stop;
        at = stop;
    }
    u->nr = n;
    return 0;
}

static ircg_error allocate(sv_run *u, ircg_diag *diag)
{
    int64_t rows = 0, ents = 0;
    long lines = 0;
    for (int k = 0; k < u->nr; k++) {
        sv_range *r = &u->r[k];
        r->line0 = lines;
        r->row_off = rows;
        r->ent_off = ents;
        lines += (long)r->rows_cap;
        rows += r->rows_cap;
        ents += r->ents_cap;
    }
    u->labels = malloc((size_t)(rows ? rows : 1) * sizeof *u->labels);
    u->len = malloc((size_t)(rows ? rows : 1) * sizeof *u->len);
    u->col = malloc((size_t)(ents ? ents : 1) * sizeof *u->col);
    u->val = malloc((size_t)(ents ? ents : 1) * sizeof *u->val);
    if (!u->labels || !u->len || !u->col || !u->val)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory for %lld rows and %lld "
                        "entries", (long long)rows, (long long)ents);
    return IRCG_OK;
}

/* The slices packed in file order; the first range's error. */
static ircg_error join(sv_run *u, int64_t *m, int64_t *nnz, int *max_idx, int *stopped,
                       ircg_diag *diag)
{
    int64_t rows = 0, ents = 0;
    for (int k = 0; k < u->nr; k++) {
        sv_range *r = &u->r[k];
        if (r->err) {
            if (diag)
                *diag = r->diag;
            return r->err;
        }
        if (rows != r->row_off && r->rows) {
            memmove(u->labels + rows, u->labels + r->row_off, (size_t)r->rows * sizeof(double));
            memmove(u->len + rows, u->len + r->row_off, (size_t)r->rows * sizeof(int32_t));
        }
        if (ents != r->ent_off && r->ents) {
            memmove(u->col + ents, u->col + r->ent_off, (size_t)r->ents * sizeof(int32_t));
            memmove(u->val + ents, u->val + r->ent_off, (size_t)r->ents * sizeof(double));
        }
        rows += r->rows;
        ents += r->ents;
        *max_idx = r->max_idx > *max_idx ? r->max_idx : *max_idx;
        if (r->stopped) {
            *stopped = 1;
            break;
        }
    }
    *m = rows;
    *nnz = ents;
    return IRCG_OK;
}

void ircg_svm_free(ircg_svm *s)
{
    if (!s)
        return;
    free(s->rowptr);
    free(s->colind);
    free(s->val);
    free(s->labels);
    free(s);
}

/* The packed arrays handed to a new ircg_svm, with rowptr from the rows'
 * lengths. */
static ircg_error finish(sv_run *u, int64_t m, int64_t nnz, int max_idx, ircg_svm **out,
                         ircg_diag *diag)
{
    if (m > INT32_MAX)
        return slv_fail(diag, IRCG_ERR_PARSE, "", "%lld rows is too many (at most 2^31 - 1)",
                        (long long)m);
    ircg_svm *s = calloc(1, sizeof *s);
    if (!s || !(s->rowptr = malloc(((size_t)m + 1) * sizeof *s->rowptr))) {
        free(s);
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    }
    s->rowptr[0] = 0;
    for (int64_t i = 0; i < m; i++)
        s->rowptr[i + 1] = s->rowptr[i] + u->len[i];
    double *lab = realloc(u->labels, (size_t)(m ? m : 1) * sizeof *lab);
    int32_t *col = realloc(u->col, (size_t)(nnz ? nnz : 1) * sizeof *col);
    double *val = realloc(u->val, (size_t)(nnz ? nnz : 1) * sizeof *val);
    s->labels = lab ? lab : u->labels; /* shrinking: keep the old block if it fails */
    s->colind = col ? col : u->col;
    s->val = val ? val : u->val;
    u->labels = NULL;
    u->col = NULL;
    u->val = NULL;
    s->m = (int)m;
    s->n = u->n_cols > 0 ? u->n_cols : max_idx;
    s->nnz = nnz;
    *out = s;
    return IRCG_OK;
}

static int threads_of(int asked)
{
    int t = asked > 0 ? asked : slv_processors();
    return t > MAX_THREADS ? MAX_THREADS : t;
}

static void run_free(sv_run *u)
{
    free(u->r);
    free(u->labels);
    free(u->len);
    free(u->col);
    free(u->val);
}

/* The reader on buf in ranges of about range_bytes (0: one range);
 * *stopped when max_rows cut it short. */
static ircg_error run(const char *buf, size_t len, const ircg_svm_options *opt,
                      size_t range_bytes, int release, ircg_svm **out, int *stopped,
                      ircg_diag *diag)
{
    ircg_svm_options o = opt ? *opt : (ircg_svm_options){0};
    sv_run u = {.n_cols = o.n_cols, .max_rows = o.max_rows, .release = release};
    int64_t m = 0, nnz = 0;
    int max_idx = 0;
    if (diag)
        diag->line = 0;
    *out = NULL;
    if (o.n_cols < 0 || o.max_rows < 0)
        return slv_fail(diag, IRCG_ERR_INVALID, o.n_cols < 0 ? "/n_cols" : "/max_rows",
                        "must be >= 0 (0 = from the data, all rows)");
    buf = buf ? buf : "";
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        buf += 3, len -= 3;
    if (o.max_rows > 0)
        range_bytes = 0; /* a probe reads its head in order */
    if (cut(&u, buf, len, range_bytes) != 0) {
        run_free(&u);
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    }
    slv_pool *pool = u.nr > 1 ? slv_pool_new(threads_of(o.threads) < u.nr
                                                 ? threads_of(o.threads) : u.nr)
                              : NULL;
    slv_pool_run(pool, count_range, &u, u.nr);
    ircg_error e = allocate(&u, diag);
    if (!e)
        slv_pool_run(pool, parse_range, &u, u.nr);
    slv_pool_free(pool);
    if (!e)
        e = join(&u, &m, &nnz, &max_idx, stopped, diag);
    if (!e && m == 0)
        e = slv_fail(diag, IRCG_ERR_PARSE, "", "no rows found");
    if (!e)
        e = finish(&u, m, nnz, max_idx, out, diag);
    run_free(&u);
    return e;
}

ircg_error slv_svm_read_ranges(const char *buf, size_t len, const ircg_svm_options *opt,
                               size_t range_bytes, ircg_svm **out, ircg_diag *diag)
{
    int stopped = 0;
    if (!out || (!buf && len > 0))
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL buffer or output");
    return run(buf, len, opt, range_bytes ? range_bytes : 1, 0, out, &stopped, diag);
}

ircg_error ircg_svm_read_buffer(const char *buf, size_t len, const ircg_svm_options *opt,
                                ircg_svm **out, ircg_diag *diag)
{
    return slv_svm_read_ranges(buf, len, opt, RANGE_BYTES, out, diag);
}

ircg_error ircg_svm_read_file(const char *path, const ircg_svm_options *opt, ircg_svm **out,
                              ircg_diag *diag)
{
    slv_mapped mp;
    int stopped = 0;
    if (diag)
        diag->line = 0;
    if (!path || !out)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL path or output");
    *out = NULL;
    ircg_error e = slv_map_file(path, &mp, diag);
    if (!e)
        e = run(mp.data, mp.len, opt, RANGE_BYTES, mp.mapped, out, &stopped, diag);
    slv_unmap_file(&mp);
    return e;
}

/* The head: at most IRCG_PROBE_BYTES, cut after its last newline when the
 * input goes on; at most IRCG_PROBE_ENTRIES rows. */
ircg_error ircg_svm_probe_buffer(const char *buf, size_t len, const ircg_svm_options *opt,
                                 ircg_svm_probe *out, ircg_diag *diag)
{
    ircg_svm_options o = opt ? *opt : (ircg_svm_options){0};
    ircg_svm *s = NULL;
    int stopped = 0;
    size_t n = len;
    if (!out || (!buf && len > 0))
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL buffer or output");
    if (buf && len > IRCG_PROBE_BYTES) {
        n = IRCG_PROBE_BYTES;
        while (n > 0 && buf[n - 1] != '\n')
            n--;
        n = n ? n : IRCG_PROBE_BYTES;
    }
    o.max_rows = IRCG_PROBE_ENTRIES;
    ircg_error e = run(buf, n, &o, 0, 0, &s, &stopped, diag);
    if (e)
        return e;
    assert(s != NULL); /* run() gives the rows whenever it succeeds */
    *out = (ircg_svm_probe){.bytes = (int64_t)len, .rows = s->m, .nnz = s->nnz,
                            .n_cols = s->n, .complete = !stopped && n == len};
    ircg_svm_free(s);
    return IRCG_OK;
}

ircg_error ircg_svm_probe_file(const char *path, const ircg_svm_options *opt,
                               ircg_svm_probe *out, ircg_diag *diag)
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
        e = ircg_svm_probe_buffer(data, len, opt, out, diag);
    if (!e) {
        out->bytes = size;
        out->complete = out->complete && (int64_t)len == size;
    }
    free(data);
    return e;
}

/* The first line that is neither blank nor a comment: a number, then a
 * blank and a token with a colon (a row without features cannot tell the
 * format from a one-column CSV file: not recognized). */
int ircg_svm_sniff(const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end, *s = p;
        while (s < stop && blank(*s))
            s++;
        if (s < stop && *s != '#') {
            const char *t = s;
            double v;
            while (t < stop && !blank(*t))
                t++;
            if (slv_parse_decimal(s, (size_t)(t - s), &v) != 0)
                return 0;
            while (t < stop && blank(*t))
                t++;
            const char *u = t;
            while (u < stop && !blank(*u))
                u++;
            return t < stop && *t != '#' && memchr(t, ':', (size_t)(u - t)) != NULL;
        }
        p = nl ? nl + 1 : end;
    }
    return 0;
}
