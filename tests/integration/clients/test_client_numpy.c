/*
 * test_client_numpy.c -- runs tests/integration/clients/test_client_numpy.py
 * (the Python client with NumPy, SciPy, pandas, tqdm and scikit-learn:
 * uploads in every format, exact to the bit; malformed ones refused with
 * nothing kept; problems from arrays solved in one call; the estimators
 * under check_estimator; the client with those libraries blocked) against
 * a daemon started here.  The interpreter is Debian's /usr/bin/python3,
 * whose packages `make deps` installs (python3-numpy, python3-scipy,
 * python3-pandas, python3-sklearn, python3-tqdm); without them the test
 * skips, saying so (a skip tests/skips.allowed does not allow: CI runs
 * make deps).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "common/http_util.h"

#define SCRIPT "tests/integration/clients/test_client_numpy.py"
#define MODULES "numpy, scipy, pandas, sklearn, tqdm"

/* Debian's interpreter (the packages are its), else python3 on PATH. */
static const char *python(void)
{
    return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

static void show(const char *log)
{
    char line[1200];
    FILE *f = fopen(log, "r");
    while (f && fgets(line, sizeof line, f))
        printf("    py: %s", line);
    if (f)
        fclose(f);
}

TEST(client_numpy, python_suite)
{
    hu_daemon d = {0};
    char script[1024], log[700], cmd[3000];
    snprintf(cmd, sizeof cmd, "%s -c 'import %s' >/dev/null 2>&1", python(), MODULES);
    if (system(cmd) != 0) /* as the browser's tests without chromium: CI refuses it */
        SKIP("%s cannot import %s (make deps installs python3-numpy, python3-scipy, "
             "python3-pandas, python3-sklearn and python3-tqdm)", python(), MODULES);
    REQUIRE(hu_repo_file(SCRIPT, script, sizeof script) == 0);
    REQUIRE(hu_start(&d, "client_numpy", 2) == 0);
    snprintf(log, sizeof log, "%s/client_numpy.log", th_tmpdir());
    snprintf(cmd, sizeof cmd,
             "IRCG_TEST_URL='%s' IRCG_TEST_DATA_DIR='%s' '%s' '%s' >'%s' 2>&1", d.base, d.data,
             python(), script, log);
    int rc = system(cmd);
    int ok = rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
    char *text = hu_read_file(log);
    /* every test ran: unittest's last line is a bare OK, none skipped */
    ok = ok && text && strstr(text, "\nOK\n") && !strstr(text, "skipped");
    show(log);
    if (!ok)
        th_fail(__FILE__, __LINE__, "%s %s: status %d, a test failed or was skipped", python(),
                SCRIPT, rc);
    free(text);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
