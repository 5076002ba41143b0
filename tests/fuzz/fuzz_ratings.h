/*
 * fuzz_ratings.h -- what the ratings readers owe any input, shared by the
 * per-format targets (fuzz_movielens.c, fuzz_udata.c, fuzz_csv.c,
 * fuzz_mtx.c): through the public buffer entry point, either a clean
 * error with a message, or ratings whose every index is inside the
 * dimensions, every value finite, and no (row, col) pair twice; and the
 * same outcome read by one thread or by four.
 */
#ifndef IRCG_FUZZ_RATINGS_H
#define IRCG_FUZZ_RATINGS_H

#include "fuzz.h"
#include "ircg.h"

/* Reads data in `format`.  An input that starts with byte 0xff gives the
 * dimensions in its next two bytes (then the file), so the "given
 * dimensions" paths are fuzzed too. */
int fuzz_ratings(const uint8_t *data, size_t size, ircg_ratings_format format);

#endif /* IRCG_FUZZ_RATINGS_H */
