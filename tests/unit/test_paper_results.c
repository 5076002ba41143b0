/*
 * test_paper_results.c -- the template of tests/paper/RESULTS.md checked by
 * tests/paper/results.py --check-template: no number typed by hand in its
 * prose, markers opened and closed, one time-to-accuracy section (what a
 * two-hour `make paper` would otherwise refuse only at its end).  The
 * checker also runs on a template written here with each defect, so that
 * it is known to find them.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../harness.h"

#define RESULTS_PY "tests/paper/results.py"
#define TEMPLATE "tests/paper/RESULTS.in.md"

/* Exit status of the check of path, its messages in out (may be cut). */
static int check_template(const char *path, char *out, size_t cap)
{
    char args[600];
    snprintf(args, sizeof args, "--check-template '%s'", path);
    return th_run_python(RESULTS_PY, args, out, cap);
}

static int have_checker(void)
{
    struct stat st;
    return th_have_python(RESULTS_PY) && stat(TEMPLATE, &st) == 0;
}

TEST(paper_results, the_template_is_sound)
{
    char out[8192];
    if (!have_checker())
        SKIP("python3 or " TEMPLATE " is missing (run from the repository root)");
    int rc = check_template(TEMPLATE, out, sizeof out);
    if (rc != 0)
        printf("%s", out);
    CHECK_INT(rc, 0);
}

TEST(paper_results, defects_of_a_template_are_found)
{
    char path[512], out[8192];
    if (!have_checker())
        SKIP("python3 or " TEMPLATE " is missing (run from the repository root)");
    snprintf(path, sizeof path, "%s/bad.in.md", th_tmpdir());
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs("# Table 1\n\nIR-CG took <!--v:t-->9<!--/v--> s, `budget 600` in code,\n"
          "and 42 s typed here.\n\n<!-- gen:rates -->\n\nno section\n", f);
    fclose(f);
    REQUIRE(check_template(path, out, sizeof out) == 1);
    CHECK(strstr(out, "typed by hand: and 42 s typed here.") != NULL);
    CHECK(strstr(out, "IR-CG took") == NULL); /* a marked value, code, a name */
    CHECK(strstr(out, "gen:rates is not opened and closed once") != NULL);
    CHECK(strstr(out, "not exactly one time-to-accuracy section") != NULL);
}
