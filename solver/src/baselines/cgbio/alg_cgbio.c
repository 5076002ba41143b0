/*
 * alg_cgbio.c -- CG-BiO (Jiang, Abolfazli, Mokhtari, Hamedani, AISTATS 2023)
 * as the paper runs it (Section 4):
 *
 *   warm start: conditional gradient on g alone from x_0 with steps
 *               2/(t+2) until its Frank-Wolfe gap is <= eps_g / 2; x'_0
 *   s_k     = argmin { <grad f(x_k), s> : s in X,
 *                      <grad g(x_k), s - x_k> <= g(x'_0) - g(x_k) }
 *   x_{k+1} = (1 - gamma_k) x_k + gamma_k s_k,   gamma_k = 2/(k+2)
 *
 * The warm start's time counts in the method's clock (as in the authors'
 * code); its iterations do not count as iterations and are not reported to
 * the callback.  Should cgbio_warmup_max_iter stop the warm start first,
 * CG-BiO goes on from where it stopped.  g(x'_0) - g(x_k) is a termwise sum over the residuals, not
 * the difference of two large numbers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/solver_internal.h"

static ircg_error cgbio_prepare(ircg_solver *sv, double t0, ircg_status *st)
{
    const slv_oracle_ops *ops = sv->ops;
    double w0 = slv_now();
    ircg_error err = IRCG_OK;
    int64_t n = sv->pb->info.n_observed;

    if (sv->warm_done)
        return IRCG_OK;
    for (;;) {
        slv_dir dir = {0};
        if ((*st = slv_solver_should_stop(sv, slv_now() - t0)) != IRCG_STATUS_UNSOLVED)
            break;
        if ((err = ops->lmo(sv->ws, 0.0, &dir)) != IRCG_OK)
            break;
        sv->lmo_matvecs += dir.matvecs;
        sv->lmo_unconverged += !dir.converged;
        if (-dir.gphi_d <= 0.5 * sv->set.cgbio_eps_g)
            break;
        if (sv->warmup_iterations >= sv->set.cgbio_warmup_max_iter)
            break; /* go on from the best warm start the cap allows */
        double alpha = 2.0 / (double)(sv->warmup_iterations + 2);
        if (ops->plan_lmo) /* the next warm-start LMO, from this vertex */
            ops->plan_lmo(sv->ws, 0.0);
        if ((err = ops->step(sv->ws, alpha, 0.0, 0.0, 1.0)) != IRCG_OK)
            break;
        sv->warmup_iterations++;
    }
    sv->warmup_seconds += slv_now() - w0;
    slv_solver_refresh_values(sv);
    if (err != IRCG_OK || *st != IRCG_STATUS_UNSOLVED)
        return err;
    const double *r = ops->residual(sv->ws, IRCG_X);
    sv->cut_ref = r ? malloc((size_t)n * sizeof *sv->cut_ref) : NULL;
    if (!sv->cut_ref)
        return IRCG_ERR_NOMEM;
    memcpy(sv->cut_ref, r, (size_t)n * sizeof *sv->cut_ref);
    sv->warm_done = 1;
    return IRCG_OK;
}

static ircg_error cgbio_iterate(ircg_solver *sv, ircg_iter_info *it, int *converged)
{
    const slv_oracle_ops *ops = sv->ops;
    int64_t n = sv->pb->info.n_observed;
    /* g(x'_0) - g(x_k) = sum 1/2 (r0 - rk)(r0 + rk) */
    const double *rk = ops->residual(sv->ws, IRCG_X);
    if (!rk)
        return IRCG_ERR_NOMEM;
    double slack = slv_half_sq_diff(sv->cut_ref, rk, n);
    slv_cut_info ci = {0};
    double t0 = slv_now();
    ircg_error err = sv->pb->cut->lmo_cut(sv->ws, slack, &ci);

    if (err != IRCG_OK)
        return err;
    it->lmo_seconds = slv_now() - t0;
    it->lmo_matvecs = ci.matvecs;
    it->lmo_converged = ci.converged;
    it->top_sv = ci.top_sv;
    it->lambda = ci.lambda;
    it->gap = ci.f_gap;
    /* The authors' stopping rule: the outer gap over the cut set AND
     * g(x_k) - g(x'_0) <= eps_g / 2.  Once g(x_k) > g(x'_0) the cut set may
     * exclude x_k and f_gap may be negative without meaning convergence. */
    if (sv->set.gap_tol > 0 && ci.f_gap <= sv->set.gap_tol &&
        -slack <= 0.5 * sv->set.cgbio_eps_g) {
        *converged = 1;
        return IRCG_OK;
    }
    it->alpha = 2.0 / (double)(sv->t + 2);
    if ((err = sv->pb->cut->cut_step(sv->ws, it->alpha)) != IRCG_OK)
        return err;
    sv->t++;
    return IRCG_OK;
}

const slv_alg slv_alg_cgbio = {.prepare = cgbio_prepare, .iterate = cgbio_iterate};
