/*
 * mpi_sched.c -- see mpi_sched.h.  Commands are started with
 * posix_spawnp (the daemon is multithreaded: nothing but exec after the
 * fork) and read through a pipe with a deadline; one that overruns it is
 * killed.
 */
#define _GNU_SOURCE /* pipe2 */
#include <ctype.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mpi_sched.h"
#include "mpi/mpi.h"

extern char **environ;

#define CMD_SECONDS 10.0
#define SETTLE_S 5.0

/* ------------------------------------------------------- lost hosts -- */

/* The host name at s (letters, digits, '.', '-', '_') into host: 0, or -1
 * when there is none (or it does not fit). */
static int take_name(const char *s, char *host, size_t cap)
{
    size_t n = 0;
    while (*s == ' ')
        s++;
    while (s[n] && (isalnum((unsigned char)s[n]) || strchr(".-_", s[n])))
        n++;
    if (n == 0 || n >= cap)
        return -1;
    memcpy(host, s, n);
    host[n] = '\0';
    return 0;
}

bool srv_sched_names_lost_host(const char *line, char *host, size_t cap)
{
    const char *a;
    if ((a = strstr(line, "Remote daemon:")) && (a = strstr(a, " on node ")))
        return take_name(a + 9, host, cap) == 0;
    if ((a = strstr(line, "Peer host:")))
        return take_name(a + 10, host, cap) == 0;
    if ((a = strstr(line, " on node ")) && strstr(a, " exited on signal"))
        return take_name(a + 9, host, cap) == 0;
    if ((a = strstr(line, "Node failure on ")))
        return take_name(a + 16, host, cap) == 0;
    /* srun: error: HOST: task N: Killed (a task killed, not one that
     * exited: the others exit when the ranks stop together) */
    if ((a = strstr(line, "srun: error: ")) && strstr(a, ": task ") && strstr(a, ": Killed"))
        return take_name(a + 13, host, cap) == 0;
    return false;
}

/* ----------------------------------------------------- the commands -- */

/* argv run to its end (CMD_SECONDS at most): its stdout into out (cap
 * bytes, NUL-terminated; may be NULL), its exit status, or -1. */
static int run(char *const argv[], char *out, size_t cap)
{
    int fd[2];
    pid_t pid;
    size_t n = 0;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, dfl;
    if (pipe2(fd, O_CLOEXEC) != 0)
        return -1;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
    posix_spawnattr_init(&at);
    sigemptyset(&none);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &dfl);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(fd[1]);
    if (rc != 0) {
        close(fd[0]);
        srv_log("cannot run %s: %s", argv[0], strerror(rc));
        return -1;
    }
    double end = srv_mono() + CMD_SECONDS;
    char sink[512] = "";
    for (;;) {
        struct pollfd p = {fd[0], POLLIN, 0};
        double left = end - srv_mono();
        if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0) {
            srv_log("%s did not end within %g s: killed", argv[0], CMD_SECONDS);
            kill(pid, SIGKILL);
            break;
        }
        int room = out && n + 1 < cap;
        ssize_t k = read(fd[0], room ? out + n : sink, room ? cap - 1 - n : sizeof sink);
        if (k <= 0)
            break;
        n += room ? (size_t)k : 0;
    }
    if (out && cap)
        out[n] = '\0';
    close(fd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int srv_slurm_cancel(const char *job, int sig)
{
    char opt[32], out[512];
    snprintf(opt, sizeof opt, "--signal=%s", sig == SIGUSR1 ? "USR1" : "TERM");
    char *signalled[] = {"scancel", opt, (char *)job, NULL};
    char *plain[] = {"scancel", (char *)job, NULL};
    int rc = run(sig ? signalled : plain, out, sizeof out);
    if (rc != 0)
        srv_log("scancel %s%s of Slurm job %s failed (%d): %.300s", sig ? opt : "",
                sig ? " " : "", job, rc, out);
    return rc == 0 ? 0 : -1;
}

int srv_slurm_time_limit(const char *job, int minutes)
{
    char id[96], limit[48], out[512];
    snprintf(id, sizeof id, "JobId=%s", job);
    snprintf(limit, sizeof limit, "TimeLimit=%d", minutes);
    char *argv[] = {"scontrol", "update", id, limit, NULL};
    int rc = run(argv, out, sizeof out);
    if (rc != 0)
        srv_log("scontrol update %s %s failed (%d): %.300s", id, limit, rc, out);
    return rc == 0 ? 0 : -1;
}

/* The value of KEY= in a one-line record of scontrol (up to the next
 * " Key=" or the end; Reason may hold spaces), into v. */
static void field(const char *rec, const char *key, char *v, size_t cap)
{
    char pat[40];
    size_t kl = strlen(key);
    snprintf(pat, sizeof pat, " %s=", key);
    const char *a = strncmp(rec, key, kl) == 0 && rec[kl] == '=' ? rec + kl + 1 : NULL;
    if (!a && (a = strstr(rec, pat)))
        a += strlen(pat);
    v[0] = '\0';
    if (!a)
        return;
    size_t n = 0;
    /* the value ends where the next " Word=" starts */
    for (const char *e = a; *e && *e != '\n'; e++, n++) {
        if (*e != ' ')
            continue;
        const char *w = e + 1;
        while (isalnum((unsigned char)*w) || *w == '/' || *w == ':' || *w == '_')
            w++;
        if (*w == '=' && w > e + 1)
            break;
    }
    snprintf(v, cap, "%.*s", (int)n, a);
}

/* A node state that cannot run a job's tasks. */
static bool is_not_up(const char *state)
{
    static const char *const bad[] = {"DOWN", "DRAIN", "FAIL", "NOT_RESPONDING", NULL};
    for (int i = 0; bad[i]; i++)
        if (strstr(state, bad[i]))
            return true;
    return false;
}

/* "; node X: STATE (reason)" for each host whose node is not up. */
static void describe_nodes(const char *const *hosts, int nhosts, char *buf, size_t len)
{
    static char out[65536];
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    char *argv[] = {"scontrol", "show", "node", "-o", NULL};
    pthread_mutex_lock(&mu); /* one worker at a time in out */
    if (run(argv, out, sizeof out) == 0)
        for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
            char name[128], state[128], reason[256];
            field(line, "NodeName", name, sizeof name);
            field(line, "State", state, sizeof state);
            field(line, "Reason", reason, sizeof reason);
            int ours = 0;
            for (int i = 0; i < nhosts && !ours; i++)
                ours = hosts[i] && !strcmp(hosts[i], name);
            size_t at = strlen(buf);
            if (ours && is_not_up(state) && at < len)
                snprintf(buf + at, len - at, "; node %s: %s%s%s%s", name, state,
                         reason[0] ? " (" : "", reason, reason[0] ? ")" : "");
        }
    pthread_mutex_unlock(&mu);
}

/* A job state Slurm has not settled yet (its steps still ending). */
static bool is_unsettled(const char *state)
{
    return !strcmp(state, "COMPLETING") || !strcmp(state, "RUNNING") ||
           !strcmp(state, "CONFIGURING") || !strcmp(state, "PENDING");
}

void srv_slurm_describe(const char *job, const char *const *hosts, int nhosts, char *buf,
                        size_t len)
{
    char out[8192] = "", state[64] = "", reason[256];
    char *argv[] = {"scontrol", "show", "job", "-o", (char *)job, NULL};
    buf[0] = '\0';
    /* the launcher may end before slurmctld has ended the job: its final
     * state, for up to SETTLE_S */
    for (double end = srv_mono() + SETTLE_S; !state[0] || is_unsettled(state);) {
        if (run(argv, out, sizeof out) != 0)
            return;
        field(out, "JobState", state, sizeof state);
        if (!is_unsettled(state) || srv_mono() > end)
            break;
        struct timespec ts = {0, 250000000L};
        nanosleep(&ts, NULL);
    }
    field(out, "Reason", reason, sizeof reason);
    snprintf(buf, len, "Slurm job %s: JobState=%s Reason=%s", job, state, reason);
    describe_nodes(hosts, nhosts, buf, len);
}
