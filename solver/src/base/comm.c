/* comm.c -- see comm.h */
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"

void slv_comm_gather_rows(const ircg_comm *c, const double *local, int n, int row0,
                          int total, int ncols, double *whole)
{
    memset(whole, 0, (size_t)total * (size_t)ncols * sizeof *whole);
    for (int j = 0; j < ncols; j++)
        memcpy(whole + (size_t)j * total + row0, local + (size_t)j * n,
               (size_t)n * sizeof *whole);
    slv_comm_sum(c, whole, (int64_t)total * ncols);
}

#define DIGEST_WORDS (sizeof(slv_digest) / 4)
#define STREAM_PIECE 8192 /* doubles per sum: on the stack, no allocation */

void slv_comm_pass_digest(const ircg_comm *c, slv_digest *h, int from)
{
    uint32_t w[DIGEST_WORDS];
    double v[DIGEST_WORDS];
    _Static_assert(sizeof(slv_digest) % 4 == 0, "the digest's state is whole words");
    memcpy(w, h, sizeof w);
    for (size_t i = 0; i < DIGEST_WORDS; i++)
        v[i] = c->rank == from ? (double)w[i] : 0.0;
    slv_comm_sum(c, v, (int64_t)DIGEST_WORDS);
    for (size_t i = 0; i < DIGEST_WORDS; i++)
        w[i] = (uint32_t)v[i];
    memcpy(h, w, sizeof w);
}

void slv_comm_stream_rows(const ircg_comm *c, const double *local, int64_t n, slv_sink *s)
{
    double piece[STREAM_PIECE];
    for (int r = 0; r < c->size; r++) {
        int64_t len = (int64_t)slv_comm_sum1(c, c->rank == r ? (double)n : 0.0);
        for (int64_t off = 0; off < len; off += STREAM_PIECE) {
            int64_t m = len - off < STREAM_PIECE ? len - off : STREAM_PIECE;
            if (c->rank == r)
                memcpy(piece, local + off, (size_t)m * sizeof *piece);
            else
                memset(piece, 0, (size_t)m * sizeof *piece);
            slv_comm_sum(c, piece, m);
            slv_sink_f64s(s, piece, (size_t)m);
        }
    }
}

/* Doubles per sum of the exact transports: 2 per value (its two 32-bit
 * words), so a piece carries half as many values. */
#define EXACT_PIECE 4096

void slv_comm_bcast_exact(const ircg_comm *c, int from, double *buf, int64_t len)
{
    double piece[EXACT_PIECE];
    if (!c || c->size < 2)
        return;
    for (int64_t off = 0; off < len; off += EXACT_PIECE / 2) {
        int64_t m = len - off < EXACT_PIECE / 2 ? len - off : EXACT_PIECE / 2;
        for (int64_t i = 0; i < m; i++) {
            uint64_t u = 0;
            if (c->rank == from)
                memcpy(&u, buf + off + i, 8);
            piece[2 * i] = (double)(uint32_t)u;
            piece[2 * i + 1] = (double)(uint32_t)(u >> 32);
        }
        slv_comm_sum(c, piece, 2 * m);
        for (int64_t i = 0; c->rank != from && i < m; i++) {
            uint64_t u = (uint64_t)piece[2 * i] | (uint64_t)piece[2 * i + 1] << 32;
            memcpy(buf + off + i, &u, 8);
        }
    }
}

/* ------------------------------------------------- a blob read whole -- */

/* Bytes per sum: 4 a double, and one double for rank 0's verdict. */
#define CSRC_WORDS 65536
#define CSRC_BYTES ((size_t)4 * (CSRC_WORDS - 1))

ircg_error slv_csrc_open(slv_csrc *s, const ircg_comm *c, ircg_read_fn get, void *ctx,
                         uint64_t len)
{
    *s = (slv_csrc){.c = c, .get = get, .ctx = ctx, .len = len};
    s->piece = c ? malloc(CSRC_WORDS * sizeof *s->piece) : NULL;
    s->bytes = malloc(CSRC_BYTES);
    double v[3] = {0, 0, (c && !s->piece) || !s->bytes};
    if (!c || c->rank == 0) { /* the length as two words, exactly */
        v[0] = (double)(uint32_t)len;
        v[1] = (double)(uint32_t)(len >> 32);
    }
    slv_comm_sum(c, v, 3);
    s->len = (uint64_t)v[0] | (uint64_t)v[1] << 32;
    if (v[2] > 0) { /* some rank has no buffer: none reads */
        slv_csrc_close(s);
        return IRCG_ERR_NOMEM;
    }
    return IRCG_OK;
}

void slv_csrc_close(slv_csrc *s)
{
    free(s->piece);
    free(s->bytes);
    s->piece = NULL;
    s->bytes = NULL;
}

/* Up to CSRC_BYTES bytes on every rank: rank 0 reads them, they cross
 * as words beside its verdict. */
static void csrc_piece(slv_csrc *s, unsigned char *out, size_t n)
{
    const ircg_comm *c = s->c;
    int ok = !s->failed && s->len - s->pos >= n;
    if (!c) {
        ok = ok && s->get(s->ctx, out, n) == 0;
    } else {
        size_t words = (n + 3) / 4;
        memset(s->piece, 0, (words + 1) * sizeof *s->piece);
        if (c->rank == 0) {
            ok = ok && s->get(s->ctx, out, n) == 0;
            for (size_t i = 0; ok && i < words; i++) {
                uint32_t w = 0;
                memcpy(&w, out + 4 * i, n - 4 * i < 4 ? n - 4 * i : 4);
                s->piece[i] = (double)w;
            }
            s->piece[words] = ok ? 0.0 : 1.0;
        }
        slv_comm_sum(c, s->piece, (int64_t)words + 1);
        ok = s->piece[words] == 0.0;
        for (size_t i = 0; ok && c->rank != 0 && i < words; i++) {
            uint32_t w = (uint32_t)s->piece[i];
            memcpy(out + 4 * i, &w, n - 4 * i < 4 ? n - 4 * i : 4);
        }
    }
    if (!ok) {
        s->failed = 1;
        memset(out, 0, n);
    }
    s->pos += n;
}

void slv_csrc_bytes(slv_csrc *s, void *out, size_t n)
{
    unsigned char *o = out;
    for (size_t at = 0; at < n; at += CSRC_BYTES)
        csrc_piece(s, o + at, n - at < CSRC_BYTES ? n - at : CSRC_BYTES);
}

void slv_csrc_copy(slv_csrc *s, size_t n, slv_buf *out)
{
    for (size_t at = 0; at < n; at += CSRC_BYTES) {
        size_t m = n - at < CSRC_BYTES ? n - at : CSRC_BYTES;
        csrc_piece(s, s->bytes, m);
        slv_buf_put_raw(out, s->bytes, m);
    }
}

void slv_csrc_rows(slv_csrc *s, int64_t total, int64_t from, int64_t n, slv_buf *out)
{
    const int64_t per = (int64_t)(CSRC_BYTES / 8);
    unsigned char *tmp = s->bytes;
    for (int64_t at = 0; at < total; at += per) {
        int64_t m = total - at < per ? total - at : per;
        csrc_piece(s, tmp, (size_t)m * 8);
        /* the part of [at, at + m) in [from, from + n) */
        int64_t lo = from > at ? from : at, hi = from + n < at + m ? from + n : at + m;
        if (lo < hi)
            slv_buf_put_raw(out, tmp + (lo - at) * 8, (size_t)(hi - lo) * 8);
    }
}
