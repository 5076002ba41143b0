/*
 * harness.h -- the project's test runner.
 *
 * A test is a function declared with TEST(suite, name); it registers itself
 * before main runs.  CHECK* record a failure and go on; REQUIRE* record it and
 * leave the test.  SKIP(...) leaves the test marked skipped.  The runner
 * prints one line per test and ends with "N passed, N failed, N skipped".
 * No process a test starts outlives it, however it ends (a failed
 * REQUIRE, a signal, IRCG_TEST_TIMEOUT, a crash): tests/harness_guard.h.
 */
#ifndef IRCG_TEST_HARNESS_H
#define IRCG_TEST_HARNESS_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

typedef void (*th_fn)(void);

void th_register(const char *suite, const char *name, th_fn fn);
void th_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void th_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int th_failed(void); /* has the running test failed so far */
/* fn runs after every test from now on, as part of it (its th_fail fails
 * that test): a fixture's checks of what a test may not leave behind.
 * Registering the same fn again does nothing; at most 8. */
void th_after_each(th_fn fn);
/* fn runs once after the last test, before the closing count line (a
 * fixture's totals for the whole run).  At most 4. */
void th_at_end(th_fn fn);
/* A shell command that undoes what the run made outside its processes
 * (tests/cluster: `cluster.sh down`, the network namespaces), run once
 * when the run ends, however it ends: by the guardian after the runner
 * (tests/harness_guard.h), at most 8, each under 512 bytes.  Every process
 * a test starts is stopped after it by the harness itself. */
void th_on_exit_cmd(const char *cmd);
/* A child process (and what it starts) that lives for the whole run, not
 * one test: the sweeps after each test leave it (the contract check's
 * Prism, tests/common/contract.h); the harness kills and reaps it after
 * the closing line.  At most 8. */
void th_keep_process(pid_t pid);
/* A passing CHECK_NEAR/CHECK_REL that used the fraction `used` of its
 * tolerance: reported when IRCG_TEST_MARGIN=F is set and used > F, so that
 * tolerances near their edge on this CPU's kernels can be found and derived
 * again before another CPU's rounding crosses them. */
void th_margin(const char *file, int line, double used);

/* The MovieLens copy `name` ("u.data" or "ratings.dat") that `make data`
 * puts into IRCG_BUILD_DIR/data, its path into path.  1 when it is there.
 * 0 when no local copy it is made from is given either (IRCG_DATA_DIR, the
 * Makefile's DATA_DIR): a machine without the data, which its licence
 * keeps out of the repository -- the caller skips (NEED_MOVIELENS), as
 * tests/skips.allowed allows only there.  -1 after a failure of the
 * running test when the local copy is there but was not put in place: the
 * data is on this machine, so the test must run. */
int th_movielens(const char *name, char *path, size_t cap);

/* Path of a test temporary directory ($IRCG_TMPDIR or /tmp, ircg-test-XXXXXX;
 * not TMPDIR, which Open MPI and Slurm read too),
 * created once per run; removed at exit unless IRCG_KEEP_TMP is set. */
const char *th_tmpdir(void);
/* 1 when python3 runs and the repository file script exists (the tests
 * that run the repository's Python tools, from the repository root). */
int th_have_python(const char *script);
/* `python3 script args` with stdout and stderr into out (cut to cap - 1
 * bytes, NUL-terminated): its exit status, -1 when it could not run. */
int th_run_python(const char *script, const char *args, char *out, size_t cap);

#define TEST(suite, name)                                                   \
    static void suite##__##name(void);                                      \
    __attribute__((constructor)) static void suite##__##name##__reg(void)   \
    {                                                                       \
        th_register(#suite, #name, suite##__##name);                        \
    }                                                                       \
    static void suite##__##name(void)

#define CHECK(c)                                                            \
    do {                                                                    \
        if (!(c))                                                           \
            th_fail(__FILE__, __LINE__, "CHECK(%s)", #c);                   \
    } while (0)

#define REQUIRE(c)                                                          \
    do {                                                                    \
        if (!(c)) {                                                         \
            th_fail(__FILE__, __LINE__, "REQUIRE(%s)", #c);                 \
            return;                                                         \
        }                                                                   \
    } while (0)

/* |a - b| <= tol, with NaN always failing. */
#define CHECK_NEAR(a, b, tol)                                               \
    do {                                                                    \
        double th_a_ = (a), th_b_ = (b), th_t_ = (tol);                     \
        if (!(fabs(th_a_ - th_b_) <= th_t_))                                \
            th_fail(__FILE__, __LINE__,                                     \
                    "CHECK_NEAR(%s, %s): %.17g vs %.17g, diff %.3g > %.3g", \
                    #a, #b, th_a_, th_b_, fabs(th_a_ - th_b_), th_t_);      \
        else                                                                \
            th_margin(__FILE__, __LINE__, fabs(th_a_ - th_b_) / th_t_);     \
    } while (0)

/* |a - b| <= rtol * max(|a|, |b|, floor) */
#define CHECK_REL(a, b, rtol, floor)                                        \
    do {                                                                    \
        double th_a_ = (a), th_b_ = (b);                                    \
        double th_s_ = fmax(fmax(fabs(th_a_), fabs(th_b_)), (floor));       \
        if (!(fabs(th_a_ - th_b_) <= (rtol) * th_s_))                       \
            th_fail(__FILE__, __LINE__,                                     \
                    "CHECK_REL(%s, %s): %.17g vs %.17g, rel %.3g > %.3g",   \
                    #a, #b, th_a_, th_b_, fabs(th_a_ - th_b_) / th_s_,      \
                    (double)(rtol));                                        \
        else                                                                \
            th_margin(__FILE__, __LINE__,                                   \
                      fabs(th_a_ - th_b_) / ((rtol) * th_s_));              \
    } while (0)

#define CHECK_INT(a, b)                                                     \
    do {                                                                    \
        long long th_a_ = (long long)(a), th_b_ = (long long)(b);           \
        if (th_a_ != th_b_)                                                 \
            th_fail(__FILE__, __LINE__, "CHECK_INT(%s, %s): %lld vs %lld",  \
                    #a, #b, th_a_, th_b_);                                  \
    } while (0)

#define CHECK_STR(a, b)                                                     \
    do {                                                                    \
        const char *th_a_ = (a), *th_b_ = (b);                              \
        if (!th_a_ || !th_b_ || strcmp(th_a_, th_b_) != 0)                  \
            th_fail(__FILE__, __LINE__, "CHECK_STR(%s, %s): \"%s\" vs \"%s\"",\
                    #a, #b, th_a_ ? th_a_ : "(null)",                       \
                    th_b_ ? th_b_ : "(null)");                              \
    } while (0)

/* measured <= tol, the two printed side by side whatever the outcome
 * ("    what: measured 3.1e-05, tolerance 1e-04"): for tolerances that
 * are a measurement plus headroom rather than a derived bound, so the
 * output shows how much of it the CPU's rounding and the method use. */
#define CHECK_MEASURED(what, measured, tol)                                 \
    do {                                                                    \
        double th_m_ = (measured), th_t_ = (tol);                           \
        printf("    %s: measured %.3g, tolerance %.3g\n", (what), th_m_,    \
               th_t_);                                                      \
        if (!(th_m_ <= th_t_))                                              \
            th_fail(__FILE__, __LINE__, "%s: %.17g > %.17g", (what), th_m_,  \
                    th_t_);                                                 \
        else                                                                \
            th_margin(__FILE__, __LINE__, th_t_ > 0 ? th_m_ / th_t_ : 0);   \
    } while (0)

/* path (a char array) := the MovieLens copy `name`, or skip the test when
 * the data is not on this machine, or fail it when it is but was not
 * decompressed (th_movielens). */
#define NEED_MOVIELENS(name, path)                                          \
    do {                                                                    \
        int th_ml_ = th_movielens((name), (path), sizeof(path));            \
        if (th_ml_ == 0)                                                    \
            SKIP("MovieLens %s absent: no local copy (its licence keeps "   \
                 "it out of the repository; make data fetches it)", (name)); \
        if (th_ml_ < 0)                                                     \
            return;                                                         \
    } while (0)

#define SKIP(...)                                                           \
    do {                                                                    \
        th_skip(__VA_ARGS__);                                               \
        return;                                                             \
    } while (0)

#endif /* IRCG_TEST_HARNESS_H */
