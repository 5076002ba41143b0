/*
 * test_cli_interrupt.c -- `ircg solve` when it does not simply finish:
 * Ctrl-C in mid-solve and during the reference computation (exit 130, a
 * result and a trace that say how far it got, a message that says what was
 * written), and failures (exit 3, with the result still written).
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "harness.h"
#include "common/test_cli_util.h"

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* SIGINT once `text` appeared on stderr (+ delay); the exit code, with
 * the rest of stderr in err. */
static int interrupt_after(char *const args[], const char *text, long delay_ms, char *err,
                           size_t n)
{
    int fd = -1, st = 0;
    pid_t pid = tcli_spawn(args, NULL, &fd);
    if (pid < 0)
        return -1;
    int seen = tcli_wait_for(fd, text, err, n);
    sleep_ms(delay_ms);
    kill(pid, SIGINT);
    size_t len = strlen(err);
    for (;;) { /* drain so the child never blocks */
        ssize_t got = read(fd, err + len, n - 1 - len);
        if (got <= 0)
            break;
        len += (size_t)got;
        if (len >= n - 1)
            len = 0; /* keep the tail: the closing message is last */
        err[len] = '\0';
    }
    close(fd);
    if (waitpid(pid, &st, 0) != pid || !seen)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Ctrl-C after the first progress line: exit 130, partial result and trace. */
TEST(spec_cli, sigint_writes_partial_result)
{
    NEED_CLI();
    char *spec = tcli_tmp("long.json"), *res = tcli_tmp("long_result.json");
    char *tr = tcli_tmp("long.csv"), err[16384];
    REQUIRE(tcli_run((char *[]){(char *)bin, "example", "synthetic-movielens", "--size", "small",
                                "--max-iter", "100000000", NULL}, spec) == 0);
    int code = interrupt_after((char *[]){(char *)bin, "solve", spec, "--result", res, "--trace",
                                          tr, NULL}, "ircg iter", 300, err, sizeof err);
    CHECK_INT(code, 130);
    cJSON *j = tcli_read_json(res);
    REQUIRE(j != NULL);
    CHECK_STR(cJSON_GetObjectItem(j, "status")->valuestring, "cancelled");
    double it = cJSON_GetObjectItem(j, "iterations")->valuedouble;
    CHECK(it >= 1);
    CHECK_INT(tcli_count_lines(tr), (long long)it + 1);
    char want[256];
    snprintf(want, sizeof want, "interrupted at iteration %.0f; wrote the result (status "
             "\"cancelled\") to %s and %.0f trace rows to %s", it, res, it, tr);
    if (!strstr(err, want))
        th_fail(__FILE__, __LINE__, "want \"%s\" in:\n%s", want, err);
    cJSON_Delete(j);
}

/* Ctrl-C while g_opt is being computed (a slow reference: delta 200 makes
 * conditional gradient on g crawl): exit 130, a result with the
 * reference's state and no solver iterations, a trace with its header
 * only, and a message that says so. */
TEST(spec_cli, sigint_during_reference)
{
    NEED_CLI();
    char *spec = tcli_tmp("slowref.json"), *res = tcli_tmp("slowref_result.json");
    char *tr = tcli_tmp("slowref.csv"), err[16384];
    REQUIRE(tcli_write(spec, "{\"problem\":{\"type\":\"matrix_completion\",\"delta\":200,"
                             "\"data\":{\"source\":\"synthetic\",\"n_rows\":60,\"n_cols\":40,"
                             "\"rank\":3,\"n_ratings\":600}},\"algorithm\":{\"max_iter\":10},"
                             "\"reference\":{\"compute\":true,\"tol\":1e-9,"
                             "\"max_iter\":1000000000}}") == 0);
    int code = interrupt_after((char *[]){(char *)bin, "solve", spec, "--result", res, "--trace",
                                          tr, NULL}, "computing the reference", 300, err,
                               sizeof err);
    CHECK_INT(code, 130);
    cJSON *j = tcli_read_json(res);
    REQUIRE(j != NULL);
    CHECK_STR(cJSON_GetObjectItem(j, "status")->valuestring, "cancelled");
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "error")));
    CHECK_INT(cJSON_GetObjectItem(j, "iterations")->valuedouble, 0);
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(j, "g_x"))); /* at the start point */
    CHECK(cJSON_IsObject(cJSON_GetObjectItem(j, "x")));
    const cJSON *ref = cJSON_GetObjectItem(j, "reference");
    REQUIRE(cJSON_IsObject(ref));
    CHECK_STR(cJSON_GetObjectItem(ref, "status")->valuestring, "cancelled");
    double rit = cJSON_GetObjectItem(ref, "iterations")->valuedouble;
    CHECK(rit >= 1);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "g_opt"))); /* not certified: not used */
    CHECK_INT(tcli_count_lines(tr), 1);                    /* the CSV header */
    char want[512];
    snprintf(want, sizeof want, "interrupted during the reference computation (after %.0f of "
             "its iterations), before the solve; wrote the result (status \"cancelled\") to %s "
             "and a trace with its header only to %s", rit, res, tr);
    if (!strstr(err, want))
        th_fail(__FILE__, __LINE__, "want \"%s\" in:\n%s", want, err);
    CHECK(strstr(err, "solving with") == NULL);
    cJSON_Delete(j);
}

/* Exit 3: the result cannot be written after the solve (/dev/full opens
 * but every write fails). */
TEST(spec_cli, write_failure_exit_3)
{
    NEED_CLI();
    char *spec = tcli_tmp("wf.json"), err[8192];
    if (access("/dev/full", W_OK) != 0)
        SKIP("no /dev/full");
    REQUIRE(tcli_run((char *[]){(char *)bin, "example", "least-norm", "--max-iter", "5", NULL},
                     spec) == 0);
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "solve", spec, "--result", "/dev/full",
                                      "--quiet", NULL}, NULL, err, sizeof err), 3);
    CHECK(strstr(err, "cannot write /dev/full") != NULL);
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "solve", spec, "--trace", "/dev/full",
                                      "--quiet", NULL}, NULL, err, sizeof err), 3);
    CHECK(strstr(err, "cannot write /dev/full") != NULL);
}

