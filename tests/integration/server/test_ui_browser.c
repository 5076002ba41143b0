/*
 * test_ui_browser.c -- the dashboard in a real browser, and the OpenAPI
 * document through Redocly's linter.
 *
 * ui.browser runs tests/browser/ui_test.mjs (node, driving Debian's
 * headless chromium over the DevTools protocol) against a daemon started
 * here: it submits a job through the form and sees its plot gain points,
 * cancels a second one, compares them, and fails on any console error or
 * failed request.  Skipped, saying why, without node or chromium (`make
 * deps` installs both).  ui.openapi_lint runs Redocly CLI when `make
 * deps-node` installed it (.ci/run always does).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "common/http_util.h"

static int have_command(const char *name)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return system(cmd) == 0;
}

/* Runs cmd with its output into log; the exit status, or -1. */
static int run_logged(const char *cmd, const char *log)
{
    char full[4096];
    snprintf(full, sizeof full, "%s >'%s' 2>&1", cmd, log);
    int rc = system(full);
    return rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void show_log(const char *log)
{
    char line[1024];
    FILE *f = fopen(log, "r");
    while (f && fgets(line, sizeof line, f))
        printf("    %s", line);
    if (f)
        fclose(f);
}

/* Debian's chromium (or its headless shell; IRCG_CHROMIUM overrides), or
 * NULL. */
static const char *chromium(void)
{
    struct stat st;
    const char *env = getenv("IRCG_CHROMIUM");
    if (env && stat(env, &st) == 0)
        return env;
    if (stat("/usr/bin/chromium", &st) == 0)
        return "/usr/bin/chromium";
    if (stat("/usr/bin/chromium-headless-shell", &st) == 0)
        return "/usr/bin/chromium-headless-shell";
    return NULL;
}

/* Runs tests/browser/<script> against d with args; 0 passed, 77 skipped,
 * else failed (its output shown). */
static int run_browser(const hu_daemon *d, const char *script, const char *args)
{
    char path[1024], rel[128], log[700], cmd[2600];
    snprintf(rel, sizeof rel, "tests/browser/%s", script);
    if (hu_repo_file(rel, path, sizeof path) != 0)
        return -1;
    snprintf(log, sizeof log, "%s/%s.log", th_tmpdir(), script);
    snprintf(cmd, sizeof cmd, "IRCG_CHROMIUM='%s' timeout 180 node '%s' '%s' %s", chromium(),
             path, d->base, args);
    int rc = run_logged(cmd, log);
    show_log(log);
    return rc;
}

#define NEED_BROWSER()                                                                      \
    do {                                                                                    \
        if (!have_command("node"))                                                          \
            SKIP("node not found: the dashboard is not tested in a browser (make deps "     \
                 "installs nodejs)");                                                       \
        if (!chromium())                                                                    \
            SKIP("chromium not found: the dashboard is not tested in a browser (make deps " \
                 "installs it)");                                                           \
    } while (0)

/* A daemon (with tokens when tokens is not NULL: {token, scope, ...}),
 * and tests/browser/<script> against it. */
static void browser_test(const char *script, const char *const *tokens, const char *args)
{
    hu_daemon d = {0};
    if (tokens) {
        snprintf(d.tokens_file, sizeof d.tokens_file, "%s/%s.tokens", th_tmpdir(), script);
        REQUIRE(hu_write_tokens(d.tokens_file, tokens) == 0);
    }
    REQUIRE(hu_start(&d, script, 2) == 0);
    int rc = run_browser(&d, script, args);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    if (rc == 77)
        SKIP("the browser test found no chromium");
    if (rc != 0)
        th_fail(__FILE__, __LINE__, "tests/browser/%s: exit status %d", script, rc);
}

TEST(ui, browser)
{
    NEED_BROWSER();
    browser_test("ui_test.mjs", NULL, "");
}

TEST(ui, browser_with_tokens)
{
    NEED_BROWSER();
    browser_test("ui_auth_test.mjs",
                 (const char *[]){"ui-read-token-000001", "read", "ui-submit-token-00001",
                                  "submit", NULL},
                 "ui-read-token-000001 ui-submit-token-00001");
}

TEST(ui, openapi_lint)
{
    char redocly[1024], doc[1024], config[1024], log[700], cmd[3300];
    if (hu_repo_file("tests/node/node_modules/.bin/redocly", redocly, sizeof redocly) != 0)
        SKIP("Redocly CLI not installed (make deps-node): api/openapi.json is not linted");
    REQUIRE(hu_repo_file("api/openapi.json", doc, sizeof doc) == 0);
    REQUIRE(hu_repo_file("api/redocly.yaml", config, sizeof config) == 0);
    snprintf(log, sizeof log, "%s/redocly.log", th_tmpdir());
    snprintf(cmd, sizeof cmd, "REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true "
             "'%s' lint --config '%s' '%s'", redocly, config, doc);
    int rc = run_logged(cmd, log);
    char *out = hu_read_file(log);
    /* lint-clean: valid, and not one warning */
    int clean = rc == 0 && out && strstr(out, "Your API description is valid") &&
                !strstr(out, "warning");
    if (!clean) {
        show_log(log);
        th_fail(__FILE__, __LINE__, "redocly lint: exit status %d, or warnings", rc);
    }
    free(out);
}
