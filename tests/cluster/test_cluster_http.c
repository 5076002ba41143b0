/*
 * test_cluster_http.c -- MPI jobs through a real ircgd whose launcher
 * runs mpirun on host 1 with a hostfile of the four hosts (one slot each),
 * "execution": {"ranks": 4}: the job shows its ranks' hosts and its
 * progress while it runs, its trace agrees with one process (1e-10,
 * test_mpi.c), its snapshots are stored and another job on three of the
 * hosts continues from one; a cancel reaches every rank on every host, a
 * time limit ends the solve, and a daemon stopped mid-job resumes it from
 * the ranks' checkpoints on the hosts.  After each, no rank is left on any
 * host.
 */
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_mpi_util.h"
#include "common/test_cli_util.h"
#include "cluster_util.h"

#define MPI_TOL 1e-10 /* test_mpi.c */

/* A synthetic job; ranks > 0 adds execution and snapshots (for the
 * service: `ircg solve`, which the trace is compared with, takes none),
 * extra is spliced into the algorithm (", \"time_limit\": 3"). */
static void spec_of(char *out, size_t n, long long iters, int ranks, const char *extra,
                    long ratings)
{
    char ex[96] = "";
    if (ranks > 0)
        snprintf(ex, sizeof ex, ", \"output\": {\"snapshot_every\": 20}, "
                 "\"execution\": {\"ranks\": %d}", ranks);
    snprintf(out, n, "{\"problem\": {\"type\": \"matrix_completion\", \"delta\": 5, "
             "\"data\": {\"source\": \"synthetic\", \"n_rows\": 8000, \"n_cols\": 1000, "
             "\"n_ratings\": %ld, \"seed\": 9}}, \"algorithm\": {\"name\": \"ircg\", "
             "\"max_iter\": %lld%s}%s}",
             ratings, iters, extra ? extra : "", ex);
}

/* A daemon launching on hosts 1..4, one slot each. */
static int start_daemon(hu_daemon *d, const char *name, char *launch, size_t n,
                        const char *extra)
{
    char *hf = cl_path("hosts-daemon");
    if (cl_hostfile(hf, 1, 4, 1) != 0)
        return -1;
    cl_mpirun(launch, n, hf, "{ranks}");
    return cl_daemon(d, name, launch, extra);
}

/* GET /v1/jobs/{id} as JSON. */
static cJSON *job_json(const hu_daemon *d, const char *id)
{
    char path[96];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    cJSON *j = hu_get(d, path, &r) == 200 ? hu_json(&r) : NULL;
    hu_resp_free(&r);
    return j;
}

/* While it runs: the job's execution names hosts 1..4 in rank order. */
static int hosts_shown(const hu_daemon *d, const char *id)
{
    for (int tries = 0; tries < 400; tries++) {
        cJSON *j = job_json(d, id);
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(j, "execution"), "hosts");
        int ok = cJSON_GetArraySize(h) == 4;
        for (int i = 0; ok && i < 4; i++)
            ok = !strcmp(cJSON_GetArrayItem(h, i)->valuestring, cl_host(i + 1));
        cJSON_Delete(j);
        if (ok)
            return 1;
        hu_sleep_ms(50);
    }
    return 0;
}

/* The g and f columns of a job's trace. */
static int trace_of(const hu_daemon *d, const char *id, double (*v)[4], int max)
{
    char path[128];
    char *file = tcli_tmp("cluster_http.csv");
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv", id);
    int ok = hu_get(d, path, &r) == 200 && tcli_write(file, r.body) == 0;
    hu_resp_free(&r);
    return ok ? mu_read_trace(file, v, max) : -1;
}

/* No rank on any host, a few seconds at most after the job ended (the
 * launcher is reaped before the last rank's exit is seen). */
static void no_rank_left(void)
{
    int left = 0;
    for (int i = 0; i < 100 && (left = cl_count_ranks()) > 0; i++)
        hu_sleep_ms(100);
    CHECK_INT(left, 0);
}

TEST(cluster_http, job_on_four_hosts_progress_snapshots_and_a_continuation)
{
    HM_NEED_MPI();
    (void)bin;
    CL_NEED_HOSTS(4);
    hu_daemon d = {0};
    char launch[4096], spec[1024], one[1024], start[160], id[64], cont[64], state[16];
    static double a[128][4], b[128][4];
    REQUIRE(start_daemon(&d, "cluster_http_run", launch, sizeof launch,
                         "--snapshot-keep-finished 0") == 0);
    spec_of(spec, sizeof spec, 60, 4, NULL, 600000);
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    CHECK(hosts_shown(&d, id));
    CHECK(hu_wait_iteration(&d, id, 3, 120) == 0); /* progress while it runs */
    REQUIRE(hu_wait_terminal(&d, id, 300, state) == 0);
    CHECK_STR(state, "succeeded");
    spec_of(one, sizeof one, 60, 0, NULL, 600000);
    hm_check_agrees(&d, id, one, 60);
    char path[128];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots", id);
    REQUIRE(hu_get(&d, path, &r) == 200);
    CHECK(strstr(r.body, "\"iteration\":20") && strstr(r.body, "\"iteration\":60"));
    hu_resp_free(&r);
    /* three ranks (hosts 1-3) continue from its snapshot at 20 as it went on */
    snprintf(start, sizeof start, ", \"start\": {\"job\": \"%s\", \"snapshot\": 20}", id);
    spec_of(spec, sizeof spec, 40, 3, start, 600000);
    REQUIRE(hu_submit(&d, spec, cont, sizeof cont) == 202);
    REQUIRE(hu_wait_terminal(&d, cont, 300, state) == 0);
    CHECK_STR(state, "succeeded");
    int na = trace_of(&d, id, a, 128), nb = trace_of(&d, cont, b, 128);
    CHECK_INT(na, 60);
    CHECK_INT(nb, 40);
    double w = na == 60 && nb == 40 ? mu_worst_relative((const double (*)[4])(a + 20),
                                                        (const double (*)[4])b, 40)
                                    : INFINITY;
    CHECK_MEASURED("3 ranks continued from the 4-rank job's snapshot, g and f against its "
                   "rows 21-60", w, MPI_TOL);
    no_rank_left();
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(cluster_http, cancel_time_limit_and_a_resume_after_shutdown)
{
    HM_NEED_MPI();
    (void)bin;
    CL_NEED_HOSTS(4);
    hu_daemon d = {0};
    char launch[4096], spec[1024], one[1024], id[64], state[16];
    REQUIRE(start_daemon(&d, "cluster_http_stop", launch, sizeof launch,
                         "--checkpoint-every 1") == 0);
    /* a cancel: every rank on every host votes and stops */
    spec_of(spec, sizeof spec, 1000000, 4, NULL, 600000);
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    REQUIRE(hu_wait_iteration(&d, id, 3, 120) == 0);
    double t0 = hu_now();
    char path[128];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/cancel", id);
    REQUIRE(hu_req(&d, "POST", path, NULL, NULL, 0, NULL, &r) == 0);
    hu_resp_free(&r);
    REQUIRE(hu_wait_terminal(&d, id, 120, state) == 0);
    CHECK_STR(state, "cancelled");
    printf("    cancelled on 4 hosts in %.1f s\n", hu_now() - t0);
    no_rank_left();

    /* the spec's time limit: the ranks stop together at it */
    spec_of(spec, sizeof spec, 1000000, 4, ", \"time_limit\": 3", 600000);
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    REQUIRE(hu_wait_terminal(&d, id, 120, state) == 0);
    CHECK_STR(state, "succeeded");
    cJSON *res = hu_result(&d, id);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(res, "status")), "time_limit");
    cJSON_Delete(res);
    no_rank_left();

    /* a shutdown mid-job: requeued, and resumed by the next daemon from
     * the ranks' newest whole checkpoint, on the hosts, the trace whole */
    spec_of(spec, sizeof spec, 120, 4, NULL, 600000);
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    REQUIRE(hu_wait_iteration(&d, id, 40, 300) == 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    no_rank_left();
    REQUIRE(cl_daemon_restart(&d, launch) == 0);
    REQUIRE(hu_wait_terminal(&d, id, 300, state) == 0);
    CHECK_STR(state, "succeeded");
    char *log = hu_read_file(d.log);
    CHECK(log && strstr(log, "resuming from their checkpoint"));
    free(log);
    spec_of(one, sizeof one, 120, 0, NULL, 600000);
    hm_check_agrees(&d, id, one, 120);
    no_rank_left();
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
