/*
 * ls.h -- the least squares problem class, shared by
 * ls_problem.c (construction and validation), ls_linalg.c (products,
 * the outer objective, Lipschitz constants) and ls_oracle.c (the workspace
 * and the oracle operations of oracle.h).
 *
 *   g(x) = 1/2 ||A x - b||^2,   A m x n dense row-major or CSR
 *   f(x) = 1/2 ||x||^2 | 1/2 ||x - c||^2 | 1/2 x'Qx + q'x
 */
#ifndef IRCG_LS_H
#define IRCG_LS_H

#include <stdint.h>

#include "core/oracle.h"

typedef struct ls_data {
    int m, n;
    double *A;          /* dense m x n row-major, or NULL (owned)          */
    int64_t *rowptr;    /* CSR, m + 1 (owned; NULL when dense)             */
    int32_t *colind;    /* CSR, nnz                                        */
    double *val;        /* CSR, nnz                                        */
    double *b;          /* m                                               */
    ircg_domain dom;
    ircg_outer_kind outer;
    double *c;          /* DIST_SQ: n                                      */
    double *Q;          /* QUADRATIC: n x n row-major, symmetric PSD       */
    double *q;          /* QUADRATIC: n, NULL = 0                          */
} ls_data;

void ls_data_free(void *data);

/* ls_problem.c: the problem handle with the family's oracle (pb->ops); the
 * public constructor (core/families.c) adds the methods' oracles */
ircg_error ls_problem_new(const ircg_ls_data *data, const ircg_outer *outer,
                          const ircg_domain *domain, ircg_problem **out,
                          ircg_diag *diag);

/* The workspace (ls_oracle.c): x, z, the last vertex v and the pending
 * point of the projection methods, with their residuals A y - b and, for a
 * quadratic outer f, their products with Q, carried along so that a step
 * costs no extra product with A or Q. */
typedef struct ls_ws {
    const ls_data *d; /* borrowed from the problem */
    int have_v;       /* an LMO ran since the last step */
    double *x, *z, *v, *g;       /* n; g is the LMO's direction c */
    double *rx, *rz, *rv;        /* m */
    double *qx, *qz, *qv;        /* n, QUADRATIC only */
    double *xp, *rp, *qp;        /* the pending point of grad_step (n, m, n) */
} ls_ws;

static inline int ls_has_q(const ls_ws *w) { return w->d->outer == IRCG_OUTER_QUADRATIC; }

/* The step, shared with CG-BiO's cut step (baselines/cgbio/ls_cut.c). */
ircg_error ls_step(void *ws, double alpha, double cz, double cx_old, double cx_new);

/* y = A x (length m). */
void ls_matvec(const ls_data *d, const double *x, double *y);
/* y = A' r (length n). */
void ls_rmatvec(const ls_data *d, const double *r, double *y);
/* r = A x - b. */
void ls_residual(const ls_data *d, const double *x, double *r);
/* r = A v - b for an LMO vertex v (ls_oracle.c): one column of a dense A
 * when v is a vertex of the l1 ball or the simplex, else a product. */
void ls_vertex_residual(const ls_data *d, const double *v, double *rv);
/* y = Q x (QUADRATIC only). */
void ls_qmatvec(const ls_data *d, const double *x, double *y);

/* f(x); qx = Q x for QUADRATIC (ignored otherwise, may be NULL then). */
double ls_f_value(const ls_data *d, const double *x, const double *qx);
/* g += sigma grad f(x), qx as above. */
void ls_f_grad_add(const ls_data *d, double sigma, const double *x,
                   const double *qx, double *g);

/* An upper bound of ||A||_2^2: the eigenvalues of the smaller Gram matrix
 * (LAPACK) when min(m, n) is moderate, else the least of ||A||_F^2,
 * ||A||_1 ||A||_inf and ls_norm2_sq_lanczos. */
ircg_error ls_norm2_sq(const ls_data *d, double *out);
/* Lanczos on A'A from a random start: an upper bound of ||A||_2^2 with
 * probability 1 - 1e-10, at most 1% above it (see the definition). */
ircg_error ls_norm2_sq_lanczos(const ls_data *d, double *out);
/* Check that Q is symmetric and PSD; *lmax = its largest eigenvalue. */
ircg_error ls_check_Q(const double *Q, int n, double *lmax, ircg_diag *diag);

#endif /* IRCG_LS_H */
