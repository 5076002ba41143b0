/*
 * alg_prox.c -- the projection methods the paper compares with.
 *
 * IR-PG (Solodov 2007), with Phi_t = sigma_t f + g and the same sigma_t as
 * IR-CG:
 *   x_{t+1} = Proj_X(x_t - a_t grad Phi_t(x_t)),  a_t = a~ eta^m with m the
 *   least m >= 0 such that Phi_t(x_{t+1}) <= Phi_t(x_t)
 *                                  + theta <grad Phi_t(x_t), x_{t+1} - x_t>.
 * Phi_t is quadratic, so Phi_t(x+) - Phi_t(x) = <grad Phi_t, d>
 * + 1/2 (sigma d'H_f d + d'H_g d) exactly, without subtracting two values
 * near g (about 7e6 on MovieLens).
 *
 * Bi-SG (Merchav and Sabach 2023), for k = 1, 2, ...:
 *   y_k = Proj_X(x_{k-1} - t grad g(x_{k-1})),   t = 1/L_g by default
 *   x_k = y_k - eta_k grad f(y_k),               eta_k = c k^-alpha
 * The feasible y_k is slot X (reported as x), x_k is slot Z.
 */
#include <math.h>

#include "core/solver_internal.h"

/* Past this many reductions the Armijo test is decided by rounding: in
 * exact arithmetic it holds once a <= 2 (1 - theta) / (sigma L_f + L_g). */
#define ARMIJO_MAX_BACKTRACKS 60

static void count_projection(ircg_solver *sv, const slv_move *mv, ircg_iter_info *it)
{
    if (sv->pb->info.domain.kind != IRCG_DOMAIN_NUCLEAR_BALL)
        return;
    if (mv->full)
        sv->proj_full++;
    else
        sv->proj_partial++;
    it->proj_full |= mv->full;
}

static ircg_error irpg_iterate(ircg_solver *sv, ircg_iter_info *it, int *converged)
{
    const ircg_settings *s = &sv->set;
    double sigma = ircg_sigma(sv->varsigma, s->p, sv->t);
    double a = s->irpg_step, t0 = slv_now();
    slv_move mv;
    ircg_error err;

    int descent = 1;

    it->sigma = sigma;
    for (int m = 0;; m++) {
        mv = (slv_move){0};
        err = sv->pb->proj->grad_step(sv->ws, IRCG_SLOT_X, a * sigma, a, 1, s->projection, &mv);
        if (err != IRCG_OK)
            return err;
        it->lmo_matvecs += mv.matvecs;
        it->lmo_converged &= mv.converged;
        count_projection(sv, &mv, it);
        double slope = sigma * mv.gf_d + mv.gg_d;
        double change = slope + 0.5 * (sigma * mv.d_hf_d + mv.d_hg_d);
        /* In exact arithmetic slope <= -||d||^2 / a < 0 for a projected
         * gradient step (d != 0).  A computed slope >= 0 is rounding: x is
         * a fixed point to working precision, and no smaller step would
         * pass the test (on MovieLens the slope's rounding, about 1e-12,
         * does not shrink with a: 60 reductions took 3/4 of IR-PG's time) */
        if (!(slope < 0)) {
            descent = 0;
            break;
        }
        if (change <= s->irpg_theta * slope || m >= ARMIJO_MAX_BACKTRACKS)
            break;
        a *= s->irpg_eta;
        it->backtracks++;
    }
    it->lmo_seconds = slv_now() - t0;
    it->alpha = descent ? a : 0.0;
    it->gap = sqrt(mv.d_norm2) / a;
    if (s->gap_tol > 0 && it->gap <= s->gap_tol) {
        *converged = 1; /* x is a fixed point of the projected step */
        return IRCG_OK;
    }
    if (descent && (err = sv->pb->proj->accept(sv->ws, IRCG_SLOT_X | IRCG_SLOT_Z)) != IRCG_OK)
        return err;
    sv->t++; /* without a descent step x stays, and sigma moves on */
    return IRCG_OK;
}

static ircg_error bisg_iterate(ircg_solver *sv, ircg_iter_info *it, int *converged)
{
    const ircg_settings *s = &sv->set;
    double k = (double)(sv->t + 1);
    double step = s->bisg_step > 0 ? s->bisg_step : 1.0 / sv->pb->info.L_g;
    double eta = s->bisg_c * pow(k, -s->bisg_alpha), t0 = slv_now();
    slv_move mv = {0};
    ircg_error err;

    err = sv->pb->proj->grad_step(sv->ws, IRCG_SLOT_Z, 0.0, step, 1, s->projection, &mv);
    if (err != IRCG_OK)
        return err;
    it->lmo_seconds = slv_now() - t0;
    it->lmo_matvecs = mv.matvecs;
    it->lmo_converged = mv.converged;
    count_projection(sv, &mv, it);
    it->sigma = eta;
    it->alpha = step;
    it->gap = sqrt(mv.d_norm2) / step;
    if (s->gap_tol > 0 && it->gap <= s->gap_tol) {
        *converged = 1;
        return IRCG_OK;
    }
    if ((err = sv->pb->proj->accept(sv->ws, IRCG_SLOT_X)) != IRCG_OK ||
        (err = sv->pb->proj->grad_step(sv->ws, IRCG_SLOT_X, eta, 0.0, 0, s->projection,
                                  NULL)) != IRCG_OK ||
        (err = sv->pb->proj->accept(sv->ws, IRCG_SLOT_Z)) != IRCG_OK)
        return err;
    sv->t++;
    return IRCG_OK;
}

const slv_alg slv_alg_irpg = {.prepare = NULL, .iterate = irpg_iterate};
const slv_alg slv_alg_bisg = {.prepare = NULL, .iterate = bisg_iterate};
