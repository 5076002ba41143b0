/*
 * domain.h -- the vector feasible sets X of libircg: the l2 ball, the l1
 * ball, the scaled simplex {x >= 0, sum x = r} and the box [lower, upper]^n.
 *
 * For each: validation, a membership test, the linear minimization oracle
 * (LMO), the exact Euclidean projection, the diameter and the default start
 * point.  Also the projection onto the inequality simplex
 * {s >= 0, sum s <= delta}, which the nuclear-ball projection applies to a
 * vector of singular values.
 *
 * The nuclear ball is a matrix domain (mc_*.c); apart from validation and
 * the diameter, these functions reject it (slv_domain_is_vector()).
 */
#ifndef IRCG_DOMAIN_H
#define IRCG_DOMAIN_H

#include <stdint.h>

#include "ircg.h"

/* Radius > 0 finite (balls, simplex, nuclear ball); box: lower < upper, both
 * finite.  Fields: "/domain/kind", "/domain/radius", "/domain/lower",
 * "/domain/upper". */
ircg_error slv_domain_validate(const ircg_domain *d, ircg_diag *diag);

/* Is d one of the four vector domains (not the nuclear ball)? */
int slv_domain_is_vector(const ircg_domain *d);

/* Is x (length n) in X up to tol, relative to the domain's scale
 * s = max(1, radius) (box: max(1, |lower|, |upper|))?  For example the l2
 * ball accepts ||x|| <= r + tol s; the simplex x_i >= -tol s and
 * |sum x - r| <= tol s.  NaN entries are never inside. */
int slv_domain_contains(const ircg_domain *d, const double *x, int64_t n,
                         double tol);

/* v = a vertex of argmin_{v in X} <c, v>.  Deterministic tie-breaking:
 *  l2:      -r c/||c||; c = 0 gives r e_0;
 *  l1:      -r sign(c_i) e_i at the first i of largest |c_i|, sign(0) = +1
 *           (so c = 0 gives -r e_0);
 *  simplex: r e_i at the first i of smallest c_i;
 *  box:     lower where c_i >= 0, upper where c_i < 0.
 * d must be a vector domain. */
void slv_domain_lmo(const ircg_domain *d, const double *c, int64_t n, double *v);

/* x = argmin_{x in X} ||x - y|| (x may alias y).  l1 ball and simplex sort
 * a copy (O(n log n)), hence IRCG_ERR_NOMEM is possible. */
ircg_error slv_domain_project(const ircg_domain *d, const double *y, int64_t n,
                               double *x);

/* Euclidean diameter: balls 2r, simplex r sqrt(2) (r sqrt(2) also for n = 1,
 * an upper bound there), box (upper - lower) sqrt(n). */
double slv_domain_diameter(const ircg_domain *d, int64_t n);

/* The Frank-Wolfe gap <c, y> - min_{v in X} <c, v> at y for a gradient c
 * known to within e (|c* - c| <= e elementwise; e NULL: c is exact), and
 * in *err what it may err by: for every such c*, the gap of c* at y is at
 * most the returned value plus *err, every rounding of this computation
 * included (base/rounding.h).  d must be a vector domain. */
double slv_domain_fw_gap(const ircg_domain *d, const double *c, const double *e,
                         const double *y, int64_t n, double *err);

/* The default start: 0 projected onto X (simplex: its center r/n 1). */
void slv_domain_start(const ircg_domain *d, int64_t n, double *x);

/* The threshold of the projection onto {s >= 0, sum s = r} of a vector u
 * already sorted decreasingly (n >= 1): the projection is max(u - theta, 0)
 * and its support the first *rho entries. */
double slv_simplex_threshold_sorted(const double *u, int64_t n, double r,
                                     int64_t *rho);

/* Projection onto {s >= 0, sum s = r} (r > 0), x may alias y. */
ircg_error slv_project_simplex(const double *y, int64_t n, double r, double *x);

/* Projection onto the inequality simplex {s >= 0, sum s <= delta}: max(y, 0)
 * when its sum is <= delta (the identity for a point already inside), else
 * the projection onto the face sum s = delta.  x may alias y. */
ircg_error slv_project_simplex_ineq(const double *y, int64_t n, double delta,
                                     double *x);

#endif /* IRCG_DOMAIN_H */
