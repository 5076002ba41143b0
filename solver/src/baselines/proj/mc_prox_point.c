/*
 * mc_prox_point.c -- points of the projection workspace (mc_prox.h) and
 * the factored matrices x0 X0 + A C B' through which inner products and
 * norms are computed from small Gram matrices, never from n x p arrays.
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines/proj/mc_prox.h"

/* malloc that never returns NULL for a valid zero-size request */
static double *dalloc(size_t n) { return malloc((n ? n : 1) * sizeof(double)); }
static double *dzalloc(size_t n) { return calloc(n ? n : 1, sizeof(double)); }

ircg_error mp_point_init(mp_point *pt, const mc_data *d)
{
    *pt = (mp_point){.c = 1.0};
    pt->w = dzalloc((size_t)d->p);
    pt->cs = dzalloc((size_t)d->p);
    pt->r = dalloc((size_t)d->nnz);
    if (!pt->w || !pt->cs || !pt->r)
        return IRCG_ERR_NOMEM;
    return mp_point_reserve(pt, d, 4);
}

ircg_error mp_point_reserve(mp_point *pt, const mc_data *d, int cap)
{
    int ncap = pt->cap > 0 ? pt->cap : 4;
    if (cap <= pt->cap)
        return IRCG_OK;
    while (ncap < cap)
        ncap *= 2;
    double *P = realloc(pt->P, (size_t)d->n * ncap * sizeof *P);
    if (!P)
        return IRCG_ERR_NOMEM;
    pt->P = P;
    double *Q = realloc(pt->Q, (size_t)d->p * ncap * sizeof *Q);
    if (!Q)
        return IRCG_ERR_NOMEM;
    pt->Q = Q;
    double *s = realloc(pt->s, (size_t)ncap * sizeof *s);
    if (!s)
        return IRCG_ERR_NOMEM;
    pt->s = s;
    pt->cap = ncap;
    return IRCG_OK;
}

void mp_point_free(mp_point *pt)
{
    if (!pt)
        return;
    free(pt->P);
    free(pt->Q);
    free(pt->s);
    free(pt->w);
    free(pt->r);
    free(pt->cs);
    *pt = (mp_point){0};
}

int mp_shifted_w(const mc_data *d, const mp_point *y, double a_f, double *out)
{
    int colvar = d->outer == IRCG_OUTER_COLUMN_VARIANCE;
    if (!y->has_w && !(colvar && a_f != 0))
        return 0;
    for (int j = 0; j < d->p; j++)
        out[j] = (y->has_w ? (1.0 - a_f) * y->w[j] : 0.0) +
                 (colvar ? a_f / d->n_all * y->cs[j] : 0.0);
    return 1;
}

ircg_error mp_point_copy(mp_point *dst, const mp_point *src, const mc_data *d)
{
    int k = src->k;
    if (mp_point_reserve(dst, d, k) != IRCG_OK)
        return IRCG_ERR_NOMEM;
    memcpy(dst->P, src->P, (size_t)d->n * k * sizeof(double));
    memcpy(dst->Q, src->Q, (size_t)d->p * k * sizeof(double));
    memcpy(dst->s, src->s, (size_t)k * sizeof(double));
    memcpy(dst->w, src->w, (size_t)d->p * sizeof(double));
    memcpy(dst->cs, src->cs, (size_t)d->p * sizeof(double));
    memcpy(dst->r, src->r, (size_t)d->nnz * sizeof(double));
    dst->c = src->c;
    dst->a = src->a;
    dst->k = k;
    dst->has_w = src->has_w;
    dst->g = src->g;
    dst->f = src->f;
    return IRCG_OK;
}

static double col_sum(const double *x, int n)
{
    slv_ksum k = {0, 0};
    for (int i = 0; i < n; i++)
        slv_ksum_add(&k, x[i]);
    return slv_ksum_value(&k);
}

/* e'x for a row-side x (mc_row_sum), compensated. */
static double row_sum(const mc_data *d, const double *x)
{
    slv_ksum k = {0, 0};
    for (int i = 0; i < d->n_real; i++)
        slv_ksum_add(&k, x[i]);
    if (d->agg_w > 0)
        slv_ksum_add(&k, d->agg_w * x[d->n - 1]);
    return slv_ksum_value(&k);
}

/* colsum(y) = c (a d0 1_{m0} + Q diag(s) P'e) + n w */
void mp_point_colsum(const mp_ws *w, mp_point *pt)
{
    const mc_data *d = w->d;
    double ad = pt->c * pt->a * w->d0;

    for (int j = 0; j < d->p; j++)
        pt->cs[j] = (j < d->m0 ? ad : 0.0) + (pt->has_w ? d->n_all * pt->w[j] : 0.0);
    for (int l = 0; l < pt->k; l++) {
        double t = pt->c * pt->s[l] * row_sum(d, pt->P + (size_t)l * d->n);
        cblas_daxpy(d->p, t, pt->Q + (size_t)l * d->p, 1, pt->cs, 1);
    }
}

void mp_fm_free(mp_fm *f)
{
    if (!f)
        return;
    free(f->A);
    free(f->B);
    free(f->C);
    *f = (mp_fm){0};
}

ircg_error mp_fm_of_point(const mp_ws *w, const mp_point *pt, int with_w, mp_fm *out)
{
    const mc_data *d = w->d;
    int k = pt->k, e = with_w && pt->has_w, kk = k + e;

    *out = (mp_fm){.x0 = pt->c * pt->a, .ka = kk, .kb = kk};
    out->A = dalloc((size_t)d->n * kk);
    out->B = dalloc((size_t)d->p * kk);
    out->C = dzalloc((size_t)kk * kk);
    if (!out->A || !out->B || !out->C) {
        mp_fm_free(out);
        return IRCG_ERR_NOMEM;
    }
    memcpy(out->A, pt->P, (size_t)d->n * k * sizeof(double));
    memcpy(out->B, pt->Q, (size_t)d->p * k * sizeof(double));
    for (int l = 0; l < k; l++)
        out->C[l + (size_t)l * kk] = pt->c * pt->s[l];
    if (e) { /* 1 w' = (1 / sqrt(n)) e (sqrt(n) w)' */
        double sn = sqrt((double)d->n_all);
        for (int i = 0; i < d->n; i++)
            out->A[i + (size_t)k * d->n] = mc_row_weight(d, i) / sn;
        for (int j = 0; j < d->p; j++)
            out->B[j + (size_t)k * d->p] = sn * pt->w[j];
        out->C[k + (size_t)k * kk] = 1.0;
    }
    return IRCG_OK;
}

/* A' e (length k) for A with d->n rows */
static void ones_dot(const mc_data *d, const double *A, int k, double *out)
{
    for (int l = 0; l < k; l++)
        out[l] = row_sum(d, A + (size_t)l * d->n);
}

/* sum_lm C_lm T_lm over ka x kb (both leading dimension ka) */
static double frob_dot(const double *C, const double *T, int ka, int kb)
{
    slv_ksum s = {0, 0};
    for (size_t e = 0; e < (size_t)ka * kb; e++)
        slv_ksum_add(&s, C[e] * T[e]);
    return slv_ksum_value(&s);
}

/* <X0, F's low-rank part>, or <U X0, U L>:
 * <X0, A C B'> = d0 sum_lm C_lm (A[:m0]' B[:m0])_lm, and U subtracts
 * d0 (1'A) C (B[:m0]' 1) / n. */
static ircg_error x0_dot_L(const mp_ws *w, const mp_fm *f, int centered, double *out)
{
    const mc_data *d = w->d;
    int ka = f->ka, kb = f->kb;
    double *W = dalloc((size_t)ka * kb), *a1 = dalloc((size_t)ka);
    double *b1 = dalloc((size_t)kb), *t = dalloc((size_t)ka);

    *out = 0;
    if (!W || !a1 || !b1 || !t) {
        free(W);
        free(a1);
        free(b1);
        free(t);
        return IRCG_ERR_NOMEM;
    }
    if (ka > 0 && kb > 0) {
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, ka, kb, d->m0, 1.0, f->A,
                    d->n, f->B, d->p, 0.0, W, ka);
        *out = w->d0 * frob_dot(f->C, W, ka, kb);
        if (centered) {
            ones_dot(d, f->A, ka, a1);
            for (int l = 0; l < kb; l++) /* B[:m0]' 1 */
                b1[l] = col_sum(f->B + (size_t)l * d->p, d->m0);
            cblas_dgemv(CblasColMajor, CblasNoTrans, ka, kb, 1.0, f->C, ka, b1, 1, 0.0,
                        t, 1);
            *out -= w->d0 * cblas_ddot(ka, a1, 1, t, 1) / d->n_all;
        }
    }
    free(W);
    free(a1);
    free(b1);
    free(t);
    return IRCG_OK;
}

/* <A1 C1 B1', A2 C2 B2'> = sum C1 .* (GA C2 GB') with GA = A1'A2 (or
 * A1' U A2) and GB = B1'B2. */
static ircg_error L_dot_L(const mp_ws *w, const mp_fm *f1, const mp_fm *f2,
                          int centered, double *out)
{
    const mc_data *d = w->d;
    int a1 = f1->ka, b1 = f1->kb, a2 = f2->ka, b2 = f2->kb;
    double *GA = dalloc((size_t)a1 * a2), *GB = dalloc((size_t)b1 * b2);
    double *T1 = dalloc((size_t)a1 * b2), *T = dalloc((size_t)a1 * b1);
    double *o1 = dalloc((size_t)a1), *o2 = dalloc((size_t)a2);
    ircg_error err = IRCG_ERR_NOMEM;

    *out = 0;
    if (!GA || !GB || !T1 || !T || !o1 || !o2)
        goto done;
    err = IRCG_OK;
    if (!a1 || !b1 || !a2 || !b2)
        goto done;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, a1, a2, d->n, 1.0, f1->A, d->n,
                f2->A, d->n, 0.0, GA, a1);
    if (centered) {
        ones_dot(d, f1->A, a1, o1);
        ones_dot(d, f2->A, a2, o2);
        cblas_dger(CblasColMajor, a1, a2, -1.0 / d->n_all, o1, 1, o2, 1, GA, a1);
    }
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, b1, b2, d->p, 1.0, f1->B, d->p,
                f2->B, d->p, 0.0, GB, b1);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, a1, b2, a2, 1.0, GA, a1,
                f2->C, a2, 0.0, T1, a1);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, a1, b1, b2, 1.0, T1, a1, GB,
                b1, 0.0, T, a1);
    *out = frob_dot(f1->C, T, a1, b1);
done:
    free(GA);
    free(GB);
    free(T1);
    free(T);
    free(o1);
    free(o2);
    return err;
}

ircg_error mp_fm_inner(const mp_ws *w, const mp_fm *f1, const mp_fm *f2,
                       int centered, double *out)
{
    const mc_data *d = w->d;
    double x1 = f1->x0, x2 = f2->x0, t;
    slv_ksum s = {0, 0};
    ircg_error err;

    /* ||X0||^2 = d0^2 m0; its columns sum to d0 each (j < m0) */
    slv_ksum_add(&s, x1 * x2 * w->d0 * w->d0 * d->m0 *
                          (centered ? 1.0 - 1.0 / d->n_all : 1.0));
    if (x1 != 0) {
        if ((err = x0_dot_L(w, f2, centered, &t)) != IRCG_OK)
            return err;
        slv_ksum_add(&s, x1 * t);
    }
    if (x2 != 0) {
        if ((err = x0_dot_L(w, f1, centered, &t)) != IRCG_OK)
            return err;
        slv_ksum_add(&s, x2 * t);
    }
    if ((err = L_dot_L(w, f1, f2, centered, &t)) != IRCG_OK)
        return err;
    slv_ksum_add(&s, t);
    *out = slv_ksum_value(&s);
    return isfinite(*out) ? IRCG_OK : IRCG_ERR_NUMERICAL;
}

/* Thin QR of S (m x k): F (m x r, r = min(m, k)) orthonormal, R (r x k). */
static ircg_error thin_qr(double *S, int m, int k, double *R)
{
    int r = m < k ? m : k;
    double *tau = dalloc((size_t)r);
    ircg_error err = IRCG_ERR_NUMERICAL;

    if (!tau)
        return IRCG_ERR_NOMEM;
    if (LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, k, S, m, tau) != 0)
        goto done;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < r; i++)
            R[i + (size_t)j * r] = i <= j ? S[i + (size_t)j * m] : 0.0;
    if (LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, r, r, S, m, tau) != 0)
        goto done;
    err = IRCG_OK;
done:
    free(tau);
    return err;
}

ircg_error mp_fm_diff(const mp_ws *w, const mp_fm *f1, const mp_fm *f2, mp_fm *out)
{
    const mc_data *d = w->d;
    int ka = f1->ka + f2->ka, kb = f1->kb + f2->kb;
    int ra = d->n < ka ? d->n : ka, rb = d->p < kb ? d->p : kb;
    double *Cs = dzalloc((size_t)ka * kb), *Ra = dalloc((size_t)ra * ka);
    double *Rb = dalloc((size_t)rb * kb), *T = dalloc((size_t)ra * kb);
    ircg_error err = IRCG_ERR_NOMEM;

    *out = (mp_fm){.x0 = f1->x0 - f2->x0};
    out->A = dalloc((size_t)d->n * ka);
    out->B = dalloc((size_t)d->p * kb);
    out->C = dalloc((size_t)ra * rb);
    if (!Cs || !Ra || !Rb || !T || !out->A || !out->B || !out->C)
        goto fail;
    if (ka == 0 || kb == 0) {
        err = IRCG_OK;
        goto done;
    }
    /* stacked [A1 A2], [B1 B2] and blockdiag(C1, -C2) */
    memcpy(out->A, f1->A, (size_t)d->n * f1->ka * sizeof(double));
    memcpy(out->A + (size_t)d->n * f1->ka, f2->A, (size_t)d->n * f2->ka * sizeof(double));
    memcpy(out->B, f1->B, (size_t)d->p * f1->kb * sizeof(double));
    memcpy(out->B + (size_t)d->p * f1->kb, f2->B, (size_t)d->p * f2->kb * sizeof(double));
    for (int j = 0; j < f1->kb; j++)
        for (int i = 0; i < f1->ka; i++)
            Cs[i + (size_t)j * ka] = f1->C[i + (size_t)j * f1->ka];
    for (int j = 0; j < f2->kb; j++)
        for (int i = 0; i < f2->ka; i++)
            Cs[f1->ka + i + (size_t)(f1->kb + j) * ka] = -f2->C[i + (size_t)j * f2->ka];
    if ((err = thin_qr(out->A, d->n, ka, Ra)) != IRCG_OK ||
        (err = thin_qr(out->B, d->p, kb, Rb)) != IRCG_OK)
        goto fail;
    /* core Ra Cs Rb' (ra x rb) */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, ra, kb, ka, 1.0, Ra, ra, Cs,
                ka, 0.0, T, ra);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, ra, rb, kb, 1.0, T, ra, Rb, rb,
                0.0, out->C, ra);
    out->ka = ra;
    out->kb = rb;
    err = IRCG_OK;
    goto done;
fail:
    mp_fm_free(out);
done:
    free(Cs);
    free(Ra);
    free(Rb);
    free(T);
    return err;
}

ircg_error mp_point_f(const mp_ws *w, mp_point *pt)
{
    int colvar = w->d->outer == IRCG_OUTER_COLUMN_VARIANCE;
    mp_fm F;
    double v = 0;
    ircg_error err = mp_fm_of_point(w, pt, !colvar, &F);

    if (err == IRCG_OK)
        err = mp_fm_inner(w, &F, &F, colvar, &v);
    mp_fm_free(&F);
    pt->f = v > 0 ? 0.5 * v : 0.0; /* rounding can push a zero below 0 */
    return err;
}
