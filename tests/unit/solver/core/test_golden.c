/*
 * test_golden.c -- a spec that names an absolute varsigma gets today's
 * iterates, bit for bit, from the version that made varsigma relative by
 * default: the traces of tests/data/golden/ (README there says how they
 * were made) against `ircg solve` now, every column but the two clocks,
 * compared as text -- the shortest round-trip text of a double is a
 * function of its bits, so equal text is equal bits.  The bits are those
 * of the BLAS kernels the traces were made with (README there): not run
 * under make test-kernels' other kernel sets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/test_cli_util.h"

#define GOLDEN "tests/data/golden/"
#define MAXCOL 64

/* Split a CSV line in place (no quoting in traces). */
static int split(char *line, char **f)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p && n < MAXCOL; p++)
        if (*p == ',') {
            *p = '\0';
            f[n++] = p + 1;
        }
    return n;
}

static char *next_line(char **cur)
{
    char *s = *cur, *e;
    if (!s || !*s)
        return NULL;
    e = strchr(s, '\n');
    if (e) {
        *e = '\0';
        *cur = e + 1;
    } else {
        *cur = s + strlen(s);
    }
    return s;
}

/* Every golden column of every row equal in the new trace; 1 when so. */
static int same_trace(const char *name, char *gold, char *now)
{
    char *gf[MAXCOL], *nf[MAXCOL], *gl = next_line(&gold), *nl = next_line(&now);
    int map[MAXCOL], ng, nn, rows = 0;
    if (!gl || !nl)
        return 0;
    ng = split(gl, gf);
    nn = split(nl, nf);
    for (int i = 0; i < ng; i++) { /* the golden header's columns in the new one */
        map[i] = -1;
        for (int j = 0; j < nn; j++)
            if (!strcmp(gf[i], nf[j]))
                map[i] = j;
        if (map[i] < 0) {
            th_fail(__FILE__, __LINE__, "%s: column %s is gone", name, gf[i]);
            return 0;
        }
    }
    for (;;) {
        gl = next_line(&gold);
        nl = next_line(&now);
        if (!gl || !nl) {
            if (gl || nl)
                th_fail(__FILE__, __LINE__, "%s: %s rows after %d", name,
                        gl ? "fewer" : "more", rows);
            printf("    %s: %d rows, %d columns each the same bits\n", name, rows, ng);
            return !gl && !nl;
        }
        rows++;
        int g = split(gl, gf), n = split(nl, nf);
        for (int i = 0; i < ng && i < g; i++)
            if (map[i] >= n || strcmp(gf[i], nf[map[i]]) != 0) {
                th_fail(__FILE__, __LINE__, "%s: row %d, column %d: %s then, %s now", name,
                        rows, i, gf[i], map[i] < n ? nf[map[i]] : "(none)");
                return 0;
            }
    }
}

TEST(golden, absolute_varsigma_keeps_its_iterates)
{
    static const char *const NAMES[] = {
        "least_norm_open_loop", "least_norm_closed_loop", "least_norm_line_search",
        "irpg_least_norm",      "overparam",              "logistic",
        "mc_synthetic",         NULL};
    NEED_CLI();
    for (int k = 0; NAMES[k]; k++) {
        char spec[256], gold[256];
        snprintf(spec, sizeof spec, GOLDEN "%s.json", NAMES[k]);
        snprintf(gold, sizeof gold, GOLDEN "%s.csv", NAMES[k]);
        char *trace = tcli_tmp("golden.csv");
        char *args[] = {(char *)bin, "solve", spec, "--quiet", "--trace", trace, NULL};
        CHECK(tcli_run(args, NULL) == 0);
        char *g = tcli_read_text(gold), *n = tcli_read_text(trace);
        CHECK(g && n && same_trace(NAMES[k], g, n));
        free(g);
        free(n);
    }
}
