/*
 * cluster_util.h -- what the cluster tests share (tests/cluster/README.md):
 * the hosts of tests/cluster/cluster.sh made afresh for each test, the
 * shared directory every host sees (the cluster's shared file system;
 * each host's /tmp is its own), hostfiles, and Open MPI's mpirun started
 * on host 1 with the fixture's rsh agent and TCP on the test links only.
 */
#ifndef IRCG_TEST_CLUSTER_UTIL_H
#define IRCG_TEST_CLUSTER_UTIL_H

#include <stddef.h>
#include <sys/types.h>

#define CL_MAX_HOSTS 4

/* Makes n hosts (removing those of the test before): 1 when they are up;
 * 0 when hosts cannot be made here (the test is skipped, saying why:
 * cluster.sh check); -1 (the test failed) when they could but were not. */
int cl_up(int n);
/* munged, slurmctld and a slurmd per host (cluster.sh slurm-up), and the
 * Slurm commands of host 1 (a login node) first in this process's PATH,
 * for the daemons it starts.  0, or -1 (the test failed). */
int cl_slurm_up(void);

/* Leaves the test unless n hosts are up (cl_up). */
#define CL_NEED_HOSTS(n)                                                    \
    do {                                                                    \
        if (cl_up(n) != 1)                                                  \
            return;                                                         \
    } while (0)

/* The fixture script's path; host k's name (1-based). */
const char *cl_script(void);
const char *cl_host(int k);

/* A path in the shared directory (8 rotating buffers). */
char *cl_path(const char *name);
/* The shared directory itself. */
const char *cl_shared(void);

/* A hostfile at path: hosts first .. first + hosts - 1, `slots` each. */
int cl_hostfile(const char *path, int first, int hosts, int slots);

/* A hostfile at path from "K:SLOTS,K:SLOTS,..." (host K, SLOTS ranks). */
int cl_hostfile_of(const char *path, const char *hosts);

/* Where the ranks srun starts run (--chdir): a folder of the shared
 * directory, so that a rank that dumps core leaves its core file there
 * (cl_up raises RLIMIT_CORE for everything the tests start; the kernel's
 * core_pattern must be a plain file name for the file to land in the
 * rank's folder, which cl_up says once when it is not).  mpirun's ranks
 * run in mpirun's folder, the test's: with --wdir, 2 of 7 runs of
 * cluster_lost. saw a killed host's loss reported as daemons "unable to
 * reliably start", naming no host (0 of 5 without). */
const char *cl_rank_dir(void);
/* Whether a crashing rank's core file lands in cl_rank_dir(): RLIMIT_CORE
 * is not 0 and /proc/sys/kernel/core_pattern is a plain file name. */
int cl_cores_land_here(void);
/* Each core file in cl_rank_dir() and in the test's folder: gdb's backtrace of its every thread
 * printed (or why there is none), the file removed.  How many there were;
 * the first one's backtrace into bt (cap bytes; bt may be NULL).  After
 * every test of the hosts the fixture does this and fails the test for
 * any core: a rank's crash is never silent. */
int cl_collect_cores(char *bt, size_t cap);
/* Whether rank pid runs in cl_rank_dir() with a core limit above 0: the
 * launcher passed on where to dump and that it may. */
int cl_rank_keeps_cores(long pid);

/* The shell command that starts `np` ranks ("{ranks}" for ircgd's
 * template) of what follows on the hostfile's hosts: mpirun on host 1
 * with the rsh agent `cluster.sh agent`, TCP only (btl tcp,self) on the
 * test links, OOB keepalives of 5 + 3 x 2 s (a cut link is noticed within
 * 11 s), ranks bound to no core and yielding theirs while they wait (the
 * hosts share the machine's cores: Open MPI, counting each host's, would
 * bind the first rank of every host to the same core 0).  Into buf. */
void cl_mpirun(char *buf, size_t n, const char *hostfile, const char *np);

/* `sh -c cmd`: its exit status (-1 when it did not run), its stdout and
 * stderr into out (cap bytes, NUL-terminated; out may be NULL). */
int cl_sh(const char *cmd, char *out, size_t cap);

/* ircg-mpi ARGS on `hosts` hosts (from host 1) with `slots` ranks each:
 * the exit status, stderr (and stdout) in err. */
int cl_run_mpi(int hosts, int slots, const char *args, char *err, size_t errn);

/* Prepares d as hu_prepare (one worker) and starts ircgd with `launch`
 * (IRCGD_MPI_LAUNCH: cl_mpirun's command, or Slurm's), its MPI work
 * directory the shared one's wd-NAME (the ranks write there), and extra
 * flags (may be NULL).  0 when it listens; else -1 and the test failed. */
struct hu_daemon;
int cl_daemon(struct hu_daemon *d, const char *name, const char *launch, const char *extra);
/* Restarts it with the same launcher and flags. */
int cl_daemon_restart(struct hu_daemon *d, const char *launch);

/* The processes inside host k (cluster.sh pids): how many. */
int cl_count_pids(int k);

/* The ircg-mpi processes inside every host: how many. */
int cl_count_ranks(void);
/* The id of an ircg-mpi process inside host k, or -1. */
long cl_rank_pid(int k);

#endif /* IRCG_TEST_CLUSTER_UTIL_H */
