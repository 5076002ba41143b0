/*
 * mc_reference.c -- the reference residual q as the passes over Omega read
 * it (mc_sweep.c): q~, q rounded to floats (4 bytes an entry, not 8), and
 * the two constants that make the passes' sums against q~ exact ones
 * against q: 1/2 sum (q~ - q)(q~ + q) for the gaps g - g_opt and
 * 1/2 sum q~^2 for g.  Made in one pass when a reference is set.
 */
#include <float.h>
#include <math.h>

#include "base/ksum.h"
#include "base/simd.h"
#include "problems/mc/mc.h"

/* Inlined into every instruction set's kernel (base/simd.h; mc_sweep.c
 * says why the kernels make no calls). */
#define REF_INLINE static inline __attribute__((always_inline))

typedef struct qctx {
    mc_ws *w;
    const double *q;
} qctx;

/* q~ of entries [e, end) (stored when qf is) and their parts of the
 * constants, sum (q~ - q)(q~ + q) into C and sum q~^2 into G: q~ - q and
 * q~^2 are exact, and the sums compensated in the four lanes of
 * base/ksum.h (as slv_ksum, one entry after the other, it was a serial
 * chain of dependent additions, 2.6 ms on MovieLens 1M).  A residual
 * beyond the floats (or no memory for them) has q~ = 0: the identity
 * holds for any q~, only the terms' magnitude grows. */
REF_INLINE void reference_quad(const double *q, float *qf, int64_t e, int n, slv_lsum *C,
                               slv_lsum *G)
{
    slv_v4d qq = {0, 0, 0, 0}, qt = qq;
    for (int l = 0; l < n; l++) {
        qq[l] = q[e + l];
        qt[l] = qf && fabs(qq[l]) <= FLT_MAX ? (double)(float)qq[l] : 0.0;
        if (qf)
            qf[e + l] = (float)qt[l];
    }
    SLV_LSUM_ADD(*C, (qt - qq) * (qt + qq));
    SLV_LSUM_ADD(*G, qt * qt);
}

REF_INLINE void reference_rows_impl(const double *q, float *qf, int64_t e, int64_t end,
                                    slv_lsum *C, slv_lsum *G)
{
    for (; e + 4 <= end; e += 4)
        reference_quad(q, qf, e, 4, C, G);
    if (e < end) /* padded with zero terms */
        reference_quad(q, qf, e, (int)(end - e), C, G);
}
SLV_ISA_DISPATCH(reference_rows,
                 (const double *q, float *qf, int64_t e, int64_t end, slv_lsum *C,
                  slv_lsum *G),
                 (q, qf, e, end, C, G))

static void reference_task(void *vc, int c)
{
    const qctx *k = vc;
    mc_ws *w = k->w;
    const mc_data *d = w->d;
    slv_lsum C, G;

    slv_lsum_clear(&C);
    slv_lsum_clear(&G);
    reference_rows(k->q, w->qf, d->rowptr[d->chunk_row[c]], d->rowptr[d->chunk_row[c + 1]],
                   &C, &G);
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
    if (!w->qf)
        w->qf = slv_big_alloc((size_t)w->d->nnz * sizeof *w->qf, 0);
    qctx k = {.w = w, .q = q};
    slv_pool_run(w->ex.pool, reference_task, &k, w->d->nchunk);
    mc_exec_count(&w->ex, w->qf ? 12 : 8); /* q read, q~ written */
    w->qcorr = mc_chunk_total(w, MC_S_QCORR);
    w->gq = mc_chunk_total(w, MC_S_GQ);
}
