/*
 * test_svm.c -- the LIBSVM / svmlight reader (inputs/svm_reader.c): a real
 * data set in the format (Debian's liblinear-tools ships heart_scale, 270
 * rows of 13 features; `make deps` installs it), the grammar's corners
 * (qid, comments, blank lines, rows without features, CRLF, a byte order
 * mark), every error naming its line, and the same rows and the same
 * first error whatever the ranges and threads.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "inputs/readers.h"
#include "ircg.h"

#define HEART "/usr/share/doc/liblinear-tools/examples/heart_scale"

static ircg_svm *read_str(const char *s, const ircg_svm_options *o, ircg_diag *d)
{
    ircg_svm *out = NULL;
    if (ircg_svm_read_buffer(s, strlen(s), o, &out, d) != IRCG_OK)
        return NULL;
    return out;
}

TEST(svm, heart_scale_of_liblinear_tools)
{
    FILE *f = fopen(HEART, "r");
    if (!f) { /* make deps installs it: its absence is a failure, not a skip */
        CHECK(!"heart_scale is missing: `make deps` installs liblinear-tools");
        return;
    }
    fclose(f);
    ircg_svm *s = NULL;
    ircg_diag d = {0};
    REQUIRE(ircg_svm_read_file(HEART, NULL, &s, &d) == IRCG_OK);
    CHECK_INT(s->m, 270);
    CHECK_INT(s->n, 13);
    CHECK_INT(s->nnz, 3378); /* awk '{print NF-1}' summed */
    int pos = 0, neg = 0;
    for (int i = 0; i < s->m; i++) {
        pos += s->labels[i] == 1;
        neg += s->labels[i] == -1;
    }
    CHECK_INT(pos, 120);
    CHECK_INT(neg, 150);
    /* line 1: +1 1:0.708333 2:1 ... 10:-0.225806 12:1 13:-1 (no 11) */
    CHECK_INT(s->rowptr[1], 12);
    CHECK(s->colind[0] == 0 && s->val[0] == 0.708333);
    CHECK(s->colind[9] == 9 && s->val[9] == -0.225806);
    CHECK(s->colind[10] == 11 && s->val[10] == 1);
    /* line 270: ... 13:-1 */
    CHECK(s->colind[s->nnz - 1] == 12 && s->val[s->nnz - 1] == -1);
    ircg_svm_probe pr;
    REQUIRE(ircg_svm_probe_file(HEART, NULL, &pr, &d) == IRCG_OK);
    CHECK(pr.complete && pr.rows == 270 && pr.n_cols == 13 && pr.bytes == 27670);
    ircg_svm_free(s);
}

TEST(svm, grammar_corners)
{
    const char *txt = "\xEF\xBB\xBF# a comment line\r\n"
                      "+1 qid:3 1:0.5 4:-2e-1   # trailing comment\r\n"
                      "\n"
                      "   \t\n"
                      "0\n"                      /* a row without features */
                      "-1 2:1 3:0 7:1.25\n"
                      "2011 qid:0 1:-1";         /* real label, no newline */
    ircg_diag d = {0};
    ircg_svm *s = read_str(txt, NULL, &d);
    REQUIRE(s);
    CHECK_INT(s->m, 4);
    CHECK_INT(s->n, 7);
    CHECK_INT(s->nnz, 6);
    CHECK(s->labels[0] == 1 && s->labels[1] == 0 && s->labels[2] == -1 && s->labels[3] == 2011);
    int64_t rp[5] = {0, 2, 2, 5, 6};
    for (int i = 0; i <= 4; i++)
        CHECK_INT(s->rowptr[i], rp[i]);
    CHECK(s->colind[1] == 3 && s->val[1] == -0.2);
    CHECK(s->colind[3] == 2 && s->val[3] == 0); /* explicit zeros kept */
    ircg_svm_free(s);
    ircg_svm_options o = {.n_cols = 10};
    s = read_str("1 3:1\n", &o, &d);
    REQUIRE(s);
    CHECK_INT(s->n, 10);
    ircg_svm_free(s);
    o = (ircg_svm_options){.max_rows = 2};
    s = read_str("1 1:1\n2 2:1\n3 3:1\n", &o, &d);
    REQUIRE(s);
    CHECK_INT(s->m, 2);
    ircg_svm_free(s);
    CHECK(ircg_svm_sniff("# c\n\n1 3:0.5\n", 12));
    CHECK(!ircg_svm_sniff("1,2,3\n", 6));
    CHECK(!ircg_svm_sniff("%%MatrixMarket matrix coordinate real general\n", 46));
    CHECK(!ircg_svm_sniff("0.5\n1.5\n", 8));
}

typedef struct bad {
    const char *txt;
    long line;
    const char *why;
} bad;

static const bad BAD[] = {
    {"1 1:1\nx 2:1\n", 2, "label 'x' is not a decimal number"},
    {"1 1:1\n1 2:1 2:3\n", 2, "index 2 after 2: the indices of a row must increase"},
    {"1 3:1 2:1\n", 1, "index 2 after 3"},
    {"1 0:1\n", 1, "index '0' is not an integer in [1, 2^31)"},
    {"1 -1:1\n", 1, "index '-1' is not an integer"},
    {"1 3000000000:1\n", 1, "index '3000000000' is not an integer"},
    {"1 a:1\n", 1, "index 'a' is not"},
    {"1 1:x\n", 1, "value 'x' of index 1 is not a decimal number"},
    {"1 1:1e999\n", 1, "value '1e999' of index 1 is not a finite number"},
    {"1 1:\n", 1, "value '' of index 1"},
    {"\n\n1 1:1 5\n", 3, "'5' is not index:value"},
    {"1 1:1 qid:3\n", 1, "index 'qid' is not"},
    {"1 qid:x 1:1\n", 1, "'qid:x' is not qid:N"},
    {"1e999 1:1\n", 1, "label '1e999' is not a finite number"},
    {"nan 1:1\n", 1, "label 'nan' is not a decimal number"},
    {"# only comments\n\n", 0, "no rows found"},
};

TEST(svm, errors_name_their_line)
{
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        ircg_diag d = {0};
        ircg_svm *s = read_str(BAD[i].txt, NULL, &d);
        CHECK(s == NULL);
        ircg_svm_free(s);
        CHECK_INT(d.line, BAD[i].line);
        char want[32];
        snprintf(want, sizeof want, "line %ld: ", BAD[i].line);
        if (BAD[i].line > 0 && strncmp(d.message, want, strlen(want)) != 0)
            printf("    %s: \"%s\"\n", BAD[i].txt, d.message);
        CHECK(BAD[i].line == 0 || strncmp(d.message, want, strlen(want)) == 0);
        if (!strstr(d.message, BAD[i].why))
            printf("    %s: \"%s\", expected \"%s\"\n", BAD[i].txt, d.message, BAD[i].why);
        CHECK(strstr(d.message, BAD[i].why) != NULL);
    }
    ircg_svm_options o = {.n_cols = 4};
    ircg_diag d = {0};
    CHECK(read_str("1 1:1\n1 5:1\n", &o, &d) == NULL);
    CHECK_STR(d.message, "line 2: index 5 is beyond the 4 columns given");
}

/* A buffer of many rows read whole, by ranges of one line, and by ranges
 * of 97 bytes on 1 and 3 threads: the same arrays; with errors planted
 * on two lines, the first one reported every way. */
TEST(svm, ranges_and_threads_do_not_change_anything)
{
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    REQUIRE(buf);
    uint64_t s = 9;
    for (int i = 0; i < 3000; i++) {
        len += (size_t)snprintf(buf + len, cap - len, "%s%d", i % 7 == 0 ? "# c\n" : "",
                                i % 3 ? 1 : -1);
        for (int j = 1 + (int)(s % 5); j < 60; j += 1 + (int)((s >> 8) % 9)) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            len += (size_t)snprintf(buf + len, cap - len, " %d:%.6g", j,
                                    (double)(s >> 40) / 1e6 - 8);
        }
        len += (size_t)snprintf(buf + len, cap - len, "\n");
    }
    ircg_diag d = {0};
    ircg_svm *a = NULL, *b = NULL, *c = NULL;
    ircg_svm_options one = {.threads = 1}, three = {.threads = 3};
    REQUIRE(ircg_svm_read_buffer(buf, len, &one, &a, &d) == IRCG_OK);
    REQUIRE(slv_svm_read_ranges(buf, len, &three, 1, &b, &d) == IRCG_OK);
    REQUIRE(slv_svm_read_ranges(buf, len, &one, 97, &c, &d) == IRCG_OK);
    CHECK_INT(a->m, 3000);
    for (ircg_svm *x = b; x; x = x == b ? c : NULL) {
        CHECK(x->m == a->m && x->n == a->n && x->nnz == a->nnz);
        CHECK(!memcmp(x->rowptr, a->rowptr, ((size_t)a->m + 1) * sizeof *a->rowptr));
        CHECK(!memcmp(x->colind, a->colind, (size_t)a->nnz * sizeof *a->colind));
        CHECK(!memcmp(x->val, a->val, (size_t)a->nnz * sizeof *a->val));
        CHECK(!memcmp(x->labels, a->labels, (size_t)a->m * sizeof *a->labels));
    }
    ircg_svm_free(a);
    ircg_svm_free(b);
    ircg_svm_free(c);
    /* two errors: line 2001-ish and a later one; the first wins */
    char *p = strstr(buf + len / 2, "\n");
    REQUIRE(p);
    long line = 1;
    for (char *q = buf; q < p; q++)
        line += *q == '\n';
    p[1] = 'x'; /* the label of the next line */
    buf[len - 3] = ':';
    ircg_diag d1 = {0}, d2 = {0}, d3 = {0};
    CHECK(ircg_svm_read_buffer(buf, len, &one, &a, &d1) == IRCG_ERR_PARSE);
    CHECK(slv_svm_read_ranges(buf, len, &three, 1, &b, &d2) == IRCG_ERR_PARSE);
    CHECK(slv_svm_read_ranges(buf, len, &three, 97, &c, &d3) == IRCG_ERR_PARSE);
    CHECK_INT(d1.line, line + 1);
    CHECK_STR(d1.message, d2.message);
    CHECK_STR(d1.message, d3.message);
    free(buf);
}

/* The reader's one-pass number parser (the common [+-]digits[.digits]
 * [e[+-]d..]) gives what strtod gives, bit for bit, on numbers of every
 * form the LIBSVM collection's files hold and then some: %.1g to %.17g,
 * %e and %f of random magnitudes, signs, leading zeros, 19 and 20 digits. */
TEST(svm, numbers_are_read_as_strtod_reads_them)
{
    enum { N = 20000 };
    static char buf[N * 48];
    static double want[N];
    static const char *const fmts[] = {"%.1g", "%.3g", "%.7g", "%.9g", "%.15g", "%.17g",
                                       "%.6e", "%.12e", "%.4f", "%.10f", "+%.5g", "00%.6g",
                                       "%.19g", "%.20g"};
    size_t len = 0;
    uint64_t s = 11;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double mag = pow(10.0, (double)((s >> 40) % 60) - 30);
        double x = ((double)(s >> 11) / 9007199254740992.0 - 0.5) * mag;
        const char *f = fmts[(s >> 20) % (sizeof fmts / sizeof fmts[0])];
        char num[64];
        snprintf(num, sizeof num, f, f[0] == '+' || f[0] == '0' ? fabs(x) : x);
        want[i] = strtod(num, NULL);
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s 1:%s\n", num, num);
    }
    ircg_svm *r = NULL;
    ircg_diag d = {0};
    REQUIRE(ircg_svm_read_buffer(buf, len, NULL, &r, &d) == IRCG_OK);
    int wrong = 0;
    for (int i = 0; i < N; i++) /* == on every double; a zero's sign too */
        wrong += !(r->labels[i] == want[i] && r->val[i] == want[i] &&
                   signbit(r->val[i]) == signbit(want[i]));
    CHECK_INT(wrong, 0);
    ircg_svm_free(r);
}
