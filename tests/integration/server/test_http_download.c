/*
 * test_http_download.c -- a trace is downloaded whole: a job of 25,000
 * iterations (one row each) read through plain HTTP (libcurl) in JSON and
 * CSV, gzip-compressed on request, and through the C client with limit 0;
 * pages with ?limit carry their Link.  (The Python client and its CLI read
 * the same trace in test_client.py.)
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "harness.h"
#include "common/http_util.h"
#include "ircg_client.h"

enum { ITERS = 25000 };

static size_t count_lines(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '\n';
    return k;
}

/* Iterations 1..ITERS in order, each once, in CSV text (after its header). */
static int csv_complete(const char *s)
{
    const char *p = strchr(s, '\n');
    long long want = 1;
    while (p && p[1]) {
        if (strtoll(p + 1, NULL, 10) != want)
            return 0;
        want++;
        p = strchr(p + 1, '\n');
    }
    return want == ITERS + 1;
}

/* The raw bytes of GET path with Accept-Encoding: gzip, not decoded. */
static char *get_raw_gzip(const hu_daemon *d, const char *path, size_t *len, char *enc)
{
    hu_resp r;
    const char *h[] = {"Accept-Encoding: gzip", NULL};
    hu_req(d, "GET", path, NULL, NULL, 0, h, &r);
    *len = r.len;
    snprintf(enc, 16, "%s", r.status == 200 ? "ok" : "fail");
    char *body = r.body; /* the caller's; the rest (the header lines) freed */
    r.body = NULL;
    hu_resp_free(&r);
    return body;
}

static char *gunzip(const char *in, size_t n, size_t *out_len)
{
    z_stream z = {0};
    size_t cap = 64 * n + 1024, len = 0;
    char *out = malloc(cap);
    if (!out || inflateInit2(&z, 15 + 16) != Z_OK) {
        free(out);
        return NULL;
    }
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)cap - 1;
    int rc = inflate(&z, Z_FINISH);
    len = cap - 1 - z.avail_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    out[len] = '\0';
    *out_len = len;
    return out;
}

TEST(http_download, whole_trace_of_25000_iterations)
{
    hu_daemon d = {0};
    hu_resp r;
    char id[64], state[16], path[160], enc[16];
    REQUIRE(hu_start(&d, "http_download", 1) == 0);
    char *spec = hu_ls_spec(10, 30, 5, 100.0, ITERS, 0, "\"output\":{\"trace_every\":1}");
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    free(spec);
    REQUIRE(hu_wait_terminal(&d, id, 300, state) == 0);
    CHECK_STR(state, "succeeded");

    /* CSV, no limit: every row, in order */
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK_INT(count_lines(r.body, r.len), ITERS + 1);
    CHECK(csv_complete(r.body));
    char *plain = r.body;
    size_t plain_len = r.len;
    r.body = NULL;
    hu_resp_free(&r);

    /* the same bytes gzip-compressed when asked for */
    size_t zlen = 0, ulen = 0;
    char *z = get_raw_gzip(&d, path, &zlen, enc);
    CHECK_STR(enc, "ok");
    char *u = z ? gunzip(z, zlen, &ulen) : NULL;
    CHECK(u != NULL && ulen == plain_len && memcmp(u, plain, plain_len) == 0);
    printf("    csv %zu bytes, gzip %zu\n", plain_len, zlen);
    CHECK(zlen < plain_len / 2);
    free(u);
    free(z);
    free(plain);

    /* JSON, no limit: every row, next_after the last */
    snprintf(path, sizeof path, "/v1/jobs/%s/trace", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    cJSON *doc = hu_json(&r);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "rows")), ITERS);
    CHECK_INT(cJSON_GetObjectItemCaseSensitive(doc, "next_after")->valueint, ITERS);
    cJSON_Delete(doc);
    hu_resp_free(&r);

    /* a page says where to go on */
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?limit=10000&after=100", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    doc = hu_json(&r);
    CHECK_INT(cJSON_GetObjectItemCaseSensitive(doc, "next_after")->valueint, 10100);
    cJSON_Delete(doc);
    CHECK(strstr(r.link, "after=10100") != NULL && strstr(r.link, "rel=\"next\"") != NULL);
    hu_resp_free(&r);

    /* the C client, limit 0: every row */
    ircg_client *c = NULL;
    ircg_client_error err = {0};
    REQUIRE(ircg_client_new(d.base, NULL, &c, &err) == IRCG_CLIENT_OK);
    char *text = NULL;
    size_t len = 0;
    int64_t next = 0;
    CHECK_INT(ircg_client_trace(c, id, IRCG_CLIENT_TRACE_CSV, 0, 0, &text, &len, &next, &err),
              IRCG_CLIENT_OK);
    CHECK_INT(count_lines(text, len), ITERS + 1);
    CHECK(text && csv_complete(text));
    CHECK_INT(next, ITERS);
    free(text);
    ircg_client_free(c);
    ircg_client_error_clear(&err);
    hu_stop(&d, 15);
}
