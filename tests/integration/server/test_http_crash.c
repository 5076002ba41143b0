/*
 * test_http_crash.c -- kill -9 and SIGTERM while a job runs: the job
 * resumes from its checkpoint and ends with the trace and the numbers of
 * an uninterrupted run; clean stops do not use up its attempts.
 */
/* make tsan: http_crash.sigterm */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_check.h"

#define CRASH_ITERS 20000

static char *crash_spec(long long iters)
{
    return hu_ls_spec(200, 400, 5, 100, iters, 0,
                      "\"output\":{\"trace_every\":1,\"snapshot_every\":1000}");
}

TEST(http_crash, kill9_resume)
{
    hu_daemon d = {0};
    char id[64], state[16], path[160];
    hu_resp r;
    store_job j = {0};
    int64_t snap = 0;
    char *spec = crash_spec(CRASH_ITERS);
    /* the snapshot read after the job finished stays */
    snprintf(d.extra, sizeof d.extra, "--snapshot-keep-finished 0");
    REQUIRE(hu_start(&d, "http_kill9", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    REQUIRE(hu_wait_iteration(&d, id, 4000, 20) == 0);
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.body, "\"kind\":\"state\"") && strstr(r.body, "\"kind\":\"z\""));
    hu_resp_free(&r);
    hu_kill9(&d);

    REQUIRE(hc_stored(d.db, id, &j, &snap) == 0);
    CHECK_INT(j.state, STORE_RUNNING);
    CHECK(snap >= 3000);
    printf("    killed with a checkpoint at iteration %lld\n", (long long)snap);
    REQUIRE(hu_restart(&d) == 0);
    CHECK(hu_wait_terminal(&d, id, 30, state) == 0);
    CHECK_STR(state, "succeeded");
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.body, "\"attempt\":2") != NULL);
    hu_resp_free(&r);
    hc_check_trace_complete(&d, id, CRASH_ITERS);
    hc_check_same_numbers(&d, id, spec);

    /* a snapshot downloads as the documented .npz */
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots/%d/z", id, CRASH_ITERS - 1000);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.ctype, "application/x-npz") != NULL);
    CHECK(r.len > 8 * 400 / 2 && memcmp(r.body, "PK\x03\x04", 4) == 0);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK(hc_integrity_ok(d.db));
    store_job_clear(&j);
    free(spec);
}

TEST(http_crash, sigterm_requeues)
{
    hu_daemon d = {0};
    char id[64], state[16];
    store_job j = {0};
    int64_t snap = 0;
    char *spec = crash_spec(CRASH_ITERS);
    REQUIRE(hu_start(&d, "http_sigterm", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    REQUIRE(hu_wait_iteration(&d, id, 3000, 20) == 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);

    /* back in the queue, with a final checkpoint where it stopped */
    REQUIRE(hc_stored(d.db, id, &j, &snap) == 0);
    CHECK_INT(j.state, STORE_QUEUED);
    CHECK(snap > 3000 && snap < CRASH_ITERS);
    printf("    stopped at iteration %lld\n", (long long)snap);
    REQUIRE(hu_restart(&d) == 0);
    CHECK(hu_wait_terminal(&d, id, 30, state) == 0);
    CHECK_STR(state, "succeeded");
    hc_check_trace_complete(&d, id, CRASH_ITERS);
    hc_check_same_numbers(&d, id, spec);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK(hc_integrity_ok(d.db));
    store_job_clear(&j);
    free(spec);
}

/* Stops the running daemon with `sig` once the job has gone `ahead`
 * iterations past where this run resumed, checks what the store kept, and
 * starts the daemon again. */
static void interrupt(hu_daemon *d, const char *id, int sig, int64_t ahead,
                      store_state want_state, int want_attempt, int64_t *from)
{
    store_job j = {0};
    REQUIRE(hu_wait_iteration(d, id, *from + ahead, 30) == 0);
    if (sig == SIGKILL)
        hu_kill9(d);
    else
        CHECK_INT(hu_stop(d, sig), 0);
    REQUIRE(hc_stored(d->db, id, &j, from) == 0);
    CHECK_INT(j.state, want_state);
    CHECK_INT(j.attempt, want_attempt);
    printf("    %s: %s, attempt %d, checkpoint at %lld\n",
           sig == SIGKILL ? "kill -9" : "SIGTERM", store_state_name(j.state),
           j.attempt, (long long)*from);
    store_job_clear(&j);
    CHECK(hu_restart(d) == 0);
}

/* Two clean stops and two crashes with --max-attempts 3: only the crashes
 * count, so the job still finishes (attempt 3), exactly. */
TEST(http_crash, sigterm_is_not_an_attempt)
{
    hu_daemon d = {0};
    char id[64], state[16], path[160];
    hu_resp r;
    int64_t from = 0;
    const int iters = 40000;
    char *spec = crash_spec(iters);
    snprintf(d.extra, sizeof d.extra, "--max-attempts 3");
    REQUIRE(hu_start(&d, "http_attempts3", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    interrupt(&d, id, SIGTERM, 2000, STORE_QUEUED, 0, &from);
    interrupt(&d, id, SIGTERM, 4000, STORE_QUEUED, 0, &from);
    interrupt(&d, id, SIGKILL, 4000, STORE_RUNNING, 1, &from);
    interrupt(&d, id, SIGKILL, 4000, STORE_RUNNING, 2, &from);
    REQUIRE(d.pid > 0);
    CHECK(hu_wait_terminal(&d, id, 60, state) == 0);
    CHECK_STR(state, "succeeded");
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.body, "\"attempt\":3") != NULL);
    hu_resp_free(&r);
    hc_check_trace_complete(&d, id, iters);
    hc_check_same_numbers(&d, id, spec);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK(hc_integrity_ok(d.db));
    free(spec);
}

TEST(http_crash, max_attempts_fails)
{
    hu_daemon d = {0};
    char id[64], state[16], path[160];
    hu_resp r;
    char *spec = crash_spec(CRASH_ITERS);
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

/* No snapshots in the spec: the server's timed checkpoint alone lets a
 * matrix completion job killed with -9 resume where it was, exactly (the
 * checkpoint carries the factors, the sigma schedule, the z_t recursion and
 * the Lanczos warm start). */
TEST(http_crash, kill9_matrix_completion_timed_checkpoint)
{
    hu_daemon d = {0};
    char id[64], state[16], path[160];
    hu_resp r;
    store_job j = {0};
    int64_t from = 0;
    const int iters = 12000;
    char *spec = hu_mc_spec(600, 400, 40000, iters, 0, "\"output\":{\"trace_every\":1}");
    snprintf(d.extra, sizeof d.extra, "--checkpoint-every 0.2");
    REQUIRE(hu_start(&d, "http_kill9_mc", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    REQUIRE(hu_wait_iteration(&d, id, 1000, 30) == 0);
    /* wait for a checkpoint well into the run, then kill */
    for (double end = hu_now() + 30; from < 1000 && hu_now() < end; hu_sleep_ms(20)) {
        REQUIRE(hc_stored(d.db, id, &j, &from) == 0);
        store_job_clear(&j);
    }
    hu_kill9(&d);
    REQUIRE(hc_stored(d.db, id, &j, &from) == 0);
    CHECK_INT(j.state, STORE_RUNNING);
    CHECK(from >= 1000 && from < iters);
    printf("    killed with a timed checkpoint at iteration %lld\n", (long long)from);

    REQUIRE(hu_restart(&d) == 0);
    CHECK(hu_wait_terminal(&d, id, 60, state) == 0);
    CHECK_STR(state, "succeeded");
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.body, "\"snapshots\":[]") != NULL); /* none asked for */
    hu_resp_free(&r);
    hc_check_trace_complete(&d, id, iters);
    hc_check_same_numbers(&d, id, spec);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK(hc_integrity_ok(d.db));
    store_job_clear(&j);
    free(spec);
}

/* A crash checkpoint damaged while the daemon was down (cut in half): the
 * restore fails half way through the matrix completion state, and the job
 * fails with that reason -- it never resumes from a half-written
 * workspace, and the daemon goes on. */
TEST(http_crash, damaged_checkpoint_fails_the_job_with_the_reason)
{
    hu_daemon d = {0};
    char id[64];
    store_job j = {0};
    int64_t from = 0;
    char *spec = hu_mc_spec(600, 400, 40000, 100000, 0, "\"output\":{\"trace_every\":1}");
    snprintf(d.extra, sizeof d.extra, "--checkpoint-every 0.2");
    REQUIRE(hu_start(&d, "http_bad_ckpt", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    for (double end = hu_now() + 30; from < 200 && hu_now() < end; hu_sleep_ms(20)) {
        REQUIRE(hc_stored(d.db, id, &j, &from) == 0);
        store_job_clear(&j);
    }
    hu_kill9(&d);
    REQUIRE(from >= 200);
    REQUIRE(hc_sql(d.db, "UPDATE checkpoints SET data = substr(data, 1, length(data) / 2)") == 0);

    REQUIRE(hu_restart(&d) == 0);
    hc_check_failed_because(&d, id, "resume-failed", "truncated");
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK(hc_integrity_ok(d.db));
    free(spec);
}
