/*
 * faces.h -- the away-step and pairwise directions of IR-CG on the
 * polytopes among the vector domains (domain.h): the simplex, the l1 ball
 * and the box.
 *
 * Decomposition-invariant (Garber and Meshi 2016): no active set is kept.
 * Each polytope is the image of simplices under a linear map whose
 * canonical preimage of x is a function of x alone -- the simplex its own
 * (weights x_i / r), the l1 ball that of the simplex over the 2n + 1
 * atoms +-r e_i and 0 (weights |x_i| / r on r sign(x_i) e_i, and the slack
 * 1 - ||x||_1 / r on 0), the box the product of its n edges [l, u] -- and
 * the away vertex a is the worst atom, argmax <c, a>, of that preimage's
 * support, i.e. of the smallest face that holds x.  For the simplex this
 * is the active set of Lacoste-Julien and Jaggi's away-step and pairwise
 * Frank-Wolfe exactly (its decomposition is unique); for the box it is
 * Garber and Meshi's away vertex over the cube.  docs/DESIGN.md has the
 * formulas and what is proved of them.
 *
 * Given the gradient c at x and the LMO's vertex s, slv_face_target chooses
 * the move (away: the Frank-Wolfe direction s - x when its gap <c, x - s>
 * is at least the away gap <c, a - x>, else x - a; pairwise: s - a) and
 * gamma_max, the step at which a's weight in that decomposition reaches
 * 0 (on the simplex and the box the largest that stays in X; on the l1
 * ball the lifted simplex's), and writes the
 * target p = x + gamma_max d in place of s: the step rules then take
 * alpha in [0, 1] along p - x, capped at gamma_max by construction.  A
 * coordinate that reaches a bound at gamma_max (the dropped atom's) is set
 * to it exactly, so a drop step lands on the smaller face to the bit and
 * the next minimal face is read off x exactly.
 */
#ifndef IRCG_FACES_H
#define IRCG_FACES_H

#include <stdint.h>

#include "ircg.h"

typedef enum slv_move_kind {
    SLV_MOVE_FW = 0,  /* d = s - x: s stays the target, nothing written     */
    SLV_MOVE_AWAY,    /* d = x - a                                          */
    SLV_MOVE_PAIRWISE /* d = s - a                                          */
} slv_move_kind;

typedef struct slv_face_move {
    slv_move_kind kind;
    double gamma_max; /* where a's weight reaches 0 (FW: 1)                 */
    /* p = x + kappa x + lin: how an observation vector o(y) = A y (+ const)
     * follows the move at no product with a dense x -- o(p) = o(x) +
     * kappa A x + A lin, lin having at most two nonzeros on the simplex
     * and the l1 ball (on the box, lin = p - x and kappa = 0) */
    double kappa;
    double fw_gap;    /* <c, x - s>, the Frank-Wolfe gap                     */
    double away_gap;  /* <c, a - x>; -INFINITY when x has no away vertex    */
    int drop;         /* gamma_max is where the away atom leaves the support */
} slv_face_move;

/* Is the domain one of the polytopes these directions apply to? */
int slv_face_domain(const ircg_domain *dom);

/* For mode AWAY or PAIRWISE on a polytope (slv_face_domain): c the
 * gradient at x, v the LMO's vertex s of c (slv_domain_lmo), lin scratch of
 * n doubles.  On a move other than SLV_MOVE_FW, v becomes the target p
 * (in X) and lin the move's part along the atoms (above); on SLV_MOVE_FW
 * (the away mode's choice, or no away move that descends) v and lin are
 * left as they are.  mv->fw_gap is summed as -sum_i c_i (s_i - x_i) in
 * index order, compensated: the bits of the negated slope of s - x the
 * oracles compute. */
void slv_face_target(const ircg_domain *dom, ircg_direction mode, const double *c,
                     const double *x, int64_t n, double *v, double *lin,
                     slv_face_move *mv);

#endif /* IRCG_FACES_H */
