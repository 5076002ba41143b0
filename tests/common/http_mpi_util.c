/*
 * http_mpi_util.c -- see http_mpi_util.h.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "common/test_cli_util.h"
#include "http_mpi_util.h"

int hm_restart(hu_daemon *d)
{
    return hm_restart_with(d, 0, NULL);
}

int hm_restart_with(hu_daemon *d, int np, const char *wrap)
{
    char launch[1024], n[16] = "{ranks}";
    if (np > 0) /* the daemon wants {ranks} in its launcher: given to env */
        snprintf(n, sizeof n, "%d", np);
    snprintf(launch, sizeof launch, "env ASAN_OPTIONS=detect_leaks=0%s %s -np %s "
             "--oversubscribe%s%s%s", np > 0 ? " SPEC_RANKS={ranks}" : "", mu_mpirun(), n,
             geteuid() == 0 ? " --allow-run-as-root" : "", wrap ? " " : "", wrap ? wrap : "");
    setenv("IRCGD_MPI_LAUNCH", launch, 1);
    int rc = hu_restart(d);
    unsetenv("IRCGD_MPI_LAUNCH");
    return rc;
}

int hm_start(hu_daemon *d, const char *name, const char *extra)
{
    hu_prepare(d, name, 1);
    if (extra)
        snprintf(d->extra, sizeof d->extra, "%s", extra);
    return hm_restart(d);
}

int hm_pids_with(const char *needle, pid_t *pids, int max)
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

void hm_job_dir(const hu_daemon *d, const char *id, char *dir, size_t n)
{
    snprintf(dir, n, "%s.mpi/%s", d->db, id);
}

#define MAX_ROWS 1000

void hm_check_agrees(const hu_daemon *d, const char *id, const char *spec_one, int rows)
{
    static double one[MAX_ROWS][4], got[MAX_ROWS][4];
    char path[160];
    char *file = tcli_tmp("hmpi_spec.json"), *t1 = tcli_tmp("hmpi_one.csv");
    char *tn = tcli_tmp("hmpi_daemon.csv");
    hu_resp r;
    REQUIRE(rows <= MAX_ROWS);
    REQUIRE(tcli_write(file, spec_one) == 0);
    char *args[] = {(char *)tcli_path(), "solve", file, "--quiet", "--trace", t1, NULL};
    REQUIRE(tcli_run(args, NULL) == 0);
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv", id);
    REQUIRE(hu_get(d, path, &r) == 200);
    REQUIRE(tcli_write(tn, r.body) == 0);
    hu_resp_free(&r);
    int n = mu_read_trace(t1, one, MAX_ROWS);
    CHECK_INT(n, rows);
    CHECK_INT(mu_read_trace(tn, got, MAX_ROWS), n);
    double worst = mu_worst_relative((const double (*)[4])one, (const double (*)[4])got, n);
    if (!(worst <= 1e-10))
        fprintf(stderr, "    worst relative difference %.3g\n", worst);
    CHECK(worst <= 1e-10);
}

const char *hm_start_wrapper(const char *dir, const char *name, hm_start_fault fault)
{
    static char path[PATH_MAX + 64];
    char text[3 * PATH_MAX], base[PATH_MAX];
    snprintf(base, sizeof base, "%.3000s/%s", dir ? dir : th_tmpdir(), name);
    snprintf(path, sizeof path, "%s.sh", base);
    /* the rank from mpirun's variable, or srun's before MPI_Init sets it;
     * no core file of the shell (the cluster tests collect cores) */
    /* the report, as clients/mpi/mpi_crash.c writes it for the known
     * crash (its addresses made up) */
    static const char report[] =
        "echo \"ircg-mpi crash: host $(hostname) pid $$ tid $$: signal 11 (SIGSEGV) code 1 "
        "addr 0x0 pc 0x0 caller mca_btl_tcp.so+0x9996, phase: inside MPI_Init\" >&2\n";
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "rank=${OMPI_COMM_WORLD_RANK:-$SLURM_PROCID}\n"
             "[ \"$rank\" = 0 ] && echo launch >> %s.launches\n"
             "[ \"$rank\" = 0 ] && [ %d = 1 ] && sleep 5\n"
             "if [ \"$rank\" = 1 ]; then\n"
             "    if [ %d = 1 ] || { [ %d = 1 ] && mkdir %s.died 2>/dev/null; }; then\n"
             "        %s"
             "        ulimit -c 0; kill -SEGV $$\n"
             "    fi\n"
             "fi\n"
             "exec \"$@\"\n", base, fault == HM_START_SLOW,
             fault == HM_CRASH_EVERY || fault == HM_DIE_UNEXPLAINED, fault == HM_CRASH_ONCE,
             base, fault == HM_DIE_UNEXPLAINED ? "\n" : report);
    if (tcli_write(path, text) != 0 || chmod(path, 0755) != 0)
        return NULL;
    return path;
}

int hm_launches(const char *wrap)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%.*s.launches", (int)strlen(wrap) - 3, wrap);
    return tcli_count_lines(path);
}
