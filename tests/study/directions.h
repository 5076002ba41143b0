/*
 * directions.h -- IR-CG's away-step and pairwise directions against its
 * Frank-Wolfe steps on the examples over the polytopes, to the certified
 * tolerances (inner_gap_rel, outer_gap_rel) = (1e-6, 1e-3): `study
 * directions` (directions_study.c) and its unit test
 * (tests/unit/solver/core/test_directions_study.c, which also checks that
 * the instances are the CLI's examples, bit for bit).
 *
 * The instances are built as `ircg example` builds them (the generator's
 * rows, clients/cli/examples_families.c and examples.c):
 *   portfolio            simplex, least squares with the quadratic outer
 *                        (index tracking: 20 periods, 40 assets)
 *   overparam-regression l1 ball of radius 110, 50 x 200 training rows,
 *                        50 validation rows (f* = 0: they interpolate too)
 *   overparam-300        the same with 300 validation rows (the shape of
 *                        issue 37's instance: f* > 0, the ball binding)
 *   box                  the least-norm example's 30 x 80 rows over the box
 *                        [-1.1, 1.1], f = 1/2 ||x||^2 (A^+ b has coordinates
 *                        beyond 1.1, and exact fits lie inside)
 */
#ifndef IRCG_STUDY_DIRECTIONS_H
#define IRCG_STUDY_DIRECTIONS_H

#include <stdint.h>

#include "ircg.h"

typedef enum dr_kind { DR_PORTFOLIO, DR_OVERPARAM, DR_OVERPARAM_300, DR_BOX, DR_NKIND } dr_kind;

typedef struct dr_inst {
    dr_kind kind;
    const char *name;
    int m, n, mv;
    double *A, *b, *Av, *bv, *Q; /* owned; Av, bv: validation; Q: the quadratic */
    ircg_domain dom;
    ircg_problem *pb;
} dr_inst;

/* 0 on success (dr_free frees it either way). */
int dr_make(dr_inst *s, dr_kind kind);
void dr_free(dr_inst *s);

/* The methods compared: Frank-Wolfe with the open loop (the default) and
 * the line search, away and pairwise with the line search. */
typedef struct dr_method {
    const char *label;
    ircg_step_rule rule;
    ircg_direction dir;
} dr_method;
#define DR_NMETHOD 4
extern const dr_method dr_methods[DR_NMETHOD];

/* How far a run got: its status (converged: the certified tolerances
 * held), iterations, seconds, and its last certificate's relative gaps
 * (inner: over g(x_0) - g_upper; outer: over max(|f|, |f_lower|)), f. */
typedef struct dr_result {
    ircg_status status;
    int64_t iterations;
    double seconds, inner_rel, outer_rel, f, f_lower;
} dr_result;

/* One run to (1e-6, 1e-3), certificates every 100 iterations, stopped at
 * time_limit seconds (0: none) or max_iter; 0 on success. */
int dr_run(const dr_inst *s, const dr_method *me, double time_limit, int64_t max_iter,
           dr_result *out);

#endif /* IRCG_STUDY_DIRECTIONS_H */
