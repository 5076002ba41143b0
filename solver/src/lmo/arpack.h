/*
 * arpack.h -- the top singular pair by ARPACK-ng (dsaupd/dseupd on C'C):
 * the LMO engine a job selects with "lmo": {"engine": "arpack"}
 * (settings.lmo_engine), beside the default reentrant Lanczos of
 * lanczos.c.  ARPACK keeps Fortran SAVE state between calls, so every solve
 * holds one process-wide mutex (arpack.c; the library's only global): jobs
 * on several workers take turns in their LMOs.
 */
#ifndef IRCG_LMO_ARPACK_H
#define IRCG_LMO_ARPACK_H

#include "lmo/lanczos.h"

/* Same contract as lmo_lanczos_run with nsv = 1; tn is scratch of length n. */
ircg_error lmo_arpack_run(int n, int p, lmo_op_fn op, void *ctx, const double *v0,
                         double tol, int64_t max_mv, double *tn, lmo_svd_out *out);

#endif /* IRCG_LMO_ARPACK_H */
