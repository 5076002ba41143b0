/*
 * test_synth_rows.c -- the row-by-row generator of large synthetic
 * instances (inputs/synth_rows.c): the same ratings for 1, 2, 3 and 8
 * threads (bit for bit, pinned by a checksum), a well-formed instance
 * (row-major, columns ascending and distinct, every row and column rated,
 * equal shares +-1, values on the scale, the ratings those of the
 * factors), and through the public function at 2^22 ratings.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "inputs/synth.h"

static uint64_t fnv(const ircg_ratings *r)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int64_t k = 0; k < r->nnz; k++) {
        uint64_t w[3] = {(uint64_t)r->row[k], (uint64_t)r->col[k],
                         (uint64_t)(int64_t)(4 * r->val[k])};
        for (int q = 0; q < 3; q++)
            for (int b = 0; b < 8; b++)
                h = (h ^ ((w[q] >> (8 * b)) & 0xFF)) * 0x100000001b3ULL;
    }
    return h;
}

static int same(const ircg_ratings *a, const ircg_ratings *b)
{
    size_t n = (size_t)a->nnz;
    return a->nnz == b->nnz && !memcmp(a->row, b->row, n * 4) &&
           !memcmp(a->col, b->col, n * 4) && !memcmp(a->val, b->val, n * 8);
}

/* Row-major, ascending distinct columns, every row and column rated, the
 * shares beyond the cover equal +-1, the values those of the factors
 * (without noise) on the scale. */
static void check_instance(const ircg_ratings *R, const ircg_synth_ratings_spec *s,
                           const double *U, const double *V)
{
    int n = s->n_rows, p = s->n_cols, bad = 0;
    int64_t *per_row = calloc((size_t)n, sizeof *per_row);
    int64_t *per_col = calloc((size_t)p, sizeof *per_col);
    synth_scale sc = synth_scale_of(s);
    for (int64_t k = 0; k < R->nnz; k++) {
        bad += R->row[k] < 0 || R->row[k] >= n || R->col[k] < 0 || R->col[k] >= p;
        if (bad)
            break;
        if (k > 0)
            bad += R->row[k] < R->row[k - 1] ||
                   (R->row[k] == R->row[k - 1] && R->col[k] <= R->col[k - 1]);
        per_row[R->row[k]]++;
        per_col[R->col[k]]++;
        double v = R->val[k];
        bad += v != floor(v) || v < s->min_rating || v > s->max_rating;
        if (s->noise == 0) /* independent: the formula of synth.c's header */
            bad += v != synth_rating(&sc, U + (size_t)R->row[k] * s->rank,
                                     V + (size_t)R->col[k] * s->rank, 0);
    }
    CHECK_INT(bad, 0);
    int64_t lo = INT64_MAX, hi = 0;
    for (int i = 0; i < n; i++) {
        lo = per_row[i] < lo ? per_row[i] : lo;
        hi = per_row[i] > hi ? per_row[i] : hi;
    }
    for (int j = 0; j < p; j++)
        bad += per_col[j] == 0;
    CHECK(lo >= 1 && hi - lo <= 1 + (p + n - 1) / n); /* cover cells vary when n < p */
    CHECK_INT(bad, 0);
    free(per_row);
    free(per_col);
}

static double *factor(int rows, int r, uint64_t seed)
{
    double *F = malloc((size_t)rows * r * sizeof *F);
    for (int64_t i = 0; i < (int64_t)rows * r; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        F[i] = (double)(int64_t)(seed >> 40) / (double)(1 << 23) - 1.0;
    }
    return F;
}

TEST(synth_rows, threads_do_not_change_the_ratings)
{
    static const ircg_synth_ratings_spec specs[] = {
        {5000, 300, 4, 100000, 1, 5, 0.5, 7, 0}, /* tall, noise       */
        {200, 3000, 3, 60000, 1, 5, 0, 9, 0},    /* wide, n < p       */
    };
    for (size_t t = 0; t < sizeof specs / sizeof specs[0]; t++) {
        ircg_synth_ratings_spec s = specs[t];
        double *U = factor(s.n_rows, s.rank, 1), *V = factor(s.n_cols, s.rank, 2);
        ircg_ratings *ref = NULL;
        for (int th = 1; th <= 8; th += th < 3 ? 1 : 5) {
            ircg_ratings *R = ircg_ratings_new(s.n_rows, s.n_cols, s.n_ratings);
            REQUIRE(R);
            s.threads = th;
            CHECK(synth_rows(&s, U, V, R, NULL) == IRCG_OK);
            if (!ref) {
                ref = R;
                check_instance(R, &s, U, V);
                continue;
            }
            CHECK(same(ref, R));
            ircg_ratings_free(R);
        }
        if (t == 0) /* the same on every machine */
            CHECK(fnv(ref) == 0xe696195a022e458aULL);
        ircg_ratings_free(ref);
        free(U);
        free(V);
    }
}

TEST(synth_rows, the_public_generator_at_four_million)
{
    ircg_synth_ratings_spec s = {40000, 2000, 5, INT64_C(1) << 22, 1, 5, 0.5, 3, 1};
    ircg_ratings *a = NULL, *b = NULL;
    CHECK(synth_by_rows(&s));
    s.n_ratings--;
    CHECK(!synth_by_rows(&s)); /* below 2^22: the one-thread generator */
    s.n_ratings++;
    CHECK(ircg_synth_ratings(&s, &a, NULL) == IRCG_OK);
    s.threads = 2;
    CHECK(ircg_synth_ratings(&s, &b, NULL) == IRCG_OK);
    REQUIRE(a && b);
    CHECK_INT(a->nnz, INT64_C(1) << 22);
    CHECK(same(a, b));
    ircg_ratings_free(a);
    ircg_ratings_free(b);
}
