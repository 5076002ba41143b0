/*
 * test_suite_lists.c -- the suite lists of the Makefile's targets come from
 * the tests themselves: a line "make TARGET: FILTER" in a comment of a test
 * file puts FILTER ("suite." or "suite.test", as run_tests takes it) into
 * TARGET's list (the Makefile's `marked`).  Each filter must name a suite
 * of its own file, or a test there whose name it begins, so that a suite
 * renamed or moved cannot silently leave a target's list.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

/* 1 when text has TEST(suite, name...) matching filter. */
static int names_a_test(const char *text, const char *filter)
{
    char suite[128], want[200];
    const char *dot = strchr(filter, '.');
    if (!dot || (size_t)(dot - filter) >= sizeof suite)
        return 0;
    snprintf(suite, sizeof suite, "%.*s", (int)(dot - filter), filter);
    snprintf(want, sizeof want, "\nTEST(%s, %s", suite, dot + 1);
    return strstr(text, want) != NULL;
}

/* The filters of target's lines in text (a line that is the comment
 * "make TARGET: FILTER", as the Makefile reads them) that name no test of
 * it: their count; each is printed with the file's name. */
static int stray_filters(const char *path, const char *text, const char *target, int *found)
{
    char head[64], filter[128];
    int stray = 0;
    /* at a line's start, as the Makefile reads it */
    snprintf(head, sizeof head, "\n/* make %s: ", target);
    for (const char *s = text; (s = strstr(s, head)) != NULL; s += strlen(head)) {
        if (sscanf(s + strlen(head), "%127[a-z0-9_.]", filter) != 1)
            continue;
        (*found)++;
        if (!names_a_test(text, filter)) {
            printf("    %s: \"make %s: %s\" names no test of the file\n", path, target, filter);
            stray++;
        }
    }
    return stray;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 2)) != NULL) {
        buf[0] = '\n'; /* so that "\nTEST(" also finds a first line */
        buf[1 + fread(buf + 1, 1, (size_t)n, f)] = '\0';
    }
    if (f)
        fclose(f);
    return buf;
}

/* Every .c file under dir and its folders (the rooms of the tests): the
 * stray filters of each target, counted into *stray and found[]. */
static void scan_dir(const char *dir, const char *const *targets, int *found, int *stray,
                     int *files)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        char path[512];
        struct stat st;
        size_t n = strlen(e->d_name);
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            scan_dir(path, targets, found, stray, files);
            continue;
        }
        if (n < 3 || strcmp(e->d_name + n - 2, ".c") != 0)
            continue;
        char *text = slurp(path);
        CHECK(text != NULL);
        if (!text)
            continue;
        (*files)++;
        for (int t = 0; t < 2; t++)
            *stray += stray_filters(path, text, targets[t], &found[t]);
        free(text);
    }
    closedir(d);
}

TEST(suite_lists, every_filter_names_a_test_of_its_file)
{
    /* the folders of the Makefile's TEST_ROOMS */
    static const char *const dirs[] = {"tests/unit", "tests/integration", "tests/common"};
    static const char *const targets[] = {"test-kernels", "tsan"};
    int found[2] = {0, 0}, stray = 0, files = 0;
    struct stat st;
    if (stat(dirs[0], &st) != 0)
        SKIP("run from the repository root: tests/unit is not here");
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++)
        scan_dir(dirs[d], targets, found, &stray, &files);
    printf("    %d files: %d test-kernels filters, %d tsan filters\n", files, found[0], found[1]);
    CHECK_INT(stray, 0);
    /* the lists are not empty: the Makefile would run nothing */
    CHECK(found[0] > 0 && found[1] > 0);
}

/* The check finds a filter that names another file's suite, or no test. */
TEST(suite_lists, a_stray_filter_is_found)
{
    const char *text = "\n/* make tsan: other. */\n/* make tsan: mine.sig */\n"
                       "/* make tsan: mine.nothing */\nTEST(mine, sigterm_requeues)\n";
    int found = 0;
    CHECK_INT(stray_filters("planted.c", text, "tsan", &found), 2);
    CHECK_INT(found, 3);
}
