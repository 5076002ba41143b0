/*
 * store_trace_doubles.c -- the double columns of version-2 trace chunks:
 * extrapolation by stride and order, or clock ticks as nanoseconds (the
 * format is described in store_trace_codec.h).  Encoder and decoder make
 * their predictions with the same functions, so they agree bit for bit.
 */
#include "store_trace_bits.h"

#if !defined(FLT_EVAL_METHOD) && defined(__FLT_EVAL_METHOD__)
#define FLT_EVAL_METHOD __FLT_EVAL_METHOD__
#endif
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != -1
#error "the trace codec's predictions need IEEE double evaluation (no excess precision)"
#endif

#define MAX_STRIDE 2
#define MAX_ORDER 8
#define NPOLY (MAX_STRIDE * MAX_ORDER)
#define M_TICKS NPOLY

/* ------------------------------------------------------ extrapolation -- */

/* Zero, or finite with a magnitude in [2^-900, 2^900]: sums and
 * differences of such values are multiples of 2^-952 and below 2^910,
 * never subnormal or infinite, so flush-to-zero modes cannot change them. */
static int tame(uint64_t u)
{
    unsigned ef = (unsigned)(u >> 52) & 0x7ff;
    return (u << 1) == 0 || (ef >= 1023 - 900 && ef <= 1023 + 900);
}

/* The extrapolation's state for one stride: per phase (the rows i with
 * the same i mod s), the backward differences at its latest value
 * (diag[j] = D^j, each the difference of two of level j - 1, so they do
 * not depend on the order they were made in), how many values it has
 * had and how many of the latest were tame. */
typedef struct phase {
    double diag[MAX_ORDER];
    size_t count;
    int run;
} phase;

typedef struct xstate {
    int s, levels; /* stride; the differences kept (the order wanted) */
    phase ph[MAX_STRIDE];
} xstate;

static void xs_init(xstate *x, int s, int levels)
{
    memset(x, 0, sizeof *x);
    x->s = s;
    x->levels = levels;
}

/* pred[j], j < x->levels: the prediction of row i by order j + 1 from the
 * values before it: the polynomial through x[i-s], ..., x[i-o's]
 * (o' = min(j + 1, i / s)) in Newton's backward form, D^0 + D^1 + ...
 * + D^(o'-1) at i - s, summed in that order. */
static void xs_predict(const xstate *x, const uint64_t *v, size_t i, uint64_t *pred)
{
    const phase *p = &x->ph[i % (size_t)x->s];
    size_t avail = p->count;
    if (avail == 0) {
        for (int j = 0; j < x->levels; j++)
            pred[j] = i ? v[i - 1] : 0;
        return;
    }
    uint64_t last = v[i - (size_t)x->s];
    double sum = p->diag[0];
    pred[0] = last;
    for (int j = 1; j < x->levels; j++) {
        if ((size_t)j >= avail) {
            pred[j] = pred[j - 1]; /* no further value: the order is capped */
            continue;
        }
        sum = sum + p->diag[j];
        pred[j] = j < p->run ? stc_bits_of(sum) : last; /* inputs all tame */
    }
}

/* xs_predict's pred[x->levels - 1] alone (the decoder's one order). */
static uint64_t xs_predict_one(const xstate *x, const uint64_t *v, size_t i)
{
    const phase *p = &x->ph[i % (size_t)x->s];
    if (p->count == 0)
        return i ? v[i - 1] : 0;
    int k = p->count < (size_t)x->levels ? (int)p->count : x->levels;
    if (k < 2 || k - 1 >= p->run)
        return v[i - (size_t)x->s];
    double sum = p->diag[0];
    for (int j = 1; j < k; j++)
        sum = sum + p->diag[j];
    return stc_bits_of(sum);
}

/* Row i's value joins its phase. */
static void xs_push(xstate *x, uint64_t u, size_t i)
{
    phase *p = &x->ph[i % (size_t)x->s];
    size_t levels = ++p->count < (size_t)x->levels ? p->count : (size_t)x->levels;
    double old = p->diag[0];
    p->diag[0] = stc_double_of(u);
    for (size_t j = 1; j < levels; j++) {
        double t = p->diag[j];
        p->diag[j] = p->diag[j - 1] - old;
        old = t;
    }
    p->run = tame(u) ? p->run + (p->run < MAX_ORDER) : 0;
}

static uint64_t residual(uint64_t x, uint64_t pred) { return stc_zigzag(x - pred); }

/* The method among 0..NPOLY-1 whose residuals have the fewest bits, and
 * that number. */
static int best_poly(const uint64_t *v, size_t n, long *bits_out)
{
    long bits[NPOLY] = {0};
    uint64_t pred[MAX_ORDER] = {0}; /* xs_predict fills every order */
    xstate x;
    for (int s = 1; s <= MAX_STRIDE; s++) {
        xs_init(&x, s, MAX_ORDER);
        xs_push(&x, v[0], 0);
        for (size_t i = 1; i < n; i++) {
            xs_predict(&x, v, i, pred);
            for (int o = 0; o < MAX_ORDER; o++)
                bits[(s - 1) * MAX_ORDER + o] += stc_bit_length(residual(v[i], pred[o]));
            xs_push(&x, v[i], i);
        }
    }
    int best = 0;
    for (int m = 1; m < NPOLY; m++)
        if (bits[m] < bits[best])
            best = m;
    *bits_out = bits[best];
    return best;
}

/* The rows whose prediction has fewer than o values to go on (the first
 * s * o): their residuals are large, stored as varints so that they do
 * not widen the planes of the rest. */
static size_t warmup(size_t n, int m)
{
    size_t w = (size_t)(1 + m / MAX_ORDER) * (size_t)(1 + m % MAX_ORDER);
    return w < n ? w : n;
}

static void put_poly(stc_wbuf *w, const uint64_t *v, size_t n, int m)
{
    int o = 1 + m % MAX_ORDER, k = 0;
    size_t w0 = warmup(n, m), rest = n - w0;
    xstate x;
    xs_init(&x, 1 + m / MAX_ORDER, o);
    unsigned char *planes = NULL;
    uint64_t all = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t z = residual(v[i], xs_predict_one(&x, v, i));
        xs_push(&x, v[i], i);
        if (i < w0) {
            stc_put_varint(w, z);
            continue;
        }
        planes = planes ? planes : w->p + w->len + 1;
        all |= z;
        for (int b = 0; b < 8; b++)
            planes[(size_t)b * rest + i - w0] = (unsigned char)(z >> (8 * b));
    }
    k = (stc_bit_length(all) + 7) / 8; /* planes kept: the rest are zero */
    w->p[w->len++] = (unsigned char)k;
    w->len += (size_t)k * rest;
}

static void get_poly(stc_rbuf *r, uint64_t *v, size_t n, int m)
{
    size_t w0 = warmup(n, m), rest = n - w0;
    xstate x;
    xs_init(&x, 1 + m / MAX_ORDER, 1 + m % MAX_ORDER);
    for (size_t i = 0; i < w0; i++) {
        v[i] = xs_predict_one(&x, v, i) + stc_unzigzag(stc_get_varint(r));
        xs_push(&x, v[i], i);
    }
    if (r->bad || r->pos >= r->len || r->p[r->pos] > 8 ||
        r->len - r->pos - 1 < (size_t)r->p[r->pos] * rest) {
        r->bad = 1;
        return;
    }
    int k = r->p[r->pos++];
    const unsigned char *p = r->p + r->pos;
    for (size_t i = w0; i < n; i++) {
        uint64_t z = 0;
        for (int b = 0; b < k; b++)
            z |= (uint64_t)p[(size_t)b * rest + i - w0] << (8 * b);
        v[i] = xs_predict_one(&x, v, i) + stc_unzigzag(z);
        xs_push(&x, v[i], i);
    }
    r->pos += (size_t)k * rest;
}

/* ---------------------------------------------------------- clock ticks -- */

/* x = m 2^e: the exponent of x's lowest set bit (x finite, not zero). */
static int low_exponent(uint64_t u)
{
    int ef = (int)((u >> 52) & 0x7ff);
    uint64_t mant = u & ((UINT64_C(1) << 52) - 1);
    if (ef)
        mant |= UINT64_C(1) << 52;
    return (ef ? ef : 1) - 1075 + __builtin_ctzll(mant);
}

/* The common exponent e of the column and each value's m; 0, or -1 when
 * a value is not finite, is -0.0 or has an m beyond 62 bits. */
static int ticks_of(const uint64_t *v, size_t n, int *e_out, int64_t *m)
{
    int e = 2000;
    for (size_t i = 0; i < n; i++) {
        if (v[i] == (UINT64_C(1) << 63) || !isfinite(stc_double_of(v[i])))
            return -1;
        if (v[i] && low_exponent(v[i]) < e)
            e = low_exponent(v[i]);
    }
    e = e == 2000 ? 0 : e;
    for (size_t i = 0; i < n; i++) {
        double y = ldexp(fabs(stc_double_of(v[i])), -e); /* exact: an integer */
        if (!(y < 0x1p62))
            return -1;
        m[i] = (int64_t)y * (v[i] >> 63 ? -1 : 1);
    }
    *e_out = e;
    return 0;
}

/* Ticks of 2^e seconds in k nanoseconds, rounded (any integer: the
 * corrections make up the difference); 0 when out of range. */
static uint64_t ticks_in(uint64_t k, int e)
{
    double t = ldexp((double)(int64_t)k, -e) / 1e9;
    return fabs(t) < 0x1p62 ? (uint64_t)llround(t) : 0;
}

static int ns_mode(int e) { return e <= -30; } /* 2^e < 1 ns */

/* The nanoseconds k of each tick difference (the differences themselves
 * when a tick is a nanosecond or more). */
static void tick_steps(const int64_t *m, size_t n, int e, uint64_t *dm, uint64_t *k)
{
    for (size_t i = 0; i < n; i++) {
        dm[i] = (uint64_t)m[i] - (i ? (uint64_t)m[i - 1] : 0);
        k[i] = ns_mode(e) ? (uint64_t)llround(ldexp((double)(int64_t)dm[i], e) * 1e9) : dm[i];
    }
}

static long ticks_bits(const int64_t *m, size_t n, int e, uint64_t *dm, uint64_t *k)
{
    long bits = 0;
    tick_steps(m, n, e, dm, k);
    for (size_t i = 0; i < n; i++) {
        bits += stc_bit_length(stc_zigzag(k[i]));
        if (ns_mode(e))
            bits += stc_bit_length(stc_zigzag(dm[i] - ticks_in(k[i], e)));
    }
    return bits;
}

static void put_ticks(stc_wbuf *w, size_t n, int e, const uint64_t *dm, const uint64_t *k)
{
    stc_put_varint(w, stc_zigzag((uint64_t)(int64_t)e));
    for (size_t i = 0; i < n; i++)
        stc_put_varint(w, stc_zigzag(k[i]));
    for (size_t i = 0; ns_mode(e) && i < n; i++)
        stc_put_varint(w, stc_zigzag(dm[i] - ticks_in(k[i], e)));
}

static void get_ticks(stc_rbuf *r, uint64_t *v, size_t n)
{
    int64_t e = (int64_t)stc_unzigzag(stc_get_varint(r));
    uint64_t m = 0;
    if (e < -1074 || e > 1023) {
        r->bad = 1;
        return;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = stc_unzigzag(stc_get_varint(r)); /* k, for now */
    for (size_t i = 0; i < n && !r->bad; i++) {
        uint64_t dm = v[i];
        if (ns_mode((int)e))
            dm = ticks_in(v[i], (int)e) + stc_unzigzag(stc_get_varint(r));
        m += dm;
        double x = ldexp((double)(int64_t)m, (int)e);
        v[i] = stc_bits_of(x);
    }
}

/* -------------------------------------------------------------- column -- */

void stc_put_doubles(stc_wbuf *w, const uint64_t *v, size_t n, int ticks)
{
    long poly_bits, tick_bits = -1;
    int m = best_poly(v, n, &poly_bits), e = 0;
    int64_t tm[256];
    uint64_t dm[256], k[256];
    if (ticks && n <= 256 && ticks_of(v, n, &e, tm) == 0)
        tick_bits = ticks_bits(tm, n, e, dm, k);
    if (tick_bits >= 0 && tick_bits < poly_bits) {
        w->p[w->len++] = M_TICKS;
        put_ticks(w, n, e, dm, k);
    } else {
        w->p[w->len++] = (unsigned char)m;
        put_poly(w, v, n, m);
    }
}

void stc_get_doubles(stc_rbuf *r, uint64_t *v, size_t n)
{
    if (r->pos >= r->len || n == 0 || r->p[r->pos] > M_TICKS) {
        r->bad = 1;
        return;
    }
    int m = r->p[r->pos++];
    if (m == M_TICKS)
        get_ticks(r, v, n);
    else
        get_poly(r, v, n, m);
}
