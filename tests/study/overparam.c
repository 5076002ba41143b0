/* overparam.c -- see overparam.h */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study/overparam.h"

void op_free(op_inst *P)
{
    ircg_problem_free(P->pb);
    free(P->A);
    free(P->b);
    free(P->Av);
    free(P->bv);
    free(P->xs);
    memset(P, 0, sizeof *P);
}

/* The generator's first m rows train, the next mv validate (one model). */
static int rows(op_inst *P, double noise, uint64_t seed, double scale)
{
    double *A = NULL, *b = NULL;
    int m = P->m, n = P->n, mv = P->mv;
    if (ircg_synth_least_squares(m + mv, n, noise, seed, &A, &b, NULL) != IRCG_OK)
        return 0;
    for (size_t i = 0; i < (size_t)(m + mv) * n; i++)
        A[i] *= scale;
    for (int i = 0; i < m + mv; i++)
        b[i] *= scale;
    P->A = A; /* the first m rows; the rest are copied out */
    P->b = b;
    P->Av = malloc((size_t)mv * n * sizeof *P->Av);
    P->bv = malloc((size_t)mv * sizeof *P->bv);
    P->xs = calloc((size_t)n, sizeof *P->xs);
    if (!P->Av || !P->bv || !P->xs)
        return 0;
    memcpy(P->Av, A + (size_t)m * n, (size_t)mv * n * sizeof *P->Av);
    memcpy(P->bv, b + m, (size_t)mv * sizeof *P->bv);
    return 1;
}

static double half_res(const double *A, const double *b, const double *x, int m, int n)
{
    double f = 0;
    for (int i = 0; i < m; i++) {
        double r = -b[i];
        for (int j = 0; j < n; j++)
            r += A[(size_t)i * n + j] * x[j];
        f += 0.5 * r * r;
    }
    return f;
}

/* x* = x_p + N z* (see overparam.h); also x_p into xp. */
static int closed_form(op_inst *P, double *xp)
{
    int m = P->m, n = P->n, mv = P->mv, nn = n - m, ok;
    double *W = malloc((size_t)n * n * sizeof *W), *Vt = malloc((size_t)n * n * sizeof *Vt);
    double *S = malloc((size_t)n * sizeof *S), *sv = malloc((size_t)n * sizeof *sv), U[1];
    double *AN = malloc((size_t)mv * nn * sizeof *AN), *rhs = malloc((size_t)mv * sizeof *rhs);
    lapack_int rank = 0;
    ok = W && Vt && S && sv && AN && rhs;
    if (ok) { /* A = U S V': null(A) = the last n - m rows of V' */
        memcpy(W, P->A, (size_t)m * n * sizeof *W);
        ok = !LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', m, n, W, n, S, U, 1, Vt, n, sv);
    }
    if (ok) {
        memcpy(W, P->A, (size_t)m * n * sizeof *W);
        memcpy(xp, P->b, (size_t)m * sizeof *xp);
        ok = !LAPACKE_dgelsd(LAPACK_ROW_MAJOR, m, n, 1, W, n, xp, 1, sv, -1, &rank) &&
             rank == m;
    }
    for (int i = 0; ok && i < mv; i++) {
        rhs[i] = P->bv[i];
        for (int j = 0; j < n; j++)
            rhs[i] -= P->Av[(size_t)i * n + j] * xp[j];
        for (int k = 0; k < nn; k++) {
            double s = 0;
            for (int j = 0; j < n; j++)
                s += P->Av[(size_t)i * n + j] * Vt[(size_t)(m + k) * n + j];
            AN[(size_t)i * nn + k] = s;
        }
    }
    ok = ok && !LAPACKE_dgelsd(LAPACK_ROW_MAJOR, mv, nn, 1, AN, nn, rhs, 1, sv, -1, &rank) &&
         rank == nn;
    for (int j = 0; ok && j < n; j++) {
        P->xs[j] = xp[j];
        for (int k = 0; k < nn; k++)
            P->xs[j] += Vt[(size_t)(m + k) * n + j] * rhs[k];
    }
    free(W);
    free(Vt);
    free(S);
    free(sv);
    free(AN);
    free(rhs);
    return ok;
}

/* ||A_v||_2^2 by LAPACK. */
static double norm2_sq(const double *A, int m, int n)
{
    int k = m < n ? m : n;
    double *W = malloc((size_t)m * n * sizeof *W), *s = malloc((size_t)k * sizeof *s);
    double *sup = malloc((size_t)k * sizeof *sup), U[1], out = NAN;
    if (W && s && sup) {
        memcpy(W, A, (size_t)m * n * sizeof *W);
        if (!LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', m, n, W, n, s, U, 1, U, 1, sup))
            out = s[0] * s[0];
    }
    free(W);
    free(s);
    free(sup);
    return out;
}

int op_make(op_inst *P, int m, int n, int mv, double noise, uint64_t seed,
            ircg_domain_kind kind, double scale)
{
    memset(P, 0, sizeof *P);
    P->m = m, P->n = n, P->mv = mv;
    double *xp = calloc((size_t)n, sizeof *xp), n1 = 0, n2 = 0;
    int ok = xp && n > m && mv >= n - m && rows(P, noise, seed, scale) && closed_form(P, xp);
    for (int j = 0; ok && j < n; j++) {
        n2 += P->xs[j] * P->xs[j];
        n1 += fabs(P->xs[j]);
    }
    if (ok) {
        P->f_opt = half_res(P->Av, P->bv, P->xs, mv, n);
        P->f_pinv = half_res(P->Av, P->bv, xp, mv, n);
        P->radius = kind == IRCG_DOMAIN_L1_BALL ? 1.25 * n1 : 1.25 * sqrt(n2);
        P->Lf = norm2_sq(P->Av, mv, n);
        ircg_ls_data tr = {.m = m, .n = n, .A_dense = P->A, .b = P->b};
        ircg_ls_data va = {.m = mv, .n = n, .A_dense = P->Av, .b = P->bv};
        ircg_outer o = {.kind = IRCG_OUTER_VALIDATION, .val = &va};
        ircg_domain dom = {kind, P->radius, 0, 0};
        ok = ircg_problem_least_squares(&tr, &o, &dom, &P->pb, NULL) == IRCG_OK;
    }
    free(xp);
    return ok;
}
