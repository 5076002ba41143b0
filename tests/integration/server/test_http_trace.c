/*
 * test_http_trace.c -- the trace endpoints: every member the solver
 * reports per iteration comes back through the store unchanged (compared
 * with the same iterations of an in-process run, formatted by the api
 * layer), and CSV pages carry their cursor in headers.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_util.h"
#include "ircg.h"
#include "result.h"
#include "spec.h"

#define MC_ITERS 200

typedef struct rows {
    cJSON *arr; /* JSON rows of the in-process run */
} rows;

static int collect(void *user, const ircg_iter_info *it)
{
    rows *r = user;
    char line[2048];
    int k = api_trace_json_row(line, sizeof line, it);
    if (k > 0 && (size_t)k < sizeof line)
        cJSON_AddItemToArray(r->arr, cJSON_Parse(line));
    return 0;
}

/* The rows of an uninterrupted in-process run of spec, every iteration. */
static cJSON *rows_here(const char *spec)
{
    api_spec *s = NULL;
    ircg_solver *sv = NULL;
    ircg_settings set;
    ircg_info info;
    rows r = {cJSON_CreateArray()};
    if (api_spec_parse(spec, strlen(spec), NULL, &s, NULL) == 0 && s) {
        api_spec_settings(s, &set);
        set.callback = collect;
        set.callback_data = &r;
        if (ircg_solver_new(api_spec_problem(s), &set, &sv, NULL) != IRCG_OK ||
            ircg_solve(sv, &info) != IRCG_OK) {
            cJSON_Delete(r.arr);
            r.arr = NULL;
        }
    }
    ircg_solver_free(sv);
    api_spec_free(s);
    return r.arr;
}

/* Same members, same values; the two timings excepted. */
static int same_row(const cJSON *a, const cJSON *b)
{
    const cJSON *m = NULL;
    if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
        return 0;
    cJSON_ArrayForEach(m, a) {
        if (!strcmp(m->string, "elapsed") || !strcmp(m->string, "lmo_seconds"))
            continue;
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(b, m->string);
        if (!o || (cJSON_IsNull(m) != cJSON_IsNull(o)) ||
            (cJSON_IsNumber(m) && (!cJSON_IsNumber(o) || m->valuedouble != o->valuedouble)))
            return 0;
    }
    return 1;
}

TEST(http_trace, every_member_passes_through_the_store)
{
    hu_daemon d = {0};
    char id[64], state[16], path[160];
    hu_resp r;
    char *spec = hu_mc_spec(60, 40, 600, MC_ITERS, 0, "\"output\":{\"trace_every\":1}");
    cJSON *want = rows_here(spec);
    REQUIRE(want && cJSON_GetArraySize(want) == MC_ITERS);
    REQUIRE(hu_start(&d, "http_trace_members", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 30, state) == 0);
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?limit=1000", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    cJSON *parsed = hu_json(&r);
    const cJSON *got = cJSON_GetObjectItemCaseSensitive(parsed, "rows");
    CHECK_INT(cJSON_GetArraySize(got), MC_ITERS);
    int differ = 0;
    for (int i = 0; i < MC_ITERS && i < cJSON_GetArraySize(got); i++)
        if (!same_row(cJSON_GetArrayItem(want, i), cJSON_GetArrayItem(got, i)) && !differ++) {
            char *a = cJSON_PrintUnformatted(cJSON_GetArrayItem(want, i));
            char *b = cJSON_PrintUnformatted(cJSON_GetArrayItem(got, i));
            th_fail(__FILE__, __LINE__, "row %d differs:\n      run  %s\n      trace %s", i + 1,
                    a, b);
            free(a);
            free(b);
        }
    cJSON_Delete(parsed);
    hu_resp_free(&r);
    cJSON_Delete(want);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    free(spec);
}

/* The path inside Link: <...>; rel="next", or "" when there is none. */
static void next_link(const hu_resp *r, char *path, size_t len)
{
    const char *a = strchr(r->link, '<'), *b = a ? strchr(a, '>') : NULL;
    path[0] = '\0';
    if (a && b && strstr(b, "rel=\"next\""))
        snprintf(path, len, "%.*s", (int)(b - a - 1), a + 1);
}

/* Follows the Link headers from `first`; checks every page's X-Next-After
 * and that the CSV data rows are iterations 1..n once each. */
static void walk_csv(const hu_daemon *d, const char *first, int limit, int n, int *pages)
{
    char path[300];
    int t = 0, ok = 1;
    snprintf(path, sizeof path, "%s", first);
    for (*pages = 0; path[0] && *pages < 100; (*pages)++) {
        hu_resp r;
        CHECK_INT(hu_get(d, path, &r), 200);
        CHECK(strstr(r.ctype, "text/csv") != NULL);
        int lines = 0;
        for (char *line = strtok(r.body, "\n"); line; line = strtok(NULL, "\n"))
            if (lines++ > 0) /* the header line */
                ok &= atoi(line) == ++t;
        CHECK(lines - 1 <= limit);
        CHECK_INT(atoll(r.next_after), t);
        next_link(&r, path, sizeof path);
        /* a Link exactly when the page was full */
        CHECK_INT(path[0] != '\0', lines - 1 == limit);
        hu_resp_free(&r);
    }
    CHECK(ok);
    CHECK_INT(t, n);
}

TEST(http_trace, csv_pages_carry_their_cursor)
{
    hu_daemon d = {0};
    char id[64], state[16], path[200];
    int pages = 0;
    hu_resp r;
    char *spec = hu_mc_spec(60, 40, 600, MC_ITERS, 0, "\"output\":{\"trace_every\":1}");
    REQUIRE(hu_start(&d, "http_trace_csv", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 30, state) == 0);
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv&limit=64", id);
    walk_csv(&d, path, 64, MC_ITERS, &pages);
    CHECK_INT(pages, 4); /* 64 + 64 + 64 + 8 */
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv&limit=100", id);
    walk_csv(&d, path, 100, MC_ITERS, &pages);
    CHECK_INT(pages, 3); /* 100 + 100 + an empty last page */
    /* JSON pages carry the same headers, next_after in the body too */
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?after=150&limit=50", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK_STR(r.next_after, "200");
    CHECK(strstr(r.link, "after=200&limit=50>") != NULL);
    CHECK(strstr(r.body, "\"next_after\":200") != NULL);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    free(spec);
}
