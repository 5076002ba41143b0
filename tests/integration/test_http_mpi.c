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
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../harness.h"
#include "../unit/test_cli_util.h"
#include "http_check.h"
#include "mpi_util.h"

#define ROWS 100
#define DATA "{\"source\": \"synthetic\", \"n_rows\": 3000, \"n_cols\": 800, " \
             "\"n_ratings\": %ld, \"seed\": 5}"
#define RATINGS 120000L
/* The resumed job must still be running when polled at iteration 20 on a
 * fast machine: 1.2M ratings make its 200 iterations take seconds. */
#define RATINGS_LONG 1200000L

#define NEED_MPI()                                                          \
    const char *bin = tcli_path();                                          \
    if (!bin || !mu_mpi_bin())                                              \
        SKIP("no ircg or ircg-mpi binary (built without mpicc?)");           \
    if (!mu_mpirun())                                                       \
        SKIP("no mpirun (make deps installs openmpi-bin)")

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

/* (Re)starts d with mpirun on loopback as its launcher (IRCGD_MPI_LAUNCH,
 * which its flags would split); the ranks without leak reports
 * (mpi_util.h). */
static int restart_mpi(hu_daemon *d)
{
    char launch[256];
    snprintf(launch, sizeof launch, "env ASAN_OPTIONS=detect_leaks=0 %s -np {ranks} "
             "--oversubscribe%s", mu_mpirun(), geteuid() == 0 ? " --allow-run-as-root" : "");
    setenv("IRCGD_MPI_LAUNCH", launch, 1);
    int rc = hu_restart(d);
    unsetenv("IRCGD_MPI_LAUNCH");
    return rc;
}

static int start_mpi_daemon(hu_daemon *d, const char *name, const char *extra)
{
    hu_prepare(d, name, 1);
    if (extra)
        snprintf(d->extra, sizeof d->extra, "%s", extra);
    return restart_mpi(d);
}

/* The processes whose command line holds needle (the job's folder); how
 * many, their ids in pids. */
static int pids_with(const char *needle, pid_t *pids, int max)
{
    DIR *dir = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (dir && (e = readdir(dir)) && n < max) {
        char path[300], cmd[4096];
        long pid = strtol(e->d_name, NULL, 10);
        if (pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
        FILE *f = fopen(path, "r");
        size_t len = f ? fread(cmd, 1, sizeof cmd - 1, f) : 0;
        if (f)
            fclose(f);
        for (size_t i = 0; i < len; i++)
            cmd[i] = cmd[i] ? cmd[i] : ' ';
        cmd[len] = '\0';
        if (strstr(cmd, needle) && strstr(cmd, "ircg-mpi ") && !strstr(cmd, "mpirun"))
            pids[n++] = (pid_t)pid;
    }
    if (dir)
        closedir(dir);
    return n;
}

/* The daemon's trace of job id against `ircg solve` on the same spec
 * without execution: the same rows, g and f within 1e-10. */
static void check_agrees(const hu_daemon *d, const char *id, long long iters, long ratings)
{
    static double one[ROWS * 3][4], got[ROWS * 3][4];
    char spec[1024], path[160];
    char *file = tcli_tmp("hmpi_spec.json"), *t1 = tcli_tmp("hmpi_one.csv");
    char *tn = tcli_tmp("hmpi_daemon.csv");
    hu_resp r;
    spec_of(spec, sizeof spec, iters, 0, ratings);
    REQUIRE(tcli_write(file, spec) == 0);
    char *args[] = {(char *)tcli_path(), "solve", file, "--quiet", "--trace", t1, NULL};
    REQUIRE(tcli_run(args, NULL) == 0);
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv", id);
    REQUIRE(hu_get(d, path, &r) == 200);
    REQUIRE(tcli_write(tn, r.body) == 0);
    hu_resp_free(&r);
    int rows = mu_read_trace(t1, one, ROWS * 3);
    CHECK_INT(rows, iters);
    CHECK_INT(mu_read_trace(tn, got, ROWS * 3), rows);
    double worst = mu_worst_relative((const double (*)[4])one, (const double (*)[4])got, rows);
    if (!(worst <= 1e-10))
        fprintf(stderr, "    worst relative difference %.3g\n", worst);
    CHECK(worst <= 1e-10);
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
    NEED_MPI();
    hu_daemon d = {0};
    char spec[1024], id[64], state[16], dir[800];
    spec_of(spec, sizeof spec, ROWS, 2, RATINGS);
    REQUIRE(start_mpi_daemon(&d, "http_mpi_run", NULL) == 0);
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
    snprintf(dir, sizeof dir, "%s.mpi/%s", d.db, id);
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
    if (start_mpi_daemon(d, name, NULL) != 0 || hu_submit(d, spec, id, idn) != 202 ||
        hu_wait_iteration(d, id, 5, 120) != 0)
        return -1;
    snprintf(dir, dirn, "%s.mpi/%s", d->db, id);
    return pids_with(dir, pids, 16);
}

TEST(http_mpi, cancel_reaches_every_rank)
{
    NEED_MPI();
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
    CHECK_INT(pids_with(dir, pids, 16), 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_mpi, killed_rank_fails_the_job_with_the_reason)
{
    NEED_MPI();
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
    CHECK_INT(pids_with(dir, pids, 16), 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_mpi, shutdown_resumes_from_the_ranks_checkpoints)
{
    NEED_MPI();
    hu_daemon d = {0};
    char spec[1024], id[64], state[16];
    store_job j = {0};
    int64_t at = 0;
    spec_of(spec, sizeof spec, 2 * ROWS, 2, RATINGS_LONG);
    REQUIRE(start_mpi_daemon(&d, "http_mpi_resume", "--checkpoint-every 0.05") == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    REQUIRE(hu_wait_iteration(&d, id, 20, 120) == 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    /* back in the queue, at the ranks' last checkpoint */
    REQUIRE(hc_stored(d.db, id, &j, &at) == 0);
    CHECK_STR(store_state_name(j.state), "queued");
    CHECK(at >= 20);
    store_job_clear(&j);
    REQUIRE(restart_mpi(&d) == 0);
    CHECK(hu_wait_terminal(&d, id, 120, state) == 0);
    CHECK_STR(state, "succeeded");
    char *log = hu_read_file(d.log);
    CHECK(log && strstr(log, "resuming from their checkpoint"));
    free(log);
    hc_check_trace_complete(&d, id, 2 * ROWS);
    check_agrees(&d, id, 2 * ROWS, RATINGS_LONG);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
