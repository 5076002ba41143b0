/*
 * mc_prox.c -- the projection methods' workspace on matrix completion
 * (slv_mc_prox_ops, used by IR-PG and Bi-SG): life cycle, start points,
 * objective values.  The representation is described in mc_prox.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/proj/mc_prox.h"

static void prox_destroy(void *ws)
{
    mp_ws *w = ws;
    if (!w)
        return;
    mc_exec_free(&w->ex);
    mp_point_free(&w->x);
    mp_point_free(&w->z);
    mp_point_free(&w->pend);
    lmo_topk_free(w->tk);
    free(w->warm);
    free(w->dsum);
    free(w->tn);
    free(w->tp);
    free(w);
}

static ircg_error alloc_ws(const mc_data *d, const ircg_settings *s, mp_ws **out)
{
    mp_ws *w = calloc(1, sizeof *w);

    *out = w;
    if (!w)
        return IRCG_ERR_NOMEM;
    w->d = d;
    w->d0 = 0.01 * d->delta / d->m0;
    w->tol = s->lmo_tol;
    w->max_mv = s->lmo_max_matvecs;
    w->dsum = calloc(3 * (size_t)d->nchunk, sizeof(double));
    w->tn = malloc((size_t)d->n * sizeof(double));
    w->tp = malloc((size_t)d->p * sizeof(double));
    w->tk = lmo_topk_new(d->n, d->p);
    if (!w->dsum || !w->tn || !w->tp || !w->tk || mp_point_init(&w->x, d) != IRCG_OK ||
        mp_point_init(&w->z, d) != IRCG_OK || mp_point_init(&w->pend, d) != IRCG_OK)
        return IRCG_ERR_NOMEM;
    return mc_exec_init(&w->ex, d, s->threads);
}

/* x0 = U diag(s) V' from its SVD; the residual from the entries (exact). */
static ircg_error start_given(mp_ws *w, const double *x0, ircg_diag *diag)
{
    const mc_data *d = w->d;
    mp_point *x = &w->x;
    mc_given g = {0};
    double *held = NULL;
    ircg_error err = mc_given_held(d, x0, &held, diag);

    if (err == IRCG_OK && held)
        x0 = held;
    if (err != IRCG_OK || (err = mc_given_svd(d, x0, &g, diag)) != IRCG_OK) {
        free(held);
        return err;
    }
    if (mp_point_reserve(x, d, g.r) != IRCG_OK) {
        mc_given_free(&g);
        free(held);
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    }
    memcpy(x->P, g.U, (size_t)d->n * g.r * sizeof(double));
    for (int l = 0; l < g.r; l++)
        for (int j = 0; j < d->p; j++)
            x->Q[j + (size_t)l * d->p] = g.Vt[l + (size_t)j * d->m0];
    memcpy(x->s, g.s, (size_t)g.r * sizeof(double));
    x->k = g.r;
    mc_given_on_omega(d, x0, 1, x->r);
    mc_given_free(&g);
    free(held);
    mp_affine self = {.aff_r = 1.0, .src = x->r}; /* g from these entries */
    return mp_omega_residual(w, x, &self, NULL, NULL, NULL);
}

static ircg_error prox_create(const ircg_problem *pb, const ircg_settings *s,
                              void **out, ircg_diag *diag)
{
    const mc_data *d = mc_data_of(pb);
    mp_ws *w = NULL;
    ircg_error err;

    *out = NULL;
    if (alloc_ws(d, s, &w) != IRCG_OK) {
        err = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
        goto fail;
    }
    if (s->start == IRCG_START_GIVEN) {
        if ((err = start_given(w, s->x0, diag)) != IRCG_OK)
            goto fail;
    } else {
        w->x.a = s->start == IRCG_START_DEFAULT ? 1.0 : 0.0;
        if ((err = mp_omega_residual(w, &w->x, NULL, NULL, NULL, NULL)) != IRCG_OK)
            goto fail;
    }
    w->last_rank = w->x.k;
    mp_point_colsum(w, &w->x);
    if ((err = mp_point_f(w, &w->x)) != IRCG_OK ||
        (err = mp_point_copy(&w->z, &w->x, d)) != IRCG_OK) {
        slv_fail(diag, err, "", "%s", err == IRCG_ERR_NOMEM ? "out of memory" :
                  "the start point's objective is not finite");
        goto fail;
    }
    *out = w;
    return IRCG_OK;
fail:
    prox_destroy(w);
    return err;
}

static void prox_values(void *ws, const double *ref, slv_values *out)
{
    mp_ws *w = ws;

    out->g_x = w->x.g;
    out->g_z = w->z.g;
    out->f_x = w->x.f;
    out->f_z = w->z.f;
    if (ref) {
        out->g_gap_x = slv_half_sq_diff(w->x.r, ref, w->d->nnz);
        out->g_gap_z = slv_half_sq_diff(w->z.r, ref, w->d->nnz);
        mc_exec_count(&w->ex, 16); /* r, ref */
        mc_exec_count(&w->ex, 16);
    } else {
        out->g_gap_x = out->g_gap_z = NAN;
    }
    out->rank = w->x.k;
}

static void prox_traffic(void *ws, int64_t *passes, double *bytes, int *threads)
{
    mp_ws *w = ws;
    mc_exec_traffic(&w->ex, passes, bytes, threads);
}

static const double *prox_residual(void *ws, ircg_which which)
{
    mp_ws *w = ws;
    return which == IRCG_Z ? w->z.r : w->x.r;
}

const slv_oracle_ops slv_mc_prox_ops = {
    .name = "matrix_completion_prox",
    .create = prox_create,
    .destroy = prox_destroy,
    .values = prox_values,
    .residual = prox_residual,
    .iterate = mp_iterate,
    .save = mp_save,
    .restore = mp_restore,
    .traffic = prox_traffic,
    .restart = mp_restart,
};
