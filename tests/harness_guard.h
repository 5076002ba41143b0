/*
 * harness_guard.h -- no process a test started outlives it (issue 38).
 *
 * The runner is split in two at its start (thg_start): the process make
 * started becomes the guardian, a child subreaper (PR_SET_CHILD_SUBREAPER)
 * that forks the process that runs the tests.  Every process a test
 * starts is then a descendant of the guardian, whatever it does: a daemon
 * that forks and leaves its parent (munged, slurmd), the ranks of an
 * ircgd that was killed, are adopted by the guardian, not by init.  So:
 *
 *  - after every test, whatever its end (a failed REQUIRE returns early),
 *    thg_sweep kills every descendant of the guardian but the runner, and
 *    fails a test that passed but left something running;
 *  - a signal that ends the runner (SIGTERM, SIGINT, SIGHUP, SIGQUIT, the
 *    per-test timeout's SIGALRM, a crash of the test itself) fails the
 *    running test naming the signal, kills the runner's descendants and
 *    ends the run;
 *  - whatever ends the runner (SIGKILL included), the guardian then kills
 *    every descendant left, runs the commands registered by
 *    th_on_exit_cmd (cluster.sh down: the network namespaces), and exits
 *    with the runner's status (128 + N for a signal N).  A signal sent to
 *    the guardian (make's, a CI's timeout) goes to the runner first, which
 *    ends as above; 10 s later the guardian kills it.  A guardian killed
 *    by SIGKILL sends the runner SIGTERM (PR_SET_PDEATHSIG).
 *
 * IRCG_TEST_UNGUARDED=1 runs the tests in the process itself (a debugger's
 * run): the sweeps then see only the runner's own descendants.
 * IRCG_TEST_NO_SWEEP=1 turns the sweeps off (what the test of the sweep
 * compares against: tests/unit/tools/test_harness_guard.c).
 */
#ifndef IRCG_TEST_HARNESS_GUARD_H
#define IRCG_TEST_HARNESS_GUARD_H

#include <stddef.h>
#include <sys/types.h>

/* At main's start: forks the guardian (which never returns) unless
 * unguarded; the runner's signal handlers. */
void thg_start(void);
/* The running test's full name (for a signal's report), and the counts so
 * far (for the closing line a signal's end still prints). */
void thg_running(const char *suite, const char *name, int passed, int failed, int skipped);
/* After a test and its after-each hooks: kills every process it left.
 * With `passed`, first waits up to 10 s for them to end by themselves.
 * How many were still running; their "pid (name)" list into what. */
int thg_sweep(int passed, char *what, size_t cap);
/* At the run's end: the processes kept for the whole run
 * (th_keep_process) killed and reaped. */
void thg_end(void);
/* IRCG_TEST_TIMEOUT's seconds (default 1800, 0: none) armed for the next
 * test: a test still running then fails and ends the run. */
void thg_arm_timeout(void);

/* Whether process pid runs the program `name` (its /proc comm, at most
 * 15 characters) and is not a zombie: for tests that look for what a
 * run left behind. */
int thg_process_runs(pid_t pid, const char *name);

#endif /* IRCG_TEST_HARNESS_GUARD_H */
