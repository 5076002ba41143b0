/*
 * fuzz_csv.c -- the csv ratings reader through ircg_ratings_read_buffer
 * (what it owes any input: fuzz_ratings.h).
 */
#include "fuzz_ratings.h"

FUZZ_TARGET(csv)
{
    return fuzz_ratings(data, size, IRCG_FORMAT_CSV);
}
