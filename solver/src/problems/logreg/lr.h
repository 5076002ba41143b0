/*
 * lr.h -- the logistic regression problem class, shared by lr_problem.c
 * (construction, validation, constants), lr_loss.c (the loss, its slope
 * and differences without cancellation) and lr_oracle.c (the workspace and
 * the oracle of core/oracle.h).
 *
 *   g(x) = sum_k log(1 + exp(-y_k a_k'x)),   labels y_k in {-1, +1}
 *   f(x) = 1/2 ||x||^2 | 1/2 ||x - c||^2 | 1/2 x'Qx + q'x
 *        | sum_k log(1 + exp(-y'_k a'_k'x)) over held-out rows (VALIDATION)
 *
 * over the vector domains of problems/domain.c.  Neither g nor the
 * validation f is quadratic: the directions are curved (oracle.h) and the
 * exact step is a 1-D minimization through the oracle's slope.  The data
 * reuses the least-squares room's ls_data, its checks, copies, dense/CSR
 * products and ||A||_2 bound (ls.h), with the labels in b.  The iterate's margins A x
 * (and A_v x) are carried like the residuals of least squares: a step
 * costs no product.
 */
#ifndef IRCG_LR_H
#define IRCG_LR_H

#include "core/oracle.h"
#include "problems/ls/ls.h"

/* The data is an ls_data (ls.h) whose b holds the labels y in {-1, +1}
 * (0/1 input is mapped), with its vset (VALIDATION) likewise. */
ircg_error lr_problem_new(const ircg_ls_data *data, const ircg_outer *outer,
                          const ircg_domain *domain, ircg_problem **out,
                          ircg_diag *diag);

/* lr_loss.c: the loss l(s) = log(1 + e^-s) of a signed margin s = y a'x. */
double lr_loss(double s);
/* l'(s) = -1 / (1 + e^s), in (-1, 0). */
double lr_dloss(double s);
/* l(a) - l(b) without the cancellation of two nearby losses. */
double lr_loss_diff(double a, double b);
/* sum_k l(y_k z_k) (compensated); with zr (may be NULL) the termwise
 * sum_k [l(y_k z_k) - l(y_k zr_k)] instead. */
double lr_sum(const double *y, const double *z, const double *zr, int64_t m);
/* w_k = y_k l'(y_k z_k): the gradient is A' w.  Returns sum_k |w_k|
 * (|z_k| + |zv_k|), the rounding scale of <w, z - zv> (zv may be NULL). */
double lr_weights(const double *y, const double *z, const double *zv, int64_t m,
                  double *w);
/* d/da sum_k l(y_k (z0_k + a (z1_k - z0_k))). */
double lr_sum_slope(const double *y, const double *z0, const double *z1, int64_t m,
                    double a);

/* lr_curv.c: a certified lower bound mu of the least eigenvalue of g's
 * Hessian at every point within rho (2-norm) of y, from the margins s = A
 * y known to within es; 0 where none is positive.  The scratch is b's
 * (made on first use).  lr_curv_affordable: whether d's weighted Gram
 * matrix is small and cheap enough to make at a certificate. */
ircg_error lr_curvature(const ls_data *d, ls_cert_buf *b, const double *s, const double *es,
                        double rho, double *mu);
int lr_curv_affordable(const ls_data *d);

/* The workspace (lr_oracle.c). */
typedef struct lr_ws {
    const ls_data *d;  /* borrowed from the problem */
    int have_v;
    double *x, *z, *v, *g;    /* n; g: the LMO's direction c */
    double *mx, *mz, *mv;     /* m: the margins A x, A z, A v */
    double *ux, *uz, *uv;     /* m_v: A_v x, ..., VALIDATION only */
    double *w;                /* scratch, max(m, m_v) */
    double *qa, *qb;          /* QUADRATIC: Q x (n), and d, Q d (2n) */
    double fx_d, d_d;         /* <grad f(x), d> and d'(Hessian of f) d of the
                                 last LMO (f not the validation loss) */
    ls_cert_buf *cb;          /* certificates' scratch (ls.h), or NULL */
    double *fl;               /* an away or pairwise move's part along the
                                 atoms (n; ls_face_lmo), or NULL */
} lr_ws;

/* lr_cert.c: the certificate of the point y (ls_certify_at's twin), and
 * the oracle's certify op on it. */
ircg_error lr_certify_at(const ls_data *d, ls_cert_buf **cb, const double *y, double sigma,
                        slv_cert *out);
ircg_error lr_certify(void *ws, ircg_which which, double sigma, slv_cert *out);

#endif /* IRCG_LR_H */
