/*
 * test_http_basic.c -- a real ircgd on loopback: the whole lifecycle of a
 * job, checked against an independent least-norm computation, plus the
 * small endpoints (dry run, idempotency, 404/405, metrics, version).
 */
#include <lapacke.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_util.h"
#include "ircg.h"

/* A^+ b of the synthetic least squares (minimum-norm solution, dgels). */
static double *least_norm_solution(int m, int n, int seed)
{
    double *A = NULL, *b = NULL;
    double *x = calloc((size_t)n, sizeof *x);
    if (ircg_synth_least_squares(m, n, 0.0, (uint64_t)seed, &A, &b, NULL) != IRCG_OK || !x) {
        free(x);
        x = NULL;
    } else {
        memcpy(x, b, (size_t)m * sizeof *x);
        if (LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', m, n, 1, A, n, x, 1) != 0) {
            free(x);
            x = NULL;
        }
    }
    free(A);
    free(b);
    return x;
}

static double norm2(const double *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* ||z - xs|| / ||xs|| for the iterate "z" of a result. */
static double rel_error(const cJSON *result, const double *xs, int n)
{
    const cJSON *z = cJSON_GetObjectItemCaseSensitive(result, "z");
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(z, "values");
    if (cJSON_GetArraySize(vals) != n)
        return INFINITY;
    double d = 0;
    for (int i = 0; i < n; i++) {
        double e = cJSON_GetArrayItem(vals, i)->valuedouble - xs[i];
        d += e * e;
    }
    return sqrt(d) / norm2(xs, n);
}

TEST(http_basic, lifecycle)
{
    hu_daemon d = {0};
    char id[64], state[16], path[160];
    hu_resp r;
    const int m = 30, n = 80, seed = 1;
    double *xs = least_norm_solution(m, n, seed);
    REQUIRE(xs);
    REQUIRE(hu_start(&d, "http_lifecycle", 2) == 0);
    char *spec = hu_ls_spec(m, n, seed, 1.5 * norm2(xs, n), 20000, 0,
                            "\"output\":{\"trace_every\":10}");
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 20, state) == 0);
    CHECK_STR(state, "succeeded");

    cJSON *res = hu_result(&d, id);
    REQUIRE(res);
    CHECK_STR(str(res, "status"), "max_iter");
    CHECK_INT(num(res, "iterations"), 20000);
    double err = rel_error(res, xs, n);
    printf("    least-norm: ||z - A^+ b|| / ||A^+ b|| = %.3g\n", err);
    CHECK(err < 5e-3);

    /* trace: JSON rows every 10 iterations, the first and the last */
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?limit=100000", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    cJSON *tr = hu_json(&r);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(tr, "rows");
    CHECK_INT(cJSON_GetArraySize(rows), 2001);
    const cJSON *last = cJSON_GetArrayItem(rows, cJSON_GetArraySize(rows) - 1);
    CHECK_INT(num(cJSON_GetArrayItem(rows, 0), "t"), 1);
    CHECK_INT(num(cJSON_GetArrayItem(rows, 1), "t"), 10);
    CHECK_INT(num(last, "t"), 20000);
    CHECK(num(last, "f_z") == num(res, "f_z"));
    CHECK(num(last, "g_x") == num(res, "g_x"));
    CHECK_INT(num(tr, "next_after"), 20000);
    cJSON_Delete(tr);
    hu_resp_free(&r);

    /* trace as CSV, from a cursor */
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv&after=19980", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.ctype, "text/csv") != NULL);
    CHECK(strncmp(r.body, "t,elapsed,", 10) == 0);
    CHECK(strstr(r.body, "\n19990,") != NULL);
    CHECK(strstr(r.body, "\n20000,") != NULL);
    CHECK(strstr(r.body, "\n19980,") == NULL);
    hu_resp_free(&r);

    /* the job resource: summary, ETag, 304 */
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    cJSON *job = hu_json(&r);
    CHECK_STR(str(cJSON_GetObjectItemCaseSensitive(job, "result"), "status"), "max_iter");
    CHECK(str(job, "finished_at")[0] != '\0');
    char etag[64], inm[96];
    snprintf(etag, sizeof etag, "%s", r.etag);
    CHECK(etag[0] == 'W');
    cJSON_Delete(job);
    hu_resp_free(&r);
    snprintf(inm, sizeof inm, "If-None-Match: %s", etag);
    const char *hdrs[] = {inm, NULL};
    hu_req(&d, "GET", path, NULL, NULL, 0, hdrs, &r);
    CHECK_INT(r.status, 304);
    hu_resp_free(&r);

    /* snapshots: none asked for */
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    hu_resp_free(&r);

    /* delete, then 404 */
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    hu_req(&d, "DELETE", path, NULL, NULL, 0, NULL, &r);
    CHECK_INT(r.status, 204);
    hu_resp_free(&r);
    CHECK_INT(hu_get(&d, path, &r), 404);
    CHECK(strstr(r.ctype, "application/problem+json") != NULL);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    cJSON_Delete(res);
    free(spec);
    free(xs);
}

/* ------------------------------------------------ invalid submissions -- */

typedef struct bad_case {
    const char *what;
    const char *ctype;
    const char *body;     /* NULL: a large body */
    int chunked;
    long status;
    const char *type;     /* problem type suffix */
    const char *pointer;  /* an errors[] pointer expected, or NULL */
} bad_case;

#define LS_DATA "\"data\":{\"source\":\"synthetic\",\"m\":5,\"n\":8,\"noise\":0,\"seed\":1}"
#define LS_OK(extra) "{\"problem\":{\"type\":\"least_squares\"," LS_DATA \
    ",\"domain\":{\"type\":\"l2_ball\",\"radius\":10},\"outer\":{\"type\":\"half_norm_sq\"}}" extra "}"
#define MC_FILE(path) "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":\"file\"," \
    "\"path\":\"" path "\",\"format\":\"movielens\"},\"delta\":5,\"outer\":\"column_variance\"}}"

static const bad_case BAD[] = {
    {"malformed JSON", "application/json", "{\"problem\": {", 0, 400, "malformed-json", NULL},
    {"empty body", "application/json", "", 0, 400, "malformed-json", NULL},
    {"wrong content type", "text/plain", LS_OK(""), 0, 415, "unsupported-media-type", NULL},
    {"no content type", NULL, LS_OK(""), 0, 415, "unsupported-media-type", NULL},
    {"too large (Content-Length)", "application/json", NULL, 0, 413, "payload-too-large", NULL},
    {"too large (chunked)", "application/json", NULL, 1, 413, "payload-too-large", NULL},
    {"unknown member", "application/json", LS_OK(",\"bogus\":1"), 0, 422, "invalid-spec", "/bogus"},
    {"p out of range", "application/json", LS_OK(",\"algorithm\":{\"p\":1.5}"), 0, 422,
     "invalid-spec", "/algorithm/p"},
    {"max_iter of the wrong type", "application/json", LS_OK(",\"algorithm\":{\"max_iter\":\"ten\"}"),
     0, 422, "invalid-spec", "/algorithm/max_iter"},
    {"missing problem", "application/json", "{}", 0, 422, "invalid-spec", "/problem"},
    {"unknown problem type", "application/json", "{\"problem\":{\"type\":\"lasso\"}}", 0, 422,
     "invalid-spec", "/problem/type"},
    {"negative radius", "application/json",
     "{\"problem\":{\"type\":\"least_squares\"," LS_DATA ",\"domain\":{\"type\":\"l2_ball\","
     "\"radius\":-1},\"outer\":{\"type\":\"half_norm_sq\"}}}", 0, 422, "invalid-spec",
     "/problem/domain/radius"},
    {"file outside the data dir", "application/json", MC_FILE("../../../etc/passwd"), 0, 422,
     "invalid-spec", "/problem/data/path"},
    {"absolute path outside", "application/json", MC_FILE("/etc/hostname"), 0, 422,
     "invalid-spec", "/problem/data/path"},
    {"missing file", "application/json", MC_FILE("no-such-file.dat"), 0, 422, "invalid-spec",
     "/problem/data/path"},
    {"synthetic data too large", "application/json",
     "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"synthetic\",\"m\":100000,"
     "\"n\":100000,\"noise\":0,\"seed\":1},\"domain\":{\"type\":\"l2_ball\",\"radius\":10},"
     "\"outer\":{\"type\":\"half_norm_sq\"}}}", 0, 422, "invalid-spec", "/problem/data"},
    {"not an object", "application/json", "[1,2,3]", 0, 422, "invalid-spec", NULL},
    {"unknown dataset", "application/json",
     "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":\"dataset\",\"id\":"
     "\"0000000000000000000000000000000000000000000000000000000000000000\"},\"delta\":5}}",
     0, 422, "invalid-spec", "/problem/data/id"},
};

/* Does the problem list `pointer` among its errors? */
static int has_pointer(const cJSON *p, const char *pointer)
{
    const cJSON *e = NULL;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(p, "errors"))
        if (!strcmp(str(e, "pointer"), pointer))
            return 1;
    return 0;
}

static void post_bad(const hu_daemon *d, const bad_case *c, hu_resp *r)
{
    size_t big = 300000;
    char *body = NULL;
    if (!c->body) {
        body = malloc(big + 1);
        memset(body, ' ', big);
        body[0] = '{';
        body[big - 1] = '}';
        body[big] = '\0';
    }
    const char *chunked[] = {"Transfer-Encoding: chunked", NULL};
    hu_req(d, "POST", "/v1/jobs", c->ctype, body ? body : c->body,
           body ? big : strlen(c->body), c->chunked ? chunked : NULL, r);
    free(body);
}

TEST(http_basic, invalid_submissions)
{
    hu_daemon d = {0};
    hu_resp r;
    snprintf(d.extra, sizeof d.extra, "--max-body 100000");
    REQUIRE(hu_start(&d, "http_invalid", 1) == 0);
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        const bad_case *c = &BAD[i];
        post_bad(&d, c, &r);
        cJSON *p = hu_json(&r);
        char type[96];
        snprintf(type, sizeof type, "urn:ircg:problem:%s", c->type);
        if (r.status != c->status || !strstr(r.ctype, "application/problem+json") ||
            strcmp(str(p, "type"), type) != 0 || (c->pointer && !has_pointer(p, c->pointer)))
            th_fail(__FILE__, __LINE__, "%s: got %ld %s %s", c->what, r.status, r.ctype,
                    r.body);
        if (c->status == 400 && !strcmp(c->type, "malformed-json"))
            CHECK(num(p, "line") >= 1 && num(p, "column") >= 1);
        cJSON_Delete(p);
        hu_resp_free(&r);
    }
    CHECK_INT(hu_get(&d, "/healthz", &r), 200);
    CHECK(strstr(r.body, "\"ok\"") != NULL);
    hu_resp_free(&r);
    /* nothing was queued */
    CHECK_INT(hu_get(&d, "/v1/jobs", &r), 200);
    CHECK(strstr(r.body, "\"jobs\":[]") != NULL);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* --------------------------------------------------- small endpoints -- */

TEST(http_basic, dry_run_idempotency_routes)
{
    hu_daemon d = {0};
    hu_resp r, r2;
    REQUIRE(hu_start(&d, "http_small", 1) == 0);
    const char *spec = LS_OK("");
    hu_req(&d, "POST", "/v1/jobs?dry_run=true", "application/json", spec, strlen(spec),
           NULL, &r);
    CHECK_INT(r.status, 200);
    cJSON *o = hu_json(&r);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "valid")));
    CHECK(cJSON_GetObjectItemCaseSensitive(o, "spec") != NULL);
    cJSON_Delete(o);
    hu_resp_free(&r);
    CHECK_INT(hu_get(&d, "/v1/jobs", &r), 200);
    CHECK(strstr(r.body, "\"jobs\":[]") != NULL); /* dry run queues nothing */
    hu_resp_free(&r);

    /* same key + same body: the same job; another body: 422 */
    const char *key[] = {"Idempotency-Key: abc-123", NULL};
    hu_req(&d, "POST", "/v1/jobs", "application/json", spec, strlen(spec), key, &r);
    hu_req(&d, "POST", "/v1/jobs", "application/json", spec, strlen(spec), key, &r2);
    CHECK_INT(r.status, 202);
    CHECK_STR(r.replayed, "");
    CHECK_INT(r2.status, 202); /* the replay answers as the original did */
    CHECK_STR(r2.replayed, "true");
    CHECK(r.location[0] != '\0');
    CHECK_STR(r.location, r2.location);
    hu_resp_free(&r);
    hu_resp_free(&r2);
    const char *other = LS_OK(",\"algorithm\":{\"max_iter\":7}");
    hu_req(&d, "POST", "/v1/jobs", "application/json", other, strlen(other), key, &r);
    CHECK_INT(r.status, 422);
    CHECK(strstr(r.body, "idempotency-key-reused") != NULL);
    hu_resp_free(&r);

    /* 404, 405 with Allow */
    CHECK_INT(hu_get(&d, "/v2/nothing", &r), 404);
    CHECK(strstr(r.ctype, "application/problem+json") != NULL);
    hu_resp_free(&r);
    CHECK_INT(hu_get(&d, "/v1/jobs/j_nosuchjob/result", &r), 404);
    hu_resp_free(&r);
    hu_req(&d, "PUT", "/v1/jobs", NULL, NULL, 0, NULL, &r);
    CHECK_INT(r.status, 405);
    CHECK_STR(r.allow, "GET, POST");
    hu_resp_free(&r);
    hu_req(&d, "DELETE", "/healthz", NULL, NULL, 0, NULL, &r);
    CHECK_INT(r.status, 405);
    hu_resp_free(&r);
    hu_req(&d, "DELETE", "/v1/jobs/j_nosuchjob/trace", NULL, NULL, 0, NULL, &r);
    CHECK_INT(r.status, 405);
    CHECK_STR(r.allow, "GET");
    hu_resp_free(&r);
    /* before its 405, a method a path does not serve has its query checked:
     * any method but POST and DELETE as the path's GET does */
    hu_req(&d, "PUT", "/v1/jobs?state=queued", NULL, NULL, 0, NULL, &r);
    CHECK_INT(r.status, 405);
    hu_resp_free(&r);
    hu_req(&d, "PUT", "/v1/jobs?bogus=1", NULL, NULL, 0, NULL, &r);
    CHECK_INT(r.status, 400);
    hu_resp_free(&r);
    hu_req(&d, "POST", "/v1/jobs/j_nosuchjob/trace?after=1", NULL, NULL, 0, NULL, &r);
    CHECK_INT(r.status, 400);
    hu_resp_free(&r);
    CHECK_INT(hu_get(&d, "/readyz", &r), 200);
    hu_resp_free(&r);
    CHECK_INT(hu_get(&d, "/v1/version", &r), 200);
    CHECK(strstr(r.body, "\"libmicrohttpd\":\"0.9") != NULL);
    hu_resp_free(&r);
    CHECK_INT(hu_get(&d, "/v1/jobs?state=bogus", &r), 400);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* Every line of /metrics is a comment or "name{labels} value". */
static int metrics_ok(const char *text, int *samples)
{
    const char *line = text;
    *samples = 0;
    while (*line) {
        const char *nl = strchr(line, '\n');
        if (!nl)
            return 0;
        if (*line != '#') {
            char name[128], rest[512];
            double v = 0;
            int n = (int)(nl - line);
            snprintf(rest, sizeof rest, "%.*s", n, line);
            char *sp = strrchr(rest, ' ');
            if (!sp || sscanf(rest, "%127[a-zA-Z0-9_:]", name) != 1 ||
                sscanf(sp + 1, "%lf", &v) != 1)
                return 0;
            const char *after = rest + strlen(name);
            if (*after != ' ' && (*after != '{' || sp[-1] != '}'))
                return 0;
            ++*samples;
        }
        line = nl + 1;
    }
    return 1;
}

TEST(http_basic, metrics_and_tokens)
{
    hu_daemon d = {0};
    hu_resp r;
    char id[64], state[16];
    snprintf(d.tokens_file, sizeof d.tokens_file, "%s/http_tokens.txt", th_tmpdir());
    REQUIRE(hu_write_tokens(d.tokens_file, (const char *[]){"first-token-00123", "admin",
                                                             "second-token-0456", "admin",
                                                             NULL}) == 0);
    REQUIRE(hu_start(&d, "http_tokens", 1) == 0);
    const char *good[] = {"Authorization: Bearer second-token-0456", NULL};
    const char *bad[] = {"Authorization: Bearer second-token-0457", NULL};
    hu_req(&d, "GET", "/v1/jobs", NULL, NULL, 0, NULL, &r);
    CHECK_INT(r.status, 401);
    CHECK(strncmp(r.www_auth, "Bearer", 6) == 0);
    hu_resp_free(&r);
    hu_req(&d, "GET", "/v1/jobs", NULL, NULL, 0, bad, &r);
    CHECK_INT(r.status, 401);
    hu_resp_free(&r);
    const char *spec = LS_OK("");
    hu_req(&d, "POST", "/v1/jobs", "application/json", spec, strlen(spec), NULL, &r);
    CHECK_INT(r.status, 401);
    hu_resp_free(&r);
    hu_req(&d, "GET", "/v1/jobs", NULL, NULL, 0, good, &r);
    CHECK_INT(r.status, 200);
    hu_resp_free(&r);
    CHECK_INT(hu_get(&d, "/healthz", &r), 200); /* probes stay open */
    hu_resp_free(&r);
    CHECK_INT(hu_get(&d, "/readyz", &r), 200);
    hu_resp_free(&r);
    hu_req(&d, "GET", "/metrics", NULL, NULL, 0, good, &r);
    CHECK_INT(r.status, 200);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);

    /* tokens off: the same requests pass; a job, then /metrics parses */
    d.tokens_file[0] = '\0';
    REQUIRE(hu_restart(&d) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 10, state) == 0);
    CHECK_INT(hu_get(&d, "/metrics", &r), 200);
    CHECK(strstr(r.ctype, "text/plain; version=0.0.4") != NULL);
    int samples = 0;
    CHECK(metrics_ok(r.body, &samples));
    CHECK(samples > 20);
    CHECK(strstr(r.body, "ircgd_jobs{state=\"succeeded\"} 1\n") != NULL);
    CHECK(strstr(r.body, "ircgd_http_requests_total{route=\"/v1/jobs\",method=\"POST\",code=\"202\"} 1\n") != NULL);
    CHECK(strstr(r.body, "ircgd_build_info{") != NULL);
    CHECK(strstr(r.body, "ircgd_job_run_seconds_count 1\n") != NULL);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* Mutated specs, odd paths and methods: the daemon answers each with a
 * status and stays up. */
TEST(http_basic, garbage_never_crashes)
{
    hu_daemon d = {0};
    hu_resp r;
    uint64_t rng = 0x9E3779B97F4A7C15ULL;
    REQUIRE(hu_start(&d, "http_garbage", 1) == 0);
    char *base = hu_ls_spec(5, 8, 1, 10, 20, 0, "\"output\":{\"trace_every\":1}");
    size_t n = strlen(base);
    int answered = 0;
    for (int k = 0; k < 300; k++) {
        char *s = malloc(n + 1);
        memcpy(s, base, n + 1);
        for (int f = 0; f < 1 + k % 4; f++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t pos = (size_t)(rng >> 33) % n;
            s[pos] = "{}[]\",:0-9eE.ntfax\\ \x01\xff"[(rng >> 20) % 22];
        }
        size_t len = k % 7 == 0 ? (size_t)(rng >> 40) % n : n; /* truncations */
        hu_req(&d, "POST", "/v1/jobs?dry_run=true", "application/json", s, len, NULL, &r);
        answered += r.status >= 200 && r.status < 500;
        hu_resp_free(&r);
        free(s);
    }
    CHECK_INT(answered, 300);
    static const char *const paths[] = {"/", "//", "/v1", "/v1/jobs/", "/v1/jobs//cancel",
        "/v1/jobs/x/snapshots/-1/state", "/v1/jobs/x/snapshots/1/bogus",
        "/v1/jobs/x/trace?after=-5", "/v1/jobs/x/trace?limit=0", "/v1/jobs?page_size=0",
        "/v1/jobs?page_token=zz", "/v1/datasets/%00", "/v1/jobs/%2e%2e/result",
        "/v1/jobs/x/events?after=abc"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        hu_get(&d, paths[i], &r);
        if (r.status < 400 || r.status >= 500)
            th_fail(__FILE__, __LINE__, "GET %s: %ld", paths[i], r.status);
        hu_resp_free(&r);
    }
    CHECK_INT(hu_get(&d, "/healthz", &r), 200);
    hu_resp_free(&r);
    free(base);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
