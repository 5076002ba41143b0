/*
 * mc_certify.c -- a proof, computed in floating point with every error
 * bounded, that the inner problem min { g(X) : ||X||_* <= delta } has a
 * single solution.
 *
 * The argument.  G(X) = P_Omega(X - M) is the gradient of g.  Every
 * minimizer X* has the same P_Omega X* (g is strictly convex in P_Omega X),
 * hence the same gradient G* = G(X*); every minimizer minimizes <G*, .>
 * over the ball, and that argmin is conv{-delta u v' : (u, v) a top
 * singular pair of G*}: a single point when sigma_1(G*) > sigma_2(G*).
 * We only know X^, the iterate where g_opt's computation stopped (the exact
 * matrix a X0 + P K Q' of its stored factors), so:
 *
 *  1. Its gradient on Omega, recomputed here from the factors: r_ij with
 *     |r_ij - G(X^)_ij| <= e_ij, e_ij = gamma_(2k+4) (|a d0| [i = j] +
 *     sum_l |P K|_il |Q|_jl + |M_ij|) (dot products of 2k + 2 terms, then
 *     the subtraction; gamma_m = m u / (1 - m u), u = 2^-53), the products
 *     P K themselves bounded through |P| |K|.  E = ||(e_ij)||_F bounds
 *     ||G(X^) - R||_2 <= ||.||_F, R the computed gradient.
 *  2. sigma_1, sigma_2 of R from the eigenvalues of S = R'R (p x p, formed
 *     row by row; |fl(S) - S| <= gamma_n |R|'|R|, so ||fl(S) - S||_2 <=
 *     gamma_n ||R||_F^2) by LAPACK dsyevd, whose eigenvalues are within
 *     p u ||S||_2 of fl(S)'s (backward stability, the "modestly growing
 *     function" of p taken as p itself).  With Dl the sum of both,
 *     sigma_i(R)^2 lies in [l_i - Dl, l_i + Dl], which bounds
 *     |sigma_i(R) - sqrt(l_i)| (about Dl / (2 sqrt(l_i))).
 *  3. The distance to the solution set on Omega: for the quadratic g,
 *     1/2 ||P_Omega(X^ - X*)||^2 = g(X^) - g* - <G*, X^ - X*>, with
 *     g(X^) - g* <= gap(X^) = <G(X^), X^> + delta sigma_1(G(X^)) (the
 *     Frank-Wolfe certificate, valid for any X^), and
 *     -<G*, X^ - X*> = -<G*, X^> - delta sigma_1(G*) <= sigma_1(G*) e,
 *     e = max(0, ||X^||_* - delta) (X^ may leave the ball by rounding),
 *     sigma_1(G*) <= ||G*||_F = sqrt(2 g*) <= ||M_Omega|| (0 is feasible).
 *     gap(X^) is recomputed from R and X^_Omega with the errors of 1 and 2;
 *     ||X^||_* <= |a| m0 d0 + sum sigma(P K Q') (its thin SVD).
 *  4. Weyl: |sigma_i(G*) - sigma_i(R)| <= ||G* - R||_2 <= D + E, so
 *     sigma_1(G*) - sigma_2(G*) >= s1 - s2 - 2 B, B = (the larger error
 *     of step 2) + E + D (s_i the computed singular values).  The
 *     certificate holds when that margin is positive.
 */
#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/mc/mc.h"

/* S = R'R is p x p doubles: refused above this p (2 GB). */
#define CERT_MAX_P 16000

static double gamma_of(double m)
{
    double u = DBL_EPSILON / 2;
    return m * u / (1 - m * u);
}

/* The gradient on Omega recomputed from the factors (r), X^ there (xo),
 * and their error bounds (er, ex: |r - G(X^)|, |xo - X^| entrywise). */
typedef struct cert_omega {
    double *r, *xo, *er, *ex;
} cert_omega;

static void cert_omega_free(cert_omega *c)
{
    free(c->r);
    free(c->xo);
    free(c->er);
    free(c->ex);
}

/* A = P K (n x k row-major) and |P| |K|; K column-major leading dim cap. */
static void core_products(const mc_ws *w, double *A, double *Aabs)
{
    const mc_data *d = w->d;
    int k = w->k;
    for (int i = 0; i < d->n; i++)
        for (int l = 0; l < k; l++) {
            double s = 0, sa = 0;
            for (int q = 0; q < k; q++) {
                double pk = w->P[i + (size_t)q * d->n] * w->x.K[q + (size_t)l * w->cap];
                s += pk;
                sa += fabs(pk);
            }
            A[(size_t)i * k + l] = s;
            Aabs[(size_t)i * k + l] = sa;
        }
}

static ircg_error omega_values(const mc_ws *w, cert_omega *c)
{
    const mc_data *d = w->d;
    int k = w->k;
    size_t nk = (size_t)d->n * (k ? k : 1);
    double *A = malloc(nk * sizeof *A), *Aa = malloc(nk * sizeof *Aa);
    double g1 = gamma_of(2.0 * k + 3), g2 = gamma_of(2.0 * k + 4), dd = w->x.a * w->d0;
    c->r = calloc((size_t)d->nnz, sizeof(double)); /* every entry is written below */
    c->xo = calloc((size_t)d->nnz, sizeof(double));
    c->er = calloc((size_t)d->nnz, sizeof(double));
    c->ex = calloc((size_t)d->nnz, sizeof(double));
    if (!A || !Aa || !c->r || !c->xo || !c->er || !c->ex) {
        free(A);
        free(Aa);
        return IRCG_ERR_NOMEM;
    }
    core_products(w, A, Aa);
    for (int i = 0; i < d->n; i++)
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++) {
            int j = d->col[e];
            double x = 0, xa = 0;
            for (int l = 0; l < k; l++) {
                double q = w->Q[j + (size_t)l * d->p];
                x += A[(size_t)i * k + l] * q;
                xa += Aa[(size_t)i * k + l] * fabs(q);
            }
            if (i == j && j < d->m0) {
                x += dd;
                xa += fabs(dd);
            }
            c->xo[e] = x;
            c->ex[e] = g1 * xa;
            double mv = mc_rating(d, e); /* floats or doubles, exactly */
            c->r[e] = x - mv;
            c->er[e] = g2 * (xa + fabs(mv));
        }
    free(A);
    free(Aa);
    return IRCG_OK;
}

/* The two largest eigenvalues of fl(R'R) and the bound Dl of step 2. */
static ircg_error top_eigenvalues(const mc_ws *w, const double *r, double *l1, double *l2,
                                  double *dl)
{
    const mc_data *d = w->d;
    int p = d->p;
    double *S = calloc((size_t)p * p, sizeof *S), *ev = malloc((size_t)p * sizeof *ev);
    slv_ksum fro = {0, 0};
    ircg_error err = IRCG_ERR_NOMEM;
    if (!S || !ev)
        goto done;
    for (int i = 0; i < d->n; i++)
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++) {
            double *row = S + (size_t)d->col[e] * p;
            slv_ksum_add(&fro, r[e] * r[e]);
            for (int64_t f = e; f < d->rowptr[i + 1]; f++) /* one triangle */
                row[d->col[f]] += r[e] * r[f];
        }
    err = IRCG_ERR_NUMERICAL;
    /* a row's columns need not be sorted: fold the lower triangle onto the
     * upper one (one more rounding per entry, in gamma_(n+2) below) */
    for (int j = 0; j < p; j++)
        for (int l = j + 1; l < p; l++) {
            S[(size_t)j * p + l] += S[(size_t)l * p + j];
            S[(size_t)l * p + j] = 0;
        }
    if (LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'N', 'U', p, S, p, ev) != 0)
        goto done;
    *l1 = ev[p - 1];
    *l2 = p > 1 ? ev[p - 2] : 0;
    *dl = gamma_of(d->n + 2.0) * slv_ksum_value(&fro) * (1 + 1e-12) +
          (double)p * (DBL_EPSILON / 2) * fabs(*l1);
    err = IRCG_OK;
done:
    free(S);
    free(ev);
    return err;
}

/* ||X^||_* <= |a| m0 d0 + sum sigma(P K Q'), with the SVD's error. */
static ircg_error nuclear_upper(const mc_ws *w, double *out)
{
    const mc_data *d = w->d;
    int k = w->k, r = 0;
    double *Po = malloc((size_t)d->n * (k ? k : 1) * sizeof *Po);
    double *Qo = malloc((size_t)d->p * (k ? k : 1) * sizeof *Qo);
    double *sv = malloc((size_t)(k ? k : 1) * sizeof *sv), sum = 0;
    ircg_error err = IRCG_ERR_NOMEM;
    if (Po && Qo && sv)
        err = mc_core_svd(w, w->x.K, Po, Qo, sv, &r);
    for (int i = 0; err == IRCG_OK && i < r; i++)
        sum += sv[i];
    /* the QR and SVD of the small core: backward errors of a few k u s_1 */
    *out = fabs(w->x.a) * d->m0 * w->d0 + sum + (r ? 8.0 * k * k * DBL_EPSILON * sv[0] : 0);
    free(Po);
    free(Qo);
    free(sv);
    return err;
}

/* gap(X^) = <G(X^), X^> + delta sigma_1(G(X^)) from below-rounding terms:
 * the computed <R, X_Omega> + delta s1 plus every error of steps 1-2. */
static double gap_upper(const mc_ws *w, const cert_omega *c, double s1, double s1_err,
                        double E)
{
    const mc_data *d = w->d;
    slv_ksum dot = {0, 0}, err = {0, 0}, scale = {0, 0};
    for (int64_t e = 0; e < d->nnz; e++) {
        slv_ksum_add(&dot, c->r[e] * c->xo[e]);
        slv_ksum_add(&scale, fabs(c->r[e] * c->xo[e]));
        slv_ksum_add(&err, c->er[e] * (fabs(c->xo[e]) + c->ex[e]) + fabs(c->r[e]) * c->ex[e]);
    }
    return slv_ksum_value(&dot) + d->delta * s1 + 8 * DBL_EPSILON * slv_ksum_value(&scale) +
           slv_ksum_value(&err) + d->delta * (s1_err + E);
}

/* |sigma(R) - sqrt(l)| when sigma(R)^2 lies within dl of l (with a few
 * ulps for the square roots). */
static double sv_error_of(double l, double dl)
{
    double s = sqrt(fmax(l, 0));
    double lo = sqrt(fmax(l - dl, 0)), hi = sqrt(fmax(l, 0) + dl);
    return fmax(s - lo, hi - s) + 4 * DBL_EPSILON * hi;
}

/* f(-delta u v') = 1/2 delta^2 ||u||^2 ||v||^2, or for the column variance
 * 1/2 delta^2 ||U u||^2 ||v||^2 with ||U u||^2 = ||u||^2 - (e'u)^2 / n. */
static double vertex_f(const mc_ws *w)
{
    const mc_data *d = w->d;
    slv_ksum uu = {0, 0}, su = {0, 0}, vv = {0, 0};
    if (!w->have_v)
        return NAN;
    for (int i = 0; i < d->n; i++) {
        slv_ksum_add(&uu, w->u[i] * w->u[i]);
        slv_ksum_add(&su, mc_row_weight(d, i) * w->u[i]);
    }
    for (int j = 0; j < d->p; j++)
        slv_ksum_add(&vv, w->v[j] * w->v[j]);
    double nu = slv_ksum_value(&uu), s = slv_ksum_value(&su);
    if (d->outer == IRCG_OUTER_COLUMN_VARIANCE)
        nu -= s * s / d->n_all;
    return 0.5 * d->delta * d->delta * nu * slv_ksum_value(&vv);
}

ircg_error mc_certify_unique(void *ws, slv_unique *out)
{
    mc_ws *w = ws;
    const mc_data *d = w->d;
    cert_omega c = {0};
    double l1, l2, dl, nuc, mnorm = 0;
    ircg_error err;

    memset(out, 0, sizeof *out);
    /* the bounds are over the whole Omega: one process's rows are not
     * enough (a problem spread over ranks is not certified) */
    if (d->p < 2 || d->p > CERT_MAX_P || (d->comm && d->comm->size > 1))
        return IRCG_ERR_INVALID;
    if ((err = omega_values(w, &c)) != IRCG_OK ||
        (err = top_eigenvalues(w, c.r, &l1, &l2, &dl)) != IRCG_OK ||
        (err = nuclear_upper(w, &nuc)) != IRCG_OK)
        goto done;
    slv_ksum ef = {0, 0};
    for (int64_t e = 0; e < d->nnz; e++) {
        slv_ksum_add(&ef, c.er[e] * c.er[e]);
        mnorm += mc_rating(d, e) * mc_rating(d, e);
    }
    out->sv1 = sqrt(fmax(l1, 0));
    out->sv2 = sqrt(fmax(l2, 0));
    out->sv_error = fmax(sv_error_of(l1, dl), sv_error_of(l2, dl));
    out->grad_rounding = sqrt(slv_ksum_value(&ef)) * (1 + 1e-10);
    out->gap = gap_upper(w, &c, out->sv1, out->sv_error, out->grad_rounding);
    out->nuc_excess = fmax(0, nuc - d->delta);
    out->dist = sqrt(2 * (fmax(out->gap, 0) + sqrt(mnorm) * (1 + 1e-12) * out->nuc_excess));
    out->bound = out->sv_error + out->grad_rounding + out->dist;
    out->margin = out->sv1 - out->sv2 - 2 * out->bound;
    out->f_vertex = vertex_f(w);
done:
    cert_omega_free(&c);
    return err;
}
