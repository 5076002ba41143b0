/*
 * mc_compress.c -- orthonormalize the atoms and drop the directions that
 * neither x nor z uses.  With P = Qp Rp and Q = Qq Rq (thin QR), both cores
 * become Rp K Rq'; the left space kept is that of [Kx Kz], the right space
 * that of [Kx; Kz], so x and z are both preserved to rounding.
 */
#include <assert.h>
#include <lapacke.h>
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/mc/mc.h"

/* Directions with joint weight below this fraction of the largest are
 * dropped: they change X by less than the rounding of its entries. */
#define MC_DROP_TOL 1e-14

/* Thin QR of A (m x k, ld m): F m x kk orthonormal, R kk x k (ld kk),
 * kk = min(m, k). */
ircg_error mc_thin_qr(const double *A, int m, int k, double *F, double *R)
{
    int kk = m < k ? m : k;
    double *tau = malloc((size_t)kk * sizeof *tau);
    double *T = malloc((size_t)m * k * sizeof *T);
    ircg_error err = IRCG_ERR_NUMERICAL;

    if (!tau || !T) {
        err = IRCG_ERR_NOMEM;
        goto done;
    }
    memcpy(T, A, (size_t)m * k * sizeof *T);
    if (LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, k, T, m, tau) != 0)
        goto done;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < kk; i++)
            R[i + (size_t)j * kk] = i <= j ? T[i + (size_t)j * m] : 0.0;
    if (LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, kk, kk, T, m, tau) != 0)
        goto done;
    memcpy(F, T, (size_t)m * kk * sizeof *F);
    err = IRCG_OK;
done:
    free(tau);
    free(T);
    return err;
}

/* M (kp x kq) = Rp K Rq' with K k x k (ld cap). */
static void small_core(const double *Rp, int kp, const double *K, int cap,
                       const double *Rq, int kq, int k, double *M, double *T)
{
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, kp, k, k, 1.0, Rp, kp,
                K, cap, 0.0, T, kp);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, kp, kq, k, 1.0, T, kp, Rq,
                kq, 0.0, M, kp);
}

typedef struct qr2 {
    int kp, kq;
    double *Fp, *Rp, *Fq, *Rq, *T;
} qr2;

static void qr2_free(qr2 *q)
{
    free(q->Fp);
    free(q->Rp);
    free(q->Fq);
    free(q->Rq);
    free(q->T);
}

static ircg_error qr2_make(const mc_ws *w, qr2 *q)
{
    const mc_data *d = w->d;
    int k = w->k;
    ircg_error err;

    /* distributed: the rows of P are spread, and its QR is a TSQR */
    q->kp = d->comm ? k : d->n < k ? d->n : k;
    q->kq = d->p < k ? d->p : k;
    q->Fp = malloc((size_t)d->n * q->kp * sizeof(double));
    q->Rp = malloc((size_t)q->kp * k * sizeof(double));
    q->Fq = malloc((size_t)d->p * q->kq * sizeof(double));
    q->Rq = malloc((size_t)q->kq * k * sizeof(double));
    q->T = malloc((size_t)q->kp * k * sizeof(double));
    if (!q->Fp || !q->Rp || !q->Fq || !q->Rq || !q->T)
        return IRCG_ERR_NOMEM;
    err = d->comm ? mc_dist_qr(d, w->P, k, q->Fp, q->Rp)
                  : mc_thin_qr(w->P, d->n, k, q->Fp, q->Rp);
    if (err != IRCG_OK)
        return err;
    return mc_thin_qr(w->Q, d->p, k, q->Fq, q->Rq);
}

/* LAPACKE checks its input for NaN, not for infinities; OpenBLAS's dbdsqr
 * never returns on a matrix holding one (found by fuzzing restored
 * states: tests/fuzz/regress/checkpoint).  Every SVD input is checked
 * here first and a non-finite one is a numerical breakdown. */
static int all_finite(const double *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(a[i]))
            return 0;
    return 1;
}

ircg_error mc_core_svd(const mc_ws *w, const double *K, double *Po, double *Qo,
                       double *sv, int *r)
{
    const mc_data *d = w->d;
    qr2 q = {0};
    double *M = NULL, *Um = NULL, *Vt = NULL, *sup = NULL;
    ircg_error err;
    int s;

    *r = 0;
    if (w->k == 0)
        return IRCG_OK;
    if ((err = qr2_make(w, &q)) != IRCG_OK)
        goto done;
    s = q.kp < q.kq ? q.kp : q.kq;
    M = malloc((size_t)q.kp * q.kq * sizeof *M);
    Um = malloc((size_t)q.kp * s * sizeof *Um);
    Vt = malloc((size_t)s * q.kq * sizeof *Vt);
    sup = malloc((size_t)s * sizeof *sup);
    err = IRCG_ERR_NOMEM;
    if (!M || !Um || !Vt || !sup)
        goto done;
    small_core(q.Rp, q.kp, K, w->cap, q.Rq, q.kq, w->k, M, q.T);
    err = IRCG_ERR_NUMERICAL;
    if (!all_finite(M, (size_t)q.kp * q.kq) ||
        LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', q.kp, q.kq, M, q.kp, sv, Um,
                       q.kp, Vt, s, sup) != 0)
        goto done;
    while (*r < s && sv[*r] > 0)
        (*r)++;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, d->n, *r, q.kp, 1.0,
                q.Fp, d->n, Um, q.kp, 0.0, Po, d->n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, d->p, *r, q.kq, 1.0, q.Fq,
                d->p, Vt, s, 0.0, Qo, d->p);
    err = IRCG_OK;
done:
    qr2_free(&q);
    free(M);
    free(Um);
    free(Vt);
    free(sup);
    return err;
}

/* Number of singular values above MC_DROP_TOL times the largest. */
static int kept(const double *s, int n)
{
    int r = 0;
    while (r < n && s[r] > MC_DROP_TOL * s[0])
        r++;
    return r;
}

/* Left basis of [Mx Mz] (kp x 2kq) into Ul (kp x kp), right basis of
 * [Mx; Mz] (2kp x kq) into Vrt (kq x kq, transposed); ranks r1, r2. */
static ircg_error joint_bases(const double *Mx, const double *Mz, int kp, int kq,
                              double *Ul, double *Vrt, int *r1, int *r2)
{
    int sl = kp < 2 * kq ? kp : 2 * kq, sr = 2 * kp < kq ? 2 * kp : kq;
    double *A = malloc(2 * (size_t)kp * kq * sizeof *A);
    double *s = malloc(((size_t)kp + kq) * 2 * sizeof *s);
    ircg_error err = IRCG_ERR_NOMEM;

    if (!A || !s)
        goto done;
    err = IRCG_ERR_NUMERICAL;
    memcpy(A, Mx, (size_t)kp * kq * sizeof *A);
    memcpy(A + (size_t)kp * kq, Mz, (size_t)kp * kq * sizeof *A);
    if (!all_finite(A, 2 * (size_t)kp * kq) ||
        LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'A', 'N', kp, 2 * kq, A, kp, s, Ul, kp,
                       NULL, 1, s + kp + kq) != 0)
        goto done;
    *r1 = kept(s, sl);
    for (int j = 0; j < kq; j++) /* stack [Mx; Mz], 2kp x kq */
        for (int i = 0; i < kp; i++) {
            A[i + (size_t)j * 2 * kp] = Mx[i + (size_t)j * kp];
            A[kp + i + (size_t)j * 2 * kp] = Mz[i + (size_t)j * kp];
        }
    if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'A', 2 * kp, kq, A, 2 * kp, s, NULL,
                       1, Vrt, kq, s + kp + kq) != 0)
        goto done;
    *r2 = kept(s, sr);
    err = IRCG_OK;
done:
    free(A);
    free(s);
    return err;
}

/* K (ld cap, r x r) = Ul_r' M Vr_r */
static void project_core(const double *Ul, int kp, const double *M,
                         const double *Vrt, int kq, int r, double *K, int cap,
                         double *T)
{
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, r, kq, kp, 1.0, Ul, kp, M,
                kp, 0.0, T, r);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, r, r, kq, 1.0, T, r, Vrt,
                kq, 0.0, K, cap);
}

ircg_error mc_compress(mc_ws *w)
{
    const mc_data *d = w->d;
    qr2 q = {0};
    double *Mx = NULL, *Mz = NULL, *Ul = NULL, *Vrt = NULL, *T = NULL;
    int r1 = 0, r2 = 0, r;
    ircg_error err = IRCG_OK;

    if (w->k == 0)
        goto done;
    if ((err = qr2_make(w, &q)) != IRCG_OK)
        goto done;
    err = IRCG_ERR_NOMEM;
    Mx = malloc((size_t)q.kp * q.kq * sizeof *Mx);
    Mz = malloc((size_t)q.kp * q.kq * sizeof *Mz);
    Ul = malloc((size_t)q.kp * q.kp * sizeof *Ul);
    Vrt = malloc((size_t)q.kq * q.kq * sizeof *Vrt);
    T = malloc((size_t)q.kp * q.kq * sizeof *T);
    if (!Mx || !Mz || !Ul || !Vrt || !T)
        goto done;
    small_core(q.Rp, q.kp, w->x.K, w->cap, q.Rq, q.kq, w->k, Mx, q.T);
    small_core(q.Rp, q.kp, w->z.K, w->cap, q.Rq, q.kq, w->k, Mz, q.T);
    if ((err = joint_bases(Mx, Mz, q.kp, q.kq, Ul, Vrt, &r1, &r2)) != IRCG_OK)
        goto done;
    r = r1 > r2 ? r1 : r2;
    if (r > q.kp || r > q.kq) /* cannot square the core: keep the atoms */
        goto done;
    project_core(Ul, q.kp, Mx, Vrt, q.kq, r, w->x.K, w->cap, T);
    project_core(Ul, q.kp, Mz, Vrt, q.kq, r, w->z.K, w->cap, T);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, d->n, r, q.kp, 1.0,
                q.Fp, d->n, Ul, q.kp, 0.0, w->P, d->n);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, d->p, r, q.kq, 1.0, q.Fq,
                d->p, Vrt, q.kq, 0.0, w->Q, d->p);
    assert(r >= 0 && r <= w->k); /* compression never adds atoms */
    w->k = r;
    mc_grams_rebuild(w);
done:
    /* raise the threshold so atoms that cannot be dropped are not
     * recompressed at every step */
    if (err == IRCG_OK) {
        int next = w->k + w->k / 2 + 8;
        w->compress_at = next > w->compress_base ? next : w->compress_base;
    }
    qr2_free(&q);
    free(Mx);
    free(Mz);
    free(Ul);
    free(Vrt);
    free(T);
    return err;
}
