/*
 * mc_prox_step.c -- grad_step and accept of the projection workspace
 * (oracle.h).  The pending point is Proj(Y) (mc_project.c) or, without
 * projection, y - a_f grad f(y), which keeps y's factors:
 *   column variance: (1 - a_f) y + (a_f / n) 1 colsum(y)'   (U y = y - 11'y/n)
 *   1/2 ||y||^2:     (1 - a_f) y.
 * The move d = pending - y is described by exact scalars: the terms on
 * Omega from the two residuals, the others from d written with orthonormal
 * factors (mp_fm_diff), so that ||d|| carries no cancellation between the
 * two points when the step is small.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/proj/mc_prox.h"

static mp_point *slot_of(mp_ws *w, unsigned slot)
{
    return slot == IRCG_SLOT_Z ? &w->z : &w->x;
}

/* pending = y - a_f grad f(y), on y's factors; gam (p) receives
 * (a_f / n) colsum(y) for the column variance. */
static ircg_error outer_step(mp_ws *w, const mp_point *y, double a_f, double *gam)
{
    const mc_data *d = w->d;
    mp_point *pt = &w->pend;
    int colvar = d->outer == IRCG_OUTER_COLUMN_VARIANCE;
    int k = y->k;

    if (mp_point_reserve(pt, d, k) != IRCG_OK)
        return IRCG_ERR_NOMEM;
    memcpy(pt->P, y->P, (size_t)d->n * k * sizeof(double));
    memcpy(pt->Q, y->Q, (size_t)d->p * k * sizeof(double));
    memcpy(pt->s, y->s, (size_t)k * sizeof(double));
    pt->k = k;
    pt->a = y->a;
    pt->c = (1.0 - a_f) * y->c;
    pt->has_w = mp_shifted_w(d, y, a_f, pt->w);
    if (!pt->has_w)
        memset(pt->w, 0, (size_t)d->p * sizeof *pt->w);
    for (int j = 0; j < d->p; j++)
        gam[j] = colvar ? a_f / d->n_all * y->cs[j] : 0.0;
    return IRCG_OK;
}

/* gf_d, d_hf_d, d_norm2 of d = pending - y. */
static ircg_error move_norms(mp_ws *w, const mp_point *y, slv_move *mv)
{
    int colvar = w->d->outer == IRCG_OUTER_COLUMN_VARIANCE;
    int any_w = y->has_w || w->pend.has_w;
    mp_fm Fy = {0}, Fp = {0}, D = {0}, Fyw = {0}, Fpw = {0}, Dw = {0};
    ircg_error err;

    /* grad f(y) = U y (U 1 = 0: w drops out) or y */
    if ((err = mp_fm_of_point(w, y, !colvar, &Fy)) != IRCG_OK ||
        (err = mp_fm_of_point(w, &w->pend, !colvar, &Fp)) != IRCG_OK ||
        (err = mp_fm_diff(w, &Fp, &Fy, &D)) != IRCG_OK ||
        (err = mp_fm_inner(w, &Fy, &D, colvar, &mv->gf_d)) != IRCG_OK ||
        (err = mp_fm_inner(w, &D, &D, colvar, &mv->d_hf_d)) != IRCG_OK)
        goto done;
    if (colvar && any_w) { /* ||d||^2 needs the 1 w' terms */
        if ((err = mp_fm_of_point(w, y, 1, &Fyw)) != IRCG_OK ||
            (err = mp_fm_of_point(w, &w->pend, 1, &Fpw)) != IRCG_OK ||
            (err = mp_fm_diff(w, &Fpw, &Fyw, &Dw)) != IRCG_OK)
            goto done;
        err = mp_fm_inner(w, &Dw, &Dw, 0, &mv->d_norm2);
    } else {
        err = mp_fm_inner(w, &D, &D, 0, &mv->d_norm2);
    }
    mv->d_hf_d = fmax(mv->d_hf_d, 0.0);
    mv->d_norm2 = fmax(mv->d_norm2, 0.0);
done:
    mp_fm_free(&Fy);
    mp_fm_free(&Fp);
    mp_fm_free(&D);
    mp_fm_free(&Fyw);
    mp_fm_free(&Fpw);
    mp_fm_free(&Dw);
    return err;
}

ircg_error mp_grad_step(void *ws, unsigned from, double a_f, double a_g,
                        int project, ircg_projection mode, slv_move *mv)
{
    mp_ws *w = ws;
    mp_point *y;
    mp_proj_info pi = {.converged = 1};
    double gg = 0, hg = 0;
    ircg_error err;

    if ((from != IRCG_SLOT_X && from != IRCG_SLOT_Z) || !isfinite(a_f) ||
        !isfinite(a_g) || (!project && a_g != 0) ||
        (project && mode != IRCG_PROJ_PARTIAL && mode != IRCG_PROJ_FULL))
        return IRCG_ERR_INVALID;
    y = slot_of(w, from);
    w->have_pend = 0;
    if (project) {
        if ((err = mp_project(w, y, a_f, a_g, mode, &pi)) != IRCG_OK)
            return err;
        err = mp_omega_residual(w, &w->pend, NULL, y->r, &gg, &hg);
    } else {
        double *gam = w->tp;
        if ((err = outer_step(w, y, a_f, gam)) != IRCG_OK)
            return err;
        /* r_p = (1 - a_f)(r_y + M) + gam_j - M */
        mp_affine aff = {.aff_r = 1.0 - a_f, .aff_m = -a_f, .src = y->r, .gam = gam};
        err = mp_omega_residual(w, &w->pend, &aff, y->r, &gg, &hg);
    }
    if (err != IRCG_OK)
        return err;
    mp_point_colsum(w, &w->pend);
    if ((err = mp_point_f(w, &w->pend)) != IRCG_OK)
        return err;
    if (!isfinite(w->pend.g))
        return IRCG_ERR_NUMERICAL;
    if (mv) {
        *mv = (slv_move){.gg_d = gg, .d_hg_d = hg, .matvecs = pi.matvecs,
                          .converged = pi.converged, .full = pi.full, .rank = w->pend.k};
        if ((err = move_norms(w, y, mv)) != IRCG_OK)
            return err;
        if (!isfinite(mv->gf_d) || !isfinite(mv->gg_d) || !isfinite(mv->d_hg_d))
            return IRCG_ERR_NUMERICAL;
    }
    w->have_pend = 1;
    return IRCG_OK;
}

ircg_error mp_accept(void *ws, unsigned into)
{
    mp_ws *w = ws;

    if (!into || (into & ~(IRCG_SLOT_X | IRCG_SLOT_Z)) || !w->have_pend)
        return IRCG_ERR_INVALID;
    /* the first slot takes the pending point's buffers (a swap: the
     * residual alone is 8 MB on MovieLens); a second one gets a copy */
    mp_point *first = slot_of(w, into & IRCG_SLOT_X ? IRCG_SLOT_X : IRCG_SLOT_Z);
    mp_point tmp = *first;
    *first = w->pend;
    w->pend = tmp;
    w->have_pend = 0;
    if (into == (IRCG_SLOT_X | IRCG_SLOT_Z) &&
        mp_point_copy(slot_of(w, IRCG_SLOT_Z), first, w->d) != IRCG_OK)
        return IRCG_ERR_NOMEM;
    return IRCG_OK;
}

const slv_proj_ops slv_mc_proj_ops = {
    .grad_step = mp_grad_step,
    .accept = mp_accept,
};
