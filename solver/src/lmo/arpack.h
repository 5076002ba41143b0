/*
 * arpack.h -- the top singular pair by ARPACK-ng (dsaupd/dseupd on C'C):
 * the LMO engine a job selects with "lmo": {"engine": "arpack"}
 * (settings.lmo_engine), beside the default reentrant Lanczos of
 * lanczos.c.  ARPACK keeps Fortran SAVE state between calls, so every solve
 * holds one process-wide mutex (arpack.c; the library's only global): jobs
 * on several workers take turns in their LMOs.  A distributed problem runs
 * the engine its communicator brings (ircg_comm.top_eig: PARPACK in
 * ircg-mpi) on the same eigenproblem, under the same mutex.
 */
#ifndef IRCG_LMO_ARPACK_H
#define IRCG_LMO_ARPACK_H

#include "lmo/gram.h"
#include "lmo/lanczos.h"

/* Lanczos basis size (NCV) of both: ARPACK fills it before its first
 * convergence test, so a small one suits a warm start (20 gave 43 products
 * per LMO, 4 gave fewer; see the report of the benchmark). */
#ifndef LMO_ARPACK_NCV
#define LMO_ARPACK_NCV 4
#endif

/* Same contract as lmo_lanczos_run with nsv = 1; tn is scratch of length n. */
ircg_error lmo_arpack_run(int n, int p, lmo_op_fn op, void *ctx, const double *v0,
                         double tol, int64_t max_mv, double *tn, lmo_svd_out *out);

/* The products of a distributed C (rows [row0, row0 + n) here, columns
 * replicated): gram makes the replicated C'C x (collective; its C x, this
 * rank's rows, goes to the scratch cx of length n), op(ctx, 0, v, u) this
 * rank's rows of C v. */
typedef struct lmo_dist_ops {
    lmo_gram_fn gram;
    void *gram_ctx;
    double *cx;
    lmo_op_fn op;
    void *op_ctx;
} lmo_dist_ops;

/* lmo_arpack_run for a distributed C through c->top_eig (which must be
 * set): the eigenproblem on C'C, whose vectors (v) are replicated, then u
 * = C v / s with this rank's rows in out->u.  Collective; a failure is
 * every rank's (top_eig agrees on it). */
ircg_error lmo_arpack_dist_run(const ircg_comm *c, int n, int row0, int p,
                              const lmo_dist_ops *ops, const double *v0, double tol,
                              int64_t max_mv, lmo_svd_out *out);

#endif /* IRCG_LMO_ARPACK_H */
