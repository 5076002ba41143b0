/*
 * mpi_util.c -- see mpi_util.h.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "common/test_cli_util.h"
#include "mpi_util.h"

const char *mu_mpi_bin(void)
{
    static char path[PATH_MAX];
    const char *b = getenv("IRCG_BUILD_DIR");
    if (!b)
        return NULL;
    snprintf(path, sizeof path, "%s/bin/ircg-mpi", b);
    return access(path, X_OK) == 0 ? path : NULL;
}

const char *mu_mpirun(void)
{
    static const char *const where[] = {"/usr/bin/mpirun", "/usr/local/bin/mpirun", NULL};
    for (int i = 0; where[i]; i++)
        if (access(where[i], X_OK) == 0)
            return where[i];
    return NULL;
}

int mu_need_mpi(void)
{
    const char *cli = tcli_path(), *mpi = mu_mpi_bin();
    if (!mu_mpirun()) {
        th_skip("no mpirun (Open MPI is not installed; make deps installs openmpi-bin)");
        return 0;
    }
    if (!cli || !mpi) {
        th_fail(__FILE__, __LINE__, "mpirun is installed but %s is missing (IRCG_BUILD_DIR "
                "%s; ircg-mpi is built when mpicc is found: make deps installs "
                "libopenmpi-dev)", !cli ? "the ircg CLI" : "build/bin/ircg-mpi",
                getenv("IRCG_BUILD_DIR") ? getenv("IRCG_BUILD_DIR") : "unset");
        return -1;
    }
    return 1;
}

void mu_quiet_mpi_leaks(int on)
{
    if (on)
        setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
    else
        unsetenv("ASAN_OPTIONS"); /* the suite runs with none */
}

int mu_run_mpi(int n, const char *spec, const char *trace, const char *result, char *err,
               size_t errn)
{
    char np[16];
    char *args[16];
    int a = 0;
    snprintf(np, sizeof np, "%d", n);
    args[a++] = (char *)mu_mpirun();
    args[a++] = "-np";
    args[a++] = np;
    if (geteuid() == 0)
        args[a++] = "--allow-run-as-root";
    args[a++] = "--oversubscribe";
    args[a++] = (char *)mu_mpi_bin();
    args[a++] = (char *)spec;
    args[a++] = "--quiet";
    if (trace) {
        args[a++] = "--trace";
        args[a++] = (char *)trace;
    }
    if (result) {
        args[a++] = "--result";
        args[a++] = (char *)result;
    }
    args[a] = NULL;
    mu_quiet_mpi_leaks(1);
    int rc = tcli_run_err(args, NULL, err, errn);
    mu_quiet_mpi_leaks(0);
    return rc;
}

int mu_run_mpi_args(int n, char *const args[], char *err, size_t errn)
{
    char np[16];
    char *argv[32];
    int a = 0;
    snprintf(np, sizeof np, "%d", n);
    argv[a++] = (char *)mu_mpirun();
    argv[a++] = "-np";
    argv[a++] = np;
    if (geteuid() == 0)
        argv[a++] = "--allow-run-as-root";
    argv[a++] = "--oversubscribe";
    argv[a++] = (char *)mu_mpi_bin();
    for (int i = 0; args[i] && a < 31; i++)
        argv[a++] = args[i];
    argv[a] = NULL;
    mu_quiet_mpi_leaks(1);
    int rc = tcli_run_err(argv, NULL, err, errn);
    mu_quiet_mpi_leaks(0);
    return rc;
}

int mu_read_column(const char *path, const char *name, double *v, int max)
{
    FILE *f = fopen(path, "r");
    char line[2048];
    int col = -1, n = 0;
    size_t len = strlen(name);
    if (!f)
        return -1;
    if (fgets(line, sizeof line, f)) /* the header names the column */
        for (char *c = line, *end; c && col < 0; c = *end ? end + 1 : NULL) {
            end = c + strcspn(c, ",\n");
            col = (size_t)(end - c) == len && strncmp(c, name, len) == 0 ? 0 : -1;
            if (col == 0)
                for (char *q = line; q < c; q++)
                    col += *q == ',';
        }
    while (col >= 0 && n < max && fgets(line, sizeof line, f)) {
        char *c = line;
        for (int i = 0; i < col && c; i++)
            c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
        v[n++] = c && *c && *c != ',' && *c != '\n' ? strtod(c, NULL) : NAN;
    }
    fclose(f);
    return col >= 0 ? n : -1;
}

int mu_read_trace(const char *path, double (*v)[4], int max)
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

double mu_worst_relative(const double (*a)[4], const double (*b)[4], int n)
{
    double worst = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 4; k++) {
            double rel = fabs(b[i][k] - a[i][k]) / fabs(a[i][k]);
            worst = rel > worst || rel != rel ? rel : worst;
        }
    return worst;
}
