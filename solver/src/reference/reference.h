/* reference.h -- the inner optimum x* as the solvers use it: g(x*) and the
 * residual r(x*), so g(x) - g(x*) is a termwise sum, not a difference of two
 * numbers near 7e6 (docs/DESIGN.md, "Tracing g - g_opt"). */
#ifndef IRCG_REFERENCE_H
#define IRCG_REFERENCE_H

#include "ircg.h"

struct ircg_reference {
    ircg_reference_info info;
    double *residual;   /* r(x*), length n; NULL when known by value only */
    int64_t n;
};

#endif /* IRCG_REFERENCE_H */
