/*
 * bisect.h -- the bisection methods on the level of f: what the two inner
 * solvers share (levels.c).  After FC-BiO (H. Zhang, L. Chen, J. Xu,
 * J. Zhang, "Functionally Constrained Algorithm Solves Convex Simple
 * Bilevel Problems", NeurIPS 2024, arXiv 2409.06530); docs/DESIGN.md
 * states the method and its guarantees.
 *
 * A solve has two phases.  Phase 0 brackets g* = min_X g by certificates
 * (g_lower <= g* <= g_upper) until the inner solver's point x has a
 * certified inner gap g(x) - g_lower <= tau_g / 2; it becomes the answer
 * z and g^ = g_upper the levels' bound on g.  Phase 1 decides levels t of
 * f between t_lo = f_lower (certified: t_lo <= f*) and t_hi = f(z):
 *
 *   psi_t(x) = max(w_f (f(x) - t), w_g (g(x) - g^)),  w_f = 4 / tau_f,
 *   w_g = 4 / tau_g,
 *
 * a level is accepted when the inner solver finds x with psi_t(x) <= 1
 * (certified: f(x) + f_err <= t + tau_f / 4, g(x) + g_err <= g^ + tau_g
 * / 4): x becomes the answer; and rejected when a certificate proves
 * t < f*: for any lambda in [0, 1], min_X psi_t >= min_X [lambda w_f (f -
 * t) + (1 - lambda) w_g (g - g^)], which is positive exactly when f(y) +
 * (g(y) - g^ - gap_Phi_sigma(y)) / sigma > t at some y, sigma = lambda w_f
 * / ((1 - lambda) w_g): the bound every certificate folds into f_lower
 * (core/certificate.c).  With g^ >= g*, min_X psi_t > 0 implies t < f*
 * (a bilevel solution would make it <= 0).  The next level is the middle
 * of [t_lo, t_hi]; the solve ends when the loop's certificate of z meets
 * settings.stop (tau_g and tau_f are its tolerances, the method's
 * defaults filling in a side it leaves out).
 *
 * Every quantity the decisions read is scale-free (w_f f and w_g g do not
 * change when f or g is multiplied by a constant, nor do sigma f + g's
 * steps): the iterates do not depend on the units of f and g.
 */
#ifndef IRCG_BISECT_H
#define IRCG_BISECT_H

#include "core/solver_internal.h"

typedef enum bs_phase { BS_BRACKET_G = 0, BS_LEVELS = 1 } bs_phase;

typedef struct bs_levels {
    int phase;           /* bs_phase                                      */
    double g_hat;        /* g_upper when the levels began: the bound on g  */
    double level;        /* t, the level being decided                     */
    double w_f, w_g;     /* 4 / tau_f, 4 / tau_g at this level             */
    double lambda;       /* the last weight of f in the inner solver's step */
    double sigma;        /* lambda w_f / ((1 - lambda) w_g)                */
    double psi;          /* psi_t at the inner solver's point (NaN: none)  */
    double f_z, g_z;     /* the answer's certified f and g (value + error
                            bound)                                        */
    double g_slack;      /* an accepted point's g above g^, in units of
                            tau_g (levels.c)                              */
    double sigma_root;   /* sigma at the last rejected level (0: none)     */
    int64_t at_level;    /* inner iterations at this level (or phase 0)    */
    int64_t next_try;    /* at_level of the next certificate attempt       */
    int64_t accepted, rejected;
    int want_stop;       /* ask the loop to certify z: the stop may hold    */
} bs_levels;

/* The phase 0 state of a new run. */
void bs_levels_init(bs_levels *lv);

/* The absolute tolerances of the stop at the answer's f (f_z). */
void bs_targets(const ircg_solver *sv, double f_z, double *tau_g, double *tau_f);

/* psi at values f, g of a point for this level's weights. */
double bs_psi(const bs_levels *lv, double f, double g);

/* Phase 0 with a certificate c of the inner solver's point x: nonzero
 * when its certified inner gap is within tau_g / 2 (the bracket is
 * tight): the caller makes x the answer and calls bs_next_level. */
int bs_bracket_done(const ircg_solver *sv, const slv_cert *c);

/* The first level, or the next one after a decision: from sv->bnd's
 * f_lower and the answer's certificate z (NULL: the answer is unchanged;
 * its f + f_err is t_hi), and a hint (NaN: none), used instead of the
 * bracket's own choice when it lies inside the bracket by more than half
 * the tolerance.  When the bracket is within the outer tolerance it sets
 * want_stop and returns nonzero (the loop's certificate decides; if it
 * does not stop, the next call goes on with a level), unless the answer
 * may lie below f* by more than that (levels.c, slack_too_wide): then
 * g's slack shrinks and the levels go on. */
int bs_next_level(ircg_solver *sv, bs_levels *lv, const slv_cert *z, double hint);

/* Whether the level is rejected: f_lower has passed it, and by enough
 * that the next level (bs_newton_hint) is an informed one. */
int bs_rejects(const ircg_solver *sv, const bs_levels *lv);

/* The level is rejected: the next one, at bs_newton_hint's. */
void bs_reject(ircg_solver *sv, bs_levels *lv);

/* After a rejected level: where Newton's method on min_X psi_t (convex
 * and nonincreasing in t, of slope -lambda w_f) puts the root, from the
 * inner solver's psi at its point (an upper estimate of min_X psi_t) and
 * lambda: a level near the smallest one it can accept.  NaN when lambda
 * or psi says nothing. */
double bs_newton_hint(const bs_levels *lv);

/* Whether a certificate c of a point at this level accepts it: f + f_err
 * <= t + tau_f / 4 and g + g_err <= g^ + tau_g / 4. */
int bs_accepts(const bs_levels *lv, const slv_cert *c);

/* Whether the schedule of certificate attempts at this level (after 8,
 * 16, 32, 64 inner iterations, then every 64 more) lets one be tried
 * now; advances it when it does. */
int bs_attempt_due(bs_levels *lv);

/* Checkpoints: the shared state (tag checked on restore). */
void bs_levels_save(const bs_levels *lv, slv_buf *b);
ircg_error bs_levels_restore(bs_levels *lv, slv_rbuf *r, ircg_diag *diag);

/* prox_max.c: the step of the accelerated method for min_X max(F, G):
 * x+ = argmin_{x in X} max(a_f + <c_f, x - y> + L_f/2 ||x - y||^2, a_g +
 * <c_g, x - y> + L_g/2 ||x - y||^2), through the dual in lambda (the
 * weight of F; *lambda in: the previous one, a warm start); c_f NULL: G
 * alone, the projected gradient step.  *lambda is the weight found, x (n)
 * the step, *evals the projections made. */
typedef struct bs_prox {
    int64_t n;
    const double *y, *c_f, *c_g;
    double a_f, a_g, L_f, L_g;
    double f_y, g_y; /* f and g at y, unweighted (the caller's)       */
    double *u;     /* scratch, n */
    double scale;  /* the magnitude of the last slope's terms */
    void *ws;
    ircg_error (*project)(void *ws, const double *y, double *out);
} bs_prox;
ircg_error bs_prox_max(bs_prox *p, double *lambda, double *x, int *evals);

/* The slv_alg hooks both methods share. */
double bs_cert_sigma(const ircg_solver *sv);
int bs_cert_wanted(const ircg_solver *sv);
int bs_stop_vetoed(const ircg_solver *sv);
/* The loop's certificate made x the answer (slv_alg.take_x): the
 * bracket's upper end is x's certified value now. */
void bs_answer_is_x(const ircg_solver *sv, bs_levels *lv);

#endif /* IRCG_BISECT_H */
