/*
 * test_cli.c -- the `ircg` binary end to end: examples, exit codes, the
 * least-norm solution against A^+ b (LAPACKE), and Ctrl-C in mid-solve.
 * Suite "spec_cli" so that `make test T=spec` runs it with the spec tests.
 */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>
#include <lapacke.h>

#include "../harness.h"
#include "ircg.h"

static const char *cli_path(void)
{
    static char path[1024];
    const char *b = getenv("IRCG_BUILD_DIR");
    if (!b)
        return NULL;
    snprintf(path, sizeof path, "%s/bin/ircg", b);
    return access(path, X_OK) == 0 ? path : NULL;
}

/* Start ircg with args; stdout to out_path (or /dev/null), stderr to a
 * pipe whose read end goes to *err_fd (or /dev/null when err_fd is NULL). */
static pid_t spawn(char *const args[], const char *out_path, int *err_fd)
{
    int pfd[2] = {-1, -1};
    if (err_fd && pipe(pfd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        int out = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = err_fd ? pfd[1] : open("/dev/null", O_WRONLY);
        dup2(out, 1);
        dup2(err, 2);
        execv(args[0], args);
        _exit(127);
    }
    if (err_fd) {
        close(pfd[1]);
        *err_fd = pfd[0];
    }
    return pid;
}

static int run(char *const args[], const char *out_path)
{
    int st = 0;
    pid_t pid = spawn(args, out_path, NULL);
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *tmp(const char *name)
{
    static char buf[8][512];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 512, "%s/%s", th_tmpdir(), name);
    return p;
}

static cJSON *read_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    cJSON *j = NULL;
    if (b && fread(b, 1, (size_t)n, f) == (size_t)n) {
        b[n] = 0;
        j = cJSON_Parse(b);
    }
    free(b);
    fclose(f);
    return j;
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    int n = 0, ch;
    if (!f)
        return -1;
    while ((ch = fgetc(f)) != EOF)
        n += ch == '\n';
    fclose(f);
    return n;
}

#define NEED_CLI()                                                           \
    const char *bin = cli_path();                                            \
    if (!bin)                                                                \
        SKIP("no ircg binary (IRCG_BUILD_DIR unset or not built)")

TEST(spec_cli, exit_codes)
{
    NEED_CLI();
    char *spec = tmp("ln.json"), *bad = tmp("bad.json"), *nofile = tmp("nofile.json");
    CHECK_INT(run((char *[]){(char *)bin, "example", "least-norm", NULL}, spec), 0);
    CHECK_INT(run((char *[]){(char *)bin, "validate", spec, NULL}, NULL), 0);
    FILE *f = fopen(bad, "w");
    fputs("{\"problem\":{\"type\":\"least_squares\"},\"algorithm\":{\"p\":2}}", f);
    fclose(f);
    CHECK_INT(run((char *[]){(char *)bin, "validate", bad, NULL}, NULL), 2);
    CHECK_INT(run((char *[]){(char *)bin, "solve", bad, NULL}, NULL), 2);
    f = fopen(nofile, "w");
    fputs("{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":\"file\","
          "\"path\":\"does-not-exist.dat\"}}}", f);
    fclose(f);
    CHECK_INT(run((char *[]){(char *)bin, "solve", nofile, NULL}, NULL), 2);
    CHECK_INT(run((char *[]){(char *)bin, "solve", tmp("absent.json"), NULL}, NULL), 2);
    CHECK_INT(run((char *[]){(char *)bin, "frobnicate", NULL}, NULL), 2);
    CHECK_INT(run((char *[]){(char *)bin, "example", "nope", NULL}, NULL), 2);
    CHECK_INT(run((char *[]){(char *)bin, "--help", NULL}, NULL), 0);
}

/* x* = A^+ b of the least-norm example, by LAPACKE (minimum-norm dgelsd). */
static double *pinv_solution(int m, int n)
{
    double *A = NULL, *b = NULL, *x = calloc((size_t)n, sizeof *x), s[64];
    lapack_int rank = 0;
    if (!x || ircg_synth_least_squares(m, n, 0, 1, &A, &b, NULL) != IRCG_OK)
        goto fail;
    memcpy(x, b, (size_t)m * sizeof *x); /* dgelsd wants b in an n-long buffer */
    if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, m, n, 1, A, n, x, 1, s, -1.0, &rank) != 0)
        goto fail;
    free(A);
    free(b);
    return x;
fail:
    free(A);
    free(b);
    free(x);
    return NULL;
}

TEST(spec_cli, least_norm_approaches_pinv)
{
    NEED_CLI();
    char *spec = tmp("ln2.json"), *res = tmp("ln2_result.json"), *tr = tmp("ln2.csv");
    REQUIRE(run((char *[]){(char *)bin, "example", "least-norm", "--max-iter", "3000",
                           "--step-rule", "line_search", NULL}, spec) == 0);
    CHECK_INT(run((char *[]){(char *)bin, "solve", spec, "--result", res, "--trace", tr,
                             "--quiet", NULL}, NULL), 0);
    cJSON *j = read_json(res);
    REQUIRE(j != NULL);
    CHECK_INT(cJSON_GetObjectItem(j, "iterations")->valuedouble, 3000);
    const cJSON *z = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "z"), "values");
    REQUIRE(cJSON_GetArraySize(z) == 80);
    double *xs = pinv_solution(30, 80);
    REQUIRE(xs != NULL);
    double err = 0, nrm = 0;
    for (int i = 0; i < 80; i++) {
        double d = cJSON_GetArrayItem(z, i)->valuedouble - xs[i];
        err += d * d;
        nrm += xs[i] * xs[i];
    }
    printf("    ||z - A^+ b|| / ||A^+ b|| = %.3e after 3000 iterations\n", sqrt(err / nrm));
    CHECK(sqrt(err / nrm) < 0.1);
    CHECK_INT(count_lines(tr), 3001); /* header + every iteration */
    free(xs);
    cJSON_Delete(j);
}

TEST(spec_cli, synthetic_movielens_small)
{
    NEED_CLI();
    char *spec = tmp("sm.json"), *res = tmp("sm_result.json");
    REQUIRE(run((char *[]){(char *)bin, "example", "synthetic-movielens", "--size", "small",
                           "--max-iter", "50", NULL}, spec) == 0);
    CHECK_INT(run((char *[]){(char *)bin, "solve", spec, "--result", res, "--quiet", NULL},
                  NULL), 0);
    cJSON *j = read_json(res);
    REQUIRE(j != NULL);
    CHECK_STR(cJSON_GetObjectItem(j, "status")->valuestring, "max_iter");
    const cJSON *x = cJSON_GetObjectItem(j, "x");
    CHECK_STR(cJSON_GetObjectItem(x, "kind")->valuestring, "factored");
    CHECK_INT(cJSON_GetObjectItem(x, "n_rows")->valuedouble, 60);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(x, "P")) ==
          (int)cJSON_GetObjectItem(x, "rank")->valuedouble);
    cJSON_Delete(j);
}

/* Ctrl-C after the first progress line: exit 130, partial result and trace. */
TEST(spec_cli, sigint_writes_partial_result)
{
    NEED_CLI();
    char *spec = tmp("long.json"), *res = tmp("long_result.json"), *tr = tmp("long.csv");
    REQUIRE(run((char *[]){(char *)bin, "example", "synthetic-movielens", "--size", "small",
                           "--max-iter", "100000000", NULL}, spec) == 0);
    int err_fd = -1;
    pid_t pid = spawn((char *[]){(char *)bin, "solve", spec, "--result", res, "--trace", tr,
                                 NULL}, NULL, &err_fd);
    REQUIRE(pid > 0);
    char buf[256];
    ssize_t got = read(err_fd, buf, sizeof buf); /* first progress line */
    CHECK(got > 0);
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
    kill(pid, SIGINT);
    while (read(err_fd, buf, sizeof buf) > 0) /* drain so the child never blocks */
        ;
    close(err_fd);
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));
    CHECK_INT(WEXITSTATUS(st), 130);
    cJSON *j = read_json(res);
    REQUIRE(j != NULL);
    CHECK_STR(cJSON_GetObjectItem(j, "status")->valuestring, "cancelled");
    double it = cJSON_GetObjectItem(j, "iterations")->valuedouble;
    CHECK(it >= 1);
    CHECK_INT(count_lines(tr), (long long)it + 1);
    cJSON_Delete(j);
}

/* Reference first, then the solve: result carries g_opt and the gaps;
 * a .jsonl trace is JSON lines. */
TEST(spec_cli, reference_and_jsonl_trace)
{
    NEED_CLI();
    char *spec = tmp("ref.json"), *res = tmp("ref_result.json"), *tr = tmp("ref.jsonl");
    FILE *f = fopen(spec, "w");
    REQUIRE(f != NULL);
    fputs("{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"synthetic\",\"m\":8,"
          "\"n\":20},\"domain\":{\"type\":\"l1_ball\",\"radius\":2}},\"algorithm\":{\"max_iter\":"
          "40},\"reference\":{\"compute\":true,\"tol\":1e-8}}", f);
    fclose(f);
    CHECK_INT(run((char *[]){(char *)bin, "solve", spec, "--result", res, "--trace", tr,
                             "--quiet", NULL}, NULL), 0);
    cJSON *j = read_json(res);
    REQUIRE(j != NULL);
    const cJSON *ref = cJSON_GetObjectItem(j, "reference");
    REQUIRE(cJSON_IsObject(ref));
    double g_opt = cJSON_GetObjectItem(j, "g_opt")->valuedouble;
    CHECK(g_opt == cJSON_GetObjectItem(ref, "g_opt")->valuedouble);
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(j, "g_gap_x")));
    CHECK(cJSON_GetObjectItem(j, "g_x")->valuedouble >= g_opt - 1e-6);
    cJSON_Delete(j);
    FILE *t = fopen(tr, "r");
    REQUIRE(t != NULL);
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, t)) {
        cJSON *row = cJSON_Parse(line);
        CHECK(row != NULL && cJSON_IsNumber(cJSON_GetObjectItem(row, "g_gap_x")));
        cJSON_Delete(row);
        n++;
    }
    fclose(t);
    CHECK_INT(n, 40);
}
