/*
 * solver.c -- IR-CG, Algorithm 1 of the paper:
 *
 *   sigma_t = varsigma (t+1)^(-p)
 *   v_t     = argmin_{v in X} <sigma_t grad f(x_t) + grad g(x_t), v>
 *   x_{t+1} = x_t + alpha_t (v_t - x_t)
 *   S_{t+1} = S_t + 2(t+1) sigma_t                            (Remark 1)
 *   z_{t+1} = (S_t z_t - (t+1)t sigma_t x_t + (t+2)(t+1) sigma_t x_{t+1})
 *             / S_{t+1}
 *
 * with S_0 = 0, so z_1 = x_1.  The loop only sees scalars from the problem's
 * oracle (oracle.h); how x and z are stored is the oracle's business.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "reference.h"
#include "solver_internal.h"

#define CKPT_MAGIC 0x31504b4347524931ULL /* "IRCGCKP1" little-endian */
#define CKPT_VERSION 1

double ircg_step_size(ircg_step_rule rule, int64_t t, double sigma,
                      const ircg_dir *d, double L_f, double L_g)
{
    double num = -d->gphi_d, den;
    switch (rule) {
    case IRCG_STEP_OPEN_LOOP:
        return 2.0 / (double)(t + 2);
    case IRCG_STEP_CLOSED_LOOP:
        den = (sigma * L_f + L_g) * d->d_norm2;
        break;
    case IRCG_STEP_LINE_SEARCH:
    default:
        /* Phi is quadratic along d: the exact minimizer on [0, 1]. */
        den = sigma * d->d_hf_d + d->d_hg_d;
        break;
    }
    if (!(num > 0))
        return 0.0; /* v_t - x_t is not a descent direction: stay */
    if (!(den > 0) || num >= den)
        return 1.0;
    return num / den;
}

static ircg_error check_reference(const ircg_problem *pb, const ircg_reference *ref,
                                  ircg_diag *diag)
{
    if (ref && ref->residual && ref->n != pb->info.n_observed)
        return ircg_fail(diag, IRCG_ERR_INVALID, "/reference",
                         "the reference was computed for another problem "
                         "(%lld residuals, expected %lld)", (long long)ref->n,
                         (long long)pb->info.n_observed);
    return IRCG_OK;
}

ircg_error ircg_solver_new(const ircg_problem *pb, const ircg_settings *s,
                           ircg_solver **out, ircg_diag *diag)
{
    ircg_error err;
    double t0 = ircg_now();
    ircg_solver *sv = NULL;

    *out = NULL;
    if (!pb)
        return ircg_fail(diag, IRCG_ERR_INVALID, "", "problem is NULL");
    if ((err = ircg_settings_validate(s, diag)) != IRCG_OK)
        return err;
    if ((err = check_reference(pb, s->reference, diag)) != IRCG_OK)
        return err;
    sv = calloc(1, sizeof *sv);
    if (!sv)
        return ircg_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    sv->pb = pb;
    sv->set = *s;
    sv->set.x0 = NULL; /* borrowed only for the duration of this call */
    err = pb->ops->create(pb, s, &sv->ws, diag);
    if (err != IRCG_OK)
        goto fail;
    sv->last_gap = NAN;
    sv->last_sigma = NAN;
    ircg_solver_refresh_values(sv);
    sv->setup_seconds = ircg_now() - t0;
    *out = sv;
    return IRCG_OK;
fail:
    ircg_solver_free(sv);
    return err;
}

void ircg_solver_free(ircg_solver *sv)
{
    if (!sv)
        return;
    if (sv->ws)
        sv->pb->ops->destroy(sv->ws);
    free(sv);
}

ircg_settings *ircg_solver_settings(ircg_solver *sv) { return &sv->set; }

/* g, f at x and z, and g - g_opt: termwise against the reference residual
 * when there is one, else by subtraction from a known value. */
void ircg_solver_refresh_values(ircg_solver *sv)
{
    const ircg_reference *ref = sv->set.reference;
    const double *rres = ref ? ref->residual : NULL;
    double g_opt = ref ? ref->info.g_opt : sv->set.g_opt;

    memset(&sv->vals, 0, sizeof sv->vals);
    sv->pb->ops->values(sv->ws, rres, &sv->vals);
    if (!rres) {
        sv->vals.g_gap_x = sv->vals.g_x - g_opt; /* NaN when unknown */
        sv->vals.g_gap_z = sv->vals.g_z - g_opt;
    }
}

static void fill_info(const ircg_solver *sv, ircg_status st, double elapsed,
                      ircg_info *info)
{
    info->status = st;
    info->iterations = sv->t;
    info->setup_seconds = sv->setup_seconds;
    info->solve_seconds = elapsed;
    info->lmo_seconds = sv->lmo_seconds;
    info->lmo_matvecs = sv->lmo_matvecs;
    info->g_x = sv->vals.g_x;
    info->f_x = sv->vals.f_x;
    info->g_z = sv->vals.g_z;
    info->f_z = sv->vals.f_z;
    info->g_gap_x = sv->vals.g_gap_x;
    info->g_gap_z = sv->vals.g_gap_z;
    info->gap = sv->last_gap;
    info->sigma = sv->last_sigma;
    info->rank = sv->vals.rank;
}

/* Stopping rules checked before each iteration. */
static ircg_status should_stop(const ircg_solver *sv, double elapsed)
{
    if (sv->t >= sv->set.max_iter)
        return IRCG_STATUS_MAX_ITER;
    if (sv->set.cancel && __atomic_load_n(sv->set.cancel, __ATOMIC_RELAXED))
        return IRCG_STATUS_CANCELLED;
    if (sv->set.time_limit > 0 && elapsed >= sv->set.time_limit)
        return IRCG_STATUS_TIME_LIMIT;
    return IRCG_STATUS_UNSOLVED;
}

/* One iteration t -> t+1; fills it (except elapsed) for the callback. */
static ircg_error iterate_once(ircg_solver *sv, ircg_iter_info *it, int *converged)
{
    const ircg_problem_info *pi = &sv->pb->info;
    int64_t t = sv->t;
    double sigma = ircg_sigma(sv->set.varsigma, sv->set.p, t);
    ircg_dir dir = {0};
    double t0 = ircg_now();
    ircg_error err = sv->pb->ops->lmo(sv->ws, sigma, &dir);
    double lmo_s = ircg_now() - t0;

    if (err != IRCG_OK)
        return err;
    sv->lmo_seconds += lmo_s;
    sv->lmo_matvecs += dir.matvecs;
    sv->last_gap = -dir.gphi_d;
    sv->last_sigma = sigma;
    if (sv->set.gap_tol > 0 && sv->last_gap <= sv->set.gap_tol) {
        *converged = 1;
        return IRCG_OK;
    }
    double alpha = ircg_step_size(sv->set.step_rule, t, sigma, &dir, pi->L_f, pi->L_g);
    double tp1 = (double)(t + 1);
    double S_next = sv->S + 2.0 * tp1 * sigma;
    double cz = sv->S / S_next;
    double cx_old = -tp1 * (double)t * sigma / S_next;
    double cx_new = (tp1 + 1.0) * tp1 * sigma / S_next;
    err = sv->pb->ops->step(sv->ws, alpha, cz, cx_old, cx_new);
    if (err != IRCG_OK)
        return err;
    sv->S = S_next;
    sv->t = t + 1;
    ircg_solver_refresh_values(sv);
    if (!isfinite(sv->vals.g_x) || !isfinite(sv->vals.f_x))
        return IRCG_ERR_NUMERICAL;

    *it = (ircg_iter_info){
        .t = sv->t, .sigma = sigma, .alpha = alpha,
        .g_x = sv->vals.g_x, .f_x = sv->vals.f_x,
        .g_z = sv->vals.g_z, .f_z = sv->vals.f_z, .gap = sv->last_gap,
        .g_gap_x = sv->vals.g_gap_x, .g_gap_z = sv->vals.g_gap_z,
        .lmo_seconds = lmo_s, .lmo_matvecs = dir.matvecs,
        .top_sv = dir.top_sv, .rank = sv->vals.rank,
    };
    return IRCG_OK;
}

ircg_error ircg_solve(ircg_solver *sv, ircg_info *info)
{
    ircg_error err = IRCG_OK;
    ircg_status st = IRCG_STATUS_UNSOLVED;
    double start = ircg_now() - sv->elapsed; /* resume the clock */
    double elapsed = sv->elapsed;

    if ((err = ircg_settings_validate(&sv->set, NULL)) != IRCG_OK)
        goto done;
    while ((st = should_stop(sv, elapsed)) == IRCG_STATUS_UNSOLVED) {
        ircg_iter_info it;
        int converged = 0;
        err = iterate_once(sv, &it, &converged);
        elapsed = ircg_now() - start;
        if (err != IRCG_OK)
            break;
        if (converged) {
            st = IRCG_STATUS_CONVERGED;
            break;
        }
        it.elapsed = elapsed;
        if (sv->set.callback && sv->set.callback(sv->set.callback_data, &it)) {
            st = IRCG_STATUS_INTERRUPTED;
            break;
        }
    }
done:
    sv->elapsed = elapsed;
    if (info)
        fill_info(sv, err == IRCG_OK ? st : IRCG_STATUS_UNSOLVED, elapsed, info);
    return err;
}

ircg_error ircg_solver_iterate(const ircg_solver *sv, ircg_which which,
                               int want_dense, ircg_iterate **out)
{
    return sv->pb->ops->iterate(sv->ws, which, want_dense, out);
}

void ircg_iterate_free(ircg_iterate *it)
{
    if (!it)
        return;
    free(it->dense);
    free(it->x0_diag);
    free(it->w);
    free(it->P);
    free(it->Q);
    free(it);
}

/* Checkpoint layout: magic, version, problem kind, dim, n_observed, the
 * loop's state (t, S_t, elapsed, LMO totals, last gap and sigma), then the
 * oracle's own state. */
ircg_error ircg_solver_save(const ircg_solver *sv, void **blob, size_t *len)
{
    ircg_buf b = {0};
    const ircg_problem_info *pi = &sv->pb->info;
    ircg_error err;

    *blob = NULL;
    *len = 0;
    ircg_buf_put_u64(&b, CKPT_MAGIC);
    ircg_buf_put_u64(&b, CKPT_VERSION);
    ircg_buf_put_u64(&b, (uint64_t)pi->kind);
    ircg_buf_put_i64(&b, pi->dim);
    ircg_buf_put_i64(&b, pi->n_observed);
    ircg_buf_put_i64(&b, sv->t);
    ircg_buf_put_f64(&b, sv->S);
    ircg_buf_put_f64(&b, sv->elapsed);
    ircg_buf_put_f64(&b, sv->lmo_seconds);
    ircg_buf_put_i64(&b, sv->lmo_matvecs);
    ircg_buf_put_f64(&b, sv->last_gap);
    ircg_buf_put_f64(&b, sv->last_sigma);
    err = sv->pb->ops->save(sv->ws, &b);
    if (err == IRCG_OK && b.failed)
        err = IRCG_ERR_NOMEM;
    if (err != IRCG_OK) {
        ircg_buf_free(&b);
        return err;
    }
    *blob = b.data;
    *len = b.len;
    return IRCG_OK;
}

ircg_error ircg_solver_restore(ircg_solver *sv, const void *blob, size_t len,
                               ircg_diag *diag)
{
    ircg_rbuf r = {blob, len, 0, 0};
    const ircg_problem_info *pi = &sv->pb->info;

    if (ircg_rbuf_u64(&r) != CKPT_MAGIC)
        return ircg_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "not an ircg checkpoint");
    if (ircg_rbuf_u64(&r) != CKPT_VERSION)
        return ircg_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "unsupported checkpoint version");
    uint64_t kind = ircg_rbuf_u64(&r);
    int64_t dim = ircg_rbuf_i64(&r), nobs = ircg_rbuf_i64(&r);
    if (r.failed || kind != (uint64_t)pi->kind || dim != pi->dim ||
        nobs != pi->n_observed)
        return ircg_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "checkpoint is for another problem (dim %lld, %lld "
                         "observations; expected %lld, %lld)", (long long)dim,
                         (long long)nobs, (long long)pi->dim,
                         (long long)pi->n_observed);
    int64_t t = ircg_rbuf_i64(&r);
    double S = ircg_rbuf_f64(&r), elapsed = ircg_rbuf_f64(&r);
    double lmo_s = ircg_rbuf_f64(&r);
    int64_t mv = ircg_rbuf_i64(&r);
    double gap = ircg_rbuf_f64(&r), sigma = ircg_rbuf_f64(&r);
    if (r.failed || t < 0 || !(S >= 0) || !(elapsed >= 0))
        return ircg_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "checkpoint header is corrupt");
    ircg_error err = sv->pb->ops->restore(sv->ws, &r, diag);
    if (err != IRCG_OK)
        return err;
    if (r.failed || r.pos != r.len)
        return ircg_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "checkpoint is truncated or has trailing bytes");
    sv->t = t;
    sv->S = S;
    sv->elapsed = elapsed;
    sv->lmo_seconds = lmo_s;
    sv->lmo_matvecs = mv;
    sv->last_gap = gap;
    sv->last_sigma = sigma;
    ircg_solver_refresh_values(sv);
    return IRCG_OK;
}
