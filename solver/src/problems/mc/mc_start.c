/* mc_start.c -- a given start point of matrix completion (settings.x0),
 * shared by the conditional-gradient and the projection workspaces: it is
 * checked (finite, inside the nuclear ball) and factored by its thin SVD;
 * its values on Omega are read from the entries, which is exact.  On a
 * distributed problem x0 is still the whole matrix (n_all x p, every
 * rank's copy of the spec's): rank 0 factors it, each rank keeps its rows
 * of U. */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "problems/mc/mc.h"

static ircg_error outside(ircg_diag *diag, double nuc, double delta)
{
    return slv_fail(diag, IRCG_ERR_INVALID, "/x0",
                    "x0 lies outside the nuclear ball: ||x0||_* = %.17g > delta = %.17g",
                    nuc, delta);
}

void mc_given_free(mc_given *g)
{
    if (!g)
        return;
    free(g->U);
    free(g->s);
    free(g->Vt);
    *g = (mc_given){0};
}

/* The thin SVD of the n x p x0 (every entry finite: checked before) into
 * g: U n x m0, s, Vt m0 x p, r the values above dgesvd's noise. */
static ircg_error whole_svd(int n, int p, double delta, const double *x0, mc_given *g,
                            ircg_diag *diag)
{
    size_t np = (size_t)n * p;
    int m0 = n < p ? n : p;
    double *A = malloc(np * sizeof *A), nuc = 0;
    ircg_error err = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");

    *g = (mc_given){0};
    g->s = malloc(2 * (size_t)m0 * sizeof *g->s);
    g->U = malloc((size_t)n * m0 * sizeof *g->U);
    g->Vt = malloc((size_t)m0 * p * sizeof *g->Vt);
    if (!A || !g->s || !g->U || !g->Vt)
        goto fail;
    memcpy(A, x0, np * sizeof *A);
    if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', n, p, A, n, g->s, g->U, n, g->Vt, m0,
                       g->s + m0) != 0) {
        err = slv_fail(diag, IRCG_ERR_NUMERICAL, "/x0", "SVD of x0 failed");
        goto fail;
    }
    for (int i = 0; i < m0; i++)
        nuc += g->s[i];
    if (nuc > delta * (1 + 1e-12)) {
        err = outside(diag, nuc, delta);
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
    g->nuc = nuc;
    free(A);
    free(g->U);
    free(g->s);
    free(g->Vt);
    g->U = g->s = g->Vt = NULL;
    return err;
}

/* The rows of x0 held here, from rank 0's SVD of the whole x0 (every rank
 * holds the whole: it is the spec's): the one SVD a single process makes,
 * so its atoms are those bits, and no two ranks can factor differently
 * (another CPU's kernels).  s, the r rows of Vt and this rank's rows of
 * the r columns of U cross exactly (slv_comm_bcast_exact), with rank 0's
 * verdict, which every rank reports alike. */
static ircg_error dist_svd(const mc_data *d, const double *x0, mc_given *g, ircg_diag *diag)
{
    const ircg_comm *c = d->comm;
    int m0 = d->m0, p = d->p;
    mc_given whole = {0};
    double head[3] = {0, 0, 0}; /* rank 0's error, r, nuclear norm */
    ircg_error err = IRCG_OK;
    const int root = c->rank == 0;
    if (root) {
        err = whole_svd(d->n_all, p, d->delta, x0, &whole, diag);
        head[0] = err, head[1] = whole.r, head[2] = whole.nuc;
    }
    slv_comm_bcast_exact(c, 0, head, 3);
    *g = (mc_given){.r = (int)head[1]};
    g->s = calloc(2 * (size_t)m0, sizeof *g->s);
    g->U = malloc((size_t)d->n * m0 * sizeof *g->U);
    g->Vt = calloc((size_t)m0 * p, sizeof *g->Vt);
    size_t cols = (size_t)p * (size_t)g->r;
    double *col = calloc(((size_t)d->n_all > cols ? (size_t)d->n_all : cols) + 1, sizeof *col);
    int nomem = !g->s || !g->U || !g->Vt || !col;
    double any = slv_comm_sum1(c, nomem); /* collective: every rank, first */
    if (nomem || any > 0 || err != IRCG_OK || head[0] != IRCG_OK) {
        err = head[0] == IRCG_ERR_INVALID ? outside(diag, head[2], d->delta)
              : head[0] == IRCG_ERR_NUMERICAL
                  ? slv_fail(diag, IRCG_ERR_NUMERICAL, "/x0", "SVD of x0 failed")
                  : slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
        goto done;
    }
    if (root && whole.s)
        memcpy(g->s, whole.s, (size_t)m0 * sizeof *g->s);
    slv_comm_bcast_exact(c, 0, g->s, m0);
    for (int i = 0; i < g->r; i++) { /* U's columns, this rank's rows kept */
        if (root && whole.U)
            memcpy(col, whole.U + (size_t)i * d->n_all, (size_t)d->n_all * sizeof *col);
        slv_comm_bcast_exact(c, 0, col, d->n_all);
        memcpy(g->U + (size_t)i * d->n, col + d->row0, (size_t)d->n * sizeof *col);
    }
    for (int j = 0; root && whole.Vt && j < p; j++) /* Vt's r rows, packed */
        for (int i = 0; i < g->r; i++) /* r >= 1: Vt holds m0 x p >= 1 numbers */
            /* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
            col[i + (size_t)j * g->r] = whole.Vt[i + (size_t)j * m0];
    slv_comm_bcast_exact(c, 0, col, (int64_t)p * g->r);
    for (int j = 0; j < p; j++)
        for (int i = 0; i < g->r; i++)
            g->Vt[i + (size_t)j * m0] = col[i + (size_t)j * g->r];
done:
    free(col);
    mc_given_free(&whole);
    if (err != IRCG_OK)
        mc_given_free(g);
    return err;
}

/* x0's rows: the whole matrix's on a rank, the rows held on one process
 * (mc_given_held's matrix when the problem is compacted, else x0). */
static size_t given_rows(const mc_data *d)
{
    return (size_t)(d->comm ? d->n_all : d->n);
}

ircg_error mc_given_svd(const mc_data *d, const double *x0, mc_given *g,
                        ircg_diag *diag)
{
    size_t np = given_rows(d) * d->p;
    *g = (mc_given){0};
    /* every rank holds the whole x0: each finds the same entry */
    for (size_t e = 0; e < np; e++)
        if (!isfinite(x0[e]))
            return slv_fail(diag, IRCG_ERR_INVALID, "/x0", "x0 has a non-finite entry");
    return d->comm ? dist_svd(d, x0, g, diag) : whole_svd(d->n, d->p, d->delta, x0, g, diag);
}

void mc_given_on_omega(const mc_data *d, const double *x0, int minus_m, double *out)
{
    size_t ld = given_rows(d);
    for (int i = 0; i < d->n; i++) /* on a rank x0 is the whole: row row0 + i */
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++)
            out[e] = x0[d->row0 + i + (size_t)d->col[e] * ld] -
                     (minus_m ? mc_rating(d, e) : 0.0);
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
