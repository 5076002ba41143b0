/*
 * test_mc_util.h -- dense, independent computations for the matrix-completion
 * tests: random instances, the dense gradient sigma U X + P_Omega(X - M), and
 * objective values, all on explicit column-major n x p matrices.
 */
#ifndef TEST_MC_UTIL_H
#define TEST_MC_UTIL_H

#include <stdint.h>

#include "ircg.h"

typedef struct mct_inst {
    int n, p;
    ircg_ratings *R;
    double *mask, *Md;  /* dense 0/1 mask of Omega and M (0 off Omega)  */
    ircg_problem *pb;
} mct_inst;

double mct_urand(uint64_t *s); /* uniform(-1, 1) */
/* Random n x p instance, each entry observed with probability frac,
 * ratings in [1, 5]; every row observed at least once. */
int mct_make(mct_inst *in, int n, int p, double frac, double delta,
             ircg_outer_kind outer, uint64_t seed);
/* Instance with all entries observed and M given densely. */
int mct_make_full(mct_inst *in, int n, int p, const double *M, double delta,
                  ircg_outer_kind outer);
void mct_free(mct_inst *in);

/* G = sigma gradf(X) + P_Omega(X - M) */
void mct_grad(const mct_inst *in, ircg_outer_kind outer, double sigma,
              const double *X, double *G);
double mct_g(const mct_inst *in, const double *X);
double mct_f(const mct_inst *in, ircg_outer_kind outer, const double *X);
/* ||U D||^2 (column variance) or ||D||^2 */
double mct_hf(const mct_inst *in, ircg_outer_kind outer, const double *D);
double mct_hg(const mct_inst *in, const double *D);
double mct_dot(const double *a, const double *b, size_t n);
/* Full SVD of A (n x p): s (min), U n x n... top pair into u (n), v (p);
 * returns 0 on success. */
int mct_svd(int n, int p, const double *A, double *s, double *u1, double *v1);

/* Euclidean projection of Y (n x p) onto {||X||_* <= delta} by a full
 * LAPACK SVD and a sort-based projection of the singular values onto
 * {s >= 0, sum s <= delta}; X may alias Y.  Returns the numerical rank
 * of X (projected values above 1e-12 times the largest; rounding leaves
 * tiny positive ones), or -1 on failure. */
int mct_proj_nuclear(int n, int p, const double *Y, double delta, double *X);
/* Q (n x k, n >= k) with orthonormal columns from random entries. */
int mct_orth(int n, int k, uint64_t *seed, double *Q);
/* A = U diag(s) V' with random orthonormal U (n x k) and V (p x k). */
int mct_with_spectrum(int n, int p, int k, const double *s, uint64_t seed,
                      double *A);
/* ||A - B||_F and ||B||_F over n entries */
double mct_dist(const double *A, const double *B, size_t n);
double mct_norm(const double *A, size_t n);

#endif
