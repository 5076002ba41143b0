/*
 * mpi_util.c -- see mpi_util.h.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

void mu_quiet_mpi_leaks(int on)
{
    if (on)
        setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
    else
        unsetenv("ASAN_OPTIONS"); /* the suite runs with none */
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
