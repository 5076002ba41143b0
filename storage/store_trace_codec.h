/*
 * store_trace_codec.h -- trace rows as compressed columnar chunks
 * (internal to storage/): what a row of the trace_chunks table holds.
 *
 * A chunk is at most STC_CHUNK_ROWS rows of one job in ascending
 * iteration order, encoded losslessly: every double's 64 bits come back
 * (-0.0, infinities, subnormals, and a NaN's sign and payload included;
 * chunks written before payloads were kept hold every NaN as the quiet
 * NaN 0x7ff8000000000000, and version 1 does).
 *
 *   u8      version: 3 (written), 2 and 1 (still read; 1's doubles by
 *           store_trace_codec_v1.c)
 *   varint  length of the body below, before compression
 *   zlib    the body (level 6):
 *     varint  n, the rows
 *     varint  the first iteration, then n - 1 increments (each >= 1)
 *     6 integer columns (lmo_matvecs, rank, lmo_converged, backtracks,
 *       proj_full, certified; -1 = unknown), each as n zigzag varints of
 *       the difference with the previous row's value (0 before the first)
 *     17 double columns (elapsed, sigma, alpha, g_x, f_x, g_z, f_z, gap,
 *       g_gap_x, g_gap_z, lmo_seconds, top_sv, lambda, inner_gap_x,
 *       inner_gap_z, g_lower, f_lower), each as u8 its method, then what
 *       the method stores (store_trace_doubles.c).  Versions 1 and 2
 *       have the first 5 integer and 13 double columns only; their rows
 *       read back certified = -1 and the bounds NaN:
 *
 *   method 0..15, extrapolation (any column): stride s = 1 + method / 8,
 *     order o = 1 + method % 8.  Each row's residual is
 *     zigzag(bits(x) - bits(prediction)), the difference of the 64-bit
 *     patterns modulo 2^64.  The first w = min(n, s o) rows (whose
 *     prediction has fewer than o values to go on) as w varints; then u8
 *     k and the other rows as the k low byte planes of their residuals
 *     (the lowest bytes of all rows first), so that the leading bytes the
 *     prediction zeroes are not stored at all.  The prediction
 *     of row i is the polynomial of degree o' - 1 through the o' values
 *     x[i-s], x[i-2s], ..., x[i-o's] (o' = min(o, i / s)), extrapolated to
 *     i in Newton's backward form: x[i-s] + D1 + D2 + ... + D(o'-1), the
 *     D's the backward differences at i-s, computed by subtractions and
 *     additions only -- IEEE-754 rounding, no multiplication a compiler
 *     could fuse, so any conforming machine gets the same bits.  When
 *     o' = 0 it is x[i-1]; when an input is not finite, or neither zero
 *     nor of magnitude in [2^-900, 2^900] (so no difference is subnormal
 *     and nothing overflows, whatever the FPU's flush-to-zero mode), it
 *     is x[i-s].  Stride 2 follows the zigzags of Frank-Wolfe methods,
 *     whose values alternate between two smooth sequences.
 *
 *   method 16, clock ticks (elapsed, lmo_seconds): the values come from
 *     differences of clock_gettime readings made doubles, so they are all
 *     integer multiples m of one power of two 2^e (2^-39 s while the
 *     monotonic clock reads 2^13..2^14 s).  varint zigzag(e), then per
 *     row the tick difference dm = m[i] - m[i-1] (m[-1] = 0) as
 *     integer nanoseconds: n zigzag varints of k = the nanoseconds of dm,
 *     then n zigzag varints of dm - ticks(k), ticks(k) = llround(k * 2^-e
 *     / 1e9) in IEEE arithmetic (when 2^e >= 1 ns, k = dm and no
 *     corrections follow).  The nanoseconds are exactly what the clock
 *     resolves, the corrections (mostly 0 and +-1) the rounding of
 *     its readings to doubles: together every bit of the value.  Used
 *     only when every value of the column is finite, not -0.0, and its
 *     m fits 62 bits.
 *
 * The encoder tries the methods a column allows and keeps the one whose
 * stored bits are fewest (ties: the lower method).
 */
#ifndef IRCG_STORE_TRACE_CODEC_H
#define IRCG_STORE_TRACE_CODEC_H

#include <stddef.h>

#include "store.h"

#define STC_CHUNK_ROWS 256

/* Column classes, for the size report of the storage benchmark. */
enum {
    STC_SEC_ITERATION,
    STC_SEC_INTEGERS,
    STC_SEC_TIMING,     /* elapsed, lmo_seconds */
    STC_SEC_SCHEDULE,   /* sigma, alpha */
    STC_SEC_OBJECTIVE,  /* g_x, f_x, g_z, f_z, gap */
    STC_SEC_OTHER,      /* g_gap_x, g_gap_z, top_sv, lambda, the bounds */
    STC_NSEC
};

/* Encodes n (1..STC_CHUNK_ROWS) rows, ascending by iteration, into a
 * malloc'ed buffer.  0, or -1 when out of memory. */
int stc_encode(const store_trace_row *rows, size_t n, unsigned char **out,
               size_t *len);

/* Decodes a chunk into rows (room for STC_CHUNK_ROWS); *n rows.  0, or -1
 * when the bytes are not a chunk this build reads. */
int stc_decode(const unsigned char *data, size_t len, store_trace_row *rows,
               size_t *n);

/* For measurements: adds to bytes[c] the size of column class c of the
 * chunk that stc_encode makes of these rows, each class's part of the
 * body compressed alone.  0, or -1 when out of memory. */
int stc_class_bytes(const store_trace_row *rows, size_t n, size_t bytes[STC_NSEC]);

#endif /* IRCG_STORE_TRACE_CODEC_H */
