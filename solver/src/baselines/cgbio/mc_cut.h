/*
 * mc_cut.h -- internals of CG-BiO's oracle on the nuclear ball (the paper's
 * SNB-LO and NB-BLO, the paper's Appendix A.2), shared by mc_cut.c (the oracle on the
 * implicit operators), mc_cut_space.c (singular subspaces by deflated
 * Lanczos) and mc_nbblo.c (the problem restricted to a small subspace).
 *
 *   min <C, V>  s.t.  ||V||_* <= delta,  <A, V> <= b,
 *   C = grad f(X), A = grad g(X) = P_Omega(X - M), b = <A, X> + slack.
 *
 * Restricted to V = W R' with R (p x k) orthonormal, ||W R'||_* = ||W||_*,
 * so the problem becomes the same problem on the n x k matrices C R and A R
 * with a smaller feasible set: its solution is feasible for the full problem
 * and optimal for it as soon as span R holds the right singular vectors of
 * the optimal face.  mc_nbblo.c solves that small problem to rounding
 * accuracy from the k x k Grams of C R and A R.
 */
#ifndef IRCG_MC_CUT_H
#define IRCG_MC_CUT_H

#include "problems/mc/mc.h"

/* Subspace size: up to 4 vectors of the top singular cluster (the brief of
 * NB-BLO) plus the two Brent points nearest to lambda* on either side. */
#define MC_CUT_KMAX 6

/* Cluster tolerances, relative to sigma_max:
 * - MC_CUT_TAU_SPACE: singular values of the implicit operator within this
 *   of the top one join the subspace (deflated Lanczos).  Generous on
 *   purpose: an extra vector only enlarges the restricted problem.
 * - MC_CUT_TAU_FACE: in the restricted problem at the refined multiplier,
 *   singular values within this of the top one form the optimal face of
 *   Lemma A.2.  The Grams give them to about 1e-15 relative. */
#define MC_CUT_TAU_SPACE 1e-4
#define MC_CUT_TAU_FACE 1e-9

struct mc_cut {
    int n, p;
    /* the vertex kept for mc_cut_step: V = theta V1 + (1 - theta) V2 with
     * V_i = -delta u_i v_i' (unit u_i, v_i); rank 1 uses V1 only */
    int pending, rank;
    double theta;
    double *u1, *v1, *u2, *v2;
    /* scratch of one oracle call; nothing here is read by a later call, so
     * a checkpoint (which does not hold it) still continues bit for bit */
    double *R, *CR, *AR;          /* p x KMAX, n x KMAX, n x KMAX          */
    double *uA, *vA, *uC, *vC;    /* top pairs of A and C                  */
    double *ub, *vb, *ue, *ve;    /* Brent's best point, the last one      */
    double *rlo, *rhi;            /* right vectors nearest lambda* (p)     */
    double *tn, *tp, *tp2;        /* n, p, p                               */
};

/* --- mc_cut_space.c: top singular pairs of C + lambda A ------------------ */

typedef struct mc_cut_run {
    mc_ws *w;
    struct mc_cut *c;
    int64_t matvecs;
    int converged;
} mc_cut_run;

/* Top singular triplet of wf C + wg A restricted to the complement of the
 * first `nd` columns of R (nd = 0: the whole operator), warm started from
 * v0 (may be NULL).  *zero is set when the operator vanished. */
ircg_error mc_cut_top(mc_cut_run *run, double wf, double wg, int nd,
                      const double *v0, double *s, double *u, double *v,
                      int *zero);
/* y = (wf C + wg A) x (n), counted. */
void mc_cut_apply(mc_cut_run *run, double wf, double wg, const double *x,
                  double *y);
/* Append x (p) to the k columns of R, orthonormalized; returns the new k
 * (unchanged when x is numerically in span R or k == MC_CUT_KMAX). */
int mc_cut_add_vector(struct mc_cut *c, int k, const double *x);
/* Extend R[:, k0 .. ) by the right singular vectors of wf C + wg A whose
 * singular values are >= (1 - MC_CUT_TAU_SPACE) s1, R[:, k0] being the top
 * one; at most 4 in all.  start (may be NULL) seeds the deflated runs.
 * Returns the new column count in *k. */
ircg_error mc_cut_cluster(mc_cut_run *run, double wf, double wg, double s1,
                          const double *start, int *k);

/* --- mc_nbblo.c: the problem on span R --------------------------------- */

/* The Grams of C R and A R (k x k, column-major, leading dimension k). */
typedef struct nb_red {
    int k;
    double delta;
    double b;                      /* = <A, X> + slack                     */
    double Gcc[MC_CUT_KMAX * MC_CUT_KMAX];
    double Gca[MC_CUT_KMAX * MC_CUT_KMAX]; /* (C R)' (A R)                  */
    double Gaa[MC_CUT_KMAX * MC_CUT_KMAX];
} nb_red;

/* An atom -delta u r' with r = R y and u = (ps C + pt A) R y normalized. */
typedef struct nb_atom {
    double y[MC_CUT_KMAX];
    double ps, pt;
} nb_atom;

typedef struct nb_sol {
    int rank;        /* 1 or 2                                             */
    double theta;    /* weight of at[0]; at[1] gets 1 - theta              */
    nb_atom at[2];
    double lambda;   /* multiplier of the cut; NaN for the A face          */
    double sigma;    /* sigma_max((C + lambda A) R), or of A R             */
} nb_sol;

/* NB-BLO on span R: the point of the face
 * argmin { <P, V> : ||V||_* <= delta } minimizing <Q, V> with P = A and
 * Q = C, the case where Slater's condition fails. */
ircg_error nb_face_of_A(const nb_red *r, nb_sol *out);
/* SNB-LO on span R when Slater's condition holds there:
 * the multiplier by bisection on the sign of a subgradient of the dual, then
 * NB-BLO at it with the rank-2 correction.  IRCG_ERR_NUMERICAL when the
 * restricted problem has no Slater point (span R lacks a feasible vertex). */
ircg_error nb_solve_cut(const nb_red *r, nb_sol *out);
/* <Q, V> of an atom with Q = qs C + qt A. */
double nb_atom_value(const nb_red *r, const nb_atom *at, double qs, double qt);

#endif /* IRCG_MC_CUT_H */
