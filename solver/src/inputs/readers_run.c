/*
 * readers_run.c -- the ratings readers' driver and public functions: a
 * file is memory-mapped, its body cut into ranges of whole lines that
 * tasks on a thread pool parse into slices of one set of arrays, and the
 * ranges are joined in file order (rd.h): the same entries and the same
 * first error whatever the number of threads or ranges.
 *
 * Memory: a first pass counts each range's newlines, so the arrays are
 * allocated once at their final size (an upper bound, trimmed at the
 * end): 16 bytes an entry, no growth, no copy.  A mapped file's pages are
 * given back as the ranges are parsed.
 */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/pool.h"
#include "base/util.h"
#include "inputs/rd.h"
#include "inputs/readers.h"

#define RANGE_BYTES ((size_t)1 << 20) /* ranges of about 1 MiB */
#define MAX_RANGES 65536
#define MAX_THREADS 8

typedef struct run {
    rd_fmt f;
    const char *body, *end;
    rd *r;                    /* the ranges                                */
    const char **beg;         /* where each range begins                   */
    long *line0;              /* line before each range                    */
    int64_t *off;             /* where each range's slice begins; after
                                 join, its first entry's index            */
    int nr;
    int release;              /* a mapped file: give pages back            */
    const slv_stop_frame *stop; /* the caller's stops (ircg_stop_set),
                                 polled before each range                 */
    int stopped;              /* a range was skipped: the read stops       */
    int32_t *row, *col;
    double *val;
} run;

/* Range boundaries: after the newline at or after every multiple of the
 * range size. */
static int cut(run *u, size_t range_bytes)
{
    size_t len = (size_t)(u->end - u->body);
    size_t k = range_bytes ? len / range_bytes : 1;
    int nr = k < 1 ? 1 : k > MAX_RANGES ? MAX_RANGES : (int)k;
    u->r = calloc((size_t)nr, sizeof *u->r);
    u->line0 = calloc((size_t)nr + 1, sizeof *u->line0);
    u->off = calloc((size_t)nr + 1, sizeof *u->off);
    u->beg = calloc((size_t)nr + 1, sizeof *u->beg);
    if (!u->r || !u->line0 || !u->off || !u->beg)
        return -1;
    const char *at = u->body;
    int n = 0;
    for (int i = 1; i <= nr && at < u->end; i++) {
        const char *stop = i == nr ? u->end : u->body + (size_t)((double)len * i / nr);
        if (stop < at)
            stop = at;
        const char *nl = stop < u->end ? memchr(stop, '\n', (size_t)(u->end - stop)) : NULL;
        stop = i == nr || !nl ? u->end : nl + 1;
        u->beg[n] = at;
        u->r[n++].in = (scan){at, stop, 0};
        at = stop;
    }
    if (n == 0) { /* an empty body: one empty range */
        u->beg[n] = u->body;
        u->r[n++].in = (scan){u->body, u->end, 0};
    }
    u->nr = n;
    return 0;
}

/* Whether the thread's stop is due: then every range left is skipped (a
 * range is about RANGE_BYTES of the file, the stop's latency). */
static int range_stop(run *u)
{
    if (!__atomic_load_n(&u->stopped, __ATOMIC_RELAXED) && slv_stop_due_at(u->stop))
        __atomic_store_n(&u->stopped, 1, __ATOMIC_RELAXED);
    return __atomic_load_n(&u->stopped, __ATOMIC_RELAXED);
}

static void count_lines(void *ctx, int k)
{
    run *u = ctx;
    if (range_stop(u))
        return;
    const char *p = u->r[k].in.cur, *end = u->r[k].in.end;
    int64_t lines = 0;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        lines++;
        p++;
    }
    /* the lines of the range (a last one without newline too) */
    u->r[k].cap = lines + (u->r[k].in.end > u->r[k].in.cur &&
                           u->r[k].in.end[-1] != '\n');
}

static void parse_one(void *ctx, int k)
{
    run *u = ctx;
    rd *r = &u->r[k];
    if (range_stop(u))
        return;
    r->row = u->row + u->off[k];
    r->col = u->col + u->off[k];
    r->val = u->val + u->off[k];
    rd_parse_range(r);
    if (u->release) { /* the pages inside the range: parsed, not needed now */
        long pg = sysconf(_SC_PAGESIZE);
        uintptr_t a = (uintptr_t)u->beg[k] + (uintptr_t)pg - 1;
        a -= a % (uintptr_t)pg;
        uintptr_t b = (uintptr_t)r->in.end - (uintptr_t)r->in.end % (uintptr_t)pg;
        if (pg > 0 && b > a)
            madvise((void *)a, b - a, MADV_DONTNEED);
    }
}

/* The ranges' lines numbered globally, their slices placed, then parsed. */
static ircg_error parse_ranges(run *u, slv_pool *pool, long head_lines,
                               int64_t max_entries, ircg_diag *diag)
{
    slv_pool_run(pool, count_lines, u, u->nr);
    if (u->stopped)
        return slv_stopped(diag, "");
    u->line0[0] = head_lines;
    for (int k = 0; k < u->nr; k++) {
        u->line0[k + 1] = u->line0[k] + (long)u->r[k].cap;
        u->off[k + 1] = u->off[k] + u->r[k].cap;
    }
    size_t total = u->off[u->nr] > 0 ? (size_t)u->off[u->nr] : 1;
    u->row = malloc(total * sizeof *u->row);
    u->col = malloc(total * sizeof *u->col);
    u->val = malloc(total * sizeof *u->val);
    if (!u->row || !u->col || !u->val)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory for %lld entries",
                        (long long)u->off[u->nr]);
    for (int k = 0; k < u->nr; k++) {
        u->r[k].f = &u->f;
        u->r[k].in.line = u->line0[k];
        u->r[k].max_entries = max_entries;
    }
    slv_pool_run(pool, parse_one, u, u->nr);
    return u->stopped ? slv_stopped(diag, "") : IRCG_OK;
}

static ircg_error range_fail(const rd *r, ircg_diag *diag)
{
    if (diag)
        *diag = r->diag;
    return r->err;
}

/* The ranges in file order: the first error as a sequential reader meets
 * it, and the entries packed at the front of the arrays.  *n entries. */
static ircg_error join(run *u, int64_t *n, int *stopped, int *max_r, int *max_c,
                       ircg_diag *diag)
{
    const rd_fmt *f = &u->f;
    int mm = f->fmt == IRCG_FORMAT_MATRIX_MARKET;
    long pending = 0; /* a blank line of earlier ranges, data not seen since */
    int64_t c = 0;
    for (int k = 0; k < u->nr; k++) {
        rd *r = &u->r[k];
        if (pending && r->has_data)
            return rd_fail_at(pending, diag, "empty line in the middle of the data");
        /* the entry after the declared ones, when it parsed (or its line
         * failed only after its fields were counted) */
        int64_t over = f->mm_nnz - c;
        if (mm && (over < r->n || (r->err && r->err_in_entry && over == r->n))) {
            long line = over < r->n ? rd_entry_line(f, u->beg[k], r->in.end, u->line0[k], over)
                                    : r->diag.line;
            return rd_fail_at(line, diag, "more entries than the %lld of the size line "
                              "(line %ld)", (long long)f->mm_nnz, f->size_line);
        }
        if (r->err)
            return range_fail(r, diag);
        if (r->n && c != u->off[k]) {
            memmove(u->row + c, r->row, (size_t)r->n * sizeof *u->row);
            memmove(u->col + c, r->col, (size_t)r->n * sizeof *u->col);
            memmove(u->val + c, r->val, (size_t)r->n * sizeof *u->val);
        }
        u->off[k] = c;
        c += r->n;
        *max_r = r->max_r > *max_r ? r->max_r : *max_r;
        *max_c = r->max_c > *max_c ? r->max_c : *max_c;
        if (r->stopped) {
            *stopped = 1;
            break;
        }
        pending = r->has_data ? r->blank_line : pending ? pending : r->blank_line;
    }
    *n = c;
    return IRCG_OK;
}

/* The file line of entry q (after join). */
static long entry_line(const run *u, int64_t q)
{
    int lo = 0, hi = u->nr - 1;
    while (lo < hi) { /* the last range whose first entry is at most q */
        int mid = (lo + hi + 1) / 2;
        if (u->off[mid] <= q)
            lo = mid;
        else
            hi = mid - 1;
    }
    return rd_entry_line(&u->f, u->beg[lo], u->r[lo].in.end, u->line0[lo], q - u->off[lo]);
}

/* Duplicates: the one whose second occurrence comes first in the file. */
static ircg_error check_duplicates(const run *u, int64_t n, ircg_diag *diag)
{
    int64_t first = -1;
    int64_t second = slv_find_duplicate(u->row, u->col, n, &first);
    if (second == -2)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    if (second < 0)
        return IRCG_OK;
    return rd_fail_at(entry_line(u, second), diag,
                      "duplicate entry (%s %d, %s %d) first seen on line %ld",
                      u->f.rname, (int)u->row[second] + 1, u->f.cname,
                      (int)u->col[second] + 1, entry_line(u, first));
}

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

/* Hand the arrays over to a new ratings object, trimmed to size. */
static ircg_error finish(run *u, int64_t n, int max_r, int max_c, ircg_ratings **out,
                         ircg_diag *diag)
{
    ircg_ratings *R = calloc(1, sizeof *R);
    if (!R)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    size_t m = n > 0 ? (size_t)n : 1;
    int32_t *row = realloc(u->row, m * sizeof *row);
    int32_t *col = realloc(u->col, m * sizeof *col);
    double *val = realloc(u->val, m * sizeof *val);
    /* Shrinking never fails in practice; if it does, keep the old block. */
    R->row = row ? row : u->row;
    R->col = col ? col : u->col;
    R->val = val ? val : u->val;
    u->row = u->col = NULL; /* now owned by R */
    u->val = NULL;
    R->n_rows = u->f.lim_r > 0 ? u->f.lim_r : max_r;
    R->n_cols = u->f.lim_c > 0 ? u->f.lim_c : max_c;
    R->nnz = n;
    R->format = u->f.fmt;
    *out = R;
    /* cppcheck-suppress memleak ; the arrays are R's, which *out owns */
    return IRCG_OK;
}

/* After the join: what the whole input says (the CSV header alone, the
 * size line's count, no ratings), then duplicates. */
static ircg_error check_whole(run *u, int64_t n, int stopped, ircg_diag *diag)
{
    const rd_fmt *f = &u->f;
    for (int k = 0; n == 0 && k < u->nr; k++)
        if (u->r[k].header) {
            rd r = {.f = f, .in = {u->r[k].header, u->r[k].in.end, 0}};
            span line = {0};
            scan_line(&r.in, &line);
            if ((r.err = rd_csv_only_header(&r, line, u->r[k].header_line)) != IRCG_OK)
                return range_fail(&r, diag);
        }
    if (f->fmt == IRCG_FORMAT_MATRIX_MARKET && !stopped && n != f->mm_nnz)
        return rd_fail_at(f->size_line, diag, "the size line declares %lld entries "
                          "but %lld were found", (long long)f->mm_nnz, (long long)n);
    if (f->fmt != IRCG_FORMAT_MATRIX_MARKET && n == 0)
        return slv_fail(diag, IRCG_ERR_PARSE, "", "no ratings found");
    return check_duplicates(u, n, diag);
}

static int threads_of(int asked)
{
    int t = asked > 0 ? asked : slv_processors();
    return t > MAX_THREADS ? MAX_THREADS : t;
}

static void run_free(run *u)
{
    free(u->r);
    free(u->beg);
    free(u->line0);
    free(u->off);
    free(u->row);
    free(u->col);
    free(u->val);
}

/* One part of a file read by one of several processes (part.c): the
 * body bytes [lo, hi) of the buffer, whose first line follows line line0
 * (when lo lies after the head).  What needs the whole file -- "no
 * ratings found", the size line's count, duplicates across parts -- is
 * the caller's to check. */
typedef struct part_req {
    size_t lo, hi;
    long line0;
} part_req;

/* The body of a part: [lo, hi) clipped to what follows the head. */
static void part_body(run *u, const char *base, const part_req *pr, long *line)
{
    const char *lo = base + pr->lo, *hi = base + pr->hi;
    if (lo > u->body) {
        u->body = lo;
        *line = pr->line0;
    }
    u->end = hi > u->body ? hi : u->body;
}

/* The reader on buf, cut into ranges of about range_bytes (0: one range);
 * max_entries > 0 stops after that many entries (a probe: *head says what
 * was read).  Either of out and head may be NULL; pr: only that part. */
static ircg_error run_reader(const char *buf, size_t len, const ircg_read_options *opt,
                             size_t range_bytes, int release, int64_t max_entries,
                             const part_req *pr, ircg_ratings **out,
                             ircg_ratings_probe *head, ircg_diag *diag)
{
    ircg_read_options o = opt ? *opt : (ircg_read_options){0};
    run u = {.release = release, .stop = slv_stop_current()};
    const char *base = buf; /* where a part's offsets count from */
    int64_t n = 0;
    int stopped = 0, max_r = 0, max_c = 0;
    if (diag)
        diag->line = 0;
    if ((!out && !head) || (!buf && len > 0))
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL buffer or output");
    if (out)
        *out = NULL;
    buf = buf ? buf : ""; /* NULL + 0 is undefined behaviour */
    if (o.n_rows < 0 || o.n_cols < 0)
        return slv_fail(diag, IRCG_ERR_INVALID, o.n_rows < 0 ? "/n_rows" : "/n_cols",
                        "must be >= 0 (0 = from the data)");
    if ((unsigned)o.format > IRCG_FORMAT_MATRIX_MARKET)
        return slv_fail(diag, IRCG_ERR_INVALID, "/format", "unknown format %d",
                        (int)o.format);
    /* A UTF-8 byte order mark would otherwise turn a first data line of a
     * CSV file into a "header" and drop it silently. */
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        buf += 3, len -= 3;
    scan in = {buf, buf + len, 0};
    u.f = (rd_fmt){.fmt = o.format, .lim_r = o.n_rows, .lim_c = o.n_cols};
    ircg_error e = rd_head(&u.f, &in, diag);
    slv_pool *pool = NULL;
    u.body = in.cur;
    u.end = in.end;
    if (!e && pr)
        part_body(&u, base, pr, &in.line);
    if (!e && cut(&u, range_bytes) != 0)
        e = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    if (!e && u.nr > 1)
        pool = slv_pool_new(threads_of(o.threads) < u.nr ? threads_of(o.threads) : u.nr);
    if (!e)
        e = parse_ranges(&u, pool, in.line, max_entries, diag);
    slv_pool_free(pool);
    if (!e)
        e = join(&u, &n, &stopped, &max_r, &max_c, diag);
    if (!e && slv_stop_due()) /* the checks below pass over every entry */
        e = slv_stopped(diag, "");
    if (!e && !pr)
        e = check_whole(&u, n, stopped, diag);
    if (!e && pr)
        e = check_duplicates(&u, n, diag);
    ircg_ratings *got = NULL;
    if (!e && out)
        e = finish(&u, n, max_r, max_c, &got, diag);
    if (!e && head)
        *head = (ircg_ratings_probe){
            .format = u.f.fmt, .entries = n, .declared = u.f.mm_nnz,
            .complete = !stopped,
            .n_rows = u.f.lim_r > 0 || stopped ? u.f.lim_r : max_r,
            .n_cols = u.f.lim_c > 0 || stopped ? u.f.lim_c : max_c};
    if (out)
        *out = got;
    run_free(&u);
    return e;
}

ircg_error slv_ratings_read_ranges(const char *buf, size_t len, const ircg_read_options *opt,
                                   size_t range_bytes, ircg_ratings **out,
                                   ircg_diag *diag)
{
    if (!out) {
        if (diag)
            diag->line = 0;
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL buffer or output");
    }
    return run_reader(buf, len, opt, range_bytes ? range_bytes : 1, 0, 0, NULL, out,
                      NULL, diag);
}

ircg_error ircg_ratings_read_buffer(const char *buf, size_t len,
                                    const ircg_read_options *opt,
                                    ircg_ratings **out, ircg_diag *diag)
{
    return slv_ratings_read_ranges(buf, len, opt, RANGE_BYTES, out, diag);
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
    ircg_error e = run_reader(buf, n, opt, 0, 0, IRCG_PROBE_ENTRIES, NULL, NULL, out, diag);
    if (!e) {
        out->bytes = (int64_t)len;
        out->complete = out->complete && n == len;
    }
    return e;
}

ircg_error ircg_ratings_read_file(const char *path, const ircg_read_options *opt,
                                  ircg_ratings **out, ircg_diag *diag)
{
    slv_mapped m;
    if (diag)
        diag->line = 0;
    if (!path || !out)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL path or output");
    *out = NULL;
    ircg_error e = slv_map_file(path, &m, diag);
    if (!e) {
        e = run_reader(m.data, m.len, opt, RANGE_BYTES, m.mapped, 0, NULL, out, NULL, diag);
    }
    slv_unmap_file(&m);
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

/* ------------------------------------------------ parts of a file -- */

/* Where part k of nparts begins: 0, or after the first newline at or
 * after k/nparts of the file (len when there is none). */
static size_t part_cut(const char *buf, size_t len, int k, int nparts)
{
    if (k <= 0)
        return 0;
    if (k >= nparts)
        return len;
    size_t at = (size_t)((double)len * k / nparts);
    const char *nl = at < len ? memchr(buf + at, '\n', len - at) : NULL;
    return nl ? (size_t)(nl - buf) + 1 : len;
}

static ircg_error part_args(const char *path, int part, int nparts, ircg_diag *diag)
{
    if (diag)
        diag->line = 0;
    if (!path)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL path");
    if (nparts < 1 || part < 0 || part >= nparts)
        return slv_fail(diag, IRCG_ERR_INVALID, "/part", "part %d of %d is not in [0, %d)",
                        part, nparts, nparts);
    return IRCG_OK;
}

ircg_error ircg_ratings_part_lines(const char *path, int part, int nparts, int64_t *lines,
                                   ircg_diag *diag)
{
    slv_mapped m;
    ircg_error e = part_args(path, part, nparts, diag);
    if (e || (e = slv_map_file(path, &m, diag)) != IRCG_OK)
        return e;
    size_t lo = part_cut(m.data, m.len, part, nparts), hi = part_cut(m.data, m.len,
                                                                      part + 1, nparts);
    int64_t n = 0;
    for (const char *p = m.data + lo, *end = m.data + hi;
         p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        n++;
    *lines = n;
    slv_unmap_file(&m);
    return IRCG_OK;
}

ircg_error ircg_ratings_read_file_part(const char *path, const ircg_read_options *opt,
                                       int part, int nparts, int64_t line0,
                                       ircg_ratings **out, ircg_diag *diag)
{
    slv_mapped m;
    if (!out)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL output");
    *out = NULL;
    ircg_error e = part_args(path, part, nparts, diag);
    if (e || (e = slv_map_file(path, &m, diag)) != IRCG_OK)
        return e;
    part_req pr = {part_cut(m.data, m.len, part, nparts),
                   part_cut(m.data, m.len, part + 1, nparts), (long)line0};
    e = run_reader(m.data, m.len, opt, RANGE_BYTES, m.mapped, 0, &pr, out, NULL, diag);
    slv_unmap_file(&m);
    return e;
}
