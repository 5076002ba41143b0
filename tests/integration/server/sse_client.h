/*
 * sse_client.h -- a Server-Sent Events client for the integration tests:
 * streams GET /v1/jobs/{id}/events through libcurl and keeps each event's
 * id and type (and the last data line).
 */
#ifndef IRCG_TEST_SSE_CLIENT_H
#define IRCG_TEST_SSE_CLIENT_H

#include "common/http_util.h"

#define MAX_EVENTS 4096

typedef struct sse_client {
    char line[4096];
    size_t nline;
    long long cur_id;
    char cur_type[32];
    char cur_data[1024];
    long long ids[MAX_EVENTS];
    char types[MAX_EVENTS][32];
    char last_data[1024];
    int n;
    int stop_after;   /* abort the connection after this many events */
    int saw_retry;
} sse_client;

/* Streams the job's events from Last-Event-ID `after` (< 0: none) into c
 * (appending); returns the HTTP status. */
long hu_sse_stream(const hu_daemon *d, const char *id, long long after, sse_client *c);

#endif /* IRCG_TEST_SSE_CLIENT_H */
