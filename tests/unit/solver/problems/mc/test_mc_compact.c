/*
 * test_mc_compact.c -- rows and columns without ratings cost nothing
 * (ircg_problem_matrix_completion): the compacted problem holds X0's
 * diagonal and the rows and columns rated, and every method gives the
 * values of the whole problem (ircg_problem_matrix_completion_whole).
 *
 * The instances are padded: 300 rows of which about 100 are rated over
 * 30 columns (the rows beyond X0's diagonal that hold nothing are
 * dropped, or shared under the column variance), and the transpose
 * (columns dropped).  Both problems run the same settings for 40
 * iterations; g and f of x and z at every iteration, and the final
 * iterates entry by entry, must agree to TOL relative to the larger of
 * the values and the scale of the instance.  What separates the two
 * computations: the order of the sums over the rows and columns held
 * (rounding) and the LMO's start vector, whose components on the columns
 * dropped the whole problem's Lanczos carries until they decay with the
 * Ritz residual.  With lmo_tol 1e-13 the measured worst is printed
 * beside TOL.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"

#define ITERS 40
#define TOL 1e-7
#define ROWS_RATED 100
#define PER_ROW 6

typedef struct rec {
    int n;
    double v[ITERS + 1][4];
} rec;

static int record(void *user, const ircg_iter_info *it)
{
    rec *r = user;
    if (it->t <= ITERS) {
        r->v[it->t][0] = it->g_x;
        r->v[it->t][1] = it->f_x;
        r->v[it->t][2] = it->g_z;
        r->v[it->t][3] = it->f_z;
        r->n = (int)it->t;
    }
    return 0;
}

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* ROWS_RATED random rows of n, PER_ROW distinct columns each; transposed
 * when `cols` (then the columns are the sparse side). */
static ircg_ratings *padded(int n, int p, int cols, uint64_t seed)
{
    ircg_ratings *R = ircg_ratings_new(cols ? p : n, cols ? n : p, ROWS_RATED * PER_ROW);
    char *used = calloc((size_t)n * p, 1);
    int64_t e = 0;
    if (!R || !used) {
        free(used);
        ircg_ratings_free(R);
        return NULL;
    }
    for (int k = 0; k < ROWS_RATED; k++) {
        int i = (int)(next(&seed) % (uint64_t)n);
        for (int c = 0; c < PER_ROW; c++) {
            int j = (int)(next(&seed) % (uint64_t)p);
            if (used[(size_t)i * p + j])
                continue;
            used[(size_t)i * p + j] = 1;
            R->row[e] = cols ? j : i;
            R->col[e] = cols ? i : j;
            R->val[e++] = 1.0 + (double)(next(&seed) % 5);
        }
    }
    R->nnz = e;
    free(used);
    return R;
}

/* The iterate as a dense column-major matrix of the whole shape, from its
 * factors and ids (ircg_iterate), so that the layouts compare. */
static double *expand(const ircg_iterate *it)
{
    size_t n = (size_t)it->n_rows, p = (size_t)it->n_cols;
    double *X = calloc(n * p, sizeof *X);
    int m0 = it->n_rows < it->n_cols ? it->n_rows : it->n_cols;
    if (!X)
        return NULL;
    for (int i = 0; i < m0; i++)
        X[i + i * n] = it->a0 * it->x0_diag[i];
    for (int l = 0; l < it->rank; l++)
        for (int jj = 0; jj < it->cols_held; jj++) {
            size_t j = (size_t)(it->col_ids ? it->col_ids[jj] : jj);
            double q = it->w[l] * it->Q[jj + (size_t)l * it->cols_held];
            if (it->P_other)
                for (size_t i = 0; i < n; i++)
                    X[i + j * n] += it->P_other[l] * q;
            for (int ii = 0; ii < it->rows_held; ii++) {
                size_t i = (size_t)(it->row_ids ? it->row_ids[ii] : ii);
                double pv = it->P[ii + (size_t)l * it->rows_held];
                if (it->P_other) /* the shared value was added above */
                    pv -= it->P_other[l];
                X[i + j * n] += pv * q;
            }
        }
    return X;
}

typedef struct run {
    rec r;
    double *X;
    ircg_iterate *it;
} run;

static int solve(const ircg_problem *pb, const ircg_settings *base, run *out)
{
    ircg_settings s = *base;
    ircg_solver *sv = NULL;
    ircg_info info;
    memset(out, 0, sizeof *out);
    s.callback = record;
    s.callback_data = &out->r;
    if (ircg_solver_new(pb, &s, &sv, NULL) != IRCG_OK || ircg_solve(sv, &info) != IRCG_OK ||
        ircg_solver_iterate(sv, IRCG_X, 0, &out->it) != IRCG_OK) {
        ircg_solver_free(sv);
        return -1;
    }
    ircg_solver_free(sv);
    out->X = expand(out->it);
    return out->X ? 0 : -1;
}

/* Worst |a - b| / max(|a|, |b|, scale) over the trace and the iterate. */
static double compare(const run *a, const run *b, size_t entries, double scale)
{
    double worst = 0;
    for (int t = 1; t <= a->r.n && t <= b->r.n; t++)
        for (int q = 0; q < 4; q++) {
            double x = a->r.v[t][q], y = b->r.v[t][q];
            worst = fmax(worst, fabs(x - y) / fmax(fmax(fabs(x), fabs(y)), scale));
        }
    for (size_t e = 0; e < entries; e++)
        worst = fmax(worst, fabs(a->X[e] - b->X[e]) / scale);
    return worst;
}

static void run_free(run *r)
{
    free(r->X);
    ircg_iterate_free(r->it);
}

typedef struct method {
    const char *name;
    ircg_algorithm alg;
    ircg_step_rule rule;
    ircg_projection proj;
} method;

static const method methods[] = {
    {"ircg open loop", IRCG_ALG_IRCG, IRCG_STEP_OPEN_LOOP, IRCG_PROJ_PARTIAL},
    {"ircg line search", IRCG_ALG_IRCG, IRCG_STEP_LINE_SEARCH, IRCG_PROJ_PARTIAL},
    {"ircg closed loop", IRCG_ALG_IRCG, IRCG_STEP_CLOSED_LOOP, IRCG_PROJ_PARTIAL},
    {"cgbio", IRCG_ALG_CGBIO, IRCG_STEP_OPEN_LOOP, IRCG_PROJ_PARTIAL},
    {"irpg partial", IRCG_ALG_IRPG, IRCG_STEP_OPEN_LOOP, IRCG_PROJ_PARTIAL},
    {"irpg full", IRCG_ALG_IRPG, IRCG_STEP_OPEN_LOOP, IRCG_PROJ_FULL},
    {"bisg partial", IRCG_ALG_BISG, IRCG_STEP_OPEN_LOOP, IRCG_PROJ_PARTIAL},
    {"bisg full", IRCG_ALG_BISG, IRCG_STEP_OPEN_LOOP, IRCG_PROJ_FULL},
};

/* One padded instance, every method, both outer objectives. */
static void same_as_whole(int cols)
{
    const int n = 300, p = 30;
    ircg_ratings *R = padded(n, p, cols, 7);
    REQUIRE(R != NULL);
    for (int o = 0; o < 2; o++) {
        ircg_outer_kind outer = o ? IRCG_OUTER_HALF_NORM_SQ : IRCG_OUTER_COLUMN_VARIANCE;
        ircg_problem *pc = NULL, *pw = NULL;
        ircg_problem_info ic, iw;
        REQUIRE(ircg_problem_matrix_completion(R, outer, 20.0, &pc, NULL) == IRCG_OK);
        REQUIRE(ircg_problem_matrix_completion_whole(R, outer, 20.0, &pw, NULL) == IRCG_OK);
        ircg_problem_get_info(pc, &ic);
        ircg_problem_get_info(pw, &iw);
        CHECK(ic.n_rows == iw.n_rows && ic.n_cols == iw.n_cols && ic.dim == iw.dim);
        /* the side dropped: fewer than n held (+1: the shared row) */
        CHECK(cols ? ic.held_cols < n : ic.held_rows <= ROWS_RATED + p + 1);
        CHECK(iw.held_rows == iw.n_rows && iw.held_cols == iw.n_cols);
        for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
            ircg_settings s;
            run a, b;
            ircg_settings_default(&s);
            s.algorithm = methods[m].alg;
            s.step_rule = methods[m].rule;
            s.projection = methods[m].proj;
            s.max_iter = ITERS;
            s.lmo_tol = 1e-13;
            s.cgbio_warmup_max_iter = 50;
            int ok = solve(pc, &s, &a) == 0 && solve(pw, &s, &b) == 0;
            CHECK(ok);
            if (ok) {
                CHECK(a.r.n == ITERS && b.r.n == ITERS);
                double worst = compare(&a, &b, (size_t)iw.n_rows * iw.n_cols, 1.0);
                printf("    %s, %s, %s: worst %.2g (tolerance %.0g)\n",
                       cols ? "columns" : "rows", o ? "1/2 ||X||^2" : "column variance",
                       methods[m].name, worst, TOL);
                CHECK(worst <= TOL);
                CHECK(a.it->rank == 0 || (a.it->row_ids != NULL) == (!cols));
            }
            run_free(&a);
            run_free(&b);
        }
        ircg_problem_free(pc);
        ircg_problem_free(pw);
    }
    ircg_ratings_free(R);
}

TEST(mc_compact, rows_without_ratings_give_the_whole_values)
{
    same_as_whole(0);
}

TEST(mc_compact, columns_without_ratings_give_the_whole_values)
{
    same_as_whole(1);
}

/* The instance, ten times taller: 10^8 rows, 50 columns, 1000
 * ratings.  The problem holds X0's 50 rows, the rows rated and the shared
 * one; generation, build and 5 iterations take well under a second. */
TEST(mc_compact, a_hundred_million_rows_solve_in_milliseconds)
{
    ircg_synth_ratings_spec sp = {.n_rows = 100000000, .n_cols = 50, .rank = 10,
                                  .n_ratings = 1000, .min_rating = 1, .max_rating = 5,
                                  .noise = 0.5, .seed = 9};
    ircg_ratings *R = NULL;
    ircg_problem *pb = NULL;
    ircg_solver *sv = NULL;
    ircg_settings s;
    ircg_info info;
    ircg_problem_info pi;
    double t0 = ircg_clock();
    REQUIRE(ircg_synth_ratings(&sp, &R, NULL) == IRCG_OK);
    REQUIRE(ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, 10, &pb, NULL) ==
            IRCG_OK);
    ircg_problem_get_info(pb, &pi);
    ircg_settings_default(&s);
    s.max_iter = 5;
    CHECK(ircg_solver_new(pb, &s, &sv, NULL) == IRCG_OK);
    CHECK(sv && ircg_solve(sv, &info) == IRCG_OK && info.iterations == 5);
    double dt = ircg_clock() - t0;
    printf("    held %d x %d of %d x %d; generated, built and solved in %.3f s\n",
           pi.held_rows, pi.held_cols, pi.n_rows, pi.n_cols, dt);
    CHECK(pi.held_rows <= 1000 + 50 + 1 && pi.held_cols == 50);
    CHECK(dt < 1.0);
    ircg_solver_free(sv);
    ircg_problem_free(pb);
    ircg_ratings_free(R);
}

/* A given start x0 (the whole matrix) on a compacted problem: it must
 * vanish on the rows without ratings, or (column variance) be one value
 * per column there; the problem holds it on the rows it keeps, and every
 * value is the whole problem's from the same x0.  (The held x0 has n
 * rows, not n_all: its SVD and its entries on Omega read it so.) */
TEST(mc_compact, a_given_start_gives_the_whole_values)
{
    const int n = 300, p = 30;
    ircg_ratings *R = padded(n, p, 0, 13);
    char *rated = calloc((size_t)n, 1);
    double *x0 = malloc((size_t)n * p * sizeof *x0);
    uint64_t seed = 17;
    REQUIRE(R && rated && x0);
    for (int64_t e = 0; e < R->nnz; e++)
        rated[R->row[e]] = 1;
    for (int o = 0; o < 2; o++) {
        ircg_outer_kind outer = o ? IRCG_OUTER_HALF_NORM_SQ : IRCG_OUTER_COLUMN_VARIANCE;
        ircg_problem *pc = NULL, *pw = NULL;
        for (int j = 0; j < p; j++) {
            double shared = o ? 0.0 : 0.01 * (double)(next(&seed) % 100);
            for (int i = 0; i < n; i++)
                x0[i + (size_t)j * n] = i < p || rated[i] ? 0.01 * (double)(next(&seed) % 100)
                                                          : shared;
        }
        REQUIRE(ircg_problem_matrix_completion(R, outer, 1e3, &pc, NULL) == IRCG_OK);
        REQUIRE(ircg_problem_matrix_completion_whole(R, outer, 1e3, &pw, NULL) == IRCG_OK);
        for (int m = 0; m < 2; m++) { /* IR-CG's workspace, IR-PG's */
            ircg_settings s;
            run a, b;
            ircg_settings_default(&s);
            s.algorithm = m ? IRCG_ALG_IRPG : IRCG_ALG_IRCG;
            s.start = IRCG_START_GIVEN;
            s.x0 = x0;
            s.max_iter = ITERS;
            s.lmo_tol = 1e-13;
            int ok = solve(pc, &s, &a) == 0 && solve(pw, &s, &b) == 0;
            CHECK(ok);
            if (ok) {
                double worst = compare(&a, &b, (size_t)n * p, 1.0);
                printf("    given x0, %s, %s: worst %.2g (tolerance %.0g)\n",
                       o ? "1/2 ||X||^2" : "column variance", m ? "irpg" : "ircg", worst, TOL);
                CHECK(worst <= TOL);
            }
            run_free(&a);
            run_free(&b);
        }
        ircg_problem_free(pc);
        ircg_problem_free(pw);
    }
    free(rated);
    free(x0);
    ircg_ratings_free(R);
}
