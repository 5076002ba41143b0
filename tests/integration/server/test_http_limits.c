/*
 * test_http_limits.c -- the daemon's limits against clients that would
 * hold it: slow senders (slowloris, a body trickled in), idle event
 * streams, per-token request rates (and the counter of refusals), and a
 * burst of 500 concurrent submissions of which none may be lost: every
 * accepted one is stored once and runs to its end.
 */
#include <curl/curl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "common/http_util.h"
#include "store.h"

/* Sends text one byte every step_ms until the server closes the
 * connection or max_s passes; returns the seconds it took (or max_s). */
static double trickle(int fd, const char *text, int step_ms, double max_s)
{
    double t0 = hu_now();
    for (size_t i = 0; hu_now() - t0 < max_s; i = (i + 1) % strlen(text)) {
        char buf[256];
        struct pollfd p = {fd, POLLIN, 0};
        if (send(fd, text + i, 1, MSG_NOSIGNAL) != 1)
            break;
        if (poll(&p, 1, step_ms) == 1 && recv(fd, buf, sizeof buf, MSG_DONTWAIT) <= 0)
            break; /* end of stream: closed by the server */
    }
    return hu_now() - t0;
}

static long long metric(const hu_daemon *d, const char *name)
{
    hu_resp r;
    char line[160];
    long long v = -1;
    snprintf(line, sizeof line, "\n%s ", name);
    if (hu_get(d, "/metrics", &r) == 200 && strstr(r.body, line))
        v = atoll(strstr(r.body, line) + strlen(line));
    hu_resp_free(&r);
    return v;
}

/* A metric's value read with a bearer token; -1 when absent. */
static long long metric_as(const hu_daemon *d, const char *token, const char *name)
{
    hu_resp r;
    char line[160], h[128];
    long long v = -1;
    snprintf(h, sizeof h, "Authorization: Bearer %s", token);
    const char *hdr[] = {h, NULL};
    snprintf(line, sizeof line, "\n%s ", name);
    hu_req(d, "GET", "/metrics", NULL, NULL, 0, hdr, &r);
    if (r.status == 200 && r.body && strstr(r.body, line))
        v = atoll(strstr(r.body, line) + strlen(line));
    hu_resp_free(&r);
    return v;
}

/* A client that sends its headers, or its body, a byte at a time (never
 * idle for --conn-timeout) is closed after --request-timeout; the others
 * are served meanwhile. */
TEST(http_limits, slow_senders_are_closed)
{
    hu_daemon d = {0};
    hu_resp r;
    int a, b;
    snprintf(d.extra, sizeof d.extra, "--request-timeout 2 --conn-timeout 60");
    REQUIRE(hu_start(&d, "http_slowloris", 1) == 0);
    REQUIRE((a = hu_connect(d.port)) >= 0);
    double headers = trickle(a, "GET /healthz HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaa", 300, 20);
    const char *body_head = "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            "Content-Length: 100000\r\n\r\n";
    REQUIRE((b = hu_connect(d.port)) >= 0);
    CHECK(send(b, body_head, strlen(body_head), MSG_NOSIGNAL) == (ssize_t)strlen(body_head));
    double body = trickle(b, "{\"problem\":", 300, 20);
    printf("    slow headers closed after %.1f s, slow body after %.1f s\n", headers, body);
    CHECK(headers >= 1.5 && headers < 8);
    CHECK(body >= 1.5 && body < 8);
    CHECK_INT(hu_get(&d, "/healthz", &r), 200);
    hu_resp_free(&r);
    CHECK(metric(&d, "ircgd_http_slow_clients_closed_total") >= 2);
    close(a);
    close(b);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* An event stream of a job that never ends, to a client that reads
 * nothing: ended after --sse-max-seconds, the connection closed. */
TEST(http_limits, idle_event_streams_end)
{
    hu_daemon d = {0};
    char id[64], req[256], buf[4096];
    int fd;
    char *spec = hu_ls_spec(200, 400, 3, 100, 1000000000LL, 0, "\"output\":{\"trace_every\":1000}");
    snprintf(d.extra, sizeof d.extra, "--sse-max-seconds 2 --conn-timeout 2");
    REQUIRE(hu_start(&d, "http_idle_sse", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    REQUIRE((fd = hu_connect(d.port)) >= 0);
    snprintf(req, sizeof req, "GET /v1/jobs/%s/events HTTP/1.1\r\nHost: x\r\n\r\n", id);
    CHECK(send(fd, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req));
    hu_sleep_ms(5000); /* the idle client */
    double t0 = hu_now();
    ssize_t n = 0, got = 0;
    struct pollfd p = {fd, POLLIN, 0};
    while (hu_now() - t0 < 10 && poll(&p, 1, 1000) == 1 && (n = recv(fd, buf, sizeof buf, 0)) > 0)
        got += n;
    CHECK(got > 0);  /* what was sent before the end */
    CHECK(n == 0);   /* then the end of the stream: the server closed it */
    close(fd);
    snprintf(req, sizeof req, "/v1/jobs/%s/cancel", id);
    hu_resp r;
    hu_req(&d, "POST", req, NULL, NULL, 0, NULL, &r);
    hu_resp_free(&r);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    free(spec);
}

static long get_as(const hu_daemon *d, const char *token, hu_resp *r)
{
    char h[128];
    snprintf(h, sizeof h, "Authorization: Bearer %s", token);
    const char *hdr[] = {h, NULL};
    hu_req(d, "GET", "/v1/jobs", NULL, NULL, 0, hdr, r);
    return r->status;
}

/* --rate-limit 5 --rate-burst 5: a token's sixth quick request gets 429
 * with Retry-After; another token is not affected; the probes never are;
 * a second later the first token is served again. */
TEST(http_limits, per_token_rates)
{
    hu_daemon d = {0};
    hu_resp r;
    int ok = 0, limited = 0;
    REQUIRE(hu_start(&d, "http_rate", 1) == 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    snprintf(d.tokens_file, sizeof d.tokens_file, "%s/tokens", d.dir);
    FILE *f = fopen(d.tokens_file, "w");
    REQUIRE(f);
    for (const char *const *t = (const char *const[]){"token-a-0123456789", "token-b-0123456789",
                                                      NULL}; *t; t++) {
        uint8_t h[STORE_SHA256_LEN];
        char hex[65];
        store_sha256(*t, strlen(*t), h);
        store_sha256_hex(h, hex);
        fprintf(f, "sha256:%s read\n", hex);
    }
    fclose(f);
    snprintf(d.extra, sizeof d.extra, "--rate-limit 5 --rate-burst 5");
    REQUIRE(hu_restart(&d) == 0);
    for (int i = 0; i < 8; i++) {
        long st = get_as(&d, "token-a-0123456789", &r);
        ok += st == 200;
        if (st == 429) {
            limited++;
            CHECK(atoi(r.retry_after) >= 1);
            CHECK(strstr(r.body, "rate-limited") != NULL);
        }
        hu_resp_free(&r);
    }
    CHECK(ok >= 5 && ok <= 6); /* the burst, and what refilled meanwhile */
    CHECK(limited >= 2);
    CHECK_INT(get_as(&d, "token-b-0123456789", &r), 200);
    hu_resp_free(&r);
    for (int i = 0; i < 10; i++) {
        CHECK_INT(hu_get(&d, "/healthz", &r), 200);
        hu_resp_free(&r);
    }
    hu_sleep_ms(1100);
    CHECK_INT(get_as(&d, "token-a-0123456789", &r), 200);
    hu_resp_free(&r);
    /* the counter of refusals, read with a token of its own (/metrics
     * needs one): every 429 above, and nothing else */
    CHECK(metric(&d, "ircgd_http_rate_limited_total") < 0); /* without a token: 401 */
    long long counted = metric_as(&d, "token-b-0123456789", "ircgd_http_rate_limited_total");
    printf("    %d of 8 quick requests limited; ircgd_http_rate_limited_total %lld\n", limited,
           counted);
    CHECK_INT(counted, limited);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

#define BURST 500

typedef struct burst {
    CURL *h;
    struct curl_slist *hdr;
    long status;
    char body[512]; /* the answer's head, where the id is */
    size_t len;
    char id[64];    /* the accepted job */
} burst;

static size_t keep_head(char *p, size_t sz, size_t n, void *u)
{
    burst *b = u;
    size_t k = sz * n < sizeof b->body - 1 - b->len ? sz * n : sizeof b->body - 1 - b->len;
    memcpy(b->body + b->len, p, k);
    b->len += k;
    b->body[b->len] = '\0';
    return sz * n;
}

/* The "id" of a 202's body into b->id. */
static void read_id(burst *b)
{
    const char *at = strstr(b->body, "\"id\":\"");
    b->id[0] = '\0';
    if (at)
        sscanf(at + 6, "%63[^\"]", b->id);
}

/* Sends every submission of b not yet answered 202, all at once; returns
 * how many got 202 in this round. */
static int burst_round(burst *b, const char *url, const char *spec)
{
    char key[64];
    int accepted = 0;
    CURLM *m = curl_multi_init();
    if (!m)
        return 0;
    curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)BURST);
    for (int i = 0; i < BURST; i++) {
        if (b[i].status == 202)
            continue;
        b[i].h = curl_easy_init();
        b[i].len = 0;
        b[i].body[0] = '\0';
        snprintf(key, sizeof key, "Idempotency-Key: burst-%d", i);
        b[i].hdr = curl_slist_append(curl_slist_append(NULL, key),
                                     "Content-Type: application/json");
        curl_easy_setopt(b[i].h, CURLOPT_URL, url);
        curl_easy_setopt(b[i].h, CURLOPT_HTTPHEADER, b[i].hdr);
        curl_easy_setopt(b[i].h, CURLOPT_POSTFIELDS, spec);
        curl_easy_setopt(b[i].h, CURLOPT_WRITEFUNCTION, keep_head);
        curl_easy_setopt(b[i].h, CURLOPT_WRITEDATA, &b[i]);
        curl_easy_setopt(b[i].h, CURLOPT_TIMEOUT, 120L);
        curl_easy_setopt(b[i].h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(b[i].h, CURLOPT_FORBID_REUSE, 1L);
        curl_multi_add_handle(m, b[i].h);
    }
    int running = 1;
    while (running) {
        curl_multi_perform(m, &running);
        curl_multi_poll(m, NULL, 0, 100, NULL);
    }
    for (int i = 0; i < BURST; i++) {
        if (!b[i].h)
            continue;
        curl_easy_getinfo(b[i].h, CURLINFO_RESPONSE_CODE, &b[i].status);
        accepted += b[i].status == 202;
        if (b[i].status == 202)
            read_id(&b[i]);
        curl_multi_remove_handle(m, b[i].h);
        curl_easy_cleanup(b[i].h);
        curl_slist_free_all(b[i].hdr);
        b[i].h = NULL;
    }
    curl_multi_cleanup(m);
    return accepted;
}

/* 500 submissions at once, each with its own Idempotency-Key.  A busy
 * store may answer some 503 with Retry-After (seen on a slow overlay file
 * system): such a client sends again with the same key, as a client should.
 * Every one ends accepted, exactly 500 jobs are stored -- none lost,
 * none doubled -- and every accepted job runs to its end (succeeded). */
TEST(http_limits, burst_of_500_submits_loses_none)
{
    static burst b[BURST];
    hu_daemon d = {0};
    hu_resp r;
    char url[128];
    int accepted = 0, retried = 0;
    char *spec = hu_ls_spec(30, 80, 1, 8.4, 5, 0, NULL);
    snprintf(d.extra, sizeof d.extra, "--conn-limit 1000 --per-ip-limit 0 --max-queued 0");
    REQUIRE(hu_start(&d, "http_burst", 1) == 0);
    snprintf(url, sizeof url, "%s/v1/jobs", d.base);
    accepted = burst_round(b, url, spec);
    printf("    %d of %d accepted at once\n", accepted, BURST);
    for (int round = 0; round < 10 && accepted < BURST; round++) {
        for (int i = 0; i < BURST; i++) /* only "busy, retry" may be retried */
            if (b[i].status != 202 && b[i].status != 503) {
                printf("    submit %d: status %ld\n", i, b[i].status);
                goto counted;
            }
        retried += BURST - accepted;
        hu_sleep_ms(1000); /* the Retry-After of a busy store */
        accepted += burst_round(b, url, spec);
    }
counted:
    if (retried)
        printf("    %d sent again after 503\n", retried);
    CHECK_INT(accepted, BURST);
    CHECK_INT(hu_get(&d, "/v1/jobs?page_size=1000", &r), 200);
    cJSON *o = hu_json(&r);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "jobs")), BURST);
    cJSON_Delete(o);
    hu_resp_free(&r);
    int finished = 0, distinct = 1;
    for (int i = 0; i < BURST; i++) {
        char state[16] = "";
        CHECK(b[i].id[0] != '\0');
        for (int k = 0; k < i && distinct; k++)
            distinct = strcmp(b[i].id, b[k].id) != 0;
        if (b[i].id[0] && hu_wait_terminal(&d, b[i].id, 120, state) == 0)
            finished += strcmp(state, "succeeded") == 0;
    }
    CHECK(distinct);
    printf("    %d of the %d accepted jobs succeeded\n", finished, accepted);
    CHECK_INT(finished, BURST);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    free(spec);
}
