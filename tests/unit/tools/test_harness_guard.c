/*
 * test_harness_guard.c -- no process a test starts outlives it, however
 * the test ends (tests/harness_guard.h; issue 38).
 *
 * Each test here runs this same program again, a child run of the
 * harness, on one fixture test that fails on purpose: it starts an ircgd
 * (hu_start), a child that ignores SIGTERM, and an orphan in a session of
 * its own (a daemon's double fork), writes their pids, and then ends by a
 * failed REQUIRE, by a SIGTERM sent to the run, by IRCG_TEST_TIMEOUT, by a
 * crash of its own, or by SIGKILL of the process that runs it.  After the
 * child run, none of the three may be running.  The fixtures register
 * only when IRCG_HARNESS_FIXTURE is set: a normal run neither lists nor
 * runs them.  The control runs the REQUIRE fixture with the guard and the
 * sweeps off and finds the processes alive: the check can fail.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "harness_guard.h"
#include "common/http_util.h"

/* ------------------------------------------------------------ fixtures -- */

/* The pids file's line of one process: "PID NAME". */
static void record(FILE *f, pid_t pid, const char *name)
{
    fprintf(f, "%d %s\n", (int)pid, name);
    fflush(f);
}

/* The three processes, recorded in IRCG_HARNESS_PIDS; "ready" last. */
static int start_three(void)
{
    static hu_daemon d; /* left running on purpose */
    const char *path = getenv("IRCG_HARNESS_PIDS");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f)
        return -1;
    if (hu_start(&d, "guard_fixture", 1) == 0)
        record(f, d.pid, "ircgd");
    pid_t deaf = fork();
    if (deaf == 0) {
        signal(SIGTERM, SIG_IGN); /* kept across exec */
        execlp("sleep", "sleep", "600", (char *)NULL);
        _exit(127);
    }
    if (deaf > 0)
        record(f, deaf, "sleep");
    /* in a session of its own, its parent gone: adopted, not a child */
    FILE *p = popen("setsid sleep 601 </dev/null >/dev/null 2>&1 & echo $!", "r");
    int orphan = 0;
    if (p) {
        if (fscanf(p, "%d", &orphan) != 1)
            orphan = 0;
        pclose(p);
    }
    if (orphan > 0)
        record(f, orphan, "sleep");
    fprintf(f, "ready\n");
    fclose(f);
    return 0;
}

static void fixture_fails_a_require(void)
{
    REQUIRE(start_three() == 0);
    REQUIRE(!"this fixture fails on purpose");
}

static void fixture_waits(void) /* for a signal, or the timeout */
{
    REQUIRE(start_three() == 0);
    for (;;)
        pause();
}

static void fixture_crashes(void)
{
    struct rlimit no_core = {0, 0};
    REQUIRE(start_three() == 0);
    setrlimit(RLIMIT_CORE, &no_core);
    raise(SIGSEGV);
}

static void fixture_runner_killed(void)
{
    REQUIRE(start_three() == 0);
    kill(getpid(), SIGKILL);
}

static void fixture_passes_but_leaves_one(void)
{
    FILE *p = popen("setsid sleep 602 </dev/null >/dev/null 2>&1 & echo $!", "r");
    int orphan = 0;
    const char *path = getenv("IRCG_HARNESS_PIDS");
    FILE *f = path ? fopen(path, "w") : NULL;
    REQUIRE(p && f);
    CHECK(fscanf(p, "%d", &orphan) == 1);
    pclose(p);
    record(f, orphan, "sleep");
    fprintf(f, "ready\n");
    fclose(f);
}

__attribute__((constructor)) static void register_fixtures(void)
{
    if (!getenv("IRCG_HARNESS_FIXTURE"))
        return;
    th_register("harness_fixture", "fails_a_require", fixture_fails_a_require);
    th_register("harness_fixture", "waits", fixture_waits);
    th_register("harness_fixture", "crashes", fixture_crashes);
    th_register("harness_fixture", "runner_killed", fixture_runner_killed);
    th_register("harness_fixture", "passes_but_leaves_one", fixture_passes_but_leaves_one);
}

/* --------------------------------------------------------- the checks -- */

typedef struct child_run {
    char pids[600], out[600];
    int status;           /* the child run's exit status, -1 if killed    */
    int signalled;        /* the test sent it SIGTERM once it was ready   */
} child_run;

/* Whether the file says the fixture started its processes. */
static int ready(const char *path)
{
    char *t = hu_read_file(path);
    int r = t && strstr(t, "ready") != NULL;
    free(t);
    return r;
}

/* This program on the one fixture test `name` with the settings env
 * ("NAME=VALUE ..."); with `term`, SIGTERM to it once its processes run. */
static int run_fixture(child_run *c, const char *name, const char *env, int term)
{
    char filter[96], settings[256];
    snprintf(c->pids, sizeof c->pids, "%s/%s.pids", th_tmpdir(), name);
    snprintf(c->out, sizeof c->out, "%s/%s.out", th_tmpdir(), name);
    snprintf(filter, sizeof filter, "harness_fixture.%s", name);
    unlink(c->pids);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *o = freopen(c->out, "w", stdout);
        if (!o || dup2(fileno(o), 2) < 0)
            _exit(127);
        setenv("IRCG_HARNESS_FIXTURE", "1", 1);
        setenv("IRCG_HARNESS_PIDS", c->pids, 1);
        unsetenv("IRCG_TEST_TIMEOUT");
        unsetenv("IRCG_TEST_UNGUARDED");
        unsetenv("IRCG_TEST_NO_SWEEP");
        snprintf(settings, sizeof settings, "%s", env ? env : "");
        for (char *t = strtok(settings, " "); t; t = strtok(NULL, " "))
            putenv(t);
        execl("/proc/self/exe", "run_tests", filter, (char *)NULL);
        _exit(127);
    }
    if (pid < 0)
        return -1;
    int st = 0, r = 0;
    for (int i = 0; i < 1200 && (r = waitpid(pid, &st, WNOHANG)) == 0; i++) {
        if (term && !c->signalled && ready(c->pids)) {
            kill(pid, SIGTERM);
            c->signalled = 1;
        }
        hu_sleep_ms(50);
    }
    if (r == 0) { /* a minute: the guard itself hangs */
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
    }
    c->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r == 0 ? -1 : 0;
}

/* The processes the fixture recorded that still run: how many (each
 * killed when `kill_them`, named when `say`). */
static int survivors(const child_run *c, int kill_them, int say)
{
    char name[32];
    int pid, left = 0;
    FILE *f = fopen(c->pids, "r");
    while (f && fscanf(f, "%d %31s", &pid, name) == 2) {
        if (!thg_process_runs(pid, name))
            continue;
        left++;
        if (say)
            printf("    still running after the child run: %d (%s)\n", pid, name);
        if (kill_them)
            kill(pid, SIGKILL);
    }
    if (f)
        fclose(f);
    return left;
}

/* How many processes the fixture recorded. */
static int recorded(const child_run *c)
{
    char *t = hu_read_file(c->pids);
    int n = 0;
    for (const char *p = t; p && (p = strchr(p, '\n')); p++)
        n++;
    free(t);
    return n - 1; /* "ready" */
}

static void show(const child_run *c)
{
    char *t = hu_read_file(c->out);
    printf("    the child run said:\n%s\n", t ? t : "(nothing)");
    free(t);
}

/* The fixture `name` ended as expected (exit status `status`, its FAIL
 * line when fail_line) and left nothing running. */
static void check_nothing_left(const char *name, const char *env, int term, int status,
                               int nrec)
{
    child_run c = {0};
    char line[128];
    REQUIRE(run_fixture(&c, name, env, term) == 0);
    CHECK_INT(recorded(&c), nrec);
    CHECK_INT(c.status, status);
    char *out = hu_read_file(c.out);
    snprintf(line, sizeof line, "FAIL harness_fixture.%s", name);
    CHECK(out && strstr(out, line));
    free(out);
    int left = survivors(&c, 1, 1);
    CHECK_INT(left, 0);
    if (left || th_failed())
        show(&c);
}

TEST(harness_guard, a_failed_require_leaves_no_process)
{
    check_nothing_left("fails_a_require", NULL, 0, 1, 3);
}

TEST(harness_guard, a_signal_to_the_run_leaves_no_process)
{
    check_nothing_left("waits", NULL, 1, 128 + SIGTERM, 3);
}

TEST(harness_guard, the_test_timeout_leaves_no_process)
{
    check_nothing_left("waits", "IRCG_TEST_TIMEOUT=2", 0, 128 + SIGALRM, 3);
}

TEST(harness_guard, a_crashing_test_leaves_no_process)
{
    check_nothing_left("crashes", NULL, 0, 128 + SIGSEGV, 3);
}

TEST(harness_guard, the_runner_killed_leaves_no_process)
{
    child_run c = {0};
    REQUIRE(run_fixture(&c, "runner_killed", NULL, 0) == 0);
    CHECK_INT(recorded(&c), 3);
    CHECK_INT(c.status, 128 + SIGKILL); /* the guardian's: the runner's signal */
    int left = survivors(&c, 1, 1);
    CHECK_INT(left, 0);
    if (left || th_failed())
        show(&c);
}

/* A test that passes but leaves a process running fails, naming it. */
TEST(harness_guard, a_passing_test_that_leaves_one_fails)
{
    child_run c = {0};
    REQUIRE(run_fixture(&c, "passes_but_leaves_one", NULL, 0) == 0);
    CHECK_INT(recorded(&c), 1);
    CHECK_INT(c.status, 1);
    char *out = hu_read_file(c.out);
    CHECK(out && strstr(out, "FAIL harness_fixture.passes_but_leaves_one") &&
          strstr(out, "still running at its end") && strstr(out, "(sleep)"));
    free(out);
    CHECK_INT(survivors(&c, 1, 1), 0);
    if (th_failed())
        show(&c);
}

/* The control: without the guard and its sweeps, the same failed REQUIRE
 * leaves the child and the orphan running (ircgd is stopped by
 * http_util's own hook) -- what the checks above would see. */
TEST(harness_guard, without_the_guard_they_survive)
{
    child_run c = {0};
    REQUIRE(run_fixture(&c, "fails_a_require", "IRCG_TEST_UNGUARDED=1 IRCG_TEST_NO_SWEEP=1",
                        0) == 0);
    CHECK_INT(c.status, 1);
    CHECK_INT(survivors(&c, 1, 0), 2);
}
