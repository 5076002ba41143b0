/*
 * test_synth.c -- the deterministic generators: same seed same output,
 * distinct cells, coverage of rows and columns, integral ratings in range,
 * validation naming the member, the MovieLens size in well under a second,
 * and hard-coded checksums that catch any change of the generator.
 */
/* make test-kernels: synth. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "inputs/synth.h"
#include "ircg.h"
#include "base/rng.h"

static ircg_synth_ratings_spec small_spec(uint64_t seed)
{
    return (ircg_synth_ratings_spec){.n_rows = 40, .n_cols = 25, .rank = 3,
                                     .n_ratings = 300, .min_rating = 1,
                                     .max_rating = 5, .noise = 0.5,
                                     .seed = seed};
}

static ircg_ratings *gen(const ircg_synth_ratings_spec *s)
{
    ircg_ratings *r = NULL;
    ircg_diag d = {0};
    if (ircg_synth_ratings(s, &r, &d) != IRCG_OK)
        th_fail(__FILE__, __LINE__, "synth: %s %s", d.field, d.message);
    return r;
}

static int same(const ircg_ratings *a, const ircg_ratings *b)
{
    size_t n = (size_t)a->nnz;
    return a->nnz == b->nnz && a->n_rows == b->n_rows && a->n_cols == b->n_cols &&
           !memcmp(a->row, b->row, n * sizeof *a->row) &&
           !memcmp(a->col, b->col, n * sizeof *a->col) &&
           !memcmp(a->val, b->val, n * sizeof *a->val);
}

/* FNV-1a over the entries, values as exact integers times 4. */
static uint64_t checksum(const ircg_ratings *r)
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

/* Distinct cells, every row and column covered (when n_ratings allows),
 * integral values in range. */
static void check_shape(const ircg_ratings *r, const ircg_synth_ratings_spec *s)
{
    int64_t cells = (int64_t)s->n_rows * s->n_cols, bad = 0, dup = 0;
    unsigned char *seen = calloc((size_t)cells, 1);
    int *rows = calloc((size_t)s->n_rows, sizeof *rows);
    int *cols = calloc((size_t)s->n_cols, sizeof *cols);
    REQUIRE(seen && rows && cols);
    CHECK_INT(r->nnz, s->n_ratings);
    for (int64_t k = 0; k < r->nnz; k++) {
        int i = r->row[k], j = r->col[k];
        double v = r->val[k];
        if (i < 0 || i >= s->n_rows || j < 0 || j >= s->n_cols) {
            bad++;
            continue;
        }
        dup += seen[(int64_t)i * s->n_cols + j]++ > 0;
        rows[i]++;
        cols[j]++;
        bad += !(v >= s->min_rating && v <= s->max_rating) ||
               v - s->min_rating != (double)(int64_t)(v - s->min_rating);
    }
    CHECK_INT(bad, 0);
    CHECK_INT(dup, 0);
    int big = s->n_rows > s->n_cols ? s->n_rows : s->n_cols;
    if (s->n_ratings >= big) {
        int empty = 0;
        for (int i = 0; i < s->n_rows; i++)
            empty += rows[i] == 0;
        for (int j = 0; j < s->n_cols; j++)
            empty += cols[j] == 0;
        CHECK_INT(empty, 0);
    }
    free(seen);
    free(rows);
    free(cols);
}

TEST(synth, deterministic_and_well_formed)
{
    ircg_synth_ratings_spec s = small_spec(42);
    ircg_ratings *a = gen(&s), *b = gen(&s);
    s.seed = 43;
    ircg_ratings *c = gen(&s);
    REQUIRE(a && b && c);
    CHECK(same(a, b));
    CHECK(!same(a, c));
    CHECK_INT(a->n_rows, 40);
    CHECK_INT(a->n_cols, 25);
    check_shape(a, &s);
    check_shape(c, &s);
    /* every value of the scale occurs: the scaling is not degenerate */
    int hist[6] = {0};
    for (int64_t k = 0; k < a->nnz; k++)
        hist[(int)a->val[k]]++;
    for (int v = 1; v <= 5; v++)
        CHECK(hist[v] > 0);
    ircg_ratings_free(a);
    ircg_ratings_free(b);
    ircg_ratings_free(c);
}

TEST(synth, shapes_dense_sparse_and_scales)
{
    static const ircg_synth_ratings_spec specs[] = {
        {7, 5, 2, 35, 1, 5, 0, 1, 0},      /* every cell                       */
        {7, 5, 2, 30, 1, 5, 0.1, 2, 0},    /* dense: selection sampling        */
        {60, 3, 3, 60, 0, 10, 1, 3, 0},    /* tall, exactly max(n, p) ratings  */
        {3, 80, 1, 100, 0.5, 5, 0, 4, 0},  /* wide, half-star offset scale     */
        {50, 50, 5, 20, -2, 2, 2, 5, 0},   /* too few to cover: no coverage    */
        {1, 1, 1, 1, 1, 5, 0, 6, 0},
    };
    for (size_t t = 0; t < sizeof specs / sizeof specs[0]; t++) {
        ircg_ratings *r = gen(&specs[t]);
        if (!r)
            continue;
        check_shape(r, &specs[t]);
        ircg_ratings_free(r);
    }
}

TEST(synth, validation_names_the_member)
{
    static const struct {
        const char *field;
        ircg_synth_ratings_spec s;
    } bad[] = {
        {"/n_rows", {0, 5, 1, 3, 1, 5, 0, 1, 0}},
        {"/n_cols", {5, -1, 1, 3, 1, 5, 0, 1, 0}},
        {"/rank", {5, 4, 0, 3, 1, 5, 0, 1, 0}},
        {"/rank", {5, 4, 5, 3, 1, 5, 0, 1, 0}},
        {"/n_ratings", {5, 4, 1, 0, 1, 5, 0, 1, 0}},
        {"/n_ratings", {5, 4, 1, 21, 1, 5, 0, 1, 0}},
        {"/min_rating", {5, 4, 1, 3, NAN, 5, 0, 1, 0}},
        {"/max_rating", {5, 4, 1, 3, 5, 5, 0, 1, 0}},
        {"/max_rating", {5, 4, 1, 3, 1, INFINITY, 0, 1, 0}},
        {"/noise", {5, 4, 1, 3, 1, 5, -1, 1, 0}},
        {"/noise", {5, 4, 1, 3, 1, 5, NAN, 1, 0}},
    };
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
        ircg_ratings *r = NULL;
        ircg_diag d = {0};
        CHECK_INT(ircg_synth_ratings(&bad[t].s, &r, &d), IRCG_ERR_INVALID);
        CHECK(r == NULL);
        CHECK_STR(d.field, bad[t].field);
        CHECK(d.message[0] != '\0');
    }
    ircg_diag d = {0};
    ircg_synth_ratings_spec s = small_spec(1);
    s.n_ratings = 1001;
    ircg_ratings *r = NULL;
    ircg_synth_ratings(&s, &r, &d);
    CHECK(strstr(d.message, "n_rows * n_cols = 1000"));
}

/* These constants pin the generator (rng.c and synth.c): if a change of
 * either breaks this test on purpose, every stored synthetic data set and
 * benchmark changes too; update them only knowingly. */
TEST(synth, checksum_pins_the_generator)
{
    ircg_synth_ratings_spec s = small_spec(2024);
    ircg_ratings *r = gen(&s);
    REQUIRE(r);
    CHECK(checksum(r) == 8367325775018236515ULL);
    ircg_ratings_free(r);
    slv_rng g;
    slv_rng_seed(&g, 7, 0);
    CHECK(slv_rng_next(&g) == 0x4c06c1080caa5417ULL);
    double *A = NULL, *b = NULL;
    CHECK_INT(ircg_synth_least_squares(3, 2, 0.1, 9, &A, &b, NULL), IRCG_OK);
    REQUIRE(A && b);
    CHECK_NEAR(A[0], -0x1.b9c0cd48p-2, 0);
    CHECK_NEAR(b[2], -0x1.1206043fbd085p+0, 0);
    free(A);
    free(b);
}

TEST(synth, movielens_size_is_fast)
{
    ircg_synth_ratings_spec s = {6040, 3952, 10, 1000209, 1, 5, 0.5, 1, 0};
    double t0 = (double)clock() / CLOCKS_PER_SEC;
    ircg_ratings *r = gen(&s);
    double secs = (double)clock() / CLOCKS_PER_SEC - t0;
    REQUIRE(r);
    check_shape(r, &s);
    CHECK(secs < 2.0); /* about 0.1 s at -O2; generous for sanitizers */
    ircg_ratings_free(r);
}

TEST(synth, normals_have_unit_moments)
{
    slv_rng g;
    slv_rng_seed(&g, 123, 5);
    double s1 = 0, s2 = 0, s4 = 0;
    int n = 200000;
    for (int i = 0; i < n; i++) {
        double z = slv_rng_normal(&g);
        s1 += z;
        s2 += z * z;
        s4 += z * z * z * z;
    }
    CHECK_NEAR(s1 / n, 0.0, 0.01);
    CHECK_NEAR(s2 / n, 1.0, 0.01);
    CHECK_NEAR(s4 / n, 2.9, 0.05); /* Irwin-Hall(12): kurtosis 3 - 0.1 */
    for (int i = 0; i < 1000; i++) {
        uint64_t k = slv_rng_below(&g, 7);
        CHECK(k < 7);
        double u = slv_rng_uniform(&g);
        CHECK(u >= 0 && u < 1);
    }
}

TEST(synth, least_squares)
{
    double *A = NULL, *b = NULL, *A2 = NULL, *b2 = NULL;
    ircg_diag d = {0};
    CHECK_INT(ircg_synth_least_squares(0, 3, 0, 1, &A, &b, &d), IRCG_ERR_INVALID);
    CHECK_STR(d.field, "/m");
    CHECK(A == NULL && b == NULL);
    CHECK_INT(ircg_synth_least_squares(3, 0, 0, 1, &A, &b, &d), IRCG_ERR_INVALID);
    CHECK_STR(d.field, "/n");
    CHECK_INT(ircg_synth_least_squares(3, 3, -1, 1, &A, &b, &d), IRCG_ERR_INVALID);
    CHECK_STR(d.field, "/noise");
    CHECK_INT(ircg_synth_least_squares(30, 50, 0.1, 5, &A, &b, &d), IRCG_OK);
    CHECK_INT(ircg_synth_least_squares(30, 50, 0.1, 5, &A2, &b2, &d), IRCG_OK);
    REQUIRE(A && b && A2 && b2);
    CHECK(!memcmp(A, A2, 30 * 50 * sizeof *A));
    CHECK(!memcmp(b, b2, 30 * sizeof *b));
    double s2 = 0;
    for (int i = 0; i < 30 * 50; i++)
        s2 += A[i] * A[i];
    CHECK_NEAR(s2 / 1500, 1.0, 0.15);
    free(A);
    free(b);
    free(A2);
    free(b2);
}

/* ------------------------------------------------ large instances --
 * The row-by-row generator (inputs/synth_rows.c): the same ratings for 1,
 * 2, 3 and 8 threads (bit for bit, pinned by a checksum), a well-formed
 * instance (row-major, columns ascending and distinct, every row and
 * column rated, equal shares +-1, values on the scale, the ratings those
 * of the factors), and through the public function at 2^22 ratings. */

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
            ircg_ratings *R = NULL;
            s.threads = th;
            CHECK(synth_rows(&s, 0, s.n_rows, U, V, &R, NULL) == IRCG_OK);
            REQUIRE(R);
            if (!ref) {
                ref = R;
                check_instance(R, &s, U, V);
                continue;
            }
            CHECK(same(ref, R));
            ircg_ratings_free(R);
        }
        if (t == 0) /* the same on every machine */
            CHECK(checksum(ref) == 0xe696195a022e458aULL);
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

/* The rows of a distributed solve's ranks: cut anywhere (inside blocks of
 * the large generator, or the small one filtered), the parts put end to
 * end are the whole instance, and the row counts are its rows' sizes. */
static void check_parts(const ircg_synth_ratings_spec *s, const int *cuts, int nparts)
{
    ircg_ratings *all = NULL;
    int64_t *counts = malloc((size_t)s->n_rows * sizeof *counts), at = 0;
    REQUIRE(counts);
    REQUIRE(ircg_synth_ratings(s, &all, NULL) == IRCG_OK);
    REQUIRE(ircg_synth_row_counts(s, counts, NULL) == IRCG_OK);
    int64_t *seen = calloc((size_t)s->n_rows, sizeof *seen);
    REQUIRE(seen);
    for (int64_t e = 0; e < all->nnz; e++)
        seen[all->row[e]]++;
    int same_counts = 1;
    for (int i = 0; i < s->n_rows; i++)
        same_counts &= seen[i] == counts[i];
    CHECK(same_counts);
    for (int k = 0; k < nparts; k++) {
        ircg_ratings *R = NULL;
        REQUIRE(ircg_synth_ratings_rows(s, cuts[k], cuts[k + 1], &R, NULL) == IRCG_OK);
        int ok = 1;
        for (int64_t e = 0; e < R->nnz; e++) { /* the whole's entries of those rows, in order */
            while (at < all->nnz && (all->row[at] < cuts[k] || all->row[at] >= cuts[k + 1]))
                at++;
            ok &= at < all->nnz && all->row[at] == R->row[e] && all->col[at] == R->col[e] &&
                  all->val[at] == R->val[e];
            at++;
        }
        int64_t want = 0;
        for (int i = cuts[k]; i < cuts[k + 1]; i++)
            want += counts[i];
        CHECK(ok);
        CHECK(R->nnz == want);
        ircg_ratings_free(R);
        if (!synth_by_rows(s))
            at = 0; /* the small generator's entries are in no row order */
    }
    free(seen);
    free(counts);
    ircg_ratings_free(all);
}

TEST(synth_rows, parts_of_rows_make_the_whole)
{
    ircg_synth_ratings_spec big = {40000, 2000, 5, INT64_C(1) << 22, 1, 5, 0.5, 3, 2};
    ircg_synth_ratings_spec small = {300, 200, 3, 5000, 1, 5, 0.5, 4, 1};
    const int cb[] = {0, 1, 2047, 2049, 13000, 40000}, cs[] = {0, 17, 150, 300};
    REQUIRE(synth_by_rows(&big) && !synth_by_rows(&small));
    check_parts(&big, cb, 5);
    check_parts(&small, cs, 3);
}

/* slv_rng_skip(k) is k calls of slv_rng_next: by stepping for k up to
 * 2^22 (the table's first three bytes, each byte value's jumps met), and
 * for larger k through linearity: a jump of a + b is the jump of a then of
 * b, on the 256 unit states (the map is linear, so that is all of them),
 * for a, b drawn over the whole 64 bits. */
TEST(rng, skip_is_stepping)
{
    uint64_t seed = 0x1234;
    for (int i = 0; i < 24; i++) {
        slv_rng a, b;
        uint64_t k = i < 8 ? (uint64_t)i * 997 : (seed = seed * 6364136223846793005ULL + 1) >> 42;
        slv_rng_seed(&a, 5, 3 + (uint64_t)i);
        b = a;
        slv_rng_skip(&a, k);
        for (uint64_t t = 0; t < k; t++)
            (void)slv_rng_next(&b);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
    for (int i = 0; i < 6; i++) {
        uint64_t x = (seed = seed * 6364136223846793005ULL + 1) >> (i * 3);
        uint64_t y = (seed = seed * 6364136223846793005ULL + 1) >> (i * 5 + 1);
        int same = 1;
        for (int bit = 0; bit < 256 && same; bit++) {
            slv_rng a = {{0, 0, 0, 0}}, b;
            a.s[bit / 64] = UINT64_C(1) << (bit % 64);
            b = a;
            slv_rng_skip(&a, x + y);
            slv_rng_skip(&b, x);
            slv_rng_skip(&b, y);
            same = memcmp(&a, &b, sizeof a) == 0;
        }
        CHECK(same);
    }
}

/* Many rows, few ratings: only the rows rated are drawn (the stream
 * skipped between them), and the ratings are those of the factors drawn
 * whole, as before.  10^8 rows with 1000 ratings in well under a second. */
TEST(synth, sparse_rows_draw_only_their_factors)
{
    ircg_synth_ratings_spec s = {.n_rows = 20000, .n_cols = 7000, .rank = 4,
                                 .n_ratings = 500, .min_rating = 1, .max_rating = 5,
                                 .noise = 0.25, .seed = 11};
    ircg_ratings *R = gen(&s);
    REQUIRE(R != NULL);
    slv_rng gf, gn;
    size_t nu = (size_t)s.n_rows * 4, nv = (size_t)s.n_cols * 4;
    double *U = malloc(nu * sizeof *U), *V = malloc(nv * sizeof *V);
    REQUIRE(U && V);
    slv_rng_seed(&gf, s.seed, 1); /* ST_FACTORS: U's rows, then V's */
    for (size_t t = 0; t < nu; t++)
        U[t] = slv_rng_normal(&gf);
    for (size_t t = 0; t < nv; t++)
        V[t] = slv_rng_normal(&gf);
    slv_rng_seed(&gn, s.seed, 3); /* ST_NOISE */
    synth_scale sc = synth_scale_of(&s);
    int same = 1;
    for (int64_t e = 0; e < R->nnz; e++) {
        double z = slv_rng_normal(&gn);
        same &= R->val[e] == synth_rating(&sc, U + (size_t)R->row[e] * 4,
                                          V + (size_t)R->col[e] * 4, z);
    }
    CHECK(same);
    free(U);
    free(V);
    ircg_ratings_free(R);
    s.n_rows = 100000000;
    s.n_cols = 50;
    s.n_ratings = 1000;
    double t0 = ircg_clock();
    R = gen(&s);
    double dt = ircg_clock() - t0;
    printf("    10^8 x 50, 1000 ratings: %.3f s\n", dt);
    CHECK(R && R->nnz == 1000 && dt < 0.5);
    ircg_ratings_free(R);
}
