/*
 * mc_cut.c -- CG-BiO's oracle on matrix completion: the paper's SNB-LO
 * with NB-BLO (the paper's Appendix A.2) on the implicit operators
 * C = grad f(X) and A = grad g(X) (mc_lmo.c), never forming an n x p
 * matrix:
 *
 *   min <C, V>  s.t.  ||V||_* <= delta,  <A, V - X> <= slack.
 *
 * 1. V0 = -delta u v' from the top pair of C.  If V0 meets the cut it is
 *    optimal (lambda* = 0) and nothing else is needed.
 * 2. sigma_max(A) and Slater's condition (the paper's Lemma A.1): b + delta
 *    sigma_max(A) is the Frank-Wolfe gap of g at X plus slack; within
 *    TAU_SLATER of zero, relative to the size of its terms, it counts as
 *    zero.  Slater fails (or the cut set is empty, slack < 0): V =
 *    NB-BLO(A, C), which minimizes <A, V> and then <C, V> (oracle.h).
 * 3. Slater holds: lambda* = argmin over [0, 2 delta sigma_max(C) / (b +
 *    delta sigma_max(A))] of h(l) = delta sigma_max(C + l A) + b l by
 *    bounded Brent (the paper's Remark 3), each evaluation a Lanczos
 *    warm started at the best point's singular vector.
 * 4. Brent locates lambda* to sqrt(eps) only (h is flat or kinked there),
 *    so V is recovered exactly on a small subspace: R = the top singular
 *    cluster of C + lambda A at Brent's point (deflated Lanczos) and the
 *    right vectors of Brent's points nearest lambda* on either side.  The
 *    problem restricted to V = W R' is solved to rounding accuracy
 *    (mc_nbblo.c, which also holds the rank-2 correction of NB-BLO).
 */
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/brent.h"
#include "baselines/cgbio/mc_cut.h"

/* |b + delta sigma_max(A)| <= TAU_SLATER (|<A, X>| + delta sigma_max(A) +
 * |slack|) is taken as b = -delta sigma_max(A): rounding of <A, X> and of
 * the Lanczos value is far below it, and a cut this thin cannot be told
 * from its boundary hyperplane. */
#define TAU_SLATER 1e-12
/* Brent on lambda: relative tolerance sqrt(eps) (a minimum of a smooth
 * function is not located more finely from its values in double precision),
 * absolute 1e-12 of the bracket, at most BRENT_MAX_EVAL evaluations. */
#define BRENT_ATOL 1e-12
#define BRENT_MAX_EVAL 100

static void cut_free(void *ext)
{
    struct mc_cut *c = ext;
    if (!c)
        return;
    free(c->u1);
    free(c->v1);
    free(c->u2);
    free(c->v2);
    free(c->R);
    free(c->CR);
    free(c->AR);
    free(c->uA);
    free(c->vA);
    free(c->uC);
    free(c->vC);
    free(c->ub);
    free(c->vb);
    free(c->ue);
    free(c->ve);
    free(c->rlo);
    free(c->rhi);
    free(c->tn);
    free(c->tp);
    free(c->tp2);
    free(c);
}

static struct mc_cut *cut_new(int n, int p)
{
    struct mc_cut *c = calloc(1, sizeof *c);
    size_t sn = (size_t)n * sizeof(double), sp = (size_t)p * sizeof(double);

    if (!c)
        return NULL;
    c->n = n;
    c->p = p;
    c->u1 = malloc(sn), c->u2 = malloc(sn), c->uA = malloc(sn), c->uC = malloc(sn);
    c->ub = malloc(sn), c->ue = malloc(sn), c->tn = malloc(sn);
    c->v1 = malloc(sp), c->v2 = malloc(sp), c->vA = malloc(sp), c->vC = malloc(sp);
    c->vb = malloc(sp), c->ve = malloc(sp), c->rlo = malloc(sp), c->rhi = malloc(sp);
    c->tp = malloc(sp), c->tp2 = malloc(sp);
    c->R = malloc(MC_CUT_KMAX * sp);
    c->CR = malloc(MC_CUT_KMAX * sn);
    c->AR = malloc(MC_CUT_KMAX * sn);
    if (!c->u1 || !c->u2 || !c->uA || !c->uC || !c->ub || !c->ue || !c->tn ||
        !c->v1 || !c->v2 || !c->vA || !c->vC || !c->vb || !c->ve || !c->rlo ||
        !c->rhi || !c->tp || !c->tp2 || !c->R || !c->CR || !c->AR) {
        cut_free(c);
        return NULL;
    }
    return c;
}

/* The evaluations of the dual h(l) = delta sigma_max(C + l A) + b l for
 * Brent, which also record the right vectors of the points nearest lambda*
 * on either side: b - <A, V(l)> is a subgradient of h at l, so its sign
 * tells the side. */
typedef struct dual_ctx {
    mc_cut_run *run;
    double delta, ax, slack;  /* b = ax + slack */
    int evaluations;
    int have_best, have_lo, have_hi;
    double h_best, s_best, l_best, l_lo, l_hi;
} dual_ctx;

static ircg_error dual_eval(void *vc, double l, double *h)
{
    dual_ctx *dc = vc;
    struct mc_cut *c = dc->run->c;
    double s;
    int zero;
    ircg_error err = mc_cut_top(dc->run, 1.0, l, 0, dc->have_best ? c->vb : c->vC,
                                &s, c->ue, c->ve, &zero);
    if (err != IRCG_OK)
        return err;
    dc->evaluations++;
    *h = dc->delta * s + (dc->ax + dc->slack) * l;
    mc_cut_apply(dc->run, 0.0, 1.0, c->ve, c->tn);
    double dA = -dc->delta * cblas_ddot(c->n, c->ue, 1, c->tn, 1) - dc->ax;
    if (dA > dc->slack) {
        if (!dc->have_lo || l > dc->l_lo) {
            dc->have_lo = 1;
            dc->l_lo = l;
            memcpy(c->rlo, c->ve, (size_t)c->p * sizeof *c->ve);
        }
    } else if (!dc->have_hi || l < dc->l_hi) {
        dc->have_hi = 1;
        dc->l_hi = l;
        memcpy(c->rhi, c->ve, (size_t)c->p * sizeof *c->ve);
    }
    if (!dc->have_best || *h < dc->h_best) {
        dc->have_best = 1;
        dc->h_best = *h;
        dc->s_best = s;
        dc->l_best = l;
        memcpy(c->vb, c->ve, (size_t)c->p * sizeof *c->ve);
    }
    return IRCG_OK;
}

/* V = -delta u v' kept for the step; returns <C, V>. */
static double keep_rank1(mc_cut_run *run, const double *u, const double *v)
{
    struct mc_cut *c = run->c;
    double delta = run->w->d->delta;
    memcpy(c->u1, u, (size_t)c->n * sizeof *u);
    memcpy(c->v1, v, (size_t)c->p * sizeof *v);
    c->rank = 1;
    c->theta = 1;
    mc_cut_apply(run, 1.0, 0.0, v, c->tn);
    return -delta * cblas_ddot(c->n, u, 1, c->tn, 1);
}

/* C R and A R for the k columns of R, and their Grams. */
static void restrict_to(mc_cut_run *run, int k, double b, nb_red *red)
{
    struct mc_cut *c = run->c;
    int n = c->n;

    for (int i = 0; i < k; i++) {
        mc_cut_apply(run, 1.0, 0.0, c->R + (size_t)i * c->p, c->CR + (size_t)i * n);
        mc_cut_apply(run, 0.0, 1.0, c->R + (size_t)i * c->p, c->AR + (size_t)i * n);
    }
    red->k = k;
    red->delta = run->w->d->delta;
    red->b = b;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, k, k, n, 1.0, c->CR, n,
                c->CR, n, 0.0, red->Gcc, k);
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, k, k, n, 1.0, c->CR, n,
                c->AR, n, 0.0, red->Gca, k);
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, k, k, n, 1.0, c->AR, n,
                c->AR, n, 0.0, red->Gaa, k);
}

/* u = (ps C + pt A) R y and r = R y, both normalized; returns <C, -delta u r'>. */
static ircg_error make_atom(mc_cut_run *run, const nb_red *red, const nb_atom *at,
                            double *u, double *r, double *cv)
{
    struct mc_cut *c = run->c;
    int n = c->n, k = red->k;

    cblas_dgemv(CblasColMajor, CblasNoTrans, c->p, k, 1.0, c->R, c->p, at->y, 1,
                0.0, r, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, k, at->ps, c->CR, n, at->y, 1,
                0.0, u, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, k, at->pt, c->AR, n, at->y, 1,
                1.0, u, 1);
    double nr = cblas_dnrm2(c->p, r, 1), nu = cblas_dnrm2(n, u, 1);
    if (!(nr > 0) || !(nu > 0) || !isfinite(nr) || !isfinite(nu))
        return IRCG_ERR_NUMERICAL;
    cblas_dscal(c->p, 1.0 / nr, r, 1);
    cblas_dscal(n, 1.0 / nu, u, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, k, 1.0, c->CR, n, at->y, 1, 0.0,
                c->tn, 1);
    *cv = -red->delta * cblas_ddot(n, u, 1, c->tn, 1) / nr;
    return IRCG_OK;
}

/* Keep the solution of the restricted problem; *cv = <C, V>. */
static ircg_error keep_solution(mc_cut_run *run, const nb_red *red, const nb_sol *sol,
                                double *cv)
{
    struct mc_cut *c = run->c;
    double c1, c2 = 0;
    ircg_error err = make_atom(run, red, &sol->at[0], c->u1, c->v1, &c1);

    if (err == IRCG_OK && sol->rank == 2)
        err = make_atom(run, red, &sol->at[1], c->u2, c->v2, &c2);
    if (err != IRCG_OK)
        return err;
    c->rank = sol->rank;
    c->theta = sol->rank == 2 ? sol->theta : 1.0;
    *cv = sol->rank == 2 ? c->theta * c1 + (1 - c->theta) * c2 : c1;
    return IRCG_OK;
}

/* Slater fails or the cut set is empty: NB-BLO(A, C). */
static ircg_error face_of_A(mc_cut_run *run, double sA, double b, double *cv)
{
    struct mc_cut *c = run->c;
    nb_red red;
    nb_sol sol;
    int k = mc_cut_add_vector(c, 0, c->vA);
    ircg_error err = mc_cut_cluster(run, 0.0, 1.0, sA, NULL, &k);

    if (err != IRCG_OK)
        return err;
    restrict_to(run, k, b, &red);
    if ((err = nb_face_of_A(&red, &sol)) != IRCG_OK)
        return err;
    return keep_solution(run, &red, &sol, cv);
}

/* Slater holds and V0 violates the cut: Brent, then the restricted problem. */
static ircg_error active_cut(mc_cut_run *run, dual_ctx *dc, double L, double *cv,
                             double *lambda, double *top_sv)
{
    struct mc_cut *c = run->c;
    slv_brent_out bo;
    nb_red red;
    nb_sol sol;
    int k;
    ircg_error err = slv_brent_min(dual_eval, dc, 0.0, L, sqrt(DBL_EPSILON),
                                    BRENT_ATOL * L, BRENT_MAX_EVAL, &bo);

    if (err != IRCG_OK)
        return err;
    k = mc_cut_add_vector(c, 0, c->vb);
    err = mc_cut_cluster(run, 1.0, dc->l_best, dc->s_best,
                         dc->have_lo ? c->rlo : NULL, &k);
    if (err != IRCG_OK)
        return err;
    /* a vertex on the feasible side keeps the restricted problem feasible
     * (A's own top vertex when Brent never evaluated one) */
    k = mc_cut_add_vector(c, k, dc->have_hi ? c->rhi : c->vA);
    if (dc->have_lo)
        k = mc_cut_add_vector(c, k, c->rlo);
    restrict_to(run, k, dc->ax + dc->slack, &red);
    if ((err = nb_solve_cut(&red, &sol)) != IRCG_OK)
        return err;
    *lambda = sol.lambda;
    *top_sv = sol.sigma;
    return keep_solution(run, &red, &sol, cv);
}

static ircg_error mc_lmo_cut(void *ws, double slack, slv_cut_info *info)
{
    mc_ws *w = ws;
    const mc_data *d = w->d;
    double delta = d->delta, fro2, cs2, ax, sC, sA, cv = 0;
    int zeroC, zeroA;
    ircg_error err;

    *info = (slv_cut_info){.lambda = NAN, .top_sv = NAN, .f_gap = NAN,
                            .rank = 1, .converged = 1};
    if (!isfinite(slack))
        return IRCG_ERR_INVALID;
    if (!w->ext) {
        if (!(w->ext = cut_new(d->n, d->p)))
            return IRCG_ERR_NOMEM;
        w->ext_free = cut_free;
    }
    struct mc_cut *c = w->ext;
    mc_cut_run run = {.w = w, .c = c, .converged = 1};
    c->pending = 0;

    /* <C, X> = 2 f(X) (f is 2-homogeneous); <A, X> = sum r X_Omega */
    mc_side_norms(w, &w->x, &fro2, &cs2);
    double cx = d->outer == IRCG_OUTER_COLUMN_VARIANCE ? fro2 - cs2 / d->n_all : fro2;
    ax = mc_rx_dot_x(w);

    /* 1. the plain LMO vertex of C, which the cut may not touch */
    const double *warm = w->have_v ? w->v : NULL;
    if ((err = mc_cut_top(&run, 1.0, 0.0, 0, warm, &sC, c->uC, c->vC, &zeroC)) != IRCG_OK)
        goto done;
    info->evaluations = 1;
    mc_cut_apply(&run, 0.0, 1.0, c->vC, c->tn);
    double dA0 = -delta * cblas_ddot(d->n, c->uC, 1, c->tn, 1) - ax;
    int feasible0 = dA0 <= slack;
    if (feasible0 && slack > 0) {
        info->slater = 1; /* x itself is strictly inside the cut */
        goto vertex_of_C;
    }
    /* 2. sigma_max(A) and Slater's condition */
    if ((err = mc_cut_top(&run, 0.0, 1.0, 0, warm, &sA, c->uA, c->vA, &zeroA)) != IRCG_OK)
        goto done;
    double margin = (ax + delta * sA) + slack; /* FW gap of g at X + slack */
    double scale = fabs(ax) + delta * sA + fabs(slack);
    if (zeroA) /* the cut reads 0 <= slack */
        info->slater = slack >= 0;
    else
        info->slater = margin > TAU_SLATER * scale;
    if (feasible0 || zeroA)
        goto vertex_of_C; /* optimal, or (A = 0, slack < 0) the most feasible */
    if (!info->slater) {
        info->top_sv = sA;
        err = face_of_A(&run, sA, ax + slack, &cv);
        goto done;
    }
    if (zeroC) { /* <C, V> = 0 on the whole ball: any feasible V will do */
        info->lambda = 0;
        info->top_sv = 0;
        cv = keep_rank1(&run, c->uA, c->vA);
        goto done;
    }
    /* 3-4. the multiplier and the exact primal point */
    double L = 2 * delta * sC / margin;
    if (!isfinite(L)) {
        err = IRCG_ERR_NUMERICAL;
        goto done;
    }
    dual_ctx dc = {.run = &run, .delta = delta, .ax = ax, .slack = slack,
                   .have_lo = 1, .l_lo = 0};
    memcpy(c->rlo, c->vC, (size_t)d->p * sizeof *c->rlo); /* V0 violates the cut */
    err = active_cut(&run, &dc, L, &cv, &info->lambda, &info->top_sv);
    info->evaluations += dc.evaluations;
    goto done;

vertex_of_C:
    info->lambda = 0;
    info->top_sv = sC;
    cv = keep_rank1(&run, c->uC, c->vC);
done:
    info->matvecs = run.matvecs;
    info->converged = run.converged;
    if (err != IRCG_OK)
        return err;
    info->rank = c->rank;
    info->f_gap = cx - cv;
    if (!isfinite(info->f_gap))
        return IRCG_ERR_NUMERICAL;
    c->pending = 1;
    return IRCG_OK;
}

static ircg_error mc_cut_step(void *ws, double gamma)
{
    mc_ws *w = ws;
    struct mc_cut *c = w->ext;
    ircg_error err;

    if (!c || !c->pending || !(gamma >= 0 && gamma <= 1))
        return IRCG_ERR_INVALID;
    c->pending = 0;
    mc_set_vertex(w, c->u1, c->v1);
    if (c->rank == 1 || gamma == 0)
        return mc_step(w, gamma, 0.0, 0.0, 1.0);
    /* V = th V1 + (1 - th) V2 as two Frank-Wolfe steps:
     * x1 = (1 - beta) x + beta V1,  x2 = (1 - g2) x1 + g2 V2 with
     * g2 = gamma (1 - th) and beta = gamma th / (1 - g2) give
     * x2 = (1 - gamma) x + gamma th V1 + gamma (1 - th) V2, since
     * (1 - g2)(1 - beta) = 1 - g2 - gamma th = 1 - gamma. */
    double g2 = gamma * (1 - c->theta);
    double beta = gamma * c->theta / (1 - g2); /* 1 - g2 >= th > 0 */
    if ((err = mc_step(w, beta, 0.0, 0.0, 1.0)) != IRCG_OK)
        return err;
    mc_set_vertex(w, c->u2, c->v2);
    return mc_step(w, g2, 0.0, 0.0, 1.0);
}

const slv_cut_ops slv_mc_cut_ops = {
    .lmo_cut = mc_lmo_cut,
    .cut_step = mc_cut_step,
};
