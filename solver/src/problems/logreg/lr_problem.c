/* lr_problem.c -- lr_problem_new(): the least-squares data checks and
 * copies (ls_data_new), the labels, and the constants
 * L_g = ||A||_2^2 / 4 (l'' <= 1/4) and L_f = 1, lambda_max(Q), or
 * ||A_v||_2^2 / 4. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "problems/logreg/lr.h"

/* Labels: every y_k in {-1, +1}, or every one in {0, 1}; *zero_one says
 * which.  field is "/b" or "/outer/val/b". */
static ircg_error check_labels(const double *y, int m, const char *field,
                               int *zero_one, ircg_diag *diag)
{
    int pm = 1, zo = 1;
    for (int k = 0; k < m; k++) {
        pm = pm && (y[k] == 1 || y[k] == -1);
        zo = zo && (y[k] == 1 || y[k] == 0);
        if (!pm && !zo)
            return slv_fail(diag, IRCG_ERR_INVALID, field,
                             "labels must all be -1 or +1, or all 0 or 1; "
                             "entry %d is %g", k, y[k]);
    }
    *zero_one = !pm;
    return IRCG_OK;
}

static void map_labels(double *y, int m, int zero_one)
{
    for (int k = 0; zero_one && k < m; k++)
        y[k] = y[k] == 0 ? -1.0 : 1.0;
}

static ircg_error check_model(const ircg_ls_data *data, const ircg_outer *o,
                              int zo[2], ircg_diag *diag)
{
    ircg_error err;
    if (!data || !data->b || data->m < 1)
        return IRCG_OK; /* ls_data_new names what is missing */
    if ((err = check_labels(data->b, data->m, "/b", &zo[0], diag)) != IRCG_OK)
        return err;
    if (o && o->kind == IRCG_OUTER_VALIDATION && o->val && o->val->b && o->val->m > 0 &&
        (err = check_labels(o->val->b, o->val->m, "/outer/val/b", &zo[1], diag)) != IRCG_OK)
        return err;
    if (o && o->kind == IRCG_OUTER_COLUMN_VARIANCE)
        return slv_fail(diag, IRCG_ERR_INVALID, "/outer/kind",
                         "logistic regression takes the outer objectives "
                         "half_norm_sq, dist_sq, quadratic and validation");
    return IRCG_OK;
}

/* sup over X of |a'x| for a row's len nonzero entries a: the domain's
 * support function of |a| (for the box, a bound of it). */
static double row_reach(const double *a, int64_t len, const ircg_domain *dom)
{
    double s1 = 0, s2 = 0, sinf = 0;
    for (int64_t k = 0; k < len; k++) {
        double v = fabs(a[k]);
        s1 += v;
        s2 += v * v;
        sinf = fmax(sinf, v);
    }
    switch (dom->kind) {
    case IRCG_DOMAIN_L2_BALL: return dom->radius * sqrt(s2);
    case IRCG_DOMAIN_L1_BALL:
    case IRCG_DOMAIN_SIMPLEX: return dom->radius * sinf;
    case IRCG_DOMAIN_BOX: return s1 * fmax(fabs(dom->lower), fabs(dom->upper));
    default: return INFINITY;
    }
}

double lr_least_curvature(const ls_data *d, const ircg_domain *dom)
{
    double M = 0;
    if (d->repeats) /* a row's reach is not its entries' (ls.h) */
        return 0;
    for (int i = 0; i < d->m; i++) {
        if (d->A)
            M = fmax(M, row_reach(d->A + (size_t)i * d->n, d->n, dom));
        else
            M = fmax(M, row_reach(d->val + d->rowptr[i], d->rowptr[i + 1] - d->rowptr[i], dom));
    }
    M *= 1 + 1e-12; /* the sums' rounding, and more */
    if (!(M < 700))
        return 0;
    /* l''(s) = e^-s / (1 + e^-s)^2, decreasing in |s|; exp's error is an
     * ulp or two: 1e-12 below covers it */
    double e = exp(-M);
    return e / ((1 + e) * (1 + e)) * (1 - 1e-12);
}

ircg_error lr_problem_new(const ircg_ls_data *data, const ircg_outer *outer,
                          const ircg_domain *domain, ircg_problem **out,
                          ircg_diag *diag)
{
    ls_data *d = NULL;
    double L_f, L_g;
    int zo[2] = {0, 0};
    ircg_error err;

    if (!out)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "out is NULL");
    *out = NULL;
    if ((err = check_model(data, outer, zo, diag)) != IRCG_OK ||
        (err = ls_data_new(data, outer, domain, &d, &L_f, &L_g, diag)) != IRCG_OK)
        return err;
    assert(d != NULL);
    map_labels(d->b, d->m, zo[0]);
    /* A'A's least eigenvalue times the loss's least curvature over X */
    d->mu_g *= lr_least_curvature(d, &d->dom);
    if (d->vset) {
        map_labels(d->vset->b, d->vset->m, zo[1]);
        L_f /= 4;
        d->mu_f *= lr_least_curvature(d->vset, &d->dom);
    }
    return ls_problem_of(d, IRCG_PROBLEM_LOGISTIC, &slv_lr_ops, L_f, L_g / 4, out, diag);
}
