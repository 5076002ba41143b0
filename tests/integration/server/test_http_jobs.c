/*
 * test_http_jobs.c -- several jobs at once, cancel, time limit, delete.
 */
/* make tsan: http_jobs. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_util.h"

static const char *jstr(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The numbers of a result that must not depend on timing. */
static char *numbers(const cJSON *res)
{
    static const char *const keep[] = {"status", "iterations", "g_x", "f_x", "g_z",
                                       "f_z", "gap", "sigma", "x", "z"};
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(res, keep[i]);
        if (v)
            cJSON_AddItemToObject(o, keep[i], cJSON_Duplicate(v, 1));
    }
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

static char *result_numbers(const hu_daemon *d, const char *id)
{
    cJSON *res = hu_result(d, id);
    char *s = res ? numbers(res) : NULL;
    cJSON_Delete(res);
    return s ? s : calloc(1, 1);
}

/* A job long enough to be caught running (stopped by cancel or limit). */
static char *long_spec(double time_limit)
{
    return hu_ls_spec(200, 400, 3, 100, 1000000000LL, time_limit,
                      "\"output\":{\"trace_every\":100}");
}

TEST(http_jobs, concurrent_identical)
{
    hu_daemon d = {0};
    char ids[6][64], state[16];
    REQUIRE(hu_start(&d, "http_concurrent", 2) == 0);
    char *mc = hu_mc_spec(60, 40, 600, 2000, 0, NULL);
    char *ls = hu_ls_spec(30, 80, 2, 10, 40000, 0, NULL);
    /* solo runs first, one at a time */
    CHECK_INT(hu_submit(&d, mc, ids[0], sizeof ids[0]), 202);
    CHECK(hu_wait_terminal(&d, ids[0], 20, state) == 0);
    CHECK_INT(hu_submit(&d, ls, ids[1], sizeof ids[1]), 202);
    CHECK(hu_wait_terminal(&d, ids[1], 20, state) == 0);
    /* then 4 at once on 2 workers: the MC pair runs side by side */
    CHECK_INT(hu_submit(&d, mc, ids[2], sizeof ids[2]), 202);
    CHECK_INT(hu_submit(&d, mc, ids[3], sizeof ids[3]), 202);
    CHECK_INT(hu_submit(&d, ls, ids[4], sizeof ids[4]), 202);
    CHECK_INT(hu_submit(&d, ls, ids[5], sizeof ids[5]), 202);
    for (int i = 2; i < 6; i++) {
        CHECK(hu_wait_terminal(&d, ids[i], 30, state) == 0);
        CHECK_STR(state, "succeeded");
    }
    char *solo_mc = result_numbers(&d, ids[0]), *solo_ls = result_numbers(&d, ids[1]);
    CHECK(strlen(solo_mc) > 100 && strlen(solo_ls) > 100);
    for (int i = 2; i < 6; i++) {
        char *n = result_numbers(&d, ids[i]);
        if (strcmp(n, i < 4 ? solo_mc : solo_ls) != 0)
            th_fail(__FILE__, __LINE__, "job %d differs from its solo run", i);
        free(n);
    }
    free(solo_mc);
    free(solo_ls);
    free(mc);
    free(ls);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

static long post_path(const hu_daemon *d, const char *method, const char *fmt,
                      const char *id, cJSON **body)
{
    char path[160];
    hu_resp r;
    snprintf(path, sizeof path, fmt, id);
    hu_req(d, method, path, NULL, NULL, 0, NULL, &r);
    if (body)
        *body = hu_json(&r);
    hu_resp_free(&r);
    return r.status;
}

TEST(http_jobs, cancel_and_delete)
{
    hu_daemon d = {0};
    char a[64], b[64], c[64], state[16];
    cJSON *o = NULL;
    REQUIRE(hu_start(&d, "http_cancel", 1) == 0);
    char *spec = long_spec(0);
    CHECK_INT(hu_submit(&d, spec, a, sizeof a), 202);
    CHECK_INT(hu_submit(&d, spec, b, sizeof b), 202);
    REQUIRE(hu_wait_iteration(&d, a, 100, 10) == 0);

    /* the result is not there yet; a running job cannot be deleted */
    CHECK_INT(post_path(&d, "GET", "/v1/jobs/%s/result", a, &o), 409);
    CHECK_STR(jstr(o, "type"), "urn:ircg:problem:job-not-finished");
    CHECK_STR(jstr(o, "state"), "running");
    cJSON_Delete(o);
    CHECK_INT(post_path(&d, "DELETE", "/v1/jobs/%s", a, NULL), 409);

    /* queued -> cancelled at once (200), twice is still 200 */
    CHECK_INT(post_path(&d, "POST", "/v1/jobs/%s/cancel", b, &o), 200);
    CHECK_STR(jstr(o, "state"), "cancelled");
    cJSON_Delete(o);
    CHECK_INT(post_path(&d, "POST", "/v1/jobs/%s/cancel", b, NULL), 200);

    /* running -> 202, then cancelled with a partial result */
    double t0 = hu_now();
    CHECK_INT(post_path(&d, "POST", "/v1/jobs/%s/cancel", a, &o), 202);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "cancel_requested")));
    cJSON_Delete(o);
    CHECK(hu_wait_terminal(&d, a, 10, state) == 0);
    CHECK_STR(state, "cancelled");
    CHECK(hu_now() - t0 < 2.0);
    cJSON *res = hu_result(&d, a);
    CHECK_STR(jstr(res, "status"), "cancelled");
    cJSON_Delete(res);

    /* finished jobs: cancel 409, delete 204 */
    CHECK_INT(hu_submit(&d, "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":"
                            "\"synthetic\",\"m\":5,\"n\":8,\"noise\":0,\"seed\":1},\"domain\":"
                            "{\"type\":\"l2_ball\",\"radius\":10},\"outer\":{\"type\":"
                            "\"half_norm_sq\"}},\"algorithm\":{\"max_iter\":10}}", c, sizeof c), 202);
    CHECK(hu_wait_terminal(&d, c, 10, state) == 0);
    CHECK_STR(state, "succeeded");
    CHECK_INT(post_path(&d, "POST", "/v1/jobs/%s/cancel", c, NULL), 409);
    CHECK_INT(post_path(&d, "DELETE", "/v1/jobs/%s", a, NULL), 204);
    CHECK_INT(post_path(&d, "DELETE", "/v1/jobs/%s", c, NULL), 204);
    CHECK_INT(post_path(&d, "GET", "/v1/jobs/%s", c, NULL), 404);
    CHECK_INT(post_path(&d, "POST", "/v1/jobs/%s/cancel", c, NULL), 404);
    free(spec);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_jobs, time_limit)
{
    hu_daemon d = {0};
    char id[64], state[16];
    REQUIRE(hu_start(&d, "http_timelimit", 1) == 0);
    char *spec = long_spec(0.4);
    double t0 = hu_now();
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 10, state) == 0);
    CHECK_STR(state, "succeeded");
    CHECK(hu_now() - t0 < 3.0);
    cJSON *res = hu_result(&d, id);
    CHECK_STR(jstr(res, "status"), "time_limit");
    /* the limit counts from the job's start (its data and build too, a few
     * milliseconds here): the solve gets the rest of it, and stops within
     * an iteration (microseconds) of it */
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(res, "solve_seconds");
    CHECK(cJSON_IsNumber(s) && s->valuedouble >= 0.3 && s->valuedouble < 0.45);
    cJSON_Delete(res);
    free(spec);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
