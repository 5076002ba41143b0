/*
 * overparam.h -- over-parameterized regression, the experiment of CG-BiO
 * (Jiang et al. 2023): least squares on m training rows with n > m
 * unknowns over an l1 (or l2) ball that holds many interpolating
 * solutions, the validation loss f(x) = 1/2 ||A_v x - b_v||^2 on m_v
 * held-out rows of the same model as the outer objective.  The CG-BiO
 * paper uses the Wikipedia Math Essentials data set; without network
 * access we use the generator's rows (ircg_synth_least_squares, seeded),
 * scaled by 1/sqrt(n) so that ||A|| is about 1 + sqrt(m/n).
 *
 * The reference is closed form (LAPACK): with x_p = A^+ b and N an
 * orthonormal basis of null(A), x* = x_p + N z*, z* the least-squares
 * solution of (A_v N) z = b_v - A_v x_p (full column rank when m_v >= n - m);
 * the ball (1.25 times x*'s norm) contains x*, so X_opt = {A x = b} n X,
 * g* = 0, f* = f(x*).  f(A^+ b), another inner solution, gives the scale of
 * f over X_opt.
 *
 * Used by tests/unit/solver/problems/ls/test_ls_overparam.c and
 * `study overparam`.
 */
#ifndef IRCG_STUDY_OVERPARAM_H
#define IRCG_STUDY_OVERPARAM_H

#include <stdint.h>

#include "ircg.h"

typedef struct op_inst {
    int m, n, mv;
    double *A, *b, *Av, *bv;  /* row-major, owned */
    double *xs;               /* x* (n) */
    double f_opt, f_pinv, radius, Lf;
    ircg_problem *pb;
} op_inst;

/* 1 on success; scale multiplies A, b, A_v, b_v. */
int op_make(op_inst *P, int m, int n, int mv, double noise, uint64_t seed,
            ircg_domain_kind kind, double scale);
void op_free(op_inst *P);

#endif /* IRCG_STUDY_OVERPARAM_H */
