/*
 * test_http_heartbeat.c -- a job whose solver calls no callback for a long
 * time (here: a reference computation of g_opt that would take hours)
 * still beats, can be cancelled, and goes back to the queue on SIGTERM.
 */
/* make tsan: http_heartbeat. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_check.h"

/* delta 1000 puts the optimum on a face of the nuclear ball where the
 * reference's conditional gradient crawls (~3000 iterations for a gap of
 * 40); tol 1e-15 and 1e8 iterations make it run for hours. */
static const char SLOW_REFERENCE[] =
    "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":\"synthetic\","
    "\"n_rows\":200,\"n_cols\":150,\"rank\":5,\"n_ratings\":6000,\"seed\":1},"
    "\"delta\":1000},\"algorithm\":{\"max_iter\":10},"
    "\"reference\":{\"compute\":true,\"tol\":1e-15,\"max_iter\":100000000}}";

static cJSON *job(const hu_daemon *d, const char *id)
{
    char path[128];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    cJSON *j = hu_get(d, path, &r) == 200 ? hu_json(&r) : NULL;
    hu_resp_free(&r);
    return j;
}

static const char *str(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* Polls until `want` different heartbeat_at values were seen while the job
 * ran without a single solver iteration; returns how many were seen. */
static int distinct_beats(const hu_daemon *d, const char *id, int want, double timeout_s)
{
    char last[64] = "";
    int seen = 0;
    double end = hu_now() + timeout_s;
    while (seen < want && hu_now() < end) {
        cJSON *j = job(d, id);
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(j, "progress"), "iteration");
        const char *hb = str(j, "heartbeat_at");
        if (!strcmp(str(j, "state"), "running") && cJSON_IsNumber(it) &&
            it->valuedouble == 0 && *hb && strcmp(hb, last) != 0) {
            snprintf(last, sizeof last, "%s", hb);
            seen++;
        }
        cJSON_Delete(j);
        hu_sleep_ms(50);
    }
    return seen;
}

TEST(http_heartbeat, silent_solver_beats_and_cancels)
{
    hu_daemon d = {0};
    char id[64], state[16];
    hu_resp r;
    store *st = NULL;
    snprintf(d.extra, sizeof d.extra, "--heartbeat-every 0.2");
    REQUIRE(hu_start(&d, "http_heartbeat", 1) == 0);
    CHECK_INT(hu_submit(&d, SLOW_REFERENCE, id, sizeof id), 202);
    CHECK_INT(distinct_beats(&d, id, 5, 30), 5);
    CHECK_INT(hu_get(&d, "/readyz", &r), 200);
    hu_resp_free(&r);

    /* a cancel recorded in the store by another connection reaches the
     * reference computation through the heartbeat */
    REQUIRE(store_open(d.db, &st, NULL) == STORE_OK);
    CHECK(store_job_request_cancel(st, id, NULL) == STORE_OK);
    store_close(st);
    CHECK(hu_wait_terminal(&d, id, 30, state) == 0);
    CHECK_STR(state, "cancelled");
    cJSON *res = hu_result(&d, id);
    CHECK_STR(str(res, "status"), "cancelled");
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(res, "reference");
    CHECK_STR(str(ref, "status"), "cancelled");
    cJSON_Delete(res);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_heartbeat, sigterm_during_a_silent_phase_requeues)
{
    hu_daemon d = {0};
    char id[64];
    store_job j = {0};
    int64_t from = 0;
    snprintf(d.extra, sizeof d.extra, "--heartbeat-every 0.2");
    REQUIRE(hu_start(&d, "http_heartbeat_term", 1) == 0);
    CHECK_INT(hu_submit(&d, SLOW_REFERENCE, id, sizeof id), 202);
    CHECK_INT(distinct_beats(&d, id, 2, 30), 2);
    CHECK_INT(hu_stop(&d, SIGTERM), 0); /* would hang (30 s, then -1) if not */
    REQUIRE(hc_stored(d.db, id, &j, &from) == 0);
    CHECK_INT(j.state, STORE_QUEUED);
    CHECK_INT(j.attempt, 0);
    store_job_clear(&j);
}
