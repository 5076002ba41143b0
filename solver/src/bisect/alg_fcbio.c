/*
 * alg_fcbio.c -- FC-BiO: the bisection on the level of f (levels.c) with
 * Nesterov's accelerated method as the inner solver, on the point oracle
 * (oracle.h, slv_point_ops: projections onto X) of the vector families
 * and of small matrix completions (problems/mc/mc_point.c).
 *
 * One iteration of the solve is one accelerated step (FISTA's momentum,
 * restarted when the objective rises, O'Donoghue and Candes 2015):
 *
 *   y      = x_k + beta_k (x_k - x_{k-1}),   beta_k = (theta_k - 1) / theta_{k+1},
 *   x_{k+1} = the prox-max step at y (prox_max.c),
 *   theta_{k+1} = (1 + sqrt(1 + 4 theta_k^2)) / 2, and theta = 1 again
 *   when psi(x_{k+1}) > psi(x_k),
 *
 * on psi = g alone (step 1/L_g) while g* is bracketed, then on psi_t =
 * max(w_f (f - t), w_g (g - g^)) at each level (L = max(w_f L_f, w_g
 * L_g)).  Without restarts this is the constant-step scheme for minimax
 * problems whose O(L R^2 / k^2) rate makes the method's complexity
 * O~(max(sqrt(L_f / eps_f), sqrt(L_g / eps_g))) (FC-BiO's Theorem); the
 * restarts keep the rate and make it linear where psi grows
 * quadratically.  The workspace's x is x_k, its z the answer; y's
 * observation is the same combination of x_k's and x_{k-1}'s, so a step
 * costs one observation (A x_{k+1}) and one pair of gradients (A' r).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/bisect.h"

#define FCBIO_TAG 0x314f494243464349ULL /* "ICFCBIO1" */

typedef struct fc_state {
    bs_levels lv;         /* first: the shared hooks read it */
    int64_t n, no;        /* dimension, length of an observation */
    double theta;         /* FISTA's theta_k */
    double lf, lg;        /* the curvatures of f and g the steps assume,
                             in their own units (backtracking) */
    double fx, gx;        /* f and g at x_k */
    double *xp;           /* x_{k-1} (n) */
    double *ox, *op;      /* observations of x_k and x_{k-1} (no) */
    double *y, *oy;       /* the extrapolated point and its observation */
    double *gf, *gg;      /* gradients at y (n) */
    double *xn, *on;      /* x_{k+1} and its observation */
    double *u;            /* the prox step's scratch (n) */
} fc_state;

static void fc_fini(ircg_solver *sv)
{
    fc_state *st = sv->alg_state;
    if (!st)
        return;
    double *arr[] = {st->xp, st->ox, st->op, st->y, st->oy, st->gf, st->gg, st->xn,
                     st->on, st->u};
    for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++)
        free(arr[i]);
    free(st);
    sv->alg_state = NULL;
}

/* o, f and g of the point p (the workspace's x or x_{k-1}). */
static void observe_values(ircg_solver *sv, const double *p, double *o, double *f,
                           double *g)
{
    const slv_point_ops *po = sv->pb->point;
    po->observe(sv->ws, p, o);
    po->values(sv->ws, p, o, f, g);
}

/* The workspace reports f and g of its x and z (the loop's values): x's
 * are known, z's made from its observation (scratch: xn, on). */
static void publish_values(ircg_solver *sv, fc_state *st)
{
    const slv_point_ops *po = sv->pb->point;
    double fz, gz;
    memcpy(st->xn, po->point(sv->ws, IRCG_Z), (size_t)st->n * sizeof(double));
    observe_values(sv, st->xn, st->on, &fz, &gz);
    po->set_point(sv->ws, IRCG_Z, st->xn, fz, gz);
    memcpy(st->xn, po->point(sv->ws, IRCG_X), (size_t)st->n * sizeof(double));
    po->set_point(sv->ws, IRCG_X, st->xn, st->fx, st->gx);
}

/* x_{k-1} = x_k: the start of a run, or a restart of the momentum. */
static void forget_momentum(fc_state *st)
{
    st->theta = 1;
}

static ircg_error fc_init(ircg_solver *sv, ircg_diag *diag)
{
    const slv_point_ops *po = sv->pb->point;
    fc_state *st = calloc(1, sizeof *st);
    if (!st)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    sv->alg_state = st;
    st->n = po->dim(sv->ws);
    st->no = po->obs_len(sv->ws);
    size_t n = (size_t)st->n, no = (size_t)st->no;
    st->xp = malloc(n * sizeof(double));
    st->y = malloc(n * sizeof(double));
    st->gf = malloc(n * sizeof(double));
    st->gg = malloc(n * sizeof(double));
    st->xn = malloc(n * sizeof(double));
    st->u = malloc(n * sizeof(double));
    st->ox = malloc(no * sizeof(double));
    st->op = malloc(no * sizeof(double));
    st->oy = malloc(no * sizeof(double));
    st->on = malloc(no * sizeof(double));
    if (!st->xp || !st->y || !st->gf || !st->gg || !st->xn || !st->u || !st->ox || !st->op ||
        !st->oy || !st->on) {
        fc_fini(sv);
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    }
    bs_levels_init(&st->lv);
    st->lf = sv->pb->info.L_f;
    st->lg = sv->pb->info.L_g;
    const double *x = po->point(sv->ws, IRCG_X);
    memcpy(st->xp, x, n * sizeof(double));
    observe_values(sv, x, st->ox, &st->fx, &st->gx);
    memcpy(st->op, st->ox, no * sizeof(double));
    forget_momentum(st);
    publish_values(sv, st);
    return IRCG_OK;
}

/* psi at the values of a point: g alone while g* is bracketed. */
static double psi_of(const fc_state *st, double f, double g)
{
    return st->lv.phase == BS_LEVELS ? bs_psi(&st->lv, f, g) : g;
}

/* y = x + beta (x - x_{k-1}), and the same combination of observations. */
static void extrapolate(fc_state *st, const double *x, double beta)
{
    for (int64_t i = 0; i < st->n; i++)
        st->y[i] = x[i] + beta * (x[i] - st->xp[i]);
    for (int64_t i = 0; i < st->no; i++)
        st->oy[i] = st->ox[i] + beta * (st->ox[i] - st->op[i]);
}

/* The curvatures the steps assume lie between the problem's bounds L_f
 * and L_g (under which the models hold, rounding aside) and CURV_FLOOR of
 * them (f affine, L_f = 0, keeps 0); how fast an assumption relaxes after
 * a step whose models held; and how many times a step may double one
 * before it is taken as it is. */
#define CURV_FLOOR 1e-9
#define CURV_RELAX 0.9
#define BACKTRACKS 40

/* The models of the step at y (bisect.h, bs_prox): the weighted values and
 * gradients of psi's two parts, with the curvatures assumed. */
static void models_at_y(ircg_solver *sv, fc_state *st, bs_prox *p)
{
    const slv_point_ops *po = sv->pb->point;
    bs_levels *lv = &st->lv;
    double fy, gy;
    po->grads(sv->ws, st->y, st->oy, st->gf, st->gg);
    *p = (bs_prox){.n = st->n, .y = st->y, .c_g = st->gg, .u = st->u, .ws = sv->ws,
                   .project = po->project};
    po->values(sv->ws, st->y, st->oy, &fy, &gy);
    p->f_y = fy;
    p->g_y = gy;
    if (lv->phase == BS_BRACKET_G) {
        p->a_g = gy;
        return;
    }
    for (int64_t i = 0; i < st->n; i++) {
        st->gf[i] *= lv->w_f;
        st->gg[i] *= lv->w_g;
    }
    p->c_f = st->gf;
    p->a_f = lv->w_f * (fy - lv->level);
    p->a_g = lv->w_g * (gy - lv->g_hat);
}

/* Does the model of one part, at y, hold at xn for its value v there?
 * Rounding aside: the values are differences w (h - level) of values h
 * that round to a few ulps of w |h| (round, the magnitude of those), and
 * that much is forgiven. */
static int model_holds(const fc_state *st, double a, const double *c, double L, double v,
                       double round)
{
    double s = 0, dd = 0, mag = fabs(a) + fabs(v) + round;
    for (int64_t i = 0; i < st->n; i++) {
        double di = st->xn[i] - st->y[i];
        s += c[i] * di;
        dd += di * di;
        mag += fabs(c[i] * di);
    }
    double m = a + s + 0.5 * L * dd;
    return v <= m + 1e-12 * (mag + 0.5 * L * dd);
}

/* The step from y into xn with its values: the prox-max step (bisect.h)
 * under the curvatures assumed, each doubled while its model fails at
 * the step (backtracking: *redos steps made again), then relaxed a little
 * for the next step. */
static ircg_error backtracked_step(ircg_solver *sv, fc_state *st, double *fn, double *gn,
                                   int *redos)
{
    const slv_point_ops *po = sv->pb->point;
    const ircg_problem_info *pi = &sv->pb->info;
    bs_levels *lv = &st->lv;
    int levels = lv->phase == BS_LEVELS;
    bs_prox p;
    models_at_y(sv, st, &p);
    for (int k = 0;; k++) {
        int e = 0;
        p.L_f = levels ? lv->w_f * st->lf : 0;
        p.L_g = levels ? lv->w_g * st->lg : st->lg;
        if (!(p.L_g > 0) && !(p.L_f > 0))
            p.L_g = levels ? lv->w_g : 1.0; /* f and g affine: any step size */
        ircg_error err = bs_prox_max(&p, &lv->lambda, st->xn, &e);
        *redos = k;
        if (err != IRCG_OK)
            return err;
        po->observe(sv->ws, st->xn, st->on);
        po->values(sv->ws, st->xn, st->on, fn, gn);
        if (!isfinite(*fn) || !isfinite(*gn))
            return IRCG_ERR_NUMERICAL;
        double wf = levels ? lv->w_f : 0, wg = levels ? lv->w_g : 1;
        double vf = wf * (*fn - lv->level), vg = wg * (*gn - (levels ? lv->g_hat : 0));
        int f_ok = !levels || model_holds(st, p.a_f, p.c_f, p.L_f, vf,
                                          wf * (fabs(*fn) + fabs(p.f_y) + fabs(lv->level)));
        int g_ok = model_holds(st, p.a_g, p.c_g, p.L_g, vg,
                               wg * (fabs(*gn) + fabs(p.g_y) + (levels ? fabs(lv->g_hat) : 0)));
        /* at the problem's own bounds a model holds but for rounding */
        f_ok |= st->lf >= pi->L_f;
        g_ok |= st->lg >= pi->L_g;
        if ((f_ok && g_ok) || k >= BACKTRACKS)
            break;
        if (!f_ok)
            st->lf = fmin(2 * st->lf, pi->L_f);
        if (!g_ok)
            st->lg = fmin(2 * st->lg, pi->L_g);
    }
    st->lf = fmax(CURV_RELAX * st->lf, CURV_FLOOR * pi->L_f);
    st->lg = fmax(CURV_RELAX * st->lg, CURV_FLOOR * pi->L_g);
    /* sigma = lambda w_f / ((1 - lambda) w_g), the weight of f against g's */
    lv->sigma = !levels ? 0.0
                : lv->lambda >= 1 ? INFINITY
                                  : lv->lambda * lv->w_f / ((1 - lv->lambda) * lv->w_g);
    return IRCG_OK;
}

/* x_{k+1} becomes x_k; while g* is bracketed it is the answer too (the
 * best approximation of an inner solution so far). */
static void advance(ircg_solver *sv, fc_state *st, double fn, double gn)
{
    const slv_point_ops *po = sv->pb->point;
    double *t;
    memcpy(st->xp, po->point(sv->ws, IRCG_X), (size_t)st->n * sizeof(double));
    t = st->op, st->op = st->ox, st->ox = st->on, st->on = t;
    po->set_point(sv->ws, IRCG_X, st->xn, fn, gn);
    if (st->lv.phase == BS_BRACKET_G)
        po->set_point(sv->ws, IRCG_Z, st->xn, fn, gn);
    st->fx = fn;
    st->gx = gn;
}

/* The certificate of x at the level's sigma (0 while g* is bracketed). */
static ircg_error certify_x(ircg_solver *sv, slv_cert *c)
{
    return slv_cert_point(sv, IRCG_X, bs_cert_sigma(sv), c);
}

/* x becomes the answer z. */
static void answer_is_x(ircg_solver *sv, const fc_state *st)
{
    const slv_point_ops *po = sv->pb->point;
    po->set_point(sv->ws, IRCG_Z, po->point(sv->ws, IRCG_X), st->fx, st->gx);
}

/* The decisions after a step: the end of phase 0, a level accepted or
 * rejected (bisect.h), each from a certificate of x. */
static ircg_error decide(ircg_solver *sv, fc_state *st)
{
    bs_levels *lv = &st->lv;
    slv_cert c;
    ircg_error err;
    if (lv->want_stop) { /* the loop's certificate did not stop: go on */
        bs_next_level(sv, lv, NULL, NAN);
        return IRCG_OK;
    }
    if (lv->phase == BS_BRACKET_G) {
        if (!bs_attempt_due(lv))
            return IRCG_OK;
        if ((err = certify_x(sv, &c)) != IRCG_OK || !bs_bracket_done(sv, &c))
            return err;
        answer_is_x(sv, st);
        lv->phase = BS_LEVELS;
        lv->g_hat = sv->bnd.g_upper;
        bs_next_level(sv, lv, &c, NAN);
        forget_momentum(st);
        return IRCG_OK;
    }
    int accept_try = bs_psi(lv, st->fx, st->gx) <= 1.0;
    if (!accept_try && !bs_attempt_due(lv))
        return IRCG_OK;
    if ((err = certify_x(sv, &c)) != IRCG_OK)
        return err;
    if (accept_try && bs_accepts(lv, &c)) {
        answer_is_x(sv, st);
        lv->accepted++;
        bs_next_level(sv, lv, &c, NAN);
        forget_momentum(st);
    } else if (bs_rejects(sv, lv)) {
        bs_reject(sv, lv);
        forget_momentum(st);
    }
    return IRCG_OK;
}

static ircg_error fc_iterate(ircg_solver *sv, ircg_iter_info *it, int *converged)
{
    fc_state *st = sv->alg_state;
    const slv_point_ops *po = sv->pb->point;
    bs_levels *lv = &st->lv;
    double theta_n = 0.5 * (1.0 + sqrt(1.0 + 4.0 * st->theta * st->theta));
    double beta = (st->theta - 1.0) / theta_n, fn, gn, t0 = slv_now();
    int redos = 0;
    ircg_error err;

    (void)converged; /* the loop's certificates end the solve */
    extrapolate(st, po->point(sv->ws, IRCG_X), beta);
    if ((err = backtracked_step(sv, st, &fn, &gn, &redos)) != IRCG_OK)
        return err;
    it->lmo_seconds = slv_now() - t0;
    it->lmo_matvecs = 2 * (1 + redos); /* the gradients' and each step's products */
    it->backtracks = redos;
    it->alpha = beta;
    it->sigma = lv->phase == BS_LEVELS ? lv->sigma : 0.0;
    it->lambda = lv->phase == BS_LEVELS ? lv->lambda : 0.0;
    /* restart when psi rises (the level's weights: a new level restarts) */
    st->theta = psi_of(st, fn, gn) > psi_of(st, st->fx, st->gx) ? 1.0 : theta_n;
    advance(sv, st, fn, gn);
    sv->t++;
    lv->at_level++;
    lv->psi = lv->phase == BS_LEVELS ? bs_psi(lv, fn, gn) : NAN;
    it->gap = lv->psi;
    return decide(sv, st);
}

/* ---------------------------------------------------------- checkpoints -- */

/* tag, n, the levels, theta, x_{k-1}; the observations and values are
 * made again from the points, with the same products: the same bits. */
static ircg_error fc_save(const ircg_solver *sv, slv_buf *b)
{
    const fc_state *st = sv->alg_state;
    slv_buf_put_u64(b, FCBIO_TAG);
    slv_buf_put_i64(b, st->n);
    bs_levels_save(&st->lv, b);
    slv_buf_put_f64(b, st->theta);
    slv_buf_put_f64(b, st->lf);
    slv_buf_put_f64(b, st->lg);
    slv_buf_put_f64s(b, st->xp, (size_t)st->n);
    return b->failed ? IRCG_ERR_NOMEM : IRCG_OK;
}

static ircg_error fc_restore(ircg_solver *sv, slv_rbuf *r, ircg_restore_mode mode,
                             ircg_diag *diag)
{
    fc_state *st = sv->alg_state;
    const slv_point_ops *po = sv->pb->point;
    bs_levels lv;
    ircg_error err;
    if (slv_rbuf_u64(r) != FCBIO_TAG || slv_rbuf_i64(r) != st->n || r->failed)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        "the FC-BiO state is missing or of another problem");
    if ((err = bs_levels_restore(&lv, r, diag)) != IRCG_OK)
        return err;
    double theta = slv_rbuf_f64(r), lf = slv_rbuf_f64(r), lg = slv_rbuf_f64(r);
    if ((r->len - r->pos) / 8 < (size_t)st->n || !(theta >= 1) || !(lf >= 0) || !(lg >= 0))
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        "the FC-BiO state is truncated or corrupt");
    slv_rbuf_f64s(r, st->xp, (size_t)st->n);
    const double *x = po->point(sv->ws, IRCG_X);
    if (mode == IRCG_RESTORE_AFRESH) { /* a new run at x: phase 0 again */
        bs_levels_init(&st->lv);
        memcpy(st->xp, x, (size_t)st->n * sizeof(double));
        theta = 1;
        lf = sv->pb->info.L_f;
        lg = sv->pb->info.L_g;
    } else {
        st->lv = lv;
    }
    st->lf = lf;
    st->lg = lg;
    st->theta = theta;
    observe_values(sv, x, st->ox, &st->fx, &st->gx);
    double fp, gp;
    observe_values(sv, st->xp, st->op, &fp, &gp);
    publish_values(sv, st);
    return r->failed ? IRCG_ERR_INVALID : IRCG_OK;
}

static ircg_error fc_take_x(ircg_solver *sv)
{
    fc_state *st = sv->alg_state;
    answer_is_x(sv, st);
    bs_answer_is_x(sv, &st->lv);
    return IRCG_OK;
}

const slv_alg slv_alg_fcbio = {
    .iterate = fc_iterate, .init = fc_init, .fini = fc_fini, .save = fc_save,
    .restore = fc_restore, .answer = IRCG_Z, .cert_sigma = bs_cert_sigma,
    .cert_wanted = bs_cert_wanted, .stop_vetoed = bs_stop_vetoed, .take_x = fc_take_x,
};
