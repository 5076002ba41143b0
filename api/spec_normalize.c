/*
 * spec_normalize.c -- the normalized spec: every default filled in, so a
 * client sees exactly what will run, and parsing it again gives the same
 * document.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"
#include "spec_internal.h"

#define SUMMARY_LIMIT 1000 /* numbers of inline data echoed when summarizing */

/* By ircg_ratings_format; NULL-terminated for sp_enum. */
const char *const API_FORMAT_NAMES[] = {"auto", "movielens", "udata", "csv",
                                        "matrix_market", NULL};

const char *api_format_name(ircg_ratings_format f)
{
    return (unsigned)f <= IRCG_FORMAT_MATRIX_MARKET ? API_FORMAT_NAMES[f] : "unknown";
}

int api_format_parse(const char *name, ircg_ratings_format *out)
{
    for (int i = 0; name && API_FORMAT_NAMES[i]; i++)
        if (!strcmp(name, API_FORMAT_NAMES[i])) {
            *out = (ircg_ratings_format)i;
            return 1;
        }
    return 0;
}

const char *api_outer_name(ircg_outer_kind k)
{
    static const char *const n[] = {"column_variance", "half_norm_sq", "dist_sq",
                                    "quadratic", "validation"};
    return (unsigned)k < 5 ? n[k] : "unknown";
}

const char *api_problem_type_name(ircg_problem_kind k)
{
    static const char *const n[] = {"matrix_completion", "least_squares",
                                    "logistic_regression"};
    return (unsigned)k < 3 ? n[k] : "unknown";
}

const char *api_domain_name(ircg_domain_kind k)
{
    static const char *const n[] = {"nuclear_ball", "l2_ball", "l1_ball", "simplex",
                                    "box"};
    return (unsigned)k < 5 ? n[k] : "unknown";
}

static cJSON *num_array(const double *v, int64_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (int64_t i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

/* Row-major rows x cols -> array of row arrays. */
static cJSON *matrix(const double *v, int rows, int cols)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < rows; i++)
        cJSON_AddItemToArray(a, num_array(v + (size_t)i * (size_t)cols, cols));
    return a;
}

static cJSON *mc_data(const sp_mc *mc, int summarize)
{
    static const char *const SRC[] = {"file", "inline", "synthetic", "dataset"};
    cJSON *d = cJSON_CreateObject();
    const ircg_synth_ratings_spec *y = &mc->synth;
    cJSON_AddStringToObject(d, "source", SRC[mc->source]);
    if (mc->source == SP_SRC_FILE) {
        cJSON_AddStringToObject(d, "path", mc->path);
        cJSON_AddStringToObject(d, "format", api_format_name(mc->format));
        cJSON_AddNumberToObject(d, "n_rows", mc->n_rows);
        cJSON_AddNumberToObject(d, "n_cols", mc->n_cols);
    } else if (mc->source == SP_SRC_INLINE) {
        const ircg_ratings *r = mc->inline_r;
        if (summarize && 3 * r->nnz > SUMMARY_LIMIT) {
            cJSON_AddNumberToObject(d, "n_ratings", (double)r->nnz);
            cJSON_AddBoolToObject(d, "elided", 1);
        } else {
            cJSON *a = cJSON_AddArrayToObject(d, "ratings");
            for (int64_t i = 0; a && i < r->nnz; i++) {
                double t[3] = {r->row[i] + 1.0, r->col[i] + 1.0, r->val[i]};
                cJSON_AddItemToArray(a, num_array(t, 3));
            }
        }
        cJSON_AddNumberToObject(d, "n_rows", r->n_rows);
        cJSON_AddNumberToObject(d, "n_cols", r->n_cols);
    } else if (mc->source == SP_SRC_SYNTHETIC) {
        cJSON_AddNumberToObject(d, "n_rows", y->n_rows);
        cJSON_AddNumberToObject(d, "n_cols", y->n_cols);
        cJSON_AddNumberToObject(d, "rank", y->rank);
        cJSON_AddNumberToObject(d, "n_ratings", (double)y->n_ratings);
        cJSON_AddNumberToObject(d, "min_rating", y->min_rating);
        cJSON_AddNumberToObject(d, "max_rating", y->max_rating);
        cJSON_AddNumberToObject(d, "noise", y->noise);
        cJSON_AddNumberToObject(d, "seed", (double)y->seed);
    } else {
        cJSON_AddStringToObject(d, "id", mc->dataset_id);
    }
    return d;
}

static cJSON *ls_inline_A(const sp_mat *ls)
{
    if (ls->a_kind == SP_A_DENSE)
        return matrix(ls->A, ls->m, ls->n);
    cJSON *a = cJSON_CreateObject();
    int64_t nnz = ls->rowptr[ls->m];
    double *rp = malloc(((size_t)ls->m + 1) * sizeof *rp);
    double *ci = malloc((size_t)(nnz ? nnz : 1) * sizeof *ci);
    for (int i = 0; rp && i <= ls->m; i++)
        rp[i] = (double)ls->rowptr[i];
    for (int64_t i = 0; ci && i < nnz; i++)
        ci[i] = ls->colind[i];
    cJSON_AddStringToObject(a, "format", "csr");
    if (rp && ci) {
        cJSON_AddItemToObject(a, "rowptr", num_array(rp, ls->m + 1));
        cJSON_AddItemToObject(a, "colind", num_array(ci, nnz));
        cJSON_AddItemToObject(a, "values", num_array(ls->val, nnz));
    }
    free(rp);
    free(ci);
    return a;
}

/* File members of one matrix: A_path, and b or b_path. */
static void ls_file_members(cJSON *d, const sp_mat *mt, const char *a, const char *b,
                            const char *bp)
{
    cJSON_AddStringToObject(d, a, mt->A_path);
    if (mt->b_path)
        cJSON_AddStringToObject(d, bp, mt->b_path);
    else
        cJSON_AddItemToObject(d, b, num_array(mt->b, mt->b_len));
}

static int64_t inline_size(const sp_mat *mt)
{
    int64_t a = mt->a_kind == SP_A_DENSE ? (int64_t)mt->m * mt->n : 2 * mt->rowptr[mt->m];
    return a + mt->m;
}

/* The datasets of one matrix: its id, and b_id or b (a LIBSVM matrix's
 * labels are its b). */
static void ls_dataset_members(cJSON *d, const sp_mat *mt, const char *a, const char *b,
                               const char *bid)
{
    cJSON_AddStringToObject(d, a, mt->A_id);
    if (mt->fmt == SP_FMT_LIBSVM)
        return;
    if (mt->b_id)
        cJSON_AddStringToObject(d, bid, mt->b_id);
    else
        cJSON_AddItemToObject(d, b, num_array(mt->b, mt->b_len));
}

static cJSON *ls_data(const sp_ls *ls, int summarize)
{
    static const char *const SRC[] = {"file", "inline", "synthetic", "dataset"};
    cJSON *d = cJSON_CreateObject();
    const sp_mat *tr = &ls->tr, *va = &ls->va;
    cJSON_AddStringToObject(d, "source", SRC[ls->source]);
    if (ls->source == SP_SRC_SYNTHETIC) {
        cJSON_AddStringToObject(d, "shape", SP_SHAPE_NAMES[ls->shape]);
        cJSON_AddNumberToObject(d, "m", tr->m);
        cJSON_AddNumberToObject(d, "n", tr->n);
        if (ls->shape == IRCG_SHAPE_SPARSE)
            cJSON_AddNumberToObject(d, "nnz_row", ls->nnz_row);
        if (ls->features_path)
            cJSON_AddStringToObject(d, "features_path", ls->features_path);
        if (ls->m_val)
            cJSON_AddNumberToObject(d, "m_val", ls->m_val);
        cJSON_AddNumberToObject(d, "noise", ls->noise);
        cJSON_AddNumberToObject(d, "seed", (double)ls->seed);
        return d;
    }
    if (ls->source == SP_SRC_FILE) {
        /* the format as given, or LIBSVM as told (whose b is its labels) */
        int svm = tr->fmt == SP_FMT_LIBSVM;
        if (ls->format != SP_FMT_AUTO || svm)
            cJSON_AddStringToObject(d, "format", SP_MFMT_NAMES[svm ? SP_FMT_LIBSVM : ls->format]);
        if (svm)
            cJSON_AddStringToObject(d, "A_path", tr->A_path);
        else
            ls_file_members(d, tr, "A_path", "b", "b_path");
        if (ls->has_val && svm)
            cJSON_AddStringToObject(d, "A_val_path", va->A_path);
        else if (ls->has_val)
            ls_file_members(d, va, "A_val_path", "b_val", "b_val_path");
        if (ls->positive_given) /* the map of the labels, given or told */
            cJSON_AddNumberToObject(d, "positive", ls->positive);
        /* the dimensions read (or, unbuilt, those the spec gave) */
        int m = ls->loaded ? tr->m : tr->m_given, n = ls->loaded ? tr->n : tr->n_given;
        if (m > 0)
            cJSON_AddNumberToObject(d, "m", m);
        if (n > 0)
            cJSON_AddNumberToObject(d, "n", n);
        return d;
    }
    if (ls->source == SP_SRC_DATASET) {
        ls_dataset_members(d, tr, "id", "b", "b_id");
        if (ls->has_val)
            ls_dataset_members(d, va, "A_val_id", "b_val", "b_val_id");
        if (ls->positive_given)
            cJSON_AddNumberToObject(d, "positive", ls->positive);
        cJSON_AddNumberToObject(d, "m", tr->m); /* known from the upload */
        cJSON_AddNumberToObject(d, "n", tr->n);
        return d;
    }
    int64_t size = inline_size(tr) + (ls->has_val ? inline_size(va) : 0);
    if (summarize && size > SUMMARY_LIMIT)
        cJSON_AddBoolToObject(d, "elided", 1);
    else {
        cJSON_AddItemToObject(d, "A", ls_inline_A(tr));
        cJSON_AddItemToObject(d, "b", num_array(tr->b, tr->m));
        if (ls->has_val) {
            cJSON_AddItemToObject(d, "A_val", ls_inline_A(va));
            cJSON_AddItemToObject(d, "b_val", num_array(va->b, va->m));
        }
    }
    cJSON_AddNumberToObject(d, "m", tr->m);
    cJSON_AddNumberToObject(d, "n", tr->n);
    return d;
}

static cJSON *ls_outer(const sp_ls *ls)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", api_outer_name(ls->outer));
    if (ls->outer == IRCG_OUTER_DIST_SQ)
        cJSON_AddItemToObject(o, "c", num_array(ls->c, ls->c_len));
    if (ls->outer == IRCG_OUTER_QUADRATIC) {
        cJSON_AddItemToObject(o, "Q", matrix(ls->Q, ls->Q_dim, ls->Q_dim));
        if (ls->q)
            cJSON_AddItemToObject(o, "q", num_array(ls->q, ls->q_len));
    }
    return o;
}

cJSON *sp_norm_problem(const api_spec *s, int summarize)
{
    cJSON *p = cJSON_CreateObject();
    if (s->kind == IRCG_PROBLEM_MATRIX_COMPLETION) {
        cJSON_AddStringToObject(p, "type", api_problem_type_name(s->kind));
        cJSON_AddItemToObject(p, "data", mc_data(&s->mc, summarize));
        cJSON_AddNumberToObject(p, "delta", s->mc.delta);
        cJSON_AddStringToObject(p, "outer", api_outer_name(s->mc.outer));
        return p;
    }
    const ircg_domain *dm = &s->ls.domain;
    cJSON_AddStringToObject(p, "type", api_problem_type_name(s->kind));
    cJSON_AddItemToObject(p, "data", ls_data(&s->ls, summarize));
    cJSON *d = cJSON_AddObjectToObject(p, "domain");
    cJSON_AddStringToObject(d, "type", api_domain_name(dm->kind));
    if (dm->kind == IRCG_DOMAIN_BOX) {
        cJSON_AddNumberToObject(d, "lower", dm->lower);
        cJSON_AddNumberToObject(d, "upper", dm->upper);
    } else {
        cJSON_AddNumberToObject(d, "radius", dm->radius);
    }
    cJSON_AddItemToObject(p, "outer", ls_outer(&s->ls));
    return p;
}

static cJSON *norm_reference(const api_spec *s)
{
    const api_reference_spec *r = &s->ref;
    cJSON *o = cJSON_CreateObject();
    if (!isnan(r->g_opt)) {
        cJSON_AddNumberToObject(o, "g_opt", r->g_opt);
        return o;
    }
    cJSON_AddBoolToObject(o, "compute", r->compute);
    cJSON_AddNumberToObject(o, "tol", r->settings.tol);
    cJSON_AddNumberToObject(o, "max_iter", (double)r->settings.max_iter);
    cJSON_AddNumberToObject(o, "time_limit", r->settings.time_limit);
    cJSON_AddNumberToObject(o, "lmo_tol", r->settings.lmo_tol);
    return o;
}

/* Every number as the shortest text that reads back to the same double
 * (api_fmt_double).  cJSON prints "%1.15g" whenever it reads back within
 * DBL_EPSILON times the value, which is not the same double: a spec
 * printed that way and parsed again (the service stores the normalized
 * spec, which its worker parses) would hold data and settings off by an
 * ulp from the ones submitted. */
static void exact_numbers(cJSON *item)
{
    for (; item; item = item->next) {
        if (cJSON_IsNumber(item)) {
            char num[32];
            char *text = strdup(api_fmt_double(num, item->valuedouble));
            if (text) {
                item->type = cJSON_Raw;
                item->valuestring = text;
            }
        }
        exact_numbers(item->child);
    }
}

char *api_spec_normalized_json(const api_spec *s, int flags)
{
    char *out = NULL;
    cJSON *root = s ? cJSON_CreateObject() : NULL;
    if (!root)
        return NULL;
    cJSON_AddItemToObject(root, "problem", sp_norm_problem(s, flags & API_NORM_SUMMARIZE));
    cJSON_AddItemToObject(root, "algorithm", sp_norm_algorithm(s));
    cJSON *o = cJSON_AddObjectToObject(root, "output");
    cJSON_AddNumberToObject(o, "trace_every", (double)s->output.trace_every);
    cJSON_AddNumberToObject(o, "snapshot_every", (double)s->output.snapshot_every);
    if (s->dense == SP_DENSE_AUTO_MODE)
        cJSON_AddStringToObject(o, "dense_iterate", "auto");
    else
        cJSON_AddBoolToObject(o, "dense_iterate", s->dense == SP_DENSE_YES);
    cJSON_AddItemToObject(root, "reference", norm_reference(s));
    sp_norm_execution(s, root);
    exact_numbers(root);
    out = cJSON_Print(root);
    cJSON_Delete(root);
    return out;
}
