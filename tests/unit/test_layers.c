/*
 * test_layers.c -- the layers and rooms of docs/DESIGN.md (the solver's
 * also in solver/README.md), checked on the sources by tests/tools/layers.py: no
 * file includes across a forbidden boundary.  The checker is also run on a
 * small tree written here with two violations, so that it is known to find
 * them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"

#define CHECKER "tests/tools/layers.py"

/* Exit status of the checker on root, its output in out (may be cut). */
static int run_checker(const char *root, char *out, size_t cap)
{
    char args[600];
    snprintf(args, sizeof args, "--root '%s'", root);
    return th_run_python(CHECKER, args, out, cap);
}

static int have_checker(void) { return th_have_python(CHECKER); }

static void write_file(const char *root, const char *rel, const char *text)
{
    char path[1024], cmd[1200];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    if (system(cmd) != 0)
        return;
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

TEST(layers, the_sources_respect_the_layers)
{
    char out[8192];
    if (!have_checker())
        SKIP("python3 or " CHECKER " is missing (run from the repository root)");
    int rc = run_checker(".", out, sizeof out);
    if (rc != 0)
        printf("%s", out);
    CHECK_INT(rc, 0);
    CHECK(strstr(out, " 0 across a forbidden boundary") != NULL);
}

TEST(layers, a_forbidden_include_is_found)
{
    char root[512], out[8192];
    if (!have_checker())
        SKIP("python3 or " CHECKER " is missing (run from the repository root)");
    snprintf(root, sizeof root, "%s/layers", th_tmpdir());
    write_file(root, "server/server.h", "int s;\n");
    write_file(root, "storage/store.c", "#include \"../server/server.h\"\n");
    write_file(root, "solver/src/baselines/cgbio/cut.h", "int c;\n");
    write_file(root, "solver/src/problems/mc/ops.c",
               "#include \"baselines/cgbio/cut.h\"\n");
    write_file(root, "solver/src/core/oracle.h", "int o;\n");
    write_file(root, "solver/src/problems/mc/ok.c", "#include \"core/oracle.h\"\n");
    REQUIRE(run_checker(root, out, sizeof out) == 1);
    CHECK(strstr(out, "storage/store.c:1: storage may not include server/server.h"));
    CHECK(strstr(out, "solver/src/problems/mc/ops.c:1: solver/src/problems may not "
                      "include solver/src/baselines/cgbio/cut.h"));
    CHECK(strstr(out, "ok.c") == NULL);
    CHECK(strstr(out, "3 includes checked, 2 across a forbidden boundary"));
}
