/*
 * harness.c -- runs every registered test (or those whose "suite.name"
 * contains one of the arguments, or whose suite an argument "suite." names)
 * and prints the closing count line.
 */
#include "harness.h"
#include "harness_guard.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct th_test {
    const char *suite, *name;
    th_fn fn;
} th_test;

static th_test *g_tests;
static int g_ntests, g_cap;
static int g_failed_now, g_skipped_now;
static char g_skip_msg[256];
static char g_tmp[256];
static th_fn g_after[8];
static int g_nafter;

void th_register(const char *suite, const char *name, th_fn fn)
{
    if (g_ntests == g_cap) {
        g_cap = g_cap ? 2 * g_cap : 64;
        g_tests = realloc(g_tests, (size_t)g_cap * sizeof *g_tests);
        if (!g_tests)
            abort();
    }
    g_tests[g_ntests++] = (th_test){suite, name, fn};
}

void th_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stdout, "    %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    g_failed_now++;
}

void th_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_skip_msg, sizeof g_skip_msg, fmt, ap);
    va_end(ap);
    g_skipped_now = 1;
}

int th_failed(void) { return g_failed_now > 0; }

static th_fn g_at_end[4];
static int g_nat_end;

void th_at_end(th_fn fn)
{
    for (int i = 0; i < g_nat_end; i++)
        if (g_at_end[i] == fn)
            return;
    if (g_nat_end == (int)(sizeof g_at_end / sizeof g_at_end[0])) {
        fprintf(stderr, "th_at_end: more than %d hooks\n", g_nat_end);
        abort();
    }
    g_at_end[g_nat_end++] = fn;
}

void th_after_each(th_fn fn)
{
    for (int i = 0; i < g_nafter; i++)
        if (g_after[i] == fn)
            return;
    if (g_nafter == (int)(sizeof g_after / sizeof g_after[0])) {
        fprintf(stderr, "th_after_each: more than %d hooks\n", g_nafter);
        abort();
    }
    g_after[g_nafter++] = fn;
}

void th_margin(const char *file, int line, double used)
{
    static double limit = -1;
    if (limit < 0) {
        const char *e = getenv("IRCG_TEST_MARGIN");
        limit = e && *e ? atof(e) : 2.0; /* > 1: never reported */
    }
    if (used > limit)
        fprintf(stdout, "    margin %s:%d used %.3g of its tolerance\n", file, line, used);
}

/* The local copy of the data sets `make data` reads (IRCG_DATA_DIR, set
 * from the Makefile's DATA_DIR; none when empty). */
static const char *local_copy(void)
{
    const char *d = getenv("IRCG_DATA_DIR");
    return d && *d ? d : NULL;
}

int th_movielens(const char *name, char *path, size_t cap)
{
    const char *b = getenv("IRCG_BUILD_DIR"), *local = local_copy();
    const char *copy = strcmp(name, "u.data") == 0 ? "ml-100k/u.data.xz"
                                                   : "ml-1m-subset/ratings.dat.xz";
    char src[1024];
    struct stat st;
    snprintf(path, cap, "%s/data/%s", b && *b ? b : "build", name);
    if (stat(path, &st) == 0)
        return 1;
    if (!local)
        return 0;
    snprintf(src, sizeof src, "%s/%s", local, copy);
    if (stat(src, &st) != 0)
        return 0;
    th_fail(__FILE__, __LINE__, "%s is here but %s is not: run make data (the "
            "MovieLens tests must run where the data is)", src, path);
    return -1;
}

const char *th_tmpdir(void)
{
    if (!g_tmp[0]) {
        const char *t = getenv("IRCG_TMPDIR"); /* soak.sh keeps its runs apart */
        snprintf(g_tmp, sizeof g_tmp, "%.200s/ircg-test-XXXXXX", t && *t == '/' ? t : "/tmp");
        if (!mkdtemp(g_tmp)) {
            perror("mkdtemp");
            abort();
        }
        /* removed when the run ends, however it ends (the guardian's) */
        if (!getenv("IRCG_KEEP_TMP")) {
            char cmd[300];
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
            th_on_exit_cmd(cmd);
        }
    }
    return g_tmp;
}

static int cmp_test(const void *a, const void *b)
{
    const th_test *x = a, *y = b;
    int c = strcmp(x->suite, y->suite);
    return c ? c : strcmp(x->name, y->name);
}

static int selected(const th_test *t, int argc, char **argv)
{
    if (argc < 2)
        return 1;
    char full[256];
    snprintf(full, sizeof full, "%s.%s", t->suite, t->name);
    for (int i = 1; i < argc; i++) {
        size_t k = strlen(argv[i]);
        /* "suite." names a whole suite exactly; anything else is a substring */
        if (k > 0 && argv[i][k - 1] == '.' ? strncmp(full, argv[i], k) == 0
                                           : strstr(full, argv[i]) != NULL)
            return 1;
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0, skipped = 0;
    char left[1024];
    setvbuf(stdout, NULL, _IOLBF, 0);
    thg_start();
    qsort(g_tests, (size_t)g_ntests, sizeof *g_tests, cmp_test);
    for (int i = 0; i < g_ntests; i++) {
        th_test *t = &g_tests[i];
        if (!selected(t, argc, argv))
            continue;
        g_failed_now = g_skipped_now = 0;
        thg_running(t->suite, t->name, passed, failed, skipped);
        double t0 = now_s();
        thg_arm_timeout();
        t->fn();
        for (int k = 0; k < g_nafter; k++)
            g_after[k]();
        /* whatever the test left running, stopped; a passing test that
         * left something fails */
        int nleft = thg_sweep(!g_failed_now, left, sizeof left);
        if (nleft > 0 && !g_failed_now)
            th_fail(__FILE__, __LINE__, "%d processes this test started were still running "
                    "at its end: %s (killed)", nleft, left);
        else if (nleft > 0)
            printf("    stopped %d processes the test left: %s\n", nleft, left);
        double dt = now_s() - t0;
        if (g_failed_now) {
            failed++;
            printf("FAIL %s.%s (%.2fs)\n", t->suite, t->name, dt);
        } else if (g_skipped_now) {
            skipped++;
            printf("skip %s.%s: %s\n", t->suite, t->name, g_skip_msg);
        } else {
            passed++;
            printf("ok   %s.%s (%.2fs)\n", t->suite, t->name, dt);
        }
    }
    for (int k = 0; k < g_nat_end; k++)
        g_at_end[k]();
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    thg_end();
    return failed ? 1 : 0;
}

int th_have_python(const char *script)
{
    struct stat st;
    return stat(script, &st) == 0 && system("python3 -c '' 2>/dev/null") == 0;
}

int th_run_python(const char *script, const char *args, char *out, size_t cap)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "python3 %s %s 2>&1", script, args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
