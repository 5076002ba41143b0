/*
 * test_http_config.c -- ircgd's configuration as an operator meets it:
 * --help documents every flag with its environment variable, bad values
 * are refused (exit 2), names are resolved in --listen, the HTTP limits
 * (connections, per address, idle timeout, body size) are applied from
 * flags and from the environment, and the workers' threads stay within
 * the cores unless configured.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <arpa/inet.h>
#include <sched.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "common/http_util.h"

static const char *bin(void)
{
    static char path[700];
    const char *bd = getenv("IRCG_BUILD_DIR");
    snprintf(path, sizeof path, "%s/bin/ircgd", bd ? bd : "build");
    return path;
}

/* Exit status of `env ircgd args` (output discarded), -1 if it did not exit. */
static int run_status(const char *env, const char *args)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "env %s '%s' %s >/dev/null 2>&1", env ? env : "", bin(), args);
    int st = system(cmd);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* One row of the operators' table in deploy/README.md ("| `--flag ARG` |
 * `IRCGD_VAR` | default | meaning |"): its flag and variable; 0 for any
 * other line. */
static int readme_option(const char *line, char *flag, size_t flen, char *var, size_t vlen)
{
    char f[80] = "", v[80] = "";
    if (sscanf(line, "| `%79[^` ]", f) != 1 || strncmp(f, "--", 2) != 0)
        return 0;
    const char *bar = strchr(line + 1, '|');
    if (!bar || sscanf(bar, "| `%79[^`]`", v) != 1)
        v[0] = '\0';
    snprintf(flag, flen, "%s", f);
    snprintf(var, vlen, "%s", v);
    return 1;
}

/* --help comes from the daemon's table of options; the operators' table
 * (deploy/README.md) lists the same options with the same variables, and
 * --help names each with its variable. */
TEST(http_config, help_and_bad_values)
{
    char cmd[800], help[16384], line[1024], flag[80], var[80], want[200];
    snprintf(cmd, sizeof cmd, "'%s' --help", bin());
    FILE *p = popen(cmd, "r");
    REQUIRE(p);
    size_t n = fread(help, 1, sizeof help - 1, p);
    help[n] = '\0';
    CHECK_INT(WEXITSTATUS(pclose(p)), 0);
    REQUIRE(n < sizeof help - 1);
    CHECK(strstr(help, "exit status") != NULL);
    FILE *md = fopen("deploy/README.md", "r");
    REQUIRE(md);
    int rows = 0, flags = 0;
    while (fgets(line, sizeof line, md))
        if (readme_option(line, flag, sizeof flag, var, sizeof var)) {
            rows++;
            snprintf(want, sizeof want, "  %s ", flag);
            if (!strstr(help, want) &&
                !strstr(help, (snprintf(want, sizeof want, "  %s\n", flag), want)))
                th_fail(__FILE__, __LINE__, "--help does not list %s", flag);
            snprintf(want, sizeof want, "[%s", var);
            if (var[0] && !strstr(help, want))
                th_fail(__FILE__, __LINE__, "--help does not name %s for %s", var, flag);
        }
    fclose(md);
    /* and every flag of --help is a row there (--help and --version aside) */
    for (const char *s = help; (s = strstr(s, "\n  --")) != NULL; s += 5, flags++) {
        size_t len = strcspn(s + 3, " \n");
        snprintf(flag, sizeof flag, "| `%.*s", (int)len, s + 3);
        md = fopen("deploy/README.md", "r");
        int found = 0;
        while (md && !found && fgets(line, sizeof line, md))
            found = !strncmp(line, flag, strlen(flag)) &&
                    (line[strlen(flag)] == ' ' || line[strlen(flag)] == '`');
        if (md)
            fclose(md);
        if (!found && strcmp(flag, "| `--help") != 0 && strcmp(flag, "| `--version") != 0)
            th_fail(__FILE__, __LINE__, "%s of --help is not in deploy/README.md", flag + 3);
    }
    printf("    %d options in deploy/README.md, %d flags in --help\n", rows, flags);
    CHECK_INT(rows, flags - 2);

    /* usage errors, from flags and from the environment: status 2 */
    CHECK_INT(run_status(NULL, "--conn-limit 0"), 2);
    CHECK_INT(run_status(NULL, "--per-ip-limit -1"), 2);
    CHECK_INT(run_status(NULL, "--conn-timeout abc"), 2);
    CHECK_INT(run_status(NULL, "--conn-timeout=0"), 2);
    CHECK_INT(run_status(NULL, "--heartbeat-every 0"), 2);
    CHECK_INT(run_status(NULL, "--checkpoint-every -1"), 2);
    CHECK_INT(run_status(NULL, "--checkpoint-every nan"), 2);
    CHECK_INT(run_status(NULL, "--listen 8080"), 2);
    CHECK_INT(run_status(NULL, "--job-threads 65"), 2);
    CHECK_INT(run_status(NULL, "--job-threads -1"), 2);
    CHECK_INT(run_status("IRCGD_JOB_THREADS=x", "--version"), 2);
    CHECK_INT(run_status("IRCGD_CONN_LIMIT=0", "--version"), 2);
    CHECK_INT(run_status("IRCGD_CONN_TIMEOUT=1e3", "--version"), 2);
    CHECK_INT(run_status("IRCGD_CONN_LIMIT=5", "--version"), 0);
    /* an invalid variable is an error even where a flag would override it */
    CHECK_INT(run_status("IRCGD_CONN_LIMIT=0", "--conn-limit 5 --version"), 2);
}

TEST(http_config, listen_on_a_name)
{
    hu_daemon d = {0};
    hu_resp r;
    char args[200];
    snprintf(d.extra, sizeof d.extra, "--listen localhost:0");
    REQUIRE(hu_start(&d, "http_localhost", 1) == 0);
    /* bound to a loopback address localhost resolves to */
    CHECK(strstr(d.base, "http://127.0.0.1:") == d.base || strstr(d.base, "http://[::1]:") == d.base);
    CHECK_INT(hu_get(&d, "/healthz", &r), 200);
    hu_resp_free(&r);
    snprintf(args, sizeof args, "--healthcheck --listen localhost:%d", d.port);
    CHECK_INT(run_status(NULL, args), 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK_INT(run_status(NULL, args), 1); /* nobody listens now */

    /* a name that does not resolve: refused at start (status 1) */
    hu_daemon bad = {0};
    REQUIRE(hu_start(&bad, "http_badname", 1) == 0);
    CHECK_INT(hu_stop(&bad, SIGTERM), 0);
    snprintf(bad.extra, sizeof bad.extra, "--listen no-such-host.invalid:0");
    CHECK_INT(hu_start_refused(&bad), 1);
    char *log = hu_read_file(bad.log);
    CHECK(log && strstr(log, "cannot resolve \"no-such-host.invalid\"") != NULL);
    free(log);
}

/* Polls GET /healthz until it is refused (want_refused) or answered;
 * 1 when that happened within 10 s.  The daemon accepts connections
 * asynchronously, hence the polling. */
static int healthz_becomes(const hu_daemon *d, int want_refused)
{
    for (double end = hu_now() + 10; hu_now() < end; hu_sleep_ms(50)) {
        hu_resp r;
        int ok = hu_req(d, "GET", "/healthz", NULL, NULL, 0, NULL, &r) == 0 && r.status == 200;
        hu_resp_free(&r);
        if (ok != want_refused)
            return 1;
    }
    return 0;
}

TEST(http_config, connection_limits)
{
    hu_daemon d = {0};
    int a, b;
    /* The idle sockets come first: a request's connection is released a
     * moment after its response, and would race with them for the slot. */
    snprintf(d.extra, sizeof d.extra, "--per-ip-limit 1");
    REQUIRE(hu_start(&d, "http_per_ip", 1) == 0);
    REQUIRE((a = hu_connect(d.port)) >= 0);
    CHECK(healthz_becomes(&d, 1)); /* the one connection this address may have */
    close(a);
    CHECK(healthz_becomes(&d, 0));
    CHECK_INT(hu_stop(&d, SIGTERM), 0);

    hu_daemon e = {0};
    snprintf(e.extra, sizeof e.extra, "--conn-limit 2 --per-ip-limit 0");
    REQUIRE(hu_start(&e, "http_conn_limit", 1) == 0);
    REQUIRE((a = hu_connect(e.port)) >= 0);
    REQUIRE((b = hu_connect(e.port)) >= 0);
    CHECK(healthz_becomes(&e, 1));
    close(a);
    close(b);
    CHECK(healthz_becomes(&e, 0));
    CHECK_INT(hu_stop(&e, SIGTERM), 0);
}

TEST(http_config, idle_connections_time_out)
{
    hu_daemon d = {0};
    char c;
    int fd;
    snprintf(d.extra, sizeof d.extra, "--conn-timeout 1");
    REQUIRE(hu_start(&d, "http_conn_timeout", 1) == 0);
    REQUIRE((fd = hu_connect(d.port)) >= 0);
    /* closed by the daemon (end of file) long before the default 60 s */
    struct pollfd p = {fd, POLLIN, 0};
    CHECK(poll(&p, 1, 20000) == 1);
    CHECK(read(fd, &c, 1) == 0);
    close(fd);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_config, body_limit_from_the_environment)
{
    hu_daemon d = {0}, e = {0};
    hu_resp r;
    char *spec = hu_ls_spec(5, 8, 1, 10, 10, 0, NULL); /* ~300 bytes */
    REQUIRE(spec && strlen(spec) > 200);
    setenv("IRCGD_MAX_BODY", "200", 1);
    int started = hu_start(&d, "http_env_body", 1) == 0;
    snprintf(e.extra, sizeof e.extra, "--max-body 100000"); /* the flag wins */
    int started_e = hu_start(&e, "http_env_body_flag", 1) == 0;
    unsetenv("IRCGD_MAX_BODY");
    REQUIRE(started && started_e);
    hu_req(&d, "POST", "/v1/jobs?dry_run=true", "application/json", spec, strlen(spec), NULL, &r);
    CHECK_INT(r.status, 413);
    hu_resp_free(&r);
    hu_req(&e, "POST", "/v1/jobs?dry_run=true", "application/json", spec, strlen(spec), NULL, &r);
    CHECK_INT(r.status, 200);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK_INT(hu_stop(&e, SIGTERM), 0);
    free(spec);
}

/* The threads a finished job's result reports. */
static int job_threads(const hu_daemon *d, int requested)
{
    char id[64], state[32], tail[2048];
    int threads = -1;
    char *spec = hu_mc_spec(300, 200, 6000, 3, 0, NULL);
    if (!spec)
        return -1;
    /* hu_mc_spec's algorithm object ends the spec: add threads to it */
    char *alg = strstr(spec, "\"max_iter\"");
    if (alg) {
        snprintf(tail, sizeof tail, "%s", alg);
        snprintf(alg, 2048 - (size_t)(alg - spec), "\"threads\":%d,%s", requested, tail);
    }
    if (hu_submit(d, spec, id, sizeof id) == 202 && hu_wait_terminal(d, id, 60, state) == 0) {
        cJSON *res = hu_result(d, id);
        cJSON *t = cJSON_GetObjectItemCaseSensitive(res, "threads");
        threads = cJSON_IsNumber(t) ? t->valueint : -1;
        cJSON_Delete(res);
    }
    free(spec);
    return threads;
}

TEST(http_config, workers_times_threads_stay_within_the_cores)
{
    cpu_set_t set;
    hu_daemon d = {0};
    hu_resp r;
    int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    int cap = cores / 2 > 1 ? cores / 2 : 1;

    /* automatic: 2 workers share the cores */
    REQUIRE(hu_start(&d, "http_threads", 2) == 0);
    CHECK_INT(job_threads(&d, 64), cap);
    CHECK_INT(job_threads(&d, 1), 1);
    CHECK_INT(hu_get(&d, "/v1/version", &r), 200);
    cJSON *v = hu_json(&r);
    CHECK_INT(cJSON_GetObjectItemCaseSensitive(v, "job_threads")->valueint, cap);
    CHECK_INT(cJSON_GetObjectItemCaseSensitive(v, "cores")->valueint, cores);
    cJSON_Delete(v);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    /* configured: the operator may give a job more (or fewer) threads */
    snprintf(d.extra, sizeof d.extra, "--job-threads 3");
    REQUIRE(hu_restart(&d) == 0);
    CHECK_INT(job_threads(&d, 64), 3);
    CHECK_INT(job_threads(&d, 2), 2);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
