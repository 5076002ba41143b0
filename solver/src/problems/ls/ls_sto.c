/*
 * ls_sto.c -- the workspace of the stochastic methods (core/alg_sto.c) on
 * least squares and logistic regression, and their finite sums
 * (oracle.h, slv_sto_ops).
 *
 * g = sum_k g_k over the rows a_k of A: g_k(y) = 1/2 (a_k'y - b_k)^2
 * (least squares) or log(1 + exp(-b_k a_k'y)) (logistic regression, b the
 * labels), whose gradient is a_k times the scalar w_k = a_k'y - b_k or
 * b_k l'(b_k a_k'y): a row's gradient costs that row's entries and
 * nothing else.  f is the same kind of sum over the validation rows (the
 * validation loss) or no sum (a norm, a distance or a quadratic, whose
 * exact gradient the methods use).
 *
 * Unlike the families' own workspaces (ls_oracle.c, lr_oracle.c), this
 * one (ls_sto_ws, ls.h; FC-BiO's too, ls_point.c) carries no residuals or
 * margins: they would cost a pass over every
 * row at each step, which is what the methods avoid.  It keeps x, z and
 * the last vertex v; a step costs O(n); g and f are known only where a
 * certificate recomputes them from the point (ls_certify_at,
 * lr_certify_at), which the solver reports as the iteration's values.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "problems/domain.h"
#include "problems/logreg/lr.h"
#include "problems/ls/ls.h"

#define STO_STATE_TAG 0x31544f5347524349ULL /* "ICRGSTO1" */

typedef ls_sto_ws sto_ws;

static void sto_destroy(void *p)
{
    sto_ws *w = p;
    if (!w)
        return;
    free(w->x);
    free(w->z);
    free(w->v);
    free(w->scratch);
    ls_cert_buf_free(w->cb);
    free(w);
}

static ircg_error sto_create(const ircg_problem *pb, const ircg_settings *s, void **out,
                             ircg_diag *diag)
{
    const ls_data *d = pb->data;
    sto_ws *w = calloc(1, sizeof *w);
    size_t n = (size_t)d->n;
    ircg_error err;

    *out = NULL;
    if (!w || !(w->x = calloc(n, sizeof(double))) || !(w->z = calloc(n, sizeof(double))) ||
        !(w->v = calloc(n, sizeof(double)))) {
        sto_destroy(w);
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    }
    w->d = d;
    w->logistic = pb->info.kind == IRCG_PROBLEM_LOGISTIC;
    ls_sto_forget_values(w);
    if ((err = ls_start_point(d, s, w->x, diag)) != IRCG_OK) {
        sto_destroy(w);
        return err;
    }
    memcpy(w->z, w->x, n * sizeof *w->z);
    *out = w;
    return IRCG_OK;
}

/* ------------------------------------------------------ the finite sums -- */

/* The rows of g (outer 0) or of the validation loss (outer 1). */
static const ls_data *rows_of(const sto_ws *w, int outer)
{
    return outer ? w->d->vset : w->d;
}

static int64_t sto_rows(void *p, int outer)
{
    const sto_ws *w = p;
    if (!outer)
        return w->d->m;
    return w->d->outer == IRCG_OUTER_VALIDATION ? w->d->vset->m : 0;
}

/* a_k'y */
static double row_dot(const ls_data *d, int64_t k, const double *y)
{
    double s = 0;
    if (d->A) {
        const double *a = d->A + (size_t)k * (size_t)d->n;
        for (int j = 0; j < d->n; j++)
            s += a[j] * y[j];
        return s;
    }
    for (int64_t p = d->rowptr[k]; p < d->rowptr[k + 1]; p++)
        s += d->val[p] * y[d->colind[p]];
    return s;
}

/* out += c a_k */
static void row_axpy(const ls_data *d, int64_t k, double c, double *out)
{
    if (d->A) {
        const double *a = d->A + (size_t)k * (size_t)d->n;
        for (int j = 0; j < d->n; j++)
            out[j] += c * a[j];
        return;
    }
    for (int64_t p = d->rowptr[k]; p < d->rowptr[k + 1]; p++)
        out[d->colind[p]] += c * d->val[p];
}

/* The scalar of row k's gradient, grad h_k(y) = w_k a_k. */
static double row_weight(const ls_data *d, int logistic, int64_t k, const double *y)
{
    double s = row_dot(d, k, y);
    return logistic ? d->b[k] * lr_dloss(d->b[k] * s) : s - d->b[k];
}

static void sto_grad_rows(void *p, int outer, const double *y, const int64_t *idx, int64_t k,
                          double s, double *out)
{
    const sto_ws *w = p;
    const ls_data *d = rows_of(w, outer);
    for (int64_t i = 0; i < k; i++)
        row_axpy(d, idx[i], s * row_weight(d, w->logistic, idx[i], y), out);
}

/* The exact gradient of the outer objectives that are no sum. */
static void exact_f_grad(const ls_data *d, const double *y, double *out)
{
    if (d->outer == IRCG_OUTER_QUADRATIC) {
        cblas_dsymv(CblasRowMajor, CblasUpper, d->n, 1.0, d->Q, d->n, y, 1, 0.0, out, 1);
        for (int i = 0; d->q && i < d->n; i++)
            out[i] += d->q[i];
        return;
    }
    for (int i = 0; i < d->n; i++)
        out[i] = d->outer == IRCG_OUTER_DIST_SQ ? y[i] - d->c[i] : y[i];
}

static void sto_grad_full(void *p, int outer, const double *y, double *out)
{
    const sto_ws *w = p;
    if (outer && w->d->outer != IRCG_OUTER_VALIDATION) {
        exact_f_grad(w->d, y, out);
        return;
    }
    const ls_data *d = rows_of(w, outer);
    memset(out, 0, (size_t)d->n * sizeof *out);
    for (int64_t k = 0; k < d->m; k++)
        row_axpy(d, k, row_weight(d, w->logistic, k, y), out);
}

static const double *sto_point(void *p, ircg_which which)
{
    const sto_ws *w = p;
    return which == IRCG_Z ? w->z : w->x;
}

static void sto_lmo_dir(void *p, const double *c, slv_dir *dir)
{
    sto_ws *w = p;
    const ls_data *d = w->d;
    slv_ksum gd = {0, 0}, dd = {0, 0}, sc = {0, 0};
    slv_domain_lmo(&d->dom, c, d->n, w->v);
    for (int i = 0; i < d->n; i++) {
        double di = w->v[i] - w->x[i];
        slv_ksum_add(&gd, c[i] * di);
        slv_ksum_add(&dd, di * di);
        slv_ksum_add(&sc, fabs(c[i]) * (fabs(w->v[i]) + fabs(w->x[i])));
    }
    dir->gphi_d = slv_ksum_value(&gd);
    dir->gphi_scale = slv_ksum_value(&sc);
    dir->d_norm2 = slv_ksum_value(&dd);
    dir->top_sv = NAN;
    dir->converged = 1;
    w->have_v = 1;
}

/* ------------------------------------------------ the oracle operations -- */

/* The deterministic LMO (the full gradients), for completeness of the
 * table: the stochastic methods call lmo_dir with their estimators. */
static ircg_error sto_lmo(void *p, double sigma, slv_dir *dir)
{
    sto_ws *w = p;
    const ls_data *d = w->d;
    double *c = malloc((size_t)d->n * sizeof *c), *gf = malloc((size_t)d->n * sizeof *gf);
    if (!c || !gf) {
        free(c);
        free(gf);
        return IRCG_ERR_NOMEM;
    }
    sto_grad_full(w, 0, w->x, c);
    sto_grad_full(w, 1, w->x, gf);
    for (int i = 0; i < d->n; i++)
        c[i] += sigma * gf[i];
    sto_lmo_dir(w, c, dir);
    dir->samples = sto_rows(w, 0) + sto_rows(w, 1);
    free(c);
    free(gf);
    return isfinite(dir->gphi_d) ? IRCG_OK : IRCG_ERR_NUMERICAL;
}

static ircg_error sto_step(void *p, double alpha, double cz, double cx_old, double cx_new)
{
    sto_ws *w = p;
    if (!w->have_v || !(alpha >= 0 && alpha <= 1))
        return IRCG_ERR_INVALID;
    ls_step_arrays(w->x, w->z, w->v, NULL, w->d->n, alpha, cz, cx_old, cx_new, 0.0);
    w->have_v = 0;
    ls_sto_forget_values(w);
    return IRCG_OK;
}

void ls_sto_forget_values(ls_sto_ws *w)
{
    w->g_x = w->f_x = w->g_z = w->f_z = NAN;
}

/* Nothing is carried by the stochastic methods' steps: g and f come from
 * the certificates (core/solver.c); FC-BiO gives those of the points it
 * sets (ls_point.c). */
static void sto_values(void *p, const double *ref, slv_values *out)
{
    const sto_ws *w = p;
    (void)ref;
    *out = (slv_values){.g_x = w->g_x, .f_x = w->f_x, .g_z = w->g_z, .f_z = w->f_z,
                        .g_gap_x = NAN, .g_gap_z = NAN};
}

static const double *sto_residual(void *p, ircg_which which)
{
    (void)p;
    (void)which;
    return NULL; /* none is carried */
}

static ircg_error sto_iterate(void *p, ircg_which which, int want_dense, ircg_iterate **out)
{
    sto_ws *w = p;
    ircg_iterate *it = calloc(1, sizeof *it);
    (void)want_dense; /* the vector is always given */
    *out = NULL;
    if (!it || !(it->dense = malloc((size_t)w->d->n * sizeof *it->dense))) {
        free(it);
        return IRCG_ERR_NOMEM;
    }
    it->kind = w->logistic ? IRCG_PROBLEM_LOGISTIC : IRCG_PROBLEM_LEAST_SQUARES;
    it->n_rows = w->d->m;
    it->n_cols = w->d->n;
    it->dim = w->d->n;
    memcpy(it->dense, which == IRCG_Z ? w->z : w->x, (size_t)w->d->n * sizeof *it->dense);
    *out = it;
    return IRCG_OK;
}

static int state_arrays(sto_ws *w, double **arr, size_t *len)
{
    size_t n = (size_t)w->d->n;
    arr[0] = w->x, len[0] = n;
    arr[1] = w->z, len[1] = n;
    arr[2] = w->v, len[2] = n;
    return 3;
}

static ircg_error sto_save(void *p, slv_buf *out)
{
    sto_ws *w = p;
    double *arr[3];
    size_t len[3];
    int k = state_arrays(w, arr, len);
    return ls_state_save(out, STO_STATE_TAG, w->d, w->have_v, arr, len, k);
}

static ircg_error sto_restore(void *p, slv_rbuf *in, ircg_diag *diag)
{
    sto_ws *w = p;
    double *arr[3];
    size_t len[3];
    int k = state_arrays(w, arr, len);
    return ls_state_restore(in, STO_STATE_TAG, w->d, &w->have_v, arr, len, k,
                            "stochastic method's", diag);
}

static ircg_error sto_restart(void *p)
{
    sto_ws *w = p;
    memcpy(w->z, w->x, (size_t)w->d->n * sizeof *w->z);
    w->g_z = w->g_x;
    w->f_z = w->f_x;
    return IRCG_OK;
}

static ircg_error sto_certify(void *p, ircg_which which, double sigma, slv_cert *out)
{
    sto_ws *w = p;
    const double *y = which == IRCG_Z ? w->z : w->x;
    return w->logistic ? lr_certify_at(w->d, &w->cb, y, sigma, out)
                       : ls_certify_at(w->d, &w->cb, y, sigma, out);
}

const slv_oracle_ops slv_ls_sto_ops = {
    .name = "finite sum",
    .create = sto_create,
    .destroy = sto_destroy,
    .lmo = sto_lmo,
    .step = sto_step,
    .values = sto_values,
    .residual = sto_residual,
    .iterate = sto_iterate,
    .save = sto_save,
    .restore = sto_restore,
    .restart = sto_restart,
    .certify = sto_certify,
};

const slv_sto_ops slv_ls_sto = {
    .rows = sto_rows,
    .grad_rows = sto_grad_rows,
    .grad_full = sto_grad_full,
    .point = sto_point,
    .lmo_dir = sto_lmo_dir,
};
