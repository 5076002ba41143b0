/* solver_internal.h -- the solver handle and the algorithms behind it.
 *
 * solver.c owns the loop that every algorithm shares: stopping rules, the
 * clock, the objective values after each iteration, the callback and the
 * checkpoints.  An algorithm (alg_*.c) only moves the iterate through the
 * problem's oracle (oracle.h) and says what its iteration did. */
#ifndef IRCG_SOLVER_INTERNAL_H
#define IRCG_SOLVER_INTERNAL_H

#include "core/oracle.h"

/* The certified bounds of a solve (ircg_info says what each bounds), and
 * the last certificate.  Kept in checkpoints: a resumed solve goes on
 * with them.  g_lower, g_upper and f_lower bound the problem, not the
 * run, so they stay valid across a restart afresh. */
typedef struct slv_bounds {
    int64_t t;                 /* iteration of the last certificate; -1 none */
    double g0;                 /* g(x_0), of the run's first certificate    */
    double f0;                 /* f(x_0), of the same; NaN when restored
                                  from a checkpoint older than version 6 */
    double g_lower, g_upper, f_lower;
    double gap_x, gap_z;       /* inner gaps at t                            */
    double g_x, g_z, f_x, f_z; /* afresh at t                                */
    int sharp;                 /* every sigma_1 by Kato-Temple so far        */
    int64_t count;             /* certificates of this run, and their        */
    double seconds;            /* time                                       */
} slv_bounds;

struct ircg_solver {
    const ircg_problem *pb;    /* borrowed */
    const slv_oracle_ops *ops;/* pb->ops or pb->prox_ops, by algorithm */
    ircg_algorithm algorithm;  /* fixed at creation: it chose ops and ws */
    ircg_settings set;         /* copy; x0 cleared after setup */
    double varsigma;           /* the absolute varsigma in use (set.varsigma,
                                  or the relative one resolved) */
    slv_bounds bnd;            /* folded at the certificates' cadence only,
                                  so that a run stopped and continued
                                  carries the bounds an uninterrupted one
                                  would */
    slv_bounds final;          /* bnd and a certificate of the last iterate
                                  off the cadence (final.t = t), for the
                                  info; never folded into bnd */
    void *ws;                  /* the oracle's workspace, owned */
    int64_t t;                 /* iterations done */
    double S;                  /* S_t of Remark 1 (IR-CG) */
    double elapsed;            /* seconds solved so far, across calls/restores */
    const slv_stop_frame *outer_stop; /* while ircg_solve runs: the stops
                                  outside its own frame (of the settings'
                                  cancel and time limit, for the oracles):
                                  the stopping rules read the settings
                                  themselves, and these                  */
    double setup_seconds;
    double lmo_seconds;
    int64_t lmo_matvecs;
    int64_t samples;           /* oracle calls counted in samples (ircg_info) */
    int64_t lmo_unconverged;
    int64_t proj_partial, proj_full;
    double last_gap, last_sigma;
    slv_values vals;          /* at the current x_t, z_t */
    /* CG-BiO: the warm start x'_0 and its residual r(x'_0), so that the
     * cut's g(x'_0) - g(x_k) is a termwise sum (length n_observed) */
    int warm_done;
    int64_t warmup_iterations;
    double warmup_seconds;
    double *cut_ref;
    void *alg_state;           /* the algorithm's own (slv_alg.init), owned */
    double ca_seconds;         /* the certificates' own thread's time
                                  (settings.certify_async, cert_async.c) */
    int64_t sto_batch, sto_q;  /* the stochastic methods' resolved batch, q */
};

typedef struct slv_alg {
    /* Before the first iteration (CG-BiO's warm start); NULL = nothing.
     * t0 is the clock's origin; *st is set when a stopping rule fired. */
    ircg_error (*prepare)(ircg_solver *sv, double t0, ircg_status *st);
    /* One iteration t -> t+1: moves the iterate, increments sv->t and fills
     * the algorithm's members of it (sigma, alpha, gap, oracle time and
     * products, top_sv, lmo_converged, backtracks, proj_full, lambda); the
     * loop adds t, the objective values and elapsed.  Sets *converged (and
     * leaves the iterate) when gap_tol is met before the move. */
    ircg_error (*iterate)(ircg_solver *sv, ircg_iter_info *it, int *converged);
    /* Optional (NULL: none): the algorithm's own state (sv->alg_state),
     * made by ircg_solver_new once the workspace is, freed with the
     * solver, and written into checkpoints after the workspace's state
     * (restore reads it back; mode says what the restored state starts,
     * and a failure leaves the solver to be freed). */
    ircg_error (*init)(ircg_solver *sv, ircg_diag *diag);
    void (*fini)(ircg_solver *sv);
    ircg_error (*save)(const ircg_solver *sv, slv_buf *b);
    ircg_error (*restore)(ircg_solver *sv, slv_rbuf *r, ircg_restore_mode mode,
                          ircg_diag *diag);
    /* 1: the workspace carries no g and f of its iterates (the stochastic
     * methods, whose steps never pass over all the rows): an iteration's
     * values are those of its certificate when it has one, else NaN. */
    int values_at_certificates;
    /* The slot of the method's answer, whose certificate the stop
     * (settings.stop), the exact-answer rule and the warnings read:
     * IRCG_X (0, the last iterate) for all but the bisection methods,
     * whose answer is z (bisect/). */
    ircg_which answer;
    /* Optional (NULL: ircg_sigma(varsigma, p, t)): the sigma > 0 at which
     * a certificate bounds f* from below (0: no such bound). */
    double (*cert_sigma)(const ircg_solver *sv);
    /* Optional (NULL: never): nonzero when the algorithm asks for the
     * loop's certificate at the iteration just done, besides the cadence
     * (slv_cert_due): it believes the stop holds. */
    int (*cert_wanted)(const ircg_solver *sv);
    /* Optional (NULL: never): nonzero when the answer meets settings.stop
     * but the algorithm has a reason of its own to go on (the bisection's
     * safeguard of f's lower side, bisect/levels.c). */
    int (*stop_vetoed)(const ircg_solver *sv);
    /* Optional, for an answer z (NULL: z stays the answer): x becomes the
     * answer, z <- x with its values; called when a certificate finds x
     * within settings.stop and nearer the inner solution set than z. */
    ircg_error (*take_x)(ircg_solver *sv);
    /* Optional (NULL: never): nonzero when z is x, the same bits (the
     * two-stage method publishes one point as both): its certificate is
     * x's, made once. */
    int (*z_is_x)(const ircg_solver *sv);
} slv_alg;

extern const slv_alg slv_alg_ircg;  /* alg_ircg.c  */
extern const slv_alg slv_alg_irscg; /* alg_sto.c   */
extern const slv_alg slv_alg_irfscg;/* alg_sto.c   */
extern const slv_alg slv_alg_cgbio; /* alg_cgbio.c */
extern const slv_alg slv_alg_irpg;  /* alg_prox.c  */
extern const slv_alg slv_alg_bisg;  /* alg_prox.c  */
extern const slv_alg slv_alg_fcbio; /* bisect/alg_fcbio.c    */
extern const slv_alg slv_alg_fcbio_cg; /* bisect/alg_fcbio_cg.c */
extern const slv_alg slv_alg_twostage; /* twostage/alg_twostage.c */

/* The step of a rule for direction d (t = iteration, from 0) when Phi is
 * quadratic along d (d->curved = 0). */
double slv_step_size(ircg_step_rule rule, int64_t t, double sigma,
                      const slv_dir *d, double L_f, double L_g);
/* The step of a rule for the last LMO's direction d of ops' workspace:
 * slv_step_size, except that the exact line search along a curved d
 * minimizes the convex Phi_sigma(x + a d) over [0, 1] through ops->slope
 * (linesearch.c). */
double slv_step(const slv_oracle_ops *ops, void *ws, ircg_step_rule rule,
                int64_t t, double sigma, const slv_dir *d, double L_f,
                double L_g);
/* argmin_{a in [0, 1]} of a convex phi with phi'(0) = slope0, through
 * ops->slope (linesearch.c); also the number of slope evaluations. */
double slv_line_search_1d(const slv_oracle_ops *ops, void *ws, double sigma,
                          double slope0, int *evaluations);

/* certificate.c: the bounds at their start (no certificate yet). */
void slv_bounds_init(slv_bounds *b);
/* Whether iteration t (done) is one to certify: t = 0, a power of 2, or a
 * multiple of certify_every (what the run's length does not change). */
int slv_cert_due(const ircg_solver *sv, int64_t t);
/* A certificate of the current x and z (oracle.h) folded into sv->bnd;
 * *st is set to CONVERGED when it meets settings.stop or proves x exact.
 * Nothing when certify = 0 or the oracle has none. */
ircg_error slv_certify(ircg_solver *sv, ircg_status *st);
/* The last iterate's certificate for the info when the cadence did not
 * make one: into sv->final, sv->bnd untouched. */
ircg_error slv_certify_final(ircg_solver *sv);
/* A certificate of one point of the workspace (x or z) made at the
 * algorithm's request, off the loop's cadence: its g, f and gaps into *c
 * for the algorithm's own decisions, and what it proves of the problem
 * -- g_upper, g_lower, f_lower at sigma and the oracle's other sigmas,
 * f_floor -- folded into sv->bnd (it is counted and timed with the
 * others, but is not the iteration's certificate: the iterate's own
 * inner and outer gaps are the loop's).  sigma = 0: no outer bound.
 * Runs past the time limit as the loop's do (a grace frame); a cancel
 * stops it (IRCG_ERR_STOPPED, bnd unchanged). */
ircg_error slv_cert_point(ircg_solver *sv, ircg_which which, double sigma, slv_cert *c);
/* The tolerances of settings.stop, in the units of the solve: the least
 * absolute inner and outer gaps they allow at a point with value f,
 * given g_x0 - g_upper and f_lower (INFINITY for a side without any). */
void slv_stop_targets(const ircg_solver *sv, double f, double *inner, double *outer);

/* A certificate of x_t and z_t (oracle.h) folded into b, with its time. */
void slv_bounds_fold(slv_bounds *b, int64_t t, double sigma, const slv_cert *cx,
                     const slv_cert *cz, int have_z, double seconds);
/* The bounds into an iteration's report (of its own t and values: it->t,
 * g_x, g_z) and into the info. */
void slv_bounds_report(const ircg_solver *sv, ircg_iter_info *it);
void slv_bounds_info(const ircg_solver *sv, ircg_status st, ircg_info *info);

/* A stopping rule that fires at `elapsed` seconds, or UNSOLVED. */
ircg_status slv_solver_should_stop(const ircg_solver *sv, double elapsed);

void slv_solver_refresh_values(ircg_solver *sv);

/* The loop's algorithm of a; is a one of the stochastic methods? */
const slv_alg *slv_alg_of(ircg_algorithm a);
int slv_alg_stochastic(ircg_algorithm a);

#endif /* IRCG_SOLVER_INTERNAL_H */
