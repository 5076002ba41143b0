/* util.c -- see util.h */
#include "base/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

ircg_error slv_fail(ircg_diag *diag, ircg_error code, const char *field,
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

double slv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --------------------------------------------------------------- stops -- */

static _Thread_local slv_stop_frame tl_base; /* ircg_stop_set's */
static _Thread_local const slv_stop_frame *tl_top;

double ircg_clock(void) { return slv_now(); }

void ircg_stop_set(const ircg_thread_stop *s)
{
    tl_base.stop = s ? *s : (ircg_thread_stop){NULL, 0};
    tl_base.outer = NULL;
}

const slv_stop_frame *slv_stop_current(void) { return tl_top ? tl_top : &tl_base; }

int slv_stop_due_at(const slv_stop_frame *f)
{
    int due = SLV_GO, deadlines = 1;
    double now = -1;
    for (; f && due != SLV_STOP_CANCEL; f = f->outer) {
        if (f->stop.cancel && __atomic_load_n(f->stop.cancel, __ATOMIC_RELAXED))
            due = SLV_STOP_CANCEL;
        else if (deadlines && f->stop.deadline > 0 &&
                 (now < 0 ? (now = slv_now()) : now) >= f->stop.deadline)
            due = SLV_STOP_DEADLINE;
        deadlines &= !f->grace;
    }
    return due;
}

int slv_stop_due(void) { return slv_stop_due_at(slv_stop_current()); }

void slv_stop_push(slv_stop_frame *f, const volatile int *cancel, double deadline)
{
    f->stop = (ircg_thread_stop){cancel, deadline};
    f->grace = 0;
    f->outer = slv_stop_current();
    tl_top = f;
}

void slv_stop_push_grace(slv_stop_frame *f)
{
    slv_stop_push(f, NULL, 0);
    f->grace = 1;
}

void slv_stop_pop(slv_stop_frame *f)
{
    tl_top = f->outer == &tl_base ? NULL : f->outer;
}

ircg_error slv_stopped(ircg_diag *diag, const char *field)
{
    int due = slv_stop_due();
    return slv_fail(diag, IRCG_ERR_STOPPED, field, "%s",
                    due == SLV_STOP_CANCEL     ? "cancelled"
                    : due == SLV_STOP_DEADLINE ? "time limit reached"
                                               : "stopped");
}

static void buf_put(slv_buf *b, const void *p, size_t n)
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

void slv_buf_put_raw(slv_buf *b, const void *p, size_t n) { buf_put(b, p, n); }

void slv_buf_put_u64(slv_buf *b, uint64_t v)
{
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (unsigned char)(v >> (8 * i));
    buf_put(b, le, 8);
}

void slv_buf_put_i64(slv_buf *b, int64_t v) { slv_buf_put_u64(b, (uint64_t)v); }

void slv_buf_put_f64(slv_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    slv_buf_put_u64(b, u);
}

void slv_buf_put_f64s(slv_buf *b, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        slv_buf_put_f64(b, v[i]);
}

void slv_buf_free(slv_buf *b)
{
    if (!b)
        return;
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void slv_sink_buf(slv_sink *s, slv_buf *b)
{
    if (s->on && s->err == IRCG_OK && b->failed)
        s->err = IRCG_ERR_NOMEM;
    else if (s->on && s->err == IRCG_OK && b->len > 0 && s->put(s->ctx, b->data, b->len) != 0)
        s->err = IRCG_ERR_IO;
    b->len = 0;
}

void slv_sink_f64s(slv_sink *s, const double *v, size_t n)
{
    if (!s->on || s->err != IRCG_OK)
        return;
    slv_buf_put_f64s(&s->stage, v, n);
    slv_sink_buf(s, &s->stage);
}

void slv_sink_free(slv_sink *s) { slv_buf_free(&s->stage); }

uint64_t slv_rbuf_u64(slv_rbuf *r)
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

int64_t slv_rbuf_i64(slv_rbuf *r) { return (int64_t)slv_rbuf_u64(r); }

double slv_rbuf_f64(slv_rbuf *r)
{
    uint64_t u = slv_rbuf_u64(r);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

void slv_rbuf_f64s(slv_rbuf *r, double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = slv_rbuf_f64(r);
}

void *slv_big_alloc(size_t bytes, int zero)
{
    const size_t huge = (size_t)2 << 20;
    void *p = NULL;

    if (bytes < 2 * huge)
        return zero ? calloc(1, bytes ? bytes : 1) : malloc(bytes ? bytes : 1);
    if (posix_memalign(&p, huge, bytes) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, bytes, MADV_HUGEPAGE); /* advice: refused is fine */
#endif
    if (zero)
        memset(p, 0, bytes);
    return p;
}
