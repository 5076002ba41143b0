/*
 * certificate.c -- the certified bounds of a solve (ircg_info), from the
 * oracle's certificates of x_t and z_t (oracle.h, slv_cert).
 *
 * A certificate of a feasible point y gives g(y) and f(y) with their
 * errors, an upper bound gap_g of g(y) - g* (Frank-Wolfe), and for sigma >
 * 0 an upper bound gap_phi of Phi_sigma(y) - min_X Phi_sigma.  From them:
 *  - g* <= g(y): g_upper is the least certified g(y) + g_err;
 *  - g* >= g(y) - gap_g: g_lower is the greatest of those and 0 (every
 *    family's g is a sum of squares or of logistic losses);
 *  - f* >= f(y) + (g(y) - g_upper - gap_phi) / sigma, because for any
 *    solution x* of the bilevel problem sigma f* + g* = Phi_sigma(x*) >=
 *    min_X Phi_sigma >= Phi_sigma(y) - gap_phi, and g* <= g_upper;
 *  - f* >= min_X f >= the certificate's f_floor.
 * Every bound is the best so far: each certificate can only tighten them.
 * The arithmetic here rounds too: each combination gives away
 * gamma(4) of its terms' magnitudes.
 */
#include <float.h>
#include <math.h>

#include "base/rounding.h"
#include "core/solver_internal.h"

void slv_bounds_init(slv_bounds *b)
{
    *b = (slv_bounds){.t = -1, .g0 = NAN, .g_lower = 0.0, .g_upper = INFINITY,
                      .f_lower = -INFINITY, .gap_x = NAN, .gap_z = NAN, .g_x = NAN,
                      .g_z = NAN, .f_x = NAN, .f_z = NAN, .sharp = 1};
}

static int is_pow2(int64_t t)
{
    return t > 0 && (t & (t - 1)) == 0;
}

int slv_cert_due(const ircg_solver *sv, int64_t t)
{
    int64_t k = sv->set.certify_every;
    return t == 0 || is_pow2(t) || (k > 0 && t % k == 0);
}

/* a - b - c, rounded down */
static double minus2(double a, double b, double c)
{
    double s = a - b - c;
    return s - slv_gamma(4) * (fabs(a) + fabs(b) + fabs(c));
}

static double inner_gap(double g, double g_err, double g_lower)
{
    return fmax(0.0, slv_up(g + g_err - g_lower, 3));
}

/* The outer bound from x's certificate with the gap of Phi at sigma. */
static double f_bound_at(const slv_cert *c, double sigma, double gap_phi, double g_upper)
{
    if (!(sigma > 0) || !isfinite(gap_phi) || !isfinite(g_upper))
        return -INFINITY;
    double q = minus2(c->g - c->g_err, g_upper, gap_phi) / sigma;
    q -= slv_gamma(2) * fabs(q);
    return minus2(c->f, c->f_err, -q);
}

/* The best of the outer bounds the certificate allows. */
static double f_bound(const slv_cert *c, double sigma, double g_upper)
{
    double f = f_bound_at(c, sigma, c->gap_phi, g_upper);
    for (int k = 0; k < c->nphi; k++)
        f = fmax(f, f_bound_at(c, c->phi_sigma[k], c->phi_gap[k], g_upper));
    return f;
}

static void fold(slv_bounds *b, const slv_cert *cx, const slv_cert *cz, int have_z,
                 double sigma)
{
    b->g_upper = fmin(b->g_upper, slv_up(cx->g + cx->g_err, 1));
    b->g_lower = fmax(b->g_lower, minus2(cx->g, cx->g_err, cx->gap_g));
    if (have_z) {
        b->g_upper = fmin(b->g_upper, slv_up(cz->g + cz->g_err, 1));
        b->g_lower = fmax(b->g_lower, minus2(cz->g, cz->g_err, cz->gap_g));
    }
    b->f_lower = fmax(b->f_lower, fmax(cx->f_floor, f_bound(cx, sigma, b->g_upper)));
    b->g_x = cx->g;
    b->f_x = cx->f;
    b->gap_x = inner_gap(cx->g, cx->g_err, b->g_lower);
    b->g_z = have_z ? cz->g : NAN;
    b->f_z = have_z ? cz->f : NAN;
    b->gap_z = have_z ? inner_gap(cz->g, cz->g_err, b->g_lower) : NAN;
    b->sharp &= cx->sharp && (!have_z || cz->sharp);
}

/* x is optimal to working precision: its certified inner gap within 8
 * ulps of g(x_0) - g_upper and, unless the solve is on g alone, its outer
 * gap within 8 ulps of f.  An exact answer ends the solve as converged. */
static int exact(const ircg_solver *sv)
{
    const slv_bounds *b = &sv->bnd;
    double ug = 8 * DBL_EPSILON * fmax(b->g0 - b->g_upper, 0.0);
    double uf = 8 * DBL_EPSILON * fmax(fabs(b->f_x), fabs(b->f_lower));
    return b->gap_x <= ug && (sv->varsigma == 0 || b->f_x - b->f_lower <= uf);
}

/* Every tolerance of settings.stop that is given holds for x. */
static int stop_met(const ircg_solver *sv)
{
    const ircg_stop *s = &sv->set.stop;
    const slv_bounds *b = &sv->bnd;
    int any = 0, ok = 1;
    double og = b->f_x - b->f_lower;
    if (s->inner_gap > 0)
        any = 1, ok &= b->gap_x <= s->inner_gap;
    if (s->inner_gap_rel > 0)
        any = 1, ok &= b->gap_x <= s->inner_gap_rel * (b->g0 - b->g_upper);
    if (s->outer_gap > 0)
        any = 1, ok &= og <= s->outer_gap;
    if (s->outer_gap_rel > 0)
        any = 1, ok &= og <= s->outer_gap_rel * fmax(fabs(b->f_x), fabs(b->f_lower));
    return any && ok;
}

/* The certificates of x and z; b unchanged on an error. */
static ircg_error certify_both(ircg_solver *sv, double sigma, slv_cert *cx, slv_cert *cz,
                               int *have_z)
{
    ircg_error err;
    if ((err = sv->ops->certify(sv->ws, IRCG_X, sigma, cx)) != IRCG_OK)
        return err;
    /* IR-CG's z is its own point (and the stochastic methods', the same
     * average); IR-PG's and CG-BiO's is x, Bi-SG's lies outside X, where a
     * Frank-Wolfe gap bounds nothing */
    *have_z = sv->algorithm == IRCG_ALG_IRCG || slv_alg_stochastic(sv->algorithm);
    if (*have_z && (err = sv->ops->certify(sv->ws, IRCG_Z, 0.0, cz)) != IRCG_OK)
        return err;
    if (sv->algorithm == IRCG_ALG_IRPG || sv->algorithm == IRCG_ALG_CGBIO)
        *cz = *cx, *have_z = 1;
    return IRCG_OK;
}

/* A certificate of x and z folded into b.  It runs past the time limit
 * (a grace frame: its cost is bounded, a few passes over the data and two
 * or three top singular vectors, and a result cut short of it could not
 * say how far from optimal it is); a cancel still stops it, leaving b as
 * it was. */
static ircg_error certify_into(ircg_solver *sv, slv_bounds *b)
{
    slv_cert cx, cz;
    slv_stop_frame grace;
    int have_z = 0;
    double t0 = slv_now();
    /* sigma of the next iteration: the one x_t is about to be regularized
     * with; any sigma > 0 gives a valid bound */
    double sigma = ircg_sigma(sv->varsigma, sv->set.p, sv->t);
    slv_stop_push_grace(&grace);
    ircg_error err = certify_both(sv, sigma, &cx, &cz, &have_z);
    slv_stop_pop(&grace);
    if (err != IRCG_OK)
        return err;
    slv_bounds_fold(b, sv->t, sigma, &cx, &cz, have_z, slv_now() - t0);
    return IRCG_OK;
}

void slv_bounds_fold(slv_bounds *b, int64_t t, double sigma, const slv_cert *cx,
                     const slv_cert *cz, int have_z, double seconds)
{
    if (isnan(b->g0)) /* the run's first certificate: of x_0, unless the
                         state came from a version without bounds */
        b->g0 = cx->g;
    fold(b, cx, cz, have_z, sigma);
    b->t = t;
    b->count++;
    b->seconds += seconds;
}

ircg_error slv_certify(ircg_solver *sv, ircg_status *st)
{
    if (!sv->set.certify || !sv->ops->certify)
        return IRCG_OK;
    ircg_error err = certify_into(sv, &sv->bnd);
    if (err == IRCG_OK && st && (stop_met(sv) || exact(sv)))
        *st = IRCG_STATUS_CONVERGED;
    return err;
}

/* A cancel during it leaves the last certificate made (its iteration
 * says which) as the result's. */
ircg_error slv_certify_final(ircg_solver *sv)
{
    sv->final = sv->bnd;
    if (!sv->set.certify || !sv->ops->certify || sv->bnd.t == sv->t)
        return IRCG_OK;
    ircg_error err = certify_into(sv, &sv->final);
    return err == IRCG_ERR_STOPPED ? IRCG_OK : err;
}

/* Of the row's own iteration and values (it->t, g_x, g_z): a row whose
 * callback comes after the solve went on (cert_async.c) reads its own. */
void slv_bounds_report(const ircg_solver *sv, ircg_iter_info *it)
{
    const slv_bounds *b = &sv->bnd;
    it->certified = b->t == it->t && b->t >= 0;
    if (b->t < 0) {
        it->inner_gap_x = it->inner_gap_z = it->g_lower = it->g_upper = it->f_lower = NAN;
        return;
    }
    it->g_lower = b->g_lower;
    it->g_upper = b->g_upper;
    it->f_lower = b->f_lower;
    if (it->certified) {
        it->inner_gap_x = b->gap_x;
        it->inner_gap_z = b->gap_z;
        return;
    }
    /* the running values: what the trace reports as g(x_t), g(z_t) */
    it->inner_gap_x = inner_gap(it->g_x, 0.0, b->g_lower);
    it->inner_gap_z = isfinite(b->gap_z) ? inner_gap(it->g_z, 0.0, b->g_lower) : NAN;
}

/* The bounds of the last iterate: the final certificate's when made. */
static const slv_bounds *last_bounds(const ircg_solver *sv)
{
    return sv->final.t == sv->t && sv->final.count >= sv->bnd.count ? &sv->final : &sv->bnd;
}

static unsigned warnings(const ircg_solver *sv)
{
    const ircg_stop *s = &sv->set.stop;
    const slv_bounds *b = last_bounds(sv);
    unsigned w = 0;
    if (b->t < 0)
        return IRCG_WARN_UNCERTIFIED;
    double tol = 1e-3 * (b->g0 - b->g_upper);
    if (s->inner_gap > 0 || s->inner_gap_rel > 0) {
        tol = INFINITY;
        if (s->inner_gap > 0)
            tol = s->inner_gap;
        if (s->inner_gap_rel > 0)
            tol = fmin(tol, s->inner_gap_rel * (b->g0 - b->g_upper));
    }
    if (!(b->gap_x <= fmax(tol, 0.0)))
        w |= IRCG_WARN_INNER_UNSOLVED;
    if (s->outer_gap > 0 && !(b->f_x - b->f_lower <= s->outer_gap))
        w |= IRCG_WARN_OUTER_UNSOLVED;
    if (s->outer_gap_rel > 0 &&
        !(b->f_x - b->f_lower <= s->outer_gap_rel * fmax(fabs(b->f_x), fabs(b->f_lower))))
        w |= IRCG_WARN_OUTER_UNSOLVED;
    if (!b->sharp)
        w |= IRCG_WARN_LOOSE;
    return w;
}

void slv_bounds_info(const ircg_solver *sv, ircg_status st, ircg_info *info)
{
    const slv_bounds *b = last_bounds(sv);
    (void)st;
    info->varsigma = sv->varsigma;
    info->cert_iteration = b->t;
    info->g_lower = b->t >= 0 ? b->g_lower : NAN;
    info->g_upper = b->t >= 0 ? b->g_upper : NAN;
    info->f_lower = b->t >= 0 ? b->f_lower : NAN;
    info->inner_gap_x = b->gap_x;
    info->inner_gap_z = b->gap_z;
    info->outer_gap_x = b->f_x - b->f_lower;
    info->outer_gap_z = b->f_z - b->f_lower;
    info->cert_g_x = b->g_x;
    info->cert_g_z = b->g_z;
    info->cert_f_x = b->f_x;
    info->cert_f_z = b->f_z;
    info->g_x0 = b->g0;
    info->cert_sharp = b->sharp;
    info->certificates = b->count;
    info->cert_seconds = b->seconds;
    info->warnings = warnings(sv);
}
