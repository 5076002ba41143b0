/*
 * solver.c -- the loop every algorithm shares (stopping rules, clock,
 * objective values, callback) and the solver's life cycle; checkpoints
 * are in checkpoint.c.
 * The algorithms themselves live in alg_*.c (solver_internal.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "core/cert_async.h"
#include "core/oracle.h"
#include "reference/reference.h"
#include "core/solver_internal.h"

const slv_alg *slv_alg_of(ircg_algorithm a)
{
    switch (a) {
    case IRCG_ALG_CGBIO: return &slv_alg_cgbio;
    case IRCG_ALG_IRPG: return &slv_alg_irpg;
    case IRCG_ALG_BISG: return &slv_alg_bisg;
    case IRCG_ALG_IRSCG: return &slv_alg_irscg;
    case IRCG_ALG_IRFSCG: return &slv_alg_irfscg;
    case IRCG_ALG_FCBIO: return &slv_alg_fcbio;
    case IRCG_ALG_FCBIO_CG: return &slv_alg_fcbio_cg;
    case IRCG_ALG_TWOSTAGE: return &slv_alg_twostage;
    case IRCG_ALG_IRCG:
    default: return &slv_alg_ircg;
    }
}

int slv_alg_stochastic(ircg_algorithm a)
{
    return a == IRCG_ALG_IRSCG || a == IRCG_ALG_IRFSCG;
}

static const char *alg_label(ircg_algorithm a)
{
    static const char *const L[] = {"IR-CG", "CG-BiO", "IR-PG", "Bi-SG", "IR-SCG", "IR-FSCG",
                                    "FC-BiO", "FC-BiO-CG", "two-stage"};
    return (unsigned)a < sizeof L / sizeof L[0] ? L[a] : "this algorithm";
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

/* A distributed problem runs IR-CG from any start (a given x0 is the whole
 * matrix on every rank, factored once: mc_start.c), with the Lanczos
 * engine or the ARPACK one its communicator brings (top_eig).  A
 * computed reference is one of the same part (ircg_reference_compute on
 * this problem): its residual is this rank's rows, as check_reference
 * checks. */
static ircg_error check_distributed(const ircg_problem *pb, const ircg_settings *s,
                                    ircg_diag *diag)
{
    if (!pb->comm)
        return IRCG_OK;
    if (s->algorithm != IRCG_ALG_IRCG)
        return slv_fail(diag, IRCG_ERR_INVALID, "/algorithm",
                        "a distributed problem is solved by ircg only");
    if (s->lmo_engine == IRCG_LMO_ARPACK && !pb->comm->top_eig)
        return slv_fail(diag, IRCG_ERR_INVALID, "/lmo_engine",
                        "this distributed problem's communicator has no ARPACK "
                        "engine (top_eig): use the lanczos engine");
    return IRCG_OK;
}

/* FC-BiO moves points freely and projects them: the point oracle, which
 * the vector families and small matrix completions of one process offer
 * (a larger one is refused by its workspace, naming its size).  FC-BiO-CG weighs f and g along a direction through the
 * oracle's gf_d, which the quadratic families give (least squares,
 * matrix completion); logistic regression's directions are curved. */
static ircg_error check_bisection(const ircg_problem *pb, const ircg_settings *s,
                                  ircg_diag *diag)
{
    if (s->algorithm == IRCG_ALG_FCBIO && (!pb->point_ops || !pb->point))
        return slv_fail(diag, IRCG_ERR_INVALID, "/algorithm",
                        "FC-BiO projects onto X, which %s problems do not offer: "
                        "use FC-BiO-CG (conditional gradient inside)", pb->ops->name);
    if (s->algorithm == IRCG_ALG_TWOSTAGE &&
        (!pb->point_ops || !pb->point ||
         (!pb->affine && pb->info.kind != IRCG_PROBLEM_LOGISTIC)))
        return slv_fail(diag, IRCG_ERR_INVALID, "/algorithm",
                        "the two-stage method needs the inner solution set as an affine "
                        "section of X and a quadratic f (least squares over a vector "
                        "domain), or the curvature of logistic regression's g, not %s",
                        pb->ops->name);
    if (s->algorithm == IRCG_ALG_TWOSTAGE &&
        pb->info.n_cols > IRCG_TWOSTAGE_MAX_DIM)
        return slv_fail(diag, IRCG_ERR_INVALID, "/algorithm",
                        "the two-stage method factors dense n x n matrices: n = %d must "
                        "be at most %d", pb->info.n_cols, IRCG_TWOSTAGE_MAX_DIM);
    if (s->algorithm == IRCG_ALG_FCBIO_CG && pb->info.kind == IRCG_PROBLEM_LOGISTIC)
        return slv_fail(diag, IRCG_ERR_INVALID, "/algorithm",
                        "FC-BiO-CG needs f and g quadratic along a direction: use "
                        "FC-BiO for logistic regression");
    return IRCG_OK;
}

/* The bisection methods aim at settings.stop; a side it leaves out takes
 * the default tolerance (settings.h). */
static void complete_stop(ircg_solver *sv)
{
    ircg_stop *st = &sv->set.stop;
    if (slv_alg_of(sv->algorithm)->answer != IRCG_Z)
        return;
    if (!(st->inner_gap > 0) && !(st->inner_gap_rel > 0))
        st->inner_gap_rel = IRCG_BISECT_INNER_REL;
    if (!(st->outer_gap > 0) && !(st->outer_gap_rel > 0))
        st->outer_gap_rel = IRCG_BISECT_OUTER_REL;
}

/* IR-CG's away and pairwise directions: on the polytopes (faces.h) of
 * the families whose LMO takes them (settings.c checked the method and
 * the step rule). */
static ircg_error check_direction(const ircg_problem *pb, const ircg_settings *s,
                                  ircg_diag *diag)
{
    ircg_domain_kind k = pb->info.domain.kind;
    if (s->direction == IRCG_DIR_FRANK_WOLFE ||
        (pb->ops->directions && (k == IRCG_DOMAIN_L1_BALL || k == IRCG_DOMAIN_SIMPLEX ||
                                 k == IRCG_DOMAIN_BOX)))
        return IRCG_OK;
    return slv_fail(diag, IRCG_ERR_INVALID, "/direction",
                    "away and pairwise directions apply to least squares and logistic "
                    "regression over a polytope (l1 ball, simplex, box), not to %s over "
                    "this domain", pb->ops->name);
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
    if ((err = check_reference(pb, s->reference, diag)) != IRCG_OK ||
        (err = check_distributed(pb, s, diag)) != IRCG_OK ||
        (err = check_direction(pb, s, diag)) != IRCG_OK)
        return err;
    if ((s->algorithm == IRCG_ALG_CGBIO && !pb->cut) ||
        (is_projection_method(s->algorithm) && (!pb->prox_ops || !pb->proj)))
        return slv_fail(diag, IRCG_ERR_INVALID, "/algorithm",
                         "%s is not available for %s problems (IR-CG is)",
                         alg_label(s->algorithm), pb->ops->name);
    if (slv_alg_stochastic(s->algorithm) && (!pb->sto_ops || !pb->sto))
        return slv_fail(diag, IRCG_ERR_INVALID, "/algorithm",
                         "%s samples the rows of a finite sum (least squares, logistic "
                         "regression): it is not available for %s problems, whose "
                         "estimators would not stay cheap (IR-CG is)",
                         alg_label(s->algorithm), pb->ops->name);
    if ((err = check_bisection(pb, s, diag)) != IRCG_OK)
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
    sv->ops = is_projection_method(s->algorithm) ? pb->prox_ops
              : slv_alg_stochastic(s->algorithm) ? pb->sto_ops
              : s->algorithm == IRCG_ALG_FCBIO || s->algorithm == IRCG_ALG_TWOSTAGE
                  ? pb->point_ops
                  : pb->ops;
    sv->algorithm = s->algorithm;
    sv->set = *s;
    sv->set.x0 = NULL; /* borrowed only for the duration of this call */
    complete_stop(sv);
    if (!sv->ops) { /* the checks above refuse every such pair first */
        err = slv_fail(diag, IRCG_ERR_INVALID, "/algorithm",
                       "%s has no oracle on this problem", alg_label(s->algorithm));
        goto fail;
    }
    err = sv->ops->create(pb, s, &sv->ws, diag);
    if (err != IRCG_OK)
        goto fail;
    if (slv_alg_of(sv->algorithm)->init &&
        (err = slv_alg_of(sv->algorithm)->init(sv, diag)) != IRCG_OK)
        goto fail;
    sv->last_gap = NAN;
    sv->last_sigma = NAN;
    sv->varsigma = isnan(s->varsigma) ? s->varsigma_rel * ircg_varsigma_scale(pb) : s->varsigma;
    slv_bounds_init(&sv->bnd);
    sv->final = sv->bnd;
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
    if (sv->alg_state && slv_alg_of(sv->algorithm)->fini)
        slv_alg_of(sv->algorithm)->fini(sv);
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
    if (sv->ops->set_reference)
        sv->ops->set_reference(sv->ws, rres);
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
        .samples = sv->samples, .batch = sv->sto_batch, .q = sv->sto_q,
        .g_x = sv->vals.g_x, .f_x = sv->vals.f_x,
        .g_z = sv->vals.g_z, .f_z = sv->vals.f_z,
        .g_gap_x = sv->vals.g_gap_x, .g_gap_z = sv->vals.g_gap_z,
        .gap = sv->last_gap, .sigma = sv->last_sigma, .rank = sv->vals.rank,
        .lmo_unconverged = sv->lmo_unconverged,
        .proj_partial = sv->proj_partial, .proj_full = sv->proj_full,
        .warmup_iterations = sv->warmup_iterations,
        .warmup_seconds = sv->warmup_seconds, .threads = 1,
        .cert_thread_seconds = sv->ca_seconds,
    };
    if (sv->ops->traffic)
        sv->ops->traffic(sv->ws, &info->omega_passes, &info->omega_bytes,
                         &info->threads);
    slv_bounds_info(sv, st, info);
}

ircg_status slv_solver_should_stop(const ircg_solver *sv, double elapsed)
{
    if (sv->t >= sv->set.max_iter)
        return IRCG_STATUS_MAX_ITER; /* the same on every rank */
    /* the thread's stops outside ircg_solve's own frame: its time limit
     * is read off `elapsed` below, so the status and solve_seconds agree */
    int due = sv->outer_stop ? slv_stop_due_at(sv->outer_stop) : slv_stop_due();
    int cancel = due == SLV_STOP_CANCEL ||
                 (sv->set.cancel && __atomic_load_n(sv->set.cancel, __ATOMIC_RELAXED));
    int late = due == SLV_STOP_DEADLINE ||
               (sv->set.time_limit > 0 && elapsed >= sv->set.time_limit);
    return slv_comm_vote(sv->pb->comm, cancel, late); /* one process: no sum */
}

/* An iteration the thread's stop cut short (IRCG_ERR_STOPPED: an oracle
 * stopped between two of its products, before the iterate changed) ends
 * the solve as a stop between iterations would have. */
static ircg_status stopped_status(void)
{
    return slv_stop_due() == SLV_STOP_CANCEL ? IRCG_STATUS_CANCELLED
                                             : IRCG_STATUS_TIME_LIMIT;
}

/* The values of the certificate b (of the current x and z) as the
 * iteration's, for the methods whose workspace carries none; g - g_opt by
 * subtraction from a known g_opt. */
static void values_of_certificate(ircg_solver *sv, const slv_bounds *b)
{
    const ircg_reference *ref = sv->set.reference;
    double g_opt = ref ? ref->info.g_opt : sv->set.g_opt;
    sv->vals = (slv_values){.g_x = b->g_x, .f_x = b->f_x, .g_z = b->g_z, .f_z = b->f_z,
                            .g_gap_x = b->g_x - g_opt, .g_gap_z = b->g_z - g_opt};
}

static void report_values(const ircg_solver *sv, ircg_iter_info *it)
{
    it->t = sv->t;
    it->g_x = sv->vals.g_x;
    it->f_x = sv->vals.f_x;
    it->g_z = sv->vals.g_z;
    it->f_z = sv->vals.f_z;
    it->g_gap_x = sv->vals.g_gap_x;
    it->g_gap_z = sv->vals.g_gap_z;
    it->rank = sv->vals.rank;
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
    sv->samples += it->samples;
    sv->lmo_unconverged += !it->lmo_converged;
    sv->last_gap = it->gap;
    sv->last_sigma = it->sigma;
    if (*converged)
        return IRCG_OK;
    slv_solver_refresh_values(sv); /* NaN where the workspace carries none */
    if (!alg->values_at_certificates &&
        (!isfinite(sv->vals.g_x) || !isfinite(sv->vals.f_x)))
        return IRCG_ERR_NUMERICAL;
    report_values(sv, it);
    return IRCG_OK;
}

/* A certificate made at this iteration gives it its values. */
static void certificate_values(ircg_solver *sv, const slv_alg *alg, ircg_iter_info *it)
{
    if (!alg->values_at_certificates || sv->bnd.t != sv->t)
        return;
    values_of_certificate(sv, &sv->bnd);
    report_values(sv, it);
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
    ircg_error err = ircg_settings_validate(&s, NULL);
    return err != IRCG_OK ? err : check_direction(sv->pb, &s, NULL);
}

ircg_error ircg_solve(ircg_solver *sv, ircg_info *info)
{
    const slv_alg *alg = slv_alg_of(sv->algorithm);
    ircg_error err = IRCG_OK;
    ircg_status st = IRCG_STATUS_UNSOLVED;
    double start = slv_now() - sv->elapsed; /* resume the clock */
    double elapsed = sv->elapsed;
    slv_stop_frame own; /* the settings' cancel and time limit, for the
                           oracles that poll inside an iteration */
    slv_cert_async *ca = NULL; /* certificates on a thread of their own */

    sv->outer_stop = slv_stop_current();
    slv_stop_push(&own, sv->set.cancel,
                  sv->set.time_limit > 0 ? start + sv->set.time_limit : 0);
    if ((err = check_live_settings(sv)) != IRCG_OK)
        goto done;
    if (sv->ops->set_reference) /* the settings may name another one now */
        sv->ops->set_reference(sv->ws, sv->set.reference ? sv->set.reference->residual
                                                         : NULL);
    if (alg->prepare) {
        err = alg->prepare(sv, start, &st);
        elapsed = slv_now() - start;
        if (err == IRCG_ERR_STOPPED) {
            err = IRCG_OK;
            st = stopped_status();
        }
        if (err != IRCG_OK || st != IRCG_STATUS_UNSOLVED)
            goto done;
    }
    if (slv_ca_wanted(sv))
        ca = slv_ca_new(sv); /* NULL: in place */
    if (sv->t == 0 && sv->bnd.t < 0) { /* the start point: g(x_0), first bounds */
        err = ca ? slv_ca_submit(sv, ca) : slv_certify(sv, &st);
        if (err == IRCG_ERR_STOPPED) { /* a cancel */
            err = IRCG_OK;
            st = stopped_status();
        }
        if (err == IRCG_OK && alg->values_at_certificates && sv->bnd.t == 0)
            values_of_certificate(sv, &sv->bnd);
        elapsed = slv_now() - start;
        if (err != IRCG_OK || st != IRCG_STATUS_UNSOLVED)
            goto done;
    }
    while ((st = slv_solver_should_stop(sv, elapsed)) == IRCG_STATUS_UNSOLVED) {
        ircg_iter_info it;
        ircg_status cst = IRCG_STATUS_UNSOLVED;
        int converged = 0;
        err = step_once(sv, alg, &it, &converged);
        if (err == IRCG_OK && !converged &&
            (slv_cert_due(sv, sv->t) || (alg->cert_wanted && alg->cert_wanted(sv))))
            err = ca ? slv_ca_submit(sv, ca) : slv_certify(sv, &cst);
        if (err == IRCG_OK && !converged)
            certificate_values(sv, alg, &it);
        elapsed = slv_now() - start;
        if (err == IRCG_ERR_STOPPED) {
            err = IRCG_OK;
            st = stopped_status();
            break;
        }
        if (err != IRCG_OK)
            break;
        if (converged) {
            st = IRCG_STATUS_CONVERGED;
            break;
        }
        it.elapsed = elapsed;
        if (ca) { /* the row waits for its certificate */
            int r = slv_ca_row(sv, ca, &it, &err);
            if (r != 0) {
                st = r > 0 ? IRCG_STATUS_INTERRUPTED : st;
                break;
            }
            continue;
        }
        slv_bounds_report(sv, &it);
        if (sv->set.callback && sv->set.callback(sv->set.callback_data, &it)) {
            st = IRCG_STATUS_INTERRUPTED;
            break;
        }
        if (cst == IRCG_STATUS_CONVERGED) {
            st = cst;
            break;
        }
    }
    if (ca) { /* every certificate folded, every row out */
        ircg_error cerr = IRCG_OK;
        int r = slv_ca_drain(sv, ca, &cerr);
        if (r < 0 && err == IRCG_OK)
            err = cerr;
        if (r > 0 && err == IRCG_OK && st != IRCG_STATUS_CANCELLED)
            st = IRCG_STATUS_INTERRUPTED;
    }
    /* the result's certificate is of the final iterate */
    if (err == IRCG_OK) {
        err = slv_certify_final(sv);
        if (err == IRCG_OK && alg->values_at_certificates && sv->final.t == sv->t)
            values_of_certificate(sv, &sv->final);
        elapsed = slv_now() - start;
    }
done:
    if (ca) {
        sv->ca_seconds += slv_ca_thread_seconds(ca);
        slv_ca_free(ca);
    }
    slv_stop_pop(&own);
    sv->outer_stop = NULL;
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
    free(it->row_ids);
    free(it->col_ids);
    free(it->P_other);
    free(it);
}
