/*
 * result_npz.c -- a finished job's x or z as the .npz of its snapshots
 * (iterate_npz.c), made from the result's JSON (result_json.c): its
 * numbers were printed to read back to the same doubles, so the arrays
 * are the solver's, bit for bit -- a vector, or the factors of a matrix
 * completion iterate (never the n_rows x n_cols matrix).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "npz.h"

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* A JSON array of numbers (null: NaN) into a new array of its length n
 * (or want, when >= 0: then it must be that long); NULL on a mismatch. */
static double *numbers(const cJSON *a, int64_t want, int64_t *n)
{
    int64_t len = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
    if (len < 0 || (want >= 0 && len != want))
        return NULL;
    double *v = calloc((size_t)(len ? len : 1), sizeof *v);
    const cJSON *e;
    int64_t i = 0;
    cJSON_ArrayForEach(e, a)
    {
        if (!v || !(cJSON_IsNumber(e) || cJSON_IsNull(e))) {
            free(v);
            return NULL;
        }
        v[i++] = cJSON_IsNumber(e) ? e->valuedouble : NAN;
    }
    if (n)
        *n = len;
    return v;
}

/* k columns of length rows (a list of lists) into column-major rows x k. */
static double *columns(const cJSON *a, int64_t rows, int k)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != k)
        return NULL;
    size_t count = (size_t)rows * (size_t)k;
    double *m = malloc((count ? count : 1) * sizeof *m);
    const cJSON *col;
    int j = 0;
    cJSON_ArrayForEach(col, a)
    {
        double *c = m ? numbers(col, rows, NULL) : NULL;
        if (!c) {
            free(m);
            return NULL;
        }
        memcpy(m + (size_t)j++ * (size_t)rows, c, (size_t)rows * sizeof *c);
        free(c);
    }
    return m;
}

static int32_t *ids(const cJSON *a, int *n)
{
    int64_t len = 0;
    double *v = numbers(a, -1, &len);
    int32_t *out = v ? malloc((size_t)(len ? len : 1) * sizeof *out) : NULL;
    for (int64_t i = 0; out && i < len; i++)
        out[i] = (int32_t)v[i];
    free(v);
    *n = (int)len;
    return out;
}

static int factored(const cJSON *o, ircg_iterate *it)
{
    const cJSON *x0 = get(o, "x0_diag");
    it->n_rows = (int)cJSON_GetNumberValue(get(o, "n_rows"));
    it->n_cols = (int)cJSON_GetNumberValue(get(o, "n_cols"));
    it->rank = (int)cJSON_GetNumberValue(get(o, "rank"));
    it->a0 = cJSON_GetNumberValue(get(o, "a0"));
    int64_t m0 = it->n_rows < it->n_cols ? it->n_rows : it->n_cols;
    if (it->n_rows < 1 || it->n_cols < 1 || it->rank < 0)
        return -1;
    it->dim = (int64_t)it->n_rows * it->n_cols;
    if (x0 && get(x0, "values")) {
        it->x0_diag = numbers(get(x0, "values"), m0, NULL);
    } else {
        it->x0_diag = malloc((size_t)(m0 ? m0 : 1) * sizeof *it->x0_diag);
        double v = x0 ? cJSON_GetNumberValue(get(x0, "value")) : 0;
        for (int64_t i = 0; it->x0_diag && i < m0; i++)
            it->x0_diag[i] = v;
    }
    it->w = numbers(get(o, "w"), it->rank, NULL);
    it->rows_held = it->n_rows;
    it->cols_held = it->n_cols;
    if (get(o, "rows") && !(it->row_ids = ids(get(o, "rows"), &it->rows_held)))
        return -1;
    if (get(o, "cols") && !(it->col_ids = ids(get(o, "cols"), &it->cols_held)))
        return -1;
    it->P = columns(get(o, "P"), it->rows_held, it->rank);
    it->Q = columns(get(o, "Q"), it->cols_held, it->rank);
    if (get(o, "P_other") && !(it->P_other = numbers(get(o, "P_other"), it->rank, NULL)))
        return -1;
    return it->x0_diag && it->w && it->P && it->Q ? 0 : -1;
}

int api_result_iterate_npz(const char *result_json, const char *which, ircg_problem_kind kind,
                           void **out, size_t *len, char *why, size_t cap)
{
    cJSON *doc = cJSON_Parse(result_json ? result_json : "");
    const cJSON *o = get(doc, which);
    /* the library's own iterate, freed by it whatever was filled */
    ircg_iterate *it = calloc(1, sizeof *it);
    int rc = -1;
    *out = NULL;
    *len = 0;
    if (!it) {
        snprintf(why, cap, "out of memory");
        cJSON_Delete(doc);
        return -1;
    }
    it->kind = kind;
    if (!cJSON_IsObject(o)) {
        snprintf(why, cap, "the result has no iterate %s (the solve did not reach one)", which);
    } else if (cJSON_IsString(get(o, "kind")) && !strcmp(get(o, "kind")->valuestring, "vector")) {
        it->dense = numbers(get(o, "values"), -1, &it->dim);
        it->n_rows = (int)it->dim;
        it->n_cols = 1;
        rc = it->dense && kind != IRCG_PROBLEM_MATRIX_COMPLETION ? 0 : -1;
    } else {
        rc = kind == IRCG_PROBLEM_MATRIX_COMPLETION ? factored(o, it) : -1;
    }
    if (rc == 0 && (rc = api_iterate_npz(it, out, len)) != 0)
        snprintf(why, cap, "out of memory (or an array over 4 GiB)");
    else if (rc != 0 && cJSON_IsObject(o))
        snprintf(why, cap, "the result's %s is not an iterate of its problem", which);
    ircg_iterate_free(it);
    cJSON_Delete(doc);
    return rc;
}
