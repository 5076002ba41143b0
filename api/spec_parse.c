/*
 * spec_parse.c -- the entry point: JSON text -> api_spec.  Parses the
 * top level, "algorithm", "output" and "reference"; the problem sections
 * live in spec_problem_mc.c and spec_problem_ls.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

static const char *const TOP_MEMBERS[] = {"problem", "algorithm", "output",
                                          "reference", NULL};
static const char *const ALG_MEMBERS[] = {
    "name", "step_rule", "varsigma", "p", "start", "max_iter", "time_limit",
    "gap_tol", "lmo_tol", "lmo_max_matvecs", "threads", NULL};
static const char *const ALG_NAMES[] = {"ircg", "cgbio", "irpg", "bisg", NULL};
static const char *const STEP_NAMES[] = {"open_loop", "closed_loop",
                                         "line_search", NULL};
static const char *const START_NAMES[] = {"default", "zero", NULL};
static const char *const OUT_MEMBERS[] = {"trace_every", "snapshot_every",
                                          "dense_iterate", NULL};
static const char *const REF_MEMBERS[] = {"compute", "tol", "max_iter",
                                          "time_limit", "lmo_tol", "g_opt", NULL};
static const char *const PROBLEM_TYPES[] = {"matrix_completion",
                                            "least_squares", NULL};

void api_parse_options_default(api_parse_options *o)
{
    memset(o, 0, sizeof *o);
    o->build = 1;
}

const char *api_step_rule_name(ircg_step_rule r)
{
    return (unsigned)r < 3 ? STEP_NAMES[r] : "unknown";
}

/* "start": "default" | "zero" | {"x0": [...]} */
static void parse_start(sp_ctx *c, const cJSON *alg, api_spec *s)
{
    const cJSON *v = sp_get(alg, "start");
    static const char *const X0_MEMBERS[] = {"x0", NULL};
    if (!v || cJSON_IsString(v)) {
        int k = 0;
        if (sp_enum(c, alg, "/algorithm", "start", START_NAMES, &k) > 0)
            s->settings.start = k == 0 ? IRCG_START_DEFAULT : IRCG_START_ZERO;
        return;
    }
    if (!sp_members(c, v, "/algorithm/start", X0_MEMBERS))
        return;
    const cJSON *x0 = sp_get(v, "x0");
    if (!x0) {
        sp_err(c, "/algorithm/start/x0", "missing required member \"x0\"");
        return;
    }
    if (sp_num_array(c, x0, "/algorithm/start/x0", &s->x0, &s->x0_len) > 0) {
        s->settings.start = IRCG_START_GIVEN;
        s->settings.x0 = s->x0;
    }
}

static void parse_algorithm(sp_ctx *c, const cJSON *alg, api_spec *s)
{
    ircg_settings *st = &s->settings;
    if (!alg || !sp_members(c, alg, "/algorithm", ALG_MEMBERS))
        return;
    int k = 0;
    if (sp_enum(c, alg, "/algorithm", "name", ALG_NAMES, &k) > 0 && k != 0)
        sp_err(c, "/algorithm/name",
               "algorithm \"%s\" is not available yet; use \"ircg\"", ALG_NAMES[k]);
    if (sp_enum(c, alg, "/algorithm", "step_rule", STEP_NAMES, &k) > 0)
        st->step_rule = (ircg_step_rule)k;
    sp_number_in(c, alg, "/algorithm", "varsigma", 0, 1, INFINITY, 0, &st->varsigma);
    sp_number_in(c, alg, "/algorithm", "p", 0, 1, 1, 1, &st->p);
    parse_start(c, alg, s);
    sp_int64_in(c, alg, "/algorithm", "max_iter", 1, INT64_C(1) << 53, &st->max_iter);
    sp_number_in(c, alg, "/algorithm", "time_limit", 0, 0, INFINITY, 0, &st->time_limit);
    sp_number_in(c, alg, "/algorithm", "gap_tol", 0, 0, INFINITY, 0, &st->gap_tol);
    sp_number_in(c, alg, "/algorithm", "lmo_tol", 0, 1, 1, 1, &st->lmo_tol);
    sp_int_in(c, alg, "/algorithm", "lmo_max_matvecs", 2, 1000000000, &st->lmo_max_matvecs);
    sp_int_in(c, alg, "/algorithm", "threads", 1, 64, &st->threads);
}

static void parse_output(sp_ctx *c, const cJSON *o, api_spec *s)
{
    if (!o || !sp_members(c, o, "/output", OUT_MEMBERS))
        return;
    sp_int64_in(c, o, "/output", "trace_every", 1, INT64_C(1) << 53,
                &s->output.trace_every);
    sp_int64_in(c, o, "/output", "snapshot_every", 0, INT64_C(1) << 53,
                &s->output.snapshot_every);
    sp_bool(c, o, "/output", "dense_iterate", &s->output.dense_iterate);
}

/* {"compute": bool, "tol", ...} or {"g_opt": value}: not both. */
static void parse_reference(sp_ctx *c, const cJSON *r, api_spec *s)
{
    api_reference_spec *ref = &s->ref;
    if (!r || !sp_members(c, r, "/reference", REF_MEMBERS))
        return;
    if (sp_number(c, r, "/reference", "g_opt", &ref->g_opt) > 0) {
        for (int i = 0; REF_MEMBERS[i + 1]; i++)
            if (sp_get(r, REF_MEMBERS[i])) {
                char p[SP_PTR];
                sp_ptr(p, "/reference", REF_MEMBERS[i]);
                sp_err(c, p, "not allowed together with \"g_opt\"");
            }
        return;
    }
    sp_bool(c, r, "/reference", "compute", &ref->compute);
    sp_number_in(c, r, "/reference", "tol", 0, 1, INFINITY, 0, &ref->settings.tol);
    sp_int64_in(c, r, "/reference", "max_iter", 1, INT64_C(1) << 53,
                &ref->settings.max_iter);
    sp_number_in(c, r, "/reference", "time_limit", 0, 0, INFINITY, 0,
                 &ref->settings.time_limit);
    sp_number_in(c, r, "/reference", "lmo_tol", 0, 1, 1, 1, &ref->settings.lmo_tol);
}

static void parse_problem(sp_ctx *c, const cJSON *pb, api_spec *s)
{
    int k = -1;
    if (!pb) {
        sp_err(c, "/problem", "missing required member \"problem\"");
        return;
    }
    if (!cJSON_IsObject(pb)) {
        sp_members(c, pb, "/problem", PROBLEM_TYPES); /* records the type error */
        return;
    }
    if (!sp_get(pb, "type")) {
        sp_err(c, "/problem/type", "missing required member \"type\"");
        return;
    }
    if (sp_enum(c, pb, "/problem", "type", PROBLEM_TYPES, &k) <= 0)
        return;
    s->kind = k == 0 ? IRCG_PROBLEM_MATRIX_COMPLETION : IRCG_PROBLEM_LEAST_SQUARES;
    if (k == 0)
        sp_parse_mc(c, pb, s);
    else
        sp_parse_ls(c, pb, s);
}

/* Defaults of everything outside the problem section. */
static void spec_defaults(api_spec *s)
{
    ircg_settings_default(&s->settings);
    ircg_reference_settings_default(&s->ref.settings);
    s->ref.g_opt = NAN;
    s->output.trace_every = 1;
}

/* 1-based line and column of byte offset off. */
static void locate(const char *json, size_t off, long *line, long *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (json[i] == '\n') {
            ++*line;
            *col = 1;
        } else {
            ++*col;
        }
    }
}

/* Parse the text; on a syntax error record its position. cJSON's global
 * error pointer is never read (not thread-safe): return_parse_end is.
 * Whitespace (and one final NUL) may follow the value, nothing else. */
static cJSON *parse_text(const char *json, size_t len, sp_ctx *c)
{
    const char *end = NULL, *why = "malformed JSON";
    cJSON *root = json && len ? cJSON_ParseWithLengthOpts(json, len, &end, 0) : NULL;
    size_t off = end && end >= json ? (size_t)(end - json) : 0;
    if (root) {
        while (off < len && json[off] && strchr(" \t\r\n", json[off]))
            off++;
        if (off == len || (off == len - 1 && json[off] == '\0'))
            return root;
        cJSON_Delete(root);
        why = "unexpected characters after the JSON value";
    } else if (off >= len) {
        why = "unexpected end of input";
    }
    off = off > len ? len : off;
    long line = 1, col = 1;
    locate(json ? json : "", json ? off : 0, &line, &col);
    if (c->errs) {
        c->errs->syntax = 1;
        c->errs->offset = off;
        c->errs->line = line;
        c->errs->column = col;
    }
    sp_err(c, "", "%s at line %ld, column %ld (byte %zu)", why, line, col, off);
    return NULL;
}

/* Trial run of the solver setup: catches x0 membership and any check the
 * solver does against the problem. */
static void trial_solver(sp_ctx *c, api_spec *s)
{
    ircg_solver *sv = NULL;
    ircg_diag d = {0};
    ircg_settings st = s->settings;
    ircg_problem_info info;
    ircg_problem_get_info(s->problem, &info);
    if (s->x0 && s->x0_len != info.dim) { /* the solver cannot see x0's length */
        sp_err(c, "/algorithm/start/x0", "length %lld does not match the %lld variables%s",
               (long long)s->x0_len, (long long)info.dim,
               s->kind == IRCG_PROBLEM_MATRIX_COMPLETION ? " (n_rows x n_cols, column-major)" : "");
        return;
    }
    if (ircg_settings_validate(&st, &d) != IRCG_OK) {
        sp_diag(c, strcmp(d.field, "/x0") == 0 ? "/algorithm/start" : "/algorithm", &d);
        return;
    }
    memset(&d, 0, sizeof d);
    if (ircg_solver_new(s->problem, &st, &sv, &d) != IRCG_OK)
        sp_diag(c, strcmp(d.field, "/x0") == 0 ? "/algorithm/start" : "/algorithm", &d);
    ircg_solver_free(sv);
}

static void parse_root(sp_ctx *c, const cJSON *root, api_spec *s)
{
    if (!sp_members(c, root, "", TOP_MEMBERS))
        return;
    parse_problem(c, sp_get(root, "problem"), s);
    parse_algorithm(c, sp_get(root, "algorithm"), s);
    parse_output(c, sp_get(root, "output"), s);
    parse_reference(c, sp_get(root, "reference"), s);
    s->ref.settings.threads = s->settings.threads;
    if (c->nerr || !c->opt->build)
        return;
    if (s->kind == IRCG_PROBLEM_MATRIX_COMPLETION)
        sp_build_mc(c, s);
    else
        sp_build_ls(c, s);
    if (!c->nerr && s->problem)
        trial_solver(c, s);
}

int api_spec_parse(const char *json, size_t len, const api_parse_options *opt,
                   api_spec **out, api_errors *errs)
{
    api_parse_options def;
    api_parse_options_default(&def);
    sp_ctx c = {errs, opt ? opt : &def, 0};
    api_spec *s = calloc(1, sizeof *s);
    cJSON *root = NULL;
    if (out)
        *out = NULL;
    if (!s) {
        sp_err(&c, "", "out of memory");
        goto done;
    }
    spec_defaults(s);
    root = parse_text(json, len, &c);
    if (root)
        parse_root(&c, root, s);
done:
    cJSON_Delete(root);
    if (c.nerr > API_MAX_ERRORS)
        api_errors_add(errs, "", "%d more errors not listed", c.nerr - API_MAX_ERRORS);
    if (c.nerr || !out)
        api_spec_free(s);
    else
        *out = s;
    return c.nerr;
}

void api_spec_free(api_spec *s)
{
    if (!s)
        return;
    free(s->mc.path);
    free(s->mc.resolved);
    ircg_ratings_free(s->mc.inline_r);
    free(s->mc.dataset_id);
    free(s->ls.A);
    free(s->ls.rowptr);
    free(s->ls.colind);
    free(s->ls.val);
    free(s->ls.b);
    free(s->ls.A_path);
    free(s->ls.A_resolved);
    free(s->ls.b_path);
    free(s->ls.b_resolved);
    free(s->ls.c);
    free(s->ls.Q);
    free(s->ls.q);
    free(s->x0);
    ircg_problem_free(s->problem);
    free(s);
}

const ircg_problem *api_spec_problem(const api_spec *s) { return s ? s->problem : NULL; }
ircg_problem_kind api_spec_kind(const api_spec *s) { return s->kind; }

void api_spec_settings(const api_spec *s, ircg_settings *out)
{
    *out = s->settings;
    out->g_opt = s->ref.g_opt;
}

void api_spec_reference(const api_spec *s, api_reference_spec *out) { *out = s->ref; }
void api_spec_output(const api_spec *s, api_output_spec *out) { *out = s->output; }
