/*
 * test_client_errors.c -- libircgclient's error paths against a real
 * ircgd: problem+json with JSON pointers (422, 400), 404, 409 (result not
 * ready, running job not deletable, finished job not cancellable), cancel
 * of queued and running jobs, wait timeouts and callbacks that stop, bearer
 * tokens (401), connection refused, and bad arguments caught locally.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "common/http_util.h"
#include "ircg_client.h"

#define LS_DATA "\"data\":{\"source\":\"synthetic\",\"m\":5,\"n\":8,\"noise\":0,\"seed\":1}"
#define LS_SPEC(extra) "{\"problem\":{\"type\":\"least_squares\"," LS_DATA \
    ",\"domain\":{\"type\":\"l2_ball\",\"radius\":10},\"outer\":{\"type\":\"half_norm_sq\"}}" extra "}"

/* A job long enough to be caught running (it ends by cancel). */
static char *long_spec(void)
{
    return hu_ls_spec(200, 400, 3, 100, 1000000000LL, 0, "\"output\":{\"trace_every\":100}");
}

static int stop_at_progress(void *user, const ircg_client_event *ev)
{
    (void)user;
    return !strcmp(ev->type, "progress") && ev->state == IRCG_CLIENT_STATE_RUNNING &&
           ev->iteration > 0;
}

/* Waits (events) until the job reports progress, by stopping the wait. */
static int wait_running(ircg_client *c, const char *id)
{
    ircg_client_wait_options wo;
    ircg_client_error err = {0};
    ircg_client_wait_options_default(&wo);
    wo.on_event = stop_at_progress;
    wo.timeout = 30;
    ircg_client_code rc = ircg_client_wait(c, id, &wo, NULL, &err);
    ircg_client_error_clear(&err);
    return rc == IRCG_CLIENT_ERR_STOPPED ? 0 : -1;
}

TEST(client_errors, problems_and_conflicts)
{
    hu_daemon d = {0};
    ircg_client *c = NULL;
    ircg_client_error err = {0};
    ircg_client_job job = {0}, other = {0};
    char *json = NULL, *text = NULL;
    REQUIRE(hu_start(&d, "client_errors", 1) == 0);
    REQUIRE(ircg_client_new(d.base, NULL, &c, &err) == IRCG_CLIENT_OK);

    /* 422: every offending member, by pointer */
    const char *bad = "{\"problem\":{\"type\":\"least_squares\",\"domain\":{\"type\":\"l2_ball\","
                      "\"radius\":-1},\"outer\":{\"type\":\"half_norm_sq\"}},\"bogus\":1}";
    CHECK_INT(ircg_client_submit(c, bad, NULL, &job, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.code, IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 422);
    CHECK_STR(err.type, "urn:ircg:problem:invalid-spec");
    CHECK_INT(err.n_errors, 3);
    const char *why = ircg_client_error_reason(&err, "/problem/domain/radius");
    CHECK(why && strstr(why, "out of range"));
    CHECK(ircg_client_error_reason(&err, "/problem/data") != NULL);
    CHECK(ircg_client_error_reason(&err, "/bogus") != NULL);
    CHECK(ircg_client_error_reason(&err, "/problem") == NULL);
    CHECK(err.body && strstr(err.body, "\"errors\""));
    CHECK(strstr(err.message, "422") != NULL);
    CHECK(job.id[0] == '\0' && job.json == NULL);
    /* the dry run says the same */
    ircg_client_submit_options so = {.dry_run = 1};
    CHECK_INT(ircg_client_submit(c, bad, &so, &job, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK(err.status == 422 && err.n_errors == 3);
    /* 400: not JSON at all */
    CHECK_INT(ircg_client_submit(c, "{\"problem\": {", NULL, &job, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 400);
    CHECK_STR(err.type, "urn:ircg:problem:malformed-json");
    /* a success clears the record */
    CHECK_INT(ircg_client_submit(c, LS_SPEC(""), &so, &job, &err), IRCG_CLIENT_OK);
    CHECK(err.code == IRCG_CLIENT_OK && err.status == 0 && err.n_errors == 0 && !err.body);

    /* idempotency: a replay gives the same job; another body is refused */
    ircg_client_submit_options key = {.idempotency_key = "client-key-1"};
    CHECK_INT(ircg_client_submit(c, LS_SPEC(""), &key, &job, &err), IRCG_CLIENT_OK);
    CHECK_INT(ircg_client_submit(c, LS_SPEC(""), &key, &other, &err), IRCG_CLIENT_OK);
    CHECK_STR(job.id, other.id);
    CHECK(!job.replayed && other.replayed);
    CHECK_INT(ircg_client_submit(c, LS_SPEC(",\"algorithm\":{\"max_iter\":7}"), &key, &other,
                                 &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 422);
    CHECK_STR(err.type, "urn:ircg:problem:idempotency-key-reused");
    CHECK_INT(ircg_client_wait(c, job.id, NULL, &job, &err), IRCG_CLIENT_OK);

    /* a finished job cannot be cancelled: 409 */
    CHECK_INT(ircg_client_cancel(c, job.id, &other, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 409);
    CHECK_STR(err.type, "urn:ircg:problem:job-already-finished");

    /* bad query parameters: 400 naming the parameter */
    ircg_client_list_options lo = {.page_size = 5000};
    ircg_client_job_list l = {0};
    CHECK_INT(ircg_client_list_jobs(c, &lo, &l, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 400);
    CHECK(ircg_client_error_reason(&err, "/query/page_size") != NULL);
    lo = (ircg_client_list_options){.page_token = "not-a-token"};
    CHECK_INT(ircg_client_list_jobs(c, &lo, &l, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK(ircg_client_error_reason(&err, "/query/page_token") != NULL);
    CHECK(l.jobs == NULL && l.n == 0);
    CHECK_INT(ircg_client_trace(c, job.id, IRCG_CLIENT_TRACE_JSON, 0, 200000, &text, NULL,
                                NULL, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK(err.status == 400 && ircg_client_error_reason(&err, "/query/limit") != NULL);

    /* 404 everywhere a job is named */
    const char *ghost = "j_0000000000000000ghost";
    CHECK_INT(ircg_client_result(c, ghost, &json, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK(err.status == 404 && json == NULL);
    CHECK_INT(ircg_client_trace(c, ghost, IRCG_CLIENT_TRACE_CSV, 0, 0, &text, NULL, NULL, &err),
              IRCG_CLIENT_ERR_HTTP);
    CHECK(err.status == 404 && text == NULL);
    CHECK_INT(ircg_client_cancel(c, ghost, NULL, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 404);
    CHECK_INT(ircg_client_delete(c, ghost, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 404);
    ircg_client_snapshot *snaps = NULL;
    size_t ns = 0;
    CHECK_INT(ircg_client_snapshots(c, ghost, &snaps, &ns, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 404);
    ircg_client_wait_options wo;
    ircg_client_wait_options_default(&wo);
    CHECK_INT(ircg_client_wait(c, ghost, &wo, &job, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_STR(err.type, "urn:ircg:problem:job-not-found");
    wo.mode = IRCG_CLIENT_WAIT_POLL;
    CHECK_INT(ircg_client_wait(c, ghost, &wo, &job, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 404);
    /* an id that would leave /v1/jobs/ is escaped, not followed */
    CHECK_INT(ircg_client_get_job(c, "../../healthz", &job, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 404);

    /* datasets: unknown, malformed (the line is named) */
    ircg_client_dataset ds;
    CHECK_INT(ircg_client_dataset_get(c, "abc", &ds, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 404);
    const char broken[] = "1::1::5::1\n1::x::3::2\n";
    CHECK_INT(ircg_client_dataset_upload(c, broken, sizeof broken - 1, "movielens", &ds, &err),
              IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 422);
    CHECK(strstr(err.detail, "line 2") != NULL && strstr(err.body, "\"line\":2") != NULL);
    CHECK_INT(ircg_client_dataset_upload(c, broken, sizeof broken - 1, "excel", &ds, &err),
              IRCG_CLIENT_ERR_HTTP);
    CHECK(err.status == 400 && ircg_client_error_reason(&err, "/query/format") != NULL);

    ircg_client_job_clear(&job);
    ircg_client_job_clear(&other);
    ircg_client_error_clear(&err);
    ircg_client_free(c);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(client_errors, cancel_and_timeouts)
{
    hu_daemon d = {0};
    ircg_client *c = NULL;
    ircg_client_error err = {0};
    ircg_client_job a = {0}, b = {0}, job = {0};
    char *json = NULL;
    REQUIRE(hu_start(&d, "client_cancel", 1) == 0);
    REQUIRE(ircg_client_new(d.base, NULL, &c, &err) == IRCG_CLIENT_OK);
    char *spec = long_spec();
    CHECK_INT(ircg_client_submit(c, spec, NULL, &a, &err), IRCG_CLIENT_OK);
    CHECK_INT(ircg_client_submit(c, spec, NULL, &b, &err), IRCG_CLIENT_OK);
    REQUIRE(wait_running(c, a.id) == 0); /* one worker: b stays queued */

    /* 409 while running: no result yet, no delete */
    CHECK_INT(ircg_client_result(c, a.id, &json, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 409);
    CHECK_STR(err.type, "urn:ircg:problem:job-not-finished");
    CHECK(err.retry_after >= 0);
    CHECK(err.body && strstr(err.body, "\"state\":\"running\""));
    CHECK_INT(ircg_client_delete(c, a.id, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 409);

    /* waits that end early: a deadline in both modes, a callback */
    ircg_client_wait_options wo;
    ircg_client_wait_options_default(&wo);
    wo.timeout = 0.3;
    CHECK_INT(ircg_client_wait(c, a.id, &wo, &job, &err), IRCG_CLIENT_ERR_TIMEOUT);
    CHECK(strstr(err.message, a.id) != NULL);
    wo.mode = IRCG_CLIENT_WAIT_POLL;
    CHECK_INT(ircg_client_wait(c, b.id, &wo, &job, &err), IRCG_CLIENT_ERR_TIMEOUT);
    CHECK(job.state == IRCG_CLIENT_STATE_QUEUED); /* the last answer seen */
    wo.timeout = 0;
    wo.on_event = stop_at_progress;
    CHECK_INT(ircg_client_wait(c, a.id, &wo, &job, &err), IRCG_CLIENT_ERR_STOPPED);

    /* cancel: queued at once; running on request, then cancelled */
    CHECK_INT(ircg_client_cancel(c, b.id, &job, &err), IRCG_CLIENT_OK);
    CHECK(job.state == IRCG_CLIENT_STATE_CANCELLED);
    CHECK_INT(ircg_client_cancel(c, a.id, &job, &err), IRCG_CLIENT_OK);
    CHECK(job.cancel_requested);
    CHECK(job.state == IRCG_CLIENT_STATE_RUNNING || job.state == IRCG_CLIENT_STATE_CANCELLED);
    CHECK_INT(ircg_client_wait(c, a.id, NULL, &job, &err), IRCG_CLIENT_OK);
    CHECK(job.state == IRCG_CLIENT_STATE_CANCELLED);
    CHECK_STR(job.result_status, "cancelled");
    CHECK_INT(ircg_client_result(c, a.id, &json, &err), IRCG_CLIENT_OK);
    CHECK(json && strstr(json, "\"status\":\"cancelled\""));
    free(json);
    CHECK_INT(ircg_client_delete(c, a.id, &err), IRCG_CLIENT_OK);
    CHECK_INT(ircg_client_delete(c, b.id, &err), IRCG_CLIENT_OK);

    ircg_client_job_clear(&a);
    ircg_client_job_clear(&b);
    ircg_client_job_clear(&job);
    ircg_client_error_clear(&err);
    ircg_client_free(c);
    free(spec);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(client_errors, tokens)
{
    hu_daemon d = {0};
    ircg_client *anon = NULL, *wrong = NULL, *good = NULL;
    ircg_client_error err = {0};
    ircg_client_job job = {0};
    ircg_client_options o;
    snprintf(d.tokens_file, sizeof d.tokens_file, "%s/client_tokens.txt", th_tmpdir());
    REQUIRE(hu_write_tokens(d.tokens_file,
                            (const char *[]){"client-token-0123", "admin", NULL}) == 0);
    REQUIRE(hu_start(&d, "client_tokens", 1) == 0);
    ircg_client_options_default(&o);
    REQUIRE(ircg_client_new(d.base, &o, &anon, &err) == IRCG_CLIENT_OK);
    o.token = "client-token-0124";
    REQUIRE(ircg_client_new(d.base, &o, &wrong, &err) == IRCG_CLIENT_OK);
    o.token = "client-token-0123";
    REQUIRE(ircg_client_new(d.base, &o, &good, &err) == IRCG_CLIENT_OK);

    ircg_client *refused[] = {anon, wrong};
    for (int i = 0; i < 2; i++) {
        CHECK_INT(ircg_client_submit(refused[i], LS_SPEC(""), NULL, &job, &err),
                  IRCG_CLIENT_ERR_HTTP);
        CHECK_INT(err.status, 401);
        CHECK_STR(err.type, "urn:ircg:problem:unauthorized");
        ircg_client_job_list l = {0};
        CHECK_INT(ircg_client_list_jobs(refused[i], NULL, &l, &err), IRCG_CLIENT_ERR_HTTP);
        CHECK_INT(err.status, 401);
        CHECK_INT(ircg_client_health(refused[i], &err), IRCG_CLIENT_OK); /* probes stay open */
    }
    CHECK_INT(ircg_client_submit(good, LS_SPEC(""), NULL, &job, &err), IRCG_CLIENT_OK);
    char id[64];
    snprintf(id, sizeof id, "%s", job.id);
    CHECK_INT(ircg_client_wait(good, id, NULL, &job, &err), IRCG_CLIENT_OK);
    CHECK(job.state == IRCG_CLIENT_STATE_SUCCEEDED);
    CHECK_INT(ircg_client_wait(anon, id, NULL, &job, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 401);
    char *json = NULL;
    CHECK_INT(ircg_client_version(wrong, &json, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 401);
    CHECK_INT(ircg_client_version(good, &json, &err), IRCG_CLIENT_OK);
    free(json);

    ircg_client_job_clear(&job);
    ircg_client_error_clear(&err);
    ircg_client_free(anon);
    ircg_client_free(wrong);
    ircg_client_free(good);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* A loopback port nobody listens on: bound, then closed. */
static int dead_port(void)
{
    struct sockaddr_in a = {0};
    socklen_t n = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int port = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
                       getsockname(fd, (struct sockaddr *)&a, &n) == 0
                   ? ntohs(a.sin_port) : -1;
    if (fd >= 0)
        close(fd);
    return port;
}

TEST(client_errors, refused_and_arguments)
{
    ircg_client *c = NULL;
    ircg_client_error err = {0};
    ircg_client_job job = {0};
    char base[64], *json = NULL;
    int port = dead_port();
    REQUIRE(port > 0);
    snprintf(base, sizeof base, "http://127.0.0.1:%d/", port);
    REQUIRE(ircg_client_new(base, NULL, &c, &err) == IRCG_CLIENT_OK);
    CHECK_INT(ircg_client_health(c, &err), IRCG_CLIENT_ERR_TRANSPORT);
    CHECK_INT(err.status, 0);
    CHECK(strstr(err.message, base) != NULL || strstr(err.message, "127.0.0.1") != NULL);
    CHECK_INT(ircg_client_submit(c, LS_SPEC(""), NULL, &job, &err), IRCG_CLIENT_ERR_TRANSPORT);
    ircg_client_wait_options wo;
    ircg_client_wait_options_default(&wo);
    wo.max_failures = 2;
    CHECK_INT(ircg_client_wait(c, "j_x", &wo, &job, &err), IRCG_CLIENT_ERR_TRANSPORT);
    wo.mode = IRCG_CLIENT_WAIT_POLL;
    CHECK_INT(ircg_client_wait(c, "j_x", &wo, &job, &err), IRCG_CLIENT_ERR_TRANSPORT);
    /* the error record is optional */
    CHECK_INT(ircg_client_version(c, &json, NULL), IRCG_CLIENT_ERR_TRANSPORT);
    CHECK(json == NULL);

    /* caught before any request */
    ircg_client *none = (ircg_client *)&err; /* any value: set to NULL on failure */
    CHECK_INT(ircg_client_new("ftp://127.0.0.1/", NULL, &none, &err), IRCG_CLIENT_ERR_INVALID);
    CHECK(none == NULL);
    CHECK_INT(ircg_client_new(NULL, NULL, &none, &err), IRCG_CLIENT_ERR_INVALID);
    ircg_client_options o;
    ircg_client_options_default(&o);
    o.timeout = 0;
    CHECK_INT(ircg_client_new(base, &o, &none, &err), IRCG_CLIENT_ERR_INVALID);
    ircg_client_options_default(&o);
    o.token = "two\nlines";
    CHECK_INT(ircg_client_new(base, &o, &none, &err), IRCG_CLIENT_ERR_INVALID);
    CHECK_INT(ircg_client_get_job(c, "", &job, &err), IRCG_CLIENT_ERR_INVALID);
    CHECK_INT(ircg_client_get_job(c, NULL, &job, &err), IRCG_CLIENT_ERR_INVALID);
    CHECK_INT(ircg_client_get_job(NULL, "j_x", &job, &err), IRCG_CLIENT_ERR_INVALID);
    CHECK_INT(ircg_client_submit(c, NULL, NULL, &job, &err), IRCG_CLIENT_ERR_INVALID);
    ircg_client_submit_options so = {.idempotency_key = ""};
    CHECK_INT(ircg_client_submit(c, "{}", &so, &job, &err), IRCG_CLIENT_ERR_INVALID);
    CHECK_INT(ircg_client_trace(c, "j_x", IRCG_CLIENT_TRACE_JSON, -1, 0, &json, NULL, NULL,
                                &err), IRCG_CLIENT_ERR_INVALID);
    void *blob = NULL;
    size_t len = 0;
    CHECK_INT(ircg_client_snapshot_get(c, "j_x", 1, "../x", &blob, &len, &err),
              IRCG_CLIENT_ERR_INVALID);
    wo.poll_factor = 0.5;
    CHECK_INT(ircg_client_wait(c, "j_x", &wo, &job, &err), IRCG_CLIENT_ERR_INVALID);
    long status = 0;
    CHECK_INT(ircg_client_request(c, "GET", "healthz", NULL, NULL, 0, &status, NULL, NULL, &err),
              IRCG_CLIENT_ERR_INVALID);
    CHECK_STR(ircg_client_code_string(IRCG_CLIENT_ERR_TRANSPORT), "transport error");
    CHECK_STR(ircg_client_state_name(IRCG_CLIENT_STATE_CANCELLED), "cancelled");
    CHECK(ircg_client_state_parse("bogus") == IRCG_CLIENT_STATE_UNKNOWN);
    CHECK(ircg_client_state_terminal(IRCG_CLIENT_STATE_FAILED) &&
          !ircg_client_state_terminal(IRCG_CLIENT_STATE_RUNNING));

    /* every free is NULL-safe */
    ircg_client_free(NULL);
    ircg_client_job_clear(NULL);
    ircg_client_error_clear(NULL);
    ircg_client_job_clear(&job);
    ircg_client_error_clear(&err);
    ircg_client_free(c);
}

/* The escape hatch: any method and path, any status is an answer. */
TEST(client_errors, raw_request)
{
    hu_daemon d = {0};
    ircg_client *c = NULL;
    ircg_client_error err = {0};
    char *body = NULL;
    size_t len = 0;
    long status = 0;
    REQUIRE(hu_start(&d, "client_raw", 1) == 0);
    REQUIRE(ircg_client_new(d.base, NULL, &c, &err) == IRCG_CLIENT_OK);
    CHECK_INT(ircg_client_request(c, "PUT", "/v1/jobs", NULL, NULL, 0, &status, &body, &len,
                                  &err), IRCG_CLIENT_OK);
    CHECK_INT(status, 405);
    CHECK(body && strlen(body) == len && strstr(body, "method-not-allowed"));
    free(body);
    CHECK_INT(ircg_client_request(c, "POST", "/v1/jobs?dry_run=true", "application/json",
                                  LS_SPEC(""), strlen(LS_SPEC("")), &status, &body, NULL, &err),
              IRCG_CLIENT_OK);
    CHECK_INT(status, 200);
    CHECK(body && strstr(body, "\"valid\":true"));
    free(body);
    CHECK_INT(ircg_client_request(c, "POST", "/v1/jobs", "text/plain", "x", 1, &status, NULL,
                                  NULL, &err), IRCG_CLIENT_OK);
    CHECK_INT(status, 415);
    ircg_client_error_clear(&err);
    ircg_client_free(c);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
