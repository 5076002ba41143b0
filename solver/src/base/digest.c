/*
 * digest.c -- XXH64 (seed 0) over a stream fed in pieces; see digest.h.
 */
#include <string.h>

#include "base/digest.h"

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t rd64(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8); /* one load */
    return v;
#else
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
#endif
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t round64(uint64_t acc, uint64_t in)
{
    acc += in * P2;
    return rotl(acc, 31) * P1;
}

static uint64_t merge(uint64_t h, uint64_t v)
{
    h ^= round64(0, v);
    return h * P1 + P4;
}

void slv_digest_init(slv_digest *h)
{
    memset(h, 0, sizeof *h);
    h->v[0] = P1 + P2;
    h->v[1] = P2;
    h->v[2] = 0;
    h->v[3] = (uint64_t)0 - P1;
}

static void stripe(slv_digest *h, const unsigned char *p)
{
    for (int i = 0; i < 4; i++)
        h->v[i] = round64(h->v[i], rd64(p + 8 * i));
}

void slv_digest_update(slv_digest *h, const void *data, size_t len)
{
    const unsigned char *p = data;
    h->total += len;
    if (h->nbuf > 0) {
        size_t take = 32 - h->nbuf < len ? 32 - h->nbuf : len;
        memcpy(h->buf + h->nbuf, p, take);
        h->nbuf += take;
        p += take;
        len -= take;
        if (h->nbuf < 32)
            return;
        stripe(h, h->buf);
        h->nbuf = 0;
    }
    for (; len >= 32; p += 32, len -= 32)
        stripe(h, p);
    memcpy(h->buf, p, len);
    h->nbuf = len;
}

uint64_t slv_digest_final(const slv_digest *h)
{
    uint64_t x;
    const unsigned char *p = h->buf, *end = h->buf + h->nbuf;
    if (h->total >= 32) {
        x = rotl(h->v[0], 1) + rotl(h->v[1], 7) + rotl(h->v[2], 12) + rotl(h->v[3], 18);
        for (int i = 0; i < 4; i++)
            x = merge(x, h->v[i]);
    } else {
        x = P5; /* seed 0 */
    }
    x += h->total;
    for (; p + 8 <= end; p += 8)
        x = rotl(x ^ round64(0, rd64(p)), 27) * P1 + P4;
    if (p + 4 <= end) {
        x = rotl(x ^ ((uint64_t)rd32(p) * P1), 23) * P2 + P3;
        p += 4;
    }
    for (; p < end; p++)
        x = rotl(x ^ (*p * P5), 11) * P1;
    x ^= x >> 33;
    x *= P2;
    x ^= x >> 29;
    x *= P3;
    x ^= x >> 32;
    return x;
}

/* n values of `width` bytes as little-endian bytes: directly on a
 * little-endian host, else byte-swapped a block at a time. */
static void feed_le(slv_digest *h, const void *v, size_t n, size_t width)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    slv_digest_update(h, v, n * width);
#else
    const unsigned char *src = v;
    unsigned char blk[512];
    size_t per = sizeof blk / width;
    for (size_t i = 0; i < n; i += per) {
        size_t m = n - i < per ? n - i : per;
        for (size_t j = 0; j < m; j++)
            for (size_t b = 0; b < width; b++) /* host order -> LE */
                blk[j * width + b] = src[(i + j) * width + width - 1 - b];
        slv_digest_update(h, blk, m * width);
    }
#endif
}

void slv_digest_i64(slv_digest *h, int64_t v) { feed_le(h, &v, 1, 8); }
void slv_digest_f64s(slv_digest *h, const double *v, size_t n) { feed_le(h, v, n, 8); }
void slv_digest_i32s(slv_digest *h, const int32_t *v, size_t n) { feed_le(h, v, n, 4); }
void slv_digest_i64s(slv_digest *h, const int64_t *v, size_t n) { feed_le(h, v, n, 8); }
