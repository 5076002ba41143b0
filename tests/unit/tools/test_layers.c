/*
 * test_layers.c -- the layers and rooms of docs/DESIGN.md (the solver's
 * also in solver/README.md), checked on the sources by tests/tools/layers.py: no
 * file includes across a forbidden boundary, and no direct calls of the
 * server's objects go round a cycle of its rooms.  The checker is also run
 * on small trees written (and compiled) here with violations planted, so
 * that it is known to find them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define CHECKER "tests/tools/layers.py"

/* Exit status of the checker on root (and the object tree objects, when
 * not NULL), its output in out (may be cut). */
static int run_checker(const char *root, const char *objects, char *out, size_t cap)
{
    char args[1200];
    int n = snprintf(args, sizeof args, "--root '%s'", root);
    if (objects)
        snprintf(args + n, sizeof args - (size_t)n, " --objects '%s'", objects);
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
    const char *build = getenv("IRCG_BUILD_DIR");
    char objects[600];
    snprintf(objects, sizeof objects, "%s/obj", build ? build : "build");
    int rc = run_checker(".", objects, out, sizeof out);
    printf("%s", out);
    CHECK_INT(rc, 0);
    CHECK(strstr(out, " 0 across a forbidden boundary") != NULL);
    /* the objects were there: ircgd's rooms do call each other, one way */
    CHECK(strstr(out, " 0 in a cycle") != NULL && !strstr(out, ": 0 calls between"));
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
    REQUIRE(run_checker(root, NULL, out, sizeof out) == 1);
    CHECK(strstr(out, "storage/store.c:1: storage may not include server/server.h"));
    CHECK(strstr(out, "solver/src/problems/mc/ops.c:1: solver/src/problems may not "
                      "include solver/src/baselines/cgbio/cut.h"));
    CHECK(strstr(out, "ok.c") == NULL);
    CHECK(strstr(out, "3 includes checked, 2 across a forbidden boundary"));
}

/* In the server: a room's internal header, and another room's public
 * header a room may not use, are both refused; the public header of a
 * room below is not. */
TEST(layers, a_server_room_crossing_is_found)
{
    char root[512], out[8192];
    if (!have_checker())
        SKIP("python3 or " CHECKER " is missing (run from the repository root)");
    snprintf(root, sizeof root, "%s/layers_server", th_tmpdir());
    write_file(root, "server/base/base.h", "int b;\n");
    write_file(root, "server/jobs/jobs.h", "#include \"base/base.h\"\n");
    write_file(root, "server/jobs/job_run.h", "int r;\n");
    write_file(root, "server/mpi/mpi_job.c", "#include \"jobs/job_run.h\"\n");
    write_file(root, "server/http/http.c", "#include \"jobs/jobs.h\"\n");
    write_file(root, "server/mpi/mpi_ok.c", "#include \"jobs/jobs.h\"\n");
    REQUIRE(run_checker(root, NULL, out, sizeof out) == 1);
    CHECK(strstr(out, "server/mpi/mpi_job.c:1: server/mpi may not include "
                      "server/jobs/job_run.h"));
    CHECK(strstr(out, "server/http/http.c:1: server/http may not include "
                      "server/jobs/jobs.h"));
    CHECK(strstr(out, "mpi_ok.c") == NULL);
    CHECK(strstr(out, "4 includes checked, 2 across a forbidden boundary"));
}

/* Two rooms whose objects call each other -- jobs calls routes through
 * routes calling jobs -- form a cycle; the checker names the calls. */
TEST(layers, a_call_cycle_between_server_rooms_is_found)
{
    char root[512], cmd[2400], out[8192];
    if (!have_checker())
        SKIP("python3 or " CHECKER " is missing (run from the repository root)");
    snprintf(root, sizeof root, "%s/layers_calls", th_tmpdir());
    write_file(root, "server/jobs/run.c",
               "int route_reply(int);\nint job_step(int x) { return route_reply(x) + 1; }\n");
    write_file(root, "server/routes/reply.c",
               "int job_step(int);\nint route_reply(int x) { return x ? job_step(x - 1) : 0; }\n");
    write_file(root, "server/base/util.c", "int base_now(void) { return 1; }\n");
    write_file(root, "server/http/http.c",
               "int base_now(void);\nint http_go(void) { return base_now(); }\n");
    snprintf(cmd, sizeof cmd,
             "cd '%s' && mkdir -p obj/server/jobs obj/server/routes obj/server/base "
             "obj/server/http && for f in jobs/run routes/reply base/util http/http; do "
             "cc -c server/$f.c -o obj/server/$f.o || exit 1; done", root);
    REQUIRE(system(cmd) == 0);
    char objects[600];
    snprintf(objects, sizeof objects, "%s/obj", root);
    REQUIRE(run_checker(root, objects, out, sizeof out) == 1);
    CHECK(strstr(out, "server/jobs/run.c calls route_reply of server/routes/reply.c: "
                      "server/jobs calls server/routes, and server/routes calls back"));
    CHECK(strstr(out, "server/routes/reply.c calls job_step of server/jobs/run.c"));
    CHECK(strstr(out, "http.c calls") == NULL); /* http -> base is one way */
    CHECK(strstr(out, "3 calls between rooms of server checked, 2 in a cycle"));
}
