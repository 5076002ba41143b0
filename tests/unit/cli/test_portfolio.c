/*
 * test_portfolio.c -- `ircg example portfolio`: its outer objective has
 * something to select.  The inner solution set is the polytope P = {x in
 * the simplex, A x = b} (b the returns over A's periods of a benchmark
 * whose weights grow with the asset's volatility, (j + 1) over their sum,
 * clients/cli/examples_families.c); f = 1/2 x'Qx, Q the covariance over
 * a longer history.
 *
 * On the small example (6 periods, 12 assets) the reference is brute force
 * (as in test_ls_simplex.c): f's minimum over P is the least f among the
 * feasible stationary points of P's faces, each the KKT system of its
 * support solved by LAPACK; P's vertices (supports of size m + 1) are two
 * or more inner solutions with different f.  IR-CG run on the example's
 * own spec ends at the minimum-variance one, not merely in P.  On the full
 * example (20 periods, 40 assets) f differs between the benchmark and
 * another point of P, found along a direction of the null space of [A; 1'],
 * and IR-CG ends far below the benchmark's f.
 */
/* make test-kernels: portfolio. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "spec.h"
#include "common/test_cli_util.h"

typedef struct pf {
    int m, n;
    double *A, *b, *Q; /* m x n, m, n x n: row-major */
    char *text;        /* the spec */
} pf;

static int read_rows(const cJSON *rows, double *out, int r, int c)
{
    if (cJSON_GetArraySize(rows) != r)
        return -1;
    for (int i = 0; i < r; i++) {
        const cJSON *row = cJSON_GetArrayItem(rows, i);
        if (c > 0 && cJSON_GetArraySize(row) != c)
            return -1;
        for (int j = 0; j < (c > 0 ? c : 1); j++)
            out[(size_t)i * (c > 0 ? c : 1) + j] =
                c > 0 ? cJSON_GetArrayItem(row, j)->valuedouble : row->valuedouble;
    }
    return 0;
}

/* `ircg example portfolio [--size small]` and its A, b, Q; 0 on success. */
static int load(pf *P, const char *bin, int small)
{
    char *out = tcli_tmp(small ? "portfolio_small.json" : "portfolio.json");
    char *args[] = {(char *)bin, "example", "portfolio", "--size", small ? "small" : "full",
                    NULL};
    memset(P, 0, sizeof *P);
    if (tcli_run(args, out) != 0 || !(P->text = tcli_read_text(out)))
        return -1;
    cJSON *s = cJSON_Parse(P->text);
    const cJSON *pb = cJSON_GetObjectItem(s, "problem"), *d = cJSON_GetObjectItem(pb, "data");
    const cJSON *A = cJSON_GetObjectItem(d, "A");
    P->m = cJSON_GetArraySize(A);
    P->n = cJSON_GetArraySize(cJSON_GetArrayItem(A, 0));
    P->A = malloc((size_t)P->m * P->n * sizeof *P->A);
    P->b = malloc((size_t)P->m * sizeof *P->b);
    P->Q = malloc((size_t)P->n * P->n * sizeof *P->Q);
    int rc = P->m > 0 && P->n > P->m && P->A && P->b && P->Q &&
                     read_rows(A, P->A, P->m, P->n) == 0 &&
                     read_rows(cJSON_GetObjectItem(d, "b"), P->b, P->m, 0) == 0 &&
                     read_rows(cJSON_GetObjectItem(cJSON_GetObjectItem(pb, "outer"), "Q"),
                               P->Q, P->n, P->n) == 0
                 ? 0 : -1;
    cJSON_Delete(s);
    return rc;
}

static void pf_free(pf *P)
{
    free(P->A);
    free(P->b);
    free(P->Q);
    free(P->text);
}

static double f_of(const pf *P, const double *x)
{
    double f = 0;
    for (int j = 0; j < P->n; j++)
        for (int k = 0; k < P->n; k++)
            f += 0.5 * x[j] * P->Q[(size_t)j * P->n + k] * x[k];
    return f;
}

/* max |A x - b|, and how far x is from the simplex (its most negative
 * entry, |sum x - 1|). */
static double infeasibility(const pf *P, const double *x)
{
    double worst = 0, sum = 0;
    for (int i = 0; i < P->m; i++) {
        double r = -P->b[i];
        for (int j = 0; j < P->n; j++)
            r += P->A[(size_t)i * P->n + j] * x[j];
        worst = fmax(worst, fabs(r));
    }
    for (int j = 0; j < P->n; j++) {
        worst = fmax(worst, -x[j]);
        sum += x[j];
    }
    return fmax(worst, fabs(sum - 1));
}

typedef struct brute {
    double f_star, f_hi; /* f's minimum over P; its largest at a vertex */
    double *x_star, *x_hi;
    int vertices;
} brute;

/* The stationary point of f on the face of support S (C = [A; 1'], d =
 * [b; 1]) into x when it is feasible; its f, or NaN. */
static double face(const pf *P, unsigned S, double *x)
{
    int m = P->m, n = P->n, k = m + 1, idx[32], s = 0;
    for (int j = 0; j < n; j++)
        if (S >> j & 1)
            idx[s++] = j;
    int dim = s + k;
    double *K = calloc((size_t)dim * dim, sizeof *K), *Kc = malloc((size_t)dim * dim * sizeof *Kc);
    double *rhs = calloc((size_t)dim, sizeof *rhs), *sol = malloc((size_t)dim * sizeof *sol);
    double *sv = malloc((size_t)dim * sizeof *sv), f = NAN;
    lapack_int rank;
    if (!K || !Kc || !rhs || !sol || !sv)
        goto out;
    for (int a = 0; a < s; a++) {
        for (int c = 0; c < s; c++)
            K[a * dim + c] = P->Q[(size_t)idx[a] * n + idx[c]];
        for (int r = 0; r < k; r++) {
            double cr = r < m ? P->A[(size_t)r * n + idx[a]] : 1;
            K[a * dim + s + r] = K[(s + r) * dim + a] = cr;
        }
    }
    for (int r = 0; r < k; r++)
        rhs[s + r] = r < m ? P->b[r] : 1;
    memcpy(Kc, K, (size_t)dim * dim * sizeof *K);
    memcpy(sol, rhs, (size_t)dim * sizeof *rhs);
    if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, dim, dim, 1, Kc, dim, sol, 1, sv, 1e-12, &rank))
        goto out;
    double res = 0, scale = 1;
    for (int r = 0; r < dim; r++) { /* consistent: the face has a stationary point */
        double t = -rhs[r];
        for (int c = 0; c < dim; c++)
            t += K[r * dim + c] * sol[c];
        res = fmax(res, fabs(t));
        scale = fmax(scale, fabs(rhs[r]));
    }
    memset(x, 0, (size_t)n * sizeof *x);
    int feasible = res <= 1e-10 * scale;
    for (int a = 0; a < s; a++) {
        x[idx[a]] = sol[a];
        feasible &= sol[a] >= -1e-12;
    }
    if (feasible)
        f = f_of(P, x);
out:
    free(K);
    free(Kc);
    free(rhs);
    free(sol);
    free(sv);
    return f;
}

static void brute_force(const pf *P, brute *B)
{
    double *x = malloc((size_t)P->n * sizeof *x);
    B->f_star = INFINITY;
    B->f_hi = -INFINITY;
    B->vertices = 0;
    B->x_star = calloc((size_t)P->n, sizeof *B->x_star);
    B->x_hi = calloc((size_t)P->n, sizeof *B->x_hi);
    for (unsigned S = 1; x && B->x_star && B->x_hi && S < (1u << P->n); S++) {
        double f = face(P, S, x);
        if (isnan(f))
            continue;
        if (__builtin_popcount(S) == P->m + 1) { /* a vertex of P */
            B->vertices++;
            if (f > B->f_hi) {
                B->f_hi = f;
                memcpy(B->x_hi, x, (size_t)P->n * sizeof *x);
            }
        }
        if (f < B->f_star) {
            B->f_star = f;
            memcpy(B->x_star, x, (size_t)P->n * sizeof *x);
        }
    }
    free(x);
}

/* The example's own spec solved for `iters` iterations (0: its own
 * max_iter) with step rule `rule`: the result, and z. */
static int solve(const pf *P, ircg_step_rule rule, int64_t iters, ircg_info *info, double *z)
{
    api_spec *s = NULL;
    ircg_solver *sv = NULL;
    ircg_iterate *it = NULL;
    ircg_settings set;
    int ok = api_spec_parse(P->text, strlen(P->text), NULL, &s, NULL) == 0 && s;
    if (ok) {
        api_spec_settings(s, &set);
        set.step_rule = rule;
        if (iters > 0)
            set.max_iter = iters;
        set.time_limit = 0;
        ok = ircg_solver_new(api_spec_problem(s), &set, &sv, NULL) == IRCG_OK &&
             ircg_solve(sv, info) == IRCG_OK &&
             ircg_solver_iterate(sv, IRCG_Z, 1, &it) == IRCG_OK && it->dim == P->n;
    }
    if (ok)
        memcpy(z, it->dense, (size_t)P->n * sizeof *z);
    ircg_iterate_free(it);
    ircg_solver_free(sv);
    api_spec_free(s);
    return ok ? 0 : -1;
}

static double dist(const double *a, const double *b, int n)
{
    double s = 0;
    for (int j = 0; j < n; j++)
        s += (a[j] - b[j]) * (a[j] - b[j]);
    return sqrt(s);
}

/* The benchmark's weights, an exact fit by construction. */
static void benchmark(const pf *P, double *x)
{
    for (int j = 0; j < P->n; j++)
        x[j] = 2.0 * (j + 1) / ((double)P->n * (P->n + 1));
}

/* 1/2 ||b||^2: g at x = 0, the scale of g on the simplex's vertices. */
static double g_scale(const pf *P)
{
    double s = 0;
    for (int i = 0; i < P->m; i++)
        s += 0.5 * P->b[i] * P->b[i];
    return s;
}

/* The small example: inner solutions with different f (the vertices of P
 * and the benchmark), and IR-CG ending at the brute-force minimizer x*
 * for each step rule -- g(z) ~ 0, f(z) near f* against the spread of f
 * over P, z nearer x* than the vertex of largest f.  The tolerances of
 * f are measurements with headroom (the method's rate at the example's
 * varsigma, not a bound), printed beside what was measured: after 2e5
 * iterations |f(z) - f*| / spread was 0.0099 (open loop), 0.047 (closed
 * loop), 0.0035 (line search). */
TEST(portfolio, small_example_selects_the_least_variance)
{
    NEED_CLI();
    pf P;
    brute B;
    REQUIRE(load(&P, bin, 1) == 0);
    REQUIRE(P.n <= 16);
    brute_force(&P, &B);
    REQUIRE(isfinite(B.f_star) && B.vertices >= 2);
    double *xb = malloc((size_t)P.n * sizeof *xb), *z = malloc((size_t)P.n * sizeof *z);
    REQUIRE(xb && z);
    benchmark(&P, xb);
    double spread = B.f_hi - B.f_star, f_b = f_of(&P, xb);
    printf("    %d periods x %d assets: %d vertices of the inner solution set; f* %.6g (brute "
           "force), f %.6g at the vertex of largest f, %.6g at the benchmark\n", P.m, P.n,
           B.vertices, B.f_star, B.f_hi, f_b);
    /* inner solutions (in the simplex, A x = b) with different f */
    CHECK(infeasibility(&P, B.x_star) <= 1e-12);
    CHECK(infeasibility(&P, B.x_hi) <= 1e-12);
    CHECK(infeasibility(&P, xb) <= 1e-12);
    CHECK(spread >= 0.5 * B.f_star);
    CHECK(f_b - B.f_star >= 0.1 * spread);
    static const char *const names[3] = {"open loop", "closed loop", "line search"};
    for (int rule = 0; rule < 3; rule++) {
        ircg_info in;
        char what[160];
        REQUIRE(solve(&P, (ircg_step_rule)rule, 200000, &in, z) == 0);
        printf("    %s: g(z) %.3g, f(z) - f* %.3g, |z - x*| %.3g, |z - x_hi| %.3g\n",
               names[rule], in.g_z, in.f_z - B.f_star, dist(z, B.x_star, P.n),
               dist(z, B.x_hi, P.n));
        CHECK(in.g_z <= 1e-6 * g_scale(&P));
        snprintf(what, sizeof what, "%s, 2e5 iterations: |f(z) - f*| / spread", names[rule]);
        CHECK_MEASURED(what, fabs(in.f_z - B.f_star) / spread, 0.1);
        CHECK(dist(z, B.x_star, P.n) <= 0.5 * dist(B.x_hi, B.x_star, P.n));
    }
    free(xb);
    free(z);
    free(B.x_star);
    free(B.x_hi);
    pf_free(&P);
}

/* The steepest descent of f within P's affine hull at x: d = -N N' Q x,
 * N an orthonormal basis of the null space of C = [A; 1'] (the last n - m
 * - 1 right singular vectors). */
static int descent_direction(const pf *P, const double *x, double *d)
{
    int k = P->m + 1, n = P->n;
    double *C = malloc((size_t)k * n * sizeof *C), *s = malloc((size_t)k * sizeof *s);
    double *vt = malloc((size_t)n * n * sizeof *vt), *sup = malloc((size_t)k * sizeof *sup);
    double *gr = malloc((size_t)n * sizeof *gr);
    int rc = -1;
    if (C && s && vt && sup && gr) {
        for (int i = 0; i < k; i++)
            for (int j = 0; j < n; j++)
                C[(size_t)i * n + j] = i < P->m ? P->A[(size_t)i * n + j] : 1;
        rc = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', k, n, C, n, s, NULL, 1, vt, n, sup);
    }
    if (rc == 0) {
        for (int j = 0; j < n; j++) {
            gr[j] = 0;
            for (int l = 0; l < n; l++)
                gr[j] += P->Q[(size_t)j * n + l] * x[l];
            d[j] = 0;
        }
        for (int r = k; r < n; r++) { /* rows k.. of V': the null space */
            const double *v = vt + (size_t)r * n;
            double c = 0;
            for (int j = 0; j < n; j++)
                c += v[j] * gr[j];
            for (int j = 0; j < n; j++)
                d[j] -= c * v[j];
        }
    }
    free(C);
    free(s);
    free(vt);
    free(sup);
    free(gr);
    return rc == 0 ? 0 : -1;
}

/* The full example (too large for brute force): from the benchmark, an
 * exact fit, along f's steepest descent within P's affine hull to the
 * simplex's boundary, another exact fit of lower f; and IR-CG, run as the
 * example says (open loop, its 50000 iterations), ends near P at an f
 * below the benchmark's (measured: 0.74 of it; 1.07 after 5000
 * iterations, where f has not come down yet). */
TEST(portfolio, full_example_has_something_to_select)
{
    NEED_CLI();
    pf P;
    REQUIRE(load(&P, bin, 0) == 0);
    double *xb = malloc((size_t)P.n * sizeof *xb), *d = malloc((size_t)P.n * sizeof *d);
    double *x = malloc((size_t)P.n * sizeof *x), t = INFINITY;
    REQUIRE(xb && d && x);
    benchmark(&P, xb);
    REQUIRE(descent_direction(&P, xb, d) == 0);
    for (int j = 0; j < P.n; j++) /* as far as the simplex allows */
        if (d[j] < 0)
            t = fmin(t, -xb[j] / d[j]);
    REQUIRE(isfinite(t));
    for (int j = 0; j < P.n; j++)
        x[j] = fmax(xb[j] + t * d[j], 0.0);
    double f_b = f_of(&P, xb), f_x = f_of(&P, x);
    printf("    %d periods x %d assets: f %.6g at the benchmark, %.6g at another exact fit "
           "(infeasibility %.2g)\n", P.m, P.n, f_b, f_x, infeasibility(&P, x));
    CHECK(infeasibility(&P, xb) <= 1e-12);
    CHECK(infeasibility(&P, x) <= 1e-12);
    CHECK(f_x <= 0.9 * f_b);
    ircg_info in;
    REQUIRE(solve(&P, IRCG_STEP_OPEN_LOOP, 0, &in, x) == 0);
    printf("    IR-CG as the example says (%lld iterations): g(z) %.3g, f(z) %.6g, %.3g of the "
           "benchmark's\n", (long long)in.iterations, in.g_z, in.f_z, in.f_z / f_b);
    CHECK(in.g_z <= 1e-6 * g_scale(&P));
    CHECK(in.f_z < f_b);
    free(xb);
    free(d);
    free(x);
    pf_free(&P);
}
