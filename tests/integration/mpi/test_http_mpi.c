/*
 * test_http_mpi.c -- jobs with "execution": {"ranks": N} through a real
 * ircgd whose launcher is mpirun on loopback (--oversubscribe; and
 * --allow-run-as-root only as root): the trace agrees with `ircg solve`
 * on one process to 1e-10 at every iteration (test_mpi.c derives the
 * tolerance), the job shows its ranks and hosts; a cancel reaches every
 * rank (no process of the job is left, the result says cancelled); a
 * killed rank fails the job with the launcher's reason; a shutdown
 * requeues the job and the restarted daemon resumes it from the ranks'
 * checkpoints with a whole trace; and a daemon without a launcher refuses
 * such a job with a 422 naming /execution/ranks.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "common/test_cli_util.h"
#include "common/http_check.h"
#include "common/http_mpi_util.h"

#define ROWS 100
#define DATA "{\"source\": \"synthetic\", \"n_rows\": 3000, \"n_cols\": 800, " \
             "\"n_ratings\": %ld, \"seed\": 5}"
#define RATINGS 120000L
/* The resumed job must still be running when polled at iteration 20 on a
 * fast machine: 1.2M ratings make its 200 iterations take seconds. */
#define RATINGS_LONG 1200000L

/* The spec: IR-CG on the synthetic instance, ranks > 0 adds execution. */
static void spec_of(char *out, size_t n, long long iters, int ranks, long ratings)
{
    char ex[64] = "";
    if (ranks > 0)
        snprintf(ex, sizeof ex, ", \"execution\": {\"ranks\": %d}", ranks);
    snprintf(out, n, "{\"problem\": {\"type\": \"matrix_completion\", \"delta\": 5, "
             "\"data\": " DATA "}, \"algorithm\": {\"name\": \"ircg\", \"max_iter\": %lld}%s}",
             ratings, iters, ex);
}

/* The daemon's trace of job id against `ircg solve` on the same spec
 * without execution. */
static void check_agrees(const hu_daemon *d, const char *id, long long iters, long ratings)
{
    char spec[1024];
    spec_of(spec, sizeof spec, iters, 0, ratings);
    hm_check_agrees(d, id, spec, (int)iters);
}

/* GET /v1/jobs/{id}: "execution" with `ranks` ranks and as many hosts. */
static void check_execution(const hu_daemon *d, const char *id, int ranks)
{
    char path[96];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    REQUIRE(hu_get(d, path, &r) == 200);
    cJSON *j = hu_json(&r), *e = cJSON_GetObjectItem(j, "execution");
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(e, "ranks")) == ranks);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(e, "hosts")) == ranks);
    cJSON_Delete(j);
    hu_resp_free(&r);
}

TEST(http_mpi, job_through_the_launcher_agrees_with_one_process)
{
    HM_NEED_MPI();
    hu_daemon d = {0};
    char spec[1024], id[64], state[16], dir[800];
    spec_of(spec, sizeof spec, ROWS, 2, RATINGS);
    REQUIRE(hm_start(&d, "http_mpi_run", NULL) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 120, state) == 0);
    CHECK_STR(state, "succeeded");
    check_execution(&d, id, 2);
    cJSON *res = hu_result(&d, id);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "execution"),
                                                   "ranks")) == 2);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(res, "status")), "max_iter");
    cJSON_Delete(res);
    check_agrees(&d, id, ROWS, RATINGS);
    /* the job's folder (spec, checkpoints, result) goes with its run */
    hm_job_dir(&d, id, dir, sizeof dir);
    CHECK(access(dir, F_OK) != 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_mpi, refused_with_422_without_a_launcher)
{
    hu_daemon d = {0};
    char spec[1024], id[64];
    hu_resp r;
    spec_of(spec, sizeof spec, 10, 2, RATINGS);
    REQUIRE(hu_start(&d, "http_mpi_off", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 422);
    REQUIRE(hu_req(&d, "POST", "/v1/jobs?dry_run=true", "application/json", spec,
                   strlen(spec), NULL, &r) == 0);
    CHECK_INT(r.status, 422);
    CHECK(strstr(r.body, "\"/execution/ranks\"") && strstr(r.body, "--mpi-launch"));
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* A job of many iterations, running: its id; the rank processes found. */
static int running_job(hu_daemon *d, const char *name, int ranks, char *id, size_t idn,
                       pid_t *pids, char *dir, size_t dirn)
{
    char spec[1024];
    spec_of(spec, sizeof spec, 100000000, ranks, RATINGS);
    if (hm_start(d, name, NULL) != 0 || hu_submit(d, spec, id, idn) != 202 ||
        hu_wait_iteration(d, id, 5, 120) != 0)
        return -1;
    hm_job_dir(d, id, dir, dirn);
    return hm_pids_with(dir, pids, 16);
}

TEST(http_mpi, cancel_reaches_every_rank)
{
    HM_NEED_MPI();
    hu_daemon d = {0};
    char id[64], state[16], path[128], dir[800];
    pid_t pids[16];
    hu_resp r;
    REQUIRE(running_job(&d, "http_mpi_cancel", 3, id, sizeof id, pids, dir, sizeof dir) == 3);
    snprintf(path, sizeof path, "/v1/jobs/%s/cancel", id);
    REQUIRE(hu_req(&d, "POST", path, NULL, NULL, 0, NULL, &r) == 0);
    CHECK(r.status == 202 || r.status == 200);
    hu_resp_free(&r);
    CHECK(hu_wait_terminal(&d, id, 60, state) == 0);
    CHECK_STR(state, "cancelled");
    /* the ranks stopped together and wrote their result */
    cJSON *res = hu_result(&d, id);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(res, "status")), "cancelled");
    cJSON_Delete(res);
    CHECK_INT(hm_pids_with(dir, pids, 16), 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_mpi, killed_rank_fails_the_job_with_the_reason)
{
    HM_NEED_MPI();
    hu_daemon d = {0};
    char id[64], state[16], path[128], dir[800];
    pid_t pids[16];
    hu_resp r;
    REQUIRE(running_job(&d, "http_mpi_kill", 3, id, sizeof id, pids, dir, sizeof dir) == 3);
    kill(pids[1], SIGKILL);
    CHECK(hu_wait_terminal(&d, id, 60, state) == 0);
    CHECK_STR(state, "failed");
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    REQUIRE(hu_get(&d, path, &r) == 200);
    CHECK(strstr(r.body, "mpi-failed") && strstr(r.body, "the launcher exited with status"));
    CHECK(strstr(r.body, "signal 9") != NULL); /* mpirun's words on the rank */
    hu_resp_free(&r);
    CHECK_INT(hm_pids_with(dir, pids, 16), 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_mpi, shutdown_resumes_from_the_ranks_checkpoints)
{
    HM_NEED_MPI();
    hu_daemon d = {0};
    char spec[1024], id[64], state[16];
    store_job j = {0};
    int64_t at = 0;
    spec_of(spec, sizeof spec, 2 * ROWS, 2, RATINGS_LONG);
    REQUIRE(hm_start(&d, "http_mpi_resume", "--checkpoint-every 0.05") == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    REQUIRE(hu_wait_iteration(&d, id, 20, 120) == 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    /* back in the queue, at the ranks' last checkpoint */
    REQUIRE(hc_stored(d.db, id, &j, &at) == 0);
    CHECK_STR(store_state_name(j.state), "queued");
    CHECK(at >= 20);
    store_job_clear(&j);
    REQUIRE(hm_restart(&d) == 0);
    CHECK(hu_wait_terminal(&d, id, 120, state) == 0);
    CHECK_STR(state, "succeeded");
    char *log = hu_read_file(d.log);
    CHECK(log && strstr(log, "resuming from their checkpoint"));
    free(log);
    hc_check_trace_complete(&d, id, 2 * ROWS);
    check_agrees(&d, id, 2 * ROWS, RATINGS_LONG);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
