/*
 * test_spec_sto.c -- the spec of issue 28: LIBSVM files as least-squares
 * and logistic-regression data (the format told by the head, the labels
 * as b or mapped to +-1 with the map stated, validation files widening the
 * columns, every error at its member with "path: line N"), the synthetic
 * shapes of the literature (sparse, adult, msd, msd on a file's features),
 * and the members of IR-SCG and IR-FSCG (batch, q, seed; p's default; the
 * refusals), with the result's samples and "stochastic".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "result.h"
#include "spec.h"
#include "test_spec_util.h"

static int parse(const char *json, api_errors *e, api_spec **out)
{
    return tspec_parse(json, th_tmpdir(), e, out);
}

static void write_file(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", th_tmpdir(), name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The spec has exactly one error, at ptr, whose reason contains why. */
static void expect_error(const char *json, const char *ptr, const char *why)
{
    api_errors e;
    api_spec *s = NULL;
    int n = parse(json, &e, &s);
    int found = 0;
    for (int i = 0; i < e.count; i++)
        found |= !strcmp(e.items[i].pointer, ptr) && strstr(e.items[i].reason, why);
    if (n != 1 || !found) {
        th_fail(__FILE__, __LINE__, "%s: %d errors, expected %s (%s)", json, n, ptr, why);
        for (int i = 0; i < e.count; i++)
            printf("      got %s: %s\n", e.items[i].pointer, e.items[i].reason);
    }
    api_spec_free(s);
    api_errors_clear(&e);
}

static api_spec *parse_ok(const char *json)
{
    api_errors e;
    api_spec *s = NULL;
    if (parse(json, &e, &s) != 0) {
        th_fail(__FILE__, __LINE__, "%s rejected", json);
        for (int i = 0; i < e.count; i++)
            printf("      got %s: %s\n", e.items[i].pointer, e.items[i].reason);
    }
    api_errors_clear(&e);
    return s;
}

/* The normalized spec contains want; it parses back to itself. */
static void norm_has(const api_spec *s, const char *want)
{
    char *norm = api_spec_normalized_json(s, 0);
    REQUIRE(norm);
    if (!strstr(norm, want))
        th_fail(__FILE__, __LINE__, "normalized spec lacks %s:\n%s", want, norm);
    api_errors e;
    api_spec *t = NULL;
    if (tspec_parse(norm, th_tmpdir(), &e, &t) != 0) /* the normalized spec parses back */
        th_fail(__FILE__, __LINE__, "reparse: %s: %s", e.count ? e.items[0].pointer : "",
                e.count ? e.items[0].reason : "");
    char *again = t ? api_spec_normalized_json(t, 0) : NULL;
    CHECK(again && !strcmp(again, norm)); /* to itself */
    api_errors_clear(&e);
    free(again);
    free(norm);
    api_spec_free(t);
}

#define LS "{'problem':{'type':'least_squares','data':"
#define LR "{'problem':{'type':'logistic_regression','data':"

TEST(spec_sto, libsvm_files_for_least_squares_and_logistic_regression)
{
    write_file("s.svm", "# a LIBSVM file\n+1 1:0.5 3:1\n-1 2:-1\n+1 qid:2 1:2 3:0.25 # c\n");
    api_spec *s = parse_ok(LS "{'source':'file','A_path':'s.svm'}}}");
    REQUIRE(s);
    ircg_problem_info pi;
    ircg_problem_get_info(api_spec_problem(s), &pi);
    CHECK_INT(pi.n_rows, 3);
    CHECK_INT(pi.n_cols, 3);
    norm_has(s, "\"format\":\t\"libsvm\"");
    api_spec_free(s);
    s = parse_ok(LR "{'source':'file','A_path':'s.svm'}}}");
    REQUIRE(s);
    norm_has(s, "\"positive\":\t1");
    api_spec_free(s);
    /* labels 1/2: the larger is +1, and the map is stated */
    write_file("c.svm", "1 1:1\n2 2:1\n2 1:1 2:1\n");
    s = parse_ok(LR "{'source':'file','format':'libsvm','A_path':'c.svm'}}}");
    REQUIRE(s);
    norm_has(s, "\"positive\":\t2");
    api_spec_free(s);
    write_file("k.svm", "1 1:1\n2 2:1\n3 1:1 2:1\n");
    expect_error(LR "{'source':'file','A_path':'k.svm'}}}", "/problem/data/positive",
                 "more than two values");
    s = parse_ok(LR "{'source':'file','A_path':'k.svm','positive':3}}}"); /* one vs rest */
    CHECK(s != NULL);
    api_spec_free(s);
    expect_error(LS "{'source':'file','A_path':'s.svm','positive':1}}}",
                 "/problem/data/positive", "applies to logistic regression only");
    expect_error(LS "{'source':'file','A_path':'s.svm','b':[1,2,3]}}}", "/problem/data/b",
                 "whose labels are its b");
    write_file("bad.svm", "1 1:1\n1 2:1 2:3\n");
    expect_error(LS "{'source':'file','A_path':'bad.svm'}}}", "/problem/data/A_path",
                 "bad.svm: line 2: index 2 after 2");
    /* the head is checked at submission (build = 0) */
    write_file("head.svm", "1 1:1\nx 2:1\n");
    api_parse_options o;
    api_parse_options_default(&o);
    o.build = 0;
    o.base_dir = th_tmpdir();
    char *t = tspec_dq(LS "{'source':'file','A_path':'head.svm'}}}");
    api_errors e;
    api_errors_init(&e);
    api_spec *u = NULL;
    CHECK_INT(api_spec_parse(t, strlen(t), &o, &u, &e), 1);
    CHECK(e.count == 1 && strstr(e.items[0].reason, "head.svm: line 2: label 'x'"));
    api_errors_clear(&e);
    free(t);
}

TEST(spec_sto, libsvm_validation_file_widens_the_columns)
{
    write_file("tr.svm", "1 1:1 2:1\n-1 3:1\n");
    write_file("va.svm", "1 5:1\n-1 1:1\n");
    api_spec *s = parse_ok(LR "{'source':'file','A_path':'tr.svm','A_val_path':'va.svm'},"
                           "'outer':'validation'}}");
    REQUIRE(s);
    ircg_problem_info pi;
    ircg_problem_get_info(api_spec_problem(s), &pi);
    CHECK_INT(pi.n_cols, 5); /* a1a's training rows reach 119, its test rows 123 */
    norm_has(s, "\"n\":\t5");
    api_spec_free(s);
    expect_error(LR "{'source':'file','A_path':'tr.svm','A_val_path':'va.svm','n':4},"
                 "'outer':'validation'}}", "/problem/data/A_val_path",
                 "index 5 is beyond the 4 columns given");
    write_file("va.csv", "1,0,0,0,0\n");
    expect_error(LR "{'source':'file','A_path':'tr.svm','A_val_path':'va.csv'},"
                 "'outer':'validation'}}", "/problem/data/A_val_path", "give both in one format");
}

TEST(spec_sto, synthetic_shapes)
{
    api_spec *s = parse_ok(LS "{'source':'synthetic','shape':'sparse','m':100,'n':40,"
                           "'nnz_row':5,'m_val':20},'outer':'validation'}}");
    REQUIRE(s);
    norm_has(s, "\"nnz_row\":\t5");
    api_spec_free(s);
    s = parse_ok(LR "{'source':'synthetic','shape':'adult','m':300}}}");
    REQUIRE(s);
    ircg_problem_info pi;
    ircg_problem_get_info(api_spec_problem(s), &pi);
    CHECK_INT(pi.n_cols, 123);
    api_spec_free(s);
    s = parse_ok(LS "{'source':'synthetic','shape':'msd','m':50,'n':120}}}");
    REQUIRE(s);
    api_spec_free(s);
    expect_error(LS "{'source':'synthetic','shape':'adult','n':100}}}", "/problem/data/n",
                 "123 columns");
    expect_error(LS "{'source':'synthetic','shape':'adult','nnz_row':3}}}",
                 "/problem/data/nnz_row", "applies to the shape \"sparse\" only");
    expect_error(LS "{'source':'synthetic','shape':'sparse','n':10,'nnz_row':11}}}",
                 "/problem/data/nnz_row", "at most n = 10");
    expect_error(LS "{'source':'synthetic','shape':'cube'}}}", "/problem/data/shape",
                 "unknown value");
    /* msd on a file's features: 90 per row, the year first */
    char row[4096];
    size_t len = 0;
    for (int i = 0; i < 30; i++) {
        len += (size_t)snprintf(row + len, sizeof row - len, "%d", 1990 + i % 7);
        for (int q = 1; q <= 90; q += 9)
            len += (size_t)snprintf(row + len, sizeof row - len, " %d:%d", q, (i * q) % 11);
        len += (size_t)snprintf(row + len, sizeof row - len, "\n");
    }
    write_file("msd.svm", row);
    s = parse_ok(LS "{'source':'synthetic','shape':'msd','m':20,'n':30,"
                 "'features_path':'msd.svm'}}}");
    REQUIRE(s);
    norm_has(s, "\"features_path\":\t\"msd.svm\"");
    api_spec_free(s);
    expect_error(LS "{'source':'synthetic','shape':'msd','m':40,'n':30,"
                 "'features_path':'msd.svm'}}}", "/problem/data/features_path",
                 "msd.svm: 30 rows, the instance needs 40 (m + m_val)");
    expect_error(LS "{'source':'synthetic','features_path':'msd.svm'}}}",
                 "/problem/data/features_path", "applies to the shape \"msd\" only");
}

#define LSD "{'source':'inline','A':[[1,0,2],[0,1,1],[1,1,0]],'b':[1,2,0]}"

TEST(spec_sto, algorithm_members)
{
    api_spec *s = parse_ok(LS LSD "},'algorithm':{'name':'ir-scg','batch':2,'seed':7}}");
    REQUIRE(s);
    ircg_settings st;
    api_spec_settings(s, &st);
    CHECK_INT(st.algorithm, IRCG_ALG_IRSCG);
    CHECK(st.p == 0.25 && st.batch == 2 && st.seed == 7);
    norm_has(s, "\"name\":\t\"ir-scg\"");
    norm_has(s, "\"p\":\t0.25");
    api_spec_free(s);
    s = parse_ok(LS LSD "},'algorithm':{'name':'ir-fscg','q':3,'p':0.4}}");
    REQUIRE(s);
    api_spec_settings(s, &st);
    CHECK(st.q == 3 && st.p == 0.4 && st.batch == 0 && st.seed == 1);
    /* a solve, and its result's members */
    ircg_solver *sv = NULL;
    st.max_iter = 20;
    REQUIRE(ircg_solver_new(api_spec_problem(s), &st, &sv, NULL) == IRCG_OK);
    ircg_info in;
    REQUIRE(ircg_solve(sv, &in) == IRCG_OK);
    api_result r = {.info = &in, .settings = &st, .g_opt = NAN};
    char *js = api_result_json(&r);
    REQUIRE(js);
    CHECK(strstr(js, "\"algorithm\":\"ir-fscg\"") != NULL);
    CHECK(strstr(js, "\"stochastic\":{\"batch\":1,\"q\":3,\"seed\":1}") != NULL);
    CHECK(strstr(js, "\"samples\":") != NULL);
    free(js);
    ircg_solver_free(sv);
    api_spec_free(s);
    expect_error(LS LSD "},'algorithm':{'name':'ir-scg','q':3}}", "/algorithm/q",
                 "applies to ir-fscg only");
    expect_error(LS LSD "},'algorithm':{'batch':3}}", "/algorithm/batch",
                 "applies to ir-scg and ir-fscg only");
    expect_error(LS LSD "},'algorithm':{'name':'ir-scg','step_rule':'line_search'}}",
                 "/algorithm/step_rule", "applies to ircg only");
    expect_error(LS LSD "},'algorithm':{'name':'ir-fscg','gap_tol':1e-3}}", "/algorithm/gap_tol",
                 "an estimate");
    expect_error(LS LSD "},'algorithm':{'name':'ir-scg','batch':-1}}", "/algorithm/batch",
                 "out of range");
    expect_error("{'problem':{'type':'matrix_completion','data':{'source':'inline','ratings':"
                 "[[1,1,5],[2,2,3]]}},'algorithm':{'name':'ir-scg'}}", "/algorithm/name",
                 "not available for matrix_completion problems");
}
