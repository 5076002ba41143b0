/*
 * reference.c -- the inner optimum g_opt = min_X g, as the paper computes
 * its reference values (Section 4): conditional gradient on g alone.  We use
 * the exact line search (closed form for the quadratic families, a 1-D
 * minimization for the curved ones), which reaches the paper's 1e-12
 * gap far sooner than the open-loop step, and stop on the Frank-Wolfe gap
 *   gap(x) = <grad g(x), x - v> >= g(x) - g_opt,
 * which certifies the result, up to its rounding floor (ircg.h says how the
 * floor, the certificate and the stopping rules are defined).  The best
 * Wolfe lower bound max_t g(x_t) - gap_t is kept too.
 *
 * On a distributed problem (pb->comm) it runs on every rank at once: the
 * oracle's values and LMO reduce their sums through the communicator, so
 * every rank takes the same steps; the cancel flag and the clock are put
 * to a vote; the residual kept is this rank's rows.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "reference/reference.h"
#include "core/solver_internal.h"

/* Ulps of the scale of the cancelling terms that bound the rounding error
 * of the computed gap (measured up to 3.5 on MovieLens, see ircg.h). */
#define GAP_FLOOR_ULPS 8.0
/* Further LMO calls when one stops at its product limit: each continues
 * from the last Ritz vector. */
#define LMO_RETRIES 4
/* Stalled: no new smallest raw gap over max(STALL_MIN, t / STALL_DIV). */
#define STALL_MIN 100
#define STALL_DIV 4

void ircg_reference_settings_default(ircg_reference_settings *s)
{
    *s = (ircg_reference_settings){0};
    s->tol = 1e-9;
    s->max_iter = 100000;
    s->time_limit = 0;
    s->lmo_tol = 1e-12;
    s->threads = 1;
}

static ircg_error validate(const ircg_reference_settings *s, ircg_diag *diag)
{
    if (!isfinite(s->tol) || s->tol <= 0)
        return slv_fail(diag, IRCG_ERR_INVALID, "/tol",
                         "tol must be a finite number > 0, got %g", s->tol);
    if (s->max_iter < 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/max_iter",
                         "max_iter must be >= 1, got %lld", (long long)s->max_iter);
    if (isnan(s->time_limit) || s->time_limit < 0)
        return slv_fail(diag, IRCG_ERR_INVALID, "/time_limit",
                         "time_limit must be >= 0 seconds, got %g", s->time_limit);
    if (!isfinite(s->lmo_tol) || s->lmo_tol <= 0 || s->lmo_tol >= 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/lmo_tol",
                         "lmo_tol must lie in (0, 1), got %g", s->lmo_tol);
    if (s->threads < 1 || s->threads > 64)
        return slv_fail(diag, IRCG_ERR_INVALID, "/threads",
                         "threads must lie in [1, 64], got %d", s->threads);
    return IRCG_OK;
}

/* The LMO for grad g, retried while it stops short of lmo_tol. */
static ircg_error lmo_converged(const slv_oracle_ops *ops, void *ws, slv_dir *dir)
{
    ircg_error err = IRCG_OK;
    for (int r = 0; r <= LMO_RETRIES; r++) {
        memset(dir, 0, sizeof *dir);
        dir->need_hg = 1; /* the exact line search */
        if ((err = ops->lmo(ws, 0.0, dir)) != IRCG_OK || dir->converged)
            break;
    }
    return err;
}

/* Cancelled or out of time; on a distributed problem put to a vote, so
 * that every rank stops at the same iteration (collective). */
static ircg_status interrupted(const ircg_problem *pb, const ircg_reference_settings *s,
                               double t0)
{
    int due = slv_stop_due(); /* the thread's stops and this run's own */
    int cancel = due == SLV_STOP_CANCEL ||
                 (s->cancel && __atomic_load_n(s->cancel, __ATOMIC_RELAXED));
    int late = due == SLV_STOP_DEADLINE || (s->time_limit > 0 && slv_now() - t0 >= s->time_limit);
    return slv_comm_vote(pb->comm, cancel, late);
}

/* The LMO at the current iterate was cut short by the thread's stop
 * (between two of its products): the iterate's g is known, its gap is
 * not, and g - lower_bound (the bound of the LMOs before) certifies it. */
static void stopped_in_lmo(const slv_oracle_ops *ops, void *ws, int64_t t,
                           ircg_reference_info *info)
{
    slv_values v = {0};
    ops->values(ws, NULL, &v);
    info->g_opt = v.g_x;
    info->f_x = v.f_x;
    info->gap = isfinite(info->lower_bound) ? fmax(v.g_x - info->lower_bound, 0.0) +
                                                  info->gap_floor
                                            : INFINITY;
    info->iterations = t;
    info->lmo_converged = 0;
    info->status = slv_stop_due() == SLV_STOP_CANCEL ? IRCG_STATUS_CANCELLED
                                                     : IRCG_STATUS_TIME_LIMIT;
}

/* Frank-Wolfe with exact line search on g from the default start point. */
static ircg_error run_cg(const ircg_problem *pb, const ircg_reference_settings *s,
                         void *ws, ircg_reference_info *info)
{
    const slv_oracle_ops *ops = pb->ops;
    double t0 = slv_now(), best_raw = INFINITY;
    int64_t t_best = 0;
    slv_values v = {0};
    ircg_error err = IRCG_OK;

    info->status = IRCG_STATUS_MAX_ITER;
    info->lower_bound = -INFINITY;
    for (int64_t t = 0;; t++) {
        slv_dir dir;
        if ((err = lmo_converged(ops, ws, &dir)) == IRCG_ERR_STOPPED) {
            stopped_in_lmo(ops, ws, t, info);
            break;
        }
        if (err != IRCG_OK)
            return err;
        memset(&v, 0, sizeof v);
        ops->values(ws, NULL, &v);
        double raw = -dir.gphi_d;
        double floor = GAP_FLOOR_ULPS * DBL_EPSILON * dir.gphi_scale;
        double cert = fmax(raw, 0.0) + floor;
        info->g_opt = v.g_x;
        info->f_x = v.f_x;
        info->gap = cert;
        info->gap_floor = floor;
        info->iterations = t;
        info->top_sv = dir.top_sv;
        info->lmo_converged = dir.converged;
        if (dir.converged) {
            if (v.g_x - cert > info->lower_bound)
                info->lower_bound = v.g_x - cert;
            if (cert <= s->tol || raw <= floor) {
                info->status = IRCG_STATUS_CONVERGED;
                break;
            }
            if (raw < best_raw) {
                best_raw = raw;
                t_best = t;
            }
            int64_t window = t / STALL_DIV > STALL_MIN ? t / STALL_DIV : STALL_MIN;
            if (t - t_best >= window) {
                info->status = IRCG_STATUS_STALLED;
                break;
            }
        }
        if (t >= s->max_iter)
            break;
        ircg_status stop = interrupted(pb, s, t0);
        if (stop != IRCG_STATUS_UNSOLVED) {
            info->status = stop;
            break;
        }
        double alpha = slv_step(ops, ws, IRCG_STEP_LINE_SEARCH, t, 0.0, &dir,
                                pb->info.L_f, pb->info.L_g);
        if (ops->plan_lmo) /* the next LMO, from this vertex */
            ops->plan_lmo(ws, 0.0);
        if ((err = ops->step(ws, alpha, 0.0, 0.0, 1.0)) != IRCG_OK)
            return err;
    }
    info->seconds = slv_now() - t0;
    return IRCG_OK;
}

/* The certificate of a single inner solution at the final iterate (only
 * meaningful when the run's gap is small: the bound grows like its root). */
static void certify(const ircg_problem *pb, void *ws, ircg_reference_info *info)
{
    slv_unique u;
    if (pb->ops->certify_unique(ws, &u) != IRCG_OK)
        return; /* unique stays -1: not computed */
    info->cert_sv1 = u.sv1;
    info->cert_sv2 = u.sv2;
    info->unique_bound = u.bound;
    info->unique_margin = u.margin;
    info->unique_dist = u.dist;
    info->unique_rounding = u.sv_error + u.grad_rounding;
    info->unique = u.margin > 0;
    info->f_vertex = u.f_vertex;
}

static ircg_error compute(const ircg_problem *pb, const ircg_reference_settings *s,
                          ircg_reference **out, ircg_diag *diag)
{
    ircg_settings st;
    ircg_reference *ref = NULL;
    void *ws = NULL;
    ircg_error err;

    ircg_settings_default(&st);
    st.lmo_tol = s->lmo_tol;
    st.threads = s->threads;
    st.step_rule = IRCG_STEP_LINE_SEARCH;
    ref = calloc(1, sizeof *ref);
    if (!ref)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    ref->info.top_sv = ref->info.second_sv = NAN;
    if ((err = pb->ops->create(pb, &st, &ws, diag)) != IRCG_OK)
        goto fail;
    if ((err = run_cg(pb, s, ws, &ref->info)) != IRCG_OK) {
        slv_fail(diag, err, "", "the inner solve failed: %s", ircg_error_string(err));
        goto fail;
    }
    ref->info.unique = -1;
    ref->info.unique_margin = ref->info.unique_bound = NAN;
    ref->info.cert_sv1 = ref->info.cert_sv2 = NAN;
    ref->info.unique_dist = ref->info.unique_rounding = NAN;
    ref->info.f_vertex = NAN;
    if (s->certify_unique && pb->ops->certify_unique && slv_stop_due() == SLV_GO)
        certify(pb, ws, &ref->info);
    if (pb->ops->grad_singular_values) {
        double sv[2];
        if (pb->ops->grad_singular_values(ws, 2, sv) == IRCG_OK) {
            ref->info.top_sv = sv[0];
            ref->info.second_sv = sv[1];
        }
    }
    ref->n = pb->info.n_observed;
    ref->residual = malloc((size_t)ref->n * sizeof *ref->residual);
    const double *r = pb->ops->residual(ws, IRCG_X);
    if (!ref->residual || !r) {
        err = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
        goto fail;
    }
    memcpy(ref->residual, r, (size_t)ref->n * sizeof *ref->residual);
    pb->ops->destroy(ws);
    *out = ref;
    return IRCG_OK;
fail:
    if (ws)
        pb->ops->destroy(ws);
    ircg_reference_free(ref);
    return err;
}

ircg_error ircg_reference_compute(const ircg_problem *pb,
                                  const ircg_reference_settings *s,
                                  ircg_reference **out, ircg_diag *diag)
{
    ircg_error err;
    slv_stop_frame own; /* cancel and time limit, for the LMO's products */

    *out = NULL;
    if (!pb || !s)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "problem or settings are NULL");
    if ((err = validate(s, diag)) != IRCG_OK)
        return err;
    /* a distributed run stops by its ranks' vote between iterations only */
    slv_stop_push(&own, pb->comm ? NULL : s->cancel,
                  !pb->comm && s->time_limit > 0 ? slv_now() + s->time_limit : 0);
    err = compute(pb, s, out, diag);
    slv_stop_pop(&own);
    return err;
}

ircg_reference *ircg_reference_from_value(double g_opt)
{
    ircg_reference *ref = calloc(1, sizeof *ref);
    if (!ref)
        return NULL;
    ref->info.g_opt = g_opt;
    ref->info.f_x = NAN;
    ref->info.gap = NAN;
    ref->info.gap_floor = NAN;
    ref->info.lower_bound = NAN;
    ref->info.top_sv = ref->info.second_sv = NAN;
    ref->info.status = IRCG_STATUS_UNSOLVED;
    ref->info.unique = -1;
    ref->info.unique_margin = ref->info.unique_bound = NAN;
    ref->info.cert_sv1 = ref->info.cert_sv2 = NAN;
    ref->info.unique_dist = ref->info.unique_rounding = NAN;
    ref->info.f_vertex = NAN;
    return ref;
}

void ircg_reference_get_info(const ircg_reference *ref, ircg_reference_info *info)
{
    *info = ref->info;
}

void ircg_reference_free(ircg_reference *ref)
{
    if (!ref)
        return;
    free(ref->residual);
    free(ref);
}
