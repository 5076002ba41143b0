/*
 * mc_reference.c -- the reference residual q as the passes over Omega read
 * it (mc_sweep.c): Q~, q^2 in 16-bit fixed point (2 bytes an entry, not
 * the 8 of q), and the two constants that make the passes' sums against
 * Q~ exact ones against q: 1/2 sum (Q~ - q^2) for the gaps g - g_opt and
 * 1/2 sum Q~ for g.  Made when a reference is set, in two passes: one for
 * the unit, one for Q~ and the constants.
 *
 * The unit.  Any Q~ makes the sums exact (the constants absorb it); Q~
 * sets only the terms' magnitude, sum |r^2 - Q~|, and so the sums'
 * rounding: near the reference that magnitude is about sum |q^2 - Q~|.
 * An entry below 65535 units errs by half a unit at most, one up to 65536
 * units by a unit; one beyond is clamped to 65535 units and errs by its
 * excess.  The unit is the power of 2 that makes the bound on sum |q^2 -
 * Q~| least, from a histogram of the binades of q^2: the one that holds
 * the largest q^2 when nothing stands out (MovieLens 1M: q^2 <= 25, the
 * unit 2^-11, and 1/2 sum |q^2 - Q~| = 61, 9e-6 of g), a smaller one that
 * clamps outliers when they are fewer than about 2^-17 of the entries
 * (more of them add more to g themselves than a coarse unit costs).  Each
 * rank of a distributed solve chooses its own: the identities hold rank by
 * rank, and a choice made together would be a collective call in a
 * function that returns early on some paths.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/ksum.h"
#include "base/simd.h"
#include "problems/mc/mc.h"

/* Inlined into every instruction set's kernel (base/simd.h; mc_sweep.c
 * says why the kernels make no calls). */
#define REF_INLINE static inline __attribute__((always_inline))

/* The binades of a double x >= 0 by its exponent field: binade b holds
 * [2^(b - 1023), 2^(b - 1022)) (b = 0: the subnormals and 0). */
#define NBINADE 2047
#define QSQ_MAX 65535.0
/* q^2 beyond this has Q~ = 0: Dekker's square of q may overflow there
 * (base/ksum.h), and g is within a factor 4 of overflowing anyway. */
#define QSQ_BEYOND 0x1p1022

static int binade_of(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (int)((bits >> 52) & 0x7ff);
}

/* The exponent k of the unit 2^k whose bound on sum |q^2 - Q~| is least,
 * from cnt[b], the entries whose q^2 lies in binade b: half a unit for
 * each entry below 2^(k + 16), the top of its binade for each above (they
 * are clamped).  The bounds are counted in units of 2^kmax, the coarsest
 * unit, which clamps nothing: each entry adds at most 2^16 of them, so the
 * sum cannot overflow.  The unit stays within 2^-1022..2^1006, so that it,
 * its inverse and 65535 units are normal doubles. */
static int unit_exponent(const double *cnt)
{
    int top = NBINADE - 1;
    while (top >= 0 && cnt[top] == 0)
        top--;
    if (top < 0)
        return 0; /* no q^2 within range: Q~ = 0 whatever the unit */
    int kmax = top - 1022 - 16, best = kmax;
    double least = HUGE_VAL;
    for (int k = kmax; k >= kmax - 52 && k >= -1022; k--) {
        double bound = 0;
        for (int b = 0; b <= top; b++)
            if (cnt[b] > 0)
                bound += cnt[b] * ldexp(1.0, (b - 1022 <= k + 16 ? k - 1 : b - 1022) - kmax);
        if (bound < least) {
            least = bound;
            best = k;
        }
    }
    return best < -1022 ? -1022 : best > 1006 ? 1006 : best;
}

/* The unit of Q~ for the residual q: its histogram (16 KB), then the
 * least bound. */
static double choose_unit(const mc_ws *w, const double *q)
{
    double cnt[NBINADE] = {0};
    for (int64_t e = 0; e < w->d->nnz; e++) {
        double p = q[e] * q[e];
        if (p <= QSQ_BEYOND) /* not beyond, infinite or NaN */
            cnt[binade_of(p)] += 1;
    }
    return ldexp(1.0, unit_exponent(cnt));
}

typedef struct qctx {
    mc_ws *w;
    const double *q;
} qctx;

/* Q~ of entries e..e+n-1 (n <= 4; stored when qsq is) and their parts of
 * the constants: sum (Q~ - q^2) into C, sum Q~ into G; inv = 1 / unit.
 * With p = q^2 rounded and q^2 = p + pe exactly, Q~ - p is exact unless
 * clamped (both are multiples of the finer of the unit and p's ulp, and
 * at most a unit apart), so (Q~ - p) - pe is rounded once.  The sums are
 * compensated in the four lanes of base/ksum.h.  A q^2 beyond QSQ_BEYOND
 * has Q~ = 0 and adds -p; one infinite or NaN makes the constant so. */
REF_INLINE void reference_quad(const double *q, uint16_t *qsq, double unit, double inv,
                               int64_t e, int n, slv_lsum *C, slv_lsum *G)
{
    slv_v4d qq = {0, 0, 0, 0}, qt = qq, p, pe;
    for (int l = 0; l < n; l++)
        qq[l] = q[e + l];
    SLV_V4D_SQUARE(p, pe, qq);
    for (int l = 0; l < n; l++) {
        double x = p[l] * inv, k = 0;
        int within = p[l] <= QSQ_BEYOND;
        if (qsq && within) /* (x + 2^52) - 2^52: x rounded to an integer */
            k = x < QSQ_MAX ? (x + 0x1p52) - 0x1p52 : QSQ_MAX;
        qt[l] = k * unit;
        if (qsq)
            qsq[e + l] = (uint16_t)k;
        if (!within)
            pe[l] = 0;
    }
    SLV_LSUM_ADD(*C, (qt - p) - pe);
    SLV_LSUM_ADD(*G, qt);
}

REF_INLINE void reference_rows_impl(const double *q, uint16_t *qsq, double unit, int64_t e,
                                    int64_t end, slv_lsum *C, slv_lsum *G)
{
    const double inv = 1.0 / unit; /* exact: a power of 2 */
    for (; e + 4 <= end; e += 4)
        reference_quad(q, qsq, unit, inv, e, 4, C, G);
    if (e < end) /* padded with zero terms */
        reference_quad(q, qsq, unit, inv, e, (int)(end - e), C, G);
}
SLV_ISA_DISPATCH(reference_rows,
                 (const double *q, uint16_t *qsq, double unit, int64_t e, int64_t end,
                  slv_lsum *C, slv_lsum *G),
                 (q, qsq, unit, e, end, C, G))

static void reference_task(void *vc, int c)
{
    const qctx *k = vc;
    mc_ws *w = k->w;
    const mc_data *d = w->d;
    slv_lsum C, G;

    slv_lsum_clear(&C);
    slv_lsum_clear(&G);
    reference_rows(k->q, w->qsq, w->qsq_unit, d->rowptr[d->chunk_row[c]],
                   d->rowptr[d->chunk_row[c + 1]], &C, &G);
    w->dsum[MC_NSUM * c + MC_S_QCORR] = 0.5 * slv_lsum_value(&C);
    w->dsum[MC_NSUM * c + MC_S_GQ] = 0.5 * slv_lsum_value(&G);
}

void mc_reference_set(mc_ws *w, const double *q)
{
    if (q == w->ref)
        return;
    w->ref = q;
    w->sums.valid = 0; /* their gaps were against another reference */
    if (!q)
        return;
    if (!w->qsq) /* NULL: the passes sum against Q~ = 0 */
        w->qsq = slv_big_alloc((size_t)w->d->nnz * sizeof *w->qsq, 0);
    w->qsq_unit = choose_unit(w, q);
    qctx k = {.w = w, .q = q};
    slv_pool_run(w->ex.pool, reference_task, &k, w->d->nchunk);
    mc_exec_count(&w->ex, w->qsq ? 18 : 16); /* q read twice, Q~ written */
    w->qcorr = mc_chunk_total(w, MC_S_QCORR);
    w->gq = mc_chunk_total(w, MC_S_GQ);
}
