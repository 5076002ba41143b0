/*
 * mpi_proc.h -- the launcher of an MPI job as a child process of a worker:
 * its own session and process group (so that a stop reaches the launcher
 * and whatever it started in that group, and nothing of the daemon), its
 * stdout read line by line, the tail of its stderr kept for the reason of
 * a failure, and a stop that escalates: SIGUSR1 (mpirun forwards it to
 * every rank, which vote to stop at the same iteration and write their
 * result), then after a grace SIGTERM (mpirun ends the ranks), then
 * SIGKILL.  The child dies with the worker thread that started it
 * (PR_SET_PDEATHSIG): a daemon killed outright leaves no launcher behind.
 */
#ifndef IRCG_MPI_PROC_H
#define IRCG_MPI_PROC_H

#include <stddef.h>
#include <sys/types.h>

#define MPI_PROC_TAIL 2048     /* bytes of stderr kept                     */
#define MPI_PROC_LINE_MAX (1 << 20) /* a longer stdout line is dropped     */

typedef struct mpi_proc {
    pid_t pid;                 /* also its process group; 0 = none         */
    int out_fd, err_fd;        /* -1 once at end of file                   */
    char *line;                /* stdout's unfinished line                 */
    size_t len, cap;
    int overlong;              /* the current line is being dropped        */
    char tail[MPI_PROC_TAIL + 1]; /* stderr's last bytes, NUL-terminated   */
    size_t tail_len;
    char errline[512];         /* stderr's unfinished line (longer: cut)   */
    size_t errline_len;
    int stage;                 /* stop: 0 none, 1 USR1, 2 TERM, 3 KILL sent */
    double stage_at;           /* srv_mono() of the last stop signal       */
    int reaped, status;        /* waitpid's status once reaped             */
} mpi_proc;

typedef void (*mpi_line_fn)(void *user, const char *line, size_t len);
/* A stop's signal delivered another way (a scheduler's cancel): 0 when it
 * was, and the launcher's group is then not signalled for it; -1 when not. */
typedef int (*mpi_stop_fn)(void *user, int sig);

/* Starts argv[0] (a path) with argv; stdin from /dev/null.  0, or -1 with
 * err set. */
int mpi_proc_spawn(mpi_proc *p, char *const argv[], char *err, size_t errlen);
/* Waits up to timeout_s for output, handing every complete stdout line
 * (without its '\n') to fn and every stderr line (its first 511 bytes) to
 * err_fn (may be NULL).  1 while the process runs or its pipes are open,
 * 0 once it is reaped and its output read. */
int mpi_proc_pump(mpi_proc *p, double timeout_s, mpi_line_fn fn, mpi_line_fn err_fn,
                  void *user);
/* One step of the stop: the first call sends SIGUSR1; later calls send
 * SIGTERM once `grace` seconds passed, then SIGKILL 10 s after that.  Each
 * signal is first offered to via (may be NULL), which may deliver it
 * itself; SIGKILL goes to the group whatever via did. */
void mpi_proc_stop(mpi_proc *p, double grace, mpi_stop_fn via, void *user);
/* SIGKILL to the group and reaped, at once (the claim is lost). */
void mpi_proc_kill(mpi_proc *p);
/* "exited with status 3" / "killed by signal 9", and the stderr tail. */
void mpi_proc_describe(const mpi_proc *p, char *buf, size_t len);
/* The exit status, or -1 when it did not exit normally. */
int mpi_proc_exit_code(const mpi_proc *p);
void mpi_proc_free(mpi_proc *p);

#endif /* IRCG_MPI_PROC_H */
