/*
 * test_http_crash.c -- kill -9 and SIGTERM while a job runs: the job
 * resumes from its checkpoint and ends with the trace and the numbers of
 * an uninterrupted run.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "http_util.h"
#include "ircg.h"
#include "spec.h"
#include "store.h"

#define CRASH_ITERS 20000

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

/* The daemon's result equals the in-process run bit for bit. */
static void check_same_numbers(const hu_daemon *d, const char *id, const char *spec)
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
        const cJSON *vals = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(res, "z"), "values");
        int same = cJSON_GetArraySize(vals) == (int)z->dim;
        for (int i = 0; same && i < (int)z->dim; i++)
            same = cJSON_GetArrayItem(vals, i)->valuedouble == z->dense[i];
        CHECK(same);
    }
    ircg_iterate_free(z);
    cJSON_Delete(res);
}

/* Iterations 1..n, each exactly once, in order. */
static void check_trace_complete(const hu_daemon *d, const char *id, int n)
{
    char path[160];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?limit=100000", id);
    CHECK_INT(hu_get(d, path, &r), 200);
    cJSON *tr = hu_json(&r);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(tr, "rows");
    CHECK_INT(cJSON_GetArraySize(rows), n);
    int i = 0, in_order = 1;
    const cJSON *row = NULL;
    cJSON_ArrayForEach(row, rows)
        in_order &= num(row, "t") == (double)++i;
    CHECK(in_order);
    cJSON_Delete(tr);
    hu_resp_free(&r);
}

static store_state stored_state(const char *db, int *attempt, int64_t *snap_iter)
{
    store *st = NULL;
    store_job j = {0};
    void *blob = NULL;
    size_t len = 0;
    store_state s = STORE_NSTATES;
    char err[STORE_ERRMAX];
    char id[64] = "";
    if (store_open(db, &st, err) == STORE_OK) {
        store_job_list l = {0};
        store_list_opts o;
        store_job_list_init_opts(&o);
        if (store_job_list_page(st, &o, &l) == STORE_OK && l.n == 1)
            snprintf(id, sizeof id, "%s", l.jobs[0].id);
        store_job_list_clear(&l);
        if (id[0] && store_job_get(st, id, &j) == STORE_OK) {
            s = j.state;
            *attempt = j.attempt;
        }
        *snap_iter = 0;
        store_snapshot_latest_state(st, id, snap_iter, &blob, &len);
    }
    free(blob);
    store_job_clear(&j);
    store_close(st);
    return s;
}

static int integrity_ok(const char *db)
{
    store *st = NULL;
    char err[STORE_ERRMAX];
    int ok = 0;
    if (store_open(db, &st, err) == STORE_OK && store_integrity_check(st, &ok) != STORE_OK)
        ok = 0;
    store_close(st);
    return ok;
}

static char *crash_spec(void)
{
    return hu_ls_spec(200, 400, 5, 100, CRASH_ITERS, 0,
                      "\"output\":{\"trace_every\":1,\"snapshot_every\":1000}");
}

TEST(http_crash, kill9_resume)
{
    hu_daemon d = {0};
    char id[64], state[16], path[160];
    hu_resp r;
    int attempt = 0;
    int64_t snap = 0;
    char *spec = crash_spec();
    REQUIRE(hu_start(&d, "http_kill9", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    REQUIRE(hu_wait_iteration(&d, id, 4000, 20) == 0);
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.body, "\"kind\":\"state\"") && strstr(r.body, "\"kind\":\"z\""));
    hu_resp_free(&r);
    hu_kill9(&d);

    CHECK_INT(stored_state(d.db, &attempt, &snap), STORE_RUNNING);
    CHECK(snap >= 3000);
    printf("    killed with a checkpoint at iteration %lld\n", (long long)snap);
    REQUIRE(hu_restart(&d) == 0);
    CHECK(hu_wait_terminal(&d, id, 30, state) == 0);
    CHECK_STR(state, "succeeded");
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.body, "\"attempt\":2") != NULL);
    hu_resp_free(&r);
    check_trace_complete(&d, id, CRASH_ITERS);
    check_same_numbers(&d, id, spec);

    /* a snapshot downloads as the documented binary iterate */
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots/%d/z", id, CRASH_ITERS - 1000);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.ctype, "application/octet-stream") != NULL);
    CHECK(r.len == 48 + 8 * 400 && memcmp(r.body, "IRCGITR1", 8) == 0);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK(integrity_ok(d.db));
    free(spec);
}

TEST(http_crash, sigterm_requeues)
{
    hu_daemon d = {0};
    char id[64], state[16];
    int attempt = 0;
    int64_t snap = 0;
    char *spec = crash_spec();
    REQUIRE(hu_start(&d, "http_sigterm", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    REQUIRE(hu_wait_iteration(&d, id, 3000, 20) == 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);

    /* back in the queue, with a final checkpoint where it stopped */
    CHECK_INT(stored_state(d.db, &attempt, &snap), STORE_QUEUED);
    CHECK(snap > 3000 && snap < CRASH_ITERS);
    printf("    stopped at iteration %lld\n", (long long)snap);
    REQUIRE(hu_restart(&d) == 0);
    CHECK(hu_wait_terminal(&d, id, 30, state) == 0);
    CHECK_STR(state, "succeeded");
    check_trace_complete(&d, id, CRASH_ITERS);
    check_same_numbers(&d, id, spec);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK(integrity_ok(d.db));
    free(spec);
}

TEST(http_crash, max_attempts_fails)
{
    hu_daemon d = {0};
    char id[64], state[16], path[160];
    hu_resp r;
    char *spec = crash_spec();
    snprintf(d.extra, sizeof d.extra, "--max-attempts 1");
    REQUIRE(hu_start(&d, "http_attempts", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    REQUIRE(hu_wait_iteration(&d, id, 100, 20) == 0);
    hu_kill9(&d);
    REQUIRE(hu_restart(&d) == 0);
    /* out of attempts: failed with the reason, never dropped */
    CHECK(hu_wait_terminal(&d, id, 10, state) == 0);
    CHECK_STR(state, "failed");
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    cJSON *job = hu_json(&r);
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(job, "error");
    CHECK(cJSON_IsObject(err));
    CHECK(strstr(r.body, "interrupted") != NULL);
    cJSON_Delete(job);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    free(spec);
}
