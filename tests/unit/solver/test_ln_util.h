/*
 * test_ln_util.h -- the least-norm instances several solver tests share,
 * and the solve to a stop they make on them:
 * a random m x n A (m < n: full row rank, almost surely), a random b, and
 * the closed form x* = A^+ b by LAPACK's dgelsd (sc_pinv, study/scale.h),
 * an independent computation of the solution every method must approach;
 * and over-parameterized regression on them (validation rows), in closed
 * form too.
 */
#ifndef TEST_LN_UTIL_H
#define TEST_LN_UTIL_H

#include <stdint.h>

#include "ircg.h"

/* A (m x n, row-major) uniform in (-1, 1), b in (-2, 2), xs = A^+ b;
 * 1 when A has full row rank m (m <= n). */
int lnt_make(double *A, double *b, double *xs, int m, int n, uint64_t seed);

/* 1/2 ||Av x - bv||^2 (Av m x n, row-major) in long double. */
double lnt_half_sq(const double *Av, const double *bv, int m, int n, const double *x);

/* Over-parameterized regression on a least-norm instance (A m x n, m < n,
 * xs = A^+ b): validation rows Av (mv x n, mv >= n - m) and bv uniform in
 * (-1, 1) from seed, f the validation loss 1/2 ||Av x - bv||^2, and the
 * bilevel solution in closed form: g* = 0 on {A x = b}, so x* = xs + N z*
 * with N an orthonormal basis of null(A) (LAPACK's dgesvd) and z* the
 * least squares solution of Av N z = bv - Av xs (dgelsd), f* = f(x*) in
 * long double; 1 when Av N has full column rank (x* inside the domain is
 * the caller's choice of domain). */
int lnt_overparam(const double *A, const double *xs, int m, int n, double *Av, double *bv,
                  int mv, uint64_t seed, double *xstar, double *fstar);

/* The three domains the least-norm tests solve on around x* = xs (n): an
 * l2 and an l1 ball of 1.5 times its norms, a box of twice its largest
 * entry; their names into names. */
void lnt_domains(const double *xs, int n, ircg_domain doms[3], const char *names[3]);
/* 1/2 ||z||^2 (n) in long double: f of least norm. */
double lnt_half_norm_sq(const double *z, int n);

/* Solve pb with alg to the stop (inner_rel, outer_rel) within seconds, no
 * iteration cap; a refusal is printed with its pointer. */
ircg_error lnt_solve(const ircg_problem *pb, ircg_algorithm alg, double inner_rel,
                     double outer_rel, double seconds, ircg_solver **sv, ircg_info *in);
/* The answer z (dense, n) of the solver into z; 0 when it has none. */
int lnt_answer(const ircg_solver *sv, double *z, int n);

#endif
