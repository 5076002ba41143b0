/*
 * solver.c -- the loop every algorithm shares (stopping rules, clock,
 * objective values, callback) and the solver's life cycle and checkpoints.
 * The algorithms themselves live in alg_*.c (solver_internal.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/oracle.h"
#include "reference/reference.h"
#include "core/solver_internal.h"

#define CKPT_MAGIC 0x31504b4347524931ULL /* "IRCGCKP1" little-endian */
#define CKPT_VERSION 2 /* 2 adds the algorithm and CG-BiO's warm start */

static const slv_alg *alg_of(ircg_algorithm a)
{
    switch (a) {
    case IRCG_ALG_CGBIO: return &slv_alg_cgbio;
    case IRCG_ALG_IRPG: return &slv_alg_irpg;
    case IRCG_ALG_BISG: return &slv_alg_bisg;
    case IRCG_ALG_IRCG:
    default: return &slv_alg_ircg;
    }
}

static int is_projection_method(ircg_algorithm a)
{
    return a == IRCG_ALG_IRPG || a == IRCG_ALG_BISG;
}

static ircg_error check_reference(const ircg_problem *pb, const ircg_reference *ref,
                                  ircg_diag *diag)
{
    if (ref && ref->residual && ref->n != pb->info.n_observed)
        return slv_fail(diag, IRCG_ERR_INVALID, "/reference",
                         "the reference was computed for another problem "
                         "(%lld residuals, expected %lld)", (long long)ref->n,
                         (long long)pb->info.n_observed);
    return IRCG_OK;
}

ircg_error ircg_solver_new(const ircg_problem *pb, const ircg_settings *s,
                           ircg_solver **out, ircg_diag *diag)
{
    ircg_error err;
    double t0 = slv_now();
    ircg_solver *sv = NULL;

    *out = NULL;
    if (!pb)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "problem is NULL");
    if ((err = ircg_settings_validate(s, diag)) != IRCG_OK)
        return err;
    if ((err = check_reference(pb, s->reference, diag)) != IRCG_OK)
        return err;
    if (s->lmo_engine == IRCG_LMO_ARPACK &&
        pb->info.domain.kind != IRCG_DOMAIN_NUCLEAR_BALL)
        return slv_fail(diag, IRCG_ERR_INVALID, "/lmo_engine",
                         "the ARPACK engine computes singular pairs: it applies to "
                         "the nuclear ball (matrix completion) only");
    if (s->algorithm == IRCG_ALG_BISG && s->bisg_step == 0 && !(pb->info.L_g > 0))
        return slv_fail(diag, IRCG_ERR_INVALID, "/bisg_step",
                         "L_g = 0 (g is constant), so the default inner step 1/L_g "
                         "is undefined: give bisg_step > 0");
    sv = calloc(1, sizeof *sv);
    if (!sv)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    sv->pb = pb;
    sv->ops = is_projection_method(s->algorithm) ? pb->prox_ops : pb->ops;
    sv->algorithm = s->algorithm;
    sv->set = *s;
    sv->set.x0 = NULL; /* borrowed only for the duration of this call */
    err = sv->ops->create(pb, s, &sv->ws, diag);
    if (err != IRCG_OK)
        goto fail;
    sv->last_gap = NAN;
    sv->last_sigma = NAN;
    slv_solver_refresh_values(sv);
    sv->setup_seconds = slv_now() - t0;
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
        sv->ops->destroy(sv->ws);
    free(sv->cut_ref);
    free(sv);
}

ircg_settings *ircg_solver_settings(ircg_solver *sv) { return &sv->set; }

/* g, f at x and z, and g - g_opt: termwise against the reference residual
 * when there is one, else by subtraction from a known value. */
void slv_solver_refresh_values(ircg_solver *sv)
{
    const ircg_reference *ref = sv->set.reference;
    const double *rres = ref ? ref->residual : NULL;
    double g_opt = ref ? ref->info.g_opt : sv->set.g_opt;

    memset(&sv->vals, 0, sizeof sv->vals);
    sv->ops->values(sv->ws, rres, &sv->vals);
    if (!rres) {
        sv->vals.g_gap_x = sv->vals.g_x - g_opt; /* NaN when unknown */
        sv->vals.g_gap_z = sv->vals.g_z - g_opt;
    }
}

static void fill_info(const ircg_solver *sv, ircg_status st, double elapsed,
                      ircg_info *info)
{
    *info = (ircg_info){
        .status = st, .iterations = sv->t,
        .setup_seconds = sv->setup_seconds, .solve_seconds = elapsed,
        .lmo_seconds = sv->lmo_seconds, .lmo_matvecs = sv->lmo_matvecs,
        .g_x = sv->vals.g_x, .f_x = sv->vals.f_x,
        .g_z = sv->vals.g_z, .f_z = sv->vals.f_z,
        .g_gap_x = sv->vals.g_gap_x, .g_gap_z = sv->vals.g_gap_z,
        .gap = sv->last_gap, .sigma = sv->last_sigma, .rank = sv->vals.rank,
        .lmo_unconverged = sv->lmo_unconverged,
        .proj_partial = sv->proj_partial, .proj_full = sv->proj_full,
        .warmup_iterations = sv->warmup_iterations,
        .warmup_seconds = sv->warmup_seconds,
    };
}

ircg_status slv_solver_should_stop(const ircg_solver *sv, double elapsed)
{
    if (sv->t >= sv->set.max_iter)
        return IRCG_STATUS_MAX_ITER;
    if (sv->set.cancel && __atomic_load_n(sv->set.cancel, __ATOMIC_RELAXED))
        return IRCG_STATUS_CANCELLED;
    if (sv->set.time_limit > 0 && elapsed >= sv->set.time_limit)
        return IRCG_STATUS_TIME_LIMIT;
    return IRCG_STATUS_UNSOLVED;
}

/* One iteration of the algorithm, then the values the callback sees. */
static ircg_error step_once(ircg_solver *sv, const slv_alg *alg,
                            ircg_iter_info *it, int *converged)
{
    *it = (ircg_iter_info){.sigma = NAN, .alpha = NAN, .gap = NAN,
                           .top_sv = NAN, .lambda = NAN, .lmo_converged = 1};
    ircg_error err = alg->iterate(sv, it, converged);
    if (err != IRCG_OK)
        return err;
    sv->lmo_seconds += it->lmo_seconds;
    sv->lmo_matvecs += it->lmo_matvecs;
    sv->lmo_unconverged += !it->lmo_converged;
    sv->last_gap = it->gap;
    sv->last_sigma = it->sigma;
    if (*converged)
        return IRCG_OK;
    slv_solver_refresh_values(sv);
    if (!isfinite(sv->vals.g_x) || !isfinite(sv->vals.f_x))
        return IRCG_ERR_NUMERICAL;
    it->t = sv->t;
    it->g_x = sv->vals.g_x;
    it->f_x = sv->vals.f_x;
    it->g_z = sv->vals.g_z;
    it->f_z = sv->vals.f_z;
    it->g_gap_x = sv->vals.g_gap_x;
    it->g_gap_z = sv->vals.g_gap_z;
    it->rank = sv->vals.rank;
    return IRCG_OK;
}

/* Settings may change between solves (max_iter, time_limit, ...), but the
 * algorithm chose the workspace, and the start was placed by
 * ircg_solver_new (x0 is no longer held). */
static ircg_error check_live_settings(const ircg_solver *sv)
{
    ircg_settings s = sv->set;
    if (s.algorithm != sv->algorithm)
        return IRCG_ERR_INVALID;
    s.start = IRCG_START_DEFAULT;
    return ircg_settings_validate(&s, NULL);
}

ircg_error ircg_solve(ircg_solver *sv, ircg_info *info)
{
    const slv_alg *alg = alg_of(sv->algorithm);
    ircg_error err = IRCG_OK;
    ircg_status st = IRCG_STATUS_UNSOLVED;
    double start = slv_now() - sv->elapsed; /* resume the clock */
    double elapsed = sv->elapsed;

    if ((err = check_live_settings(sv)) != IRCG_OK)
        goto done;
    if (alg->prepare) {
        err = alg->prepare(sv, start, &st);
        elapsed = slv_now() - start;
        if (err != IRCG_OK || st != IRCG_STATUS_UNSOLVED)
            goto done;
    }
    while ((st = slv_solver_should_stop(sv, elapsed)) == IRCG_STATUS_UNSOLVED) {
        ircg_iter_info it;
        int converged = 0;
        err = step_once(sv, alg, &it, &converged);
        elapsed = slv_now() - start;
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
    return sv->ops->iterate(sv->ws, which, want_dense, out);
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
 * oracle's own state; version 2 adds, before the oracle's state, the
 * algorithm and CG-BiO's warm start (done flag, its iterations and seconds,
 * r(x'_0) when done).  Version 1 (IR-CG only) is still read. */
ircg_error ircg_solver_save(const ircg_solver *sv, void **blob, size_t *len)
{
    slv_buf b = {0};
    const ircg_problem_info *pi = &sv->pb->info;
    ircg_error err;

    *blob = NULL;
    *len = 0;
    slv_buf_put_u64(&b, CKPT_MAGIC);
    slv_buf_put_u64(&b, CKPT_VERSION);
    slv_buf_put_u64(&b, (uint64_t)pi->kind);
    slv_buf_put_i64(&b, pi->dim);
    slv_buf_put_i64(&b, pi->n_observed);
    slv_buf_put_i64(&b, sv->t);
    slv_buf_put_f64(&b, sv->S);
    slv_buf_put_f64(&b, sv->elapsed);
    slv_buf_put_f64(&b, sv->lmo_seconds);
    slv_buf_put_i64(&b, sv->lmo_matvecs);
    slv_buf_put_f64(&b, sv->last_gap);
    slv_buf_put_f64(&b, sv->last_sigma);
    slv_buf_put_u64(&b, (uint64_t)sv->algorithm);
    slv_buf_put_i64(&b, sv->lmo_unconverged);
    slv_buf_put_i64(&b, sv->proj_partial);
    slv_buf_put_i64(&b, sv->proj_full);
    slv_buf_put_u64(&b, (uint64_t)sv->warm_done);
    slv_buf_put_i64(&b, sv->warmup_iterations);
    slv_buf_put_f64(&b, sv->warmup_seconds);
    if (sv->warm_done && sv->cut_ref)
        slv_buf_put_f64s(&b, sv->cut_ref, (size_t)pi->n_observed);
    err = sv->ops->save(sv->ws, &b);
    if (err == IRCG_OK && b.failed)
        err = IRCG_ERR_NOMEM;
    if (err != IRCG_OK) {
        slv_buf_free(&b);
        return err;
    }
    *blob = b.data;
    *len = b.len;
    return IRCG_OK;
}

static ircg_error corrupt(ircg_diag *diag)
{
    return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                     "checkpoint header is corrupt");
}

/* Version 2's members after the common header; into sv only on success. */
static ircg_error restore_v2(ircg_solver *sv, slv_rbuf *r, ircg_diag *diag,
                             ircg_solver *tmp)
{
    const ircg_problem_info *pi = &sv->pb->info;
    uint64_t alg = slv_rbuf_u64(r);

    tmp->lmo_unconverged = slv_rbuf_i64(r);
    tmp->proj_partial = slv_rbuf_i64(r);
    tmp->proj_full = slv_rbuf_i64(r);
    uint64_t warm_done = slv_rbuf_u64(r);
    tmp->warm_done = warm_done == 1;
    tmp->warmup_iterations = slv_rbuf_i64(r);
    tmp->warmup_seconds = slv_rbuf_f64(r);
    /* counts are never negative: a negative warm-up count kept CG-BiO's
     * warm start going for 2^42 steps (found by fuzzing:
     * tests/fuzz/regress/checkpoint/cgbio_negative_warmup.bin) */
    if (r->failed || warm_done > 1 || tmp->lmo_unconverged < 0 || tmp->proj_partial < 0 ||
        tmp->proj_full < 0 || tmp->warmup_iterations < 0 || !(tmp->warmup_seconds >= 0))
        return corrupt(diag);
    if (alg != (uint64_t)sv->algorithm)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "checkpoint was made by another algorithm (%llu, "
                         "this solver runs %d)", (unsigned long long)alg,
                         (int)sv->algorithm);
    if (tmp->warm_done && sv->algorithm == IRCG_ALG_CGBIO) {
        tmp->cut_ref = malloc((size_t)pi->n_observed * sizeof(double));
        if (!tmp->cut_ref)
            return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
        slv_rbuf_f64s(r, tmp->cut_ref, (size_t)pi->n_observed);
    }
    return r->failed ? corrupt(diag) : IRCG_OK;
}

ircg_error ircg_solver_restore(ircg_solver *sv, const void *blob, size_t len,
                               ircg_diag *diag)
{
    slv_rbuf r = {blob, len, 0, 0};
    const ircg_problem_info *pi = &sv->pb->info;
    ircg_solver tmp = {0};
    ircg_error err;

    if (slv_rbuf_u64(&r) != CKPT_MAGIC)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "not an ircg checkpoint");
    uint64_t version = slv_rbuf_u64(&r);
    if (version != 1 && version != CKPT_VERSION)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "unsupported checkpoint version");
    uint64_t kind = slv_rbuf_u64(&r);
    int64_t dim = slv_rbuf_i64(&r), nobs = slv_rbuf_i64(&r);
    if (r.failed || kind != (uint64_t)pi->kind || dim != pi->dim ||
        nobs != pi->n_observed)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "checkpoint is for another problem (dim %lld, %lld "
                         "observations; expected %lld, %lld)", (long long)dim,
                         (long long)nobs, (long long)pi->dim,
                         (long long)pi->n_observed);
    tmp.t = slv_rbuf_i64(&r);
    tmp.S = slv_rbuf_f64(&r);
    tmp.elapsed = slv_rbuf_f64(&r);
    tmp.lmo_seconds = slv_rbuf_f64(&r);
    tmp.lmo_matvecs = slv_rbuf_i64(&r);
    tmp.last_gap = slv_rbuf_f64(&r);
    tmp.last_sigma = slv_rbuf_f64(&r);
    if (r.failed || tmp.t < 0 || !(tmp.S >= 0) || !(tmp.elapsed >= 0))
        return corrupt(diag);
    if (version == 1 && sv->algorithm != IRCG_ALG_IRCG)
        return slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                         "a version 1 checkpoint holds an IR-CG state");
    if (version == CKPT_VERSION && (err = restore_v2(sv, &r, diag, &tmp)) != IRCG_OK)
        goto fail;
    if ((err = sv->ops->restore(sv->ws, &r, diag)) != IRCG_OK)
        goto fail;
    if (r.failed || r.pos != r.len) {
        err = slv_fail(diag, IRCG_ERR_INVALID, "/checkpoint",
                        "checkpoint is truncated or has trailing bytes");
        goto fail;
    }
    free(sv->cut_ref);
    tmp.pb = sv->pb;
    tmp.ops = sv->ops;
    tmp.algorithm = sv->algorithm;
    tmp.set = sv->set;
    tmp.ws = sv->ws;
    tmp.setup_seconds = sv->setup_seconds;
    *sv = tmp;
    slv_solver_refresh_values(sv);
    return IRCG_OK;
fail:
    free(tmp.cut_ref);
    return err;
}
