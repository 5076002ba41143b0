/*
 * test_http_owner.c -- one daemon per store.  A second ircgd started on a
 * live daemon's database must refuse before it touches the file (the
 * audit's repro: it used to requeue the running job, claim it, fail to
 * bind, and leave the first daemon with two workers on one job), and a
 * daemon that cannot bind must not have run its recovery either.
 */
/* make tsan: http_owner. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_check.h"

/* the problem document a job failed by recovery records */
#define INTERRUPTED "{\"type\":\"urn:ircg:problem:interrupted\"}"

static char *owner_spec(long long iters)
{
    return hu_ls_spec(200, 400, 7, 100, iters, 0, "\"output\":{\"trace_every\":1}");
}

/* The log of a refused daemon, written to <dir>/<name>. */
static void use_log(hu_daemon *d, const char *name)
{
    snprintf(d->log, sizeof d->log, "%s/%s", d->dir, name);
    remove(d->log);
}

TEST(http_owner, second_daemon_on_a_live_store_is_refused)
{
    hu_daemon d = {0}, second;
    char id[64], state[16], path[160], pid[32];
    hu_resp r;
    const int iters = 30000;
    char *spec = owner_spec(iters);
    REQUIRE(hu_start(&d, "http_owner", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    REQUIRE(hu_wait_iteration(&d, id, 2000, 20) == 0);

    /* the audit's repro: same db, same port; then same db, another port */
    second = d;
    use_log(&second, "second.log");
    snprintf(second.extra, sizeof second.extra, "--listen 127.0.0.1:%d", d.port);
    CHECK_INT(hu_start_refused(&second), 3);
    second.extra[0] = '\0';
    CHECK_INT(hu_start_refused(&second), 3);
    char *log = hu_read_file(second.log);
    snprintf(pid, sizeof pid, "(pid %d)", (int)d.pid);
    CHECK(log && strstr(log, "is in use by another ircgd") != NULL);
    CHECK(log && strstr(log, pid) != NULL);
    CHECK(log && strstr(log, "recovery") == NULL);
    free(log);

    /* the first daemon's job was never touched: one run, complete */
    CHECK(hu_wait_terminal(&d, id, 60, state) == 0);
    CHECK_STR(state, "succeeded");
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.body, "\"attempt\":1") != NULL);
    hu_resp_free(&r);
    hc_check_trace_complete(&d, id, iters);
    hc_check_same_numbers(&d, id, spec);
    log = hu_read_file(d.log);
    CHECK(log && strstr(log, "claim lost") == NULL && strstr(log, "refused") == NULL);
    free(log);

    /* the lock goes with the daemon: the store opens again afterwards */
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    REQUIRE(hu_restart(&d) == 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK(hc_integrity_ok(d.db));
    free(spec);
}

TEST(http_owner, no_recovery_without_the_port)
{
    hu_daemon a = {0}, c = {0};
    char id[64], state[16];
    store_job j = {0};
    int64_t snap = 0;
    char *spec = owner_spec(20000);
    REQUIRE(hu_start(&a, "http_bind_a", 1) == 0);
    /* c crashes with a job running */
    REQUIRE(hu_start(&c, "http_bind_c", 1) == 0);
    CHECK_INT(hu_submit(&c, spec, id, sizeof id), 202);
    REQUIRE(hu_wait_iteration(&c, id, 1000, 20) == 0);
    hu_kill9(&c);

    /* restarted on a's port: refused before its recovery ran */
    use_log(&c, "refused.log");
    snprintf(c.extra, sizeof c.extra, "--listen 127.0.0.1:%d", a.port);
    CHECK_INT(hu_start_refused(&c), 1);
    char *log = hu_read_file(c.log);
    CHECK(log && strstr(log, "cannot listen") != NULL);
    CHECK(log && strstr(log, "recovery") == NULL);
    free(log);
    REQUIRE(hc_stored(c.db, id, &j, &snap) == 0);
    CHECK_INT(j.state, STORE_RUNNING);
    CHECK_INT(j.attempt, 1);
    CHECK_INT(j.run, 1);

    /* on a free port it recovers the job, which finishes exactly */
    c.extra[0] = '\0';
    REQUIRE(hu_restart(&c) == 0);
    CHECK(hu_wait_terminal(&c, id, 60, state) == 0);
    CHECK_STR(state, "succeeded");
    hc_check_trace_complete(&c, id, 20000);
    hc_check_same_numbers(&c, id, spec);
    CHECK_INT(hu_stop(&c, SIGTERM), 0);
    CHECK_INT(hu_stop(&a, SIGTERM), 0);
    store_job_clear(&j);
    free(spec);
}

/* Should anything requeue a live job behind the daemon's back (here the
 * test itself runs a recovery on the file, as a second daemon used to),
 * the worker that held it stops at its next write and writes nothing
 * more; the job's next run resumes it and ends exactly. */
TEST(http_owner, lost_claim_stops_the_worker)
{
    hu_daemon d = {0};
    char id[64], state[16];
    store *st = NULL;
    int requeued = 0;
    store_job j = {0};
    int64_t snap = 0;
    const int iters = 30000;
    char *spec = hu_ls_spec(200, 400, 9, 100, iters, 0,
                            "\"output\":{\"trace_every\":1,\"snapshot_every\":1000}");
    REQUIRE(hu_start(&d, "http_lost_claim", 2) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    REQUIRE(hu_wait_iteration(&d, id, 3000, 20) == 0);
    REQUIRE(store_open(d.db, &st, NULL) == STORE_OK);
    CHECK(store_recover(st, 5, INTERRUPTED, &requeued, NULL) == STORE_OK);
    CHECK_INT(requeued, 1);
    store_close(st);

    CHECK(hu_wait_terminal(&d, id, 60, state) == 0);
    CHECK_STR(state, "succeeded");
    REQUIRE(hc_stored(d.db, id, &j, &snap) == 0);
    CHECK_INT(j.run, 2);
    hc_check_trace_complete(&d, id, iters);
    hc_check_same_numbers(&d, id, spec);
    char *log = hu_read_file(d.log);
    CHECK(log && strstr(log, "claim lost") != NULL);
    CHECK(log && strstr(log, "abandoned") != NULL);
    free(log);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    store_job_clear(&j);
    free(spec);
}
