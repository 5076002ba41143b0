/*
 * fuzz_vector.c -- the vector reader (a right-hand side b) through
 * ircg_vector_read_buffer: a clean error with a message, or n >= 1 finite
 * values.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "ircg.h"

FUZZ_TARGET(vector)
{
    double *v = NULL;
    int64_t n = 0;
    ircg_diag d;
    memset(&d, 0, sizeof d);
    if (ircg_vector_read_buffer((const char *)data, size, &v, &n, &d) == IRCG_OK) {
        FUZZ_CHECK(v != NULL && n >= 1);
        for (int64_t i = 0; v && i < n; i++)
            FUZZ_CHECK(isfinite(v[i]));
    } else {
        FUZZ_CHECK(d.message[0] != '\0');
    }
    free(v);
    return 0;
}
