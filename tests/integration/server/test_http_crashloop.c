/*
 * test_http_crashloop.c -- kill -9 of the daemon at random moments, many
 * times in a row, with four jobs running and submissions arriving between
 * the kills, restarting on the same database each time.  Afterwards: the
 * file passes PRAGMA integrity_check; every accepted job ended (succeeded,
 * or cancelled when it was cancelled) and none is lost, doubled or left
 * queued or running; every trace has each iteration exactly once; at least
 * one job resumed after a kill, and every resumed job's trace -- every
 * column of every row but the clock's, to the bit, as the store holds it
 * -- and result equal an uninterrupted run's (a cancelled one's trace the
 * prefix of such a run).
 *
 * IRCG_CRASHLOOP_KILLS (default 20, about half a minute here) sets the
 * number of kills; a long job that ends during the loop is replaced, so
 * four run at every kill.  IRCG_CRASHLOOP_SEED replays a sequence of
 * kill moments.  `make
 * crashloop` runs the long variant (200 kills).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "common/http_check.h"

#define MAX_SUBMITS 512

typedef struct loop_job {
    char id[64];
    char *spec;
    int iters;          /* the trace's length when it ends */
    int cancel;         /* cancelled during the loop */
    int compare;        /* checked against an in-process run */
    int resumed;        /* ran more than once (its attempt > 1) */
    cJSON *result;      /* its result, for the comparison */
} loop_job;

typedef struct loop {
    hu_daemon d;
    loop_job job[MAX_SUBMITS];
    int n;
    uint64_t rng;
} loop;

static uint64_t next_rand(loop *l)
{
    l->rng ^= l->rng << 13; /* xorshift64 */
    l->rng ^= l->rng >> 7;
    l->rng ^= l->rng << 17;
    return l->rng;
}

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : dflt;
}

/* Submits spec with an Idempotency-Key (a retry after a lost answer could
 * never double it); records the job.  0 when accepted. */
static int submit(loop *l, char *spec, int iters, int compare)
{
    char key[80];
    if (l->n >= MAX_SUBMITS) {
        free(spec);
        return -1;
    }
    loop_job *j = &l->job[l->n];
    snprintf(key, sizeof key, "Idempotency-Key: crashloop-%d", l->n);
    const char *hdr[] = {key, NULL};
    long status = hu_submit_ex(&l->d, spec, hdr, j->id, sizeof j->id, NULL);
    if (status != 202) {
        th_fail(__FILE__, __LINE__, "submit %d answered %ld", l->n, status);
        free(spec);
        return -1;
    }
    j->spec = spec;
    j->iters = iters;
    j->compare = compare;
    l->n++;
    return 0;
}

/* The long jobs, by kind: two least squares problems with spec snapshots,
 * a matrix completion resumed from timed checkpoints, and one that runs
 * until it is cancelled. */
static void submit_long(loop *l, int kind)
{
    const char *ls_out = "\"output\":{\"trace_every\":1,\"snapshot_every\":2000}";
    int seed = 5 + l->n;
    if (kind == 0)
        submit(l, hu_ls_spec(200, 400, seed, 100, 120000, 0, ls_out), 120000, 1);
    else if (kind == 1)
        submit(l, hu_ls_spec(300, 500, seed, 50, 70000, 0, ls_out), 70000, 1);
    else if (kind == 2)
        submit(l, hu_mc_spec(600, 400, 40000, 30000, 0, "\"output\":{\"trace_every\":1}"),
               30000, 1);
    else
        submit(l, hu_ls_spec(200, 400, seed, 100, 100000000, 0, NULL), -1, 0);
}

static int terminal(loop *l, const loop_job *j)
{
    char path[128];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s", j->id);
    hu_get(&l->d, path, &r);
    int t = strstr(r.body, "\"state\":\"succeeded\"") || strstr(r.body, "\"state\":\"cancelled\"") ||
            strstr(r.body, "\"state\":\"failed\"");
    hu_resp_free(&r);
    return t;
}

static void cancel(loop *l, loop_job *j)
{
    char path[128];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/cancel", j->id);
    hu_req(&l->d, "POST", path, NULL, NULL, 0, NULL, &r);
    CHECK(r.status == 200 || r.status == 202);
    hu_resp_free(&r);
    j->cancel = 1;
}

/* Four long jobs run at every kill: one that ended is replaced by a new
 * one of its kind (the endless one is cancelled every 10 kills). */
static void keep_four_running(loop *l, int slot[4], int k)
{
    for (int s = 0; s < 4; s++) {
        if (s == 3 && k % 10 == 9)
            cancel(l, &l->job[slot[s]]);
        if (terminal(l, &l->job[slot[s]])) {
            slot[s] = l->n;
            submit_long(l, s);
        }
    }
}

/* The loop proper: a random wait (0.1..1.5 s), kill -9, restart, one more
 * short submission, and four long jobs running again. */
static void kill_loop(loop *l, int kills)
{
    int slot[4] = {0, 1, 2, 3};
    for (int k = 0; k < kills; k++) {
        hu_sleep_ms(100 + (int)(next_rand(l) % 1400));
        hu_kill9(&l->d);
        if (hu_restart(&l->d) != 0) {
            th_fail(__FILE__, __LINE__, "restart %d failed", k + 1);
            return;
        }
        submit(l, hu_ls_spec(30, 80, k, 8.4, 2000, 0, "\"output\":{\"trace_every\":1}"),
               2000, k % 5 == 0);
        keep_four_running(l, slot, k);
    }
    /* the endless one must end: cancelled now if it was not */
    if (!l->job[slot[3]].cancel)
        cancel(l, &l->job[slot[3]]);
}

/* Every job ended as it should, with all its rows; the results of those
 * to compare (asked for, or resumed) kept for check_same_runs. */
static int check_outcomes(loop *l, double timeout_s)
{
    int resumed = 0;
    double t0 = hu_now();
    for (int i = 0; i < l->n; i++) {
        loop_job *j = &l->job[i];
        char state[16], path[128];
        hu_resp r;
        CHECK(hu_wait_terminal(&l->d, j->id, timeout_s, state) == 0);
        CHECK_STR(state, j->cancel ? "cancelled" : "succeeded");
        snprintf(path, sizeof path, "/v1/jobs/%s", j->id);
        CHECK_INT(hu_get(&l->d, path, &r), 200);
        cJSON *o = hu_json(&r);
        const cJSON *att = cJSON_GetObjectItemCaseSensitive(o, "attempt");
        j->resumed = cJSON_IsNumber(att) && att->valueint > 1;
        resumed += j->resumed;
        if (j->spec && strstr(j->spec, "\"m\":30,") == NULL && cJSON_IsNumber(att))
            printf("    long job %d: %s after %d run(s)\n", i, state, att->valueint);
        cJSON_Delete(o);
        hu_resp_free(&r);
        if (j->iters > 0)
            hc_check_trace_complete(&l->d, j->id, j->iters);
        if ((j->compare || j->resumed) && !j->cancel)
            j->result = hu_result(&l->d, j->id);
    }
    printf("    %d jobs, %d of them resumed after a kill; checked in %.1f s\n", l->n,
           resumed, hu_now() - t0);
    return resumed;
}

/* The jobs asked for and every resumed one against an uninterrupted run
 * in this process: each trace row as stored (the daemon stopped), to the
 * bit but for the clock's columns, and the result; a cancelled job's rows
 * against a run of as many iterations. */
static void check_same_runs(loop *l)
{
    long long rows = 0;
    int jobs = 0;
    double t0 = hu_now();
    for (int i = 0; i < l->n; i++) {
        loop_job *j = &l->job[i];
        if (!j->compare && !j->resumed)
            continue;
        int64_t iters = j->iters;
        if (j->cancel) { /* as many iterations as it made */
            size_t n = 0;
            free(hc_stored_trace(l->d.db, j->id, &n));
            iters = (int64_t)n;
            CHECK(n > 0);
        }
        if (iters > 0)
            hc_check_same_run(l->d.db, j->id, j->spec, iters, j->result, &rows);
        jobs++;
    }
    printf("    %d jobs (every resumed one) against uninterrupted runs: %lld trace rows "
           "equal to the bit; checked in %.1f s\n", jobs, rows, hu_now() - t0);
}

/* No job lost or doubled: the store holds exactly the accepted ones. */
static void check_none_extra(loop *l)
{
    hu_resp r;
    CHECK_INT(hu_get(&l->d, "/v1/jobs?page_size=1000", &r), 200);
    cJSON *o = hu_json(&r);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "jobs")), l->n);
    cJSON_Delete(o);
    hu_resp_free(&r);
}

TEST(http_crashloop, kill9_at_random_moments)
{
    static loop l;
    long kills = env_long("IRCG_CRASHLOOP_KILLS", 20);
    memset(&l, 0, sizeof l);
    l.rng = (uint64_t)env_long("IRCG_CRASHLOOP_SEED", (long)time(NULL)) | 1;
    printf("    %ld kills, seed %llu (IRCG_CRASHLOOP_SEED replays it)\n", kills,
           (unsigned long long)l.rng);
    snprintf(l.d.extra, sizeof l.d.extra,
             "--checkpoint-every 0.3 --max-attempts 1000 --heartbeat-every 0.5");
    REQUIRE(hu_start(&l.d, "http_crashloop", 4) == 0);
    for (int kind = 0; kind < 4; kind++)
        submit_long(&l, kind);
    REQUIRE(l.n == 4);
    REQUIRE(hu_wait_iteration(&l.d, l.job[0].id, 10, 20) == 0);
    kill_loop(&l, (int)kills);
    REQUIRE(l.d.pid > 0);
    int resumed = check_outcomes(&l, 120.0);
    CHECK(resumed > 0); /* else the kills tested nothing */
    check_none_extra(&l);
    CHECK_INT(hu_stop(&l.d, SIGTERM), 0);
    CHECK(hc_integrity_ok(l.d.db));
    check_same_runs(&l);
    for (int i = 0; i < l.n; i++) {
        free(l.job[i].spec);
        cJSON_Delete(l.job[i].result);
    }
}
