/*
 * mc_refresh.c -- X_Omega and Z_Omega (and so the residuals and g)
 * recomputed from the factored iterates.  The step pass updates them
 * incrementally, x <- (1 - alpha) x + alpha V_Omega, and its rounding adds
 * up with the number of steps (slowly, since the entries are small; the
 * residuals updated the same way drifted 1e-8 in g over 20,000 MovieLens
 * steps).  Recomputing every MC_REFRESH_EVERY steps keeps g and g - g_opt
 * exact to a few ulps whatever the run's length.
 */
#include <cblas.h>
#include <stdlib.h>

#include "problems/mc/mc.h"

typedef struct rctx {
    mc_ws *w;
    const double *Ax, *Az; /* P K_x, P K_z, row-major n x k */
    const double *Qt;      /* Q row-major p x k */
    int k;
} rctx;

static void refresh_task(void *vc, int c)
{
    const rctx *q = vc;
    mc_ws *w = q->w;
    const mc_data *d = w->d;
    int k = q->k;
    double dx = w->x.a * w->d0, dz = w->z.a * w->d0;

    for (int i = d->chunk_row[c]; i < d->chunk_row[c + 1]; i++) {
        const double *ax = q->Ax + (size_t)i * k, *az = q->Az + (size_t)i * k;
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++) {
            int j = d->col[e];
            const double *qj = q->Qt + (size_t)j * k;
            double x = 0, z = 0;
            for (int l = 0; l < k; l++) {
                x += ax[l] * qj[l];
                z += az[l] * qj[l];
            }
            if (d->row0 + i == j && j < d->m0) {
                x += dx;
                z += dz;
            }
            w->x.xo[e] = x;
            w->z.xo[e] = z;
        }
    }
}

/* A = P K as a row-major n x k matrix.  P (n x k, leading dimension n) and
 * K (k x k, leading dimension cap) are column-major: read as row-major they
 * are P' and K', hence both transposed. */
static void times_core(const mc_ws *w, const double *K, double *A)
{
    const mc_data *d = w->d;
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasTrans, d->n, w->k, w->k, 1.0, w->P,
                d->n, K, w->cap, 0.0, A, w->k);
}

ircg_error mc_omega_refresh(mc_ws *w)
{
    const mc_data *d = w->d;
    int k = w->k;
    size_t nk = (size_t)d->n * (k ? k : 1), pk = (size_t)d->p * (k ? k : 1);
    double *Ax = malloc(nk * sizeof *Ax), *Az = malloc(nk * sizeof *Az);
    double *Qt = malloc(pk * sizeof *Qt);
    ircg_error err = IRCG_ERR_NOMEM;

    if (!Ax || !Az || !Qt)
        goto done;
    if (k > 0) {
        times_core(w, w->x.K, Ax);
        times_core(w, w->z.K, Az);
        for (int j = 0; j < d->p; j++)
            for (int l = 0; l < k; l++)
                Qt[(size_t)j * k + l] = w->Q[j + (size_t)l * d->p];
    }
    rctx q = {.w = w, .Ax = Ax, .Az = Az, .Qt = Qt, .k = k};
    slv_pool_run(w->ex.pool, refresh_task, &q, d->nchunk);
    mc_exec_count(&w->ex, 20); /* col; x and z written */
    w->xr_valid = 0;
    mc_omega_sums(w);
    w->pre_valid = 0; /* C'C v was made from the old residual */
    w->since_refresh = 0;
    err = IRCG_OK;
done:
    free(Ax);
    free(Az);
    free(Qt);
    return err;
}
