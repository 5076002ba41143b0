/*
 * test_vector_reader.c -- dense vectors from files (ircg_vector_read_*):
 * Matrix Market array and one-column coordinate files, plain numbers
 * separated by blanks or commas, and malformed inputs with their exact
 * line and message.  The same decimal rules as the ratings readers: no
 * hexadecimal floats, no inf or nan.  Also dense CSV matrices
 * (ircg_dense_read_file, ircg_dense_probe_file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"

static int read_vec(const char *s, double **v, int64_t *n, ircg_diag *d)
{
    memset(d, 0, sizeof *d);
    return ircg_vector_read_buffer(s, strlen(s), v, n, d);
}

TEST(vector_reader, formats)
{
    static const char *const inputs[] = {
        "%%MatrixMarket matrix array real general\n% a comment\n3 1\n1.5\n-2\n4e1\n",
        "%%MatrixMarket matrix coordinate real general\n3 1 2\n3 1 4e1\n1 1 1.5\n2 1 -2\n",
        "1.5 -2\n4e1\n",
        "# b, one per line\n1.5,\n-2,\n40\n\n",
        ("\xEF\xBB\xBF" "1.5\r\n-2\r\n40\r\n"), /* a BOM, then CRLF */
        "y\n1.5\n-2\n40\n", /* one CSV column with its header */
    };
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        double *v = NULL;
        int64_t n = 0;
        ircg_diag d;
        REQUIRE(read_vec(inputs[i], &v, &n, &d) == IRCG_OK);
        CHECK_INT(n, 3);
        if (n == 3) {
            /* the coordinate file lists 3 of 3 entries, out of order */
            CHECK(v[0] == 1.5 && v[1] == -2.0 && v[2] == 40.0);
        }
        free(v);
    }
    /* coordinate entries that are not listed are 0 */
    double *v = NULL;
    int64_t n = 0;
    ircg_diag d;
    REQUIRE(read_vec("%%MatrixMarket matrix coordinate integer general\n4 1 1\n2 1 7\n",
                     &v, &n, &d) == IRCG_OK);
    CHECK_INT(n, 4);
    CHECK(v[0] == 0 && v[1] == 7 && v[2] == 0 && v[3] == 0);
    free(v);
}

TEST(vector_reader, malformed_inputs_name_their_line)
{
    static const struct {
        const char *text;
        long line;
        const char *msg;
    } cases[] = {
        {"1\n0x1p3\n", 2, "line 2: '0x1p3' is not a decimal number"},
        {"1 inf\n", 1, "line 1: 'inf' is not a decimal number"},
        {"1e999\n", 1, "line 1: '1e999' is not a finite number"},
        {"%%MatrixMarket matrix array real general\n3 1\n1\n2\n", 4,
         "line 4: 2 values, the size line says 3"},
        {"%%MatrixMarket matrix array real general\n3 2\n1\n", 2,
         "line 2: expected the size line 'rows 1' of a vector"},
        {"%%MatrixMarket matrix coordinate real general\n2 1 1\n3 1 5\n", 3,
         "line 3: entry (3, 1) is outside the 2 x 1 vector"},
        {"%%MatrixMarket matrix array integer general\n1 1\n2.5\n", 3,
         "line 3: '2.5' is not an integer (the banner says integer)"},
        {"%%MatrixMarket matrix array complex general\n1 1\n2\n", 1,
         "line 1: field 'complex' is not supported (real or integer)"},
        {"# nothing\n\n", 0, "no numbers found"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double *v = NULL;
        int64_t n = 0;
        ircg_diag d;
        CHECK_INT(read_vec(cases[i].text, &v, &n, &d), IRCG_ERR_PARSE);
        CHECK(v == NULL);
        CHECK_INT(d.line, cases[i].line);
        CHECK_STR(d.message, cases[i].msg);
    }
}

static const char *tmp_file(const char *name, const char *text)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", th_tmpdir(), name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

TEST(vector_reader, dense_csv_matrices)
{
    double *A = NULL;
    int m = 0, n = 0;
    ircg_diag d = {0};
    const char *p = tmp_file("A.csv", "a,b,c\n# comment\n1, 2 ,3\n\n4,5,-6e0\r\n");
    REQUIRE(ircg_dense_read_file(p, &A, &m, &n, &d) == IRCG_OK);
    CHECK(m == 2 && n == 3);
    CHECK(A[0] == 1 && A[2] == 3 && A[3] == 4 && A[5] == -6);
    free(A);
    CHECK_INT(ircg_dense_probe_file(p, &n, &d), IRCG_OK);
    CHECK_INT(n, 3);
    static const struct { const char *text, *msg; long line; } BAD[] = {
        {"1,2\n3\n", "line 2: 1 fields, the first row has 2", 2},
        {"1,2\n3,0x1\n", "line 2: '0x1' is not a decimal number (field 2)", 2},
        {"1,,2\n", "line 1: '' is not a decimal number (field 2)", 1},
        {"1e999,1\n", "line 1: '1e999' is not a finite number", 1},
        {"x,y\n", "no rows of numbers found", 0},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        A = NULL;
        CHECK_INT(ircg_dense_read_file(tmp_file("bad.csv", BAD[i].text), &A, &m, &n, &d),
                  IRCG_ERR_PARSE);
        CHECK(A == NULL);
        CHECK_STR(d.message, BAD[i].msg);
        CHECK_INT(d.line, BAD[i].line);
    }
    CHECK_INT(ircg_dense_read_file("/nonexistent/A.csv", &A, &m, &n, &d), IRCG_ERR_IO);
}
