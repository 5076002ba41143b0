/*
 * test_spec_dataset.c -- least squares and logistic regression on datasets
 * ({"source": "dataset", "id", "b_id", "A_val_id", "b_val_id"}) through a
 * dataset table of the test's (api_parse_options.dataset_info): each
 * missing, wrong-kind or wrong-shaped dataset refused at its member before
 * anything is read; the build reading the files as files are, into the
 * problem the same data inline builds (the same data digest); the
 * normalized spec and the estimate (exact sizes, from the upload's
 * shapes); and api_dataset_check's kinds and formats on uploads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"
#include "harness.h"
#include "spec.h"

typedef struct fake {
    const char *id;
    api_dataset_meta meta;
    char path[600];
} fake;

static fake table[8];
static int ntable;

static ircg_error info(void *user, const char *id, api_dataset_info *out, ircg_diag *d)
{
    (void)user;
    for (int i = 0; i < ntable; i++)
        if (!strcmp(table[i].id, id)) {
            out->meta = table[i].meta;
            snprintf(out->path, sizeof out->path, "%s", table[i].path);
            return IRCG_OK;
        }
    snprintf(d->message, sizeof d->message, "no dataset with id \"%s\"", id);
    return IRCG_ERR_IO;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A dataset of the table: the file's text and what its upload said. */
static void add(const char *id, const char *kind, const char *format, int rows, int cols,
                int sparse, int labels, const char *text)
{
    fake *t = &table[ntable++];
    t->id = id;
    memset(&t->meta, 0, sizeof t->meta);
    snprintf(t->meta.kind, sizeof t->meta.kind, "%s", kind);
    snprintf(t->meta.format, sizeof t->meta.format, "%s", format);
    t->meta.rows = rows;
    t->meta.cols = cols;
    t->meta.nnz = sparse ? 4 : (int64_t)rows * cols;
    t->meta.sparse = sparse;
    t->meta.labels = labels;
    snprintf(t->path, sizeof t->path, "%s/ds_%s", th_tmpdir(), id);
    write_file(t->path, text);
}

static void setup(void)
{
    if (ntable)
        return;
    add("A", "matrix", "csv", 3, 2, 0, 0, "1,2\n3,4\n5,6.5\n");
    add("b", "vector", "csv", 3, 1, 0, 0, "1\n-2\n0.25\n");
    add("b4", "vector", "csv", 4, 1, 0, 0, "1\n2\n3\n4\n");
    add("Av", "matrix", "csv", 2, 2, 0, 0, "1,0\n0,1\n");
    add("Av3", "matrix", "csv", 2, 3, 0, 0, "1,0,0\n0,1,0\n");
    add("svm", "matrix", "libsvm", 3, 3, 1, 1, "1 1:1 2:2\n-1 3:1\n1 1:0.5\n");
    add("r", "ratings", "movielens", 2, 2, 0, 0, "1::1::5::0\n");
    add("svm_val", "matrix", "libsvm", 2, 5, 1, 1, "1 5:1\n-1 2:3\n");
}

static int parse(const char *json, int build, api_errors *e, api_spec **s)
{
    api_parse_options o;
    setup();
    api_parse_options_default(&o);
    o.build = build;
    o.dataset_info = info;
    char *t = strdup(json);
    for (char *p = t; *p; p++)
        if (*p == '\'')
            *p = '"';
    api_errors_init(e);
    int n = api_spec_parse(t, strlen(t), &o, s, e);
    free(t);
    return n;
}

static const char *reason(const api_errors *e, const char *ptr)
{
    for (int i = 0; i < e->count; i++)
        if (!strcmp(e->items[i].pointer, ptr))
            return e->items[i].reason;
    return NULL;
}

#define HAS(e, ptr, text)                                                             \
    do {                                                                              \
        const char *r_ = reason(e, ptr);                                              \
        if (!r_ || !strstr(r_, text))                                                 \
            th_fail(__FILE__, __LINE__, "%s: %s, expected \"%s\"", ptr,               \
                    r_ ? r_ : "(no error)", text);                                    \
    } while (0)

TEST(spec_dataset, refused_at_each_member_before_anything_is_read)
{
    api_errors e;
    api_spec *s = NULL;
    CHECK(parse("{'problem': {'type': 'least_squares', 'outer': 'validation', 'data': "
                "{'source': 'dataset', 'id': 'nope', 'b_id': 'A', 'A_val_id': 'b', "
                "'b_val': [1]}}}", 0, &e, &s) >= 3);
    HAS(&e, "/problem/data/id", "no dataset with id \"nope\"");
    HAS(&e, "/problem/data/b_id", "holds a matrix, not a vector");
    HAS(&e, "/problem/data/A_val_id", "holds a vector, not a matrix");
    api_errors_clear(&e);
    CHECK(parse("{'problem': {'type': 'least_squares', 'outer': 'validation', 'data': "
                "{'source': 'dataset', 'id': 'A', 'b_id': 'b4', 'A_val_id': 'Av3', "
                "'b_val_id': 'b', 'm': 5}}}", 0, &e, &s) == 4);
    HAS(&e, "/problem/data/b_id", "holds 4 values, dataset A has 3 rows");
    HAS(&e, "/problem/data/A_val_id", "has 3 columns, dataset A has 2");
    HAS(&e, "/problem/data/b_val_id", "holds 3 values, dataset Av3 has 2 rows");
    HAS(&e, "/problem/data/m", "m is 5 but dataset A has 3 rows");
    api_errors_clear(&e);
    CHECK(parse("{'problem': {'type': 'logistic_regression', 'data': {'source': 'dataset', "
                "'id': 'svm', 'b_id': 'b'}}}", 0, &e, &s) == 1);
    HAS(&e, "/problem/data/b_id", "a LIBSVM file, whose labels are its b");
    api_errors_clear(&e);
    CHECK(parse("{'problem': {'type': 'least_squares', 'data': {'source': 'dataset', "
                "'id': 'r', 'b': [1, 2]}}}", 0, &e, &s) == 1);
    HAS(&e, "/problem/data/id", "holds ratings (matrix completion's), not a matrix");
    api_errors_clear(&e);
    CHECK(parse("{'problem': {'type': 'least_squares', 'data': {'source': 'dataset', "
                "'id': 'A'}}}", 0, &e, &s) == 1);
    HAS(&e, "/problem/data/b_id", "missing required member \"b_id\"");
    api_errors_clear(&e);
    /* without the service's table: refused as files outside it are */
    api_parse_options o;
    api_parse_options_default(&o);
    const char *j = "{\"problem\": {\"type\": \"least_squares\", \"data\": {\"source\": "
                    "\"dataset\", \"id\": \"A\", \"b_id\": \"b\"}}}";
    api_errors_init(&e);
    CHECK(api_spec_parse(j, strlen(j), &o, &s, &e) == 1);
    HAS(&e, "/problem/data/source", "only available through the service");
    api_errors_clear(&e);
}

TEST(spec_dataset, built_as_the_same_data_inline)
{
    api_errors e;
    api_spec *ds = NULL, *in = NULL;
    REQUIRE(parse("{'problem': {'type': 'least_squares', 'outer': 'validation', 'data': "
                  "{'source': 'dataset', 'id': 'A', 'b_id': 'b', 'A_val_id': 'Av', "
                  "'b_val': [1, 2]}}}", 1, &e, &ds) == 0);
    api_errors_clear(&e);
    REQUIRE(parse("{'problem': {'type': 'least_squares', 'outer': 'validation', 'data': "
                  "{'source': 'inline', 'A': [[1, 2], [3, 4], [5, 6.5]], 'b': [1, -2, 0.25], "
                  "'A_val': [[1, 0], [0, 1]], 'b_val': [1, 2]}}}", 1, &e, &in) == 0);
    api_errors_clear(&e);
    ircg_problem_info a, b;
    ircg_problem_get_info(api_spec_problem(ds), &a);
    ircg_problem_get_info(api_spec_problem(in), &b);
    CHECK(a.n_rows == 3 && a.n_cols == 2 && a.data_digest == b.data_digest);
    CHECK(a.L_g == b.L_g && a.L_f == b.L_f);
    char *norm = api_spec_normalized_json(ds, 0);
    REQUIRE(norm != NULL);
    CHECK(strstr(norm, "\"source\":\t\"dataset\"") && strstr(norm, "\"id\":\t\"A\"") &&
          strstr(norm, "\"b_id\":\t\"b\"") && strstr(norm, "\"A_val_id\":\t\"Av\""));
    api_estimate est;
    api_spec_estimate(ds, &est);
    CHECK(est.exact && est.rows == 3 && est.cols == 2 && est.ratings == 6);
    free(norm);
    api_spec_free(ds);
    api_spec_free(in);
    /* a LIBSVM dataset: its labels are b, mapped for logistic regression */
    REQUIRE(parse("{'problem': {'type': 'logistic_regression', 'data': {'source': 'dataset', "
                  "'id': 'svm'}}}", 1, &e, &ds) == 0);
    api_errors_clear(&e);
    ircg_problem_get_info(api_spec_problem(ds), &a);
    CHECK(a.n_rows == 3 && a.n_cols == 3);
    api_spec_free(ds);
    /* validation rows of LIBSVM reaching feature 5: the columns are 5, and
     * the normalized spec (which the service's worker parses) says so */
    REQUIRE(parse("{'problem': {'type': 'logistic_regression', 'outer': 'validation', "
                  "'data': {'source': 'dataset', 'id': 'svm', 'A_val_id': 'svm_val'}}}", 0, &e,
                  &ds) == 0);
    api_errors_clear(&e);
    norm = api_spec_normalized_json(ds, 0);
    api_spec_free(ds);
    REQUIRE(norm && parse(norm, 1, &e, &ds) == 0);
    api_errors_clear(&e);
    ircg_problem_get_info(api_spec_problem(ds), &a);
    CHECK(a.n_cols == 5 && strstr(norm, "\"n\":\t5"));
    free(norm);
    api_spec_free(ds);
}

/* api_dataset_check: kind and format told, or refused when they clash. */
TEST(spec_dataset, upload_checks_tell_kinds_and_formats)
{
    static const struct {
        const char *text, *kind, *format;
        int rc;
        const char *got_kind, *got_format, *why;
        int64_t rows, cols;
    } cases[] = {
        {"1::1::5::0\n2::3::4::0\n", NULL, NULL, API_CHECK_OK, "ratings", "movielens", NULL, 2, 3},
        {"1,2,3\n4,5,6\n", NULL, NULL, API_CHECK_OK, "ratings", "csv", NULL, 4, 5},
        {"1,2,3\n4,5,6\n", "matrix", NULL, API_CHECK_OK, "matrix", "csv", NULL, 2, 3},
        {"1,2,3\n4,5,6\n", "vector", "csv", API_CHECK_OK, "vector", "csv", NULL, 6, 1},
        {"1 1:2 3:4\n-1 2:1\n", NULL, NULL, API_CHECK_OK, "matrix", "libsvm", NULL, 2, 3},
        {"%%MatrixMarket matrix coordinate real general\n3 4 1\n2 2 1.5\n", "matrix", NULL,
         API_CHECK_OK, "matrix", "matrix_market", NULL, 3, 4},
        {"1,2\n3\n", "matrix", NULL, API_CHECK_BAD_DATA, "", "", "line 2:", 0, 0},
        {"1 1:2\n", "vector", NULL, API_CHECK_INVALID, "", "", "libsvm does not hold a vector",
         0, 0},
        {"1,2\n", "matrix", "npy", API_CHECK_BAD_DATA, "", "", "not a npy file", 0, 0},
        {"1,2\n", "table", NULL, API_CHECK_INVALID, "", "", "kind \"table\"", 0, 0},
        {"1,2\n", NULL, "xlsx", API_CHECK_INVALID, "", "", "format \"xlsx\"", 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char path[600];
        api_dataset_meta m;
        api_read_error e;
        snprintf(path, sizeof path, "%s/upload_%zu", th_tmpdir(), k);
        write_file(path, cases[k].text);
        api_check_rc rc = api_dataset_check(path, cases[k].kind, cases[k].format, NULL, NULL,
                                            &m, &e);
        if ((int)rc != cases[k].rc || (rc == API_CHECK_OK &&
                                       (strcmp(m.kind, cases[k].got_kind) ||
                                        strcmp(m.format, cases[k].got_format) ||
                                        m.rows != cases[k].rows || m.cols != cases[k].cols)) ||
            (cases[k].why && !strstr(e.message, cases[k].why)))
            th_fail(__FILE__, __LINE__, "case %zu: rc %d kind %s format %s %lld x %lld: %s", k,
                    rc, m.kind, m.format, (long long)m.rows, (long long)m.cols, e.message);
    }
}
