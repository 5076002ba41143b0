/*
 * test_standalone.c -- the repository stands alone: tests/tools/standalone.py
 * finds no file that sends a reader outside it (a folder beside the
 * checkout, notes or a design file kept elsewhere, the paper's LaTeX
 * source or its labels, a path of one machine).  The checker is also run on
 * a small tree written here with one reference of each kind (a Markdown
 * link to a file it lacks among them), and one file
 * that only looks like them, so that it is known to find each and only
 * them.  The strings are cut in two ("../sha" "red") so that this file does
 * not hold what it plants.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define CHECKER "tests/tools/standalone.py"

static int run_checker(const char *root, char *out, size_t cap)
{
    char args[600];
    snprintf(args, sizeof args, "--root '%s'", root);
    return th_run_python(CHECKER, args, out, cap);
}

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

TEST(standalone, no_file_refers_outside_the_repository)
{
    static char out[1 << 16];
    if (!th_have_python(CHECKER))
        SKIP("python3 or " CHECKER " is missing (run from the repository root)");
    int rc = run_checker(".", out, sizeof out);
    if (rc != 0)
        printf("%s", out);
    CHECK_INT(rc, 0);
    CHECK(strstr(out, ", 0 references outside the repository") != NULL);
}

TEST(standalone, a_reference_outside_is_found)
{
    char root[512], out[8192];
    if (!th_have_python(CHECKER))
        SKIP("python3 or " CHECKER " is missing (run from the repository root)");
    snprintf(root, sizeof root, "%s/standalone", th_tmpdir());
    write_file(root, "Makefile", "DATA_DIR ?= ../sha" "red/data\n");
    write_file(root, "src/a.c", "/* see notes/algo" "rithms.md section 1 */\n");
    write_file(root, "src/b.c", "/* the table of DES" "IGN.md */\n");
    write_file(root, "src/c.c", "/* appendix, subsec" ":SNNB */\n");
    write_file(root, "README.md", "the paper, projection-free-bi" "level.te" "x\n");
    write_file(root, "tests/t.c", "/* counts of data/SOUR" "CES.md */\n");
    write_file(root, "deploy/x.sh", "cd /wo" "rk/main\n");
    write_file(root, "docs/link.md", "[the notes](../../notes.md)\n");
    /* what only looks like them: a cluster's shared mount, the design file
     * where it is, a time "12:30", a path under another root */
    write_file(root, "docs/ok.md",
               "--data-dir /shared/ircg/data; see docs/DES" "IGN.md; at 12:30;\n"
               "served from /srv/work/ircg; eq. (3) of the paper; [this](ok.md#top),\n"
               "[the paper](https://arxiv.org/abs/2311.09738)\n");
    REQUIRE(run_checker(root, out, sizeof out) == 1);
    CHECK(strstr(out, "Makefile:1: a folder beside the repository"));
    CHECK(strstr(out, "src/a.c:1: research notes kept outside the repository"));
    CHECK(strstr(out, "src/b.c:1: a design file other than docs/"));
    CHECK(strstr(out, "src/c.c:1: a label of the paper's LaTeX source"));
    CHECK(strstr(out, "README.md:1: the paper's LaTeX source"));
    CHECK(strstr(out, "tests/t.c:1: the data sources file"));
    CHECK(strstr(out, "deploy/x.sh:1: a path of one machine"));
    CHECK(strstr(out, "docs/link.md:1: a link to a file the repository does not have"));
    CHECK(strstr(out, "docs/ok.md") == NULL);
    if (strstr(out, "docs/ok.md"))
        printf("%s", out);
}
