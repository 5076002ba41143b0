/*
 * test_cli_paper.c -- `ircg paper --time-to`: the times in its table are
 * those of the first trace row that reached each accuracy (read back from
 * the traces it writes), and --results-md replaces its own section of a
 * file and keeps the rest, or appends the section when there is none.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/test_cli_util.h"

/* A small MovieLens-format ratings file: 60 users, 40 movies, a rank-2
 * pattern rounded to 1..5, about 40% observed. */
static int write_ratings(const char *path)
{
    FILE *f = fopen(path, "w");
    uint64_t s = 12345;
    if (!f)
        return -1;
    for (int i = 1; i <= 60; i++)
        for (int j = 1; j <= 40; j++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            if ((s >> 33) % 5 >= 2 && j != 1 + i % 40)
                continue;
            int r = 1 + (i * 7 + j * 3 + (i % 3) * (j % 4)) % 5;
            fprintf(f, "%d::%d::%d::978300760\n", i, j, r);
        }
    return fclose(f);
}

/* The first row of trace-KEY.csv with g_gap_x <= eps: its t and elapsed
 * (columns 1, 2 and 10); t = -1 when no row reaches eps. */
static void first_reach(const char *dir, const char *key, double eps, long *t, double *el)
{
    char path[1200], line[2048];
    snprintf(path, sizeof path, "%s/trace-%s.csv", dir, key);
    FILE *f = fopen(path, "r");
    *t = -1;
    if (!f)
        return;
    fgets(line, sizeof line, f); /* header */
    while (*t < 0 && fgets(line, sizeof line, f)) {
        double v[10];
        char *p = line;
        for (int c = 0; c < 10; c++) {
            v[c] = strtod(p, &p);
            p += *p == ',';
        }
        if (v[9] <= eps) {
            *t = (long)v[0];
            *el = v[1];
        }
    }
    fclose(f);
}

/* The cell of the row starting "| label |" in column col (1-based after
 * the label) of the markdown text; NULL when absent. */
static const char *cell(const char *text, const char *label, int col, char *out, size_t n)
{
    char head[128];
    snprintf(head, sizeof head, "| %s |", label);
    const char *p = strstr(text, head);
    if (!p)
        return NULL;
    p += strlen(head);
    for (int c = 1; c < col && p; c++)
        p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL;
    if (!p)
        return NULL;
    size_t len = strcspn(p, "|");
    snprintf(out, n, "%.*s", (int)len, p);
    return out;
}

TEST(spec_cli, paper_time_to_accuracy)
{
    NEED_CLI();
    char *ratings = tcli_tmp("tta.dat"), *md = tcli_tmp("RESULTS.md"), *out = tcli_tmp("tta");
    static const char *const keys[] = {"ircg-ls", "bisg"}, *const labels[] = {
        "IR-CG (line search)", "Bi-SG"};
    static const double eps[] = {1e-3, 1e-7};
    char c[256];

    REQUIRE(write_ratings(ratings) == 0);
    REQUIRE(tcli_write(md, "# Results\n\nkept before\n\n<!-- time-to-accuracy: begin old -->\n"
                           "OLD TABLE\n<!-- time-to-accuracy: end -->\nkept after\n") == 0);
    char *args[] = {(char *)bin, "paper", "--ratings", ratings, "--out", out, "--budget", "1",
                    "--time-to", "1e-7,1e-3", "--methods", "ircg-ls,bisg", "--results-md", md,
                    "--threads", "1", NULL};
    REQUIRE(tcli_run(args, NULL) == 0);
    char *text = tcli_read_text(md), sec_path[4200];
    REQUIRE(text != NULL);
    /* the section as tests/paper/results.py takes it from the run */
    snprintf(sec_path, sizeof sec_path, "%s/tta-section.md", out);
    char *section = tcli_read_text(sec_path);
    CHECK(section && strstr(section, "<!-- time-to-accuracy: begin") == section);
    CHECK(section && strstr(text, section) != NULL);
    free(section);
    CHECK(strstr(text, "# Results\n\nkept before\n\n<!-- time-to-accuracy: begin") == text);
    CHECK(strstr(text, "OLD TABLE") == NULL);
    CHECK(strstr(text, "<!-- time-to-accuracy: end -->\nkept after\n") != NULL);
    CHECK(strstr(text, "--time-to 1e-03,1e-07") != NULL);
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 2; k++) {
            long t;
            double el, got_el;
            long got_t;
            first_reach(out, keys[m], eps[k], &t, &el);
            REQUIRE(cell(text, labels[m], k + 1, c, sizeof c) != NULL);
            if (t < 0) {
                CHECK(strstr(c, "not in 1 s") != NULL);
            } else {
                CHECK_INT(sscanf(c, " %lf s (iteration %ld)", &got_el, &got_t), 2);
                CHECK_INT(got_t, t);
                CHECK_REL(got_el, el, 5e-3, 1e-6); /* printed with 3 digits */
            }
        }
    /* IR-CG reaches both on this small instance */
    CHECK(cell(text, "IR-CG (line search)", 4, c, sizeof c) && strstr(c, "reached"));
    /* without markers the section is appended; without --time-to no file */
    REQUIRE(tcli_write(md, "# Results\nno section yet") == 0);
    REQUIRE(tcli_run(args, NULL) == 0);
    free(text);
    text = tcli_read_text(md);
    REQUIRE(text != NULL);
    CHECK(strstr(text, "# Results\nno section yet\n\n<!-- time-to-accuracy: begin") == text);
    char *bad[] = {(char *)bin, "paper", "--ratings", ratings, "--results-md", md, NULL};
    CHECK_INT(tcli_run(bad, NULL), 2); /* usage error */
    free(text);
}
