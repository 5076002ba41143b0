/*
 * spec_errors.c -- the list of (pointer, reason) errors of a spec and its
 * rendering as RFC 9457 problem details.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"
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

char *api_errors_problem_json(const api_errors *e, const char *instance)
{
    int syntax = e && e->syntax, n = e ? e->count : 0;
    char detail[160];
    if (syntax)
        snprintf(detail, sizeof detail,
                 "the request body is not JSON (line %ld, column %ld)", e->line,
                 e->column);
    else
        snprintf(detail, sizeof detail, "%d problem%s in the job specification", n,
                 n == 1 ? "" : "s");
    cJSON *o = syntax ? api_problem_new(400, "malformed-json", "Malformed JSON", detail,
                                        instance)
                      : api_problem_new(422, "invalid-spec", "Invalid job specification",
                                        detail, instance);
    if (o && syntax) {
        cJSON_AddNumberToObject(o, "offset", (double)e->offset);
        cJSON_AddNumberToObject(o, "line", (double)e->line);
        cJSON_AddNumberToObject(o, "column", (double)e->column);
    }
    for (int i = 0; o && i < n; i++)
        if (!api_problem_add_member(o, e->items[i].pointer, e->items[i].reason)) {
            cJSON_Delete(o);
            o = NULL;
        }
    return api_problem_text(o);
}
