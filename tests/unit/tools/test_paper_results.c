/*
 * test_paper_results.c -- the template of tests/paper/RESULTS.md checked by
 * tests/paper/results.py --check-template: no number typed by hand in its
 * prose, markers opened and closed, one time-to-accuracy section (what a
 * two-hour `make paper` would otherwise refuse only at its end).  The
 * checker also runs on a template written here with each defect, so that
 * it is known to find them.  And the page belongs to the code: every run
 * it shows was made by the solver, the studies and the paper runner as
 * they are now (results.py --check-code: each file's blob id against the
 * manifest its provenance.json recorded), and the check finds a change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

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

/* The page as committed: no number typed by hand in its prose either
 * (an edit of RESULTS.md instead of its template would put one there). */
TEST(paper_results, the_page_has_no_number_typed_by_hand)
{
    char out[8192];
    if (!have_checker())
        SKIP("python3 or " TEMPLATE " is missing (run from the repository root)");
    int rc = check_template("tests/paper/RESULTS.md", out, sizeof out);
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

/* Exit status of results.py --check-code DIR (messages in out). */
static int check_code(const char *dir, char *out, size_t cap)
{
    char args[700];
    snprintf(args, sizeof args, "--check-code '%s'", dir);
    return th_run_python(RESULTS_PY, args, out, cap);
}

/* tests/paper/RESULTS.md's runs were made by the code there is: else the
 * page describes another program (make paper, or make tta for its
 * time-to-accuracy section, makes it again). */
TEST(paper_results, page_matches_the_code)
{
    char out[16384];
    if (!have_checker())
        SKIP("python3 or " TEMPLATE " is missing (run from the repository root)");
    int rc = check_code("tests/paper", out, sizeof out);
    if (rc != 0)
        printf("%s", out);
    CHECK_INT(rc, 0);
}

/* provenance.json with `manifest` as its code into DIR/page; 0 on success. */
static int write_provenance(const char *manifest, char *dir, size_t cap)
{
    char path[700];
    snprintf(dir, cap, "%s/page", th_tmpdir());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/provenance.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\"commit\": \"0123456789ab\", \"code\": %s}\n", manifest);
    return fclose(f);
}

/* A provenance whose manifest is the code of now passes; one with a file
 * changed, one missing and one the code does not have fails, each named. */
TEST(paper_results, a_page_of_other_code_is_found)
{
    static char out[16384], man[1 << 16];
    char dir[600];
    if (!have_checker())
        SKIP("python3 or " TEMPLATE " is missing (run from the repository root)");
    REQUIRE(th_run_python(RESULTS_PY, "--manifest", man, sizeof man) == 0);
    REQUIRE(strlen(man) < sizeof man - 1);
    CHECK(strstr(man, "\"solver/src/core/solver.c\"") != NULL);
    CHECK(strstr(man, "\"clients/cli/paper_run.c\"") != NULL);
    CHECK(strstr(man, "\"clients/cli/cmd_paper.c\"") != NULL);
    CHECK(strstr(man, "\"tests/study/rates.c\"") != NULL);
    CHECK(strstr(man, "\"clients/cli/cmd_submit.c\"") == NULL); /* not the runner */
    REQUIRE(write_provenance(man, dir, sizeof dir) == 0);
    CHECK_INT(check_code(dir, out, sizeof out), 0);
    const char *key = "\"solver/src/core/solver.c\": \"";
    char *at = strstr(man, key);
    REQUIRE(at != NULL);
    at += strlen(key);
    *at = *at == '0' ? '1' : '0';                 /* solver.c changed */
    REQUIRE((at = strstr(man, "\"tests/study/rates.c\"")) != NULL);
    memcpy(at, "\"tests/study/gone.c\" ", 21); /* rates.c gone, gone.c not here */
    REQUIRE(write_provenance(man, dir, sizeof dir) == 0);
    CHECK_INT(check_code(dir, out, sizeof out), 1);
    CHECK(strstr(out, "changed: solver/src/core/solver.c") != NULL);
    CHECK(strstr(out, "added: tests/study/rates.c") != NULL);
    CHECK(strstr(out, "removed: tests/study/gone.c") != NULL);
    CHECK(strstr(out, "run make paper again") != NULL);
}
