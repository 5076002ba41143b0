/*
 * ls_point.c -- FC-BiO's point oracle (oracle.h, slv_point_ops) on least
 * squares and logistic regression, over the workspace of ls_sto.c
 * (ls_sto_ws: x, z and the last vertex as plain vectors).
 *
 * The observation of a point y is what f and g read of it through the
 * data, affine in y:
 *   least squares:       [A y - b, o_f(y)]
 *   logistic regression: [A y,     o_f(y)]
 * with o_f the outer vector: Q y (quadratic f), A_v y - b_v (least
 * squares' validation loss) or A_v y (logistic validation loss), nothing
 * for the norms and distances.  g and f and their gradients follow from y
 * and its observation without another product, so an extrapolated point
 * y = x + b (x - x') costs none: its observation is the same combination
 * of theirs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/domain.h"
#include "problems/logreg/lr.h"
#include "problems/ls/ls.h"

/* The outer part's length: Q y has n entries, the validation rows m_v. */
static int64_t outer_len(const ls_data *d)
{
    return ls_outer_len(d);
}

static int64_t pt_dim(void *p)
{
    const ls_sto_ws *w = p;
    return (int64_t)w->d->n;
}

static int64_t pt_obs_len(void *p)
{
    const ls_sto_ws *w = p;
    return (int64_t)w->d->m + outer_len(w->d);
}

static void pt_observe(void *p, const double *y, double *o)
{
    const ls_sto_ws *w = p;
    const ls_data *d = w->d;
    double *of = o + d->m;
    if (w->logistic)
        ls_matvec(d, y, o);
    else
        ls_residual(d, y, o);
    if (!outer_len(d))
        return;
    if (w->logistic && d->outer == IRCG_OUTER_VALIDATION)
        ls_matvec(d->vset, y, of); /* margins, the labels apply in the loss */
    else
        ls_qmatvec(d, y, of);
}

/* The logistic loss on the validation rows, or the outer objectives the
 * two families share (ls_f_value). */
static double outer_value(const ls_sto_ws *w, const double *y, const double *of)
{
    const ls_data *d = w->d;
    if (w->logistic && d->outer == IRCG_OUTER_VALIDATION)
        return lr_sum(d->vset->b, of, NULL, d->vset->m);
    return ls_f_value(d, y, of);
}

static void pt_values(void *p, const double *y, const double *o, double *f, double *g)
{
    const ls_sto_ws *w = p;
    const ls_data *d = w->d;
    *g = w->logistic ? lr_sum(d->b, o, NULL, d->m) : slv_half_sq(o, d->m);
    *f = outer_value(w, y, o + d->m);
}

/* The scratch of the logistic weights, max(m, m_v), made on first use; a
 * failed allocation leaves NaN gradients, which the caller refuses. */
static double *weights_scratch(ls_sto_ws *w)
{
    const ls_data *d = w->d;
    size_t m = (size_t)d->m, mv = d->vset ? (size_t)d->vset->m : 0;
    if (!w->scratch)
        w->scratch = malloc((m > mv ? m : mv) * sizeof *w->scratch);
    return w->scratch;
}

static void fill_nan(double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = NAN;
}

static void pt_grads(void *p, const double *y, const double *o, double *gf, double *gg)
{
    ls_sto_ws *w = p;
    const ls_data *d = w->d;
    const double *of = o + d->m;
    double *s = w->logistic ? weights_scratch(w) : NULL;
    if (w->logistic && !s) {
        fill_nan(gf, d->n);
        fill_nan(gg, d->n);
        return;
    }
    if (w->logistic) {
        lr_weights(d->b, o, NULL, d->m, s);
        ls_rmatvec(d, s, gg);
    } else {
        ls_rmatvec(d, o, gg);
    }
    if (w->logistic && d->outer == IRCG_OUTER_VALIDATION) {
        lr_weights(d->vset->b, of, NULL, d->vset->m, s);
        ls_rmatvec(d->vset, s, gf);
        return;
    }
    memset(gf, 0, (size_t)d->n * sizeof *gf);
    ls_f_grad_add(d, 1.0, y, of, gf);
}

static ircg_error pt_project(void *p, const double *y, double *out)
{
    const ls_sto_ws *w = p;
    return slv_domain_project(&w->d->dom, y, w->d->n, out);
}

static const double *pt_point(void *p, ircg_which which)
{
    const ls_sto_ws *w = p;
    return which == IRCG_Z ? w->z : w->x;
}

static void pt_set_point(void *p, ircg_which which, const double *y, double f, double g)
{
    ls_sto_ws *w = p;
    memcpy(which == IRCG_Z ? w->z : w->x, y, (size_t)w->d->n * sizeof *y);
    w->have_v = 0;
    if (which == IRCG_Z)
        w->f_z = f, w->g_z = g;
    else
        w->f_x = f, w->g_x = g;
}

const slv_point_ops slv_ls_point = {
    .dim = pt_dim,
    .obs_len = pt_obs_len,
    .observe = pt_observe,
    .values = pt_values,
    .grads = pt_grads,
    .project = pt_project,
    .point = pt_point,
    .set_point = pt_set_point,
};
