/*
 * mc.h -- internals of the matrix-completion problem class.
 *
 * The iterate is never formed: X = a X0 + P K Q' with X0 the paper's
 * diagonal start (entries d0 on the first min(n,p) diagonal places), P n x k,
 * Q p x k (one column per LMO vertex, orthonormalized by compression) and a
 * small k x k core K.  x and z share P and Q and have their own (a, K), since
 * z_{t+1} is a linear combination of z_t, x_t and x_{t+1}.  X and Z on
 * Omega are kept as |Omega| vectors in CSR order (the state the steps
 * update), and the residual X_Omega - M that the products read.
 */
#ifndef IRCG_MC_H
#define IRCG_MC_H

#include "core/oracle.h"
#include "base/pool.h"

/* The problem's data: Omega in CSR order with row-aligned chunks that are
 * fixed by the problem alone, so results never depend on the thread count. */
typedef struct mc_data {
    int n, p, m0;       /* n, p: the rows and columns held here; m0 =
                           min(n_all, p_all), X0's diagonal               */
    int64_t nnz;        /* the entries held here                            */
    /* A distributed problem (ircg_problem_matrix_completion_part) holds
     * rows [row0, row0 + n) of n_all; comm is NULL for one process, which
     * holds them all (row0 = 0, n = n_all).  Row-side vectors (u, P, the
     * products C x) are local; column-side ones (v, Q) are replicated. */
    int n_all, row0;
    int64_t nnz_all;    /* |Omega| over every rank                          */
    int ndiag;          /* the local rows on X0's diagonal: local row
                           i < ndiag is global row row0 + i < m0            */
    /* Compaction (one process, unless built whole): the rows and columns
     * beyond X0's diagonal that hold no rating are not held.  Rows and
     * columns below m0 keep their index; the others held follow in
     * ascending order, so the maps are monotone and the CSR order is the
     * whole matrix's.  A column without a rating stays zero in every
     * iterate and every LMO vector (its column of the gradient is
     * sigma (U X)_j = 0 while X's is); so does a row under 1/2 ||X||^2.
     * Under the column variance such rows share one value (grad f = U X
     * treats them alike): they are held as one row, the last, scaled by
     * agg_w = sqrt(their number), so that every Euclidean product is the
     * whole matrix's; the all-ones vector of the whole matrix becomes e
     * (1 on the rows of X held, agg_w on that row: mc_row_sum). */
    int p_all;          /* columns of the whole matrix                      */
    int n_real;         /* rows held that are rows of X: n, or n - 1 with
                           the shared row                                  */
    double agg_w;       /* sqrt(rows shared), 0 when there is no such row  */
    int32_t *row_id;    /* n_real: the row of X each held row is; NULL when
                           every row is held                               */
    int32_t *col_id;    /* p: likewise the columns; NULL when all are held */
    const ircg_comm *comm;
    int64_t *rowptr;    /* n + 1                                            */
    int32_t *col;       /* nnz                                              */
    uint16_t *col16;    /* col again in 16 bits when p <= 65536, else NULL:
                           the hot passes (mc_sweep.c) read it, 2 bytes an
                           entry of their ~40 (MovieLens 1M and 10M,
                           Netflix); the other code reads col             */
    double *m;          /* nnz, the ratings M_Omega; NULL when mf holds
                           them                                            */
    float *mf;          /* the ratings as floats when every one is a float
                           exactly (MovieLens), else NULL: half the bytes
                           to read and to keep (100M ratings: 400 MB, not
                           1.2 GB with both); mc_rating reads either       */
    int nchunk;         /* row-aligned chunks of the elementwise passes     */
    int *chunk_row;     /* nchunk + 1 row boundaries                        */
    int ngroup;         /* groups of chunks with a private column buffer in
                           the transposed products: the tasks of the passes
                           that scatter                                    */
    ircg_outer_kind outer;
    double delta;
} mc_data;

/* The bytes a column index costs the passes that read col16 when the
 * problem has it. */
static inline int mc_col_bytes(const mc_data *d)
{
    return d->col16 ? 2 : 4;
}

/* e'y: the sum of the rows of the whole matrix for a row-side vector y
 * (length n) of a compacted problem (mc_data.agg_w); y's plain sum
 * otherwise, in the same order. */
static inline double mc_row_sum(const mc_data *d, const double *y)
{
    double s = 0;
    for (int i = 0; i < d->n_real; i++)
        s += y[i];
    if (d->agg_w > 0)
        s += d->agg_w * y[d->n - 1];
    return s;
}

/* e_i: 1, or agg_w for the row that stands for the rows without ratings. */
static inline double mc_row_weight(const mc_data *d, int i)
{
    return i < d->n_real ? 1.0 : d->agg_w;
}

/* Rating e of the CSR order, from whichever array holds the ratings. */
static inline double mc_rating(const mc_data *d, int64_t e)
{
    return d->mf ? (double)d->mf[e] : d->m[e];
}

/* What the sparse passes over Omega need: the data, the thread pool and
 * the per-group column buffers of the transposed product.  Shared by the
 * conditional-gradient workspace (mc_ws) and the projection one
 * (mc_prox.c). */
typedef struct mc_exec {
    const mc_data *d;
    slv_pool *pool;          /* NULL when threads == 1                      */
    double *colbuf;         /* ngroup * p                                  */
    int64_t passes;         /* passes over Omega so far                    */
    double bytes;           /* their traffic (mc_exec_count)               */
} mc_exec;

ircg_error mc_exec_init(mc_exec *ex, const mc_data *d, int threads);
void mc_exec_free(mc_exec *ex);
/* One more pass over Omega that reads and writes `per_entry` bytes per
 * observed entry (each array counted once, as STREAM counts; the vectors
 * of length n or p are left out: they stay in cache). */
void mc_exec_count(mc_exec *ex, double per_entry);
/* The oracle's traffic op on an mc_exec. */
void mc_exec_traffic(const mc_exec *ex, int64_t *passes, double *bytes, int *threads);

/* One side (x or z) of the factored iterate. */
typedef struct mc_side {
    double a;       /* coefficient of X0                                    */
    double *K;      /* cap x cap core, column-major, leading dimension cap  */
    double *xo;     /* the side on Omega (X_Omega), nnz: the state the steps
                       update.  Its entries are small, so a step rounds far
                       less than an update of the residual would (updated
                       residuals drifted 1e-8 in g over 20,000 MovieLens
                       steps, where the gaps of interest are 1e-9)         */
    double *r;      /* xo - M, made only when asked for (the passes form it
                       as they read xo): x side by mc_x_residual, z side
                       by the residual op; NULL before                     */
} mc_side;

/* The sums a pass over Omega makes for the values and the next direction,
 * compensated (base/ksum.h), per chunk and then in chunk order.  A chunk's
 * slots: of both sides 1/2 sum r^2, or with a reference 1/2 sum (r^2 -
 * Q~) (mc_sweep.c); then <R, X_Omega>.  Setting a reference uses
 * the first two for its constants (MC_S_QCORR, MC_S_GQ). */
enum { MC_S_X, MC_S_Z, MC_S_RX, MC_NSUM, MC_S_QCORR = MC_S_X, MC_S_GQ = MC_S_Z };
typedef struct mc_sums {
    double g_x, g_z;     /* 1/2 ||r||^2 of both sides                       */
    double rx_x;         /* <R, X_Omega> of the x side                      */
    double gap_x, gap_z; /* sum 1/2 (r - q)(r + q) against the reference
                            residual q = ref, valid when ref != NULL (made
                            from Q~, mc_sweep.c)                           */
    const double *ref;   /* the reference they were made with (or NULL)    */
    int valid;
} mc_sums;

typedef struct mc_ws {
    const mc_data *d;
    mc_exec ex;             /* d, the pool, the column buffers             */
    double lmo_tol;
    int lmo_max_mv;
    double d0;              /* diagonal entry of X0                        */
    int k, cap, compress_at, compress_base;
    int since_refresh;      /* steps since the residuals were recomputed
                               from the factors (mc_refresh.c)             */
    int xr_valid;           /* x.r is the current residual                 */
    double *P, *Q;          /* n x cap, p x cap                            */
    double *GP, *GQ, *W;    /* P'P, Q'Q, P[:m0]'Q[:m0], cap x cap          */
    double *sP, *qm;        /* P'1, Q[:m0]'1                               */
    mc_side x, z;
    mc_sums sums;           /* of the current x and z                      */
    const double *ref;      /* reference residual the step passes sum
                               against (mc_reference_set), NULL: none;
                               must not change while set                   */
    uint16_t *qsq;          /* ref squared in 16-bit fixed point, in units
                               of qsq_unit: Q~, what the passes read (NULL
                               when there was no memory: Q~ = 0)           */
    double qsq_unit;        /* a power of 2                                */
    double qcorr;           /* 1/2 sum (Q~ - q^2), the gaps' constant      */
    double gq;              /* 1/2 sum Q~, g's constant then               */
    /* the last LMO: vertex -delta u v', kept for step() and warm starts */
    double *u, *v;          /* n, p                                        */
    double *Pu, *Qv;        /* P'u, Q'v (cap)                              */
    double sv;
    int have_v, have_dir;
    /* The first Gram product C'C v of the next LMO, made by the step pass
     * (it reads R and v anyway) when plan_lmo announced sigma: exactly the
     * bits the LMO's own first pass would give (mc_sweep.c). */
    int plan_valid;         /* plan_sigma is the next LMO's sigma          */
    double plan_sigma;
    int pre_valid;          /* pre_* hold C v and R'(C v) for plan_sigma,
                               the current residual and v                 */
    double pre_sigma;
    double *pre_cv;         /* C v (n)                                     */
    double *pre_rtc;        /* R' C v (p)                                  */
    double *pre_a;          /* scratch: sigma grad f(X) v (n)              */
    /* The next LMO, made ahead of time by a certificate of x at the
     * sigma that LMO will take (mc_lmo_stage): the certificate needs the
     * top singular pair of that very operator, and the LMO then takes the
     * stage instead of running the same Lanczos process again (the same
     * bits: the same start, products and tolerance).  `gen` counts the
     * changes of what an LMO reads (x, the factors, the vertex, a
     * restore); a stage is valid for its sigma at its generation only,
     * and is never part of the state. */
    uint64_t gen;
    int st_valid;
    uint64_t st_gen;
    double st_sigma, st_sv, st_seconds;
    double *st_u, *st_v;    /* n, p                                        */
    int64_t st_matvecs;
    int st_converged;
    /* scratch */
    double *tn, *tp, *tk, *tk2; /* n, p, cap, cap                          */
    double *dsum;           /* per-chunk partial sums (MC_NSUM * nchunk)   */
    double *cbuf;           /* distributed: the partial sums sent together
                               (p + 2 cap^2 + 2 cap + 4, grown with cap)  */
    struct lmo_gram *gram;  /* the LMO's Lanczos on C'C                    */
    struct lmo_lanczos *lz; /* Golub-Kahan Lanczos for CG-BiO's cut oracle,
                               made on first use (mc_lanczos)              */
    ircg_lmo_engine engine; /* settings.lmo_engine: which one lmo() calls  */
    double *tn2;            /* n, scratch of the ARPACK path               */
    /* The whole instance's digest (mc_whole_digest), made by the first
     * whole save: a pass over the data and 3 N hand-overs that every later
     * snapshot would repeat for the same answer (the data never change). */
    int whole_digest_known;
    uint64_t whole_digest;
    /* The certificates' scratch and the anchor (mc_cert.c), made on the
     * first certificate; never part of the state. */
    struct mc_cert_buf *cert;
    /* State that a method's own oracle keeps with this workspace (CG-BiO's
     * cut: its pending vertex and scratch, baselines/cgbio/mc_cut.c), NULL
     * until first used; freed with the workspace through ext_free. */
    void *ext;
    void (*ext_free)(void *ext);
} mc_ws;

/* mc_problem.c: the problem handle with the family's oracle (pb->ops); the
 * public constructor (core/families.c) adds the methods' oracles.  comm
 * NULL: the whole matrix (row0 0, n_local R->n_rows), compacted unless
 * `whole`; else this rank's rows [row0, row0 + n_local) (ircg.h), never
 * compacted. */
ircg_error mc_problem_new(const ircg_ratings *R, int row0, int n_local,
                          const ircg_comm *comm, ircg_outer_kind outer, double delta,
                          int whole, ircg_problem **out, ircg_diag *diag);
const mc_data *mc_data_of(const ircg_problem *pb);

/* mc_start.c: a given start x0 (column-major: on one process the n x p
 * rows and columns held, mc_given_held's; on a rank the whole n_all x p
 * matrix), checked finite and inside the ball ("/x0" errors), as its thin
 * SVD: the r nonzero singular values s, left vectors
 * U (the n rows held here, x m0) and right ones Vt (m0 x p, row i is
 * v_i'); its entries on Omega are read off x0 (mc_given_on_omega).  On a
 * distributed problem collective: rank 0 makes the one SVD. */
typedef struct mc_given {
    int r;
    double *U, *s, *Vt;
    double nuc; /* ||x0||_* when it was found outside the ball */
} mc_given;
ircg_error mc_given_svd(const mc_data *d, const double *x0, mc_given *g,
                        ircg_diag *diag);
void mc_given_free(mc_given *g);
/* x0 on Omega (minus_m = 0) or its residual x0_Omega - M (minus_m = 1),
 * read off the entries: exact. */
void mc_given_on_omega(const mc_data *d, const double *x0, int minus_m, double *out);
/* A whole x0 (n_all x p_all) on the rows and columns held, as the
 * functions above take it: *held NULL when x0 is that already (nothing
 * compacted), else malloc'ed.  "/x0" errors when x0 is not zero where the
 * iterates stay zero (or not equal on the shared rows). */
ircg_error mc_given_held(const mc_data *d, const double *x0, double **held,
                         ircg_diag *diag);

/* mc_kernels.c: sparse products over Omega, threaded by chunk */
/* y += R x and y += R' x for the sparse matrix R with values r on Omega */
void mc_spmv(mc_exec *ex, const double *r, const double *x, double *y);
void mc_spmvt(mc_exec *ex, const double *r, const double *x, double *y);
/* ||P_Omega(V - X)||^2 for the vertex V = -delta u v' and the x side */
double mc_omega_hg(mc_ws *w);
/* xo += a d0 on the diagonal entries of Omega with i = j < m0 */
void mc_omega_add_x0(mc_ws *w, double *xo, double a);

/* mc_sweep.c: the fused passes over Omega, threaded by group of chunks;
 * every sum is made per chunk and combined in chunk order, so the results
 * are identical for any number of threads. */
/* x' = (1-alpha) x + alpha vo and z' = cz z + cxo x + cxn x' on Omega, with
 * vo = -delta u_i v_j; the x residual and the sums of both sides follow.
 * pre: also the Gram product at v of the planned LMO (pre_cv, pre_rtc),
 * from pre_a = mc_gram_lowrank_in(plan_sigma, v) made on the new factors. */
void mc_omega_step(mc_ws *w, double alpha, double cz, double cxo, double cxn, int pre);
/* The sums of the current sides, as a step pass makes them. */
void mc_omega_sums(mc_ws *w);
/* The same in two parts, for a pass that writes x and z itself
 * (mc_refresh.c): chunk c's sums (a task, run right after the chunk is
 * written, while it is in cache), then, after every chunk's, the totals.
 * mc_sums_data_bytes: what such a pass reads for the sums besides x and
 * z (M, and Q~ when traced), per entry. */
void mc_omega_sums_chunk(mc_ws *w, int c);
void mc_omega_sums_finish(mc_ws *w);
double mc_sums_data_bytes(const mc_ws *w);
/* The x residual xo - M (made by a pass when stale; NULL when out of
 * memory), for the plain products of mc_grad_op. */
const double *mc_x_residual(mc_ws *w);
/* One Gram product of C = sigma grad f(X) + R at x (p): cx = C x (n) and
 * ctcx = C'C x (p), in one pass over Omega. */
void mc_gram_product(mc_ws *w, double sigma, const double *x, double *cx,
                     double *ctcx);
/* The same for C = R of side s alone (the gradient of g there). */
void mc_gram_product_r(mc_ws *w, const mc_side *s, const double *x, double *cx,
                       double *ctcx);
/* <R, X_Omega> of the current x (from the last pass's sums, or a pass). */
double mc_rx_dot_x(mc_ws *w);
/* Slot `slot` of the chunks' sums (w->dsum) added in chunk order. */
double mc_chunk_total(const mc_ws *w, int slot);

/* mc_reference.c: the reference residual q (NULL: none) whose gaps
 * g - g_ref the passes sum from now on: Q~ and its constants made once
 * (two passes), nothing when q is already the one set. */
void mc_reference_set(mc_ws *w, const double *q);

/* mc_refresh.c: both sides on Omega recomputed from the factors, and
 * their sums, in one pass: every MC_REFRESH_EVERY steps in place of the
 * step's incremental pass, against the drift of those updates.  Nothing
 * changes when it fails (out of memory). */
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
/* Thin QR of A (m x k, leading dimension m): F m x kk with orthonormal
 * columns, R kk x k (leading dimension kk), kk = min(m, k). */
ircg_error mc_thin_qr(const double *A, int m, int k, double *F, double *R);
/* Thin SVD of P K Q' (k columns): Po n x r, Qo p x r, sv r; *r <= k. */
ircg_error mc_core_svd(const mc_ws *w, const double *K, double *Po, double *Qo,
                       double *sv, int *r);
ircg_error mc_dense(const mc_ws *w, const mc_side *s, double *X);

/* mc_layout.c: an iterate whose factors (P: n x rank, Q: p x rank) and
 * dense matrix (n x p) were made on the rows and columns held, put in
 * the whole matrix's terms (ircg_iterate): dimensions, the ids held, the
 * shared row as P_other, P's leading dimension n_real, dense spread. */
ircg_error mc_iterate_finish(const mc_data *d, ircg_iterate *it);

/* mc_digest.c: the data digest of the instance this process holds (one
 * process: the whole; a rank: its part), and of the whole instance
 * (collective on a distributed problem: every rank gets it). */
uint64_t mc_data_digest(const mc_data *d);
uint64_t mc_whole_digest(const mc_data *d);
/* mc_state.c: the whole state of a distributed workspace in mc_save's
 * layout, to s on rank 0 (the ops' whole_identity and save_whole). */
ircg_error mc_whole_identity(void *ws, int *rank, int64_t *n_observed, uint64_t *digest);
ircg_error mc_save_whole(void *ws, slv_sink *s);
/* Its inverse for this rank: the whole state read from src, as mc_save
 * would have written this rank's part of it, into out (the ops'
 * split_whole). */
ircg_error mc_split_whole(void *ws, slv_csrc *src, slv_buf *out, ircg_diag *diag);

/* mc_dist.c: what a distributed problem does differently (d->comm set) */
/* Thin QR of the row-distributed A (n x k local rows, leading dimension
 * n) by TSQR: F (n x k, local rows) and R (k x k, the same on every rank)
 * with A = F R. */
ircg_error mc_dist_qr(const mc_data *d, const double *A, int k, double *F, double *R);
/* y -= mean(y) over the rows of every rank (the column-variance U). */
void mc_center(const mc_data *d, double *y);
/* The end of a Gram product: ctcx holds this rank's R' cx; after it,
 * on every rank, C'C x = R' cx + sigma grad f(X)' cx over all rows. */
void mc_dist_lowrank_out(mc_ws *w, double sigma, const double *cx, double *ctcx);
/* The whole iterate (rows gathered) from the local one. */
ircg_error mc_dist_gather(const mc_ws *w, ircg_iterate *it);

/* mc_lmo.c */
#define MC_LANCZOS_BASIS 32 /* vectors kept before an explicit restart */
/* The implicit operator C = wf grad f(X) + wg P_Omega(X - M) at the x side,
 * as an lmo_op_fn for the Golub-Kahan Lanczos and ARPACK. */
typedef struct mc_grad_ctx {
    mc_ws *w;
    double wf, wg;
} mc_grad_ctx;
void mc_grad_op(void *ctx, int trans, const double *x, double *y);
/* The low-rank ends of a Gram product (mc_gram_product): before the pass
 * a = sigma grad f(X) x (n), after it ctcx += sigma grad f(X)' cx, where
 * ctcx holds R' cx. */
void mc_gram_lowrank_in(mc_ws *w, double sigma, const double *x, double *a);
void mc_gram_lowrank_out(mc_ws *w, double sigma, const double *cx, double *ctcx);
ircg_error mc_lmo(void *ws, double sigma, slv_dir *dir);
/* The Lanczos process of the next mc_lmo at sigma, made now into the
 * stage (w->st_*), unless it holds it already; the workspace's state is
 * not touched.  IRCG_ERR_INVALID when the engine makes no stage (ARPACK):
 * the caller runs its own process then. */
ircg_error mc_lmo_stage(mc_ws *w, double sigma);
/* Whether the stage holds the next LMO at sigma. */
int mc_lmo_staged(const mc_ws *w, double sigma);
/* Make -delta u v' (unit u, v) the vertex of the next mc_step, as mc_lmo
 * leaves it (u, v, P'u, Q'v, have_dir). */
void mc_set_vertex(mc_ws *w, const double *u, const double *v);
ircg_error mc_grad_singular_values(void *ws, int k, double *sv);
/* The Golub-Kahan Lanczos of the workspace, made on first use (NULL when
 * out of memory). */
struct lmo_lanczos *mc_lanczos(mc_ws *w);

/* mc_certify.c: the certificate of a single inner solution at x (x's side
 * must be the final iterate of g_opt's computation); p <= 16000. */
ircg_error mc_certify_unique(void *ws, slv_unique *out);

/* mc_cert.c: the certificates (oracle.h, slv_cert) and their scratch: the
 * Lanczos process of the bounded singular values, its vectors, the
 * bounded Gram product's, and the anchor of mc_anchor.c. */
typedef struct mc_cert_buf {
    struct lmo_gram *gram;
    double *u, *v;          /* n, p: the Lanczos answer                    */
    double *cx, *a, *e1;    /* n: C x, its low-rank part, row error bounds */
    double *wv, *s1;        /* p: C'C x, the magnitudes of its sums        */
    double *vx;             /* p: x's top vector of R, z's start when the
                               state is the same (vx_gen = mc_ws.gen)      */
    int vx_valid;
    uint64_t vx_gen;
    double sv2_m;           /* >= sigma_2(M_Omega); NaN: not made yet,
                               INFINITY: too large to make               */
    double anchor_seconds;
} mc_cert_buf;
void mc_cert_free(mc_cert_buf *b);
/* The workspace's certificate buffers, made on first use (NULL: no
 * memory). */
mc_cert_buf *mc_cert_buf_get(mc_ws *w);
ircg_error mc_certify(void *ws, ircg_which which, double sigma, slv_cert *out);
/* theta <= lambda_1(M'M), by Lanczos and a bounded product (mc_anchor.c). */
ircg_error mc_cert_ratings_theta(mc_ws *w, double *theta_lo);
/* mc_anchor.c: sigma_2(M_Omega) <= this, made once (INFINITY: unknown). */
double mc_anchor_sv2(mc_ws *w);

/* mc_dense.c: dense SVDs of a held n x p matrix (column-major) for small
 * instances.  LAPACK's singular values sv of A are within mc_svd_margin
 * times sigma_1(A) of the exact ones (backward stability). */
double mc_svd_margin(int n, int p);
/* The singular values of A (destroyed), decreasing, into sv (min(n, p));
 * 0 on success. */
int mc_dense_svals(double *A, int n, int p, double *sv);
/* Upper bounds, from computed values: of sigma_1 (from sv_1), and of the
 * nuclear norm (from all min(n, p) of them). */
double mc_sv1_hi(double sv1, int n, int p);
double mc_nuclear_hi(const double *sv, int n, int p);
/* The scratch of a thin SVD (dgesdd) of an n x p matrix: U n x k, Vt k x
 * p, k = min(n, p), and the values. */
typedef struct mc_svd_buf {
    int n, p, k;
    double *a, *u, *vt, *s, *sp; /* a: n x p scratch; sp: projected values */
} mc_svd_buf;
int mc_svd_buf_init(mc_svd_buf *b, int n, int p); /* 0, or -1: no memory */
void mc_svd_buf_free(mc_svd_buf *b);
/* The thin SVD of y into b (u, s, vt); 0 on success. */
int mc_svd_thin(mc_svd_buf *b, const double *y);
/* The numerical rank of b's last SVD: values above min(n, p) eps sv_1. */
int mc_svd_rank(const mc_svd_buf *b);
/* out = the Euclidean projection of y onto {||X||_* <= delta} (out may
 * alias y): y itself, bit for bit, when the sum of its computed singular
 * values is at most delta; else U diag(s') V' with s' the projection of
 * the values onto {s >= 0, sum s = delta}.  *rank: the rank of out (the
 * values s' > 0; inside, mc_svd_rank).  *hint (in and out): y is likely
 * inside (the last one was), so its values alone (dgesvd, a third of the
 * thin SVD's cost) are tried first; the caller keeps it with its state
 * (a checkpoint), since which values decide a point on the sphere could
 * differ in the last bits. */
ircg_error mc_project_nuclear(mc_svd_buf *b, double delta, const double *y, double *out,
                              int *rank, int *hint);

/* mc_point.c: FC-BiO's point oracle (oracle.h, slv_point_ops) on small
 * instances of one process: x and z as dense held n x p matrices
 * (column-major), the projections by a dense SVD per call.  Offered
 * while n p min(n, p) <= MC_POINT_MAX_WORK, the work of one SVD: at 300 x
 * 300 (2.7e7) a thin dgesdd takes ~27 ms of CPU here (its values alone
 * ~11 ms) and a step makes 5.5 projections on average (the prox step's
 * dual, bisect/prox_max.c; the selection instance of tests/study), so a
 * step costs ~0.15 s and a thousand steps minutes; beyond, the cubic cost
 * makes FC-BiO's steps the wrong currency and FC-BiO-CG (Lanczos, no
 * projection) is the method.  The observation of a point Y is
 * [P_Omega(Y) - M in CSR order, and under the column variance the column
 * sums e'Y]: affine in Y, as FC-BiO's extrapolation needs. */
#define MC_POINT_MAX_WORK IRCG_FCBIO_MC_MAX_WORK /* ircg/settings.h */
typedef struct mc_point_ws {
    const mc_data *d;
    int colvar;                 /* the outer is the column variance      */
    double d0;                  /* X0's diagonal entry                    */
    double *x, *z;              /* n x p, column-major: FC-BiO's x_k, z   */
    double f_x, g_x, f_z, g_z;  /* as set_point gave them                 */
    int rank_x, rank_z;         /* their ranks (-1: not known yet)        */
    double *rx, *rz;            /* residuals on Omega (the residual op)   */
    mc_svd_buf svd;             /* the projections' scratch               */
    double *last;               /* the last projection's output and its   */
    int last_rank;              /* rank (-1: none), which set_point keeps */
    int inside_hint;            /* mc_project_nuclear's hint (saved)      */
    struct mc_pcert_buf *cert;  /* the certificates' scratch (first use)  */
} mc_point_ws;
extern const slv_oracle_ops slv_mc_point_ops;
extern const slv_point_ops slv_mc_point;
/* Whether the point oracle is offered for d (one process, small). */
int mc_point_fits(const mc_data *d);
/* The workspace at the start point of s on the rows and columns held,
 * for any problem of one process (slv_mc_point_ops.create also refuses
 * what FC-BiO cannot run on, mc_point.c). */
ircg_error mc_point_new(const mc_data *d, const ircg_settings *s, mc_point_ws **out,
                        ircg_diag *diag);
/* mc_point_cert.c: the certificate of x or z (oracle.h, slv_cert). */
ircg_error mc_point_certify(void *ws, ircg_which which, double sigma, slv_cert *out);
void mc_pcert_free(struct mc_pcert_buf *b);

/* mc_cert_snap.c: copies of what a certificate reads, certified on
 * another thread (the oracle's snap_* ops, oracle.h) */
void *mc_snap_new(void *ws);
ircg_error mc_snap_take(void *ws, void *snap);
void mc_snap_done(void *ws, void *snap);
void mc_snap_free(void *snap);

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
