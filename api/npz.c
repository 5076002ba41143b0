/*
 * npz.c -- NumPy's .npz: a ZIP archive of .npy arrays, each member
 * deflate-compressed (what numpy.savez_compressed writes), so that a
 * snapshot is read by numpy.load, or by Python's standard library alone
 * (zipfile, then a short header and the raw values: api/SPEC.md).
 *
 * .npy version 1.0: "\x93NUMPY", 1, 0, a little-endian u16 header length,
 * then the header, a Python dict literal such as
 *   {'descr': '<f8', 'fortran_order': True, 'shape': (60, 3), }
 * padded with spaces and ended by '\n' so that the data starts at a
 * multiple of 64 bytes; then the values (Fortran order: column-major).
 * The ZIP is the plain one (no ZIP64: every member under 4 GiB), written
 * with known sizes and CRCs, no data descriptors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "npz.h"

#define NPY_ALIGN 64
#define ZIP_MAX 0xffffffffu

typedef struct obuf {
    unsigned char *p;
    size_t len, cap;
    int failed;
} obuf;

static void put(obuf *b, const void *data, size_t n)
{
    if (b->failed || n == 0)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

static void put_le(obuf *b, uint64_t v, int bytes)
{
    unsigned char t[8];
    for (int i = 0; i < bytes; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    put(b, t, (size_t)bytes);
}

static void put_zeros(obuf *b, size_t n)
{
    static const unsigned char z[16];
    put(b, z, n);
}

static int host_le(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* The .npy header of a: magic, version, length, dict, padding. */
static int npy_header(const api_npz_array *a, char *out, size_t cap, size_t *len)
{
    char shape[64], dict[200];
    if (a->ndim == 0)
        snprintf(shape, sizeof shape, "()");
    else if (a->ndim == 1)
        snprintf(shape, sizeof shape, "(%lld,)", (long long)a->shape[0]);
    else
        snprintf(shape, sizeof shape, "(%lld, %lld)", (long long)a->shape[0],
                 (long long)a->shape[1]);
    int n = snprintf(dict, sizeof dict, "{'descr': '%c%s', 'fortran_order': %s, 'shape': %s, }",
                     host_le() ? '<' : '>', a->integer ? "i8" : "f8",
                     a->ndim == 2 ? "True" : "False", shape);
    size_t total = 10 + (size_t)n + 1;
    total = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    if (total > cap || total - 10 > 0xffff)
        return -1;
    static const unsigned char MAGIC[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    memcpy(out, MAGIC, sizeof MAGIC);
    out[8] = (char)((total - 10) & 0xff);
    out[9] = (char)((total - 10) >> 8);
    memcpy(out + 10, dict, (size_t)n);
    memset(out + 10 + n, ' ', total - 10 - (size_t)n - 1);
    out[total - 1] = '\n';
    *len = total;
    return 0;
}

static uint32_t crc_of(uint32_t crc, const unsigned char *p, size_t n)
{
    for (size_t o = 0; o < n; o += 1u << 30)
        crc = (uint32_t)crc32(crc, p + o, (uInt)(n - o < (1u << 30) ? n - o : (1u << 30)));
    return crc;
}

/* len bytes into the deflate stream, in pieces zlib's counters hold; the
 * stream ends with them when `finish`.  0, or -1 on failure. */
static int feed(z_stream *z, obuf *b, const unsigned char *src, size_t len, int finish)
{
    int rc = Z_OK;
    do {
        uInt chunk = len > (1u << 30) ? (1u << 30) : (uInt)len;
        int flush = finish && chunk == len ? Z_FINISH : Z_NO_FLUSH;
        z->next_in = (Bytef *)(uintptr_t)src;
        z->avail_in = chunk;
        do {
            unsigned char out[65536];
            z->next_out = out;
            z->avail_out = sizeof out;
            if ((rc = deflate(z, flush)) == Z_STREAM_ERROR)
                return -1;
            put(b, out, sizeof out - z->avail_out);
        } while (z->avail_out == 0);
        src += chunk;
        len -= chunk;
    } while (len > 0);
    return !finish || rc == Z_STREAM_END ? 0 : -1;
}

/* Deflates the .npy (header, values) of a into b; its CRC and sizes.
 * Level 1: doubles gain little from more effort, and a snapshot of a big
 * job is hundreds of megabytes. */
static int deflate_member(obuf *b, const api_npz_array *a, uint32_t *crc, size_t *raw,
                          size_t *packed)
{
    char head[256];
    size_t hlen = 0, nbytes = a->count * 8, start = b->len;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (npy_header(a, head, sizeof head, &hlen) != 0 ||
        deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    *crc = crc_of(crc_of(0, (const unsigned char *)head, hlen), a->data, nbytes);
    *raw = hlen + nbytes;
    int rc = feed(&z, b, (const unsigned char *)head, hlen, 0);
    if (rc == 0)
        rc = feed(&z, b, a->data, nbytes, 1);
    deflateEnd(&z);
    *packed = b->len - start;
    return rc == 0 && !b->failed ? 0 : -1;
}

int api_npz_write(const api_npz_array *arrays, size_t n, void **out, size_t *len)
{
    obuf b = {0}, cd = {0};
    int rc = 0;
    *out = NULL;
    *len = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const api_npz_array *a = &arrays[i];
        char name[80];
        int nl = snprintf(name, sizeof name, "%s.npy", a->name);
        size_t at = b.len, raw = 0, packed = 0;
        uint32_t crc = 0;
        /* the local header, its CRC and sizes filled in after the data */
        put_le(&b, 0x04034b50, 4);
        put_le(&b, 20, 2);        /* version needed: 2.0 (deflate)  */
        put_le(&b, 0, 2);         /* flags                          */
        put_le(&b, 8, 2);         /* deflate                        */
        put_le(&b, 0, 2);         /* time 00:00                     */
        put_le(&b, 0x21, 2);      /* date 1980-01-01                */
        put_zeros(&b, 12);        /* crc, sizes: below              */
        put_le(&b, (uint64_t)nl, 2);
        put_le(&b, 0, 2);
        put(&b, name, (size_t)nl);
        rc = deflate_member(&b, a, &crc, &raw, &packed);
        if (rc == 0 && (raw > ZIP_MAX || packed > ZIP_MAX || b.len > ZIP_MAX))
            rc = -1;
        if (rc == 0 && !b.failed) {
            for (int k = 0; k < 4; k++) {
                b.p[at + 14 + k] = (unsigned char)(crc >> (8 * k));
                b.p[at + 18 + k] = (unsigned char)(packed >> (8 * k));
                b.p[at + 22 + k] = (unsigned char)(raw >> (8 * k));
            }
        }
        put_le(&cd, 0x02014b50, 4);
        put_le(&cd, 20, 2);       /* made by 2.0 (MS-DOS)           */
        put_le(&cd, 20, 2);
        put_le(&cd, 0, 2);
        put_le(&cd, 8, 2);
        put_le(&cd, 0, 2);
        put_le(&cd, 0x21, 2);
        put_le(&cd, crc, 4);
        put_le(&cd, packed, 4);
        put_le(&cd, raw, 4);
        put_le(&cd, (uint64_t)nl, 2);
        put_zeros(&cd, 2 + 2 + 2 + 2 + 4); /* extra, comment, disk, attrs */
        put_le(&cd, at, 4);
        put(&cd, name, (size_t)nl);
    }
    size_t cd_at = b.len;
    put(&b, cd.p, cd.len);
    put_le(&b, 0x06054b50, 4);
    put_le(&b, 0, 4);             /* disks                          */
    put_le(&b, n, 2);
    put_le(&b, n, 2);
    put_le(&b, cd.len, 4);
    put_le(&b, cd_at, 4);
    put_le(&b, 0, 2);
    free(cd.p);
    if (rc != 0 || b.failed || cd.failed || b.len > ZIP_MAX) {
        free(b.p);
        return -1;
    }
    *out = b.p;
    *len = b.len;
    return 0;
}
