/*
 * lr_oracle.c -- the logistic regression workspace and its oracle.
 *
 * The workspace keeps x, z, the last LMO vertex v and their margins A x,
 * A z, A v (and A_v x, A_v z, A_v v for the validation loss).  Margins are
 * affine in the iterate, so a step moves them like the iterate and costs
 * no product: an iteration is one product with A' (the gradient, with A_v'
 * for the validation loss) and one with A (at the new vertex, one column of
 * a dense A for the l1 ball and the simplex).  The direction is curved:
 * the exact step asks lr_slope, O(m) per evaluation.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/domain.h"
#include "problems/logreg/lr.h"

#define LR_STATE_TAG 0x31524c47524349ULL /* "ICRGLR1" */

static int has_val(const lr_ws *w) { return w->d->outer == IRCG_OUTER_VALIDATION; }
static int has_quad(const lr_ws *w) { return w->d->outer == IRCG_OUTER_QUADRATIC; }

static void lr_destroy(void *p)
{
    lr_ws *w = p;
    if (!w)
        return;
    double *arr[] = {w->x, w->z, w->v, w->g, w->mx, w->mz, w->mv, w->ux, w->uz, w->uv, w->w,
                     w->qa, w->qb};
    for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++)
        free(arr[i]);
    ls_cert_buf_free(w->cb);
    free(w->fl);
    free(w);
}

static lr_ws *ws_alloc(const ls_data *d)
{
    size_t n = (size_t)d->n, m = (size_t)d->m, mv = d->vset ? (size_t)d->vset->m : 0;
    lr_ws *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->d = d;
    w->x = calloc(n, sizeof(double));
    w->z = calloc(n, sizeof(double));
    w->v = calloc(n, sizeof(double));
    w->g = calloc(n, sizeof(double));
    w->mx = calloc(m, sizeof(double));
    w->mz = calloc(m, sizeof(double));
    w->mv = calloc(m, sizeof(double));
    w->w = calloc(m > mv ? m : mv, sizeof(double));
    int ok = w->x && w->z && w->v && w->g && w->mx && w->mz && w->mv && w->w;
    if (d->outer == IRCG_OUTER_QUADRATIC) { /* Q y and Q d of the quadratic f */
        w->qa = calloc(n, sizeof(double));
        w->qb = calloc(2 * n, sizeof(double)); /* d and Q d */
        ok = ok && w->qa && w->qb;
    }
    if (mv) {
        w->ux = calloc(mv, sizeof(double));
        w->uz = calloc(mv, sizeof(double));
        w->uv = calloc(mv, sizeof(double));
        ok = ok && w->ux && w->uz && w->uv;
    }
    if (!ok) {
        lr_destroy(w);
        return NULL;
    }
    return w;
}

static ircg_error lr_create(const ircg_problem *pb, const ircg_settings *s, void **out,
                            ircg_diag *diag)
{
    const ls_data *d = pb->data;
    lr_ws *w = ws_alloc(d);
    ircg_error err;

    *out = NULL;
    if (!w)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    if ((err = ls_start_point(d, s, w->x, diag)) != IRCG_OK) {
        lr_destroy(w);
        return err;
    }
    memcpy(w->z, w->x, (size_t)d->n * sizeof *w->z);
    ls_matvec(d, w->x, w->mx);
    memcpy(w->mz, w->mx, (size_t)d->m * sizeof *w->mz);
    if (has_val(w)) {
        assert(w->ux && w->uz); /* ws_alloc made them with the validation rows */
        ls_matvec(d->vset, w->x, w->ux);
        memcpy(w->uz, w->ux, (size_t)d->vset->m * sizeof *w->uz);
    }
    *out = w;
    return IRCG_OK;
}

/* grad f(x) of the outer objectives but the validation loss: x, x - c,
 * or Q x + q with Q x in qx (the caller's). */
static double norm_grad(const ls_data *d, const double *x, const double *qx, int i)
{
    if (d->outer == IRCG_OUTER_QUADRATIC)
        return qx[i] + (d->q ? d->q[i] : 0.0);
    return d->outer == IRCG_OUTER_DIST_SQ ? x[i] - d->c[i] : x[i];
}

/* c = sigma grad f(x) + A' w(x) into g (v is scratch here; a quadratic
 * f leaves Q x in qa). */
static void lr_gradient(lr_ws *w, double sigma)
{
    const ls_data *d = w->d;
    lr_weights(d->b, w->mx, NULL, d->m, w->w);
    ls_rmatvec(d, w->w, w->g);
    if (has_val(w)) { /* sigma A_v' w_v, through the scratch v */
        lr_weights(d->vset->b, w->ux, NULL, d->vset->m, w->w);
        ls_rmatvec(d->vset, w->w, w->v);
        for (int i = 0; i < d->n; i++)
            w->g[i] += sigma * w->v[i];
        return;
    }
    if (has_quad(w))
        ls_qmatvec(d, w->x, w->qa);
    for (int i = 0; i < d->n; i++)
        w->g[i] += sigma * norm_grad(d, w->x, w->qa, i);
}

/* The rounding scale of <c, v - x>: sum |c_i| (|x_i| + |v_i|) and, for each
 * loss, sum |w_k| (|A x|_k + |A v|_k) (the gradient's own rounding, which
 * dominates near an interior optimum, as for least squares). */
static double gap_scale(lr_ws *w, double sigma)
{
    const ls_data *d = w->d;
    slv_ksum k = {0, 0};
    for (int i = 0; i < d->n; i++)
        slv_ksum_add(&k, fabs(w->g[i]) * (fabs(w->x[i]) + fabs(w->v[i])));
    double s = slv_ksum_value(&k) + lr_weights(d->b, w->mx, w->mv, d->m, w->w);
    if (has_val(w))
        s += sigma * lr_weights(d->vset->b, w->ux, w->uv, d->vset->m, w->w);
    return s;
}

/* The curvature of f along d = v - x (d'Qd, or ||d||^2 = dd for the
 * norms; the validation loss's is not used): Q d through the scratch qb. */
static double f_curvature(lr_ws *w, double dd)
{
    const ls_data *d = w->d;
    if (!has_quad(w))
        return dd;
    for (int i = 0; i < d->n; i++)
        w->qb[i] = w->v[i] - w->x[i];
    ls_qmatvec(d, w->qb, w->qb + d->n);
    slv_ksum k = {0, 0};
    for (int i = 0; i < d->n; i++)
        slv_ksum_add(&k, w->qb[i] * w->qb[d->n + i]);
    return fmax(slv_ksum_value(&k), 0.0);
}

static ircg_error lr_lmo(void *p, double sigma, slv_dir *dir)
{
    lr_ws *w = p;
    const ls_data *d = w->d;
    slv_ksum gd = {0, 0}, dd = {0, 0}, fd = {0, 0};
    slv_face_move mv = {.kind = SLV_MOVE_FW};

    lr_gradient(w, sigma);
    slv_domain_lmo(&d->dom, w->g, d->n, w->v);
    if (dir->direction != IRCG_DIR_FRANK_WOLFE && /* v: the target (faces.h) */
        ls_face_lmo(d, dir->direction, w->g, w->x, w->v, &w->fl, &mv) != IRCG_OK)
        return IRCG_ERR_NOMEM;
    if (mv.kind == SLV_MOVE_FW) {
        ls_vertex_product(d, &d->dom, w->v, w->mv);
        if (has_val(w))
            ls_vertex_product(d->vset, &d->dom, w->v, w->uv);
    } else {
        ls_face_observe(d, &mv, w->fl, w->mx, NULL, w->mv);
        if (has_val(w))
            ls_face_observe(d->vset, &mv, w->fl, w->ux, NULL, w->uv);
    }
    for (int i = 0; i < d->n; i++) {
        double di = w->v[i] - w->x[i];
        slv_ksum_add(&gd, w->g[i] * di);
        slv_ksum_add(&dd, di * di);
        if (!has_val(w))
            slv_ksum_add(&fd, norm_grad(d, w->x, w->qa, i) * di);
    }
    w->fx_d = slv_ksum_value(&fd);
    double d_norm2 = slv_ksum_value(&dd);
    w->d_d = f_curvature(w, d_norm2);
    *dir = (slv_dir){.gphi_d = slv_ksum_value(&gd), .gphi_scale = gap_scale(w, sigma),
                     .direction = dir->direction, .fw_gap = mv.fw_gap,
                     .d_norm2 = d_norm2, .top_sv = NAN, .converged = 1, .curved = 1,
                     .matvecs = has_val(w) ? 4 : 2,
                     .samples = (int64_t)d->m + (has_val(w) ? d->vset->m : 0)};
    w->have_v = 1;
    return isfinite(dir->gphi_d) ? IRCG_OK : IRCG_ERR_NUMERICAL;
}

/* d/da Phi_sigma(x + a (v - x)) from the margins: O(m + m_v). */
static double lr_slope(void *p, double sigma, double a)
{
    lr_ws *w = p;
    const ls_data *d = w->d;
    double sg = lr_sum_slope(d->b, w->mx, w->mv, d->m, a);
    double sf = has_val(w) ? lr_sum_slope(d->vset->b, w->ux, w->uv, d->vset->m, a)
                           : w->fx_d + a * w->d_d;
    return sg + sigma * sf;
}

static ircg_error lr_step(void *p, double alpha, double cz, double cx_old, double cx_new)
{
    lr_ws *w = p;
    const ls_data *d = w->d;
    if (!w->have_v || !(alpha >= 0 && alpha <= 1))
        return IRCG_ERR_INVALID;
    ls_step_arrays(w->x, w->z, w->v, NULL, d->n, alpha, cz, cx_old, cx_new, 0.0);
    ls_step_arrays(w->mx, w->mz, w->mv, NULL, d->m, alpha, cz, cx_old, cx_new, 0.0);
    if (has_val(w))
        ls_step_arrays(w->ux, w->uz, w->uv, NULL, d->vset->m, alpha, cz, cx_old, cx_new, 0.0);
    w->have_v = 0;
    return IRCG_OK;
}

/* f at x (u: its validation margins); a quadratic f forms Q x in the
 * scratch qb. */
static double f_value(const lr_ws *w, const double *x, const double *u)
{
    const ls_data *d = w->d;
    slv_ksum k = {0, 0};
    if (has_val(w))
        return lr_sum(d->vset->b, u, NULL, d->vset->m);
    if (has_quad(w)) {
        ls_qmatvec(d, x, w->qb);
        for (int i = 0; i < d->n; i++)
            slv_ksum_add(&k, x[i] * (0.5 * w->qb[i] + (d->q ? d->q[i] : 0.0)));
        return slv_ksum_value(&k);
    }
    for (int i = 0; i < d->n; i++) {
        double e = d->outer == IRCG_OUTER_DIST_SQ ? x[i] - d->c[i] : x[i];
        slv_ksum_add(&k, 0.5 * e * e);
    }
    return slv_ksum_value(&k);
}

/* g - g(x*) termwise against the reference's margins A x*. */
static void lr_values(void *p, const double *ref, slv_values *out)
{
    lr_ws *w = p;
    const ls_data *d = w->d;
    out->g_x = lr_sum(d->b, w->mx, NULL, d->m);
    out->g_z = lr_sum(d->b, w->mz, NULL, d->m);
    out->f_x = f_value(w, w->x, w->ux);
    out->f_z = f_value(w, w->z, w->uz);
    out->g_gap_x = ref ? lr_sum(d->b, w->mx, ref, d->m) : NAN;
    out->g_gap_z = ref ? lr_sum(d->b, w->mz, ref, d->m) : NAN;
    out->rank = 0;
}

static const double *lr_margins(void *p, ircg_which which)
{
    lr_ws *w = p;
    return which == IRCG_Z ? w->mz : w->mx;
}

static ircg_error lr_iterate(void *p, ircg_which which, int want_dense, ircg_iterate **out)
{
    lr_ws *w = p;
    ircg_iterate *it = calloc(1, sizeof *it);
    (void)want_dense; /* the vector is always given */
    *out = NULL;
    if (!it || !(it->dense = malloc((size_t)w->d->n * sizeof *it->dense))) {
        free(it);
        return IRCG_ERR_NOMEM;
    }
    it->kind = IRCG_PROBLEM_LOGISTIC;
    it->n_rows = w->d->m;
    it->n_cols = w->d->n;
    it->dim = w->d->n;
    memcpy(it->dense, which == IRCG_Z ? w->z : w->x, (size_t)w->d->n * sizeof *it->dense);
    *out = it;
    return IRCG_OK;
}

static int state_arrays(lr_ws *w, double **arr, size_t *len)
{
    size_t n = (size_t)w->d->n, m = (size_t)w->d->m;
    int k = 0;
    arr[k] = w->x, len[k++] = n;
    arr[k] = w->z, len[k++] = n;
    arr[k] = w->v, len[k++] = n;
    arr[k] = w->mx, len[k++] = m;
    arr[k] = w->mz, len[k++] = m;
    arr[k] = w->mv, len[k++] = m;
    if (has_val(w)) {
        size_t mv = (size_t)w->d->vset->m;
        arr[k] = w->ux, len[k++] = mv;
        arr[k] = w->uz, len[k++] = mv;
        arr[k] = w->uv, len[k++] = mv;
    }
    return k;
}

/* The slope's cache (fx_d, d_d) belongs to the pending vertex: saved too. */
static ircg_error lr_save(void *p, slv_buf *out)
{
    lr_ws *w = p;
    double *arr[10], cache[2] = {w->fx_d, w->d_d};
    size_t len[10];
    int k = state_arrays(w, arr, len);
    arr[k] = cache, len[k++] = 2;
    return ls_state_save(out, LR_STATE_TAG, w->d, w->have_v, arr, len, k);
}

static ircg_error lr_restore(void *p, slv_rbuf *in, ircg_diag *diag)
{
    lr_ws *w = p;
    double *arr[10], cache[2] = {0, 0};
    size_t len[10];
    int k = state_arrays(w, arr, len);
    arr[k] = cache, len[k++] = 2;
    ircg_error err = ls_state_restore(in, LR_STATE_TAG, w->d, &w->have_v, arr, len, k,
                                      "logistic regression", diag);
    if (err == IRCG_OK) {
        w->fx_d = cache[0];
        w->d_d = cache[1];
    }
    return err;
}

/* z <- x with its margins (the cache belongs to the pending vertex). */
static ircg_error lr_restart(void *p)
{
    lr_ws *w = p;
    double *arr[9];
    size_t len[9];
    ls_state_restart(arr, len, state_arrays(w, arr, len));
    return IRCG_OK;
}

const slv_oracle_ops slv_lr_ops = {
    .name = "logistic regression",
    .directions = 1,
    .create = lr_create,
    .destroy = lr_destroy,
    .lmo = lr_lmo,
    .step = lr_step,
    .values = lr_values,
    .residual = lr_margins,
    .iterate = lr_iterate,
    .grad_singular_values = NULL,
    .slope = lr_slope,
    .save = lr_save,
    .restore = lr_restore,
    .restart = lr_restart,
    .certify = lr_certify,
};
