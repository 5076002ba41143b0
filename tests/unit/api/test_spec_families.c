/*
 * test_spec_families.c -- the spec of the families beyond the paper's:
 * least squares with validation rows (inline, CSV and Matrix Market files,
 * the generator's extra rows) and the "validation" outer objective, and
 * "logistic_regression"; every error names its member.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "spec.h"
#include "test_spec_util.h"


static int parse(const char *json, api_errors *e, api_spec **out)
{
    return tspec_parse(json, th_tmpdir(), e, out);
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

#define LSV "{'problem':{'type':'least_squares','outer':'validation','data':"
#define TRAIN "'A':[[1,0,2],[0,1,1]],'b':[1,2]"

TEST(spec_families, validation_rows_inline_and_the_outer_objective)
{
    api_spec *s = parse_ok(LSV "{'source':'inline'," TRAIN ",'A_val':[[3,4,0]],"
                           "'b_val':[1]}}}");
    REQUIRE(s != NULL);
    ircg_problem_info pi;
    ircg_problem_get_info(api_spec_problem(s), &pi);
    CHECK_INT(pi.outer, IRCG_OUTER_VALIDATION);
    CHECK_NEAR(pi.L_f, 25, 1e-12); /* ||[3 4 0]||^2 */
    char *norm = api_spec_normalized_json(s, 0);
    REQUIRE(norm != NULL);
    CHECK(strstr(norm, "\"outer\":\t{\n\t\t\t\"type\":\t\"validation\"") != NULL);
    CHECK(strstr(norm, "\"A_val\"") && strstr(norm, "\"b_val\""));
    api_spec *t = parse_ok(norm); /* the normalized spec parses back the same */
    char *norm2 = t ? api_spec_normalized_json(t, 0) : NULL;
    CHECK(norm2 && !strcmp(norm, norm2));
    free(norm);
    free(norm2);
    api_spec_free(t);
    api_spec_free(s);
    expect_error(LSV "{'source':'inline'," TRAIN "}}}", "/problem/outer",
                 "needs validation rows");
    expect_error("{'problem':{'type':'least_squares','data':{'source':'inline'," TRAIN
                 ",'A_val':[[3,4,0]],'b_val':[1]}}}", "/problem/data/A_val",
                 "only read with");
    expect_error(LSV "{'source':'inline'," TRAIN ",'A_val':[[3,4,0]]}}}",
                 "/problem/data/b_val", "missing required member");
    expect_error(LSV "{'source':'inline'," TRAIN ",'A_val':[[3,4]],'b_val':[1]}}}",
                 "/problem/data/A_val", "2 columns, A has 3");
    expect_error(LSV "{'source':'inline'," TRAIN ",'A_val':[[3,4,0]],'b_val':[1,2]}}}",
                 "/problem/data/b_val", "does not match");
}

TEST(spec_families, synthetic_validation_rows_extend_the_training_rows)
{
    api_spec *a = parse_ok(LSV "{'source':'synthetic','m':6,'n':9,'m_val':4,'seed':3}}}");
    api_spec *b = parse_ok("{'problem':{'type':'least_squares','data':{'source':'synthetic',"
                           "'m':6,'n':9,'seed':3}}}");
    REQUIRE(a && b);
    ircg_problem_info pa, pb;
    ircg_problem_get_info(api_spec_problem(a), &pa);
    ircg_problem_get_info(api_spec_problem(b), &pb);
    CHECK(pa.L_g == pb.L_g); /* the same training rows */
    CHECK(pa.L_f > 0 && pa.L_f != 1);
    char *norm = api_spec_normalized_json(a, 0);
    CHECK(norm && strstr(norm, "\"m_val\":\t4"));
    free(norm);
    api_spec_free(a);
    api_spec_free(b);
    expect_error("{'problem':{'type':'least_squares','data':{'source':'synthetic','m_val':4}}}",
                 "/problem/data/m_val", "only read with");
}

TEST(spec_families, csv_and_matrix_market_files)
{
    write_file("A.csv", "x1,x2,x3\n1,0,2\n0, 1, 1\n\n");
    write_file("b.csv", "y\n1\n2\n");
    write_file("Av.mtx", "%%MatrixMarket matrix coordinate real general\n1 3 2\n1 1 3\n1 2 4\n");
    write_file("ragged.csv", "1,2,3\n4,5\n");
    write_file("text.csv", "1,2,3\n4,five,6\n");
    write_file("bad_b.csv", "y\n1\nx\n");
    api_spec *s = parse_ok(LSV "{'source':'file','A_path':'A.csv','b_path':'b.csv',"
                           "'A_val_path':'Av.mtx','b_val':[1]}}}");
    REQUIRE(s != NULL);
    ircg_problem_info pi;
    ircg_problem_get_info(api_spec_problem(s), &pi);
    CHECK_INT(pi.n_rows, 2);
    CHECK_INT(pi.n_cols, 3);
    CHECK_NEAR(pi.L_f, 25, 1e-12);
    CHECK_NEAR(pi.L_g, 6, 1e-12); /* lambda_max(A A') = lambda_max [[5,2],[2,2]] */
    api_spec_free(s);
    expect_error("{'problem':{'type':'least_squares','data':{'source':'file',"
                 "'A_path':'ragged.csv','b':[1,2]}}}", "/problem/data/A_path",
                 "ragged.csv: line 2: 2 fields, the first row has 3");
    expect_error("{'problem':{'type':'least_squares','data':{'source':'file',"
                 "'A_path':'A.csv','b_path':'bad_b.csv'}}}", "/problem/data/b_path",
                 "bad_b.csv: line 3: 'x' is not a decimal number");
    expect_error("{'problem':{'type':'least_squares','data':{'source':'file',"
                 "'A_path':'text.csv','b':[1,2]}}}", "/problem/data/A_path",
                 "text.csv: line 2: 'five' is not a decimal number (field 2)");
    expect_error(LSV "{'source':'file','A_path':'A.csv','b_path':'b.csv',"
                 "'A_val_path':'A.csv','b_val':[1]}}}", "/problem/data/b_val",
                 "length 1 does not match the 2 rows");
}

/* Without a build (the service's submit), a file's head is still checked. */
TEST(spec_families, unbuilt_specs_probe_csv_files)
{
    write_file("ragged2.csv", "1,2,3\n4,5\n");
    api_parse_options opt;
    api_parse_options_default(&opt);
    opt.base_dir = th_tmpdir();
    opt.build = 0;
    api_errors e;
    api_spec *s = NULL;
    char *t = tspec_dq("{'problem':{'type':'least_squares','data':{'source':'file',"
                 "'A_path':'ragged2.csv','b':[1,2]}}}");
    api_errors_init(&e);
    CHECK_INT(api_spec_parse(t, strlen(t), &opt, &s, &e), 1);
    CHECK(e.count == 1 && !strcmp(e.items[0].pointer, "/problem/data/A_path") &&
          strstr(e.items[0].reason, "line 2: 2 fields"));
    api_errors_clear(&e);
    free(t);
}

#define LR "{'problem':{'type':'logistic_regression','data':"

TEST(spec_families, logistic_regression)
{
    api_spec *s = parse_ok(LR "{'source':'inline','A':[[1,0],[0,1],[1,1]],'b':[0,1,1]},"
                           "'domain':{'type':'l1_ball','radius':2}},"
                           "'algorithm':{'step_rule':'line_search'}}");
    REQUIRE(s != NULL);
    CHECK_INT(api_spec_kind(s), IRCG_PROBLEM_LOGISTIC);
    ircg_problem_info pi;
    ircg_problem_get_info(api_spec_problem(s), &pi);
    CHECK_NEAR(pi.L_g, 0.75, 1e-14);
    char *norm = api_spec_normalized_json(s, 0);
    CHECK(norm && strstr(norm, "\"type\":\t\"logistic_regression\""));
    free(norm);
    api_spec_free(s);
    s = parse_ok(LR "{'source':'synthetic','m':20,'n':5,'m_val':10,'noise':0.3},"
                 "'outer':'validation'}}");
    CHECK(s != NULL);
    api_spec_free(s);
    expect_error(LR "{'source':'inline','A':[[1,0],[0,1]],'b':[1,2]}}}",
                 "/problem/data/b", "labels must all be -1 or +1");
    s = parse_ok(LR "{'source':'inline','A':[[1,0],[0,1]],'b':[1,-1]},"
                 "'outer':{'type':'quadratic','Q':[[1,0],[0,1]]}}}"); /* fair classification's */
    CHECK(s != NULL);
    api_spec_free(s);
    expect_error(LR "{'source':'inline','A':[[1,0],[0,1]],'b':[1,-1]}},"
                 "'algorithm':{'name':'cgbio'}}", "/algorithm/name",
                 "CG-BiO is not available for logistic regression");
    expect_error(LR "{'source':'inline','A':[[1,0],[0,1]],'b':[1,-1]}},"
                 "'algorithm':{'name':'irpg'}}", "/algorithm/name",
                 "IR-PG is not available");
}
