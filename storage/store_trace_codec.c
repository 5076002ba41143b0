/*
 * store_trace_codec.c -- the compressed columnar chunks of traces: the
 * container (version, zlib), the iterations and integer columns, and the
 * double columns through store_trace_doubles.c (version 2) or
 * store_trace_codec_v1.c (version 1, read only).  The format is
 * described in store_trace_codec.h.
 */
#include "store_trace_codec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "store_trace_bits.h"

#define STC_VERSION 3
#define NINT 6  /* version 3; versions 1 and 2 have NINT_V2 */
#define NDBL 17 /* version 3; versions 1 and 2 have NDBL_V2 */
#define NINT_V2 5
#define NDBL_V2 13
/* The largest body: n and iterations, the integer columns (varints of at
 * most 10 bytes) and the double columns. */
#define BODY_MAX(n) (20 + 10 * (size_t)(n) + NINT * 10 * (size_t)(n) + NDBL * STC_DOUBLES_MAX(n))

/* The integer columns of a row, and its double column c. */
static void ints_of(const store_trace_row *r, int64_t v[NINT])
{
    v[0] = r->lmo_matvecs;
    v[1] = r->rank;
    v[2] = r->lmo_converged;
    v[3] = r->backtracks;
    v[4] = r->proj_full;
    v[5] = r->certified;
}

static void set_ints(store_trace_row *r, const int64_t v[NINT])
{
    r->lmo_matvecs = v[0];
    r->rank = (int)v[1];
    r->lmo_converged = (int)v[2];
    r->backtracks = (int)v[3];
    r->proj_full = (int)v[4];
    r->certified = (int)v[5];
}

static double *dbl_col(store_trace_row *r, int c)
{
    double *v[NDBL] = {&r->elapsed, &r->sigma, &r->alpha, &r->g_x, &r->f_x,
                       &r->g_z, &r->f_z, &r->gap, &r->g_gap_x, &r->g_gap_z,
                       &r->lmo_seconds, &r->top_sv, &r->lambda, &r->inner_gap_x,
                       &r->inner_gap_z, &r->g_lower, &r->f_lower};
    return v[c];
}

/* The class of double column c (store_trace_codec.h), and whether the
 * clock method may encode it. */
static int dbl_class(int c)
{
    static const unsigned char k[NDBL] = {
        STC_SEC_TIMING, STC_SEC_SCHEDULE, STC_SEC_SCHEDULE, STC_SEC_OBJECTIVE,
        STC_SEC_OBJECTIVE, STC_SEC_OBJECTIVE, STC_SEC_OBJECTIVE, STC_SEC_OBJECTIVE,
        STC_SEC_OTHER, STC_SEC_OTHER, STC_SEC_TIMING, STC_SEC_OTHER, STC_SEC_OTHER,
        STC_SEC_OTHER, STC_SEC_OTHER, STC_SEC_OTHER, STC_SEC_OTHER};
    return k[c];
}

/* ------------------------------------------------------------- encode -- */

/* The body's sections in order; `mark[s]` gets the end of section s
 * (NULL: not wanted).  Sections: the iterations, the integers, then each
 * double column. */
static void encode_body(const store_trace_row *rows, size_t n, stc_wbuf *w, uint64_t *col,
                        size_t mark[2 + NDBL])
{
    int64_t prev[NINT] = {0}, cur[NINT];
    stc_put_varint(w, n);
    stc_put_varint(w, (uint64_t)rows[0].iteration);
    for (size_t i = 1; i < n; i++)
        stc_put_varint(w, (uint64_t)(rows[i].iteration - rows[i - 1].iteration));
    mark[0] = w->len;
    for (int c = 0; c < NINT; c++) {
        for (size_t i = 0; i < n; i++) {
            ints_of(&rows[i], cur);
            stc_put_varint(w, stc_zigzag((uint64_t)cur[c] - (uint64_t)prev[c]));
            prev[c] = cur[c];
        }
    }
    mark[1] = w->len;
    for (int c = 0; c < NDBL; c++) {
        for (size_t i = 0; i < n; i++)
            col[i] = stc_raw_bits(*dbl_col((store_trace_row *)&rows[i], c));
        stc_put_doubles(w, col, n, dbl_class(c) == STC_SEC_TIMING);
        mark[2 + c] = w->len;
    }
}

/* The body of n rows in a malloc'ed buffer (*body), its sections' ends
 * in mark.  0, or -1 when out of memory or n is out of range. */
static int make_body(const store_trace_row *rows, size_t n, stc_wbuf *body,
                     size_t mark[2 + NDBL])
{
    uint64_t *col = malloc((n ? n : 1) * sizeof *col);
    body->p = malloc(BODY_MAX(n));
    body->len = 0;
    int rc = col && body->p && n > 0 && n <= STC_CHUNK_ROWS ? 0 : -1;
    if (rc == 0)
        encode_body(rows, n, body, col, mark);
    free(col);
    return rc;
}

int stc_encode(const store_trace_row *rows, size_t n, unsigned char **out, size_t *len)
{
    size_t mark[2 + NDBL];
    stc_wbuf body;
    unsigned char *z = NULL;
    int rc = make_body(rows, n, &body, mark);
    uLongf zlen = compressBound((uLong)BODY_MAX(n));
    *out = NULL;
    if (rc == 0 && !(z = malloc(1 + 10 + zlen)))
        rc = -1;
    if (rc == 0) {
        stc_wbuf head = {z, 0};
        z[head.len++] = STC_VERSION;
        stc_put_varint(&head, body.len);
        rc = compress2(z + head.len, &zlen, body.p, (uLong)body.len, 6) == Z_OK ? 0 : -1;
        *len = head.len + zlen;
    }
    if (rc == 0) {
        *out = z;
        z = NULL;
    }
    free(body.p);
    free(z);
    return rc;
}

int stc_class_bytes(const store_trace_row *rows, size_t n, size_t bytes[STC_NSEC])
{
    size_t mark[2 + NDBL], from = 0;
    stc_wbuf body;
    int rc = make_body(rows, n, &body, mark);
    unsigned char *parts[STC_NSEC] = {NULL};
    size_t plen[STC_NSEC] = {0};
    for (int s = 0; rc == 0 && s < 2 + NDBL; s++) { /* each class's sections, joined */
        int k = s == 0 ? STC_SEC_ITERATION : s == 1 ? STC_SEC_INTEGERS : dbl_class(s - 2);
        unsigned char *p = realloc(parts[k], plen[k] + mark[s] - from);
        if (!p) {
            rc = -1;
            break;
        }
        memcpy(p + plen[k], body.p + from, mark[s] - from);
        parts[k] = p;
        plen[k] += mark[s] - from;
        from = mark[s];
    }
    for (int k = 0; k < STC_NSEC; k++) {
        uLongf zlen = compressBound((uLong)plen[k]);
        unsigned char *z = rc == 0 ? malloc(zlen) : NULL;
        if (z && compress2(z, &zlen, parts[k], (uLong)plen[k], 6) == Z_OK)
            bytes[k] += zlen;
        else
            rc = -1;
        free(z);
        free(parts[k]);
    }
    free(body.p);
    return rc;
}

/* ------------------------------------------------------------- decode -- */

static int decode_body(stc_rbuf *r, int version, store_trace_row *rows, size_t *n)
{
    uint64_t col[STC_CHUNK_ROWS];
    int64_t iv[STC_CHUNK_ROWS][NINT];
    int nint = version >= 3 ? NINT : NINT_V2, ndbl = version >= 3 ? NDBL : NDBL_V2;
    size_t m = stc_get_varint(r);
    if (r->bad || m < 1 || m > STC_CHUNK_ROWS)
        return -1;
    rows[0].iteration = (int64_t)(stc_get_varint(r) & (uint64_t)INT64_MAX);
    for (size_t i = 1; i < m; i++) {
        uint64_t step = stc_get_varint(r);
        r->bad |= step < 1 || step > (uint64_t)INT64_MAX - (uint64_t)rows[i - 1].iteration;
        rows[i].iteration = r->bad ? 0 : rows[i - 1].iteration + (int64_t)step;
    }
    for (int c = 0; c < NINT; c++) {
        uint64_t prev = 0;
        for (size_t i = 0; i < m; i++)
            iv[i][c] = c < nint ? (int64_t)(prev += stc_unzigzag(stc_get_varint(r))) : -1;
    }
    for (size_t i = 0; i < m; i++)
        set_ints(&rows[i], iv[i]);
    for (size_t i = ndbl < NDBL ? 0 : m; i < m; i++)
        for (int c = ndbl; c < NDBL; c++)
            *dbl_col(&rows[i], c) = NAN; /* a chunk without the bounds */
    for (int c = 0; c < ndbl && !r->bad; c++) {
        if (version == 1)
            stc_v1_get_doubles(r, col, m);
        else
            stc_get_doubles(r, col, m);
        for (size_t i = 0; i < m && !r->bad; i++)
            *dbl_col(&rows[i], c) = stc_double_of(col[i]); /* a NaN's payload too */
    }
    if (r->bad || r->pos != r->len)
        return -1;
    *n = m;
    return 0;
}

int stc_decode(const unsigned char *data, size_t len, store_trace_row *rows, size_t *n)
{
    stc_rbuf head = {data, len, 1, 0};
    if (len < 2 || data[0] < 1 || data[0] > STC_VERSION)
        return -1;
    uint64_t blen = stc_get_varint(&head);
    if (head.bad || blen > BODY_MAX(STC_CHUNK_ROWS))
        return -1;
    unsigned char *body = malloc(blen ? blen : 1);
    uLongf got = (uLongf)blen;
    int rc = -1;
    if (body && uncompress(body, &got, data + head.pos, (uLong)(len - head.pos)) == Z_OK &&
        got == blen) {
        stc_rbuf r = {body, blen, 0, 0};
        rc = decode_body(&r, data[0], rows, n);
    }
    free(body);
    return rc;
}
