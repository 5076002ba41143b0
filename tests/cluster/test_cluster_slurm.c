/*
 * test_cluster_slurm.c -- Slurm as the launcher: the fixture's munged,
 * slurmctld (host 1) and one slurmd per host, and ircgd with
 *   --mpi-launch 'env OMPI_MCA_btl=tcp,self ... srun --mpi=pmix
 *                 --kill-on-bad-exit=1 --ntasks-per-node=1 -n {ranks}'
 * (srun from the Slurm commands of host 1, a login node, first in PATH).
 * srun starts every rank through the node's slurmd (no mpirun, no rsh),
 * wires them with PMIx (Debian's Open MPI and Slurm share libpmix2), and
 * its stdout is rank 0's: the daemon reads it as mpirun's.
 *
 * A job runs on four nodes and agrees with one process, its execution
 * names the Slurm job; once it solves, its Slurm time limit is the spec's
 * plus the stop's grace; a cancel is an scancel; a node set down mid-job
 * fails the job with Slurm's state and reason and the node's; a node whose
 * processes are killed fails it naming the node.  No rank is left.  The
 * ranks run where a crash's core file would land, allowed to dump one, and
 * a rank that crashes leaves its backtrace.  A rank that dies at its start
 * of the known crash inside MPI_Init (the wrapper writes its report and
 * dies before ircg-mpi starts: server/mpi/mpi_rankcrash.h) has the ranks
 * launched again, in a new Slurm job, and the job agrees with one
 * process.
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

/* A node's processes killed: its rank's peers see their connections drop,
 * but under srun no daemon of Open MPI's ends the job (mpirun's would), and
 * the ranks wait in their sums; Slurm ends it once slurmctld has marked the
 * node down -- SlurmdTimeout after its last answer, found by pings every
 * SlurmdTimeout / 3 -- then the step's tasks get KillWait to end, and srun
 * waits KillWait + 2 s for them.  The fixture's slurm.conf: SlurmdTimeout
 * 10, KillWait 5; and 5 s for the daemon's own reading. */
#define SLURMD_TIMEOUT 10.0
#define KILL_WAIT 5.0
#define SLURM_KILL_BOUND_S (SLURMD_TIMEOUT * 4 / 3 + KILL_WAIT + KILL_WAIT + 2 + 5)

/* The launcher: srun, its ranks in cl_rank_dir() (where a core would land).
 * SLURM_PMIX_FENCE=tree: Slurm's PMIx plugin runs both fences of
 * MPI_Init with one algorithm; with its default (a ring for the fence
 * that carries data, a tree for the barrier) a rank sometimes got a
 * peer's first message inside MPI_Init and died of it (issue 38:
 * deploy/README.md, "A rank that dies at its start"). */
static const char *launch(void)
{
    static char cmd[PATH_MAX + 512];
    snprintf(cmd, sizeof cmd,
             "env OPENBLAS_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=0 SLURM_PMIX_FENCE=tree "
             "OMPI_MCA_btl=tcp,self "
             "OMPI_MCA_btl_tcp_if_include=198.18.29.0/24 OMPI_MCA_mpi_yield_when_idle=1 "
             "srun --mpi=pmix --kill-on-bad-exit=1 --ntasks-per-node=1 --chdir=%s -n {ranks}",
             cl_rank_dir());
    return cmd;
}

static void spec_of(char *out, size_t n, long long iters, int ranks, const char *extra)
{
    char ex[64] = "";
    if (ranks > 0)
        snprintf(ex, sizeof ex, ", \"execution\": {\"ranks\": %d}", ranks);
    snprintf(out, n, "{\"problem\": {\"type\": \"matrix_completion\", \"delta\": 5, "
             "\"data\": {\"source\": \"synthetic\", \"n_rows\": 8000, \"n_cols\": 1000, "
             "\"n_ratings\": 600000, \"seed\": 9}}, \"algorithm\": {\"name\": \"ircg\", "
             "\"max_iter\": %lld%s}%s}", iters, extra ? extra : "", ex);
}

/* Four nodes under Slurm and a daemon launching through srun. */
static int slurm_daemon(hu_daemon *d, const char *name)
{
    if (cl_up(4) != 1)
        return -1;
    if (cl_slurm_up() != 0)
        return -1;
    return cl_daemon(d, name, launch(), NULL);
}

/* The Slurm job of job id, once the ranks named it. */
static int slurm_job_of(const hu_daemon *d, const char *id, char *out, size_t n)
{
    char path[96];
    for (int tries = 0; tries < 600; tries++) {
        hu_resp r;
        snprintf(path, sizeof path, "/v1/jobs/%s", id);
        cJSON *j = hu_get(d, path, &r) == 200 ? hu_json(&r) : NULL;
        hu_resp_free(&r);
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(j, "execution"), "slurm_job"));
        const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "state"));
        int over = st && strcmp(st, "queued") != 0 && strcmp(st, "running") != 0;
        if (s)
            snprintf(out, n, "%s", s);
        if (!s && over) { /* it ended before its ranks started: say why */
            char *text = cJSON_PrintUnformatted(j);
            printf("    job %s ended before its ranks named a Slurm job: %.2000s\n", id,
                   text ? text : "?");
            free(text);
        }
        cJSON_Delete(j);
        if (s || over)
            return s ? 0 : -1;
        hu_sleep_ms(100);
    }
    return -1;
}

static void no_rank_left(void)
{
    int left = 0;
    for (int i = 0; i < 100 && (left = cl_count_ranks()) > 0; i++)
        hu_sleep_ms(100);
    CHECK_INT(left, 0);
}

/* The job's JSON (its error) into why. */
static void job_text(const hu_daemon *d, const char *id, char *why, size_t n)
{
    char path[96];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    why[0] = '\0';
    if (hu_get(d, path, &r) == 200)
        snprintf(why, n, "%s", r.body);
    hu_resp_free(&r);
}

TEST(cluster_slurm, job_through_srun_agrees_and_names_its_slurm_job)
{
    HM_NEED_MPI();
    (void)bin;
    hu_daemon d = {0};
    char spec[1024], one[1024], id[64], sj[32], state[16];
    if (slurm_daemon(&d, "cluster_slurm_run") != 0)
        return;
    spec_of(spec, sizeof spec, 40, 4, NULL);
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    REQUIRE(slurm_job_of(&d, id, sj, sizeof sj) == 0);
    REQUIRE(hu_wait_terminal(&d, id, 300, state) == 0);
    CHECK_STR(state, "succeeded");
    spec_of(one, sizeof one, 40, 0, NULL);
    hm_check_agrees(&d, id, one, 40);
    cJSON *res = hu_result(&d, id);
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(res, "execution");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ex, "slurm_job")), sj);
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(ex, "hosts");
    CHECK_INT(cJSON_GetArraySize(h), 4);
    for (int i = 0; i < 4 && cJSON_GetArraySize(h) == 4; i++)
        CHECK_STR(cJSON_GetArrayItem(h, i)->valuestring, cl_host(i + 1));
    cJSON_Delete(res);
    no_rank_left();
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(cluster_slurm, time_limit_is_slurms_too_and_a_cancel_is_an_scancel)
{
    HM_NEED_MPI();
    (void)bin;
    hu_daemon d = {0};
    char spec[1024], id[64], sj[32], state[16], cmd[128], out[8192], path[96];
    if (slurm_daemon(&d, "cluster_slurm_cancel") != 0)
        return;
    spec_of(spec, sizeof spec, 1000000, 4, ", \"time_limit\": 120");
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    REQUIRE(slurm_job_of(&d, id, sj, sizeof sj) == 0);
    REQUIRE(hu_wait_iteration(&d, id, 3, 120) == 0);
    /* 120 s of solving, 30 s of grace and a minute: Slurm's own limit */
    snprintf(cmd, sizeof cmd, "scontrol show job -o %s 2>&1", sj);
    int limited = 0;
    for (int i = 0; i < 50 && !limited; i++, hu_sleep_ms(100))
        limited = cl_sh(cmd, out, sizeof out) == 0 && strstr(out, "TimeLimit=00:0") &&
                  !strstr(out, "TimeLimit=UNLIMITED");
    CHECK(limited);
    const char *tl = strstr(out, "TimeLimit=");
    printf("    Slurm job %s: %.18s\n", sj, tl ? tl : "(no TimeLimit)");
    snprintf(path, sizeof path, "/v1/jobs/%s/cancel", id);
    hu_resp r;
    REQUIRE(hu_req(&d, "POST", path, NULL, NULL, 0, NULL, &r) == 0);
    hu_resp_free(&r);
    REQUIRE(hu_wait_terminal(&d, id, 120, state) == 0);
    CHECK_STR(state, "cancelled");
    char *log = hu_read_file(d.log);
    char want[96];
    snprintf(want, sizeof want, "scancel --signal=USR1 Slurm job %s", sj);
    CHECK(log && strstr(log, want));
    free(log);
    /* Slurm has no step of it left */
    snprintf(cmd, sizeof cmd, "squeue -h -j %s -o %%T 2>/dev/null", sj);
    int gone = 0;
    for (int i = 0; i < 100 && !gone; i++, hu_sleep_ms(100))
        gone = cl_sh(cmd, out, sizeof out) >= 0 && !strstr(out, "RUNNING");
    CHECK(gone);
    no_rank_left();
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(cluster_slurm, node_down_fails_the_job_with_slurms_reason)
{
    HM_NEED_MPI();
    (void)bin;
    hu_daemon d = {0};
    char spec[1024], id[64], sj[32], state[16], why[8192];
    if (slurm_daemon(&d, "cluster_slurm_down") != 0)
        return;
    spec_of(spec, sizeof spec, 1000000, 4, NULL);
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    REQUIRE(slurm_job_of(&d, id, sj, sizeof sj) == 0);
    REQUIRE(hu_wait_iteration(&d, id, 3, 120) == 0);
    double t0 = hu_now();
    REQUIRE(cl_sh("scontrol update NodeName=ircg-node3 State=DOWN "
                  "Reason='ircg test: node taken out' 2>&1", NULL, 0) == 0);
    REQUIRE(hu_wait_terminal(&d, id, 120, state) == 0);
    printf("    failed %.1f s after the node went down\n", hu_now() - t0);
    CHECK_STR(state, "failed");
    job_text(&d, id, why, sizeof why);
    CHECK(strstr(why, "Reason=NodeDown") && strstr(why, "node ircg-node3: DOWN") &&
          strstr(why, "ircg test: node taken out") && strstr(why, "lost host ircg-node3"));
    printf("    %.600s\n", strstr(why, "\"detail\"") ? strstr(why, "\"detail\"") : why);
    no_rank_left();
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(cluster_slurm, killed_node_fails_the_job_naming_it)
{
    HM_NEED_MPI();
    (void)bin;
    hu_daemon d = {0};
    char spec[1024], id[64], sj[32], state[16], why[8192], cmd[PATH_MAX + 64];
    if (slurm_daemon(&d, "cluster_slurm_kill") != 0)
        return;
    spec_of(spec, sizeof spec, 1000000, 4, NULL);
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    REQUIRE(slurm_job_of(&d, id, sj, sizeof sj) == 0);
    REQUIRE(hu_wait_iteration(&d, id, 3, 120) == 0);
    /* slurmd started the rank as srun asked: in the folder where a core
     * would land, with srun's core limit (cluster_util.h) */
    if (cl_cores_land_here())
        CHECK(cl_rank_keeps_cores(cl_rank_pid(4)));
    double t0 = hu_now();
    snprintf(cmd, sizeof cmd, "%s kill %s", cl_script(), cl_host(4));
    REQUIRE(cl_sh(cmd, NULL, 0) == 0);
    REQUIRE(hu_wait_terminal(&d, id, 120, state) == 0);
    double dt = hu_now() - t0;
    CHECK_MEASURED("seconds from node 4's processes killed to the job failed", dt,
                   SLURM_KILL_BOUND_S);
    CHECK_STR(state, "failed");
    job_text(&d, id, why, sizeof why);
    CHECK(strstr(why, "ircg-node4") && strstr(why, "Slurm job"));
    printf("    %.600s\n", strstr(why, "\"detail\"") ? strstr(why, "\"detail\"") : why);
    no_rank_left();
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* A rank that crashes (SIGSEGV sent to node 2's rank mid-job) fails the
 * job with the signal named, and leaves its core file where the fixture
 * looks after every test (srun --chdir): its backtrace, printed, has the
 * rank's frames down to main -- what an unexplained crash at start (issue
 * 29's, under srun) needs to be explained.  Where the kernel sends cores
 * elsewhere (a core_pattern piped to a handler) the core half is not
 * checked, saying so. */
TEST(cluster_slurm, crashed_rank_fails_the_job_and_leaves_its_backtrace)
{
    HM_NEED_MPI();
    (void)bin;
    hu_daemon d = {0};
    char spec[1024], id[64], sj[32], state[16], why[8192];
    static char bt[1 << 16];
    if (slurm_daemon(&d, "cluster_slurm_crash") != 0)
        return;
    spec_of(spec, sizeof spec, 1000000, 2, NULL);
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    REQUIRE(slurm_job_of(&d, id, sj, sizeof sj) == 0);
    REQUIRE(hu_wait_iteration(&d, id, 3, 120) == 0);
    long pid = cl_rank_pid(2);
    REQUIRE(pid > 0);
    REQUIRE(kill((pid_t)pid, SIGSEGV) == 0);
    REQUIRE(hu_wait_terminal(&d, id, 120, state) == 0);
    CHECK_STR(state, "failed");
    job_text(&d, id, why, sizeof why);
    int named = strstr(why, "Segmentation fault") != NULL;
    CHECK(named);
    printf("    %.600s\n", strstr(why, "\"detail\"") ? strstr(why, "\"detail\"") : why);
    no_rank_left();
    if (cl_cores_land_here()) {
        int cores = 0;
        for (int i = 0; i < 50 && cores == 0; i++) { /* the kernel may still write it */
            cores = cl_collect_cores(bt, sizeof bt);
            if (cores == 0)
                hu_sleep_ms(100);
        }
        CHECK_INT(cores, 1);
        /* the crashed thread's frames, down to ircg-mpi's main */
        CHECK(strstr(bt, "#0 ") != NULL && strstr(bt, " main (") != NULL);
    } else {
        printf("    the kernel sends core files elsewhere here: only the job's error checked\n");
    }
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(cluster_slurm, rank_dead_at_its_start_is_launched_again)
{
    HM_NEED_MPI();
    (void)bin;
    hu_daemon d = {0};
    char spec[1024], one[1024], id[64], state[16], cmd[PATH_MAX + 1200];
    const char *wrap = hm_start_wrapper(cl_rank_dir(), "slurm_start_once", HM_CRASH_ONCE);
    REQUIRE(wrap != NULL);
    if (cl_up(4) != 1 || cl_slurm_up() != 0)
        return;
    snprintf(cmd, sizeof cmd, "%s %s", launch(), wrap);
    REQUIRE(cl_daemon(&d, "cluster_slurm_start", cmd, NULL) == 0);
    spec_of(spec, sizeof spec, 20, 2, NULL);
    spec_of(one, sizeof one, 20, 0, NULL);
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    REQUIRE(hu_wait_terminal(&d, id, 300, state) == 0);
    CHECK_STR(state, "succeeded");
    if (strcmp(state, "succeeded") != 0) {
        static char text[8192];
        job_text(&d, id, text, sizeof text);
        printf("    %.1500s\n", strstr(text, "\"detail\"") ? strstr(text, "\"detail\"") : text);
    }
    CHECK_INT(hm_launches(wrap), 2);
    cJSON *res = hu_result(&d, id), *e = cJSON_GetObjectItem(res, "execution");
    const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(e, "start_failure"));
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(e, "launches")) == 2);
    CHECK(cJSON_GetStringValue(cJSON_GetObjectItem(e, "slurm_job")) != NULL);
    CHECK(why && strstr(why, "launcher exited with status") &&
          strstr(why, "Open MPI's TCP transport called a receive callback"));
    printf("    start_failure: %.400s\n", why ? why : "(none)");
    cJSON_Delete(res);
    hm_check_agrees(&d, id, one, 20);
    no_rank_left();
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
