/* comm.c -- see comm.h */
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
