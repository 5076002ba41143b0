/*
 * mc_prox_omega.c -- the pass over Omega of the projection workspace: the
 * residual of a point and, in the same pass, g and the two scalars of the
 * move from the previous point, sum r_y (r_p - r_y) and sum (r_p - r_y)^2.
 * g is about 7e6 on MovieLens while an Armijo test compares changes many
 * orders smaller, hence compensated sums; the chunks are fixed by the
 * problem and combined in order, so the thread count changes nothing.
 */
#include <assert.h>
#include <stdlib.h>

#include "baselines/proj/mc_prox.h"

typedef struct octx {
    mp_ws *w;
    mp_point *pt;
    const mp_affine *aff;
    const double *ref;
    const double *Pt, *SQt; /* k x n and k x p: rows of P and of Q diag(c s) */
    double diag;            /* c a d0 */
    int k;
} octx;

static void omega_task(void *vc, int c)
{
    const octx *o = vc;
    mp_ws *w = o->w;
    const mc_data *d = w->d;
    const mp_affine *aff = o->aff;
    const double *restrict ref = o->ref;
    const double *restrict wv = o->pt->has_w ? o->pt->w : NULL;
    const int32_t *restrict col = d->col;
    double *restrict r = o->pt->r;
    int k = o->k, lo = d->chunk_row[c], hi = d->chunk_row[c + 1];
    slv_ksum g = {0, 0}, gg = {0, 0}, hg = {0, 0};

    for (int i = lo; i < hi; i++) {
        const double *pi = k > 0 && o->Pt ? o->Pt + (size_t)i * k : NULL;
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++) {
            int j = col[e];
            double v;
            if (aff) {
                v = aff->aff_r * aff->src[e] + aff->aff_m * mc_rating(d, e);
                if (aff->gam)
                    v += aff->gam[j];
            } else {
                double s0 = 0, s1 = 0;
                if (k > 0) {
                    assert(pi); /* without aff, the factors Pt are given */
                    const double *qj = o->SQt + (size_t)j * k;
                    int l = 0;
                    for (; l + 2 <= k; l += 2) {
                        s0 += pi[l] * qj[l];
                        s1 += pi[l + 1] * qj[l + 1];
                    }
                    if (l < k)
                        s0 += pi[l] * qj[l];
                }
                v = s0 + s1;
                if (i == j)
                    v += o->diag; /* j < m0 holds as i = j */
                if (wv)
                    v += wv[j];
                v -= mc_rating(d, e);
            }
            r[e] = v;
            slv_ksum_add(&g, 0.5 * v * v);
            if (ref) {
                double dd = v - ref[e];
                slv_ksum_add(&gg, ref[e] * dd);
                slv_ksum_add(&hg, dd * dd);
            }
        }
    }
    w->dsum[3 * c + 0] = slv_ksum_value(&g);
    w->dsum[3 * c + 1] = slv_ksum_value(&gg);
    w->dsum[3 * c + 2] = slv_ksum_value(&hg);
}

static double chunk_total(const mp_ws *w, int slot)
{
    slv_ksum s = {0, 0};
    for (int c = 0; c < w->d->nchunk; c++)
        slv_ksum_add(&s, w->dsum[3 * c + slot]);
    return slv_ksum_value(&s);
}

ircg_error mp_omega_residual(mp_ws *w, mp_point *pt, const mp_affine *aff,
                             const double *ref, double *gg_d, double *hg_d)
{
    const mc_data *d = w->d;
    int k = pt->k;
    double *Pt = NULL, *SQt = NULL;
    octx o = {.w = w, .pt = pt, .aff = aff, .ref = ref, .k = k,
              .diag = pt->c * pt->a * w->d0};

    if (!aff && k > 0) {
        Pt = malloc((size_t)d->n * k * sizeof *Pt);
        SQt = malloc((size_t)d->p * k * sizeof *SQt);
        if (!Pt || !SQt) {
            free(Pt);
            free(SQt);
            return IRCG_ERR_NOMEM;
        }
        for (int l = 0; l < k; l++) {
            double cs = pt->c * pt->s[l];
            for (int i = 0; i < d->n; i++)
                Pt[l + (size_t)i * k] = pt->P[i + (size_t)l * d->n];
            for (int j = 0; j < d->p; j++)
                SQt[l + (size_t)j * k] = cs * pt->Q[j + (size_t)l * d->p];
        }
    }
    o.Pt = Pt;
    o.SQt = SQt;
    slv_pool_run(w->ex.pool, omega_task, &o, d->nchunk);
    /* col, m, r written, and the source residual or the reference */
    mc_exec_count(&w->ex, aff || ref ? 28 : 20);
    free(Pt);
    free(SQt);
    pt->g = chunk_total(w, 0);
    if (ref) {
        *gg_d = chunk_total(w, 1);
        *hg_d = chunk_total(w, 2);
    }
    return IRCG_OK;
}
