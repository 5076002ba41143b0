/*
 * ircg/problems.h -- part of libircg's public API: problem instances: least
 * squares, matrix completion, logistic regression. Include <ircg.h>, which
 * includes every part in order; the conventions of the whole API are written
 * at its top.
 */
#ifndef IRCG_PROBLEMS_H
#define IRCG_PROBLEMS_H

#include "ratings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- problems -- */

typedef enum ircg_domain_kind {
    IRCG_DOMAIN_NUCLEAR_BALL = 0, /* { X : ||X||_* <= radius } (matrix only) */
    IRCG_DOMAIN_L2_BALL,          /* { x : ||x||_2 <= radius }               */
    IRCG_DOMAIN_L1_BALL,          /* { x : ||x||_1 <= radius }               */
    IRCG_DOMAIN_SIMPLEX,          /* { x >= 0 : sum x = radius }             */
    IRCG_DOMAIN_BOX               /* { x : lower <= x_i <= upper }           */
} ircg_domain_kind;

typedef struct ircg_domain {
    ircg_domain_kind kind;
    double radius;       /* balls and simplex: > 0                          */
    double lower, upper; /* box: lower < upper, both finite                 */
} ircg_domain;

typedef enum ircg_outer_kind {
    IRCG_OUTER_COLUMN_VARIANCE = 0, /* 1/2 ||U X||_F^2, U = I - 11'/n (MC)  */
    IRCG_OUTER_HALF_NORM_SQ,        /* 1/2 ||x||^2                          */
    IRCG_OUTER_DIST_SQ,             /* 1/2 ||x - c||^2                      */
    IRCG_OUTER_QUADRATIC,           /* 1/2 x'Qx + q'x, Q symmetric PSD      */
    IRCG_OUTER_VALIDATION           /* the inner loss on held-out data:
                                       least squares 1/2 ||A_v x - b_v||^2,
                                       logistic sum log(1 + e^(-y_v a_v'x)) */
} ircg_outer_kind;

/* Least squares data: A is m x n, either dense (row-major, A_dense) or CSR
 * (A_rowptr[m+1], A_colind[nnz], A_val[nnz]); exactly one of the two.  b
 * holds the targets (least squares) or the labels (logistic regression:
 * -1/+1, or 0/1 read as -1/+1).  The problem copies A; a CSR A of at
 * most IRCG_LS_BY_COLUMNS_MAX_N columns is copied twice, by rows and by
 * columns (12 nnz + 8 (n + 1) bytes more), for the products with A'. */
#define IRCG_LS_BY_COLUMNS_MAX_N 4096
typedef struct ircg_ls_data {
    int m, n;
    const double *A_dense;
    const int64_t *A_rowptr;
    const int32_t *A_colind;
    const double *A_val;
    const double *b;
} ircg_ls_data;

typedef struct ircg_outer {
    ircg_outer_kind kind;
    const double *c; /* DIST_SQ: length n (borrowed, copied by the problem) */
    const double *Q; /* QUADRATIC: n x n row-major (borrowed, copied)       */
    const double *q; /* QUADRATIC: length n, NULL = 0 (borrowed, copied)    */
    const ircg_ls_data *val; /* VALIDATION: the held-out rows, n columns
                                (borrowed, copied).  Never formed as
                                A_v'A_v: f and its gradient go through
                                products with A_v and A_v'              */
} ircg_outer;

typedef struct ircg_problem ircg_problem;

/* Matrix completion: g(X) = 1/2 sum_Omega (X_ij - M_ij)^2 over the nuclear
 * ball of radius delta; outer COLUMN_VARIANCE or HALF_NORM_SQ.
 *
 * Rows and columns without a rating cost nothing: the problem holds the
 * rows and columns of X0's diagonal (index < min(n_rows, n_cols)) and
 * those that hold a rating (ircg_problem_info.held_rows, held_cols).
 * Every method keeps the others exactly where the whole problem's
 * iterates are, in exact arithmetic: a column without a rating at zero;
 * under HALF_NORM_SQ a row without one at zero too; under the column
 * variance all such rows at one shared value, held as one row (scaled so
 * that every norm and product is the whole matrix's).  The results agree
 * with the whole problem's to rounding and to the LMO's tolerance (whose
 * start vectors differ), and the iterates (ircg_iterate) list the rows
 * and columns they hold.  Memory and time are those of the data: 10^8
 * rows with 1000 ratings build in milliseconds.  A given start x0
 * (IRCG_START_GIVEN) must then vanish outside them (and be equal on the
 * shared rows): use ircg_problem_matrix_completion_whole for others. */
ircg_error ircg_problem_matrix_completion(const ircg_ratings *R,
                                          ircg_outer_kind outer, double delta,
                                          ircg_problem **out, ircg_diag *diag);
/* The same problem holding every row and column of the matrix, as before
 * compaction: its iterates are those of earlier versions, bit for bit. */
ircg_error ircg_problem_matrix_completion_whole(const ircg_ratings *R,
                                                ircg_outer_kind outer, double delta,
                                                ircg_problem **out, ircg_diag *diag);
/* How the processes of one distributed solve talk to each other.  The
 * library knows no transport: the caller implements this (over MPI in
 * ircg-mpi).  rank is in [0, size).  sum is a collective: every rank calls
 * it in the same order with the same len, and buf[0, len) becomes on every
 * rank the elementwise sum over the ranks, added in rank order so that
 * every rank gets the same bits whatever the timing.  A transport that
 * fails does not return (MPI aborts every rank). */
typedef struct ircg_comm ircg_comm;

/* The eigenproblem a distributed ARPACK engine (ircg_comm.top_eig) solves:
 * the largest eigenpair of a symmetric positive semidefinite operator A of
 * order p whose vectors are replicated -- the same on every rank.  For the
 * matrix-completion LMO A = C'C, whose vectors are the right (column-side)
 * ones, and apply is the distributed Gram product. */
typedef struct ircg_eig_request {
    int p;
    int ncv;              /* Lanczos basis size (ARPACK's NCV), 2..p      */
    /* y = A x, x and y of length p; collective: every rank calls it, in
     * the same order, with the same x, and gets the same y */
    void (*apply)(void *op_ctx, const double *x, double *y);
    void *op_ctx;
    const double *v0;     /* warm start (length p), NULL: the start serial
                             ARPACK draws on its first call in a process  */
    double tol;           /* ARPACK's test: Ritz estimate <= tol * lambda */
    int64_t max_apply;    /* applications of A allowed (about)            */
} ircg_eig_request;

typedef struct ircg_eig_answer {
    double lambda;        /* the top Ritz value                          */
    double *v;            /* caller's buffer (p): its unit Ritz vector,
                             the same on every rank                       */
    int64_t applied;      /* applications of A made                       */
    int converged;        /* it met tol (else max_apply stopped it)       */
} ircg_eig_answer;

struct ircg_comm {
    int rank, size;
    void *ctx;
    void (*sum)(void *ctx, double *buf, int64_t len);
    /* Optional (NULL: "lmo": {"engine": "arpack"} is refused on a
     * distributed problem): the ARPACK engine of a distributed LMO, which
     * ircg-mpi gives through PARPACK.  Collective; its outcome, error
     * included, is the same on every rank, so that every rank stops (the
     * solve then fails with it; why is the implementer's to report: ircg-mpi
     * prints it).  Called under the library's ARPACK lock. */
    ircg_error (*top_eig)(void *ctx, const ircg_eig_request *rq, ircg_eig_answer *ans);
};

/* Matrix completion with its rows spread over the processes of comm
 * (borrowed: it must outlive the problem).  R holds this process's ratings:
 * R->n_rows x R->n_cols is the whole matrix, and every entry's row lies in
 * [row0, row0 + n_local); the ranks' ranges, in rank order, tile
 * [0, n_rows).  Every process builds its part with the same outer, delta
 * and dimensions, then runs the same solver settings: each one holds its
 * rows of Omega, of the factors' left side and of the LMO's left vectors;
 * the column side is replicated, and the sums over Omega are reduced
 * through comm.  Only IR-CG runs on such a problem, with the Lanczos
 * engine or, when comm has a top_eig, the ARPACK one (the others are
 * refused by ircg_solver_new, naming the setting), from any start: a
 * given x0 is the whole matrix on every rank (column-major n_rows x
 * n_cols; rank 0 factors it, collectively), and a state saved whole
 * starts it through ircg_solver_restore_whole; ircg_reference_compute runs on it too (collectively: its
 * residual is this rank's rows, which the solver sums against; second_sv
 * stays NaN and nothing is certified unique there); the iterates it
 * returns are whole (gathered on every rank). */
ircg_error ircg_problem_matrix_completion_part(const ircg_ratings *R, int row0,
                                               int n_local, const ircg_comm *comm,
                                               ircg_outer_kind outer, double delta,
                                               ircg_problem **out, ircg_diag *diag);
/* Least squares over an l2/l1 ball, a simplex or a box. */
ircg_error ircg_problem_least_squares(const ircg_ls_data *data,
                                      const ircg_outer *outer,
                                      const ircg_domain *domain,
                                      ircg_problem **out, ircg_diag *diag);
/* Logistic regression: g(x) = sum_k log(1 + exp(-y_k a_k'x)) with the
 * labels y = data->b, all -1/+1 or all 0/1 (0 read as -1), over an l2/l1
 * ball, a simplex or a box; outer HALF_NORM_SQ, DIST_SQ, QUADRATIC
 * (L_f = lambda_max(Q)) or VALIDATION (the logistic loss on outer->val,
 * labels likewise).  g is convex and smooth but not quadratic:
 * L_g = ||A||_2^2 / 4, the exact line search is a 1-D minimization, and
 * g - g_opt is summed termwise over the margins.  Solved by IR-CG, IR-SCG
 * and IR-FSCG (and g_opt by ircg_reference_compute); CG-BiO, IR-PG and
 * Bi-SG are not available for it (ircg_solver_new: "/algorithm"). */
ircg_error ircg_problem_logistic(const ircg_ls_data *data, const ircg_outer *outer,
                                 const ircg_domain *domain, ircg_problem **out,
                                 ircg_diag *diag);
/* The data a least-squares or logistic-regression problem holds, as the
 * solver reads it: its checked copies (logistic labels mapped to -1/+1),
 * for a caller that writes the instance out for another solver (`ircg
 * instance`).  *data: m, n, A (dense row-major or CSR) and b; *outer: the
 * kind with c, Q, q (NULL when the kind has none; q NULL = 0) and, for the
 * validation loss, val = the given *val, filled with the held-out rows (n
 * columns).  The domain is ircg_problem_info's.  Every pointer is
 * borrowed: valid while pb lives.  IRCG_ERR_INVALID ("/problem") for
 * matrix completion. */
ircg_error ircg_problem_vector_data(const ircg_problem *pb, ircg_ls_data *data,
                                    ircg_outer *outer, ircg_ls_data *val, ircg_diag *diag);
void ircg_problem_free(ircg_problem *pb);

typedef enum ircg_problem_kind {
    IRCG_PROBLEM_MATRIX_COMPLETION = 0,
    IRCG_PROBLEM_LEAST_SQUARES = 1,
    IRCG_PROBLEM_LOGISTIC = 2
} ircg_problem_kind;

typedef struct ircg_problem_info {
    ircg_problem_kind kind;
    int n_rows, n_cols;  /* MC: matrix shape; LS, logistic: m x n of A     */
    int64_t dim;         /* number of variables                            */
    int64_t n_observed;  /* MC: |Omega|; LS, logistic: rows of A           */
    ircg_domain domain;
    ircg_outer_kind outer;
    double L_f, L_g;     /* Lipschitz constants of the gradients           */
    double diameter;     /* Euclidean/Frobenius diameter of X              */
    uint64_t data_digest;/* XXH64 of the data as the solver holds it (MC:
                            the dimensions, Omega in CSR order and the
                            ratings; LS: the dimensions, A and b), so that
                            a state is restored into the same instance
                            only; 0 = not computed (never checked)      */
    int held_rows, held_cols; /* MC: the rows and columns the problem
                            holds (compaction, above; with the row shared
                            by the rows without ratings); LS, logistic:
                            m and n                                       */
} ircg_problem_info;

void ircg_problem_get_info(const ircg_problem *pb, ircg_problem_info *info);

#ifdef __cplusplus
}
#endif
#endif /* IRCG_PROBLEMS_H */
