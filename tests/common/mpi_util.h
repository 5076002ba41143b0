/*
 * mpi_util.h -- what the tests of ircg-mpi (test_mpi.c) and of MPI jobs
 * through ircgd (test_http_mpi.c) share: the programs, Open MPI's leak
 * reports kept out of sanitizer runs, and traces compared with `ircg
 * solve`'s.
 */
#ifndef IRCG_TEST_MPI_UTIL_H
#define IRCG_TEST_MPI_UTIL_H

/* build/bin/ircg-mpi, or NULL when it was not built (no mpicc). */
const char *mu_mpi_bin(void);
/* mpirun, or NULL when Open MPI is not installed. */
const char *mu_mpirun(void);

/* Whether an MPI test can run: 1 when the ircg CLI, ircg-mpi and mpirun
 * are all there.  Without mpirun (Open MPI not installed) the test is
 * marked skipped, saying so (0).  With mpirun but without ircg-mpi or
 * the CLI the test has failed (-1): a build that lost its MPI program
 * (no mpicc at build time, a broken link) on a machine that runs MPI
 * must not pass as a machine without MPI. */
int mu_need_mpi(void);

/* Leaves the test unless mu_need_mpi() says it can run. */
#define MU_NEED_MPI()                                                       \
    do {                                                                    \
        if (mu_need_mpi() != 1)                                             \
            return;                                                         \
    } while (0)

/* Open MPI's own allocations (its plugins, never freed) would fail every
 * rank of a sanitizer build at exit: leak detection is off for the ranks
 * (the library's leaks are still found by the single-process suites; the
 * ranks keep AddressSanitizer's other checks).  Read by children at their
 * start only. */
void mu_quiet_mpi_leaks(int on);

/* mpirun -np n [--allow-run-as-root] --oversubscribe ircg-mpi spec --quiet
 * [--trace trace] [--result result]: its exit code, stderr in err. */
int mu_run_mpi(int n, const char *spec, const char *trace, const char *result, char *err,
               size_t errn);

/* mpirun -np n [--allow-run-as-root] --oversubscribe ircg-mpi ARGS...
 * (args NULL-terminated, at most 16): its exit code, stderr in err. */
int mu_run_mpi_args(int n, char *const args[], char *err, size_t errn);

/* The column `name` of a CSV trace (NaN where empty); the rows read, -1
 * when the file or the column is missing. */
int mu_read_column(const char *path, const char *name, double *v, int max);

/* The g and f columns (g_x, f_x, g_z, f_z) of a CSV trace; the rows read,
 * -1 when the file cannot be read. */
int mu_read_trace(const char *path, double (*v)[4], int max);

/* The largest relative difference of the g and f columns of two traces
 * of n rows (NaN when any value is). */
double mu_worst_relative(const double (*a)[4], const double (*b)[4], int n);

#endif /* IRCG_TEST_MPI_UTIL_H */
