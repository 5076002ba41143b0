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

/* Whether x0 (whole, column-major n_all x p_all) lies where the problem's
 * iterates can: zero on the columns not held, and on the rows not held
 * zero (or, with the shared row, all equal); NULL, or the row or column
 * it fails at. */
static const char *outside_held(const mc_data *d, const double *x0, int64_t *at)
{
    size_t na = (size_t)d->n_all;
    int32_t nj = 0; /* next column held */
    for (int32_t j = 0; j < d->p_all; j++) {
        const double *col = x0 + (size_t)j * na;
        int held = nj < d->p && (d->col_id ? d->col_id[nj] : nj) == j;
        int32_t ni = 0; /* next row held */
        double shared = NAN;
        nj += held;
        for (size_t i = 0; i < na; i++) {
            if (ni < d->n_real && (size_t)(d->row_id ? d->row_id[ni] : ni) == i) {
                ni++;
                if (held)
                    continue;
            }
            if (!held || d->agg_w == 0 ? col[i] != 0 : (isnan(shared) ? (shared = col[i], 0)
                                                                      : col[i] != shared)) {
                *at = held ? (int64_t)i : j;
                return held ? "row" : "column";
            }
        }
    }
    return NULL;
}

ircg_error mc_given_held(const mc_data *d, const double *x0, double **held,
                         ircg_diag *diag)
{
    int64_t at = 0;
    const char *side;
    *held = NULL;
    if (!d->row_id && !d->col_id)
        return IRCG_OK;
    if ((side = outside_held(d, x0, &at)))
        return slv_fail(diag, IRCG_ERR_INVALID, "/x0",
                        "x0 is not zero on %s %lld, which holds no rating (build the "
                        "problem whole to start there)", side, (long long)at);
    *held = malloc((size_t)d->n * d->p * sizeof **held);
    if (!*held)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    for (int j = 0; j < d->p; j++) {
        const double *col = x0 + (size_t)(d->col_id ? d->col_id[j] : j) * d->n_all;
        double *out = *held + (size_t)j * d->n;
        for (int i = 0; i < d->n_real; i++)
            out[i] = col[d->row_id ? d->row_id[i] : i];
        if (d->agg_w > 0 && d->row_id) { /* the shared row, scaled: its first copy */
            int64_t r = 0;
            while (r < d->n_real && d->row_id[r] == r)
                r++;
            out[d->n - 1] = d->agg_w * col[r];
        }
    }
    return IRCG_OK;
}
