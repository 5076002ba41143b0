/*
 * spec_ls_data.c -- the "data" section of "least_squares" and
 * "logistic_regression": the matrix A and its right-hand side b (targets,
 * or labels) inline (dense rows or CSR), from files (Matrix Market or CSV)
 * or from the seeded generator, and optionally validation rows of the same
 * shape ("A_val"/"b_val", "A_val_path"/"b_val_path", or "m_val" more rows
 * of the generator's model) for the "validation" outer objective.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

static const char *const SOURCES[] = {"file", "inline", "synthetic", NULL};
static const char *const INLINE_MEMBERS[] = {"source", "A", "b", "m", "n", "A_val", "b_val",
                                             NULL};
static const char *const CSR_MEMBERS[] = {"format", "rowptr", "colind", "values", NULL};
static const char *const FILE_MEMBERS[] = {"source", "A_path", "b", "b_path", "m", "n",
                                           "A_val_path", "b_val", "b_val_path", NULL};
static const char *const SYNTH_MEMBERS[] = {"source", "m", "n", "noise", "seed", "m_val",
                                            NULL};

#define DP "/problem/data"

/* The member names of one matrix: training or validation rows. */
typedef struct mat_names {
    const char *A, *b, *A_path, *b_path;
} mat_names;
static const mat_names TRAIN = {"A", "b", "A_path", "b_path"};
static const mat_names VALID = {"A_val", "b_val", "A_val_path", "b_val_path"};

void sp_mat_free(sp_mat *m)
{
    free(m->A);
    free(m->rowptr);
    free(m->colind);
    free(m->val);
    free(m->b);
    free(m->A_path);
    free(m->A_resolved);
    free(m->b_path);
    free(m->b_resolved);
    memset(m, 0, sizeof *m);
}

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

int sp_parse_dense(sp_ctx *c, const cJSON *a, const char *ptr, double **out, int *rows,
                   int *cols)
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
static int check_rowptr(sp_ctx *c, const char *ptr, const int64_t *rp, int64_t len,
                        int64_t nnz)
{
    char p[SP_PTR];
    if (len < 2) {
        sp_err(c, ptr, "must hold m + 1 >= 2 entries");
        return 0;
    }
    if (rp[0] != 0) {
        sp_ptr_idx(p, ptr, 0);
        sp_err(c, p, "must be 0");
        return 0;
    }
    for (int64_t i = 1; i < len; i++)
        if (rp[i] < rp[i - 1]) {
            sp_ptr_idx(p, ptr, i);
            sp_err(c, p, "rowptr decreases at entry %lld", (long long)i);
            return 0;
        }
    if (rp[len - 1] != nnz) {
        sp_ptr_idx(p, ptr, len - 1);
        sp_err(c, p, "last entry %lld does not match the %lld values",
               (long long)rp[len - 1], (long long)nnz);
        return 0;
    }
    return 1;
}

/* The CSR object at ptr ({"format": "csr", rowptr, colind, values}). */
static void parse_csr(sp_ctx *c, const cJSON *a, const char *ptr, sp_mat *mt, int n_given)
{
    static const char *const FMT[] = {"csr", NULL};
    char p[4][SP_PTR];
    int k = 0;
    int64_t nrp = 0, nci = 0, nv = 0, *ci = NULL;
    if (!sp_members(c, a, ptr, CSR_MEMBERS))
        return;
    sp_ptr(p[0], ptr, "format");
    if (sp_enum(c, a, ptr, "format", FMT, &k) == 0)
        sp_err(c, p[0], "missing required member \"format\"");
    const char *names[3] = {"rowptr", "colind", "values"};
    for (int i = 0; i < 3; i++) {
        sp_ptr(p[i + 1], ptr, names[i]);
        if (!sp_get(a, names[i]))
            sp_err(c, p[i + 1], "missing required member \"%s\"", names[i]);
    }
    double hi = n_given > 0 ? n_given - 1 : 2147483646.0;
    int ok = parse_index_array(c, sp_get(a, "rowptr"), p[1], 0, 9e15, &mt->rowptr, &nrp);
    ok &= parse_index_array(c, sp_get(a, "colind"), p[2], 0, hi, &ci, &nci);
    ok &= sp_num_array(c, sp_get(a, "values"), p[3], &mt->val, &nv) > 0;
    if (ok && nci != nv)
        sp_err(c, p[2], "length %lld does not match the %lld values", (long long)nci,
               (long long)nv);
    else if (ok && check_rowptr(c, p[1], mt->rowptr, nrp, nv)) {
        mt->colind = malloc((size_t)(nci ? nci : 1) * sizeof *mt->colind);
        if (!mt->colind)
            sp_err(c, p[2], "out of memory");
        int maxc = 0;
        for (int64_t i = 0; mt->colind && i < nci; i++) {
            mt->colind[i] = (int32_t)ci[i];
            maxc = mt->colind[i] + 1 > maxc ? mt->colind[i] + 1 : maxc;
        }
        mt->m = (int)(nrp - 1);
        mt->n = n_given > 0 ? n_given : maxc;
    }
    free(ci);
}

/* A (dense or CSR) and b of one matrix given inline. */
static void parse_inline_mat(sp_ctx *c, const cJSON *d, sp_mat *mt, const mat_names *nm,
                             int n_given)
{
    char pa[SP_PTR], pb[SP_PTR];
    const cJSON *a = sp_get(d, nm->A);
    sp_ptr(pa, DP, nm->A);
    sp_ptr(pb, DP, nm->b);
    if (!a)
        sp_err(c, pa, "missing required member \"%s\"", nm->A);
    else if (cJSON_IsObject(a)) {
        mt->a_kind = SP_A_CSR;
        parse_csr(c, a, pa, mt, n_given);
    } else if (sp_parse_dense(c, a, pa, &mt->A, &mt->m, &mt->n) && n_given > 0 &&
               n_given != mt->n) {
        sp_err(c, DP "/n", "n is %d but the rows of %s have %d entries", n_given, nm->A,
               mt->n);
    }
    if (c->opt->max_elements > 0 && (int64_t)mt->m * mt->n > c->opt->max_elements)
        sp_err(c, pa, "too large: m * n = %lld > limit %lld", (long long)mt->m * mt->n,
               (long long)c->opt->max_elements);
    int64_t nb = 0;
    if (!sp_get(d, nm->b))
        sp_err(c, pb, "missing required member \"%s\"", nm->b);
    else if (sp_num_array(c, sp_get(d, nm->b), pb, &mt->b, &nb) > 0 && mt->m > 0 &&
             nb != mt->m)
        sp_err(c, pb, "length %lld does not match the %d rows of %s", (long long)nb, mt->m,
               nm->A);
}

/* Do the validation members come as a whole (or not at all)? */
static int val_given(sp_ctx *c, const cJSON *d, const char *a, const char *b,
                     const char *b2)
{
    int ga = sp_get(d, a) != NULL, gb = sp_get(d, b) || (b2 && sp_get(d, b2));
    char p[SP_PTR];
    if (ga != gb) {
        sp_ptr(p, DP, ga ? b : a);
        sp_err(c, p, "missing required member \"%s\" (validation rows come with both)",
               ga ? b : a);
    }
    return ga && gb;
}

static void parse_inline(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    int n_given = 0, m = 0;
    if (!sp_members(c, d, DP, INLINE_MEMBERS))
        return;
    sp_int_in(c, d, DP, "n", 1, SP_MAX_DIM, &n_given);
    parse_inline_mat(c, d, &ls->tr, &TRAIN, n_given);
    sp_int_in(c, d, DP, "m", 1, SP_MAX_DIM, &m);
    if (m > 0 && ls->tr.m > 0 && m != ls->tr.m)
        sp_err(c, DP "/m", "m is %d but A has %d rows", m, ls->tr.m);
    /* CSR validation rows have A's columns; dense ones are checked at load */
    if ((ls->has_val = val_given(c, d, "A_val", "b_val", NULL)))
        parse_inline_mat(c, d, &ls->va, &VALID,
                         cJSON_IsObject(sp_get(d, "A_val")) ? ls->tr.n : 0);
}

/* A_path (and b or b_path) of one matrix read from files, at load time. */
static void parse_file_mat(sp_ctx *c, const cJSON *d, sp_mat *mt, const mat_names *nm)
{
    const char *a = NULL, *b = NULL;
    char pa[SP_PTR], pb[SP_PTR], pbp[SP_PTR];
    int64_t nb = 0;
    sp_ptr(pa, DP, nm->A_path);
    sp_ptr(pb, DP, nm->b);
    sp_ptr(pbp, DP, nm->b_path);
    if (sp_string(c, d, DP, nm->A_path, &a) == 0)
        sp_err(c, pa, "missing required member \"%s\"", nm->A_path);
    if (a)
        mt->A_resolved = sp_resolve_path(c, pa, a);
    mt->A_path = a ? strdup(a) : NULL;
    if (mt->A_resolved && mt->A_path && !c->opt->build) /* not read: its head checked */
        sp_probe_matrix(c, pa, mt->A_path, mt->A_resolved, mt->m_given, mt->n_given);
    if (sp_get(d, nm->b) && sp_get(d, nm->b_path))
        sp_err(c, pbp, "give either \"%s\" or \"%s\", not both", nm->b, nm->b_path);
    else if (sp_get(d, nm->b))
        sp_num_array(c, sp_get(d, nm->b), pb, &mt->b, &nb);
    else if (sp_string(c, d, DP, nm->b_path, &b) == 0)
        sp_err(c, pb, "missing required member \"%s\" (or \"%s\")", nm->b, nm->b_path);
    if (b) {
        mt->b_path = strdup(b);
        mt->b_resolved = sp_resolve_path(c, pbp, b);
    }
    mt->b_len = nb; /* checked against A once it is read */
}

static void parse_file(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    if (!sp_members(c, d, DP, FILE_MEMBERS))
        return;
    /* optional; checked against the file (the normalized spec gives the
     * dimensions read) */
    sp_int_in(c, d, DP, "m", 1, SP_MAX_DIM, &ls->tr.m_given);
    sp_int_in(c, d, DP, "n", 1, SP_MAX_DIM, &ls->tr.n_given);
    parse_file_mat(c, d, &ls->tr, &TRAIN);
    if ((ls->has_val = val_given(c, d, "A_val_path", "b_val", "b_val_path")))
        parse_file_mat(c, d, &ls->va, &VALID);
}

static void parse_synthetic(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    int64_t seed = (int64_t)ls->seed;
    ls->tr.m = 30; /* the least-norm example's shape */
    ls->tr.n = 80;
    if (!sp_members(c, d, DP, SYNTH_MEMBERS))
        return;
    sp_int_in(c, d, DP, "m", 1, SP_MAX_DIM, &ls->tr.m);
    sp_int_in(c, d, DP, "n", 1, SP_MAX_DIM, &ls->tr.n);
    sp_int_in(c, d, DP, "m_val", 0, SP_MAX_DIM, &ls->m_val);
    sp_number_in(c, d, DP, "noise", 0, 0, SP_MAX_VALUE, 0, &ls->noise);
    if (sp_int64_in(c, d, DP, "seed", 0, INT64_C(1) << 53, &seed) > 0)
        ls->seed = (uint64_t)seed;
    ls->has_val = ls->m_val > 0;
    int64_t cap = c->opt->max_elements, rows = (int64_t)ls->tr.m + ls->m_val;
    if (cap > 0 && rows * ls->tr.n > cap)
        sp_err(c, DP, "too large: (m + m_val) * n = %lld > limit %lld",
               (long long)rows * ls->tr.n, (long long)cap);
}

void sp_parse_ls_data(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    int k = 0;
    if (!sp_data_source(c, d, DP, SOURCES, &k))
        return;
    ls->source = (sp_source)k;
    if (k == SP_SRC_FILE)
        parse_file(c, d, ls);
    else if (k == SP_SRC_INLINE)
        parse_inline(c, d, ls);
    else
        parse_synthetic(c, d, ls);
}
