/*
 * store_trace_codec.h -- trace rows as compressed columnar chunks
 * (internal to storage/): what a row of the trace_chunks table holds.
 *
 * A chunk is at most STC_CHUNK_ROWS rows of one job in ascending
 * iteration order, encoded losslessly (every double's 64 bits, NaN as the
 * one quiet NaN that stands for "unknown"):
 *
 *   u8      version (1)
 *   varint  length of the body below, before compression
 *   zlib    the body (level 6: 9 saves 0.5% at three times the time):
 *     varint  n, the rows
 *     varint  the first iteration, then n - 1 increments (each >= 1)
 *     5 integer columns (lmo_matvecs, rank, lmo_converged, backtracks,
 *       proj_full; -1 = unknown), each as n zigzag varints of the
 *       difference with the previous row's value (0 before the first)
 *     13 double columns (elapsed, sigma, alpha, g_x, f_x, g_z, f_z, gap,
 *       g_gap_x, g_gap_z, lmo_seconds, top_sv, lambda), each as
 *       u8 its predictor, then n 64-bit words: the value's bits XOR the
 *       bits of its prediction, stored byte plane by byte plane (the n
 *       lowest bytes first, little-endian), so that the leading bytes
 *       the XOR zeroes compress to nothing.
 *
 * The predictors, from the two previous values a (the last) and b of the
 * column, in IEEE-754 double arithmetic, which is the same on every
 * machine: 0 -- a; 1 -- 2a - b (smooth sequences); 2 -- 1 / (2/a - 1/b)
 * (reciprocals of linear ones: open-loop steps 2/(t+2)).  When a value
 * involved or the prediction is not finite, or fewer than two values
 * precede, the prediction is a (0 before the first row).  The encoder
 * picks, per column and chunk, the predictor that leaves the fewest
 * significant bits.
 */
#ifndef IRCG_STORE_TRACE_CODEC_H
#define IRCG_STORE_TRACE_CODEC_H

#include <stddef.h>

#include "store.h"

#define STC_CHUNK_ROWS 256

/* Encodes n (1..STC_CHUNK_ROWS) rows, ascending by iteration, into a
 * malloc'ed buffer.  0, or -1 when out of memory. */
int stc_encode(const store_trace_row *rows, size_t n, unsigned char **out,
               size_t *len);

/* Decodes a chunk into rows (room for STC_CHUNK_ROWS); *n rows.  0, or -1
 * when the bytes are not a chunk this build reads. */
int stc_decode(const unsigned char *data, size_t len, store_trace_row *rows,
               size_t *n);

#endif /* IRCG_STORE_TRACE_CODEC_H */
