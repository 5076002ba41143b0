/*
 * spec_ls_load.c -- the build stage of the least squares and logistic
 * regression data: files and datasets read (NumPy, Matrix Market, CSV or
 * LIBSVM matrices, vectors) and
 * checked against each other and the dimensions the spec gives, or the
 * seeded generator run and split into training and validation rows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

#define DP "/problem/data"

/* Every value read from a file within SP_MAX_VALUE. */
static int file_values_ok(sp_ctx *c, const sp_mat *mt, const char *pa, const char *pb)
{
    for (int i = 0; mt->rowptr && i < mt->m; i++)
        for (int64_t k = mt->rowptr[i]; k < mt->rowptr[i + 1]; k++)
            if (!sp_value_ok(c, pa, mt->val[k], "%s: entry (%d, %d)", mt->A_path, i + 1,
                             mt->colind[k] + 1))
                return 0;
    for (int64_t i = 0; mt->A && i < (int64_t)mt->m * mt->n; i++)
        if (!sp_value_ok(c, pa, mt->A[i], "%s: entry (%lld, %lld)", mt->A_path,
                         (long long)(i / mt->n) + 1, (long long)(i % mt->n) + 1))
            return 0;
    for (int64_t i = 0; mt->b_resolved && i < mt->b_len; i++)
        if (!sp_value_ok(c, pb, mt->b[i], "%s: entry %lld", mt->b_path, (long long)i + 1))
            return 0;
    for (int64_t i = 0; mt->fmt == SP_FMT_LIBSVM && i < mt->b_len; i++)
        if (!sp_value_ok(c, pa, mt->b[i], "%s: the label of row %lld", mt->A_path,
                         (long long)i + 1))
            return 0;
    return 1;
}

/* Read A (and b) of one matrix from its files; the sizes are checked
 * against each other and against m and n when given.  1 when all is well. */
static int load_mat(sp_ctx *c, sp_mat *mt, const char *pa, const char *pbp, const char *pb)
{
    if (!sp_read_matrix(c, pa, mt->A_path, mt->A_resolved, mt))
        return 0;
    int ok = 1;
    if (mt->m_given && mt->m_given != mt->m) {
        sp_err(c, DP "/m", "m is %d but %s has %d rows", mt->m_given, mt->A_path, mt->m);
        ok = 0;
    }
    if (mt->n_given && mt->n_given != mt->n) {
        sp_err(c, DP "/n", "n is %d but %s has %d columns", mt->n_given, mt->A_path, mt->n);
        ok = 0;
    }
    if (mt->b_resolved) {
        free(mt->b);
        mt->b = NULL;
        if (!sp_read_vector(c, pbp, mt->b_path, mt->b_resolved, &mt->b, &mt->b_len))
            return 0;
    }
    if (mt->b_len != mt->m) {
        sp_err(c, mt->b_resolved ? pbp : pb, "length %lld does not match the %d rows of %s",
               (long long)mt->b_len, mt->m, mt->A_path);
        ok = 0;
    }
    return file_values_ok(c, mt, pa, pbp) && ok;
}

/* Up to 3 distinct values of a and b (na, nb entries) into v; their count. */
static int distinct(const double *a, int64_t na, const double *b, int64_t nb, double v[3])
{
    int k = 0;
    for (int64_t i = 0; i < na + nb && k < 3; i++) {
        double x = i < na ? a[i] : b[i - na];
        int seen = 0;
        for (int j = 0; j < k; j++)
            seen |= v[j] == x;
        if (!seen)
            v[k++] = x;
    }
    return k;
}

/* Logistic regression on a LIBSVM file's labels: those equal to
 * `positive` are +1, every other -1.  positive is the spec's, or told by
 * the labels (of the training and the validation rows): 1 when they are
 * -1/+1 or 0/1 (the library's own map), the larger of exactly two values
 * otherwise ({1, 2}, {2, 4}); more values need it given. */
static int map_labels(sp_ctx *c, sp_ls *ls)
{
    sp_mat *tr = &ls->tr, *va = &ls->va;
    int64_t nv = ls->has_val ? va->m : 0;
    if (!ls->positive_given) {
        double v[3];
        int k = distinct(tr->b, tr->m, va->b, nv, v), pm = 1, zo = 1;
        for (int j = 0; j < k; j++) {
            pm &= v[j] == 1 || v[j] == -1;
            zo &= v[j] == 1 || v[j] == 0;
        }
        if (k == 3 || (k == 1 && !pm && !zo)) {
            sp_err(c, DP "/positive", "the labels of %s take %s (%g%s): give \"positive\", "
                   "the label of the rows of class +1", tr->A_path,
                   k == 3 ? "more than two values" : "one value", v[0],
                   k == 3 ? ", ..." : "");
            return 0;
        }
        ls->positive = pm || zo ? 1.0 : fmax(v[0], v[1]);
        ls->positive_given = 2;
    }
    for (int i = 0; i < tr->m; i++)
        tr->b[i] = tr->b[i] == ls->positive ? 1.0 : -1.0;
    for (int64_t i = 0; i < nv; i++)
        va->b[i] = va->b[i] == ls->positive ? 1.0 : -1.0;
    return 1;
}

/* Files, or datasets (read as the files they are). */
static int load_files(sp_ctx *c, sp_ls *ls)
{
    int ds = ls->source == SP_SRC_DATASET;
    if (!load_mat(c, &ls->tr, ds ? DP "/id" : DP "/A_path", ds ? DP "/b_id" : DP "/b_path",
                  DP "/b"))
        return 0;
    if (ls->has_val && !load_mat(c, &ls->va, ds ? DP "/A_val_id" : DP "/A_val_path",
                                 ds ? DP "/b_val_id" : DP "/b_val_path", DP "/b_val"))
        return 0;
    if (ls->tr.fmt != SP_FMT_LIBSVM)
        return 1;
    /* LIBSVM files list the features their rows have: the columns are the
     * largest index of either file (a1a's training rows reach 119, its
     * test rows 123), unless n is given */
    int n = ls->has_val && ls->va.n > ls->tr.n ? ls->va.n : ls->tr.n;
    ls->tr.n = ls->va.n = n;
    return !ls->logistic || map_labels(c, ls);
}

/* Rows [from, from + m) of the generated A (n columns) and b into mt. */
static int take_rows(sp_mat *mt, const double *A, const double *b, int from, int m, int n,
                     int labels)
{
    mt->m = m;
    mt->n = n;
    mt->A = malloc((size_t)m * (size_t)n * sizeof *mt->A);
    mt->b = malloc((size_t)m * sizeof *mt->b);
    if (!mt->A || !mt->b)
        return 0;
    memcpy(mt->A, A + (size_t)from * n, (size_t)m * (size_t)n * sizeof *mt->A);
    for (int i = 0; i < m; i++)
        mt->b[i] = labels ? (b[from + i] > 0 ? 1.0 : -1.0) : b[from + i];
    return 1;
}

/* Rows [from, from + m) of the generated CSR rows g into mt (CSR). */
static int take_csr(sp_mat *mt, const ircg_svm *g, int from, int m)
{
    int64_t p0 = g->rowptr[from], nnz = g->rowptr[from + m] - p0;
    mt->m = m;
    mt->n = g->n;
    mt->a_kind = SP_A_CSR;
    mt->rowptr = malloc(((size_t)m + 1) * sizeof *mt->rowptr);
    mt->colind = malloc((size_t)(nnz ? nnz : 1) * sizeof *mt->colind);
    mt->val = malloc((size_t)(nnz ? nnz : 1) * sizeof *mt->val);
    mt->b = malloc((size_t)m * sizeof *mt->b);
    if (!mt->rowptr || !mt->colind || !mt->val || !mt->b)
        return 0;
    for (int i = 0; i <= m; i++)
        mt->rowptr[i] = g->rowptr[from + i] - p0;
    memcpy(mt->colind, g->colind + p0, (size_t)nnz * sizeof *mt->colind);
    memcpy(mt->val, g->val + p0, (size_t)nnz * sizeof *mt->val);
    memcpy(mt->b, g->labels + from, (size_t)m * sizeof *mt->b);
    return 1;
}

/* The shaped generator's m + m_val rows (ircg_synth_rows). */
static int generate_shaped(sp_ctx *c, sp_ls *ls)
{
    ircg_synth_rows_spec sp = {.shape = (ircg_synth_shape)ls->shape, .m = ls->tr.m + ls->m_val,
                               .n = ls->tr.n, .nnz_row = ls->nnz_row, .noise = ls->noise,
                               .logistic = ls->logistic, .seed = ls->seed};
    ircg_svm *g = NULL;
    ircg_diag d = {0};
    int m = ls->tr.m;
    sp.features_path = ls->features_resolved;
    if (ircg_synth_rows(&sp, &g, &d) != IRCG_OK) {
        if (ls->features_path && d.line > 0) /* the file's own: path: line N */
            sp_file_diag(c, DP "/features_path", ls->features_path, &d);
        else if (ls->features_path && !strcmp(d.field, "/features_path"))
            sp_err(c, DP "/features_path", "%s: %s (m + m_val)", ls->features_path, d.message);
        else
            sp_diag(c, DP, &d);
        return 0;
    }
    int ok = take_csr(&ls->tr, g, 0, m) && (!ls->m_val || take_csr(&ls->va, g, m, ls->m_val));
    ircg_svm_free(g);
    if (!ok)
        sp_err(c, DP, "out of memory");
    return ok;
}

/* The generator's m + m_val rows of one model: the first m train, the rest
 * validate (so the training rows do not depend on m_val); logistic
 * regression takes the signs of b as labels. */
static int generate(sp_ctx *c, sp_ls *ls)
{
    double *A = NULL, *b = NULL;
    ircg_diag d = {0};
    int m = ls->tr.m, n = ls->tr.n, ok;
    if (ls->shape != SP_SHAPE_GAUSSIAN)
        return generate_shaped(c, ls);
    if (ircg_synth_least_squares(m + ls->m_val, n, ls->noise, ls->seed, &A, &b, &d) !=
        IRCG_OK) {
        sp_diag(c, DP, &d);
        return 0;
    }
    ok = take_rows(&ls->tr, A, b, 0, m, n, ls->logistic) &&
         (!ls->m_val || take_rows(&ls->va, A, b, m, ls->m_val, n, ls->logistic));
    free(A);
    free(b);
    if (!ok)
        sp_err(c, DP, "out of memory");
    return ok;
}

int sp_ls_load(sp_ctx *c, sp_ls *ls)
{
    if (!ls->data_ok)
        return 0;
    if (ls->source == SP_SRC_SYNTHETIC && !generate(c, ls))
        return 0;
    if ((ls->source == SP_SRC_FILE || ls->source == SP_SRC_DATASET) && !load_files(c, ls))
        return 0;
    if (ls->has_val && ls->va.n != ls->tr.n) {
        sp_err(c, ls->source == SP_SRC_FILE      ? DP "/A_val_path"
                  : ls->source == SP_SRC_DATASET ? DP "/A_val_id"
                                                 : DP "/A_val",
               "the validation rows have %d columns, A has %d", ls->va.n, ls->tr.n);
        return 0;
    }
    ls->loaded = 1;
    return 1;
}
