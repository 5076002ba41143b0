/*
 * test_http_data.c -- datasets (upload once, refer from jobs), snapshots,
 * queue limit, readiness during shutdown, --healthcheck.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "common/http_util.h"

/* A small synthetic ratings file in MovieLens "::" format. */
static char *ratings_text(size_t *len)
{
    char *s = malloc(64 * 1024);
    size_t n = 0;
    for (int u = 1; u <= 30; u++)
        for (int i = 1; i <= 20; i++)
            if ((u * 7 + i * 3) % 4 == 0 || u == i)
                n += (size_t)snprintf(s + n, 64 * 1024 - n, "%d::%d::%d::97830%04d\n", u, i,
                                      1 + (u + i) % 5, u * 20 + i);
    *len = n;
    return s;
}

static const char *jstr(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : "";
}

TEST(http_data, datasets)
{
    hu_daemon d = {0};
    hu_resp r;
    char id[64], state[16], spec[1024], path[200];
    size_t len = 0;
    char *text = ratings_text(&len);
    /* the running job's snapshots (keep-last 3) stay after it finishes */
    snprintf(d.extra, sizeof d.extra, "--snapshot-keep-finished 3");
    REQUIRE(hu_start(&d, "http_datasets", 1) == 0);
    hu_req(&d, "POST", "/v1/datasets?format=auto", "text/plain", text, len, NULL, &r);
    CHECK_INT(r.status, 201);
    cJSON *ds = hu_json(&r);
    hu_resp_free(&r);
    char dsid[80];
    snprintf(dsid, sizeof dsid, "%s", jstr(ds, "id"));
    CHECK_INT(strlen(dsid), 64);
    CHECK_STR(jstr(ds, "format"), "movielens");
    CHECK_INT(cJSON_GetObjectItemCaseSensitive(ds, "n_rows")->valueint, 30);
    cJSON_Delete(ds);
    /* the same bytes again: 200, same id */
    hu_req(&d, "POST", "/v1/datasets", "text/plain", text, len, NULL, &r);
    CHECK_INT(r.status, 200);
    CHECK(strstr(r.body, dsid) != NULL);
    hu_resp_free(&r);
    snprintf(path, sizeof path, "/v1/datasets/%s", dsid);
    CHECK_INT(hu_get(&d, path, &r), 200);
    hu_resp_free(&r);
    CHECK_INT(hu_get(&d, "/v1/datasets/abc", &r), 404);
    hu_resp_free(&r);
    /* a broken file: 422 naming the line */
    const char bad[] = "1::1::5::1\n1::x::3::2\n";
    hu_req(&d, "POST", "/v1/datasets?format=movielens", "text/plain", bad, sizeof bad - 1,
           NULL, &r);
    CHECK_INT(r.status, 422);
    CHECK(strstr(r.body, "\"line\":2") != NULL);
    {   /* the detail names the line once: "line 2: ...", not "line 2: line 2:" */
        cJSON *p = hu_json(&r);
        const cJSON *det = cJSON_GetObjectItemCaseSensitive(p, "detail");
        CHECK(cJSON_IsString(det) && strncmp(det->valuestring, "line 2: ", 8) == 0 &&
              strstr(det->valuestring + 1, "line") == NULL);
        cJSON_Delete(p);
    }
    hu_resp_free(&r);

    /* a job on the dataset, with snapshots */
    snprintf(spec, sizeof spec,
             "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":\"dataset\","
             "\"id\":\"%s\"},\"delta\":5,\"outer\":\"column_variance\"},\"algorithm\":"
             "{\"max_iter\":300},\"output\":{\"snapshot_every\":100}}", dsid);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 20, state) == 0);
    CHECK_STR(state, "succeeded");
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    cJSON *snaps = hu_json(&r);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(snaps, "snapshots")), 9);
    cJSON_Delete(snaps);
    hu_resp_free(&r);
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots/300/x", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(r.len > 48 && memcmp(r.body, "PK\x03\x04", 4) == 0); /* an .npz */
    hu_resp_free(&r);
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots/301/x", id);
    CHECK_INT(hu_get(&d, path, &r), 404);
    hu_resp_free(&r);
    free(text);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_data, queue_limit_and_probes)
{
    hu_daemon d = {0};
    hu_resp r;
    char a[64], b[64];
    snprintf(d.extra, sizeof d.extra, "--max-queued 1");
    REQUIRE(hu_start(&d, "http_queue", 1) == 0);
    char *spec = hu_ls_spec(200, 400, 3, 100, 1000000000LL, 0, "\"output\":{\"trace_every\":1000}");
    CHECK_INT(hu_submit(&d, spec, a, sizeof a), 202);
    REQUIRE(hu_wait_iteration(&d, a, 10, 10) == 0);
    CHECK_INT(hu_submit(&d, spec, b, sizeof b), 202);
    hu_req(&d, "POST", "/v1/jobs", "application/json", spec, strlen(spec), NULL, &r);
    CHECK_INT(r.status, 429);
    CHECK(r.retry_after[0] != '\0');
    CHECK(strstr(r.body, "queue-full") != NULL);
    hu_resp_free(&r);

    /* --healthcheck against the running daemon */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/bin/ircgd --healthcheck --listen 127.0.0.1:%d >/dev/null",
             getenv("IRCG_BUILD_DIR") ? getenv("IRCG_BUILD_DIR") : "build", d.port);
    CHECK_INT(system(cmd), 0);

    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK(system(cmd) != 0); /* nobody listening: unhealthy */
    /* both jobs survive the stop: a was requeued, b never started */
    REQUIRE(hu_restart(&d) == 0);
    CHECK_INT(hu_get(&d, "/v1/jobs?page_size=1", &r), 200);
    cJSON *page = hu_json(&r);
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(page, "next_page_token");
    CHECK(cJSON_IsString(tok));
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(page, "jobs")), 1);
    CHECK_STR(jstr(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(page, "jobs"), 0), "id"), b);
    char path[128];
    snprintf(path, sizeof path, "/v1/jobs?page_size=1&page_token=%s",
             cJSON_IsString(tok) ? tok->valuestring : "");
    cJSON_Delete(page);
    hu_resp_free(&r);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.body, a) != NULL);
    hu_resp_free(&r);
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "/v1/jobs/%s/cancel", i ? b : a);
        hu_req(&d, "POST", path, NULL, NULL, 0, NULL, &r);
        CHECK(r.status == 200 || r.status == 202);
        hu_resp_free(&r);
    }
    free(spec);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
