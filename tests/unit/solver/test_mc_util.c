/* test_mc_util.c -- see test_mc_util.h.  Written from the formulas, with no
 * code shared with the library's factored implementation. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_mc_util.h"

double mct_urand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * 0x1.0p-52 - 1.0;
}

static int finish(mct_inst *in, double delta, ircg_outer_kind outer)
{
    int64_t e = 0;
    for (int j = 0; j < in->p; j++)
        for (int i = 0; i < in->n; i++)
            if (in->mask[i + (size_t)j * in->n] != 0)
                e++;
    in->R = ircg_ratings_new(in->n, in->p, e);
    if (!in->R)
        return -1;
    e = 0;
    /* column-major order: the library must not depend on the input order */
    for (int j = 0; j < in->p; j++)
        for (int i = 0; i < in->n; i++)
            if (in->mask[i + (size_t)j * in->n] != 0) {
                in->R->row[e] = i;
                in->R->col[e] = j;
                in->R->val[e] = in->Md[i + (size_t)j * in->n];
                e++;
            }
    in->pb = NULL;
    return ircg_problem_matrix_completion(in->R, outer, delta, &in->pb, NULL) ==
                   IRCG_OK ? 0 : -1;
}

int mct_make(mct_inst *in, int n, int p, double frac, double delta,
             ircg_outer_kind outer, uint64_t seed)
{
    in->n = n;
    in->p = p;
    in->mask = calloc((size_t)n * p, sizeof *in->mask);
    in->Md = calloc((size_t)n * p, sizeof *in->Md);
    in->R = NULL;
    in->pb = NULL;
    if (!in->mask || !in->Md)
        return -1;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            if (0.5 * (mct_urand(&seed) + 1.0) < frac || j == i % p) {
                in->mask[i + (size_t)j * n] = 1;
                in->Md[i + (size_t)j * n] = 3.0 + 2.0 * mct_urand(&seed);
            }
    return finish(in, delta, outer);
}

int mct_make_full(mct_inst *in, int n, int p, const double *M, double delta,
                  ircg_outer_kind outer)
{
    in->n = n;
    in->p = p;
    in->mask = malloc((size_t)n * p * sizeof *in->mask);
    in->Md = malloc((size_t)n * p * sizeof *in->Md);
    in->R = NULL;
    in->pb = NULL;
    if (!in->mask || !in->Md)
        return -1;
    for (size_t e = 0; e < (size_t)n * p; e++) {
        in->mask[e] = 1;
        in->Md[e] = M[e];
    }
    return finish(in, delta, outer);
}

void mct_free(mct_inst *in)
{
    ircg_problem_free(in->pb);
    ircg_ratings_free(in->R);
    free(in->mask);
    free(in->Md);
}

/* UA: subtract each column's mean */
static void center_cols(int n, int p, double *A)
{
    for (int j = 0; j < p; j++) {
        double s = 0;
        for (int i = 0; i < n; i++)
            s += A[i + (size_t)j * n];
        s /= n;
        for (int i = 0; i < n; i++)
            A[i + (size_t)j * n] -= s;
    }
}

void mct_grad(const mct_inst *in, ircg_outer_kind outer, double sigma,
              const double *X, double *G)
{
    size_t np = (size_t)in->n * in->p;
    memcpy(G, X, np * sizeof *G);
    if (outer == IRCG_OUTER_COLUMN_VARIANCE)
        center_cols(in->n, in->p, G);
    for (size_t e = 0; e < np; e++)
        G[e] = sigma * G[e] + in->mask[e] * (X[e] - in->Md[e]);
}

double mct_g(const mct_inst *in, const double *X)
{
    long double s = 0;
    for (size_t e = 0; e < (size_t)in->n * in->p; e++)
        if (in->mask[e] != 0)
            s += (long double)(X[e] - in->Md[e]) * (X[e] - in->Md[e]);
    return (double)(0.5L * s);
}

double mct_hf(const mct_inst *in, ircg_outer_kind outer, const double *D)
{
    size_t np = (size_t)in->n * in->p;
    double *T = malloc(np * sizeof *T);
    long double s = 0;
    memcpy(T, D, np * sizeof *T);
    if (outer == IRCG_OUTER_COLUMN_VARIANCE)
        center_cols(in->n, in->p, T);
    for (size_t e = 0; e < np; e++)
        s += (long double)T[e] * T[e];
    free(T);
    return (double)s;
}

double mct_f(const mct_inst *in, ircg_outer_kind outer, const double *X)
{
    return 0.5 * mct_hf(in, outer, X);
}

double mct_hg(const mct_inst *in, const double *D)
{
    long double s = 0;
    for (size_t e = 0; e < (size_t)in->n * in->p; e++)
        s += (long double)in->mask[e] * D[e] * D[e];
    return (double)s;
}

double mct_dot(const double *a, const double *b, size_t n)
{
    long double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (long double)a[i] * b[i];
    return (double)s;
}

int mct_svd(int n, int p, const double *A, double *s, double *u1, double *v1)
{
    int m = n < p ? n : p, rc;
    double *T = malloc((size_t)n * p * sizeof *T);
    double *U = malloc((size_t)n * m * sizeof *U);
    double *Vt = malloc((size_t)m * p * sizeof *Vt);
    double *sup = malloc((size_t)m * sizeof *sup);
    memcpy(T, A, (size_t)n * p * sizeof *T);
    rc = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', n, p, T, n, s, U, n, Vt, m, sup);
    if (u1)
        memcpy(u1, U, (size_t)n * sizeof *u1);
    if (v1)
        for (int j = 0; j < p; j++)
            v1[j] = Vt[(size_t)j * m];
    free(T);
    free(U);
    free(Vt);
    free(sup);
    return rc;
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* s onto {x >= 0, sum x <= delta}: max(s, 0) when that sums to <= delta,
 * else max(s - theta, 0) with theta from the sorted values (Held, Wolfe and
 * Crowder 1974; Duchi et al. 2008). */
static void proj_simplex_ineq(double *s, int m, double delta)
{
    double *u = malloc((size_t)m * sizeof *u), tot = 0, cs = 0, theta = 0;
    for (int i = 0; i < m; i++) {
        s[i] = fmax(s[i], 0.0);
        tot += s[i];
    }
    if (tot > delta) {
        memcpy(u, s, (size_t)m * sizeof *u);
        qsort(u, (size_t)m, sizeof *u, cmp_desc);
        for (int j = 0; j < m; j++) {
            cs += u[j];
            if (u[j] - (cs - delta) / (j + 1) > 0)
                theta = (cs - delta) / (j + 1);
        }
        for (int i = 0; i < m; i++)
            s[i] = fmax(s[i] - theta, 0.0);
    }
    free(u);
}

int mct_proj_nuclear(int n, int p, const double *Y, double delta, double *X)
{
    int m = n < p ? n : p, rank = -1;
    double *T = malloc((size_t)n * p * sizeof *T), *s = malloc((size_t)m * sizeof *s);
    double *U = malloc((size_t)n * m * sizeof *U), *Vt = malloc((size_t)m * p * sizeof *Vt);
    double *sup = malloc((size_t)m * sizeof *sup);

    memcpy(T, Y, (size_t)n * p * sizeof *T);
    if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', n, p, T, n, s, U, n, Vt, m, sup) == 0) {
        proj_simplex_ineq(s, m, delta);
        memset(X, 0, (size_t)n * p * sizeof *X);
        rank = 0;
        for (int l = 0; l < m; l++) {
            if (s[l] <= 0)
                continue;
            if (s[l] > 1e-12 * s[0])
                rank++;
            for (int j = 0; j < p; j++)
                for (int i = 0; i < n; i++)
                    X[i + (size_t)j * n] += s[l] * U[i + (size_t)l * n] * Vt[l + (size_t)j * m];
        }
    }
    free(T);
    free(s);
    free(U);
    free(Vt);
    free(sup);
    return rank;
}

int mct_orth(int n, int k, uint64_t *seed, double *Q)
{
    double *tau = malloc((size_t)k * sizeof *tau);
    int rc;
    for (size_t e = 0; e < (size_t)n * k; e++)
        Q[e] = mct_urand(seed);
    rc = LAPACKE_dgeqrf(LAPACK_COL_MAJOR, n, k, Q, n, tau) ||
         LAPACKE_dorgqr(LAPACK_COL_MAJOR, n, k, k, Q, n, tau);
    free(tau);
    return rc;
}

int mct_with_spectrum(int n, int p, int k, const double *s, uint64_t seed, double *A)
{
    double *U = malloc((size_t)n * k * sizeof *U), *V = malloc((size_t)p * k * sizeof *V);
    int rc = mct_orth(n, k, &seed, U) || mct_orth(p, k, &seed, V);
    memset(A, 0, (size_t)n * p * sizeof *A);
    for (int l = 0; l < k && !rc; l++)
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++)
                A[i + (size_t)j * n] += s[l] * U[i + (size_t)l * n] * V[j + (size_t)l * p];
    free(U);
    free(V);
    return rc;
}

double mct_dist(const double *A, const double *B, size_t n)
{
    long double s = 0;
    for (size_t e = 0; e < n; e++)
        s += (long double)(A[e] - B[e]) * (A[e] - B[e]);
    return sqrt((double)s);
}

double mct_norm(const double *A, size_t n)
{
    long double s = 0;
    for (size_t e = 0; e < n; e++)
        s += (long double)A[e] * A[e];
    return sqrt((double)s);
}
