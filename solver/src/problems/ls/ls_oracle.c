/*
 * ls_oracle.c -- the least squares workspace and its oracle operations.
 *
 * The workspace keeps x, z, the last LMO vertex v, and the residuals
 * r_x = A x - b, r_z = A z - b, r_v = A v - b.  Since x' = x + a (v - x) is
 * affine, r(x') = r_x + a (r_v - r_x): each iteration costs one product
 * with A' (the gradient) and one with A (at the new vertex), and no others.
 * For a quadratic outer f, Q x, Q z and Q v are carried the same way.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/domain.h"
#include "problems/ls/ls.h"

#define LS_STATE_TAG 0x31534c47524349ULL /* "ICRGLS1" */
/* Membership tolerance of given start points, relative to the scale. */
#define START_TOL 1e-9

static void ls_destroy(void *p)
{
    ls_ws *w = p;
    if (!w)
        return;
    free(w->x);
    free(w->z);
    free(w->v);
    free(w->g);
    free(w->rx);
    free(w->rz);
    free(w->rv);
    free(w->qx);
    free(w->qz);
    free(w->qv);
    free(w->xp);
    free(w->rp);
    free(w->qp);
    ls_cert_buf_free(w->cb);
    free(w->fl);
    free(w);
}

static ls_ws *ws_alloc(const ls_data *d)
{
    size_t n = (size_t)d->n, m = (size_t)d->m;
    ls_ws *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->d = d;
    w->x = calloc(n, sizeof *w->x);
    w->z = calloc(n, sizeof *w->z);
    w->v = calloc(n, sizeof *w->v);
    w->g = calloc(n, sizeof *w->g);
    w->rx = calloc(m, sizeof *w->rx);
    w->rz = calloc(m, sizeof *w->rz);
    w->rv = calloc(m, sizeof *w->rv);
    w->xp = calloc(n, sizeof *w->xp);
    w->rp = calloc(m, sizeof *w->rp);
    int ok = w->x && w->z && w->v && w->g && w->rx && w->rz && w->rv && w->xp && w->rp;
    if (ls_has_q(w)) {
        size_t nq = (size_t)ls_outer_len(d);
        w->qx = calloc(nq, sizeof *w->qx);
        w->qz = calloc(nq, sizeof *w->qz);
        w->qv = calloc(nq, sizeof *w->qv);
        w->qp = calloc(nq, sizeof *w->qp);
        ok = ok && w->qx && w->qz && w->qv && w->qp;
    }
    if (!ok) {
        ls_destroy(w);
        return NULL;
    }
    return w;
}

ircg_error ls_start_point(const ls_data *d, const ircg_settings *s, double *x,
                          ircg_diag *diag)
{
    switch (s->start) {
    case IRCG_START_DEFAULT:
        slv_domain_start(&d->dom, d->n, x);
        return IRCG_OK;
    case IRCG_START_ZERO:
        memset(x, 0, (size_t)d->n * sizeof *x);
        if (!slv_domain_contains(&d->dom, x, d->n, START_TOL))
            return slv_fail(diag, IRCG_ERR_INVALID, "/start",
                             "the start 0 does not lie in the domain");
        return IRCG_OK;
    case IRCG_START_GIVEN:
        if (!s->x0)
            return slv_fail(diag, IRCG_ERR_INVALID, "/x0", "x0 is NULL");
        memcpy(x, s->x0, (size_t)d->n * sizeof *x);
        if (!slv_domain_contains(&d->dom, x, d->n, START_TOL))
            return slv_fail(diag, IRCG_ERR_INVALID, "/x0",
                             "x0 is not finite or does not lie in the domain");
        return IRCG_OK;
    default:
        return slv_fail(diag, IRCG_ERR_INVALID, "/start", "unknown start %d",
                         (int)s->start);
    }
}

static ircg_error ls_create(const ircg_problem *pb, const ircg_settings *s,
                            void **out, ircg_diag *diag)
{
    const ls_data *d = pb->data;
    ircg_error err;
    ls_ws *w = ws_alloc(d);

    *out = NULL;
    if (!w)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    if ((err = ls_start_point(d, s, w->x, diag)) != IRCG_OK)
        goto fail;
    memcpy(w->z, w->x, (size_t)d->n * sizeof *w->z);
    ls_residual(d, w->x, w->rx);
    memcpy(w->rz, w->rx, (size_t)d->m * sizeof *w->rz);
    if (ls_has_q(w)) {
        ls_qmatvec(d, w->x, w->qx);
        memcpy(w->qz, w->qx, (size_t)ls_outer_len(d) * sizeof *w->qz);
    }
    *out = w;
    return IRCG_OK;
fail:
    ls_destroy(w);
    return err;
}

/* The nonzero of a 1-sparse vertex of the l1 ball or the simplex, when A
 * is dense (then A v is one column, O(m) instead of a product); else -1. */
static int sparse_vertex(const ls_data *d, const ircg_domain *dom, const double *v)
{
    if (!d->A || (dom->kind != IRCG_DOMAIN_L1_BALL && dom->kind != IRCG_DOMAIN_SIMPLEX))
        return -1;
    for (int k = 0; k < d->n; k++)
        if (v[k] != 0)
            return k;
    return -1;
}

void ls_vertex_residual(const ls_data *d, const double *v, double *rv)
{
    int j = sparse_vertex(d, &d->dom, v);
    if (j < 0) {
        ls_residual(d, v, rv);
        return;
    }
    for (int i = 0; i < d->m; i++)
        rv[i] = d->A[(size_t)i * d->n + j] * v[j] - d->b[i];
}

void ls_vertex_product(const ls_data *d, const ircg_domain *dom, const double *v,
                       double *y)
{
    int j = sparse_vertex(d, dom, v);
    if (j < 0) {
        ls_matvec(d, v, y);
        return;
    }
    for (int i = 0; i < d->m; i++)
        y[i] = d->A[(size_t)i * d->n + j] * v[j];
}

/* c = sigma grad f(x) + A' r_x, v = LMO(c) -- or, for an away or pairwise
 * direction, its target (problems/faces.h) -- and the scalars of
 * d = v - x. */
static ircg_error ls_lmo(void *p, double sigma, slv_dir *dir)
{
    ls_ws *w = p;
    const ls_data *d = w->d;
    slv_ksum gd = {0, 0}, dd = {0, 0}, hg = {0, 0}, sc = {0, 0};
    slv_face_move mv = {.kind = SLV_MOVE_FW};

    ls_rmatvec(d, w->rx, w->g);
    ls_f_grad_add(d, sigma, w->x, w->qx, w->g);
    slv_domain_lmo(&d->dom, w->g, d->n, w->v);
    if (dir->direction != IRCG_DIR_FRANK_WOLFE &&
        ls_face_lmo(d, dir->direction, w->g, w->x, w->v, &w->fl, &mv) != IRCG_OK)
        return IRCG_ERR_NOMEM;
    if (mv.kind == SLV_MOVE_FW)
        ls_vertex_residual(d, w->v, w->rv);
    else
        ls_face_observe(d, &mv, w->fl, w->rx, d->b, w->rv);
    if (ls_has_q(w))
        ls_qmatvec(d, w->v, w->qv);
    for (int i = 0; i < d->n; i++) {
        double di = w->v[i] - w->x[i];
        slv_ksum_add(&gd, w->g[i] * di);
        slv_ksum_add(&sc, fabs(w->g[i]) * (fabs(w->v[i]) + fabs(w->x[i])));
        slv_ksum_add(&dd, di * di);
    }
    for (int i = 0; i < d->m; i++) { /* A d = r_v - r_x */
        double ad = w->rv[i] - w->rx[i];
        slv_ksum_add(&hg, ad * ad);
        slv_ksum_add(&sc, fabs(w->rx[i]) * (fabs(w->rx[i]) + fabs(w->rv[i])));
    }
    dir->gphi_d = slv_ksum_value(&gd);
    dir->gphi_scale = slv_ksum_value(&sc);
    dir->d_norm2 = slv_ksum_value(&dd);
    dir->d_hf_d = ls_has_q(w) ? ls_f_curvature(d, w->v, w->x, w->qv, w->qx) : dir->d_norm2;
    dir->gf_d = ls_f_slope(d, w->v, w->x, w->qv, w->qx);
    dir->d_hg_d = slv_ksum_value(&hg);
    dir->top_sv = NAN;
    dir->matvecs = 2;
    dir->samples = (int64_t)d->m + (d->outer == IRCG_OUTER_VALIDATION ? d->vset->m : 0);
    dir->converged = 1;
    dir->fw_gap = mv.fw_gap;
    w->have_v = 1;
    return isfinite(dir->gphi_d) ? IRCG_OK : IRCG_ERR_NUMERICAL;
}

void ls_step_arrays(double *x, double *z, const double *v, const double *b,
                    int64_t len, double a, double cz, double co, double cn, double e)
{
    for (int64_t i = 0; i < len; i++) {
        double xn = a == 1.0 ? v[i] : x[i] + a * (v[i] - x[i]);
        z[i] = cz * z[i] + co * x[i] + cn * xn + (b ? e * b[i] : 0.0);
        x[i] = xn;
    }
}

ircg_error ls_step(void *p, double alpha, double cz, double cx_old,
                   double cx_new)
{
    ls_ws *w = p;
    const ls_data *d = w->d;

    if (!w->have_v || !(alpha >= 0 && alpha <= 1))
        return IRCG_ERR_INVALID;
    /* A z' - b = cz r_z + co r_x + cn r_x' + (cz + co + cn - 1) b: the
     * weights sum to 1 in exact arithmetic; keep the residual consistent
     * with z' if they do not after rounding. */
    double e = cz + cx_old + cx_new - 1.0;
    ls_step_arrays(w->x, w->z, w->v, NULL, d->n, alpha, cz, cx_old, cx_new, 0.0);
    ls_step_arrays(w->rx, w->rz, w->rv, d->b, d->m, alpha, cz, cx_old, cx_new, e);
    if (ls_has_q(w)) /* o(x) = L x - shift, shifted like the residual */
        ls_step_arrays(w->qx, w->qz, w->qv, ls_outer_shift(d), ls_outer_len(d), alpha,
                       cz, cx_old, cx_new, e);
    w->have_v = 0;
    return IRCG_OK;
}

static void ls_values(void *p, const double *ref, slv_values *out)
{
    ls_ws *w = p;
    const ls_data *d = w->d;

    out->g_x = slv_half_sq(w->rx, d->m);
    out->g_z = slv_half_sq(w->rz, d->m);
    out->f_x = ls_f_value(d, w->x, w->qx);
    out->f_z = ls_f_value(d, w->z, w->qz);
    out->g_gap_x = ref ? slv_half_sq_diff(w->rx, ref, d->m) : NAN;
    out->g_gap_z = ref ? slv_half_sq_diff(w->rz, ref, d->m) : NAN;
    out->rank = 0;
}

static const double *ls_residual_of(void *p, ircg_which which)
{
    ls_ws *w = p;
    return which == IRCG_Z ? w->rz : w->rx;
}

static ircg_error ls_iterate(void *p, ircg_which which, int want_dense,
                             ircg_iterate **out)
{
    ls_ws *w = p;
    const ls_data *d = w->d;
    ircg_iterate *it = calloc(1, sizeof *it);

    (void)want_dense; /* the vector is always given */
    *out = NULL;
    if (!it)
        return IRCG_ERR_NOMEM;
    it->kind = IRCG_PROBLEM_LEAST_SQUARES;
    it->n_rows = d->m;
    it->n_cols = d->n;
    it->dim = d->n;
    it->dense = malloc((size_t)d->n * sizeof *it->dense);
    if (!it->dense) {
        free(it);
        return IRCG_ERR_NOMEM;
    }
    memcpy(it->dense, which == IRCG_Z ? w->z : w->x, (size_t)d->n * sizeof *it->dense);
    *out = it;
    return IRCG_OK;
}

/* The arrays of the state, in checkpoint order. */
static int state_arrays(ls_ws *w, double **arr, size_t *len)
{
    size_t n = (size_t)w->d->n, m = (size_t)w->d->m;
    int k = 0;
    arr[k] = w->x, len[k++] = n;
    arr[k] = w->z, len[k++] = n;
    arr[k] = w->v, len[k++] = n;
    arr[k] = w->rx, len[k++] = m;
    arr[k] = w->rz, len[k++] = m;
    arr[k] = w->rv, len[k++] = m;
    if (ls_has_q(w)) {
        size_t nq = (size_t)ls_outer_len(w->d);
        arr[k] = w->qx, len[k++] = nq;
        arr[k] = w->qz, len[k++] = nq;
        arr[k] = w->qv, len[k++] = nq;
    }
    return k;
}

ircg_error ls_state_save(slv_buf *out, uint64_t tag, const ls_data *d, int have_v,
                         double *const *arr, const size_t *len, int k)
{
    slv_buf_put_u64(out, tag);
    slv_buf_put_i64(out, d->m);
    slv_buf_put_i64(out, d->n);
    slv_buf_put_i64(out, (int64_t)d->outer);
    slv_buf_put_i64(out, have_v);
    for (int i = 0; i < k; i++)
        slv_buf_put_f64s(out, arr[i], len[i]);
    return out->failed ? IRCG_ERR_NOMEM : IRCG_OK;
}

/* Reads everything into a scratch copy first, so that a bad checkpoint
 * leaves the workspace untouched. */
ircg_error ls_state_restore(slv_rbuf *in, uint64_t tag, const ls_data *d, int *have_v,
                            double *const *arr, const size_t *len, int k,
                            const char *what, ircg_diag *diag)
{
    double *tmp = NULL;
    size_t total = 0;
    ircg_error err = IRCG_OK;

    uint64_t t = slv_rbuf_u64(in);
    int64_t m = slv_rbuf_i64(in), n = slv_rbuf_i64(in);
    int64_t outer = slv_rbuf_i64(in), hv = slv_rbuf_i64(in);
    if (in->failed || t != tag || m != d->m || n != d->n ||
        outer != (int64_t)d->outer || (hv != 0 && hv != 1))
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "the %s state does not match this problem (m = %d, n = %d)",
                         what, d->m, d->n);
    for (int i = 0; i < k; i++)
        total += len[i];
    if ((in->len - in->pos) / 8 < total)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "the %s state is truncated", what);
    tmp = malloc(total * sizeof *tmp);
    if (!tmp)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    slv_rbuf_f64s(in, tmp, total);
    if (in->failed || !slv_domain_contains(&d->dom, tmp, d->n, 1e-6)) {
        err = slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        "the checkpoint's iterate is not in the domain");
        goto done;
    }
    for (size_t i = 0, off = 0; i < (size_t)k; off += len[i], i++)
        memcpy(arr[i], tmp + off, len[i] * sizeof *tmp);
    *have_v = (int)hv;
done:
    free(tmp);
    return err;
}

static ircg_error ls_save(void *p, slv_buf *out)
{
    ls_ws *w = p;
    double *arr[9];
    size_t len[9];
    int k = state_arrays(w, arr, len);
    return ls_state_save(out, LS_STATE_TAG, w->d, w->have_v, arr, len, k);
}

static ircg_error ls_restore(void *p, slv_rbuf *in, ircg_diag *diag)
{
    ls_ws *w = p;
    double *arr[9];
    size_t len[9];
    int k = state_arrays(w, arr, len);
    return ls_state_restore(in, LS_STATE_TAG, w->d, &w->have_v, arr, len, k,
                            "least squares", diag);
}

void ls_state_restart(double *const *arr, const size_t *len, int k)
{
    assert(k % 3 == 0);
    for (int i = 0; i + 2 < k; i += 3)
        memcpy(arr[i + 1], arr[i], len[i] * sizeof *arr[i]);
}

/* z <- x with its residual and outer vector. */
static ircg_error ls_restart(void *p)
{
    ls_ws *w = p;
    double *arr[9];
    size_t len[9];
    ls_state_restart(arr, len, state_arrays(w, arr, len));
    return IRCG_OK;
}

const slv_oracle_ops slv_ls_ops = {
    .name = "least_squares",
    .directions = 1,
    .create = ls_create,
    .destroy = ls_destroy,
    .lmo = ls_lmo,
    .step = ls_step,
    .values = ls_values,
    .residual = ls_residual_of,
    .iterate = ls_iterate,
    .grad_singular_values = NULL,
    .save = ls_save,
    .restore = ls_restore,
    .restart = ls_restart,
    .certify = ls_certify,
};
