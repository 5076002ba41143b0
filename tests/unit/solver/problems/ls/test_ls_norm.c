/*
 * test_ls_norm.c -- L_g = ||A||_2^2 beyond the exact Gram path: the
 * Lanczos bound (ls_linalg.c) must be an upper bound and at most 1% above,
 * against dense LAPACK, on sparse matrices built to defeat the power
 * method: a top eigenvector of A'A orthogonal to its fixed start and a
 * cluster of eigenvalues just below the top one.
 */
/* make test-kernels: ls_norm. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "problems/ls/ls.h"

enum { NB = 200, N = 2 * NB };

typedef struct csr {
    int64_t rp[N + 1];
    int32_t ci[4 * NB];
    double v[4 * NB];
    double dense[N * N]; /* row-major */
} csr;

/* Block diagonal: block i is diag(sqrt(l1), sqrt(l2)) V_i' on columns
 * 2i, 2i+1, so A'A has eigenvalues l1, l2 with eigenvectors the columns of
 * V_i = [c -s; s c] (c = cos, s = sin of the block's angle). */
static void set_block(csr *A, int i, double l1, double l2, double c, double s)
{
    const double V[2][2] = {{c, -s}, {s, c}}; /* V[row][col] */
    const double d[2] = {sqrt(l1), sqrt(l2)};
    for (int r = 0; r < 2; r++) {
        int row = 2 * i + r;
        A->rp[row] = 4 * i + 2 * r;
        for (int q = 0; q < 2; q++) { /* (diag(d) V')[r][q] = d_r V[q][r] */
            A->ci[4 * i + 2 * r + q] = 2 * i + q;
            A->v[4 * i + 2 * r + q] = d[r] * V[q][r];
            A->dense[(size_t)row * N + 2 * i + q] = d[r] * V[q][r];
        }
    }
}

/* The fixed start of the power iteration this replaced. */
static double power_start(int j) { return 1.0 + 0.5 * sin(1.0 + j); }

static void make_hard(csr *A, double *lmax)
{
    uint64_t s = 17;
    memset(A, 0, sizeof *A);
    /* block 0: the top eigenvalue 1, eigenvector orthogonal to the start */
    double x0 = power_start(0), x1 = power_start(1), r = hypot(x0, x1);
    set_block(A, 0, 1.0, 0.2, x1 / r, -x0 / r);
    for (int i = 1; i < NB; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double phi = (double)(s >> 11) * 0x1.0p-53 * 6.283185307179586;
        /* 30 eigenvalues clustered in [0.999, 0.9995), the rest <= 0.5 */
        double l1 = i <= 30 ? 0.999 + 0.0005 * i / 31.0 : 0.1 + 0.4 * i / NB;
        set_block(A, i, l1, 0.5 * l1, cos(phi), sin(phi));
    }
    A->rp[N] = 4 * NB;
    /* independent: the largest eigenvalue of the dense A'A by LAPACK */
    double *G = calloc((size_t)N * N, sizeof *G), w[N];
    for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++)
            for (int k = 0; k < N; k++)
                G[(size_t)a * N + b] += A->dense[(size_t)k * N + a] *
                                        A->dense[(size_t)k * N + b];
    *lmax = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', N, G, N, w) == 0 ? w[N - 1] : NAN;
    free(G);
}

/* The replaced estimate: power iteration on A'A from power_start, stopped
 * when the Rayleigh quotient mu changes by <= 1e-13 mu, and (mu + ||A'A x
 * - mu x||) (1 + 1e-6). */
static double old_power_estimate(const csr *A)
{
    double x[N], y[N], ax[N], mu = 0, rho = 0, nx = 0;
    for (int j = 0; j < N; j++)
        nx += power_start(j) * power_start(j);
    for (int j = 0; j < N; j++)
        x[j] = power_start(j) / sqrt(nx);
    for (int it = 0; it < 3000; it++) {
        for (int i = 0; i < N; i++) {
            ax[i] = 0;
            for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
                ax[i] += A->v[k] * x[A->ci[k]];
        }
        memset(y, 0, sizeof y);
        for (int i = 0; i < N; i++)
            for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
                y[A->ci[k]] += A->v[k] * ax[i];
        double m2 = 0, r2 = 0, ny = 0;
        for (int j = 0; j < N; j++)
            m2 += x[j] * y[j];
        for (int j = 0; j < N; j++) {
            r2 += (y[j] - m2 * x[j]) * (y[j] - m2 * x[j]);
            ny += y[j] * y[j];
        }
        int done = fabs(m2 - mu) <= 1e-13 * m2;
        mu = m2;
        rho = sqrt(r2);
        if (done)
            break;
        for (int j = 0; j < N; j++)
            x[j] = y[j] / sqrt(ny);
    }
    return (mu + rho) * (1 + 1e-6);
}

static double lanczos_bound(const csr *A, const double *dense)
{
    double b[N] = {0}, out = NAN;
    ircg_ls_data d = {.m = N, .n = N, .b = b};
    if (dense)
        d.A_dense = dense;
    else
        d.A_rowptr = A->rp, d.A_colind = A->ci, d.A_val = A->v;
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {IRCG_DOMAIN_L2_BALL, 1, 0, 0};
    ircg_problem *pb = NULL;
    if (ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) != IRCG_OK)
        return NAN;
    if (ls_norm2_sq_lanczos(pb->data, &out) != IRCG_OK)
        out = NAN;
    ircg_problem_free(pb);
    return out;
}

TEST(ls_norm, lanczos_bound_where_the_power_method_fails)
{
    static csr A;
    double lmax;
    make_hard(&A, &lmax);
    REQUIRE(fabs(lmax - 1.0) < 1e-12);
    /* the instance is hard: the old estimate misses the top eigenvalue */
    double old = old_power_estimate(&A);
    double lz = lanczos_bound(&A, NULL), lzd = lanczos_bound(&A, A.dense);
    printf("    lambda_max %.15f, old power estimate %.15f, Lanczos bound %.15f "
           "(dense storage %.15f)\n", lmax, old, lz, lzd);
    CHECK(old < lmax);
    CHECK(lz >= lmax);
    CHECK(lz <= lmax * 1.0102); /* theta <= lambda_max, margin 1/(1 - 0.01) */
    CHECK(lzd >= lmax && lzd <= lmax * 1.0102);
}

/* Through the public path: a CSR matrix too large for the exact Gram
 * eigenvalues, with the same hard block structure repeated; the bound the
 * problem reports must hold and be no worse than the Lanczos one. */
TEST(ls_norm, public_bound_for_large_sparse)
{
    enum { REP = 12 }; /* 12 copies: 4800 x 4800, beyond GRAM_MAX_DIM */
    static csr A;
    double lmax;
    make_hard(&A, &lmax);
    int m = REP * N;
    int64_t *rp = malloc((size_t)(m + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)REP * 4 * NB * sizeof *ci);
    double *v = malloc((size_t)REP * 4 * NB * sizeof *v), *b = calloc((size_t)m, sizeof *b);
    REQUIRE(rp && ci && v && b);
    for (int r = 0; r < REP; r++) {
        for (int i = 0; i < N; i++)
            rp[r * N + i] = r * 4 * NB + A.rp[i];
        for (int k = 0; k < 4 * NB; k++) {
            ci[r * 4 * NB + k] = r * N + A.ci[k];
            v[r * 4 * NB + k] = A.v[k] * (r == REP - 1 ? 1.0 : 0.999);
        }
    }
    rp[m] = REP * 4 * NB;
    ircg_ls_data d = {.m = m, .n = m, .A_rowptr = rp, .A_colind = ci, .A_val = v, .b = b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {IRCG_DOMAIN_L2_BALL, 1, 0, 0};
    ircg_problem *pb = NULL;
    ircg_problem_info in;
    REQUIRE(ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) == IRCG_OK);
    ircg_problem_get_info(pb, &in);
    /* blocks scaled by 0.999 have eigenvalues 0.999^2 x those of A: the
     * top one is the last copy's, lmax */
    printf("    L_g %.15f for lambda_max %.15f\n", in.L_g, lmax);
    CHECK(in.L_g >= lmax);
    CHECK(in.L_g <= lmax * 1.0102);
    ircg_problem_free(pb);
    free(rp);
    free(ci);
    free(v);
    free(b);
}

/* Many rows of few columns, too many to densify (m n > 4e6): A'A summed
 * row by row gives lambda_max to rounding, inside the Lanczos bound's
 * interval [theta, theta / (1 - 0.01)] and the other way round: the exact
 * value is within 1.02% below that bound.  The rows: 3 entries on columns
 * i mod 500, (i + 7) mod 500, (i + 31) mod 500 of 20000 rows. */
TEST(ls_norm, sparse_gram_of_many_rows)
{
    enum { M = 20000, NC = 500, K = 3 };
    int64_t *rp = malloc((M + 1) * sizeof *rp);
    int32_t *ci = malloc(M * K * sizeof *ci);
    double *v = malloc(M * K * sizeof *v), *b = calloc(M, sizeof *b);
    REQUIRE(rp && ci && v && b);
    uint64_t s = 7;
    for (int i = 0; i <= M; i++)
        rp[i] = (int64_t)i * K;
    for (int i = 0; i < M; i++) {
        int c[K] = {i % NC, (i + 7) % NC, (i + 31) % NC};
        for (int a = 0; a < K; a++) { /* ascending, distinct */
            for (int e = a + 1; e < K; e++)
                if (c[e] < c[a]) {
                    int t = c[a];
                    c[a] = c[e];
                    c[e] = t;
                }
            ci[i * K + a] = c[a];
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            v[i * K + a] = (double)(s >> 11) / 9007199254740992.0 - 0.3;
        }
    }
    ircg_ls_data d = {.m = M, .n = NC, .A_rowptr = rp, .A_colind = ci, .A_val = v, .b = b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {IRCG_DOMAIN_L2_BALL, 1, 0, 0};
    ircg_problem *pb = NULL;
    ircg_problem_info in;
    double lz = NAN;
    REQUIRE(ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) == IRCG_OK);
    ircg_problem_get_info(pb, &in);
    REQUIRE(ls_norm2_sq_lanczos(pb->data, &lz) == IRCG_OK);
    printf("    L_g (A'A row by row) %.15g, Lanczos bound %.15g\n", in.L_g, lz);
    CHECK(in.L_g <= lz * (1 + 1e-12));
    CHECK(in.L_g >= lz * (1 - 0.0102));
    ircg_problem_free(pb);
    free(rp);
    free(ci);
    free(v);
    free(b);
}
