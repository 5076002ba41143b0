/*
 * test_client_py.c -- runs tests/integration/clients/test_client.py (the Python
 * client's unittest suite) against daemons started here: one without
 * tokens, one with, and a loopback port nobody listens on.  Skipped with a
 * message when python3 (3.9 or newer) is not available.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "common/http_util.h"

#define SCRIPT "tests/integration/clients/test_client.py"

static int dead_port(void)
{
    struct sockaddr_in a = {0};
    socklen_t n = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int port = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
                       getsockname(fd, (struct sockaddr *)&a, &n) == 0
                   ? ntohs(a.sin_port) : -1;
    if (fd >= 0)
        close(fd);
    return port;
}

/* Prints the captured output, indented (all of it when something went
 * wrong); returns 1 when unittest ended with a bare "OK": every test ran,
 * none was skipped. */
static int show(const char *log, int all)
{
    char line[1024];
    int ok = 0;
    FILE *f = fopen(log, "r");
    while (f && fgets(line, sizeof line, f)) {
        ok |= !strcmp(line, "OK\n");
        if (all || !strncmp(line, "Ran ", 4) || !strncmp(line, "OK", 2))
            printf("    py: %s", line);
    }
    if (f)
        fclose(f);
    return ok;
}

/* The suite under `python` against fresh daemons; installed: the package
 * comes from python's venv rather than the source tree. */
static void run_suite(const char *python, int installed, const char *tag)
{
    hu_daemon plain = {0}, tok = {0};
    char script[1024], log[700], cmd[2400], url[3][96], name[64];
    if (hu_repo_file(SCRIPT, script, sizeof script) != 0) {
        th_fail(__FILE__, __LINE__, "%s not found (run from the repository root)", SCRIPT);
        return;
    }
    snprintf(tok.tokens_file, sizeof tok.tokens_file, "%s/py_tokens_%s.txt", th_tmpdir(), tag);
    REQUIRE(hu_write_tokens(tok.tokens_file, (const char *[]){"py-token-00000001", "admin",
                                                               "py-token-00000002", "admin",
                                                               NULL}) == 0);
    snprintf(plain.extra, sizeof plain.extra, "--snapshot-keep-finished 3");
    snprintf(name, sizeof name, "client_py_%s", tag);
    REQUIRE(hu_start(&plain, name, 2) == 0);
    snprintf(name, sizeof name, "client_py_tokens_%s", tag);
    if (hu_start(&tok, name, 1) != 0) {
        hu_stop(&plain, SIGTERM);
        th_fail(__FILE__, __LINE__, "the daemon with tokens did not start");
        return;
    }
    int port = dead_port();
    snprintf(url[0], sizeof url[0], "%s", plain.base);
    snprintf(url[1], sizeof url[1], "%s", tok.base);
    snprintf(url[2], sizeof url[2], "http://127.0.0.1:%d", port > 0 ? port : 1);
    setenv("IRCG_TEST_URL", url[0], 1);
    setenv("IRCG_TEST_TOKEN_URL", url[1], 1);
    setenv("IRCG_TEST_TOKEN", "py-token-00000002", 1);
    setenv("IRCG_TEST_DEAD_URL", url[2], 1);
    setenv("IRCG_TEST_INSTALLED", installed ? "1" : "0", 1);
    snprintf(log, sizeof log, "%s/client_py_%s.log", th_tmpdir(), tag);
    snprintf(cmd, sizeof cmd, "'%s' '%s' >'%s' 2>&1", python, script, log);
    int rc = system(cmd);
    int ok = rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
    if (!show(log, 0) || !ok) {
        show(log, 1);
        th_fail(__FILE__, __LINE__, "%s %s: status %d, or a test was skipped", python, SCRIPT, rc);
    }
    unsetenv("IRCG_TEST_URL");
    unsetenv("IRCG_TEST_TOKEN_URL");
    unsetenv("IRCG_TEST_TOKEN");
    unsetenv("IRCG_TEST_DEAD_URL");
    unsetenv("IRCG_TEST_INSTALLED");
    CHECK_INT(hu_stop(&plain, SIGTERM), 0);
    CHECK_INT(hu_stop(&tok, SIGTERM), 0);
}

static int have_python(void)
{
    return system("python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' "
                  ">/dev/null 2>&1") == 0;
}

TEST(client_py, unittest_suite)
{
    if (!have_python())
        SKIP("python3 >= 3.9 not found: the Python client is not tested");
    run_suite("python3", 0, "src");
}

/* pip install ./clients/python in a fresh venv, offline: no index, no
 * build isolation (setuptools from the venv; before setuptools 70.1 the
 * wheel package too, from Debian's python3-wheel-whl), then the suite
 * with the venv's python.  pip builds in the tree it is given, so it is
 * given a copy: the source tree gets no build/ or *.egg-info. */
TEST(client_py, installed_in_a_venv)
{
    char venv[600], pkg[1024], cmd[5000], log[700];
    if (!have_python())
        SKIP("python3 >= 3.9 not found: the Python client is not tested");
    if (system("python3 -c 'import ensurepip, venv' >/dev/null 2>&1") != 0)
        SKIP("python3 has no venv/ensurepip (make deps installs python3-venv)");
    REQUIRE(hu_repo_file(SCRIPT, pkg, sizeof pkg) == 0);
    snprintf(pkg + strlen(pkg) - strlen(SCRIPT), sizeof pkg - (strlen(pkg) - strlen(SCRIPT)),
             "clients/python");
    snprintf(venv, sizeof venv, "%s/venv", th_tmpdir());
    snprintf(log, sizeof log, "%s/venv.log", th_tmpdir());
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/pysrc'", pkg, th_tmpdir());
    REQUIRE(system(cmd) == 0);
    snprintf(pkg, sizeof pkg, "%s/pysrc", th_tmpdir());
    snprintf(cmd, sizeof cmd,
             "{ python3 -m venv '%s' && "
             "if ! '%s/bin/python' -c 'import wheel' 2>/dev/null; then "
             "'%s/bin/pip' install -q --no-index --find-links /usr/share/python-wheels wheel "
             "|| true; fi && "
             "'%s/bin/pip' install -q --no-index --no-build-isolation '%s'; } >'%s' 2>&1",
             venv, venv, venv, venv, pkg, log);
    int rc = system(cmd);
    if (rc != 0) {
        show(log, 1);
        th_fail(__FILE__, __LINE__, "pip install --no-build-isolation %s in a venv: %d", pkg, rc);
        return;
    }
    snprintf(cmd, sizeof cmd, "%s/bin/python", venv);
    run_suite(cmd, 1, "venv");
}
