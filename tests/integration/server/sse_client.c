/*
 * sse_client.c -- see sse_client.h.
 */
#include "sse_client.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One complete line of the stream (without the newline). */
static void on_line(sse_client *c, const char *l)
{
    if (!*l) { /* blank line: dispatch */
        if (c->cur_type[0] && c->n < MAX_EVENTS) {
            c->ids[c->n] = c->cur_id;
            snprintf(c->types[c->n], sizeof c->types[0], "%s", c->cur_type);
            snprintf(c->last_data, sizeof c->last_data, "%s", c->cur_data);
            c->n++;
        }
        c->cur_type[0] = '\0';
    } else if (!strncmp(l, "id: ", 4)) {
        c->cur_id = atoll(l + 4);
    } else if (!strncmp(l, "event: ", 7)) {
        snprintf(c->cur_type, sizeof c->cur_type, "%s", l + 7);
    } else if (!strncmp(l, "data: ", 6)) {
        snprintf(c->cur_data, sizeof c->cur_data, "%s", l + 6);
    } else if (!strncmp(l, "retry: ", 7)) {
        c->saw_retry = 1;
    }
}

static size_t on_data(char *p, size_t sz, size_t nm, void *user)
{
    sse_client *c = user;
    size_t k = sz * nm;
    for (size_t i = 0; i < k; i++) {
        if (p[i] == '\n') {
            c->line[c->nline] = '\0';
            on_line(c, c->line);
            c->nline = 0;
        } else if (c->nline + 1 < sizeof c->line) {
            c->line[c->nline++] = p[i];
        }
    }
    if (c->stop_after && c->n >= c->stop_after)
        return 0; /* hang up, as a client losing its connection would */
    return k;
}

long hu_sse_stream(const hu_daemon *d, const char *id, long long after, sse_client *c)
{
    char url[256], hdr[64];
    struct curl_slist *hl = NULL;
    long status = 0;
    CURL *h = curl_easy_init();
    snprintf(url, sizeof url, "%s/v1/jobs/%s/events", d->base, id);
    if (after >= 0) {
        snprintf(hdr, sizeof hdr, "Last-Event-ID: %lld", after);
        hl = curl_slist_append(hl, hdr);
    }
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(h);
    return status;
}

