/* rng.c -- see rng.h */
#include "base/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void slv_rng_seed(slv_rng *r, uint64_t seed, uint64_t stream)
{
    /* Mixing the stream in through one splitmix step keeps nearby
     * (seed, stream) pairs far apart; splitmix never yields an all-zero
     * xoshiro state from four consecutive outputs. */
    uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ULL);
    x = splitmix64(&x) ^ stream;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

uint64_t slv_rng_next(slv_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double slv_rng_uniform(slv_rng *r)
{
    return (double)(slv_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t slv_rng_below(slv_rng *r, uint64_t n)
{
    /* Lemire's multiply-shift with rejection of the biased low range. */
    uint64_t x = slv_rng_next(r);
    __uint128_t m = (__uint128_t)x * n;
    uint64_t lo = (uint64_t)m;
    if (lo < n) {
        uint64_t thresh = (0 - n) % n;
        while (lo < thresh) {
            x = slv_rng_next(r);
            m = (__uint128_t)x * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double slv_rng_normal(slv_rng *r)
{
    /* Sum of 12 uniform 32-bit integers < 12 * 2^32 < 2^36: exact in a
     * uint64 and in a double; one exact conversion, one exact scaling. */
    uint64_t sum = 0;
    for (int i = 0; i < SLV_RNG_NORMAL_DRAWS; i++) {
        uint64_t x = slv_rng_next(r);
        sum += (x >> 32) + (x & 0xFFFFFFFFULL);
    }
    /* With u_i = (k_i + 1/2) / 2^32 the mean is exactly 6:
     * sum u_i - 6 = (2 sum k_i + 12 - 12 * 2^32) / 2^33. */
    int64_t centred = (int64_t)(sum * 2 + 12) - (int64_t)12 * 0x100000000LL;
    return (double)centred * 0x1.0p-33;
}
