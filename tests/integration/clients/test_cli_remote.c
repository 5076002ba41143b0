/*
 * test_cli_remote.c -- the `ircg` verbs against a real ircgd: submit
 * --wait with its progress and exit code, jobs, status, a trace of
 * several pages read whole (JSON lines and CSV), result, cancel, delete,
 * upload, tokens from IRCG_TOKEN, and getopt_long's conventions (--help
 * exits 0 on every command; a wrong option exits 2 saying what was wrong).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/test_cli_util.h"
#include "common/http_util.h"

static const char *const VERBS[] = {"solve", "validate", "example", "paper", "submit",
                                    "jobs", "status", "watch", "trace", "result",
                                    "cancel", "delete", "upload"};

TEST(cli_remote, help_and_wrong_options)
{
    NEED_CLI();
    char err[4096];
    for (size_t i = 0; i < sizeof VERBS / sizeof VERBS[0]; i++) {
        char *help[] = {(char *)bin, (char *)VERBS[i], "--help", NULL};
        char *bad[] = {(char *)bin, (char *)VERBS[i], "--no-such-option", NULL};
        if (tcli_run(help, tcli_tmp("help.txt")) != 0)
            th_fail(__FILE__, __LINE__, "ircg %s --help: not 0", VERBS[i]);
        FILE *f = fopen(tcli_tmp("help.txt"), "r");
        char first[256] = "";
        if (!f || !fgets(first, sizeof first, f) || strncmp(first, "usage: ircg ", 12) != 0)
            th_fail(__FILE__, __LINE__, "ircg %s --help prints \"%s\"", VERBS[i], first);
        if (f)
            fclose(f);
        int rc = tcli_run_err(bad, NULL, err, sizeof err);
        if (rc != 2 || !strstr(err, "unrecognized option '--no-such-option'") ||
            !strstr(err, "usage: ircg "))
            th_fail(__FILE__, __LINE__, "ircg %s --no-such-option: %d, \"%s\"", VERBS[i], rc,
                    err);
    }
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "jobs", "--limit", "0", NULL}, NULL, err,
                           sizeof err), 2);
    CHECK(strstr(err, "--limit") != NULL);
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "jobs", "--state", "done", NULL}, NULL, err,
                           sizeof err), 2);
    CHECK(strstr(err, "unknown state \"done\"") != NULL);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "status", NULL}, NULL), 2);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "status", "a", "b", NULL}, NULL), 2);
}

/* The first line of a file, or "". */
static void first_line(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    out[0] = '\0';
    if (f && fgets(out, (int)cap, f))
        out[strcspn(out, "\n")] = '\0';
    if (f)
        fclose(f);
}

TEST(cli_remote, submit_wait_trace_and_the_rest)
{
    NEED_CLI();
    hu_daemon d = {0};
    char err[8192], id[64], path[128];
    REQUIRE(hu_start(&d, "cli_remote", 2) == 0);
    setenv("IRCG_SERVER", d.base, 1);
    /* 25000 rows: the trace comes in three pages */
    char *spec = hu_ls_spec(8, 20, 3, 10, 25000, 60, "\"output\":{\"trace_every\":1}");
    REQUIRE(tcli_write(tcli_tmp("remote.json"), spec) == 0);
    free(spec);
    char *out = tcli_tmp("wait.out");
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "submit", tcli_tmp("remote.json"), "--wait",
                                      NULL}, out, err, sizeof err), 0);
    char line[512];
    first_line(out, line, sizeof line);
    CHECK(sscanf(line, "%63s succeeded (max_iter): ircg least_squares, 25000 iterations", id) == 1);
    CHECK(strstr(line, "succeeded (max_iter): ircg least_squares, 25000 iterations") != NULL);
    /* to a pipe: plain lines, no carriage returns */
    CHECK(strstr(err, "submitted j_") && strstr(err, "state: succeeded\n") && !strchr(err, '\r'));

    CHECK_INT(tcli_run((char *[]){(char *)bin, "trace", id, NULL}, tcli_tmp("t.jsonl")), 0);
    CHECK_INT(tcli_count_lines(tcli_tmp("t.jsonl")), 25000);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "trace", id, "--csv", NULL}, tcli_tmp("t.csv")), 0);
    CHECK_INT(tcli_count_lines(tcli_tmp("t.csv")), 25001);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "status", id, "--json", NULL},
                       tcli_tmp("status.json")), 0);
    cJSON *st = tcli_read_json(tcli_tmp("status.json"));
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(st, "state")), "succeeded");
    cJSON_Delete(st);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "result", id, NULL}, tcli_tmp("result.json")), 0);
    cJSON *res = tcli_read_json(tcli_tmp("result.json"));
    CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(res, "iterations")), 25000);
    cJSON_Delete(res);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "jobs", "--state", "succeeded", NULL},
                       tcli_tmp("jobs.txt")), 0);
    char *jobs = hu_read_file(tcli_tmp("jobs.txt"));
    CHECK(jobs && strstr(jobs, id) && strstr(jobs, "25000/25000"));
    free(jobs);

    /* --json: every line one JSON object, the last the job */
    CHECK_INT(tcli_run((char *[]){(char *)bin, "submit", tcli_tmp("remote.json"), "--wait",
                                  "--json", NULL}, tcli_tmp("events.jsonl")), 0);
    char *ev = hu_read_file(tcli_tmp("events.jsonl"));
    int objects = 0, bad = 0;
    for (char *l = ev ? strtok(ev, "\n") : NULL; l; l = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(l);
        bad += !cJSON_IsObject(j);
        objects++;
        cJSON_Delete(j);
    }
    free(ev);
    CHECK(objects >= 3 && bad == 0);

    /* cancel a long one, then delete it */
    char *slow = hu_mc_spec(300, 200, 6000, 100000000, 60, NULL);
    REQUIRE(tcli_write(tcli_tmp("slow.json"), slow) == 0);
    free(slow);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "submit", tcli_tmp("slow.json"), NULL},
                       tcli_tmp("id.txt")), 0);
    char slow_id[64];
    first_line(tcli_tmp("id.txt"), slow_id, sizeof slow_id);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "cancel", slow_id, NULL}, NULL), 0);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "watch", slow_id, "--quiet", NULL}, NULL), 4);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "delete", slow_id, NULL}, NULL), 0);
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "status", slow_id, NULL}, NULL, err,
                           sizeof err), 3);
    CHECK(strstr(err, "404") != NULL);

    /* upload; an invalid spec exits 2 with its pointers */
    snprintf(path, sizeof path, "%s/../tests/data/ratings_small.dat", getenv("IRCG_BUILD_DIR"));
    CHECK_INT(tcli_run((char *[]){(char *)bin, "upload", path, NULL}, tcli_tmp("ds.txt")), 0);
    first_line(tcli_tmp("ds.txt"), line, sizeof line);
    CHECK_INT(strlen(line), 64);
    REQUIRE(tcli_write(tcli_tmp("bad.json"), "{\"problem\":{\"type\":\"least_squares\","
                                            "\"domain\":{\"radius\":-1}}}") == 0);
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "submit", tcli_tmp("bad.json"), NULL}, NULL,
                           err, sizeof err), 2);
    CHECK(strstr(err, "/problem/domain/radius") && strstr(err, "/problem/data"));
    unsetenv("IRCG_SERVER");
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(cli_remote, tokens)
{
    NEED_CLI();
    hu_daemon d = {0};
    char err[2048];
    snprintf(d.tokens_file, sizeof d.tokens_file, "%s/cli_tokens.txt", th_tmpdir());
    REQUIRE(hu_write_tokens(d.tokens_file, (const char *[]){"cli-read-token-00001", "read",
                                                            NULL}) == 0);
    REQUIRE(hu_start(&d, "cli_remote_tokens", 1) == 0);
    char *jobs[] = {(char *)bin, "jobs", "--server", d.base, NULL};
    CHECK_INT(tcli_run_err(jobs, NULL, err, sizeof err), 3);
    CHECK(strstr(err, "401") && strstr(err, "--token"));
    setenv("IRCG_TOKEN", "cli-read-token-00001", 1);
    CHECK_INT(tcli_run(jobs, NULL), 0);
    /* read cannot submit: 403 says which scope it needs */
    REQUIRE(tcli_write(tcli_tmp("tok.json"), "{}") == 0);
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "submit", tcli_tmp("tok.json"), "--server",
                                      d.base, NULL}, NULL, err, sizeof err), 3);
    CHECK(strstr(err, "403") && strstr(err, "submit"));
    unsetenv("IRCG_TOKEN");
    CHECK_INT(tcli_run((char *[]){(char *)bin, "jobs", "--server", d.base, "--token",
                                  "cli-read-token-00001", NULL}, NULL), 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
