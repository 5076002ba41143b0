/*
 * store_trace_bits.h -- the byte-level pieces the trace codec's files
 * share (internal to storage/): bounded write and read buffers, varints,
 * zigzag, a double's bits.  Arithmetic is on uint64_t, modulo 2^64, so
 * no input, damaged or not, overflows a signed type.
 */
#ifndef IRCG_STORE_TRACE_BITS_H
#define IRCG_STORE_TRACE_BITS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The quiet NaN that version-1 chunks, and version-2 chunks written before
 * NaN payloads were kept, hold for every NaN. */
#define STC_UNKNOWN UINT64_C(0x7ff8000000000000)

typedef struct stc_wbuf {
    unsigned char *p; /* room for what the caller writes: no checks */
    size_t len;
} stc_wbuf;

typedef struct stc_rbuf {
    const unsigned char *p;
    size_t len, pos;
    int bad;          /* set by any read past the end or malformed */
} stc_rbuf;

static inline void stc_put_varint(stc_wbuf *w, uint64_t v)
{
    while (v >= 0x80) {
        w->p[w->len++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    w->p[w->len++] = (unsigned char)v;
}

static inline uint64_t stc_get_varint(stc_rbuf *r)
{
    uint64_t v = 0;
    for (int s = 0; s < 64 && r->pos < r->len; s += 7) {
        unsigned char b = r->p[r->pos++];
        v |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80))
            return v;
    }
    r->bad = 1;
    return 0;
}

/* The two's-complement value u, sign spread to the low bit. */
static inline uint64_t stc_zigzag(uint64_t u) { return (u << 1) ^ (0 - (u >> 63)); }
static inline uint64_t stc_unzigzag(uint64_t z) { return (z >> 1) ^ (0 - (z & 1)); }

/* The bits of a computed prediction: any NaN as STC_UNKNOWN, so that the
 * encoder and a decoder on another machine (whose arithmetic may make
 * another NaN) agree.  The predictions of the methods only ever add tame
 * values; this is the guard should one not. */
static inline uint64_t stc_bits_of(double x)
{
    uint64_t u;
    if (isnan(x))
        return STC_UNKNOWN;
    memcpy(&u, &x, 8);
    return u;
}

/* The bits of a stored value, all 64 of them: a NaN keeps its sign and
 * payload. */
static inline uint64_t stc_raw_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
}

static inline double stc_double_of(uint64_t u)
{
    double x;
    memcpy(&x, &u, 8);
    return x;
}

static inline int stc_bit_length(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }

/* store_trace_doubles.c: one double column of a version-2 body (the
 * methods of store_trace_codec.h).  `ticks` allows the clock method.
 * stc_put_doubles needs STC_DOUBLES_MAX(n) bytes of room. */
#define STC_DOUBLES_MAX(n) (32 + 20 * (size_t)(n))
void stc_put_doubles(stc_wbuf *w, const uint64_t *v, size_t n, int ticks);
void stc_get_doubles(stc_rbuf *r, uint64_t *v, size_t n);

/* store_trace_codec_v1.c: one double column of a version-1 body. */
void stc_v1_get_doubles(stc_rbuf *r, uint64_t *v, size_t n);

#endif /* IRCG_STORE_TRACE_BITS_H */
