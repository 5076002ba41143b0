/*
 * harness_guard.c -- see harness_guard.h.  What runs in a signal handler
 * (the runner's report and sweep) uses only async-signal-safe calls: the
 * process table is read with open, getdents64 and read into static
 * buffers, and numbers are formatted by hand.
 */
#define _GNU_SOURCE /* getdents64 via syscall, strsignal */
#include "harness_guard.h"
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 8192
#define GRACE_S 10.0   /* a passing test's processes may still be ending   */
#define KILL_WAIT_S 10 /* SIGKILLed processes gone, or the sweep gives up   */

static pid_t g_guardian; /* 0: unguarded                                    */
static int g_cmd_fd = -1;/* the runner's end of the pipe of exit commands   */
static int g_no_sweep;
static char g_test[160] = "(between tests)";
static int g_counts[3];

/* ------------------------------------------- the process table, safely -- */

typedef struct proc_row {
    pid_t pid, ppid;
    char state;
    char comm[16];
} proc_row;

static proc_row g_rows[MAX_PROCS];

/* /proc/PID/stat of one process into row; 0, or -1 when it is gone. */
static int read_stat(pid_t pid, proc_row *row)
{
    static char path[40], buf[512];
    char digits[16];
    int i = 0, k = 0;
    pid_t v = pid;
    do {
        digits[i++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    memcpy(path, "/proc/", 6);
    k = 6;
    while (i)
        path[k++] = digits[--i];
    memcpy(path + k, "/stat", 6);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* "PID (COMM) S PPID ...": COMM may hold spaces and parentheses */
    char *open_p = strchr(buf, '('), *close_p = strrchr(buf, ')');
    if (!open_p || !close_p || close_p[1] != ' ' || !close_p[2])
        return -1;
    size_t len = (size_t)(close_p - open_p - 1);
    if (len > sizeof row->comm - 1)
        len = sizeof row->comm - 1;
    memcpy(row->comm, open_p + 1, len);
    row->comm[len] = '\0';
    row->pid = pid;
    row->state = close_p[2];
    row->ppid = 0;
    for (const char *p = close_p + 4; *p >= '0' && *p <= '9'; p++)
        row->ppid = row->ppid * 10 + (*p - '0');
    return 0;
}

int thg_process_runs(pid_t pid, const char *name)
{
    proc_row row;
    return read_stat(pid, &row) == 0 && strcmp(row.comm, name) == 0 && row.state != 'Z';
}

/* Every process of the machine into g_rows: how many. */
static int read_table(void)
{
    static char buf[16384];
    int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
    if (fd < 0)
        return 0;
    for (;;) {
        long k = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (k <= 0)
            break;
        for (long off = 0; off < k;) {
            /* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
            unsigned short reclen;
            memcpy(&reclen, buf + off + 16, sizeof reclen);
            const char *name = buf + off + 19;
            pid_t pid = 0;
            int digits = *name != '\0';
            for (const char *p = name; *p && digits; p++) {
                digits = *p >= '0' && *p <= '9';
                pid = pid * 10 + (*p - '0');
            }
            if (digits && n < MAX_PROCS && read_stat(pid, &g_rows[n]) == 0)
                n++;
            off += reclen;
        }
    }
    close(fd);
    return n;
}

static const proc_row *row_of(int n, pid_t pid)
{
    for (int i = 0; i < n; i++)
        if (g_rows[i].pid == pid)
            return &g_rows[i];
    return NULL;
}

/* Processes that live for the whole run (th_keep_process). */
static pid_t g_kept[8];
static int g_nkept;

void th_keep_process(pid_t pid)
{
    if (g_nkept < (int)(sizeof g_kept / sizeof g_kept[0]))
        g_kept[g_nkept++] = pid;
}

void thg_end(void)
{
    for (int i = 0; i < g_nkept; i++) {
        kill(g_kept[i], SIGKILL);
        waitpid(g_kept[i], NULL, 0); /* ours: reaped here, so no pid is reused under it */
    }
    g_nkept = 0;
}

static int kept(pid_t pid)
{
    for (int i = 0; i < g_nkept; i++)
        if (g_kept[i] == pid)
            return 1;
    return 0;
}

/* Whether row descends from root (not root itself), and from no process
 * kept for the whole run. */
static int descends(int n, const proc_row *row, pid_t root)
{
    for (int depth = 0; row && depth < 64; depth++) {
        if (kept(row->pid))
            return 0;
        if (row->ppid == root)
            return 1;
        if (row->ppid <= 1)
            return 0;
        row = row_of(n, row->ppid);
    }
    return 0;
}

/* The processes under root, but `self`, that are not yet zombies:
 * SIGKILLed when `kill_them`; how many.  Their pids into pids (cap). */
static int under(pid_t root, pid_t self, int kill_them, pid_t *pids, int cap)
{
    int n = read_table(), found = 0;
    for (int i = 0; i < n; i++) {
        const proc_row *r = &g_rows[i];
        if (r->pid == self || r->state == 'Z' || !descends(n, r, root))
            continue;
        if (kill_them)
            kill(r->pid, SIGKILL);
        if (found < cap)
            pids[found] = r->pid;
        found++;
    }
    return found;
}

/* This process's own children that are zombies, reaped (a test's child it
 * did not wait for; what the guardian adopted it reaps itself). */
static void reap_own(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void pause_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Kills everything under root but self until nothing is left (or
 * KILL_WAIT_S passed, the rest named on stderr).  Async-signal-safe. */
static void kill_all_under(pid_t root, pid_t self)
{
    pid_t pids[8];
    double end = mono() + KILL_WAIT_S;
    while (under(root, self, 1, pids, 8) > 0 && mono() < end) {
        reap_own();
        pause_ms(20);
    }
    reap_own();
}

/* --------------------------------------------- writing from a handler -- */

static void put(const char *s) { (void)!write(STDOUT_FILENO, s, strlen(s)); }

static void put_int(long v)
{
    char b[24];
    int i = sizeof b;
    b[--i] = '\0';
    int neg = v < 0;
    unsigned long u = neg ? (unsigned long)-v : (unsigned long)v;
    do {
        b[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (neg)
        b[--i] = '-';
    put(b + i);
}

static const char *sig_word(int sig)
{
    switch (sig) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGALRM: return "SIGALRM (IRCG_TEST_TIMEOUT)";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    default: return "a signal";
    }
}

/* ------------------------------------------------------------ runner -- */

static volatile sig_atomic_t g_timeout_s;

/* The runner's end: the running test failed by signal sig, every process
 * under the runner killed, the closing line, then the signal's own end
 * (a crash dumps its core) or the exit status 128 + sig. */
/* "PID (NAME)" of a signal's sender, from /proc (async-signal-safe). */
static void put_sender(pid_t pid)
{
    proc_row r;
    put(" from pid ");
    put_int(pid);
    if (pid > 0 && read_stat(pid, &r) == 0) {
        put(" (");
        put(r.comm);
        put(", parent ");
        put_int(r.ppid);
        put(")");
    }
}

static void on_runner_signal(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    put("    the run was ended by ");
    put(sig_word(sig));
    if (si && si->si_code <= 0) /* sent by a process: say which */
        put_sender(si->si_pid);
    if (sig == SIGALRM) {
        put(" after ");
        put_int(g_timeout_s);
        put(" s");
    }
    put(": every process this test started is stopped\nFAIL ");
    put(g_test);
    put(" (ended by ");
    put(sig_word(sig));
    put(")\n");
    kill_all_under(getpid(), getpid());
    put_int(g_counts[0]);
    put(" passed, ");
    put_int(g_counts[1] + 1);
    put(" failed, ");
    put_int(g_counts[2]);
    put(" skipped\n");
    if (sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT || sig == SIGFPE || sig == SIGILL) {
        signal(sig, SIG_DFL);
        raise(sig); /* delivered when this returns: the core of the crash */
        return;
    }
    _exit(128 + sig);
}

static void runner_signals(void)
{
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGALRM,
                               SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_runner_signal;
    sa.sa_flags = SA_SIGINFO;
    sigfillset(&sa.sa_mask); /* one end at a time */
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

void thg_running(const char *suite, const char *name, int passed, int failed, int skipped)
{
    snprintf(g_test, sizeof g_test, "%s.%s", suite, name);
    g_counts[0] = passed;
    g_counts[1] = failed;
    g_counts[2] = skipped;
}

void thg_arm_timeout(void)
{
    const char *e = getenv("IRCG_TEST_TIMEOUT");
    long s = e && *e ? atol(e) : 1800;
    g_timeout_s = (sig_atomic_t)(s > 0 ? s : 0);
    alarm((unsigned)g_timeout_s);
}

int thg_sweep(int passed, char *what, size_t cap)
{
    pid_t pids[32], self = getpid(), root = g_guardian ? g_guardian : self;
    int n;
    size_t len = 0;
    alarm(0);
    reap_own();
    what[0] = '\0';
    if (g_no_sweep)
        return 0;
    n = under(root, self, 0, pids, 32);
    for (double end = mono() + GRACE_S; passed && n > 0 && mono() < end;) {
        pause_ms(50);
        reap_own();
        n = under(root, self, 0, pids, 32);
    }
    if (n == 0)
        return 0;
    int nt = read_table();
    for (int i = 0; i < n && i < 32 && len + 40 < cap; i++) {
        const proc_row *r = row_of(nt, pids[i]);
        len += (size_t)snprintf(what + len, cap - len, "%s%d (%s)", i ? ", " : "",
                                (int)pids[i], r ? r->comm : "?");
    }
    if (n > 32 && len + 16 < cap)
        snprintf(what + len, cap - len, ", %d more", n - 32);
    kill_all_under(root, self);
    return n;
}

/* ---------------------------------------------------------- guardian -- */

static volatile sig_atomic_t g_runner;

static void on_guardian_signal(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    if (sig != SIGALRM && si && si->si_code <= 0) {
        put("harness: the guardian got ");
        put(sig_word(sig));
        put_sender(si->si_pid);
        put(": passed on to the runner\n");
    }
    if (sig == SIGALRM) { /* the runner did not end 10 s after the signal */
        if (g_runner > 0)
            kill(g_runner, SIGKILL);
        return;
    }
    if (g_runner > 0)
        kill(g_runner, sig);
    alarm(10);
}

/* Runs the commands the runner registered (th_on_exit_cmd): one a line. */
static void run_exit_cmds(int fd)
{
    static char buf[16384];
    size_t n = 0;
    ssize_t k;
    fcntl(fd, F_SETFL, O_NONBLOCK);
    while (n < sizeof buf - 1 && (k = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)k;
    buf[n] = '\0';
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        if (system(line) != 0)
            fprintf(stderr, "harness: at the run's end, `%s` failed\n", line);
}

static void guard(pid_t runner, int cmd_fd)
{
    int status = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_guardian_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    g_runner = runner;
    for (int sig = 1; sig < 32; sig++)
        if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT || sig == SIGALRM)
            sigaction(sig, &sa, NULL);
    for (;;) {
        pid_t w = waitpid(-1, &status, 0); /* adopted orphans too: reaped */
        if (w == runner)
            break;
        if (w < 0 && errno != EINTR) {
            status = 1 << 8;
            break;
        }
    }
    g_runner = 0;
    alarm(0);
    pid_t left[16];
    int n = under(getpid(), getpid(), 0, left, 16);
    if (n > 0) {
        fprintf(stderr, "harness: the runner ended leaving %d processes: killed\n", n);
        kill_all_under(getpid(), getpid());
    }
    run_exit_cmds(cmd_fd);
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "harness: the runner was killed by signal %d (%s)\n",
                WTERMSIG(status), strsignal(WTERMSIG(status)));
        exit(128 + WTERMSIG(status));
    }
    exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

void thg_start(void)
{
    int fds[2];
    const char *e = getenv("IRCG_TEST_NO_SWEEP");
    g_no_sweep = e && *e && strcmp(e, "0") != 0;
    e = getenv("IRCG_TEST_UNGUARDED");
    if (!(e && *e && strcmp(e, "0") != 0) && prctl(PR_SET_CHILD_SUBREAPER, 1) == 0 &&
        pipe(fds) == 0) {
        pid_t guardian = getpid();
        fflush(NULL);
        pid_t runner = fork();
        if (runner > 0) {
            close(fds[1]);
            guard(runner, fds[0]); /* never returns */
        }
        if (runner == 0) {
            close(fds[0]);
            g_cmd_fd = fds[1];
            fcntl(g_cmd_fd, F_SETFD, FD_CLOEXEC);
            g_guardian = guardian;
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (getppid() != guardian) /* it died already */
                raise(SIGTERM);
        } else {
            close(fds[0]);
            close(fds[1]);
            prctl(PR_SET_CHILD_SUBREAPER, 0);
        }
    }
    runner_signals();
}

static char g_cmds[8][512];
static int g_ncmds;

/* Unguarded: the registered commands at the runner's own exit. */
static void run_cmds_here(void)
{
    for (int i = 0; i < g_ncmds; i++)
        if (system(g_cmds[i]) != 0)
            fprintf(stderr, "harness: at the run's end, `%s` failed\n", g_cmds[i]);
}

void th_on_exit_cmd(const char *cmd)
{
    for (int i = 0; i < g_ncmds; i++)
        if (!strcmp(g_cmds[i], cmd))
            return;
    if (g_ncmds == 8 || strlen(cmd) >= sizeof g_cmds[0]) {
        fprintf(stderr, "th_on_exit_cmd: more than 8 commands, or a long one\n");
        abort();
    }
    snprintf(g_cmds[g_ncmds++], sizeof g_cmds[0], "%s", cmd);
    if (g_cmd_fd < 0 && g_ncmds == 1)
        atexit(run_cmds_here);
    if (g_cmd_fd >= 0) {
        char line[600];
        int n = snprintf(line, sizeof line, "%s\n", cmd);
        if (n > 0 && (size_t)n < sizeof line && write(g_cmd_fd, line, (size_t)n) != n)
            fprintf(stderr, "harness: could not register `%s`\n", cmd);
    }
}
