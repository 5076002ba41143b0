/*
 * test_http_snapshot.c -- an iterate snapshot is a documented .npz that a
 * user reads without our code: downloaded from a real daemon and read by
 * clients/python/read_snapshot.py (the Python standard library only), its
 * factors are those of the job's result bit for bit, and the matrix they
 * make agrees with the result's dense X (computed by the library) to
 * rounding; a least-squares (or logistic) snapshot is the result's vector
 * exactly.
 * Skipped with a message when python3 is not available.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "common/http_check.h"
#include "common/http_util.h"

#define READER "clients/python/read_snapshot.py"

static int find_reader(char *path, size_t cap)
{
    struct stat st;
    const char *bd = getenv("IRCG_BUILD_DIR");
    snprintf(path, cap, "%s", READER);
    if (stat(path, &st) == 0)
        return 0;
    snprintf(path, cap, "%s/../%s", bd ? bd : ".", READER);
    return stat(path, &st);
}

/* Downloads snapshot (iteration, kind) of job id into file; 0 on success. */
static int download(const hu_daemon *d, const char *id, int it, const char *kind,
                    const char *file)
{
    char path[160];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots/%d/%s", id, it, kind);
    int ok = hu_get(d, path, &r) == 200 && strstr(r.ctype, "application/x-npz") &&
             r.len > 4 && !memcmp(r.body, "PK\x03\x04", 4);
    FILE *f = ok ? fopen(file, "wb") : NULL;
    ok = f && fwrite(r.body, 1, r.len, f) == r.len;
    if (f)
        ok &= fclose(f) == 0;
    hu_resp_free(&r);
    return ok ? 0 : -1;
}

/* python3 READER file mode -> its JSON output, parsed. */
static cJSON *read_with_python(const char *reader, const char *file, const char *mode)
{
    char cmd[2400], out[1300];
    snprintf(out, sizeof out, "%s.json", file);
    snprintf(cmd, sizeof cmd, "python3 %s %s %s > %s", reader, file, mode, out);
    if (system(cmd) != 0)
        return NULL;
    char *text = hu_read_file(out);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    return j;
}

static const cJSON *get(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* a (npz rows x k, as read) against b (the result's list of k columns). */
static int same_factor(const cJSON *rows, const cJSON *cols)
{
    int n = cJSON_GetArraySize(rows), k = cJSON_GetArraySize(cols), same = n > 0;
    for (int i = 0; same && i < n; i++)
        for (int j = 0; same && j < k; j++)
            same = cJSON_GetArrayItem(cJSON_GetArrayItem(rows, i), j)->valuedouble ==
                   cJSON_GetArrayItem(cJSON_GetArrayItem(cols, j), i)->valuedouble;
    return same && cJSON_GetArraySize(cJSON_GetArrayItem(rows, 0)) == k;
}

static int same_vector(const cJSON *a, const cJSON *b)
{
    int n = cJSON_GetArraySize(a), same = n == cJSON_GetArraySize(b);
    for (int i = 0; same && i < n; i++)
        same = cJSON_GetArrayItem(a, i)->valuedouble == cJSON_GetArrayItem(b, i)->valuedouble;
    return same;
}

/* A vector problem's snapshot `which` at iteration it: the result's
 * vector exactly, and the reader names the problem and its length. */
static void vector_snapshot(const hu_daemon *d, const char *reader, const char *spec, int it,
                            const char *which, const char *problem, int n)
{
    char id[64], state[16], file[700];
    CHECK_INT(hu_submit(d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(d, id, 30, state) == 0);
    cJSON *res = hu_result(d, id);
    REQUIRE(res);
    snprintf(file, sizeof file, "%s/%s%d.npz", d->dir, which, it);
    cJSON *dense = download(d, id, it, which, file) == 0
                       ? read_with_python(reader, file, "--dense") : NULL;
    cJSON *sum = dense ? read_with_python(reader, file, "") : NULL;
    CHECK(dense && same_vector(dense, get(get(res, which), "values")));
    CHECK(sum && !strcmp(get(sum, "problem")->valuestring, problem));
    CHECK(sum && get(sum, "n")->valueint == n);
    cJSON_Delete(dense);
    cJSON_Delete(sum);
    cJSON_Delete(res);
}

TEST(http_snapshot, npz_read_by_the_standard_library)
{
    hu_daemon d = {0};
    char reader[1024], file[700], id[64], state[16];
    if (system("python3 -c 'import zipfile, ast, array' >/dev/null 2>&1") != 0)
        SKIP("python3 not found: the snapshot reader is not tested");
    REQUIRE(find_reader(reader, sizeof reader) == 0);
    REQUIRE(hu_start(&d, "http_snapshot_npz", 1) == 0);

    char *spec = hu_mc_spec(60, 40, 600, 50, 0,
                            "\"output\":{\"snapshot_every\":25,\"dense_iterate\":true}");
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 30, state) == 0);
    cJSON *res = hu_result(&d, id);
    REQUIRE(res);
    const cJSON *x = get(res, "x");
    snprintf(file, sizeof file, "%s/x50.npz", d.dir);
    REQUIRE(download(&d, id, 50, "x", file) == 0);
    cJSON *arrays = read_with_python(reader, file, "--arrays");
    cJSON *dense = read_with_python(reader, file, "--dense");
    cJSON *sum = read_with_python(reader, file, "");
    REQUIRE(arrays && dense && sum);
    CHECK(get(arrays, "a0")->valuedouble == get(x, "a0")->valuedouble);
    CHECK(same_vector(get(arrays, "w"), get(x, "w")));
    CHECK(same_factor(get(arrays, "P"), get(x, "P")));
    CHECK(same_factor(get(arrays, "Q"), get(x, "Q")));
    CHECK_INT(cJSON_GetArraySize(get(arrays, "x0_diag")), 40);
    CHECK(get(arrays, "dense") == NULL); /* factored only */
    double e = hc_rel_dist(dense, get(x, "dense"));
    printf("    X from the factors (Python) against the result's: %.2g relative\n", e);
    CHECK(e <= 1e-13);
    CHECK_STR(get(sum, "problem")->valuestring, "matrix_completion");
    CHECK(get(sum, "rank")->valueint == get(x, "rank")->valueint);
    cJSON_Delete(arrays);
    cJSON_Delete(dense);
    cJSON_Delete(sum);
    cJSON_Delete(res);
    free(spec);

    /* least squares and logistic regression: the vector itself */
    spec = hu_ls_spec(10, 30, 3, 2, 40, 0, "\"output\":{\"snapshot_every\":40}");
    vector_snapshot(&d, reader, spec, 40, "z", "least_squares", 30);
    free(spec);
    vector_snapshot(&d, reader,
                    "{\"problem\":{\"type\":\"logistic_regression\",\"data\":{\"source\":"
                    "\"synthetic\",\"m\":20,\"n\":5,\"noise\":0.3},\"domain\":{\"type\":"
                    "\"l2_ball\",\"radius\":2}},\"algorithm\":{\"max_iter\":30},"
                    "\"output\":{\"snapshot_every\":30}}",
                    30, "x", "logistic_regression", 5);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
