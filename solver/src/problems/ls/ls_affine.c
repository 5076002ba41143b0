/*
 * ls_affine.c -- the two-stage method's oracle (oracle.h, slv_affine_ops)
 * on least squares, over FC-BiO's workspace (ls_sto_ws).  g = 1/2 ||A x -
 * b||^2 is strictly convex in A x, so the inner solution set is {x in X :
 * A x = A x*}; every outer objective of least squares is quadratic:
 *   1/2 ||x||^2        H = I,        q = 0
 *   1/2 ||x - c||^2    H = I,        q = -c
 *   1/2 x'Qx + q'x     H = Q,        q
 *   1/2 ||A_v x - b_v||^2   H = A_v'A_v, q = -A_v'b_v
 * (each up to its constant, which stage 2 does not need).
 */
#include <stdlib.h>
#include <string.h>

#include "problems/ls/ls.h"

static int64_t af_rows(void *p)
{
    const ls_sto_ws *w = p;
    return w->d->m;
}

static ircg_error af_quadratic(void *p, double *H, double *q)
{
    const ls_sto_ws *w = p;
    const ls_data *d = w->d;
    size_t n = (size_t)d->n;
    memset(q, 0, n * sizeof *q);
    switch (d->outer) {
    case IRCG_OUTER_QUADRATIC:
        memcpy(H, d->Q, n * n * sizeof *H);
        if (d->q)
            memcpy(q, d->q, n * sizeof *q);
        return IRCG_OK;
    case IRCG_OUTER_VALIDATION:
        ls_ata(d->vset, H);
        ls_rmatvec(d->vset, d->vset->b, q);
        for (size_t j = 0; j < n; j++)
            q[j] = -q[j];
        return IRCG_OK;
    default:
        memset(H, 0, n * n * sizeof *H);
        for (size_t j = 0; j < n; j++) {
            H[j * n + j] = 1.0;
            if (d->outer == IRCG_OUTER_DIST_SQ)
                q[j] = -d->c[j];
        }
        return IRCG_OK;
    }
}

static ircg_error af_gram(void *p, double *G, int64_t *side)
{
    const ls_sto_ws *w = p;
    return ls_gram(w->d, G, side);
}

static void af_apply(void *p, const double *x, double *y)
{
    const ls_sto_ws *w = p;
    ls_matvec(w->d, x, y);
}

static void af_apply_t(void *p, const double *y, double *x)
{
    const ls_sto_ws *w = p;
    ls_rmatvec(w->d, y, x);
}

static ircg_error af_lagrange(void *p, const double *wpt, const double *xh, const double *nu,
                              double tau, double *f_lower)
{
    ls_sto_ws *w = p;
    if (!w->cb && !(w->cb = ls_cert_buf_new(w->d)))
        return IRCG_ERR_NOMEM;
    *f_lower = ls_cert_lagrange(w->d, w->cb, wpt, xh, nu, tau, 1.0);
    return IRCG_OK;
}

const slv_affine_ops slv_ls_affine = {
    .rows = af_rows, .quadratic = af_quadratic, .gram = af_gram, .apply = af_apply,
    .apply_t = af_apply_t, .lagrange = af_lagrange,
};
