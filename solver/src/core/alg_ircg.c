/*
 * alg_ircg.c -- IR-CG, Algorithm 1 of the paper:
 *
 *   sigma_t = varsigma (t+1)^(-p)
 *   v_t     = argmin_{v in X} <sigma_t grad f(x_t) + grad g(x_t), v>
 *   x_{t+1} = x_t + alpha_t (v_t - x_t)
 *   S_{t+1} = S_t + 2(t+1) sigma_t                            (Remark 1)
 *   z_{t+1} = (S_t z_t - (t+1)t sigma_t x_t + (t+2)(t+1) sigma_t x_{t+1})
 *             / S_{t+1}
 *
 * with S_0 = 0, so z_1 = x_1.  varsigma = 0 gives sigma_t = 0: conditional
 * gradient on g alone, whose S_t stays 0 and whose z_t is x_t.  The loop
 * only sees scalars from the problem's
 * oracle (oracle.h); how x and z are stored is the oracle's business.
 * With an away or pairwise direction (settings.direction) the oracle puts
 * in v_t the point x_t + gamma_max d_t instead (problems/faces.h): the
 * step rules, the averaged iterate and everything below stay as they are,
 * and the gap reported is still Frank-Wolfe's.
 */
#include <assert.h>
#include <float.h>
#include <math.h>

#include "core/solver_internal.h"

/* The rounding floor of a computed gap, in ulps of its terms' magnitude
 * (reference/reference.c uses the same). */
#define GAP_FLOOR_ULPS 8.0

double slv_step_size(ircg_step_rule rule, int64_t t, double sigma,
                      const slv_dir *d, double L_f, double L_g)
{
    double num = -d->gphi_d, den;
    switch (rule) {
    case IRCG_STEP_OPEN_LOOP:
        return 2.0 / (double)(t + 2);
    case IRCG_STEP_CLOSED_LOOP:
        den = (sigma * L_f + L_g) * d->d_norm2;
        break;
    case IRCG_STEP_LINE_SEARCH:
    default:
        /* Phi is quadratic along d: the exact minimizer on [0, 1]. */
        den = sigma * d->d_hf_d + d->d_hg_d;
        break;
    }
    if (!(num > 0))
        return 0.0; /* v_t - x_t is not a descent direction: stay */
    if (!(den > 0) || num >= den)
        return 1.0;
    return num / den;
}

static ircg_error slv_step_once(ircg_solver *sv, ircg_iter_info *it, int *converged)
{
    const ircg_problem_info *pi = &sv->pb->info;
    int64_t t = sv->t;
    double sigma = ircg_sigma(sv->varsigma, sv->set.p, t);
    slv_dir dir = {.need_hg = sv->set.step_rule == IRCG_STEP_LINE_SEARCH,
                   .direction = sv->set.direction};
    double t0 = slv_now();
    ircg_error err = sv->ops->lmo(sv->ws, sigma, &dir);

    if (err != IRCG_OK)
        return err;
    /* an LMO made ahead by the certificate of x_t: its time is the LMO's */
    it->lmo_seconds = slv_now() - t0 + dir.staged_seconds;
    sv->bnd.seconds = fmax(0.0, sv->bnd.seconds - dir.staged_seconds);
    it->lmo_matvecs = dir.matvecs;
    it->samples = dir.samples;
    it->lmo_converged = dir.converged;
    it->top_sv = dir.top_sv;
    it->sigma = sigma;
    /* the Frank-Wolfe gap, whichever direction the step takes */
    it->gap = dir.direction == IRCG_DIR_FRANK_WOLFE ? -dir.gphi_d : dir.fw_gap;
    if (sv->set.gap_tol > 0 && it->gap <= sv->set.gap_tol) {
        *converged = 1;
        return IRCG_OK;
    }
    /* On g alone (varsigma = 0) a Frank-Wolfe gap within 8 ulps of its
     * terms' magnitude (g_opt's floor) or of g(x_0) is an inner solution
     * to working precision: the answer, not a step to take.  The line
     * search reached g = 0 on a least-norm problem and then took steps of
     * 1e-310 on gaps of 1e-307 (the certificate at the end says how exact
     * the answer is). */
    double floor = GAP_FLOOR_ULPS * DBL_EPSILON * fmax(dir.gphi_scale, sv->bnd.g0);
    if (sigma == 0 && !(it->gap > floor)) {
        *converged = 1;
        return IRCG_OK;
    }
    double alpha = slv_step(sv->ops, sv->ws, sv->set.step_rule, t, sigma, &dir,
                            pi->L_f, pi->L_g);
    double tp1 = (double)(t + 1);
    double S_next = sv->S + 2.0 * tp1 * sigma;
    double cz = 0, cx_old = 0, cx_new = 1; /* varsigma = 0: no weights, z = x */
    if (S_next > 0) {
        cz = sv->S / S_next;
        cx_old = -tp1 * (double)t * sigma / S_next;
        cx_new = (tp1 + 1.0) * tp1 * sigma / S_next;
    }
    /* z_{t+1} is an affine combination: its weights sum to 1 (Remark 1) */
    assert(fabs(cz + cx_old + cx_new - 1.0) <= 64 * DBL_EPSILON * (cz + cx_new - cx_old));
    if (sv->ops->plan_lmo) /* the next LMO starts from this vertex */
        sv->ops->plan_lmo(sv->ws, ircg_sigma(sv->varsigma, sv->set.p, t + 1));
    if ((err = sv->ops->step(sv->ws, alpha, cz, cx_old, cx_new)) != IRCG_OK)
        return err;
    sv->S = S_next;
    sv->t = t + 1;
    it->alpha = alpha;
    return IRCG_OK;
}

const slv_alg slv_alg_ircg = {.prepare = NULL, .iterate = slv_step_once};
