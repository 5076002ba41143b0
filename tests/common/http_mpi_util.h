/*
 * http_mpi_util.h -- what the tests of MPI jobs through a real ircgd share
 * (test_http_mpi*.c): a daemon whose launcher is mpirun on loopback, the
 * rank processes of a job, the programs' presence.
 */
#ifndef IRCG_TEST_HTTP_MPI_UTIL_H
#define IRCG_TEST_HTTP_MPI_UTIL_H

#include <sys/types.h>

#include "http_util.h"
#include "mpi_util.h"

/* Leaves the test as mu_need_mpi() says (skipped without mpirun, failed
 * when mpirun is there but a program is missing); else `bin` is the ircg
 * CLI. */
#define HM_NEED_MPI()                                                       \
    MU_NEED_MPI();                                                          \
    __attribute__((unused)) const char *bin = tcli_path()

/* (Re)starts d with mpirun on loopback as its launcher (IRCGD_MPI_LAUNCH,
 * which its flags would split: --oversubscribe, and --allow-run-as-root
 * only as root); the ranks without leak reports (mpi_util.h). */
int hm_restart(hu_daemon *d);
/* The same with np ranks whatever the spec asks (0: as it asks) and every
 * rank started through `wrap` (a program given the rank's command line;
 * NULL: none). */
int hm_restart_with(hu_daemon *d, int np, const char *wrap);
/* Prepares d (one worker, `extra` flags or NULL) and starts it so. */
int hm_start(hu_daemon *d, const char *name, const char *extra);
/* The rank processes (ircg-mpi, not mpirun) whose command line holds
 * needle (the job's folder): how many, their ids in pids. */
int hm_pids_with(const char *needle, pid_t *pids, int max);
/* The job's folder in d's MPI work directory. */
void hm_job_dir(const hu_daemon *d, const char *id, char *dir, size_t n);

/* The daemon's trace of job id (rows rows) against `ircg solve` on
 * spec_one (the job's spec without execution): the same rows, g and f
 * within 1e-10 relative (test_mpi.c derives the tolerance).  Checks. */
void hm_check_agrees(const hu_daemon *d, const char *id, const char *spec_one, int rows);

/* A wrapper for a launcher (hm_restart_with): rank 0 of every launch
 * counts it; then, as `fault` says, rank 1 kills itself with SIGSEGV
 * before ircg-mpi starts -- at the first launch only, or at every one --,
 * or rank 0 sleeps 5 s first, or nothing.  HM_CRASH_ONCE and
 * HM_CRASH_EVERY first write the crash report ircg-mpi's handler writes
 * for the known crash inside MPI_Init (a null callback called from Open
 * MPI's TCP transport: server/mpi/mpi_rankcrash.h), a double of what
 * Open MPI does there; HM_DIE_UNEXPLAINED dies so without a report.
 * Written as DIR/NAME.sh (dir NULL: the test's temporary folder; the
 * ranks must see it); its path (a static buffer), NULL when it cannot be
 * written.  hm_launches(path): the launches it counted. */
typedef enum {
    HM_CRASH_ONCE,
    HM_CRASH_EVERY,
    HM_START_SLOW,
    HM_START_PLAIN,
    HM_DIE_UNEXPLAINED
} hm_start_fault;
const char *hm_start_wrapper(const char *dir, const char *name, hm_start_fault fault);
int hm_launches(const char *wrap);

#endif /* IRCG_TEST_HTTP_MPI_UTIL_H */
