/*
 * util.h -- small helpers shared by the solver library: error records,
 * clocks, compensated sums, and the little-endian buffers of checkpoints.
 */
#ifndef IRCG_UTIL_H
#define IRCG_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "ircg.h"

/* Fill diag (may be NULL) and return code.  field is a JSON pointer. */
ircg_error slv_fail(ircg_diag *diag, ircg_error code, const char *field,
                     const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* An array of `bytes` for the passes over Omega (zeroed when zero is
 * set), freed by free(): from 4 MB on, on 2 MB boundaries and in huge pages
 * where the kernel gives them on request (Linux's madvise mode): a first
 * pass then takes one page fault per 2 MB, not per 4 KB (the first step at
 * 10M ratings paid 55 ms of faults on X_Omega), and a stream one TLB entry
 * per 2 MB.  NULL when out of memory. */
void *slv_big_alloc(size_t bytes, int zero);

/* Seconds on a monotonic clock. */
double slv_now(void);

/* The stops of the calling thread (ircg_stop_set, codes.h): the one its
 * caller installed and, while ircg_solve or ircg_reference_compute runs,
 * the settings' own (cancel, time_limit), each a frame pushed on the
 * function's stack and popped before it returns. */
typedef struct slv_stop_frame {
    ircg_thread_stop stop;
    int grace; /* the deadlines of the frames outside this one do not count */
    const struct slv_stop_frame *outer;
} slv_stop_frame;
enum { SLV_GO = 0, SLV_STOP_CANCEL = 1, SLV_STOP_DEADLINE = 2 };
/* Which stop is due (SLV_GO: none); a cancel wins over a deadline. */
int slv_stop_due(void);
/* The same for a frame captured on another thread (slv_stop_current):
 * the tasks of a thread pool poll their caller's stops. */
const slv_stop_frame *slv_stop_current(void);
int slv_stop_due_at(const slv_stop_frame *f);
void slv_stop_push(slv_stop_frame *f, const volatile int *cancel, double deadline);
void slv_stop_pop(slv_stop_frame *f);
/* A frame under which work runs past every deadline already pushed, and
 * stops only on a cancel: for work of bounded cost that must not be cut
 * (a certificate, a few passes and Lanczos processes, without which the
 * result could not say how good it is). */
void slv_stop_push_grace(slv_stop_frame *f);
/* IRCG_ERR_STOPPED in diag: "cancelled" or "time limit reached", at
 * field; when nothing is due (a stop seen by a task of a pool), the
 * first reason still due is named, else "stopped". */
ircg_error slv_stopped(ircg_diag *diag, const char *field);

/* Neumaier's compensated sum: exact to about one rounding of the result. */
typedef struct slv_ksum {
    double s, c;
} slv_ksum;

static inline void slv_ksum_add(slv_ksum *k, double x)
{
    double t = k->s + x;
    if ((k->s >= 0 ? k->s : -k->s) >= (x >= 0 ? x : -x))
        k->c += (k->s - t) + x;
    else
        k->c += (x - t) + k->s;
    k->s = t;
}
static inline double slv_ksum_value(const slv_ksum *k) { return k->s + k->c; }

/* sum_i 1/2 (r_i - q_i)(r_i + q_i) = 1/2||r||^2 - 1/2||q||^2 without the
 * cancellation of subtracting two large sums; compensated (ksum.c). */
double slv_half_sq_diff(const double *r, const double *q, int64_t n);
/* 1/2 ||r||^2, compensated (ksum.c). */
double slv_half_sq(const double *r, int64_t n);

/* Growable output buffer for checkpoints; values are stored little-endian. */
typedef struct slv_buf {
    unsigned char *data;
    size_t len, cap;
    int failed; /* an allocation failed: later appends are no-ops */
} slv_buf;

void slv_buf_put_raw(slv_buf *b, const void *p, size_t n); /* bytes as they are */
void slv_buf_put_u64(slv_buf *b, uint64_t v);
void slv_buf_put_i64(slv_buf *b, int64_t v);
void slv_buf_put_f64(slv_buf *b, double v);
void slv_buf_put_f64s(slv_buf *b, const double *v, size_t n);
void slv_buf_free(slv_buf *b);

/* Where a blob made by several processes together goes: its bytes, in
 * order, to put on the one process that writes (on = 1; elsewhere every
 * call is a no-op).  A refusal or a failed buffer stops the writing; the
 * callers still make every collective call. */
typedef struct slv_sink {
    ircg_write_fn put;
    void *ctx;
    int on;
    ircg_error err; /* IRCG_OK, IRCG_ERR_IO (put refused) or IRCG_ERR_NOMEM */
    slv_buf stage;  /* the little-endian bytes of the values being written */
} slv_sink;

/* b's bytes to the sink; b is emptied (kept allocated). */
void slv_sink_buf(slv_sink *s, slv_buf *b);
/* n doubles, little-endian. */
void slv_sink_f64s(slv_sink *s, const double *v, size_t n);
void slv_sink_free(slv_sink *s);

/* Reader over a checkpoint; any read past the end sets failed and yields 0. */
typedef struct slv_rbuf {
    const unsigned char *data;
    size_t len, pos;
    int failed;
} slv_rbuf;

uint64_t slv_rbuf_u64(slv_rbuf *r);
int64_t slv_rbuf_i64(slv_rbuf *r);
double slv_rbuf_f64(slv_rbuf *r);
void slv_rbuf_f64s(slv_rbuf *r, double *v, size_t n);

#endif /* IRCG_UTIL_H */
