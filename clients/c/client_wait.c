/*
 * client_wait.c -- waiting for a job to finish, by following its Server-Sent
 * Events or by polling the job resource.
 *
 * Following events: GET /v1/jobs/{id}/events streams state, progress and
 * snapshot events and ends after the job's 'end' event.  A stream that
 * breaks before (daemon restart, proxy timeout) is resumed with
 * Last-Event-ID, so no event is seen twice; a stream that closes with
 * nothing new makes us look at the job itself, which also covers jobs
 * whose events were never written.  Polling: GET /v1/jobs/{id} with
 * If-None-Match (an unchanged job costs a 304), the interval growing
 * geometrically from poll_initial to poll_max.  In both modes a few
 * consecutive transport errors or 5xx answers are tolerated (the daemon
 * may be restarting); a 4xx answer ends the wait at once.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client_internal.h"

#define MAX_LINE (1 << 20) /* an SSE line longer than this is an error */

void ircg_client_wait_options_default(ircg_client_wait_options *o)
{
    if (o) {
        memset(o, 0, sizeof *o);
        o->mode = IRCG_CLIENT_WAIT_EVENTS;
        o->poll_initial = 0.05;
        o->poll_max = 2.0;
        o->poll_factor = 1.5;
        o->max_failures = 3;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    nanosleep(&ts, NULL);
}

typedef struct waiter {
    ircg_client *c;
    const ircg_client_wait_options *o;
    double deadline;         /* monotonic seconds, INFINITY = none          */
    ircg_client_event ev;    /* the latest known state and progress         */
    int stopped, timed_out;
    /* the SSE parser */
    char *line;
    size_t nline, cap;
    char type[32];
    char *data;
    size_t ndata, dcap;
    int64_t pending_id, last_id;
    int ended, broken;       /* 'end' seen; out of memory / line too long   */
    int events_now;          /* events dispatched on this connection        */
    double retry;            /* the server's reconnection delay, seconds    */
} waiter;

static void notify(waiter *w, const char *type, int64_t id, const char *data)
{
    w->ev.type = type;
    w->ev.event_id = id;
    w->ev.data = data;
    if (!w->stopped && w->o->on_event && w->o->on_event(w->o->user, &w->ev))
        w->stopped = 1;
}

/* Updates the latest known state/progress from a JSON object. */
static void absorb(waiter *w, const cJSON *o, int is_progress)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "state");
    if (cJSON_IsString(s))
        w->ev.state = ircg_client_state_parse(s->valuestring);
    if (!is_progress)
        return;
    w->ev.iteration = cl_json_int(o, "iteration");
    w->ev.elapsed = cl_json_num(o, "elapsed");
    w->ev.g_x = cl_json_num(o, "g_x");
    w->ev.f_x = cl_json_num(o, "f_x");
    w->ev.g_z = cl_json_num(o, "g_z");
    w->ev.f_z = cl_json_num(o, "f_z");
    w->ev.gap = cl_json_num(o, "gap");
}

/* ---------------------------------------------------------------- SSE -- */

static void dispatch(waiter *w)
{
    char type[32];
    snprintf(type, sizeof type, "%s", w->type[0] ? w->type : "message");
    w->type[0] = '\0';
    if (!w->data || w->ndata == 0)
        return; /* the standard: no data, no event */
    w->data[w->ndata - 1] = '\0'; /* drop the last data line's '\n' */
    w->ndata = 0;
    w->last_id = w->pending_id;
    w->events_now++;
    cJSON *o = cJSON_Parse(w->data);
    if (!strcmp(type, "end")) {
        absorb(w, o, 0);
        w->ended = 1;
    } else if (!strcmp(type, "state") || !strcmp(type, "progress") ||
               !strcmp(type, "snapshot")) {
        absorb(w, o, !strcmp(type, "progress"));
        notify(w, !strcmp(type, "state") ? "state"
                  : !strcmp(type, "progress") ? "progress" : "snapshot",
               w->last_id, w->data);
    }
    cJSON_Delete(o);
}

/* One line of the stream, without its end of line. */
static void on_line(waiter *w, char *l, size_t n)
{
    if (n > 0 && l[n - 1] == '\r')
        l[--n] = '\0';
    if (n == 0) {
        dispatch(w);
        return;
    }
    if (l[0] == ':') /* a comment: the heartbeat */
        return;
    char *colon = memchr(l, ':', n);
    const char *value = "";
    if (colon) {
        *colon = '\0';
        value = colon + 1 + (colon[1] == ' ');
    }
    if (!strcmp(l, "event")) {
        snprintf(w->type, sizeof w->type, "%s", value);
    } else if (!strcmp(l, "data")) {
        if (!cl_append(&w->data, &w->ndata, &w->dcap, value, strlen(value)) ||
            !cl_append(&w->data, &w->ndata, &w->dcap, "\n", 1))
            w->broken = 1;
    } else if (!strcmp(l, "id")) {
        char *end = NULL;
        long long v = strtoll(value, &end, 10);
        if (*value && !*end && v >= 0)
            w->pending_id = v;
    } else if (!strcmp(l, "retry")) {
        char *end = NULL;
        long v = strtol(value, &end, 10);
        if (*value && !*end && v >= 0)
            w->retry = (double)v / 1000.0;
    }
}

static int sse_sink(void *user, const char *p, size_t n)
{
    waiter *w = user;
    for (size_t i = 0; i < n && !w->broken && !w->stopped; i++) {
        if (p[i] == '\n') {
            w->line[w->nline] = '\0';
            on_line(w, w->line, w->nline);
            w->nline = 0;
        } else if (w->nline + 1 >= MAX_LINE) {
            w->broken = 1;
        } else if (!cl_append(&w->line, &w->nline, &w->cap, p + i, 1)) {
            w->broken = 1;
        }
    }
    return !w->broken && !w->stopped && !w->ended;
}

static int tick(void *user)
{
    waiter *w = user;
    if (now_s() >= w->deadline)
        w->timed_out = 1;
    return w->timed_out || w->stopped;
}

/* One connection to the event stream.  OK with r->status set when an
 * answer came (the stream may have ended early). */
static ircg_client_code stream_once(waiter *w, const char *path, cl_resp *r,
                                    ircg_client_error *err)
{
    char last[64];
    cl_req rq = {.method = "GET", .path = path, .sink = sse_sink, .tick = tick, .user = w};
    rq.headers[0] = "Accept: text/event-stream";
    if (w->last_id > 0) {
        snprintf(last, sizeof last, "Last-Event-ID: %" PRId64, w->last_id);
        rq.headers[1] = last;
    }
    w->nline = w->ndata = 0;
    w->type[0] = '\0';
    w->events_now = 0;
    return cl_send(w->c, &rq, r, err);
}

/* ------------------------------------------------------------ the loop -- */

/* Pause before the next attempt; 0 when the deadline has passed. */
static int pause_before_retry(waiter *w, double s)
{
    double left = w->deadline - now_s();
    if (left <= 0) {
        w->timed_out = 1;
        return 0;
    }
    sleep_s(fmin(s, left));
    return 1;
}

static double backoff(const waiter *w, int failures)
{
    double d = w->o->poll_initial * pow(w->o->poll_factor, failures);
    return fmin(d, w->o->poll_max);
}

/* A tolerable failure (no answer, or 5xx) counts; returns 0 when the
 * budget is spent and the error stands. */
static int tolerate(waiter *w, ircg_client_code rc, long status, int *failures)
{
    if (!(rc == IRCG_CLIENT_ERR_TRANSPORT || (rc == IRCG_CLIENT_ERR_HTTP && status >= 500)))
        return 0;
    if (++*failures > w->o->max_failures)
        return 0;
    return pause_before_retry(w, backoff(w, *failures - 1));
}

/* Looks at the job: 1 terminal (job filled), 0 not yet, -1 error. */
static int check_job(waiter *w, const char *id, ircg_client_job *job, int *failures,
                     ircg_client_error *err, ircg_client_code *rc)
{
    *rc = ircg_client_get_job(w->c, id, job, err);
    if (*rc != IRCG_CLIENT_OK)
        return tolerate(w, *rc, err ? err->status : 0, failures) ? 0 : -1;
    *failures = 0;
    return ircg_client_state_terminal(job->state);
}

static ircg_client_code follow_events(waiter *w, const char *id, ircg_client_job *job,
                                      ircg_client_error *err)
{
    int failures = 0;
    ircg_client_code rc = IRCG_CLIENT_OK;
    char *path = cl_job_path(w->c, id, "/events", err);
    if (!path)
        return IRCG_CLIENT_ERR_NOMEM;
    for (;;) {
        cl_resp r = {0};
        cl_error_reset(err);
        rc = stream_once(w, path, &r, err);
        if (rc == IRCG_CLIENT_OK && r.status != 200)
            rc = cl_fail_http(err, &r);
        long status = r.status;
        cl_resp_free(&r);
        if (w->stopped || w->timed_out || w->broken)
            break;
        if (rc != IRCG_CLIENT_OK) {
            if (tolerate(w, rc, status, &failures))
                continue;
            break;
        }
        if (w->ended) {
            rc = ircg_client_get_job(w->c, id, job, err);
            break;
        }
        /* closed before 'end': shutdown, a proxy, or nothing left to say */
        if (w->events_now > 0)
            failures = 0;
        int t = check_job(w, id, job, &failures, err, &rc);
        if (t != 0) {
            rc = t > 0 ? IRCG_CLIENT_OK : rc;
            break;
        }
        if (!pause_before_retry(w, fmin(w->retry, w->o->poll_max)))
            break;
    }
    free(path);
    return rc;
}

static ircg_client_code poll_job(waiter *w, const char *id, ircg_client_job *job,
                                 ircg_client_error *err)
{
    static const long ok[] = {200, 304, 0};
    char inm[128] = "";
    int failures = 0;
    double delay = w->o->poll_initial;
    int64_t seen_iter = -1;
    ircg_client_state seen_state = IRCG_CLIENT_STATE_UNKNOWN;
    ircg_client_code rc = IRCG_CLIENT_OK;
    char *path = cl_job_path(w->c, id, "", err);
    if (!path)
        return IRCG_CLIENT_ERR_NOMEM;
    for (;;) {
        cl_resp r = {0};
        cl_req rq = {.method = "GET", .path = path};
        rq.headers[0] = inm[0] ? inm : NULL;
        cl_error_reset(err);
        rc = cl_call(w->c, &rq, ok, &r, err);
        if (rc != IRCG_CLIENT_OK) {
            cl_resp_free(&r);
            if (tolerate(w, rc, err ? err->status : 0, &failures))
                continue;
            break;
        }
        failures = 0;
        if (r.status == 200) {
            cJSON *o = cl_parse_object(&r, err);
            if (!o) {
                cl_resp_free(&r);
                rc = IRCG_CLIENT_ERR_PROTOCOL;
                break;
            }
            ircg_client_job_clear(job);
            cl_job_from_json(o, job);
            cJSON_Delete(o);
            job->json = cl_take_body(&r, NULL);
            if (r.etag[0])
                snprintf(inm, sizeof inm, "If-None-Match: %s", r.etag);
            w->ev.state = job->state;
            w->ev.iteration = job->iteration;
            w->ev.elapsed = job->elapsed;
            w->ev.g_x = job->g_x;
            w->ev.f_x = job->f_x;
            w->ev.g_z = job->g_z;
            w->ev.f_z = job->f_z;
            w->ev.gap = job->gap;
            if (job->state != seen_state)
                notify(w, "state", 0, job->json);
            if (job->iteration != seen_iter && job->iteration > 0)
                notify(w, "progress", 0, job->json);
            seen_state = job->state;
            seen_iter = job->iteration;
        }
        cl_resp_free(&r);
        if (ircg_client_state_terminal(job->state) || w->stopped)
            break;
        if (!pause_before_retry(w, delay))
            break;
        delay = fmin(delay * w->o->poll_factor, w->o->poll_max);
    }
    free(path);
    return rc;
}

ircg_client_code ircg_client_wait(ircg_client *c, const char *id,
                                  const ircg_client_wait_options *opt,
                                  ircg_client_job *job, ircg_client_error *err)
{
    ircg_client_wait_options def;
    ircg_client_job local = {0};
    waiter w;
    ircg_client_code rc;
    char *own_id = NULL;
    cl_error_reset(err);
    if (!opt) {
        ircg_client_wait_options_default(&def);
        opt = &def;
    }
    /* id may point into job, which is rewritten */
    if (id && *id && !(own_id = strdup(id)))
        return cl_fail(err, IRCG_CLIENT_ERR_NOMEM, 0, "out of memory");
    ircg_client_job_clear(job);
    if (!job)
        job = &local;
    if (!c || !own_id) {
        free(own_id);
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0, "client and job id are required");
    }
    if (!(opt->poll_initial > 0) || !(opt->poll_max >= opt->poll_initial) ||
        !(opt->poll_factor >= 1) || opt->max_failures < 0) {
        free(own_id);
        return cl_fail(err, IRCG_CLIENT_ERR_INVALID, 0,
                       "need poll_initial > 0, poll_max >= poll_initial, poll_factor >= 1, "
                       "max_failures >= 0");
    }
    id = own_id;
    memset(&w, 0, sizeof w);
    w.c = c;
    w.o = opt;
    w.deadline = opt->timeout > 0 ? now_s() + opt->timeout : INFINITY;
    w.retry = 2.0;
    w.ev.elapsed = w.ev.g_x = w.ev.f_x = w.ev.g_z = w.ev.f_z = w.ev.gap = NAN;
    rc = opt->mode == IRCG_CLIENT_WAIT_POLL ? poll_job(&w, id, job, err)
                                            : follow_events(&w, id, job, err);
    if (w.stopped) {
        ircg_client_error_clear(err);
        rc = cl_fail(err, IRCG_CLIENT_ERR_STOPPED, 0, "the event callback asked to stop");
    } else if (w.broken) {
        ircg_client_error_clear(err);
        rc = cl_fail(err, IRCG_CLIENT_ERR_PROTOCOL, 200,
                     "the event stream is malformed or memory ran out");
    } else if (w.timed_out && !(rc == IRCG_CLIENT_OK && ircg_client_state_terminal(job->state))) {
        ircg_client_error_clear(err);
        rc = cl_fail(err, IRCG_CLIENT_ERR_TIMEOUT, 0,
                     "job %s not finished after %g s (last state %s)", id, opt->timeout,
                     ircg_client_state_name(w.ev.state));
    }
    free(w.line);
    free(w.data);
    free(own_id);
    ircg_client_job_clear(&local);
    return rc;
}
