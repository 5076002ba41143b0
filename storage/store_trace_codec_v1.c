/*
 * store_trace_codec_v1.c -- the double columns of version-1 chunks, which
 * files written before version 2 still hold: read, never written (a
 * job's last chunk is rewritten as version 2 when its trace grows).
 *
 * Each column: u8 its predictor, then n 64-bit words, the value's bits
 * XOR the bits of its prediction, byte plane by byte plane (the n lowest
 * bytes first).  Predictors, from the two previous values a (the last)
 * and b, in IEEE-754 double arithmetic: 0 -- a; 1 -- 2a - b; 2 --
 * 1 / (2/a - 1/b).  When a value involved or the prediction is not
 * finite, or fewer than two values precede, the prediction is a (0
 * before the first row).
 */
#include "store_trace_bits.h"

#define V1_NPRED 3

static uint64_t v1_predict(int pred, const uint64_t *v, size_t i)
{
    if (i == 0)
        return 0;
    if (i == 1 || pred == 0)
        return v[i - 1];
    double a = stc_double_of(v[i - 1]), b = stc_double_of(v[i - 2]), p;
    if (!isfinite(a) || !isfinite(b))
        return v[i - 1];
    p = pred == 1 ? 2 * a - b : (a != 0 && b != 0) ? 1 / (2 / a - 1 / b) : NAN;
    return isfinite(p) ? stc_bits_of(p) : v[i - 1];
}

void stc_v1_get_doubles(stc_rbuf *r, uint64_t *v, size_t n)
{
    if (r->pos + 1 + 8 * n > r->len || r->p[r->pos] >= V1_NPRED) {
        r->bad = 1;
        return;
    }
    int p = r->p[r->pos++];
    const unsigned char *planes = r->p + r->pos;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = 0;
        for (int b = 0; b < 8; b++)
            x |= (uint64_t)planes[(size_t)b * n + i] << (8 * b);
        v[i] = x ^ v1_predict(p, v, i);
    }
    r->pos += 8 * n;
}
