/*
 * ls_cert.c -- the certificates of the vector families (oracle.h,
 * slv_cert): products with A, A' and Q that carry a bound of their own
 * error, and the least-squares certificate built on them (logistic
 * regression's is in logreg/lr_cert.c, on the same products).
 *
 * Each product is made afresh from the point, row by row, with the sum of
 * the magnitudes of its terms beside it: a dot product of k terms errs by
 * at most gamma(k) times that sum (base/rounding.h), whatever the order
 * of the additions.  A product applied to a vector that is itself known
 * only to within e adds |A|'e.  None of it reads the workspace's running
 * residuals, and none of it writes anything but the certificate's scratch.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rounding.h"
#include "problems/domain.h"
#include "problems/ls/ls.h"

void ls_cert_buf_free(ls_cert_buf *b)
{
    if (!b)
        return;
    double *arr[] = {b->r, b->er, b->w, b->ew, b->rv, b->erv, b->gg, b->eg,
                     b->gf, b->ef, b->c, b->ec, b->w_pt, b->gq, b->egq,
                     b->rown, b->gram, b->kw};
    for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++)
        free(arr[i]);
    free(b->colcnt);
    free(b->vcolcnt);
    free(b);
}

/* The number of entries of each column of a CSR matrix (n ints), so that
 * a column's sum is bounded by its own length, not by m. */
static int *column_counts(const ls_data *d)
{
    int *cnt = calloc((size_t)d->n, sizeof *cnt);
    if (!cnt || d->A)
        return cnt;
    for (int64_t k = 0; k < d->rowptr[d->m]; k++)
        cnt[d->colind[k]]++;
    return cnt;
}

ls_cert_buf *ls_cert_buf_new(const ls_data *d)
{
    size_t n = (size_t)d->n, m = (size_t)d->m, mv = d->vset ? (size_t)d->vset->m : 1;
    ls_cert_buf *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->r = malloc(m * sizeof(double));
    b->er = malloc(m * sizeof(double));
    b->w = malloc((m > mv ? m : mv) * sizeof(double));
    b->ew = malloc((m > mv ? m : mv) * sizeof(double));
    b->rv = malloc(mv * sizeof(double));
    b->erv = malloc(mv * sizeof(double));
    b->gg = malloc(n * sizeof(double));
    b->eg = malloc(n * sizeof(double));
    b->gf = malloc(n * sizeof(double));
    b->ef = malloc(n * sizeof(double));
    b->c = malloc(n * sizeof(double));
    b->ec = malloc(n * sizeof(double));
    b->w_pt = malloc(n * sizeof(double));
    b->gq = malloc(n * sizeof(double));
    b->egq = malloc(n * sizeof(double));
    b->colcnt = column_counts(d);
    b->vcolcnt = d->vset ? column_counts(d->vset) : NULL;
    if (!b->r || !b->er || !b->w || !b->ew || !b->rv || !b->erv || !b->gg || !b->eg ||
        !b->gf || !b->ef || !b->c || !b->ec || !b->w_pt || !b->gq || !b->egq ||
        !b->colcnt || (d->vset && !b->vcolcnt)) {
        ls_cert_buf_free(b);
        return NULL;
    }
    return b;
}

void ls_cert_apply(const ls_data *d, const double *x, const double *b, double *y, double *e)
{
    for (int i = 0; i < d->m; i++) {
        double s = 0, a = 0;
        int k = 0;
        if (d->A) {
            const double *row = d->A + (size_t)i * d->n;
            for (int j = 0; j < d->n; j++) {
                double t = row[j] * x[j];
                s += t;
                a += fabs(t);
            }
            k = d->n;
        } else {
            for (int64_t p = d->rowptr[i]; p < d->rowptr[i + 1]; p++) {
                double t = d->val[p] * x[d->colind[p]];
                s += t;
                a += fabs(t);
            }
            k = (int)(d->rowptr[i + 1] - d->rowptr[i]);
        }
        if (b) {
            s -= b[i];
            a += fabs(b[i]);
            k++;
        }
        y[i] = s;
        e[i] = slv_up(slv_gamma(k) * a, k);
    }
}

void ls_cert_apply_t(const ls_data *d, const int *colcnt, const double *w,
                     const double *ew, double *y, double *e)
{
    /* y accumulates A'w, e the bound |A|'(gamma(column length) |w| + ew) */
    memset(y, 0, (size_t)d->n * sizeof *y);
    memset(e, 0, (size_t)d->n * sizeof *e);
    for (int i = 0; i < d->m; i++) {
        if (d->A) {
            const double *row = d->A + (size_t)i * d->n;
            for (int j = 0; j < d->n; j++) {
                y[j] += row[j] * w[i];
                e[j] += fabs(row[j]) * (slv_gamma(d->m) * fabs(w[i]) + (ew ? ew[i] : 0.0));
            }
        } else {
            for (int64_t p = d->rowptr[i]; p < d->rowptr[i + 1]; p++) {
                int j = d->colind[p];
                y[j] += d->val[p] * w[i];
                e[j] += fabs(d->val[p]) * (slv_gamma(colcnt[j]) * fabs(w[i]) + (ew ? ew[i] : 0.0));
            }
        }
    }
    for (int j = 0; j < d->n; j++)
        e[j] = slv_up(e[j], d->A ? d->m + 3 : colcnt[j] + 3);
}

double ls_cert_half_sq(const double *r, const double *er, int64_t m, double *err)
{
    slv_ksum k = {0, 0};
    double lin = 0, quad = 0;
    for (int64_t i = 0; i < m; i++) {
        slv_ksum_add(&k, 0.5 * r[i] * r[i]);
        lin += fabs(r[i]) * er[i];
        quad += 0.5 * er[i] * er[i];
    }
    double g = slv_ksum_value(&k);
    /* |1/2 |r*|^2 - 1/2 |r|^2| <= sum |r| e + 1/2 sum e^2; each square
     * rounds once, Neumaier's sum 2u of the total and O(m u^2) more */
    *err = slv_up(lin + quad, (int)(m < 1000000000 ? m : 1000000000)) + slv_gamma(4) * g;
    return g;
}

void ls_cert_combine(double sigma, const double *gf, const double *ef, const double *gg,
                     const double *eg, int64_t n, double *c, double *ec)
{
    for (int64_t i = 0; i < n; i++) {
        double t = sigma * gf[i];
        c[i] = t + gg[i];
        ec[i] = slv_up(sigma * ef[i] + eg[i] + slv_gamma(2) * (fabs(t) + fabs(gg[i])), 3);
    }
}

/* Q y + q for the quadratic outer objective, and its error. */
static void quad_apply(const ls_data *d, const double *y, double *o, double *e)
{
    for (int i = 0; i < d->n; i++) {
        const double *row = d->Q + (size_t)i * d->n;
        double s = d->q ? d->q[i] : 0.0, a = fabs(s);
        for (int j = 0; j < d->n; j++) {
            double t = row[j] * y[j];
            s += t;
            a += fabs(t);
        }
        o[i] = s;
        e[i] = slv_up(slv_gamma(d->n + 1) * a, d->n + 1);
    }
}

/* f(y), its error and its gradient with the gradient's error (b->gf,
 * b->ef), and min_X f >= *floor where f's form says so (squares: 0), for
 * the outer objectives of least squares; ls_cert_gaps adds the bound of
 * f's own gap. */
double ls_cert_outer(const ls_data *d, ls_cert_buf *b, const double *y, double *f_err,
                     double *floor)
{
    slv_ksum k = {0, 0};
    double f, mag = 0, lin = 0;
    *floor = 0; /* the squared norms and distances */
    switch (d->outer) {
    case IRCG_OUTER_VALIDATION:
        ls_cert_apply(d->vset, y, d->vset->b, b->rv, b->erv);
        f = ls_cert_half_sq(b->rv, b->erv, d->vset->m, f_err);
        ls_cert_apply_t(d->vset, b->vcolcnt, b->rv, b->erv, b->gf, b->ef);
        return f;
    case IRCG_OUTER_QUADRATIC: {
        /* gradient Q y + q; f = sum y_i (1/2 (Q y)_i + q_i) = sum y_i (gf_i - q_i / 2) */
        quad_apply(d, y, b->gf, b->ef);
        for (int i = 0; i < d->n; i++) {
            double half_q = d->q ? 0.5 * d->q[i] : 0.0;
            double t = y[i] * (0.5 * b->gf[i] + half_q);
            slv_ksum_add(&k, t);
            mag += fabs(t);
            lin += 0.5 * fabs(y[i]) * b->ef[i];
        }
        f = slv_ksum_value(&k);
        *f_err = slv_up(lin + slv_gamma(4) * mag, d->n);
        if (d->q) /* f >= 0 when q = 0 (Q is PSD); else ls_cert_gaps' bound */
            *floor = -INFINITY;
        return f;
    }
    default: /* 1/2 ||y||^2 or 1/2 ||y - c||^2: the gradient is y or y - c */
        for (int i = 0; i < d->n; i++) {
            double t = d->outer == IRCG_OUTER_DIST_SQ ? y[i] - d->c[i] : y[i];
            b->gf[i] = t;
            b->ef[i] = d->outer == IRCG_OUTER_DIST_SQ ? slv_gamma(1) * fabs(t) : 0.0;
            slv_ksum_add(&k, 0.5 * t * t);
        }
        f = slv_ksum_value(&k);
        *f_err = slv_gamma(8) * f;
        return f;
    }
}

/* The bound of a strongly convex Phi: when Phi = sigma f + g has
 * curvature at least mu > 0 (f's certified mu_f times sigma; g is convex),
 *   min_X Phi >= Phi(y) + min_{v in X} [<c*, v - y> + mu/2 ||v - y||^2]
 * for its gradient c* at y, and the right-hand minimum q* is bounded
 * below at any point w by convexity: q* >= q*(w) - max_{v in X} <grad
 * q*(w), w - v>.  w is the projection of y - c/mu, where q is least, so
 * that the bound loses only second-order terms of how far y is from
 * Phi's minimizer -- where the Frank-Wolfe gap loses first-order ones.
 * Returns G >= 0 with q* >= -G for every c* within ec of c, every rounding
 * bounded (base/rounding.h); INFINITY when the projection fails. */
static double strongly_convex_gap(const ls_data *d, ls_cert_buf *b, const double *c,
                                  const double *ec, const double *y, double mu)
{
    int64_t n = d->n;
    double q = 0, qmag = 0, qerr = 0, fw, fwe;
    for (int64_t i = 0; i < n; i++)
        b->w_pt[i] = y[i] - c[i] / mu;
    if (slv_domain_project(&d->dom, b->w_pt, n, b->w_pt) != IRCG_OK)
        return INFINITY;
    for (int64_t i = 0; i < n; i++) {
        double dv = b->w_pt[i] - y[i];
        q += c[i] * dv + 0.5 * mu * dv * dv;
        qmag += fabs(c[i] * dv) + 0.5 * mu * dv * dv;
        qerr += ec[i] * fabs(dv); /* c against c* */
        b->gq[i] = c[i] + mu * dv;
        b->egq[i] = slv_up(ec[i] + slv_gamma(4) * (fabs(c[i]) + mu * fabs(dv)), 2);
    }
    fw = slv_domain_fw_gap(&d->dom, b->gq, b->egq, b->w_pt, n, &fwe);
    double lower = q - slv_up(qerr + slv_gamma(n + 4) * qmag, 2) - (fmax(fw, 0.0) + fwe);
    return lower >= 0 ? 0.0 : slv_up(-lower, 2);
}

/* The Frank-Wolfe gap at y of a function with gradient c (bound ec) and
 * curvature at least mu (0: unknown), never below 0; into *sub the bound
 * of its value at y minus its least on X: that gap, or the strongly
 * convex bound's when it is the smaller.  What g, f and Phi_sigma share. */
static double gap_and_sub(const ls_data *d, ls_cert_buf *b, const double *c,
                          const double *ec, const double *y, double mu, double *sub)
{
    double e, gap = fmax(slv_domain_fw_gap(&d->dom, c, ec, y, d->n, &e) + e, 0.0);
    *sub = mu > 0 ? fmin(gap, strongly_convex_gap(d, b, c, ec, y, mu)) : gap;
    return gap;
}

/* The same of Phi_sigma = sigma f + g (f's curvature scaled by sigma). */
static double phi_gap(const ls_data *d, ls_cert_buf *b, const double *y, double sigma,
                      double *sub)
{
    ls_cert_combine(sigma, b->gf, b->ef, b->gg, b->eg, d->n, b->c, b->ec);
    return gap_and_sub(d, b, b->c, b->ec, y, sigma * d->mu_f, sub);
}

/* min_X f >= f(y) - sub_f(y), sub_f f's Frank-Wolfe gap at y or its
 * strongly convex bound: the f_floor of every outer objective (the
 * bound of f* at lambda = 1, where the weight of g vanishes -- a level of
 * the bisection methods below min_X f is rejected by it), rounded down. */
static double f_floor_of(const ls_data *d, ls_cert_buf *b, const double *y, double f,
                         double f_err)
{
    double sub;
    gap_and_sub(d, b, b->gf, b->ef, y, d->mu_f, &sub);
    double s = f - f_err - sub;
    return s - slv_gamma(4) * (fabs(f) + f_err + sub);
}

double ls_cert_norm_up(const double *c, const double *e, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++) {
        double t = fabs(c[i]) + e[i];
        s += t * t;
    }
    return slv_up(sqrt(slv_up(s, (int)(n < 1000000 ? n : 1000000))), 1);
}

/* Every inner solution x* lies within R of y, where g has curvature mu
 * on a set holding the segment [y, x*].  With c = grad g(y) and q(v) =
 * <c, v - y> + mu/2 |v - y|^2: g* = g(x*) >= g(y) + q(x*) and g* <= g(y),
 * so q(x*) <= 0.  Two radii follow:
 *  - <c, x* - y> >= -min(gap_g, |c| |x* - y|) (x* in X), so mu/2 d^2 <=
 *    min(gap_g, |c| d): R1 = min(2 |c| / mu, sqrt(2 gap_g / mu));
 *  - at the strongly convex bound's point w (b->w_pt, G its bound G_sc),
 *    q(x*) >= q(w) + <grad q(w), x* - w> + mu/2 |x* - w|^2 and the middle
 *    term is at least -(q's Frank-Wolfe gap at w), so mu/2 |x* - w|^2 <=
 *    G_sc: R2 = |w - y| + sqrt(2 G_sc / mu), first order in y's distance
 *    from x* even where x* is on X's boundary (R1 is its square root
 *    there).
 * f is convex: f* = f(x*) >= f(y) - |grad f(y)| min(R1, R2). */
static void ball_floor(const ls_data *d, const ls_cert_buf *b, const double *y, double mu,
                       double g_sc, slv_cert *out)
{
    double cn = ls_cert_norm_up(b->gg, b->eg, d->n), fn = ls_cert_norm_up(b->gf, b->ef, d->n);
    double r1 = fmin(slv_up(2 * cn / mu, 2), slv_up(sqrt(slv_up(2 * out->gap_g / mu, 2)), 1));
    double wy = 0;
    for (int64_t i = 0; i < d->n; i++)
        wy += (b->w_pt[i] - y[i]) * (b->w_pt[i] - y[i]);
    int k = (int)(d->n < 1000000 ? d->n : 1000000);
    double r2 = slv_up(slv_up(sqrt(slv_up(wy, k + 1)), 1) +
                       slv_up(sqrt(slv_up(2 * g_sc / mu, 2)), 1), 1);
    double drop = slv_up(fn * fmin(r1, r2), 1);
    double fl = out->f - out->f_err - drop;
    fl -= slv_gamma(4) * (fabs(out->f) + out->f_err + drop);
    if (isfinite(fl))
        out->f_floor = fmax(out->f_floor, fl);
}

void ls_cert_curved(const ls_data *d, ls_cert_buf *b, const double *y, double mu,
                    slv_cert *out)
{
    double g_sc = strongly_convex_gap(d, b, b->gg, b->eg, y, mu);
    out->sub_g = fmin(out->sub_g, g_sc);
    if (isfinite(g_sc))
        ball_floor(d, b, y, mu, g_sc, out);
}

/* The gaps of g and of Phi_sigma at y from the gradients in b (gg, eg;
 * gf, ef), both never below 0, a gap's least value; and f's floor from
 * its own gap (out->f, f_err and the floor its form gives are in). */
void ls_cert_gaps(const ls_data *d, ls_cert_buf *b, const double *y, double sigma,
                  slv_cert *out)
{
    out->f_floor = fmax(out->f_floor, f_floor_of(d, b, y, out->f, out->f_err));
    out->gap_g = gap_and_sub(d, b, b->gg, b->eg, y, d->mu_g, &out->sub_g);
    if (d->mu_g > 0) /* everywhere: the ball is X */
        ls_cert_curved(d, b, y, d->mu_g, out);
    out->gap_phi = out->sub_phi = NAN;
    out->nphi = 0;
    if (!(sigma > 0))
        return;
    out->gap_phi = phi_gap(d, b, y, sigma, &out->sub_phi);
    for (int k = -4; k <= 4; k++) { /* O(n) each: the best f bound of several */
        double s = ldexp(sigma, 2 * k);
        if (k == 0)
            continue;
        out->phi_sigma[out->nphi] = s;
        phi_gap(d, b, y, s, &out->phi_sub[out->nphi++]);
    }
}

ircg_error ls_certify_at(const ls_data *d, ls_cert_buf **cbp, const double *y, double sigma,
                        slv_cert *out)
{
    if (!*cbp && !(*cbp = ls_cert_buf_new(d)))
        return IRCG_ERR_NOMEM;
    ls_cert_buf *b = *cbp;
    *out = (slv_cert){.sharp = 1};
    ls_cert_apply(d, y, d->b, b->r, b->er);
    out->g = ls_cert_half_sq(b->r, b->er, d->m, &out->g_err);
    ls_cert_apply_t(d, b->colcnt, b->r, b->er, b->gg, b->eg);
    out->f = ls_cert_outer(d, b, y, &out->f_err, &out->f_floor);
    ls_cert_gaps(d, b, y, sigma, out);
    out->matvecs = d->outer == IRCG_OUTER_VALIDATION ? 4 : 2;
    if (!isfinite(out->g) || !isfinite(out->gap_g) || !isfinite(out->f))
        return IRCG_ERR_NUMERICAL;
    return IRCG_OK;
}

ircg_error ls_certify(void *p, ircg_which which, double sigma, slv_cert *out)
{
    ls_ws *w = p;
    return ls_certify_at(w->d, &w->cb, which == IRCG_Z ? w->z : w->x, sigma, out);
}

/* The Lagrangian bound of f* (twostage/, docs/DESIGN.md "The two-stage
 * method").  g depends on x through A x alone, with curvature at least
 * kappa in A x (least squares: 1), so at an inner solution x*, for any xh
 * in X, g(xh) - g* >= <grad g(x*), xh - x*> + kappa/2 ||A (xh - x*)||^2
 * >= kappa/2 ||A (xh - x*)||^2 (x* minimizes g over X): every inner
 * solution lies in {x in X : ||A (x - xh)|| <= rad}, rad = sqrt(2 tau /
 * kappa) for any tau >= g(xh) - g*.  On that set f + nu'A(x - xh) exceeds
 * f by at most ||nu|| rad, for any nu in R^m, so
 *   f* >= min_X [f + nu'A (x - xh)] - ||nu|| rad
 *      >= f(w) + nu'A (w - xh) - sub_L(w) - ||nu|| rad
 * for any w in X, sub_L the Frank-Wolfe gap (or the strongly convex
 * bound) of L = f + nu'A x at w.  Every term is bounded with its rounding
 * and the result rounded down; -INFINITY when a term is not finite. */
double ls_cert_lagrange(const ls_data *d, ls_cert_buf *b, const double *w, const double *xh,
                        const double *nu, double tau, double kappa)
{
    double f_err, floor, sub;
    double f = ls_cert_outer(d, b, w, &f_err, &floor);
    /* grad L = grad f + A'nu (nu exact: it is the bound's own choice) */
    ls_cert_apply_t(d, b->colcnt, nu, NULL, b->gg, b->eg);
    ls_cert_combine(1.0, b->gf, b->ef, b->gg, b->eg, d->n, b->c, b->ec);
    gap_and_sub(d, b, b->c, b->ec, w, d->mu_f, &sub);
    /* nu'(A w - A xh) and ||nu|| */
    ls_cert_apply(d, w, NULL, b->r, b->er);
    ls_cert_apply(d, xh, NULL, b->w, b->ew);
    slv_ksum dot = {0, 0}, nn = {0, 0};
    double mag = 0, lin = 0;
    for (int i = 0; i < d->m; i++) {
        double t = nu[i] * (b->r[i] - b->w[i]);
        slv_ksum_add(&dot, t);
        slv_ksum_add(&nn, nu[i] * nu[i]);
        mag += fabs(t);
        lin += fabs(nu[i]) * (b->er[i] + b->ew[i]);
    }
    double dv = slv_ksum_value(&dot);
    double dot_err = slv_up(lin + slv_gamma(4) * mag, d->m);
    double nu_norm = slv_up(sqrt(slv_ksum_value(&nn)), d->m);
    double rad = slv_up(sqrt(2 * fmax(tau, 0.0) / kappa), 4);
    double pen = slv_up(nu_norm * rad, 2);
    double s = f - f_err + dv - dot_err - sub - pen;
    double lower = s - slv_gamma(8) * (fabs(f) + f_err + fabs(dv) + dot_err + sub + pen);
    return isfinite(lower) && kappa > 0 ? lower : -INFINITY;
}
