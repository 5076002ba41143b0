/* test_ln_util.c -- see test_ln_util.h */
#include "study/scale.h"
#include "test_num.h"
#include "unit/solver/test_ln_util.h"

int lnt_make(double *A, double *b, double *xs, int m, int n, uint64_t seed)
{
    if (m > n)
        return 0;
    for (int i = 0; i < m * n; i++)
        A[i] = test_urand(&seed);
    for (int i = 0; i < m; i++)
        b[i] = 2 * test_urand(&seed);
    return sc_pinv(A, b, m, n, xs);
}
