/*
 * fuzz_trace_chunk.c -- the decoder of the trace's compressed columnar
 * chunks (stc_decode, storage/store_trace_codec.h), which reads whatever
 * the trace_chunks table holds: a store damaged on disk or written by
 * another build must give a clean refusal, never a crash or rows that do
 * not hold together.
 *
 * What any input is owed: -1, or 1..STC_CHUNK_ROWS rows with strictly
 * ascending non-negative iterations that encode again and decode to the
 * same rows, every value bit for bit (any NaN reads back as NaN: unknown).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "store_trace_codec.h"

static int same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static int same_row(const store_trace_row *a, const store_trace_row *b)
{
    const double da[] = {a->elapsed, a->sigma, a->alpha, a->g_x, a->f_x, a->g_z, a->f_z,
                         a->gap, a->g_gap_x, a->g_gap_z, a->lmo_seconds, a->top_sv, a->lambda};
    const double db[] = {b->elapsed, b->sigma, b->alpha, b->g_x, b->f_x, b->g_z, b->f_z,
                         b->gap, b->g_gap_x, b->g_gap_z, b->lmo_seconds, b->top_sv, b->lambda};
    int same = a->iteration == b->iteration && a->lmo_matvecs == b->lmo_matvecs &&
               a->rank == b->rank && a->lmo_converged == b->lmo_converged &&
               a->backtracks == b->backtracks && a->proj_full == b->proj_full;
    for (size_t i = 0; i < sizeof da / sizeof da[0]; i++)
        same = same && same_double(da[i], db[i]);
    return same;
}

FUZZ_TARGET(trace_chunk)
{
    static store_trace_row rows[STC_CHUNK_ROWS], again[STC_CHUNK_ROWS];
    size_t n = 0, m = 0;
    unsigned char *enc = NULL;
    size_t len = 0;
    if (stc_decode(data, size, rows, &n) != 0)
        return 0;
    FUZZ_CHECK(n >= 1 && n <= STC_CHUNK_ROWS);
    FUZZ_CHECK(rows[0].iteration >= 0);
    for (size_t i = 1; i < n; i++)
        FUZZ_CHECK(rows[i].iteration > rows[i - 1].iteration);
    FUZZ_CHECK(stc_encode(rows, n, &enc, &len) == 0);
    FUZZ_CHECK(enc == NULL || stc_decode(enc, len, again, &m) == 0);
    FUZZ_CHECK(m == n);
    for (size_t i = 0; i < n && i < m; i++)
        FUZZ_CHECK(same_row(&rows[i], &again[i]));
    free(enc);
    return 0;
}
