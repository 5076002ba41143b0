/*
 * mc_refresh.c -- X_Omega and Z_Omega (and so the residuals and g)
 * recomputed from the factored iterates.  The step pass updates them
 * incrementally, x <- (1 - alpha) x + alpha V_Omega, and its rounding adds
 * up with the number of steps (slowly, since the entries are small; the
 * residuals updated the same way drifted 1e-8 in g over 20,000 MovieLens
 * steps).  Recomputing every MC_REFRESH_EVERY steps keeps g and g - g_opt
 * exact to a few ulps whatever the run's length.
 *
 * The refresh replaces that step's incremental pass (whose values it would
 * overwrite) and makes the sums of each chunk right after writing it,
 * while the chunk is in cache: one pass over Omega where there were three
 * (step, refresh, sums).
 */
#include <cblas.h>
#include <stdlib.h>

#include "base/ksum.h"
#include "base/simd.h"
#include "problems/mc/mc.h"


typedef struct rctx {
    mc_ws *w;
    const double *Ax, *Az; /* P K_x, P K_z, row-major n x kp */
    const double *Qt;      /* Q row-major p x kp */
    int kp;                /* k rounded up to four (the padding is 0)      */
} rctx;

/* Rows [lo, hi): x_e = sum_l Ax_il Q_jl (+ X0's entry), z_e likewise, in
 * four lanes of the padded rows: a chain of k dependent scalar additions
 * per entry made the refresh latency-bound (6% of a 1-thread solve). */
static inline __attribute__((always_inline)) void refresh_rows_impl(const rctx *q, int lo,
                                                                    int hi)
{
    mc_ws *w = q->w;
    const mc_data *d = w->d;
    const int32_t *restrict col = d->col;
    double *restrict xx = w->x.xo, *restrict xz = w->z.xo;
    int kp = q->kp;
    double dx = w->x.a * w->d0, dz = w->z.a * w->d0;

    for (int i = lo; i < hi; i++) {
        const double *ax = q->Ax + (size_t)i * kp, *az = q->Az + (size_t)i * kp;
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++) {
            int j = col[e];
            const double *qj = q->Qt + (size_t)j * kp;
            slv_v4d sx = {0, 0, 0, 0}, sz = sx, a, b, v;
            for (int l = 0; l < kp; l += 4) {
                SLV_V4D_LOAD(v, qj + l);
                SLV_V4D_LOAD(a, ax + l);
                SLV_V4D_LOAD(b, az + l);
                sx += a * v;
                sz += b * v;
            }
            double x = (sx[0] + sx[1]) + (sx[2] + sx[3]);
            double z = (sz[0] + sz[1]) + (sz[2] + sz[3]);
            if (d->row0 + i == j && j < d->m0) {
                x += dx;
                z += dz;
            }
            xx[e] = x;
            xz[e] = z;
        }
    }
}
/* no calls inside: see mc_sweep.c on the kernels */
SLV_ISA_DISPATCH(refresh_rows, (const rctx *q, int lo, int hi), (q, lo, hi))

static void refresh_task(void *vc, int c)
{
    const rctx *q = vc;
    const mc_data *d = q->w->d;

    refresh_rows(q, d->chunk_row[c], d->chunk_row[c + 1]);
    mc_omega_sums_chunk(q->w, c);
}

/* A = P K as a row-major n x k matrix with leading dimension kp.  P (n x
 * k, leading dimension n) and K (k x k, leading dimension cap) are
 * column-major: read as row-major they are P' and K', hence both
 * transposed. */
static void times_core(const mc_ws *w, const double *K, double *A, int kp)
{
    const mc_data *d = w->d;
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasTrans, d->n, w->k, w->k, 1.0, w->P,
                d->n, K, w->cap, 0.0, A, kp);
}

ircg_error mc_omega_refresh(mc_ws *w)
{
    const mc_data *d = w->d;
    int k = w->k, kp = (k + 3) / 4 * 4;
    size_t nk = (size_t)d->n * (kp ? kp : 4), pk = (size_t)d->p * (kp ? kp : 4);
    /* zeroed: the padding's lanes add 0 */
    double *Ax = calloc(nk, sizeof *Ax), *Az = calloc(nk, sizeof *Az);
    double *Qt = calloc(pk, sizeof *Qt);
    ircg_error err = IRCG_ERR_NOMEM;

    if (!Ax || !Az || !Qt)
        goto done;
    if (k > 0) {
        times_core(w, w->x.K, Ax, kp);
        times_core(w, w->z.K, Az, kp);
        for (int j = 0; j < d->p; j++)
            for (int l = 0; l < k; l++)
                Qt[(size_t)j * kp + l] = w->Q[j + (size_t)l * d->p];
    }
    rctx q = {.w = w, .Ax = Ax, .Az = Az, .Qt = Qt, .kp = kp};
    slv_pool_run(w->ex.pool, refresh_task, &q, d->nchunk);
    /* col; x and z written; what the sums read besides them */
    mc_exec_count(&w->ex, 20 + mc_sums_data_bytes(w));
    mc_omega_sums_finish(w);
    w->xr_valid = 0;
    w->pre_valid = 0; /* C'C v was made from the old residual */
    w->since_refresh = 0;
    err = IRCG_OK;
done:
    free(Ax);
    free(Az);
    free(Qt);
    return err;
}
