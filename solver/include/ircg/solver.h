/*
 * ircg/solver.h -- part of libircg's public API: the solver: setup, solve,
 * info, iterates, checkpoints; the inner optimum g_opt; sigma_t. Include
 * <ircg.h>, which includes every part in order; the conventions of the whole
 * API are written at its top.
 */
#ifndef IRCG_SOLVER_H
#define IRCG_SOLVER_H

#include "settings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------- solver -- */

/* The two points of a solve (ircg_iter_info says what each is, per
 * algorithm). */
typedef enum ircg_which { IRCG_X = 0, IRCG_Z = 1 } ircg_which;

typedef struct ircg_info {
    ircg_status status;
    int64_t iterations;
    double setup_seconds;
    double solve_seconds;   /* including time before a restore            */
    double lmo_seconds;     /* total oracle time (LMOs or projections)    */
    int64_t lmo_matvecs;    /* total                                      */
    int64_t samples;        /* oracle calls counted in samples, total (see
                               ircg_iter_info.samples)                    */
    int64_t batch, q;       /* IR-SCG, IR-FSCG: the batch and q used (the
                               settings' 0 resolved); 0 for the others    */
    double g_x, f_x, g_z, f_z;
    double gap;             /* last gap (see ircg_iter_info)               */
    double g_gap_x, g_gap_z;/* NaN unless a reference or g_opt is known   */
    double sigma;           /* last sigma                                 */
    int rank;               /* MC: atoms of the iterate                   */
    int64_t lmo_unconverged;/* oracle calls that stopped at lmo_max_matvecs */
    int64_t proj_partial;   /* nuclear-ball projections by leading triplets */
    int64_t proj_full;      /* nuclear-ball projections by a full SVD      */
    int64_t warmup_iterations; /* CG-BiO: conditional-gradient steps of the
                               warm start (its time is in solve_seconds)  */
    double warmup_seconds;
    /* The memory traffic of matrix completion (0 for least squares): the
     * passes over the observed entries Omega made by this solver object
     * since it was created (not saved in checkpoints), and the bytes those
     * passes read and wrote by the kernels' traffic model (each array entry
     * counted once per pass, as STREAM counts).  omega_bytes / solve_seconds
     * against the machine's memory bandwidth shows how far a solve is from
     * the hardware floor. */
    int64_t omega_passes;
    double omega_bytes;
    int threads;            /* threads the sparse kernels ran on           */
    double varsigma;        /* the absolute varsigma used (the relative one
                               resolved: settings.varsigma_rel times
                               ircg_varsigma_scale)                       */
    /* The certificate (settings.certify): bounds that hold for the exact
     * problem, every rounding of their computation bounded (docs/DESIGN.md
     * says how, per family), made at iteration cert_iteration from x and z
     * themselves:
     *   g_lower <= g* = min_X g <= g_upper,
     *   g(x) - g* <= inner_gap_x,  g(z) - g* <= inner_gap_z,
     *   f_lower <= f* (the bilevel optimum), so f(x) - f* <= outer_gap_x
     *   = cert_f_x - f_lower (negative: x is below f*, being not yet
     *   inner-optimal).
     * cert_iteration is -1 (and the rest NaN) when none was made. */
    int64_t cert_iteration;
    double g_lower, g_upper, f_lower;
    double inner_gap_x, inner_gap_z;
    double outer_gap_x, outer_gap_z;
    double cert_g_x, cert_g_z, cert_f_x, cert_f_z; /* afresh, at cert_iteration */
    double g_x0;            /* g at the run's start point (its first
                               certificate), the scale of inner_gap_rel   */
    int cert_sharp;         /* 0 when a bound needed IRCG_WARN_LOOSE's    */
    ircg_which answer;      /* the method's answer: IRCG_X (x_t) for all
                               but the bisection methods (FC-BiO, FC-BiO-CG),
                               whose answer is z_t; settings.stop and the
                               warnings are of it                        */
    int64_t certificates;   /* certificates made by this run, and their    */
    double cert_seconds;    /* time (in solve_seconds): with certify_async,
                               what the solve's thread spent on them (the
                               copies they certify, the waits for them)   */
    double cert_thread_seconds; /* certify_async: the time they took on
                               their own thread, beside the solve; 0
                               otherwise                                  */
    unsigned warnings;      /* ircg_warning mask                          */
} ircg_info;

typedef struct ircg_solver ircg_solver;

/* Validates settings against the problem and sets x_0 = z_0 = start.
 * pb is borrowed and must outlive the solver. */
ircg_error ircg_solver_new(const ircg_problem *pb, const ircg_settings *s,
                           ircg_solver **out, ircg_diag *diag);
/* Runs until a stopping rule fires; may be called again after raising
 * max_iter or time_limit through ircg_solver_settings().  The algorithm
 * and the start are fixed at creation: changing the algorithm there gives
 * IRCG_ERR_INVALID. */
ircg_error ircg_solve(ircg_solver *sv, ircg_info *info);
ircg_settings *ircg_solver_settings(ircg_solver *sv);
void ircg_solver_free(ircg_solver *sv);

/* Iterates.  For least squares `dense` holds the vector (length n).  For
 * matrix completion the iterate is a0 * X0 + P * diag(w) * Q' with P n x k and
 * Q p x k column-major, X0 the start point (diagonal, see IRCG_START_DEFAULT;
 * x0_diag gives its diagonal); dense is filled (column-major n x p) only when
 * want_dense is set.  A compacted problem (ircg_problem_matrix_completion)
 * gives P and Q on the rows and columns it holds only: P's rows are the
 * rows row_ids[0, rows_held) of X (ascending) and every row not listed is
 * P_other (k values; NULL: zero); Q's rows are the columns col_ids[0,
 * cols_held) and the columns not listed are zero.  Without ids (NULL) P
 * and Q have every row: rows_held = n_rows, cols_held = n_cols. */
typedef struct ircg_iterate {
    ircg_problem_kind kind;
    int n_rows, n_cols;
    int64_t dim;
    double *dense;      /* NULL unless LS or want_dense                   */
    double a0;          /* MC: coefficient of X0                          */
    double *x0_diag;    /* MC: min(n,p) diagonal of X0                    */
    int rank;           /* MC: k                                          */
    double *w;          /* MC: k weights                                  */
    double *P;          /* MC: rows_held x k                              */
    double *Q;          /* MC: cols_held x k                              */
    int rows_held, cols_held; /* MC: see above                            */
    int32_t *row_ids, *col_ids; /* MC: see above; NULL: every one         */
    double *P_other;    /* MC: k, or NULL                                 */
} ircg_iterate;

ircg_error ircg_solver_iterate(const ircg_solver *sv, ircg_which which,
                               int want_dense, ircg_iterate **out);
void ircg_iterate_free(ircg_iterate *it);

/* Checkpoints: the complete state (t, S_t, x_t, z_t, warm-start vectors), so
 * that a restored solver continues exactly as the original would have.  The
 * blob is little-endian, versioned, and checked against the problem: its
 * kind, dimensions and number of observations, and (blobs of version 3 on,
 * when both digests are known) the data digest.  A mismatch is
 * IRCG_ERR_INVALID with diag->field "/checkpoint" (shape) or "/data"
 * (same shape, other data); the solver is then unchanged. */
ircg_error ircg_solver_save(const ircg_solver *sv, void **blob, size_t *len);
ircg_error ircg_solver_restore(ircg_solver *sv, const void *blob, size_t len,
                               ircg_diag *diag);

/* The state of a solver whose problem is spread over processes
 * (ircg_problem_matrix_completion_part) as the blob ircg_solver_save gives
 * on one process for the whole instance: the whole |Omega|, the data digest
 * of all the ratings, every rank's rows in row order.  One process
 * restores it, or starts from it (ircg_solver_restore_as), and goes on as
 * the distributed solve would have, to rounding.  Collective: every rank
 * calls it; the blob's bytes are handed in order to put on rank 0 only
 * (the other ranks' put is never called), so that no rank holds the whole
 * state: the rows travel through comm's sum in bounded pieces.  put
 * returns 0, or nonzero to refuse (the rest is skipped on rank 0; the
 * ranks still go through every sum): IRCG_ERR_IO on rank 0 then, and
 * IRCG_ERR_NOMEM when a buffer could not be had.  On one process: the
 * blob of ircg_solver_save, handed to put in one piece. */
typedef int (*ircg_write_fn)(void *ctx, const void *data, size_t len);
ircg_error ircg_solver_save_whole(const ircg_solver *sv, ircg_write_fn put, void *ctx);

/* What a restored state starts.  The solver must run the algorithm that
 * saved it (else IRCG_ERR_INVALID, field "/checkpoint").
 *  - RESUME: the same run goes on (crash recovery): everything is restored,
 *    the clock and the oracle totals included.
 *  - CONTINUE: a new run that goes on from the saved state: x_t, the
 *    averaged z_t and the schedule (t, S_t, so sigma_t and the steps) as if
 *    the solve had never stopped, bit for bit; the clock (elapsed), the
 *    oracle totals and the counters of ircg_info start at zero.  max_iter
 *    still counts iterations from the schedule's start (t).
 *  - AFRESH: a new run started at the saved x: z_0 = x_0 = x, t = 0,
 *    S_0 = 0, the clock and totals at zero; the last LMO vertex stays as
 *    the oracle's warm start, and CG-BiO makes its warm start again. */
typedef enum ircg_restore_mode {
    IRCG_RESTORE_RESUME = 0,
    IRCG_RESTORE_CONTINUE,
    IRCG_RESTORE_AFRESH
} ircg_restore_mode;
ircg_error ircg_solver_restore_as(ircg_solver *sv, const void *blob, size_t len,
                                  ircg_restore_mode mode, ircg_diag *diag);

/* ircg_solver_save_whole's inverse: the state of one process's checkpoint
 * of the whole instance (ircg_solver_save, ircg_solver_save_whole)
 * restored into a solver whose problem is spread over processes, each
 * rank keeping its rows, as ircg_solver_restore_as with `mode`.
 * Collective: every rank calls it; rank 0 alone reads the blob, len bytes
 * in all (rank 0's len; the others' is not read), through get (which fills
 * data with the next len bytes, returning 0, or nonzero when it cannot),
 * and the bytes travel to the ranks through
 * comm's sums in bounded pieces, so that no rank holds the whole state.
 * The blob is checked against the whole instance (its |Omega|, dimensions
 * and data digest) before anything is restored; every rank returns the
 * same error.  On one process: ircg_solver_restore_as on the blob read
 * whole. */
typedef int (*ircg_read_fn)(void *ctx, void *data, size_t len);
ircg_error ircg_solver_restore_whole(ircg_solver *sv, ircg_read_fn get, void *ctx,
                                     uint64_t len, ircg_restore_mode mode,
                                     ircg_diag *diag);

/* The header of a checkpoint blob, read without a solver: a service checks
 * a warm start against a job before it builds anything.  At least
 * IRCG_CHECKPOINT_HEAD bytes of the blob (or the whole blob when shorter)
 * are needed; IRCG_ERR_INVALID ("/checkpoint") when they are not a
 * checkpoint's.  data_digest is 0 for blobs before version 3. */
#define IRCG_CHECKPOINT_HEAD 128
typedef struct ircg_checkpoint_info {
    int version;
    ircg_problem_kind kind;
    ircg_algorithm algorithm;
    int64_t dim, n_observed;
    uint64_t data_digest;
    int64_t iterations;   /* t of the saved state                        */
} ircg_checkpoint_info;
ircg_error ircg_checkpoint_peek(const void *head, size_t len,
                                ircg_checkpoint_info *out, ircg_diag *diag);

/* ------------------------------------------------ inner optimum (g_opt) -- */

/* Conditional gradient on g alone with exact line search, as the paper uses
 * for its reference values, stopped on the Frank-Wolfe gap
 *   gap(x) = <grad g(x), x> - min_{v in X} <grad g(x), v>  >=  g(x) - g_opt
 * (nuclear ball: min_v <grad g, v> = -delta sigma_1(grad g)).
 *
 * The computed gap is a cancelling difference of two terms of size about
 * scale = |<grad g(x), x>| + |min_v <grad g(x), v>| (delta sigma_1 ~ 1e4 on
 * MovieLens), so its rounding error is a few ulps of scale and no gap below
 * that can be certified.  The library takes
 *   gap_floor = 8 DBL_EPSILON scale
 * (measured: the error of the computed gap reached 3.5 DBL_EPSILON scale on
 * MovieLens 100K and 1M, mostly the sum of <R, X_Omega> over Omega) and
 * reports the certificate
 *   gap = max(raw gap, 0) + gap_floor,
 * never a negative number.  The iteration stops at the first of:
 *  - CONVERGED: gap <= tol, or raw gap <= gap_floor ("at the floor"; then
 *    gap <= 2 gap_floor, and gap > tol says tol was below what double
 *    precision can certify: ask for tol >= 2 gap_floor);
 *  - STALLED: the raw gap made no new minimum over the last max(100, t/4)
 *    iterations (t = iterations so far) while above both thresholds;
 *  - MAX_ITER, TIME_LIMIT, CANCELLED as for the solver.
 * A gap is only trusted when the LMO met lmo_tol: an LMO that stopped at its
 * product limit is retried (warm-started, so each retry continues the
 * Lanczos) up to 4 times; if it still did not converge, that iteration
 * neither stops the run nor enters lower_bound, and lmo_converged = 0 says
 * the final gap is not a certificate.  The top singular value is a Ritz
 * value; its error is of second order in lmo_tol (about
 * (lmo_tol sigma_1)^2 / (sigma_1 - sigma_2)), below the floor unless
 * sigma_1 and sigma_2 nearly coincide: check top_sv and second_sv. */
typedef struct ircg_reference_settings {
    double tol;           /* requested certified gap, > 0 (paper: 1e-12)   */
    int64_t max_iter;
    double time_limit;    /* seconds, <= 0 none                            */
    double lmo_tol;
    int threads;
    const volatile int *cancel;
    int certify_unique;   /* matrix completion: prove (or fail to prove)
                             that the inner solution set is a single point,
                             see ircg_reference_info.unique; costs a dense
                             p x p eigensolve (seconds at p = 3449), refused
                             (unique = -1) above p = 16000; 0 = skip     */
} ircg_reference_settings;

void ircg_reference_settings_default(ircg_reference_settings *s);
ircg_error ircg_reference_compute(const ircg_problem *pb,
                                  const ircg_reference_settings *s,
                                  ircg_reference **out, ircg_diag *diag);

typedef struct ircg_reference_info {
    double g_opt;         /* g at the final iterate                        */
    double f_x;           /* f at that iterate: f of the inner solution
                             when it is unique, up to the iterate's
                             distance to it                                */
    double gap;           /* its certificate max(raw, 0) + gap_floor:
                             g_opt - gap <= true min (see above)           */
    double gap_floor;     /* rounding floor of the final gap, see above    */
    double lower_bound;   /* best Wolfe bound max_t g(x_t) - gap_t over the
                             iterations with a converged LMO               */
    int64_t iterations;
    double seconds;
    ircg_status status;   /* CONVERGED, STALLED, MAX_ITER, ... (see above) */
    int lmo_converged;    /* 1 when the final gap's LMO met lmo_tol        */
    double top_sv, second_sv; /* MC: sigma_1, sigma_2 of grad g at the end
                                 (NaN when not computed)                   */
    /* MC with certify_unique.  Every inner solution x* has the same
     * gradient G*, and the solution set is a single point when
     * sigma_1(G*) > sigma_2(G*).  From the final iterate x^: the top
     * singular values cert_sv1 >= cert_sv2 of the gradient computed there
     * (dense eigensolve), and a rigorous bound |sigma_i(G*) - cert_sv_i| <=
     * unique_bound that adds the rounding of that gradient and of the
     * eigensolve to ||P_Omega(x^ - x*)||, bounded from the recomputed
     * Frank-Wolfe gap (problems/mc/mc_certify.c derives each term); by
     * Weyl's inequality sigma_1(G*) - sigma_2(G*) >= unique_margin =
     * cert_sv1 - cert_sv2 - 2 unique_bound.  unique = 1 when that margin is
     * positive (certified), 0 when it is not, -1 when not computed. */
    int unique;
    double unique_margin, unique_bound;
    double cert_sv1, cert_sv2;
    double unique_dist;       /* its part ||P_Omega(x^ - x*)||_F <= this   */
    double unique_rounding;   /* its rounding part (gradient + eigensolve) */
    double f_vertex;          /* f(-delta u v') with (u, v) the top singular
                                 pair of grad g at the end: f of the unique
                                 solution, as far as that pair is exact    */
} ircg_reference_info;

void ircg_reference_get_info(const ircg_reference *ref, ircg_reference_info *info);
/* A reference known only by its value (no difference formula). */
ircg_reference *ircg_reference_from_value(double g_opt);
void ircg_reference_free(ircg_reference *ref);

/* ------------------------------------------------------------- helpers -- */

/* sigma_t = varsigma (t+1)^(-p) */
double ircg_sigma(double varsigma, double p, int64_t t);

#ifdef __cplusplus
}
#endif
#endif /* IRCG_SOLVER_H */
