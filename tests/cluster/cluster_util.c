/*
 * cluster_util.c -- see cluster_util.h.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "common/http_util.h"
#include "common/mpi_util.h"
#include "cluster_util.h"

/* The test links' range (cluster.sh: NET). */
#define CL_NET "198.18.29.0/24"

static int g_checked;       /* 0 not yet, 1 hosts can be made, -1 cannot */
static char g_why[512];     /* why not                                   */
static int g_registered;
static char g_shared[PATH_MAX];

const char *cl_script(void)
{
    static char path[PATH_MAX];
    if (!path[0] && hu_repo_file("tests/cluster/cluster.sh", path, sizeof path) != 0)
        return "tests/cluster/cluster.sh";
    return path;
}

const char *cl_host(int k)
{
    static char names[CL_MAX_HOSTS + 1][32];
    const char *prefix = getenv("IRCG_CLUSTER_PREFIX");
    if (k < 1 || k > CL_MAX_HOSTS)
        return "?";
    snprintf(names[k], sizeof names[k], "%s%d", prefix && *prefix ? prefix : "ircg-node", k);
    return names[k];
}

int cl_sh(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    char sink[4096];
    if (!p)
        return -1;
    for (;;) {
        int room = out && n + 1 < cap;
        size_t k = fread(room ? out + n : sink, 1, room ? cap - 1 - n : sizeof sink, p);
        if (k == 0)
            break;
        n += room ? k : 0;
    }
    if (out && cap)
        out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const char *cl_shared(void)
{
    if (!g_shared[0]) {
        const char *b = getenv("IRCG_BUILD_DIR");
        char base[PATH_MAX - 32];
        snprintf(base, sizeof base, "%s/cluster-tmp", b && *b ? b : "build");
        mkdir(base, 0755);
        snprintf(g_shared, sizeof g_shared, "%s/run-%d", base, (int)getpid());
        if (mkdir(g_shared, 0755) != 0 && errno != EEXIST) {
            perror(g_shared);
            abort();
        }
        if (!getenv("IRCG_KEEP_TMP")) { /* at the run's end, however it ends */
            char cmd[PATH_MAX + 32];
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_shared);
            th_on_exit_cmd(cmd);
        }
    }
    return g_shared;
}

char *cl_path(const char *name)
{
    static char bufs[8][PATH_MAX];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, PATH_MAX, "%s/%s", cl_shared(), name);
    return b;
}

const char *cl_rank_dir(void)
{
    static char dir[PATH_MAX];
    if (!dir[0]) {
        const char *made = cl_path("ranks");
        if (mkdir(made, 0777) != 0 && errno != EEXIST)
            fprintf(stderr, "cannot make %s: %s\n", made, strerror(errno));
        if (!realpath(made, dir)) /* the launchers' own folders differ */
            snprintf(dir, sizeof dir, "%s", made);
    }
    return dir;
}

/* Core files for everything the tests start: the soft RLIMIT_CORE raised
 * to the hard one (mpirun's daemons and srun pass it on to the ranks:
 * slurm.conf's PropagateResourceLimits is ALL by default), and a word when
 * the kernel sends cores elsewhere than the crashing rank's folder. */
static void enable_cores(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_cur != rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_CORE, &rl) != 0)
            fprintf(stderr, "cannot raise RLIMIT_CORE: %s\n", strerror(errno));
    }
    if (!cl_cores_land_here())
        printf("    note: no core file of a crashed rank will be in %s (RLIMIT_CORE 0, or "
               "/proc/sys/kernel/core_pattern sends cores elsewhere)\n", cl_rank_dir());
}

int cl_cores_land_here(void)
{
    char pattern[256] = "";
    struct rlimit rl;
    FILE *f = fopen("/proc/sys/kernel/core_pattern", "r");
    if (f && fgets(pattern, sizeof pattern, f))
        pattern[strcspn(pattern, "\n")] = '\0';
    if (f)
        fclose(f);
    return pattern[0] && pattern[0] != '|' && !strchr(pattern, '/') &&
           getrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_cur > 0;
}

/* gdb's backtrace of ircg-mpi's core file `core`: the crashed thread's,
 * then every thread's; printed and into bt (cap bytes; bt may be NULL). */
static void backtrace_of(const char *core, char *bt, size_t cap)
{
    static char out[1 << 16];
    char cmd[3 * PATH_MAX];
    if (cl_sh("command -v gdb >/dev/null 2>&1", NULL, 0) != 0) {
        snprintf(out, sizeof out, "(gdb is not installed: no backtrace; make deps installs it)");
    } else {
        snprintf(cmd, sizeof cmd, "gdb -batch -nx -ex bt -ex 'thread apply all bt' '%s' '%s' 2>&1",
                 mu_mpi_bin(), core);
        if (cl_sh(cmd, out, sizeof out) < 0)
            snprintf(out, sizeof out, "(gdb did not run)");
    }
    printf("    core file %s, its backtrace:\n%s\n", core, out);
    if (bt && cap)
        snprintf(bt, cap, "%s", out);
}

/* cl_collect_cores in one folder: found is the count so far (bt takes
 * the first core's backtrace); the count after it. */
static int cores_in(const char *dir, char *bt, size_t cap, int found)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct stat st;
    char path[PATH_MAX + 256];
    while (d && (e = readdir(d))) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if ((strcmp(e->d_name, "core") != 0 && strncmp(e->d_name, "core.", 5) != 0) ||
            stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        backtrace_of(path, found == 0 ? bt : NULL, cap);
        if (remove(path) != 0)
            fprintf(stderr, "cannot remove %s: %s\n", path, strerror(errno));
        found++;
    }
    if (d)
        closedir(d);
    return found;
}

int cl_collect_cores(char *bt, size_t cap)
{
    char cwd[PATH_MAX];
    int found = cores_in(cl_rank_dir(), bt, cap, 0);
    if (getcwd(cwd, sizeof cwd))
        found = cores_in(cwd, bt, cap, found);
    return found;
}

int cl_rank_keeps_cores(long pid)
{
    char path[64], cwd[PATH_MAX], line[256];
    unsigned long long soft = 0; /* the soft core limit; 0 when unread */
    snprintf(path, sizeof path, "/proc/%ld/cwd", pid);
    ssize_t n = readlink(path, cwd, sizeof cwd - 1);
    if (n < 0)
        return 0;
    cwd[n] = '\0';
    snprintf(path, sizeof path, "/proc/%ld/limits", pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "Max core file size", 18) != 0)
            continue;
        if (strstr(line + 18, "unlimited"))
            soft = ~0ULL;
        else if (sscanf(line + 18, "%llu", &soft) != 1)
            soft = 0;
    }
    if (f)
        fclose(f);
    return strcmp(cwd, cl_rank_dir()) == 0 && soft > 0;
}

/* After every test of the hosts: a rank that dumped core fails it. */
static void no_core_left(void)
{
    int n = cl_collect_cores(NULL, 0);
    if (n > 0)
        th_fail(__FILE__, __LINE__, "%d rank(s) dumped core during this test "
                "(backtraces above)", n);
}

/* Everything the fixture made, after every test that made hosts, however
 * it ended (th_after_each runs after a failed REQUIRE too): no namespace,
 * link or process of the hosts outlives its test.  Each test makes its
 * own afresh. */
static void down(void)
{
    char cmd[PATH_MAX + 16], out[2048];
    snprintf(cmd, sizeof cmd, "%s down 2>&1", cl_script());
    if (cl_sh(cmd, out, sizeof out) != 0)
        fprintf(stderr, "cluster.sh down failed: %s\n", out);
}

int cl_up(int n)
{
    char cmd[PATH_MAX + 64], out[4096];
    if (g_checked == 0) {
        snprintf(cmd, sizeof cmd, "%s check", cl_script());
        int rc = cl_sh(cmd, g_why, sizeof g_why);
        g_checked = rc == 0 ? 1 : -1;
        g_why[strcspn(g_why, "\n")] = '\0';
        if (rc != 0 && rc != 77)
            snprintf(g_why + strlen(g_why), sizeof g_why - strlen(g_why),
                     " (cluster.sh check: exit %d)", rc);
    }
    if (g_checked < 0) {
        th_skip("hosts cannot be made here: %s", g_why);
        return 0;
    }
    if (!g_registered) {
        enable_cores();
        th_after_each(no_core_left); /* the cores first: down removes the hosts */
        th_after_each(down);
        /* and when the run itself is ended (a signal, a timeout): the
         * harness's guardian runs it after the runner */
        snprintf(cmd, sizeof cmd, "'%s' down >/dev/null 2>&1", cl_script());
        th_on_exit_cmd(cmd);
        g_registered = 1;
    }
    snprintf(cmd, sizeof cmd, "%s up %d 2>&1", cl_script(), n);
    if (cl_sh(cmd, out, sizeof out) != 0) {
        th_fail(__FILE__, __LINE__, "cluster.sh up %d failed: %s", n, out);
        return -1;
    }
    return 1;
}

int cl_slurm_up(void)
{
    char cmd[PATH_MAX + 64], out[4096], path[8192];
    const char *run = getenv("IRCG_CLUSTER_RUN");
    snprintf(cmd, sizeof cmd, "%s slurm-up 2>&1", cl_script());
    if (cl_sh(cmd, out, sizeof out) != 0) {
        th_fail(__FILE__, __LINE__, "cluster.sh slurm-up failed: %s", out);
        return -1;
    }
    /* srun, scancel, scontrol as a login node has them, for ircgd */
    const char *old = getenv("PATH");
    snprintf(path, sizeof path, "%s/bin:%s", run && *run ? run : "/run/ircg-cluster",
             old ? old : "/usr/bin:/bin");
    if (!strstr(old ? old : "", "ircg-cluster/bin"))
        setenv("PATH", path, 1);
    return 0;
}

int cl_hostfile(const char *path, int first, int hosts, int slots)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int k = first; k < first + hosts; k++)
        fprintf(f, "%s slots=%d\n", cl_host(k), slots);
    return fclose(f) == 0 ? 0 : -1;
}

int cl_hostfile_of(const char *path, const char *hosts)
{
    FILE *f = fopen(path, "w");
    int k, slots, used = 0;
    if (!f)
        return -1;
    while (sscanf(hosts, "%d:%d%n", &k, &slots, &used) == 2) {
        fprintf(f, "%s slots=%d\n", cl_host(k), slots);
        hosts += used;
        hosts += *hosts == ',';
    }
    return fclose(f) == 0 ? 0 : -1;
}

void cl_mpirun(char *buf, size_t n, const char *hostfile, const char *np)
{
    snprintf(buf, n,
             "%s exec %s env OPENBLAS_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=0 "
             "%s -np %s --hostfile %s%s --mca plm_rsh_agent '%s agent' "
             "--mca btl tcp,self --mca btl_tcp_if_include " CL_NET " "
             "--mca oob_tcp_if_include " CL_NET " --mca mpi_yield_when_idle 1 --bind-to none "
             "--mca oob_tcp_keepalive_time 5 --mca oob_tcp_keepalive_intvl 2 "
             "--mca oob_tcp_keepalive_probes 3 -x OPENBLAS_NUM_THREADS -x ASAN_OPTIONS",
             cl_script(), cl_host(1), mu_mpirun() ? mu_mpirun() : "mpirun", np, hostfile,
             geteuid() == 0 ? " --allow-run-as-root" : "", cl_script());
}

int cl_run_mpi(int hosts, int slots, const char *args, char *err, size_t errn)
{
    char hf[64], np[16], *cmd = malloc(16384), *launch = malloc(8192);
    int rc = -1;
    snprintf(hf, sizeof hf, "hosts-%d-%d", hosts, slots);
    snprintf(np, sizeof np, "%d", hosts * slots);
    if (cmd && launch && cl_hostfile(cl_path(hf), 1, hosts, slots) == 0) {
        cl_mpirun(launch, 8192, cl_path(hf), np);
        snprintf(cmd, 16384, "%s %s %s 2>&1", launch, mu_mpi_bin(), args);
        rc = cl_sh(cmd, err, errn);
    }
    free(cmd);
    free(launch);
    return rc;
}

/* The ids of the processes inside host k, from cluster.sh pids. */
static int pids_of(int k, long *pids, int max)
{
    char cmd[PATH_MAX + 64], out[8192];
    int n = 0;
    snprintf(cmd, sizeof cmd, "%s pids %s 2>/dev/null", cl_script(), cl_host(k));
    if (cl_sh(cmd, out, sizeof out) < 0)
        return -1;
    for (char *t = strtok(out, " \n"); t && n < max; t = strtok(NULL, " \n"))
        pids[n++] = strtol(t, NULL, 10);
    return n;
}

int cl_count_pids(int k)
{
    long pids[1024];
    return pids_of(k, pids, 1024);
}

/* Whether process pid runs ircg-mpi (its program, the first word). */
static int is_rank(long pid)
{
    char path[64], cmd[4096] = "";
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    FILE *f = fopen(path, "r");
    size_t len = f ? fread(cmd, 1, sizeof cmd - 1, f) : 0;
    if (f)
        fclose(f);
    cmd[len] = '\0';
    return strstr(cmd, "ircg-mpi") != NULL;
}

int cl_count_ranks(void)
{
    long pids[1024];
    int ranks = 0;
    for (int k = 1; k <= CL_MAX_HOSTS; k++) {
        int n = pids_of(k, pids, 1024);
        for (int i = 0; i < n; i++)
            ranks += is_rank(pids[i]);
    }
    return ranks;
}

long cl_rank_pid(int k)
{
    long pids[1024];
    int n = pids_of(k, pids, 1024);
    for (int i = 0; i < n; i++)
        if (is_rank(pids[i]))
            return pids[i];
    return -1;
}

int cl_daemon_restart(hu_daemon *d, const char *launch)
{
    setenv("IRCGD_MPI_LAUNCH", launch, 1);
    int rc = hu_restart(d);
    unsetenv("IRCGD_MPI_LAUNCH");
    /* a caller that only returns on failure must not pass (a daemon that
     * could not open its store once left tests "ok" in 2 s) */
    if (rc != 0)
        th_fail(__FILE__, __LINE__, "ircgd did not start (its log: %s)", d->log);
    return rc;
}

int cl_daemon(hu_daemon *d, const char *name, const char *launch, const char *extra)
{
    char wd[96];
    hu_prepare(d, name, 1);
    snprintf(wd, sizeof wd, "wd-%s", name);
    snprintf(d->extra, sizeof d->extra, "--mpi-workdir %s%s%s", cl_path(wd),
             extra ? " " : "", extra ? extra : "");
    return cl_daemon_restart(d, launch);
}
