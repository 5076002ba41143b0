/*
 * spec_ls_load.c -- the build stage of the least squares and logistic
 * regression data: files read (Matrix Market or CSV matrices, vectors) and
 * checked against each other and the dimensions the spec gives, or the
 * seeded generator run and split into training and validation rows.
 */
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

static int load_files(sp_ctx *c, sp_ls *ls)
{
    if (!load_mat(c, &ls->tr, DP "/A_path", DP "/b_path", DP "/b"))
        return 0;
    if (!ls->has_val)
        return 1;
    return load_mat(c, &ls->va, DP "/A_val_path", DP "/b_val_path", DP "/b_val");
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

/* The generator's m + m_val rows of one model: the first m train, the rest
 * validate (so the training rows do not depend on m_val); logistic
 * regression takes the signs of b as labels. */
static int generate(sp_ctx *c, sp_ls *ls)
{
    double *A = NULL, *b = NULL;
    ircg_diag d = {0};
    int m = ls->tr.m, n = ls->tr.n, ok;
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
    if (ls->source == SP_SRC_FILE && !load_files(c, ls))
        return 0;
    if (ls->has_val && ls->va.n != ls->tr.n) {
        sp_err(c, ls->source == SP_SRC_FILE ? DP "/A_val_path" : DP "/A_val",
               "the validation rows have %d columns, A has %d", ls->va.n, ls->tr.n);
        return 0;
    }
    ls->loaded = 1;
    return 1;
}
