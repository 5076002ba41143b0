/* test_ln_util.c -- see test_ln_util.h */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "test_num.h"
#include "unit/solver/test_ln_util.h"

int lnt_pinv(const double *A, const double *b, int m, int n, double *x)
{
    double *Ac = malloc((size_t)m * n * sizeof *Ac), *bx = calloc((size_t)n, sizeof *bx);
    double *sv = malloc((size_t)m * sizeof *sv);
    lapack_int rank = 0;
    int ok = Ac && bx && sv && m <= n;
    if (ok) {
        memcpy(Ac, A, (size_t)m * n * sizeof *Ac);
        memcpy(bx, b, (size_t)m * sizeof *bx);
        ok = LAPACKE_dgelsd(LAPACK_ROW_MAJOR, m, n, 1, Ac, n, bx, 1, sv, -1.0, &rank) == 0 &&
             rank == m;
    }
    if (ok)
        memcpy(x, bx, (size_t)n * sizeof *x);
    free(Ac);
    free(bx);
    free(sv);
    return ok;
}

int lnt_make(double *A, double *b, double *xs, int m, int n, uint64_t seed)
{
    if (m > n)
        return 0;
    for (int i = 0; i < m * n; i++)
        A[i] = test_urand(&seed);
    for (int i = 0; i < m; i++)
        b[i] = 2 * test_urand(&seed);
    return lnt_pinv(A, b, m, n, xs);
}
