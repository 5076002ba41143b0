/*
 * test_client.c -- libircgclient (clients/c) against a real ircgd on
 * loopback: the least-norm example from submit to result, checked against
 * an independent minimum-norm solution (LAPACK dgels) and the closed form
 * f(z) = 1/2 ||z||^2; trace paging in JSON and CSV; event ids without gap;
 * listing and paging; a wait that survives a daemon restart; datasets and
 * snapshots.  Error paths are in
 * test_client_errors.c, the Python client in test_client_py.c.
 */
#include <lapacke.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_util.h"
#include "ircg.h"
#include "ircg_client.h"

/* A^+ b of the synthetic least squares, by LAPACK's minimum-norm dgels. */
static double *least_norm_solution(int m, int n, int seed)
{
    double *A = NULL, *b = NULL;
    double *x = calloc((size_t)n, sizeof *x);
    if (!x || ircg_synth_least_squares(m, n, 0.0, (uint64_t)seed, &A, &b, NULL) != IRCG_OK ||
        (memcpy(x, b, (size_t)m * sizeof *x),
         LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', m, n, 1, A, n, x, 1) != 0)) {
        free(x);
        x = NULL;
    }
    free(A);
    free(b);
    return x;
}

static double norm2(const double *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* What the wait callback saw. */
typedef struct seen {
    int n, states, progress, snapshots, ids_ok;
    int64_t last_id;
    ircg_client_state last_state;
    int saw_running;
    int64_t last_iteration;
} seen;

static int on_event(void *user, const ircg_client_event *ev)
{
    seen *s = user;
    /* SSE ids are 1, 2, 3, ... for a job: a gap would be a lost event */
    s->ids_ok &= ev->event_id == s->last_id + 1;
    s->last_id = ev->event_id;
    s->n++;
    s->states += !strcmp(ev->type, "state");
    s->progress += !strcmp(ev->type, "progress");
    s->snapshots += !strcmp(ev->type, "snapshot");
    s->saw_running |= ev->state == IRCG_CLIENT_STATE_RUNNING;
    s->last_state = ev->state;
    if (!strcmp(ev->type, "progress"))
        s->last_iteration = ev->iteration;
    return 0;
}

/* Reads the whole JSON trace 700 rows at a time; returns the rows' t in a
 * malloc'ed array (*n of them), checking every page's cursor. */
static int64_t *trace_pages(ircg_client *c, const char *id, size_t *n, int *pages)
{
    ircg_client_error err = {0};
    int64_t after = 0, *ts = NULL;
    size_t cap = 0;
    *n = 0;
    *pages = 0;
    for (;;) {
        char *text = NULL;
        size_t len = 0;
        int64_t next = -1;
        if (ircg_client_trace(c, id, IRCG_CLIENT_TRACE_JSON, after, 700, &text, &len, &next,
                              &err) != IRCG_CLIENT_OK) {
            th_fail(__FILE__, __LINE__, "trace after %lld: %s", (long long)after, err.message);
            break;
        }
        cJSON *doc = cJSON_Parse(text);
        const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows"), *row = NULL;
        CHECK(strlen(text) == len);
        int k = cJSON_GetArraySize(rows);
        if (*n + (size_t)k > cap) {
            cap = 2 * (*n + (size_t)k);
            ts = realloc(ts, cap * sizeof *ts);
        }
        cJSON_ArrayForEach(row, rows)
            ts[(*n)++] = (int64_t)num(row, "t");
        /* the cursor is the last row's t, or unchanged on an empty page */
        CHECK_INT(next, k > 0 ? ts[*n - 1] : after);
        cJSON_Delete(doc);
        free(text);
        ++*pages;
        if (k == 0)
            break;
        after = next;
    }
    ircg_client_error_clear(&err);
    return ts;
}

TEST(client, least_norm_lifecycle)
{
    hu_daemon d = {0};
    ircg_client *c = NULL;
    ircg_client_error err = {0};
    ircg_client_job job = {0};
    char id[64], *json = NULL, *text = NULL;
    const int m = 30, n = 80, seed = 1;
    double *xs = least_norm_solution(m, n, seed);
    REQUIRE(xs);
    REQUIRE(hu_start(&d, "client_life", 2) == 0);
    REQUIRE(ircg_client_new(d.base, NULL, &c, &err) == IRCG_CLIENT_OK);

    CHECK_INT(ircg_client_health(c, &err), IRCG_CLIENT_OK);
    CHECK_INT(ircg_client_ready(c, &err), IRCG_CLIENT_OK);
    CHECK_INT(ircg_client_version(c, &json, &err), IRCG_CLIENT_OK);
    cJSON *v = cJSON_Parse(json);
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(v, "ircgd")), IRCG_VERSION);
    cJSON_Delete(v);
    free(json);

    /* a dry run validates and queues nothing */
    char *spec = hu_ls_spec(m, n, seed, 1.5 * norm2(xs, n), 20000, 0,
                            "\"output\":{\"trace_every\":10}");
    ircg_client_submit_options so = {.dry_run = 1};
    CHECK_INT(ircg_client_submit(c, spec, &so, &job, &err), IRCG_CLIENT_OK);
    CHECK(job.id[0] == '\0' && job.state == IRCG_CLIENT_STATE_UNKNOWN);
    CHECK(job.json && strstr(job.json, "\"valid\":true"));
    ircg_client_job_list list = {0};
    CHECK_INT(ircg_client_list_jobs(c, NULL, &list, &err), IRCG_CLIENT_OK);
    CHECK_INT(list.n, 0);
    CHECK(list.next_page_token == NULL);
    ircg_client_job_list_clear(&list);

    CHECK_INT(ircg_client_submit(c, spec, NULL, &job, &err), IRCG_CLIENT_OK);
    CHECK(job.state == IRCG_CLIENT_STATE_QUEUED || job.state == IRCG_CLIENT_STATE_RUNNING);
    CHECK(job.created_at[0] != '\0' && !job.replayed);
    CHECK_STR(job.problem_type, "least_squares");
    snprintf(id, sizeof id, "%s", job.id);
    CHECK_INT(strncmp(id, "j_", 2), 0);

    /* follow the events to the end */
    seen s = {.ids_ok = 1};
    ircg_client_wait_options wo;
    ircg_client_wait_options_default(&wo);
    wo.on_event = on_event;
    wo.user = &s;
    wo.timeout = 60;
    CHECK_INT(ircg_client_wait(c, id, &wo, &job, &err), IRCG_CLIENT_OK);
    CHECK(job.state == IRCG_CLIENT_STATE_SUCCEEDED);
    CHECK(s.ids_ok && s.states >= 2 && s.progress >= 1 && s.saw_running);
    CHECK(s.last_state == IRCG_CLIENT_STATE_SUCCEEDED);
    CHECK(s.last_iteration >= 1 && s.last_iteration <= 20000);
    CHECK_STR(job.result_status, "max_iter");
    CHECK_INT(job.iteration, 20000);
    CHECK(job.finished_at[0] != '\0' && job.started_at[0] != '\0');
    CHECK(job.version > 1 && job.attempt == 1 && !job.cancel_requested);

    /* the result: near A^+ b, and f_z is 1/2 ||z||^2 of its own z */
    CHECK_INT(ircg_client_result(c, id, &json, &err), IRCG_CLIENT_OK);
    cJSON *res = cJSON_Parse(json);
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(res, "z"), "values");
    REQUIRE(cJSON_GetArraySize(vals) == n);
    double dist = 0, half = 0;
    for (int i = 0; i < n; i++) {
        double zi = cJSON_GetArrayItem(vals, i)->valuedouble;
        dist += (zi - xs[i]) * (zi - xs[i]);
        half += 0.5 * zi * zi;
    }
    printf("    client least-norm: ||z - A^+ b|| / ||A^+ b|| = %.3g\n", sqrt(dist) / norm2(xs, n));
    CHECK(sqrt(dist) / norm2(xs, n) < 5e-3);
    CHECK_REL(num(res, "f_z"), half, 1e-12, 1e-300);
    CHECK(num(res, "f_z") == job.f_z);
    free(json);

    /* the JSON trace page by page: t = 1, 10, 20, ..., 20000, no repeat */
    size_t nt = 0;
    int pages = 0;
    int64_t *ts = trace_pages(c, id, &nt, &pages);
    CHECK_INT(nt, 2001);
    CHECK_INT(pages, 4); /* 700 + 700 + 601, then an empty page */
    int order_ok = nt > 0 && ts[0] == 1;
    for (size_t i = 1; i < nt; i++)
        order_ok &= ts[i] == (int64_t)(10 * i);
    CHECK(order_ok);
    free(ts);

    /* CSV from a cursor: the last two rows; the last equals the result */
    size_t len = 0;
    int64_t next = 0;
    CHECK_INT(ircg_client_trace(c, id, IRCG_CLIENT_TRACE_CSV, 19980, 0, &text, &len, &next,
                                &err), IRCG_CLIENT_OK);
    CHECK_INT(next, 20000);
    CHECK(text && strncmp(text, "t,elapsed,", 10) == 0);
    CHECK(text && strstr(text, "\n19990,") && strstr(text, "\n20000,") && !strstr(text, "\n19980,"));
    const char *last = text ? strstr(text, "\n20000,") : NULL;
    int f_z_col = -1, col = 0;
    for (const char *p = text; p && *p != '\n'; p++) /* the header names f_z's column */
        if (*p == ',' && !strncmp(p + 1, "f_z,", 4))
            f_z_col = col + 1;
        else if (*p == ',')
            col++;
    const char *cell = last ? last + 1 : NULL;
    for (int k = 0; cell && k < f_z_col; k++)
        cell = strchr(cell, ',') ? strchr(cell, ',') + 1 : NULL;
    CHECK(f_z_col > 0 && cell && strtod(cell, NULL) == num(res, "f_z"));
    free(text);
    cJSON_Delete(res);
    CHECK_INT(ircg_client_trace(c, id, IRCG_CLIENT_TRACE_CSV, 20000, 0, &text, &len, &next,
                                &err), IRCG_CLIENT_OK);
    CHECK_INT(next, 20000); /* header only */
    CHECK(text && strchr(text, '\n') == text + len - 1);
    free(text);

    /* no snapshot was asked for */
    ircg_client_snapshot *snaps = NULL;
    size_t ns = 5;
    CHECK_INT(ircg_client_snapshots(c, id, &snaps, &ns, &err), IRCG_CLIENT_OK);
    CHECK_INT(ns, 0);
    free(snaps);

    /* metrics saw the job */
    CHECK_INT(ircg_client_metrics(c, &text, &err), IRCG_CLIENT_OK);
    CHECK(text && strstr(text, "ircgd_jobs{state=\"succeeded\"} 1\n"));
    free(text);

    /* delete: then the job is gone */
    CHECK_INT(ircg_client_delete(c, id, &err), IRCG_CLIENT_OK);
    CHECK_INT(ircg_client_get_job(c, id, &job, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 404);
    CHECK_STR(err.type, "urn:ircg:problem:job-not-found");
    CHECK_STR(err.title, "Job not found");
    CHECK(strstr(err.detail, id) != NULL);
    CHECK(job.json == NULL && job.id[0] == '\0');

    ircg_client_job_clear(&job);
    ircg_client_error_clear(&err);
    ircg_client_free(c);
    free(spec);
    free(xs);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* ------------------------------------------------------ list, paging -- */

TEST(client, list_and_poll)
{
    hu_daemon d = {0};
    ircg_client *c = NULL;
    ircg_client_error err = {0};
    ircg_client_job job = {0};
    char ids[3][64];
    REQUIRE(hu_start(&d, "client_list", 1) == 0);
    REQUIRE(ircg_client_new(d.base, NULL, &c, &err) == IRCG_CLIENT_OK);
    char *spec = hu_ls_spec(5, 8, 1, 10, 50, 0, NULL);
    ircg_client_wait_options wo;
    ircg_client_wait_options_default(&wo);
    wo.mode = IRCG_CLIENT_WAIT_POLL;
    seen s = {.ids_ok = 1};
    wo.on_event = on_event;
    wo.user = &s;
    for (int i = 0; i < 3; i++) {
        CHECK_INT(ircg_client_submit(c, spec, NULL, &job, &err), IRCG_CLIENT_OK);
        snprintf(ids[i], sizeof ids[i], "%s", job.id);
        CHECK_INT(ircg_client_wait(c, ids[i], &wo, &job, &err), IRCG_CLIENT_OK);
        CHECK(job.state == IRCG_CLIENT_STATE_SUCCEEDED);
        CHECK_INT(job.iteration, 50);
    }
    CHECK(s.states >= 3 && s.last_state == IRCG_CLIENT_STATE_SUCCEEDED);

    /* pages of one, newest first, until no token */
    ircg_client_list_options lo = {.page_size = 1};
    ircg_client_job_list l = {0};
    char *token = NULL;
    int k = 0;
    do {
        lo.page_token = token;
        REQUIRE(ircg_client_list_jobs(c, &lo, &l, &err) == IRCG_CLIENT_OK);
        CHECK_INT(l.n, k < 3 ? 1 : 0);
        if (l.n == 1 && k < 3)
            CHECK_STR(l.jobs[0].id, ids[2 - k]);
        free(token);
        token = l.next_page_token ? strdup(l.next_page_token) : NULL;
        ircg_client_job_list_clear(&l);
        k++;
    } while (token && k < 10);
    CHECK(k == 3 || k == 4); /* the last page may or may not be empty */
    free(token);

    lo = (ircg_client_list_options){.state = IRCG_CLIENT_STATE_SUCCEEDED};
    CHECK_INT(ircg_client_list_jobs(c, &lo, &l, &err), IRCG_CLIENT_OK);
    CHECK_INT(l.n, 3);
    CHECK(l.n == 3 && l.jobs[0].state == IRCG_CLIENT_STATE_SUCCEEDED &&
          l.jobs[0].iteration == 50 && l.jobs[0].json == NULL);
    ircg_client_job_list_clear(&l);
    lo.state = IRCG_CLIENT_STATE_QUEUED;
    CHECK_INT(ircg_client_list_jobs(c, &lo, &l, &err), IRCG_CLIENT_OK);
    CHECK_INT(l.n, 0);
    ircg_client_job_list_clear(&l);
    ircg_client_job_list_clear(NULL);

    ircg_client_job_clear(&job);
    ircg_client_error_clear(&err);
    ircg_client_free(c);
    free(spec);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* ------------------------------------------ a wait across a restart -- */

typedef struct restarter {
    hu_daemon *d;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int go, restarted;
    int stop_rc, start_rc;
} restarter;

/* Restarts the daemon on its port once the wait has seen progress. */
static void *restart_thread(void *arg)
{
    restarter *r = arg;
    pthread_mutex_lock(&r->mu);
    while (!r->go)
        pthread_cond_wait(&r->cv, &r->mu);
    pthread_mutex_unlock(&r->mu);
    r->stop_rc = hu_stop(r->d, SIGTERM);
    r->start_rc = hu_restart(r->d);
    r->restarted = 1;
    return NULL;
}

typedef struct restart_seen {
    seen s;
    restarter *r;
} restart_seen;

static int on_event_restart(void *user, const ircg_client_event *ev)
{
    restart_seen *rs = user;
    on_event(&rs->s, ev);
    if (!strcmp(ev->type, "progress") && ev->iteration > 0) {
        pthread_mutex_lock(&rs->r->mu);
        rs->r->go = 1;
        pthread_cond_signal(&rs->r->cv);
        pthread_mutex_unlock(&rs->r->mu);
    }
    return 0;
}

/* SIGTERM while the client follows the events: the stream ends, the job
 * goes back to the queue, the daemon comes back on the same port; the
 * client reconnects with Last-Event-ID and sees every event once. */
TEST(client, wait_resumes_across_restart)
{
    hu_daemon d = {0};
    ircg_client *c = NULL;
    ircg_client_error err = {0};
    ircg_client_job job = {0};
    pthread_t th;
    restarter r = {.d = &d, .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    REQUIRE(hu_start(&d, "client_restart", 1) == 0);
    REQUIRE(hu_stop(&d, SIGTERM) == 0);
    snprintf(d.extra, sizeof d.extra, "--listen 127.0.0.1:%d", d.port); /* the last wins */
    REQUIRE(hu_restart(&d) == 0);
    REQUIRE(ircg_client_new(d.base, NULL, &c, &err) == IRCG_CLIENT_OK);
    char *spec = hu_ls_spec(200, 400, 4, 100, 35000, 0,
                            "\"output\":{\"trace_every\":100,\"snapshot_every\":5000}");
    CHECK_INT(ircg_client_submit(c, spec, NULL, &job, &err), IRCG_CLIENT_OK);
    REQUIRE(pthread_create(&th, NULL, restart_thread, &r) == 0);
    restart_seen rs = {.s = {.ids_ok = 1}, .r = &r};
    ircg_client_wait_options wo;
    ircg_client_wait_options_default(&wo);
    wo.on_event = on_event_restart;
    wo.user = &rs;
    wo.timeout = 120;
    wo.max_failures = 400; /* the daemon is away for a while */
    wo.poll_max = 0.1;
    ircg_client_code rc = ircg_client_wait(c, job.id, &wo, &job, &err);
    if (rc != IRCG_CLIENT_OK)
        th_fail(__FILE__, __LINE__, "wait: %s", err.message);
    pthread_mutex_lock(&r.mu); /* a wait that ended early must not strand the thread */
    r.go = 1;
    pthread_cond_signal(&r.cv);
    pthread_mutex_unlock(&r.mu);
    pthread_join(th, NULL);
    CHECK(r.restarted && r.stop_rc == 0 && r.start_rc == 0);
    CHECK(job.state == IRCG_CLIENT_STATE_SUCCEEDED);
    /* a clean SIGTERM requeue does not count as a failed attempt */
    CHECK_INT(job.attempt, 1);
    CHECK_INT(job.iteration, 35000);
    CHECK(rs.s.ids_ok);
    printf("    client restart: %d events, last id %lld\n", rs.s.n, (long long)rs.s.last_id);
    ircg_client_job_clear(&job);
    ircg_client_error_clear(&err);
    ircg_client_free(c);
    free(spec);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* --------------------------------------------- datasets and snapshots -- */

/* A small MovieLens "::" file; *rows, *cols, *nnz counted as written. */
static char *ratings_text(size_t *len, int *rows, int *cols, int *nnz)
{
    char *s = malloc(64 * 1024);
    size_t n = 0;
    *rows = *cols = *nnz = 0;
    for (int u = 1; s && u <= 25; u++)
        for (int i = 1; i <= 18; i++)
            if ((u * 5 + i * 3) % 4 == 0 || u == i) {
                n += (size_t)snprintf(s + n, 64 * 1024 - n, "%d::%d::%d::97830%04d\n", u, i,
                                      1 + (u * i) % 5, u * 20 + i);
                *rows = u > *rows ? u : *rows;
                *cols = i > *cols ? i : *cols;
                ++*nnz;
            }
    *len = n;
    return s;
}

TEST(client, datasets_and_snapshots)
{
    hu_daemon d = {0};
    ircg_client *c = NULL;
    ircg_client_error err = {0};
    ircg_client_job job = {0};
    ircg_client_dataset ds = {0}, again = {0};
    char spec[1024];
    size_t len = 0;
    int rows, cols, nnz;
    char *text = ratings_text(&len, &rows, &cols, &nnz);
    REQUIRE(text);
    /* the running job's snapshots (keep-last 3) stay after it finishes */
    snprintf(d.extra, sizeof d.extra, "--snapshot-keep-finished 3");
    REQUIRE(hu_start(&d, "client_data", 1) == 0);
    REQUIRE(ircg_client_new(d.base, NULL, &c, &err) == IRCG_CLIENT_OK);

    CHECK_INT(ircg_client_dataset_upload(c, text, len, NULL, &ds, &err), IRCG_CLIENT_OK);
    CHECK_INT(strlen(ds.id), 64);
    CHECK_INT(strspn(ds.id, "0123456789abcdef"), 64);
    CHECK_STR(ds.format, "movielens");
    CHECK(ds.n_rows == rows && ds.n_cols == cols && ds.nnz == nnz && !ds.existed);
    CHECK_INT(ds.bytes, len);
    CHECK_INT(ircg_client_dataset_upload(c, text, len, "movielens", &again, &err), IRCG_CLIENT_OK);
    CHECK(again.existed && !strcmp(again.id, ds.id));
    memset(&again, 0, sizeof again);
    CHECK_INT(ircg_client_dataset_get(c, ds.id, &again, &err), IRCG_CLIENT_OK);
    CHECK(!strcmp(again.id, ds.id) && again.nnz == nnz && again.n_rows == rows);

    /* a job on it with snapshots every 100 iterations; events see them */
    snprintf(spec, sizeof spec,
             "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":\"dataset\","
             "\"id\":\"%s\"},\"delta\":5,\"outer\":\"column_variance\"},\"algorithm\":"
             "{\"max_iter\":300},\"output\":{\"snapshot_every\":100}}", ds.id);
    CHECK_INT(ircg_client_submit(c, spec, NULL, &job, &err), IRCG_CLIENT_OK);
    char id[64];
    snprintf(id, sizeof id, "%s", job.id);
    CHECK_STR(job.problem_type, "matrix_completion");
    seen s = {.ids_ok = 1};
    ircg_client_wait_options wo;
    ircg_client_wait_options_default(&wo);
    wo.on_event = on_event;
    wo.user = &s;
    CHECK_INT(ircg_client_wait(c, id, &wo, &job, &err), IRCG_CLIENT_OK);
    CHECK(job.state == IRCG_CLIENT_STATE_SUCCEEDED && s.ids_ok);
    CHECK(s.snapshots >= 3);

    ircg_client_snapshot *snaps = NULL;
    size_t ns = 0;
    CHECK_INT(ircg_client_snapshots(c, id, &snaps, &ns, &err), IRCG_CLIENT_OK);
    CHECK_INT(ns, 9); /* iterations 100, 200, 300 x kinds state, x, z */
    int per_iter[4] = {0}, x300 = -1;
    for (size_t i = 0; i < ns; i++) {
        int64_t it = snaps[i].iteration;
        if (it % 100 == 0 && it >= 100 && it <= 300)
            per_iter[it / 100]++;
        if (it == 300 && !strcmp(snaps[i].kind, "x"))
            x300 = (int)i;
        CHECK(snaps[i].bytes > 0 && snaps[i].created_at[0] != '\0');
    }
    CHECK(per_iter[1] == 3 && per_iter[2] == 3 && per_iter[3] == 3);
    REQUIRE(x300 >= 0);
    void *blob = NULL;
    size_t blen = 0;
    CHECK_INT(ircg_client_snapshot_get(c, id, 300, "x", &blob, &blen, &err), IRCG_CLIENT_OK);
    CHECK_INT(blen, snaps[x300].bytes);
    CHECK(blob && blen > 8 && memcmp(blob, "PK\x03\x04", 4) == 0); /* an .npz */
    free(blob);
    free(snaps);
    /* one that does not exist: 404 with its own problem type */
    CHECK_INT(ircg_client_snapshot_get(c, id, 301, "x", &blob, &blen, &err), IRCG_CLIENT_ERR_HTTP);
    CHECK_INT(err.status, 404);
    CHECK_STR(err.type, "urn:ircg:problem:snapshot-not-found");
    CHECK(blob == NULL);

    ircg_client_job_clear(&job);
    ircg_client_error_clear(&err);
    ircg_client_free(c);
    free(text);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
