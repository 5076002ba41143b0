/*
 * arpack.h -- the top singular pair by ARPACK-ng (dsaupd/dseupd on C'C),
 * for comparison with the reentrant Lanczos of lanczos.c.  ARPACK keeps
 * Fortran SAVE state between calls, so every use goes through one
 * process-wide mutex (the library's only global).
 */
#ifndef IRCG_LMO_ARPACK_H
#define IRCG_LMO_ARPACK_H

#include "lmo/lanczos.h"

/* Same contract as lmo_lanczos_run with nsv = 1; tn is scratch of length n. */
ircg_error lmo_arpack_run(int n, int p, lmo_op_fn op, void *ctx, const double *v0,
                         double tol, int64_t max_mv, double *tn, lmo_svd_out *out);

#endif /* IRCG_LMO_ARPACK_H */
