/*
 * http_check.c -- see http_check.h.
 */
#include "http_check.h"

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "base/base.h"
#include "jobs/jobs.h"
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

/* ---------------------------------------------------- to the bit -- */

/* A new member of the row must be compared below too. */
_Static_assert(sizeof(store_trace_row) == 176, "compare the new member in hc_same_row_bits");

int hc_same_row_bits(const store_trace_row *a, const store_trace_row *b, char *why,
                     size_t n)
{
    static const char *const names[] = {"sigma", "alpha", "g_x", "f_x", "g_z", "f_z",
                                        "gap", "g_gap_x", "g_gap_z", "top_sv", "lambda",
                                        "inner_gap_x", "inner_gap_z", "g_lower", "f_lower"};
    const double da[] = {a->sigma, a->alpha, a->g_x, a->f_x, a->g_z, a->f_z,
                         a->gap, a->g_gap_x, a->g_gap_z, a->top_sv, a->lambda,
                         a->inner_gap_x, a->inner_gap_z, a->g_lower, a->f_lower};
    const double db[] = {b->sigma, b->alpha, b->g_x, b->f_x, b->g_z, b->f_z,
                         b->gap, b->g_gap_x, b->g_gap_z, b->top_sv, b->lambda,
                         b->inner_gap_x, b->inner_gap_z, b->g_lower, b->f_lower};
    const long long ia[] = {a->iteration, a->lmo_matvecs, a->rank, a->lmo_converged,
                            a->backtracks, a->proj_full, a->certified};
    const long long ib[] = {b->iteration, b->lmo_matvecs, b->rank, b->lmo_converged,
                            b->backtracks, b->proj_full, b->certified};
    static const char *const inames[] = {"iteration", "lmo_matvecs", "rank",
                                         "lmo_converged", "backtracks", "proj_full",
                                         "certified"};
    for (size_t k = 0; k < sizeof ia / sizeof ia[0]; k++)
        if (ia[k] != ib[k]) {
            snprintf(why, n, "iteration %lld: %s %lld vs %lld", (long long)a->iteration,
                     inames[k], ia[k], ib[k]);
            return 0;
        }
    for (size_t k = 0; k < sizeof da / sizeof da[0]; k++) {
        uint64_t x, y;
        memcpy(&x, &da[k], 8);
        memcpy(&y, &db[k], 8);
        if (x != y) {
            snprintf(why, n, "iteration %lld: %s %.17g (0x%016llx) vs %.17g (0x%016llx)",
                     (long long)a->iteration, names[k], da[k], (unsigned long long)x, db[k],
                     (unsigned long long)y);
            return 0;
        }
    }
    return 1;
}

store_trace_row *hc_stored_trace(const char *db, const char *id, size_t *n)
{
    store *st = NULL;
    store_trace_row *rows = NULL, *page = NULL;
    size_t got = 0;
    char err[STORE_ERRMAX];
    int ok = store_open(db, &st, err) == STORE_OK;
    *n = 0;
    /* pages of the most store_trace_read gives */
    for (int64_t after = 0; ok; after = rows[*n - 1].iteration) {
        ok = store_trace_read(st, id, after, 100000, &page, &got) == STORE_OK;
        if (!ok || got == 0)
            break;
        store_trace_row *r = realloc(rows, (*n + got) * sizeof *r);
        ok = r != NULL;
        if (ok) {
            rows = r;
            memcpy(rows + *n, page, got * sizeof *page);
            *n += got;
        }
        free(page);
        page = NULL;
    }
    free(page);
    store_close(st);
    if (!ok || *n == 0) {
        free(rows);
        *n = 0;
        return NULL;
    }
    return rows;
}

typedef struct rowbuf {
    store_trace_row *r;
    size_t n, cap;
    int failed;
} rowbuf;

/* The row the daemon stores of an iteration (server/jobs/job_output.c), its
 * certified bounds included. */
static int keep_row(void *user, const ircg_iter_info *it)
{
    rowbuf *b = user;
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        store_trace_row *r = realloc(b->r, cap * sizeof *r);
        if (!r) {
            b->failed = 1;
            return 1;
        }
        b->r = r;
        b->cap = cap;
    }
    b->r[b->n++] = srv_trace_row(it); /* as the daemon keeps it */
    return 0;
}

void hc_check_same_run(const char *db, const char *id, const char *spec, int64_t iters,
                       const cJSON *result, long long *rows)
{
    api_spec *s = NULL;
    ircg_solver *sv = NULL;
    ircg_settings set;
    ircg_info info;
    ircg_iterate *z = NULL;
    rowbuf b = {0};
    size_t n = 0;
    char why[320] = "no stored trace";
    int ok = api_spec_parse(spec, strlen(spec), NULL, &s, NULL) == 0 && s;
    if (ok) {
        api_spec_settings(s, &set);
        if (iters > 0)
            set.max_iter = iters;
        set.callback = keep_row;
        set.callback_data = &b;
        ok = ircg_solver_new(api_spec_problem(s), &set, &sv, NULL) == IRCG_OK &&
             ircg_solve(sv, &info) == IRCG_OK && !b.failed &&
             ircg_solver_iterate(sv, IRCG_Z, 0, &z) == IRCG_OK;
    }
    store_trace_row *got = ok ? hc_stored_trace(db, id, &n) : NULL;
    if (!ok || !got) {
        th_fail(__FILE__, __LINE__, "job %s: no run or no stored trace to compare", id);
    } else {
        CHECK_INT(n, b.n);
        size_t i = 0;
        while (i < n && i < b.n && hc_same_row_bits(&b.r[i], &got[i], why, sizeof why))
            i++;
        if (i < n && i < b.n)
            th_fail(__FILE__, __LINE__, "job %s differs from the uninterrupted run at row "
                    "%zu: %s", id, i + 1, why);
        *rows += (long long)i;
    }
    if (ok && result) {
        CHECK_INT(num(result, "iterations"), info.iterations);
        CHECK(num(result, "g_x") == info.g_x);
        CHECK(num(result, "f_x") == info.f_x);
        CHECK(num(result, "g_z") == info.g_z);
        CHECK(num(result, "f_z") == info.f_z);
        CHECK(same_iterate(cJSON_GetObjectItemCaseSensitive(result, "z"), z));
    }
    free(got);
    free(b.r);
    ircg_iterate_free(z);
    ircg_solver_free(sv);
    api_spec_free(s);
}

/* The path `at` and what differs, into why; 0. */
static int differ(char *why, size_t n, const char *at, const char *what)
{
    snprintf(why, n, "%s: %s", at[0] ? at : "(root)", what);
    return 0;
}

static int json_same_at(const cJSON *a, const cJSON *b, const char *const *skip, char *at,
                        char *why, size_t n)
{
    size_t len = strlen(at);
    if ((a->type & 0xff) != (b->type & 0xff))
        return differ(why, n, at, "types differ");
    if (cJSON_IsNumber(a)) {
        if (memcmp(&a->valuedouble, &b->valuedouble, sizeof(double)) != 0) {
            char v[120];
            snprintf(v, sizeof v, "%.17g vs %.17g", a->valuedouble, b->valuedouble);
            return differ(why, n, at, v);
        }
        return 1;
    }
    if (cJSON_IsString(a))
        return strcmp(a->valuestring, b->valuestring) == 0 ? 1 : differ(why, n, at, "strings differ");
    if (!cJSON_IsArray(a) && !cJSON_IsObject(a))
        return 1; /* null, true, false: the type said it */
    const cJSON *x = a->child, *y = b->child;
    for (int i = 0; x && y; x = x->next, y = y->next, i++) {
        int skipped = 0;
        if (cJSON_IsObject(a) && strcmp(x->string, y->string) != 0)
            return differ(why, n, at, "members differ");
        if (cJSON_IsObject(a))
            snprintf(at + len, 512 - len, "/%s", x->string);
        else
            snprintf(at + len, 512 - len, "/%d", i);
        /* a skipped member: its name at the top, or its path below */
        for (const char *const *s = skip; cJSON_IsObject(a) && s && *s; s++)
            skipped |= strcmp(len == 0 ? x->string : at + 1, *s) == 0;
        if (skipped) {
            at[len] = '\0';
            continue;
        }
        int same = json_same_at(x, y, skip, at, why, n);
        at[len] = '\0';
        if (!same)
            return 0;
    }
    return x || y ? differ(why, n, at, "lengths differ") : 1;
}

int hc_json_same(const cJSON *a, const cJSON *b, const char *const *skip, char *why,
                 size_t n)
{
    char at[512] = "";
    if (!a || !b)
        return differ(why, n, at, "missing");
    return json_same_at(a, b, skip, at, why, n);
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
