/* buf.c -- see buf.h */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

void api_buf_free(api_buf *b)
{
    if (b) {
        free(b->p);
        memset(b, 0, sizeof *b);
    }
}

static int buf_reserve(api_buf *b, size_t extra)
{
    if (b->nomem)
        return 0;
    if (b->len + extra + 1 <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->nomem = 1;
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}

void api_buf_add(api_buf *b, const void *data, size_t n)
{
    if (buf_reserve(b, n)) {
        assert(b->p); /* a reserve always leaves room for the NUL */
        memcpy(b->p + b->len, data, n);
        b->len += n;
        b->p[b->len] = '\0';
    }
}

void api_buf_puts(api_buf *b, const char *s)
{
    api_buf_add(b, s, strlen(s));
}

void api_buf_printf(api_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[512];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        api_buf_add(b, tmp, (size_t)n);
    } else if (buf_reserve(b, (size_t)n)) {
        va_start(ap, fmt);
        vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
        b->len += (size_t)n;
    }
}

char *api_buf_take(api_buf *b)
{
    char *p = NULL;
    if (!b->nomem) {
        if (!b->p)
            api_buf_add(b, "", 0);
        p = b->p;
        b->p = NULL;
    }
    api_buf_free(b);
    return p;
}
