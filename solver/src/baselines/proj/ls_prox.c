/*
 * ls_prox.c -- the projected-gradient steps of IR-PG and Bi-SG on least
 * squares (oracle.h: grad_step, accept).  The pending point keeps its
 * residual A y - b and its outer vector (Q y, or A_v y - b_v), so that
 * accepting it costs no product.
 */
#include <math.h>
#include <string.h>

#include "problems/domain.h"
#include "problems/ls/ls.h"

static void slot_arrays(ls_ws *w, unsigned slot, double **y, double **r, double **q)
{
    int z = slot == IRCG_SLOT_Z;
    *y = z ? w->z : w->x;
    *r = z ? w->rz : w->rx;
    *q = z ? w->qz : w->qx;
}

static ircg_error ls_grad_step(void *p, unsigned from, double a_f, double a_g,
                        int project, ircg_projection mode, slv_move *mv)
{
    ls_ws *w = p;
    const ls_data *d = w->d;
    double *y, *ry, *qy, *gg = w->g, *gf = w->v; /* scratch: g and v */
    slv_ksum gfd = {0, 0}, ggd = {0, 0}, dd = {0, 0}, hg = {0, 0};
    ircg_error err;

    (void)mode; /* vector domains project exactly */
    if ((from != IRCG_SLOT_X && from != IRCG_SLOT_Z) || !isfinite(a_f) || !isfinite(a_g))
        return IRCG_ERR_INVALID;
    slot_arrays(w, from, &y, &ry, &qy);
    w->have_v = 0; /* v is scratch from here on */
    ls_rmatvec(d, ry, gg);
    memset(gf, 0, (size_t)d->n * sizeof *gf);
    ls_f_grad_add(d, 1.0, y, qy, gf);
    for (int i = 0; i < d->n; i++)
        w->xp[i] = y[i] - a_f * gf[i] - a_g * gg[i];
    if (project && (err = slv_domain_project(&d->dom, w->xp, d->n, w->xp)) != IRCG_OK)
        return err;
    ls_residual(d, w->xp, w->rp);
    if (ls_has_q(w))
        ls_qmatvec(d, w->xp, w->qp);
    if (!mv)
        return IRCG_OK;
    for (int i = 0; i < d->n; i++) {
        double di = w->xp[i] - y[i];
        slv_ksum_add(&gfd, gf[i] * di);
        slv_ksum_add(&ggd, gg[i] * di);
        slv_ksum_add(&dd, di * di);
    }
    for (int i = 0; i < d->m; i++) { /* A d = r_p - r_y */
        double ad = w->rp[i] - ry[i];
        slv_ksum_add(&hg, ad * ad);
    }
    *mv = (slv_move){
        .gf_d = slv_ksum_value(&gfd), .gg_d = slv_ksum_value(&ggd),
        .d_norm2 = slv_ksum_value(&dd), .d_hg_d = slv_ksum_value(&hg),
        .matvecs = 2, .converged = 1, .full = 0, .rank = 0,
    };
    mv->d_hf_d = ls_has_q(w) ? ls_f_curvature(d, w->xp, y, w->qp, qy) : mv->d_norm2;
    return isfinite(mv->gf_d) && isfinite(mv->gg_d) ? IRCG_OK : IRCG_ERR_NUMERICAL;
}

static ircg_error ls_accept(void *p, unsigned into)
{
    ls_ws *w = p;
    size_t n = (size_t)w->d->n, m = (size_t)w->d->m, nq = (size_t)ls_outer_len(w->d);

    if (!into || (into & ~(IRCG_SLOT_X | IRCG_SLOT_Z)))
        return IRCG_ERR_INVALID;
    for (unsigned slot = IRCG_SLOT_X; slot <= IRCG_SLOT_Z; slot <<= 1) {
        double *y, *r, *q;
        if (!(into & slot))
            continue;
        slot_arrays(w, slot, &y, &r, &q);
        memcpy(y, w->xp, n * sizeof *y);
        memcpy(r, w->rp, m * sizeof *r);
        if (ls_has_q(w))
            memcpy(q, w->qp, nq * sizeof *q);
    }
    return IRCG_OK;
}

const slv_proj_ops slv_ls_proj_ops = {
    .grad_step = ls_grad_step,
    .accept = ls_accept,
};
