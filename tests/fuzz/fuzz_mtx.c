/*
 * fuzz_mtx.c -- the mtx ratings reader through ircg_ratings_read_buffer
 * (what it owes any input: fuzz_ratings.h).
 */
#include "fuzz_ratings.h"

FUZZ_TARGET(mtx)
{
    return fuzz_ratings(data, size, IRCG_FORMAT_MATRIX_MARKET);
}
