/*
 * fuzz_ratings.c -- see fuzz_ratings.h.
 */
#include "fuzz_ratings.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sorting (row, col) keys finds a duplicate pair in O(nnz log nnz). */
static int cmp_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void check_ratings(const ircg_ratings *r, const ircg_read_options *ro)
{
    /* Matrix Market may declare no entry at all (a zero matrix A); the
     * other formats need one rating */
    FUZZ_CHECK(r->nnz > 0 || (ro->format == IRCG_FORMAT_MATRIX_MARKET && r->nnz == 0));
    FUZZ_CHECK(r->n_rows > 0 && r->n_cols > 0);
    FUZZ_CHECK(ro->n_rows == 0 || r->n_rows == ro->n_rows);
    FUZZ_CHECK(ro->n_cols == 0 || r->n_cols == ro->n_cols);
    uint64_t *keys = malloc((size_t)(r->nnz ? r->nnz : 1) * sizeof *keys);
    if (!keys)
        return;
    for (int64_t i = 0; i < r->nnz; i++) {
        FUZZ_CHECK(r->row[i] >= 0 && r->row[i] < r->n_rows);
        FUZZ_CHECK(r->col[i] >= 0 && r->col[i] < r->n_cols);
        FUZZ_CHECK(isfinite(r->val[i]));
        keys[i] = (uint64_t)(uint32_t)r->row[i] << 32 | (uint32_t)r->col[i];
    }
    qsort(keys, (size_t)r->nnz, sizeof *keys, cmp_key);
    for (int64_t i = 1; i < r->nnz; i++)
        FUZZ_CHECK(keys[i] != keys[i - 1]);
    free(keys);
}

int fuzz_ratings(const uint8_t *data, size_t size, ircg_ratings_format format)
{
    ircg_read_options ro = {format, 0, 0};
    ircg_ratings *r = NULL;
    ircg_diag d;
    memset(&d, 0, sizeof d);
    if (size >= 3 && data[0] == 0xff) {
        ro.n_rows = data[1];
        ro.n_cols = data[2];
        data += 3;
        size -= 3;
    }
    ircg_error err = ircg_ratings_read_buffer((const char *)data, size, &ro, &r, &d);
    if (err == IRCG_OK) {
        FUZZ_CHECK(r != NULL);
        if (r)
            check_ratings(r, &ro);
    } else {
        FUZZ_CHECK(r == NULL);
        FUZZ_CHECK(d.message[0] != '\0');
        FUZZ_CHECK(memchr(d.message, '\0', sizeof d.message) != NULL);
    }
    ircg_ratings_free(r);
    return 0;
}
