/*
 * rng.h -- a small deterministic pseudo-random generator for the library.
 *
 * xoshiro256** seeded through splitmix64.  Everything here is integer
 * arithmetic plus exactly rounded IEEE operations (+, -, *, /, conversion of
 * integers below 2^53), so a seed yields the same numbers on every machine
 * and compiler; no libm function (log, cos, exp) is used because their last
 * bits are not specified by C and do differ between libms.
 */
#ifndef IRCG_RNG_H
#define IRCG_RNG_H

#include <stdint.h>

typedef struct slv_rng {
    uint64_t s[4];
} slv_rng;

/* Seed; stream lets one seed give several independent sequences. */
void slv_rng_seed(slv_rng *r, uint64_t seed, uint64_t stream);
/* Next 64 random bits. */
uint64_t slv_rng_next(slv_rng *r);
/* The state k steps (outputs of slv_rng_next) ahead, in O(log k) work
 * (rng_jump.c): the same state as k calls. */
void slv_rng_skip(slv_rng *r, uint64_t k);
/* Uniform in [0, 1) with 53 random bits. */
double slv_rng_uniform(slv_rng *r);
/* Uniform integer in [0, n), n >= 1, without modulo bias (Lemire). */
uint64_t slv_rng_below(slv_rng *r, uint64_t n);
/* Approximately standard normal: the Irwin-Hall sum of 12 uniforms minus 6,
 * computed exactly in integers (12 x 32 bits) and converted once.  Mean 0,
 * variance 1, support [-6, 6]; good enough for synthetic test data and
 * bit-for-bit reproducible, unlike Box-Muller or the polar method (log). */
double slv_rng_normal(slv_rng *r);
/* The outputs of slv_rng_next one slv_rng_normal takes (to skip normals). */
#define SLV_RNG_NORMAL_DRAWS 6

#endif /* IRCG_RNG_H */
