/*
 * spec_ls_data.c -- the "data" section of "least_squares" and
 * "logistic_regression": the matrix A and its right-hand side b (targets,
 * or labels) inline (dense rows or CSR), from files (Matrix Market or CSV)
 * or from the seeded generator (uploaded datasets: spec_ls_dataset.c), and
 * optionally validation rows of the same
 * shape ("A_val"/"b_val", "A_val_path"/"b_val_path", or "m_val" more rows
 * of the generator's model) for the "validation" outer objective.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

static const char *const SOURCES[] = {"file", "inline", "synthetic", "dataset", NULL};
static const char *const INLINE_MEMBERS[] = {"source", "A", "b", "m", "n", "A_val", "b_val",
                                             NULL};
static const char *const CSR_MEMBERS[] = {"format", "rowptr", "colind", "values", NULL};
static const char *const FILE_MEMBERS[] = {"source", "format", "A_path", "b", "b_path", "m",
                                           "n", "A_val_path", "b_val", "b_val_path",
                                           "positive", NULL};
static const char *const SYNTH_MEMBERS[] = {"source", "shape", "m", "n", "nnz_row", "noise",
                                            "seed", "m_val", "features_path", NULL};
const char *const SP_MFMT_NAMES[] = {"auto", "matrix_market", "csv", "libsvm", "npy", "npz",
                                     NULL};
/* In the order of ircg_synth_shape after the first. */
const char *const SP_SHAPE_NAMES[] = {"gaussian", "sparse", "adult", "msd", NULL};

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
    free(m->A_id);
    free(m->b_id);
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

/* The format of A_path: the spec's, or told by the file's head. */
static void tell_format(sp_ctx *c, const char *pa, sp_mat *mt, sp_mfmt given)
{
    mt->fmt = given;
    if (given == SP_FMT_AUTO && mt->A_resolved) {
        int f = sp_matrix_format(c, pa, mt->A_path, mt->A_resolved);
        mt->fmt = f < 0 ? SP_FMT_AUTO : (sp_mfmt)f;
    }
}

/* b or b_path of a matrix that is no LIBSVM file (which holds its b). */
static void parse_b(sp_ctx *c, const cJSON *d, sp_mat *mt, const mat_names *nm)
{
    const char *b = NULL;
    char pb[SP_PTR], pbp[SP_PTR];
    int64_t nb = 0;
    sp_ptr(pb, DP, nm->b);
    sp_ptr(pbp, DP, nm->b_path);
    if (mt->fmt == SP_FMT_LIBSVM) {
        if (sp_get(d, nm->b) || sp_get(d, nm->b_path))
            sp_err(c, sp_get(d, nm->b) ? pb : pbp, "%s is a LIBSVM file, whose labels are "
                   "its b: give no %s", mt->A_path, sp_get(d, nm->b) ? nm->b : nm->b_path);
        return;
    }
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

/* Training rows that are a LIBSVM file need validation rows of one too
 * (their b are their labels), and others need others. */
static int same_kind(sp_ctx *c, const sp_mat *tr, const sp_mat *va)
{
    if (!tr->A_resolved || !va->A_resolved ||
        (tr->fmt == SP_FMT_LIBSVM) == (va->fmt == SP_FMT_LIBSVM))
        return 1;
    sp_err(c, DP "/A_val_path", "%s is %sa LIBSVM file and %s is %s: give both in one format",
           tr->A_path, tr->fmt == SP_FMT_LIBSVM ? "" : "not ", va->A_path,
           va->fmt == SP_FMT_LIBSVM ? "" : "not");
    return 0;
}

/* A_path (and b or b_path) of one matrix read from files, at load time;
 * tr: the training rows when mt is the validation rows' (else NULL). */
static void parse_file_mat(sp_ctx *c, const cJSON *d, sp_mat *mt, const mat_names *nm,
                           sp_mfmt given, const sp_mat *tr)
{
    const char *a = NULL;
    char pa[SP_PTR];
    sp_ptr(pa, DP, nm->A_path);
    if (sp_string(c, d, DP, nm->A_path, &a) == 0)
        sp_err(c, pa, "missing required member \"%s\"", nm->A_path);
    if (a)
        mt->A_resolved = sp_resolve_path(c, pa, a);
    mt->A_path = a ? strdup(a) : NULL;
    tell_format(c, pa, mt, given);
    if (tr && !same_kind(c, tr, mt))
        return;
    if (mt->A_resolved && mt->A_path && !c->opt->build) /* not read: its head checked */
        sp_probe_matrix(c, pa, mt->A_path, mt->A_resolved, mt->fmt, mt->m_given, mt->n_given);
    parse_b(c, d, mt, nm);
}

/* "positive": the label a LIBSVM file's rows of class +1 carry. */
void sp_ls_positive(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    if (!sp_get(d, "positive"))
        return;
    if (!ls->logistic) {
        sp_err(c, DP "/positive", "applies to logistic regression only (least squares reads "
               "a LIBSVM file's labels as b)");
        return;
    }
    if (sp_number_in(c, d, DP, "positive", -SP_MAX_VALUE, 0, SP_MAX_VALUE, 0,
                     &ls->positive) > 0)
        ls->positive_given = 1;
    if (ls->tr.fmt != SP_FMT_LIBSVM && ls->tr.A_resolved)
        sp_err(c, DP "/positive", "applies to LIBSVM files only (the labels of %s are given "
               "as b, -1/+1 or 0/1)", ls->tr.A_path);
}

static void parse_file(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    int k = 0;
    if (!sp_members(c, d, DP, FILE_MEMBERS))
        return;
    if (sp_enum(c, d, DP, "format", SP_MFMT_NAMES, &k) > 0)
        ls->format = (sp_mfmt)k;
    /* optional; checked against the file (the normalized spec gives the
     * dimensions read) */
    sp_int_in(c, d, DP, "m", 1, SP_MAX_DIM, &ls->tr.m_given);
    sp_int_in(c, d, DP, "n", 1, SP_MAX_DIM, &ls->tr.n_given);
    parse_file_mat(c, d, &ls->tr, &TRAIN, ls->format, NULL);
    /* a LIBSVM file holds its labels: its validation rows come alone */
    ls->has_val = ls->tr.fmt == SP_FMT_LIBSVM ? sp_get(d, "A_val_path") != NULL
                                              : val_given(c, d, "A_val_path", "b_val",
                                                          "b_val_path");
    if (ls->has_val) {
        ls->va.n_given = ls->tr.n_given;
        parse_file_mat(c, d, &ls->va, &VALID, ls->format, &ls->tr);
    }
    sp_ls_positive(c, d, ls);
}

/* The default shape of each generator: the least-norm example's 30 x 80,
 * 80 columns of 50 entries a row, a1a's 1605 x 123, Bisec-BiO's 1000
 * rows of YearPredictionMSD with 1000 columns. */
static void shape_defaults(sp_ls *ls)
{
    static const int M[] = {30, 30, 1605, 1000}, N[] = {80, 80, 123, 1000};
    ls->tr.m = M[ls->shape];
    ls->tr.n = N[ls->shape];
    ls->nnz_row = 50;
}

/* The entries the generator makes, against the service's cap. */
static void check_cap(sp_ctx *c, const sp_ls *ls)
{
    int64_t cap = c->opt->max_elements, rows = (int64_t)ls->tr.m + ls->m_val;
    int64_t a_row = ls->shape == IRCG_SHAPE_SPARSE ? ls->nnz_row
                    : ls->shape == IRCG_SHAPE_ADULT ? 14 : ls->tr.n;
    int64_t entries = rows * a_row;
    if (cap > 0 && entries > cap)
        sp_err(c, DP, "too large: (m + m_val) * %s = %lld > limit %lld",
               ls->shape == IRCG_SHAPE_SPARSE ? "nnz_row" : ls->shape == IRCG_SHAPE_ADULT
                                                                ? "14" : "n",
               (long long)entries, (long long)cap);
}

/* "features_path" (shape msd): the first m + m_val rows of a LIBSVM file
 * (YearPredictionMSD: the year, then 90 features) as the features and
 * targets of the instance, in place of drawn ones. */
static void parse_features(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    const char *fp = NULL;
    if (!sp_get(d, "features_path"))
        return;
    if (ls->shape != IRCG_SHAPE_MSD) {
        sp_err(c, DP "/features_path", "applies to the shape \"msd\" only, not to \"%s\"",
               SP_SHAPE_NAMES[ls->shape]);
        return;
    }
    if (sp_string(c, d, DP, "features_path", &fp) <= 0)
        return;
    ls->features_path = strdup(fp);
    ls->features_resolved = sp_resolve_path(c, DP "/features_path", fp);
    if (ls->features_resolved && !c->opt->build)
        sp_probe_matrix(c, DP "/features_path", fp, ls->features_resolved, SP_FMT_LIBSVM, 0,
                        90);
}

static void parse_synthetic(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    int64_t seed = (int64_t)ls->seed;
    int k = 0;
    if (!sp_members(c, d, DP, SYNTH_MEMBERS))
        return;
    if (sp_enum(c, d, DP, "shape", SP_SHAPE_NAMES, &k) > 0)
        ls->shape = k;
    shape_defaults(ls);
    sp_int_in(c, d, DP, "m", 1, SP_MAX_DIM, &ls->tr.m);
    sp_int_in(c, d, DP, "n", 1, SP_MAX_DIM, &ls->tr.n);
    if (sp_get(d, "nnz_row") && ls->shape != IRCG_SHAPE_SPARSE)
        sp_err(c, DP "/nnz_row", "applies to the shape \"sparse\" only, not to \"%s\"",
               SP_SHAPE_NAMES[ls->shape]);
    else if (sp_int_in(c, d, DP, "nnz_row", 1, SP_MAX_DIM, &ls->nnz_row) == 0 &&
             ls->nnz_row > ls->tr.n)
        ls->nnz_row = ls->tr.n; /* the default, clamped to the columns */
    if (ls->shape == IRCG_SHAPE_SPARSE && ls->nnz_row > ls->tr.n)
        sp_err(c, DP "/nnz_row", "out of range: at most n = %d, got %d", ls->tr.n,
               ls->nnz_row);
    if (ls->shape == IRCG_SHAPE_ADULT && ls->tr.n != 123)
        sp_err(c, DP "/n", "the shape \"adult\" has the 123 columns of its one-hot "
               "attributes, got %d", ls->tr.n);
    if (ls->shape == IRCG_SHAPE_MSD && ls->tr.n < 2)
        sp_err(c, DP "/n", "the shape \"msd\" needs n >= 2 (an intercept and the "
               "combinations), got %d", ls->tr.n);
    sp_int_in(c, d, DP, "m_val", 0, SP_MAX_DIM, &ls->m_val);
    sp_number_in(c, d, DP, "noise", 0, 0, SP_MAX_VALUE, 0, &ls->noise);
    if (sp_int64_in(c, d, DP, "seed", 0, INT64_C(1) << 53, &seed) > 0)
        ls->seed = (uint64_t)seed;
    ls->has_val = ls->m_val > 0;
    check_cap(c, ls);
    parse_features(c, d, ls);
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
    else if (k == SP_SRC_SYNTHETIC)
        parse_synthetic(c, d, ls);
    else
        sp_parse_ls_dataset(c, d, ls);
}
