/*
 * test_mpi.c -- ircg-mpi under mpirun on loopback (--oversubscribe: more
 * ranks than cores): on ML-100K, ML-1M and a synthetic instance, with each
 * step rule, N = 1..4 ranks give the g and f of `ircg solve` at every
 * traced iteration to 1e-10 relative; a killed rank fails the run with a
 * nonzero exit and a message; what it cannot run is refused naming the
 * member.  Skipped, saying why, without mpirun or ircg-mpi.
 *
 * The tolerance: the ranks add the same terms in another order (per rank,
 * then in rank order), so the values differ by roundings of sums whose
 * terms have one sign (g) or are the small Grams (f): 1e-14 measured.
 * The runs stop before the Frank-Wolfe gap reaches its rounding floor
 * (|gap| ~ 1e-12 against g ~ 1e6: on ML-1M after ~100 iterations), where
 * the sign of the gap -- rounding noise -- picks a step of 0 or 1, and two
 * runs that add in different orders part ways at 1e-7 (the single-process
 * runs agree bit for bit across thread counts because they add in one
 * fixed order; across ranks that order is not the same).
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../harness.h"
#include "../unit/test_cli_util.h"

static const char *mpi_bin(void)
{
    static char path[PATH_MAX];
    const char *b = getenv("IRCG_BUILD_DIR");
    if (!b)
        return NULL;
    snprintf(path, sizeof path, "%s/bin/ircg-mpi", b);
    return access(path, X_OK) == 0 ? path : NULL;
}

static const char *mpirun(void)
{
    static const char *const where[] = {"/usr/bin/mpirun", "/usr/local/bin/mpirun", NULL};
    for (int i = 0; where[i]; i++)
        if (access(where[i], X_OK) == 0)
            return where[i];
    return NULL;
}

/* Open MPI's own allocations (its plugins, never freed) would fail every
 * rank of a sanitizer build at exit: leak detection is off for the ranks
 * (the library's leaks are still found by the single-process suites; the
 * ranks keep AddressSanitizer's other checks).  Read by the children at
 * their start only. */
static void quiet_mpi_leaks(int on)
{
    if (on)
        setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
    else
        unsetenv("ASAN_OPTIONS"); /* the suite runs with none */
}

#define NEED_MPI()                                                          \
    const char *bin = tcli_path(), *mbin = mpi_bin(), *mrun = mpirun();       \
    if (!bin || !mbin)                                                      \
        SKIP("no ircg or ircg-mpi binary (IRCG_BUILD_DIR unset, or built "   \
             "without mpicc)");                                             \
    if (!mrun)                                                              \
        SKIP("no mpirun (make deps installs openmpi-bin)")

/* mpirun -np n [--allow-run-as-root] --oversubscribe ircg-mpi spec extra... */
static int run_mpi(const char *mrun, const char *mbin, int n, const char *spec,
                   const char *trace, char *err, size_t errn)
{
    char np[16];
    snprintf(np, sizeof np, "%d", n);
    char *args[16];
    int a = 0;
    args[a++] = (char *)mrun;
    args[a++] = "-np";
    args[a++] = np;
    if (geteuid() == 0)
        args[a++] = "--allow-run-as-root";
    args[a++] = "--oversubscribe";
    args[a++] = (char *)mbin;
    args[a++] = (char *)spec;
    args[a++] = "--quiet";
    if (trace) {
        args[a++] = "--trace";
        args[a++] = (char *)trace;
    }
    args[a] = NULL;
    quiet_mpi_leaks(1);
    int rc = tcli_run_err(args, NULL, err, errn);
    quiet_mpi_leaks(0);
    return rc;
}

/* The g and f columns of a CSV trace (t, ..., g_x, f_x, g_z, f_z at
 * columns 4..7); the rows read. */
static int read_trace(const char *path, double (*v)[4], int max)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int n = 0;
    if (!f)
        return -1;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    while (n < max && fgets(line, sizeof line, f)) {
        double t, el, s, al;
        if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &t, &el, &s, &al, &v[n][0],
                   &v[n][1], &v[n][2], &v[n][3]) == 8)
            n++;
    }
    fclose(f);
    return n;
}

#define MAX_ROWS 400

/* `ircg solve` and ircg-mpi on 1..4 ranks, for each step rule. */
static void agree(const char *data, int iters)
{
    NEED_MPI();
    static const char *const rules[] = {"open_loop", "closed_loop", "line_search"};
    static double one[MAX_ROWS][4], got[MAX_ROWS][4];
    char text[1024], err[8192];
    char *spec = tcli_tmp("mpi.json"), *t1 = tcli_tmp("mpi_one.csv"), *tn = tcli_tmp("mpi_n.csv");
    for (int r = 0; r < 3; r++) {
        snprintf(text, sizeof text, "{\"problem\": {\"type\": \"matrix_completion\", "
                 "\"delta\": 5, \"data\": %s}, \"algorithm\": {\"name\": \"ircg\", "
                 "\"max_iter\": %d, \"step_rule\": \"%s\"}}", data, iters, rules[r]);
        REQUIRE(tcli_write(spec, text) == 0);
        char *args[] = {(char *)bin, "solve", spec, "--quiet", "--trace", t1, NULL};
        REQUIRE(tcli_run(args, NULL) == 0);
        int rows = read_trace(t1, one, MAX_ROWS);
        REQUIRE(rows == iters);
        for (int n = 1; n <= 4; n++) {
            int rc = run_mpi(mrun, mbin, n, spec, tn, err, sizeof err);
            if (rc != 0)
                fprintf(stderr, "ircg-mpi -np %d: exit %d: %s\n", n, rc, err);
            REQUIRE(rc == 0);
            REQUIRE(read_trace(tn, got, MAX_ROWS) == rows);
            double worst = 0;
            for (int i = 0; i < rows; i++)
                for (int k = 0; k < 4; k++) {
                    double rel = fabs(got[i][k] - one[i][k]) / fabs(one[i][k]);
                    worst = rel > worst || rel != rel ? rel : worst;
                }
            if (!(worst <= 1e-10))
                fprintf(stderr, "%s, %d ranks: worst relative difference %.3g\n", rules[r],
                        n, worst);
            CHECK(worst <= 1e-10);
        }
    }
}

static int have(const char *name, char *path, size_t n)
{
    snprintf(path, n, "%s/data/%s", getenv("IRCG_BUILD_DIR") ? getenv("IRCG_BUILD_DIR") : ".",
             name);
    return access(path, R_OK) == 0;
}

TEST(mpi, agreement_movielens_100k)
{
    char path[PATH_MAX], data[PATH_MAX + 64];
    if (!have("u.data", path, sizeof path))
        SKIP("no u.data (make data needs ../shared/data)");
    snprintf(data, sizeof data, "{\"source\": \"file\", \"path\": \"%s\"}", path);
    agree(data, 50);
}

TEST(mpi, agreement_movielens_1m)
{
    char path[PATH_MAX], data[PATH_MAX + 64];
    if (!have("ratings.dat", path, sizeof path))
        SKIP("no ratings.dat (make data needs ../shared/data)");
    snprintf(data, sizeof data, "{\"source\": \"file\", \"path\": \"%s\"}", path);
    agree(data, 40);
}

TEST(mpi, agreement_synthetic)
{
    agree("{\"source\": \"synthetic\", \"n_rows\": 3000, \"n_cols\": 800, "
          "\"n_ratings\": 120000, \"seed\": 5}", 100);
}

/* What a distributed solve cannot run is refused, naming the member. */
TEST(mpi, refusals_name_the_member)
{
    NEED_MPI();
    static const char *const cases[][2] = {
        {"\"algorithm\": {\"name\": \"ircg\", \"lmo\": {\"engine\": \"arpack\"}}",
         "/algorithm/lmo/engine"},
        {"\"algorithm\": {\"name\": \"cgbio\"}", "/algorithm/name"},
        {"\"algorithm\": {\"name\": \"ircg\"}, \"reference\": {\"compute\": true}",
         "/reference/compute"},
    };
    char text[512], err[8192];
    char *spec = tcli_tmp("mpi_refuse.json");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, "{\"problem\": {\"type\": \"matrix_completion\", \"data\": "
                 "{\"source\": \"synthetic\", \"n_rows\": 50, \"n_cols\": 40, \"n_ratings\": "
                 "500}}, %s}", cases[i][0]);
        REQUIRE(tcli_write(spec, text) == 0);
        CHECK(run_mpi(mrun, mbin, 2, spec, NULL, err, sizeof err) == 2);
        CHECK(strstr(err, cases[i][1]) != NULL);
    }
}

/* The first child of pid (from /proc), or -1. */
static pid_t child_of(pid_t pid)
{
    char path[64];
    long c = -1;
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld", &c) != 1)
            c = -1;
        fclose(f);
    }
    return (pid_t)c;
}

/* A rank killed mid-solve: mpirun ends the others and exits nonzero,
 * saying which process died. */
TEST(mpi, killed_rank_fails_the_run)
{
    NEED_MPI();
    char *spec = tcli_tmp("mpi_kill.json"), err[16384] = "";
    REQUIRE(tcli_write(spec, "{\"problem\": {\"type\": \"matrix_completion\", \"data\": "
                             "{\"source\": \"synthetic\", \"n_rows\": 3000, \"n_cols\": 800, "
                             "\"n_ratings\": 120000}}, \"algorithm\": {\"name\": \"ircg\", "
                             "\"max_iter\": 100000000}}") == 0);
    char *args[8] = {(char *)mrun, "-np", "3", "--oversubscribe"};
    int a = 4;
    if (geteuid() == 0)
        args[a++] = "--allow-run-as-root";
    args[a++] = (char *)mbin;
    args[a++] = spec;
    args[a] = NULL;
    int fd = -1, st = 0;
    quiet_mpi_leaks(1);
    pid_t pid = tcli_spawn(args, NULL, &fd);
    quiet_mpi_leaks(0);
    REQUIRE(pid > 0);
    int seen = tcli_wait_for(fd, "ircg-mpi iter", err, sizeof err);
    pid_t victim = child_of(pid);
    if (seen && victim > 0)
        kill(victim, SIGKILL);
    else
        kill(pid, SIGKILL);
    size_t len = strlen(err);
    ssize_t got;
    while ((got = read(fd, err + len, sizeof err - 1 - len)) > 0 && len < sizeof err - 1)
        len += (size_t)got;
    err[len] = '\0';
    close(fd);
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(seen && victim > 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 0);
    CHECK(strstr(err, "signal 9") || strstr(err, "Killed") || strstr(err, "exited on signal"));
}
