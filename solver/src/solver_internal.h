/* solver_internal.h -- the solver handle, shared by solver.c and the
 * reference (g_opt) solver. */
#ifndef IRCG_SOLVER_INTERNAL_H
#define IRCG_SOLVER_INTERNAL_H

#include "oracle.h"

struct ircg_solver {
    const ircg_problem *pb; /* borrowed */
    ircg_settings set;      /* copy; x0 cleared after setup */
    void *ws;               /* the oracle's workspace, owned */
    int64_t t;              /* iterations done */
    double S;               /* S_t of Remark 1 */
    double elapsed;         /* seconds solved so far, across calls/restores */
    double setup_seconds;
    double lmo_seconds;
    int64_t lmo_matvecs;
    double last_gap, last_sigma;
    ircg_values vals;       /* at the current x_t, z_t */
};

/* The step of a rule for direction d (t = iteration, from 0). */
double ircg_step_size(ircg_step_rule rule, int64_t t, double sigma,
                      const ircg_dir *d, double L_f, double L_g);

void ircg_solver_refresh_values(ircg_solver *sv);

#endif /* IRCG_SOLVER_INTERNAL_H */
