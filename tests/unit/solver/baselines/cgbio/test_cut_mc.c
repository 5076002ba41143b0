/*
 * test_cut_mc.c -- CG-BiO's oracle on the nuclear ball (SNB-LO / NB-BLO)
 * against dense brute force written here with LAPACK:
 *
 *   min <C, V>  s.t.  ||V||_* <= delta,  <A, V> <= b = <A, X> + slack.
 *
 * Under Slater's condition the optimal value is the dual value
 * max_{l >= 0} -delta sigma_max(C + l A) - l b (strong duality), found here
 * by golden section on dense SVDs.  Without it the feasible set is the face
 * argmin <A, .> of Lemma A.2, and the optimum over it is computed from the
 * top right singular subspace of A.  V itself is read back by a step of
 * length 1 (x <- V) and checked for feasibility by a dense SVD.
 *
 * Instances have all entries observed and outer 1/2||X||^2, so that C = X
 * and A = X - M can be chosen freely (M = X - A), except one at an advanced
 * iterate of a random partially observed instance with the column-variance
 * outer.
 */
/* make test-kernels: cut_mc. */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "problems/mc/mc.h"
#include "unit/solver/test_mc_util.h"

#define NMAX 40
#define PMAX 40

static double dotn(const double *a, const double *b, size_t n)
{
    return mct_dot(a, b, n);
}

/* All singular values (descending) and the right singular vectors as the
 * rows of Vt (m x p, m = min(n, p)). */
static int svd_full(int n, int p, const double *A, double *s, double *Vt)
{
    int m = n < p ? n : p;
    double T[NMAX * PMAX], U[NMAX * PMAX], sup[PMAX];
    memcpy(T, A, (size_t)n * p * sizeof *T);
    return LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', Vt ? 'S' : 'N', n, p, T, n, s, U, n,
                          Vt ? Vt : U, Vt ? m : 1, sup);
}

static double sigmax(int n, int p, const double *A)
{
    double s[PMAX];
    svd_full(n, p, A, s, NULL);
    return s[0];
}

static double nuclear(int n, int p, const double *A)
{
    double s[PMAX], t = 0;
    int m = n < p ? n : p;
    svd_full(n, p, A, s, NULL);
    for (int i = 0; i < m; i++)
        t += s[i];
    return t;
}

/* h(l) = delta sigma_max(C + l A) + b l */
static double h_dual(int n, int p, const double *C, const double *A, double b,
                     double delta, double l)
{
    double P[NMAX * PMAX];
    for (int e = 0; e < n * p; e++)
        P[e] = C[e] + l * A[e];
    return delta * sigmax(n, p, P) + b * l;
}

/* max_{l >= 0} -h(l) by golden section on [0, 2 delta sC / (b + delta sA)]
 * (the paper's bound) down to the last bits; *lam = the maximizer.
 *
 * Whether lambda* = 0 is a discrete decision made on computed values of h,
 * each wrong by up to N eps (delta sigma_max(C + l A) + |b| l) with N = n + p
 * (a dense SVD's backward error).  Near lambda* = 0 the golden section
 * ends at an l of order 1e-16 hi, where h(l) - h(0) is below that rounding
 * and may come out negative on one BLAS and positive on another.  So 0 is
 * the answer when h(0) is within twice that bound of the best h found: a
 * maximizer that gains less than rounding over l = 0 is not told apart. */
static double dual_value(int n, int p, const double *C, const double *A, double b,
                         double delta, double *lam)
{
    double sC = sigmax(n, p, C), sA = sigmax(n, p, A);
    double lo = 0, hi = 2 * delta * sC / (b + delta * sA);
    const double g = 0.5 * (sqrt(5.0) - 1);
    double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
    double f1 = h_dual(n, p, C, A, b, delta, x1), f2 = h_dual(n, p, C, A, b, delta, x2);
    for (int it = 0; it < 300 && hi - lo > 1e-16 * hi; it++) {
        if (f1 <= f2) {
            hi = x2, x2 = x1, f2 = f1;
            x1 = hi - g * (hi - lo);
            f1 = h_dual(n, p, C, A, b, delta, x1);
        } else {
            lo = x1, x1 = x2, f1 = f2;
            x2 = lo + g * (hi - lo);
            f2 = h_dual(n, p, C, A, b, delta, x2);
        }
    }
    double h0 = h_dual(n, p, C, A, b, delta, 0), hm = fmin(f1, f2);
    double lm = f1 <= f2 ? x1 : x2;
    double h_err = 16.0 * (n + p) * DBL_EPSILON * (delta * (sC + lm * sA) + fabs(b) * lm);
    *lam = h0 <= hm + 2 * h_err ? 0 : lm;
    return -fmin(h0, hm);
}

/* How far the golden section's maximizer may sit from lambda* > 0 where h
 * is smooth: it stops where h differs from h(lambda*) by its rounding
 * h_err, i.e. within sqrt(2 h_err / h'') of it (twice that for the
 * solver's side and the curvature's finite-difference estimate).  The
 * solver bisects on the sign of a subgradient, to the last bits. */
static double lambda_tol(int n, int p, const double *C, const double *A, double b,
                         double delta, double lam)
{
    double sC = sigmax(n, p, C), sA = sigmax(n, p, A), s = 1e-3 * lam;
    double h2 = (h_dual(n, p, C, A, b, delta, lam + s) - 2 * h_dual(n, p, C, A, b, delta, lam) +
                 h_dual(n, p, C, A, b, delta, lam - s)) / (s * s);
    double h_err = 16.0 * (n + p) * DBL_EPSILON * (delta * (sC + lam * sA) + fabs(b) * lam);
    return 4 * sqrt(2 * h_err / fmax(h2, DBL_MIN));
}

static void random_orthogonal(int m, uint64_t *seed, double *Q)
{
    double tau[NMAX];
    for (int e = 0; e < m * m; e++)
        Q[e] = mct_urand(seed);
    LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, m, Q, m, tau);
    LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, m, m, Q, m, tau);
}

/* B = U diag(d) W' with U (n x n), W (p x p) orthogonal. */
static void with_singular_values(int n, int p, const double *U, const double *W,
                                 const double *d, double *B)
{
    int m = n < p ? n : p;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++) {
            double t = 0;
            for (int k = 0; k < m; k++)
                t += U[i + k * n] * d[k] * W[j + k * p];
            B[i + j * n] = t;
        }
}

/* The oracle at X on the fully observed instance with M = X - A and outer
 * 1/2||X||^2; V is read back by a step of length 1.  Returns the oracle's
 * error code. */
static ircg_error oracle_full(int n, int p, double delta, const double *X,
                              const double *A, double slack, slv_cut_info *ci,
                              double *V)
{
    double M[NMAX * PMAX];
    mct_inst in;
    ircg_settings s;
    void *ws = NULL;
    ircg_iterate *it = NULL;
    ircg_error err;

    for (int e = 0; e < n * p; e++)
        M[e] = X[e] - A[e];
    if (mct_make_full(&in, n, p, M, delta, IRCG_OUTER_HALF_NORM_SQ) != 0)
        return IRCG_ERR_NOMEM;
    ircg_settings_default(&s);
    s.start = IRCG_START_GIVEN;
    s.x0 = X;
    err = in.pb->ops->create(in.pb, &s, &ws, NULL);
    if (err == IRCG_OK)
        err = in.pb->cut->lmo_cut(ws, slack, ci);
    if (err == IRCG_OK && V) {
        if ((err = in.pb->cut->cut_step(ws, 1.0)) == IRCG_OK &&
            (err = in.pb->ops->iterate(ws, IRCG_X, 1, &it)) == IRCG_OK)
            memcpy(V, it->dense, (size_t)n * p * sizeof *V);
    }
    ircg_iterate_free(it);
    if (ws)
        in.pb->ops->destroy(ws);
    mct_free(&in);
    return err;
}

/* Feasibility of V, <C, V> against the dual value (Slater) and f_gap. */
static void check_against_dual(int n, int p, double delta, const double *X,
                               const double *C, const double *A, double slack,
                               const slv_cut_info *ci, const double *V,
                               double *lam_ref)
{
    size_t np = (size_t)n * p;
    double ax = dotn(A, X, np), b = ax + slack, sA = sigmax(n, p, A);
    double sC = sigmax(n, p, C), cv = dotn(C, V, np);

    CHECK(nuclear(n, p, V) <= delta * (1 + 1e-9));
    CHECK(dotn(A, V, np) - b <= 1e-9 * (fabs(ax) + delta * sA + fabs(slack)));
    CHECK_INT(ci->slater, 1);
    double D = dual_value(n, p, C, A, b, delta, lam_ref);
    CHECK_REL(cv, D, 1e-9, delta * sC);
    CHECK_NEAR(ci->f_gap, dotn(C, X, np) - cv, 1e-9 * (fabs(dotn(C, X, np)) + delta * sC));
}

/* A random X (||X||_* <= delta/2), A and a slack halfway between the plain
 * vertex's <A, V0> and min <A, .>: Slater holds and the cut is active. */
static void random_active(int n, int p, double delta, uint64_t seed, double *X,
                          double *A, double *slack)
{
    size_t np = (size_t)n * p;
    double s[PMAX], u[NMAX], v[PMAX];
    for (size_t e = 0; e < np; e++) {
        X[e] = mct_urand(&seed);
        A[e] = mct_urand(&seed);
    }
    double nx = nuclear(n, p, X);
    for (size_t e = 0; e < np; e++)
        X[e] *= 0.5 * delta / nx;
    mct_svd(n, p, X, s, u, v); /* C = X */
    double av0 = 0;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            av0 += A[i + j * n] * (-delta * u[i] * v[j]);
    double b = 0.5 * (av0 - delta * sigmax(n, p, A));
    *slack = b - dotn(A, X, np);
}

TEST(cut_mc, slater_cut_active_random)
{
    const int shapes[3][2] = {{6, 4}, {8, 5}, {5, 8}};
    for (int c = 0; c < 3; c++) {
        int n = shapes[c][0], p = shapes[c][1];
        double X[NMAX * PMAX], A[NMAX * PMAX], V[NMAX * PMAX], slack, lam;
        slv_cut_info ci;
        random_active(n, p, 4.0, 100 + c, X, A, &slack);
        REQUIRE(oracle_full(n, p, 4.0, X, A, slack, &ci, V) == IRCG_OK);
        check_against_dual(n, p, 4.0, X, X, A, slack, &ci, V, &lam);
        CHECK(lam > 0);
        double b = dotn(A, X, (size_t)n * p) + slack;
        CHECK_NEAR(ci.lambda, lam, lambda_tol(n, p, X, A, b, 4.0, lam));
        CHECK(ci.evaluations > 1);
        CHECK(ci.matvecs > 0);
        CHECK_INT(ci.converged, 1);
        /* a generic instance: the top singular value at lambda* is simple */
        CHECK_INT(ci.rank, 1);
        if (th_failed())
            return;
    }
}

TEST(cut_mc, slater_cut_inactive_gives_the_plain_vertex)
{
    int n = 8, p = 5;
    size_t np = (size_t)n * p;
    double X[NMAX * PMAX], A[NMAX * PMAX], V[NMAX * PMAX], slack, lam;
    double s[PMAX], u[NMAX], v[PMAX];
    slv_cut_info ci;
    random_active(n, p, 4.0, 7, X, A, &slack);
    mct_svd(n, p, X, s, u, v);
    double av0 = 0;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            av0 += A[i + j * n] * (-4.0 * u[i] * v[j]);
    /* b just above <A, V0>: V0 is feasible, lambda* = 0 */
    slack = av0 + 1e-3 - dotn(A, X, np);
    REQUIRE(oracle_full(n, p, 4.0, X, A, slack, &ci, V) == IRCG_OK);
    check_against_dual(n, p, 4.0, X, X, A, slack, &ci, V, &lam);
    CHECK(lam == 0);
    CHECK(ci.lambda == 0);
    CHECK_REL(dotn(X, V, np), -4.0 * s[0], 1e-12, 0);
    CHECK_INT(ci.rank, 1);
    CHECK_INT(ci.evaluations, 1);
}

/*
 * C = U diag(3, 2.5, 1, 0.5) W', A = U diag(-1, 1, 0.2, 0.1) W' and b = 0:
 * sigma_max(C + l A) = max(3 - l, 2.5 + l) near l* = 1/4, where h has a
 * kink and the top singular value 2.75 is double.  The optimum -2.75 delta
 * needs V = (V1 + V2)/2 of the two face vertices (<A, V1> = delta, <A, V2>
 * = -delta).  The paper's NB-BLO point, the face's minimizer of <A, .>, is
 * V2 with <C, V2> = -2.5 delta: feasible but suboptimal by 0.25 delta.
 */
TEST(cut_mc, double_singular_value_at_lambda_needs_rank_two)
{
    const int shapes[2][2] = {{6, 4}, {8, 5}};
    for (int c = 0; c < 2; c++) {
        int n = shapes[c][0], p = shapes[c][1];
        size_t np = (size_t)n * p;
        double U[NMAX * NMAX], W[PMAX * PMAX], X[NMAX * PMAX], A[NMAX * PMAX];
        double V[NMAX * PMAX], lam, delta = 8.0;
        const double dc[5] = {3, 2.5, 1, 0.5, 0.25}, da[5] = {-1, 1, 0.2, 0.1, 0.05};
        uint64_t seed = 31 + c;
        slv_cut_info ci;
        random_orthogonal(n, &seed, U);
        random_orthogonal(p, &seed, W);
        with_singular_values(n, p, U, W, dc, X);
        with_singular_values(n, p, U, W, da, A);
        double slack = 0.0 - dotn(A, X, np); /* b = 0 */
        REQUIRE(oracle_full(n, p, delta, X, A, slack, &ci, V) == IRCG_OK);
        check_against_dual(n, p, delta, X, X, A, slack, &ci, V, &lam);
        CHECK_REL(dotn(X, V, np), -2.75 * delta, 1e-10, 0);
        CHECK_REL(lam, 0.25, 1e-9, 0);
        CHECK_REL(ci.lambda, 0.25, 1e-9, 0);
        CHECK_REL(ci.top_sv, 2.75, 1e-9, 0);
        CHECK_INT(ci.rank, 2);
        CHECK_NEAR(dotn(A, V, np), 0.0, 1e-9 * delta);
        /* the pure NB-BLO point, from the dense SVD at l*: within the top
         * 2-space of C + l* A, the top eigenvector of S = R' sym(A'P) R */
        double P[NMAX * PMAX], s[PMAX], Vt[PMAX * PMAX], S[4], e[2];
        for (size_t k = 0; k < np; k++)
            P[k] = X[k] + 0.25 * A[k];
        REQUIRE(svd_full(n, p, P, s, Vt) == 0);
        CHECK_REL(s[1], s[0], 1e-12, 0); /* the constructed double value */
        int m = n < p ? n : p;
        double AR[2][NMAX], PR[2][NMAX];
        for (int a = 0; a < 2; a++)
            for (int i = 0; i < n; i++) {
                AR[a][i] = PR[a][i] = 0;
                for (int j = 0; j < p; j++) {
                    AR[a][i] += A[i + j * n] * Vt[a + j * m];
                    PR[a][i] += P[i + j * n] * Vt[a + j * m];
                }
            }
        for (int a = 0; a < 2; a++)
            for (int bb = 0; bb < 2; bb++)
                S[a + 2 * bb] = 0.5 * (dotn(AR[a], PR[bb], n) + dotn(PR[a], AR[bb], n));
        REQUIRE(LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'U', 2, S, 2, e) == 0);
        double r[PMAX], Pr[NMAX], cv1 = 0, av1 = 0;
        for (int j = 0; j < p; j++)
            r[j] = S[2] * Vt[0 + j * m] + S[3] * Vt[1 + j * m];
        for (int i = 0; i < n; i++) {
            Pr[i] = 0;
            for (int j = 0; j < p; j++)
                Pr[i] += P[i + j * n] * r[j];
        }
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++) {
                double vij = -delta / s[0] * Pr[i] * r[j];
                cv1 += X[i + j * n] * vij;
                av1 += A[i + j * n] * vij;
            }
        CHECK(av1 <= 1e-9);                 /* feasible ... */
        CHECK(cv1 >= -2.75 * delta + 0.2 * delta); /* ... but not optimal */
        if (th_failed())
            return;
    }
}

/* C = U diag(3, 3, 1, 0.5, 0.2) W' has a double top value; with b = -delta/2
 * only part of its face meets the cut, so lambda* = 0 with a point of the
 * face that the plain LMO (any vector of the 2-space) need not return. */
TEST(cut_mc, double_top_of_C_with_lambda_zero)
{
    int n = 8, p = 5;
    size_t np = (size_t)n * p;
    double U[NMAX * NMAX], W[PMAX * PMAX], X[NMAX * PMAX], A[NMAX * PMAX];
    double V[NMAX * PMAX], lam, delta = 9.0;
    const double dc[5] = {3, 3, 1, 0.5, 0.2}, da[5] = {1, -1, 0.3, 0.2, 0.1};
    uint64_t seed = 77;
    slv_cut_info ci;
    random_orthogonal(n, &seed, U);
    random_orthogonal(p, &seed, W);
    with_singular_values(n, p, U, W, dc, X);
    with_singular_values(n, p, U, W, da, A);
    double slack = -0.5 * delta - dotn(A, X, np);
    REQUIRE(oracle_full(n, p, delta, X, A, slack, &ci, V) == IRCG_OK);
    check_against_dual(n, p, delta, X, X, A, slack, &ci, V, &lam);
    CHECK_REL(dotn(X, V, np), -3 * delta, 1e-10, 0);
    CHECK(lam == 0);
    CHECK_NEAR(ci.lambda, 0, 1e-9);
}

/*
 * Slater fails: b = -delta sigma_max(A) exactly.  A = U diag(2, 2, 1, 0.5) W'
 * has a double top value, so the feasible set is the 2-dimensional face of
 * Lemma A.2, {-(delta/2) A r r' : r in span(w1, w2), |r| = 1} and its hull,
 * over which <C, V> is minimized at -(delta/2) lambda_max(R' sym(C'A) R).
 */
TEST(cut_mc, slater_fails_on_a_double_face)
{
    int n = 6, p = 4;
    size_t np = (size_t)n * p;
    double U[NMAX * NMAX], W[PMAX * PMAX], A[NMAX * PMAX], X[NMAX * PMAX];
    double V[NMAX * PMAX], delta = 5.0;
    const double da[4] = {2, 2, 1, 0.5};
    uint64_t seed = 5;
    slv_cut_info ci;
    random_orthogonal(n, &seed, U);
    random_orthogonal(p, &seed, W);
    with_singular_values(n, p, U, W, da, A);
    for (size_t e = 0; e < np; e++)
        X[e] = 0.2 * mct_urand(&seed);
    double slack = -delta * 2.0 - dotn(A, X, np);
    REQUIRE(oracle_full(n, p, delta, X, A, slack, &ci, V) == IRCG_OK);
    CHECK_INT(ci.slater, 0);
    CHECK(isnan(ci.lambda));
    CHECK(nuclear(n, p, V) <= delta * (1 + 1e-9));
    CHECK_REL(dotn(A, V, np), -2.0 * delta, 1e-10, 0);
    /* the optimum over the face, from W's first two columns (exact basis) */
    double AR[2][NMAX], CR[2][NMAX], S[4], e[2];
    for (int a = 0; a < 2; a++)
        for (int i = 0; i < n; i++) {
            AR[a][i] = CR[a][i] = 0;
            for (int j = 0; j < p; j++) {
                AR[a][i] += A[i + j * n] * W[j + a * p];
                CR[a][i] += X[i + j * n] * W[j + a * p];
            }
        }
    for (int a = 0; a < 2; a++)
        for (int bb = 0; bb < 2; bb++)
            S[a + 2 * bb] = 0.5 * (dotn(CR[a], AR[bb], n) + dotn(AR[a], CR[bb], n));
    REQUIRE(LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', 2, S, 2, e) == 0);
    CHECK_REL(dotn(X, V, np), -(delta / 2.0) * e[1], 1e-9, delta);
    CHECK_NEAR(ci.f_gap, dotn(X, X, np) - dotn(X, V, np), 1e-9 * delta);
}

/* Slater fails with a simple top value: the face is the single point
 * -delta u1 v1' of A. */
TEST(cut_mc, slater_fails_simple_face)
{
    int n = 8, p = 5;
    size_t np = (size_t)n * p;
    double X[NMAX * PMAX], A[NMAX * PMAX], V[NMAX * PMAX], slack;
    double s[PMAX], u[NMAX], v[PMAX];
    slv_cut_info ci;
    random_active(n, p, 3.0, 19, X, A, &slack);
    mct_svd(n, p, A, s, u, v);
    slack = -3.0 * s[0] - dotn(A, X, np);
    REQUIRE(oracle_full(n, p, 3.0, X, A, slack, &ci, V) == IRCG_OK);
    CHECK_INT(ci.slater, 0);
    double err = 0;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            err = fmax(err, fabs(V[i + j * n] + 3.0 * u[i] * v[j]));
    CHECK(err <= 1e-8);
    CHECK_REL(ci.top_sv, s[0], 1e-12, 0);
}

/* A realistic state: a partially observed instance with the column-variance
 * outer after some CG steps on g, the cut active. */
TEST(cut_mc, advanced_iterate_column_variance)
{
    int n = 30, p = 20;
    size_t np = (size_t)n * p;
    mct_inst in;
    ircg_settings s;
    void *ws = NULL, *ws2 = NULL;
    ircg_iterate *it = NULL;
    slv_cut_info ci;
    static double X[NMAX * PMAX], C[NMAX * PMAX], A[NMAX * PMAX], V[NMAX * PMAX];
    double sv[PMAX], u[NMAX], v[PMAX], lam, delta = 5.0;

    REQUIRE(mct_make(&in, n, p, 0.4, delta, IRCG_OUTER_COLUMN_VARIANCE, 11) == 0);
    ircg_settings_default(&s);
    for (int rep = 0; rep < 2; rep++) {
        REQUIRE(in.pb->ops->create(in.pb, &s, rep ? &ws2 : &ws, NULL) == IRCG_OK);
        void *w = rep ? ws2 : ws;
        for (int t = 0; t < 8; t++) {
            slv_dir d = {0};
            REQUIRE(in.pb->ops->lmo(w, 0.0, &d) == IRCG_OK);
            REQUIRE(in.pb->ops->step(w, 2.0 / (t + 2.0), 0.0, 0.0, 1.0) == IRCG_OK);
        }
    }
    REQUIRE(in.pb->ops->iterate(ws, IRCG_X, 1, &it) == IRCG_OK);
    memcpy(X, it->dense, np * sizeof *X);
    ircg_iterate_free(it);
    mct_grad(&in, IRCG_OUTER_COLUMN_VARIANCE, 0.0, X, A);
    mct_grad(&in, IRCG_OUTER_COLUMN_VARIANCE, 1.0, X, C);
    for (size_t e = 0; e < np; e++)
        C[e] -= A[e];
    mct_svd(n, p, C, sv, u, v);
    double av0 = 0;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            av0 += A[i + j * n] * (-delta * u[i] * v[j]);
    double b = 0.5 * (av0 - delta * sigmax(n, p, A));
    double slack = b - dotn(A, X, np);
    REQUIRE(in.pb->cut->lmo_cut(ws, slack, &ci) == IRCG_OK);
    REQUIRE(in.pb->cut->cut_step(ws, 1.0) == IRCG_OK);
    REQUIRE(in.pb->ops->iterate(ws, IRCG_X, 1, &it) == IRCG_OK);
    memcpy(V, it->dense, np * sizeof *V);
    ircg_iterate_free(it);
    check_against_dual(n, p, delta, X, C, A, slack, &ci, V, &lam);
    CHECK(lam > 0);
    CHECK_REL(ci.lambda, lam, 1e-6, 0);
    /* a step of 0.3 from the same state: x = 0.7 X + 0.3 V and z = x */
    slv_values val = {0};
    REQUIRE(in.pb->cut->lmo_cut(ws2, slack, &ci) == IRCG_OK);
    REQUIRE(in.pb->cut->cut_step(ws2, 0.3) == IRCG_OK);
    REQUIRE(in.pb->ops->iterate(ws2, IRCG_X, 1, &it) == IRCG_OK);
    double err = 0;
    for (size_t e = 0; e < np; e++)
        err = fmax(err, fabs(it->dense[e] - (0.7 * X[e] + 0.3 * V[e])));
    CHECK(err <= 1e-12 * delta);
    in.pb->ops->values(ws2, NULL, &val);
    CHECK_REL(val.g_x, mct_g(&in, it->dense), 1e-12, 0);
    CHECK(val.g_z == val.g_x && val.f_z == val.f_x);
    ircg_iterate_free(it);
    in.pb->ops->destroy(ws);
    in.pb->ops->destroy(ws2);
    mct_free(&in);
}

/* The rank-2 vertex applied with a step in (0, 1): two Frank-Wolfe steps
 * must compose to x = (1 - gamma) X + gamma V exactly. */
TEST(cut_mc, rank_two_step_composes)
{
    int n = 6, p = 4;
    size_t np = (size_t)n * p;
    double U[NMAX * NMAX], W[PMAX * PMAX], X[NMAX * PMAX], A[NMAX * PMAX];
    double V[NMAX * PMAX], M[NMAX * PMAX], delta = 8.0;
    const double dc[4] = {3, 2.5, 1, 0.5}, da[4] = {-1, 1, 0.2, 0.1};
    uint64_t seed = 31;
    slv_cut_info ci;
    random_orthogonal(n, &seed, U);
    random_orthogonal(p, &seed, W);
    with_singular_values(n, p, U, W, dc, X);
    with_singular_values(n, p, U, W, da, A);
    double slack = -dotn(A, X, np);
    REQUIRE(oracle_full(n, p, delta, X, A, slack, &ci, V) == IRCG_OK);
    REQUIRE(ci.rank == 2);
    for (size_t e = 0; e < np; e++)
        M[e] = X[e] - A[e];
    const double gammas[3] = {0.3, 1e-3, 0.999};
    for (int g = 0; g < 3; g++) {
        mct_inst in;
        ircg_settings s;
        void *ws = NULL;
        ircg_iterate *it = NULL;
        REQUIRE(mct_make_full(&in, n, p, M, delta, IRCG_OUTER_HALF_NORM_SQ) == 0);
        ircg_settings_default(&s);
        s.start = IRCG_START_GIVEN;
        s.x0 = X;
        slv_values v0 = {0}, v1 = {0};
        REQUIRE(in.pb->ops->create(in.pb, &s, &ws, NULL) == IRCG_OK);
        in.pb->ops->values(ws, NULL, &v0);
        REQUIRE(in.pb->cut->lmo_cut(ws, slack, &ci) == IRCG_OK);
        REQUIRE(in.pb->cut->cut_step(ws, gammas[g]) == IRCG_OK);
        in.pb->ops->values(ws, NULL, &v1);
        CHECK_INT(v1.rank, v0.rank + 2); /* one atom per vertex */
        /* the vertex is spent */
        CHECK(in.pb->cut->cut_step(ws, gammas[g]) == IRCG_ERR_INVALID);
        REQUIRE(in.pb->ops->iterate(ws, IRCG_X, 1, &it) == IRCG_OK);
        double err = 0;
        for (size_t e = 0; e < np; e++)
            err = fmax(err, fabs(it->dense[e] - ((1 - gammas[g]) * X[e] + gammas[g] * V[e])));
        CHECK(err <= 1e-12 * delta);
        ircg_iterate_free(it);
        in.pb->ops->destroy(ws);
        mct_free(&in);
    }
}

TEST(cut_mc, bad_input_zero_gradient_empty_cut_and_misuse)
{
    int n = 6, p = 4;
    size_t np = (size_t)n * p;
    double X[NMAX * PMAX], A[NMAX * PMAX], Z[NMAX * PMAX], V[NMAX * PMAX], slack;
    double s[PMAX], u[NMAX], v[PMAX];
    slv_cut_info ci;
    random_active(n, p, 3.0, 3, X, A, &slack);
    mct_svd(n, p, X, s, u, v);

    /* A = 0 (X interpolates M): the cut reads 0 <= slack */
    memset(Z, 0, sizeof Z);
    REQUIRE(oracle_full(n, p, 3.0, X, Z, 0.0, &ci, V) == IRCG_OK);
    CHECK_INT(ci.slater, 1);
    CHECK(ci.lambda == 0);
    CHECK_REL(dotn(X, V, np), -3.0 * s[0], 1e-12, 0);
    REQUIRE(oracle_full(n, p, 3.0, X, Z, -1.0, &ci, V) == IRCG_OK);
    CHECK_INT(ci.slater, 0); /* empty; every V is equally infeasible */
    CHECK_REL(dotn(X, V, np), -3.0 * s[0], 1e-12, 0);

    /* slack < 0 with an empty cut set: the most feasible point */
    double sA = sigmax(n, p, A);
    slack = -3.0 * sA - dotn(A, X, np) - 0.5;
    REQUIRE(oracle_full(n, p, 3.0, X, A, slack, &ci, V) == IRCG_OK);
    CHECK_INT(ci.slater, 0);
    CHECK(isnan(ci.lambda));
    CHECK_REL(dotn(A, V, np), -3.0 * sA, 1e-10, 0);
    CHECK(nuclear(n, p, V) <= 3.0 * (1 + 1e-9));

    /* C = 0 (X = 0, outer 1/2||X||^2): any feasible point is optimal */
    slack = -0.5 * 3.0 * sA;
    REQUIRE(oracle_full(n, p, 3.0, Z, A, slack, &ci, V) == IRCG_OK);
    CHECK_INT(ci.slater, 1);
    CHECK(dotn(A, V, np) <= slack + 1e-9);
    CHECK_NEAR(ci.f_gap, 0.0, 1e-12);

    /* a non-finite slack, and steps without a pending vertex */
    CHECK(oracle_full(n, p, 3.0, X, A, NAN, &ci, NULL) == IRCG_ERR_INVALID);
    CHECK(oracle_full(n, p, 3.0, X, A, INFINITY, &ci, NULL) == IRCG_ERR_INVALID);
    {
        mct_inst in;
        ircg_settings st;
        void *ws = NULL;
        for (size_t e = 0; e < np; e++)
            Z[e] = X[e] - A[e];
        REQUIRE(mct_make_full(&in, n, p, Z, 3.0, IRCG_OUTER_HALF_NORM_SQ) == 0);
        ircg_settings_default(&st);
        st.start = IRCG_START_GIVEN;
        st.x0 = X;
        REQUIRE(in.pb->ops->create(in.pb, &st, &ws, NULL) == IRCG_OK);
        CHECK(in.pb->cut->cut_step(ws, 0.5) == IRCG_ERR_INVALID);
        REQUIRE(in.pb->cut->lmo_cut(ws, 0.0, &ci) == IRCG_OK);
        CHECK(in.pb->cut->cut_step(ws, 1.5) == IRCG_ERR_INVALID);
        CHECK(in.pb->cut->cut_step(ws, NAN) == IRCG_ERR_INVALID);
        in.pb->ops->destroy(ws);
        mct_free(&in);
    }
}
