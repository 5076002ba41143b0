/*
 * test_http_submit.c -- a submission is answered after the cheap checks
 * only; the instance is built by the worker.  A file whose head is fine but
 * which has a bad line deep inside is accepted (202, queued: the build has
 * not begun) and its job fails naming the spec member and the line; the
 * head's errors are still refused at once; ?dry_run=true stays cheap and
 * ?dry_run=full builds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_util.h"

enum { GOOD_LINES = 20000, BAD_LINE = 15001 };

/* ratings.dat in the daemon's data directory: GOOD_LINES lines, the line
 * BAD_LINE broken (or none when bad_line is 0). */
static void write_ratings(const hu_daemon *d, const char *name, int bad_line)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", d->data, name);
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    for (int k = 1; k <= GOOD_LINES; k++) {
        if (k == bad_line)
            fprintf(f, "%d::%d::4.5x::978300760\n", 1 + k / 50, 1 + k % 50);
        else
            fprintf(f, "%d::%d::%d::978300760\n", 1 + k / 50, 1 + k % 50, 1 + k % 5);
    }
    fclose(f);
}

static char *file_spec(const char *name)
{
    char *s = malloc(512);
    snprintf(s, 512,
             "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":\"file\","
             "\"path\":\"%s\",\"format\":\"movielens\"}},\"algorithm\":{\"max_iter\":3}}",
             name);
    return s;
}

static const char *jstr(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : "";
}

TEST(http_submit, bad_line_deep_inside_fails_the_job_with_its_line)
{
    hu_daemon d = {0};
    hu_resp r;
    char id[64], state[16], path[128], want[64];
    REQUIRE(hu_start(&d, "http_submit_deep", 1) == 0);
    write_ratings(&d, "deep.dat", BAD_LINE);
    char *spec = file_spec("deep.dat");

    /* cheap checks pass: the head is fine */
    hu_req(&d, "POST", "/v1/jobs?dry_run=true", "application/json", spec, strlen(spec),
           NULL, &r);
    CHECK_INT(r.status, 200);
    CHECK(strstr(r.body, "\"checks\":\"cheap\"") != NULL);
    hu_resp_free(&r);
    /* the full build finds the line */
    hu_req(&d, "POST", "/v1/jobs?dry_run=full", "application/json", spec, strlen(spec),
           NULL, &r);
    CHECK_INT(r.status, 422);
    snprintf(want, sizeof want, "line %d:", BAD_LINE);
    CHECK(strstr(r.body, want) != NULL);
    CHECK(strstr(r.body, "/problem/data/path") != NULL);
    hu_resp_free(&r);

    /* accepted before the build began: 202 and queued, then failed by the
     * worker with the member and the line */
    hu_req(&d, "POST", "/v1/jobs", "application/json", spec, strlen(spec), NULL, &r);
    CHECK_INT(r.status, 202);
    cJSON *job = hu_json(&r);
    CHECK_STR(jstr(job, "state"), "queued");
    snprintf(id, sizeof id, "%s", jstr(job, "id"));
    cJSON_Delete(job);
    hu_resp_free(&r);
    REQUIRE(hu_wait_terminal(&d, id, 60, state) == 0);
    CHECK_STR(state, "failed");
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    job = hu_json(&r);
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(job, "error");
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(err, "errors");
    const cJSON *first = cJSON_GetArrayItem(list, 0);
    CHECK_STR(jstr(first, "pointer"), "/problem/data/path");
    CHECK(strstr(jstr(first, "reason"), want) != NULL);
    CHECK(strstr(jstr(first, "reason"), "4.5x") != NULL);
    cJSON_Delete(job);
    hu_resp_free(&r);
    free(spec);
    hu_stop(&d, 15);
}

TEST(http_submit, head_errors_and_missing_things_are_refused_at_once)
{
    hu_daemon d = {0};
    hu_resp r;
    REQUIRE(hu_start(&d, "http_submit_head", 1) == 0);
    write_ratings(&d, "head.dat", 3);
    const char *cases[][2] = {
        {"head.dat", "line 3:"},
        {"absent.dat", "file not found"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *spec = file_spec(cases[k][0]);
        hu_req(&d, "POST", "/v1/jobs", "application/json", spec, strlen(spec), NULL, &r);
        CHECK_INT(r.status, 422);
        CHECK(strstr(r.body, cases[k][1]) != NULL);
        CHECK(strstr(r.body, "/problem/data/path") != NULL);
        hu_resp_free(&r);
        free(spec);
    }
    const char ds[] = "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":"
                      "\"dataset\",\"id\":\"0123\"}}}";
    hu_req(&d, "POST", "/v1/jobs", "application/json", ds, sizeof ds - 1, NULL, &r);
    CHECK_INT(r.status, 422);
    CHECK(strstr(r.body, "/problem/data/id") != NULL);
    hu_resp_free(&r);
    hu_req(&d, "POST", "/v1/jobs?dry_run=maybe", "application/json", ds, sizeof ds - 1,
           NULL, &r);
    CHECK_INT(r.status, 400);
    hu_resp_free(&r);
    hu_stop(&d, 15);
}
