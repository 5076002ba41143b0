/*
 * http_check.c -- see http_check.h.
 */
#include "http_check.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "ircg.h"
#include "spec.h"

/* The uninterrupted run, in process: same spec, same library. */
static int solve_here(const char *spec, ircg_info *info, ircg_iterate **z)
{
    api_spec *s = NULL;
    ircg_solver *sv = NULL;
    ircg_settings set;
    int ok = api_spec_parse(spec, strlen(spec), NULL, &s, NULL) == 0 && s;
    if (ok) {
        api_spec_settings(s, &set);
        ok = ircg_solver_new(api_spec_problem(s), &set, &sv, NULL) == IRCG_OK &&
             ircg_solve(sv, info) == IRCG_OK &&
             ircg_solver_iterate(sv, IRCG_Z, 0, z) == IRCG_OK;
    }
    ircg_solver_free(sv);
    api_spec_free(s);
    return ok;
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Every element of the JSON array equals v[0..n). */
static int same_array(const cJSON *arr, const double *v, int64_t n)
{
    int same = cJSON_GetArraySize(arr) == (int)n;
    for (int i = 0; same && i < (int)n; i++)
        same = cJSON_GetArrayItem(arr, i)->valuedouble == v[i];
    return same;
}

/* P or Q: a list of k columns of length n; v is column-major n x k. */
static int same_columns(const cJSON *cols, const double *v, int n, int k)
{
    int same = cJSON_GetArraySize(cols) == k;
    for (int j = 0; same && j < k; j++)
        same = same_array(cJSON_GetArrayItem(cols, j), v + (size_t)j * (size_t)n, n);
    return same;
}

static int same_iterate(const cJSON *zj, const ircg_iterate *z)
{
    if (z->kind == IRCG_PROBLEM_LEAST_SQUARES)
        return same_array(cJSON_GetObjectItemCaseSensitive(zj, "values"), z->dense, z->dim);
    return num(zj, "a0") == z->a0 && num(zj, "rank") == (double)z->rank &&
           same_array(cJSON_GetObjectItemCaseSensitive(zj, "w"), z->w, z->rank) &&
           same_columns(cJSON_GetObjectItemCaseSensitive(zj, "P"), z->P, z->rows_held,
                        z->rank) &&
           same_columns(cJSON_GetObjectItemCaseSensitive(zj, "Q"), z->Q, z->cols_held, z->rank);
}

void hc_check_same_numbers(const hu_daemon *d, const char *id, const char *spec)
{
    ircg_info info;
    ircg_iterate *z = NULL;
    cJSON *res = hu_result(d, id);
    if (!solve_here(spec, &info, &z) || !res) {
        th_fail(__FILE__, __LINE__, "no result to compare");
    } else {
        CHECK_INT(num(res, "iterations"), info.iterations);
        CHECK(num(res, "g_x") == info.g_x);
        CHECK(num(res, "f_x") == info.f_x);
        CHECK(num(res, "g_z") == info.g_z);
        CHECK(num(res, "f_z") == info.f_z);
        CHECK(same_iterate(cJSON_GetObjectItemCaseSensitive(res, "z"), z));
    }
    ircg_iterate_free(z);
    cJSON_Delete(res);
}

void hc_check_trace_complete(const hu_daemon *d, const char *id, int n)
{
    char path[160];
    long long after = 0;
    int i = 0, in_order = 1, pages = 0;
    /* pages of 5000 rows, following next_after (a page of 60000 rows takes
     * long under the sanitizers) */
    for (;;) {
        hu_resp r;
        snprintf(path, sizeof path, "/v1/jobs/%s/trace?limit=5000&after=%lld", id, after);
        CHECK_INT(hu_get(d, path, &r), 200);
        cJSON *tr = hu_json(&r);
        const cJSON *rows = cJSON_GetObjectItemCaseSensitive(tr, "rows");
        const cJSON *row = NULL;
        int k = cJSON_GetArraySize(rows);
        cJSON_ArrayForEach(row, rows)
            in_order &= num(row, "t") == (double)++i;
        after = (long long)num(tr, "next_after");
        cJSON_Delete(tr);
        hu_resp_free(&r);
        if (k == 0 || !rows || ++pages > 1000)
            break;
    }
    CHECK_INT(i, n);
    CHECK(in_order);
}

int hc_stored(const char *db, const char *id, store_job *out, int64_t *resume_iter)
{
    store *st = NULL;
    void *blob = NULL;
    size_t len = 0;
    char err[STORE_ERRMAX];
    int rc = -1;
    *resume_iter = 0;
    if (store_open(db, &st, err) == STORE_OK && store_job_get(st, id, out) == STORE_OK) {
        rc = 0;
        if (store_job_resume_point(st, id, resume_iter, &blob, &len) != STORE_OK)
            *resume_iter = 0;
    }
    free(blob);
    store_close(st);
    return rc;
}

int hc_integrity_ok(const char *db)
{
    store *st = NULL;
    char err[STORE_ERRMAX];
    int ok = 0;
    if (store_open(db, &st, err) == STORE_OK && store_integrity_check(st, &ok) != STORE_OK)
        ok = 0;
    store_close(st);
    return ok;
}

int hc_sql(const char *db, const char *sql)
{
    sqlite3 *h = NULL;
    int rc = sqlite3_open(db, &h);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(h, 10000);
        rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
    }
    sqlite3_close(h);
    return rc == SQLITE_OK ? 0 : -1;
}

void hc_check_failed_because(const hu_daemon *d, const char *id, const char *a,
                             const char *b)
{
    char state[16], path[160];
    hu_resp r;
    CHECK(hu_wait_terminal(d, id, 30, state) == 0);
    CHECK_STR(state, "failed");
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    CHECK_INT(hu_get(d, path, &r), 200);
    CHECK(strstr(r.body, a) != NULL);
    CHECK(strstr(r.body, b) != NULL);
    hu_resp_free(&r);
    CHECK_INT(hu_get(d, "/readyz", &r), 200);
    hu_resp_free(&r);
}

double hc_rel_dist(const cJSON *A, const cJSON *B)
{
    double d = 0, s = 0;
    if (cJSON_GetArraySize(A) != cJSON_GetArraySize(B))
        return INFINITY;
    for (int i = 0; i < cJSON_GetArraySize(A); i++) {
        const cJSON *a = cJSON_GetArrayItem(A, i), *b = cJSON_GetArrayItem(B, i);
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
            return INFINITY;
        for (int j = 0; j < cJSON_GetArraySize(a); j++) {
            double x = cJSON_GetArrayItem(a, j)->valuedouble;
            double y = cJSON_GetArrayItem(b, j)->valuedouble;
            d = fmax(d, fabs(x - y));
            s = fmax(s, fabs(y));
        }
    }
    return d / s;
}
