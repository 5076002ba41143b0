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

/* The same outcome: both failed with the same message, or both read the
 * same ratings. */
static void check_same(ircg_error e1, const ircg_ratings *a, const ircg_diag *d1,
                       ircg_error e2, const ircg_ratings *b, const ircg_diag *d2)
{
    FUZZ_CHECK(e1 == e2);
    if (e1 != IRCG_OK || e2 != IRCG_OK || !a || !b) {
        FUZZ_CHECK(e1 == IRCG_OK || strcmp(d1->message, d2->message) == 0);
        return;
    }
    FUZZ_CHECK(a->n_rows == b->n_rows && a->n_cols == b->n_cols && a->nnz == b->nnz);
    if (a->nnz != b->nnz)
        return;
    size_t n = (size_t)a->nnz;
    FUZZ_CHECK(n == 0 || (!memcmp(a->row, b->row, n * sizeof *a->row) &&
                          !memcmp(a->col, b->col, n * sizeof *a->col) &&
                          !memcmp(a->val, b->val, n * sizeof *a->val)));
}

int fuzz_ratings(const uint8_t *data, size_t size, ircg_ratings_format format)
{
    ircg_read_options ro = {.format = format, .threads = 1};
    ircg_ratings *r = NULL, *r4 = NULL;
    ircg_diag d, d4;
    memset(&d, 0, sizeof d);
    memset(&d4, 0, sizeof d4);
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
    /* the readers may split the work: the outcome never depends on it */
    ro.threads = 4;
    ircg_error err4 = ircg_ratings_read_buffer((const char *)data, size, &ro, &r4, &d4);
    check_same(err, r, &d, err4, r4, &d4);
    ircg_ratings_free(r);
    ircg_ratings_free(r4);
    return 0;
}
