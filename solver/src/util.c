/* util.c -- see util.h */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

ircg_error ircg_fail(ircg_diag *diag, ircg_error code, const char *field,
                     const char *fmt, ...)
{
    if (diag) {
        va_list ap;
        diag->code = code;
        snprintf(diag->field, sizeof diag->field, "%s", field ? field : "");
        va_start(ap, fmt);
        vsnprintf(diag->message, sizeof diag->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

double ircg_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double ircg_half_sq_diff(const double *r, const double *q, int64_t n)
{
    ircg_ksum k = {0, 0};
    for (int64_t i = 0; i < n; i++)
        ircg_ksum_add(&k, 0.5 * (r[i] - q[i]) * (r[i] + q[i]));
    return ircg_ksum_value(&k);
}

double ircg_half_sq(const double *r, int64_t n)
{
    ircg_ksum k = {0, 0};
    for (int64_t i = 0; i < n; i++)
        ircg_ksum_add(&k, 0.5 * r[i] * r[i]);
    return ircg_ksum_value(&k);
}

static void buf_put(ircg_buf *b, const void *p, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = 1;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void ircg_buf_put_u64(ircg_buf *b, uint64_t v)
{
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (unsigned char)(v >> (8 * i));
    buf_put(b, le, 8);
}

void ircg_buf_put_i64(ircg_buf *b, int64_t v) { ircg_buf_put_u64(b, (uint64_t)v); }

void ircg_buf_put_f64(ircg_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    ircg_buf_put_u64(b, u);
}

void ircg_buf_put_f64s(ircg_buf *b, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ircg_buf_put_f64(b, v[i]);
}

void ircg_buf_free(ircg_buf *b)
{
    if (!b)
        return;
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

uint64_t ircg_rbuf_u64(ircg_rbuf *r)
{
    if (r->failed || r->len - r->pos < 8) {
        r->failed = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)r->data[r->pos + (size_t)i] << (8 * i);
    r->pos += 8;
    return v;
}

int64_t ircg_rbuf_i64(ircg_rbuf *r) { return (int64_t)ircg_rbuf_u64(r); }

double ircg_rbuf_f64(ircg_rbuf *r)
{
    uint64_t u = ircg_rbuf_u64(r);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

void ircg_rbuf_f64s(ircg_rbuf *r, double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = ircg_rbuf_f64(r);
}
