/*
 * spec_algorithm.c -- the "algorithm" section: IR-CG and the paper's
 * baselines (CG-BiO, IR-PG, Bi-SG), which members apply to which, their
 * normalized form, and the checks that need the built problem (x0 length,
 * the library's own validation, a trial solver).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

#define AP "/algorithm"

static const char *const ALG_NAMES[] = {"ircg", "cgbio", "irpg", "bisg", "ir-scg", "ir-fscg",
                                         "fcbio", "fcbio-cg", "two-stage", NULL};
#define N_ALGS 9
static const char *const STEP_NAMES[] = {"open_loop", "closed_loop",
                                         "line_search", NULL};
static const char *const DIR_NAMES[] = {"frank_wolfe", "away", "pairwise", NULL};
static const char *const START_NAMES[] = {"default", "zero", NULL};
static const char *const PROJ_NAMES[] = {"partial", "full", NULL};
static const char *const ENGINE_NAMES[] = {"lanczos", "arpack", NULL};

/* Bit i stands for ALG_NAMES[i] (= the ircg_algorithm value). */
enum { A_IRCG = 1, A_CGBIO = 2, A_IRPG = 4, A_BISG = 8, A_IRSCG = 16, A_IRFSCG = 32,
       A_FCBIO = 64, A_FCBIOCG = 128, A_TWOSTAGE = 256, A_STO = A_IRSCG | A_IRFSCG,
       A_BISECT = A_FCBIO | A_FCBIOCG | A_TWOSTAGE, A_ALL = 511 };

typedef struct alg_member {
    const char *name;
    unsigned algs; /* the algorithms it applies to */
} alg_member;

/* In the order of the normalized spec. */
static const alg_member MEMBERS[] = {
    {"name", A_ALL},
    {"step_rule", A_IRCG},
    {"direction", A_IRCG},
    {"varsigma", A_IRCG | A_IRPG | A_STO},
    {"varsigma_rel", A_IRCG | A_IRPG | A_STO},
    {"p", A_IRCG | A_IRPG | A_STO},
    {"batch", A_STO},
    {"q", A_IRFSCG},
    {"seed", A_STO},
    {"start", A_ALL},
    {"max_iter", A_ALL},
    {"time_limit", A_ALL},
    {"gap_tol", A_ALL & ~A_BISECT},
    {"stop", A_ALL},
    {"certify", A_ALL},
    {"certify_every", A_ALL},
    {"lmo_tol", A_ALL},
    {"lmo_max_matvecs", A_ALL},
    {"lmo", A_IRCG | A_CGBIO | A_FCBIOCG},
    {"threads", A_ALL},
    {"projection", A_IRPG | A_BISG},
    {"irpg_theta", A_IRPG},
    {"irpg_step", A_IRPG},
    {"irpg_eta", A_IRPG},
    {"bisg_alpha", A_BISG},
    {"bisg_c", A_BISG},
    {"bisg_step", A_BISG},
    {"cgbio_eps_g", A_CGBIO},
    {"cgbio_warmup_max_iter", A_CGBIO},
};
#define N_MEMBERS (sizeof MEMBERS / sizeof MEMBERS[0])

const char *api_algorithm_name(ircg_algorithm a)
{
    return (unsigned)a < N_ALGS ? ALG_NAMES[a] : "unknown";
}

const char *api_projection_name(ircg_projection p)
{
    return (unsigned)p < 2 ? PROJ_NAMES[p] : "unknown";
}

const char *api_step_rule_name(ircg_step_rule r)
{
    return (unsigned)r < 3 ? STEP_NAMES[r] : "unknown";
}

const char *api_direction_name(ircg_direction d)
{
    return (unsigned)d < 3 ? DIR_NAMES[d] : "unknown";
}

/* "ircg and irpg" from a bit set. */
static void alg_list(char *buf, size_t n, unsigned algs)
{
    int k = 0, total = 0;
    for (int i = 0; i < N_ALGS; i++)
        total += (algs >> i) & 1;
    buf[0] = '\0';
    for (int i = 0; i < N_ALGS; i++) {
        if (!((algs >> i) & 1))
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, n - used, "%s%s", k == 0 ? "" : k == total - 1 ? " and " : ", ",
                 ALG_NAMES[i]);
        k++;
    }
}

/* A member given for an algorithm it does not apply to is an error (it
 * would be ignored otherwise). */
static void check_applicable(sp_ctx *c, const cJSON *alg, int which)
{
    for (size_t i = 0; i < N_MEMBERS; i++) {
        if (!sp_get(alg, MEMBERS[i].name) || ((MEMBERS[i].algs >> which) & 1))
            continue;
        char p[SP_PTR], list[128];
        sp_ptr(p, AP, MEMBERS[i].name);
        alg_list(list, sizeof list, MEMBERS[i].algs);
        sp_err(c, p, "applies to %s only, not to \"%s\"", list, ALG_NAMES[which]);
    }
}

/* "start": "default" | "zero" | {"x0": [...]} | {"job": ID, ...} */
static void parse_start(sp_ctx *c, const cJSON *alg, api_spec *s)
{
    const cJSON *v = sp_get(alg, "start");
    static const char *const X0_MEMBERS[] = {"x0", NULL};
    if (!v || cJSON_IsString(v)) {
        int k = 0;
        if (sp_enum(c, alg, AP, "start", START_NAMES, &k) > 0)
            s->settings.start = k == 0 ? IRCG_START_DEFAULT : IRCG_START_ZERO;
        return;
    }
    if (cJSON_IsObject(v) && (sp_get(v, "job") || sp_get(v, "snapshot") ||
                              sp_get(v, "schedule"))) {
        if (!sp_get(v, "job"))
            sp_err(c, AP "/start/job", "missing required member \"job\"");
        else
            sp_parse_start_job(c, v, s);
        return;
    }
    if (!sp_members(c, v, AP "/start", X0_MEMBERS))
        return;
    const cJSON *x0 = sp_get(v, "x0");
    if (!x0) {
        sp_err(c, AP "/start/x0", "missing required member \"x0\"");
        return;
    }
    if (sp_num_array(c, x0, AP "/start/x0", &s->x0, &s->x0_len) > 0) {
        s->settings.start = IRCG_START_GIVEN;
        s->settings.x0 = s->x0;
    }
}

/* "lmo": {"engine": "lanczos" | "arpack"} */
static void parse_lmo(sp_ctx *c, const cJSON *alg, ircg_settings *st)
{
    static const char *const LMO_MEMBERS[] = {"engine", NULL};
    const cJSON *v = sp_get(alg, "lmo");
    int k = 0;
    if (!v || !sp_members(c, v, AP "/lmo", LMO_MEMBERS))
        return;
    if (sp_enum(c, v, AP "/lmo", "engine", ENGINE_NAMES, &k) > 0)
        st->lmo_engine = (ircg_lmo_engine)k;
}

/* "stop": {"inner_gap", "inner_gap_rel", "outer_gap", "outer_gap_rel"},
 * each >= 0 (0 = not used), at least one of them given. */
static void parse_stop(sp_ctx *c, const cJSON *alg, ircg_settings *st)
{
    static const char *const STOP_MEMBERS[] = {"inner_gap", "inner_gap_rel", "outer_gap",
                                               "outer_gap_rel", NULL};
    const cJSON *v = sp_get(alg, "stop");
    if (!v || !sp_members(c, v, AP "/stop", STOP_MEMBERS))
        return;
    if (!cJSON_GetArraySize(v))
        sp_err(c, AP "/stop", "give at least one of inner_gap, inner_gap_rel, outer_gap, "
               "outer_gap_rel (or leave stop out)");
    sp_number_in(c, v, AP "/stop", "inner_gap", 0, 0, SP_MAX_SCALE, 0, &st->stop.inner_gap);
    sp_number_in(c, v, AP "/stop", "inner_gap_rel", 0, 0, 1, 0, &st->stop.inner_gap_rel);
    sp_number_in(c, v, AP "/stop", "outer_gap", 0, 0, SP_MAX_SCALE, 0, &st->stop.outer_gap);
    sp_number_in(c, v, AP "/stop", "outer_gap_rel", 0, 0, 1, 0, &st->stop.outer_gap_rel);
}

/* varsigma (absolute) or varsigma_rel (times L_g / L_f), not both; the
 * default is relative. */
static void parse_varsigma(sp_ctx *c, const cJSON *alg, ircg_settings *st)
{
    if (sp_get(alg, "varsigma") && sp_get(alg, "varsigma_rel")) {
        sp_err(c, AP "/varsigma_rel", "give varsigma (absolute) or varsigma_rel (relative to "
               "the problem's scale L_g / L_f), not both");
        return;
    }
    sp_number_in(c, alg, AP, "varsigma", 0, 0, SP_MAX_SCALE, 0, &st->varsigma);
    sp_number_in(c, alg, AP, "varsigma_rel", 0, 1, SP_MAX_SCALE, 0, &st->varsigma_rel);
}

/* The baselines' members, with the library's ranges (settings.c). */
static void parse_baselines(sp_ctx *c, const cJSON *alg, ircg_settings *st)
{
    int k = 0;
    if (sp_enum(c, alg, AP, "projection", PROJ_NAMES, &k) > 0)
        st->projection = (ircg_projection)k;
    sp_number_in(c, alg, AP, "irpg_theta", 0, 1, 1, 1, &st->irpg_theta);
    sp_number_in(c, alg, AP, "irpg_step", 0, 1, 1e6, 0, &st->irpg_step);
    sp_number_in(c, alg, AP, "irpg_eta", 0, 1, 1, 1, &st->irpg_eta);
    sp_number_in(c, alg, AP, "bisg_alpha", 0, 1, 1, 0, &st->bisg_alpha);
    sp_number_in(c, alg, AP, "bisg_c", 0, 1, 1e6, 0, &st->bisg_c);
    sp_number_in(c, alg, AP, "bisg_step", 0, 0, 1e6, 0, &st->bisg_step);
    sp_number_in(c, alg, AP, "cgbio_eps_g", 0, 1, SP_MAX_SCALE, 0, &st->cgbio_eps_g);
    sp_int64_in(c, alg, AP, "cgbio_warmup_max_iter", 1, INT64_C(1) << 53,
                &st->cgbio_warmup_max_iter);
}

/* "name": "auto" chooses by the problem (api_auto_choice); "choice", the
 * normalized spec's record of it, may come back with it and must then
 * name what auto chooses. */
static void parse_auto(sp_ctx *c, const cJSON *alg, api_spec *s)
{
    static const char *const CHOICE_MEMBERS[] = {"name", "why", NULL};
    const cJSON *ch = sp_get(alg, "choice");
    const char *why = NULL, *name = NULL;
    s->settings.algorithm = api_auto_choice(s, c->opt->distributed, &why);
    s->auto_why = why;
    if (!ch || !sp_members(c, ch, AP "/choice", CHOICE_MEMBERS))
        return;
    if (sp_string(c, ch, AP "/choice", "name", &name) > 0 &&
        strcmp(name, ALG_NAMES[s->settings.algorithm]) != 0)
        sp_err(c, AP "/choice/name", "auto chooses \"%s\" for this problem, not \"%s\": "
               "leave choice out, or name the method", ALG_NAMES[s->settings.algorithm], name);
    sp_string(c, ch, AP "/choice", "why", &why);
}

/* The name, or auto: a spec that states its accuracy (stop) and names no
 * method gets auto's choice. */
static void parse_name(sp_ctx *c, const cJSON *alg, api_spec *s)
{
    static const char *const NAMES[] = {"ircg", "cgbio", "irpg", "bisg", "ir-scg",
                                        "ir-fscg", "fcbio", "fcbio-cg", "two-stage", "auto",
                                        NULL};
    ircg_settings *st = &s->settings;
    int k = 0, given = sp_enum(c, alg, AP, "name", NAMES, &k);
    if (given < 0)
        return;
    if ((given == 0 && sp_get(alg, "stop")) || k == N_ALGS) {
        parse_auto(c, alg, s);
        k = (int)st->algorithm;
    } else if (sp_get(alg, "choice")) {
        sp_err(c, AP "/choice", "applies to \"auto\" only, not to \"%s\"", ALG_NAMES[k]);
    }
    st->algorithm = (ircg_algorithm)k;
    check_applicable(c, alg, k);
    if (st->algorithm == IRCG_ALG_IRSCG)
        st->p = 0.25; /* the paper's for IR-SCG (its convex theorem) */
    /* the bisection methods, and auto's choice, run to their tolerances:
     * no iteration cap unless one is given (the time limit, or a cancel, ends them else);
     * 1e15 is none in practice (decades of microsecond iterations) and
     * prints as itself */
    if (st->algorithm == IRCG_ALG_FCBIO || st->algorithm == IRCG_ALG_FCBIO_CG ||
        st->algorithm == IRCG_ALG_TWOSTAGE || s->auto_why)
        st->max_iter = INT64_C(1000000000000000);
}

void sp_parse_algorithm(sp_ctx *c, const cJSON *alg, api_spec *s)
{
    const char *names[N_MEMBERS + 2] = {NULL};
    ircg_settings *st = &s->settings;
    int k = 0;
    for (size_t i = 0; i < N_MEMBERS; i++)
        names[i] = MEMBERS[i].name;
    names[N_MEMBERS] = "choice";
    if (!alg || !sp_members(c, alg, AP, names))
        return;
    parse_name(c, alg, s);
    /* auto's IR-CG takes the exact line search unless told otherwise:
     * measured to (1e-8, 1e-4), 2 iterations on both matrix completions
     * of make bench-accuracy where the open loop took 96 (ML-1M) or ran
     * out of time (synthetic) */
    if (s->auto_why && st->algorithm == IRCG_ALG_IRCG)
        st->step_rule = IRCG_STEP_LINE_SEARCH;
    if (sp_enum(c, alg, AP, "step_rule", STEP_NAMES, &k) > 0)
        st->step_rule = (ircg_step_rule)k;
    if (sp_enum(c, alg, AP, "direction", DIR_NAMES, &k) > 0)
        st->direction = (ircg_direction)k;
    parse_varsigma(c, alg, st);
    sp_number_in(c, alg, AP, "p", 0, 1, 1, 1, &st->p);
    parse_start(c, alg, s);
    sp_int64_in(c, alg, AP, "max_iter", 1, INT64_C(1) << 53, &st->max_iter);
    sp_number_in(c, alg, AP, "time_limit", 0, 0, INFINITY, 0, &st->time_limit);
    sp_number_in(c, alg, AP, "gap_tol", 0, 0, INFINITY, 0, &st->gap_tol);
    parse_stop(c, alg, st);
    sp_bool(c, alg, AP, "certify", &st->certify);
    sp_int64_in(c, alg, AP, "certify_every", 0, INT64_C(1) << 53, &st->certify_every);
    sp_number_in(c, alg, AP, "lmo_tol", 0, 1, 1, 1, &st->lmo_tol);
    sp_int_in(c, alg, AP, "lmo_max_matvecs", 2, 1000000000, &st->lmo_max_matvecs);
    s->threads_given = sp_int_in(c, alg, AP, "threads", 1, 64, &st->threads) > 0;
    parse_lmo(c, alg, st);
    parse_baselines(c, alg, st);
    int64_t seed = (int64_t)st->seed;
    sp_int64_in(c, alg, AP, "batch", 0, 1000000000, &st->batch);
    sp_int64_in(c, alg, AP, "q", 0, INT64_C(1) << 53, &st->q);
    if (sp_int64_in(c, alg, AP, "seed", 0, INT64_C(1) << 53, &seed) > 0)
        st->seed = (uint64_t)seed;
}

/* A settings diag at its spec member: "/x0" is the start's, and the
 * library's "/algorithm" is the spec's "/algorithm/name". */
static void settings_diag(sp_ctx *c, const ircg_diag *d)
{
    ircg_diag m = *d;
    if (!strcmp(d->field, "/algorithm"))
        snprintf(m.field, sizeof m.field, "/name");
    else if (!strcmp(d->field, "/lmo_engine"))
        snprintf(m.field, sizeof m.field, "/lmo/engine");
    sp_diag(c, strcmp(d->field, "/x0") == 0 ? AP "/start" : AP, &m);
}

/* Bi-SG's default inner step is 1/L_g: undefined when g is constant (A = 0,
 * or so small that L_g underflows). */
static void check_bisg_step(sp_ctx *c, const api_spec *s)
{
    ircg_problem_info info;
    if (s->settings.algorithm != IRCG_ALG_BISG || s->settings.bisg_step > 0)
        return;
    ircg_problem_get_info(s->problem, &info);
    if (!(info.L_g > 0) || !isfinite(1.0 / info.L_g) || 1.0 / info.L_g > 1e300)
        sp_err(c, AP "/bisg_step", "the default step 1/L_g is undefined: L_g = %g for "
               "this problem (g is constant); give a bisg_step in (0, 1e6]", info.L_g);
}

void sp_build_algorithm(sp_ctx *c, api_spec *s, int64_t dim)
{
    ircg_solver *sv = NULL;
    ircg_diag d = {0};
    if (s->x0 && dim > 0 && s->x0_len != dim) { /* the solver cannot see x0's length */
        int mc = s->kind == IRCG_PROBLEM_MATRIX_COMPLETION;
        sp_err(c, AP "/start/x0", "length %lld does not match %s = %lld%s",
               (long long)s->x0_len, mc ? "the number of variables" : "n",
               (long long)dim, mc ? " (n_rows x n_cols, column-major)" : "");
        return;
    }
    if (ircg_settings_validate(&s->settings, &d) != IRCG_OK) {
        settings_diag(c, &d);
        return;
    }
    if (!s->problem)
        return;
    memset(&d, 0, sizeof d);
    if (ircg_solver_new(s->problem, &s->settings, &sv, &d) != IRCG_OK)
        settings_diag(c, &d);
    else
        check_bisg_step(c, s);
    ircg_solver_free(sv);
}

static cJSON *num_array(const double *v, int64_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (int64_t i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

/* The stop's tolerances that are used, or nothing when none is. */
static void add_stop(cJSON *a, const ircg_stop *s)
{
    const struct { const char *name; double v; } m[] = {
        {"inner_gap", s->inner_gap}, {"inner_gap_rel", s->inner_gap_rel},
        {"outer_gap", s->outer_gap}, {"outer_gap_rel", s->outer_gap_rel}};
    cJSON *o = NULL;
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        if (!(m[i].v > 0))
            continue;
        if (!o && !(o = cJSON_AddObjectToObject(a, "stop")))
            return;
        cJSON_AddNumberToObject(o, m[i].name, m[i].v);
    }
}

/* The value of member i of the settings, added to a. */
static void add_member(cJSON *a, const api_spec *s, const char *name)
{
    const ircg_settings *st = &s->settings;
    const struct { const char *name; double v; } nums[] = {
        {"p", st->p}, {"max_iter", (double)st->max_iter},
        {"certify_every", (double)st->certify_every},
        {"time_limit", st->time_limit}, {"gap_tol", st->gap_tol},
        {"lmo_tol", st->lmo_tol}, {"lmo_max_matvecs", st->lmo_max_matvecs},
        {"threads", st->threads}, {"irpg_theta", st->irpg_theta},
        {"irpg_step", st->irpg_step}, {"irpg_eta", st->irpg_eta},
        {"bisg_alpha", st->bisg_alpha}, {"bisg_c", st->bisg_c},
        {"bisg_step", st->bisg_step}, {"cgbio_eps_g", st->cgbio_eps_g},
        {"cgbio_warmup_max_iter", (double)st->cgbio_warmup_max_iter},
        {"batch", (double)st->batch}, {"q", (double)st->q}, {"seed", (double)st->seed}};
    if (!strcmp(name, "name") && s->auto_why) {
        cJSON_AddStringToObject(a, name, "auto");
        cJSON *ch = cJSON_AddObjectToObject(a, "choice");
        cJSON_AddStringToObject(ch, "name", api_algorithm_name(st->algorithm));
        cJSON_AddStringToObject(ch, "why", s->auto_why);
    } else if (!strcmp(name, "name")) {
        cJSON_AddStringToObject(a, name, api_algorithm_name(st->algorithm));
    } else if (!strcmp(name, "varsigma")) { /* one of the two, as given */
        if (!isnan(st->varsigma))
            cJSON_AddNumberToObject(a, name, st->varsigma);
    } else if (!strcmp(name, "varsigma_rel")) {
        if (isnan(st->varsigma))
            cJSON_AddNumberToObject(a, name, st->varsigma_rel);
    } else if (!strcmp(name, "certify")) {
        cJSON_AddBoolToObject(a, name, st->certify);
    } else if (!strcmp(name, "stop")) {
        add_stop(a, &st->stop);
    } else if (!strcmp(name, "step_rule")) {
        cJSON_AddStringToObject(a, name, api_step_rule_name(st->step_rule));
    } else if (!strcmp(name, "direction")) {
        cJSON_AddStringToObject(a, name, api_direction_name(st->direction));
    } else if (!strcmp(name, "lmo")) {
        cJSON *l = cJSON_AddObjectToObject(a, "lmo");
        cJSON_AddStringToObject(l, "engine", ENGINE_NAMES[st->lmo_engine == IRCG_LMO_ARPACK]);
    } else if (!strcmp(name, "projection")) {
        cJSON_AddStringToObject(a, name, api_projection_name(st->projection));
    } else if (!strcmp(name, "start")) {
        if (s->start.job) {
            cJSON_AddItemToObject(a, "start", sp_norm_start_job(s));
        } else if (st->start == IRCG_START_GIVEN) {
            cJSON *x = cJSON_AddObjectToObject(a, "start");
            cJSON_AddItemToObject(x, "x0", num_array(s->x0, s->x0_len));
        } else {
            cJSON_AddStringToObject(a, name, st->start == IRCG_START_ZERO ? "zero" : "default");
        }
    } else {
        for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
            if (!strcmp(nums[i].name, name))
                cJSON_AddNumberToObject(a, name, nums[i].v);
    }
}

cJSON *sp_norm_algorithm(const api_spec *s)
{
    cJSON *a = cJSON_CreateObject();
    unsigned which = (unsigned)s->settings.algorithm;
    for (size_t i = 0; a && i < N_MEMBERS; i++)
        if ((MEMBERS[i].algs >> which) & 1)
            add_member(a, s, MEMBERS[i].name);
    return a;
}

int64_t api_spec_x0_len(const api_spec *s) { return s && s->x0 ? s->x0_len : 0; }

/* auto's choice, from what RESULTS.md measures (time to a certified
 * accuracy): least squares with fewer rows than unknowns (a large inner
 * solution set, where FC-BiO's weak answer strays below f*) whose n the
 * spec states within IRCG_TWOSTAGE_MAX_DIM gets the two-stage method,
 * which solves on the inner solution set itself (with m >= n, g* > 0 is
 * the rule, and the Frank-Wolfe gap that bounds g* over a large ball
 * converges too slowly for its certificate: min-norm-msd); so does
 * logistic regression with m >= n, where the inner solution is unique
 * when A's columns are independent and g's local curvature certifies f
 * (logistic, logistic-a1a, fair-a9a); every other vector family (logistic
 * regression with m < n, larger least squares: the l2 and l1 balls, the
 * simplex, the box have cheap projections) FC-BiO, whose inner solver
 * converges at the accelerated rate;
 * a matrix completion small enough for a dense SVD per projection, its
 * size known from the spec, gets FC-BiO too (the one method that
 * certifies f where the inner solution set is large: the selection
 * instance); a larger one, or one read from a file or a dataset, IR-CG,
 * whose steps cost a Lanczos run (FC-BiO-CG's level search is slower on
 * the paper's ML-1M instance). */
ircg_algorithm api_auto_choice(const api_spec *s, int distributed, const char **why)
{
    double rows, cols;
    if (s->ranks > 0 || distributed) {
        *why = "a distributed solve (execution.ranks): IR-CG with the exact line search, "
               "the method that runs on the ranks of ircg-mpi";
        return IRCG_ALG_IRCG;
    }
    if (s->typed && s->kind == IRCG_PROBLEM_MATRIX_COMPLETION) {
        if (sp_mc_held_known(s, &rows, &cols) &&
            rows * cols * fmin(rows, cols) <= IRCG_FCBIO_MC_MAX_WORK) {
            *why = "a small matrix completion (n p min(n, p) <= 2.7e7 from the spec): "
                   "the bisection on the level of f with Nesterov's accelerated method "
                   "inside (fcbio), projecting by a dense SVD";
            return IRCG_ALG_FCBIO;
        }
        *why = "a matrix completion too large for a dense SVD per step, or of a size the "
               "spec does not state (a file, a dataset): IR-CG with the exact line search, "
               "whose steps need only the top singular pair";
        return IRCG_ALG_IRCG;
    }
    if (s->typed && s->kind == IRCG_PROBLEM_LEAST_SQUARES && s->ls.tr.n > 0 &&
        s->ls.tr.n <= IRCG_TWOSTAGE_MAX_DIM && s->ls.tr.m > 0 && s->ls.tr.m < s->ls.tr.n) {
        *why = "least squares with fewer rows than unknowns, at most 2000 (from the spec): "
               "its inner solution set, the section of X where A x = A x*, is large, so "
               "the two-stage method (two-stage) solves g, then f over that section by "
               "ADMM, and its multiplier certifies f to the digits g's bound allows";
        return IRCG_ALG_TWOSTAGE;
    }
    if (s->typed && s->kind == IRCG_PROBLEM_LOGISTIC && s->ls.tr.n > 0 &&
        s->ls.tr.n <= IRCG_TWOSTAGE_MAX_DIM && s->ls.tr.m >= s->ls.tr.n) {
        *why = "logistic regression with at least as many rows as unknowns, at most 2000 "
               "(from the spec): its inner solution is unique where A has independent "
               "columns, so the two-stage method (two-stage) minimizes g alone and the "
               "curvature of g around its point certifies f (with dependent columns it "
               "cannot: name fcbio)";
        return IRCG_ALG_TWOSTAGE;
    }
    *why = "logistic regression with fewer rows than unknowns, least squares with as many "
           "rows as unknowns, either with more than 2000 unknowns or a size the spec does "
           "not state, over a vector domain, which has a cheap projection: the bisection "
           "on the level of f with Nesterov's accelerated method inside (fcbio), "
           "near-optimal in the tolerances";
    return IRCG_ALG_FCBIO;
}

const char *api_spec_auto_why(const api_spec *s) { return s ? s->auto_why : NULL; }
