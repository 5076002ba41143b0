/*
 * test_client_py.c -- runs tests/integration/test_client.py (the Python
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

#include "../harness.h"
#include "http_util.h"

#define SCRIPT "tests/integration/test_client.py"

/* The script from the source tree: the working directory (make test runs
 * from the repository root), else beside the build directory. */
static int find_script(char *path, size_t cap)
{
    struct stat st;
    const char *bd = getenv("IRCG_BUILD_DIR");
    snprintf(path, cap, "%s", SCRIPT);
    if (stat(path, &st) == 0)
        return 0;
    if (bd) {
        snprintf(path, cap, "%s/../%s", bd, SCRIPT);
        if (stat(path, &st) == 0)
            return 0;
    }
    return -1;
}

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

TEST(client_py, unittest_suite)
{
    hu_daemon plain = {0}, tok = {0};
    char script[1024], log[700], cmd[2400], url[3][96];
    if (system("python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' "
               ">/dev/null 2>&1") != 0)
        SKIP("python3 >= 3.9 not found: the Python client is not tested");
    if (find_script(script, sizeof script) != 0) {
        th_fail(__FILE__, __LINE__, "%s not found (run from the repository root)", SCRIPT);
        return;
    }
    snprintf(tok.tokens_file, sizeof tok.tokens_file, "%s/py_tokens.txt", th_tmpdir());
    REQUIRE(hu_write_tokens(tok.tokens_file, (const char *[]){"py-token-00000001", "admin",
                                                               "py-token-00000002", "admin",
                                                               NULL}) == 0);
    snprintf(plain.extra, sizeof plain.extra, "--snapshot-keep-finished 3");
    REQUIRE(hu_start(&plain, "client_py", 2) == 0);
    if (hu_start(&tok, "client_py_tokens", 1) != 0) {
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
    snprintf(log, sizeof log, "%s/client_py.log", th_tmpdir());
    snprintf(cmd, sizeof cmd, "python3 '%s' >'%s' 2>&1", script, log);
    int rc = system(cmd);
    int ok = rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
    if (!show(log, 0) || !ok) {
        show(log, 1);
        th_fail(__FILE__, __LINE__, "python3 %s: status %d, or a test was skipped", SCRIPT, rc);
    }
    unsetenv("IRCG_TEST_URL");
    unsetenv("IRCG_TEST_TOKEN_URL");
    unsetenv("IRCG_TEST_TOKEN");
    unsetenv("IRCG_TEST_DEAD_URL");
    CHECK_INT(hu_stop(&plain, SIGTERM), 0);
    CHECK_INT(hu_stop(&tok, SIGTERM), 0);
}
