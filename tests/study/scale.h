/*
 * scale.h -- instances in other units: the study of the scale-free varsigma
 * (`study scale`, scale_study.c) and its short version in `make test`
 * (tests/unit/solver/core/test_scale_study.c).
 *
 * Each instance is built at a scale c of g (its data times sqrt(c): A and
 * b, or the ratings and delta, which for matrix completion scales f by c
 * too) and has a known f*, said how it was found.  A run records the first
 * certified iteration at which both tolerances of the study hold:
 *   the certified inner gap g(x_t) - g* <= 1e-6 (g(x_0) - g_upper), and
 *   |f(x_t) - f*| <= 1e-3 |f*|,
 * with its time.
 */
#ifndef IRCG_STUDY_SCALE_H
#define IRCG_STUDY_SCALE_H

#include <stdint.h>

#include "ircg.h"

typedef enum sc_kind {
    SC_LEAST_NORM,  /* ircg example least-norm: l2 ball, 1/2 ||x||^2       */
    SC_OVERPARAM,   /* ... overparam-regression (small): l1 ball, validation */
    SC_LOGISTIC,    /* ... logistic (small: 40 x 10, 20 validation rows)
                       with noise 3, not 1: the example's labels are
                       separable, g has no minimizer; l1 ball, validation
                       loss                                              */
    SC_PORTFOLIO,   /* the simplex among exact fits, the variance of other
                       returns outside (f varies on the inner solutions)  */
    SC_MC_SYNTH,    /* ... synthetic-movielens (small)                     */
    SC_MC_PAPER,    /* the paper's instance: MovieLens 1M ratings, delta 5 */
    SC_CANCER,      /* over-parameterized l1 regression on real features
                       (breast cancer, Debian's python3-sklearn): 20
                       training rows, 120 columns as in Bisec-BiO        */
    SC_NKIND
} sc_kind;

typedef struct sc_inst {
    sc_kind kind;
    const char *name, *fstar_from; /* how f* was found                      */
    double fstar;
    ircg_problem *pb;
    /* the data, kept to rebuild at other scales */
    int m, n, mv;
    double *A, *b, *Av, *bv, *Q;
    ircg_domain dom;
    ircg_ratings *R;
    double delta;
} sc_inst;

/* The instance at scale 1 with its f* (file: the MovieLens 1M ratings for
 * SC_MC_PAPER, the breast-cancer CSV for SC_CANCER, NULL otherwise).  0
 * on success, -1 (with a message to stderr) when it cannot be made. */
int sc_make(sc_inst *s, sc_kind kind, const char *file);
/* Where Debian's python3-sklearn keeps the breast-cancer data. */
#define SC_CANCER_CSV "/usr/lib/python3/dist-packages/sklearn/datasets/data/breast_cancer.csv"
void sc_free(sc_inst *s);
/* The problem at scale c of g (owned by the caller). */
ircg_problem *sc_problem(const sc_inst *s, double c);

/* x = A^+ b (A m x n row-major, m <= n) by LAPACK's dgelsd; 1 when A has
 * full row rank m (the unit tests' least-norm instances use it too). */
int sc_pinv(const double *A, const double *b, int m, int n, double *x);

typedef struct sc_run {
    int64_t iterations; /* of the first certified iteration meeting both, or -1 */
    double seconds;     /* solve time up to it                               */
    double varsigma;    /* the absolute varsigma used                        */
    double inner_rel, outer_rel; /* at the end of the run                    */
    double outer_signed;         /* (f - f*) / |f*| at the end               */
    int64_t ran;        /* iterations run                                    */
    double inner_gap, f; /* the certified inner gap and f(x) at the end      */
    double g_x0;        /* g at the run's start                              */
} sc_run;

/* IR-CG on the instance at scale c: varsigma absolute (NaN: the relative
 * default), the step rule, at most max_iter iterations, certificates every
 * 16.  0 on success. */
int sc_solve(const sc_inst *s, double c, double varsigma, ircg_step_rule rule,
             int64_t max_iter, sc_run *out);
/* The same with the relative varsigma varsigma_rel (times L_g / L_f of
 * the problem at scale c, as the solver resolves it). */
int sc_solve_rel(const sc_inst *s, double c, double varsigma_rel, ircg_step_rule rule,
                 int64_t max_iter, sc_run *out);

/* IR-CG at scale 1 with sigma held: varsigma = sigma and p = SC_P_HELD,
 * so that sigma_t moves by less than 1e-7 of itself in 10^6 iterations
 * (p must lie in (0, 1)): conditional gradient on the one function
 * sigma f + g.  From x0 when given (least squares, n values; NULL: the
 * default start), the last iterate into x_end when given.  A held run
 * from the previous one's x_end is one phase of a continuation. */
#define SC_P_HELD 1e-9
int sc_solve_held(const sc_inst *s, double sigma, ircg_step_rule rule, int64_t max_iter,
                  const double *x0, double *x_end, sc_run *out);

/* The exact penalty path x_sigma = argmin over X of sigma f + g, where it
 * has a closed form: a least-squares instance whose f is a square (1/2
 * ||x||^2 or a validation least squares 1/2 ||A_v x - b_v||^2) and whose
 * minimum-norm minimizer over R^n -- of ||[A; sqrt(sigma) F] x - [b;
 * sqrt(sigma) d]||, by LAPACK's dgelsd, singular values below 1e-12 of
 * the largest counting as zero -- lies in X, where it is then a minimizer
 * over X.  Every minimizer has the same A x and F x, so the same f and g.
 * 0 on success, 1 when the instance has no such closed form or the
 * minimizer lies outside X, -1 on failure. */
typedef struct sc_path {
    double f, g;     /* f(x_sigma), g(x_sigma)                              */
    double cond;     /* of the Hessian of sigma f + g on its range: (s_1 /
                        s_r)^2 over the stacked matrix's kept singular values */
    double l1, l2;   /* the norms of the minimum-norm x_sigma               */
} sc_path;
int sc_penalty_path(const sc_inst *s, double sigma, sc_path *out);

#endif /* IRCG_STUDY_SCALE_H */
