/*
 * spec_parse.c -- the entry point: JSON text -> api_spec.  Parses the
 * top level, "output" and "reference", and runs the build stage of each
 * section; the problem sections live in spec_problem_mc.c and
 * spec_problem_ls.c, the algorithm in spec_algorithm.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

static const char *const TOP_MEMBERS[] = {"problem", "algorithm", "output",
                                          "reference", "execution", NULL};
static const char *const OUT_MEMBERS[] = {"trace_every", "snapshot_every",
                                          "dense_iterate", NULL};
static const char *const REF_MEMBERS[] = {"compute", "tol", "max_iter",
                                          "time_limit", "lmo_tol", "g_opt", NULL};
static const char *const PROBLEM_TYPES[] = {"matrix_completion", "least_squares",
                                            "logistic_regression", NULL};
/* The members of any problem type: checked when the type is unknown. */
static const char *const ANY_PROBLEM_MEMBERS[] = {"type", "data", "delta", "outer",
                                                  "domain", NULL};

void api_parse_options_default(api_parse_options *o)
{
    memset(o, 0, sizeof *o);
    o->build = 1;
}

void api_parse_options_service(api_parse_options *o, const char *data_dir,
                               int64_t max_elements, api_dataset_fn dataset,
                               void *dataset_user)
{
    api_parse_options_default(o);
    o->base_dir = data_dir;
    o->confine_paths = 1;
    o->max_elements = max_elements;
    o->dataset = dataset;
    o->dataset_user = dataset_user;
}

static void parse_output(sp_ctx *c, const cJSON *o, api_spec *s)
{
    if (!o || !sp_members(c, o, "/output", OUT_MEMBERS))
        return;
    sp_int64_in(c, o, "/output", "trace_every", 1, INT64_C(1) << 53,
                &s->output.trace_every);
    sp_int64_in(c, o, "/output", "snapshot_every", 0, INT64_C(1) << 53,
                &s->output.snapshot_every);
    const cJSON *d = sp_get(o, "dense_iterate");
    if (cJSON_IsString(d) && d->valuestring && !strcmp(d->valuestring, "auto"))
        s->dense = SP_DENSE_AUTO_MODE;
    else if (cJSON_IsBool(d))
        s->dense = cJSON_IsTrue(d) ? SP_DENSE_YES : SP_DENSE_NO;
    else if (d)
        sp_err(c, "/output/dense_iterate", "wrong type: expected \"auto\", true or false");
}

/* "dense_iterate": true asks for n_rows x n_cols numbers (twice: x and z);
 * refused above SP_DENSE_MAX, once the dimensions are known. */
static void build_output(sp_ctx *c, const api_spec *s, int64_t dim)
{
    if (s->kind == IRCG_PROBLEM_MATRIX_COMPLETION && s->dense == SP_DENSE_YES &&
        dim > SP_DENSE_MAX)
        sp_err(c, "/output/dense_iterate", "out of range: a dense iterate of %lld entries "
               "is too large (at most %d; use the factored iterate)", (long long)dim,
               SP_DENSE_MAX);
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
        sp_members(c, pb, "/problem", ANY_PROBLEM_MEMBERS);
        sp_err(c, "/problem/type", "missing required member \"type\"");
        return;
    }
    if (sp_enum(c, pb, "/problem", "type", PROBLEM_TYPES, &k) <= 0) {
        sp_members(c, pb, "/problem", ANY_PROBLEM_MEMBERS);
        return;
    }
    s->kind = k == 0 ? IRCG_PROBLEM_MATRIX_COMPLETION
              : k == 1 ? IRCG_PROBLEM_LEAST_SQUARES : IRCG_PROBLEM_LOGISTIC;
    s->typed = 1;
    if (k == 0)
        sp_parse_mc(c, pb, s);
    else
        sp_parse_ls(c, pb, s, k == 2);
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

/* Shape first, section by section; then the build stage of every section
 * whose own members were clean (so an error elsewhere never hides a bad
 * data file, a dimension mismatch or an x0 outside X). */
static void parse_root(sp_ctx *c, const cJSON *root, api_spec *s)
{
    if (!sp_members(c, root, "", TOP_MEMBERS))
        return;
    int e0 = c->nerr;
    parse_problem(c, sp_get(root, "problem"), s);
    int problem_ok = c->nerr == e0;
    /* the execution first: auto chooses IR-CG for a distributed solve */
    sp_parse_execution(c, sp_get(root, "execution"), s);
    e0 = c->nerr;
    sp_parse_algorithm(c, sp_get(root, "algorithm"), s);
    int alg_ok = c->nerr == e0;
    if (alg_ok && s->typed)
        sp_check_start(c, s, problem_ok);
    e0 = c->nerr;
    parse_output(c, sp_get(root, "output"), s);
    int out_ok = c->nerr == e0;
    parse_reference(c, sp_get(root, "reference"), s);
    s->ref.settings.threads = s->settings.threads;
    sp_check_execution(c, s, problem_ok, alg_ok);
    /* what the job will hold, before anything is loaded: over the budget,
     * nothing is built (a distributed job's memory is its ranks', on the
     * launcher's hosts: not held to this process's budget) */
    int e1 = c->nerr;
    if (problem_ok && sp_estimate(s, c->opt, &s->est) && !s->ranks && !c->opt->distributed)
        sp_check_budget(c, &s->est, "");
    if (!c->opt->build || !s->typed || c->nerr > e1)
        return;
    int64_t dim = s->kind == IRCG_PROBLEM_MATRIX_COMPLETION ? sp_build_mc(c, s)
                                                            : sp_build_ls(c, s);
    if (alg_ok) {
        sp_build_algorithm(c, s, dim);
        sp_build_start(c, s);
    }
    if (out_ok)
        build_output(c, s, dim);
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
    s->parse_bytes = api_json_parse_bytes(json ? json : "", json ? len : 0);
    s->certify_async = c.opt->certify_async;
    sp_check_parse_budget(&c, s->parse_bytes);
    root = c.nerr ? NULL : parse_text(json, len, &c);
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
    sp_mat_free(&s->ls.tr);
    sp_mat_free(&s->ls.va);
    free(s->ls.features_path);
    free(s->ls.features_resolved);
    free(s->ls.c);
    free(s->ls.Q);
    free(s->ls.q);
    free(s->x0);
    free(s->start.job);
    ircg_problem_free(s->problem);
    free(s);
}

const ircg_problem *api_spec_problem(const api_spec *s) { return s ? s->problem : NULL; }
ircg_problem_kind api_spec_kind(const api_spec *s) { return s->kind; }

int api_spec_threads_given(const api_spec *s) { return s->threads_given; }

void api_spec_settings(const api_spec *s, ircg_settings *out)
{
    *out = s->settings;
    out->g_opt = s->ref.g_opt;
    if (s->start.resolved && !s->start.afresh)
        out->max_iter += s->start.iteration;
}

void api_spec_reference(const api_spec *s, api_reference_spec *out) { *out = s->ref; }
/* dense_iterate resolved: "auto" means yes for small matrix completion
 * iterates (n_rows x n_cols <= SP_DENSE_AUTO). */
void api_spec_output(const api_spec *s, api_output_spec *out)
{
    *out = s->output;
    out->dense_iterate = s->dense == SP_DENSE_YES;
    if (s->dense == SP_DENSE_AUTO_MODE && s->problem) {
        ircg_problem_info info;
        ircg_problem_get_info(s->problem, &info);
        out->dense_iterate = info.kind == IRCG_PROBLEM_MATRIX_COMPLETION &&
                             info.dim <= SP_DENSE_AUTO;
    }
}
