/*
 * mc_prox.h -- the projection methods' workspace on matrix completion
 * (slv_mc_prox_ops: IR-PG and Bi-SG).
 *
 * A point is y = c B + 1 w' with B = a X0 + P diag(s) Q' (P n x k and Q
 * p x k with orthonormal columns; in practice either k = 0, the paper's
 * diagonal start, or a = 0 after the first projection) and w in R^p, which
 * only Bi-SG's outer step makes nonzero.  Every point keeps its residual
 * y_Omega - M (CSR order), its column sums, f and g.  No n x p matrix is
 * formed except by the full projection (IRCG_PROJ_FULL or its fallback).
 *
 * The matrix projected by grad_step is implicit:
 *   Y = y - a_f grad f(y) - a_g P_Omega(y - M) = cY B + 1 wY' - a_g R_y
 * with cY = (1 - a_f) c, wY = (1 - a_f) w + (a_f / n) colsum(y) for the
 * column-variance f (grad f = U y, U 1 = 0) and wY = (1 - a_f) w for
 * f = 1/2 ||y||^2.  A product with Y costs O(|Omega| + (n + p) k).
 */
#ifndef IRCG_MC_PROX_H
#define IRCG_MC_PROX_H

#include "problems/mc/mc.h"
#include "lmo/topk.h"

typedef struct mp_point {
    double c, a;
    int k, cap;       /* atoms used, allocated                              */
    double *P, *Q, *s;/* n x cap, p x cap, cap                              */
    int has_w;
    double *w;        /* p; zero when !has_w                                */
    double *r;        /* nnz: y_Omega - M                                   */
    double *cs;       /* p: colsum(y)                                       */
    double g, f;
} mp_point;

typedef struct mp_ws {
    const mc_data *d;
    mc_exec ex;
    double d0;             /* diagonal entry of X0                          */
    double tol;            /* settings.lmo_tol                               */
    int max_mv;            /* settings.lmo_max_matvecs                       */
    mp_point x, z, pend;
    int have_pend;
    /* warm start of the next PARTIAL projection: the right Ritz vectors of
     * the last projection (p x nwarm), and its rank */
    double *warm;
    int nwarm, warm_cap, last_rank;
    lmo_topk *tk;
    double *dsum;          /* per-chunk partial sums, 3 * nchunk            */
    double *tn, *tp;       /* scratch, n and p                              */
} mp_ws;

/* A factored matrix x0 X0 + A C B' (A n x ka, B p x kb, C ka x kb, all
 * column-major with leading dimensions n, p, ka); owns its arrays. */
typedef struct mp_fm {
    double x0;
    int ka, kb;
    double *A, *B, *C;
} mp_fm;

/* mc_prox_point.c */
/* c = 1, a = 0, k = 0, w = 0: the zero matrix (r not yet set) */
ircg_error mp_point_init(mp_point *pt, const mc_data *d);
ircg_error mp_point_reserve(mp_point *pt, const mc_data *d, int cap);
void mp_point_free(mp_point *pt);
/* The w of y - a_f grad f(y): (1 - a_f) w_y, plus (a_f/n) colsum(y) for
 * the column variance (U = I - 11'/n kills the 1 w' term).  Writes out
 * (length p) and returns 1, or returns 0 when it is zero. */
int mp_shifted_w(const mc_data *d, const mp_point *y, double a_f, double *out);
ircg_error mp_point_copy(mp_point *dst, const mp_point *src, const mc_data *d);
/* colsum(pt) into pt->cs */
void mp_point_colsum(const mp_ws *w, mp_point *pt);
/* pt as a factored matrix; with_w = 0 leaves out 1 w' (U 1 = 0). */
ircg_error mp_fm_of_point(const mp_ws *w, const mp_point *pt, int with_w, mp_fm *out);
void mp_fm_free(mp_fm *f);
/* <F1, F2> (centered = 0) or <U F1, U F2> from small Grams. */
ircg_error mp_fm_inner(const mp_ws *w, const mp_fm *f1, const mp_fm *f2,
                       int centered, double *out);
/* F1 - F2 with orthonormal factors (thin QR of the stacked factors), so
 * that its norms carry no cancellation between the two points. */
ircg_error mp_fm_diff(const mp_ws *w, const mp_fm *f1, const mp_fm *f2, mp_fm *out);
/* f of pt into pt->f */
ircg_error mp_point_f(const mp_ws *w, mp_point *pt);

/* mc_prox_omega.c: passes over Omega (threaded by chunk, summed in chunk
 * order, compensated).  pt->r is computed from pt's factors, or, when aff
 * is given, as r = aff_r * src + aff_m * M + (gam ? gam_j : 0) (src may be
 * pt->r itself); pt->g is set.  With ref (the residual of the point moved
 * from), sum ref (r - ref) goes to *gg_d and sum (r - ref)^2 to *hg_d. */
typedef struct mp_affine {
    double aff_r, aff_m;
    const double *src, *gam;
} mp_affine;
ircg_error mp_omega_residual(mp_ws *w, mp_point *pt, const mp_affine *aff,
                             const double *ref, double *gg_d, double *hg_d);

/* mc_project.c: the pending point = Proj(Y) for Y of y with (a_f, a_g). */
typedef struct mp_proj_info {
    int64_t matvecs;
    int converged, full;
} mp_proj_info;
ircg_error mp_project(mp_ws *w, const mp_point *y, double a_f, double a_g,
                      ircg_projection mode, mp_proj_info *info);
/* Threshold theta of the projection of the sorted (descending) values s
 * onto {x >= 0, sum x = delta} and the number rho of values above it;
 * returns 0 when sum max(s, 0) <= delta (the inequality simplex keeps s). */
int mp_simplex_threshold(const double *s, int n, double delta, double *theta,
                         int *rho);

/* mc_prox_step.c */
ircg_error mp_grad_step(void *ws, unsigned from, double a_f, double a_g,
                        int project, ircg_projection mode, slv_move *mv);
ircg_error mp_accept(void *ws, unsigned into);

/* mc_prox_state.c */
ircg_error mp_save(void *ws, slv_buf *out);
ircg_error mp_restore(void *ws, slv_rbuf *in, ircg_diag *diag);
/* z <- x (the oracle's restart) */
ircg_error mp_restart(void *ws);
ircg_error mp_iterate(void *ws, ircg_which which, int want_dense,
                      ircg_iterate **out);

#endif /* IRCG_MC_PROX_H */
