/*
 * levels.c -- the bisection on the level of f that FC-BiO and FC-BiO-CG
 * share (bisect.h says what is decided and why it is sound): the
 * tolerances, the weights of psi_t, the decisions and the schedule of
 * certificate attempts.
 */
#include <float.h>
#include <math.h>

#include "bisect/bisect.h"

#define LEVELS_TAG 0x314c56454c534942ULL /* "BISLEVL1" */
/* Certificate attempts at a level: after FIRST_TRY inner iterations, then
 * after as many more as were made (the wait doubling) up to EVERY, then
 * every EVERY iterations.  A certificate
 * costs about as much as an inner iteration (a few products, an LMO), so
 * this keeps them within a few percent of a long level. */
#define FIRST_TRY 8
#define EVERY 64
/* A rejected level is left when its certified Newton step is this
 * fraction of the one the inner solver's psi estimates (bs_rejects). */
#define MATURE 0.5
/* Where the next level lies in the bracket [t_lo, t_hi]. */
#define LEVEL_STEP 0.125
/* The slacks of an accepted point, in units of the tolerances: f(x) <= t
 * + F_SLACK tau_f, g(x) <= g^ + g_slack tau_g, g_slack from G_SLACK
 * shrinking by SLACK_SHRINK down to SLACK_MIN while what it buys f below
 * f* may exceed the outer tolerance (slack_too_wide). */
#define F_SLACK 0.25
#define G_SLACK 0.25
#define SLACK_SHRINK (1.0 / 16)
#define SLACK_MIN (1.0 / 4096)

void bs_levels_init(bs_levels *lv)
{
    *lv = (bs_levels){.phase = BS_BRACKET_G, .g_hat = NAN, .level = NAN, .w_f = NAN,
                      .w_g = NAN, .lambda = 0, .sigma = 0, .psi = NAN, .f_z = NAN,
                      .g_z = NAN, .g_slack = G_SLACK, .sigma_root = 0,
                      .next_try = FIRST_TRY};
}

/* A tolerance no smaller than what double precision can resolve at the
 * scale of the two values it compares, so that its weight stays finite. */
static double resolvable(double tol, double a, double b)
{
    double floor = 64 * DBL_EPSILON * (fabs(a) + (isfinite(b) ? fabs(b) : 0.0));
    return fmax(tol, fmax(floor, DBL_MIN));
}

void bs_targets(const ircg_solver *sv, double f_z, double *tau_g, double *tau_f)
{
    const slv_bounds *b = &sv->bnd;
    double inner, outer;
    slv_stop_targets(sv, f_z, &inner, &outer);
    *tau_g = resolvable(inner, b->g0, b->g_upper);
    *tau_f = resolvable(outer, f_z, b->f_lower);
}

double bs_psi(const bs_levels *lv, double f, double g)
{
    return fmax(lv->w_f * (f - lv->level), lv->w_g * (g - lv->g_hat));
}

int bs_bracket_done(const ircg_solver *sv, const slv_cert *c)
{
    double tau_g, tau_f;
    bs_targets(sv, c->f, &tau_g, &tau_f);
    return c->g + c->g_err - sv->bnd.g_lower <= 0.5 * tau_g;
}

/* The answer's f may lie below f* by what g's slack above g^ buys: about
 * (g(z) - g^) / sigma, sigma the weight of f against g's at the last
 * rejected level, the nearest below the root (1 / sigma is the slope of
 * the value function v(c) = min {f : g <= c}), and twice that where v
 * grows like a square root (the secant of c^(1/2) is twice its slope at
 * the far end: the large inner solution sets of least squares).  Where
 * that exceeds half the outer tolerance, the slack shrinks (to SLACK_MIN
 * at most): a safeguard of f's lower side, which no certificate can give
 * (FC-BiO's lower bound for first-order methods), not a bound. */
static int slack_too_wide(const ircg_solver *sv, const bs_levels *lv, double tau_g,
                          double tau_f)
{
    /* the multiplier at the last rejected level, else at this level's
     * step; none known (no level yet): the deficit is unknown, and taken
     * as too large */
    double sigma = lv->sigma_root > 0 ? lv->sigma_root : lv->sigma;
    double deficit = sigma > 0 ? 2 * (lv->g_z - lv->g_hat) / sigma : INFINITY;
    /* a slack below what g's values resolve could accept nothing */
    double narrower = lv->g_slack * SLACK_SHRINK * tau_g;
    return lv->g_slack > SLACK_MIN && deficit > 0.5 * tau_f &&
           narrower >= resolvable(0, sv->bnd.g0, sv->bnd.g_upper);
}

int bs_next_level(ircg_solver *sv, bs_levels *lv, const slv_cert *z, double hint)
{
    double t_lo = sv->bnd.f_lower, tau_g, tau_f;
    int tried = lv->want_stop;
    lv->want_stop = 0;
    if (z) {
        lv->f_z = z->f + z->f_err;
        lv->g_z = z->g + z->g_err;
    }
    bs_targets(sv, lv->f_z, &tau_g, &tau_f);
    if (!tried && lv->f_z - t_lo <= tau_f) {
        if (!slack_too_wide(sv, lv, tau_g, tau_f)) {
            lv->want_stop = 1;
            return 1;
        }
        lv->g_slack *= SLACK_SHRINK;
    }
    /* the level: an eighth of the bracket above t_lo, and at least half the
     * outer tolerance.  A rejection's certificate moves t_lo beyond the
     * level (a Newton step on the convex, nonincreasing min_X psi_t: the
     * bound of certificate.c), and an acceptance brings t_hi to the level,
     * so a near level ends the solve in a few, where the middle would take
     * log2 of the bracket's width in tolerances */
    lv->level = t_lo + fmax(0.5 * tau_f, LEVEL_STEP * (lv->f_z - t_lo));
    if (hint > t_lo + 0.5 * tau_f && hint < lv->f_z - 0.5 * tau_f)
        lv->level = hint;
    lv->w_f = 1.0 / (F_SLACK * tau_f);
    lv->w_g = 1.0 / (lv->g_slack * tau_g);
    lv->at_level = 0;
    lv->next_try = FIRST_TRY;
    lv->psi = NAN;
    return 0;
}

void bs_reject(ircg_solver *sv, bs_levels *lv)
{
    double hint = bs_newton_hint(lv);
    lv->rejected++;
    lv->sigma_root = lv->sigma;
    bs_next_level(sv, lv, NULL, hint);
}

int bs_rejects(const ircg_solver *sv, const bs_levels *lv)
{
    double t_lo = sv->bnd.f_lower;
    if (!(t_lo >= lv->level))
        return 0;
    /* the certified Newton step from the level, against the one psi at
     * the inner solver's point would take: the level is left once the
     * first is at least half the second (the next level, the second's
     * end, then lies within twice the root's distance), not as soon as
     * a bound passes it, which would leave the next level barely above */
    double lb = (t_lo - lv->level) * lv->lambda * lv->w_f;
    return !(lv->psi > 0) || !(lv->lambda > 0) || lb >= MATURE * lv->psi;
}

double bs_newton_hint(const bs_levels *lv)
{
    if (!(lv->lambda > 0) || !(lv->psi > 0) || !isfinite(lv->psi))
        return NAN;
    return lv->level + lv->psi / (lv->lambda * lv->w_f);
}

int bs_accepts(const bs_levels *lv, const slv_cert *c)
{
    return lv->w_f * (c->f + c->f_err - lv->level) <= 1.0 &&
           lv->w_g * (c->g + c->g_err - lv->g_hat) <= 1.0;
}

int bs_attempt_due(bs_levels *lv)
{
    if (lv->at_level < lv->next_try)
        return 0;
    int64_t wait = lv->at_level < FIRST_TRY ? FIRST_TRY : lv->at_level;
    lv->next_try = lv->at_level + (wait < EVERY ? wait : EVERY);
    return 1;
}

double bs_cert_sigma(const ircg_solver *sv)
{
    const bs_levels *lv = sv->alg_state;
    return lv->phase == BS_LEVELS && lv->sigma > 0 && isfinite(lv->sigma) ? lv->sigma : 0.0;
}

int bs_stop_vetoed(const ircg_solver *sv)
{
    const bs_levels *lv = sv->alg_state;
    double tau_g, tau_f;
    if (lv->phase != BS_LEVELS)
        return 0;
    bs_targets(sv, lv->f_z, &tau_g, &tau_f);
    return slack_too_wide(sv, lv, tau_g, tau_f);
}

void bs_answer_is_x(const ircg_solver *sv, bs_levels *lv)
{
    const slv_bounds *b = &sv->bnd;
    lv->f_z = b->f_x;
    lv->g_z = b->g_lower + b->gap_x; /* g(x) + its rounding's bound */
}

int bs_cert_wanted(const ircg_solver *sv)
{
    const bs_levels *lv = sv->alg_state;
    return lv->want_stop;
}

void bs_levels_save(const bs_levels *lv, slv_buf *b)
{
    slv_buf_put_u64(b, LEVELS_TAG);
    slv_buf_put_u64(b, (uint64_t)lv->phase);
    slv_buf_put_f64(b, lv->g_hat);
    slv_buf_put_f64(b, lv->level);
    slv_buf_put_f64(b, lv->w_f);
    slv_buf_put_f64(b, lv->w_g);
    slv_buf_put_f64(b, lv->lambda);
    slv_buf_put_f64(b, lv->sigma);
    slv_buf_put_f64(b, lv->psi);
    slv_buf_put_f64(b, lv->f_z);
    slv_buf_put_f64(b, lv->g_z);
    slv_buf_put_f64(b, lv->g_slack);
    slv_buf_put_f64(b, lv->sigma_root);
    slv_buf_put_i64(b, lv->at_level);
    slv_buf_put_i64(b, lv->next_try);
    slv_buf_put_i64(b, lv->accepted);
    slv_buf_put_i64(b, lv->rejected);
    slv_buf_put_u64(b, (uint64_t)lv->want_stop);
}

ircg_error bs_levels_restore(bs_levels *lv, slv_rbuf *r, ircg_diag *diag)
{
    bs_levels t;
    if (slv_rbuf_u64(r) != LEVELS_TAG)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        "the bisection's state is missing");
    t.phase = (int)slv_rbuf_u64(r);
    t.g_hat = slv_rbuf_f64(r);
    t.level = slv_rbuf_f64(r);
    t.w_f = slv_rbuf_f64(r);
    t.w_g = slv_rbuf_f64(r);
    t.lambda = slv_rbuf_f64(r);
    t.sigma = slv_rbuf_f64(r);
    t.psi = slv_rbuf_f64(r);
    t.f_z = slv_rbuf_f64(r);
    t.g_z = slv_rbuf_f64(r);
    t.g_slack = slv_rbuf_f64(r);
    t.sigma_root = slv_rbuf_f64(r);
    t.at_level = slv_rbuf_i64(r);
    t.next_try = slv_rbuf_i64(r);
    t.accepted = slv_rbuf_i64(r);
    t.rejected = slv_rbuf_i64(r);
    t.want_stop = (int)slv_rbuf_u64(r);
    if (r->failed || (t.phase != BS_BRACKET_G && t.phase != BS_LEVELS) || t.at_level < 0 ||
        !(t.g_slack > 0 && t.g_slack <= G_SLACK) ||
        t.next_try < 0 || (t.want_stop != 0 && t.want_stop != 1))
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        "the bisection's state is truncated or corrupt");
    *lv = t;
    return IRCG_OK;
}
