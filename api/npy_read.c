/*
 * npy_read.c -- the .npy format (NumPy's numpy.lib.format): the magic
 * "\x93NUMPY", a version (1.0: a 2-byte header length; 2.0 and 3.0: 4
 * bytes), the header -- a Python dict literal such as
 *   {'descr': '<f8', 'fortran_order': False, 'shape': (200000, 500), }
 * -- and the values, in C (row-major) or Fortran (column-major) order.
 * Values are read exactly as stored: float64 bits are never touched
 * beyond a byte swap, and each is checked (finite, within the bound the
 * spec puts on data) with its index and byte offset in the message.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy_internal.h"

#define NPY_HEAD_MAX 65536
/* Values checked a block at a time: 64 KiB. */
#define CHUNK 8192

static const char *skip(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* A quoted Python string at p into out; the character after it. */
static const char *pystr(const char *p, char *out, size_t cap)
{
    char q = *p;
    size_t n = 0;
    if (q != '\'' && q != '"')
        return NULL;
    for (p++; *p && *p != q; p++)
        if (n + 1 < cap)
            out[n++] = *p;
        else
            return NULL;
    out[n] = '\0';
    return *p == q ? p + 1 : NULL;
}

/* (n, m) / (n,) / () into h; the character after it. */
static const char *pyshape(const char *p, npy_head *h)
{
    if (*p != '(')
        return NULL;
    p = skip(p + 1);
    h->ndim = 0;
    h->count = 1;
    while (*p != ')') {
        char *end;
        if (!isdigit((unsigned char)*p))
            return NULL;
        unsigned long long v = strtoull(p, &end, 10);
        p = end;
        if (*p == 'L')
            p++;
        if (h->ndim >= 2) { /* counted, refused by the caller */
            h->ndim++;
            p = skip(p);
            if (*p == ',')
                p = skip(p + 1);
            else if (*p != ')')
                return NULL;
            continue;
        }
        h->shape[h->ndim++] = (int64_t)v;
        if (h->count > 0 && (int64_t)v > (INT64_C(1) << 62) / h->count)
            return NULL;
        h->count *= (int64_t)v;
        p = skip(p);
        if (*p == ',')
            p = skip(p + 1);
        else if (*p != ')')
            return NULL;
    }
    return p + 1;
}

/* descr: a byte order ('<', '>', '|', '='), a kind and a size. */
static int parse_descr(npy_head *h)
{
    const char *d = h->descr;
    char *end;
    if (!strchr("<>|=", d[0]) || !strchr("fiuSUb", d[1]) || !isdigit((unsigned char)d[2]))
        return -1;
    long size = strtol(d + 2, &end, 10);
    if (*end || size < 1 || size > 4096)
        return -1;
    h->type = d[1];
    h->size = (int)size;
    h->big = d[0] == '>';
    return 0;
}

/* The header dict at text: its three keys, in any order. */
static int parse_dict(const char *text, npy_head *h)
{
    const char *p = skip(text);
    int seen = 0;
    if (*p++ != '{')
        return -1;
    for (p = skip(p); *p != '}';) {
        char key[32];
        if (!(p = pystr(p, key, sizeof key)))
            return -1;
        p = skip(p);
        if (*p++ != ':')
            return -1;
        p = skip(p);
        if (!strcmp(key, "descr")) {
            if (!(p = pystr(p, h->descr, sizeof h->descr)) || parse_descr(h) != 0)
                return -2;
            seen |= 1;
        } else if (!strcmp(key, "fortran_order")) {
            if (!strncmp(p, "True", 4))
                h->fortran = 1, p += 4;
            else if (!strncmp(p, "False", 5))
                h->fortran = 0, p += 5;
            else
                return -1;
            seen |= 2;
        } else if (!strcmp(key, "shape")) {
            if (!(p = pyshape(p, h)))
                return -1;
            seen |= 4;
        } else {
            return -1;
        }
        p = skip(p);
        if (*p == ',')
            p = skip(p + 1);
        else if (*p != '}')
            return -1;
    }
    return seen == 7 ? 0 : -1;
}

int npy_read_head(ar_stream *s, npy_head *h, api_read_error *e)
{
    unsigned char m[12];
    uint32_t len;
    memset(h, 0, sizeof *h);
    if (s->size < 10 || ar_read(s, m, 10, e) != 0 || memcmp(m, "\x93NUMPY", 6) != 0)
        return ar_fail(s, 0, e, "not a .npy file: it does not start with \\x93NUMPY");
    if (m[6] == 1) {
        len = (uint32_t)m[8] | (uint32_t)m[9] << 8;
    } else if (m[6] == 2 || m[6] == 3) {
        if (ar_read(s, m + 10, 2, e) != 0)
            return -1;
        len = (uint32_t)m[8] | (uint32_t)m[9] << 8 | (uint32_t)m[10] << 16 |
              (uint32_t)m[11] << 24;
    } else {
        return ar_fail(s, 6, e, ".npy version %d.%d (1.0, 2.0 and 3.0 are read)", m[6], m[7]);
    }
    int64_t at = s->pos;
    if (len > NPY_HEAD_MAX || (int64_t)len > s->size - at)
        return ar_fail(s, 8, e, "a header of %u bytes does not fit", (unsigned)len);
    char *text = malloc((size_t)len + 1);
    if (!text)
        return ar_fail(s, -1, e, "out of memory");
    int rc = ar_read(s, text, len, e);
    if (rc == 0) {
        text[len] = '\0';
        rc = parse_dict(text, h);
        if (rc == -2)
            ar_fail(s, at, e, "dtype '%s' is not read (float64 values: numpy.float64)",
                    h->descr);
        else if (rc != 0)
            ar_fail(s, at, e, "the header is not a dict with 'descr', 'fortran_order' and "
                    "'shape': %.80s", text);
    }
    free(text);
    if (rc != 0)
        return -1;
    if (h->ndim > 2)
        return ar_fail(s, at, e, "an array of more than 2 dimensions");
    if (h->count > (INT64_C(1) << 62) / h->size || s->size - s->pos != h->count * h->size)
        return ar_fail(s, s->pos, e, "the shape says %lld values of %d bytes, the data holds "
                       "%lld bytes", (long long)h->count, h->size,
                       (long long)(s->size - s->pos));
    return 0;
}

/* "A[i, j]" of the k-th value stored. */
static void where(char *out, size_t cap, const char *label, const npy_head *h, int64_t k)
{
    if (h->ndim < 2) {
        snprintf(out, cap, "%s[%lld]", label, (long long)k);
        return;
    }
    int64_t r = h->shape[0], c = h->shape[1];
    int64_t i = h->fortran ? k % r : k / c, j = h->fortran ? k / r : k % c;
    snprintf(out, cap, "%s[%lld, %lld]", label, (long long)i, (long long)j);
}

static void swap8(unsigned char *p, size_t n)
{
    for (size_t k = 0; k < n; k++, p += 8)
        for (int i = 0; i < 4; i++) {
            unsigned char t = p[i];
            p[i] = p[7 - i];
            p[7 - i] = t;
        }
}

static int host_big(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 0;
}

/* Each of v[0, n) (the values from the k0-th) finite and within bound. */
static int check_values(ar_stream *s, const npy_head *h, const char *label, double max_abs,
                        const double *v, int64_t n, int64_t k0, int64_t data_at,
                        api_read_error *e)
{
    for (int64_t i = 0; i < n; i++) {
        if (isfinite(v[i]) && fabs(v[i]) <= max_abs)
            continue;
        char w[96];
        where(w, sizeof w, label, h, k0 + i);
        if (isnan(v[i]))
            return ar_fail(s, data_at + 8 * (k0 + i), e, "%s is NaN: values must be finite", w);
        if (isinf(v[i]))
            return ar_fail(s, data_at + 8 * (k0 + i), e, "%s is %s: values must be finite", w,
                           v[i] > 0 ? "inf" : "-inf");
        return ar_fail(s, data_at + 8 * (k0 + i), e, "%s = %.17g: |v| must be <= %g", w, v[i],
                       max_abs);
    }
    return 0;
}

int npy_read_f8(ar_stream *s, const npy_head *h, const char *label, double max_abs,
                double *dst, int rowmajor, api_read_error *e)
{
    if (h->type != 'f' || h->size != 8)
        return ar_fail(s, -1, e, "%s has dtype '%s': float64 values are read "
                       "(numpy.asarray(a, dtype=numpy.float64))", label, h->descr);
    const int swap = h->big != host_big() && h->descr[0] != '|';
    const int scatter = dst && rowmajor && h->fortran && h->ndim == 2;
    const int64_t data_at = s->pos;
    double *buf = (!dst || scatter) ? malloc(CHUNK * sizeof *buf) : NULL;
    int rc = 0;
    if ((!dst || scatter) && !buf)
        return ar_fail(s, -1, e, "out of memory");
    for (int64_t k = 0; k < h->count && rc == 0;) {
        int64_t n = h->count - k;
        if (buf && n > CHUNK)
            n = CHUNK;
        else if (!buf && n > (INT64_C(1) << 21)) /* 16 MiB: the stop is polled */
            n = INT64_C(1) << 21;
        double *v = buf ? buf : dst ? dst + k : NULL;
        if (!v)
            return ar_fail(s, -1, e, "out of memory");
        rc = ar_read(s, v, (size_t)n * 8, e);
        if (rc == 0 && swap)
            swap8((unsigned char *)v, (size_t)n);
        if (rc == 0)
            rc = check_values(s, h, label, max_abs, v, n, k, data_at, e);
        if (rc == 0 && scatter) {
            int64_t r = h->shape[0], c = h->shape[1];
            for (int64_t i = 0; i < n; i++)
                dst[((k + i) % r) * c + (k + i) / r] = v[i];
        }
        k += n;
    }
    free(buf);
    return rc;
}

int npy_read_ints(ar_stream *s, const npy_head *h, const char *label, int64_t lo,
                  int64_t hi, int64_t *dst, npy_int_check check, void *user,
                  api_read_error *e)
{
    if ((h->type != 'i' && h->type != 'u') || (h->size != 4 && h->size != 8))
        return ar_fail(s, -1, e, "%s has dtype '%s': 32- or 64-bit integers are read", label,
                       h->descr);
    const int swap = h->big != host_big() && h->descr[0] != '|';
    const int64_t data_at = s->pos;
    unsigned char *buf = malloc(CHUNK * 8);
    int rc = 0;
    if (!buf)
        return ar_fail(s, -1, e, "out of memory");
    for (int64_t k = 0; k < h->count && rc == 0;) {
        int64_t n = h->count - k < CHUNK ? h->count - k : CHUNK;
        rc = ar_read(s, buf, (size_t)(n * h->size), e);
        for (int64_t i = 0; i < n && rc == 0; i++) {
            unsigned char b[8];
            memcpy(b, buf + i * h->size, (size_t)h->size);
            for (int j = 0; swap && j < h->size / 2; j++) {
                unsigned char t = b[j];
                b[j] = b[h->size - 1 - j];
                b[h->size - 1 - j] = t;
            }
            int64_t v;
            int neg = 0;
            if (h->size == 4) {
                uint32_t u;
                memcpy(&u, b, 4);
                v = h->type == 'i' ? (int64_t)(int32_t)u : (int64_t)u;
            } else {
                uint64_t u;
                memcpy(&u, b, 8);
                neg = h->type == 'u' && u > (uint64_t)INT64_MAX;
                v = neg ? INT64_MAX : (int64_t)u;
            }
            if (neg || v < lo || v > hi) {
                char w[96];
                where(w, sizeof w, label, h, k + i);
                rc = ar_fail(s, data_at + (k + i) * h->size, e,
                             "%s = %lld is out of range [%lld, %lld]", w, (long long)v,
                             (long long)lo, (long long)hi);
            } else if (check && check(user, k + i, v, e) != 0) {
                char w[96], why[200];
                where(w, sizeof w, label, h, k + i);
                snprintf(why, sizeof why, "%.199s", e ? e->message : "");
                rc = ar_fail(s, data_at + (k + i) * h->size, e, "%s = %lld: %s", w,
                             (long long)v, why);
            } else if (dst) {
                dst[k + i] = v;
            }
        }
        k += n;
    }
    free(buf);
    return rc;
}
