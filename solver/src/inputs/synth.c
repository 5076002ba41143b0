/*
 * synth.c -- deterministic synthetic data: ratings shaped like MovieLens and
 * random least-squares instances.
 *
 * Reproducibility: only the integer generator of rng.h, exactly rounded
 * arithmetic (+, -, *, /, sqrt) and floor are used.  Contraction of a*b+c
 * into an FMA would change the last bits on machines that have one: ISO C
 * mode (-std=c11) turns it off in GCC, the pragma below in clang.
 *
 * Ratings: factors U (n x r) and V (p x r) with N(0,1)-like entries, so that
 * z_ij = <U_i, V_j> / sqrt(r) is about N(0,1); the rating is
 *   min + clamp(round(x - min), 0, floor(max - min)),
 *   x = (min + max)/2 + (max - min)/4 * z_ij + noise * N(0,1),
 * i.e. +-2 standard deviations span the scale.  Cells: when n_ratings >=
 * max(n, p), first max(n, p) cells pair a random permutation of the rows
 * with one of the columns (so every row and column is rated), then the rest
 * are uniform among the remaining cells: rejection with a hash set when at
 * most half of the matrix is observed, selection sampling otherwise.
 * Large instances are drawn row by row in parallel instead (synth_rows.c).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__) /* clang contracts by default; GCC obeys -std=c11 */
#pragma STDC FP_CONTRACT OFF
#endif

#include "base/rng.h"
#include "base/util.h"
#include "inputs/synth.h"

/* Independent streams of one seed; changing them changes every output. */
enum { ST_FACTORS = 1, ST_CELLS = 2, ST_NOISE = 3, ST_LS_A = 11, ST_LS_X = 12,
       ST_LS_NOISE = 13 };

/* ------------------------------------------------------ set of cells */

typedef struct cellset {
    uint64_t *slot; /* key + 1; 0 = empty */
    uint64_t mask;
} cellset;

static int cellset_init(cellset *s, int64_t n)
{
    uint64_t cap = 16;
    while (cap < 2 * (uint64_t)n)
        cap *= 2;
    s->mask = cap - 1;
    s->slot = calloc(cap, sizeof *s->slot);
    return s->slot != NULL;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7FB5D329728EA185ULL;
    x ^= x >> 27;
    x *= 0x81DADEF4BC2DD44DULL;
    return x ^ (x >> 33);
}

/* Linear probing; returns 1 if key was added, 0 if present.  With query
 * set, only looks (returns 1 if present). */
static int cellset_probe(cellset *s, uint64_t key, int query)
{
    uint64_t h = mix(key) & s->mask;
    while (s->slot[h]) {
        if (s->slot[h] == key + 1)
            return query ? 1 : 0;
        h = (h + 1) & s->mask;
    }
    if (query)
        return 0;
    s->slot[h] = key + 1;
    return 1;
}

/* ------------------------------------------------------ validation */

static ircg_error validate_spec(const ircg_synth_ratings_spec *s, ircg_diag *d)
{
    int64_t cells = 0;
    int mn = 0;
    if (s->n_rows < 1)
        return slv_fail(d, IRCG_ERR_INVALID, "/n_rows", "must be >= 1, got %d",
                         s->n_rows);
    if (s->n_cols < 1)
        return slv_fail(d, IRCG_ERR_INVALID, "/n_cols", "must be >= 1, got %d",
                         s->n_cols);
    mn = s->n_rows < s->n_cols ? s->n_rows : s->n_cols;
    if (s->rank < 1 || s->rank > mn)
        return slv_fail(d, IRCG_ERR_INVALID, "/rank",
                         "must be in [1, min(n_rows, n_cols) = %d], got %d", mn,
                         s->rank);
    cells = (int64_t)s->n_rows * s->n_cols;
    if (s->n_ratings < 1 || s->n_ratings > cells)
        return slv_fail(d, IRCG_ERR_INVALID, "/n_ratings",
                         "must be in [1, n_rows * n_cols = %lld], got %lld",
                         (long long)cells, (long long)s->n_ratings);
    if (!isfinite(s->min_rating))
        return slv_fail(d, IRCG_ERR_INVALID, "/min_rating",
                         "must be a finite number");
    if (!isfinite(s->max_rating) || !(s->max_rating > s->min_rating))
        return slv_fail(d, IRCG_ERR_INVALID, "/max_rating",
                         "must be finite and greater than min_rating (%g)",
                         s->min_rating);
    if (!isfinite(s->noise) || s->noise < 0)
        return slv_fail(d, IRCG_ERR_INVALID, "/noise",
                         "must be finite and >= 0, got %g", s->noise);
    return IRCG_OK;
}

/* ------------------------------------------------------ cells */

/* A random permutation of 0..n-1 (Fisher-Yates). */
int32_t *synth_permutation(slv_rng *g, int n)
{
    int32_t *p = malloc((size_t)n * sizeof *p);
    if (!p)
        return NULL;
    for (int i = 0; i < n; i++)
        p[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)slv_rng_below(g, (uint64_t)i + 1);
        int32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    return p;
}

/* The first max(n, p) cells: every row and column once at least. */
static int64_t cover(slv_rng *g, int n, int p, cellset *set, int32_t *row,
                     int32_t *col)
{
    int m = n > p ? n : p;
    int64_t k = 0;
    int32_t *rp = synth_permutation(g, n), *cp = synth_permutation(g, p);
    if (rp && cp) {
        /* t % n (or t % p) is t itself on the longer side: pairs distinct */
        for (int t = 0; t < m; t++, k++) {
            row[k] = rp[t % n];
            col[k] = cp[t % p];
            cellset_probe(set, (uint64_t)row[k] * (uint64_t)p + (uint64_t)col[k],
                          0);
        }
    }
    free(rp);
    free(cp);
    return rp && cp ? k : -1;
}

/* Fill row/col[k..N) uniformly among the cells not in set; -1 when
 * stopped (polled every 2^16 draws). */
static int fill_rest(slv_rng *g, int n, int p, int64_t N, int64_t k,
                     cellset *set, int32_t *row, int32_t *col)
{
    uint64_t cells = (uint64_t)n * (uint64_t)p, draws = 0;
    if ((uint64_t)N <= cells / 2) {
        while (k < N) {
            if ((++draws & 0xffff) == 0 && slv_stop_due())
                return -1;
            uint64_t c = slv_rng_below(g, cells);
            if (cellset_probe(set, c, 0)) {
                row[k] = (int32_t)(c / (uint64_t)p);
                col[k] = (int32_t)(c % (uint64_t)p);
                k++;
            }
        }
        return 0;
    }
    /* Dense: Knuth's selection sampling over the free cells in order. */
    uint64_t need = (uint64_t)(N - k), left = cells - (uint64_t)k;
    for (uint64_t c = 0; c < cells && need > 0; c++) {
        if ((c & 0xffff) == 0xffff && slv_stop_due())
            return -1;
        if (cellset_probe(set, c, 1))
            continue;
        if (slv_rng_below(g, left) < need) {
            row[k] = (int32_t)(c / (uint64_t)p);
            col[k] = (int32_t)(c % (uint64_t)p);
            k++;
            need--;
        }
        left--;
    }
    return 0;
}

static ircg_error pick_cells(const ircg_synth_ratings_spec *s, ircg_ratings *R,
                             ircg_diag *diag)
{
    ircg_error e = IRCG_OK;
    slv_rng g;
    cellset set = {0};
    int64_t k = 0;
    int n = s->n_rows, p = s->n_cols;
    slv_rng_seed(&g, s->seed, ST_CELLS);
    if (!cellset_init(&set, s->n_ratings)) {
        e = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
        goto done;
    }
    if (s->n_ratings >= (n > p ? n : p))
        k = cover(&g, n, p, &set, R->row, R->col);
    if (k < 0) {
        e = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
        goto done;
    }
    if (fill_rest(&g, n, p, s->n_ratings, k, &set, R->row, R->col) != 0)
        e = slv_stopped(diag, "/n_ratings");
done:
    free(set.slot);
    return e;
}

/* ------------------------------------------------------ values */

static double *normals(slv_rng *g, int64_t count)
{
    assert(count > 0); /* dimensions and ranks are validated >= 1 */
    double *v = malloc((size_t)(count > 0 ? count : 1) * sizeof *v);
    if (v)
        for (int64_t i = 0; i < count; i++)
            v[i] = slv_rng_normal(g);
    return v;
}

/* The factors U (n x r) and V (p x r), row-major, are the normals of
 * ST_FACTORS in that order: U's row i is normals [i r, (i + 1) r), V's
 * row j normals [(n + j) r, (n + j + 1) r).  Only the rows asked for are
 * drawn: the stream skips the others in O(log) (slv_rng_skip), so that
 * 10^8 rows with 1000 ratings cost 1000 rows of draws, not 10^9 normals.
 * Rows `ids` (ascending; NULL: rows [0, count)) of the factor whose first
 * normal is `first`, into a new count x r array; NULL when out of memory
 * or stopped (slv_stop_due). */
static double *factor_rows(const ircg_synth_ratings_spec *s, int64_t first,
                           const int32_t *ids, int64_t count)
{
    slv_rng g;
    int r = s->rank;
    int64_t at = 0; /* normals drawn or skipped */
    double *F = malloc((size_t)(count > 0 ? count : 1) * (size_t)r * sizeof *F);
    slv_rng_seed(&g, s->seed, ST_FACTORS);
    for (int64_t c = 0; F && c < count; c++) {
        int64_t want = first + (ids ? ids[c] : c) * (int64_t)r;
        slv_rng_skip(&g, (uint64_t)(want - at) * SLV_RNG_NORMAL_DRAWS);
        for (int q = 0; q < r; q++)
            F[c * r + q] = slv_rng_normal(&g);
        at = want + r;
        if ((c & 4095) == 4095 && slv_stop_due()) {
            free(F);
            return NULL;
        }
    }
    return F;
}

/* U's rows [lo, hi) and all of V (the row-by-row generator's). */
static int factors(const ircg_synth_ratings_spec *s, int lo, int hi, double **U, double **V)
{
    int64_t r = s->rank;
    *U = factor_rows(s, lo * r, NULL, hi - lo);
    *V = *U ? factor_rows(s, (int64_t)s->n_rows * r, NULL, s->n_cols) : NULL;
    return *U && *V ? 0 : -1;
}

/* The distinct values of v[0, n), ascending, into a new array; NULL when
 * out of memory. */
static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int32_t *distinct(const int32_t *v, int64_t n, int64_t *count)
{
    int32_t *t = malloc(((size_t)n + 1) * sizeof *t);
    int64_t u = 0;
    if (!t)
        return NULL;
    memcpy(t, v, (size_t)n * sizeof *t);
    qsort(t, (size_t)n, sizeof *t, cmp_i32);
    for (int64_t e = 0; e < n; e++)
        if (u == 0 || t[e] != t[u - 1])
            t[u++] = t[e];
    *count = u;
    return t;
}

/* Index of x in the ascending ids (it is there); x itself without ids. */
static int64_t index_of(const int32_t *ids, int64_t count, int32_t x)
{
    int64_t lo = 0, hi = count - 1;
    if (!ids)
        return x;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (ids[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One side's factor rows for the cells: every row when the cells cover
 * most of them (no ids), else only the rows the cells name. */
typedef struct side {
    int32_t *ids;
    int64_t count;
    double *F;
} side;

static int side_draw(const ircg_synth_ratings_spec *s, const int32_t *of, int64_t nnz,
                     int dim, int64_t first, side *sd)
{
    *sd = (side){NULL, dim, NULL};
    if ((int64_t)dim > 2 * nnz && !(sd->ids = distinct(of, nnz, &sd->count)))
        return -1;
    sd->F = factor_rows(s, first, sd->ids, sd->count);
    return sd->F ? 0 : -1;
}

static int fill_values(const ircg_synth_ratings_spec *s, ircg_ratings *R)
{
    slv_rng gn;
    synth_scale sc = synth_scale_of(s);
    int r = s->rank, ok;
    side u = {0}, v = {0};
    ok = side_draw(s, R->row, R->nnz, s->n_rows, 0, &u) == 0 &&
         side_draw(s, R->col, R->nnz, s->n_cols, (int64_t)s->n_rows * r, &v) == 0;
    slv_rng_seed(&gn, s->seed, ST_NOISE);
    for (int64_t t = 0; ok && t < R->nnz; t++) {
        if ((t & 4095) == 4095 && slv_stop_due()) /* a rating costs `rank` products */
            ok = 0;
        double z = s->noise > 0 ? slv_rng_normal(&gn) : 0.0;
        const double *ur = u.F + (size_t)index_of(u.ids, u.count, R->row[t]) * r;
        const double *vr = v.F + (size_t)index_of(v.ids, v.count, R->col[t]) * r;
        R->val[t] = synth_rating(&sc, ur, vr, z);
    }
    free(u.ids);
    free(u.F);
    free(v.ids);
    free(v.F);
    return ok ? 0 : -1;
}

/* Out of memory, or stopped (ircg_stop_set) while drawing. */
static ircg_error draw_failed(const ircg_synth_ratings_spec *spec, ircg_diag *diag)
{
    if (slv_stop_due())
        return slv_stopped(diag, "/n_ratings");
    return slv_fail(diag, IRCG_ERR_NOMEM, "/n_ratings", "out of memory for %lld ratings",
                    (long long)spec->n_ratings);
}

/* Every rating (small instances), or rows [lo, hi) of a large one. */
static ircg_error generate(const ircg_synth_ratings_spec *spec, int lo, int hi,
                           ircg_ratings **out, ircg_diag *diag)
{
    ircg_error e = IRCG_OK;
    ircg_ratings *R = NULL;
    double *U = NULL, *V = NULL;
    if (synth_by_rows(spec)) {
        e = factors(spec, lo, hi, &U, &V) != 0 ? draw_failed(spec, diag)
                                                : synth_rows(spec, lo, hi, U, V, &R, diag);
    } else if (!(R = ircg_ratings_new(spec->n_rows, spec->n_cols, spec->n_ratings))) {
        e = draw_failed(spec, diag);
    } else if ((e = pick_cells(spec, R, diag)) == IRCG_OK && fill_values(spec, R) != 0) {
        e = draw_failed(spec, diag);
    }
    free(U);
    free(V);
    if (e != IRCG_OK) {
        ircg_ratings_free(R);
        return e;
    }
    *out = R;
    return IRCG_OK;
}

static ircg_error synth_args(const ircg_synth_ratings_spec *spec, const void *out,
                             ircg_diag *diag)
{
    if (diag)
        diag->line = 0;
    if (!spec || !out)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL spec or output");
    return validate_spec(spec, diag);
}

ircg_error ircg_synth_ratings(const ircg_synth_ratings_spec *spec,
                              ircg_ratings **out, ircg_diag *diag)
{
    ircg_error e = synth_args(spec, out, diag);
    if (out)
        *out = NULL;
    return e ? e : generate(spec, 0, spec->n_rows, out, diag);
}

/* The entries of rows [lo, hi) of R, moved to the front. */
static void keep_rows(ircg_ratings *R, int lo, int hi)
{
    int64_t c = 0;
    for (int64_t e = 0; e < R->nnz; e++)
        if (R->row[e] >= lo && R->row[e] < hi) {
            R->row[c] = R->row[e];
            R->col[c] = R->col[e];
            R->val[c++] = R->val[e];
        }
    R->nnz = c;
}

ircg_error ircg_synth_ratings_rows(const ircg_synth_ratings_spec *spec, int row_lo,
                                   int row_hi, ircg_ratings **out, ircg_diag *diag)
{
    ircg_error e = synth_args(spec, out, diag);
    if (out)
        *out = NULL;
    if (!e && (row_lo < 0 || row_hi < row_lo || row_hi > spec->n_rows))
        e = slv_fail(diag, IRCG_ERR_INVALID, "/n_rows", "rows [%d, %d) are not inside "
                     "the %d rows", row_lo, row_hi, spec->n_rows);
    if (!e && (e = generate(spec, row_lo, row_hi, out, diag)) == IRCG_OK &&
        !synth_by_rows(spec))
        keep_rows(*out, row_lo, row_hi);
    return e;
}

ircg_error ircg_synth_row_counts(const ircg_synth_ratings_spec *spec, int64_t *counts,
                                 ircg_diag *diag)
{
    ircg_ratings *R = NULL;
    ircg_error e = synth_args(spec, counts, diag);
    if (e)
        return e;
    if (synth_by_rows(spec))
        return synth_row_counts(spec, counts) == 0
                   ? IRCG_OK
                   : slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    if ((e = generate(spec, 0, spec->n_rows, &R, diag)) != IRCG_OK)
        return e;
    assert(R); /* generate() makes R when it succeeds */
    memset(counts, 0, (size_t)spec->n_rows * sizeof *counts);
    for (int64_t t = 0; t < R->nnz; t++)
        counts[R->row[t]]++;
    ircg_ratings_free(R);
    return IRCG_OK;
}

/* ------------------------------------------------------ least squares */

ircg_error ircg_synth_least_squares(int m, int n, double noise, uint64_t seed,
                                    double **A, double **b, ircg_diag *diag)
{
    ircg_error e = IRCG_OK;
    slv_rng ga, gx, gn;
    double *x = NULL;
    if (diag)
        diag->line = 0;
    if (!A || !b)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "NULL output");
    *A = *b = NULL;
    if (m < 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/m", "must be >= 1, got %d", m);
    if (n < 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/n", "must be >= 1, got %d", n);
    if (!isfinite(noise) || noise < 0)
        return slv_fail(diag, IRCG_ERR_INVALID, "/noise",
                         "must be finite and >= 0, got %g", noise);
    slv_rng_seed(&ga, seed, ST_LS_A);
    slv_rng_seed(&gx, seed, ST_LS_X);
    slv_rng_seed(&gn, seed, ST_LS_NOISE);
    *A = normals(&ga, (int64_t)m * n);
    *b = malloc((size_t)m * sizeof **b);
    x = normals(&gx, n);
    if (!*A || !*b || !x) {
        e = slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory for %d x %d", m, n);
        goto fail;
    }
    for (int i = 0; i < m; i++) {
        const double *a = *A + (size_t)i * n;
        double s = 0;
        for (int j = 0; j < n; j++) /* A is m x n and x has n entries: */
            s += a[j] * x[j]; /* NOLINT(clang-analyzer-core.UndefinedBinaryOperatorResult) */
        (*b)[i] = s + (noise > 0 ? noise * slv_rng_normal(&gn) : 0.0);
    }
    free(x);
    return IRCG_OK;
fail:
    free(x);
    free(*A);
    free(*b);
    *A = *b = NULL;
    return e;
}
