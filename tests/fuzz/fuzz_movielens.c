/*
 * fuzz_movielens.c -- the movielens ratings reader through ircg_ratings_read_buffer
 * (what it owes any input: fuzz_ratings.h).
 */
#include "fuzz_ratings.h"

FUZZ_TARGET(movielens)
{
    return fuzz_ratings(data, size, IRCG_FORMAT_MOVIELENS);
}
