/*
 * test_ls_simplex.c -- least squares over the simplex, portfolio-like: the
 * returns A of n assets over m < n periods, a target b = A x_b that the
 * portfolio x_b in the simplex's interior reproduces exactly, so g* = 0 and
 * the inner solution set {x >= 0, sum x = 1, A x = b} is a polytope of
 * dimension n - m - 1; the outer objective 1/2 x'Qx (Q a covariance,
 * shrunk towards the identity so that it is positive definite) picks the
 * minimum-variance portfolio among them.
 *
 * The reference is brute force: the minimum of the convex quadratic over
 * that polytope is the least, over every support S, of the stationary
 * points of its face {x_S >= 0, x_(not S) = 0, C x = d} (C = [A; 1'],
 * d = [b; 1]) that are feasible: the KKT system [Q_SS C_S'; C_S 0] solved
 * by LAPACK (least squares: a consistent solution is the face's minimizer).
 */
/* make test-kernels: ls_simplex. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "test_cert.h"
#include "test_num.h"

enum { M = 3, N = 7, K = M + 1 };

typedef struct pf {
    double A[M * N], b[M], Q[N * N], xb[N];
} pf;

static void make(pf *P, uint64_t s)
{
    double mu[N] = {0}, w = 0;
    for (int i = 0; i < M * N; i++)
        P->A[i] = 5 + 10 * test_urand(&s); /* returns around 5%, in percent */
    for (int j = 0; j < N; j++)
        w += P->xb[j] = 1.5 + test_urand(&s);
    for (int j = 0; j < N; j++)
        P->xb[j] /= w;
    for (int i = 0; i < M; i++) {
        P->b[i] = 0;
        for (int j = 0; j < N; j++) {
            P->b[i] += P->A[i * N + j] * P->xb[j];
            mu[j] += P->A[i * N + j] / M;
        }
    }
    for (int j = 0; j < N; j++)
        for (int k = 0; k < N; k++) {
            double c = 0;
            for (int i = 0; i < M; i++)
                c += (P->A[i * N + j] - mu[j]) * (P->A[i * N + k] - mu[k]) / M;
            P->Q[j * N + k] = c + (j == k ? 1.0 : 0); /* shrinkage */
        }
}

/* min 1/2 x'Qx over {x >= 0, A x = b, 1'x = 1} by enumerating supports;
 * *f_hi = the largest f at a vertex (support of size K), i.e. its maximum
 * over the polytope (convex f: at a vertex), for the spread of f. */
static double brute_force(const pf *P, double *xbest, double *f_hi)
{
    double best = INFINITY;
    *f_hi = -INFINITY;
    for (unsigned S = 1; S < (1u << N); S++) {
        int idx[N], s = 0;
        for (int j = 0; j < N; j++)
            if (S >> j & 1)
                idx[s++] = j;
        int dim = s + K;
        double Kk[(N + K) * (N + K)] = {0}, rhs[N + K] = {0}, sv[N + K];
        for (int a = 0; a < s; a++) {
            for (int c = 0; c < s; c++)
                Kk[a * dim + c] = P->Q[idx[a] * N + idx[c]];
            for (int r = 0; r < K; r++) {
                double cr = r < M ? P->A[r * N + idx[a]] : 1;
                Kk[a * dim + s + r] = Kk[(s + r) * dim + a] = cr;
            }
        }
        for (int r = 0; r < K; r++)
            rhs[s + r] = r < M ? P->b[r] : 1;
        double Kc[(N + K) * (N + K)], sol[N + K];
        memcpy(Kc, Kk, sizeof Kc);
        memcpy(sol, rhs, sizeof sol);
        lapack_int rank;
        if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, dim, dim, 1, Kc, dim, sol, 1, sv, 1e-12, &rank))
            continue;
        double x[N] = {0}, res = 0, f = 0;
        int feasible = 1;
        for (int a = 0; a < s; a++) {
            x[idx[a]] = sol[a];
            feasible &= sol[a] >= -1e-12;
        }
        for (int r = 0; r < dim; r++) { /* consistency: K sol = rhs */
            double t = -rhs[r];
            for (int c = 0; c < dim; c++)
                t += Kk[r * dim + c] * sol[c];
            res = fmax(res, fabs(t));
        }
        if (!feasible || res > 1e-12)
            continue;
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                f += 0.5 * x[j] * P->Q[j * N + k] * x[k];
        if (s == K)
            *f_hi = fmax(*f_hi, f);
        if (f < best) {
            best = f;
            memcpy(xbest, x, sizeof x);
        }
    }
    return best;
}

/* The run's info, and g of its final x and z summed here (test_cert.h). */
static void run(const ircg_problem *pb, const cert_data *cd, ircg_algorithm alg,
                ircg_step_rule rule, int T, ircg_info *info, double *g_x, double *g_z)
{
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_settings_default(&s);
    s.algorithm = alg;
    s.step_rule = rule;
    s.varsigma = 1;
    s.max_iter = T;
    s.g_opt = 0;
    s.cgbio_eps_g = 1e-8;
    if (ircg_solver_new(pb, &s, &sv, NULL) != IRCG_OK || ircg_solve(sv, info) != IRCG_OK)
        info->iterations = -1;
    cert_iterates_g(sv, cd, g_x, g_z);
    ircg_solver_free(sv);
}

TEST(ls_simplex, minimum_variance_among_the_exact_fits)
{
    pf P;
    double xs[N], f_max, g0 = 0;
    make(&P, 5);
    double f_star = brute_force(&P, xs, &f_max);
    REQUIRE(isfinite(f_star) && f_max > f_star);
    for (int i = 0; i < M; i++) { /* g at the start, the simplex's center */
        double r = -P.b[i];
        for (int j = 0; j < N; j++)
            r += P.A[i * N + j] / N;
        g0 += 0.5 * r * r;
    }
    ircg_ls_data d = {.m = M, .n = N, .A_dense = P.A, .b = P.b};
    ircg_outer o = {.kind = IRCG_OUTER_QUADRATIC, .Q = P.Q};
    ircg_domain dom = {IRCG_DOMAIN_SIMPLEX, 1, 0, 0};
    ircg_problem *pb = NULL;
    cert_data cd = {.A = P.A, .b = P.b, .m = M, .n = N};
    REQUIRE(ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) == IRCG_OK);
    printf("    f* %.10g (brute force), largest f on X_opt %.10g: x* =", f_star, f_max);
    for (int j = 0; j < N; j++)
        printf(" %.4f", xs[j]);
    printf("\n");
    for (int rule = 0; rule < 3; rule++) {
        ircg_info in;
        double gx, gz;
        run(pb, &cd, IRCG_ALG_IRCG, (ircg_step_rule)rule, 100000, &in, &gx, &gz);
        REQUIRE(in.iterations == 100000);
        printf("    IR-CG rule %d: g(z) %.3g (g(x_0) %.3g), f(z) - f* %.3g\n", rule, in.g_z, g0,
               in.f_z - f_star);
        /* measured after 10^5 steps: g(z) <= 4.7e-6 g(x_0), |f(z) - f*| <=
         * 0.029 of the spread of f over X_opt (a method that ignored f could
         * end anywhere in it) */
        CHECK_MEASURED("g(z) / g(x_0)", in.g_z / g0, 5e-5);
        CHECK_MEASURED("|f(z) - f*| / spread of f over X_opt",
                       fabs(in.f_z - f_star) / (f_max - f_star), 0.1);
        /* g* = 0 exactly (b = A x_b); f* from the KKT solve, whose residual
         * brute_force holds to 1e-12 */
        check_cert_brackets("IR-CG", &in, gx, gz, 0, f_star, 1e-10);
    }
    ircg_problem_free(pb);
}
