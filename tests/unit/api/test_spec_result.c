/*
 * test_spec_result.c -- result JSON and trace CSV / JSON lines on a tiny
 * solved least squares instance, parsed back and compared with the values
 * of the public API; the certificate and the warnings a result carries.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "harness.h"
#include "result.h"
#include "spec.h"

typedef struct rows {
    ircg_iter_info it[64];
    int n;
} rows;

static int keep(void *user, const ircg_iter_info *it)
{
    rows *r = user;
    if (r->n < 64)
        r->it[r->n++] = *it;
    return 0;
}

static const char SPEC[] =
    "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"inline\","
    "\"A\":[[1,0,2,0.5],[0,1,1,-1]],\"b\":[1,2]},\"domain\":{\"type\":\"l2_ball\","
    "\"radius\":3}},\"algorithm\":{\"max_iter\":20}}";

static double jnum(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

TEST(spec_result, json_and_traces)
{
    api_spec *s = NULL;
    api_errors e;
    api_errors_init(&e);
    REQUIRE(api_spec_parse(SPEC, strlen(SPEC), NULL, &s, &e) == 0);
    ircg_settings st;
    api_spec_settings(s, &st);
    rows rs = {0};
    st.callback = keep;
    st.callback_data = &rs;
    ircg_solver *sv = NULL;
    ircg_info info = {0};
    REQUIRE(ircg_solver_new(api_spec_problem(s), &st, &sv, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(sv, &info) == IRCG_OK);
    ircg_iterate *x = NULL, *z = NULL;
    REQUIRE(ircg_solver_iterate(sv, IRCG_X, 0, &x) == IRCG_OK);
    REQUIRE(ircg_solver_iterate(sv, IRCG_Z, 0, &z) == IRCG_OK);
    api_result r = {&info, IRCG_OK, NULL, NULL, NAN, x, z, &st, NULL, NULL};
    char *text = api_result_json(&r);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    REQUIRE(j != NULL);
    CHECK_STR(cJSON_GetObjectItem(j, "status")->valuestring, ircg_status_string(info.status));
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "error")));
    CHECK_STR(cJSON_GetObjectItem(j, "algorithm")->valuestring, "ircg");
    CHECK_INT(jnum(j, "lmo_unconverged"), info.lmo_unconverged);
    CHECK(!cJSON_GetObjectItem(j, "projections") && !cJSON_GetObjectItem(j, "warmup_seconds"));
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "g_opt")));
    CHECK_INT(jnum(j, "iterations"), 20);
    /* exact round trip of every double */
    CHECK(jnum(j, "g_x") == info.g_x);
    CHECK(jnum(j, "f_x") == info.f_x);
    CHECK(jnum(j, "g_z") == info.g_z);
    CHECK(jnum(j, "f_z") == info.f_z);
    CHECK(jnum(j, "solve_seconds") == info.solve_seconds);
    const cJSON *jz = cJSON_GetObjectItem(j, "z");
    CHECK_STR(cJSON_GetObjectItem(jz, "kind")->valuestring, "vector");
    const cJSON *vals = cJSON_GetObjectItem(jz, "values");
    REQUIRE(cJSON_GetArraySize(vals) == 4);
    for (int i = 0; i < 4; i++)
        CHECK(cJSON_GetArrayItem(vals, i)->valuedouble == z->dense[i]);
    vals = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "x"), "values");
    for (int i = 0; i < 4; i++)
        CHECK(cJSON_GetArrayItem(vals, i)->valuedouble == x->dense[i]);
    cJSON_Delete(j);
    free(text);

    /* traces: header + row field count, values read back exactly */
    REQUIRE(rs.n == 20);
    char row[1024];
    int commas = 0;
    for (const char *p = API_TRACE_CSV_HEADER; *p; p++)
        commas += *p == ',';
    CHECK_INT(commas, 23);
    CHECK(strstr(API_TRACE_CSV_HEADER, ",rank,lmo_converged,backtracks,proj_full,lambda,"
                 "certified,inner_gap_x,inner_gap_z,g_lower,f_lower\n"));
    const ircg_iter_info *it = &rs.it[rs.n - 1];
    int len = api_trace_csv_row(row, sizeof row, it);
    CHECK(len > 0 && row[len - 1] == '\n');
    int fc = 0;
    for (const char *p = row; *p; p++)
        fc += *p == ',';
    CHECK_INT(fc, 23);
    CHECK(strtoll(row, NULL, 10) == it->t);
    char *f = strchr(row, ',') + 1; /* elapsed */
    CHECK(strtod(f, NULL) == it->elapsed);
    for (int k = 0; k < 3; k++)
        f = strchr(f, ',') + 1; /* g_x */
    CHECK(strtod(f, NULL) == it->g_x);
    /* NaN fields (no reference: g_gap_x) are empty in CSV, null in JSON */
    CHECK(strstr(row, ",,") != NULL);
    api_trace_json_row(row, sizeof row, it);
    j = cJSON_Parse(row);
    REQUIRE(j != NULL);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "g_gap_x")));
    CHECK(jnum(j, "f_z") == it->f_z);
    CHECK(jnum(j, "gap") == it->gap || (isnan(it->gap) && cJSON_IsNull(cJSON_GetObjectItem(j, "gap"))));
    CHECK_INT(jnum(j, "t"), it->t);
    cJSON_Delete(j);

    ircg_iterate_free(x);
    ircg_iterate_free(z);
    ircg_solver_free(sv);
    api_spec_free(s);
}

TEST(spec_result, fmt_double)
{
    char b[32];
    double v[] = {0.1, 1.0 / 3, 1e-300, -2.5e17, 5, 123456789.123456789};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        CHECK(strtod(api_fmt_double(b, v[i]), NULL) == v[i]);
    CHECK_STR(api_fmt_double(b, 0.1), "0.1");
    CHECK_STR(api_fmt_double(b, NAN), "null");
    CHECK_STR(api_fmt_double(b, -INFINITY), "null");
}

TEST(spec_result, failed_result_has_error)
{
    ircg_info info = {0};
    info.g_x = NAN;
    api_result r = {&info, IRCG_ERR_NUMERICAL, "LAPACK \"dpotrf\" failed", NULL, NAN, NULL, NULL, NULL, NULL, NULL};
    char *text = api_result_json(&r);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    REQUIRE(j != NULL);
    const cJSON *err = cJSON_GetObjectItem(j, "error");
    CHECK_STR(cJSON_GetObjectItem(err, "message")->valuestring, "LAPACK \"dpotrf\" failed");
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "g_x")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "algorithm"))); /* no settings given */
    cJSON_Delete(j);
    free(text);
    /* no message: one naming the failure and the iteration, never "" */
    info.iterations = 17;
    r.error_message = "";
    text = api_result_json(&r);
    j = text ? cJSON_Parse(text) : NULL;
    REQUIRE(j != NULL);
    const char *msg = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "error"), "message")->valuestring;
    CHECK(strstr(msg, "numerical kernel broke down") && strstr(msg, "after 17 iterations"));
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "error"), "code")->valuestring,
              "numerical breakdown");
    cJSON_Delete(j);
    free(text);
}

/* IR-PG and Bi-SG on least squares: the result names the algorithm and
 * its projections; the trace's new columns carry the iteration's values. */
static void baseline_run(const char *alg_json, const char *name)
{
    char spec[512];
    snprintf(spec, sizeof spec,
             "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":"
             "\"synthetic\",\"m\":6,\"n\":15},\"domain\":{\"type\":\"l1_ball\","
             "\"radius\":2}},\"algorithm\":%s}", alg_json);
    api_spec *s = NULL;
    REQUIRE(api_spec_parse(spec, strlen(spec), NULL, &s, NULL) == 0);
    ircg_settings st;
    api_spec_settings(s, &st);
    rows rs = {0};
    st.callback = keep;
    st.callback_data = &rs;
    ircg_solver *sv = NULL;
    ircg_info info = {0};
    REQUIRE(ircg_solver_new(api_spec_problem(s), &st, &sv, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(sv, &info) == IRCG_OK);
    api_result r = {&info, IRCG_OK, NULL, NULL, NAN, NULL, NULL, &st, NULL, NULL};
    char *text = api_result_json(&r);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    REQUIRE(j != NULL);
    CHECK_STR(cJSON_GetObjectItem(j, "algorithm")->valuestring, name);
    const cJSON *pr = cJSON_GetObjectItem(j, "projections");
    REQUIRE(cJSON_IsObject(pr));
    CHECK_STR(cJSON_GetObjectItem(pr, "mode")->valuestring, "full");
    CHECK_INT(jnum(pr, "partial"), info.proj_partial);
    CHECK_INT(jnum(pr, "full"), info.proj_full);
    CHECK(!cJSON_GetObjectItem(j, "warmup_iterations"));
    cJSON_Delete(j);
    free(text);
    int backtracks = 0;
    for (int i = 0; i < rs.n; i++) {
        char row[API_TRACE_ROW_MAX + 1];
        const ircg_iter_info *it = &rs.it[i];
        backtracks += it->backtracks;
        api_trace_json_row(row, sizeof row, it);
        cJSON *o = cJSON_Parse(row);
        REQUIRE(o != NULL);
        CHECK_INT(jnum(o, "lmo_converged"), it->lmo_converged);
        CHECK_INT(jnum(o, "backtracks"), it->backtracks);
        CHECK_INT(jnum(o, "proj_full"), it->proj_full);
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(o, "lambda"))); /* NaN but for CG-BiO */
        cJSON_Delete(o);
        /* CSV: lmo_converged, backtracks, proj_full, lambda, certified */
        api_trace_csv_row(row, sizeof row, it);
        char *f = row;
        for (int k = 0; k < 15; k++)
            f = strchr(f, ',') + 1;
        int lc = -1, bt = -1, pf = -1, ce = -1;
        CHECK(sscanf(f, "%d,%d,%d,,%d,", &lc, &bt, &pf, &ce) == 4); /* lambda empty */
        CHECK(lc == it->lmo_converged && bt == it->backtracks && pf == it->proj_full);
        CHECK(ce == it->certified);
    }
    if (!strcmp(name, "irpg")) { /* a first step of 50 is too long: Armijo cuts it */
        printf("    irpg: %d backtracks in %d iterations\n", backtracks, rs.n);
        CHECK(backtracks > 0);
    }
    ircg_solver_free(sv);
    api_spec_free(s);
}

TEST(spec_result, baselines)
{
    baseline_run("{\"name\":\"irpg\",\"projection\":\"full\",\"irpg_step\":50,"
                 "\"max_iter\":30}", "irpg");
    baseline_run("{\"name\":\"bisg\",\"projection\":\"full\",\"max_iter\":30}", "bisg");
}

/* CG-BiO's own members, from the values given. */
TEST(spec_result, cgbio_members)
{
    ircg_settings st;
    ircg_settings_default(&st);
    st.algorithm = IRCG_ALG_CGBIO;
    ircg_info info = {0};
    info.status = IRCG_STATUS_MAX_ITER;
    info.warmup_iterations = 1234;
    info.warmup_seconds = 0.375;
    info.lmo_unconverged = 3;
    api_result r = {&info, IRCG_OK, NULL, NULL, NAN, NULL, NULL, &st, NULL, NULL};
    char *text = api_result_json(&r);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    REQUIRE(j != NULL);
    CHECK_STR(cJSON_GetObjectItem(j, "algorithm")->valuestring, "cgbio");
    CHECK_INT(jnum(j, "warmup_iterations"), 1234);
    CHECK(jnum(j, "warmup_seconds") == 0.375);
    CHECK_INT(jnum(j, "lmo_unconverged"), 3);
    CHECK(!cJSON_GetObjectItem(j, "projections"));
    cJSON_Delete(j);
    free(text);
}

/* The longest possible row fits API_TRACE_ROW_MAX (the server and the CLI
 * size their buffers by it). */
TEST(spec_result, longest_trace_row)
{
    ircg_iter_info it;
    const double worst = -2.2250738585072014e-308; /* 24 characters */
    it.t = INT64_MIN;
    it.elapsed = it.sigma = it.alpha = it.g_x = it.f_x = it.g_z = it.f_z = worst;
    it.gap = it.g_gap_x = it.g_gap_z = it.lmo_seconds = it.top_sv = it.lambda = worst;
    it.lmo_matvecs = INT64_MIN;
    it.rank = it.lmo_converged = it.backtracks = it.proj_full = INT32_MIN;
    char buf[2048];
    int nj = api_trace_json_row(buf, sizeof buf, &it);
    CHECK((size_t)nj == strlen(buf) && nj <= API_TRACE_ROW_MAX);
    cJSON *o = cJSON_Parse(buf);
    CHECK(o != NULL && jnum(o, "lambda") == worst);
    cJSON_Delete(o);
    int nc = api_trace_csv_row(buf, sizeof buf, &it);
    CHECK((size_t)nc == strlen(buf) && nc <= API_TRACE_ROW_MAX);
    printf("    longest rows: JSON %d, CSV %d bytes\n", nj, nc);
}

/* The result JSON of spec solved through the public API (NULL when the
 * spec is refused or the solve fails). */
static cJSON *solved_json(const char *spec)
{
    api_spec *s = NULL;
    ircg_settings st;
    ircg_solver *sv = NULL;
    ircg_info info = {0};
    cJSON *j = NULL;
    if (api_spec_parse(spec, strlen(spec), NULL, &s, NULL) != 0)
        return NULL;
    api_spec_settings(s, &st);
    if (ircg_solver_new(api_spec_problem(s), &st, &sv, NULL) == IRCG_OK &&
        ircg_solve(sv, &info) == IRCG_OK) {
        api_result r = {&info, IRCG_OK, NULL, NULL, NAN, NULL, NULL, &st, NULL,
                        api_spec_auto_why(s)};
        char *text = api_result_json(&r);
        j = text ? cJSON_Parse(text) : NULL;
        free(text);
    }
    ircg_solver_free(sv);
    api_spec_free(s);
    return j;
}

/* A spec with a stop and no name lets auto choose: the normalized spec
 * says "auto" with the choice and why, parses again to the same choice
 * (and refuses another), and the result names the method that ran, the
 * choice, and its answer z (the bisection methods'), converged to the
 * stop it stated. */
TEST(spec_result, auto_records_its_choice_and_its_answer)
{
    static const char *spec =
        "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"synthetic\","
        "\"m\":20,\"n\":40}},\"algorithm\":{\"stop\":{\"inner_gap_rel\":1e-8,"
        "\"outer_gap_rel\":1e-4},\"time_limit\":30}}";
    api_spec *s = NULL;
    REQUIRE(api_spec_parse(spec, strlen(spec), NULL, &s, NULL) == 0);
    char *norm = api_spec_normalized_json(s, 0);
    api_spec_free(s);
    REQUIRE(norm != NULL);
    cJSON *n = cJSON_Parse(norm), *alg = cJSON_GetObjectItem(n, "algorithm");
    const cJSON *ch = cJSON_GetObjectItem(alg, "choice");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(alg, "name")), "auto");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(ch, "name")), "two-stage");
    CHECK(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(ch, "why")), "A x = A x*") != NULL);
    CHECK(cJSON_GetObjectItem(alg, "max_iter")->valuedouble == 1e15); /* no cap */
    printf("    normalized: \"name\": \"auto\", choice %s: %s\n",
           cJSON_GetStringValue(cJSON_GetObjectItem(ch, "name")),
           cJSON_GetStringValue(cJSON_GetObjectItem(ch, "why")));
    CHECK(api_spec_parse(norm, strlen(norm), NULL, &s, NULL) == 0); /* parses again */
    api_spec_free(s);
    s = NULL;
    cJSON_SetValuestring(cJSON_GetObjectItem(ch, "name"), "ircg");
    char *bad = cJSON_PrintUnformatted(n);
    api_errors e = {0};
    CHECK(api_spec_parse(bad, strlen(bad), NULL, &s, &e) == 1);
    CHECK(e.count == 1 && !strcmp(e.items[0].pointer, "/algorithm/choice/name"));
    api_errors_clear(&e);
    free(bad);
    cJSON_Delete(n);
    free(norm);

    cJSON *j = solved_json(spec);
    REQUIRE(j != NULL);
    const cJSON *cert = cJSON_GetObjectItem(j, "certificate");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "algorithm")), "two-stage");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "choice"),
                                                       "name")), "two-stage");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cert, "answer")), "z");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "status")), "converged");
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "warnings")), 0);
    double fz = jnum(cert, "f_z"), fl = jnum(cert, "f_lower");
    CHECK(fz - fl <= 1e-4 * fmax(fabs(fz), fabs(fl)));
    printf("    solved by two-stage: f(z) %.10g, f_lower %.10g, outer gap of z %.3g\n", fz, fl,
           jnum(cert, "outer_gap_z"));
    cJSON_Delete(j);
}

/* auto's choice on matrix completion, by the size the spec states: a
 * small one (held n p min(n, p) <= IRCG_FCBIO_MC_MAX_WORK) gets FC-BiO,
 * a larger one IR-CG with the exact line search (unless the spec gives
 * a step rule), each without an iteration cap; a method named keeps its
 * own default cap and step rule.  step: the normalized step_rule (NULL:
 * none written, as for FC-BiO). */
static void auto_choice_is(const char *spec, const char *name, double max_iter,
                           const char *step)
{
    api_spec *s = NULL;
    REQUIRE(api_spec_parse(spec, strlen(spec), NULL, &s, NULL) == 0);
    char *norm = api_spec_normalized_json(s, 0);
    api_spec_free(s);
    REQUIRE(norm != NULL);
    cJSON *n = cJSON_Parse(norm), *alg = cJSON_GetObjectItem(n, "algorithm");
    const cJSON *ch = cJSON_GetObjectItem(alg, "choice");
    CHECK_STR(ch ? cJSON_GetStringValue(cJSON_GetObjectItem(ch, "name"))
                 : cJSON_GetStringValue(cJSON_GetObjectItem(alg, "name")), name);
    CHECK(cJSON_GetObjectItem(alg, "max_iter")->valuedouble == max_iter);
    const cJSON *sr = cJSON_GetObjectItem(alg, "step_rule");
    if (step)
        CHECK_STR(cJSON_GetStringValue(sr), step);
    else
        CHECK(sr == NULL);
    if (ch)
        printf("    %s: %s\n", name, cJSON_GetStringValue(cJSON_GetObjectItem(ch, "why")));
    cJSON_Delete(n);
    free(norm);
}

TEST(spec_result, auto_chooses_by_the_size_of_a_matrix_completion)
{
#define MC_SYN(N) "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":" \
                  "\"synthetic\",\"n_rows\":" #N ",\"n_cols\":" #N ",\"rank\":3,"      \
                  "\"n_ratings\":2000},\"delta\":10},\"algorithm\":{"
    auto_choice_is(MC_SYN(300) "\"stop\":{\"outer_gap_rel\":1e-3}}}", "fcbio", 1e15, NULL);
    auto_choice_is(MC_SYN(301) "\"stop\":{\"outer_gap_rel\":1e-3}}}", "ircg", 1e15,
                   "line_search");
    auto_choice_is(MC_SYN(301) "\"step_rule\":\"closed_loop\",\"stop\":{\"outer_gap_rel\":"
                   "1e-3}}}", "ircg", 1e15, "closed_loop");
    auto_choice_is(MC_SYN(301) "\"name\":\"ircg\",\"stop\":{\"outer_gap_rel\":1e-3}}}",
                   "ircg", 1000, "open_loop");
    auto_choice_is("{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":"
                   "\"inline\",\"ratings\":[[1,1,4],[2,2,3],[3,1,5]]},\"delta\":10},"
                   "\"algorithm\":{\"stop\":{\"inner_gap_rel\":1e-6}}}", "fcbio", 1e15, NULL);
#undef MC_SYN
}

/* Least squares with fewer rows than unknowns, n within
 * IRCG_TWOSTAGE_MAX_DIM, gets the two-stage method; a square or tall one,
 * a larger one, and logistic regression (whose curvature in A x has no
 * useful bound), FC-BiO. */
TEST(spec_result, auto_chooses_two_stage_for_least_squares_it_can_factor)
{
#define LS_SYN(T, M, N) "{\"problem\":{\"type\":\"" T "\",\"data\":{\"source\":" \
                        "\"synthetic\",\"m\":" #M ",\"n\":" #N "}},\"algorithm\":{" \
                        "\"stop\":{\"outer_gap_rel\":1e-3}}}"
    auto_choice_is(LS_SYN("least_squares", 50, 2000), "two-stage", 1e15, NULL);
    auto_choice_is(LS_SYN("least_squares", 1999, 2000), "two-stage", 1e15, NULL);
    auto_choice_is(LS_SYN("least_squares", 2000, 2000), "fcbio", 1e15, NULL);
    auto_choice_is(LS_SYN("least_squares", 50, 2001), "fcbio", 1e15, NULL);
    auto_choice_is(LS_SYN("logistic_regression", 20, 40), "fcbio", 1e15, NULL);
#undef LS_SYN
}

/* The message of the result's warning code, or NULL when it has none. */
static const char *warning_of(const cJSON *j, const char *code)
{
    const cJSON *w = NULL;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(j, "warnings"))
        if (!strcmp(cJSON_GetObjectItem(w, "code")->valuestring, code))
            return cJSON_GetObjectItem(w, "message")->valuestring;
    return NULL;
}

/* certify false: "certificate" null and the one warning "uncertified";
 * the same solve certified has a certificate and no such warning. */
TEST(spec_result, uncertified_result)
{
    static const char *const SPECS[] = {
        "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"inline\","
        "\"A\":[[1,0,2,0.5],[0,1,1,-1]],\"b\":[1,2]}},\"algorithm\":{\"max_iter\":20,"
        "\"certify\":false}}",
        "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"inline\","
        "\"A\":[[1,0,2,0.5],[0,1,1,-1]],\"b\":[1,2]}},\"algorithm\":{\"max_iter\":20}}"};
    for (int certify = 0; certify < 2; certify++) {
        cJSON *j = solved_json(SPECS[certify]);
        REQUIRE(j != NULL);
        const cJSON *cert = cJSON_GetObjectItem(j, "certificate");
        const char *msg = warning_of(j, "uncertified");
        if (!certify) {
            CHECK(cJSON_IsNull(cert));
            CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "warnings")), 1);
            CHECK(msg && strstr(msg, "no certificate: nothing bounds how far from optimal"));
        } else {
            CHECK(cJSON_IsObject(cert) && jnum(cert, "iteration") == 20);
            CHECK(msg == NULL);
        }
        cJSON_Delete(j);
    }
}

/* A stop with only an outer tolerance, on synthetic least squares whose
 * start x0 = 0 minimizes f = 1/2||x||^2: the certificate at t = 0 meets it
 * (f(x0) = 0 <= f_lower), so the solve converges there with g unsolved,
 * and the warning says so without a negative scale (api/SPEC.md, the
 * certified stop). */
TEST(spec_result, outer_stop_at_the_start_leaves_g_unsolved)
{
    cJSON *j = solved_json("{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":"
                           "\"synthetic\",\"m\":20,\"n\":40}},\"algorithm\":{\"name\":\"ircg\",\"stop\":"
                           "{\"outer_gap_rel\":0.01}}}");
    REQUIRE(j != NULL);
    const cJSON *cert = cJSON_GetObjectItem(j, "certificate");
    const char *msg = warning_of(j, "inner_unsolved");
    CHECK_STR(cJSON_GetObjectItem(j, "status")->valuestring, "converged");
    CHECK_INT(jnum(j, "iterations"), 0);
    CHECK(jnum(cert, "iteration") == 0 && jnum(cert, "f_x") == 0);
    printf("    converged at 0: g(x0) - g_upper %.3g, certified g(x) - min g <= %.3g\n",
           jnum(cert, "g_x0") - jnum(cert, "g_upper"), jnum(cert, "inner_gap_x"));
    REQUIRE(msg != NULL);
    printf("    inner_unsolved: %s\n", msg);
    CHECK(strstr(msg, "no certified g is below g(x0) yet") != NULL);
    CHECK(strstr(msg, "= -") == NULL);
    CHECK(warning_of(j, "outer_unsolved") == NULL);
    cJSON_Delete(j);
}

/* The inner_unsolved sentence: the scale g(x0) - g_upper as a number when
 * positive, in words when rounding leaves it at or just below 0, with or
 * without a stop's inner tolerance. */
TEST(spec_result, inner_unsolved_sentence_scale)
{
    static const double G_UPPER[] = {0.25, 1.0, 1.0 + 4.83e-13};
    ircg_stop stop = {.inner_gap_rel = 1e-6};
    for (int k = 0; k < 3; k++) {
        ircg_info in = {0};
        char msg[400];
        in.g_x0 = 1.0;
        in.g_upper = G_UPPER[k];
        in.inner_gap_x = 0.5;
        for (int with_stop = 0; with_stop < 2; with_stop++) {
            int n = api_warning_message(msg, sizeof msg, &in, with_stop ? &stop : NULL,
                                        IRCG_WARN_INNER_UNSOLVED);
            CHECK(n > 0 && (size_t)n < sizeof msg);
            if (k == 0)
                CHECK(strstr(msg, "g(x0) - g_upper = 0.75") != NULL);
            else
                CHECK(strstr(msg, "g(x0) - g_upper, which is 0 (no certified g is below "
                                  "g(x0) yet)") != NULL);
            CHECK(strstr(msg, "e-13") == NULL && strstr(msg, "= -") == NULL);
        }
    }
}

/* The below_optimum sentence: the answer's f, how far below f_lower, and
 * the g slack that buys it, for the answer the certificate is of (z for
 * the bisection methods), as the overparam-stochastic example's run says
 * it (f(z) 5.85566, f_lower 6.03862, g(z) 0.000506 above g_upper). */
TEST(spec_result, below_optimum_sentence)
{
    ircg_info in = {0};
    ircg_stop stop = {.inner_gap_rel = 1e-8, .outer_gap_rel = 1e-4};
    char msg[600];
    in.answer = IRCG_Z;
    in.cert_f_z = 5.85566;
    in.f_lower = 6.03862;
    in.outer_gap_z = in.cert_f_z - in.f_lower;
    in.cert_g_z = 0.000516;
    in.g_upper = 0.00001;
    int n = api_warning_message(msg, sizeof msg, &in, &stop, IRCG_WARN_BELOW_OPTIMUM);
    CHECK(n > 0 && (size_t)n < sizeof msg);
    printf("    below_optimum: %s\n", msg);
    CHECK(strstr(msg, "f(z) = 5.85566 lies 0.183 below f_lower = 6.03862") != NULL);
    CHECK(strstr(msg, "g(z), 0.000506 above g_upper") != NULL);
    CHECK_STR(ircg_warning_name(IRCG_WARN_BELOW_OPTIMUM), "below_optimum");
}
