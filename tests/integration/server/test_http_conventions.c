/*
 * test_http_conventions.c -- the HTTP conventions every route shares:
 * X-Request-Id (taken or made, echoed, in the JSON access log), 400 for
 * an unknown query parameter or format naming it, CORS off by default and
 * on for the listed origins only; and what ircgd serves besides the API:
 * /openapi.json, /v1/examples, the dashboard under a strict CSP, Chart.js
 * from its Debian directory, nothing outside it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_util.h"
#include "common/test_cli_util.h"

/* The error's first pointer, or "". */
static const char *first_pointer(const hu_resp *r, char *buf, size_t cap)
{
    cJSON *j = hu_json(r);
    const cJSON *p = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "errors"), 0),
                                         "pointer");
    snprintf(buf, cap, "%s", cJSON_IsString(p) ? p->valuestring : "");
    cJSON_Delete(j);
    return buf;
}

/* The access log line of request id `rid` in the daemon's log, parsed. */
static cJSON *access_line(const hu_daemon *d, const char *rid)
{
    char *log = hu_read_file(d->log);
    cJSON *found = NULL;
    for (char *line = log ? strtok(log, "\n") : NULL; line && !found; line = strtok(NULL, "\n")) {
        cJSON *j = line[0] == '{' ? cJSON_Parse(line) : NULL;
        const cJSON *id = cJSON_GetObjectItem(j, "request_id");
        if (cJSON_IsString(id) && !strcmp(id->valuestring, rid))
            found = j;
        else
            cJSON_Delete(j);
    }
    free(log);
    return found;
}

TEST(http_conventions, request_id_and_access_log)
{
    hu_daemon d = {0};
    hu_resp r;
    REQUIRE(hu_start(&d, "conv_reqid", 1) == 0);
    const char *mine[] = {"X-Request-Id: trace-42.a:b", "Authorization: Bearer not-logged-token",
                          NULL};
    CHECK_INT(hu_req(&d, "GET", "/v1/jobs?state=running", NULL, NULL, 0, mine, &r), 0);
    CHECK_STR(r.request_id, "trace-42.a:b");
    hu_resp_free(&r);
    const char *bad[] = {"X-Request-Id: has spaces and \"quotes\"", NULL};
    hu_req(&d, "GET", "/healthz", NULL, NULL, 0, bad, &r);
    CHECK_INT(strlen(r.request_id), 32); /* replaced by one of ours */
    char made[sizeof r.request_id];
    snprintf(made, sizeof made, "%s", r.request_id);
    hu_resp_free(&r);
    hu_get(&d, "/healthz", &r);
    CHECK(strlen(r.request_id) == 32 && strcmp(r.request_id, made) != 0);
    hu_resp_free(&r);
    hu_sleep_ms(100); /* the log line is written when the request completes */
    cJSON *line = access_line(&d, "trace-42.a:b");
    REQUIRE(line != NULL);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(line, "method")), "GET");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(line, "path")), "/v1/jobs");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(line, "route")), "/v1/jobs");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(line, "remote")), "127.0.0.1");
    CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(line, "status")), 200);
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(line, "ms")));
    cJSON_Delete(line);
    line = access_line(&d, made);
    CHECK(line != NULL);
    cJSON_Delete(line);
    char *log = hu_read_file(d.log);
    CHECK(log && !strstr(log, "not-logged-token") && !strstr(log, "state=running"));
    free(log);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_conventions, unknown_parameters_and_formats)
{
    hu_daemon d = {0};
    hu_resp r;
    char id[64], ptr[96];
    REQUIRE(hu_start(&d, "conv_params", 1) == 0);
    char *spec = hu_ls_spec(4, 6, 1, 10, 50, 10, NULL);
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    free(spec);
    static const struct { const char *fmt, *pointer; } cases[] = {
        {"/v1/jobs?page_sise=5", "/query/page_sise"},
        {"/v1/jobs?state=running&verbose=1", "/query/verbose"},
        {"/v1/jobs/%s?wait=5", "/query/wait"},
        {"/v1/jobs/%s/trace?format=xml", "/query/format"},
        {"/v1/jobs/%s/trace?limit=5&cursor=3", "/query/cursor"},
        {"/v1/jobs/%s/result?format=csv", "/query/format"},
        {"/healthz?x", "/query/x"},
        {"/openapi.json?v=2", "/query/v"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[160];
        snprintf(path, sizeof path, cases[i].fmt, id);
        long st = hu_get(&d, path, &r);
        if (st != 400 || strcmp(first_pointer(&r, ptr, sizeof ptr), cases[i].pointer) != 0)
            th_fail(__FILE__, __LINE__, "GET %s: %ld, pointer \"%s\"", path, st, ptr);
        hu_resp_free(&r);
    }
    CHECK_INT(hu_req(&d, "POST", "/v1/jobs?dry_run=true&force=1", "application/json", "{}", 2,
                     NULL, &r), 0);
    CHECK_INT(r.status, 400);
    CHECK_STR(first_pointer(&r, ptr, sizeof ptr), "/query/force");
    hu_resp_free(&r);
    /* the parameters each operation lists still work */
    char path[160];
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?after=0&limit=5&format=CSV", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    hu_resp_free(&r);
    CHECK_INT(hu_get(&d, "/v1/jobs?state=queued&page_size=2", &r), 200);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_conventions, cors_off_by_default_on_for_listed_origins)
{
    hu_daemon off = {0}, on = {0};
    hu_resp r;
    const char *from_a[] = {"Origin: https://a.example", NULL};
    const char *from_b[] = {"Origin: https://b.example", NULL};
    const char *pre[] = {"Origin: https://a.example", "Access-Control-Request-Method: POST",
                         "Access-Control-Request-Headers: authorization, content-type", NULL};
    REQUIRE(hu_start(&off, "conv_cors_off", 1) == 0);
    hu_req(&off, "GET", "/healthz", NULL, NULL, 0, from_a, &r);
    CHECK_STR(r.acao, "");
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&off, SIGTERM), 0);

    snprintf(on.tokens_file, sizeof on.tokens_file, "%s/cors_tokens.txt", th_tmpdir());
    REQUIRE(hu_write_tokens(on.tokens_file, (const char *[]){"cors-token-000000001", "read",
                                                             NULL}) == 0);
    snprintf(on.extra, sizeof on.extra, "--cors-origins https://a.example,https://c.example");
    REQUIRE(hu_start(&on, "conv_cors_on", 1) == 0);
    hu_req(&on, "GET", "/v1/jobs", NULL, NULL, 0, from_a, &r);
    CHECK_INT(r.status, 401); /* CORS lets a page ask; it grants nothing */
    CHECK_STR(r.acao, "https://a.example");
    hu_resp_free(&r);
    hu_req(&on, "GET", "/healthz", NULL, NULL, 0, from_b, &r);
    CHECK_STR(r.acao, "");
    hu_resp_free(&r);
    /* a preflight needs no token */
    CHECK_INT(hu_req(&on, "OPTIONS", "/v1/jobs", NULL, NULL, 0, pre, &r), 0);
    CHECK_INT(r.status, 204);
    CHECK_STR(r.acao, "https://a.example");
    CHECK_STR(r.allow, "GET, POST");
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&on, SIGTERM), 0);
}

TEST(http_conventions, openapi_examples_and_job_fields)
{
    hu_daemon d = {0};
    hu_resp r;
    char id[64], path[128];
    REQUIRE(hu_start(&d, "conv_docs", 1) == 0);
    CHECK_INT(hu_get(&d, "/openapi.json", &r), 200);
    CHECK_STR(r.ctype, "application/json");
    cJSON *served = hu_json(&r), *file = tcli_read_json("api/openapi.json");
    CHECK(served && file && cJSON_Compare(served, file, 1));
    cJSON_Delete(served);
    cJSON_Delete(file);
    char etag[96];
    snprintf(etag, sizeof etag, "If-None-Match: %s", r.etag);
    hu_resp_free(&r);
    const char *inm[] = {etag, NULL};
    hu_req(&d, "GET", "/openapi.json", NULL, NULL, 0, inm, &r);
    CHECK_INT(r.status, 304);
    hu_resp_free(&r);

    CHECK_INT(hu_get(&d, "/v1/examples", &r), 200);
    CHECK_STR(r.ctype, "application/json"); /* as the OpenAPI document says */
    cJSON *ex = hu_json(&r);
    const cJSON *e, *least = NULL;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(ex, "examples"))
        if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(e, "name")), "least-norm"))
            least = cJSON_GetObjectItem(e, "spec");
    REQUIRE(least != NULL);
    char *spec = cJSON_PrintUnformatted(least);
    cJSON_Delete(ex);
    hu_resp_free(&r);
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    free(spec);
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    cJSON *job = hu_json(&r);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(job, "algorithm")), "ircg");
    CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
                  cJSON_GetObjectItem(job, "progress"), "max_iter")), 2000);
    cJSON_Delete(job);
    hu_resp_free(&r);
    snprintf(path, sizeof path, "/v1/jobs/%s/spec", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    cJSON *sp = hu_json(&r);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(sp, "problem"),
                                                       "type")), "least_squares");
    cJSON_Delete(sp);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_conventions, dashboard_files)
{
    hu_daemon d = {0};
    hu_resp r;
    REQUIRE(hu_start(&d, "conv_ui", 1) == 0);
    static const struct { const char *path, *ctype; } files[] = {
        {"/ui", "text/html; charset=utf-8"},
        {"/ui/", "text/html; charset=utf-8"},
        {"/ui/js/app.js", "text/javascript; charset=utf-8"},
        {"/ui/style.css", "text/css; charset=utf-8"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        CHECK_INT(hu_get(&d, files[i].path, &r), 200);
        CHECK_STR(r.ctype, files[i].ctype);
        CHECK(strstr(r.csp, "default-src 'none'") && strstr(r.csp, "script-src 'self'") &&
              !strstr(r.csp, "unsafe"));
        CHECK_STR(r.cache, "no-cache");
        hu_resp_free(&r);
    }
    /* Chart.js from the Debian package's directory; nothing outside it */
    FILE *cj = fopen("/usr/share/javascript/chart.js/chart.mjs", "r");
    if (cj) {
        fclose(cj);
        CHECK_INT(hu_get(&d, "/ui/vendor/chart.js/chart.mjs", &r), 200);
        CHECK_STR(r.ctype, "text/javascript; charset=utf-8");
        hu_resp_free(&r);
    }
    static const char *const refused[] = {
        "/ui/vendor/chart.js/../../../../etc/passwd", "/ui/vendor/chart.js/%2e%2e/x.js",
        "/ui/vendor/chart.js/.hidden.js", "/ui/vendor/chart.js/chart.css",
        "/ui/vendor/chart.js//etc/passwd", "/ui/nope.html"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        long st = hu_get(&d, refused[i], &r);
        if (st != 404)
            th_fail(__FILE__, __LINE__, "GET %s: %ld", refused[i], st);
        hu_resp_free(&r);
    }
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
