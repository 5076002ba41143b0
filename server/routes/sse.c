/*
 * sse.c -- GET /v1/jobs/{id}/events as Server-Sent Events.
 *
 * The response is produced by a content-reader callback.  MHD runs one
 * thread per connection, so the reader may block: when no event is
 * pending it waits on the notify condition variable (workers and handlers
 * signal it after appending events; shutdown signals it too) with a timeout
 * that produces the heartbeat comment.  Events come from the store,
 * so a reconnect with Last-Event-ID (or ?after=) resumes exactly where the
 * client left off.  The stream ends after the job's 'end' event, at once
 * if the job is terminal and nothing is left to send, when the job is
 * deleted, at shutdown, and after --sse-max-seconds: every stream is
 * bounded, so a client that went idle (or stopped reading) does not hold
 * its thread and connection slot forever; a live client reconnects with
 * Last-Event-ID (retry: 2000) and loses nothing.  A client that does not
 * read what is sent is closed by libmicrohttpd's idle timeout.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routes/routes.h"

/* A comment line every 15 s keeps proxies from closing an idle stream;
 * with a shorter --conn-timeout, twice per timeout. */
static double heartbeat_s(void)
{
    double half = 0.5 * (double)srv.cfg.conn_timeout;
    return half < 15.0 ? half : 15.0;
}
#define READ_BATCH 100

typedef struct sse_stream {
    char id[STORE_JOB_ID_LEN + 1];
    int64_t after;     /* last event seq sent */
    api_buf out;       /* formatted, not yet handed to MHD */
    size_t out_pos;
    int done;          /* end after `out` drains */
    double next_beat;  /* monotonic time of the next heartbeat */
    double end_at;     /* monotonic: the stream's lifetime ends */
} sse_stream;

static void format_events(sse_stream *s, const store_event *ev, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        assert(ev[i].seq > s->after); /* Last-Event-ID resumes after it */
        api_buf_printf(&s->out, "id: %lld\nevent: %s\ndata: ", (long long)ev[i].seq,
                       store_event_type_name(ev[i].type));
        /* data is one-line JSON; a newline would need a data: per line */
        for (const char *p = ev[i].data ? ev[i].data : "null"; *p; p++)
            if (*p != '\n' && *p != '\r')
                api_buf_add(&s->out, p, 1);
        api_buf_add(&s->out, "\n\n", 2);
        s->after = ev[i].seq;
        if (ev[i].type == STORE_EV_END)
            s->done = 1;
    }
}

/* One look at the store: new events, or whether the stream is over.
 * Returns -1 on a store error. */
static int poll_store(sse_stream *s)
{
    store *st = srv_pool_get();
    store_event *ev = NULL;
    size_t n = 0;
    int rc = 0;
    if (!st || store_event_read(st, s->id, s->after, READ_BATCH, &ev, &n) != STORE_OK) {
        rc = -1;
    } else if (n > 0) {
        format_events(s, ev, n);
    } else {
        store_job j = {0};
        store_rc jr = store_job_get(st, s->id, &j);
        if (jr == STORE_NOTFOUND || (jr == STORE_OK && store_state_terminal(j.state) &&
                                     j.event_seq <= s->after))
            s->done = 1;
        else if (jr != STORE_OK)
            rc = -1;
        store_job_clear(&j);
    }
    store_events_free(ev, n);
    srv_pool_put(st);
    return rc;
}

static ssize_t drain(sse_stream *s, char *buf, size_t max)
{
    size_t n = s->out.len - s->out_pos;
    if (n > max)
        n = max;
    memcpy(buf, s->out.p + s->out_pos, n);
    s->out_pos += n;
    if (s->out_pos == s->out.len) {
        s->out.len = 0;
        s->out_pos = 0;
    }
    return (ssize_t)n;
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    sse_stream *s = cls;
    (void)pos;
    while (s->out.len == s->out_pos && !s->done) {
        uint64_t gen = srv_notify_gen(); /* before looking: no lost wake-up */
        if (srv_is_shutting_down() || srv_mono() >= s->end_at)
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (poll_store(s) != 0)
            return MHD_CONTENT_READER_END_WITH_ERROR;
        if (s->out.len > 0 || s->done)
            break;
        double now = srv_mono();
        if (now >= s->next_beat) {
            api_buf_add(&s->out, ": ping\n\n", 8);
            s->next_beat = now + heartbeat_s();
            break;
        }
        srv_notify_wait(gen, (s->end_at < s->next_beat ? s->end_at : s->next_beat) - now);
    }
    if (s->out.nomem)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    if (s->out.len > s->out_pos)
        return drain(s, buf, max);
    return MHD_CONTENT_READER_END_OF_STREAM;
}

static void stream_free(void *cls)
{
    sse_stream *s = cls;
    if (s) {
        api_buf_free(&s->out);
        free(s);
    }
}

/* Last-Event-ID header, else ?after=, else 0; -1 if malformed. */
static long long resume_point(srv_req *r)
{
    const char *v = srv_req_header(r, "Last-Event-ID");
    char *end = NULL;
    if (!v || !*v)
        v = srv_req_query(r, "after");
    if (!v || !*v)
        return 0;
    long long n = strtoll(v, &end, 10);
    return *end || n < 0 ? -1 : n;
}

void srv_route_job_events(srv_req *r)
{
    store_job j = {0};
    long long after = resume_point(r);
    store_rc rc = store_job_get(r->st, r->params[0], &j);
    sse_stream *s = NULL;
    if (rc != STORE_OK) {
        srv_problem_job(r, rc);
    } else if (after < 0) {
        srv_problem_member(r, MHD_HTTP_BAD_REQUEST, "invalid-parameter",
                           "Invalid parameter", "/headers/Last-Event-ID",
                           "must be a non-negative event id");
    } else if (!(s = calloc(1, sizeof *s))) {
        srv_problem_internal(r, "out of memory");
    } else {
        snprintf(s->id, sizeof s->id, "%s", j.id);
        s->after = after;
        s->next_beat = srv_mono() + heartbeat_s();
        s->end_at = srv_mono() + srv.cfg.sse_max_seconds;
        api_buf_add(&s->out, "retry: 2000\n\n", 13);
        struct MHD_Response *resp =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, reader, s,
                                              stream_free);
        if (!resp) {
            stream_free(s);
            srv_problem_internal(r, "out of memory");
        } else {
            MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
            MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
            srv_reply_response(r, MHD_HTTP_OK, resp);
        }
    }
    store_job_clear(&j);
}
