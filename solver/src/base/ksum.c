/* ksum.c -- the compensated sums of util.h over whole arrays, in the four
 * lanes of ksum.h. */
#include "base/ksum.h"

SLV_CLONES
double slv_half_sq_diff(const double *r, const double *q, int64_t n)
{
    slv_lsum a;
    slv_v4d x, y, t = {0, 0, 0, 0};
    int64_t i = 0;

    slv_lsum_clear(&a);
    for (; i + 4 <= n; i += 4) {
        SLV_V4D_LOAD(x, r + i);
        SLV_V4D_LOAD(y, q + i);
        SLV_LSUM_ADD(a, 0.5 * (x - y) * (x + y));
    }
    for (int l = 0; i + l < n; l++)
        t[l] = 0.5 * (r[i + l] - q[i + l]) * (r[i + l] + q[i + l]);
    SLV_LSUM_ADD(a, t);
    return slv_lsum_value(&a);
}

SLV_CLONES
double slv_half_sq(const double *r, int64_t n)
{
    slv_lsum a;
    slv_v4d x, t = {0, 0, 0, 0};
    int64_t i = 0;

    slv_lsum_clear(&a);
    for (; i + 4 <= n; i += 4) {
        SLV_V4D_LOAD(x, r + i);
        SLV_LSUM_ADD(a, 0.5 * x * x);
    }
    for (int l = 0; i + l < n; l++)
        t[l] = 0.5 * r[i + l] * r[i + l];
    SLV_LSUM_ADD(a, t);
    return slv_lsum_value(&a);
}
