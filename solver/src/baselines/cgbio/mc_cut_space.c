/*
 * mc_cut_space.c -- the singular subspaces CG-BiO's oracle needs, on the
 * implicit operators wf grad f(X) + wg P_Omega(X - M) of mc_lmo.c.
 *
 * A single-vector Krylov method sees one direction of a multiple singular
 * value, whatever its multiplicity: the rest of a cluster is found by
 * running the Lanczos again on the operator deflated on the right,
 * B = P (I - R R'), whose top singular value is the next one of P.
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "baselines/cgbio/mc_cut.h"
#include "lmo/lanczos.h"

/* A vector whose part outside span R is below this fraction of its norm
 * adds nothing but rounding to the subspace. */
#define INDEP_TOL 1e-8

typedef struct defl_ctx {
    mc_grad_ctx g;
    const double *R; /* p x nd, orthonormal columns */
    int nd, p;
    double *tmp;     /* p */
    double h[MC_CUT_KMAX];
} defl_ctx;

/* z <- (I - R R') z, twice for orthogonality to rounding. */
static void project_out(const double *R, int p, int nd, double *z, double *h)
{
    for (int pass = 0; pass < 2; pass++) {
        cblas_dgemv(CblasColMajor, CblasTrans, p, nd, 1.0, R, p, z, 1, 0.0, h, 1);
        cblas_dgemv(CblasColMajor, CblasNoTrans, p, nd, -1.0, R, p, h, 1, 1.0, z, 1);
    }
}

static void defl_op(void *vc, int trans, const double *x, double *y)
{
    defl_ctx *c = vc;
    if (c->nd == 0) {
        mc_grad_op(&c->g, trans, x, y);
    } else if (!trans) {
        memcpy(c->tmp, x, (size_t)c->p * sizeof *x);
        project_out(c->R, c->p, c->nd, c->tmp, c->h);
        mc_grad_op(&c->g, 0, c->tmp, y);
    } else {
        mc_grad_op(&c->g, 1, x, y);
        project_out(c->R, c->p, c->nd, y, c->h);
    }
}

ircg_error mc_cut_top(mc_cut_run *run, double wf, double wg, int nd,
                      const double *v0, double *s, double *u, double *v,
                      int *zero)
{
    mc_ws *w = run->w;
    struct mc_cut *c = run->c;
    defl_ctx dc = {.g = {.w = w, .wf = wf, .wg = wg}, .R = c->R, .nd = nd,
                   .p = c->p, .tmp = c->tp2};
    lmo_svd_out so = {.u = u, .v = v};
    lmo_lanczos *lz = mc_lanczos(w);
    ircg_error err = lz ? lmo_lanczos_run(lz, defl_op, &dc, v0, 1, w->lmo_tol,
                                         w->lmo_max_mv, &so)
                        : IRCG_ERR_NOMEM;

    run->matvecs += so.matvecs;
    if (err != IRCG_OK)
        return err;
    run->converged = run->converged && so.converged;
    *s = so.sv[0];
    *zero = so.zero || !(so.sv[0] > 0);
    return isfinite(*s) ? IRCG_OK : IRCG_ERR_NUMERICAL;
}

void mc_cut_apply(mc_cut_run *run, double wf, double wg, const double *x,
                  double *y)
{
    mc_grad_ctx g = {.w = run->w, .wf = wf, .wg = wg};
    mc_grad_op(&g, 0, x, y);
    run->matvecs++;
}

int mc_cut_add_vector(struct mc_cut *c, int k, const double *x)
{
    int p = c->p;
    double *r = c->R + (size_t)k * p, h[MC_CUT_KMAX];

    if (k >= MC_CUT_KMAX)
        return k;
    double n0 = cblas_dnrm2(p, x, 1);
    if (!(n0 > 0) || !isfinite(n0))
        return k;
    memcpy(r, x, (size_t)p * sizeof *x);
    if (k > 0)
        project_out(c->R, p, k, r, h);
    double n1 = cblas_dnrm2(p, r, 1);
    if (!(n1 > INDEP_TOL * n0))
        return k;
    cblas_dscal(p, 1.0 / n1, r, 1);
    return k + 1;
}

/* The start of a deflated run.  Not the Lanczos' own fixed start: when the
 * top value is multiple, the first run found the part of that start in the
 * top space, and deflating it leaves the start nothing there.  Another
 * pseudo-random vector (seeded by the run) has a part along every
 * direction, and the hint (Brent's vector across lambda*) a large one
 * along the likely next vector. */
static void deflation_start(int p, int run_index, const double *hint, double *x)
{
    uint64_t s = 0x2545f4914f6cdd1dULL ^ (uint64_t)(run_index + 1) * 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < p; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        x[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
    if (!hint)
        return;
    double nh = cblas_dnrm2(p, hint, 1), nx = cblas_dnrm2(p, x, 1);
    if (!(nh > 0) || !isfinite(nh))
        return;
    cblas_dscal(p, 1e-2 / nx, x, 1);
    cblas_daxpy(p, 1.0 / nh, hint, 1, x, 1);
}

ircg_error mc_cut_cluster(mc_cut_run *run, double wf, double wg, double s1,
                          const double *start, int *k)
{
    struct mc_cut *c = run->c;

    while (*k < 4) {
        double s;
        int zero, kn;
        deflation_start(c->p, *k, start, c->tp);
        ircg_error err = mc_cut_top(run, wf, wg, *k, c->tp, &s, c->ue, c->ve, &zero);
        if (err != IRCG_OK)
            return err;
        if (zero || s < (1 - MC_CUT_TAU_SPACE) * s1)
            break;
        if ((kn = mc_cut_add_vector(c, *k, c->ve)) == *k)
            break;
        *k = kn;
    }
    return IRCG_OK;
}
