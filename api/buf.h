/*
 * buf.h -- a growable byte buffer, always NUL-terminated, for the JSON and
 * CSV the service writes (results, traces, event streams, files read
 * whole).  After a failed allocation it ignores further appends and says so
 * in `nomem`, so a writer checks once at the end.
 */
#ifndef IRCG_API_BUF_H
#define IRCG_API_BUF_H

#include <stddef.h>

typedef struct api_buf {
    char *p;       /* NULL until the first append                          */
    size_t len, cap;
    int nomem;     /* an allocation failed: the content is incomplete       */
} api_buf;

void api_buf_free(api_buf *b);
void api_buf_add(api_buf *b, const void *data, size_t n);
void api_buf_puts(api_buf *b, const char *s);
void api_buf_printf(api_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Hands the bytes to the caller (NUL-terminated, malloc'ed) and resets b;
 * NULL (and b freed) when an append failed. */
char *api_buf_take(api_buf *b);

#endif /* IRCG_API_BUF_H */
