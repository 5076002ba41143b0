/*
 * ls_cut.c -- CG-BiO's oracle on least squares: the LMO of a vector domain
 * cut by a half-space,
 *
 *   min <c, v>  s.t.  v in X,  <a, v - x> <= slack,
 *
 * c = grad f(x), a = grad g(x) = A'(A x - b).  As on the nuclear ball
 * (mc_cut.c) through the Lagrangian dual in the cut's multiplier l >= 0,
 *   phi(l) = min_X <c + l a, v> - l <a, x> - l slack   (concave),
 * whose inner minimum is slv_domain_lmo(c + l a), with the exact primal
 * point recovered:
 * - the plain vertex v0 = LMO(c) meets the cut: l* = 0, v = v0;
 * - Slater's condition fails (min_X <a, v - x> >= slack, within TAU_SLATER
 *   of the size of its terms) or the cut set is empty: v minimizes <c, .>
 *   over the face argmin_X <a, .>, exactly by the coordinate structure
 *   (exact ties of a; the l2 ball's face is a point);
 * - l2 ball: v and l* in closed form on span{a, c};
 * - polytopes (l1 ball, simplex, box): bisection on the sign of the
 *   subgradient <a, v(l) - x> - slack down to adjacent doubles, then the
 *   convex combination of the vertices on both sides of l* that meets the
 *   cut with equality.  Both lie in the optimal face of c + l* a (the LMO
 *   is piecewise constant in l), so the combination is optimal up to
 *   rounding.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/domain.h"
#include "problems/ls/ls.h"

/* Slater fails when min_X <a, v - x> - slack >= -TAU_SLATER (sum |a_i x_i|
 * + sum |a_i va_i| + |slack|), va = LMO(a): rounding of the sums is below it. */
#define TAU_SLATER 1e-12
#define BISECT_MAX 200
#define DOUBLE_MAX 64

typedef struct cut_ctx {
    const ls_ws *w;
    const double *a, *c;
    double slack;
    int64_t n;
} cut_ctx;

/* <a, v - x> - slack, compensated: > 0 means v violates the cut. */
static double cut_value(const cut_ctx *k, const double *v)
{
    slv_ksum s = {0, 0};
    for (int64_t i = 0; i < k->n; i++)
        slv_ksum_add(&s, k->a[i] * (v[i] - k->w->x[i]));
    slv_ksum_add(&s, -k->slack);
    return slv_ksum_value(&s);
}

static double dot(const double *x, const double *y, int64_t n)
{
    slv_ksum s = {0, 0};
    for (int64_t i = 0; i < n; i++)
        slv_ksum_add(&s, x[i] * y[i]);
    return slv_ksum_value(&s);
}

/* Euclidean norm with scaling (no overflow or underflow). */
static double norm2(const double *x, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    if (!(m > 0))
        return 0;
    slv_ksum s = {0, 0};
    for (int64_t i = 0; i < n; i++)
        slv_ksum_add(&s, (x[i] / m) * (x[i] / m));
    return m * sqrt(slv_ksum_value(&s));
}

/* v = LMO(c + l a), using q as scratch. */
static void lmo_at(const cut_ctx *k, const ircg_domain *dom, double l, double *q,
                   double *v)
{
    for (int64_t i = 0; i < k->n; i++)
        q[i] = k->c[i] + l * k->a[i];
    slv_domain_lmo(dom, q, k->n, v);
}

/* argmin <c, .> over the face argmin_X <a, .> (a != 0). */
static void face_of_a(const ircg_domain *dom, const double *a, const double *c,
                      int64_t n, double *v)
{
    int64_t best = -1;
    double r = dom->radius, m = 0;

    switch (dom->kind) {
    case IRCG_DOMAIN_L1_BALL: /* vertices -r sign(a_i) e_i with |a_i| max */
        for (int64_t i = 0; i < n; i++)
            m = fmax(m, fabs(a[i]));
        memset(v, 0, (size_t)n * sizeof *v);
        for (int64_t i = 0; i < n; i++)
            if (fabs(a[i]) == m &&
                (best < 0 || -copysign(r, a[i]) * c[i] < -copysign(r, a[best]) * c[best]))
                best = i;
        v[best] = -copysign(r, a[best]);
        return;
    case IRCG_DOMAIN_SIMPLEX: /* vertices r e_i with a_i min */
        m = a[0];
        for (int64_t i = 1; i < n; i++)
            m = fmin(m, a[i]);
        memset(v, 0, (size_t)n * sizeof *v);
        for (int64_t i = 0; i < n; i++)
            if (a[i] == m && (best < 0 || c[i] < c[best]))
                best = i;
        v[best] = r;
        return;
    case IRCG_DOMAIN_BOX: /* coordinates with a_i = 0 are free */
        for (int64_t i = 0; i < n; i++) {
            double s = a[i] != 0 ? a[i] : c[i];
            v[i] = s < 0 ? dom->upper : dom->lower;
        }
        return;
    default: /* l2: the single point -r a / ||a|| */
        slv_domain_lmo(dom, a, n, v);
        return;
    }
}

/* l2 ball, cut active: the minimizer lies on the sphere and the hyperplane
 * <a, v> = beta, in span{a, c}: v = al a^ - be w^ with a^ = a/||a||,
 * w = c - <c, a^> a^, al = beta/||a||, be = sqrt(r^2 - al^2).  KKT:
 * c + l a = -mu v gives mu = ||w|| / be and l = (-mu al - <c, a^>)/||a||. */
static void l2_cut(const cut_ctx *k, double r, double *v, double *lambda)
{
    int64_t n = k->n;
    double na = norm2(k->a, n), ca = dot(k->c, k->a, n) / na, nw;
    double al = dot(k->a, k->w->x, n) / na + k->slack / na;

    for (int64_t i = 0; i < n; i++)
        v[i] = k->c[i] - ca * (k->a[i] / na); /* w */
    nw = norm2(v, n);
    al = fmin(fmax(al, -r), r);
    double be = sqrt((r - al) * (r + al));
    if (!(nw > 0) || !(be > 0)) {
        /* c = -|kappa| a: every point of the disc {<a^, v> = al} is optimal,
         * take its center, where c + l a = 0 */
        for (int64_t i = 0; i < n; i++)
            v[i] = al * (k->a[i] / na);
        *lambda = fmax(0.0, -ca / na);
        return;
    }
    double mu = nw / be;
    for (int64_t i = 0; i < n; i++)
        v[i] = al * (k->a[i] / na) - be * (v[i] / nw);
    *lambda = fmax(0.0, (-mu * al - ca) / na);
}

/* Polytopes, cut active (v0 = LMO(c) violates it by s0 > 0).  Leaves the
 * combination in v; *theta is the weight of vlo (0: rank 1, v = vhi). */
static ircg_error polytope_cut(const cut_ctx *k, const ircg_domain *dom,
                               double margin, double s0, double *q, double *vlo,
                               double *vhi, double *v, double *lambda,
                               double *theta, int *evals)
{
    int64_t n = k->n;
    double slo = s0, shi, lo = 0, hi;

    memcpy(vlo, v, (size_t)n * sizeof *v);
    /* the bound of Remark 3 (optimal dual) for any X: l* <= (max_X <c,.> - min_X <c,.>)
     * / margin; twice it lies strictly on the feasible side */
    for (int64_t i = 0; i < n; i++)
        q[i] = -k->c[i];
    slv_domain_lmo(dom, q, n, vhi);
    hi = 2 * (dot(k->c, vhi, n) - dot(k->c, vlo, n)) / margin;
    if (!(hi > 0)) { /* <c, .> is constant on X: any feasible point */
        face_of_a(dom, k->a, k->c, n, v);
        *lambda = 0;
        *theta = 0;
        return IRCG_OK;
    }
    for (int j = 0;; j++) {
        if (j >= DOUBLE_MAX || !isfinite(hi))
            return IRCG_ERR_NUMERICAL;
        lmo_at(k, dom, hi, q, vhi);
        (*evals)++;
        if ((shi = cut_value(k, vhi)) <= 0)
            break;
        lo = hi;
        slo = shi;
        memcpy(vlo, vhi, (size_t)n * sizeof *v);
        hi *= 2;
    }
    for (int it = 0; it < BISECT_MAX && shi != 0; it++) {
        double mid = lo + 0.5 * (hi - lo), s;
        if (!(mid > lo && mid < hi))
            break;
        lmo_at(k, dom, mid, q, v);
        (*evals)++;
        if ((s = cut_value(k, v)) > 0) {
            lo = mid;
            slo = s;
            memcpy(vlo, v, (size_t)n * sizeof *v);
        } else {
            hi = mid;
            shi = s;
            memcpy(vhi, v, (size_t)n * sizeof *v);
        }
    }
    /* theta slo + (1 - theta) shi = 0 */
    *theta = shi < 0 ? -shi / (slo - shi) : 0.0;
    for (int64_t i = 0; i < n; i++)
        v[i] = *theta > 0 ? *theta * vlo[i] + (1 - *theta) * vhi[i] : vhi[i];
    *lambda = hi;
    return IRCG_OK;
}

/* r_v, Q v for the chosen v; a combination of two 1-sparse vertices costs
 * two columns of A instead of a product. */
static ircg_error finish(ls_ws *w, double theta, const double *vlo,
                         const double *vhi, int64_t *matvecs)
{
    const ls_data *d = w->d;
    int sparse = d->dom.kind == IRCG_DOMAIN_L1_BALL || d->dom.kind == IRCG_DOMAIN_SIMPLEX;

    if (theta > 0 && sparse && d->A) {
        double *r2 = malloc((size_t)d->m * sizeof *r2);
        if (!r2)
            return IRCG_ERR_NOMEM;
        ls_vertex_residual(d, vlo, r2);
        ls_vertex_residual(d, vhi, w->rv);
        for (int i = 0; i < d->m; i++)
            w->rv[i] = theta * r2[i] + (1 - theta) * w->rv[i];
        free(r2);
        *matvecs += 2;
    } else {
        ls_vertex_residual(d, w->v, w->rv);
        *matvecs += 1;
    }
    if (ls_has_q(w))
        ls_qmatvec(d, w->v, w->qv);
    w->have_v = 1;
    return IRCG_OK;
}

static ircg_error ls_lmo_cut(void *ws, double slack, slv_cut_info *info)
{
    ls_ws *w = ws;
    const ls_data *d = w->d;
    const ircg_domain *dom = &d->dom;
    int64_t n = d->n;
    double *a = malloc((size_t)n * sizeof *a), *q = malloc((size_t)n * sizeof *q);
    double *vlo = malloc((size_t)n * sizeof *vlo), *vhi = malloc((size_t)n * sizeof *vhi);
    double theta = 0;
    ircg_error err = IRCG_ERR_NOMEM;

    *info = (slv_cut_info){.lambda = NAN, .top_sv = NAN, .f_gap = NAN,
                            .rank = 1, .converged = 1, .matvecs = 1};
    if (!isfinite(slack)) {
        err = IRCG_ERR_INVALID;
        goto done;
    }
    if (!a || !q || !vlo || !vhi)
        goto done;
    memset(w->g, 0, (size_t)n * sizeof *w->g);
    ls_f_grad_add(d, 1.0, w->x, w->qx, w->g); /* c */
    ls_rmatvec(d, w->rx, a);
    cut_ctx k = {.w = w, .a = a, .c = w->g, .slack = slack, .n = n};

    slv_domain_lmo(dom, w->g, n, w->v);
    info->evaluations = 1;
    double s0 = cut_value(&k, w->v);
    if (s0 <= 0 && slack > 0) {
        info->slater = 1; /* x is strictly inside the cut */
        info->lambda = 0;
        goto found;
    }
    /* Slater: min_X <a, v - x> < slack, i.e. margin = FW gap of g + slack > 0 */
    int a_zero = 1;
    double scale = fabs(slack);
    slv_domain_lmo(dom, a, n, vhi);
    for (int64_t i = 0; i < n; i++) {
        a_zero = a_zero && a[i] == 0;
        scale += fabs(a[i] * w->x[i]) + fabs(a[i] * vhi[i]);
    }
    double margin = -cut_value(&k, vhi);
    info->slater = a_zero ? slack >= 0 : margin > TAU_SLATER * scale;
    if (s0 <= 0 || a_zero) {
        info->lambda = 0; /* optimal, or (a = 0, slack < 0) the most feasible */
        goto found;
    }
    if (!info->slater) {
        face_of_a(dom, a, w->g, n, w->v);
        goto found;
    }
    if (dom->kind == IRCG_DOMAIN_L2_BALL) {
        l2_cut(&k, dom->radius, w->v, &info->lambda);
    } else {
        err = polytope_cut(&k, dom, margin, s0, q, vlo, vhi, w->v, &info->lambda,
                           &theta, &info->evaluations);
        if (err != IRCG_OK)
            goto done;
        info->rank = theta > 0 && memcmp(vlo, vhi, (size_t)n * sizeof *vlo) != 0 ? 2 : 1;
    }
found:
    if ((err = finish(w, theta, vlo, vhi, &info->matvecs)) != IRCG_OK)
        goto done;
    slv_ksum gap = {0, 0};
    for (int64_t i = 0; i < n; i++)
        slv_ksum_add(&gap, w->g[i] * (w->x[i] - w->v[i]));
    info->f_gap = slv_ksum_value(&gap);
    err = isfinite(info->f_gap) ? IRCG_OK : IRCG_ERR_NUMERICAL;
done:
    free(a);
    free(q);
    free(vlo);
    free(vhi);
    return err;
}

static ircg_error ls_cut_step(void *ws, double gamma)
{
    return ls_step(ws, gamma, 0.0, 0.0, 1.0);
}

const slv_cut_ops slv_ls_cut_ops = {
    .lmo_cut = ls_lmo_cut,
    .cut_step = ls_cut_step,
};
