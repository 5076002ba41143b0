/* readers_util.c -- see readers.h */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputs/readers.h"
#include "inputs/scan.h"
#include "base/util.h"

enum { DIGITS = 65536 };

static int bits_of(uint64_t v)
{
    int b = 0;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

/* Stable LSD radix sort of 64-bit words by their bits [lo, hi), 16 bits a
 * pass; a pass where every word has the same digit is skipped.  count has
 * DIGITS + 1 slots.  Returns whichever of a and tmp holds the result. */
static uint64_t *radix_sort(uint64_t *a, uint64_t *tmp, int64_t *count, int64_t n,
                            int lo, int hi)
{
    for (int shift = lo; shift < hi; shift += 16) {
        memset(count, 0, (DIGITS + 1) * sizeof *count);
        for (int64_t k = 0; k < n; k++)
            count[((a[k] >> shift) & 0xFFFF) + 1]++;
        if (count[((a[0] >> shift) & 0xFFFF) + 1] == n)
            continue;
        for (int d = 0; d < DIGITS; d++)
            count[d + 1] += count[d];
        for (int64_t k = 0; k < n; k++)
            tmp[count[(a[k] >> shift) & 0xFFFF]++] = a[k];
        uint64_t *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

/* In sorted s (stable: equal keys in file order; a word is key << ib |
 * its entry's index), the run whose second element comes first in the
 * file. */
static int64_t earliest_second(const uint64_t *s, int64_t n, int ib, int64_t *first)
{
    int64_t best = -1;
    uint64_t mask = (UINT64_C(1) << ib) - 1;
    for (int64_t k = 1; k < n; k++) {
        uint64_t key = s[k] >> ib;
        if (key != s[k - 1] >> ib || (k >= 2 && s[k - 2] >> ib == key))
            continue; /* only the second element of each run */
        if (best < 0 || (int64_t)(s[k] & mask) < best) {
            best = (int64_t)(s[k] & mask);
            *first = (int64_t)(s[k - 1] & mask);
        }
    }
    return best;
}

/* Each pair packed in as few bits as the largest ids need, the entry's
 * index below: one 64-bit word an entry (100M Netflix-shaped ratings:
 * 19 + 15 + 27 bits), sorted on the pair's bits only. */
int64_t slv_find_duplicate(const int32_t *row, const int32_t *col, int64_t n,
                            int64_t *first)
{
    int64_t k = 1, res = -2;
    uint32_t max_r = 0, max_c = 0;
#define KEY(q) (((uint64_t)(uint32_t)row[q] << 31) | (uint64_t)(uint32_t)col[q])
    while (k < n && KEY(k - 1) < KEY(k)) /* sorted input needs no sort */
        k++;
#undef KEY
    if (k >= n)
        return -1;
    for (k = 0; k < n; k++) {
        max_r = (uint32_t)row[k] > max_r ? (uint32_t)row[k] : max_r;
        max_c = (uint32_t)col[k] > max_c ? (uint32_t)col[k] : max_c;
    }
    int cb = bits_of(max_c), ib = bits_of((uint64_t)n), kb = bits_of(max_r) + cb;
    if (kb + ib > 64)
        return -2; /* over 2^64 / 2^62 entries: never in memory */
    uint64_t *a = malloc((size_t)n * sizeof *a), *tmp = malloc((size_t)n * sizeof *tmp);
    int64_t *count = malloc((DIGITS + 1) * sizeof *count);
    if (a && tmp && count) {
        for (k = 0; k < n; k++)
            a[k] = (((uint64_t)(uint32_t)row[k] << cb | (uint32_t)col[k]) << ib) |
                   (uint64_t)k;
        res = earliest_second(radix_sort(a, tmp, count, n, ib, ib + kb), n, ib, first);
    }
    free(a);
    free(tmp);
    free(count);
    return res;
}

/* Whole file into memory (files of ratings are tens of MB at most). */
ircg_error slv_read_whole_file(const char *path, char **data, size_t *len,
                                ircg_diag *diag)
{
    ircg_error e = IRCG_OK;
    struct stat st;
    size_t cap = 0, n = 0;
    char *buf = NULL;
    FILE *f = fopen(path, "rb");
    *data = NULL;
    *len = 0;
    if (!f)
        return slv_fail(diag, IRCG_ERR_IO, "", "cannot open '%s': %s", path,
                         strerror(errno));
    cap = fstat(fileno(f), &st) == 0 && st.st_size > 0 ? (size_t)st.st_size + 1
                                                        : 65536;
    if (!(buf = malloc(cap))) {
        e = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory reading '%s'", path);
        goto done;
    }
    for (;;) {
        if (n == cap) { /* the file grew since fstat, or its size is unknown */
            char *nb = realloc(buf, 2 * cap);
            if (!nb) {
                e = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory reading "
                              "'%s'", path);
                goto done;
            }
            cap *= 2;
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f))
        e = slv_fail(diag, IRCG_ERR_IO, "", "cannot read '%s': %s", path,
                      strerror(errno));
done:
    fclose(f);
    if (e) {
        free(buf);
        buf = NULL;
    }
    *data = buf;
    *len = n;
    return e;
}

ircg_error slv_map_file(const char *path, slv_mapped *m, ircg_diag *diag)
{
    struct stat st;
    size_t len = 0;
    *m = (slv_mapped){"", 0, 0, NULL};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return slv_fail(diag, IRCG_ERR_IO, "", "cannot open '%s': %s", path,
                        strerror(errno));
    int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    void *p = regular && st.st_size > 0
                  ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)
                  : MAP_FAILED;
    close(fd);
    if (p != MAP_FAILED) {
        madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
        *m = (slv_mapped){p, (size_t)st.st_size, 1, NULL};
        return IRCG_OK;
    }
    if (regular && st.st_size == 0)
        return IRCG_OK; /* an empty file */
    /* not mappable (a pipe, say): read it */
    ircg_error e = slv_read_whole_file(path, &m->heap, &len, diag);
    m->data = m->heap ? m->heap : "";
    m->len = len;
    return e;
}

void slv_unmap_file(slv_mapped *m)
{
    if (m->mapped)
        munmap((void *)(uintptr_t)m->data, m->len);
    free(m->heap);
    *m = (slv_mapped){"", 0, 0, NULL};
}

ircg_error slv_read_file_head(const char *path, size_t max, char **data, size_t *len,
                              int64_t *size, ircg_diag *diag)
{
    struct stat st;
    FILE *f = fopen(path, "rb");
    *data = NULL;
    *len = 0;
    if (!f)
        return slv_fail(diag, IRCG_ERR_IO, "", "cannot open '%s': %s", path,
                        strerror(errno));
    *size = fstat(fileno(f), &st) == 0 ? (int64_t)st.st_size : 0;
    char *buf = malloc(max ? max : 1);
    size_t n = buf ? fread(buf, 1, max, f) : 0;
    ircg_error e = IRCG_OK;
    if (!buf)
        e = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory reading '%s'", path);
    else if (ferror(f))
        e = slv_fail(diag, IRCG_ERR_IO, "", "cannot read '%s': %s", path, strerror(errno));
    fclose(f);
    if (e) {
        free(buf);
        return e;
    }
    *size = *size > (int64_t)n ? *size : (int64_t)n; /* not a regular file */
    *data = buf;
    *len = n;
    return IRCG_OK;
}

ircg_error scan_fail(const scan *in, ircg_diag *diag, const char *fmt, ...)
{
    char msg[224];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    slv_fail(diag, IRCG_ERR_PARSE, "", "line %ld: %s", in->line, msg);
    if (diag)
        diag->line = in->line;
    return IRCG_ERR_PARSE;
}

ircg_error scan_push(double **v, int64_t *n, int64_t *cap, double x, ircg_diag *diag)
{
    if (*n == *cap) {
        int64_t c = *cap ? 2 * *cap : 1024;
        double *p = realloc(*v, (size_t)c * sizeof *p);
        if (!p)
            return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory after %lld values",
                            (long long)*n);
        *v = p;
        *cap = c;
    }
    (*v)[(*n)++] = x;
    return IRCG_OK;
}
