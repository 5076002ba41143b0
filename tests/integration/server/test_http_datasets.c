/*
 * test_http_datasets.c -- datasets of least squares and logistic regression
 * through a real daemon: uploads streamed to the data directory in
 * bounded memory (the daemon's peak RSS grows by far less than the file);
 * --max-upload and the per-job budget at upload (nothing kept) and at
 * submission (refused at /problem/data/id); the same bytes kept once,
 * under one kind; the files of uploads a crash interrupted removed at the
 * next start; and a result's iterates as .npz, the same bytes as the
 * snapshot of the same iterate (the JSON's numbers read back exactly).
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "common/http_util.h"
#include "common/test_cli_util.h"

#define MB (1024.0 * 1024.0)

/* An .npy of a rows x cols float64 matrix (cols 0: a vector) whose
 * values are v(i) = (i % 1000) / 8, into a file; its size. */
static long write_npy(const char *path, long rows, long cols)
{
    FILE *f = tcli_npy_create(path, rows, cols);
    if (!f)
        return -1;
    long count = rows * (cols ? cols : 1);
    double buf[4096];
    for (long i = 0; i < count; i += 4096) {
        long k = count - i < 4096 ? count - i : 4096;
        for (long j = 0; j < k; j++)
            buf[j] = (double)((i + j) % 1000) / 8.0;
        fwrite(buf, sizeof buf[0], (size_t)k, f);
    }
    long size = ftell(f);
    fclose(f);
    return size;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        rewind(f);
        p = malloc((size_t)n + 1);
        *len = p ? fread(p, 1, (size_t)n, f) : 0;
    }
    if (f)
        fclose(f);
    return p;
}

/* POST the file at path to /v1/datasets?query; the status, body in r. */
static long upload(const hu_daemon *d, const char *query, const char *path, hu_resp *r)
{
    size_t len = 0;
    char *body = slurp(path, &len), url[256];
    snprintf(url, sizeof url, "/v1/datasets%s%s", query[0] ? "?" : "", query);
    int rc = hu_req(d, "POST", url, "application/octet-stream", body, len, NULL, r);
    free(body);
    return rc == 0 ? r->status : -1;
}

/* The files of the data directory's datasets/ (names, space separated). */
static void listing(const hu_daemon *d, char *out, size_t cap)
{
    char dir[700];
    snprintf(dir, sizeof dir, "%s/datasets", d->data);
    DIR *dp = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    out[0] = '\0';
    while (dp && (e = readdir(dp)))
        if (e->d_name[0] != '.' || strncmp(e->d_name, ".upload-", 8) == 0)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                n += (size_t)snprintf(out + n, cap - n, "%s ", e->d_name);
    if (dp)
        closedir(dp);
}

static const char *jstr(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : "";
}

TEST(http_datasets, streamed_in_bounded_memory_and_kept_once)
{
    hu_daemon d = {0};
    hu_resp r;
    char path[700], before[4096], after[4096];
    snprintf(d.extra, sizeof d.extra, "--max-job-memory 1G");
    REQUIRE(hu_start(&d, "http_datasets_stream", 1) == 0);
    snprintf(path, sizeof path, "%s/big.npy", d.dir);
    long size = write_npy(path, 1 << 20, 24); /* 192 MiB of doubles */
    REQUIRE(size > 0);
    double rss0 = hu_peak_rss(&d);
    REQUIRE(upload(&d, "", path, &r) == 201);
    double rss1 = hu_peak_rss(&d);
    cJSON *ds = hu_json(&r);
    hu_resp_free(&r);
    char id[80];
    snprintf(id, sizeof id, "%s", jstr(ds, "id"));
    CHECK_STR(jstr(ds, "kind"), "matrix");
    CHECK_STR(jstr(ds, "format"), "npy");
    CHECK_INT(cJSON_GetObjectItemCaseSensitive(ds, "n_rows")->valuedouble, 1 << 20);
    CHECK_INT(cJSON_GetObjectItemCaseSensitive(ds, "memory_bytes")->valuedouble,
              (double)(1 << 20) * 24 * 8);
    cJSON_Delete(ds);
    /* the body went to the disk as it came: the peak grew by far less */
    printf("    peak RSS %.1f MB before, %.1f MB after an upload of %.1f MB\n", rss0 / MB,
           rss1 / MB, (double)size / MB);
    CHECK(rss0 > 0 && rss1 > 0 && rss1 - rss0 < 32 * MB);
    /* the stored file is the bytes sent */
    size_t a = 0, b = 0;
    char stored[800];
    snprintf(stored, sizeof stored, "%s/datasets/%s", d.data, id);
    char *x = slurp(path, &a), *y = slurp(stored, &b);
    CHECK(x && y && a == b && memcmp(x, y, a) == 0);
    free(x);
    free(y);
    /* the same bytes again: 200; as another kind: 409 */
    CHECK_INT(upload(&d, "", path, &r), 200);
    hu_resp_free(&r);
    CHECK_INT(upload(&d, "kind=vector", path, &r), 409);
    hu_resp_free(&r);
    /* an upload a crash interrupted: its file goes at the next start */
    snprintf(path, sizeof path, "%s/datasets/.upload-crashed", d.data);
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
    listing(&d, before, sizeof before);
    CHECK(strstr(before, ".upload-crashed") != NULL);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    REQUIRE(hu_restart(&d) == 0);
    listing(&d, after, sizeof after);
    CHECK(strstr(after, ".upload-crashed") == NULL && strstr(after, id) != NULL);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_datasets, limits_at_upload_and_at_submission)
{
    hu_daemon d = {0};
    hu_resp r;
    char path[700], before[4096], after[4096], cmd[2000], spec[600];
    snprintf(d.extra, sizeof d.extra, "--max-upload 4M --max-job-memory 6M");
    REQUIRE(hu_start(&d, "http_datasets_limits", 1) == 0);
    listing(&d, before, sizeof before);
    /* over --max-upload (4.8 MB): by its Content-Length, and streamed
     * without one */
    snprintf(path, sizeof path, "%s/over.npy", d.dir);
    REQUIRE(write_npy(path, 600000, 0) > 0);
    CHECK_INT(upload(&d, "", path, &r), 413);
    CHECK(strstr(r.body, "--max-upload") != NULL);
    hu_resp_free(&r);
    snprintf(cmd, sizeof cmd,
             "curl -s -o /dev/null -w '%%{http_code}' -H 'Transfer-Encoding: chunked' "
             "--data-binary @'%s' '%s/v1/datasets' > '%s/code' 2>/dev/null",
             path, d.base, d.dir);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/code", d.dir);
    char *code = hu_read_file(path);
    CHECK(code && !strcmp(code, "413"));
    free(code);
    /* within it (3.2 MB), but a job would hold two copies: over 6M */
    snprintf(path, sizeof path, "%s/twice.npy", d.dir);
    REQUIRE(write_npy(path, 100000, 4) > 0);
    CHECK_INT(upload(&d, "", path, &r), 422);
    CHECK(strstr(r.body, "dataset-over-budget") && strstr(r.body, "two copies"));
    hu_resp_free(&r);
    /* a text file whose parse would hold more than the budget: 1,950,000
     * numbers of 2 bytes */
    snprintf(path, sizeof path, "%s/wide.csv", d.dir);
    FILE *f = fopen(path, "w");
    for (int i = 0; f && i < 1950000; i++)
        fputs(i + 1 < 1950000 ? "1," : "1\n", f);
    if (f)
        fclose(f);
    CHECK_INT(upload(&d, "kind=vector", path, &r), 422);
    CHECK(strstr(r.body, "dataset-over-budget") && strstr(r.body, "parsing this file"));
    hu_resp_free(&r);
    listing(&d, after, sizeof after);
    CHECK_STR(after, before); /* nothing kept, no temporary file left */
    /* a matrix and a vector that fit, whose job's estimate (the data
     * twice, the solver's vectors of m) does not: 422 at the dataset */
    snprintf(path, sizeof path, "%s/col.npy", d.dir);
    REQUIRE(write_npy(path, 100000, 1) > 0);
    CHECK_INT(upload(&d, "", path, &r), 201);
    cJSON *col = hu_json(&r);
    hu_resp_free(&r);
    snprintf(path, sizeof path, "%s/b.npy", d.dir);
    REQUIRE(write_npy(path, 100000, 0) > 0);
    CHECK_INT(upload(&d, "", path, &r), 201);
    cJSON *b = hu_json(&r);
    hu_resp_free(&r);
    CHECK_STR(jstr(col, "kind"), "matrix");
    CHECK_STR(jstr(b, "kind"), "vector");
    snprintf(spec, sizeof spec,
             "{\"problem\": {\"type\": \"least_squares\", \"data\": {\"source\": \"dataset\", "
             "\"id\": \"%s\", \"b_id\": \"%s\"}}}",
             jstr(col, "id"), jstr(b, "id"));
    hu_req(&d, "POST", "/v1/jobs", "application/json", spec, strlen(spec), NULL, &r);
    CHECK_INT(r.status, 422);
    CHECK(strstr(r.body, "\"/problem/data/id\"") && strstr(r.body, "budget"));
    hu_resp_free(&r);
    cJSON_Delete(col);
    cJSON_Delete(b);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* The job's final iterate: /result?which=npz against its last snapshot,
 * byte for byte (the same writer; the JSON's numbers read back exactly). */
static void npz_equals_snapshot(const hu_daemon *d, const char *id, int64_t last)
{
    hu_resp a, b;
    char path[200];
    for (int w = 0; w < 2; w++) {
        const char *which = w ? "z" : "x";
        snprintf(path, sizeof path, "/v1/jobs/%s/result?%s=npz", id, which);
        CHECK_INT(hu_get(d, path, &a), 200);
        CHECK_STR(a.ctype, "application/x-npz");
        snprintf(path, sizeof path, "/v1/jobs/%s/snapshots/%lld/%s", id, (long long)last, which);
        CHECK_INT(hu_get(d, path, &b), 200);
        CHECK(a.len == b.len && a.len > 0 && memcmp(a.body, b.body, a.len) == 0);
        hu_resp_free(&a);
        hu_resp_free(&b);
    }
}

TEST(http_datasets, result_iterates_as_npz)
{
    hu_daemon d = {0};
    hu_resp r;
    char id[64], state[16], path[200];
    REQUIRE(hu_start(&d, "http_datasets_npz", 1) == 0);
    static const char *specs[] = {
        /* matrix completion: factors, rows and columns dropped (compacted) */
        "{\"problem\": {\"type\": \"matrix_completion\", \"delta\": 3, \"data\": {\"source\": "
        "\"synthetic\", \"n_rows\": 40, \"n_cols\": 30, \"n_ratings\": 200, \"rank\": 2}}, "
        "\"algorithm\": {\"max_iter\": 25}, \"output\": {\"snapshot_every\": 1000}}",
        "{\"problem\": {\"type\": \"least_squares\", \"data\": {\"source\": \"synthetic\", "
        "\"m\": 20, \"n\": 50, \"seed\": 3}, \"domain\": {\"type\": \"l1_ball\", \"radius\": 2}}, "
        "\"algorithm\": {\"max_iter\": 30}, \"output\": {\"snapshot_every\": 1000}}",
    };
    static const int64_t last[] = {25, 30};
    for (int k = 0; k < 2; k++) {
        REQUIRE(hu_submit(&d, specs[k], id, sizeof id) == 202);
        REQUIRE(hu_wait_terminal(&d, id, 60, state) == 0);
        CHECK_STR(state, "succeeded");
        npz_equals_snapshot(&d, id, last[k]);
    }
    snprintf(path, sizeof path, "/v1/jobs/%s/result?x=npz&z=npz", id);
    CHECK_INT(hu_get(&d, path, &r), 400);
    hu_resp_free(&r);
    snprintf(path, sizeof path, "/v1/jobs/%s/result?x=csv", id);
    CHECK_INT(hu_get(&d, path, &r), 400);
    hu_resp_free(&r);
    /* a job not finished: 409 as for the JSON */
    REQUIRE(hu_submit(&d, "{\"problem\": {\"type\": \"least_squares\", \"data\": {\"source\": "
                          "\"synthetic\"}}, \"algorithm\": {\"max_iter\": 100000000}}",
                      id, sizeof id) == 202);
    snprintf(path, sizeof path, "/v1/jobs/%s/result?x=npz", id);
    CHECK_INT(hu_get(&d, path, &r), 409);
    hu_resp_free(&r);
    snprintf(path, sizeof path, "/v1/jobs/%s/cancel", id);
    hu_req(&d, "POST", path, NULL, NULL, 0, NULL, &r);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
