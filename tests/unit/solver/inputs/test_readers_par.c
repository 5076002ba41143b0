/*
 * test_readers_par.c -- the parallel reader on inputs of tens of
 * thousands of lines: random ratings in every format, clean or with one
 * defect at a random line (a bad value, an empty line in the middle, a
 * duplicate, an id beyond the size line, a Matrix Market count off by
 * one), read in one range and cut into ranges of a few hundred bytes to
 * a few kilobytes on 1 to 4 threads: the same entries, or the same first
 * error (code, line, message), every time.  The file reader (mmap) gives
 * the buffer reader's result.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "inputs/readers.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

enum { LINES = 20000 };

/* Random ratings in format fmt (1..4), distinct (user, item) pairs, with
 * defect d (0 = none) at a random line.  malloc'ed. */
static char *make_input(uint64_t *s, int fmt, int d, size_t *len)
{
    size_t cap = (size_t)LINES * 48 + 256, n = 0;
    char *b = malloc(cap);
    int lines = LINES, bad = 1 + (int)(rnd(s) % (LINES - 2));
    if (fmt == 4)
        n += (size_t)sprintf(b, "%%%%MatrixMarket matrix coordinate real general\n"
                                "%% a comment\n%d %d %d\n", LINES, 50,
                             d == 5 ? LINES - 1 : LINES);
    if (fmt == 3 && rnd(s) % 2)
        n += (size_t)sprintf(b + n, "userId,movieId,rating,timestamp\n");
    for (int i = 0; i < lines; i++) {
        int u = i + 1, it = 1 + (int)(rnd(s) % 50);
        char val[32];
        snprintf(val, sizeof val, rnd(s) % 2 ? "%d" : "%d.5", 1 + (int)(rnd(s) % 5));
        if (d == 1 && i == bad)
            snprintf(val, sizeof val, "4x");
        if (d == 2 && i == bad)
            b[n++] = '\n';
        if (d == 3 && i == bad)
            u = i; /* the previous line's user and, below, item */
        if (d == 4 && i == bad)
            u = LINES + 7;
        if (d == 3 && i == bad - 1)
            it = 3;
        if (d == 3 && i == bad)
            it = 3;
        switch (fmt) {
        case 1: n += (size_t)sprintf(b + n, "%d::%d::%s::97830%d\n", u, it, val, i % 10); break;
        case 2: n += (size_t)sprintf(b + n, "%d\t%d\t%s\t0\n", u, it, val); break;
        case 3: n += (size_t)sprintf(b + n, "%d,%d,%s\n", u, it, val); break;
        default: n += (size_t)sprintf(b + n, "%d %d %s\n", u, it, val); break;
        }
    }
    if (rnd(s) % 2)
        n += (size_t)sprintf(b + n, "\n\n"); /* blank lines at the end are fine */
    *len = n;
    return b;
}

static int same_result(ircg_error e1, const ircg_ratings *a, const ircg_diag *da,
                       ircg_error e2, const ircg_ratings *b, const ircg_diag *db)
{
    if (e1 != e2)
        return 0;
    if (e1 != IRCG_OK)
        return da->line == db->line && !strcmp(da->message, db->message);
    return a->nnz == b->nnz && a->n_rows == b->n_rows && a->n_cols == b->n_cols &&
           !memcmp(a->row, b->row, (size_t)a->nnz * 4) &&
           !memcmp(a->col, b->col, (size_t)a->nnz * 4) &&
           !memcmp(a->val, b->val, (size_t)a->nnz * 8);
}

TEST(readers_par, cuts_and_threads_do_not_change_anything)
{
    static const size_t cuts[] = {333, 1024, 4096, 65536};
    uint64_t s = 42;
    int errors = 0;
    for (int fmt = 1; fmt <= 4; fmt++) {
        for (int d = 0; d <= 5; d++) {
            if (d == 5 && fmt != 4)
                continue;
            size_t len = 0;
            char *buf = make_input(&s, fmt, d, &len);
            ircg_read_options o = {IRCG_FORMAT_AUTO, 0, 0, 1};
            if (d == 4 && fmt != 4)
                o.n_rows = LINES; /* an id beyond the given dimensions */
            ircg_ratings *ref = NULL;
            ircg_diag dref = {0};
            ircg_error eref = slv_ratings_read_ranges(buf, len, &o, SIZE_MAX, &ref, &dref);
            errors += eref != IRCG_OK;
            CHECK_INT(eref != IRCG_OK, d != 0);
            for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
                for (int t = 1; t <= 4; t++) {
                    ircg_ratings *got = NULL;
                    ircg_diag dg = {0};
                    o.threads = t;
                    ircg_error e = slv_ratings_read_ranges(buf, len, &o, cuts[c], &got, &dg);
                    if (!same_result(eref, ref, &dref, e, got, &dg))
                        th_fail(__FILE__, __LINE__, "format %d defect %d, ranges of %zu "
                                "bytes on %d threads: '%s' vs '%s'", fmt, d, cuts[c], t,
                                dg.message, dref.message);
                    ircg_ratings_free(got);
                }
            }
            /* the file reader maps the file and cuts it its own way */
            char path[512];
            snprintf(path, sizeof path, "%s/par_%d_%d.txt", th_tmpdir(), fmt, d);
            FILE *f = fopen(path, "wb");
            REQUIRE(f && fwrite(buf, 1, len, f) == len && fclose(f) == 0);
            ircg_ratings *got = NULL;
            ircg_diag dg = {0};
            o.threads = 0;
            ircg_error e = ircg_ratings_read_file(path, &o, &got, &dg);
            CHECK(same_result(eref, ref, &dref, e, got, &dg));
            ircg_ratings_free(got);
            ircg_ratings_free(ref);
            free(buf);
        }
    }
    CHECK_INT(errors, 4 * 4 + 1); /* every defect is found */
}
