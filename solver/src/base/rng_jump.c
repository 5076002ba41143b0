/*
 * rng_jump.c -- slv_rng_skip: xoshiro256's state k steps ahead in
 * O(log k) work.  The state moves by a linear map T over GF(2)^256, so
 * T^k = r(T) with r(x) = x^k mod p(x), p the map's characteristic
 * polynomial (degree 256); the state after k steps is sum_i r_i T^i s,
 * made with 256 steps of the generator (Vigna's jump() with r for its
 * constant).  tests/tools/rng_jump.py finds p by Berlekamp-Massey on the
 * generator's output and checks that x^(2^128) mod p is Vigna's
 * published JUMP constant.
 *
 * A jump by k applies one polynomial per nonzero byte of k: the table
 * holds x^(d 256^j) mod p for every byte d and position j, made once (a
 * few milliseconds) by products mod p.  A skip of 10^9 steps is four
 * applications, about a thousand steps of the generator.
 */
#include <pthread.h>

#include "base/rng.h"

/* p(x) = x^256 + P_LOW (the low 256 coefficients, word 0 lowest). */
static const uint64_t P_LOW[4] = {0x9d116f2bb0f0f001ULL, 0x0280002bcefd1a5eULL,
                                  0x04b4edcf26259f85ULL, 0x0003c03c3f3ecb19ULL};

static uint64_t jump_tab[8][256][4]; /* [byte position][byte][word] */
static pthread_once_t jump_once = PTHREAD_ONCE_INIT;

/* a <- a x mod p */
static void times_x(uint64_t a[4])
{
    uint64_t top = a[3] >> 63;
    for (int w = 3; w > 0; w--)
        a[w] = a[w] << 1 | a[w - 1] >> 63;
    a[0] <<= 1;
    if (top)
        for (int w = 0; w < 4; w++)
            a[w] ^= P_LOW[w];
}

/* out = a b mod p (out may alias neither) */
static void mulmod(const uint64_t a[4], const uint64_t b[4], uint64_t out[4])
{
    uint64_t t[4] = {a[0], a[1], a[2], a[3]};
    for (int w = 0; w < 4; w++)
        out[w] = 0;
    for (int i = 0; i < 256; i++) {
        if (b[i / 64] >> (i % 64) & 1)
            for (int w = 0; w < 4; w++)
                out[w] ^= t[w];
        times_x(t);
    }
}

static void build_table(void)
{
    uint64_t base[4] = {2, 0, 0, 0}; /* x^(256^j), from j = 0 */
    for (int j = 0; j < 8; j++) {
        uint64_t one[4] = {1, 0, 0, 0}, next[4];
        for (int w = 0; w < 4; w++)
            jump_tab[j][0][w] = one[w];
        for (int d = 1; d < 256; d++)
            mulmod(jump_tab[j][d - 1], base, jump_tab[j][d]);
        mulmod(jump_tab[j][255], base, next); /* x^(256^(j + 1)) */
        for (int w = 0; w < 4; w++)
            base[w] = next[w];
    }
}

/* s <- r(T) s for the polynomial r (256 bits).  The generator's step is
 * written out on locals (rng.c's slv_rng_next, without its output): a
 * call and the state in memory for each of the 256 steps cost ten times
 * as much under the sanitizers. */
static void apply(slv_rng *g, const uint64_t r[4])
{
    uint64_t s0 = g->s[0], s1 = g->s[1], s2 = g->s[2], s3 = g->s[3];
    uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int w = 0; w < 4; w++) {
        uint64_t bits = r[w];
        for (int b = 0; b < 64; b++, bits >>= 1) {
            uint64_t take = 0 - (bits & 1), t = s1 << 17;
            a0 ^= s0 & take;
            a1 ^= s1 & take;
            a2 ^= s2 & take;
            a3 ^= s3 & take;
            s2 ^= s0;
            s3 ^= s1;
            s1 ^= s2;
            s0 ^= s3;
            s2 ^= t;
            s3 = s3 << 45 | s3 >> 19;
        }
    }
    g->s[0] = a0;
    g->s[1] = a1;
    g->s[2] = a2;
    g->s[3] = a3;
}

void slv_rng_skip(slv_rng *g, uint64_t k)
{
    /* an application costs 256 steps: step plainly below a few of them */
    if (k < 1024) {
        while (k-- > 0)
            (void)slv_rng_next(g);
        return;
    }
    pthread_once(&jump_once, build_table);
    for (int j = 0; j < 8; j++)
        if (k >> (8 * j) & 255)
            apply(g, jump_tab[j][k >> (8 * j) & 255]);
}
