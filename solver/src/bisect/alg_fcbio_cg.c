/*
 * alg_fcbio_cg.c -- FC-BiO-CG: the bisection on the level of f (levels.c)
 * with conditional gradient as the inner solver, on the family's own
 * oracle (oracle.h: the LMO, the step, the certificates): no projection,
 * so the nuclear ball (matrix completion) too, and least squares.
 *
 * While g* is bracketed an iteration is a Frank-Wolfe step on g with the
 * exact line search, and z follows x.  At a level t it is a Frank-Wolfe
 * step on the softmax smoothing of psi_t = max(F, G), F = w_f (f - t),
 * G = w_g (g - g^):
 *
 *   S(x) = mu log(e^{F/mu} + e^{G/mu}),  max(F, G) <= S <= max(F, G) + mu log 2,
 *   grad S = lambda grad F + (1 - lambda) grad G,  lambda = 1 / (1 + e^{(G - F)/mu}),
 *
 * whose direction is the LMO of sigma grad f + grad g with sigma = lambda
 * w_f / ((1 - lambda) w_g), and whose step minimizes S along it: F and G
 * are quadratic along the segment (the quadratic families give <grad f,
 * d>, d'H_f d and d'H_g d), S is convex there, and its slope's root is
 * found by bisection.  z keeps the answer; an accepted level's x becomes
 * it (the oracle's restart op, z <- x).
 *
 * Why it decides every level: S is smooth (L <= w_f L_f + w_g L_g +
 * max ||grad F - grad G||^2 / (4 mu)), so conditional gradient brings S
 * within any margin of min_X S and its Frank-Wolfe gap to 0.  With
 * mu log 2 = 1/4, at a near-minimizer x of S: psi_t(x) <= S(x) <=
 * min_X psi_t + 1/4 + (gap), so a level with min_X psi_t < 3/4 is
 * accepted (psi_t <= 1), and h = lambda F + (1 - lambda) G = S - mu
 * H(lambda) >= S - 1/4 (H the entropy, <= log 2), whose Frank-Wolfe gap
 * is S's, certifies min_X psi_t >= min_X h >= h(x) - gap(x) > 0 once
 * min_X psi_t > 1/4 (and the gap is small): every level is one or the
 * other.  The certificate of x at sigma (the family's, every rounding
 * bounded) is what rejects it: f* >= f(x) + (g(x) - g_upper - gap_Phi(x))
 * / sigma > t (certificate.c).
 */
#include <math.h>
#include <stdlib.h>

#include "bisect/bisect.h"

#define FCBIO_CG_TAG 0x3147434f49424346ULL /* "FCBIOCG1" */
/* mu log 2: how far S may lie above psi_t, in units of the acceptance
 * tolerance (1): a quarter, so that levels below 1/4 are rejected and
 * levels above 3/4 accepted, and none is undecided */
#define SMOOTHING (0.25 / M_LN2)
#define SEARCH_STEPS 64

typedef struct fcg_state {
    bs_levels lv; /* first: the shared hooks read it */
} fcg_state;

static ircg_error fcg_init(ircg_solver *sv, ircg_diag *diag)
{
    fcg_state *st = calloc(1, sizeof *st);
    if (!st)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    bs_levels_init(&st->lv);
    sv->alg_state = st;
    return IRCG_OK;
}

static void fcg_fini(ircg_solver *sv)
{
    free(sv->alg_state);
    sv->alg_state = NULL;
}

/* F and G (the weighted parts of psi) along the segment x + a d. */
typedef struct segment {
    double F0, F1, F2, G0, G1, G2;
} segment;

static double seg_F(const segment *s, double a)
{
    return s->F0 + a * (s->F1 + 0.5 * a * s->F2);
}

static double seg_G(const segment *s, double a)
{
    return s->G0 + a * (s->G1 + 0.5 * a * s->G2);
}

/* The weight of F in the softmax, and of G, from their difference: the
 * two logistic forms, each exact where its exponent is not positive. */
static void weights(double F, double G, double *lf, double *lg)
{
    double z = (F - G) / SMOOTHING;
    if (z >= 0) {
        double e = exp(-z);
        *lf = 1.0 / (1.0 + e);
        *lg = e / (1.0 + e);
    } else {
        double e = exp(z);
        *lf = e / (1.0 + e);
        *lg = 1.0 / (1.0 + e);
    }
}

/* sigma = lambda w_f / ((1 - lambda) w_g) = (w_f / w_g) e^{(F - G)/mu},
 * the exponent clamped to +-EXP_CLAMP: beyond it lambda is 0 or 1 to
 * within 1e-26, and sigma times the slopes stays a double. */
#define EXP_CLAMP 60.0
static double sigma_of(const bs_levels *lv, double F, double G)
{
    double z = fmin(fmax((F - G) / SMOOTHING, -EXP_CLAMP), EXP_CLAMP);
    return lv->w_f / lv->w_g * exp(z);
}

/* dS/da along the segment. */
static double seg_slope(const segment *s, double a)
{
    double lf, lg;
    weights(seg_F(s, a), seg_G(s, a), &lf, &lg);
    return lf * (s->F1 + a * s->F2) + lg * (s->G1 + a * s->G2);
}

/* argmin_{[0, 1]} of the convex S along the segment: 0 when it does not
 * descend, 1 when it still descends there, else the root of its slope by
 * bisection (to the resolution of a double in [0, 1]). */
static double seg_search(const segment *s)
{
    double lo = 0, hi = 1;
    if (!(seg_slope(s, 0.0) < 0))
        return 0.0;
    if (!(seg_slope(s, 1.0) > 0))
        return 1.0;
    for (int k = 0; k < SEARCH_STEPS && hi - lo > 0; k++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi)
            break;
        if (seg_slope(s, mid) < 0)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* A Frank-Wolfe step on g alone with the exact line search; z follows x.
 * The gap of g at x (before the step) into *gap. */
static ircg_error bracket_step(ircg_solver *sv, ircg_iter_info *it, double *gap)
{
    slv_dir dir = {.need_hg = 1};
    ircg_error err = sv->ops->lmo(sv->ws, 0.0, &dir);
    if (err != IRCG_OK)
        return err;
    double a = slv_step_size(IRCG_STEP_LINE_SEARCH, sv->t, 0.0, &dir, 0.0, 0.0);
    *gap = -dir.gphi_d;
    it->lmo_matvecs = dir.matvecs;
    it->lmo_converged = dir.converged;
    it->top_sv = dir.top_sv;
    it->alpha = a;
    it->sigma = 0;
    it->lambda = 0;
    if (sv->ops->plan_lmo)
        sv->ops->plan_lmo(sv->ws, 0.0);
    return sv->ops->step(sv->ws, a, 0.0, 0.0, 1.0);
}

/* A Frank-Wolfe step on S at this level; z stays.  *lb is the estimate
 * h(x) - gap_h(x) of min_X h at x (before the step), *psi psi_t after. */
static ircg_error level_step(ircg_solver *sv, bs_levels *lv, ircg_iter_info *it, double *lb,
                             double *psi)
{
    double F = lv->w_f * (sv->vals.f_x - lv->level), G = lv->w_g * (sv->vals.g_x - lv->g_hat);
    double lf, lg, sigma = sigma_of(lv, F, G);
    slv_dir dir = {.need_hg = 1};
    weights(F, G, &lf, &lg);
    ircg_error err = sv->ops->lmo(sv->ws, sigma, &dir);
    if (err != IRCG_OK)
        return err;
    /* grad h = lambda w_f grad f + (1 - lambda) w_g grad g = (1 - lambda)
     * w_g (sigma grad f + grad g): its Frank-Wolfe gap from the LMO's */
    *lb = lf * F + lg * G - lg * lv->w_g * (-dir.gphi_d);
    segment s = {.F0 = F, .F1 = lv->w_f * dir.gf_d, .F2 = lv->w_f * dir.d_hf_d,
                 .G0 = G, .G1 = lv->w_g * (dir.gphi_d - sigma * dir.gf_d),
                 .G2 = lv->w_g * dir.d_hg_d};
    double a = seg_search(&s), Fa = seg_F(&s, a), Ga = seg_G(&s, a);
    lv->lambda = lf;
    lv->sigma = sigma;
    *psi = fmax(Fa, Ga);
    it->lmo_matvecs = dir.matvecs;
    it->lmo_converged = dir.converged;
    it->top_sv = dir.top_sv;
    it->alpha = a;
    it->sigma = sigma;
    it->lambda = lf;
    if (sv->ops->plan_lmo)
        sv->ops->plan_lmo(sv->ws, sigma_of(lv, Fa, Ga));
    return sv->ops->step(sv->ws, a, 1.0, 0.0, 0.0);
}

/* The end of phase 0: the certified inner gap of x within tau_g / 2. */
static ircg_error try_bracket(ircg_solver *sv, bs_levels *lv, double gap)
{
    double tau_g, tau_f;
    slv_cert c;
    bs_targets(sv, sv->vals.f_x, &tau_g, &tau_f);
    /* the gap of x before the step bounds its inner gap: a cheap guess of
     * when the certificate will pass, else the schedule */
    if (!(gap <= 0.5 * tau_g) && !bs_attempt_due(lv))
        return IRCG_OK;
    ircg_error err = slv_cert_point(sv, IRCG_X, 0.0, &c);
    if (err != IRCG_OK || !bs_bracket_done(sv, &c))
        return err;
    lv->phase = BS_LEVELS; /* z = x already */
    lv->g_hat = sv->bnd.g_upper;
    bs_next_level(sv, lv, &c, NAN);
    return IRCG_OK;
}

/* A level accepted (x certified within it) or rejected (f_lower above it). */
static ircg_error try_decide(ircg_solver *sv, bs_levels *lv, double lb, double psi)
{
    slv_cert c;
    int accept_try = psi <= 1.0;
    if (!accept_try && !(lb > 0 && bs_attempt_due(lv)))
        return IRCG_OK;
    ircg_error err = slv_cert_point(sv, IRCG_X, lv->sigma, &c);
    if (err != IRCG_OK)
        return err;
    if (accept_try && bs_accepts(lv, &c)) {
        if ((err = sv->ops->restart(sv->ws)) != IRCG_OK) /* z <- x */
            return err;
        lv->accepted++;
        bs_next_level(sv, lv, &c, NAN);
    } else if (bs_rejects(sv, lv)) {
        bs_reject(sv, lv);
    }
    return IRCG_OK;
}

static ircg_error fcg_iterate(ircg_solver *sv, ircg_iter_info *it, int *converged)
{
    fcg_state *st = sv->alg_state;
    bs_levels *lv = &st->lv;
    double t0 = slv_now(), gap = NAN, lb = NAN, psi = NAN;
    ircg_error err;

    (void)converged; /* the loop's certificates end the solve */
    if (lv->want_stop) /* the loop's certificate did not stop: go on */
        bs_next_level(sv, lv, NULL, NAN);
    int phase = lv->phase;
    err = phase == BS_LEVELS ? level_step(sv, lv, it, &lb, &psi)
                             : bracket_step(sv, it, &gap);
    if (err != IRCG_OK)
        return err;
    it->lmo_seconds = slv_now() - t0;
    sv->t++;
    lv->at_level++;
    /* the decisions read x's new values: the loop refreshes them after
     * this call, so they are made afresh here (the certificates recompute
     * everything from the point anyway) */
    slv_solver_refresh_values(sv);
    lv->psi = phase == BS_LEVELS ? bs_psi(lv, sv->vals.f_x, sv->vals.g_x) : NAN;
    it->gap = lv->psi;
    (void)psi;
    return phase == BS_LEVELS ? try_decide(sv, lv, lb, lv->psi) : try_bracket(sv, lv, gap);
}

static ircg_error fcg_save(const ircg_solver *sv, slv_buf *b)
{
    const fcg_state *st = sv->alg_state;
    slv_buf_put_u64(b, FCBIO_CG_TAG);
    bs_levels_save(&st->lv, b);
    return b->failed ? IRCG_ERR_NOMEM : IRCG_OK;
}

static ircg_error fcg_restore(ircg_solver *sv, slv_rbuf *r, ircg_restore_mode mode,
                              ircg_diag *diag)
{
    fcg_state *st = sv->alg_state;
    bs_levels lv;
    ircg_error err;
    if (slv_rbuf_u64(r) != FCBIO_CG_TAG)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        "the FC-BiO-CG state is missing");
    if ((err = bs_levels_restore(&lv, r, diag)) != IRCG_OK)
        return err;
    if (mode == IRCG_RESTORE_AFRESH)
        bs_levels_init(&st->lv);
    else
        st->lv = lv;
    return IRCG_OK;
}

static ircg_error fcg_take_x(ircg_solver *sv)
{
    fcg_state *st = sv->alg_state;
    ircg_error err = sv->ops->restart(sv->ws); /* z <- x */
    if (err == IRCG_OK)
        bs_answer_is_x(sv, &st->lv);
    return err;
}

const slv_alg slv_alg_fcbio_cg = {
    .iterate = fcg_iterate, .init = fcg_init, .fini = fcg_fini, .save = fcg_save,
    .restore = fcg_restore, .answer = IRCG_Z, .cert_sigma = bs_cert_sigma,
    .cert_wanted = bs_cert_wanted, .stop_vetoed = bs_stop_vetoed, .take_x = fcg_take_x,
};
