/* domain.c -- see domain.h */
#include "problems/domain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rounding.h"
#include "base/util.h"

ircg_error slv_domain_validate(const ircg_domain *d, ircg_diag *diag)
{
    if (!d)
        return slv_fail(diag, IRCG_ERR_INVALID, "/domain", "domain is NULL");
    switch (d->kind) {
    case IRCG_DOMAIN_NUCLEAR_BALL:
    case IRCG_DOMAIN_L2_BALL:
    case IRCG_DOMAIN_L1_BALL:
    case IRCG_DOMAIN_SIMPLEX:
        if (!isfinite(d->radius) || d->radius <= 0)
            return slv_fail(diag, IRCG_ERR_INVALID, "/domain/radius",
                             "radius must be a finite number > 0, got %g",
                             d->radius);
        return IRCG_OK;
    case IRCG_DOMAIN_BOX:
        if (!isfinite(d->lower))
            return slv_fail(diag, IRCG_ERR_INVALID, "/domain/lower",
                             "lower must be finite, got %g", d->lower);
        if (!isfinite(d->upper) || !(d->lower < d->upper))
            return slv_fail(diag, IRCG_ERR_INVALID, "/domain/upper",
                             "upper must be finite and > lower (%g), got %g",
                             d->lower, d->upper);
        return IRCG_OK;
    default:
        return slv_fail(diag, IRCG_ERR_INVALID, "/domain/kind",
                         "unknown domain kind %d", (int)d->kind);
    }
}

int slv_domain_is_vector(const ircg_domain *d)
{
    return d->kind == IRCG_DOMAIN_L2_BALL || d->kind == IRCG_DOMAIN_L1_BALL ||
           d->kind == IRCG_DOMAIN_SIMPLEX || d->kind == IRCG_DOMAIN_BOX;
}

static double domain_scale(const ircg_domain *d)
{
    if (d->kind == IRCG_DOMAIN_BOX)
        return fmax(1.0, fmax(fabs(d->lower), fabs(d->upper)));
    return fmax(1.0, d->radius);
}

int slv_domain_contains(const ircg_domain *d, const double *x, int64_t n,
                         double tol)
{
    double slack = tol * domain_scale(d);
    slv_ksum k = {0, 0};

    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return 0;
        switch (d->kind) {
        case IRCG_DOMAIN_L2_BALL: slv_ksum_add(&k, x[i] * x[i]); break;
        case IRCG_DOMAIN_L1_BALL: slv_ksum_add(&k, fabs(x[i])); break;
        case IRCG_DOMAIN_SIMPLEX:
            if (x[i] < -slack)
                return 0;
            slv_ksum_add(&k, x[i]);
            break;
        case IRCG_DOMAIN_BOX:
            if (x[i] < d->lower - slack || x[i] > d->upper + slack)
                return 0;
            break;
        default:
            return 0;
        }
    }
    double s = slv_ksum_value(&k);
    switch (d->kind) {
    case IRCG_DOMAIN_L2_BALL: return sqrt(s) <= d->radius + slack;
    case IRCG_DOMAIN_L1_BALL: return s <= d->radius + slack;
    case IRCG_DOMAIN_SIMPLEX: return fabs(s - d->radius) <= slack;
    default: return 1;
    }
}

/* ---------------------------------------------------------------- LMO -- */

static void lmo_l2(double r, const double *c, int64_t n, double *v)
{
    /* Scale first so that ||c|| neither overflows nor underflows. */
    double cmax = 0;
    for (int64_t i = 0; i < n; i++)
        cmax = fmax(cmax, fabs(c[i]));
    memset(v, 0, (size_t)n * sizeof *v);
    if (!(cmax > 0)) {
        v[0] = r; /* every point is a minimizer: pick a fixed vertex */
        return;
    }
    slv_ksum k = {0, 0};
    for (int64_t i = 0; i < n; i++)
        slv_ksum_add(&k, (c[i] / cmax) * (c[i] / cmax));
    double scale = -r / (cmax * sqrt(slv_ksum_value(&k)));
    if (isfinite(scale)) {
        for (int64_t i = 0; i < n; i++)
            v[i] = scale * c[i];
        return;
    }
    /* a subnormal cmax (a gradient that reached 0 but for its last bits):
     * -r / (cmax ||c / cmax||) overflowed into infinite vertices, so scale
     * c first.  Only then, so that every other vertex keeps its bits. */
    scale = -r / sqrt(slv_ksum_value(&k));
    for (int64_t i = 0; i < n; i++)
        v[i] = scale * (c[i] / cmax);
}

static void lmo_l1(double r, const double *c, int64_t n, double *v)
{
    int64_t best = 0;
    for (int64_t i = 1; i < n; i++)
        if (fabs(c[i]) > fabs(c[best]))
            best = i;
    memset(v, 0, (size_t)n * sizeof *v);
    v[best] = c[best] >= 0 ? -r : r;
}

static void lmo_simplex(double r, const double *c, int64_t n, double *v)
{
    int64_t best = 0;
    for (int64_t i = 1; i < n; i++)
        if (c[i] < c[best])
            best = i;
    memset(v, 0, (size_t)n * sizeof *v);
    v[best] = r;
}

void slv_domain_lmo(const ircg_domain *d, const double *c, int64_t n, double *v)
{
    switch (d->kind) {
    case IRCG_DOMAIN_L2_BALL: lmo_l2(d->radius, c, n, v); break;
    case IRCG_DOMAIN_L1_BALL: lmo_l1(d->radius, c, n, v); break;
    case IRCG_DOMAIN_SIMPLEX: lmo_simplex(d->radius, c, n, v); break;
    case IRCG_DOMAIN_BOX:
        for (int64_t i = 0; i < n; i++)
            v[i] = c[i] < 0 ? d->upper : d->lower;
        break;
    default:
        break; /* not a vector domain: the caller checked */
    }
}

/* --------------------------------------------------------- projection -- */

/* Sort-based (Duchi et al. 2008; Condat 2016, Algorithm 1): with u sorted
 * decreasingly, rho is the last j for which u_j > (sum_{i<=j} u_i - r)/j,
 * and theta = (sum_{i<=rho} u_i - r)/rho. */
double slv_simplex_threshold_sorted(const double *u, int64_t n, double r,
                                     int64_t *rho)
{
    double cs = 0, theta = u[0] - r;
    *rho = 1;
    for (int64_t j = 0; j < n; j++) {
        cs += u[j];
        double tj = (cs - r) / (double)(j + 1);
        if (u[j] > tj) {
            theta = tj;
            *rho = j + 1;
        }
    }
    return theta;
}

/* The threshold theta of the projection onto {s >= 0, sum s = r}:
 * x = max(y - theta, 0), without sorting (Condat 2016, "Fast projection
 * onto the simplex and the l1 ball", his proposed algorithm: expected
 * O(n), where a sort made the projection the cost of FC-BiO's steps).
 * The candidates v hold the entries that may lie above theta, and rho =
 * (sum v - r) / |v| is the threshold they would give: one pass keeps the
 * entries above the running rho (restarting the list at an entry that
 * alone beats it, the others kept aside), the kept-aside ones above the
 * final rho come back, and entries at or below rho leave until none is
 * left: theta = rho.  Adding y to k candidates makes rho + (y - rho) /
 * (k + 1); removing one, rho + (rho - y) / (k - 1). */
static ircg_error simplex_threshold(const double *y, int64_t n, double r,
                                    double *theta)
{
    if (n < 1)
        return IRCG_ERR_INVALID;
    double *v = malloc(2 * (size_t)n * sizeof *v);
    if (!v)
        return IRCG_ERR_NOMEM;
    double *aside = v + n;
    int64_t k = 1, na = 0;
    double rho = y[0] - r;
    v[0] = y[0];
    for (int64_t i = 1; i < n; i++) {
        if (!(y[i] > rho))
            continue;
        rho += (y[i] - rho) / (double)(k + 1);
        if (rho > y[i] - r) {
            v[k++] = y[i];
        } else { /* y[i] alone beats the candidates: they go aside */
            memcpy(aside + na, v, (size_t)k * sizeof *v);
            na += k;
            v[0] = y[i];
            k = 1;
            rho = y[i] - r;
        }
    }
    for (int64_t i = 0; i < na; i++)
        if (aside[i] > rho) {
            v[k++] = aside[i];
            rho += (aside[i] - rho) / (double)k;
        }
    for (int changed = 1; changed && k > 1;) {
        changed = 0;
        for (int64_t i = 0; i < k && k > 1;) {
            if (v[i] <= rho) {
                rho += (rho - v[i]) / (double)(k - 1);
                v[i] = v[--k];
                changed = 1;
            } else {
                i++;
            }
        }
    }
    *theta = rho;
    free(v);
    return IRCG_OK;
}

ircg_error slv_project_simplex(const double *y, int64_t n, double r, double *x)
{
    double theta;
    ircg_error err = simplex_threshold(y, n, r, &theta);
    if (err != IRCG_OK)
        return err;
    for (int64_t i = 0; i < n; i++)
        x[i] = fmax(y[i] - theta, 0.0);
    return IRCG_OK;
}

ircg_error slv_project_simplex_ineq(const double *y, int64_t n, double delta,
                                     double *x)
{
    slv_ksum k = {0, 0};
    for (int64_t i = 0; i < n; i++)
        slv_ksum_add(&k, fmax(y[i], 0.0));
    if (slv_ksum_value(&k) <= delta) {
        for (int64_t i = 0; i < n; i++)
            x[i] = fmax(y[i], 0.0);
        return IRCG_OK;
    }
    return slv_project_simplex(y, n, delta, x);
}

/* l1 ball: the identity inside; outside, the simplex projection of |y|
 * with the signs of y put back (Duchi et al. 2008, Section 4). */
static ircg_error project_l1(const double *y, int64_t n, double r, double *x)
{
    slv_ksum k = {0, 0};
    for (int64_t i = 0; i < n; i++)
        slv_ksum_add(&k, fabs(y[i]));
    if (slv_ksum_value(&k) <= r) {
        if (x != y)
            memcpy(x, y, (size_t)n * sizeof *x);
        return IRCG_OK;
    }
    if (n < 1)
        return IRCG_OK; /* the sum above is 0 <= r: unreachable */
    double *a = malloc((size_t)n * sizeof *a), theta;
    if (!a)
        return IRCG_ERR_NOMEM;
    for (int64_t i = 0; i < n; i++)
        a[i] = fabs(y[i]);
    ircg_error err = simplex_threshold(a, n, r, &theta);
    if (err == IRCG_OK)
        for (int64_t i = 0; i < n; i++)
            x[i] = copysign(fmax(a[i] - theta, 0.0), y[i]);
    free(a);
    return err;
}

static void project_l2(const double *y, int64_t n, double r, double *x)
{
    double ymax = 0;
    for (int64_t i = 0; i < n; i++)
        ymax = fmax(ymax, fabs(y[i]));
    double nrm = 0;
    if (ymax > 0) {
        slv_ksum k = {0, 0};
        for (int64_t i = 0; i < n; i++)
            slv_ksum_add(&k, (y[i] / ymax) * (y[i] / ymax));
        nrm = ymax * sqrt(slv_ksum_value(&k));
    }
    double scale = nrm > r ? r / nrm : 1.0;
    for (int64_t i = 0; i < n; i++)
        x[i] = scale * y[i];
}

ircg_error slv_domain_project(const ircg_domain *d, const double *y, int64_t n,
                               double *x)
{
    switch (d->kind) {
    case IRCG_DOMAIN_L2_BALL:
        project_l2(y, n, d->radius, x);
        return IRCG_OK;
    case IRCG_DOMAIN_L1_BALL:
        return project_l1(y, n, d->radius, x);
    case IRCG_DOMAIN_SIMPLEX:
        return slv_project_simplex(y, n, d->radius, x);
    case IRCG_DOMAIN_BOX:
        for (int64_t i = 0; i < n; i++)
            x[i] = fmin(fmax(y[i], d->lower), d->upper);
        return IRCG_OK;
    default:
        return IRCG_ERR_INVALID;
    }
}

double slv_domain_diameter(const ircg_domain *d, int64_t n)
{
    switch (d->kind) {
    case IRCG_DOMAIN_SIMPLEX: return d->radius * sqrt(2.0);
    case IRCG_DOMAIN_BOX: return (d->upper - d->lower) * sqrt((double)n);
    default: return 2.0 * d->radius; /* l2, l1 and nuclear balls */
    }
}

void slv_domain_start(const ircg_domain *d, int64_t n, double *x)
{
    for (int64_t i = 0; i < n; i++) {
        switch (d->kind) {
        case IRCG_DOMAIN_SIMPLEX: x[i] = d->radius / (double)n; break;
        case IRCG_DOMAIN_BOX: x[i] = fmin(fmax(0.0, d->lower), d->upper); break;
        default: x[i] = 0.0; break;
        }
    }
}

/* ------------------------------------------- the certified gap (cert) -- */

/* max_{v in X} <-c, v> = -min_{v in X} <c, v>, and what it may err by:
 * its own rounding plus the most that |c* - c| <= e can add. */
static double support(const ircg_domain *d, const double *c, const double *e, int64_t n,
                      double *err)
{
    double r = d->radius, h = 0, eh = 0;
    switch (d->kind) {
    case IRCG_DOMAIN_L2_BALL: { /* r ||c||, and ||c*|| <= ||c|| + ||e|| */
        double cmax = 0, emax = 0;
        for (int64_t i = 0; i < n; i++) {
            cmax = fmax(cmax, fabs(c[i]));
            emax = fmax(emax, e ? e[i] : 0.0);
        }
        slv_ksum kc = {0, 0}, ke = {0, 0};
        for (int64_t i = 0; i < n && cmax > 0; i++)
            slv_ksum_add(&kc, (c[i] / cmax) * (c[i] / cmax));
        for (int64_t i = 0; e && i < n && emax > 0; i++)
            slv_ksum_add(&ke, (e[i] / emax) * (e[i] / emax));
        h = r * cmax * sqrt(slv_ksum_value(&kc));
        eh = slv_gamma(8) * h + slv_up(r * emax * sqrt(slv_ksum_value(&ke)), 4);
        break;
    }
    case IRCG_DOMAIN_L1_BALL: { /* r max |c_i|, at most r max (|c_i| + e_i) */
        double cm = 0, cem = 0;
        for (int64_t i = 0; i < n; i++) {
            cm = fmax(cm, fabs(c[i]));
            cem = fmax(cem, fabs(c[i]) + (e ? e[i] : 0.0));
        }
        h = r * cm;
        eh = slv_up(r * (cem - cm), 2) + slv_gamma(2) * r * cem;
        break;
    }
    case IRCG_DOMAIN_SIMPLEX: { /* -r min c_i, at most -r min (c_i - e_i) */
        double cm = c[0], cem = c[0] - (e ? e[0] : 0.0);
        for (int64_t i = 1; i < n; i++) {
            cm = fmin(cm, c[i]);
            cem = fmin(cem, c[i] - (e ? e[i] : 0.0));
        }
        h = -r * cm;
        eh = slv_up(r * (cm - cem), 2) + slv_gamma(2) * r * fabs(cem);
        break;
    }
    case IRCG_DOMAIN_BOX: { /* sum max(-c_i l, -c_i u), each term at most e_i max(|l|, |u|) more */
        slv_ksum k = {0, 0};
        double mag = 0, em = 0, b = fmax(fabs(d->lower), fabs(d->upper));
        for (int64_t i = 0; i < n; i++) {
            double t = fmax(-c[i] * d->lower, -c[i] * d->upper);
            slv_ksum_add(&k, t);
            mag += fabs(t);
            em += e ? e[i] : 0.0;
        }
        h = slv_ksum_value(&k);
        eh = slv_gamma(4) * slv_up(mag, (int)fmin((double)n, 1e9)) + slv_up(em * b, (int)fmin((double)n, 1e9));
        break;
    }
    default:
        break;
    }
    *err = eh;
    return h;
}

double slv_domain_fw_gap(const ircg_domain *d, const double *c, const double *e,
                         const double *y, int64_t n, double *err)
{
    slv_ksum dot = {0, 0};
    double mag = 0, ey = 0, eh;
    int k = (int)fmin((double)n, 1e9);
    for (int64_t i = 0; i < n; i++) {
        slv_ksum_add(&dot, c[i] * y[i]);
        mag += fabs(c[i] * y[i]);
        ey += e ? e[i] * fabs(y[i]) : 0.0;
    }
    double h = support(d, c, e, n, &eh);
    double gap = slv_ksum_value(&dot) + h;
    /* the products round once each, Neumaier's sum adds 2u of the total
     * and O(n u^2) of the magnitudes, the last addition u of the gap */
    *err = slv_up(slv_gamma(3) * mag + ey, k) + eh + slv_gamma(1) * fabs(gap);
    return gap;
}
