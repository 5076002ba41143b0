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

#endif
