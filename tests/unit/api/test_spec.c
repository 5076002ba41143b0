/*
 * test_spec.c -- job spec round trips: parse -> normalized JSON -> parse
 * gives the same normalized JSON, with every default filled in; and the
 * accessors return what the spec says.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "harness.h"
#include "spec.h"
#include "test_spec_util.h"


static api_spec *parse_ok(const char *json)
{
    api_errors e;
    api_spec *s = NULL;
    api_parse_options opt;
    api_errors_init(&e);
    api_parse_options_default(&opt);
    opt.base_dir = "tests/data";
    int n = api_spec_parse(json, strlen(json), &opt, &s, &e);
    for (int i = 0; i < e.count; i++)
        printf("      %s: %s\n", e.items[i].pointer, e.items[i].reason);
    CHECK_INT(n, 0);
    api_errors_clear(&e);
    return s;
}

/* parse -> normalize -> parse -> normalize: both texts equal; returns the
 * normalized text (caller frees). */
static char *round_trip(const char *spec)
{
    char *json = tspec_dq(spec);
    api_spec *a = parse_ok(json), *b = NULL;
    char *na = a ? api_spec_normalized_json(a, 0) : NULL, *nb = NULL;
    if (na)
        b = parse_ok(na);
    if (b)
        nb = api_spec_normalized_json(b, 0);
    if (!na || !nb || strcmp(na, nb) != 0) {
        th_fail(__FILE__, __LINE__, "round trip of %s differs:\n%s\n---\n%s", spec,
                na ? na : "(null)", nb ? nb : "(null)");
    }
    free(json);
    free(nb);
    api_spec_free(a);
    api_spec_free(b);
    return na;
}

static double num_at(const cJSON *root, const char *a, const char *b)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, a);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, b);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str_at(const cJSON *root, const char *a, const char *b)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, a);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, b);
    return cJSON_IsString(v) ? v->valuestring : "";
}

TEST(spec, round_trip_defaults_ls_inline)
{
    char *n = round_trip("{'problem':{'type':'least_squares','data':{'source':'inline',"
                         "'A':[[1,0,2],[0,1,1]],'b':[1,2]}}}");
    cJSON *r = n ? cJSON_Parse(n) : NULL;
    REQUIRE(r != NULL);
    CHECK_STR(str_at(r, "algorithm", "name"), "ircg");
    CHECK_STR(str_at(r, "algorithm", "step_rule"), "open_loop");
    CHECK_STR(str_at(r, "algorithm", "start"), "default");
    /* varsigma is relative by default: varsigma_rel L_g / L_f, 0.01 (the
     * choice of study varsigma, api/SPEC.md) */
    CHECK(!cJSON_GetObjectItem(cJSON_GetObjectItem(r, "algorithm"), "varsigma"));
    CHECK_NEAR(num_at(r, "algorithm", "varsigma_rel"), 0.01, 0);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "algorithm"), "certify")));
    CHECK(!cJSON_GetObjectItem(cJSON_GetObjectItem(r, "algorithm"), "stop"));
    CHECK_NEAR(num_at(r, "algorithm", "p"), 0.5, 0);
    CHECK_NEAR(num_at(r, "algorithm", "max_iter"), 1000, 0);
    CHECK_NEAR(num_at(r, "algorithm", "time_limit"), 0, 0);
    CHECK_NEAR(num_at(r, "algorithm", "lmo_tol"), 1e-9, 0);
    CHECK_NEAR(num_at(r, "algorithm", "threads"), 1, 0);
    CHECK_NEAR(num_at(r, "output", "trace_every"), 1, 0);
    CHECK_NEAR(num_at(r, "output", "snapshot_every"), 0, 0);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "reference"), "compute")));
    const cJSON *pb = cJSON_GetObjectItem(r, "problem");
    CHECK_STR(str_at(pb, "domain", "type"), "l2_ball");
    CHECK_NEAR(num_at(pb, "domain", "radius"), 1, 0);
    CHECK_STR(str_at(pb, "outer", "type"), "half_norm_sq");
    CHECK_NEAR(num_at(pb, "data", "m"), 2, 0);
    CHECK_NEAR(num_at(pb, "data", "n"), 3, 0);
    cJSON_Delete(r);
    free(n);
}

TEST(spec, round_trip_mc_inline_and_synthetic)
{
    char *n = round_trip("{'problem':{'type':'matrix_completion','data':{'source':'inline',"
                         "'ratings':[[1,1,5],[3,2,1.5],[2,4,3]]}}}");
    cJSON *r = n ? cJSON_Parse(n) : NULL;
    REQUIRE(r != NULL);
    const cJSON *pb = cJSON_GetObjectItem(r, "problem");
    CHECK_NEAR(num_at(pb, "data", "n_rows"), 3, 0);
    CHECK_NEAR(num_at(pb, "data", "n_cols"), 4, 0);
    CHECK_NEAR(cJSON_GetObjectItem(pb, "delta")->valuedouble, 5, 0);
    CHECK_STR(cJSON_GetObjectItem(pb, "outer")->valuestring, "column_variance");
    cJSON_Delete(r);
    free(n);
    n = round_trip("{'problem':{'type':'matrix_completion','delta':2.5,'outer':'half_norm_sq',"
                   "'data':{'source':'synthetic','n_rows':30,'n_cols':20,'rank':2,"
                   "'n_ratings':100}},'algorithm':{'step_rule':'line_search','p':0.25,"
                   "'max_iter':7,'time_limit':1.5},'output':{'dense_iterate':true},"
                   "'reference':{'compute':true,'tol':1e-7}}");
    r = n ? cJSON_Parse(n) : NULL;
    REQUIRE(r != NULL);
    pb = cJSON_GetObjectItem(r, "problem");
    CHECK_NEAR(num_at(pb, "data", "seed"), 1, 0);
    CHECK_NEAR(num_at(pb, "data", "noise"), 0.5, 0);
    CHECK_NEAR(num_at(pb, "data", "min_rating"), 1, 0);
    CHECK_NEAR(num_at(r, "reference", "tol"), 1e-7, 0);
    cJSON_Delete(r);
    free(n);
}

TEST(spec, round_trip_ls_variants)
{
    free(round_trip("{'problem':{'type':'least_squares','data':{'source':'synthetic','m':5,'n':9,"
                    "'seed':7},'domain':{'type':'box','lower':-2,'upper':3},"
                    "'outer':{'type':'dist_sq','c':[1,2,3,4,5,6,7,8,0.1]}},"
                    "'algorithm':{'start':'zero'},'reference':{'g_opt':0.25}}"));
    free(round_trip("{'problem':{'type':'least_squares','data':{'source':'inline','A':{'format':"
                    "'csr','rowptr':[0,2,3],'colind':[0,2,1],'values':[1,2,3]},'b':[1,1]},"
                    "'domain':{'type':'l1_ball','radius':4},'outer':{'type':'quadratic',"
                    "'Q':[[2,0,0],[0,1,0],[0,0,1]],'q':[0,1,0]}},"
                    "'algorithm':{'start':{'x0':[0.5,0,0]}}}"));
    free(round_trip("{'problem':{'type':'least_squares','data':{'source':'file',"
                    "'A_path':'A_small.mtx','b_path':'b_small.mtx'},'domain':{'type':'simplex',"
                    "'radius':1}}}"));
}

TEST(spec, accessors)
{
    char *json = tspec_dq("{'problem':{'type':'least_squares','data':{'source':'synthetic','m':4,'n':6}},"
                    "'algorithm':{'step_rule':'closed_loop','varsigma':0.2,'max_iter':33,"
                    "'threads':2},'output':{'trace_every':5},'reference':{'g_opt':1.25}}");
    api_spec *s = parse_ok(json);
    free(json);
    REQUIRE(s != NULL);
    ircg_settings st;
    api_spec_settings(s, &st);
    CHECK_INT(st.step_rule, IRCG_STEP_CLOSED_LOOP);
    CHECK_NEAR(st.varsigma, 0.2, 0);
    CHECK_INT(st.max_iter, 33);
    CHECK_INT(st.threads, 2);
    CHECK_NEAR(st.g_opt, 1.25, 0);
    CHECK(st.callback == NULL && st.cancel == NULL);
    api_output_spec out;
    api_spec_output(s, &out);
    CHECK_INT(out.trace_every, 5);
    api_reference_spec ref;
    api_spec_reference(s, &ref);
    CHECK(!ref.compute);
    CHECK_NEAR(ref.g_opt, 1.25, 0);
    CHECK_INT(api_spec_kind(s), IRCG_PROBLEM_LEAST_SQUARES);
    REQUIRE(api_spec_problem(s) != NULL);
    ircg_problem_info info;
    ircg_problem_get_info(api_spec_problem(s), &info);
    CHECK_INT(info.n_rows, 4);
    CHECK_INT(info.n_cols, 6);
    api_spec_free(s);
}

/* Large inline data is summarized on request, echoed in full otherwise. */
TEST(spec, normalized_summary)
{
    size_t cap = 64 * 1024;
    char *json = malloc(cap);
    REQUIRE(json != NULL);
    size_t n = (size_t)snprintf(json, cap, "{\"problem\":{\"type\":\"matrix_completion\","
                                "\"data\":{\"source\":\"inline\",\"ratings\":[");
    for (int i = 0; i < 500; i++)
        n += (size_t)snprintf(json + n, cap - n, "%s[%d,%d,%d]", i ? "," : "", i / 20 + 1,
                              i % 20 + 1, i % 5 + 1);
    snprintf(json + n, cap - n, "]}}}");
    api_spec *s = parse_ok(json);
    free(json);
    REQUIRE(s != NULL);
    char *full = api_spec_normalized_json(s, 0);
    char *sum = api_spec_normalized_json(s, API_NORM_SUMMARIZE);
    CHECK(full && strstr(full, "\"ratings\"") != NULL);
    CHECK(sum && strstr(sum, "\"ratings\"") == NULL && strstr(sum, "\"elided\"") != NULL);
    CHECK(sum && strstr(sum, "\"n_ratings\":\t500") != NULL);
    free(full);
    free(sum);
    api_spec_free(s);
}

/* The daemon resolves {"source":"dataset"} through a callback. */
static ircg_error lookup(void *user, const char *id, ircg_ratings **out, ircg_diag *diag)
{
    const char *data = user;
    if (strcmp(id, "abc123") != 0) {
        snprintf(diag->message, sizeof diag->message, "no such dataset");
        return IRCG_ERR_INVALID;
    }
    ircg_read_options ro = {IRCG_FORMAT_MOVIELENS, 0, 0, 0};
    return ircg_ratings_read_buffer(data, strlen(data), &ro, out, diag);
}

TEST(spec, dataset_callback)
{
    const char *ok = "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":"
                     "\"dataset\",\"id\":\"abc123\"}}}";
    const char *bad = "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":"
                      "\"dataset\",\"id\":\"zzz\"}}}";
    api_parse_options opt;
    api_parse_options_default(&opt);
    opt.dataset = lookup;
    opt.dataset_user = "1::1::5::0\n2::3::4::0\n3::2::1::0\n";
    api_spec *s = NULL;
    api_errors e;
    api_errors_init(&e);
    CHECK_INT(api_spec_parse(ok, strlen(ok), &opt, &s, &e), 0);
    REQUIRE(s != NULL);
    ircg_problem_info info;
    ircg_problem_get_info(api_spec_problem(s), &info);
    CHECK_INT(info.n_rows, 3);
    CHECK_INT(info.n_observed, 3);
    api_spec_free(s);
    s = NULL;
    CHECK_INT(api_spec_parse(bad, strlen(bad), &opt, &s, &e), 1);
    CHECK(e.count == 1 && !strcmp(e.items[0].pointer, "/problem/data/id") &&
          strstr(e.items[0].reason, "no such dataset"));
    api_errors_clear(&e);
}

/* A file source reports the dimensions it read; they parse back. */
TEST(spec, normalized_file_dims)
{
    char *n = round_trip("{'problem':{'type':'matrix_completion','data':{'source':'file',"
                         "'path':'ratings_small.dat'}}}");
    cJSON *r = n ? cJSON_Parse(n) : NULL;
    REQUIRE(r != NULL);
    const cJSON *pb = cJSON_GetObjectItem(r, "problem");
    CHECK_NEAR(num_at(pb, "data", "n_rows"), 4, 0); /* largest user id */
    CHECK_NEAR(num_at(pb, "data", "n_cols"), 4, 0); /* largest item id */
    cJSON_Delete(r);
    free(n);
    n = round_trip("{'problem':{'type':'least_squares','data':{'source':'file',"
                   "'A_path':'A_small.mtx','b':[1,2,3]}}}");
    r = n ? cJSON_Parse(n) : NULL;
    REQUIRE(r != NULL);
    pb = cJSON_GetObjectItem(r, "problem");
    CHECK_NEAR(num_at(pb, "data", "m"), 3, 0); /* the size line: 3 x 4 */
    CHECK_NEAR(num_at(pb, "data", "n"), 4, 0);
    cJSON_Delete(r);
    free(n);
}

/* Every member name in the normalized algorithm object. */
static int has_member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name) != NULL;
}

/* The normalized spec lists the members of the chosen algorithm only,
 * with the library's defaults, and parses back to itself. */
TEST(spec, normalized_algorithm_members)
{
    static const char *const ALGS[] = {"ircg", "cgbio", "irpg", "bisg"};
    /* per algorithm: members that must be there, members that must not */
    static const char *const HAS[4][6] = {
        {"step_rule", "varsigma_rel", "p", "certify", "certify_every", NULL},
        {"cgbio_eps_g", "cgbio_warmup_max_iter", "certify", NULL},
        {"varsigma_rel", "p", "projection", "irpg_theta", "irpg_step", "irpg_eta"},
        {"projection", "bisg_alpha", "bisg_c", "bisg_step", NULL}};
    static const char *const NOT[4][6] = {
        {"projection", "irpg_theta", "bisg_c", "cgbio_eps_g", NULL},
        {"step_rule", "varsigma_rel", "p", "projection", "irpg_eta", "bisg_alpha"},
        {"step_rule", "bisg_alpha", "cgbio_eps_g", NULL},
        {"step_rule", "varsigma_rel", "p", "irpg_theta", "cgbio_warmup_max_iter", NULL}};
    ircg_settings def;
    ircg_settings_default(&def);
    for (int a = 0; a < 4; a++) {
        char spec[300];
        snprintf(spec, sizeof spec, "{'problem':{'type':'least_squares','data':{'source':"
                 "'synthetic','m':4,'n':6}},'algorithm':{'name':'%s'}}", ALGS[a]);
        char *n = round_trip(spec);
        cJSON *r = n ? cJSON_Parse(n) : NULL;
        REQUIRE(r != NULL);
        const cJSON *al = cJSON_GetObjectItem(r, "algorithm");
        CHECK_STR(str_at(r, "algorithm", "name"), ALGS[a]);
        for (int k = 0; k < 6 && HAS[a][k]; k++)
            if (!has_member(al, HAS[a][k]))
                th_fail(__FILE__, __LINE__, "%s: no \"%s\"", ALGS[a], HAS[a][k]);
        for (int k = 0; k < 6 && NOT[a][k]; k++)
            if (has_member(al, NOT[a][k]))
                th_fail(__FILE__, __LINE__, "%s: has \"%s\"", ALGS[a], NOT[a][k]);
        static const char *const COMMON[] = {"start", "max_iter", "time_limit", "gap_tol",
                                             "lmo_tol", "lmo_max_matvecs", "threads"};
        for (int k = 0; k < 7; k++)
            if (!has_member(al, COMMON[k]))
                th_fail(__FILE__, __LINE__, "%s: no \"%s\"", ALGS[a], COMMON[k]);
        cJSON_Delete(r);
        free(n);
    }
    /* the defaults reported are the library's */
    char *n = round_trip("{'problem':{'type':'least_squares','data':{'source':'synthetic',"
                         "'m':4,'n':6}},'algorithm':{'name':'bisg'}}");
    cJSON *r = n ? cJSON_Parse(n) : NULL;
    REQUIRE(r != NULL);
    CHECK(num_at(r, "algorithm", "bisg_alpha") == def.bisg_alpha);
    CHECK(num_at(r, "algorithm", "bisg_c") == def.bisg_c);
    CHECK(num_at(r, "algorithm", "bisg_step") == def.bisg_step);
    CHECK_STR(str_at(r, "algorithm", "projection"), "partial");
    cJSON_Delete(r);
    free(n);
}

/* The baselines' members reach the solver settings. */
TEST(spec, baseline_settings)
{
    char *json = tspec_dq("{'problem':{'type':'least_squares','data':{'source':'synthetic','m':4,"
                    "'n':6}},'algorithm':{'name':'irpg','projection':'full','irpg_theta':0.25,"
                    "'irpg_step':3,'irpg_eta':0.75,'varsigma':0.5,'p':0.75}}");
    api_spec *s = parse_ok(json);
    free(json);
    REQUIRE(s != NULL);
    ircg_settings st;
    api_spec_settings(s, &st);
    CHECK_INT(st.algorithm, IRCG_ALG_IRPG);
    CHECK_INT(st.projection, IRCG_PROJ_FULL);
    CHECK(st.irpg_theta == 0.25 && st.irpg_step == 3 && st.irpg_eta == 0.75);
    CHECK(st.varsigma == 0.5 && st.p == 0.75);
    api_spec_free(s);
    json = tspec_dq("{'problem':{'type':'least_squares','data':{'source':'synthetic','m':4,'n':6}},"
              "'algorithm':{'name':'bisg','bisg_alpha':1,'bisg_c':0.5,'bisg_step':0.01}}");
    s = parse_ok(json);
    free(json);
    REQUIRE(s != NULL);
    api_spec_settings(s, &st);
    CHECK_INT(st.algorithm, IRCG_ALG_BISG);
    CHECK(st.bisg_alpha == 1 && st.bisg_c == 0.5 && st.bisg_step == 0.01);
    api_spec_free(s);
    json = tspec_dq("{'problem':{'type':'least_squares','data':{'source':'synthetic','m':4,'n':6}},"
              "'algorithm':{'name':'cgbio','cgbio_eps_g':0.001,'cgbio_warmup_max_iter':77}}");
    s = parse_ok(json);
    free(json);
    REQUIRE(s != NULL);
    api_spec_settings(s, &st);
    CHECK_INT(st.algorithm, IRCG_ALG_CGBIO);
    CHECK(st.cgbio_eps_g == 0.001 && st.cgbio_warmup_max_iter == 77);
    api_spec_free(s);
}
