/*
 * synth_shapes.c -- synthetic rows of the shapes of the data sets of the
 * bilevel literature (ircg_synth_rows), as CSR with labels (ircg_svm):
 *
 *  - SPARSE: k entries a row on distinct columns (the c-th of k equal
 *    strata of the columns, uniform within it), N(0,1)/sqrt(k) values,
 *    b = A x* + noise N(0,1) with x* ~ N(0,1): the benchmark's big finite
 *    sums.  Drawn in blocks of rows on a thread pool, each block from a
 *    stream of its own, so any number of threads draws the same rows.
 *  - ADULT: the one-hot rows of LIBSVM's a1a/a9a: 14 categorical
 *    attributes of UCI Adult with its bin counts (age 5, workclass 8,
 *    fnlwgt 5, education 16, education-num 5, marital-status 7,
 *    occupation 14, relationship 6, race 5, sex 2, capital-gain 2,
 *    capital-loss 2, hours-per-week 5, native-country 41: 123 columns;
 *    sex is columns 72 and 73, 1-based, if LIBSVM's encoding follows the
 *    attributes' order), each row one bin of each attribute (bin j with
 *    probability proportional to 1/(j+1); an attribute missing with
 *    probability 0.01, as a9a's rows have 13.9 of 14 on average), the
 *    labels +-1 drawn from a logistic model of the bins (about a quarter
 *    positive, as in Adult).
 *  - MSD: Bisec-BiO's minimum-norm instance on YearPredictionMSD: 90
 *    features in [-1, 1] (uniform, or the caller's: the file's, scaled),
 *    then the columns [1, F W] -- an intercept and n - 1 columns each a
 *    combination of 10 distinct features with U(-1, 1) weights -- and
 *    targets b = 1998 + F u + noise N(0,1), u ~ N(0,1); or the features
 *    and targets of a file's first m rows (msd_file).
 *    A has rank at most 91 < n: its least-squares solutions are many.
 *
 * Everything comes from the library's generator (base/rng.h): the same
 * spec gives the same rows on every machine.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "base/rng.h"
#include "base/util.h"
#include "ircg.h"

#define BLOCK_ROWS 65536
#define MSD_FEATURES 90
#define MSD_MIX 10
enum { ST_X = 11, ST_ROWS = 12, ST_W = 13, ST_U = 14, ST_F = 15 };

static const int ADULT_BINS[14] = {5, 8, 5, 16, 5, 7, 14, 6, 5, 2, 2, 2, 5, 41};

static ircg_svm *svm_alloc(int m, int n, int64_t nnz)
{
    ircg_svm *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->m = m;
    s->n = n;
    s->nnz = nnz;
    s->rowptr = malloc(((size_t)m + 1) * sizeof *s->rowptr);
    s->colind = malloc((size_t)(nnz ? nnz : 1) * sizeof *s->colind);
    s->val = malloc((size_t)(nnz ? nnz : 1) * sizeof *s->val);
    s->labels = malloc((size_t)m * sizeof *s->labels);
    if (!s->rowptr || !s->colind || !s->val || !s->labels) {
        ircg_svm_free(s);
        return NULL;
    }
    return s;
}

static double *normals(slv_rng *g, int64_t n)
{
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    for (int64_t i = 0; v && i < n; i++)
        v[i] = slv_rng_normal(g);
    return v;
}

/* ------------------------------------------------------------ sparse -- */

typedef struct sparse_job {
    const ircg_synth_rows_spec *s;
    const double *x;
    ircg_svm *out;
} sparse_job;

static void sparse_block(void *ctx, int blk)
{
    const sparse_job *j = ctx;
    const ircg_synth_rows_spec *s = j->s;
    int k = s->nnz_row, n = s->n;
    int64_t lo = (int64_t)blk * BLOCK_ROWS, hi = lo + BLOCK_ROWS;
    hi = hi < s->m ? hi : s->m;
    slv_rng g;
    slv_rng_seed(&g, s->seed, ((uint64_t)ST_ROWS << 32) + (uint64_t)blk);
    for (int64_t i = lo; i < hi; i++) {
        int64_t p = i * k;
        double t = 0;
        for (int c = 0; c < k; c++) {
            int64_t a = (int64_t)c * n / k, b = (int64_t)(c + 1) * n / k;
            int32_t col = (int32_t)(a + (int64_t)slv_rng_below(&g, (uint64_t)(b - a)));
            double v = slv_rng_normal(&g) / sqrt((double)k);
            j->out->colind[p + c] = col;
            j->out->val[p + c] = v;
            t += v * j->x[col];
        }
        j->out->rowptr[i + 1] = p + k;
        double y = t + (s->noise > 0 ? s->noise * slv_rng_normal(&g) : 0.0);
        j->out->labels[i] = s->logistic ? (y > 0 ? 1.0 : -1.0) : y;
    }
}

static ircg_error sparse_rows(const ircg_synth_rows_spec *s, ircg_svm **out, ircg_diag *diag)
{
    if (s->nnz_row < 1 || s->nnz_row > s->n)
        return slv_fail(diag, IRCG_ERR_INVALID, "/nnz_row",
                        "must lie in [1, n = %d], got %d", s->n, s->nnz_row);
    slv_rng gx;
    slv_rng_seed(&gx, s->seed, ST_X);
    double *x = normals(&gx, s->n);
    ircg_svm *o = svm_alloc(s->m, s->n, (int64_t)s->m * s->nnz_row);
    if (!x || !o) {
        free(x);
        ircg_svm_free(o);
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory for %d rows of %d entries",
                        s->m, s->nnz_row);
    }
    o->rowptr[0] = 0;
    sparse_job j = {s, x, o};
    int blocks = (int)((s->m + BLOCK_ROWS - 1) / BLOCK_ROWS);
    int th = s->threads > 0 ? s->threads : slv_processors();
    slv_pool *pool = blocks > 1 && th > 1 ? slv_pool_new(th < blocks ? th : blocks) : NULL;
    slv_pool_run(pool, sparse_block, &j, blocks);
    slv_pool_free(pool);
    free(x);
    *out = o;
    return IRCG_OK;
}

/* ------------------------------------------------------------- adult -- */

/* A bin of an attribute of `bins`, P(j) proportional to 1/(j+1). */
static int draw_bin(slv_rng *g, int bins)
{
    double h = 0;
    for (int j = 0; j < bins; j++)
        h += 1.0 / (j + 1);
    double u = slv_rng_uniform(g) * h;
    for (int j = 0; j < bins; j++) {
        u -= 1.0 / (j + 1);
        if (u < 0)
            return j;
    }
    return bins - 1;
}

static ircg_error adult_rows(const ircg_synth_rows_spec *s, ircg_svm **out, ircg_diag *diag)
{
    if (s->n != 123)
        return slv_fail(diag, IRCG_ERR_INVALID, "/n",
                        "the adult shape has the 123 columns of its one-hot attributes, "
                        "got n = %d", s->n);
    slv_rng gw, g;
    slv_rng_seed(&gw, s->seed, ST_W);
    slv_rng_seed(&g, s->seed, ST_ROWS);
    double *w = normals(&gw, 123);
    ircg_svm *o = svm_alloc(s->m, 123, (int64_t)s->m * 14);
    if (!w || !o) {
        free(w);
        ircg_svm_free(o);
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory for %d rows", s->m);
    }
    int64_t p = 0;
    o->rowptr[0] = 0;
    for (int i = 0; i < s->m; i++) {
        double t = -1.2; /* about a quarter positive */
        for (int a = 0, base = 0; a < 14; base += ADULT_BINS[a++]) {
            int bin = draw_bin(&g, ADULT_BINS[a]);
            if (slv_rng_uniform(&g) < 0.01) /* a missing value */
                continue;
            o->colind[p] = base + bin;
            o->val[p++] = 1.0;
            t += 0.7 * w[base + bin];
        }
        o->rowptr[i + 1] = p;
        double pr = 1 / (1 + exp(-t)); /* glibc's exp: the labels of this machine's libm */
        o->labels[i] = slv_rng_uniform(&g) < pr ? 1.0 : -1.0;
    }
    o->nnz = p;
    free(w);
    *out = o;
    return IRCG_OK;
}

/* --------------------------------------------------------------- msd -- */

/* The n - 1 combinations: column j of W (j >= 1) mixes features
 * feat[j*10 .. j*10+9] with weights wt[...]. */
static int msd_mix(uint64_t seed, int n, int32_t **feat, double **wt)
{
    slv_rng g;
    slv_rng_seed(&g, seed, ST_W);
    *feat = malloc((size_t)n * MSD_MIX * sizeof **feat);
    *wt = malloc((size_t)n * MSD_MIX * sizeof **wt);
    if (!*feat || !*wt)
        return -1;
    for (int j = 1; j < n; j++) {
        int32_t *f = *feat + (size_t)j * MSD_MIX;
        for (int c = 0; c < MSD_MIX; c++) { /* distinct: redraw a repeat */
            int dup;
            do {
                f[c] = (int32_t)slv_rng_below(&g, MSD_FEATURES);
                dup = 0;
                for (int e = 0; e < c; e++)
                    dup |= f[e] == f[c];
            } while (dup);
            (*wt)[(size_t)j * MSD_MIX + c] = 2 * slv_rng_uniform(&g) - 1;
        }
    }
    return 0;
}

/* F (m x 90) and the targets from the first m rows of a LIBSVM file
 * (YearPredictionMSD: the year, then 90 features): each feature scaled to
 * [-1, 1] by its least and largest value over those rows, as Bisec-BiO
 * scales them (a constant one is 0; an absent entry is a 0). */
static ircg_error msd_file(const ircg_synth_rows_spec *s, double *F, double *b,
                           ircg_diag *diag)
{
    ircg_svm_options o = {.n_cols = MSD_FEATURES, .max_rows = s->m};
    ircg_svm *r = NULL;
    ircg_error e = ircg_svm_read_file(s->features_path, &o, &r, diag);
    if (e != IRCG_OK)
        return e;
    if (r->m < s->m) {
        e = slv_fail(diag, IRCG_ERR_INVALID, "/features_path", "%d rows, the instance needs %d",
                     r->m, s->m);
        ircg_svm_free(r);
        return e;
    }
    double lo[MSD_FEATURES] = {0}, hi[MSD_FEATURES] = {0};
    memset(F, 0, (size_t)s->m * MSD_FEATURES * sizeof *F);
    for (int i = 0; i < s->m; i++) {
        for (int64_t p = r->rowptr[i]; p < r->rowptr[i + 1]; p++)
            F[(size_t)i * MSD_FEATURES + r->colind[p]] = r->val[p];
        for (int q = 0; q < MSD_FEATURES; q++) {
            lo[q] = fmin(lo[q], F[(size_t)i * MSD_FEATURES + q]);
            hi[q] = fmax(hi[q], F[(size_t)i * MSD_FEATURES + q]);
        }
        b[i] = r->labels[i];
    }
    for (size_t k = 0; k < (size_t)s->m * MSD_FEATURES; k++) {
        int q = (int)(k % MSD_FEATURES);
        F[k] = hi[q] > lo[q] ? 2 * (F[k] - lo[q]) / (hi[q] - lo[q]) - 1 : 0.0;
    }
    ircg_svm_free(r);
    return IRCG_OK;
}

/* F (m x 90) and b: the file's, or drawn. */
static ircg_error msd_features(const ircg_synth_rows_spec *s, double **F, double **b,
                               ircg_diag *diag)
{
    *F = malloc((size_t)s->m * MSD_FEATURES * sizeof **F);
    *b = malloc((size_t)s->m * sizeof **b);
    if (!*F || !*b)
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory for %d rows", s->m);
    if (s->features_path)
        return msd_file(s, *F, *b, diag);
    slv_rng gf, gu;
    slv_rng_seed(&gf, s->seed, ST_F);
    slv_rng_seed(&gu, s->seed, ST_U);
    double u[MSD_FEATURES];
    for (int q = 0; q < MSD_FEATURES; q++)
        u[q] = slv_rng_normal(&gu);
    for (int i = 0; i < s->m; i++) {
        double t = 1998;
        for (int q = 0; q < MSD_FEATURES; q++) {
            double f = 2 * slv_rng_uniform(&gf) - 1;
            (*F)[(size_t)i * MSD_FEATURES + q] = f;
            t += f * u[q];
        }
        (*b)[i] = t + (s->noise > 0 ? s->noise * slv_rng_normal(&gf) : 0.0);
    }
    return IRCG_OK;
}

static ircg_error msd_rows(const ircg_synth_rows_spec *s, ircg_svm **out, ircg_diag *diag)
{
    int32_t *feat = NULL;
    double *wt = NULL, *F = NULL, *b = NULL;
    ircg_svm *o = svm_alloc(s->m, s->n, (int64_t)s->m * s->n);
    ircg_error e = IRCG_OK;
    if (!o || msd_mix(s->seed, s->n, &feat, &wt) != 0) {
        e = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory for %d x %d", s->m, s->n);
        goto done;
    }
    if ((e = msd_features(s, &F, &b, diag)) != IRCG_OK)
        goto done;
    o->rowptr[0] = 0;
    for (int i = 0; i < s->m; i++) {
        const double *f = F + (size_t)i * MSD_FEATURES;
        int64_t p = (int64_t)i * s->n;
        o->colind[p] = 0;
        o->val[p] = 1.0; /* the intercept */
        for (int j = 1; j < s->n; j++) {
            double v = 0;
            for (int c = 0; c < MSD_MIX; c++)
                v += wt[(size_t)j * MSD_MIX + c] * f[feat[(size_t)j * MSD_MIX + c]];
            o->colind[p + j] = j;
            o->val[p + j] = v;
        }
        o->rowptr[i + 1] = p + s->n;
        o->labels[i] = s->logistic ? (b[i] > 1998 ? 1.0 : -1.0) : b[i];
    }
    *out = o;
    o = NULL;
done:
    ircg_svm_free(o);
    free(feat);
    free(wt);
    free(F);
    free(b);
    return e;
}

ircg_error ircg_synth_rows(const ircg_synth_rows_spec *s, ircg_svm **out, ircg_diag *diag)
{
    if (diag)
        diag->line = 0;
    if (!s || !out)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL spec or output");
    *out = NULL;
    if (s->m < 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/m", "must be >= 1, got %d", s->m);
    if (s->n < 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/n", "must be >= 1, got %d", s->n);
    if (!isfinite(s->noise) || s->noise < 0)
        return slv_fail(diag, IRCG_ERR_INVALID, "/noise", "must be finite and >= 0, got %g",
                        s->noise);
    switch (s->shape) {
    case IRCG_SHAPE_SPARSE: return sparse_rows(s, out, diag);
    case IRCG_SHAPE_ADULT: return adult_rows(s, out, diag);
    case IRCG_SHAPE_MSD:
        if (s->n < 2)
            return slv_fail(diag, IRCG_ERR_INVALID, "/n", "the msd shape needs n >= 2 "
                            "(an intercept and the combinations), got %d", s->n);
        return msd_rows(s, out, diag);
    default:
        return slv_fail(diag, IRCG_ERR_INVALID, "/shape", "unknown shape %d", (int)s->shape);
    }
}
