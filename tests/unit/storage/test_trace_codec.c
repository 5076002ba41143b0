/*
 * test_trace_codec.c -- the compressed chunks of traces
 * (storage/store_trace_codec.c): every bit of every value comes back
 * (random doubles, -0.0, infinities, subnormals, NaNs with any sign and
 * payload -- quiet, signalling, the x86 default -- extreme integers, jumps
 * in the iterations), smooth columns compress, and damaged
 * bytes are refused, never read past.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "store_trace_codec.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double any_double(uint64_t *s)
{
    static const double special[] = {0.0, -0.0, INFINITY, -INFINITY, 4.9e-324,
                                     -2.2250738585072009e-308, 1.7976931348623157e308};
    uint64_t u = rnd(s);
    double x;
    if (u % 5 == 0)
        return special[(u >> 8) % 7];
    if (u % 5 == 1) /* a NaN: any sign, quiet or signalling, any payload */
        u |= UINT64_C(0x7ff0000000000001);
    memcpy(&x, &u, 8);
    return x;
}

/* A NaN of each kind the solver or the hardware make: the quiet NaN of
 * C's NAN, x86's default NaN (0/0: the sign set), a signalling one. */
static double nan_of(uint64_t *s)
{
    static const uint64_t bits[3] = {UINT64_C(0x7ff8000000000000),
                                     UINT64_C(0xfff8000000000000),
                                     UINT64_C(0x7ff0000000000bad)};
    double x;
    memcpy(&x, &bits[rnd(s) % 3], 8);
    return x;
}

/* Every bit, a NaN's included: "lossless to the bit" (README). */
static int same_bits(double a, double b) { return memcmp(&a, &b, 8) == 0; }

static int same_row(const store_trace_row *a, const store_trace_row *b)
{
    return a->iteration == b->iteration && same_bits(a->elapsed, b->elapsed) &&
           same_bits(a->sigma, b->sigma) && same_bits(a->alpha, b->alpha) &&
           same_bits(a->g_x, b->g_x) && same_bits(a->f_x, b->f_x) &&
           same_bits(a->g_z, b->g_z) && same_bits(a->f_z, b->f_z) &&
           same_bits(a->gap, b->gap) && same_bits(a->g_gap_x, b->g_gap_x) &&
           same_bits(a->g_gap_z, b->g_gap_z) &&
           same_bits(a->lmo_seconds, b->lmo_seconds) && a->lmo_matvecs == b->lmo_matvecs &&
           same_bits(a->top_sv, b->top_sv) && a->rank == b->rank &&
           a->lmo_converged == b->lmo_converged && a->backtracks == b->backtracks &&
           a->proj_full == b->proj_full && same_bits(a->lambda, b->lambda);
}

TEST(trace_codec, every_bit_comes_back)
{
    static store_trace_row in[STC_CHUNK_ROWS], out[STC_CHUNK_ROWS];
    uint64_t s = 88172645463325252ULL;
    int64_t it = 0;
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + rnd(&s) % STC_CHUNK_ROWS, m = 0, len = 0;
        unsigned char *blob = NULL;
        for (size_t i = 0; i < n; i++) {
            store_trace_row *r = &in[i];
            it += 1 + (int64_t)(rnd(&s) % (round % 3 ? 3 : 1000000));
            double *d[] = {&r->elapsed, &r->sigma, &r->alpha, &r->g_x, &r->f_x, &r->g_z,
                           &r->f_z, &r->gap, &r->g_gap_x, &r->g_gap_z, &r->lmo_seconds,
                           &r->top_sv, &r->lambda};
            r->iteration = it;
            for (int k = 0; k < 13; k++)
                *d[k] = rnd(&s) % 9 == 0 ? nan_of(&s) : any_double(&s);
            r->lmo_matvecs = rnd(&s) % 4 ? (int64_t)(rnd(&s) % 1000) : (int64_t)rnd(&s);
            r->rank = (int)(rnd(&s) % 3 ? rnd(&s) % 50 : rnd(&s));
            r->lmo_converged = (int)(rnd(&s) % 3) - 1;
            r->backtracks = rnd(&s) % 2 ? -1 : (int)(rnd(&s) % 20);
            r->proj_full = (int)(rnd(&s) % 3) - 1;
        }
        REQUIRE(stc_encode(in, n, &blob, &len) == 0);
        CHECK(stc_decode(blob, len, out, &m) == 0);
        CHECK_INT(m, n);
        int same = m == n;
        for (size_t i = 0; same && i < n; i++)
            same = same_row(&in[i], &out[i]);
        CHECK(same);
        free(blob);
    }
}

/* A trace as solvers make it: smooth values, steps 2/(t+2), NaNs for
 * what is unknown, small counts. */
TEST(trace_codec, smooth_traces_compress_and_damage_is_refused)
{
    static store_trace_row in[STC_CHUNK_ROWS], out[STC_CHUNK_ROWS];
    unsigned char *blob = NULL;
    size_t len = 0, m = 0;
    for (int i = 0; i < STC_CHUNK_ROWS; i++) {
        double t = 1000 + i;
        in[i] = (store_trace_row){.iteration = 1000 + i, .elapsed = 1e-4 * t,
                                  .sigma = 0.05 / sqrt(t + 1), .alpha = 2.0 / (t + 2),
                                  .g_x = 1 / t + 1e-9 * sin(t), .f_x = 3 + 1 / t,
                                  .g_z = 2 / t, .f_z = 3 + 2 / t, .gap = 1 / (t * t),
                                  .g_gap_x = NAN, .g_gap_z = NAN, .lmo_seconds = 1e-5,
                                  .lmo_matvecs = 20 + i % 3, .top_sv = NAN, .rank = 0,
                                  .lmo_converged = 1, .backtracks = 0, .proj_full = 0,
                                  .lambda = NAN};
    }
    REQUIRE(stc_encode(in, STC_CHUNK_ROWS, &blob, &len) == 0);
    printf("    %d smooth rows: %zu bytes, %.1f a row\n", STC_CHUNK_ROWS, len,
           (double)len / STC_CHUNK_ROWS);
    CHECK(len < 40 * STC_CHUNK_ROWS);
    CHECK(stc_decode(blob, len, out, &m) == 0 && m == STC_CHUNK_ROWS);
    CHECK(same_row(&in[255], &out[255]) && out[200].alpha == 2.0 / (1200.0 + 2));
    /* damage: every truncation, and flipped bytes, are refused or decode
     * to some rows -- never a crash (ASan watches) */
    for (size_t k = 0; k < len; k++)
        CHECK(stc_decode(blob, k, out, &m) != 0);
    for (size_t k = 0; k < len; k += 7) {
        blob[k] ^= 0x5a;
        (void)stc_decode(blob, len, out, &m);
        blob[k] ^= 0x5a;
    }
    blob[0] = 4; /* a version this build does not read */
    CHECK(stc_decode(blob, len, out, &m) != 0);
    free(blob);
}
