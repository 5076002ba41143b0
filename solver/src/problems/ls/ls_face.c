/*
 * ls_face.c -- IR-CG's away and pairwise moves (problems/faces.h) on the
 * vector workspaces of least squares and logistic regression: the target
 * p takes the vertex's place, and each observation vector (residual,
 * margins, validation margins) follows it as the iterate's do, affinely,
 * at the cost of the move's atoms: two columns of a dense A on the
 * simplex and the l1 ball, one product on the box -- what the
 * Frank-Wolfe vertex costs.
 */
#include <stdlib.h>

#include "problems/faces.h"
#include "problems/ls/ls.h"

ircg_error ls_face_lmo(const ls_data *d, ircg_direction mode, const double *c,
                       const double *x, double *v, double **lin, slv_face_move *mv)
{
    if (!*lin && !(*lin = malloc((size_t)d->n * sizeof **lin)))
        return IRCG_ERR_NOMEM;
    slv_face_target(&d->dom, mode, c, x, d->n, v, *lin, mv);
    return IRCG_OK;
}

/* y = A lin: the columns of lin's nonzeros when A is dense and they are at
 * most two, else the product. */
static void lin_product(const ls_data *d, const double *lin, double *y)
{
    int64_t nz[2];
    int k = 0;
    for (int64_t j = 0; j < d->n && k <= 2; j++)
        if (lin[j] != 0) {
            if (k < 2)
                nz[k] = j;
            k++;
        }
    if (!d->A || k > 2) {
        ls_matvec(d, lin, y);
        return;
    }
    for (int i = 0; i < d->m; i++) {
        const double *row = d->A + (size_t)i * d->n;
        double s = 0;
        for (int q = 0; q < k; q++)
            s += row[nz[q]] * lin[nz[q]];
        y[i] = s;
    }
}

void ls_face_observe(const ls_data *d, const slv_face_move *mv, const double *lin,
                     const double *ox, const double *shift, double *op)
{
    lin_product(d, lin, op); /* A lin */
    for (int i = 0; i < d->m; i++) {
        double ax = mv->kappa != 0 ? mv->kappa * (ox[i] + (shift ? shift[i] : 0.0)) : 0.0;
        op[i] = ox[i] + ax + op[i];
    }
}
