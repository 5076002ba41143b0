/*
 * test_num.h -- small numeric helpers shared by the unit tests and the
 * studies (tests/unit, tests/study): deterministic random numbers and a
 * plain dot product, written once.
 */
#ifndef TEST_NUM_H
#define TEST_NUM_H

#include <stdint.h>

/* Deterministic uniform(-1, 1) numbers: a 64-bit LCG (Knuth's MMIX
 * constants), its top 53 bits. */
static inline double test_urand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * 0x1.0p-52 - 1.0;
}

/* a'b in the plain order (the tests' independent computations). */
static inline double test_dot(const double *a, const double *b, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

#endif /* TEST_NUM_H */
