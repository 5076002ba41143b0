/* faces.c -- see faces.h */
#include "problems/faces.h"

#include <float.h>
#include <math.h>

#include "base/util.h"

/* The l1 ball's atom 0 is in the support when the slack r - ||x||_1 is
 * more than this many ulps of r.  Below, the slack is the rounding of the
 * steps that put x on the sphere: counting it would make 0 the away atom
 * of a "drop" step of that size, again and again. */
#define SLACK_ULPS 64.0

int slv_face_domain(const ircg_domain *dom)
{
    return dom->kind == IRCG_DOMAIN_L1_BALL || dom->kind == IRCG_DOMAIN_SIMPLEX ||
           dom->kind == IRCG_DOMAIN_BOX;
}

/* -<c, s - x>, summed as the oracles sum the slope of s - x. */
static double fw_gap(const double *c, const double *x, const double *s, int64_t n)
{
    slv_ksum k = {0, 0};
    for (int64_t i = 0; i < n; i++)
        slv_ksum_add(&k, c[i] * (s[i] - x[i]));
    return -slv_ksum_value(&k);
}

/* <c, a - x> for the atom a = val e_k (k < 0: the atom 0). */
static double away_gap_1(const double *c, const double *x, int64_t n, int64_t k, double val)
{
    slv_ksum g = {0, 0};
    for (int64_t i = 0; i < n; i++)
        slv_ksum_add(&g, c[i] * ((i == k ? val : 0.0) - x[i]));
    return slv_ksum_value(&g);
}

/* The move the gaps ask for (before its gamma_max is known). */
static slv_move_kind choose(ircg_direction mode, const slv_face_move *mv)
{
    if (mode == IRCG_DIR_PAIRWISE) /* <c, s - a> < 0 */
        return mv->fw_gap + mv->away_gap > 0 ? SLV_MOVE_PAIRWISE : SLV_MOVE_FW;
    return mv->away_gap > mv->fw_gap && mv->away_gap > 0 ? SLV_MOVE_AWAY : SLV_MOVE_FW;
}

/* The one nonzero of the LMO's vertex of the simplex or the l1 ball. */
static int64_t vertex_index(const double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (v[i] != 0)
            return i;
    return 0;
}

static void zero(double *a, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        a[i] = 0;
}

/* Away from the atom val e_k (k < 0: the atom 0) of weight w over the
 * others' weight rest, both in units of r: x + gamma (x - a), gamma =
 * w / rest, the atom's coordinate set to 0 (its weight is gone). */
static int away_move(const double *x, int64_t n, int64_t k, double val, double w, double rest,
                     double *v, double *lin, slv_face_move *mv)
{
    double gamma = w / rest;
    if (!(gamma > 0) || !isfinite(gamma))
        return 0;
    for (int64_t i = 0; i < n; i++)
        v[i] = x[i] + gamma * x[i];
    zero(lin, n);
    if (k >= 0) {
        v[k] = 0;
        lin[k] = -gamma * val;
    }
    mv->gamma_max = gamma;
    mv->kappa = gamma;
    return 1;
}

/* The simplex {x >= 0, sum x = r}: atoms r e_i of weight x_i / r. */
static void simplex_move(double r, ircg_direction mode, const double *c, const double *x,
                         int64_t n, double *v, double *lin, slv_face_move *mv)
{
    int64_t j = vertex_index(v, n), k = -1;
    for (int64_t i = 0; i < n; i++)
        if (x[i] > 0 && (k < 0 || c[i] > c[k]))
            k = i;
    if (k < 0)
        return;
    mv->away_gap = away_gap_1(c, x, n, k, r);
    slv_move_kind kind = choose(mode, mv);
    if (kind == SLV_MOVE_AWAY) {
        slv_ksum rest = {0, 0};
        for (int64_t i = 0; i < n; i++)
            if (i != k)
                slv_ksum_add(&rest, x[i]);
        if (away_move(x, n, k, r, x[k], slv_ksum_value(&rest), v, lin, mv))
            mv->kind = SLV_MOVE_AWAY;
        return;
    }
    if (kind != SLV_MOVE_PAIRWISE || j == k)
        return;
    /* gamma_max = x_k / r: the weight of e_k moves to e_j */
    double xk = x[k];
    for (int64_t i = 0; i < n; i++)
        v[i] = x[i];
    zero(lin, n);
    v[j] = x[j] + xk, lin[j] = xk;
    v[k] = 0, lin[k] = -xk;
    mv->gamma_max = xk / r;
    mv->kind = SLV_MOVE_PAIRWISE;
}

/* <c, a> / r for the atom r sign(x_i) e_i. */
static double signed_c(const double *c, const double *x, int64_t i)
{
    return x[i] > 0 ? c[i] : -c[i];
}

/* The l1 ball, the image of the simplex over +-r e_i and 0: atoms
 * r sign(x_i) e_i of weight |x_i| / r, and 0 of weight the slack
 * 1 - ||x||_1 / r when it is more than rounding. */
static void l1_move(double r, ircg_direction mode, const double *c, const double *x,
                    int64_t n, double *v, double *lin, slv_face_move *mv)
{
    int64_t j = vertex_index(v, n), k = -1;
    slv_ksum norm = {0, 0};
    for (int64_t i = 0; i < n; i++) {
        slv_ksum_add(&norm, fabs(x[i]));
        if (x[i] != 0 && (k < 0 || signed_c(c, x, i) > signed_c(c, x, k)))
            k = i;
    }
    double nrm = slv_ksum_value(&norm), slack = r - nrm;
    int origin = slack > SLACK_ULPS * DBL_EPSILON * r;
    /* the worst atom: the first coordinate's of the largest r sign(x_i) c_i,
     * or 0 when its <c, 0> = 0 is larger */
    if (origin && (k < 0 || !(signed_c(c, x, k) >= 0)))
        k = -1;
    else if (k < 0)
        return;
    double ak = k >= 0 ? copysign(r, x[k]) : 0.0;
    mv->away_gap = away_gap_1(c, x, n, k, ak);
    slv_move_kind kind = choose(mode, mv);
    if (kind == SLV_MOVE_AWAY) {
        double w = k >= 0 ? fabs(x[k]) : slack, rest = k >= 0 ? r - fabs(x[k]) : nrm;
        if (away_move(x, n, k, ak, w, rest, v, lin, mv))
            mv->kind = SLV_MOVE_AWAY;
        return;
    }
    if (kind != SLV_MOVE_PAIRWISE)
        return;
    /* the weight w of a moves to s = v_j e_j: x + (w / r)(s - a) */
    double sj = v[j], w = k >= 0 ? fabs(x[k]) : slack, mj = copysign(w, sj);
    if (k == j && sj == ak)
        return; /* s = a: no move (its gap sum is 0; rounding said otherwise) */
    for (int64_t i = 0; i < n; i++)
        v[i] = x[i];
    zero(lin, n);
    if (k == j) { /* s = -a: x_k goes to -x_k */
        v[k] = -x[k], lin[k] = -2 * x[k];
    } else {
        v[j] = x[j] + mj, lin[j] = mj;
        if (k >= 0)
            v[k] = 0, lin[k] = -x[k];
    }
    mv->gamma_max = w / r;
    mv->kind = SLV_MOVE_PAIRWISE;
}

/* The box [l, u]^n, the product of its edges: coordinates at a bound are
 * pinned (the minimal face fixes them), the others free.  The away vertex
 * a takes x_i where pinned, else the bound of larger c_i a_i (for c_i = 0,
 * s_i: no move there). */
static double box_away_atom(double l, double u, double ci, double xi, double si)
{
    if (xi == l || xi == u)
        return xi;
    return ci > 0 ? u : ci < 0 ? l : si;
}

/* Coordinate i's direction and the step at which it reaches its bound
 * (INFINITY: never). */
static double box_dir(double l, double u, slv_move_kind kind, double xi, double si, double ai,
                      double *lim)
{
    double d = kind == SLV_MOVE_AWAY ? xi - ai : si - ai;
    *lim = INFINITY;
    if (d == 0)
        return 0;
    if (kind == SLV_MOVE_AWAY) /* x_i moves away from a_i, to the other bound */
        *lim = ai == u ? (xi - l) / (u - xi) : (u - xi) / (xi - l);
    else /* s_i - a_i is +-(u - l) or, pinned, s_i - x_i: to s_i at 1 */
        *lim = d > 0 ? (u - xi) / (u - l) : (xi - l) / (u - l);
    return d;
}

static void box_move(double l, double u, ircg_direction mode, const double *c, const double *x,
                     int64_t n, double *v, double *lin, slv_face_move *mv)
{
    slv_ksum g = {0, 0};
    for (int64_t i = 0; i < n; i++) { /* a into lin */
        lin[i] = box_away_atom(l, u, c[i], x[i], v[i]);
        slv_ksum_add(&g, c[i] * (lin[i] - x[i]));
    }
    mv->away_gap = slv_ksum_value(&g);
    slv_move_kind kind = choose(mode, mv);
    if (kind == SLV_MOVE_FW)
        return;
    double gamma = kind == SLV_MOVE_PAIRWISE ? 1.0 : INFINITY, lim;
    for (int64_t i = 0; i < n; i++) {
        box_dir(l, u, kind, x[i], v[i], lin[i], &lim);
        gamma = fmin(gamma, lim);
    }
    if (!(gamma > 0) || !isfinite(gamma))
        return; /* lin holds a, v still s: the Frank-Wolfe move reads v only */
    for (int64_t i = 0; i < n; i++) {
        double d = box_dir(l, u, kind, x[i], v[i], lin[i], &lim), p = x[i];
        if (d != 0 && lim <= gamma) /* it reaches its bound: exactly */
            p = d > 0 ? u : l;
        else if (d != 0)
            p = fmin(fmax(x[i] + gamma * d, l), u);
        v[i] = p;
        lin[i] = p - x[i];
    }
    mv->gamma_max = gamma;
    mv->kind = kind;
}

void slv_face_target(const ircg_domain *dom, ircg_direction mode, const double *c,
                     const double *x, int64_t n, double *v, double *lin,
                     slv_face_move *mv)
{
    *mv = (slv_face_move){.kind = SLV_MOVE_FW, .gamma_max = 1, .away_gap = -INFINITY,
                          .fw_gap = fw_gap(c, x, v, n)};
    if (mode == IRCG_DIR_FRANK_WOLFE || n < 1)
        return;
    switch (dom->kind) {
    case IRCG_DOMAIN_SIMPLEX: simplex_move(dom->radius, mode, c, x, n, v, lin, mv); break;
    case IRCG_DOMAIN_L1_BALL: l1_move(dom->radius, mode, c, x, n, v, lin, mv); break;
    case IRCG_DOMAIN_BOX: box_move(dom->lower, dom->upper, mode, c, x, n, v, lin, mv); break;
    default: break; /* no polytope: Frank-Wolfe */
    }
}
