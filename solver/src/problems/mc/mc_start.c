/* mc_start.c -- a given start point of matrix completion (settings.x0),
 * shared by the conditional-gradient and the projection workspaces: it is
 * checked (finite, inside the nuclear ball) and factored by its thin SVD;
 * its values on Omega are read from the entries, which is exact. */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/mc/mc.h"

void mc_given_free(mc_given *g)
{
    if (!g)
        return;
    free(g->U);
    free(g->s);
    free(g->Vt);
    *g = (mc_given){0};
}

ircg_error mc_given_svd(const mc_data *d, const double *x0, mc_given *g,
                        ircg_diag *diag)
{
    size_t np = (size_t)d->n * d->p;
    int m0 = d->m0;
    double *A = malloc(np * sizeof *A), nuc = 0;
    ircg_error err = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");

    *g = (mc_given){0};
    g->s = malloc(2 * (size_t)m0 * sizeof *g->s);
    g->U = malloc((size_t)d->n * m0 * sizeof *g->U);
    g->Vt = malloc((size_t)m0 * d->p * sizeof *g->Vt);
    if (!A || !g->s || !g->U || !g->Vt)
        goto fail;
    for (size_t e = 0; e < np; e++)
        if (!isfinite(x0[e])) {
            err = slv_fail(diag, IRCG_ERR_INVALID, "/x0", "x0 has a non-finite entry");
            goto fail;
        }
    memcpy(A, x0, np * sizeof *A);
    if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', d->n, d->p, A, d->n, g->s, g->U,
                       d->n, g->Vt, m0, g->s + m0) != 0) {
        err = slv_fail(diag, IRCG_ERR_NUMERICAL, "/x0", "SVD of x0 failed");
        goto fail;
    }
    for (int i = 0; i < m0; i++)
        nuc += g->s[i];
    if (nuc > d->delta * (1 + 1e-12)) {
        err = slv_fail(diag, IRCG_ERR_INVALID, "/x0",
                        "x0 lies outside the nuclear ball: ||x0||_* = %.17g > "
                        "delta = %.17g", nuc, d->delta);
        goto fail;
    }
    /* Values at dgesvd's rounding level are noise of a lower-rank x0; kept,
     * a rank-3 x0 on MovieLens would become ~3400 atoms. */
    double cut = (double)m0 * DBL_EPSILON * g->s[0];
    while (g->r < m0 && g->s[g->r] > cut)
        g->r++;
    free(A);
    return IRCG_OK;
fail:
    free(A);
    mc_given_free(g);
    return err;
}

void mc_given_on_omega(const mc_data *d, const double *x0, int minus_m, double *out)
{
    for (int i = 0; i < d->n; i++)
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++)
            out[e] = x0[i + (size_t)d->col[e] * d->n] - (minus_m ? mc_rating(d, e) : 0.0);
}
