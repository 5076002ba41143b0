/*
 * lr_cert.c -- the certificate of logistic regression (oracle.h,
 * slv_cert), on the bounded products of ls/ls_cert.c.
 *
 * The margins s = A y are made afresh with their error e.  The loss
 * l(s) = log(1 + e^-s) is 1-Lipschitz and its derivative 1/4-Lipschitz,
 * so |l(s*) - l(s)| <= e and |w(s*) - w(s)| <= e / 4 for the weights
 * w = y l'(y s) of the gradient A'w.  lr_loss and lr_dloss are a log1p
 * and an exp (and a sum or a division) of glibc's, whose errors are below
 * one ulp each: the computed loss is within 4u of its value relative to
 * itself, a weight within 4u of its magnitude; the bounds take 8u.
 */
#include <math.h>

#include "base/rounding.h"
#include "problems/logreg/lr.h"

/* sum_k l(y_k s_k) for margins s known to within es, its error bound, and
 * the weights w (with their errors ew) of its gradient A'w. */
static double loss_and_weights(const double *lab, const double *s, const double *es,
                               int64_t m, double *w, double *ew, double *err)
{
    slv_ksum k = {0, 0};
    double lip = 0, mag = 0;
    for (int64_t i = 0; i < m; i++) {
        double l = lr_loss(lab[i] * s[i]);
        slv_ksum_add(&k, l);
        mag += l;
        lip += es[i];
        w[i] = lab[i] * lr_dloss(lab[i] * s[i]);
        ew[i] = slv_up(0.25 * es[i] + slv_gamma(8) * fabs(w[i]), 2);
    }
    int mm = (int)(m < 1000000000 ? m : 1000000000);
    *err = slv_up(lip + slv_gamma(10) * mag, mm);
    return slv_ksum_value(&k);
}

/* f(y), its error, its gradient into b->gf (error b->ef) and a floor of
 * min_X f: the logistic loss on the validation rows (>= 0), else the
 * outer objectives least squares shares (ls_cert_outer). */
static double lr_cert_outer(const ls_data *d, ls_cert_buf *b, const double *y, double *f_err,
                            double *floor)
{
    if (d->outer != IRCG_OUTER_VALIDATION)
        return ls_cert_outer(d, b, y, f_err, floor);
    *floor = 0;
    ls_cert_apply(d->vset, y, NULL, b->rv, b->erv);
    double f = loss_and_weights(d->vset->b, b->rv, b->erv, d->vset->m, b->w, b->ew, f_err);
    ls_cert_apply_t(d->vset, b->vcolcnt, b->w, b->ew, b->gf, b->ef);
    return f;
}

/* g's local curvature (lr_curv.c; docs/DESIGN.md "Logistic regression's
 * local curvature").  If g has curvature mu on the ball B of radius rho
 * around y and mu rho^2 / 2 > min(gap_g, |grad g(y)| rho), then on the
 * sphere's part in X g(v) >= g(y) + <c, v - y> + mu rho^2 / 2 > g(y):
 * the least of g over X and B is inside the ball, a local minimum of g
 * over X and so a global one, and every inner solution is in B (a
 * segment from y to one outside would cross the sphere above g(y)).  The
 * bounds of ls_cert_curved then hold with mu. */
static int ball_holds(double mu, double rho, double gap, double cn)
{
    return mu > 0 && rho > 0 &&
           0.5 * mu * rho * rho * (1 - 1e-12) > fmin(gap, slv_up(cn * rho, 1));
}

/* The local bound at y, from y alone (a certificate's bounds depend on
 * its point only, so a run continued from a checkpoint certifies as the
 * uninterrupted one does): the Hessian's curvature mu0 at y, a radius
 * rho = 1.5 min(4 |c| / mu0, 2 sqrt(gap_g / mu0)) -- the test passes on
 * it whenever the ball's curvature is at least mu0 / 2 -- and that
 * curvature.  Two Gram matrices and their eigenvalues
 * (lr_curv_affordable bounds their cost). */
static ircg_error local_bound(const ls_data *d, ls_cert_buf *b, const double *y, slv_cert *out)
{
    double cn = ls_cert_norm_up(b->gg, b->eg, d->n), gap = out->gap_g, mu0, mu;
    ircg_error err = lr_curvature(d, b, b->r, b->er, 0.0, &mu0);
    if (err != IRCG_OK || !(mu0 > 0))
        return err;
    double rho = 1.5 * fmin(4 * cn / mu0, 2 * sqrt(gap / mu0));
    if (!(rho > 0)) /* y is exact: no radius to test */
        return IRCG_OK;
    if ((err = lr_curvature(d, b, b->r, b->er, rho, &mu)) != IRCG_OK)
        return err;
    if (ball_holds(mu, rho, gap, cn))
        ls_cert_curved(d, b, y, mu, out);
    return IRCG_OK;
}

ircg_error lr_certify_at(const ls_data *d, ls_cert_buf **cbp, const double *y, double sigma,
                        slv_cert *out)
{
    if (!*cbp && !(*cbp = ls_cert_buf_new(d)))
        return IRCG_ERR_NOMEM;
    ls_cert_buf *b = *cbp;
    *out = (slv_cert){.sharp = 1, .f_floor = 0};
    /* f first: the validation loss uses the weight arrays as scratch too */
    out->f = lr_cert_outer(d, b, y, &out->f_err, &out->f_floor);
    ls_cert_apply(d, y, NULL, b->r, b->er);
    out->g = loss_and_weights(d->b, b->r, b->er, d->m, b->w, b->ew, &out->g_err);
    ls_cert_apply_t(d, b->colcnt, b->w, b->ew, b->gg, b->eg);
    ls_cert_gaps(d, b, y, sigma, out);
    if (lr_curv_affordable(d)) {
        ircg_error err = local_bound(d, b, y, out);
        if (err != IRCG_OK)
            return err;
    }
    out->matvecs = d->outer == IRCG_OUTER_VALIDATION ? 4 : 2;
    if (!isfinite(out->g) || !isfinite(out->gap_g) || !isfinite(out->f))
        return IRCG_ERR_NUMERICAL;
    return IRCG_OK;
}

ircg_error lr_certify(void *p, ircg_which which, double sigma, slv_cert *out)
{
    lr_ws *w = p;
    return lr_certify_at(w->d, &w->cb, which == IRCG_Z ? w->z : w->x, sigma, out);
}
