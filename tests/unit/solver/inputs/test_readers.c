/*
 * test_readers.c -- the ratings readers: every format on small buffers,
 * format detection, CSV headers, given dimensions, a table of malformed
 * inputs (exact line and message), a file round trip, and the two MovieLens
 * files of `make data` against their counts (datasets/README.md; skipped
 * when absent).  Every
 * input is also read cut into ranges of a few bytes on several threads,
 * which must give the same entries or the same first error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "ircg.h"
#include "inputs/readers.h"

/* The same input read in one range and in ranges of a few bytes (down to
 * a line each) on several threads: the same entries, or the same error. */
static void same_when_cut(const char *s, const ircg_read_options *o, const ircg_ratings *r,
                          const ircg_diag *d)
{
    static const size_t bytes[] = {1, 2, 5, 13};
    for (size_t b = 0; b < sizeof bytes / sizeof bytes[0]; b++) {
        ircg_read_options oc = *o;
        ircg_ratings *c = NULL;
        ircg_diag dc = {0};
        oc.threads = 1 + (int)b;
        ircg_error e = slv_ratings_read_ranges(s, strlen(s), &oc, bytes[b], &c, &dc);
        int same = (e == IRCG_OK) == (r != NULL);
        if (same && r)
            same = c->nnz == r->nnz && c->n_rows == r->n_rows && c->n_cols == r->n_cols &&
                   !memcmp(c->row, r->row, (size_t)r->nnz * 4) &&
                   !memcmp(c->col, r->col, (size_t)r->nnz * 4) &&
                   !memcmp(c->val, r->val, (size_t)r->nnz * 8);
        else if (same)
            same = dc.code == d->code && dc.line == d->line && !strcmp(dc.message, d->message);
        if (!same)
            th_fail(__FILE__, __LINE__, "ranges of %zu bytes on %d threads differ: '%s' "
                    "vs '%s'", bytes[b], oc.threads, dc.message, d->message);
        ircg_ratings_free(c);
    }
}

static ircg_ratings *read_str(const char *s, ircg_ratings_format fmt,
                              ircg_diag *d)
{
    ircg_read_options o = {fmt, 0, 0, 0};
    ircg_ratings *r = NULL;
    memset(d, 0, sizeof *d);
    ircg_error e = ircg_ratings_read_buffer(s, strlen(s), &o, &r, d);
    same_when_cut(s, &o, e == IRCG_OK ? r : NULL, d);
    return e == IRCG_OK ? r : NULL;
}

/* The entry (row, col) (0-based) or NaN. */
static double entry(const ircg_ratings *r, int i, int j)
{
    for (int64_t k = 0; k < r->nnz; k++)
        if (r->row[k] == i && r->col[k] == j)
            return r->val[k];
    return NAN;
}

/* Same 3 ratings in every format: (1,2)=5, (3,1)=1.5, (2,4)=4 (1-based). */
static void check_three(const ircg_ratings *r)
{
    CHECK_INT(r->n_rows, 3);
    CHECK_INT(r->n_cols, 4);
    CHECK_INT(r->nnz, 3);
    CHECK_NEAR(entry(r, 0, 1), 5.0, 0);
    CHECK_NEAR(entry(r, 2, 0), 1.5, 0);
    CHECK_NEAR(entry(r, 1, 3), 4.0, 0);
    /* file order is kept */
    CHECK_INT(r->row[0], 0);
    CHECK_INT(r->row[1], 2);
    CHECK_INT(r->row[2], 1);
}

static const struct {
    const char *name, *text;
    ircg_ratings_format fmt;
} GOOD[] = {
    {"movielens", "1::2::5::978300760\n3::1::1.5::0\n2::4::4::1\n",
     IRCG_FORMAT_MOVIELENS},
    {"udata", "1\t2\t5\t874724710\n3\t1\t1.5\t0\n2\t4\t4\t1", IRCG_FORMAT_UDATA},
    {"csv", "1,2,5\n3,1,1.5\n2,4,4\n\n\n", IRCG_FORMAT_CSV},
    {"csv_header", "userId,movieId,rating,timestamp\r\n1,2,5,1\r\n3,1,1.5,2\r\n"
                   "2,4,4,3\r\n", IRCG_FORMAT_CSV},
    {"mtx", "%%MatrixMarket matrix coordinate real general\n% comment\n%\n"
            "3 4 3\n1 2 5\n3  1\t1.5\n 2 4 4e0 \n", IRCG_FORMAT_MATRIX_MARKET},
};

TEST(readers, each_format_and_auto)
{
    for (size_t t = 0; t < sizeof GOOD / sizeof GOOD[0]; t++) {
        for (int pass = 0; pass < 2; pass++) {
            ircg_diag d;
            ircg_ratings_format f = pass ? IRCG_FORMAT_AUTO : GOOD[t].fmt;
            ircg_ratings *r = read_str(GOOD[t].text, f, &d);
            if (!r) {
                th_fail(__FILE__, __LINE__, "%s (%s): %s", GOOD[t].name,
                        pass ? "auto" : "explicit", d.message);
                continue;
            }
            check_three(r);
            CHECK_INT(r->format, GOOD[t].fmt); /* what AUTO found */
            ircg_ratings_free(r);
        }
    }
}

TEST(readers, mtx_integer_pattern_and_empty)
{
    ircg_diag d;
    ircg_ratings *r = read_str("%%MatrixMarket matrix coordinate integer general\n"
                               "2 5 2\n1 5 -3\n2 1 7\n", IRCG_FORMAT_AUTO, &d);
    REQUIRE(r);
    CHECK_INT(r->n_rows, 2);
    CHECK_INT(r->n_cols, 5);
    CHECK_NEAR(entry(r, 0, 4), -3.0, 0);
    ircg_ratings_free(r);
    r = read_str("%%MatrixMarket matrix coordinate pattern general\n4 4 1\n4 4\n",
                 IRCG_FORMAT_AUTO, &d);
    REQUIRE(r);
    CHECK_INT(r->nnz, 1);
    CHECK_NEAR(entry(r, 3, 3), 1.0, 0);
    ircg_ratings_free(r);
    /* the size line gives the shape, even of an empty matrix */
    r = read_str("%%MatrixMarket matrix coordinate real general\n7 9 0\n",
                 IRCG_FORMAT_AUTO, &d);
    REQUIRE(r);
    CHECK_INT(r->n_rows, 7);
    CHECK_INT(r->n_cols, 9);
    CHECK_INT(r->nnz, 0);
    ircg_ratings_free(r);
}

TEST(readers, csv_header_detection)
{
    ircg_diag d;
    ircg_ratings *r = read_str("user,item,rating\n1,1,3\n", IRCG_FORMAT_CSV, &d);
    REQUIRE(r);
    CHECK_INT(r->nnz, 1);
    ircg_ratings_free(r);
    r = read_str("2,3,3\n1,1,3\n", IRCG_FORMAT_CSV, &d);
    REQUIRE(r);
    CHECK_INT(r->nnz, 2);
    CHECK_INT(r->n_rows, 2);
    CHECK_INT(r->n_cols, 3);
    ircg_ratings_free(r);
    r = read_str("\xEF\xBB\xBF" "2,3,3\n1,1,3\n", IRCG_FORMAT_AUTO, &d);
    REQUIRE(r); /* a byte order mark is not a header */
    CHECK_INT(r->nnz, 2);
    ircg_ratings_free(r);
    /* only the first line may be a header */
    CHECK(!read_str("u,i,r\nx,1,3\n", IRCG_FORMAT_CSV, &d));
    CHECK_INT(d.line, 2);
}

/* Every decimal form is a rating; strtod's other forms are not (table). */
TEST(readers, decimal_numbers)
{
    static const struct {
        const char *text;
        double v;
    } OK[] = {{"+5", 5}, {"5.", 5}, {".5", 0.5}, {"-0.25", -0.25}, {"4.5e0", 4.5},
              {"1E1", 10}, {"25e-1", 2.5}, {"007", 7}, {"1e-400", 0}};
    for (size_t t = 0; t < sizeof OK / sizeof OK[0]; t++) {
        char buf[64];
        ircg_diag d;
        snprintf(buf, sizeof buf, "1\t1\t%s\t0\n", OK[t].text);
        ircg_ratings *r = read_str(buf, IRCG_FORMAT_AUTO, &d);
        if (!r) {
            th_fail(__FILE__, __LINE__, "'%s' refused: %s", OK[t].text, d.message);
            continue;
        }
        CHECK_NEAR(r->val[0], OK[t].v, 1e-15);
        ircg_ratings_free(r);
    }
    double v = -1;
    CHECK_INT(slv_parse_decimal("0x10", 4, &v), -1);
    CHECK_INT(slv_parse_decimal("12", 1, &v), 0); /* bounded by n: "1" */
    CHECK_NEAR(v, 1.0, 0);
    CHECK_INT(slv_parse_decimal(" 1", 2, &v), -1);
    CHECK_INT(slv_parse_decimal("1e308", 5, &v), 0);
    CHECK_INT(slv_parse_decimal("1e309", 5, &v), -2);
}

TEST(readers, given_dimensions)
{
    ircg_read_options o = {IRCG_FORMAT_AUTO, 10, 20, 0};
    const char *s = "1::2::5::0\n3::1::1::0\n";
    ircg_ratings *r = NULL;
    ircg_diag d = {0};
    CHECK_INT(ircg_ratings_read_buffer(s, strlen(s), &o, &r, &d), IRCG_OK);
    REQUIRE(r);
    CHECK_INT(r->n_rows, 10);
    CHECK_INT(r->n_cols, 20);
    ircg_ratings_free(r);
    r = NULL;
    o.n_rows = 2;
    CHECK_INT(ircg_ratings_read_buffer(s, strlen(s), &o, &r, &d), IRCG_ERR_PARSE);
    CHECK(r == NULL);
    CHECK_INT(d.line, 2);
    CHECK(strstr(d.message, "line 2: user id 3 exceeds the number of rows 2"));
    o.n_rows = 3;
    o.n_cols = 1;
    CHECK_INT(ircg_ratings_read_buffer(s, strlen(s), &o, &r, &d), IRCG_ERR_PARSE);
    CHECK_INT(d.line, 1);
    CHECK(strstr(d.message, "item id 2 exceeds the number of columns 1"));
}

static const struct {
    const char *text;
    long line;
    const char *msg;
} BAD[] = {
    {"1::2::5::0\n1::3::4\n", 2, "expected 4 fields separated by '::', found 3"},
    {"1::2::5::0::9\n", 1, "expected 4 fields separated by '::', found 5"},
    {"1\t2\t3\n", 1, "expected 4 fields separated by tabs, found 3"},
    {"1,2\n", 1, "expected 3 or 4 fields separated by ',', found 2"},
    {"1::2::5::0\n2::2::5::0\nabc::2::5::0\n", 3,
     "user id 'abc' is not a positive integer"},
    {"0::2::5::0\n", 1, "user id '0' is not a positive integer"},
    {"1::-2::5::0\n", 1, "item id '-2' is not a positive integer"},
    {"2147483648::1::5::0\n", 1, "user id '2147483648' is too large"},
    {"1::1::nan::0\n", 1, "rating 'nan' is not a decimal number"},
    {"1::1::inf::0\n", 1, "rating 'inf' is not a decimal number"},
    {"1::1::0x10::0\n", 1, "rating '0x10' is not a decimal number"},
    {"1::1::1e999::0\n", 1, "rating '1e999' is not a finite number"},
    {"1::1::::0\n", 1, "rating is empty"},
    {"1::::5::0\n", 1, "item id is empty"},
    {"1::1::4x::0\n", 1, "rating '4x' is not a decimal number"},
    {"1::12a::4::0\n", 1, "item id '12a' is not a positive integer"},
    {"1::1::4::t\n", 1, "timestamp 't' is not a non-negative integer"},
    {"1::1::4::0\n\n2::1::4::0\n", 2, "empty line in the middle"},
    {"1,1,5\n2,2,3\n3,1,1\n2,2,4\n", 4,
     "duplicate entry (user 2, item 2) first seen on line 2"},
    {"5\t7\t1\t0\n1\t1\t1\t0\n5\t7\t2\t0\n1\t1\t3\t0\n", 3,
     "duplicate entry (user 5, item 7) first seen on line 1"},
    /* u.data (tab): bad ids and ratings */
    {"1\t2\t5\t0\nabc\t2\t5\t0\n", 2, "user id 'abc' is not a positive integer"},
    {"1\t0\t5\t0\n", 1, "item id '0' is not a positive integer"},
    {"1\t-1\t5\t0\n", 1, "item id '-1' is not a positive integer"},
    {"1\t2.0\t5\t0\n", 1, "item id '2.0' is not a positive integer"},
    {"1\t\t5\t0\n", 1, "item id is empty"},
    {"1\t1\t5\t0\n1\t2\t0x10\t0\n", 2, "rating '0x10' is not a decimal number"},
    {"1\t2\tinf\t0\n", 1, "rating 'inf' is not a decimal number"},
    {"1\t2\tNaN\t0\n", 1, "rating 'NaN' is not a decimal number"},
    {"1\t2\t1e\t0\n", 1, "rating '1e' is not a decimal number"},
    {"1\t2\t.\t0\n", 1, "rating '.' is not a decimal number"},
    {"1\t2\t\t0\n", 1, "rating is empty"},
    {"1\t2\t-1e400\t0\n", 1, "rating '-1e400' is not a finite number"},
    {"1\t2\t3\tx\n", 1, "timestamp 'x' is not a non-negative integer"},
    /* CSV: bad ids and ratings, quoted fields, a lone header */
    {"1,2,5\n1,x,4\n", 2, "item id 'x' is not a positive integer"},
    {"-1,2,3\n", 1, "user id '-1' is not a positive integer"},
    {"1,2,0x10\n", 1, "rating '0x10' is not a decimal number"},
    {"u,i,r\n1,2,abc\n", 2, "rating 'abc' is not a decimal number"},
    {"1,2,nan,7\n", 1, "rating 'nan' is not a decimal number"},
    {"1,2,1e999\n", 1, "rating '1e999' is not a finite number"},
    {"1,2,\n", 1, "rating is empty"},
    {"1,2,3,\n", 1, "timestamp '' is not a non-negative integer"},
    {"1,2,\"3\"\n", 1, "rating '\"3\"' is quoted; quoted fields are not supported"},
    {"\"1\",\"2\",\"3\"\n", 1,
     "user id '\"1\"' is quoted; quoted fields are not supported"},
    {"user,item,rating\n\n", 1, "a header line and no ratings after it"},
    {"user;item;rating,x\n", 1, "expected 3 or 4 fields separated by ',', found 2"},
    {"1 2 3\n", 1, "cannot detect the format"},
    {"%%MatrixMarket matrix array real general\n2 2\n", 1,
     "format 'array' is not supported"},
    {"%%MatrixMarket matrix coordinate complex general\n", 1,
     "field 'complex' is not supported"},
    {"%%MatrixMarket matrix coordinate real symmetric\n", 1,
     "symmetry 'symmetric' is not supported"},
    {"%%MatrixMarket vector coordinate real general\n", 1, "malformed banner"},
    {"%%MatrixMarket matrix coordinate real general\n% c\n3 3 3\n1 1 1\n2 2 2\n",
     3, "declares 3 entries but 2 were found"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n2 2 2\n", 4,
     "more entries than the 1 of the size line (line 2)"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 2 2\n", 4,
     "row index 4 exceeds the number of rows 3"},
    /* one entry too many: that is the error, whatever else is wrong with
     * it once its fields are counted; a wrong field count comes first */
    {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n4 2 2\n", 4,
     "more entries than the 1 of the size line (line 2)"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n2 2\n", 4,
     "expected 3 fields separated by blanks, found 2"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n\n2 2 2\n", 4,
     "empty line in the middle"},
    {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 4 1\n", 3,
     "column index 4 exceeds the number of columns 3"},
    {"%%MatrixMarket matrix coordinate real general\n3 3\n", 2,
     "expected the size line"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 5\n", 2,
     "5 entries do not fit in a 2 x 2 matrix"},
    {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 2.5\n", 3,
     "value '2.5' is not an integer"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n", 3,
     "expected 3 fields separated by blanks, found 2"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 1 2\n", 4,
     "duplicate entry (row 1, column 1) first seen on line 3"},
};

TEST(readers, malformed_table)
{
    for (size_t t = 0; t < sizeof BAD / sizeof BAD[0]; t++) {
        ircg_diag d;
        ircg_ratings *r = read_str(BAD[t].text, IRCG_FORMAT_AUTO, &d);
        if (r) {
            th_fail(__FILE__, __LINE__, "case %zu accepted", t);
            ircg_ratings_free(r);
            continue;
        }
        char prefix[32];
        snprintf(prefix, sizeof prefix, "line %ld: ", BAD[t].line);
        if (d.code != IRCG_ERR_PARSE || d.line != BAD[t].line ||
            strncmp(d.message, prefix, strlen(prefix)) != 0 ||
            strstr(d.message + 1, "line ") == d.message + strlen(prefix) ||
            !strstr(d.message, BAD[t].msg) || d.field[0] != '\0')
            th_fail(__FILE__, __LINE__, "case %zu: code %d line %ld '%s', "
                    "expected line %ld '%s'", t, (int)d.code, d.line,
                    d.message, BAD[t].line, BAD[t].msg);
    }
}

TEST(readers, explicit_format_mismatch_and_empty)
{
    ircg_diag d;
    CHECK(!read_str("1,2,3\n", IRCG_FORMAT_MOVIELENS, &d));
    CHECK_INT(d.line, 1);
    CHECK(strstr(d.message, "expected 4 fields separated by '::', found 1"));
    CHECK(!read_str("1 1 1\n", IRCG_FORMAT_MATRIX_MARKET, &d));
    CHECK_INT(d.line, 1);
    CHECK(strstr(d.message, "expected the banner"));
    CHECK(!read_str("", IRCG_FORMAT_AUTO, &d));
    CHECK_INT(d.code, IRCG_ERR_PARSE);
    CHECK(strstr(d.message, "no ratings"));
    CHECK(!read_str("\n\n", IRCG_FORMAT_CSV, &d));
    CHECK(strstr(d.message, "no ratings"));
    CHECK_INT(d.line, 0);
    /* a header alone is reported at its line, not as "line 0" */
    CHECK(!read_str("userId,movieId,rating\r\n", IRCG_FORMAT_AUTO, &d));
    CHECK_INT(d.line, 1);
    CHECK_STR(d.message, "line 1: a header line and no ratings after it");
    ircg_ratings *r = NULL;
    ircg_read_options o = {IRCG_FORMAT_AUTO, -1, 0, 0};
    CHECK_INT(ircg_ratings_read_buffer(NULL, 0, NULL, &r, &d), IRCG_ERR_PARSE);
    CHECK_INT(ircg_ratings_read_buffer(NULL, 5, NULL, &r, &d), IRCG_ERR_INVALID);
    CHECK_INT(ircg_ratings_read_buffer("1,1,1", 5, &o, &r, &d), IRCG_ERR_INVALID);
    CHECK_STR(d.field, "/n_rows");
    CHECK(r == NULL);
}

/* The buffer is not NUL-terminated: a number cut by len must not run on. */
TEST(readers, respects_len)
{
    const char *s = "1::2::5::0\n3::4::4::123456";
    ircg_read_options o = {IRCG_FORMAT_AUTO, 0, 0, 0};
    ircg_ratings *r = NULL;
    ircg_diag d;
    size_t len = strlen(s) - 6; /* ends at "3::4::4::" */
    CHECK_INT(ircg_ratings_read_buffer(s, len, &o, &r, &d), IRCG_ERR_PARSE);
    CHECK_INT(d.line, 2);
    CHECK(strstr(d.message, "timestamp '' is not"));
    /* exact-size heap copy: ASan catches any read past the end */
    char *h = malloc(11);
    memcpy(h, "1::2::4.25", 10);
    CHECK_INT(ircg_ratings_read_buffer(h, 10, &o, &r, &d), IRCG_ERR_PARSE);
    memcpy(h, "1\t2\t4.25\t9", 10);
    CHECK_INT(ircg_ratings_read_buffer(h, 10, &o, &r, &d), IRCG_OK);
    REQUIRE(r);
    CHECK_NEAR(r->val[0], 4.25, 0);
    ircg_ratings_free(r);
    free(h);
    ircg_ratings_free(NULL);
}

TEST(readers, file_round_trip_and_io_errors)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/readers_rt.dat", th_tmpdir());
    FILE *f = fopen(path, "wb");
    REQUIRE(f);
    for (int i = 1; i <= 50; i++)
        for (int j = 1; j <= 30; j += 1 + i % 3)
            fprintf(f, "%d::%d::%d::%d\n", i, j, 1 + (i * j) % 5, i * 1000 + j);
    fclose(f);
    ircg_ratings *r = NULL;
    ircg_diag d = {0};
    CHECK_INT(ircg_ratings_read_file(path, NULL, &r, &d), IRCG_OK);
    REQUIRE(r);
    CHECK_INT(r->n_rows, 50);
    CHECK_INT(r->n_cols, 30);
    int64_t k = 0, bad = 0;
    for (int i = 1; i <= 50; i++)
        for (int j = 1; j <= 30; j += 1 + i % 3, k++)
            bad += k >= r->nnz || r->row[k] != i - 1 || r->col[k] != j - 1 ||
                   r->val[k] != 1 + (i * j) % 5;
    CHECK_INT(bad, 0);
    CHECK_INT(r->nnz, k);
    ircg_ratings_free(r);
    r = NULL;
    snprintf(path, sizeof path, "%s/no/such/file.dat", th_tmpdir());
    CHECK_INT(ircg_ratings_read_file(path, NULL, &r, &d), IRCG_ERR_IO);
    CHECK(r == NULL);
    CHECK(strstr(d.message, path));
    CHECK(strstr(d.message, "No such file"));
    CHECK_INT(d.line, 0);
}


static void check_movielens(const char *name, int rows, int cols, int64_t nnz,
                            const int64_t hist[5])
{
    char path[1024];
    NEED_MOVIELENS(name, path);
    ircg_ratings *r = NULL;
    ircg_diag d = {0};
    CHECK_INT(ircg_ratings_read_file(path, NULL, &r, &d), IRCG_OK);
    if (!r)
        th_fail(__FILE__, __LINE__, "%s: %s", path, d.message);
    REQUIRE(r);
    CHECK_INT(r->n_rows, rows);
    CHECK_INT(r->n_cols, cols);
    CHECK_INT(r->nnz, nnz);
    int64_t h[6] = {0};
    for (int64_t k = 0; k < r->nnz; k++) {
        int v = (int)r->val[k];
        h[v >= 1 && v <= 5 && v == r->val[k] ? v : 0]++;
    }
    CHECK_INT(h[0], 0);
    for (int v = 1; v <= 5; v++)
        CHECK_INT(h[v], hist[v - 1]);
    ircg_ratings_free(r);
}

TEST(readers, movielens_100k)
{
    static const int64_t hist[5] = {6110, 11370, 27145, 34174, 21201};
    check_movielens("u.data", 943, 1682, 100000, hist);
}

/* ratings.dat is GroupLens's ML-1M when make data downloaded it, or the
 * subset of the project's local copy (999,714 of its 1,000,209 ratings,
 * movies renumbered: datasets/README.md); the 495 ratings the subset lacks
 * are the difference of the two histograms. */
TEST(readers, movielens_1m)
{
    static const int64_t subset[5] = {56036, 107450, 261080, 348869, 226279};
    static const int64_t full[5] = {56174, 107557, 261197, 348971, 226310};
    char path[1024];
    struct stat st;
    if (th_movielens("ratings.dat", path, sizeof path) > 0 && stat(path, &st) == 0 &&
        st.st_size != 16498945) /* not the subset's bytes */
        check_movielens("ratings.dat", 6040, 3952, 1000209, full);
    else
        check_movielens("ratings.dat", 6040, 3449, 999714, subset);
}

/* Large ids exercise every radix pass; the reported pair is the one whose
 * second occurrence comes first. */
TEST(readers, find_duplicate_radix)
{
    enum { N = 20000 };
    int32_t *row = malloc(N * sizeof *row), *col = malloc(N * sizeof *col);
    REQUIRE(row && col);
    uint64_t s = 99;
    for (int k = 0; k < N; k++) { /* distinct: k is encoded in both ids */
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        row[k] = (int32_t)((s >> 40) % 50000) * N + k % 7;
        col[k] = k + (int32_t)((s >> 20) % 3) * 100000;
        row[k] = (int32_t)((uint32_t)row[k] & 0x7FFFFFFF);
        col[k] = (int32_t)((uint32_t)col[k] & 0x7FFFFFFF);
    }
    int64_t first = -7;
    CHECK_INT(slv_find_duplicate(row, col, N, &first), -1);
    row[15000] = row[300];
    col[15000] = col[300];
    row[9000] = row[12000];
    col[9000] = col[12000]; /* second occurrence of this pair: 12000 */
    CHECK_INT(slv_find_duplicate(row, col, N, &first), 12000);
    CHECK_INT(first, 9000);
    row[20] = row[10];
    col[20] = col[10];
    CHECK_INT(slv_find_duplicate(row, col, N, &first), 20);
    CHECK_INT(first, 10);
    free(row);
    free(col);
}

/* The probe reads the head only: an error there is found with the full
 * reader's message, one further in is not, and a complete small input
 * says so. */
TEST(readers, probe_reads_the_head_only)
{
    enum { LINES = 20000 };
    size_t cap = (size_t)LINES * 32, n = 0;
    char *s = malloc(cap);
    ircg_ratings_probe pr;
    ircg_diag d = {0};
    ircg_read_options o = {IRCG_FORMAT_AUTO, 0, 0, 0};
    for (int k = 1; k <= LINES; k++)
        n += (size_t)snprintf(s + n, cap - n, k == LINES - 5 ? "%d::%d::x::1\n"
                                                              : "%d::%d::4::1\n",
                              k, 1 + k % 7);
    CHECK_INT(ircg_ratings_probe_buffer(s, n, &o, &pr, &d), IRCG_OK);
    CHECK_INT(pr.format, IRCG_FORMAT_MOVIELENS);
    CHECK_INT(pr.entries, IRCG_PROBE_ENTRIES);
    CHECK_INT(pr.bytes, (long long)n);
    CHECK_INT(pr.complete, 0);
    CHECK_INT(pr.declared, -1);
    /* the full read finds it */
    ircg_ratings *r = NULL;
    CHECK_INT(ircg_ratings_read_buffer(s, n, &o, &r, &d), IRCG_ERR_PARSE);
    CHECK_INT(d.line, LINES - 5);
    /* an error in the head: the same message as the full reader's */
    ircg_diag full = {0};
    memcpy(s + 3, "x", 1); /* line 1: "1::x:..." */
    CHECK_INT(ircg_ratings_read_buffer(s, n, &o, &r, &full), IRCG_ERR_PARSE);
    CHECK_INT(ircg_ratings_probe_buffer(s, n, &o, &pr, &d), IRCG_ERR_PARSE);
    CHECK_STR(d.message, full.message);
    CHECK_INT(d.line, 1);
    /* Matrix Market: an input read to its end is checked in full (the
     * count of the size line); the dimensions come from the size line */
    const char *mm = "%%MatrixMarket matrix coordinate real general\n4 5 9\n1 1 2\n";
    CHECK_INT(ircg_ratings_probe_buffer(mm, strlen(mm), &o, &pr, &d), IRCG_ERR_PARSE);
    const char *mm2 = "%%MatrixMarket matrix coordinate real general\n4 5 1\n1 1 2\n";
    CHECK_INT(ircg_ratings_probe_buffer(mm2, strlen(mm2), &o, &pr, &d), IRCG_OK);
    CHECK_INT(pr.n_rows, 4);
    CHECK_INT(pr.n_cols, 5);
    CHECK_INT(pr.declared, 1);
    CHECK_INT(pr.complete, 1);
    free(s);
}
