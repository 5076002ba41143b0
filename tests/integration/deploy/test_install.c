/*
 * test_install.c -- `make install` staged with DESTDIR: the shared
 * libraries with their versioned sonames, the headers and the pkg-config
 * files, then the C example (clients/c/example/least_norm.c) built the
 * way a user builds it,
 *
 *   cc least_norm.c $(pkg-config --cflags --libs ircg-client)
 *
 * against the staged tree (PKG_CONFIG_SYSROOT_DIR), and run against a
 * real daemon.
 */
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "common/http_util.h"

/* Runs a shell command with its output into log; 0 on exit status 0. */
static int sh(const char *cmd, const char *log)
{
    char full[9000];
    snprintf(full, sizeof full, "( %s ) >'%s' 2>&1", cmd, log);
    return system(full) == 0 ? 0 : -1;
}

static void show(const char *log)
{
    char *text = hu_read_file(log);
    if (text)
        printf("    %s\n", text);
    free(text);
}

/* The build directory's parent (the repository) and its own name. */
static int repo_and_build(char *repo, size_t rcap, char *build, size_t bcap)
{
    const char *bd = getenv("IRCG_BUILD_DIR");
    char a[PATH_MAX], b[PATH_MAX];
    if (!bd || !realpath(bd, a))
        return -1;
    snprintf(b, sizeof b, "%s", a);
    snprintf(repo, rcap, "%s", dirname(a));
    snprintf(build, bcap, "%s", basename(b));
    return 0;
}

TEST(install, staged_libraries_pkg_config_and_the_c_example)
{
    char repo[PATH_MAX], build[256], stage[600], log[700], cmd[8000], pc[700];
    struct stat st;
    hu_daemon d = {0};
    if (system("command -v pkg-config >/dev/null 2>&1") != 0)
        SKIP("pkg-config not found (make deps installs it)");
    REQUIRE(repo_and_build(repo, sizeof repo, build, sizeof build) == 0);
    snprintf(stage, sizeof stage, "%s/stage", th_tmpdir());
    snprintf(log, sizeof log, "%s/install.log", th_tmpdir());
    /* the suite's own make must not hand its jobserver to this one */
    snprintf(cmd, sizeof cmd, "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C '%s' "
             "install BUILD='%s' DESTDIR='%s' PREFIX=/usr", repo, build, stage);
    if (sh(cmd, log) != 0) {
        show(log);
        th_fail(__FILE__, __LINE__, "make install DESTDIR=%s failed", stage);
        return;
    }
    static const char *const files[] = {
        "/usr/lib/libircgclient.so.0.1.0", "/usr/lib/libircgclient.so.0",
        "/usr/lib/libircgclient.so", "/usr/lib/libircg.so.0", "/usr/include/ircg_client.h",
        "/usr/include/ircg.h", "/usr/include/ircg/solver.h", "/usr/lib/pkgconfig/ircg-client.pc",
        "/usr/lib/pkgconfig/ircg.pc", "/usr/bin/ircgd", "/usr/bin/ircg"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p[800];
        snprintf(p, sizeof p, "%s%s", stage, files[i]);
        if (stat(p, &st) != 0)
            th_fail(__FILE__, __LINE__, "%s was not installed", files[i]);
    }
    /* the soname a program records is the versioned one */
    snprintf(cmd, sizeof cmd, "readelf -d '%s/usr/lib/libircgclient.so.0.1.0' | "
             "grep -q 'Library soname: \\[libircgclient.so.0\\]'", stage);
    CHECK(sh(cmd, log) == 0);

    snprintf(pc, sizeof pc, "%s/usr/lib/pkgconfig", stage);
    setenv("PKG_CONFIG_SYSROOT_DIR", stage, 1);
    setenv("PKG_CONFIG_PATH", pc, 1);
    char *san = getenv("IRCG_SAN");
    snprintf(cmd, sizeof cmd, "cd '%s' && cc -std=c11 -Wall -Wextra -Werror %s "
             "'%s/clients/c/example/least_norm.c' $(pkg-config --cflags --libs ircg-client) "
             "-o least_norm && readelf -d least_norm | grep -q 'NEEDED.*libircgclient.so.0'",
             th_tmpdir(), san ? san : "", repo);
    int built = sh(cmd, log);
    /* the library's header (its parts in include/ircg/) and pkg-config file:
     * sigma_0 = varsigma exactly, sigma_3 = varsigma / 2 for p = 1/2 */
    if (built == 0) {
        snprintf(cmd, sizeof cmd, "cd '%s' && printf '%%s\\n' '#include <ircg.h>' "
                 "'int main(void) { return !(ircg_sigma(0.05, 0.5, 0) == 0.05 && "
                 "ircg_sigma(0.05, 0.5, 3) == 0.025); }' > sigma.c && "
                 "cc -std=c11 -Wall -Wextra -Werror %s sigma.c $(pkg-config --cflags --libs ircg) "
                 "-o sigma && LD_LIBRARY_PATH='%s/usr/lib' ./sigma",
                 th_tmpdir(), san ? san : "", stage);
        built = sh(cmd, log);
    }
    unsetenv("PKG_CONFIG_SYSROOT_DIR");
    unsetenv("PKG_CONFIG_PATH");
    if (built != 0) {
        show(log);
        th_fail(__FILE__, __LINE__, "the example or a libircg program did not build (or run) against the staged install");
        return;
    }
    REQUIRE(hu_start(&d, "install_example", 1) == 0);
    snprintf(log, sizeof log, "%s/example.log", th_tmpdir());
    char bin[PATH_MAX];
    snprintf(bin, sizeof bin, "%s/bin", getenv("IRCG_BUILD_DIR"));
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s/ircg' example least-norm | "
             "LD_LIBRARY_PATH='%s/usr/lib' IRCG_URL='%s' ./least_norm && test -s trace.csv && "
             "test -s result.json", th_tmpdir(), bin, stage, d.base);
    int rc = sh(cmd, log);
    char *out = hu_read_file(log);
    if (rc != 0 || !out || !strstr(out, "succeeded after 2000 iterations (max_iter)")) {
        show(log);
        th_fail(__FILE__, __LINE__, "the installed example did not run to its end");
    }
    free(out);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
