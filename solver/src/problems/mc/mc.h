/*
 * mc.h -- internals of the matrix-completion problem class.
 *
 * The iterate is never formed: X = a X0 + P K Q' with X0 the paper's
 * diagonal start (entries d0 on the first min(n,p) diagonal places), P n x k,
 * Q p x k (one column per LMO vertex, orthonormalized by compression) and a
 * small k x k core K.  x and z share P and Q and have their own (a, K), since
 * z_{t+1} is a linear combination of z_t, x_t and x_{t+1}.  The residuals
 * X_Omega - M and Z_Omega - M are kept as |Omega| vectors in CSR order.
 */
#ifndef IRCG_MC_H
#define IRCG_MC_H

#include "core/oracle.h"
#include "base/pool.h"

/* The problem's data: Omega in CSR order with row-aligned chunks that are
 * fixed by the problem alone, so results never depend on the thread count. */
typedef struct mc_data {
    int n, p, m0;       /* m0 = min(n, p)                                   */
    int64_t nnz;
    int64_t *rowptr;    /* n + 1                                            */
    int32_t *col;       /* nnz                                              */
    double *m;          /* nnz, the ratings M_Omega                         */
    int nchunk;         /* row-aligned chunks of the elementwise passes     */
    int *chunk_row;     /* nchunk + 1 row boundaries                        */
    int ngroup;         /* groups of chunks with a private column buffer in
                           the transposed product                          */
    ircg_outer_kind outer;
    double delta;
} mc_data;

/* What the sparse passes over Omega need: the data, the thread pool and
 * the per-group column buffers of the transposed product.  Shared by the
 * conditional-gradient workspace (mc_ws) and the projection one
 * (mc_prox.c). */
typedef struct mc_exec {
    const mc_data *d;
    slv_pool *pool;          /* NULL when threads == 1                      */
    double *colbuf;         /* ngroup * p                                  */
} mc_exec;

ircg_error mc_exec_init(mc_exec *ex, const mc_data *d, int threads);
void mc_exec_free(mc_exec *ex);

/* One side (x or z) of the factored iterate. */
typedef struct mc_side {
    double a;       /* coefficient of X0                                    */
    double *K;      /* cap x cap core, column-major, leading dimension cap  */
    double *xo;     /* the side on Omega (X_Omega), nnz: the state the steps
                       update.  Its entries are small, so a step rounds far
                       less than an update of the residual would (updated
                       residuals drifted 1e-8 in g over 20,000 MovieLens
                       steps, where the gaps of interest are 1e-9)         */
    double *r;      /* xo - M, rewritten by every step                      */
    double g;       /* 1/2 ||r||^2, valid when sums_valid                  */
} mc_side;

typedef struct mc_ws {
    const mc_data *d;
    mc_exec ex;             /* d, the pool, the column buffers             */
    double lmo_tol;
    int lmo_max_mv;
    double d0;              /* diagonal entry of X0                        */
    int k, cap, compress_at, compress_base;
    int since_refresh;      /* steps since the residuals were recomputed
                               from the factors (mc_refresh.c)             */
    double *P, *Q;          /* n x cap, p x cap                            */
    double *GP, *GQ, *W;    /* P'P, Q'Q, P[:m0]'Q[:m0], cap x cap          */
    double *sP, *qm;        /* P'1, Q[:m0]'1                               */
    mc_side x, z;
    int sums_valid;
    /* the last LMO: vertex -delta u v', kept for step() and warm starts */
    double *u, *v;          /* n, p                                        */
    double *Pu, *Qv;        /* P'u, Q'v (cap)                              */
    double sv;
    int have_v, have_dir;
    double *pre_rv;         /* R v for the current residual and v (n), made
                               by the step pass for the next LMO's start   */
    int pre_valid;
    /* scratch */
    double *tn, *tp, *tk, *tk2; /* n, p, cap, cap                          */
    double *dsum;           /* per-chunk partial sums (4 * nchunk)         */
    struct lmo_lanczos *lz;
    ircg_lmo_engine engine; /* settings.lmo_engine: which one lmo() calls  */
    double *tn2;            /* n, scratch of the ARPACK path               */
    /* State that a method's own oracle keeps with this workspace (CG-BiO's
     * cut: its pending vertex and scratch, baselines/cgbio/mc_cut.c), NULL
     * until first used; freed with the workspace through ext_free. */
    void *ext;
    void (*ext_free)(void *ext);
} mc_ws;

/* mc_problem.c: the problem handle with the family's oracle (pb->ops); the
 * public constructor (core/families.c) adds the methods' oracles */
ircg_error mc_problem_new(const ircg_ratings *R, ircg_outer_kind outer, double delta,
                          ircg_problem **out, ircg_diag *diag);
const mc_data *mc_data_of(const ircg_problem *pb);

/* mc_start.c: a given start x0 (column-major n x p), checked finite and
 * inside the ball ("/x0" errors), as its thin SVD: the r nonzero singular
 * values s, left vectors U (n x m0) and right ones Vt (m0 x p, row i is
 * v_i'); its entries on Omega are read off x0 (mc_given_on_omega). */
typedef struct mc_given {
    int r;
    double *U, *s, *Vt;
} mc_given;
ircg_error mc_given_svd(const mc_data *d, const double *x0, mc_given *g,
                        ircg_diag *diag);
void mc_given_free(mc_given *g);
/* x0 on Omega (minus_m = 0) or its residual x0_Omega - M (minus_m = 1),
 * read off the entries: exact. */
void mc_given_on_omega(const mc_data *d, const double *x0, int minus_m, double *out);

/* mc_kernels.c: sparse passes over Omega, threaded by chunk */
/* y += R x and y += R' x for the sparse matrix R with values r on Omega */
void mc_spmv(const mc_exec *ex, const double *r, const double *x, double *y);
void mc_spmvt(const mc_exec *ex, const double *r, const double *x, double *y);
/* x' = (1-alpha) x + alpha vo and z' = cz z + cxo x + cxn x' on Omega, with
 * vo = -delta u_i v_j; the residuals and g of both sides follow. */
void mc_omega_step(mc_ws *w, double alpha, double cz, double cxo, double cxn);
/* On the x side: <R, X_Omega> and ||P_Omega(V - X)||^2. */
void mc_omega_dir(mc_ws *w, double *rx_dot_x, double *d_hg_d);
/* xo += a d0 on the diagonal entries of Omega with i = j < m0 */
void mc_omega_add_x0(mc_ws *w, double *xo, double a);
/* r = xo - M and g, both sides */
void mc_omega_residuals(mc_ws *w);

/* mc_refresh.c: both sides on Omega (and the residuals, g) recomputed from
 * the factors, every MC_REFRESH_EVERY steps, against the drift of the
 * incremental updates */
#define MC_REFRESH_EVERY 32
ircg_error mc_omega_refresh(mc_ws *w);

/* mc_factors.c: the low-rank part */
ircg_error mc_factors_reserve(mc_ws *w, int cap);
void mc_apply_x(const mc_ws *w, const mc_side *s, const double *v, double *y);
void mc_apply_xt(const mc_ws *w, const mc_side *s, const double *u, double *y);
ircg_error mc_append_atom(mc_ws *w, const double *u, const double *v);
void mc_grams_rebuild(mc_ws *w);
/* ||X||^2 and ||colsum X||^2 of one side (exact formulas on the Grams). */
void mc_side_norms(const mc_ws *w, const mc_side *s, double *fro2, double *cs2);
double mc_side_f(const mc_ws *w, const mc_side *s);
ircg_error mc_compress(mc_ws *w);
/* Thin SVD of P K Q' (k columns): Po n x r, Qo p x r, sv r; *r <= k. */
ircg_error mc_core_svd(const mc_ws *w, const double *K, double *Po, double *Qo,
                       double *sv, int *r);
ircg_error mc_dense(const mc_ws *w, const mc_side *s, double *X);

/* mc_lmo.c */
/* The implicit operator C = wf grad f(X) + wg P_Omega(X - M) at the x side,
 * as an lmo_op_fn for the Lanczos.  pre (optional) is R v0 for the first
 * product, which the step pass computes for free (pre_scale = 1/||v0||). */
typedef struct mc_grad_ctx {
    mc_ws *w;
    double wf, wg;
    const double *pre;
    double pre_scale;
    int calls;
} mc_grad_ctx;
void mc_grad_op(void *ctx, int trans, const double *x, double *y);
ircg_error mc_lmo(void *ws, double sigma, slv_dir *dir);
/* Make -delta u v' (unit u, v) the vertex of the next mc_step, as mc_lmo
 * leaves it (u, v, P'u, Q'v, have_dir). */
void mc_set_vertex(mc_ws *w, const double *u, const double *v);
ircg_error mc_grad_singular_values(void *ws, int k, double *sv);

/* mc_ops.c */
ircg_error mc_step(void *ws, double alpha, double cz, double cx_old,
                   double cx_new);

/* mc_state.c */
ircg_error mc_save(void *ws, slv_buf *out);
ircg_error mc_restore(void *ws, slv_rbuf *in, ircg_diag *diag);
/* z <- x (the oracle's restart) */
ircg_error mc_restart(void *ws);
ircg_error mc_iterate(void *ws, ircg_which which, int want_dense,
                      ircg_iterate **out);

#endif /* IRCG_MC_H */
