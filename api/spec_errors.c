/*
 * spec_errors.c -- the list of (pointer, reason) errors of a spec and its
 * rendering as RFC 9457 problem details.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "spec.h"

void api_errors_init(api_errors *e)
{
    if (e)
        memset(e, 0, sizeof *e);
}

void api_errors_clear(api_errors *e)
{
    if (!e)
        return;
    free(e->items);
    memset(e, 0, sizeof *e);
}

/* Grow the array geometrically; on failure remember that an error was lost
 * so the count still says "invalid". */
static int errors_reserve(api_errors *e)
{
    if (e->count < e->cap)
        return 1;
    int cap = e->cap ? 2 * e->cap : 16;
    api_error *p = realloc(e->items, (size_t)cap * sizeof *p);
    if (!p) {
        e->nomem = 1;
        return 0;
    }
    e->items = p;
    e->cap = cap;
    return 1;
}

int api_errors_add(api_errors *e, const char *pointer, const char *fmt, ...)
{
    if (!e)
        return 0;
    if (errors_reserve(e)) {
        api_error *it = &e->items[e->count++];
        snprintf(it->pointer, sizeof it->pointer, "%s", pointer ? pointer : "");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(it->reason, sizeof it->reason, fmt, ap);
        va_end(ap);
    }
    return e->count;
}

/* The members every problem document has. */
static void problem_head(cJSON *o, const api_errors *e, const char *instance)
{
    int syntax = e && e->syntax;
    int n = e ? e->count : 0;
    char detail[160];
    cJSON_AddStringToObject(o, "type", syntax ? "urn:ircg:problem:malformed-json"
                                              : "urn:ircg:problem:invalid-spec");
    cJSON_AddStringToObject(o, "title", syntax ? "Malformed JSON"
                                               : "Invalid job specification");
    cJSON_AddNumberToObject(o, "status", syntax ? 400 : 422);
    if (syntax)
        snprintf(detail, sizeof detail,
                 "the request body is not JSON (line %ld, column %ld)",
                 e->line, e->column);
    else
        snprintf(detail, sizeof detail, "%d problem%s in the job specification",
                 n, n == 1 ? "" : "s");
    cJSON_AddStringToObject(o, "detail", detail);
    if (instance)
        cJSON_AddStringToObject(o, "instance", instance);
    if (syntax) {
        cJSON_AddNumberToObject(o, "offset", (double)e->offset);
        cJSON_AddNumberToObject(o, "line", (double)e->line);
        cJSON_AddNumberToObject(o, "column", (double)e->column);
    }
}

char *api_errors_problem_json(const api_errors *e, const char *instance)
{
    char *out = NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON *list = o ? cJSON_CreateArray() : NULL;
    if (!list)
        goto done;
    problem_head(o, e, instance);
    for (int i = 0; e && i < e->count; i++) {
        cJSON *it = cJSON_CreateObject();
        if (!it)
            goto done;
        cJSON_AddItemToArray(list, it);
        cJSON_AddStringToObject(it, "pointer", e->items[i].pointer);
        cJSON_AddStringToObject(it, "reason", e->items[i].reason);
    }
    cJSON_AddItemToObject(o, "errors", list);
    list = NULL;
    out = cJSON_PrintUnformatted(o);
done:
    cJSON_Delete(list);
    cJSON_Delete(o);
    return out;
}
