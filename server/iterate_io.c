/*
 * iterate_io.c -- the binary form of an iterate in 'x' and 'z' snapshots.
 *
 * Layout (every integer and double little-endian, doubles IEEE-754):
 *   0  char[8] magic "IRCGITR1"
 *   8  u32 kind        0 = matrix completion (factored), 1 = least squares
 *  12  u32 n_rows      MC: n; LS: m (rows of A)
 *  16  u32 n_cols      MC: p; LS: n
 *  20  u32 rank        MC: k; LS: 0
 *  24  u64 dim         number of variables
 *  32  f64 a0          MC: coefficient of X0; LS: 0
 *  40  u32 flags       bit 0: a dense array follows the factors
 *  44  u32 reserved    0
 *  48  arrays, f64:
 *      LS: values[dim]
 *      MC: x0_diag[min(n,p)], w[k], P[n*k] (column-major), Q[p*k],
 *          then dense[n*p] (column-major) when flags bit 0
 * The iterate is X = a0 X0 + P diag(w) Q' (see ircg.h).  Explicit byte
 * composition keeps the file portable whatever the host byte order.
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"

#define HEADER 48

static unsigned char *put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

static unsigned char *put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

static unsigned char *put_f64s(unsigned char *p, const double *x, size_t n)
{
    for (size_t i = 0; x && i < n; i++) {
        uint64_t u;
        memcpy(&u, &x[i], 8);
        p = put_u64(p, u);
    }
    return p;
}

int srv_iterate_encode(const ircg_iterate *it, void **out, size_t *len)
{
    int mc = it->kind == IRCG_PROBLEM_MATRIX_COMPLETION;
    size_t nr = (size_t)it->n_rows, nc = (size_t)it->n_cols;
    size_t k = mc ? (size_t)it->rank : 0;
    size_t ndiag = mc ? (nr < nc ? nr : nc) : 0;
    int dense = it->dense != NULL;
    size_t ndense = dense ? (size_t)it->dim : 0;
    size_t nd = mc ? ndiag + k + nr * k + nc * k + ndense : (size_t)it->dim;
    unsigned char *buf = malloc(HEADER + 8 * nd);
    unsigned char *p = buf;
    if (!buf)
        return -1;
    memcpy(p, "IRCGITR1", 8);
    p = put_u32(p + 8, mc ? 0 : 1);
    p = put_u32(p, (uint32_t)nr);
    p = put_u32(p, (uint32_t)nc);
    p = put_u32(p, (uint32_t)k);
    p = put_u64(p, (uint64_t)it->dim);
    uint64_t a0;
    double a = mc ? it->a0 : 0.0;
    memcpy(&a0, &a, 8);
    p = put_u64(p, a0);
    p = put_u32(p, mc && dense ? 1u : 0u);
    p = put_u32(p, 0);
    if (mc) {
        p = put_f64s(p, it->x0_diag, ndiag);
        p = put_f64s(p, it->w, k);
        p = put_f64s(p, it->P, nr * k);
        p = put_f64s(p, it->Q, nc * k);
        p = put_f64s(p, it->dense, ndense);
    } else {
        p = put_f64s(p, it->dense, (size_t)it->dim);
    }
    *out = buf;
    *len = (size_t)(p - buf);
    return 0;
}
