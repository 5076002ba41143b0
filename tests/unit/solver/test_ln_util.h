/*
 * test_ln_util.h -- the least-norm instances several solver tests share:
 * a random m x n A (m < n: full row rank, almost surely), a random b, and
 * the closed form x* = A^+ b by LAPACK's dgelsd (sc_pinv, study/scale.h),
 * an independent computation of the solution every method must approach.
 */
#ifndef TEST_LN_UTIL_H
#define TEST_LN_UTIL_H

#include <stdint.h>

/* A (m x n, row-major) uniform in (-1, 1), b in (-2, 2), xs = A^+ b;
 * 1 when A has full row rank m (m <= n). */
int lnt_make(double *A, double *b, double *xs, int m, int n, uint64_t seed);

#endif
