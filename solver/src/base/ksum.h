/*
 * ksum.h -- compensated sums in four lanes, for the passes over long
 * arrays: Knuth's branch-free TwoSum on GCC vectors of four doubles keeps
 * the accuracy of slv_ksum (about one rounding of the result) without its
 * serial dependency chain, which made a compensated pass the most
 * expensive of an iteration (perf: 24% of a MovieLens run).
 *
 * Lane l takes the terms i with i = l (mod 4) counted from where the sum
 * started, in increasing i: adding [a, b) then [b, c) gives the same bits
 * as adding [a, c) whenever b - a is a multiple of 4, so a pass may add in
 * batches and still agree bit for bit with one that adds all at once.
 *
 * Macros, not functions: passing 32-byte vectors by value would change
 * the ABI of builds without AVX (gcc's -Wpsabi).  Functions that use them
 * are best compiled for several instruction sets (base/simd.h, or
 * target_clones("avx2", "default") as below): the lanes are the same IEEE
 * operations in every build (ISO C mode keeps gcc from contracting them
 * into FMAs), so the results are identical.
 */
#ifndef IRCG_BASE_KSUM_H
#define IRCG_BASE_KSUM_H

#include <string.h>

#include "base/util.h"

/* The exact transformations below, and the kernels of base/simd.h, which
 * must give the same bits on every instruction set, need every operation
 * rounded on its own: gcc contracts a * b + c into an FMA in its GNU modes
 * (ISO C mode keeps it from doing so), clang where the target has one
 * unless told not to. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__STRICT_ANSI__)
#error "base/ksum.h needs ISO C mode (-std=c11): gcc's GNU modes contract into FMAs"
#endif
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* The two targets of the kernels that use these macros.  clang 14 names
 * the dispatcher of a target_clones function "f.ifunc" instead of "f", so
 * a caller in another file cannot link; clang builds (the fuzzers) get the
 * default target alone, which computes the same bits. */
#if defined(__clang__)
#define SLV_CLONES
#else
#define SLV_CLONES __attribute__((target_clones("avx2", "default")))
#endif

typedef double slv_v4d __attribute__((vector_size(32)));

typedef struct slv_lsum {
    slv_v4d s, c; /* lane sums and their compensations */
} slv_lsum;

#define SLV_V4D_LOAD(dst, ptr) memcpy(&(dst), (ptr), sizeof(slv_v4d))
#define SLV_V4D_STORE(ptr, src) memcpy((ptr), &(src), sizeof(slv_v4d))

/* (A.s, A.c) += X lane by lane, exactly: TwoSum(A.s, X) */
#define SLV_LSUM_ADD(A, X)                                                  \
    do {                                                                    \
        slv_v4d x_ = (X), t_ = (A).s + x_, bp_ = t_ - (A).s;                 \
        (A).c += ((A).s - (t_ - bp_)) + (x_ - bp_);                         \
        (A).s = t_;                                                         \
    } while (0)

/* P = X * X rounded and E = X * X - P exactly, lane by lane: Dekker's
 * product on Veltkamp's split of X into two halves of 26 bits, whose
 * products are exact; no FMA (which the x86-64 kernels have only in
 * software).  Exact while X^2 neither overflows nor, in its low part,
 * underflows (2^-484 < |X| < 2^511). */
#define SLV_V4D_SQUARE(P, E, X)                                             \
    do {                                                                    \
        slv_v4d x_ = (X), c_ = x_ * 134217729.0; /* 2^27 + 1 */             \
        slv_v4d h_ = c_ - (c_ - x_), l_ = x_ - h_;                          \
        (P) = x_ * x_;                                                      \
        (E) = ((h_ * h_ - (P)) + 2.0 * h_ * l_) + l_ * l_;                  \
    } while (0)

/* Zeroes the lanes (adding 0 later is exact: a tail padded with zeros
 * changes nothing). */
static inline void slv_lsum_clear(slv_lsum *a)
{
    memset(a, 0, sizeof *a);
}

/* The lanes' total: their sums, then their compensations, lane by lane
 * into a Neumaier sum (a fixed order). */
static inline double slv_lsum_value(const slv_lsum *a)
{
    slv_ksum k = {0, 0};
    for (int l = 0; l < 4; l++)
        slv_ksum_add(&k, a->s[l]);
    for (int l = 0; l < 4; l++)
        slv_ksum_add(&k, a->c[l]);
    return slv_ksum_value(&k);
}

#endif /* IRCG_BASE_KSUM_H */
