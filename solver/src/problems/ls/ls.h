/*
 * ls.h -- the least squares problem class, shared by
 * ls_problem.c (construction and validation), ls_linalg.c (products,
 * the outer objective, Lipschitz constants) and ls_oracle.c (the workspace
 * and the oracle operations of oracle.h).
 *
 *   g(x) = 1/2 ||A x - b||^2,   A m x n dense row-major or CSR
 *   f(x) = 1/2 ||x||^2 | 1/2 ||x - c||^2 | 1/2 x'Qx + q'x
 *        | 1/2 ||A_v x - b_v||^2 (validation rows, never formed as A_v'A_v)
 *
 * The quadratic and validation outer objectives are carried like the
 * residual: the "outer vector" o(x) = Q x, or A_v x - b_v, of x, z, v and the
 * pending point, affine in x, so that a step costs no product with Q or A_v
 * (ls_outer_len() is its length, 0 for the other outer objectives).
 */
#ifndef IRCG_LS_H
#define IRCG_LS_H

#include <stdint.h>

#include "core/oracle.h"
#include "problems/faces.h"

typedef struct ls_data {
    int m, n;
    double *A;          /* dense m x n row-major, or NULL (owned)          */
    int64_t *rowptr;    /* CSR, m + 1 (owned; NULL when dense)             */
    int32_t *colind;    /* CSR, nnz                                        */
    double *val;        /* CSR, nnz                                        */
    /* CSR A with at most IRCG_LS_BY_COLUMNS_MAX_N columns: the same entries by
     * columns (rows ascending in each), for A'r by gathers -- with few
     * columns the scatter of the rows into n sums waits on its own stores
     * (docs/DESIGN.md, "The families"); the sums are added in the same order, so the
     * bits are the same.  NULL otherwise. */
    int64_t *colptr;    /* n + 1                                           */
    int32_t *rowind;    /* nnz                                             */
    double *cval;       /* nnz                                             */
    int repeats;        /* CSR: some row names a column twice (the entries
                           add up): bounds from single entries do not
                           hold, so the curvature bounds of logistic
                           regression are not made                        */
    double *b;          /* m                                               */
    ircg_domain dom;
    ircg_outer_kind outer;
    double *c;          /* DIST_SQ: n                                      */
    double *Q;          /* QUADRATIC: n x n row-major, symmetric PSD       */
    double *q;          /* QUADRATIC: n, NULL = 0                          */
    double mu_f;        /* a certified lower bound of f's curvature (the
                           least eigenvalue of its Hessian; 0: none known):
                           the certificates' strongly convex bound         */
    double mu_g;        /* likewise for g: lambda_min(A'A) when m >= n and
                           the Gram matrix is formed (least squares; times
                           the least curvature of the logistic loss over X
                           for logistic regression); 0: none known        */
    struct ls_data *vset;/* VALIDATION: A_v (m_v x n) and b_v in an ls_data
                           of their own (dom, outer unused)               */
} ls_data;

void ls_data_free(void *data);

/* ls_problem.c: the checked deep copy of the data, outer objective and
 * domain, with L_g = ||A||_2^2 and L_f (1, lambda_max(Q) or ||A_v||_2^2);
 * "/A", "/outer/..." and "/domain/..." errors.  Also the data of logistic
 * regression (logreg/lr_problem.c), which scales the constants. */
ircg_error ls_data_new(const ircg_ls_data *data, const ircg_outer *outer,
                       const ircg_domain *domain, ls_data **out, double *L_f,
                       double *L_g, ircg_diag *diag);
/* The problem handle of kind over d (taken over: freed on failure) with
 * the family's oracle ops and the constants. */
ircg_error ls_problem_of(ls_data *d, ircg_problem_kind kind, const slv_oracle_ops *ops,
                         double L_f, double L_g, ircg_problem **out, ircg_diag *diag);
/* ls_problem.c: the problem handle with the family's oracle (pb->ops); the
 * public constructor (core/families.c) adds the methods' oracles */
ircg_error ls_problem_new(const ircg_ls_data *data, const ircg_outer *outer,
                          const ircg_domain *domain, ircg_problem **out,
                          ircg_diag *diag);

/* lr_problem.c: the least curvature of the logistic loss l(s) = log(1 +
 * e^-s) at the margins a_k'x of the rows of A over X (a lower bound of
 * l''(max_k max_X |a_k'x|), rounded down): g's Hessian A' D A has D at
 * least this. */
double lr_least_curvature(const ls_data *d, const ircg_domain *dom);

/* The scratch of the certificates (ls_cert.c), made on a workspace's first
 * certificate: a product A y - b or A y with its error (r, er), weights
 * (logistic regression: w, ew), the validation rows' residual (rv, erv),
 * the gradients of g and f and their combination for Phi (gg/eg, gf/ef,
 * c/ec), and the column lengths of a CSR A and A_v. */
typedef struct ls_cert_buf {
    double *r, *er, *w, *ew, *rv, *erv;
    double *gg, *eg, *gf, *ef, *c, *ec;
    double *w_pt, *gq, *egq; /* the strongly convex bound's point and the
                                gradient of its model there (n)        */
    int *colcnt, *vcolcnt;
    /* logistic regression's local curvature (logreg/lr_curv.c), made on
     * first use: the rows' norms (m), the weighted Gram matrix (n x n),
     * the weights and eigenvalues (max(m, n)) */
    double *rown, *gram, *kw;
} ls_cert_buf;
ls_cert_buf *ls_cert_buf_new(const ls_data *d);
void ls_cert_buf_free(ls_cert_buf *b);
/* y = A x - b (b NULL: A x), made row by row, and e with
 * |y - (A x - b)| <= e elementwise for the exact product. */
void ls_cert_apply(const ls_data *d, const double *x, const double *b, double *y,
                   double *e);
/* y = A' w for a w known to within ew (NULL: exact), and e with
 * |y - A' w*| <= e for every |w* - w| <= ew; colcnt: the column lengths of
 * a CSR A (ls_cert_buf), unused for a dense one. */
void ls_cert_apply_t(const ls_data *d, const int *colcnt, const double *w,
                     const double *ew, double *y, double *e);
/* Where g has curvature at least mu > 0 on a ball around y that holds
 * every inner solution (least squares: everywhere, mu = mu_g; logistic
 * regression: lr_cert.c's local bound), the bounds that follow from b's
 * gradients at y (ls_cert.c, docs/DESIGN.md "Logistic regression's local
 * curvature"): sub_g falls to the strongly convex bound, and f_floor rises
 * to f(y) - ||grad f(y)|| R, R a radius around y within which every inner
 * solution lies.  out's g, f, their errors and gap_g are in. */
void ls_cert_curved(const ls_data *d, ls_cert_buf *b, const double *y, double mu,
                    slv_cert *out);
/* sqrt(sum (|c_i| + e_i)^2), rounded up: a bound of ||c*|| for every c*
 * within e of c. */
double ls_cert_norm_up(const double *c, const double *e, int64_t n);
/* 1/2 ||r||^2 for r known to within er, and its error bound. */
double ls_cert_half_sq(const double *r, const double *er, int64_t m, double *err);
/* c = sigma gf + gg and its error from theirs. */
void ls_cert_combine(double sigma, const double *gf, const double *ef, const double *gg,
                     const double *eg, int64_t n, double *c, double *ec);
/* out->gap_g, (sigma > 0) out->gap_phi and f_floor's bound of f's own
 * gap at y from b's gradients of g (gg, eg) and f (gf, ef); out->f and
 * f_err are set. */
void ls_cert_gaps(const ls_data *d, ls_cert_buf *b, const double *y, double sigma,
                  slv_cert *out);
/* f(y) of the outer objectives but the validation loss's (any family:
 * f does not depend on the loss), its error, its gradient into b->gf
 * (error b->ef) and a floor of min_X f; the validation loss of least
 * squares too. */
double ls_cert_outer(const ls_data *d, ls_cert_buf *b, const double *y, double *f_err,
                     double *floor);
/* The certificate of the point y (slv_cert), the scratch *cb made on
 * first use; and the oracle's certify op of least squares on it. */
ircg_error ls_certify_at(const ls_data *d, ls_cert_buf **cb, const double *y, double sigma,
                        slv_cert *out);
ircg_error ls_certify(void *ws, ircg_which which, double sigma, slv_cert *out);
/* The two-stage method's lower bound of f* (ls_cert.c): for any nu in R^m,
 * xh in X with g(xh) - g* <= tau, w in X, and kappa a lower bound of g's
 * curvature in A x (least squares: 1),
 *   f* >= f(w) + nu'A (w - xh) - sub_L(w) - ||nu|| sqrt(2 tau / kappa),
 * sub_L the gap of L = f + nu'A x at w; rounded down (-INFINITY when not
 * finite).  The outer objectives of least squares. */
double ls_cert_lagrange(const ls_data *d, ls_cert_buf *b, const double *w, const double *xh,
                        const double *nu, double tau, double kappa);

/* The workspace (ls_oracle.c): x, z, the last vertex v and the pending
 * point of the projection methods, with their residuals A y - b and, for a
 * quadratic outer f, their products with Q, carried along so that a step
 * costs no extra product with A or Q. */
typedef struct ls_ws {
    const ls_data *d; /* borrowed from the problem */
    int have_v;       /* an LMO ran since the last step */
    double *x, *z, *v, *g;       /* n; g is the LMO's direction c */
    double *rx, *rz, *rv;        /* m */
    double *qx, *qz, *qv;        /* outer vectors (ls_outer_len), or NULL */
    double *xp, *rp, *qp;        /* the pending point of grad_step (n, m, and
                                    ls_outer_len) */
    ls_cert_buf *cb;             /* certificates' scratch, or NULL */
    double *fl;                  /* an away or pairwise move's part along
                                    the atoms (n; ls_face_lmo), or NULL */
} ls_ws;

/* The workspace of the stochastic methods (ls_sto.c) and of FC-BiO's
 * point oracle (ls_point.c), for least squares and logistic regression:
 * x, z and the last vertex as plain vectors, no residuals or margins;
 * its certify op recomputes everything from the point. */
typedef struct ls_sto_ws {
    const ls_data *d;  /* borrowed from the problem */
    int logistic;
    int have_v;
    double *x, *z, *v; /* n */
    double *scratch;   /* max(m, m_v), made on first use (ls_point.c) */
    double g_x, f_x, g_z, f_z; /* of the points FC-BiO set (ls_point.c);
                                  NaN after a stochastic step         */
    ls_cert_buf *cb;   /* certificates' scratch, or NULL */
} ls_sto_ws;

/* g and f of x and z become unknown (NaN). */
void ls_sto_forget_values(ls_sto_ws *w);

/* Length of the outer vector: n (QUADRATIC), m_v (VALIDATION), else 0. */
static inline int ls_outer_len(const ls_data *d)
{
    return d->outer == IRCG_OUTER_QUADRATIC ? d->n
           : d->outer == IRCG_OUTER_VALIDATION ? d->vset->m : 0;
}
static inline int ls_has_q(const ls_ws *w) { return ls_outer_len(w->d) > 0; }
/* The constant of the outer vector, o(x) = L x - e: b_v, or NULL (0). */
static inline const double *ls_outer_shift(const ls_data *d)
{
    return d->outer == IRCG_OUTER_VALIDATION ? d->vset->b : NULL;
}

/* x = the start point of s in d's domain ("/start", "/x0" errors); shared
 * with logistic regression, like the checkpoint helpers below. */
ircg_error ls_start_point(const ls_data *d, const ircg_settings *s, double *x,
                          ircg_diag *diag);
/* Checkpoint of a vector workspace: tag, m, n, outer kind, have_v, then the
 * k arrays arr[i] of len[i] doubles; restore checks all of it (and that the
 * first array, the iterate, lies in the domain) before writing any. */
ircg_error ls_state_save(slv_buf *out, uint64_t tag, const ls_data *d, int have_v,
                         double *const *arr, const size_t *len, int k);
ircg_error ls_state_restore(slv_rbuf *in, uint64_t tag, const ls_data *d, int *have_v,
                            double *const *arr, const size_t *len, int k,
                            const char *what, ircg_diag *diag);
/* z <- x for a run started afresh from a saved state: arr lists triples
 * (x-side, z-side, v-side) as the checkpoint does, the z-side of each
 * triple takes its x-side. */
void ls_state_restart(double *const *arr, const size_t *len, int k);

/* ls_face.c: IR-CG's away or pairwise move (problems/faces.h) for the
 * gradient c at x and the LMO's vertex in v: slv_face_target, with *lin
 * (n doubles, the workspace's) made on first use. */
ircg_error ls_face_lmo(const ls_data *d, ircg_direction mode, const double *c,
                       const double *x, double *v, double **lin, slv_face_move *mv);
/* The observation vector of the move's target p: o(p) = o(x) + kappa A x
 * + A lin into op (length d->m), A x = ox + shift (shift NULL: 0; the
 * residual's is b). */
void ls_face_observe(const ls_data *d, const slv_face_move *mv, const double *lin,
                     const double *ox, const double *shift, double *op);

/* The step, shared with CG-BiO's cut step (baselines/cgbio/ls_cut.c). */
ircg_error ls_step(void *ws, double alpha, double cz, double cx_old, double cx_new);

/* y = A x (length m). */
void ls_matvec(const ls_data *d, const double *x, double *y);
/* G = A'A (n x n, both triangles; ls_linalg.c). */
void ls_ata(const ls_data *d, double *G);
/* The Gram matrix of A's smaller side into G (side x side, both
 * triangles): A'A when n <= m, else A A' (a CSR A densified). */
ircg_error ls_gram(const ls_data *d, double *G, int64_t *side);
/* y = A' r (length n). */
void ls_rmatvec(const ls_data *d, const double *r, double *y);
/* r = A x - b. */
void ls_residual(const ls_data *d, const double *x, double *r);
/* r = A v - b for an LMO vertex v (ls_oracle.c): one column of a dense A
 * when v is a vertex of the l1 ball or the simplex, else a product. */
void ls_vertex_residual(const ls_data *d, const double *v, double *rv);
/* y = A v, the same way, for a vertex of dom (logistic margins). */
void ls_vertex_product(const ls_data *d, const ircg_domain *dom, const double *v,
                       double *y);
/* x' = x + a (v - x) and z' = cz z + co x + cn x' + e b in place, over len
 * entries (b may be NULL: e unused): the iterate and every vector affine in
 * it (residuals with b, margins without) follow a step the same way. */
void ls_step_arrays(double *x, double *z, const double *v, const double *b,
                    int64_t len, double a, double cz, double co, double cn, double e);
/* The outer vector o(x): Q x (QUADRATIC) or A_v x - b_v (VALIDATION);
 * only when ls_outer_len(d) > 0. */
void ls_qmatvec(const ls_data *d, const double *x, double *y);

/* f(x); qx = its outer vector (ignored when there is none, may be NULL
 * then). */
double ls_f_value(const ls_data *d, const double *x, const double *qx);
/* g += sigma grad f(x), qx as above. */
void ls_f_grad_add(const ls_data *d, double sigma, const double *x,
                   const double *qx, double *g);
/* d' (Hessian of f) d for the move d = y1 - y0, from y1, y0 and their
 * outer vectors q1, q0: ||d||^2, <d, Q d> = <d, q1 - q0>, or
 * ||A_v d||^2 = ||q1 - q0||^2. */
double ls_f_curvature(const ls_data *d, const double *y1, const double *y0,
                      const double *q1, const double *q0);

/* <grad f(y0), y1 - y0> from the points and their outer vectors (least
 * squares' outer objectives). */
double ls_f_slope(const ls_data *d, const double *y1, const double *y0, const double *q1,
                  const double *q0);

/* An upper bound of ||A||_2^2: the eigenvalues of the smaller Gram matrix
 * (LAPACK) when min(m, n) is moderate (a CSR A of at most 2000 columns
 * too, its A'A summed row by row, however many rows), else the least of
 * ||A||_F^2, ||A||_1 ||A||_inf and ls_norm2_sq_lanczos. */
ircg_error ls_norm2_sq(const ls_data *d, double *out, double *mu);
/* (mu, may be NULL: a certified lower bound of lambda_min(A'A) where the
 * Gram matrix's eigenvalues were computed, else 0.) */
/* Lanczos on A'A from a random start: an upper bound of ||A||_2^2 with
 * probability 1 - 1e-10, at most 1% above it (see the definition). */
ircg_error ls_norm2_sq_lanczos(const ls_data *d, double *out);
/* Check that Q is symmetric and PSD; *lmax = its largest eigenvalue, *mu
 * a certified lower bound of its least (0 when none is positive). */
ircg_error ls_check_Q(const double *Q, int n, double *lmax, double *mu, ircg_diag *diag);

#endif /* IRCG_LS_H */
