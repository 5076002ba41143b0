/*
 * mc_point.c -- FC-BiO's point oracle on matrix completion (oracle.h,
 * slv_point_ops) for small instances, and the workspace it runs on
 * (slv_mc_point_ops): x and z as dense matrices of the rows and columns
 * held (mc_data's compaction), every projection a dense SVD (mc_dense.c),
 * the certificates recomputed from the point (mc_point_cert.c).
 *
 * In the held coordinates the whole matrix is E Y with E'E = I (a held
 * row is a row of X, or the shared row scaled by agg_w = sqrt(its rows)
 * under the column variance), so norms, products, singular values and
 * the projection are the whole matrix's, and with e = E'1 (mc_row_sum):
 *   g(Y) = 1/2 ||P_Omega(Y) - M||^2,          grad g = P_Omega(Y) - M,
 *   f(Y) = 1/2 ||Y - e m'||^2, m = Y'e / n_all (column variance;
 *          E'UE = I - ee'/n_all is a projection, e'e = n_all),
 *          grad f = Y - e m',
 *   f(Y) = 1/2 ||Y||^2, grad f = Y (half the squared norm).
 * The observation of Y (FC-BiO extrapolates it with the point) is the
 * residual on Omega in CSR order and, under the column variance, the
 * column sums Y'e: both affine in Y.
 *
 * Everything here runs on the calling thread in a fixed order, with
 * OpenBLAS's own kernels for the SVDs and the one product of a
 * projection: the same bits for any `threads`.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rounding.h"
#include "problems/mc/mc.h"

#define POINT_STATE_TAG 0x3154504d43524349ULL /* "ICRCMPT1" */

int mc_point_fits(const mc_data *d)
{
    double n = d->n, p = d->p;
    return !d->comm && n * p * fmin(n, p) <= MC_POINT_MAX_WORK;
}

static size_t np_of(const mc_data *d)
{
    return (size_t)d->n * (size_t)d->p;
}

static void point_destroy(void *p)
{
    mc_point_ws *w = p;
    if (!w)
        return;
    free(w->x);
    free(w->z);
    free(w->rx);
    free(w->rz);
    free(w->last);
    mc_svd_buf_free(&w->svd);
    mc_pcert_free(w->cert);
    free(w);
}

/* ------------------------------------------------------- the point ops -- */

static int64_t pt_dim(void *p)
{
    const mc_point_ws *w = p;
    return (int64_t)w->d->n * w->d->p;
}

static int64_t pt_obs_len(void *p)
{
    const mc_point_ws *w = p;
    return w->d->nnz + (w->colvar ? w->d->p : 0);
}

static void pt_observe(void *p, const double *y, double *o)
{
    const mc_point_ws *w = p;
    const mc_data *d = w->d;
    int n = d->n;
    for (int i = 0; i < n; i++)
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++)
            o[e] = y[i + (size_t)d->col[e] * n] - mc_rating(d, e);
    if (w->colvar)
        for (int j = 0; j < d->p; j++)
            o[d->nnz + j] = mc_row_sum(d, y + (size_t)j * n);
}

/* f from y and its column sums (NULL: half the squared norm). */
static double outer_value(const mc_point_ws *w, const double *y, const double *cs)
{
    const mc_data *d = w->d;
    if (!cs)
        return slv_half_sq(y, (int64_t)np_of(d));
    slv_ksum k = {0, 0};
    for (int j = 0; j < d->p; j++) {
        double m = cs[j] / d->n_all;
        for (int i = 0; i < d->n; i++) {
            double c = y[i + (size_t)j * d->n] - mc_row_weight(d, i) * m;
            slv_ksum_add(&k, 0.5 * c * c);
        }
    }
    return slv_ksum_value(&k);
}

static void pt_values(void *p, const double *y, const double *o, double *f, double *g)
{
    const mc_point_ws *w = p;
    *g = slv_half_sq(o, w->d->nnz);
    *f = outer_value(w, y, w->colvar ? o + w->d->nnz : NULL);
}

static void pt_grads(void *p, const double *y, const double *o, double *gf, double *gg)
{
    const mc_point_ws *w = p;
    const mc_data *d = w->d;
    int n = d->n;
    memset(gg, 0, np_of(d) * sizeof *gg);
    for (int i = 0; i < n; i++)
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++)
            gg[i + (size_t)d->col[e] * n] = o[e];
    if (!w->colvar) {
        memcpy(gf, y, np_of(d) * sizeof *gf);
        return;
    }
    for (int j = 0; j < d->p; j++) {
        double m = o[d->nnz + j] / d->n_all;
        for (int i = 0; i < n; i++)
            gf[i + (size_t)j * n] = y[i + (size_t)j * n] - mc_row_weight(d, i) * m;
    }
}

/* The projection, its output kept with its rank for set_point. */
static ircg_error pt_project(void *p, const double *y, double *out)
{
    mc_point_ws *w = p;
    ircg_error err = mc_project_nuclear(&w->svd, w->d->delta, y, out, &w->last_rank,
                                        &w->inside_hint);
    if (err != IRCG_OK) {
        w->last_rank = -1;
        return err;
    }
    memcpy(w->last, out, np_of(w->d) * sizeof *out);
    return IRCG_OK;
}

static const double *pt_point(void *p, ircg_which which)
{
    const mc_point_ws *w = p;
    return which == IRCG_Z ? w->z : w->x;
}

/* The rank of y, put into a slot that holds `cur` (of rank cur_rank), when
 * it is known without an SVD: y is that point again, the last projection's
 * output, or the other slot's point; -1 otherwise. */
static int known_rank(const mc_point_ws *w, const double *y, const double *cur, int cur_rank,
                      const double *other, int other_rank)
{
    size_t bytes = np_of(w->d) * sizeof *y;
    if (cur_rank >= 0 && memcmp(y, cur, bytes) == 0)
        return cur_rank;
    if (w->last_rank >= 0 && memcmp(y, w->last, bytes) == 0)
        return w->last_rank;
    if (other_rank >= 0 && memcmp(y, other, bytes) == 0)
        return other_rank;
    return -1;
}

static void pt_set_point(void *p, ircg_which which, const double *y, double f, double g)
{
    mc_point_ws *w = p;
    size_t bytes = np_of(w->d) * sizeof *y;
    if (which == IRCG_Z) {
        w->rank_z = known_rank(w, y, w->z, w->rank_z, w->x, w->rank_x);
        memmove(w->z, y, bytes);
        w->f_z = f, w->g_z = g;
    } else {
        w->rank_x = known_rank(w, y, w->x, w->rank_x, w->z, w->rank_z);
        memmove(w->x, y, bytes);
        w->f_x = f, w->g_x = g;
    }
}

const slv_point_ops slv_mc_point = {
    .dim = pt_dim,
    .obs_len = pt_obs_len,
    .observe = pt_observe,
    .values = pt_values,
    .grads = pt_grads,
    .project = pt_project,
    .point = pt_point,
    .set_point = pt_set_point,
};

/* --------------------------------------------------------- the start -- */

static ircg_error outside(ircg_diag *diag, double nuc, double delta)
{
    return slv_fail(diag, IRCG_ERR_INVALID, "/x0",
                    "x0 lies outside the nuclear ball: ||x0||_* = %.17g > delta = %.17g",
                    nuc, delta);
}

/* x = the given x0 (the whole n_all x p_all matrix) on the rows and
 * columns held: finite, and inside the ball as mc_start.c checks it. */
static ircg_error start_given(mc_point_ws *w, const double *x0, ircg_diag *diag)
{
    const mc_data *d = w->d;
    double *held = NULL;
    ircg_error err = mc_given_held(d, x0, &held, diag);
    if (err != IRCG_OK)
        return err;
    memcpy(w->x, held ? held : x0, np_of(d) * sizeof *w->x);
    free(held);
    for (size_t e = 0; e < np_of(d); e++)
        if (!isfinite(w->x[e]))
            return slv_fail(diag, IRCG_ERR_INVALID, "/x0", "x0 has a non-finite entry");
    memcpy(w->svd.a, w->x, np_of(d) * sizeof *w->x);
    if (mc_dense_svals(w->svd.a, d->n, d->p, w->svd.s) != 0)
        return slv_fail(diag, IRCG_ERR_NUMERICAL, "/x0", "SVD of x0 failed");
    double nuc = 0;
    for (int i = 0; i < w->svd.k; i++)
        nuc += w->svd.s[i];
    if (nuc > d->delta * (1 + 1e-12))
        return outside(diag, nuc, d->delta);
    return IRCG_OK;
}

/* f and g of x from its observation (scratch o). */
static void start_values(mc_point_ws *w, double *o)
{
    pt_observe(w, w->x, o);
    pt_values(w, w->x, o, &w->f_x, &w->g_x);
    w->f_z = w->f_x;
    w->g_z = w->g_x;
}

ircg_error mc_point_new(const mc_data *d, const ircg_settings *s, mc_point_ws **out,
                        ircg_diag *diag)
{
    mc_point_ws *w = calloc(1, sizeof *w);
    size_t np = np_of(d);
    ircg_error err;
    *out = NULL;
    if (d->comm) {
        free(w);
        return slv_fail(diag, IRCG_ERR_INVALID, "/algorithm",
                        "the dense point oracle holds the whole matrix: a distributed "
                        "problem is solved by ircg only");
    }
    if (!w || !(w->x = calloc(np, sizeof *w->x)) || !(w->z = malloc(np * sizeof *w->z)) ||
        !(w->last = malloc(np * sizeof *w->last)) ||
        !(w->rx = malloc((size_t)d->nnz * sizeof *w->rx + 1)) ||
        !(w->rz = malloc((size_t)d->nnz * sizeof *w->rz + 1)) ||
        mc_svd_buf_init(&w->svd, d->n, d->p) != 0) {
        point_destroy(w);
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    }
    w->d = d;
    w->colvar = d->outer == IRCG_OUTER_COLUMN_VARIANCE;
    w->d0 = 0.01 * d->delta / d->m0; /* the paper's X0, as mc_ops.c places it */
    w->last_rank = -1;
    w->inside_hint = 1; /* the start is inside, the first steps near it */
    if (s->start == IRCG_START_DEFAULT) {
        for (int i = 0; i < d->ndiag; i++)
            w->x[i + (size_t)i * d->n] = w->d0;
        w->rank_x = d->ndiag;
    } else if (s->start == IRCG_START_GIVEN) {
        if ((err = start_given(w, s->x0, diag)) != IRCG_OK) {
            point_destroy(w);
            return err;
        }
        w->rank_x = -1;
    }
    memcpy(w->z, w->x, np * sizeof *w->z);
    w->rank_z = w->rank_x;
    double *o = malloc(((size_t)d->nnz + (size_t)d->p) * sizeof *o);
    if (!o) {
        point_destroy(w);
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    }
    start_values(w, o);
    free(o);
    *out = w;
    return IRCG_OK;
}

/* The held matrix is FC-BiO's whole vector (pt_dim): on a compacted
 * problem the rows and columns without a rating are not moved one by one
 * (zero, or under the column variance one shared row), as in IR-CG. */
static ircg_error point_create(const ircg_problem *pb, const ircg_settings *s, void **out,
                               ircg_diag *diag)
{
    const mc_data *d = mc_data_of(pb);
    double work = (double)d->n * d->p * fmin(d->n, d->p);
    *out = NULL;
    if (!d->comm && !mc_point_fits(d))
        return slv_fail(diag, IRCG_ERR_INVALID, "/algorithm",
                        "FC-BiO projects onto the nuclear ball by a dense SVD of the %d x "
                        "%d matrix each step, offered while n p min(n, p) <= %.3g (here "
                        "%.3g): use IR-CG (auto's choice) or FC-BiO-CG, which need no projection",
                        d->n, d->p, MC_POINT_MAX_WORK, work);
    mc_point_ws *w = NULL;
    ircg_error err = mc_point_new(d, s, &w, diag);
    *out = w;
    return err;
}

/* ------------------------------------------------ the workspace's ops -- */

/* The residual of y on Omega, into r. */
static void residual_of(const mc_point_ws *w, const double *y, double *r)
{
    const mc_data *d = w->d;
    for (int i = 0; i < d->n; i++)
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++)
            r[e] = y[i + (size_t)d->col[e] * d->n] - mc_rating(d, e);
}

static const double *point_residual(void *p, ircg_which which)
{
    mc_point_ws *w = p;
    double *r = which == IRCG_Z ? w->rz : w->rx;
    residual_of(w, which == IRCG_Z ? w->z : w->x, r);
    return r;
}

/* The rank of a point not known from the projections: an SVD. */
static int rank_of(mc_point_ws *w, const double *y)
{
    return mc_svd_thin(&w->svd, y) == 0 ? mc_svd_rank(&w->svd) : 0;
}

/* The values set_point gave; g - g(x*) termwise against a reference. */
static void point_values(void *p, const double *ref, slv_values *out)
{
    mc_point_ws *w = p;
    *out = (slv_values){.g_x = w->g_x, .f_x = w->f_x, .g_z = w->g_z, .f_z = w->f_z,
                        .g_gap_x = NAN, .g_gap_z = NAN};
    if (ref) {
        out->g_gap_x = slv_half_sq_diff(point_residual(w, IRCG_X), ref, w->d->nnz);
        out->g_gap_z = slv_half_sq_diff(point_residual(w, IRCG_Z), ref, w->d->nnz);
    }
    if (w->rank_x < 0)
        w->rank_x = rank_of(w, w->x);
    out->rank = w->rank_x;
}

/* a0 X0 + P diag(w) Q' with a0 = 0 and the thin SVD of the point (its
 * values above min(n, p) eps sv_1: mc_svd_rank); dense: the point. */
static ircg_error point_iterate(void *p, ircg_which which, int want_dense, ircg_iterate **out)
{
    mc_point_ws *w = p;
    const mc_data *d = w->d;
    const double *y = which == IRCG_Z ? w->z : w->x;
    ircg_iterate *it = calloc(1, sizeof *it);
    ircg_error err = IRCG_ERR_NOMEM;
    *out = NULL;
    if (!it)
        return err;
    if (mc_svd_thin(&w->svd, y) != 0) {
        free(it);
        return IRCG_ERR_NUMERICAL;
    }
    int r = mc_svd_rank(&w->svd), rr = r > 0 ? r : 1, n = d->n, pc = d->p;
    it->kind = IRCG_PROBLEM_MATRIX_COMPLETION;
    it->a0 = 0.0;
    it->rank = r;
    it->x0_diag = malloc((size_t)d->m0 * sizeof *it->x0_diag);
    it->w = malloc((size_t)rr * sizeof *it->w);
    it->P = malloc((size_t)n * rr * sizeof *it->P);
    it->Q = malloc((size_t)pc * rr * sizeof *it->Q);
    if (want_dense)
        it->dense = malloc(np_of(d) * sizeof *it->dense);
    if (!it->x0_diag || !it->w || !it->P || !it->Q || (want_dense && !it->dense))
        goto fail;
    for (int i = 0; i < d->m0; i++)
        it->x0_diag[i] = w->d0;
    memcpy(it->w, w->svd.s, (size_t)r * sizeof *it->w);
    memcpy(it->P, w->svd.u, (size_t)n * r * sizeof *it->P);
    for (int l = 0; l < r; l++)
        for (int j = 0; j < pc; j++)
            it->Q[j + (size_t)l * pc] = w->svd.vt[l + (size_t)j * w->svd.k];
    if (want_dense)
        memcpy(it->dense, y, np_of(d) * sizeof *it->dense);
    if ((err = mc_iterate_finish(d, it)) != IRCG_OK)
        goto fail;
    *out = it;
    return IRCG_OK;
fail:
    ircg_iterate_free(it);
    return err;
}

/* tag, the shape, x and z, their values and ranks. */
static ircg_error point_save(void *p, slv_buf *b)
{
    mc_point_ws *w = p;
    const mc_data *d = w->d;
    slv_buf_put_u64(b, POINT_STATE_TAG);
    slv_buf_put_i64(b, d->n);
    slv_buf_put_i64(b, d->p);
    slv_buf_put_i64(b, d->nnz);
    slv_buf_put_i64(b, (int64_t)d->outer);
    slv_buf_put_f64s(b, w->x, np_of(d));
    slv_buf_put_f64s(b, w->z, np_of(d));
    double v[4] = {w->f_x, w->g_x, w->f_z, w->g_z};
    slv_buf_put_f64s(b, v, 4);
    slv_buf_put_i64(b, w->rank_x);
    slv_buf_put_i64(b, w->rank_z);
    slv_buf_put_i64(b, w->inside_hint);
    return b->failed ? IRCG_ERR_NOMEM : IRCG_OK;
}

/* Read whole into scratch first: a bad state leaves the workspace as it
 * was. */
static ircg_error point_restore(void *p, slv_rbuf *r, ircg_diag *diag)
{
    mc_point_ws *w = p;
    const mc_data *d = w->d;
    size_t np = np_of(d);
    uint64_t tag = slv_rbuf_u64(r);
    int64_t n = slv_rbuf_i64(r), pc = slv_rbuf_i64(r), nnz = slv_rbuf_i64(r);
    int64_t outer = slv_rbuf_i64(r);
    if (r->failed || tag != POINT_STATE_TAG || n != d->n || pc != d->p || nnz != d->nnz ||
        outer != (int64_t)d->outer)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        "the dense matrix-completion state does not match this problem "
                        "(%d x %d, %lld ratings)", d->n, d->p, (long long)d->nnz);
    if ((r->len - r->pos) / 8 < 2 * np + 7)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        "the dense matrix-completion state is truncated");
    double *t = malloc(2 * np * sizeof *t), v[4];
    if (!t)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    slv_rbuf_f64s(r, t, 2 * np);
    slv_rbuf_f64s(r, v, 4);
    int64_t rx = slv_rbuf_i64(r), rz = slv_rbuf_i64(r), hint = slv_rbuf_i64(r);
    int ok = !r->failed && rx >= -1 && rx <= w->svd.k && rz >= -1 && rz <= w->svd.k &&
             (hint == 0 || hint == 1);
    for (size_t e = 0; ok && e < 2 * np; e++)
        ok = isfinite(t[e]);
    if (!ok) {
        free(t);
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        "the dense matrix-completion state is corrupt");
    }
    memcpy(w->x, t, np * sizeof *t);
    memcpy(w->z, t + np, np * sizeof *t);
    free(t);
    w->f_x = v[0], w->g_x = v[1], w->f_z = v[2], w->g_z = v[3];
    w->rank_x = (int)rx;
    w->rank_z = (int)rz;
    w->inside_hint = (int)hint;
    w->last_rank = -1;
    return IRCG_OK;
}

static ircg_error point_restart(void *p)
{
    mc_point_ws *w = p;
    memcpy(w->z, w->x, np_of(w->d) * sizeof *w->z);
    w->f_z = w->f_x;
    w->g_z = w->g_x;
    w->rank_z = w->rank_x;
    return IRCG_OK;
}

const slv_oracle_ops slv_mc_point_ops = {
    .name = "matrix_completion_dense",
    .create = point_create,
    .destroy = point_destroy,
    .values = point_values,
    .residual = point_residual,
    .iterate = point_iterate,
    .save = point_save,
    .restore = point_restore,
    .restart = point_restart,
    .certify = mc_point_certify,
};
