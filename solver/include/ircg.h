/*
 * ircg.h -- public API of libircg, the iteratively regularized conditional
 * gradient (IR-CG) solver for convex simple bilevel problems
 *
 *     min f(x)  s.t.  x in argmin { g(z) : z in X }.
 *
 * The problem classes: least squares g(x) = 1/2 ||A x - b||^2 with A a
 * dense or sparse matrix, matrix completion (A the sampling operator
 * P_Omega), each with a convex quadratic f; and logistic regression, whose
 * g (and validation f) is convex and smooth but not quadratic.  X is
 * compact with a linear minimization oracle (LMO).
 *
 * Conventions (OSQP/SCS style):
 *  - functions that can fail return an ircg_error (0 = IRCG_OK) and, when the
 *    caller passes a non-NULL ircg_diag, fill it with the failing field and a
 *    message; the solver's outcome is a separate ircg_status;
 *  - every *_free accepts NULL;
 *  - inputs are deep-copied unless a comment says "borrowed"; outputs returned
 *    through pointer-to-pointer are owned by the caller and freed with the
 *    matching *_free;
 *  - no globals, no printing, no signal handlers.  The library is safe to use
 *    from several threads on distinct handles.
 */
#ifndef IRCG_H
#define IRCG_H

#include <stddef.h>
#include <stdint.h>

#define IRCG_VERSION "0.1.0"

/* The API in five parts, each including the one before it. */
#include "ircg/codes.h"
#include "ircg/ratings.h"
#include "ircg/problems.h"
#include "ircg/settings.h"
#include "ircg/solver.h"

#endif /* IRCG_H */
