/*
 * test_http_contract.c -- the contract check itself (tests/common/
 * contract.h): every response of every test that talks to a daemon
 * through hu_req goes through Stoplight Prism against api/openapi.json.
 *
 * Here: Prism is there (make deps-node installs it; without it nothing
 * is checked, and these tests skip saying so -- a skip tests/skips.allowed
 * does not allow, so CI fails); a test double -- responses made to violate the
 * document, replayed to Prism as the daemon's would be -- fails the check,
 * naming the route, the status and the member, while a conforming one
 * passes; and every operation of the document, asked with a query
 * parameter it does not take or with a method it does not have, answers
 * 400 or 405 as documented (the 400s Prism found undocumented on
 * GET /v1/jobs/{id}/result, issue 38).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/contract.h"
#include "common/http_util.h"

#define NEED_PRISM()                                                            \
    do {                                                                        \
        const char *e_ = getenv("IRCG_CONTRACT");                               \
        if (e_ && !strcmp(e_, "0"))                                             \
            SKIP("IRCG_CONTRACT=0: the contract check is off");                 \
        if (!ct_enabled())                                                      \
            SKIP("Stoplight Prism is not installed (make deps-node): no "       \
                 "response is checked");                                        \
    } while (0)

TEST(contract, prism_is_there) { NEED_PRISM(); }

static const char JSON_HDR[] = "Content-Type: application/json\r\n";
static const char PROBLEM_HDR[] = "Content-Type: application/problem+json\r\n";

/* Responses that break the document in three ways, and one that keeps it:
 * each violation names its route, status and member. */
TEST(contract, a_response_that_violates_the_document_fails)
{
    static char said[8192];
    NEED_PRISM();
    /* a job without its required members, its state not one of the enum */
    static const char job[] = "{\"id\": \"j_double\", \"state\": \"exploded\"}";
    ct_record("GET", "/v1/jobs/j_double", 200, JSON_HDR, job, strlen(job));
    int n = ct_check(0, said, sizeof said);
    printf("    said:\n%s", said);
    CHECK(n >= 2);
    CHECK(strstr(said, "GET /v1/jobs/{id} 200 response/body") != NULL);
    CHECK(strstr(said, "state") != NULL);
    CHECK(strstr(said, "created_at") != NULL || strstr(said, "required") != NULL);

    /* a status the operation does not list */
    static const char teapot[] = "{\"type\": \"urn:ircg:problem:teapot\", \"title\": \"Teapot\", "
                                 "\"status\": 418}";
    ct_record("GET", "/v1/jobs/j_double/result", 418, PROBLEM_HDR, teapot, strlen(teapot));
    CHECK_INT(ct_check(0, said, sizeof said), 1);
    printf("    said:\n%s", said);
    CHECK(strstr(said, "GET /v1/jobs/{id}/result 418 response") != NULL);

    /* a problem document whose status is a string */
    static const char bad_problem[] = "{\"type\": \"urn:ircg:problem:not-found\", "
                                      "\"title\": \"Not found\", \"status\": \"404\"}";
    ct_record("GET", "/v1/jobs/j_double", 404, PROBLEM_HDR, bad_problem, strlen(bad_problem));
    CHECK(ct_check(0, said, sizeof said) >= 1);
    printf("    said:\n%s", said);
    CHECK(strstr(said, "GET /v1/jobs/{id} 404 response/body") != NULL &&
          strstr(said, "status") != NULL);

    /* and what the document allows passes */
    static const char ok[] = "{\"status\": \"ok\"}";
    ct_record("GET", "/healthz", 200, JSON_HDR, ok, strlen(ok));
    CHECK_INT(ct_check(0, said, sizeof said), 0);
}

/* The document's operations: "METHOD path" pairs, path parameters made
 * concrete (ids that do not exist: the refusals come first). */
static int operations(char (*ops)[2][160], int cap)
{
    char doc[1024];
    int n = 0;
    if (hu_repo_file("api/openapi.json", doc, sizeof doc) != 0)
        return 0;
    char *text = hu_read_file(doc);
    cJSON *d = text ? cJSON_Parse(text) : NULL, *p, *m;
    free(text);
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(d, "paths")) {
        char path[160];
        size_t k = 0;
        for (const char *s = p->string; *s && k + 12 < sizeof path;) {
            if (*s == '{') {
                const char *v = !strncmp(s, "{iteration}", 11) ? "1"
                                : !strncmp(s, "{kind}", 6) ? "x" : "j_contract_none";
                k += (size_t)snprintf(path + k, sizeof path - k, "%s", v);
                s = strchr(s, '}') + 1;
            } else {
                path[k++] = *s++;
            }
        }
        path[k] = '\0';
        cJSON_ArrayForEach(m, p) {
            if (strcmp(m->string, "get") && strcmp(m->string, "post") &&
                strcmp(m->string, "delete"))
                continue;
            if (n < cap) {
                snprintf(ops[n][0], sizeof ops[n][0], "%s", m->string);
                for (char *c = ops[n][0]; *c; c++)
                    *c = (char)(*c - 'a' + 'A');
                snprintf(ops[n][1], sizeof ops[n][1], "%s", path);
            }
            n++;
        }
    }
    cJSON_Delete(d);
    return n < cap ? n : cap;
}

/* Every operation with a query parameter it does not take: 400 naming it
 * (and, after the test, a response the document allows there); every
 * path with PUT: 405 with Allow. */
TEST(contract, every_operation_refuses_what_it_does_not_take_as_documented)
{
    static char ops[64][2][160];
    char url[256];
    hu_daemon d = {0};
    NEED_PRISM();
    int n = operations(ops, 64);
    REQUIRE(n >= 15);
    REQUIRE(hu_start(&d, "contract_refusals", 1) == 0);
    for (int i = 0; i < n; i++) {
        hu_resp r;
        snprintf(url, sizeof url, "%s?no_such_parameter=1", ops[i][1]);
        hu_req(&d, ops[i][0], url, NULL, NULL, 0, NULL, &r);
        if (r.status != 400 || !strstr(r.body, "no_such_parameter"))
            th_fail(__FILE__, __LINE__, "%s %s: %ld, not 400 naming the parameter", ops[i][0],
                    url, r.status);
        hu_resp_free(&r);
        hu_req(&d, "PUT", ops[i][1], NULL, NULL, 0, NULL, &r);
        if (r.status != 405 || !r.allow[0])
            th_fail(__FILE__, __LINE__, "PUT %s: %ld, not 405 with Allow", ops[i][1], r.status);
        hu_resp_free(&r);
    }
    printf("    %d operations: 400 for an unknown query parameter, 405 for PUT\n", n);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
