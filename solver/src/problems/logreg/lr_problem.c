/* lr_problem.c -- lr_problem_new(): the least-squares data checks and
 * copies (ls_data_new), the labels, and the constants
 * L_g = ||A||_2^2 / 4 (l'' <= 1/4) and L_f = 1, lambda_max(Q), or
 * ||A_v||_2^2 / 4. */
#include <assert.h>
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
    if (d->vset) {
        map_labels(d->vset->b, d->vset->m, zo[1]);
        L_f /= 4;
        d->mu_f = 0; /* the logistic loss flattens: no curvature bound */
    }
    return ls_problem_of(d, IRCG_PROBLEM_LOGISTIC, &slv_lr_ops, L_f, L_g / 4, out, diag);
}
