/* settings.c -- defaults and validation of solver settings. */
#include <math.h>
#include <stddef.h>

#include "base/util.h"
#include "core/oracle.h"

void ircg_settings_default(ircg_settings *s)
{
    *s = (ircg_settings){0};
    s->algorithm = IRCG_ALG_IRCG;
    s->step_rule = IRCG_STEP_OPEN_LOOP;
    s->varsigma = NAN;      /* relative: varsigma_rel L_g / L_f */
    s->varsigma_rel = 0.01; /* chosen by `study varsigma` (api/SPEC.md, "The
                               scale-free varsigma"); the paper states 0.05 */
    s->certify = 1;
    s->certify_every = 0;
    s->p = 0.5;         /* the rate-optimal choice (Remark after Thm 3.2) */
    s->max_iter = 1000;
    s->time_limit = 0;
    s->gap_tol = 0;
    s->start = IRCG_START_DEFAULT;
    s->lmo_tol = 1e-9;
    s->lmo_max_matvecs = 1000;
    s->threads = 1;
    s->g_opt = NAN;
    /* the paper's parameters of the baselines (Section 4) */
    s->projection = IRCG_PROJ_PARTIAL;
    s->irpg_theta = 0.5;
    s->irpg_step = 0.5;
    s->irpg_eta = 0.5;
    s->bisg_alpha = 1.0 / (2.0 - 0.01);
    s->bisg_c = 1.0;
    s->bisg_step = 0;
    s->cgbio_eps_g = 1e-4;
    s->cgbio_warmup_max_iter = 1000000;
    s->batch = 0; /* the stochastic method's default */
    s->q = 0;
    s->seed = 1;
}

/* The members of the stochastic methods: batch and q are counts of rows
 * and steps (capped where a batch's index array stays allocatable); the
 * gap of their iterations is an estimate, so gap_tol would stop them on
 * noise: the certified stop is theirs. */
#define STO_MAX_BATCH INT64_C(1000000000)
static ircg_error validate_stochastic(const ircg_settings *s, ircg_diag *diag)
{
    if (s->batch < 0 || s->batch > STO_MAX_BATCH)
        return slv_fail(diag, IRCG_ERR_INVALID, "/batch",
                        "batch must lie in [0, 1e9] (0 = the method's default), got %lld",
                        (long long)s->batch);
    if (s->q < 0 || s->q > (INT64_C(1) << 53))
        return slv_fail(diag, IRCG_ERR_INVALID, "/q",
                        "q must lie in [0, 2^53] (0 = floor(sqrt(m))), got %lld",
                        (long long)s->q);
    if ((s->algorithm == IRCG_ALG_IRSCG || s->algorithm == IRCG_ALG_IRFSCG) && s->gap_tol > 0)
        return slv_fail(diag, IRCG_ERR_INVALID, "/gap_tol",
                        "the stochastic methods' gap is an estimate: stop them on certified "
                        "tolerances (stop) instead of gap_tol");
    if ((s->algorithm == IRCG_ALG_FCBIO || s->algorithm == IRCG_ALG_FCBIO_CG ||
         s->algorithm == IRCG_ALG_TWOSTAGE) &&
        (s->gap_tol > 0 || !s->certify))
        return slv_fail(diag, IRCG_ERR_INVALID, s->gap_tol > 0 ? "/gap_tol" : "/certify",
                        "the bisection and two-stage methods decide by certificates and "
                        "stop on certified tolerances (stop): %s",
                        s->gap_tol > 0 ? "gap_tol does not apply" : "certify must be 1");
    return IRCG_OK;
}

/* Members of the baselines, checked whatever the algorithm so that a
 * setting never hides an error until the algorithm is switched. */
static ircg_error validate_baselines(const ircg_settings *s, ircg_diag *diag)
{
    if (s->algorithm != IRCG_ALG_IRCG && s->step_rule != IRCG_STEP_OPEN_LOOP)
        return slv_fail(diag, IRCG_ERR_INVALID, "/step_rule",
                         "step rules apply to IR-CG only; CG-BiO steps are "
                         "2/(k+2), IR-SCG's and IR-FSCG's are their own open-loop "
                         "ones, and IR-PG and Bi-SG have their own rules");
    if (s->lmo_engine < IRCG_LMO_LANCZOS || s->lmo_engine > IRCG_LMO_ARPACK)
        return slv_fail(diag, IRCG_ERR_INVALID, "/lmo_engine",
                         "unknown LMO engine %d", (int)s->lmo_engine);
    if (s->projection < IRCG_PROJ_PARTIAL || s->projection > IRCG_PROJ_FULL)
        return slv_fail(diag, IRCG_ERR_INVALID, "/projection",
                         "unknown projection %d", (int)s->projection);
    if (!(s->irpg_theta > 0 && s->irpg_theta < 1))
        return slv_fail(diag, IRCG_ERR_INVALID, "/irpg_theta",
                         "irpg_theta must lie in (0, 1), got %g", s->irpg_theta);
    if (!(s->irpg_step > 0 && s->irpg_step <= 1e6))
        return slv_fail(diag, IRCG_ERR_INVALID, "/irpg_step",
                         "irpg_step must lie in (0, 1e6], got %g", s->irpg_step);
    if (!(s->irpg_eta > 0 && s->irpg_eta < 1))
        return slv_fail(diag, IRCG_ERR_INVALID, "/irpg_eta",
                         "irpg_eta must lie in (0, 1), got %g", s->irpg_eta);
    if (!(s->bisg_alpha > 0 && s->bisg_alpha <= 1))
        return slv_fail(diag, IRCG_ERR_INVALID, "/bisg_alpha",
                         "bisg_alpha must lie in (0, 1], got %g", s->bisg_alpha);
    if (!(s->bisg_c > 0 && s->bisg_c <= 1e6))
        return slv_fail(diag, IRCG_ERR_INVALID, "/bisg_c",
                         "bisg_c must lie in (0, 1e6], got %g", s->bisg_c);
    if (!(s->bisg_step >= 0 && s->bisg_step <= 1e6))
        return slv_fail(diag, IRCG_ERR_INVALID, "/bisg_step",
                         "bisg_step must lie in [0, 1e6] (0 = 1/L_g), got %g",
                         s->bisg_step);
    if (!(s->cgbio_eps_g > 0 && isfinite(s->cgbio_eps_g)))
        return slv_fail(diag, IRCG_ERR_INVALID, "/cgbio_eps_g",
                         "cgbio_eps_g must be a finite number > 0, got %g",
                         s->cgbio_eps_g);
    if (s->cgbio_warmup_max_iter < 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/cgbio_warmup_max_iter",
                         "cgbio_warmup_max_iter must be >= 1, got %lld",
                         (long long)s->cgbio_warmup_max_iter);
    return IRCG_OK;
}

/* IR-CG's direction (settings.h): away and pairwise steps need a step
 * rule that sees the direction, capped at its largest feasible step; the
 * open loop's 2/(t+2) would not stay in X on an away direction.  The
 * domains and families that take them are the solver's check
 * (core/solver.c), which knows the problem. */
static ircg_error validate_direction(const ircg_settings *s, ircg_diag *diag)
{
    if (s->direction < IRCG_DIR_FRANK_WOLFE || s->direction > IRCG_DIR_PAIRWISE)
        return slv_fail(diag, IRCG_ERR_INVALID, "/direction", "unknown direction %d",
                        (int)s->direction);
    if (s->direction == IRCG_DIR_FRANK_WOLFE)
        return IRCG_OK;
    if (s->algorithm != IRCG_ALG_IRCG)
        return slv_fail(diag, IRCG_ERR_INVALID, "/direction",
                        "away and pairwise directions apply to IR-CG only");
    if (s->step_rule == IRCG_STEP_OPEN_LOOP)
        return slv_fail(diag, IRCG_ERR_INVALID, "/direction",
                        "away and pairwise directions take the closed_loop or the "
                        "line_search step rule (capped at the direction's largest "
                        "feasible step), not the open loop");
    return IRCG_OK;
}

static ircg_error validate_stop(const ircg_stop *st, ircg_diag *diag)
{
    const struct {
        const char *field;
        double v;
    } m[] = {{"/stop/inner_gap", st->inner_gap}, {"/stop/inner_gap_rel", st->inner_gap_rel},
             {"/stop/outer_gap", st->outer_gap}, {"/stop/outer_gap_rel", st->outer_gap_rel}};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (!isfinite(m[i].v) || m[i].v < 0)
            return slv_fail(diag, IRCG_ERR_INVALID, m[i].field,
                            "%s must be a finite number >= 0 (0 = not used), got %g",
                            m[i].field + 6, m[i].v);
    return IRCG_OK;
}

double ircg_varsigma_scale(const ircg_problem *pb)
{
    const ircg_problem_info *pi = &pb->info;
    if (pi->L_f > 0 && pi->L_g > 0)
        return pi->L_g / pi->L_f;
    if (pi->L_g > 0 && pb->f_slope > 0 && pi->diameter > 0)
        return pi->L_g * pi->diameter / pb->f_slope;
    return 1.0;
}

ircg_error ircg_settings_validate(const ircg_settings *s, ircg_diag *diag)
{
    if (!s)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "settings are NULL");
    if (s->algorithm < IRCG_ALG_IRCG || s->algorithm > IRCG_ALG_TWOSTAGE)
        return slv_fail(diag, IRCG_ERR_INVALID, "/algorithm",
                         "unknown algorithm %d", (int)s->algorithm);
    if (s->step_rule < IRCG_STEP_OPEN_LOOP || s->step_rule > IRCG_STEP_LINE_SEARCH)
        return slv_fail(diag, IRCG_ERR_INVALID, "/step_rule",
                         "unknown step rule %d", (int)s->step_rule);
    if (isinf(s->varsigma) || s->varsigma < 0)
        return slv_fail(diag, IRCG_ERR_INVALID, "/varsigma",
                         "varsigma must be a finite number >= 0 (or NaN: relative), got %g",
                         s->varsigma);
    if (!isfinite(s->varsigma_rel) || s->varsigma_rel <= 0)
        return slv_fail(diag, IRCG_ERR_INVALID, "/varsigma_rel",
                         "varsigma_rel must be a finite number > 0, got %g", s->varsigma_rel);
    ircg_error err = validate_stop(&s->stop, diag);
    if (err != IRCG_OK)
        return err;
    if (s->certify != 0 && s->certify != 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/certify", "certify must be 0 or 1, got %d",
                        s->certify);
    if (s->certify_async != 0 && s->certify_async != 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/certify_async",
                        "certify_async must be 0 or 1, got %d", s->certify_async);
    if (s->certify_every < 0)
        return slv_fail(diag, IRCG_ERR_INVALID, "/certify_every",
                        "certify_every must be >= 0, got %lld", (long long)s->certify_every);
    if (!s->certify && (s->stop.inner_gap > 0 || s->stop.inner_gap_rel > 0 ||
                        s->stop.outer_gap > 0 || s->stop.outer_gap_rel > 0))
        return slv_fail(diag, IRCG_ERR_INVALID, "/certify",
                        "the certified stop (stop) needs certificates: certify must be 1");
    if (!isfinite(s->p) || s->p <= 0 || s->p >= 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/p",
                         "p must lie in the open interval (0, 1), got %g", s->p);
    if (s->max_iter < 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/max_iter",
                         "max_iter must be >= 1, got %lld", (long long)s->max_iter);
    if (isnan(s->time_limit) || s->time_limit < 0)
        return slv_fail(diag, IRCG_ERR_INVALID, "/time_limit",
                         "time_limit must be >= 0 seconds (0 = none), got %g",
                         s->time_limit);
    if (!isfinite(s->gap_tol) || s->gap_tol < 0)
        return slv_fail(diag, IRCG_ERR_INVALID, "/gap_tol",
                         "gap_tol must be a finite number >= 0, got %g", s->gap_tol);
    if (s->start < IRCG_START_DEFAULT || s->start > IRCG_START_GIVEN)
        return slv_fail(diag, IRCG_ERR_INVALID, "/start", "unknown start %d",
                         (int)s->start);
    if (s->start == IRCG_START_GIVEN && !s->x0)
        return slv_fail(diag, IRCG_ERR_INVALID, "/x0",
                         "start is 'given' but no x0 was supplied");
    if (!isfinite(s->lmo_tol) || s->lmo_tol <= 0 || s->lmo_tol >= 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/lmo_tol",
                         "lmo_tol must lie in (0, 1), got %g", s->lmo_tol);
    if (s->lmo_max_matvecs < 2)
        return slv_fail(diag, IRCG_ERR_INVALID, "/lmo_max_matvecs",
                         "lmo_max_matvecs must be >= 2, got %d", s->lmo_max_matvecs);
    if (s->threads < 1 || s->threads > 64)
        return slv_fail(diag, IRCG_ERR_INVALID, "/threads",
                         "threads must lie in [1, 64], got %d", s->threads);
    if (isinf(s->g_opt))
        return slv_fail(diag, IRCG_ERR_INVALID, "/g_opt",
                         "g_opt must be finite (or NaN for unknown)");
    if ((err = validate_direction(s, diag)) != IRCG_OK)
        return err;
    if ((err = validate_stochastic(s, diag)) != IRCG_OK)
        return err;
    return validate_baselines(s, diag);
}
