/*
 * test_cluster_hosts.c -- the fixture itself (tests/cluster/cluster.sh):
 * its hosts are separate machines as far as a job can tell -- each its
 * own host name, address, /dev/shm and /tmp, so that no two share memory
 * or files but the shared directory -- they reach each other over their
 * test links only, Open MPI starts ranks on them through the rsh agent,
 * and everything made and started is gone after `down`, and after a run
 * that never called it (the next `up` removes it first).  A test that
 * fails (a child run of this program on a fixture that brings up hosts,
 * Slurm, a job step and an ircgd, then fails a REQUIRE, or has its runner
 * killed) leaves no host, no Slurm daemon or step and no ircgd.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "harness_guard.h"
#include "common/http_util.h"
#include "common/mpi_util.h"
#include "cluster_util.h"

/* `cluster.sh exec HOST cmd` (cmd one shell string): exit status, out. */
static int on_host(int k, const char *cmd, char *out, size_t cap)
{
    char line[4096];
    snprintf(line, sizeof line, "%s exec %s /bin/sh -c '%s' 2>&1", cl_script(), cl_host(k),
             cmd);
    return cl_sh(line, out, cap);
}

TEST(cluster, hosts_share_no_memory_nor_tmp)
{
    CL_NEED_HOSTS(4);
    char out[4][256], got[256];
    for (int k = 1; k <= 4; k++) {
        REQUIRE(on_host(k, "hostname; stat -c %d /dev/shm; ip -o -4 addr show dev eth0 | "
                           "awk \"{print \\$4}\"", out[k - 1], sizeof out[0]) == 0);
        char want[64];
        snprintf(want, sizeof want, "%s\n", cl_host(k));
        CHECK(strncmp(out[k - 1], want, strlen(want)) == 0);
        snprintf(want, sizeof want, "198.18.29.%d/24", k);
        CHECK(strstr(out[k - 1], want) != NULL);
    }
    /* each /dev/shm is a file system of its own */
    for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++)
            CHECK(strcmp(strchr(out[a], '\n'), strchr(out[b], '\n')) != 0);
    /* what host 1 puts in its /dev/shm and /tmp, host 2 does not see */
    REQUIRE(on_host(1, "echo one > /dev/shm/ircg-probe && echo one > /tmp/ircg-probe", got,
                    sizeof got) == 0);
    CHECK(on_host(2, "cat /dev/shm/ircg-probe || cat /tmp/ircg-probe", got, sizeof got) != 0);
    CHECK(on_host(1, "cat /dev/shm/ircg-probe /tmp/ircg-probe", got, sizeof got) == 0);
    CHECK(strcmp(got, "one\none\n") == 0);
    /* but the shared directory is shared */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "echo shared > %s", cl_path("probe"));
    REQUIRE(on_host(3, cmd, got, sizeof got) == 0);
    snprintf(cmd, sizeof cmd, "cat %s", cl_path("probe"));
    CHECK(on_host(4, cmd, got, sizeof got) == 0 && !strcmp(got, "shared\n"));
    /* the machine's namespace has no address on the test links: the hosts
     * reach each other only */
    CHECK(cl_sh("ip -o -4 addr | grep -q ' 198\\.18\\.29\\.'", NULL, 0) != 0);
}

/* Ranks on four hosts through the rsh agent, two a host, their host names
 * in rank order; TCP between them (btl tcp,self: Open MPI's shared memory
 * transport is not even loaded). */
TEST(cluster, ranks_run_on_the_hosts)
{
    MU_NEED_MPI();
    CL_NEED_HOSTS(4);
    char args[1024], err[16384];
    char *spec = cl_path("hosts.json"), *res = cl_path("hosts-result.json");
    FILE *f = fopen(spec, "w");
    REQUIRE(f);
    fputs("{\"problem\": {\"type\": \"matrix_completion\", \"data\": {\"source\": "
          "\"synthetic\", \"n_rows\": 400, \"n_cols\": 60, \"n_ratings\": 5000}}, "
          "\"algorithm\": {\"name\": \"ircg\", \"max_iter\": 3}}", f);
    fclose(f);
    snprintf(args, sizeof args, "%s --quiet --result %s", spec, res);
    int rc = cl_run_mpi(4, 2, args, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    REQUIRE(rc == 0);
    char *text = hu_read_file(res);
    cJSON *r = text ? cJSON_Parse(text) : NULL;
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r, "execution"), "hosts");
    CHECK_INT(cJSON_GetArraySize(h), 8);
    for (int i = 0; i < 8 && cJSON_GetArraySize(h) == 8; i++)
        CHECK_STR(cJSON_GetArrayItem(h, i)->valuestring, cl_host(1 + i / 2));
    cJSON_Delete(r);
    free(text);
    CHECK_INT(cl_count_ranks(), 0);
}

/* `down` ends what runs inside the hosts and removes every namespace,
 * link and mount it made; an `up` over a run that never went down (a
 * killed test) removes that run's first. */
TEST(cluster, everything_made_is_removed)
{
    CL_NEED_HOSTS(4);
    char cmd[1024], out[4096];
    snprintf(cmd, sizeof cmd, "%s exec %s setsid sleep 600 >/dev/null 2>&1 &", cl_script(),
             cl_host(4));
    REQUIRE(cl_sh(cmd, NULL, 0) == 0);
    for (int i = 0; i < 50 && cl_count_pids(4) < 1; i++)
        hu_sleep_ms(100);
    CHECK(cl_count_pids(4) >= 1);
    /* a new `up` of 2 hosts over the 4 left up: the old ones go first */
    REQUIRE(cl_up(2) == 1);
    CHECK(cl_sh("ip netns list | grep -q ircg-node4", NULL, 0) != 0);
    CHECK(cl_sh("pgrep -f '^sleep 600$'", NULL, 0) != 0);
    snprintf(cmd, sizeof cmd, "%s down 2>&1", cl_script());
    REQUIRE(cl_sh(cmd, out, sizeof out) == 0);
    CHECK(cl_sh("ip netns list | grep -q ircg-node", NULL, 0) != 0);
    CHECK(cl_sh("ip -o link | grep -q 'ircgv-\\|ircgbr-'", NULL, 0) != 0);
    CHECK(cl_sh("findmnt -rn -o TARGET | grep -q ircg-cluster", NULL, 0) != 0);
    CHECK(cl_sh("test -e /run/ircg-cluster", NULL, 0) != 0);
}

/* ---------------------------------------------- a failing test's end -- */

/* The fixture: 4 hosts, Slurm on them, a Slurm job step running on every
 * node, and an ircgd; their pids ("PID NAME") into IRCG_HARNESS_PIDS. */
static int start_everything(void)
{
    static hu_daemon d; /* left running on purpose */
    char cmd[1024], out[8192];
    const char *path = getenv("IRCG_HARNESS_PIDS");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f || cl_up(4) != 1 || cl_slurm_up() != 0 || hu_start(&d, "cluster_fixture", 1) != 0) {
        if (f)
            fclose(f);
        return -1;
    }
    fprintf(f, "%d ircgd\n", (int)d.pid);
    snprintf(cmd, sizeof cmd, "srun -N 4 -n 4 sleep 600 >/dev/null 2>&1 & echo $!");
    if (cl_sh(cmd, out, sizeof out) == 0)
        fprintf(f, "%d srun\n", atoi(out));
    for (int i = 0; i < 100 && cl_sh("pgrep -x slurmstepd >/dev/null", NULL, 0) != 0; i++)
        hu_sleep_ms(100);
    snprintf(cmd, sizeof cmd, "for h in 1 2 3 4; do %s pids $(%s name $h); done | "
             "xargs -r ps -o pid=,comm= -p", cl_script(), cl_script());
    if (cl_sh(cmd, out, sizeof out) == 0)
        for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
            int pid = 0;
            char name[32];
            if (sscanf(l, "%d %31s", &pid, name) == 2 &&
                (!strcmp(name, "slurmd") || !strcmp(name, "slurmstepd") ||
                 !strcmp(name, "slurmctld") || !strcmp(name, "munged") || !strcmp(name, "sleep")))
                fprintf(f, "%d %s\n", pid, name);
        }
    fprintf(f, "ready\n");
    fclose(f);
    return 0;
}

static void fixture_fails(void)
{
    REQUIRE(start_everything() == 0);
    REQUIRE(!"this fixture fails on purpose");
}

static void fixture_runner_killed(void)
{
    REQUIRE(start_everything() == 0);
    kill(getpid(), SIGKILL);
}

__attribute__((constructor)) static void register_fixtures(void)
{
    if (!getenv("IRCG_HARNESS_FIXTURE"))
        return;
    th_register("cluster_fixture", "fails", fixture_fails);
    th_register("cluster_fixture", "runner_killed", fixture_runner_killed);
}

/* This program again on fixture `name` (a child run of the harness):
 * afterwards no host, no Slurm daemon or step, no ircgd of it is left. */
static void nothing_left_after(const char *name, int want_status)
{
    char pids[700], log[700], filter[96], line[160];
    int st = 0;
    if (cl_up(2) != 1) /* hosts can be made here (else: skipped, saying why) */
        return;
    snprintf(pids, sizeof pids, "%s/%s.pids", th_tmpdir(), name);
    snprintf(log, sizeof log, "%s/%s.out", th_tmpdir(), name);
    snprintf(filter, sizeof filter, "cluster_fixture.%s", name);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *o = freopen(log, "w", stdout);
        if (!o || dup2(fileno(o), 2) < 0)
            _exit(127);
        setenv("IRCG_HARNESS_FIXTURE", "1", 1);
        setenv("IRCG_HARNESS_PIDS", pids, 1);
        execl("/proc/self/exe", "run_cluster_tests", filter, (char *)NULL);
        _exit(127);
    }
    REQUIRE(pid > 0);
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK_INT(WIFEXITED(st) ? WEXITSTATUS(st) : -1, want_status);
    FILE *f = fopen(pids, "r");
    int n = 0, left = 0, p;
    char what[32];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "%d %31s", &p, what) == 2) {
            n++;
            if (thg_process_runs(p, what)) {
                left++;
                printf("    still running after the child run: %d (%s)\n", p, what);
                kill(p, SIGKILL);
            }
        }
    if (f)
        fclose(f);
    printf("    the child run started %d processes (ircgd, srun, Slurm's daemons and step)\n", n);
    CHECK(n >= 8); /* ircgd, srun, slurmctld, munged, a slurmd per host */
    CHECK_INT(left, 0);
    CHECK(cl_sh("ip netns list | grep -q ircg-node", NULL, 0) != 0);
    CHECK(cl_sh("ip -o link | grep -q 'ircgv-\\|ircgbr-'", NULL, 0) != 0);
    if (th_failed()) {
        char *text = hu_read_file(log);
        printf("    the child run said:\n%s\n", text ? text : "(nothing)");
        free(text);
    }
}

TEST(cluster, a_failing_test_leaves_no_host_nor_daemon)
{
    nothing_left_after("fails", 1);
}

TEST(cluster, a_killed_run_leaves_no_host_nor_daemon)
{
    nothing_left_after("runner_killed", 128 + SIGKILL);
}
