/* readers_util.c -- see readers.h */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inputs/readers.h"
#include "inputs/scan.h"
#include "base/util.h"

typedef struct kv {
    uint64_t key;
    int64_t idx;
} kv;

enum { DIGITS = 65536 };

/* Stable LSD radix sort by key, 16 bits a pass; a pass where every key has
 * the same digit is skipped (row ids of small files, say).  count has
 * DIGITS + 1 slots.  Returns whichever of a and tmp holds the result. */
static kv *radix_sort(kv *a, kv *tmp, int64_t *count, int64_t n, int bits)
{
    for (int shift = 0; shift < bits; shift += 16) {
        memset(count, 0, (DIGITS + 1) * sizeof *count);
        for (int64_t k = 0; k < n; k++)
            count[((a[k].key >> shift) & 0xFFFF) + 1]++;
        if (count[((a[0].key >> shift) & 0xFFFF) + 1] == n)
            continue;
        for (int d = 0; d < DIGITS; d++)
            count[d + 1] += count[d];
        for (int64_t k = 0; k < n; k++)
            tmp[count[(a[k].key >> shift) & 0xFFFF]++] = a[k];
        kv *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

/* In sorted s (stable: equal keys in file order), the run whose second
 * element comes first in the file. */
static int64_t earliest_second(const kv *s, int64_t n, int64_t *first)
{
    int64_t best = -1;
    for (int64_t k = 1; k < n; k++) {
        if (s[k].key != s[k - 1].key || (k >= 2 && s[k - 2].key == s[k].key))
            continue; /* only the second element of each run */
        if (best < 0 || s[k].idx < best) {
            best = s[k].idx;
            *first = s[k - 1].idx;
        }
    }
    return best;
}

int64_t slv_find_duplicate(const int32_t *row, const int32_t *col, int64_t n,
                            int64_t *first)
{
    int64_t k = 1, res = -2;
    kv *a = NULL, *tmp = NULL;
    int64_t *count = NULL;
#define KEY(q) (((uint64_t)(uint32_t)row[q] << 31) | (uint64_t)(uint32_t)col[q])
    while (k < n && KEY(k - 1) < KEY(k)) /* sorted input needs no sort */
        k++;
    if (k >= n)
        return -1;
    a = malloc((size_t)n * sizeof *a);
    tmp = malloc((size_t)n * sizeof *tmp);
    count = malloc((DIGITS + 1) * sizeof *count);
    if (!a || !tmp || !count)
        goto done;
    for (k = 0; k < n; k++)
        a[k] = (kv){KEY(k), k};
#undef KEY
    res = earliest_second(radix_sort(a, tmp, count, n, 62), n, first);
done:
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

/* [+-] digits [. digits] [(e|E) [+-] digits], a digit on one side of the
 * point at least; strtod's hexadecimal, "inf" and "nan" forms are not. */
static int is_decimal(const char *p, size_t n)
{
    size_t k = 0, mant = 0;
    if (k < n && (p[k] == '+' || p[k] == '-'))
        k++;
    for (; k < n && p[k] >= '0' && p[k] <= '9'; k++)
        mant++;
    if (k < n && p[k] == '.')
        for (k++; k < n && p[k] >= '0' && p[k] <= '9'; k++)
            mant++;
    if (mant == 0)
        return 0;
    if (k < n && (p[k] == 'e' || p[k] == 'E')) {
        size_t exp = 0;
        k++;
        if (k < n && (p[k] == '+' || p[k] == '-'))
            k++;
        for (; k < n && p[k] >= '0' && p[k] <= '9'; k++)
            exp++;
        if (exp == 0)
            return 0;
    }
    return k == n;
}

int slv_parse_decimal(const char *p, size_t n, double *out)
{
    char buf[64];
    if (n == 1 && p[0] >= '0' && p[0] <= '9') { /* MovieLens fast path */
        *out = p[0] - '0';
        return 0;
    }
    if (n == 0 || n >= sizeof buf || !is_decimal(p, n))
        return -1;
    memcpy(buf, p, n); /* strtod needs a NUL; the input has none */
    buf[n] = '\0';
    *out = strtod(buf, NULL);
    return isfinite(*out) ? 0 : -2;
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
