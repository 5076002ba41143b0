/*
 * oracle.h -- what a problem class implements for the algorithms.
 *
 * Two kinds of families.  The quadratic ones (least squares, matrix
 * completion) have g(x) = 1/2 ||r(x)||^2 with the residual r(x) = A x - b
 * affine in x (A a matrix, or P_Omega for matrix completion) and a
 * quadratic f, so Phi_sigma = sigma f + g is quadratic along any segment:
 * Phi(x + a d) = Phi(x) + a <grad Phi(x), d> + a^2/2 (sigma d'H_f d
 * + ||A d||^2), and the direction's curvatures give the exact step in
 * closed form.  The curved ones (logistic regression) have a g (and maybe
 * an f) that is convex and smooth but not quadratic: their direction says
 * so (slv_dir.curved) and the exact step is a 1-D minimization of the
 * convex Phi(x + a d) through the oracle's slope() (core/linesearch.c).
 * Every family keeps an affine "observation" vector of its iterate (the
 * residual r(x) = A x - b, or the margins A x of logistic regression),
 * updated along the segment at no extra product, from which g and
 * g - g(x*) are computed termwise.  The algorithms only ever ask for these
 * scalars, so they never see how an iterate is stored (a dense vector for
 * least squares and logistic regression, a factored
 * low-rank-plus-diagonal matrix for matrix completion).
 *
 * A workspace holds the current x_t, the averaged z_t, and the last LMO
 * vertex v_t.  It is created at the start point with z = x.
 */
#ifndef IRCG_ORACLE_H
#define IRCG_ORACLE_H

#include "ircg.h"
#include "base/util.h"
#include "base/comm.h"

/* The direction d = v - x found by the LMO for grad Phi_sigma(x). */
typedef struct slv_dir {
    double gphi_d;   /* <grad Phi_sigma(x), d>; -gphi_d is the FW gap (>= 0)*/
    double gphi_scale; /* size of the terms whose difference gphi_d is,
                        so that a few ulps of it bound its rounding
                        (reference.c): nuclear ball |<grad Phi, x>| +
                        delta sigma_max; least squares sum_i |grad_i|
                        (|x_i| + |v_i|) + sum_k |r_k| (|r_k| + |(A v - b)_k|)
                        -- the second sum is <grad g, x - v> written as
                        <r, A x - A v>, and covers the rounding of the
                        gradient A'r itself, which dominates when
                        grad g(x*) = 0 (an interior optimum)              */
    double gf_d;     /* <grad f(x), d>, by the quadratic families (least
                        squares, matrix completion) only: so that a caller
                        can weigh f and g along d otherwise than sigma
                        does (bisect/), <grad g(x), d> = gphi_d - sigma
                        gf_d                                               */
    double d_norm2;  /* ||d||^2 (Euclidean / Frobenius)                      */
    double d_hf_d;   /* d' (Hessian of f) d                                  */
    double d_hg_d;   /* d' (Hessian of g) d = ||A d||^2; matrix completion:
                        NaN unless need_hg (it costs a pass over Omega)    */
    double top_sv;   /* nuclear ball: sigma_max(grad Phi); NaN otherwise     */
    int64_t matvecs; /* operator applications spent by this LMO              */
    int64_t samples; /* row gradients of the finite sums it evaluated (vector
                        families: m, plus m_val for the validation loss)    */
    int converged;   /* the singular pair met lmo_tol (always 1 for vectors) */
    int curved;      /* Phi is not quadratic along d: d_hf_d and d_hg_d are
                        not given (0) and the exact step asks ops->slope  */
    int need_hg;     /* in: the caller reads d_hg_d (exact line search)      */
    ircg_direction direction; /* in: the direction's kind (settings.h); an
                        away or pairwise one puts in v the point
                        p = x + gamma_max d (problems/faces.h), so that
                        d = v - x above and a step in [0, 1] is capped at
                        the largest feasible one; only where the ops say
                        `directions`                                    */
    double fw_gap;   /* out, for an away or pairwise direction: the
                        Frank-Wolfe gap <grad Phi, x - s> of the LMO's
                        vertex s, whichever direction was taken         */
    double staged_seconds; /* seconds of this LMO's work made ahead by the
                        certificate of x (matrix completion: mc_lmo_stage),
                        in that certificate's time and not in this call's:
                        the LMO's work, which the caller moves back      */
} slv_dir;

/* A move d = x+ - x of the projection methods (grad_step below). */
typedef struct slv_move {
    double gf_d;     /* <grad f(x), d>                                       */
    double gg_d;     /* <grad g(x), d>                                       */
    double d_hf_d;   /* d' (Hessian of f) d                                  */
    double d_hg_d;   /* d' (Hessian of g) d = ||A d||^2                      */
    double d_norm2;  /* ||d||^2                                              */
    int64_t matvecs; /* operator applications of the projection             */
    int converged;   /* every singular triplet met lmo_tol                   */
    int full;        /* nuclear ball: the full SVD was used                  */
    int rank;        /* nuclear ball: rank of x+; 0 for vector domains       */
} slv_move;

/* What CG-BiO's oracle reports (lmo_cut below). */
typedef struct slv_cut_info {
    double f_gap;    /* <grad f(x), x - v> over the cut set, the outer gap  */
    double lambda;   /* multiplier of the cut at the dual optimum (>= 0)     */
    int slater;      /* Slater's condition held: b > min_X <grad g(x), v>    */
    int rank;        /* atoms of v: 1, or 2 when the optimal face is not a
                        single point and the cut is active                  */
    int evaluations; /* evaluations of the dual function                     */
    int64_t matvecs; /* operator applications                                */
    int converged;   /* every singular triplet met lmo_tol                   */
    double top_sv;   /* nuclear ball: sigma_max(C + lambda A); NaN otherwise */
} slv_cut_info;

/* The certificate that the inner solution set is a single point
 * (matrix completion: problems/mc/mc_certify.c says how each bound is
 * derived).  With G* the gradient shared by every inner solution and R the
 * gradient computed at the final iterate x^ of g_opt's computation:
 * |sigma_i(G*) - sv_i| <= bound, so sigma_1(G*) - sigma_2(G*) >= margin. */
typedef struct slv_unique {
    double sv1, sv2;        /* top singular values of R (dense eigensolve) */
    double sv_error;        /* |sigma_i(R) - sv_i|, i = 1, 2              */
    double grad_rounding;   /* ||G(x^) - R||_F                            */
    double gap;             /* g(x^) - g* <= gap, recomputed, rounding in */
    double nuc_excess;      /* max(0, ||x^||_* - delta)                    */
    double dist;            /* ||P_Omega(x^ - x*)||_F                      */
    double bound;           /* sv_error + grad_rounding + dist             */
    double margin;          /* sv1 - sv2 - 2 bound: > 0 proves uniqueness  */
    double f_vertex;        /* f(-delta u v') for the last LMO's top pair
                               (u, v) of R: f of the unique solution up to
                               the turn of that pair (NaN without an LMO) */
} slv_unique;

/* A certificate of one point y of a workspace (its x or its z), made
 * afresh from y itself -- never from the residuals the steps carry along,
 * which drift -- and without touching the workspace's state (the vertex,
 * the warm starts, the planned products), so that a solve takes the same
 * steps, bit for bit, whether or not it is certified.  Every rounding of
 * the computation is bounded (base/rounding.h); with u the unit roundoff,
 * the exact quantities satisfy
 *   |g(y) - g| <= g_err,   |f(y) - f| <= f_err,
 *   max_{v in X} <grad g(y), y - v>                 <= gap_g,
 *   g(y) - min_X g                                   <= sub_g <= gap_g,
 *   max_{v in X} <sigma grad f(y) + grad g(y), y - v> <= gap_phi (sigma > 0),
 *   Phi_sigma(y) - min_X Phi_sigma <= sub_phi <= gap_phi (sigma > 0),
 *   min_{v in X} f(v) >= f_floor,
 * so that g(y) - min_X g <= sub_g and min_X (sigma f + g) >= sigma f(y) +
 * g(y) - sub_phi (convexity: sub_g and sub_phi are the gaps, or less where
 * the family knows a curvature of g or f -- ls_cert.c's strongly convex bound, second
 * order in y's distance to Phi's minimizer where the Frank-Wolfe gap is
 * first order).  On the nuclear ball the largest singular value of the
 * gradient is bounded above by the Kato-Temple inequality when the
 * spectrum allows it, by a dense SVD on small matrices, else by the
 * Frobenius norm (problems/mc/mc_cert.c). */
#define SLV_CERT_NPHI 8
typedef struct slv_cert {
    double g, g_err;
    double f, f_err;
    double gap_g;
    double sub_g;    /* gap_g, or less where g has a certified curvature   */
    double gap_phi;  /* NaN when sigma = 0                                 */
    double sub_phi;  /* NaN when sigma = 0                                 */
    /* The suboptimality bound of Phi at other sigma too, where the oracle
     * has them for little more (vector domains: sigma 4^k, k = -4..4 but
     * 0, from the same gradients; nothing on the nuclear ball, where each
     * is a Lanczos process): each gives its own lower bound of f*. */
    int nphi;
    double phi_sigma[SLV_CERT_NPHI], phi_sub[SLV_CERT_NPHI];
    double f_floor;  /* -INFINITY when nothing better is known             */
    int64_t matvecs; /* operator applications spent                       */
    int sharp;       /* nuclear ball: 1 when every sigma_1 was bounded by
                        Kato-Temple, 0 when one needed the Frobenius norm;
                        vector domains: 1                                 */
} slv_cert;

/* Slots of grad_step / accept. */
#define IRCG_SLOT_X 1u
#define IRCG_SLOT_Z 2u

typedef struct slv_values {
    double g_x, f_x, g_z, f_z;
    double g_gap_x, g_gap_z; /* g - g_ref by the difference formula; NaN when
                                no reference residual was given             */
    int rank;                /* MC: atoms of x (0 for vector problems); the
                                caller zero-fills the struct first          */
} slv_values;

typedef struct slv_oracle_ops {
    const char *name;
    /* 1: lmo() takes the away and pairwise directions (slv_dir.direction)
     * on the polytopes of problems/faces.h; 0: Frank-Wolfe only. */
    int directions;

    /* Allocate a workspace for pb with x = z = the start point of s (s->start,
     * s->x0); also reads s->threads, s->lmo_tol, s->lmo_max_matvecs. */
    ircg_error (*create)(const ircg_problem *pb, const ircg_settings *s,
                         void **ws, ircg_diag *diag);
    void (*destroy)(void *ws);

    /* v = argmin_{v in X} <sigma grad f(x) + grad g(x), v>; keeps v. */
    ircg_error (*lmo)(void *ws, double sigma, slv_dir *dir);

    /* x' = x + alpha (v - x), then z' = cz z + cx_old x + cx_new x'. */
    ircg_error (*step)(void *ws, double alpha, double cz, double cx_old,
                       double cx_new);

    /* g and f at x and z.  ref_residual (length n_observed, may be NULL) is
     * r(x*) of a reference point: then g - g(x*) is computed termwise,
     * sum 1/2 (r - r*)(r + r*) with compensated summation (matrix
     * completion: sum 1/2 (r^2 - Q~) against r*^2 in 16 bits, Q~, and a
     * constant, mc_sweep.c). */
    void (*values)(void *ws, const double *ref_residual, slv_values *out);

    /* The observation vector of x or z, length n_observed, owned by ws:
     * the residual r(x) = A x - b of the quadratic families, the margins
     * A x of logistic regression.  values() takes the reference's.  Made
     * on demand by some problems: NULL when out of memory. */
    const double *(*residual)(void *ws, ircg_which which);

    /* d/da Phi_sigma(x + a (v - x)) for the last LMO's v, a in [0, 1]:
     * the exact step along a curved direction.  NULL for the quadratic
     * families (their directions are never curved). */
    double (*slope)(void *ws, double sigma, double a);

    ircg_error (*iterate)(void *ws, ircg_which which, int want_dense,
                          ircg_iterate **out);

    /* Top k (<= 4) singular values of grad g at x; NULL for vector domains.*/
    ircg_error (*grad_singular_values)(void *ws, int k, double *sv);
    /* The certificate of a single inner solution at x (slv_unique); NULL
     * where the family has none.  IRCG_ERR_INVALID when too large. */
    ircg_error (*certify_unique)(void *ws, slv_unique *out);

    /* The whole workspace state (x, z, warm starts) for checkpoints. */
    ircg_error (*save)(void *ws, slv_buf *out);
    ircg_error (*restore)(void *ws, slv_rbuf *in, ircg_diag *diag);
    /* Optional (NULL: the family is never spread over processes, and
     * save() is the whole state): for a problem spread over processes, the
     * whole instance's n_observed and data digest and this process's rank,
     * then save()'s layout for the whole instance, written to s by rank 0
     * (ircg_solver_save_whole).  Collective: every rank calls both, in
     * that order.  On one process: the instance's own, and save(). */
    ircg_error (*whole_identity)(void *ws, int *rank, int64_t *n_observed,
                                 uint64_t *digest);
    ircg_error (*save_whole)(void *ws, slv_sink *s);
    /* Optional, with save_whole: its inverse for this rank -- the
     * workspace part of a whole state, read from src, rewritten into out
     * as save() would have written this process's part of it
     * (ircg_solver_restore_whole).  Collective. */
    ircg_error (*split_whole)(void *ws, slv_csrc *src, slv_buf *out, ircg_diag *diag);
    /* z <- x: the averaged iterate starts again at the current x (a run
     * started afresh from a saved state, ircg_solver_restore_as). */
    ircg_error (*restart)(void *ws);

    /* Optional (NULL: none): the reference residual (may be NULL) whose
     * differences values() will be asked for, so that the steps can sum
     * them as they go.  Borrowed until the next call. */
    void (*set_reference)(void *ws, const double *ref_residual);
    /* Optional (NULL: none): the next lmo() will be at this sigma, from the
     * vertex the next step() moves to, so that step() may prepare it.
     * Holds for that one step. */
    void (*plan_lmo)(void *ws, double sigma);

    /* The certificate of x or z (slv_cert above); sigma >= 0 also bounds
     * the gap of Phi_sigma = sigma f + g there (sigma = 0: gap_phi NaN).
     * Scratch is the workspace's own, made on first use. */
    ircg_error (*certify)(void *ws, ircg_which which, double sigma, slv_cert *out);

    /* Optional (NULL: certificates are made on the solve's thread only):
     * a copy of what certify reads of x and z, certified on another
     * thread while the workspace moves on (core/cert_async.c).  snap_new
     * makes an empty one (NULL: none can be had), snap_take fills it with
     * the workspace's state of the moment, certify(snap, ...) then gives
     * the bits certify(ws, ...) would have given at that state, snap_done
     * gives the workspace what the certificates on it counted (passes),
     * snap_free frees it (before the workspace: it may share the
     * workspace's certificate buffers, one certificate at a time). */
    void *(*snap_new)(void *ws);
    ircg_error (*snap_take)(void *ws, void *snap);
    void (*snap_done)(void *ws, void *snap);
    void (*snap_free)(void *snap);

    /* Optional (NULL: none): the passes over the data made since create,
     * their bytes by the kernels' traffic model, and the threads used. */
    void (*traffic)(void *ws, int64_t *passes, double *bytes, int *threads);
} slv_oracle_ops;

/* CG-BiO's oracle (baselines/cgbio/), on the workspace of the problem's
 * conditional-gradient oracle (ops). */
typedef struct slv_cut_ops {
    /* v = argmin <grad f(x), v> over X cut by the half-space
     * {v : <grad g(x), v - x> <= slack} (the paper's SNB-LO and NB-BLO on
     * the nuclear ball), kept for cut_step.  The cut set holds x when
     * slack >= 0; for slack < 0 it may be empty: then v minimizes
     * <grad g(x), v> over X and, among those, <grad f(x), v>. */
    ircg_error (*lmo_cut)(void *ws, double slack, slv_cut_info *info);
    /* x <- (1 - gamma) x + gamma v, z <- x. */
    ircg_error (*cut_step)(void *ws, double gamma);
} slv_cut_ops;

/* The moves of the projection methods IR-PG and Bi-SG (baselines/proj/),
 * on the workspace of the problem's prox_ops. */
typedef struct slv_proj_ops {
    /* With y the point in slot `from` (IRCG_SLOT_X or IRCG_SLOT_Z), the
     * pending point becomes Proj_X(y - a_f grad f(y) - a_g grad g(y))
     * (project = 1, mode says how on the nuclear ball) or y - a_f grad f(y)
     * (project = 0, a_g must be 0); mv describes d = pending - y (NULL: the
     * caller needs none of its scalars, which are then not computed). */
    ircg_error (*grad_step)(void *ws, unsigned from, double a_f, double a_g,
                            int project, ircg_projection mode, slv_move *mv);
    /* The slots in the mask `into` take the pending point. */
    ircg_error (*accept)(void *ws, unsigned into);
} slv_proj_ops;

/* The finite sums of the stochastic methods (core/alg_sto.c): g = sum_k
 * g_k over the m rows of A, and f either a sum of its own over m_f rows
 * (the validation loss) or not a sum at all (a norm, a distance, a
 * quadratic: its gradient is exact and costs O(n) or O(n^2)).  On the
 * workspace of the problem's sto_ops, which keeps x, z and the last
 * vertex but no residuals or margins: a step costs O(n), a sampled
 * gradient only its rows, and its certify op (oracle.h) recomputes
 * everything from the point at the certificates' cadence. */
typedef struct slv_sto_ops {
    /* m (outer = 0: g) or m_f (outer = 1: f; 0 when f is no sum). */
    int64_t (*rows)(void *ws, int outer);
    /* out += s * sum_{i < k} grad h_{idx[i]}(y), h = g (outer 0) or f
     * (outer 1, a sum): the rows idx[0..k) only, in that order. */
    void (*grad_rows)(void *ws, int outer, const double *y, const int64_t *idx,
                      int64_t k, double s, double *out);
    /* out = grad h(y): one pass over every row of h, in row order (or f's
     * exact gradient when f is no sum). */
    void (*grad_full)(void *ws, int outer, const double *y, double *out);
    /* The workspace's x_t (IRCG_X) or z_t, n doubles; moved by step(). */
    const double *(*point)(void *ws, ircg_which which);
    /* v = argmin_{v in X} <c, v>, kept for step(); dir->gphi_d = <c, v - x>,
     * gphi_scale and d_norm2 as for lmo(). */
    void (*lmo_dir)(void *ws, const double *c, slv_dir *dir);
} slv_sto_ops;

/* The oracle of the methods that move a point freely and project it onto
 * X (FC-BiO, bisect/): f, g and their gradients at any point y, on the
 * workspace of the problem's point_ops (which keeps x, z and the last
 * point as plain vectors -- a small matrix completion's as dense held
 * matrices -- and certifies them from the point).  The "observation" o(y)
 * is affine in y -- A y - b, A y, the validation rows' A_v y - b_v, Q y,
 * the residual on Omega and the column sums -- so that a
 * combination of points with weights summing to 1 has the same
 * combination of observations: an extrapolated point costs no product. */
typedef struct slv_point_ops {
    /* n, the length of y: the problem's dimension, or on a compacted
     * matrix completion the held rows times the held columns. */
    int64_t (*dim)(void *ws);
    int64_t (*obs_len)(void *ws);
    /* o = o(y): the products with A (and A_v or Q). */
    void (*observe)(void *ws, const double *y, double *o);
    /* f(y) and g(y) from y and o = o(y) (compensated sums). */
    void (*values)(void *ws, const double *y, const double *o, double *f, double *g);
    /* gf = grad f(y), gg = grad g(y) from y and o = o(y). */
    void (*grads)(void *ws, const double *y, const double *o, double *gf, double *gg);
    /* out = Proj_X(y) (out may alias y). */
    ircg_error (*project)(void *ws, const double *y, double *out);
    /* The workspace's x (IRCG_X) or z, n doubles; set_point copies y into
     * it, with its f and g, which the workspace's values op then reports
     * (the certificates, iterates and checkpoints are of these points). */
    const double *(*point)(void *ws, ircg_which which);
    void (*set_point)(void *ws, ircg_which which, const double *y, double f, double g);
} slv_point_ops;

/* The two-stage method's oracle (twostage/), on the point oracle's
 * workspace, for a family whose g depends on x through A x alone and is
 * strictly convex there (least squares): every inner solution has the
 * same A x, so the inner solution set is the affine section {x in X :
 * A x = A x*} of X, and with a quadratic f stage 2 is a quadratic program
 * the method solves densely. */
typedef struct slv_affine_ops {
    /* m, the rows of A. */
    int64_t (*rows)(void *ws);
    /* f(x) = 1/2 x'H x + q'x + const: H (n x n, symmetric, column-major
     * and row-major alike) and q (n). */
    ircg_error (*quadratic)(void *ws, double *H, double *q);
    /* The Gram matrix of A's smaller side: A'A (n x n) when n <= m, else
     * A A' (m x m); *side is its order. */
    ircg_error (*gram)(void *ws, double *G, int64_t *side);
    /* y = A x (m) and x = A'y (n). */
    void (*apply)(void *ws, const double *x, double *y);
    void (*apply_t)(void *ws, const double *y, double *x);
    /* The Lagrangian lower bound of f* (ls_cert_lagrange): for any nu in
     * R^m, xh in X with g(xh) - g* <= tau and w in X; rounded down. */
    ircg_error (*lagrange)(void *ws, const double *w, const double *xh, const double *nu,
                           double tau, double *f_lower);
} slv_affine_ops;

/* A problem joins its family's oracle (problems/) with the oracles of the
 * methods built on it (baselines/); core/families.c wires them. */
struct ircg_problem {
    ircg_problem_info info;
    const slv_oracle_ops *ops;      /* conditional-gradient methods        */
    const slv_cut_ops *cut;         /* CG-BiO, on ops' workspace           */
    const slv_oracle_ops *prox_ops; /* projection methods (may equal ops)  */
    const slv_proj_ops *proj;       /* their moves, on prox_ops' workspace */
    const slv_oracle_ops *sto_ops;  /* the stochastic methods' workspace   */
    const slv_sto_ops *sto;         /* their finite sums, on it (NULL: the
                                       problem is no finite sum)         */
    const slv_oracle_ops *point_ops;/* FC-BiO's workspace                  */
    const slv_point_ops *point;     /* its point oracle, on it (NULL: no
                                       projection onto X is offered)     */
    const slv_affine_ops *affine;   /* the two-stage method's, on it (NULL:
                                       the inner set is not known affine
                                       or f is not quadratic)            */
    const ircg_comm *comm;          /* NULL, or the processes that share a
                                       distributed problem (borrowed)      */
    double f_slope;                 /* ||grad f||, when f is affine (L_f =
                                       0: a quadratic outer with Q = 0),
                                       for ircg_varsigma_scale; else 0   */
    void *data;                     /* class-specific, owned               */
    void (*free_data)(void *data);
};

/* The tables, by family and method */
extern const slv_oracle_ops slv_mc_ops;      /* problems/mc/mc_ops.c          */
extern const slv_oracle_ops slv_ls_ops;      /* problems/ls/ls_oracle.c       */
extern const slv_cut_ops slv_mc_cut_ops;     /* baselines/cgbio/mc_cut.c      */
extern const slv_cut_ops slv_ls_cut_ops;     /* baselines/cgbio/ls_cut.c      */
extern const slv_oracle_ops slv_mc_prox_ops; /* baselines/proj/mc_prox.c      */
extern const slv_proj_ops slv_mc_proj_ops;   /* baselines/proj/mc_prox_step.c */
extern const slv_proj_ops slv_ls_proj_ops;   /* baselines/proj/ls_prox.c      */
extern const slv_oracle_ops slv_lr_ops;      /* problems/logreg/lr_oracle.c   */
extern const slv_oracle_ops slv_ls_sto_ops;  /* problems/ls/ls_sto.c          */
extern const slv_sto_ops slv_ls_sto;         /* problems/ls/ls_sto.c          */
extern const slv_point_ops slv_ls_point;     /* problems/ls/ls_point.c        */
extern const slv_affine_ops slv_ls_affine;   /* problems/ls/ls_affine.c       */

#endif /* IRCG_ORACLE_H */
