/*
 * scan.h -- the line and field scanner shared by the readers of the inputs
 * room: spans of a buffer that is not NUL-terminated, lines numbered from
 * 1, fields split by a separator or by blanks.
 */
#ifndef IRCG_INPUTS_SCAN_H
#define IRCG_INPUTS_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ircg.h"

typedef struct span {
    const char *p;
    size_t n;
} span;

/* The unread part of the input and the 1-based number of the last line read. */
typedef struct scan {
    const char *cur, *end;
    long line;
} scan;

enum { MAX_FIELDS = 5, SPAN_SHOW = 40 };

/* How much of a field an error message shows. */
static inline int span_shown(span s) { return s.n > SPAN_SHOW ? SPAN_SHOW : (int)s.n; }

/* A parse error at the input's current line: "line N: ..." in
 * diag->message and N in diag->line (readers_util.c). */
ircg_error scan_fail(const scan *in, ircg_diag *diag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Append x to the growable array (*v, *n, *cap) (doubling, from 1024). */
ircg_error scan_push(double **v, int64_t *n, int64_t *cap, double x, ircg_diag *diag);

static inline int is_blank_char(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static inline span trim(span s)
{
    while (s.n && is_blank_char(s.p[0]))
        s.p++, s.n--;
    while (s.n && is_blank_char(s.p[s.n - 1]))
        s.n--;
    return s;
}

/* Next line without its "\n" (and "\r"); 0 at the end of the input. */
static inline int scan_line(scan *s, span *out)
{
    if (s->cur >= s->end)
        return 0;
    const char *nl = memchr(s->cur, '\n', (size_t)(s->end - s->cur));
    const char *stop = nl ? nl : s->end;
    out->p = s->cur;
    out->n = (size_t)(stop - s->cur);
    if (out->n && out->p[out->n - 1] == '\r')
        out->n--;
    s->cur = nl ? nl + 1 : s->end;
    s->line++;
    return 1;
}

/* Split line into fields; returns the number of fields (all of them, even
 * beyond MAX_FIELDS, of which only the first are stored).  A separator is
 * found by its first byte (a loop on the bytes: fields are short), then
 * confirmed. */
static inline int split_delim(span line, const char *sep, size_t seplen, span *f)
{
    int nf = 0;
    const char *p = line.p, *end = line.p + line.n, *start = p;
    const char c = sep[0];
    if (line.n == 0) { /* one empty field (and no pointer arithmetic on NULL) */
        f[0] = line;
        return 1;
    }
    while (p + seplen <= end) {
        if (*p != c || (seplen > 1 && memcmp(p + 1, sep + 1, seplen - 1) != 0)) {
            p++;
            continue;
        }
        if (nf < MAX_FIELDS)
            f[nf] = trim((span){start, (size_t)(p - start)});
        nf++;
        p += seplen;
        start = p;
    }
    if (nf < MAX_FIELDS)
        f[nf] = trim((span){start, (size_t)(end - start)});
    return nf + 1;
}

/* Matrix Market: fields are runs of non-blank characters. */
static inline int split_ws(span line, span *f)
{
    int nf = 0;
    const char *p = line.p, *end = line.p + line.n;
    while (p < end) {
        while (p < end && is_blank_char(*p))
            p++;
        if (p == end)
            break;
        const char *start = p;
        while (p < end && !is_blank_char(*p))
            p++;
        if (nf < MAX_FIELDS)
            f[nf] = (span){start, (size_t)(p - start)};
        nf++;
    }
    return nf;
}

/* Case-insensitive equality of s with the lower-case word. */
static inline int ieq(span s, const char *word)
{
    size_t n = strlen(word);
    if (s.n != n)
        return 0;
    for (size_t k = 0; k < n; k++) {
        char c = s.p[k];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != word[k])
            return 0;
    }
    return 1;
}

static inline int is_banner(span line)
{
    return line.n >= 14 && ieq((span){line.p, 14}, "%%matrixmarket");
}

#endif /* IRCG_INPUTS_SCAN_H */
