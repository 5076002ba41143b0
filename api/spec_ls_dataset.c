/*
 * spec_ls_dataset.c -- least squares and logistic regression on uploaded
 * datasets (POST /v1/datasets):
 *   {"source": "dataset", "id", "b_id" | "b", "A_val_id", "b_val_id" |
 *    "b_val", "m", "n", "positive"}
 * "id" names the matrix A (a LIBSVM matrix brings its labels as b), "b_id"
 * a vector dataset (or "b" inline numbers), "A_val_id" and "b_val_id" the
 * validation rows.  What each dataset holds is known from its upload
 * (kind, format, shape: api_dataset_meta), so the cheap checks of a
 * submission tell whether it exists, is a matrix or a vector, and fits the
 * others -- each refusal at its member --; the build then reads each as
 * the file it is (spec_files.c, spec_ls_load.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

#define DP "/problem/data"

static const char *const MEMBERS[] = {"source", "id",     "b_id", "b", "A_val_id", "b_val_id",
                                      "b_val",  "m",      "n",    "positive", NULL};

sp_mfmt sp_mfmt_of(const char *name)
{
    for (int i = 0; SP_MFMT_NAMES[i]; i++)
        if (!strcmp(name, SP_MFMT_NAMES[i]))
            return (sp_mfmt)i;
    return SP_FMT_AUTO;
}

static const char *holds(const char *kind)
{
    return !strcmp(kind, "ratings") ? "ratings (matrix completion's)"
           : !strcmp(kind, "vector") ? "a vector"
                                     : "a matrix";
}

/* The dataset a member names, resolved: 1 with *info, 0 when the member
 * is absent, -1 after an error at it (no such dataset, another kind). */
static int resolve(sp_ctx *c, const cJSON *d, const char *name, const char *kind,
                   api_dataset_info *info, const char **id)
{
    char p[SP_PTR];
    ircg_diag dg = {0};
    sp_ptr(p, DP, name);
    int got = sp_string(c, d, DP, name, id);
    if (got <= 0)
        return got;
    if (c->opt->dataset_info(c->opt->dataset_user, *id, info, &dg) != IRCG_OK) {
        sp_err(c, p, "%s", dg.message[0] ? dg.message : "no such dataset");
        return -1;
    }
    if (strcmp(info->meta.kind, kind) != 0) {
        sp_err(c, p, "dataset %s holds %s, not %s (upload it with kind=%s)", *id,
               holds(info->meta.kind), holds(kind), kind);
        return -1;
    }
    return 1;
}

/* "dataset 0123456789ab": how messages name it. */
static char *shown(const char *id)
{
    char buf[32];
    snprintf(buf, sizeof buf, "dataset %.12s", id);
    return strdup(buf);
}

static void take_matrix(sp_mat *mt, const api_dataset_info *info, const char *id)
{
    mt->A_id = strdup(id);
    mt->A_path = shown(id);
    mt->A_resolved = strdup(info->path);
    mt->fmt = sp_mfmt_of(info->meta.format);
    mt->ds = info->meta;
    mt->m = (int)info->meta.rows;
    mt->n = (int)info->meta.cols;
}

/* b ("b" inline or "b_id") of a matrix mt whose rows are known (mt->m >
 * 0) or not (its dataset was refused): each refusal at its member. */
static void parse_b(sp_ctx *c, const cJSON *d, sp_mat *mt, const char *b, const char *b_id)
{
    char pb[SP_PTR], pid[SP_PTR];
    api_dataset_info info;
    const char *id = NULL;
    int64_t nb = 0;
    sp_ptr(pb, DP, b);
    sp_ptr(pid, DP, b_id);
    if (mt->fmt == SP_FMT_LIBSVM) {
        if (sp_get(d, b) || sp_get(d, b_id))
            sp_err(c, sp_get(d, b) ? pb : pid, "%s is a LIBSVM file, whose labels are its b: "
                   "give no %s", mt->A_path, sp_get(d, b) ? b : b_id);
        return;
    }
    if (sp_get(d, b) && sp_get(d, b_id)) {
        sp_err(c, pid, "give either \"%s\" or \"%s\", not both", b, b_id);
    } else if (sp_get(d, b)) {
        if (sp_num_array(c, sp_get(d, b), pb, &mt->b, &nb) > 0 && mt->m > 0 && nb != mt->m)
            sp_err(c, pb, "length %lld does not match the %d rows of %s", (long long)nb, mt->m,
                   mt->A_path);
        mt->b_len = nb;
    } else if (!sp_get(d, b_id)) {
        sp_err(c, pid, "missing required member \"%s\" (or \"%s\" inline)", b_id, b);
    } else if (resolve(c, d, b_id, "vector", &info, &id) > 0) {
        mt->b_id = strdup(id);
        mt->b_path = shown(id);
        mt->b_resolved = strdup(info.path);
        mt->b_len = info.meta.rows;
        if (mt->m > 0 && info.meta.rows != mt->m)
            sp_err(c, pid, "%s holds %lld values, %s has %d rows", mt->b_path,
                   (long long)info.meta.rows, mt->A_path, mt->m);
    }
}

/* The validation rows: "A_val_id" with "b_val_id" or "b_val" (a LIBSVM
 * matrix alone), of A's columns. */
static void parse_val(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    api_dataset_info info;
    const char *id = NULL;
    sp_mat *tr = &ls->tr, *va = &ls->va;
    int has_b = sp_get(d, "b_val") || sp_get(d, "b_val_id");
    if (!sp_get(d, "A_val_id")) {
        if (has_b)
            sp_err(c, DP "/A_val_id", "missing required member \"A_val_id\" (validation "
                   "rows come with both)");
        return;
    }
    ls->has_val = 1;
    if (resolve(c, d, "A_val_id", "matrix", &info, &id) <= 0)
        return;
    take_matrix(va, &info, id);
    int svm_tr = tr->fmt == SP_FMT_LIBSVM, svm_va = va->fmt == SP_FMT_LIBSVM;
    if (tr->A_id && svm_tr != svm_va) {
        sp_err(c, DP "/A_val_id", "%s is %sa LIBSVM file and %s is %s: give both in one format",
               tr->A_path, svm_tr ? "" : "not ", va->A_path, svm_va ? "" : "not");
        return;
    }
    if (tr->A_id && !svm_tr && va->n != tr->n)
        sp_err(c, DP "/A_val_id", "%s has %d columns, %s has %d", va->A_path, va->n,
               tr->A_path, tr->n);
    if (tr->A_id && svm_tr) { /* LIBSVM lists the features its rows have */
        int n = va->n > tr->n ? va->n : tr->n;
        if (tr->n_given && tr->n_given < n)
            sp_err(c, DP "/n", "n is %d but %s has a feature index up to %d", tr->n_given,
                   va->A_path, va->n);
        tr->n = va->n = n;
    }
    if (!svm_va && !has_b)
        sp_err(c, DP "/b_val_id", "missing required member \"b_val_id\" (or \"b_val\" "
               "inline; validation rows come with both)");
    else
        parse_b(c, d, va, "b_val", "b_val_id");
}

void sp_parse_ls_dataset(sp_ctx *c, const cJSON *d, sp_ls *ls)
{
    api_dataset_info info;
    const char *id = NULL;
    sp_mat *tr = &ls->tr;
    if (!sp_members(c, d, DP, MEMBERS))
        return;
    if (!c->opt->dataset_info) {
        sp_err(c, DP "/source", "datasets are only available through the service");
        return;
    }
    sp_int_in(c, d, DP, "m", 1, SP_MAX_DIM, &tr->m_given);
    sp_int_in(c, d, DP, "n", 1, SP_MAX_DIM, &tr->n_given);
    if (!sp_get(d, "id"))
        sp_err(c, DP "/id", "missing required member \"id\"");
    else if (resolve(c, d, "id", "matrix", &info, &id) > 0)
        take_matrix(tr, &info, id);
    if (tr->A_id && tr->m_given && tr->m_given != tr->m)
        sp_err(c, DP "/m", "m is %d but %s has %d rows", tr->m_given, tr->A_path, tr->m);
    if (tr->A_id && tr->n_given &&
        (tr->fmt == SP_FMT_LIBSVM ? tr->n_given < tr->n : tr->n_given != tr->n))
        sp_err(c, DP "/n", "n is %d but %s has %d columns", tr->n_given, tr->A_path, tr->n);
    parse_b(c, d, tr, "b", "b_id");
    ls->va.n_given = tr->n_given;
    parse_val(c, d, ls);
    sp_ls_positive(c, d, ls);
}
