/* test_ln_util.c -- see test_ln_util.h */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/scale.h"
#include "test_num.h"
#include "unit/solver/test_ln_util.h"

int lnt_make(double *A, double *b, double *xs, int m, int n, uint64_t seed)
{
    if (m > n)
        return 0;
    for (int i = 0; i < m * n; i++)
        A[i] = test_urand(&seed);
    for (int i = 0; i < m; i++)
        b[i] = 2 * test_urand(&seed);
    return sc_pinv(A, b, m, n, xs);
}

/* 1/2 ||Av x - bv||^2 in long double. */
double lnt_half_sq(const double *Av, const double *bv, int m, int n, const double *x)
{
    long double f = 0;
    for (int i = 0; i < m; i++) {
        long double r = -(long double)bv[i];
        for (int j = 0; j < n; j++)
            r += (long double)Av[(size_t)i * n + j] * x[j];
        f += 0.5L * r * r;
    }
    return (double)f;
}

int lnt_overparam(const double *A, const double *xs, int m, int n, double *Av, double *bv,
                  int mv, uint64_t seed, double *xstar, double *fstar)
{
    int k = n - m, ok = 0;
    for (int i = 0; i < mv * n; i++)
        Av[i] = test_urand(&seed);
    for (int i = 0; i < mv; i++)
        bv[i] = test_urand(&seed);
    double *Ac = malloc((size_t)m * n * sizeof *Ac), *sv = malloc((size_t)m * sizeof *sv);
    double *Vt = malloc((size_t)n * n * sizeof *Vt), *sup = malloc((size_t)m * sizeof *sup);
    double *B = malloc((size_t)mv * (k > 0 ? k : 1) * sizeof *B), *c = malloc((size_t)mv * sizeof *c);
    double *svb = malloc((size_t)(k > 0 ? k : 1) * sizeof *svb), U[1];
    if (k <= 0 || mv < k || !Ac || !sv || !Vt || !sup || !B || !c || !svb)
        goto done;
    /* the null space of A: the last n - m right singular vectors */
    memcpy(Ac, A, (size_t)m * n * sizeof *Ac);
    if (LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', m, n, Ac, n, sv, U, 1, Vt, n, sup) != 0)
        goto done;
    for (int i = 0; i < mv; i++) {
        double ax = 0;
        for (int j = 0; j < n; j++)
            ax += Av[(size_t)i * n + j] * xs[j];
        c[i] = bv[i] - ax;
        for (int q = 0; q < k; q++) {
            double v = 0;
            for (int j = 0; j < n; j++)
                v += Av[(size_t)i * n + j] * Vt[(size_t)(m + q) * n + j];
            B[(size_t)i * k + q] = v;
        }
    }
    lapack_int rank;
    if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, mv, k, 1, B, k, c, 1, svb, -1.0, &rank) != 0)
        goto done;
    for (int j = 0; j < n; j++) {
        xstar[j] = xs[j];
        for (int q = 0; q < k; q++)
            xstar[j] += Vt[(size_t)(m + q) * n + j] * c[q];
    }
    *fstar = lnt_half_sq(Av, bv, mv, n, xstar);
    ok = rank == k;
done:
    free(Ac);
    free(sv);
    free(Vt);
    free(sup);
    free(B);
    free(c);
    free(svb);
    return ok;
}

void lnt_domains(const double *xs, int n, ircg_domain doms[3], const char *names[3])
{
    double r2 = 0, r1 = 0, amax = 0;
    for (int j = 0; j < n; j++) {
        r2 += xs[j] * xs[j];
        r1 += fabs(xs[j]);
        amax = fmax(amax, fabs(xs[j]));
    }
    doms[0] = (ircg_domain){.kind = IRCG_DOMAIN_L2_BALL, .radius = 1.5 * sqrt(r2)};
    doms[1] = (ircg_domain){.kind = IRCG_DOMAIN_L1_BALL, .radius = 1.5 * r1};
    doms[2] = (ircg_domain){.kind = IRCG_DOMAIN_BOX, .lower = -2 * amax, .upper = 2 * amax};
    names[0] = "l2 ball";
    names[1] = "l1 ball";
    names[2] = "box";
}

double lnt_half_norm_sq(const double *z, int n)
{
    long double s = 0;
    for (int j = 0; j < n; j++)
        s += 0.5L * (long double)z[j] * z[j];
    return (double)s;
}

ircg_error lnt_solve(const ircg_problem *pb, ircg_algorithm alg, double inner_rel,
                     double outer_rel, double seconds, ircg_solver **sv, ircg_info *in)
{
    ircg_settings st;
    ircg_diag d = {0};
    ircg_settings_default(&st);
    st.algorithm = alg;
    st.max_iter = 100000000;
    st.time_limit = seconds;
    st.stop.inner_gap_rel = inner_rel;
    st.stop.outer_gap_rel = outer_rel;
    ircg_error e = ircg_solver_new(pb, &st, sv, &d);
    if (e != IRCG_OK) {
        printf("    solver: %s (%s)\n", d.message, d.field);
        return e;
    }
    return ircg_solve(*sv, in);
}

int lnt_answer(const ircg_solver *sv, double *z, int n)
{
    ircg_iterate *it = NULL;
    if (ircg_solver_iterate(sv, IRCG_Z, 1, &it) != IRCG_OK || !it->dense || it->dim != n) {
        ircg_iterate_free(it);
        return 0;
    }
    memcpy(z, it->dense, (size_t)n * sizeof *z);
    ircg_iterate_free(it);
    return 1;
}
