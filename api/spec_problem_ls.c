/*
 * spec_problem_ls.c -- the "least_squares" problem section: A and b
 * (inline dense or CSR, Matrix Market files, synthetic), the domain, the
 * outer objective, and the build of the ircg_problem.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

static const char *const LS_MEMBERS[] = {"type", "data", "domain", "outer", NULL};
static const char *const SOURCES[] = {"file", "inline", "synthetic", NULL};
static const char *const INLINE_MEMBERS[] = {"source", "A", "b", "m", "n", NULL};
static const char *const CSR_MEMBERS[] = {"format", "rowptr", "colind", "values", NULL};
static const char *const FILE_MEMBERS[] = {"source", "A_path", "b", "b_path", "m",
                                           "n", NULL};
static const char *const SYNTH_MEMBERS[] = {"source", "m", "n", "noise", "seed", NULL};
static const char *const DOMAINS[] = {"l2_ball", "l1_ball", "simplex", "box", NULL};
static const char *const BALL_MEMBERS[] = {"type", "radius", NULL};
static const char *const BOX_MEMBERS[] = {"type", "lower", "upper", NULL};
static const char *const OUTERS[] = {"half_norm_sq", "dist_sq", "quadratic", NULL};
static const char *const OUTER_MEMBERS[] = {"type", "c", "Q", "q", NULL};

#define DP "/problem/data"

/* Every row an array of ncol entries?  Checked before allocating, so a
 * long first row and many short ones cannot ask for rows x ncol memory. */
static int rows_equal(sp_ctx *c, const cJSON *a, const char *ptr, int ncol)
{
    char p[SP_PTR];
    int ok = 1, r = 0;
    for (const cJSON *row = a->child; row; row = row->next, r++) {
        int len = cJSON_IsArray(row) ? cJSON_GetArraySize(row) : -1;
        if (len == ncol)
            continue;
        sp_ptr_idx(p, ptr, r);
        if (len < 0)
            sp_err(c, p, "wrong type: expected an array of numbers");
        else
            sp_err(c, p, "ragged rows: row %d has %d entries, row 0 has %d", r, len, ncol);
        ok = 0;
    }
    return ok;
}

/* A JSON array of equal-length arrays of finite numbers -> row-major. */
static int parse_dense(sp_ctx *c, const cJSON *a, const char *ptr, double **out,
                       int *rows, int *cols)
{
    int ok = 1, r = 0;
    *out = NULL;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 || !cJSON_IsArray(a->child) ||
        cJSON_GetArraySize(a->child) < 1) {
        sp_err(c, ptr, "wrong type: expected a non-empty array of non-empty rows");
        return 0;
    }
    int nrow = cJSON_GetArraySize(a), ncol = cJSON_GetArraySize(a->child);
    if (!rows_equal(c, a, ptr, ncol))
        return 0;
    double *m = malloc((size_t)nrow * (size_t)ncol * sizeof *m);
    if (!m) {
        sp_err(c, ptr, "out of memory for a %d x %d matrix", nrow, ncol);
        return 0;
    }
    char p[SP_PTR];
    for (const cJSON *row = a->child; row; row = row->next, r++) {
        double *v = NULL;
        int64_t len = 0;
        sp_ptr_idx(p, ptr, r);
        if (sp_num_array(c, row, p, &v, &len) > 0)
            memcpy(m + (size_t)r * (size_t)ncol, v, (size_t)ncol * sizeof *v);
        else
            ok = 0;
        free(v);
    }
    if (!ok) {
        free(m);
        return 0;
    }
    *out = m;
    *rows = nrow;
    *cols = ncol;
    return 1;
}

/* Integer array (rowptr, colind) with values in [lo, hi]. */
static int parse_index_array(sp_ctx *c, const cJSON *a, const char *ptr,
                             double lo, double hi, int64_t **out, int64_t *n)
{
    double *v = NULL;
    int ok = sp_num_array(c, a, ptr, &v, n) > 0;
    char p[SP_PTR];
    for (int64_t i = 0; ok && i < *n; i++)
        if (v[i] != floor(v[i]) || v[i] < lo || v[i] > hi) {
            sp_ptr_idx(p, ptr, i);
            sp_err(c, p, "out of range: must be an integer in [%.0f, %.0f], got %.17g",
                   lo, hi, v[i]);
            ok = 0;
        }
    *out = ok ? malloc((size_t)(*n ? *n : 1) * sizeof **out) : NULL;
    for (int64_t i = 0; *out && i < *n; i++)
        (*out)[i] = (int64_t)v[i];
    free(v);
    return *out != NULL;
}

/* rowptr must start at 0, never decrease and end at nnz. */
static int check_rowptr(sp_ctx *c, const int64_t *rp, int64_t len, int64_t nnz)
{
    char p[SP_PTR];
    if (len < 2) {
        sp_err(c, DP "/A/rowptr", "must hold m + 1 >= 2 entries");
        return 0;
    }
    if (rp[0] != 0) {
        sp_err(c, DP "/A/rowptr/0", "must be 0");
        return 0;
    }
    for (int64_t i = 1; i < len; i++)
        if (rp[i] < rp[i - 1]) {
            sp_ptr_idx(p, DP "/A/rowptr", i);
            sp_err(c, p, "rowptr decreases at entry %lld", (long long)i);
            return 0;
        }
    if (rp[len - 1] != nnz) {
        sp_ptr_idx(p, DP "/A/rowptr", len - 1);
        sp_err(c, p, "last entry %lld does not match the %lld values",
               (long long)rp[len - 1], (long long)nnz);
        return 0;
    }
    return 1;
}

static void parse_csr(sp_ctx *c, const cJSON *a, sp_ls *ls, int n_given)
{
    static const char *const FMT[] = {"csr", NULL};
    int k = 0;
    int64_t nrp = 0, nci = 0, nv = 0, *ci = NULL;
    if (!sp_members(c, a, DP "/A", CSR_MEMBERS))
        return;
    if (sp_enum(c, a, DP "/A", "format", FMT, &k) == 0)
        sp_err(c, DP "/A/format", "missing required member \"format\"");
    const char *names[3] = {"rowptr", "colind", "values"};
    for (int i = 0; i < 3; i++)
        if (!sp_get(a, names[i])) {
            char p[SP_PTR];
            sp_ptr(p, DP "/A", names[i]);
            sp_err(c, p, "missing required member \"%s\"", names[i]);
        }
    double hi = n_given > 0 ? n_given - 1 : 2147483646.0;
    int ok = parse_index_array(c, sp_get(a, "rowptr"), DP "/A/rowptr", 0, 9e15,
                               &ls->rowptr, &nrp);
    ok &= parse_index_array(c, sp_get(a, "colind"), DP "/A/colind", 0, hi, &ci, &nci);
    ok &= sp_num_array(c, sp_get(a, "values"), DP "/A/values", &ls->val, &nv) > 0;
    if (ok && nci != nv)
        sp_err(c, DP "/A/colind", "length %lld does not match the %lld values",
               (long long)nci, (long long)nv);
    else if (ok && check_rowptr(c, ls->rowptr, nrp, nv)) {
        ls->colind = malloc((size_t)(nci ? nci : 1) * sizeof *ls->colind);
        if (!ls->colind)
            sp_err(c, DP "/A/colind", "out of memory");
        int maxc = 0;
        for (int64_t i = 0; ls->colind && i < nci; i++) {
            ls->colind[i] = (int32_t)ci[i];
            maxc = ls->colind[i] + 1 > maxc ? ls->colind[i] + 1 : maxc;
        }
        ls->m = (int)(nrp - 1);
        ls->n = n_given > 0 ? n_given : maxc;
    }
    free(ci);
}

/* A given m must agree with the rows of A. */
static void check_given_dims(sp_ctx *c, const cJSON *d, const sp_ls *ls)
{
    int m = 0;
    sp_int_in(c, d, DP, "m", 1, SP_MAX_DIM, &m);
    if (m > 0 && ls->m > 0 && m != ls->m)
        sp_err(c, DP "/m", "m is %d but A has %d rows", m, ls->m);
}

static void parse_inline(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    const cJSON *a = sp_get(d, "A");
    int n_given = 0;
    if (!sp_members(c, d, DP, INLINE_MEMBERS))
        return;
    sp_int_in(c, d, DP, "n", 1, SP_MAX_DIM, &n_given);
    if (!a)
        sp_err(c, DP "/A", "missing required member \"A\"");
    else if (cJSON_IsObject(a)) {
        ls->a_kind = SP_A_CSR;
        parse_csr(c, a, ls, n_given);
    } else if (parse_dense(c, a, DP "/A", &ls->A, &ls->m, &ls->n) &&
               n_given > 0 && n_given != ls->n) {
        sp_err(c, DP "/n", "n is %d but the rows of A have %d entries", n_given, ls->n);
    }
    check_given_dims(c, d, ls);
    if (c->opt->max_elements > 0 && (int64_t)ls->m * ls->n > c->opt->max_elements)
        sp_err(c, DP "/A", "too large: m * n = %lld > limit %lld",
               (long long)ls->m * ls->n, (long long)c->opt->max_elements);
    int64_t nb = 0;
    if (!sp_get(d, "b"))
        sp_err(c, DP "/b", "missing required member \"b\"");
    else if (sp_num_array(c, sp_get(d, "b"), DP "/b", &ls->b, &nb) > 0 && ls->m > 0 &&
             nb != ls->m)
        sp_err(c, DP "/b", "length %lld does not match the %d rows of A",
               (long long)nb, ls->m);
}

static void parse_file(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    const char *a = NULL, *b = NULL;
    int64_t nb = 0;
    if (!sp_members(c, d, DP, FILE_MEMBERS))
        return;
    /* optional; checked against the size line (the normalized spec gives
     * the dimensions read) */
    sp_int_in(c, d, DP, "m", 1, SP_MAX_DIM, &ls->m_given);
    sp_int_in(c, d, DP, "n", 1, SP_MAX_DIM, &ls->n_given);
    if (sp_string(c, d, DP, "A_path", &a) == 0)
        sp_err(c, DP "/A_path", "missing required member \"A_path\"");
    if (a)
        ls->A_resolved = sp_resolve_path(c, DP "/A_path", a);
    ls->A_path = a ? strdup(a) : NULL;
    if (ls->A_resolved && ls->A_path && !c->opt->build) {
        ircg_read_options ro = {IRCG_FORMAT_MATRIX_MARKET, ls->m_given, ls->n_given, 0};
        sp_probe_file(c, DP "/A_path", ls->A_path, ls->A_resolved, &ro);
    }
    if (sp_get(d, "b") && sp_get(d, "b_path"))
        sp_err(c, DP "/b_path", "give either \"b\" or \"b_path\", not both");
    else if (sp_get(d, "b"))
        sp_num_array(c, sp_get(d, "b"), DP "/b", &ls->b, &nb);
    else if (sp_string(c, d, DP, "b_path", &b) == 0)
        sp_err(c, DP "/b", "missing required member \"b\" (or \"b_path\")");
    if (b) {
        ls->b_path = strdup(b);
        ls->b_resolved = sp_resolve_path(c, DP "/b_path", b);
    }
    ls->b_len = nb; /* checked against A once it is read */
}

static void parse_synthetic(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    int64_t seed = (int64_t)ls->seed;
    ls->m = 30; /* the least-norm example's shape */
    ls->n = 80;
    if (!sp_members(c, d, DP, SYNTH_MEMBERS))
        return;
    sp_int_in(c, d, DP, "m", 1, SP_MAX_DIM, &ls->m);
    sp_int_in(c, d, DP, "n", 1, SP_MAX_DIM, &ls->n);
    sp_number_in(c, d, DP, "noise", 0, 0, SP_MAX_VALUE, 0, &ls->noise);
    if (sp_int64_in(c, d, DP, "seed", 0, INT64_C(1) << 53, &seed) > 0)
        ls->seed = (uint64_t)seed;
    int64_t cap = c->opt->max_elements;
    if (cap > 0 && (int64_t)ls->m * ls->n > cap)
        sp_err(c, DP, "too large: m * n = %lld > limit %lld",
               (long long)ls->m * ls->n, (long long)cap);
}

static void parse_domain(sp_ctx *c, const cJSON *dm, sp_ls *ls)
{
    int k = 0;
    if (!dm)
        return;
    if (cJSON_IsObject(dm) && sp_enum(c, dm, "/problem/domain", "type", DOMAINS, &k) < 0)
        return;
    ls->domain.kind = (ircg_domain_kind)(IRCG_DOMAIN_L2_BALL + k);
    if (!sp_members(c, dm, "/problem/domain", k == 3 ? BOX_MEMBERS : BALL_MEMBERS))
        return;
    if (k != 3) {
        sp_number_in(c, dm, "/problem/domain", "radius", 0, 1, SP_MAX_SCALE, 0,
                     &ls->domain.radius);
        return;
    }
    int bad = sp_number_in(c, dm, "/problem/domain", "lower", -SP_MAX_SCALE, 0,
                           SP_MAX_SCALE, 0, &ls->domain.lower) < 0;
    bad |= sp_number_in(c, dm, "/problem/domain", "upper", -SP_MAX_SCALE, 0,
                        SP_MAX_SCALE, 0, &ls->domain.upper) < 0;
    if (!bad && !(ls->domain.lower < ls->domain.upper))
        sp_err(c, "/problem/domain/upper", "out of range: upper (%.17g) must be "
               "> lower (%.17g)", ls->domain.upper, ls->domain.lower);
}

/* "outer" as a bare name: only the data-free one. */
static void parse_outer_name(sp_ctx *c, const char *name)
{
    int k = 0;
    while (OUTERS[k] && strcmp(OUTERS[k], name) != 0)
        k++;
    if (!OUTERS[k])
        sp_err(c, "/problem/outer", "unknown value \"%s\": expected one of "
               "\"half_norm_sq\", \"dist_sq\", \"quadratic\"", name);
    else if (k != 0)
        sp_err(c, "/problem/outer", "\"%s\" needs data: use {\"type\": \"%s\", ...}",
               name, name);
}

/* Members that belong to another outer type (c with quadratic, ...). */
static void outer_foreign_members(sp_ctx *c, const cJSON *o, int k)
{
    static const char *const OWN[3][3] = {{"type", NULL}, {"type", "c", NULL},
                                          {"type", "Q", "q"}};
    for (const cJSON *m = o->child; m; m = m->next) {
        int own = 0, known = 0;
        for (int j = 0; j < 3 && OWN[k][j]; j++)
            own |= strcmp(OWN[k][j], m->string) == 0;
        for (int j = 0; OUTER_MEMBERS[j]; j++)
            known |= strcmp(OUTER_MEMBERS[j], m->string) == 0;
        if (known && !own) { /* unknown ones were reported by sp_members */
            char p[SP_PTR];
            sp_ptr(p, "/problem/outer", m->string);
            sp_err(c, p, "not a member of outer type \"%s\"", OUTERS[k]);
        }
    }
}

/* "outer": "half_norm_sq" or {"type", "c" | "Q", "q"}. */
static void parse_outer(sp_ctx *c, const cJSON *o, sp_ls *ls)
{
    const char *base = "/problem/outer";
    int k = 0, r = 0, cols = 0;
    if (!o)
        return;
    if (cJSON_IsString(o)) {
        parse_outer_name(c, o->valuestring);
        return;
    }
    if (!sp_members(c, o, base, OUTER_MEMBERS))
        return;
    int got = sp_enum(c, o, base, "type", OUTERS, &k);
    if (got == 0)
        sp_err(c, "/problem/outer/type", "missing required member \"type\"");
    if (got <= 0)
        return;
    ls->outer = (ircg_outer_kind)(IRCG_OUTER_HALF_NORM_SQ + k);
    outer_foreign_members(c, o, k);
    const cJSON *cv = sp_get(o, "c"), *Q = sp_get(o, "Q"), *q = sp_get(o, "q");
    if (k == 1 && !cv)
        sp_err(c, "/problem/outer/c", "missing required member \"c\"");
    if (k == 1 && cv)
        sp_num_array(c, cv, "/problem/outer/c", &ls->c, &ls->c_len);
    if (k == 2 && !Q)
        sp_err(c, "/problem/outer/Q", "missing required member \"Q\"");
    if (k == 2 && Q && parse_dense(c, Q, "/problem/outer/Q", &ls->Q, &r, &cols)) {
        ls->Q_dim = r;
        if (r != cols)
            sp_err(c, "/problem/outer/Q", "must be square, got %d x %d", r, cols);
    }
    if (k == 2 && q)
        sp_num_array(c, q, "/problem/outer/q", &ls->q, &ls->q_len);
}

static void parse_data(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    int k = 0;
    if (!d) {
        sp_err(c, DP, "missing required member \"data\"");
        return;
    }
    if (cJSON_IsObject(d) && !sp_get(d, "source")) {
        sp_err(c, DP "/source", "missing required member \"source\"");
        return;
    }
    if (!cJSON_IsObject(d) || sp_enum(c, d, DP, "source", SOURCES, &k) <= 0) {
        if (!cJSON_IsObject(d))
            sp_members(c, d, DP, SOURCES);
        return;
    }
    ls->source = (sp_source)k;
    if (k == SP_SRC_FILE)
        parse_file(c, d, ls);
    else if (k == SP_SRC_INLINE)
        parse_inline(c, d, ls);
    else
        parse_synthetic(c, d, ls);
}

void sp_parse_ls(sp_ctx *c, const cJSON *pb, api_spec *s)
{
    sp_ls *ls = &s->ls;
    ls->domain = (ircg_domain){IRCG_DOMAIN_L2_BALL, 1, -1, 1};
    ls->outer = IRCG_OUTER_HALF_NORM_SQ;
    ls->seed = 1;
    if (!sp_members(c, pb, "/problem", LS_MEMBERS))
        return;
    int e0 = c->nerr;
    parse_domain(c, sp_get(pb, "domain"), ls);
    ls->domain_ok = c->nerr == e0;
    e0 = c->nerr;
    parse_outer(c, sp_get(pb, "outer"), ls);
    ls->outer_ok = c->nerr == e0;
    e0 = c->nerr;
    parse_data(c, sp_get(pb, "data"), ls);
    ls->data_ok = c->nerr == e0;
}

/* Lengths of c, Q, q against n (known once the data is). */
static void check_outer_dims(sp_ctx *c, const sp_ls *ls)
{
    if (ls->c && ls->c_len != ls->n)
        sp_err(c, "/problem/outer/c", "length %lld does not match n = %d",
               (long long)ls->c_len, ls->n);
    if (ls->Q && ls->Q_dim != ls->n)
        sp_err(c, "/problem/outer/Q", "is %d x %d but n = %d", ls->Q_dim,
               ls->Q_dim, ls->n);
    if (ls->q && ls->q_len != ls->n)
        sp_err(c, "/problem/outer/q", "length %lld does not match n = %d",
               (long long)ls->q_len, ls->n);
}

/* Every value read from a file within SP_MAX_VALUE. */
static int file_values_ok(sp_ctx *c, const sp_ls *ls)
{
    for (int i = 0; i < ls->m; i++)
        for (int64_t k = ls->rowptr[i]; k < ls->rowptr[i + 1]; k++)
            if (!sp_value_ok(c, DP "/A_path", ls->val[k], "%s: entry (%d, %d)", ls->A_path,
                             i + 1, ls->colind[k] + 1))
                return 0;
    for (int64_t i = 0; ls->b_resolved && i < ls->b_len; i++)
        if (!sp_value_ok(c, DP "/b_path", ls->b[i], "%s: entry %lld", ls->b_path,
                         (long long)i + 1))
            return 0;
    return 1;
}

/* Read A (and b) from files; sizes are checked against each other and
 * against m and n when the spec gives them.  1 when all is well. */
static int load_files(sp_ctx *c, sp_ls *ls)
{
    if (!sp_read_mtx_csr(c, DP "/A_path", ls->A_path, ls->A_resolved, ls))
        return 0;
    int ok = 1;
    if (ls->m_given && ls->m_given != ls->m) {
        sp_err(c, DP "/m", "m is %d but %s has %d rows", ls->m_given, ls->A_path, ls->m);
        ok = 0;
    }
    if (ls->n_given && ls->n_given != ls->n) {
        sp_err(c, DP "/n", "n is %d but %s has %d columns", ls->n_given, ls->A_path, ls->n);
        ok = 0;
    }
    if (ls->b_resolved) {
        free(ls->b);
        ls->b = NULL;
        if (!sp_read_vector(c, DP "/b_path", ls->b_path, ls->b_resolved, &ls->b, &ls->b_len))
            return 0;
    }
    if (ls->b_len != ls->m) {
        sp_err(c, ls->b_resolved ? DP "/b_path" : DP "/b",
               "length %lld does not match the %d rows of A",
               (long long)ls->b_len, ls->m);
        ok = 0;
    }
    return file_values_ok(c, ls) && ok;
}

/* Record a constructor's diag at the spec member its field names:
 * "/domain/..." and "/outer/..." live under /problem ("kind" is spelled
 * "type" in specs), the data members under /problem/data. */
static void problem_diag(sp_ctx *c, const ircg_diag *d)
{
    ircg_diag m = *d;
    const char *base = DP;
    if (!strncmp(d->field, "/domain", 7) || !strncmp(d->field, "/outer", 6)) {
        base = "/problem";
        char *k = strstr(m.field, "/kind");
        if (k && k[5] == '\0')
            snprintf(k, sizeof m.field - (size_t)(k - m.field), "/type");
    }
    sp_diag(c, base, &m);
}

/* The data first (files, generator), then -- when domain and outer are
 * clean too -- the problem, whose constructor checks what remains (Q PSD,
 * ...).  Returns n once the data is known. */
int64_t sp_build_ls(sp_ctx *c, api_spec *s)
{
    sp_ls *ls = &s->ls;
    ircg_diag d = {0};
    int e0 = c->nerr;
    if (!ls->data_ok)
        return 0;
    if (ls->source == SP_SRC_SYNTHETIC &&
        ircg_synth_least_squares(ls->m, ls->n, ls->noise, ls->seed, &ls->A, &ls->b,
                                 &d) != IRCG_OK) {
        sp_diag(c, DP, &d);
        return 0;
    }
    if (ls->source == SP_SRC_FILE && !load_files(c, ls))
        return 0;
    ls->loaded = 1;
    if (ls->outer_ok)
        check_outer_dims(c, ls);
    if (c->nerr == e0 && ls->domain_ok && ls->outer_ok) {
        ircg_ls_data data = {ls->m, ls->n, ls->A, ls->rowptr, ls->colind, ls->val, ls->b};
        if (ls->A) {
            data.A_rowptr = NULL;
            data.A_colind = NULL;
            data.A_val = NULL;
        }
        ircg_outer outer = {ls->outer, ls->c, ls->Q, ls->q};
        memset(&d, 0, sizeof d);
        if (ircg_problem_least_squares(&data, &outer, &ls->domain, &s->problem, &d) != IRCG_OK)
            problem_diag(c, &d);
    }
    if (ls->source == SP_SRC_SYNTHETIC) { /* regenerated from the seed */
        free(ls->A);
        free(ls->b);
        ls->A = ls->b = NULL;
    }
    return ls->n;
}
