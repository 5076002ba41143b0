/*
 * test_schema.c -- api/job-spec.schema.json and api/openapi.json against
 * the code: both parse and use only the keywords test_schema_check.c
 * implements; every $ref resolves and the OpenAPI document takes the job
 * schema by reference (no copy); every route of the daemon's table is
 * documented with its methods and nothing else is; every example spec and
 * every normalized spec satisfies the schema while invalid ones do not;
 * real results, trace rows and problem documents satisfy the OpenAPI
 * schemas.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "harness.h"
#include "http/http.h"
#include "routes/routes.h"
#include "result.h"
#include "spec.h"
#include "test_spec_util.h"
#include "common/test_cli_util.h"
#include "test_schema_check.h"

static cJSON *load(const char *path)
{
    cJSON *j = tcli_read_json(path);
    if (!j)
        th_fail(__FILE__, __LINE__, "%s does not parse as JSON", path);
    return j;
}

typedef struct docs {
    cJSON *spec, *api;
    jsv v;
} docs;

static int docs_load(docs *d)
{
    memset(d, 0, sizeof *d);
    d->spec = load("api/job-spec.schema.json");
    d->api = load("api/openapi.json");
    jsv_add(&d->v, "job-spec.schema.json", d->spec);
    jsv_add(&d->v, "openapi.json", d->api);
    return d->spec && d->api;
}

static void docs_free(docs *d)
{
    cJSON_Delete(d->spec);
    cJSON_Delete(d->api);
}

static const cJSON *api_schema(const docs *d, const char *name)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(d->api, "components"),
                                                   "schemas"), name);
}

/* Does the spec text satisfy the job schema? */
static int spec_ok(docs *d, const char *text)
{
    cJSON *x = cJSON_Parse(text);
    int ok = x && jsv_check(&d->v, d->spec, d->spec, x);
    cJSON_Delete(x);
    return ok;
}

TEST(schema, documents_parse_and_use_known_keywords)
{
    docs d;
    REQUIRE(docs_load(&d));
    CHECK(jsv_keywords_known(&d.v, d.spec, "job-spec.schema.json"));
    if (th_failed())
        printf("      %s\n", d.v.error);
    const cJSON *schemas = api_schema(&d, "Result") ? cJSON_GetObjectItem(
        cJSON_GetObjectItem(d.api, "components"), "schemas") : NULL;
    REQUIRE(schemas != NULL);
    for (const cJSON *s = schemas->child; s; s = s->next)
        if (!jsv_keywords_known(&d.v, s, s->string))
            th_fail(__FILE__, __LINE__, "openapi.json: %s", d.v.error);
    CHECK_STR(cJSON_GetObjectItem(d.api, "openapi")->valuestring, "3.1.0");
    CHECK_STR(cJSON_GetObjectItem(d.spec, "$schema")->valuestring,
              "https://json-schema.org/draft/2020-12/schema");
    docs_free(&d);
}

/* Every {"$ref": ...} anywhere in a document resolves. */
static void refs_resolve(docs *d, const cJSON *doc, const cJSON *node, int *count)
{
    for (const cJSON *m = node ? node->child : NULL; m; m = m->next) {
        if (m->string && !strcmp(m->string, "$ref")) {
            const cJSON *where = doc;
            (*count)++;
            if (!cJSON_IsString(m) || !jsv_resolve(&d->v, &where, m->valuestring))
                th_fail(__FILE__, __LINE__, "unresolved $ref %s",
                        cJSON_IsString(m) ? m->valuestring : "(not a string)");
        }
        refs_resolve(d, doc, m, count);
    }
}

/* The OpenAPI document refers to the job schema and does not copy it. */
TEST(schema, refs_resolve_and_job_schema_is_referenced)
{
    docs d;
    int n = 0;
    REQUIRE(docs_load(&d));
    refs_resolve(&d, d.api, d.api, &n);
    refs_resolve(&d, d.spec, d.spec, &n);
    printf("    %d $refs resolve\n", n);
    const cJSON *js = api_schema(&d, "JobSpec");
    REQUIRE(js != NULL);
    CHECK_INT(cJSON_GetArraySize(js), 1);
    CHECK_STR(cJSON_GetObjectItem(js, "$ref")->valuestring, "job-spec.schema.json");
    char *text = cJSON_PrintUnformatted(d.api);
    CHECK(text && !strstr(text, "\"$defs\"") && !strstr(text, "matrix_completion\"}"));
    free(text);
    const cJSON *body = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
            d.api, "paths"), "/v1/jobs"), "post"), "requestBody"), "content"),
        "application/json"), "schema");
    CHECK(body && !strcmp(cJSON_GetObjectItem(body, "$ref")->valuestring,
                          "#/components/schemas/JobSpec"));
    docs_free(&d);
}

/* The operation documents the scope the daemon's table asks for: its
 * x-required-scope, its security requirement (the scope, or none), and
 * 401 and 403 exactly when a token is needed. */
static void check_scope_documented(const cJSON *op, const srv_route *rt, const char *method)
{
    srv_scope need = srv_route_need(rt, method);
    const cJSON *x = cJSON_GetObjectItem(op, "x-required-scope");
    const char *want = need == SRV_SCOPE_NONE ? "none" : srv_scope_name(need);
    if (!cJSON_IsString(x) || strcmp(x->valuestring, want) != 0)
        th_fail(__FILE__, __LINE__, "%s %s: x-required-scope %s, the daemon needs %s", method,
                rt->name, cJSON_IsString(x) ? x->valuestring : "(missing)", want);
    const cJSON *sec = cJSON_GetObjectItem(op, "security");
    const cJSON *scopes = cJSON_GetObjectItem(cJSON_GetArrayItem(sec, 0), "bearer");
    int sec_ok = need == SRV_SCOPE_NONE
                     ? cJSON_GetArraySize(sec) == 0
                     : cJSON_GetArraySize(scopes) == 1 &&
                           !strcmp(cJSON_GetArrayItem(scopes, 0)->valuestring, want);
    if (!sec_ok)
        th_fail(__FILE__, __LINE__, "%s %s: security does not name scope %s", method,
                rt->name, want);
    const cJSON *resp = cJSON_GetObjectItem(op, "responses");
    int r401 = cJSON_GetObjectItem(resp, "401") != NULL;
    int r403 = cJSON_GetObjectItem(resp, "403") != NULL;
    int open = need == SRV_SCOPE_NONE;
    if (r401 == open || r403 == open)
        th_fail(__FILE__, __LINE__, "%s %s: 401 documented %d, 403 %d, open %d", method,
                rt->name, r401, r403, open);
}

/* The route table of the daemon (server/routes/table.c) and the paths
 * of the document are the same set, method for method, scope for scope. */
TEST(schema, every_route_documented)
{
    docs d;
    REQUIRE(docs_load(&d));
    const cJSON *paths = cJSON_GetObjectItem(d.api, "paths");
    static const char *const METHODS[] = {"GET", "POST", "DELETE"};
    static const char *const LOWER[] = {"get", "post", "delete"};
    int rows = 0, operations = 0;
    srv_http_routes(srv_routes); /* srv_route_need reads a path's rows there */
    for (const srv_route *rt = srv_routes; rt->method; rt++, rows++) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(paths, rt->name);
        int m = 0;
        while (m < 3 && strcmp(METHODS[m], rt->method) != 0)
            m++;
        const cJSON *op = m < 3 && p ? cJSON_GetObjectItem(p, LOWER[m]) : NULL;
        if (!op)
            th_fail(__FILE__, __LINE__, "%s %s is not documented", rt->method, rt->name);
        else
            check_scope_documented(op, rt, rt->method);
    }
    /* and nothing is documented that the daemon does not serve */
    const cJSON *p;
    cJSON_ArrayForEach(p, paths)
        for (int m = 0; m < 3; m++)
            operations += cJSON_GetObjectItem(p, LOWER[m]) != NULL;
    printf("    %d routes, %d operations documented\n", rows, operations);
    CHECK_INT(operations, rows);
    docs_free(&d);
}

/* Specs the validator accepts: they and their normalized forms satisfy
 * the schema. */
static const char *const VALID[] = {
    "{'problem':{'type':'least_squares','data':{'source':'inline','A':[[1,0,2],[0,1,1]],'b':[1,2],"
    "'A_val':[[1,1,1]],'b_val':[2]},'outer':'validation'}}",
    "{'problem':{'type':'least_squares','data':{'source':'synthetic','m':4,'n':9,'m_val':3},"
    "'domain':{'type':'l1_ball','radius':9},'outer':{'type':'validation'}}}",
    "{'problem':{'type':'logistic_regression','data':{'source':'inline','A':[[1,0],[0,1],[1,1]],"
    "'b':[1,-1,1]},'domain':{'type':'box','lower':-1,'upper':1},'outer':{'type':'dist_sq','c':[1,0]}}}",
    "{'problem':{'type':'logistic_regression','data':{'source':'synthetic','m':8,'n':3,'m_val':5,"
    "'noise':0.5},'outer':'validation'},'algorithm':{'step_rule':'line_search'}}",
    "{'problem':{'type':'least_squares','data':{'source':'inline','A':[[1,0,2],[0,1,1]],'b':[1,2]}}}",
    "{'problem':{'type':'least_squares','data':{'source':'inline','A':{'format':'csr','rowptr':[0,2,3],"
    "'colind':[0,2,1],'values':[1,2,3]},'b':[1,1]},'domain':{'type':'l1_ball','radius':4},'outer':"
    "{'type':'quadratic','Q':[[2,0,0],[0,1,0],[0,0,1]],'q':[0,1,0]}},'algorithm':{'start':{'x0':[0.5,0,0]}}}",
    "{'problem':{'type':'least_squares','data':{'source':'synthetic','m':5,'n':9,'seed':7},'domain':"
    "{'type':'box','lower':-2,'upper':3},'outer':{'type':'dist_sq','c':[1,2,3,4,5,6,7,8,0.1]}},"
    "'algorithm':{'start':'zero'},'reference':{'g_opt':0.25}}",
    "{'problem':{'type':'least_squares','data':{'source':'file','A_path':'A_small.mtx','b_path':"
    "'b_small.mtx'},'domain':{'type':'simplex','radius':1},'outer':'half_norm_sq'}}",
    "{'problem':{'type':'least_squares','data':{'source':'file','A_path':'A_small.mtx','b':[1,2,3]}}}",
    "{'problem':{'type':'matrix_completion','data':{'source':'inline','ratings':[[1,1,5],[3,2,1.5]]}},"
    "'output':{'dense_iterate':true,'trace_every':3}}",
    "{'problem':{'type':'matrix_completion','data':{'source':'inline','ratings':[[1,1,5],[3,2,1.5]]}},"
    "'algorithm':{'lmo':{'engine':'arpack'}}}",
    "{'problem':{'type':'matrix_completion','data':{'source':'file','path':'ratings_small.dat',"
    "'format':'movielens'},'delta':2,'outer':'half_norm_sq'},'reference':{'compute':true,'tol':1e-7}}",
    "{'problem':{'type':'matrix_completion','data':{'source':'synthetic','n_rows':30,'n_cols':20,"
    "'rank':2,'n_ratings':100}},'algorithm':{'step_rule':'line_search','p':0.25},'output':"
    "{'dense_iterate':false}}",
    "{'problem':{'type':'matrix_completion','data':{'source':'dataset','id':'abc'}}}",
    "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'algorithm':{'name':'irpg',"
    "'projection':'full','irpg_theta':0.25,'irpg_step':3,'irpg_eta':0.75,'varsigma':0.5}}",
    "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'algorithm':{'name':'bisg',"
    "'bisg_alpha':1,'bisg_c':0.5,'bisg_step':0.01}}",
    "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'algorithm':{'name':'cgbio',"
    "'cgbio_eps_g':0.001,'cgbio_warmup_max_iter':77,'gap_tol':1e-6}}",
    "{'problem':{'type':'least_squares','data':{'source':'synthetic','m':4,'n':9},'domain':"
    "{'type':'simplex','radius':1}},'algorithm':{'direction':'pairwise','step_rule':'line_search'}}",
    "{'problem':{'type':'logistic_regression','data':{'source':'synthetic','m':8,'n':3},'domain':"
    "{'type':'box','lower':-1,'upper':1}},'algorithm':{'direction':'away','step_rule':'closed_loop'}}",
};


static ircg_error one_dataset(void *user, const char *id, ircg_ratings **out, ircg_diag *diag)
{
    (void)user;
    (void)id;
    const char *data = "1::1::5::0\n2::3::4::0\n";
    return ircg_ratings_read_buffer(data, strlen(data), NULL, out, diag);
}

/* The normalized form of text; build = 0 when its data file is absent
 * (the paper example without MovieLens). */
static char *normalized(const char *text)
{
    api_parse_options opt;
    api_spec *s = NULL;
    api_parse_options_default(&opt);
    opt.base_dir = "tests/data";
    opt.dataset = one_dataset;
    if (api_spec_parse(text, strlen(text), &opt, &s, NULL) != 0) {
        opt.build = 0;
        if (api_spec_parse(text, strlen(text), &opt, &s, NULL) != 0)
            return NULL;
    }
    char *n = api_spec_normalized_json(s, 0);
    api_spec_free(s);
    return n;
}

static void check_spec_and_normalized(docs *d, const char *text, const char *label)
{
    if (!spec_ok(d, text))
        th_fail(__FILE__, __LINE__, "%s: the schema refuses it: %s", label, d->v.error);
    char *n = normalized(text);
    if (!n)
        th_fail(__FILE__, __LINE__, "%s: the validator refuses it", label);
    else if (!spec_ok(d, n))
        th_fail(__FILE__, __LINE__, "%s: the schema refuses its normalized form: %s\n%s",
                label, d->v.error, n);
    free(n);
}

TEST(schema, valid_and_normalized_specs_satisfy_the_schema)
{
    docs d;
    REQUIRE(docs_load(&d));
    for (size_t i = 0; i < sizeof VALID / sizeof VALID[0]; i++) {
        char *t = tspec_dq(VALID[i]), label[32];
        snprintf(label, sizeof label, "VALID[%zu]", i);
        check_spec_and_normalized(&d, t, label);
        free(t);
    }
    docs_free(&d);
}

/* `ircg example NAME [--algorithm A]`: every example with every algorithm
 * (and the projection options) satisfies the schema, normalized too. */
TEST(schema, examples_satisfy_the_schema)
{
    NEED_CLI();
    docs d;
    REQUIRE(docs_load(&d));
    static const char *const NAMES[] = {"paper-movielens", "synthetic-movielens", "least-norm",
                                        "overparam-regression", "logistic", "portfolio"};
    static const char *const ALGS[][4] = {{NULL}, {"--algorithm", "cgbio"},
                                          {"--algorithm", "irpg", "--projection", "full"},
                                          {"--algorithm", "bisg", "--projection", "partial"},
                                          {"--step-rule", "closed_loop"}};
    int checked = 0;
    for (int i = 0; i < 6; i++)
        for (int a = 0; a < 5; a++) {
            if (i == 4 && a >= 1 && a <= 3)
                continue; /* logistic regression: IR-CG only */
            char *out = tcli_tmp("example.json"), label[96];
            /* --size is for the synthetic ones; the paper's example names a
             * ratings file that must exist (MovieLens may be absent) */
            char *args[10] = {(char *)bin, "example", (char *)NAMES[i], "--size", "small"};
            if (i == 0) {
                args[3] = "--ratings";
                args[4] = "tests/data/ratings_small.dat";
            }
            int k = 5;
            for (int j = 0; j < 4 && ALGS[a][j]; j++)
                args[k++] = (char *)ALGS[a][j];
            args[k] = NULL;
            if (tcli_run(args, out) != 0) {
                th_fail(__FILE__, __LINE__, "ircg example %s (variant %d) failed", NAMES[i], a);
                continue;
            }
            size_t len = 0;
            FILE *f = fopen(out, "rb");
            char buf[1 << 16];
            if (f) {
                len = fread(buf, 1, sizeof buf - 1, f);
                fclose(f);
            }
            buf[len] = '\0';
            snprintf(label, sizeof label, "example %s variant %d", NAMES[i], a);
            check_spec_and_normalized(&d, buf, label);
            checked++;
        }
    CHECK_INT(checked, 27);
    docs_free(&d);
}

/* Specs both the validator and the schema refuse: the schema is no
 * looser than the validator where a schema can say it, and the checker
 * is not vacuous. */
TEST(schema, invalid_specs_fail_the_schema)
{
    static const char *const BAD[] = {
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'solver':1}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'algorithm':{'p':1}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'algorithm':{'name':'irpg','step_rule':'line_search'}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'algorithm':{'name':'bisg','varsigma':1}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'algorithm':{'irpg_eta':0.5}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'algorithm':{'name':'newton'}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'algorithm':{'max_iter':1.5}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'output':{'dense_iterate':'yes'}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'},'domain':{'type':'l2_ball','radius':1e13}}}",
        "{'problem':{'type':'least_squares','data':{'source':'inline','A':[[1e31]],'b':[1]}}}",
        "{'problem':{'type':'least_squares','data':{'source':'file','format':'csv','A_path':'A_small.mtx'}}}",
        "{'problem':{'type':'least_squares','data':{'source':'file','format':'libsvm','A_path':'A_small.mtx','b':[1]}}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'algorithm':{'name':'ir-scg','gap_tol':1e-3}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'algorithm':{'name':'ir-scg','q':4}}",
        "{'problem':{'type':'least_squares'}}",
        "{'problem':{'type':'matrix_completion','data':{'source':'inline','ratings':[[1,1]]}}}",
        "{'problem':{'type':'matrix_completion','data':{'source':'inline','ratings':[[1,1,5]]},'domain':{}}}",
        "{'problem':{'type':'matrix_completion','delta':0,'data':{'source':'synthetic'}}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'}},'reference':{'g_opt':1,'compute':true}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic','m_val':-1},'outer':'validation'}}",
        "{'problem':{'type':'logistic_regression','data':{'source':'synthetic'},'outer':'quadratic'}}",
        "{'problem':{'type':'logistic_regression','data':{'source':'synthetic'},'outer':'column_variance'}}",
        "{'problem':{'type':'logistic_regression','data':{'source':'inline','A':[[1]],'b':[1],'A_val':[[1]],'b_val':'x'}}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'},'domain':{'type':'simplex','radius':1}},'algorithm':{'direction':'pairwise'}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'},'domain':{'type':'simplex','radius':1}},'algorithm':{'direction':'away','step_rule':'open_loop'}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'},'domain':{'type':'simplex','radius':1}},'algorithm':{'direction':'sideways','step_rule':'line_search'}}",
        "{'problem':{'type':'least_squares','data':{'source':'synthetic'},'domain':{'type':'simplex','radius':1}},'algorithm':{'name':'cgbio','direction':'frank_wolfe'}}",
    };
    docs d;
    REQUIRE(docs_load(&d));
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        char *t = tspec_dq(BAD[i]);
        api_spec *s = NULL;
        api_parse_options opt;
        api_parse_options_default(&opt);
        opt.base_dir = "tests/data";
        if (api_spec_parse(t, strlen(t), &opt, &s, NULL) == 0)
            th_fail(__FILE__, __LINE__, "BAD[%zu]: the validator accepts it", i);
        if (spec_ok(&d, t))
            th_fail(__FILE__, __LINE__, "BAD[%zu]: the schema accepts it: %s", i, BAD[i]);
        api_spec_free(s);
        free(t);
    }
    docs_free(&d);
}

/* Real results and trace rows of `ircg solve` satisfy the OpenAPI
 * schemas Result and TraceRow; problem documents satisfy Problem. */
TEST(schema, results_traces_and_problems_satisfy_openapi)
{
    NEED_CLI();
    docs d;
    REQUIRE(docs_load(&d));
    static const char *const RUNS[][6] = {
        {"least-norm", "--max-iter", "20", NULL},
        {"least-norm", "--max-iter", "20", "--algorithm", "irpg"},
        {"least-norm", "--max-iter", "20", "--algorithm", "bisg"},
        {"synthetic-movielens", "--size", "small", "--max-iter", "20"}};
    for (int r = 0; r < 4; r++) {
        char *spec = tcli_tmp("sr.json"), *res = tcli_tmp("sr_result.json");
        char *tr = tcli_tmp("sr.jsonl");
        char *args[10] = {(char *)bin, "example"};
        int k = 2;
        for (int j = 0; j < 6 && RUNS[r][j]; j++)
            args[k++] = (char *)RUNS[r][j];
        args[k] = NULL;
        REQUIRE(tcli_run(args, spec) == 0);
        REQUIRE(tcli_run((char *[]){(char *)bin, "solve", spec, "--result", res, "--trace", tr,
                                    "--quiet", NULL}, NULL) == 0);
        cJSON *j = tcli_read_json(res);
        if (!j || !jsv_check(&d.v, d.api, api_schema(&d, "Result"), j))
            th_fail(__FILE__, __LINE__, "run %d: result: %s", r, d.v.error);
        cJSON_Delete(j);
        FILE *f = fopen(tr, "r");
        REQUIRE(f != NULL);
        char line[API_TRACE_ROW_MAX + 2];
        int rows = 0;
        while (fgets(line, sizeof line, f)) {
            cJSON *row = cJSON_Parse(line);
            if (!row || !jsv_check(&d.v, d.api, api_schema(&d, "TraceRow"), row))
                th_fail(__FILE__, __LINE__, "run %d row %d: %s", r, rows, d.v.error);
            cJSON_Delete(row);
            rows++;
        }
        fclose(f);
        CHECK_INT(rows, 20);
    }
    /* an invalid spec's and a syntax error's problem documents */
    const char *texts[] = {"{\"problem\":{\"type\":\"lp\"},\"x\":1}", "{\"problem\":"};
    for (int i = 0; i < 2; i++) {
        api_errors e;
        api_errors_init(&e);
        api_spec_parse(texts[i], strlen(texts[i]), NULL, NULL, &e);
        char *pj = api_errors_problem_json(&e, "/v1/jobs");
        cJSON *j = pj ? cJSON_Parse(pj) : NULL;
        if (!j || !jsv_check(&d.v, d.api, api_schema(&d, "Problem"), j))
            th_fail(__FILE__, __LINE__, "problem %d: %s", i, d.v.error);
        cJSON_Delete(j);
        free(pj);
        api_errors_clear(&e);
    }
    /* and the checker does refuse a result that breaks the schema */
    cJSON *bad = cJSON_Parse("{\"status\":\"solved\",\"error\":null,\"algorithm\":\"ircg\","
                             "\"iterations\":1,\"g_x\":1,\"f_x\":1,\"g_z\":1,\"f_z\":1}");
    CHECK(!jsv_check(&d.v, d.api, api_schema(&d, "Result"), bad));
    cJSON_Delete(bad);
    docs_free(&d);
}
