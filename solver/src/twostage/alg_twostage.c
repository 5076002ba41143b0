/*
 * alg_twostage.c -- the two-stage method (README.md; docs/DESIGN.md "The
 * two-stage method") for a family whose inner solution set is an affine
 * section of X and whose f is quadratic (slv_affine_ops: least squares),
 * and for logistic regression by stage 1 alone.
 *
 * Stage 1 minimizes g alone over X by Nesterov's accelerated projected
 * gradient with step 1/L_g, restarted when the step turns back against
 * the momentum (O'Donoghue and Candes 2015; linear where g grows
 * quadratically, as least squares does over a polyhedron), until a
 * certificate of its point xh bounds g(xh) - g* by tau.  Without
 * slv_affine_ops (logistic regression) that point is the answer: its
 * certificates bound f* by g's local curvature
 * (problems/logreg/lr_cert.c), and the loop's certificate ends the run
 * once the outer tolerance holds too.  Stage 2 solves min f over {x in X : A x = A xh} by ADMM
 * (ts_admm.c).  Every inner solution lies within sqrt(2 tau) of A xh in
 * A x, so the multiplier nu of stage 2 bounds f* from below
 * (ls_cert_lagrange): f_lower rises to within ||nu|| sqrt(2 tau) and the
 * rounding of f*, and when that term is what keeps the outer gap open,
 * stage 1 goes on to a smaller tau and stage 2 follows from where it was.
 * One iteration is one step of either stage; the answer is z, the
 * current point (stage 1's, then ADMM's projected w, in X).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rounding.h"
#include "core/solver_internal.h"
#include "twostage/twostage.h"

/* Stage 1's certificates every this many steps; stage 2's bound as
 * often; rho adapted at most every RHO_EVERY steps, by at most RHO_STEP
 * either way, and at most RHO_FACTORS factorizations in all. */
#define CERT_EVERY 16
#define RHO_EVERY 20
#define RHO_STEP 100.0
#define RHO_FACTORS 40
/* Stage 1, entered again for a smaller tau, gives up after this many
 * checks without halving it: tau is at the rounding of g's bounds. */
#define STALLS 8
/* Logistic regression's stage 1 checks at most every this many steps:
 * its certificate makes two Gram matrices (lr_curv.c), some ten steps'
 * work on fair-a9a, so the wait doubles from CERT_EVERY after each check
 * that does not end the run. */
#define LR_CHECK_MAX 128

typedef struct ts_state {
    int phase;            /* 1: g alone; 2: ADMM on the inner set       */
    int64_t n, no, m;
    double lg;            /* stage 1's step is 1/lg                      */
    double theta, fx;     /* FISTA's theta; f of x1                      */
    double *x1, *xp;      /* stage 1's point and the one before (n)      */
    double *ox, *op;      /* their observations (no)                     */
    double *y, *oy, *gf, *gg, *xn, *on;
    double tau;           /* g(xh) - g* <= tau, certified: of xh itself  */
    double tau_best;      /* the least tau of stage 1's checks so far    */
    double tau_goal;      /* stage 1 ends when tau is this small         */
    int stalls;           /* stage 1's checks since tau last halved      */
    int64_t check_wait;   /* logistic regression: steps between checks   */
    int64_t check_next;   /* ... and the iteration of the next one       */
    int tau_floor;        /* tau stalled (g's rounding): no more stage 1 */
    double *xh, *beta;    /* stage 1's point as stage 2 took it; B'xh   */
    double *H, *q;        /* f = 1/2 x'Hx + q'x + const                  */
    ts_basis bs;
    ts_admm ad;
    int have_qp;          /* H, q, bs and ad made                        */
    double *nu;           /* the multiplier of A x = A xh (m)           */
    double nu_norm;
    int want_cert;
} ts_state;

static void ts_fini(ircg_solver *sv)
{
    ts_state *st = sv->alg_state;
    if (!st)
        return;
    double *arr[] = {st->x1, st->xp, st->ox, st->op, st->y,  st->oy, st->gf, st->gg,
                     st->xn, st->on, st->xh, st->beta, st->H, st->q,  st->nu};
    for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++)
        free(arr[i]);
    ts_basis_free(&st->bs);
    ts_admm_free(&st->ad);
    free(st);
    sv->alg_state = NULL;
}

/* The answer (x and z alike) is p with its values. */
static void publish(ircg_solver *sv, const double *p, double f, double g)
{
    const slv_point_ops *po = sv->pb->point;
    po->set_point(sv->ws, IRCG_X, p, f, g);
    po->set_point(sv->ws, IRCG_Z, p, f, g);
}

static ircg_error ts_init(ircg_solver *sv, ircg_diag *diag)
{
    const slv_point_ops *po = sv->pb->point;
    ts_state *st = calloc(1, sizeof *st);
    if (!st)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    sv->alg_state = st;
    st->n = po->dim(sv->ws);
    st->no = po->obs_len(sv->ws);
    st->m = sv->pb->affine ? sv->pb->affine->rows(sv->ws) : 0;
    size_t n = (size_t)st->n, no = (size_t)st->no;
    double **vn[] = {&st->x1, &st->xp, &st->y, &st->gf, &st->gg, &st->xn, &st->xh};
    double **vo[] = {&st->ox, &st->op, &st->oy, &st->on};
    for (size_t i = 0; i < sizeof vn / sizeof vn[0]; i++)
        if (!(*vn[i] = malloc(n * sizeof(double))))
            goto nomem;
    for (size_t i = 0; i < sizeof vo / sizeof vo[0]; i++)
        if (!(*vo[i] = malloc(no * sizeof(double))))
            goto nomem;
    if (!(st->nu = calloc((size_t)(st->m ? st->m : 1), sizeof(double))))
        goto nomem;
    st->phase = 1;
    st->theta = 1;
    st->lg = sv->pb->info.L_g;
    st->tau = st->tau_best = INFINITY;
    st->tau_goal = NAN; /* from the stop, at the first certificate */
    st->check_wait = CERT_EVERY;
    memcpy(st->x1, po->point(sv->ws, IRCG_X), n * sizeof(double));
    memcpy(st->xp, st->x1, n * sizeof(double));
    po->observe(sv->ws, st->x1, st->ox);
    double gx;
    po->values(sv->ws, st->x1, st->ox, &st->fx, &gx);
    memcpy(st->op, st->ox, no * sizeof(double));
    publish(sv, st->x1, st->fx, gx);
    return IRCG_OK;
nomem:
    ts_fini(sv);
    return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
}

/* One accelerated projected gradient step on g from x1. */
static ircg_error stage1_step(ircg_solver *sv, ts_state *st)
{
    const slv_point_ops *po = sv->pb->point;
    double theta_n = 0.5 * (1.0 + sqrt(1.0 + 4.0 * st->theta * st->theta));
    double beta = (st->theta - 1.0) / theta_n, fn, gn, *t;
    for (int64_t i = 0; i < st->n; i++)
        st->y[i] = st->x1[i] + beta * (st->x1[i] - st->xp[i]);
    for (int64_t i = 0; i < st->no; i++)
        st->oy[i] = st->ox[i] + beta * (st->ox[i] - st->op[i]);
    po->grads(sv->ws, st->y, st->oy, st->gf, st->gg);
    double step = st->lg > 0 ? 1.0 / st->lg : 0.0;
    for (int64_t i = 0; i < st->n; i++)
        st->xn[i] = st->y[i] - step * st->gg[i];
    ircg_error err = po->project(sv->ws, st->xn, st->xn);
    if (err != IRCG_OK)
        return err;
    po->observe(sv->ws, st->xn, st->on);
    po->values(sv->ws, st->xn, st->on, &fn, &gn);
    if (!isfinite(gn) || !isfinite(fn))
        return IRCG_ERR_NUMERICAL;
    /* restart when the step turns back against the momentum (O'Donoghue
     * and Candes' gradient scheme, <y - x_new, x_new - x> > 0): unlike
     * "g rose", it does not stall once g's changes are below its rounding */
    double turn = 0;
    for (int64_t i = 0; i < st->n; i++)
        turn += (st->y[i] - st->xn[i]) * (st->xn[i] - st->x1[i]);
    st->theta = turn > 0 ? 1.0 : theta_n;
    t = st->xp, st->xp = st->x1, st->x1 = st->xn, st->xn = t;
    t = st->op, st->op = st->ox, st->ox = st->on, st->on = t;
    st->fx = fn;
    if (st->have_qp) /* back in stage 1: x is its point, z stays w */
        sv->pb->point->set_point(sv->ws, IRCG_X, st->x1, fn, gn);
    else
        publish(sv, st->x1, fn, gn);
    return IRCG_OK;
}

/* f's quadratic, the row space of A and the ADMM, on stage 2's first
 * entry; rho starts at a tenth of f's curvature bound (1 if none). */
static ircg_error make_qp(ircg_solver *sv, ts_state *st)
{
    const slv_affine_ops *af = sv->pb->affine;
    size_t n = (size_t)st->n;
    ircg_error err;
    if (!(st->H = malloc(n * n * sizeof(double))) || !(st->q = malloc(n * sizeof(double))))
        return IRCG_ERR_NOMEM;
    if ((err = af->quadratic(sv->ws, st->H, st->q)) != IRCG_OK ||
        (err = ts_basis_make(af, sv->ws, st->n, &st->bs)) != IRCG_OK)
        return err;
    if (!(st->beta = malloc((size_t)(st->bs.r ? st->bs.r : 1) * sizeof(double))))
        return IRCG_ERR_NOMEM;
    double rho = sv->pb->info.L_f > 0 ? 0.1 * sv->pb->info.L_f : 1.0;
    if ((err = ts_admm_new(&st->ad, st->n, st->bs.r, st->H, st->q, st->bs.B, rho)) != IRCG_OK)
        return err;
    memcpy(st->ad.w, st->x1, n * sizeof(double));
    st->have_qp = 1;
    return IRCG_OK;
}

/* beta = B'xh. */
static void set_beta(ts_state *st)
{
    for (int64_t j = 0; j < st->bs.r; j++) {
        double s = 0;
        for (int64_t i = 0; i < st->n; i++)
            s += st->bs.B[i + j * st->n] * st->xh[i];
        st->beta[j] = s;
    }
}

/* Stage 2 starts (again) at stage 1's point: xh, beta = B'xh. */
static ircg_error enter_stage2(ircg_solver *sv, ts_state *st)
{
    ircg_error err;
    if (!st->have_qp && (err = make_qp(sv, st)) != IRCG_OK)
        return err;
    memcpy(st->xh, st->x1, (size_t)st->n * sizeof(double));
    set_beta(st);
    st->phase = 2;
    return IRCG_OK;
}

/* Stage 1's certificate: tau from g's bounds; stage 2 once tau is small
 * enough.  The first goal is a quarter of the inner tolerance (the
 * answer's inner gap is about tau). */
static ircg_error stage1_check(ircg_solver *sv, ts_state *st)
{
    slv_cert c;
    ircg_error err = slv_cert_point(sv, IRCG_X, 0.0, &c);
    if (err != IRCG_OK)
        return err;
    /* of x1: stage 2 takes x1 as xh with this tau (FISTA's g is not
     * monotone, so another point's tau would not do) */
    double tau = fmax(slv_up(slv_up(c.g + c.g_err, 1) - sv->bnd.g_lower, 1), 0.0);
    st->stalls = tau <= 0.5 * st->tau_best ? 0 : st->stalls + 1;
    st->tau_best = fmin(st->tau_best, tau);
    if (st->have_qp && st->stalls >= STALLS) { /* g's rounding: as far as it goes */
        st->tau_floor = 1;
        if (!(tau < st->tau)) { /* stage 2's xh stays: it is no worse */
            st->phase = 2;
            return IRCG_OK;
        }
        st->tau = tau;
        return enter_stage2(sv, st);
    }
    if (isnan(st->tau_goal)) {
        double inner, outer;
        slv_stop_targets(sv, st->fx, &inner, &outer);
        st->tau_goal = 0.25 * inner;
    }
    if (!(tau <= st->tau_goal) && st->lg > 0)
        return IRCG_OK;
    st->tau = tau;
    if (!sv->pb->affine) { /* logistic regression: x1 is the answer */
        double inner, outer;
        slv_stop_targets(sv, st->fx, &inner, &outer);
        st->want_cert = st->fx - sv->bnd.f_lower <= outer;
        return IRCG_OK;
    }
    return enter_stage2(sv, st);
}

/* rho follows the ratio of the relative residuals (OSQP's rule). */
static ircg_error adapt_rho(ts_admm *a)
{
    double xn = 0, wn = 0, un = 0;
    for (int64_t i = 0; i < a->n; i++) {
        xn = fmax(xn, fabs(a->x[i]));
        wn = fmax(wn, fabs(a->w[i]));
        un = fmax(un, fabs(a->u[i]));
    }
    double pr = a->prim / fmax(fmax(xn, wn), 1e-300);
    double du = a->dual / fmax(a->rho * un, 1e-300);
    if (!(pr > 0) || !(du > 0) || a->factors >= RHO_FACTORS)
        return IRCG_OK;
    double k = sqrt(pr / du);
    if (k > 0.2 && k < 5)
        return IRCG_OK;
    return ts_admm_set_rho(a, a->rho * fmin(fmax(k, 1 / RHO_STEP), RHO_STEP));
}

/* The Lagrangian bound at w: f_lower rises; when the penalty ||nu||
 * sqrt(2 tau) keeps the outer gap open while ADMM has settled, stage 1
 * goes on to a tau that makes it a quarter of the outer tolerance. */
static ircg_error stage2_bound(ircg_solver *sv, ts_state *st, double fw)
{
    const slv_affine_ops *af = sv->pb->affine;
    double fl, inner, outer, s = 0;
    ts_basis_nu(&st->bs, af, sv->ws, st->ad.mu, st->nu);
    for (int64_t i = 0; i < st->m; i++)
        s += st->nu[i] * st->nu[i];
    st->nu_norm = sqrt(s);
    ircg_error err = af->lagrange(sv->ws, st->ad.w, st->xh, st->nu, st->tau, &fl);
    if (err != IRCG_OK)
        return err;
    sv->bnd.f_lower = fmax(sv->bnd.f_lower, fl);
    slv_stop_targets(sv, fw, &inner, &outer);
    st->want_cert = fw - sv->bnd.f_lower <= outer;
    double pen = st->nu_norm * sqrt(2 * st->tau);
    if (!st->want_cert && pen > 0.25 * outer && st->ad.prim <= 1e-3 * outer &&
        st->lg > 0 && !st->tau_floor) {
        double goal = 0.5 * pow(0.25 * outer / st->nu_norm, 2);
        st->tau_goal = fmin(goal, 1e-2 * st->tau);
        st->tau_best = st->tau;
        st->phase = 1;
        st->theta = 1;
        st->stalls = 0;
    }
    return IRCG_OK;
}

static ircg_error stage2_step(ircg_solver *sv, ts_state *st, int64_t k)
{
    const slv_point_ops *po = sv->pb->point;
    double fw, gw;
    ircg_error err = ts_admm_step(&st->ad, st->beta, po->project, sv->ws);
    if (err != IRCG_OK)
        return err;
    po->observe(sv->ws, st->ad.w, st->on);
    po->values(sv->ws, st->ad.w, st->on, &fw, &gw);
    if (!isfinite(fw) || !isfinite(gw))
        return IRCG_ERR_NUMERICAL;
    publish(sv, st->ad.w, fw, gw);
    if (k % RHO_EVERY == 0 && (err = adapt_rho(&st->ad)) != IRCG_OK)
        return err;
    return k % CERT_EVERY == 0 ? stage2_bound(sv, st, fw) : IRCG_OK;
}

static ircg_error ts_iterate(ircg_solver *sv, ircg_iter_info *it, int *converged)
{
    ts_state *st = sv->alg_state;
    double t0 = slv_now();
    int phase = st->phase;
    ircg_error err;
    (void)converged; /* the loop's certificates end the solve */
    st->want_cert = 0;
    if (phase == 1) {
        err = stage1_step(sv, st);
        if (err == IRCG_OK && (sv->t + 1) % CERT_EVERY == 0 && sv->t + 1 >= st->check_next) {
            err = stage1_check(sv, st);
            if (!sv->pb->affine && !st->want_cert) { /* the next check waits longer */
                st->check_next = sv->t + 1 + st->check_wait;
                st->check_wait = st->check_wait < LR_CHECK_MAX ? 2 * st->check_wait
                                                                : LR_CHECK_MAX;
            }
        }
    } else {
        err = stage2_step(sv, st, sv->t + 1);
    }
    if (err != IRCG_OK)
        return err;
    sv->t++;
    it->lmo_seconds = slv_now() - t0;
    it->lmo_matvecs = 2;
    it->sigma = 0;
    it->lambda = 0;
    it->alpha = phase == 1 ? st->theta : st->ad.rho;
    it->gap = phase == 1 ? st->tau_best : st->ad.prim;
    return IRCG_OK;
}

/* ---------------------------------------------------------- checkpoints -- */

#define TWOSTAGE_TAG 0x3247545354435249ULL /* "IRCTSTG2" */

/* tag, n, the stage and its scalars (logistic regression's check
 * schedule among them), x1 and x_{k-1}; with stage 2 made,
 * xh, rho, the factorizations counted, w and u.  The observations, H, the
 * basis and the factors are made again from them: the same bits. */
static ircg_error ts_save(const ircg_solver *sv, slv_buf *b)
{
    const ts_state *st = sv->alg_state;
    size_t n = (size_t)st->n;
    slv_buf_put_u64(b, TWOSTAGE_TAG);
    slv_buf_put_i64(b, st->n);
    slv_buf_put_i64(b, st->phase);
    slv_buf_put_i64(b, st->stalls);
    slv_buf_put_i64(b, st->check_wait);
    slv_buf_put_i64(b, st->check_next);
    slv_buf_put_i64(b, st->tau_floor);
    slv_buf_put_i64(b, st->have_qp);
    slv_buf_put_f64(b, st->theta);
    slv_buf_put_f64(b, st->tau);
    slv_buf_put_f64(b, st->tau_best);
    slv_buf_put_f64(b, st->tau_goal);
    slv_buf_put_f64s(b, st->x1, n);
    slv_buf_put_f64s(b, st->xp, n);
    if (st->have_qp) {
        slv_buf_put_f64(b, st->ad.rho);
        slv_buf_put_i64(b, st->ad.factors);
        slv_buf_put_f64s(b, st->xh, n);
        slv_buf_put_f64s(b, st->ad.w, n);
        slv_buf_put_f64s(b, st->ad.u, n);
    }
    return b->failed ? IRCG_ERR_NOMEM : IRCG_OK;
}

static ircg_error corrupt(ircg_diag *diag)
{
    return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                    "the two-stage state is missing, truncated or of another problem");
}

static ircg_error ts_restore(ircg_solver *sv, slv_rbuf *r, ircg_restore_mode mode,
                             ircg_diag *diag)
{
    ts_state *st = sv->alg_state;
    const slv_point_ops *po = sv->pb->point;
    size_t n = (size_t)st->n;
    if (slv_rbuf_u64(r) != TWOSTAGE_TAG || slv_rbuf_i64(r) != st->n || r->failed)
        return corrupt(diag);
    int64_t phase = slv_rbuf_i64(r), stalls = slv_rbuf_i64(r), wait = slv_rbuf_i64(r),
            next = slv_rbuf_i64(r), floor_ = slv_rbuf_i64(r), have_qp = slv_rbuf_i64(r);
    double theta = slv_rbuf_f64(r), tau = slv_rbuf_f64(r), best = slv_rbuf_f64(r),
           goal = slv_rbuf_f64(r);
    if (r->failed || (phase != 1 && phase != 2) || !(theta >= 1) || !(tau >= 0) ||
        wait < CERT_EVERY || wait > LR_CHECK_MAX || next < 0 ||
        !(best >= 0) ||
        (have_qp != 0 && have_qp != 1) || (have_qp && !sv->pb->affine) ||
        (r->len - r->pos) / 8 < 2 * n)
        return corrupt(diag);
    slv_rbuf_f64s(r, st->x1, n);
    slv_rbuf_f64s(r, st->xp, n);
    if (mode == IRCG_RESTORE_AFRESH) /* a new run at x: stage 1 again */
        return r->failed ? corrupt(diag) : IRCG_OK;
    if (have_qp) {
        double rho = slv_rbuf_f64(r);
        int64_t factors = slv_rbuf_i64(r);
        ircg_error err;
        if (r->failed || !(rho > 0) || factors < 1 || (r->len - r->pos) / 8 < 3 * n)
            return corrupt(diag);
        slv_rbuf_f64s(r, st->xh, n);
        if ((!st->have_qp && (err = make_qp(sv, st)) != IRCG_OK) ||
            (err = ts_admm_set_rho(&st->ad, rho)) != IRCG_OK)
            return slv_fail(diag, err, "/checkpoint",
                            "the two-stage method's stage 2 could not be made again");
        st->ad.factors = (int)factors;
        slv_rbuf_f64s(r, st->ad.w, n);
        slv_rbuf_f64s(r, st->ad.u, n);
        set_beta(st);
    }
    if (r->failed)
        return corrupt(diag);
    st->phase = (int)phase;
    st->stalls = (int)stalls;
    st->check_wait = wait;
    st->check_next = next;
    st->tau_floor = (int)floor_;
    st->theta = theta;
    st->tau = tau;
    st->tau_best = best;
    st->tau_goal = goal;
    double gx; /* the oracle's point is restored apart: f of x1 is all here */
    po->observe(sv->ws, st->x1, st->ox);
    po->values(sv->ws, st->x1, st->ox, &st->fx, &gx);
    po->observe(sv->ws, st->xp, st->op); /* the momentum's */
    return IRCG_OK;
}

static double ts_cert_sigma(const ircg_solver *sv)
{
    (void)sv;
    return 0.0;
}

static int ts_cert_wanted(const ircg_solver *sv)
{
    const ts_state *st = sv->alg_state;
    return st->want_cert;
}

/* publish() makes x and z one point, but not in stage 1 entered again
 * (x its point, z stage 2's w) nor until stage 2's first step: compared,
 * not inferred. */
static int ts_z_is_x(const ircg_solver *sv)
{
    const slv_point_ops *po = sv->pb->point;
    const ts_state *st = sv->alg_state;
    return memcmp(po->point(sv->ws, IRCG_X), po->point(sv->ws, IRCG_Z),
                  (size_t)st->n * sizeof(double)) == 0;
}

const slv_alg slv_alg_twostage = {
    .iterate = ts_iterate, .init = ts_init, .fini = ts_fini, .save = ts_save,
    .restore = ts_restore, .answer = IRCG_Z,
    .cert_sigma = ts_cert_sigma, .cert_wanted = ts_cert_wanted, .z_is_x = ts_z_is_x,
};
