/*
 * prox_max.c -- the step of the accelerated method for a max of two smooth
 * functions F and G over X (the gradient mapping of Nesterov's
 * "Introductory Lectures on Convex Optimization", Section 2.3.3, with a
 * curvature of its own for each function):
 *
 *   x+ = argmin_{x in X} max(m_F(x), m_G(x)),
 *   m_F(x) = a_f + <c_f, x - y> + L_F/2 ||x - y||^2   (a_f = F(y), c_f = grad F(y)),
 *   m_G likewise,
 *
 * each model an upper bound of its function near y when L_F, L_G bound
 * the curvatures there (the caller checks that at x+ and doubles the one
 * that failed: backtracking).  The dual of the step is a concave problem
 * in one variable: for lambda in [0, 1] the inner minimizer of
 * lambda m_F + (1 - lambda) m_G over X is the projection
 *
 *   x(lambda) = Proj_X(y - (lambda c_f + (1 - lambda) c_g) / (lambda L_F + (1 - lambda) L_G)),
 *
 * and the dual's derivative is m_F(x(lambda)) - m_G(x(lambda)) (Danskin's
 * theorem), nonincreasing.  So lambda = 0 when it is <= 0 at 0, 1 when it
 * is >= 0 at 1, else its root in (0, 1), found by regula falsi with
 * the Anderson-Bjorck weights from the previous step's lambda (a bracket
 * that never loses the root), each evaluation one projection.  With L_F = L_G it is the
 * step of Nesterov's scheme for minimax problems.
 */
#include <math.h>

#include "bisect/bisect.h"

#define MAX_EVALS 60
#define LAMBDA_TOL 1e-10

/* m_F(x) - m_G(x) at x = x(lambda), into *out; x(lambda) into x. */
static ircg_error slope_at(bs_prox *p, double lambda, double *x, double *out)
{
    int64_t n = p->n;
    double lf = lambda, lg = 1.0 - lambda;
    double inv = 1.0 / (lf * p->L_f + lg * p->L_g);
    double sf = 0, sg = 0, dd = 0, mag = 0;
    for (int64_t i = 0; i < n; i++)
        p->u[i] = p->y[i] - (lf * p->c_f[i] + lg * p->c_g[i]) * inv;
    ircg_error err = p->project(p->ws, p->u, x);
    if (err != IRCG_OK)
        return err;
    for (int64_t i = 0; i < n; i++) {
        double di = x[i] - p->y[i];
        sf += p->c_f[i] * di;
        sg += p->c_g[i] * di;
        dd += di * di;
        mag += (fabs(p->c_f[i]) + fabs(p->c_g[i])) * fabs(di);
    }
    *out = (p->a_f + sf + 0.5 * p->L_f * dd) - (p->a_g + sg + 0.5 * p->L_g * dd);
    p->scale = fabs(p->a_f) + fabs(p->a_g) + mag + 0.5 * (p->L_f + p->L_g) * dd;
    return IRCG_OK;
}

/* lambda = 0 without the slope: the projected gradient step of G. */
static ircg_error step_of_g(const bs_prox *p, double *x)
{
    double inv = 1.0 / p->L_g;
    for (int64_t i = 0; i < p->n; i++)
        p->u[i] = p->y[i] - p->c_g[i] * inv;
    return p->project(p->ws, p->u, x);
}

/* The root of the nonincreasing slope in (lo, hi), where it is positive
 * at lo and negative at hi: regula falsi with the Anderson-Bjorck weight
 * (an end kept twice has its value scaled by 1 - d_new / d_old, or halved
 * when that is not positive), which keeps the bracket and converges
 * superlinearly on the slope's smooth pieces; x is x(lambda) of the
 * lambda returned. */
static ircg_error regula_falsi(bs_prox *p, double lo, double d_lo, double hi, double d_hi,
                               double *lambda, double *x, int *evals)
{
    double l = 0.5 * (lo + hi), d;
    int side = 0;
    for (int k = 0; k < MAX_EVALS; k++) {
        l = lo + d_lo * (hi - lo) / (d_lo - d_hi);
        if (!(l > lo && l < hi))
            l = 0.5 * (lo + hi);
        ircg_error err = slope_at(p, l, x, &d);
        if (err != IRCG_OK)
            return err;
        ++*evals;
        if (fabs(d) <= 1e-10 * p->scale || hi - lo <= LAMBDA_TOL)
            break;
        if (d > 0) {
            double m = 1.0 - d / d_lo;
            lo = l, d_lo = d;
            if (side == 1)
                d_hi *= m > 0 ? m : 0.5;
            side = 1;
        } else {
            double m = 1.0 - d / d_hi;
            hi = l, d_hi = d;
            if (side == -1)
                d_lo *= m > 0 ? m : 0.5;
            side = -1;
        }
    }
    *lambda = l;
    return IRCG_OK;
}

ircg_error bs_prox_max(bs_prox *p, double *lambda, double *x, int *evals)
{
    double d0, d1, dw, w = *lambda;
    ircg_error err;

    *evals = 0;
    if (!p->c_f) { /* G alone: a projected gradient step */
        *lambda = 0;
        ++*evals;
        return step_of_g(p, x);
    }
    /* the previous step's weight first: it usually brackets the root
     * closely, and one end's slope is then all that is needed */
    if (w > 0 && w < 1) {
        if ((err = slope_at(p, w, x, &dw)) != IRCG_OK)
            return err;
        ++*evals;
        if (dw == 0)
            return IRCG_OK;
        if (dw > 0) {
            if ((err = slope_at(p, 1.0, x, &d1)) != IRCG_OK)
                return err;
            ++*evals;
            if (!(d1 < 0)) {
                *lambda = 1;
                return IRCG_OK;
            }
            return regula_falsi(p, w, dw, 1.0, d1, lambda, x, evals);
        }
        if ((err = slope_at(p, 0.0, x, &d0)) != IRCG_OK)
            return err;
        ++*evals;
        if (!(d0 > 0)) {
            *lambda = 0;
            return IRCG_OK;
        }
        return regula_falsi(p, 0.0, d0, w, dw, lambda, x, evals);
    }
    if ((err = slope_at(p, 0.0, x, &d0)) != IRCG_OK)
        return err;
    ++*evals;
    if (!(d0 > 0)) {
        *lambda = 0;
        return IRCG_OK;
    }
    if ((err = slope_at(p, 1.0, x, &d1)) != IRCG_OK)
        return err;
    ++*evals;
    if (!(d1 < 0)) {
        *lambda = 1;
        return IRCG_OK;
    }
    return regula_falsi(p, 0.0, d0, 1.0, d1, lambda, x, evals);
}
