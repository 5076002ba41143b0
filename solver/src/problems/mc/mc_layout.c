/*
 * mc_layout.c -- iterates of a compacted problem (mc_data's compaction) in
 * the whole matrix's terms: the factors keep the rows and columns held,
 * with their ids, and the row shared by the rows without ratings becomes
 * the value of every row not listed; a dense iterate is spread over the
 * whole matrix.
 */
#include <stdlib.h>
#include <string.h>

#include "problems/mc/mc.h"

static int32_t *copy_ids(const int32_t *id, int n)
{
    int32_t *c = malloc(((size_t)n + 1) * sizeof *c);
    if (c)
        memcpy(c, id, (size_t)n * sizeof *c);
    return c;
}

/* The column-major n x p matrix D of the rows and columns held as the
 * whole n_all x p_all one (malloc'ed; NULL when out of memory). */
static double *spread_dense(const mc_data *d, const double *D)
{
    size_t na = (size_t)d->n_all;
    double *X = calloc(na * (size_t)d->p_all, sizeof *X);
    if (!X)
        return NULL;
    for (int j = 0; j < d->p; j++) {
        double *col = X + (size_t)(d->col_id ? d->col_id[j] : j) * na;
        const double *src = D + (size_t)j * d->n;
        if (d->agg_w > 0) /* the rows not held: the shared row, unscaled */
            for (size_t i = 0; i < na; i++)
                col[i] = src[d->n - 1] / d->agg_w;
        for (int i = 0; i < d->n_real; i++)
            col[d->row_id ? d->row_id[i] : i] = src[i];
    }
    return X;
}

ircg_error mc_iterate_finish(const mc_data *d, ircg_iterate *it)
{
    int k = it->rank;
    it->n_rows = d->n_all;
    it->n_cols = d->p_all;
    it->dim = (int64_t)d->n_all * d->p_all;
    it->rows_held = d->row_id ? d->n_real : d->n_all;
    it->cols_held = d->p;
    if (d->col_id && !(it->col_ids = copy_ids(d->col_id, d->p)))
        return IRCG_ERR_NOMEM;
    if (it->dense && (d->row_id || d->col_id)) {
        double *X = spread_dense(d, it->dense);
        if (!X)
            return IRCG_ERR_NOMEM;
        free(it->dense);
        it->dense = X;
    }
    if (!d->row_id)
        return IRCG_OK;
    if (!(it->row_ids = copy_ids(d->row_id, d->n_real)))
        return IRCG_ERR_NOMEM;
    if (d->agg_w > 0) {
        if (!(it->P_other = malloc(((size_t)k + 1) * sizeof *it->P_other)))
            return IRCG_ERR_NOMEM;
        for (int l = 0; l < k; l++)
            it->P_other[l] = it->P[(size_t)l * d->n + (size_t)d->n - 1] / d->agg_w;
    }
    for (int l = 0; l < k; l++) /* leading dimension n to n_real, in place */
        memmove(it->P + (size_t)l * d->n_real, it->P + (size_t)l * d->n,
                (size_t)d->n_real * sizeof *it->P);
    return IRCG_OK;
}
