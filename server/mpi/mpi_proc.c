/*
 * mpi_proc.c -- see mpi_proc.h.  Between fork and exec only
 * async-signal-safe calls: the daemon is multithreaded.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpi_proc.h"
#include "mpi/mpi.h"

#define KILL_AFTER_TERM_S 10.0

/* In the child: a session of its own, death with the parent thread,
 * the signals the daemon blocks or ignores given back, the pipes. */
static void child(char *const argv[], int out[2], int err[2])
{
    sigset_t none;
    int devnull = open("/dev/null", O_RDONLY);
    setsid();
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (devnull >= 0)
        dup2(devnull, STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    execv(argv[0], argv);
    _exit(127);
}

int mpi_proc_spawn(mpi_proc *p, char *const argv[], char *err, size_t errlen)
{
    int out[2] = {-1, -1}, er[2] = {-1, -1};
    memset(p, 0, sizeof *p);
    p->out_fd = p->err_fd = -1;
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(er, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        goto fail;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0)
        child(argv, out, er);
    close(out[1]);
    close(er[1]);
    p->pid = pid;
    p->out_fd = out[0];
    p->err_fd = er[0];
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        if (out[i] >= 0)
            close(out[i]);
        if (er[i] >= 0)
            close(er[i]);
    }
    return -1;
}

/* stderr: only the last MPI_PROC_TAIL bytes are kept. */
static void keep_tail(mpi_proc *p, const char *b, size_t n)
{
    if (n >= MPI_PROC_TAIL) {
        memcpy(p->tail, b + n - MPI_PROC_TAIL, MPI_PROC_TAIL);
        p->tail_len = MPI_PROC_TAIL;
    } else {
        size_t drop = p->tail_len + n > MPI_PROC_TAIL ? p->tail_len + n - MPI_PROC_TAIL : 0;
        memmove(p->tail, p->tail + drop, p->tail_len - drop);
        memcpy(p->tail + p->tail_len - drop, b, n);
        p->tail_len += n - drop;
    }
    p->tail[p->tail_len] = '\0';
}

/* stdout: complete lines to fn; a line past MPI_PROC_LINE_MAX is dropped. */
static void split_lines(mpi_proc *p, const char *b, size_t n, mpi_line_fn fn, void *user)
{
    for (size_t i = 0; i < n; i++) {
        if (b[i] == '\n') {
            if (!p->overlong)
                fn(user, p->line ? p->line : "", p->len);
            p->len = 0;
            p->overlong = 0;
            continue;
        }
        if (p->overlong)
            continue;
        if (!p->line || p->len + 1 >= p->cap) {
            size_t cap = p->cap ? 2 * p->cap : 1024;
            char *l = p->len + 1 < MPI_PROC_LINE_MAX ? realloc(p->line, cap) : NULL;
            if (!l) {
                p->overlong = 1;
                srv_log("launcher %d: an output line too long (or out of memory), dropped",
                        (int)p->pid);
                continue;
            }
            p->line = l;
            p->cap = cap;
        }
        p->line[p->len++] = b[i];
        p->line[p->len] = '\0';
    }
}

/* stderr: complete lines to fn (each cut to the buffer), as they come:
 * what names a lost host may be pushed out of the tail by what follows. */
static void err_lines(mpi_proc *p, const char *b, size_t n, mpi_line_fn fn, void *user)
{
    for (size_t i = 0; fn && i < n; i++) {
        if (b[i] == '\n') {
            p->errline[p->errline_len] = '\0';
            fn(user, p->errline, p->errline_len);
            p->errline_len = 0;
        } else if (p->errline_len + 1 < sizeof p->errline) {
            p->errline[p->errline_len++] = b[i];
        }
    }
}

/* Reads what one readable descriptor has; closes it at end of file. */
static void drain(mpi_proc *p, int *fd, int is_out, mpi_line_fn fn, mpi_line_fn err_fn,
                  void *user)
{
    char buf[65536];
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n > 0 && is_out)
        split_lines(p, buf, (size_t)n, fn, user);
    else if (n > 0) {
        keep_tail(p, buf, (size_t)n);
        err_lines(p, buf, (size_t)n, err_fn, user);
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(*fd);
        *fd = -1;
    }
}

int mpi_proc_pump(mpi_proc *p, double timeout_s, mpi_line_fn fn, mpi_line_fn err_fn,
                  void *user)
{
    struct pollfd fds[2];
    int n = 0;
    if (p->out_fd >= 0)
        fds[n++] = (struct pollfd){.fd = p->out_fd, .events = POLLIN};
    if (p->err_fd >= 0)
        fds[n++] = (struct pollfd){.fd = p->err_fd, .events = POLLIN};
    if (poll(fds, (nfds_t)n, (int)(timeout_s * 1000)) > 0)
        for (int i = 0; i < n; i++)
            if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                int out = fds[i].fd == p->out_fd;
                drain(p, out ? &p->out_fd : &p->err_fd, out, fn, err_fn, user);
            }
    if (!p->reaped && waitpid(p->pid, &p->status, WNOHANG) == p->pid)
        p->reaped = 1;
    /* the launcher's descendants may hold the pipes open after it ended:
     * once it is reaped, its output ends at the first quiet round */
    if (p->reaped && n > 0 && timeout_s > 0 && poll(fds, (nfds_t)n, 0) == 0)
        for (int i = 0; i < n; i++)
            if (fds[i].fd == p->out_fd || fds[i].fd == p->err_fd) {
                close(fds[i].fd);
                *(fds[i].fd == p->out_fd ? &p->out_fd : &p->err_fd) = -1;
            }
    return !(p->reaped && p->out_fd < 0 && p->err_fd < 0);
}

void mpi_proc_stop(mpi_proc *p, double grace, mpi_stop_fn via, void *user)
{
    static const int sigs[] = {SIGUSR1, SIGTERM, SIGKILL};
    double now = srv_mono();
    if (p->reaped || p->stage >= 3)
        return;
    if (p->stage == 1 && now - p->stage_at < grace)
        return;
    if (p->stage == 2 && now - p->stage_at < KILL_AFTER_TERM_S)
        return;
    int sig = sigs[p->stage];
    if (!(via && via(user, sig) == 0) || sig == SIGKILL)
        kill(-p->pid, sig);
    p->stage++;
    p->stage_at = now;
}

void mpi_proc_kill(mpi_proc *p)
{
    if (p->pid <= 0 || p->reaped)
        return;
    kill(-p->pid, SIGKILL);
    if (waitpid(p->pid, &p->status, 0) == p->pid)
        p->reaped = 1;
}

int mpi_proc_exit_code(const mpi_proc *p)
{
    return p->reaped && WIFEXITED(p->status) ? WEXITSTATUS(p->status) : -1;
}

void mpi_proc_describe(const mpi_proc *p, char *buf, size_t len)
{
    int n = 0;
    if (!p->reaped)
        n = snprintf(buf, len, "the launcher did not end");
    else if (WIFEXITED(p->status))
        n = snprintf(buf, len, "the launcher exited with status %d", WEXITSTATUS(p->status));
    else if (WIFSIGNALED(p->status))
        n = snprintf(buf, len, "the launcher was killed by signal %d", WTERMSIG(p->status));
    if (n > 0 && (size_t)n < len && p->tail_len > 0)
        snprintf(buf + n, len - (size_t)n, "; its last words: %s", p->tail);
}

void mpi_proc_free(mpi_proc *p)
{
    if (p->out_fd >= 0)
        close(p->out_fd);
    if (p->err_fd >= 0)
        close(p->err_fd);
    free(p->line);
    p->line = NULL;
    p->out_fd = p->err_fd = -1;
}
