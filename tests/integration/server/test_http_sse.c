/*
 * test_http_sse.c -- GET /v1/jobs/{id}/events: progress and state events,
 * the end of the stream, and resuming with Last-Event-ID.
 */
/* make tsan: http_sse. */
#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "sse_client.h"

TEST(http_sse, progress_and_resume)
{
    hu_daemon d = {0};
    char id[64], state[16];
    static sse_client a, b, c;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    REQUIRE(hu_start(&d, "http_sse", 1) == 0);
    /* about 1.5 s of solving: several throttled progress events */
    char *spec = hu_ls_spec(200, 400, 4, 100, 35000, 0, "\"output\":{\"trace_every\":100}");
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);

    a.stop_after = 4; /* queued, running, progress, progress */
    CHECK_INT(hu_sse_stream(&d, id, -1, &a), 200);
    CHECK(a.saw_retry);
    REQUIRE(a.n >= 4);
    CHECK_STR(a.types[0], "state");
    int progress = 0;
    for (int i = 0; i < a.n; i++)
        progress += !strcmp(a.types[i], "progress");
    CHECK(progress >= 1);

    /* reconnect where we left off: the rest, up to 'end', then EOF */
    CHECK_INT(hu_sse_stream(&d, id, a.ids[a.n - 1], &b), 200);
    REQUIRE(b.n >= 2);
    CHECK_STR(b.types[b.n - 1], "end");
    CHECK(strstr(b.last_data, "\"succeeded\"") != NULL);
    CHECK_STR(b.types[b.n - 2], "state");
    /* ids: 1..N, none repeated, none missing, across both connections */
    int ok = 1;
    long long expect = 1;
    for (int i = 0; i < a.n; i++)
        ok &= a.ids[i] == expect++;
    for (int i = 0; i < b.n; i++)
        ok &= b.ids[i] == expect++;
    CHECK(ok);
    CHECK(hu_wait_terminal(&d, id, 10, state) == 0);
    CHECK_STR(state, "succeeded");

    /* after the end: the stream closes at once with nothing new */
    double t0 = hu_now();
    CHECK_INT(hu_sse_stream(&d, id, b.ids[b.n - 1], &c), 200);
    CHECK_INT(c.n, 0);
    CHECK(hu_now() - t0 < 2.0);
    /* a full replay of a finished job */
    memset(&c, 0, sizeof c);
    CHECK_INT(hu_sse_stream(&d, id, -1, &c), 200);
    CHECK_INT(c.n, a.n + b.n);
    free(spec);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(http_sse, shutdown_ends_streams)
{
    hu_daemon d = {0};
    char id[64];
    static sse_client a;
    memset(&a, 0, sizeof a);
    REQUIRE(hu_start(&d, "http_sse_stop", 1) == 0);
    char *spec = hu_ls_spec(200, 400, 4, 100, 1000000000LL, 0, "\"output\":{\"trace_every\":1000}");
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    REQUIRE(hu_wait_iteration(&d, id, 100, 10) == 0);
    /* a streaming client must not keep the daemon from stopping */
    pid_t pid = d.pid;
    pid_t child = fork();
    if (child == 0) {
        hu_sleep_ms(300);
        kill(pid, SIGTERM);
        _exit(0);
    }
    double t0 = hu_now();
    CHECK_INT(hu_sse_stream(&d, id, -1, &a), 200);
    CHECK(hu_now() - t0 < 10.0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    waitpid(child, NULL, 0);
    free(spec);
}
