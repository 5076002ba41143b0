/*
 * ircg/settings.h -- part of libircg's public API: solver settings with
 * their defaults, the communicator of a distributed solve. Include <ircg.h>,
 * which includes every part in order; the conventions of the whole API are
 * written at its top.
 */
#ifndef IRCG_SETTINGS_H
#define IRCG_SETTINGS_H

#include "problems.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- settings -- */

typedef enum ircg_algorithm {
    IRCG_ALG_IRCG = 0, /* Algorithm 1 of the paper                          */
    IRCG_ALG_CGBIO,    /* CG-BiO, Jiang, Abolfazli, Mokhtari, Hamedani 2023:
                          conditional gradient over X cut by the half-space
                          {v : <grad g(x_k), v - x_k> <= g(x'_0) - g(x_k)},
                          from a warm start x'_0 with gap_g <= eps_g / 2    */
    IRCG_ALG_IRPG,     /* IR-PG, Solodov 2007: x+ = Proj_X(x - a grad Phi_t)
                          with Armijo backtracking, same sigma_t as IR-CG   */
    IRCG_ALG_BISG,     /* Bi-SG, Merchav and Sabach 2023: y_k = Proj_X(x_{k-1}
                          - t grad g(x_{k-1})), x_k = y_k - c k^-alpha grad f(y_k) */
    /* The stochastic methods of Giang-Tran, Shafiee and Ho-Nguyen 2025
     * (core/alg_sto.c) for the finite sums of least squares and logistic
     * regression, g = sum_k g_k over the rows of A (and f over the
     * validation rows when it is the validation loss); matrix completion
     * is refused.  Both take open-loop steps and the averaged z of IR-CG. */
    IRCG_ALG_IRSCG,    /* IR-SCG: STORM estimators of grad f and grad g from
                          `batch` rows drawn per step, alpha_t = 2/(t+2)   */
    IRCG_ALG_IRFSCG,   /* IR-FSCG: SPIDER estimators, the full gradients
                          every q steps and `batch` rows in between;
                          alpha_t = log(q)/q for t < q, then 2/(t+2), and
                          sigma_t = varsigma (max(t, q) + 1)^-p           */
    /* The bisection methods on the level of f (solver/src/bisect/, after
     * FC-BiO: Zhang, Chen, Xu, Zhang, NeurIPS 2024, arXiv 2409.06530).
     * First g* is bracketed by certificates; then a level t of f is
     * accepted when a point has f <= t + eps_f and g <= g_upper + eps_g,
     * and rejected when a certificate proves min_X max(f - t, g -
     * g_upper) > 0, which proves t < f*: f_lower is the greatest level
     * rejected.  They aim at settings.stop, a side it leaves out (no
     * inner or no outer tolerance) taking IRCG_BISECT_INNER_REL or
     * IRCG_BISECT_OUTER_REL, end CONVERGED when it holds for z, their
     * answer (x is the inner solver's current point), and take no
     * varsigma, p or step rule. */
    IRCG_ALG_FCBIO,    /* the inner problems by Nesterov's accelerated
                          method for a max of two smooth functions, with
                          projections onto X: least squares and logistic
                          regression over the vector domains, and small
                          matrix completions (one process, n p min(n, p)
                          <= IRCG_FCBIO_MC_MAX_WORK: a dense SVD per
                          projection)                                   */
    IRCG_ALG_FCBIO_CG, /* the inner problems by conditional gradient on
                          their softmax smoothing, with the LMO only: the
                          nuclear ball too (matrix completion) and least
                          squares; not logistic regression             */
    IRCG_ALG_TWOSTAGE  /* the two-stage method (twostage/): g alone by
                          an accelerated projected gradient, then f over
                          the affine inner solution set {A x = A xh} by
                          ADMM, certified by its multiplier: least
                          squares with a quadratic f over the vector
                          domains, dense (IRCG_TWOSTAGE_MAX_DIM)        */
} ircg_algorithm;

/* The two-stage method's dense stage 2 factors an n x n matrix and the
 * Gram matrix of A's smaller side (at most n x n): offered while n is at
 * most this (about 3 GFlop a factorization, 32 MB a matrix). */
#define IRCG_TWOSTAGE_MAX_DIM 2000

/* certify_async's copies of x and z on Omega in flight at most (the
 * certificates of a 110-iteration run, t = 0 to 64). */
#define IRCG_CERT_ASYNC_COPIES 8

/* FC-BiO on matrix completion projects onto the nuclear ball by a dense
 * SVD of the held n x p matrix: offered while n p min(n, p), the SVD's
 * work, is at most this (300 x 300; ~27 ms of CPU an SVD here, ~0.15 s a
 * step).  Beyond, FC-BiO-CG or IR-CG. */
#define IRCG_FCBIO_MC_MAX_WORK 2.7e7

/* How IR-PG and Bi-SG project onto the nuclear ball (vector domains have
 * exact closed-form or sort-based projections and ignore this). */
typedef enum ircg_projection {
    IRCG_PROJ_PARTIAL = 0, /* the leading singular triplets by Lanczos on the
                              implicit matrix, accepted only when the next
                              singular value is certified at most the
                              threshold (else more triplets; a full SVD when
                              too many are needed): exact and fast          */
    IRCG_PROJ_FULL         /* dense n x p matrix and its full SVD (LAPACK
                              dgesdd), then the singular values onto the
                              simplex: the paper's way                      */
} ircg_projection;

/* The singular-value engine of the conditional-gradient LMO on the nuclear
 * ball (IR-CG, and CG-BiO's warm start); the other singular-value
 * computations (CG-BiO's cut, the projections, g_opt) always use Lanczos.
 * Problems over vector domains have no such LMO: ircg_solver_new refuses
 * ARPACK for them. */
typedef enum ircg_lmo_engine {
    IRCG_LMO_LANCZOS = 0,  /* the library's reentrant Lanczos on C'C (one
                              pass over Omega per product), warm-started;
                              threads solve in parallel                   */
    IRCG_LMO_ARPACK        /* ARPACK-ng's implicitly restarted Lanczos on
                              C'C; ARPACK keeps Fortran state, so its calls
                              are serialized by one process-wide lock.  A
                              distributed problem runs its communicator's
                              engine (ircg_comm.top_eig: PARPACK)         */
} ircg_lmo_engine;

typedef enum ircg_step_rule {
    IRCG_STEP_OPEN_LOOP = 0, /* alpha_t = 2/(t+2)                            */
    IRCG_STEP_CLOSED_LOOP,   /* min{1, -<grad Phi_t, d>/((s L_f + L_g)|d|^2)}*/
    IRCG_STEP_LINE_SEARCH    /* argmin_[0,1] Phi_t(x + a d), closed form     */
} ircg_step_rule;

/* The direction of an IR-CG step (IR-CG only; least squares and logistic
 * regression over the polytopes: l1 ball, simplex, box).  The away vertex
 * a is the worst vertex, argmax <grad Phi_t, a>, of the smallest face of X
 * that holds x_t (decomposition-invariant: no active set is kept; the l1
 * ball's faces are those of the simplex over +-r e_i and 0 that it is the
 * image of); gamma_max is the step along d where a's weight in x's
 * decomposition reaches 0 (the largest feasible one on the simplex and the
 * box).  The step rule (closed loop or line search) is capped at
 * gamma_max; the open loop, the l2 and nuclear balls and the other
 * algorithms are refused at "/direction".  z_t is Remark 1's average of
 * the x's whichever direction moved x; the gap reported is Frank-Wolfe's
 * (docs/DESIGN.md, "The algorithms"). */
typedef enum ircg_direction {
    IRCG_DIR_FRANK_WOLFE = 0, /* d = v - x (Algorithm 1)                     */
    IRCG_DIR_AWAY,            /* d = v - x or, when <grad, a - x> is the larger
                                 gap, x - a (away-step Frank-Wolfe)          */
    IRCG_DIR_PAIRWISE         /* d = v - a (pairwise Frank-Wolfe)            */
} ircg_direction;

typedef enum ircg_start {
    IRCG_START_DEFAULT = 0, /* MC: the paper's X0 = 0.01 delta [I_p/p 0]';
                               LS: 0 projected onto X (simplex: its center)  */
    IRCG_START_ZERO,        /* 0 (must lie in X)                            */
    IRCG_START_GIVEN        /* settings.x0 (must lie in X)                  */
} ircg_start;

/* What the callback sees after every iteration t -> t+1.
 *
 * x and z per algorithm: IR-CG: the last iterate x_t and the averaged z_t;
 * Bi-SG: x is the feasible y_k and z the point x_k after the outer step
 * (possibly outside X); IR-PG and CG-BiO: x_t, with z = x; FC-BiO and
 * FC-BiO-CG: x the inner solver's point, z the answer (the last accepted
 * level's point, or g's approximate minimizer before the first).
 * gap per algorithm: IR-CG: the Frank-Wolfe gap of Phi_t at x_{t-1};
 * CG-BiO: the outer gap <grad f(x), x - s> over the cut set (gap_tol
 * stops CG-BiO only when also g(x) - g(x'_0) <= eps_g / 2); IR-PG and
 * Bi-SG: the norm of the projected-gradient step ||x_{t} - x_{t-1}|| / a;
 * FC-BiO and FC-BiO-CG: max(f(x) - t, g(x) - g_upper) at the level t in
 * units of its acceptance tolerances (<= 1 accepts t; NaN while g* is
 * bracketed), and gap_tol does not apply. */
typedef struct ircg_iter_info {
    int64_t t;          /* iterations done (x_t, z_t below are after it)    */
    double elapsed;     /* seconds since the solve started (incl. restores
                           and CG-BiO's warm start)                         */
    double sigma;       /* sigma used in this iteration (IR-CG, IR-PG);
                           Bi-SG: its outer step c k^-alpha; CG-BiO: NaN;
                           FC-BiO(-CG): the ratio of the weights of f and
                           g in the step's combination of their gradients
                           (0 while g* is bracketed)                      */
    double alpha;       /* step taken (IR-PG: after backtracking; IR-CG's
                           away and pairwise directions: the fraction of
                           gamma_max, 1 at a drop; FC-BiO: the momentum of
                           the extrapolation, 0 at a restart)              */
    double g_x, f_x;    /* at x_t                                           */
    double g_z, f_z;    /* at z_t                                           */
    double gap;         /* see above                                        */
    double g_gap_x;     /* g(x_t) - g_opt, NaN unless a reference is known  */
    double g_gap_z;     /* g(z_t) - g_opt, idem                             */
    double lmo_seconds; /* time of this iteration's oracle: the LMO (IR-CG,
                           CG-BiO's whole cut oracle) or the projections    */
    int64_t lmo_matvecs;/* operator applications (products with C and C')   */
    double top_sv;      /* nuclear ball: top singular value of the LMO's
                           matrix; NaN for the other domains and projections */
    int rank;           /* MC: number of atoms of the iterate; 0 otherwise  */
    int lmo_converged;  /* 1 when every singular triplet of this iteration
                           met lmo_tol; 0 when one stopped at
                           lmo_max_matvecs (its answer is less accurate)   */
    int backtracks;     /* IR-PG: step reductions of the Armijo rule;
                           FC-BiO: steps made again with a larger curvature */
    int proj_full;      /* projections: 1 when a full SVD was used          */
    double lambda;      /* CG-BiO: multiplier of the cut; FC-BiO(-CG): the
                           weight of f in [0, 1] (g's is 1 - lambda);
                           NaN otherwise                                    */
    /* The certified bounds as they stand after this iteration (ircg_info
     * defines them): certified = 1 when a certificate was made at it (its
     * inner gaps then come from x_t and z_t afresh), else they combine
     * the solve's running g(x_t), g(z_t) with the last certificate's
     * g_lower; g_upper is the least certified g so far, the scale of
     * the relative inner tolerance (ircg_stop).  NaN before the first
     * certificate or without any. */
    int certified;
    double inner_gap_x, inner_gap_z;
    double g_lower, g_upper, f_lower;
    /* Oracle calls counted in samples: the gradients of single rows
     * (terms g_k, and f_k of a validation loss) this iteration evaluated,
     * a full gradient counting every row.  IR-CG on least squares and
     * logistic regression: m (+ m_val) an iteration; the stochastic
     * methods: what they drew (twice each row they evaluate at x_t and at
     * x_{t-1}); 0 for matrix completion and the baselines. */
    int64_t samples;
} ircg_iter_info;

/* The tolerances the bisection methods add to settings.stop where it
 * leaves a side out: inner_gap_rel when it has no inner tolerance,
 * outer_gap_rel when it has no outer one (ircg_solver_new fills them in;
 * the solver's settings show them). */
#define IRCG_BISECT_INNER_REL 1e-6
#define IRCG_BISECT_OUTER_REL 1e-3

/* Return nonzero to stop the solve (status IRCG_STATUS_INTERRUPTED). */
typedef int (*ircg_callback)(void *user, const ircg_iter_info *it);

typedef struct ircg_reference ircg_reference;

/* The stop on certified tolerances (ircg_info's certificate): the solve
 * ends CONVERGED at the first certificate where every tolerance given
 * (> 0) holds for x_t:
 *   g(x_t) - g* <= inner_gap,  and <= inner_gap_rel (g(x_0) - g_upper);
 *   f(x_t) - f_lower <= outer_gap,  and <= outer_gap_rel max(|f(x_t)|,
 *   |f_lower|) (f_lower <= f*, so f(x_t) - f* is at most as large).
 * 0 = that tolerance is not used; all 0 = no such stop. */
typedef struct ircg_stop {
    double inner_gap, inner_gap_rel;
    double outer_gap, outer_gap_rel;
} ircg_stop;

typedef struct ircg_settings {
    ircg_algorithm algorithm;
    ircg_step_rule step_rule;
    ircg_direction direction; /* IR-CG's; default Frank-Wolfe               */
    double varsigma;      /* sigma_t = varsigma (t+1)^(-p), absolute, >= 0.
                             0 makes IR-CG conditional gradient on g alone
                             (z = x) and IR-PG projected gradient on g.
                             NaN (the default): relative, varsigma_rel
                             times the problem's scale ircg_varsigma_scale */
    double varsigma_rel;  /* > 0; 0.01 (`study varsigma`; the paper: 0.05) */
    double p;             /* in (0, 1)                                     */
    int64_t max_iter;     /* >= 1                                          */
    double time_limit;    /* seconds; <= 0 means none                      */
    double gap_tol;       /* stop (CONVERGED) when the gap of ircg_iter_info
                             is <= it;
                             0 = never                                     */
    ircg_stop stop;       /* certified tolerances; all 0 = none           */
    int certify;          /* 1 (default): certificates (ircg_info); 0: none */
    int64_t certify_every;/* certificates at t = 1, 2, 4, 8, ..., at
                             max_iter, at the end, and every
                             certify_every-th iteration (0: only those)  */
    int certify_async;    /* 0 (default) or 1: IR-CG's certificates of
                             matrix completion made on a thread of their
                             own, on copies of x and z, beside the
                             iterations (the same bits).  The callback
                             then gets each row once its certificate is
                             made, in order, possibly after the solve went
                             further: a callback that saves the solver's
                             state must not be used with it, and an
                             interrupt stops the solve where it got to;
                             an answer exact to working precision does not
                             end it early.  At most IRCG_CERT_ASYNC_COPIES
                             copies are in flight, 16 bytes a rating each.
                             Ignored with a certified stop (stop), on a
                             distributed problem and for other
                             algorithms, which certify in place          */
    ircg_start start;
    const double *x0;     /* START_GIVEN: length dim (MC: column-major n x p)
                             borrowed for the duration of ircg_solver_new  */
    double lmo_tol;       /* relative tolerance of the top singular pair   */
    int lmo_max_matvecs;  /* per LMO call                                  */
    ircg_lmo_engine lmo_engine; /* nuclear ball; default LANCZOS           */
    int threads;          /* threads for the sparse kernels, >= 1          */
    ircg_callback callback;
    void *callback_data;
    const volatile int *cancel; /* polled every iteration; nonzero stops;
                             borrowed, may be NULL. Written by other threads
                             with an atomic store.                         */
    const ircg_reference *reference; /* borrowed, may be NULL: enables
                             g - g_opt by the difference formula           */
    double g_opt;         /* used when reference is NULL; NaN = unknown    */

    /* The baselines (ignored by the other algorithms).  step_rule must be
     * open loop for them: CG-BiO's steps are 2/(k+2), the projection
     * methods have their own rules below. */
    ircg_projection projection; /* IR-PG and Bi-SG on the nuclear ball     */
    double irpg_theta;    /* IR-PG Armijo: sufficient decrease, (0, 1); 1/2 */
    double irpg_step;     /* IR-PG: first trial step alpha~ > 0; 1/2       */
    double irpg_eta;      /* IR-PG: backtracking factor, (0, 1); 1/2       */
    double bisg_alpha;    /* Bi-SG: outer steps c k^-alpha, alpha in (0, 1];
                             the paper's 1/(2 - 0.01)                      */
    double bisg_c;        /* Bi-SG: c > 0; the paper's min(1/L_f, 1)       */
    double bisg_step;     /* Bi-SG: inner step t > 0; 0 = 1/L_g            */
    double cgbio_eps_g;   /* CG-BiO: warm start until the FW gap of g is
                             <= eps_g / 2; > 0, the paper's 1e-4            */
    int64_t cgbio_warmup_max_iter; /* CG-BiO: cap of the warm start, >= 1  */

    /* The stochastic methods (IR-SCG, IR-FSCG; ignored by the others). */
    int64_t batch;        /* rows drawn per step, uniformly with replacement,
                             for each sum; 0 = the method's default: IR-SCG
                             1 (the paper's one sample), IR-FSCG
                             floor(sqrt(m))                              */
    int64_t q;            /* IR-FSCG: the full gradients every q steps;
                             0 = floor(sqrt(m)) (the paper's)           */
    uint64_t seed;        /* of the draws: the same seed, the same run,
                             whatever the number of threads; default 1   */
} ircg_settings;

void ircg_settings_default(ircg_settings *s);
/* The scale of the relative varsigma: L_g / L_f of the problem, with
 * which sigma_t f + g is the same function, up to a factor, however f and
 * g are scaled (multiplying g by c multiplies L_g by c; f by c', L_f by
 * c').  When L_f = 0 (f affine) ||grad f|| / D takes its place; when both
 * vanish (f constant), 1. */
double ircg_varsigma_scale(const ircg_problem *pb);
/* Checks every member; fills diag->field with "/<member>". */
ircg_error ircg_settings_validate(const ircg_settings *s, ircg_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* IRCG_SETTINGS_H */
