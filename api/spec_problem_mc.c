/*
 * spec_problem_mc.c -- the "matrix_completion" problem section: its data
 * sources (file, inline triplets, synthetic, dataset) and the build of the
 * ircg_problem.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

static const char *const MC_MEMBERS[] = {"type", "data", "delta", "outer", NULL};
static const char *const SOURCES[] = {"file", "inline", "synthetic", "dataset", NULL};
static const char *const FILE_MEMBERS[] = {"source", "path", "format", "n_rows",
                                           "n_cols", NULL};
static const char *const INLINE_MEMBERS[] = {"source", "ratings", "n_rows",
                                             "n_cols", NULL};
static const char *const SYNTH_MEMBERS[] = {
    "source", "n_rows", "n_cols", "rank", "n_ratings", "min_rating",
    "max_rating", "noise", "seed", NULL};
static const char *const DATASET_MEMBERS[] = {"source", "id", NULL};
static const char *const MC_OUTERS[] = {"column_variance", "half_norm_sq", NULL};

#define DP "/problem/data"

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void parse_file(sp_ctx *c, const cJSON *d, sp_mc *mc)
{
    const char *path = NULL;
    int k = 0;
    if (!sp_members(c, d, DP, FILE_MEMBERS))
        return;
    if (sp_string(c, d, DP, "path", &path) == 0)
        sp_err(c, DP "/path", "missing required member \"path\"");
    if (sp_enum(c, d, DP, "format", API_FORMAT_NAMES, &k) > 0)
        mc->format = (ircg_ratings_format)k;
    sp_int_in(c, d, DP, "n_rows", 0, SP_MAX_DIM, &mc->n_rows);
    sp_int_in(c, d, DP, "n_cols", 0, SP_MAX_DIM, &mc->n_cols);
    if (path) {
        mc->path = dup_str(path);
        mc->resolved = sp_resolve_path(c, DP "/path", path);
    }
    if (mc->resolved && !c->opt->build) {
        ircg_read_options ro = {mc->format, mc->n_rows, mc->n_cols, 0};
        sp_probe_file(c, DP "/path", mc->path, mc->resolved, &ro);
    }
}

/* One [user, item, rating] triplet at index i. */
static int read_triplet(sp_ctx *c, const cJSON *t, long long i, const sp_mc *mc,
                        ircg_ratings *r)
{
    char p[SP_PTR], q[SP_PTR];
    sp_ptr_idx(p, DP "/ratings", i);
    if (!cJSON_IsArray(t) || cJSON_GetArraySize(t) != 3) {
        sp_err(c, p, "wrong type: expected [user, item, rating]");
        return 0;
    }
    const cJSON *u = t->child, *m = u->next, *v = m->next;
    int ok = 1;
    const cJSON *ids[2] = {u, m};
    const int lim[2] = {mc->n_rows, mc->n_cols};
    for (int j = 0; j < 2; j++) {
        sp_ptr_idx(q, p, j);
        if (!sp_is_int(ids[j], 1, 2147483647.0)) {
            sp_err(c, q, "%s id must be an integer >= 1", j ? "item" : "user");
            ok = 0;
        } else if (lim[j] > 0 && ids[j]->valuedouble > lim[j]) {
            sp_err(c, q, "%s id %.0f exceeds %s %d", j ? "item" : "user",
                   ids[j]->valuedouble, j ? "n_cols" : "n_rows", lim[j]);
            ok = 0;
        }
    }
    sp_ptr_idx(q, p, 2);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
        sp_err(c, q, "rating must be a finite number");
        ok = 0;
    } else if (fabs(v->valuedouble) > SP_MAX_VALUE) {
        sp_err(c, q, "out of range: |rating| must be <= %g, got %.17g", SP_MAX_VALUE,
               v->valuedouble);
        ok = 0;
    }
    if (ok) {
        r->row[i] = (int32_t)u->valuedouble - 1;
        r->col[i] = (int32_t)m->valuedouble - 1;
        r->val[i] = v->valuedouble;
    }
    return ok;
}

/* Report every repeated (user, item) pair; sorts an index array. */
typedef struct sp_pair {
    int64_t key;
    int64_t idx;
} sp_pair;

static int cmp_pair(const void *a, const void *b)
{
    const sp_pair *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void check_duplicates(sp_ctx *c, const ircg_ratings *r)
{
    sp_pair *p = malloc((size_t)(r->nnz ? r->nnz : 1) * sizeof *p);
    if (!p) {
        sp_err(c, DP "/ratings", "out of memory");
        return;
    }
    for (int64_t i = 0; i < r->nnz; i++)
        p[i] = (sp_pair){(int64_t)r->row[i] * 2147483648LL + r->col[i], i};
    qsort(p, (size_t)r->nnz, sizeof *p, cmp_pair);
    for (int64_t i = 1; i < r->nnz; i++)
        if (p[i].key == p[i - 1].key) {
            char q[SP_PTR];
            sp_ptr_idx(q, DP "/ratings", p[i].idx);
            sp_err(c, q, "duplicate rating of user %d, item %d (first at index %lld)",
                   r->row[p[i].idx] + 1, r->col[p[i].idx] + 1,
                   (long long)p[i - 1].idx);
        }
    free(p);
}

/* Dimensions: given, else the largest ids (the paper's convention). */
static void inline_dims(ircg_ratings *r, const sp_mc *mc)
{
    int nr = 0, nc = 0;
    for (int64_t i = 0; i < r->nnz; i++) {
        nr = r->row[i] + 1 > nr ? r->row[i] + 1 : nr;
        nc = r->col[i] + 1 > nc ? r->col[i] + 1 : nc;
    }
    r->n_rows = mc->n_rows > 0 ? mc->n_rows : nr;
    r->n_cols = mc->n_cols > 0 ? mc->n_cols : nc;
}

static void parse_inline(sp_ctx *c, const cJSON *d, sp_mc *mc)
{
    if (!sp_members(c, d, DP, INLINE_MEMBERS))
        return;
    sp_int_in(c, d, DP, "n_rows", 0, SP_MAX_DIM, &mc->n_rows);
    sp_int_in(c, d, DP, "n_cols", 0, SP_MAX_DIM, &mc->n_cols);
    const cJSON *a = sp_get(d, "ratings");
    if (!a) {
        sp_err(c, DP "/ratings", "missing required member \"ratings\"");
        return;
    }
    int64_t n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
    if (n < 1) {
        sp_err(c, DP "/ratings", n < 0 ? "wrong type: expected an array of "
                                         "[user, item, rating]"
                                       : "must hold at least one rating");
        return;
    }
    if (c->opt->max_elements > 0 && n > c->opt->max_elements) {
        sp_err(c, DP "/ratings", "too many ratings: %lld > limit %lld",
               (long long)n, (long long)c->opt->max_elements);
        return;
    }
    ircg_ratings *r = ircg_ratings_new(1, 1, n);
    if (!r) {
        sp_err(c, DP "/ratings", "out of memory");
        return;
    }
    int ok = 1;
    long long i = 0;
    for (const cJSON *t = a->child; t; t = t->next, i++)
        ok &= read_triplet(c, t, i, mc, r);
    if (ok) {
        inline_dims(r, mc);
        check_duplicates(c, r);
    }
    mc->inline_r = r;
}

static void parse_synthetic(sp_ctx *c, const cJSON *d, sp_mc *mc)
{
    ircg_synth_ratings_spec *y = &mc->synth;
    int64_t seed = (int64_t)y->seed;
    if (!sp_members(c, d, DP, SYNTH_MEMBERS))
        return;
    sp_int_in(c, d, DP, "n_rows", 1, SP_MAX_DIM, &y->n_rows);
    sp_int_in(c, d, DP, "n_cols", 1, SP_MAX_DIM, &y->n_cols);
    int64_t cells = (int64_t)y->n_rows * y->n_cols;
    int64_t cap = c->opt->max_elements > 0 && c->opt->max_elements < cells
                      ? c->opt->max_elements : cells;
    sp_int_in(c, d, DP, "rank", 1, y->n_rows < y->n_cols ? y->n_rows : y->n_cols,
              &y->rank);
    sp_int64_in(c, d, DP, "n_ratings", 1, cap, &y->n_ratings);
    sp_number_in(c, d, DP, "min_rating", -SP_MAX_VALUE, 0, SP_MAX_VALUE, 0, &y->min_rating);
    sp_number_in(c, d, DP, "max_rating", y->min_rating, 1, SP_MAX_VALUE, 0, &y->max_rating);
    sp_number_in(c, d, DP, "noise", 0, 0, SP_MAX_VALUE, 0, &y->noise);
    if (sp_int64_in(c, d, DP, "seed", 0, INT64_C(1) << 53, &seed) > 0)
        y->seed = (uint64_t)seed;
    /* defaults may violate the given sizes: re-check them together */
    if (y->rank > (y->n_rows < y->n_cols ? y->n_rows : y->n_cols) && !sp_get(d, "rank"))
        y->rank = y->n_rows < y->n_cols ? y->n_rows : y->n_cols;
    if (y->n_ratings > cells / 4 && !sp_get(d, "n_ratings"))
        y->n_ratings = cells / 4 > 0 ? cells / 4 : 1;
    /* the default within the element cap too, as a given value must be
     * (found by fuzzing: a default of 798k ratings under a cap of 20k) */
    if (y->n_ratings > cap && !sp_get(d, "n_ratings"))
        y->n_ratings = cap;
}

static void parse_dataset(sp_ctx *c, const cJSON *d, sp_mc *mc)
{
    const char *id = NULL;
    if (!sp_members(c, d, DP, DATASET_MEMBERS))
        return;
    if (sp_string(c, d, DP, "id", &id) == 0)
        sp_err(c, DP "/id", "missing required member \"id\"");
    if (id && !c->opt->dataset)
        sp_err(c, DP "/source", "datasets are only available through the service");
    if (id)
        mc->dataset_id = dup_str(id);
    if (id && c->opt->dataset && !c->opt->build) {
        ircg_diag dd = {0};
        if (c->opt->dataset(c->opt->dataset_user, id, NULL, &dd) != IRCG_OK)
            sp_err(c, DP "/id", "dataset %s: %s", id,
                   dd.message[0] ? dd.message : ircg_error_string(dd.code));
    }
}

/* Defaults: a MovieLens-1M-shaped synthetic instance. */
static void mc_defaults(sp_mc *mc)
{
    mc->delta = 5;
    mc->outer = IRCG_OUTER_COLUMN_VARIANCE;
    mc->format = IRCG_FORMAT_AUTO;
    mc->synth = (ircg_synth_ratings_spec){6040, 3952, 10, 1000209, 1, 5, 0.5, 1, 0};
}

static void parse_data(sp_ctx *c, const cJSON *d, sp_mc *mc)
{
    int k = 0;
    if (!sp_data_source(c, d, DP, SOURCES, &k))
        return;
    mc->source = (sp_source)k;
    if (k == SP_SRC_FILE)
        parse_file(c, d, mc);
    else if (k == SP_SRC_INLINE)
        parse_inline(c, d, mc);
    else if (k == SP_SRC_SYNTHETIC)
        parse_synthetic(c, d, mc);
    else
        parse_dataset(c, d, mc);
}

void sp_parse_mc(sp_ctx *c, const cJSON *pb, api_spec *s)
{
    sp_mc *mc = &s->mc;
    int k = 0;
    mc_defaults(mc);
    if (!sp_members(c, pb, "/problem", MC_MEMBERS))
        return;
    int e0 = c->nerr;
    sp_number_in(c, pb, "/problem", "delta", 0, 1, SP_MAX_SCALE, 0, &mc->delta);
    if (sp_enum(c, pb, "/problem", "outer", MC_OUTERS, &k) > 0)
        mc->outer = k == 0 ? IRCG_OUTER_COLUMN_VARIANCE : IRCG_OUTER_HALF_NORM_SQ;
    mc->model_ok = c->nerr == e0;
    e0 = c->nerr;
    parse_data(c, sp_get(pb, "data"), mc);
    mc->data_ok = c->nerr == e0;
}

/* Every rating within SP_MAX_VALUE (files and datasets; inline ratings
 * were checked member by member). */
static int values_ok(sp_ctx *c, const char *ptr, const char *name, const ircg_ratings *r)
{
    for (int64_t i = 0; i < r->nnz; i++)
        if (!sp_value_ok(c, ptr, r->val[i], "%s: the rating of user %d, item %d", name,
                         r->row[i] + 1, r->col[i] + 1))
            return 0;
    return 1;
}

/* Load or generate the ratings; NULL after recording an error. */
static ircg_ratings *load_ratings(sp_ctx *c, sp_mc *mc, int *owned)
{
    ircg_ratings *r = NULL;
    ircg_diag d = {0};
    ircg_read_options ro = {mc->format, mc->n_rows, mc->n_cols, 0};
    *owned = 1;
    if (mc->source == SP_SRC_INLINE) {
        *owned = 0;
        return mc->inline_r;
    }
    if (mc->source == SP_SRC_FILE) {
        sp_stamp before;
        sp_stamp_take(mc->resolved, &before);
        if (ircg_ratings_read_file(mc->resolved, &ro, &r, &d) != IRCG_OK)
            sp_file_diag(c, DP "/path", mc->path, &d);
        else if (!sp_stamp_same(c, DP "/path", mc->path, mc->resolved, &before) ||
                 !values_ok(c, DP "/path", mc->path, r))
            goto bad;
    } else if (mc->source == SP_SRC_SYNTHETIC) {
        if (ircg_synth_ratings(&mc->synth, &r, &d) != IRCG_OK)
            sp_diag(c, DP, &d);
    } else if (c->opt->dataset(c->opt->dataset_user, mc->dataset_id, &r, &d) != IRCG_OK) {
        sp_err(c, DP "/id", "dataset %s: %s", mc->dataset_id,
               d.message[0] ? d.message : ircg_error_string(d.code));
    } else if (!values_ok(c, DP "/id", mc->dataset_id, r)) {
        goto bad;
    }
    return r;
bad:
    ircg_ratings_free(r);
    return NULL;
}

/* The ratings when "data" is clean, then the problem when delta and outer
 * are too.  Returns n_rows x n_cols once the ratings are known. */
int64_t sp_build_mc(sp_ctx *c, api_spec *s)
{
    int owned = 0;
    sp_mc *mc = &s->mc;
    if (!mc->data_ok)
        return 0;
    ircg_ratings *r = load_ratings(c, mc, &owned);
    ircg_diag d = {0};
    if (!r)
        return 0;
    int64_t dim = (int64_t)r->n_rows * r->n_cols;
    if (mc->source == SP_SRC_FILE) { /* the normalized spec reports them */
        mc->n_rows = r->n_rows;
        mc->n_cols = r->n_cols;
    }
    /* a start matrix x0 is whole already: so is the problem built for it,
     * which starts from any x0 (a compacted one only from an x0 zero on
     * the rows and columns without ratings) */
    ircg_error (*make)(const ircg_ratings *, ircg_outer_kind, double, ircg_problem **,
                       ircg_diag *) = s->x0 ? ircg_problem_matrix_completion_whole
                                                 : ircg_problem_matrix_completion;
    if (mc->model_ok && make(r, mc->outer, mc->delta, &s->problem, &d) != IRCG_OK) {
        int top = strncmp(d.field, "/delta", 6) == 0 || strncmp(d.field, "/outer", 6) == 0;
        if (strcmp(d.field, "/ratings") == 0) /* the data as a whole */
            d.field[0] = '\0';
        sp_diag(c, top ? "/problem" : DP, &d);
    }
    if (owned)
        ircg_ratings_free(r);
    api_estimate exact; /* the sizes now known, before a solver is tried */
    if (s->problem && sp_estimate_built(s, &exact)) {
        int e0 = c->nerr;
        sp_check_budget(c, &exact, ", sizes of the data loaded");
        if (c->nerr > e0) {
            ircg_problem_free(s->problem);
            s->problem = NULL;
        }
    }
    return dim;
}

int api_spec_mc_source(const api_spec *s, api_mc_source *out)
{
    const sp_mc *mc = &s->mc;
    if (s->kind != IRCG_PROBLEM_MATRIX_COMPLETION)
        return 0;
    *out = (api_mc_source){
        .kind = mc->source == SP_SRC_FILE        ? API_MC_FILE
                : mc->source == SP_SRC_INLINE    ? API_MC_INLINE
                : mc->source == SP_SRC_SYNTHETIC ? API_MC_SYNTHETIC
                                                 : API_MC_DATASET,
        .path = mc->resolved, .given_path = mc->path,
        .read = {mc->format, mc->n_rows, mc->n_cols, 0},
        .synth = mc->synth, .outer = mc->outer, .delta = mc->delta};
    return 1;
}
