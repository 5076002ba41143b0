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
ircg_error ircg_fail(ircg_diag *diag, ircg_error code, const char *field,
                     const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Seconds on a monotonic clock. */
double ircg_now(void);

/* Neumaier's compensated sum: exact to about one rounding of the result. */
typedef struct ircg_ksum {
    double s, c;
} ircg_ksum;

static inline void ircg_ksum_add(ircg_ksum *k, double x)
{
    double t = k->s + x;
    if ((k->s >= 0 ? k->s : -k->s) >= (x >= 0 ? x : -x))
        k->c += (k->s - t) + x;
    else
        k->c += (x - t) + k->s;
    k->s = t;
}
static inline double ircg_ksum_value(const ircg_ksum *k) { return k->s + k->c; }

/* sum_i 1/2 (r_i - q_i)(r_i + q_i) = 1/2||r||^2 - 1/2||q||^2 without the
 * cancellation of subtracting two large sums. */
double ircg_half_sq_diff(const double *r, const double *q, int64_t n);
/* 1/2 ||r||^2, compensated. */
double ircg_half_sq(const double *r, int64_t n);

/* Growable output buffer for checkpoints; values are stored little-endian. */
typedef struct ircg_buf {
    unsigned char *data;
    size_t len, cap;
    int failed; /* an allocation failed: later appends are no-ops */
} ircg_buf;

void ircg_buf_put_u64(ircg_buf *b, uint64_t v);
void ircg_buf_put_i64(ircg_buf *b, int64_t v);
void ircg_buf_put_f64(ircg_buf *b, double v);
void ircg_buf_put_f64s(ircg_buf *b, const double *v, size_t n);
void ircg_buf_free(ircg_buf *b);

/* Reader over a checkpoint; any read past the end sets failed and yields 0. */
typedef struct ircg_rbuf {
    const unsigned char *data;
    size_t len, pos;
    int failed;
} ircg_rbuf;

uint64_t ircg_rbuf_u64(ircg_rbuf *r);
int64_t ircg_rbuf_i64(ircg_rbuf *r);
double ircg_rbuf_f64(ircg_rbuf *r);
void ircg_rbuf_f64s(ircg_rbuf *r, double *v, size_t n);

#endif /* IRCG_UTIL_H */
