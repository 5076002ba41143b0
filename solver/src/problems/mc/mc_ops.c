/*
 * mc_ops.c -- the matrix-completion oracle (slv_mc_ops): workspace life
 * cycle, start points, the step and the objective values.
 */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/mc/mc.h"
#include "lmo/gram.h"
#include "lmo/lanczos.h"

static void mc_destroy(void *ws)
{
    mc_ws *w = ws;
    if (!w)
        return;
    mc_exec_free(&w->ex);
    lmo_lanczos_free(w->lz);
    lmo_gram_free(w->gram);
    mc_cert_free(w->cert);
    if (w->ext_free)
        w->ext_free(w->ext);
    free(w->P);
    free(w->Q);
    free(w->GP);
    free(w->GQ);
    free(w->W);
    free(w->sP);
    free(w->qm);
    free(w->x.K);
    free(w->z.K);
    free(w->x.r);
    free(w->z.r);
    free(w->x.xo);
    free(w->z.xo);
    free(w->qsq);
    free(w->u);
    free(w->v);
    free(w->pre_cv);
    free(w->pre_rtc);
    free(w->pre_a);
    free(w->st_u);
    free(w->st_v);
    free(w->Pu);
    free(w->Qv);
    free(w->tn);
    free(w->tn2);
    free(w->tp);
    free(w->tk);
    free(w->tk2);
    free(w->dsum);
    free(w->cbuf);
    free(w);
}

static ircg_error alloc_ws(const mc_data *d, const ircg_settings *s, mc_ws **out)
{
    mc_ws *w = calloc(1, sizeof *w);
    size_t nnz = (size_t)d->nnz;

    *out = w;
    if (!w)
        return IRCG_ERR_NOMEM;
    w->d = d;
    w->lmo_tol = s->lmo_tol;
    w->engine = s->lmo_engine;
    w->lmo_max_mv = s->lmo_max_matvecs;
    w->d0 = 0.01 * d->delta / d->m0;
    /* A product with the atoms reads (n + p) k doubles, one with R about
     * 12 |Omega| bytes.  Compressing once the atoms cost an eighth of the
     * sparse part measured best on MovieLens (0.56 s against 0.86 s for 110
     * iterations at |Omega| / (n + p), the break-even point): the iterates
     * there have numerical rank below 10. */
    w->compress_base = (int)(d->nnz_all / (8 * ((int64_t)d->n_all + d->p_all)));
    if (w->compress_base < 8)
        w->compress_base = 8;
    w->compress_at = w->compress_base;
    w->x.xo = slv_big_alloc(nnz * sizeof(double), 1);
    w->z.xo = slv_big_alloc(nnz * sizeof(double), 0);
    w->u = calloc((size_t)d->n, sizeof(double));
    w->v = calloc((size_t)d->p, sizeof(double));
    w->pre_cv = malloc((size_t)d->n * sizeof(double));
    w->pre_rtc = malloc((size_t)d->p * sizeof(double));
    w->pre_a = malloc((size_t)d->n * sizeof(double));
    w->tn = malloc((size_t)d->n * sizeof(double));
    w->tn2 = malloc((size_t)d->n * sizeof(double));
    w->tp = malloc((size_t)d->p * sizeof(double));
    w->dsum = calloc(MC_NSUM * (size_t)d->nchunk, sizeof(double));
    w->gram = lmo_gram_new(d->n, d->p, MC_LANCZOS_BASIS);
    if (!w->x.xo || !w->z.xo || !w->u || !w->v || !w->pre_cv ||
        !w->pre_rtc || !w->pre_a || !w->tn || !w->tn2 || !w->tp || !w->dsum ||
        !w->gram || mc_factors_reserve(w, 16) != IRCG_OK)
        return IRCG_ERR_NOMEM;
    lmo_gram_set_comm(w->gram, d->comm);
    return mc_exec_init(&w->ex, d, s->threads);
}

/* settings.x0 (column-major n x p) as atoms from its SVD (mc_start.c). */
static ircg_error start_given(mc_ws *w, const double *x0, ircg_diag *diag)
{
    const mc_data *d = w->d;
    int m0 = d->m0;
    mc_given g = {0};
    double *held = NULL;
    ircg_error err = mc_given_held(d, x0, &held, diag);

    if (err == IRCG_OK && held)
        x0 = held;
    if (err != IRCG_OK || (err = mc_given_svd(d, x0, &g, diag)) != IRCG_OK) {
        free(held);
        return err;
    }
    err = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    for (int i = 0; i < g.r; i++) {
        double *v = w->tp;
        for (int j = 0; j < d->p; j++)
            v[j] = g.Vt[i + (size_t)j * m0];
        if (mc_factors_reserve(w, w->k + 1) != IRCG_OK)
            goto done;
        int k = w->k;
        if (k > 0) {
            cblas_dgemv(CblasColMajor, CblasTrans, d->n, k, 1.0, w->P, d->n,
                        g.U + (size_t)i * d->n, 1, 0.0, w->Pu, 1);
            cblas_dgemv(CblasColMajor, CblasTrans, d->p, k, 1.0, w->Q, d->p, v, 1,
                        0.0, w->Qv, 1);
        }
        if (mc_append_atom(w, g.U + (size_t)i * d->n, v) != IRCG_OK)
            goto done;
        w->x.K[k + (size_t)k * w->cap] = w->z.K[k + (size_t)k * w->cap] = g.s[i];
    }
    mc_given_on_omega(d, x0, 0, w->x.xo);
    err = IRCG_OK;
done:
    mc_given_free(&g);
    free(held);
    return err;
}

static ircg_error mc_create(const ircg_problem *pb, const ircg_settings *s,
                            void **out, ircg_diag *diag)
{
    const mc_data *d = mc_data_of(pb);
    mc_ws *w = NULL;
    ircg_error err;

    *out = NULL;
    if (alloc_ws(d, s, &w) != IRCG_OK) {
        err = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
        goto fail;
    }
    if (s->start == IRCG_START_DEFAULT) { /* x.xo starts at 0 */
        w->x.a = 1.0;
        mc_omega_add_x0(w, w->x.xo, 1.0);
    } else if (s->start == IRCG_START_GIVEN) {
        if ((err = start_given(w, s->x0, diag)) != IRCG_OK)
            goto fail;
    }
    w->z.a = w->x.a;
    memcpy(w->z.xo, w->x.xo, (size_t)d->nnz * sizeof(double));
    mc_omega_sums(w);
    *out = w;
    return IRCG_OK;
fail:
    mc_destroy(w);
    return err;
}

/* The factored x' = (1 - alpha) x + alpha V and z' = cz z + (cx_old +
 * cx_new (1 - alpha)) x + cx_new alpha V, on the old block and the new
 * atom (room for which is reserved by the caller). */
static void step_factors(mc_ws *w, double alpha, double cz, double cx_old,
                         double cx_new)
{
    double a1 = 1.0 - alpha, dl = w->d->delta, ax_old = w->x.a;
    int k0 = w->k, c;

    w->x.a = a1 * ax_old;
    w->z.a = cz * w->z.a + cx_old * ax_old + cx_new * w->x.a;
    for (int j = 0; j < k0; j++)
        for (int i = 0; i < k0; i++) {
            size_t q = i + (size_t)j * w->cap;
            double xo = w->x.K[q], xn = a1 * xo;
            w->z.K[q] = cz * w->z.K[q] + cx_old * xo + cx_new * xn;
            w->x.K[q] = xn;
        }
    if (alpha != 0) {
        (void)mc_append_atom(w, w->u, w->v); /* cannot fail: reserved */
        c = w->cap;
        w->x.K[k0 + (size_t)k0 * c] = -alpha * dl;
        w->z.K[k0 + (size_t)k0 * c] = cx_new * (-alpha * dl);
    }
}

ircg_error mc_step(void *ws, double alpha, double cz, double cx_old,
                   double cx_new)
{
    mc_ws *w = ws;
    ircg_error err = IRCG_OK;
    int refresh = w->since_refresh + 1 >= MC_REFRESH_EVERY;

    if (!w->have_dir && alpha != 0)
        return IRCG_ERR_INVALID;
    if (mc_factors_reserve(w, w->k + 1) != IRCG_OK)
        return IRCG_ERR_NOMEM; /* nothing changed */
    /* The factors first: the planned LMO's first product needs the new X
     * (the pass on Omega does not read them).  A compression that fails
     * leaves valid uncompressed atoms: the pass still runs, so the state
     * stays consistent, and the error is returned after it. */
    step_factors(w, alpha, cz, cx_old, cx_new);
    if (w->k >= w->compress_at)
        err = mc_compress(w);
    /* The refresh replaces the incremental pass (without a planned
     * product: the LMO makes its first one itself); when it cannot run
     * (no memory), the pass keeps the state consistent, and the error is
     * returned after it. */
    ircg_error rerr = refresh && err == IRCG_OK ? mc_omega_refresh(w) : IRCG_ERR_INVALID;
    if (rerr != IRCG_OK) {
        int pre = err == IRCG_OK && w->plan_valid && w->have_v && !refresh &&
                  w->engine != IRCG_LMO_ARPACK && lmo_gram_keeps_start(w->v, w->d->p);
        if (pre)
            mc_gram_lowrank_in(w, w->plan_sigma, w->v, w->pre_a);
        mc_omega_step(w, alpha, cz, cx_old, cx_new, pre);
        w->since_refresh++;
        if (refresh && err == IRCG_OK)
            err = rerr;
    }
    w->plan_valid = 0;
    w->have_dir = 0;
    w->gen++;
    return err;
}

static void mc_values(void *ws, const double *ref, slv_values *out)
{
    mc_ws *w = ws;

    if (ref) /* the steps sum against it from now on */
        mc_reference_set(w, ref);
    if (!w->sums.valid)
        mc_omega_sums(w);
    out->g_x = w->sums.g_x;
    out->g_z = w->sums.g_z;
    out->f_x = mc_side_f(w, &w->x);
    out->f_z = mc_side_f(w, &w->z);
    out->g_gap_x = ref ? w->sums.gap_x : NAN;
    out->g_gap_z = ref ? w->sums.gap_z : NAN;
    out->rank = w->k;
}

static void mc_set_reference(void *ws, const double *ref)
{
    mc_reference_set(ws, ref);
}

static void mc_plan_lmo(void *ws, double sigma)
{
    mc_ws *w = ws;
    w->plan_valid = 1;
    w->plan_sigma = sigma;
}

static void mc_traffic(void *ws, int64_t *passes, double *bytes, int *threads)
{
    mc_ws *w = ws;
    mc_exec_traffic(&w->ex, passes, bytes, threads);
}

/* The z residual is not kept by the steps: made when asked (NULL when out
 * of memory). */
static const double *mc_residual(void *ws, ircg_which which)
{
    mc_ws *w = ws;
    const mc_data *d = w->d;

    if (which != IRCG_Z)
        return mc_x_residual(w);
    if (!w->z.r && !(w->z.r = slv_big_alloc((size_t)d->nnz * sizeof(double), 0)))
        return NULL;
    for (int64_t e = 0; e < d->nnz; e++)
        w->z.r[e] = w->z.xo[e] - mc_rating(d, e);
    return w->z.r;
}

const slv_oracle_ops slv_mc_ops = {
    .name = "matrix_completion",
    .create = mc_create,
    .destroy = mc_destroy,
    .lmo = mc_lmo,
    .step = mc_step,
    .values = mc_values,
    .residual = mc_residual,
    .iterate = mc_iterate,
    .grad_singular_values = mc_grad_singular_values,
    .certify_unique = mc_certify_unique,
    .save = mc_save,
    .whole_identity = mc_whole_identity,
    .save_whole = mc_save_whole,
    .split_whole = mc_split_whole,
    .restore = mc_restore,
    .set_reference = mc_set_reference,
    .plan_lmo = mc_plan_lmo,
    .traffic = mc_traffic,
    .restart = mc_restart,
    .certify = mc_certify,
    .snap_new = mc_snap_new,
    .snap_take = mc_snap_take,
    .snap_done = mc_snap_done,
    .snap_free = mc_snap_free,
};
