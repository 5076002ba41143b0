/*
 * store_trace_codec.c -- the compressed columnar chunks of traces; the
 * format is described in store_trace_codec.h.
 */
#include "store_trace_codec.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define STC_VERSION 1
#define NINT 5
#define NDBL 13
#define NPRED 3
/* The largest body: n and iterations, the integer columns (varints of at
 * most 10 bytes) and the double columns. */
#define BODY_MAX(n) (20 + 10 * (n) + NINT * 10 * (n) + NDBL * (1 + 8 * (n)))

static const uint64_t UNKNOWN = 0x7ff8000000000000ULL; /* the quiet NaN */

typedef struct wbuf {
    unsigned char *p;
    size_t len;
} wbuf;

typedef struct rbuf {
    const unsigned char *p;
    size_t len, pos;
    int bad;
} rbuf;

static void put_varint(wbuf *w, uint64_t v)
{
    while (v >= 0x80) {
        w->p[w->len++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    w->p[w->len++] = (unsigned char)v;
}

static uint64_t get_varint(rbuf *r)
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

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (v < 0 ? ~UINT64_C(0) : 0); /* the sign, spread */
}
static int64_t unzigzag(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

static uint64_t bits_of(double x)
{
    uint64_t u;
    if (isnan(x))
        return UNKNOWN;
    memcpy(&u, &x, 8);
    return u;
}

static double double_of(uint64_t u)
{
    double x;
    memcpy(&x, &u, 8);
    return x;
}

/* The prediction of value i of a column from the values before it. */
static uint64_t predict(int pred, const uint64_t *v, size_t i)
{
    if (i == 0)
        return 0;
    if (i == 1 || pred == 0)
        return v[i - 1];
    double a = double_of(v[i - 1]), b = double_of(v[i - 2]), p;
    if (!isfinite(a) || !isfinite(b))
        return v[i - 1];
    p = pred == 1 ? 2 * a - b : (a != 0 && b != 0) ? 1 / (2 / a - 1 / b) : NAN;
    return isfinite(p) ? bits_of(p) : v[i - 1];
}

static int significant_bits(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }

/* The predictor that leaves the fewest significant bits in the XORs. */
static int best_predictor(const uint64_t *v, size_t n)
{
    long best = -1;
    int which = 0;
    for (int p = 0; p < NPRED; p++) {
        long bits = 0;
        for (size_t i = 0; i < n; i++)
            bits += significant_bits(v[i] ^ predict(p, v, i));
        if (best < 0 || bits < best) {
            best = bits;
            which = p;
        }
    }
    return which;
}

static void put_doubles(wbuf *w, const uint64_t *v, size_t n)
{
    int p = best_predictor(v, n);
    w->p[w->len++] = (unsigned char)p;
    for (int b = 0; b < 8; b++)
        for (size_t i = 0; i < n; i++)
            w->p[w->len++] = (unsigned char)((v[i] ^ predict(p, v, i)) >> (8 * b));
}

static void get_doubles(rbuf *r, uint64_t *v, size_t n)
{
    if (r->pos + 1 + 8 * n > r->len || r->p[r->pos] >= NPRED) {
        r->bad = 1;
        return;
    }
    int p = r->p[r->pos++];
    const unsigned char *planes = r->p + r->pos;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = 0;
        for (int b = 0; b < 8; b++)
            x |= (uint64_t)planes[(size_t)b * n + i] << (8 * b);
        v[i] = x ^ predict(p, v, i);
    }
    r->pos += 8 * n;
}

/* The integer columns of a row, and its double column c. */
static void ints_of(const store_trace_row *r, int64_t v[NINT])
{
    v[0] = r->lmo_matvecs;
    v[1] = r->rank;
    v[2] = r->lmo_converged;
    v[3] = r->backtracks;
    v[4] = r->proj_full;
}

static void set_ints(store_trace_row *r, const int64_t v[NINT])
{
    r->lmo_matvecs = v[0];
    r->rank = (int)v[1];
    r->lmo_converged = (int)v[2];
    r->backtracks = (int)v[3];
    r->proj_full = (int)v[4];
}

static double *dbl_col(store_trace_row *r, int c)
{
    double *v[NDBL] = {&r->elapsed, &r->sigma, &r->alpha, &r->g_x, &r->f_x,
                       &r->g_z, &r->f_z, &r->gap, &r->g_gap_x, &r->g_gap_z,
                       &r->lmo_seconds, &r->top_sv, &r->lambda};
    return v[c];
}

static void encode_body(const store_trace_row *rows, size_t n, wbuf *w, uint64_t *col)
{
    int64_t prev[NINT] = {0}, cur[NINT];
    put_varint(w, n);
    put_varint(w, (uint64_t)rows[0].iteration);
    for (size_t i = 1; i < n; i++)
        put_varint(w, (uint64_t)(rows[i].iteration - rows[i - 1].iteration));
    for (int c = 0; c < NINT; c++) {
        for (size_t i = 0; i < n; i++) {
            ints_of(&rows[i], cur);
            put_varint(w, zigzag((int64_t)((uint64_t)cur[c] - (uint64_t)prev[c])));
            prev[c] = cur[c];
        }
    }
    for (int c = 0; c < NDBL; c++) {
        for (size_t i = 0; i < n; i++)
            col[i] = bits_of(*dbl_col((store_trace_row *)&rows[i], c));
        put_doubles(w, col, n);
    }
}

int stc_encode(const store_trace_row *rows, size_t n, unsigned char **out, size_t *len)
{
    size_t cap = BODY_MAX(n);
    wbuf body = {malloc(cap), 0};
    uint64_t *col = malloc(n * sizeof *col);
    uLongf zlen = compressBound((uLong)cap);
    unsigned char *z = malloc(1 + 10 + zlen);
    int rc = -1;
    *out = NULL;
    if (body.p && col && z && n > 0 && n <= STC_CHUNK_ROWS) {
        encode_body(rows, n, &body, col);
        wbuf head = {z, 0};
        z[head.len++] = STC_VERSION;
        put_varint(&head, body.len);
        if (compress2(z + head.len, &zlen, body.p, (uLong)body.len, 6) == Z_OK) {
            *out = z;
            *len = head.len + zlen;
            z = NULL;
            rc = 0;
        }
    }
    free(body.p);
    free(col);
    free(z);
    return rc;
}

static int decode_body(rbuf *r, store_trace_row *rows, size_t *n)
{
    uint64_t col[STC_CHUNK_ROWS];
    int64_t iv[STC_CHUNK_ROWS][NINT];
    size_t m = get_varint(r);
    if (r->bad || m < 1 || m > STC_CHUNK_ROWS)
        return -1;
    memset(rows, 0, m * sizeof *rows);
    rows[0].iteration = (int64_t)(get_varint(r) & (uint64_t)INT64_MAX);
    for (size_t i = 1; i < m; i++) {
        uint64_t step = get_varint(r);
        r->bad |= step < 1 || step > (uint64_t)INT64_MAX - (uint64_t)rows[i - 1].iteration;
        rows[i].iteration = r->bad ? 0 : rows[i - 1].iteration + (int64_t)step;
    }
    for (int c = 0; c < NINT; c++) {
        int64_t prev = 0;
        for (size_t i = 0; i < m; i++)
            iv[i][c] = prev = (int64_t)((uint64_t)prev + (uint64_t)unzigzag(get_varint(r)));
    }
    for (size_t i = 0; i < m; i++)
        set_ints(&rows[i], iv[i]);
    for (int c = 0; c < NDBL && !r->bad; c++) {
        get_doubles(r, col, m);
        for (size_t i = 0; i < m && !r->bad; i++)
            *dbl_col(&rows[i], c) = col[i] == UNKNOWN ? NAN : double_of(col[i]);
    }
    if (r->bad || r->pos != r->len)
        return -1;
    *n = m;
    return 0;
}

int stc_decode(const unsigned char *data, size_t len, store_trace_row *rows, size_t *n)
{
    rbuf head = {data, len, 1, 0};
    if (len < 2 || data[0] != STC_VERSION)
        return -1;
    uint64_t blen = get_varint(&head);
    if (head.bad || blen > BODY_MAX(STC_CHUNK_ROWS))
        return -1;
    unsigned char *body = malloc(blen ? blen : 1);
    uLongf got = (uLongf)blen;
    int rc = -1;
    if (body && uncompress(body, &got, data + head.pos, (uLong)(len - head.pos)) == Z_OK &&
        got == blen) {
        rbuf r = {body, blen, 0, 0};
        rc = decode_body(&r, rows, n);
    }
    free(body);
    return rc;
}
