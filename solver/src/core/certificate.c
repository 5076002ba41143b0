/*
 * certificate.c -- the certified bounds of a solve (ircg_info), from the
 * oracle's certificates of x_t and z_t (oracle.h, slv_cert).
 *
 * A certificate of a feasible point y gives g(y) and f(y) with their
 * errors, an upper bound sub_g of g(y) - g* (Frank-Wolfe's gap, or a
 * sharper one where g has a certified curvature), and for sigma >
 * 0 an upper bound sub_phi of Phi_sigma(y) - min_X Phi_sigma.  From them:
 *  - g* <= g(y): g_upper is the least certified g(y) + g_err;
 *  - g* >= g(y) - sub_g: g_lower is the greatest of those and 0 (every
 *    family's g is a sum of squares or of logistic losses);
 *  - f* >= f(y) + (g(y) - g_upper - sub_phi) / sigma, because for any
 *    solution x* of the bilevel problem sigma f* + g* = Phi_sigma(x*) >=
 *    min_X Phi_sigma >= Phi_sigma(y) - sub_phi, and g* <= g_upper;
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
    *b = (slv_bounds){.t = -1, .g0 = NAN, .f0 = NAN, .g_lower = 0.0, .g_upper = INFINITY,
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

/* The outer bound from x's certificate with Phi's suboptimality bound at
 * sigma. */
static double f_bound_at(const slv_cert *c, double sigma, double sub_phi, double g_upper)
{
    if (!(sigma > 0) || !isfinite(sub_phi) || !isfinite(g_upper))
        return -INFINITY;
    double q = minus2(c->g - c->g_err, g_upper, sub_phi) / sigma;
    q -= slv_gamma(2) * fabs(q);
    return minus2(c->f, c->f_err, -q);
}

/* The best of the outer bounds the certificate allows. */
static double f_bound(const slv_cert *c, double sigma, double g_upper)
{
    double f = f_bound_at(c, sigma, c->sub_phi, g_upper);
    for (int k = 0; k < c->nphi; k++)
        f = fmax(f, f_bound_at(c, c->phi_sigma[k], c->phi_sub[k], g_upper));
    return f;
}

static void fold(slv_bounds *b, const slv_cert *cx, const slv_cert *cz, int have_z,
                 double sigma)
{
    b->g_upper = fmin(b->g_upper, slv_up(cx->g + cx->g_err, 1));
    b->g_lower = fmax(b->g_lower, minus2(cx->g, cx->g_err, cx->sub_g));
    if (have_z) {
        b->g_upper = fmin(b->g_upper, slv_up(cz->g + cz->g_err, 1));
        b->g_lower = fmax(b->g_lower, minus2(cz->g, cz->g_err, cz->sub_g));
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

/* The certified inner gap and f of the method's answer (slv_alg.answer:
 * x, or the bisection methods' z) in b. */
static void answer_of(const ircg_solver *sv, const slv_bounds *b, double *gap, double *f)
{
    int z = slv_alg_of(sv->algorithm)->answer == IRCG_Z;
    *gap = z ? b->gap_z : b->gap_x;
    *f = z ? b->f_z : b->f_x;
}

/* Working precision: what double precision resolves of the two gaps.
 * The inner gap's is 8 ulps of g(x_0) - g_upper; the outer gap's 8 ulps of
 * the scale of f, the largest of |f|, |f_lower| and |f(x_0)|.  f(x_0) is
 * there for f* = 0 (validation rows that the inner solution fits
 * exactly): f and f_lower then both tend to 0, and a relative outer
 * tolerance, or 8 ulps of f alone, would ask for an outer gap of exactly
 * 0, which no answer in double precision need reach. */
static double inner_ulps(const slv_bounds *b)
{
    return 8 * DBL_EPSILON * fmax(b->g0 - b->g_upper, 0.0);
}

/* |v| where v is finite, else 0: a bound not yet made (f_lower = -inf)
 * or a value not kept (f0 NaN in a checkpoint before version 6) sets no
 * scale -- an infinite one would call any answer exact. */
static double finite_abs(double v)
{
    return isfinite(v) ? fabs(v) : 0.0;
}

static double outer_ulps(const slv_bounds *b, double f)
{
    return 8 * DBL_EPSILON *
           fmax(fmax(finite_abs(f), finite_abs(b->f_lower)), finite_abs(b->f0));
}

/* The answer is optimal to working precision: both gaps within it (the
 * outer one unless the solve is on g alone).  An exact answer ends the
 * solve as converged. */
static int exact_in(const ircg_solver *sv, const slv_bounds *b)
{
    double gap, f;
    answer_of(sv, b, &gap, &f);
    return gap <= inner_ulps(b) && (sv->varsigma == 0 || f - b->f_lower <= outer_ulps(b, f));
}

static int exact(const ircg_solver *sv)
{
    return exact_in(sv, &sv->bnd);
}

/* The tolerances of settings.stop in the units of the problem, for a
 * point of value f under the bounds b; INFINITY where none is given.  A
 * tolerance below working precision asks for working precision. */
static void targets_in(const ircg_solver *sv, const slv_bounds *b, double f, double *inner,
                       double *outer)
{
    const ircg_stop *s = &sv->set.stop;
    *inner = *outer = INFINITY;
    if (s->inner_gap > 0)
        *inner = s->inner_gap;
    if (s->inner_gap_rel > 0)
        *inner = fmin(*inner, s->inner_gap_rel * (b->g0 - b->g_upper));
    if (s->outer_gap > 0)
        *outer = s->outer_gap;
    if (s->outer_gap_rel > 0)
        *outer = fmin(*outer, s->outer_gap_rel * fmax(fabs(f), fabs(b->f_lower)));
    *inner = fmax(*inner, inner_ulps(b));
    *outer = fmax(*outer, outer_ulps(b, f));
}

void slv_stop_targets(const ircg_solver *sv, double f, double *inner, double *outer)
{
    targets_in(sv, &sv->bnd, f, inner, outer);
}

static int stop_given(const ircg_solver *sv)
{
    const ircg_stop *s = &sv->set.stop;
    return s->inner_gap > 0 || s->inner_gap_rel > 0 || s->outer_gap > 0 || s->outer_gap_rel > 0;
}

/* Every tolerance of settings.stop holds for a point of certified inner
 * gap `gap` and value f. */
static int stop_holds(const ircg_solver *sv, double gap, double f)
{
    double inner, outer;
    slv_stop_targets(sv, f, &inner, &outer);
    return gap <= inner && f - sv->bnd.f_lower <= outer;
}

/* Every tolerance of settings.stop that is given holds for the answer. */
static int stop_met(const ircg_solver *sv)
{
    double gap, f;
    if (!stop_given(sv))
        return 0;
    answer_of(sv, &sv->bnd, &gap, &f);
    return stop_holds(sv, gap, f);
}

/* A method whose answer is z may end with an x that is better: within
 * the stop too and nearer the inner solution set (a smaller certified
 * inner gap, so f lies less below f*: the bisection methods' inner solver
 * goes on from the last accepted point).  Then x becomes the answer.
 * Only at the stop, so the path is the same. */
static ircg_error prefer_x(ircg_solver *sv)
{
    const slv_alg *alg = slv_alg_of(sv->algorithm);
    slv_bounds *b = &sv->bnd;
    if (!alg->take_x || !(b->gap_x < b->gap_z) || !stop_holds(sv, b->gap_x, b->f_x))
        return IRCG_OK;
    ircg_error err = alg->take_x(sv);
    if (err != IRCG_OK)
        return err;
    b->g_z = b->g_x, b->f_z = b->f_x, b->gap_z = b->gap_x;
    slv_solver_refresh_values(sv); /* the iteration's z is x now */
    return IRCG_OK;
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
    *have_z = sv->algorithm == IRCG_ALG_IRCG || slv_alg_stochastic(sv->algorithm) ||
              slv_alg_of(sv->algorithm)->answer == IRCG_Z;
    const slv_alg *alg = slv_alg_of(sv->algorithm);
    if (*have_z && sigma == 0.0 && alg->z_is_x && alg->z_is_x(sv)) {
        *cz = *cx; /* the same point at the same sigma: the same bounds */
        return IRCG_OK;
    }
    if (*have_z && (err = sv->ops->certify(sv->ws, IRCG_Z, 0.0, cz)) != IRCG_OK)
        return err;
    if (sv->algorithm == IRCG_ALG_IRPG || sv->algorithm == IRCG_ALG_CGBIO)
        *cz = *cx, *have_z = 1;
    return IRCG_OK;
}

/* The sigma of the certificates' outer bound: the algorithm's, else the
 * one x_t is about to be regularized with (any sigma > 0 gives a valid
 * bound). */
static double cert_sigma(const ircg_solver *sv)
{
    const slv_alg *alg = slv_alg_of(sv->algorithm);
    return alg->cert_sigma ? alg->cert_sigma(sv) : ircg_sigma(sv->varsigma, sv->set.p, sv->t);
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
    double sigma = cert_sigma(sv);
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
    if (isnan(b->g0)) { /* the run's first certificate: of x_0, unless the
                           state came from a version without bounds */
        b->g0 = cx->g;
        b->f0 = cx->f;
    }
    fold(b, cx, cz, have_z, sigma);
    b->t = t;
    b->count++;
    b->seconds += seconds;
}

ircg_error slv_certify(ircg_solver *sv, ircg_status *st)
{
    if (!sv->set.certify || !sv->ops->certify)
        return IRCG_OK;
    const slv_alg *alg = slv_alg_of(sv->algorithm);
    ircg_error err = certify_into(sv, &sv->bnd);
    if (err == IRCG_OK && st && (stop_met(sv) || exact(sv)) &&
        !(alg->stop_vetoed && alg->stop_vetoed(sv))) {
        *st = IRCG_STATUS_CONVERGED;
        err = prefer_x(sv);
    }
    return err;
}

ircg_error slv_cert_point(ircg_solver *sv, ircg_which which, double sigma, slv_cert *c)
{
    slv_stop_frame grace;
    slv_bounds *b = &sv->bnd;
    double t0 = slv_now();
    slv_stop_push_grace(&grace);
    ircg_error err = sv->ops->certify(sv->ws, which, sigma, c);
    slv_stop_pop(&grace);
    if (err != IRCG_OK)
        return err;
    b->g_upper = fmin(b->g_upper, slv_up(c->g + c->g_err, 1));
    b->g_lower = fmax(b->g_lower, minus2(c->g, c->g_err, c->sub_g));
    b->f_lower = fmax(b->f_lower, fmax(c->f_floor, f_bound(c, sigma, b->g_upper)));
    b->sharp &= c->sharp;
    b->count++;
    b->seconds += slv_now() - t0;
    return IRCG_OK;
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
    double gap, f, inner, outer;
    if (b->t < 0)
        return IRCG_WARN_UNCERTIFIED;
    answer_of(sv, b, &gap, &f);
    targets_in(sv, b, f, &inner, &outer);
    if (!(s->inner_gap > 0 || s->inner_gap_rel > 0)) /* the default's */
        inner = fmax(1e-3 * (b->g0 - b->g_upper), inner_ulps(b));
    if (!(gap <= inner))
        w |= IRCG_WARN_INNER_UNSOLVED;
    if (s->outer_gap > 0 || s->outer_gap_rel > 0) {
        if (!(f - b->f_lower <= outer))
            w |= IRCG_WARN_OUTER_UNSOLVED;
        /* the other side, which no stop can certify (FC-BiO's lower bound
         * for first-order methods) but a certificate can refute: f below
         * f_lower <= f* by more than the tolerance */
        if (b->f_lower - f > outer)
            w |= IRCG_WARN_BELOW_OPTIMUM;
    }
    if (exact_in(sv, b)) /* no tolerance asks for more than exists (on g
                            alone, exactness says nothing of f) */
        w &= ~(IRCG_WARN_INNER_UNSOLVED | (sv->varsigma != 0 ? IRCG_WARN_OUTER_UNSOLVED : 0u));
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
    info->answer = slv_alg_of(sv->algorithm)->answer;
    info->certificates = b->count;
    info->cert_seconds = b->seconds;
    info->warnings = warnings(sv);
}
