/*
 * mc_cert.c -- the certificate of matrix completion (oracle.h, slv_cert)
 * at one side Y (x or z) of the workspace.
 *
 * On the nuclear ball of radius delta the Frank-Wolfe gap of a gradient C
 * at Y is <C, Y> + delta sigma_1(C): an upper bound of it needs an upper
 * bound of sigma_1(C), which a Lanczos process alone does not give (its
 * Ritz value is a lower bound).  With lambda the eigenvalues of C'C, a
 * unit vector x, theta = ||C x||^2 and rho = ||C'C x - theta x||, the
 * Kato-Temple inequality gives
 *     lambda_1 <= theta + rho^2 / (theta - a)
 * whenever lambda_2 <= a < theta.  The bound a of the second eigenvalue
 * comes from Weyl's inequality for singular values, sigma_2(C) <=
 * sigma_2(-M_Omega) + ||C + M_Omega||_2, with sigma_2 of the ratings
 * bounded once (mc_anchor.c) and C + M_Omega = sigma grad f(Y) + P_Omega Y
 * bounded by sigma sqrt(2 f(Y)) + ||Y_Omega||.  When the spectrum does
 * not allow it (theta <= a), sigma_1(C) <= ||C||_F, always true and loose
 * (slv_cert.sharp = 0).  theta and rho are those of the Lanczos vector
 * for the exact C: one more product, made here with the magnitudes of its
 * terms beside it, bounds what its rounding can change.
 *
 * The iterate's values on Omega are the side's xo, which the steps update
 * and a refresh recomputes from the factors every MC_REFRESH_EVERY steps;
 * D bounds how far xo is from the factors' exact values (the refresh's
 * rounding and the steps' since), and every quantity takes it into
 * account.  f(Y) comes from the factors' Gram matrices, its error bounded
 * by gamma(4k + 64) of the magnitudes of its terms.
 */
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "base/ksum.h"
#include "base/rounding.h"
#include "lmo/gram.h"
#include "problems/mc/mc.h"

/* Lanczos tolerance of the certificates' singular pairs: theta + rho^2 /
 * (theta - a) is then theta to within 1e-20 theta^2 / (theta - a). */
#define CERT_LANCZOS_TOL 1e-10

void mc_cert_free(mc_cert_buf *b)
{
    if (!b)
        return;
    lmo_gram_free(b->gram);
    free(b->u);
    free(b->v);
    free(b->cx);
    free(b->a);
    free(b->e1);
    free(b->wv);
    free(b->s1);
    free(b->vx);
    free(b);
}

static mc_cert_buf *cert_buf(mc_ws *w)
{
    const mc_data *d = w->d;
    mc_cert_buf *b = w->cert;
    if (b)
        return b;
    b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->gram = lmo_gram_new(d->n, d->p, MC_LANCZOS_BASIS);
    b->u = malloc((size_t)d->n * sizeof(double));
    b->cx = malloc((size_t)d->n * sizeof(double));
    b->a = malloc((size_t)d->n * sizeof(double));
    b->e1 = malloc((size_t)d->n * sizeof(double));
    b->v = malloc((size_t)d->p * sizeof(double));
    b->wv = malloc((size_t)d->p * sizeof(double));
    b->s1 = malloc((size_t)d->p * sizeof(double));
    b->vx = malloc((size_t)d->p * sizeof(double));
    if (!b->gram || !b->u || !b->cx || !b->a || !b->e1 || !b->v || !b->wv || !b->s1 ||
        !b->vx) {
        mc_cert_free(b);
        return NULL;
    }
    if (d->comm)
        lmo_gram_set_comm(b->gram, d->comm);
    b->sv2_m = NAN; /* the anchor: not made yet */
    w->cert = b;
    return b;
}

mc_cert_buf *mc_cert_buf_get(mc_ws *w)
{
    return cert_buf(w);
}

/* sum_i x_i^2 over the rows of every rank (x local, n long). */
static double norm2_rows(const mc_data *d, const double *x)
{
    slv_ksum k = {0, 0};
    for (int i = 0; i < d->n; i++)
        slv_ksum_add(&k, x[i] * x[i]);
    return slv_comm_sum1(d->comm, slv_ksum_value(&k));
}

static double norm2_cols(const mc_data *d, const double *x)
{
    slv_ksum k = {0, 0};
    for (int j = 0; j < d->p; j++)
        slv_ksum_add(&k, x[j] * x[j]);
    return slv_ksum_value(&k);
}

/* A bound of || |P| |K| |Q'| ||_F and of |a0| d0 sqrt(m0) for the side:
 * the size of the factors' products, which bounds their rounding.  From
 * P, Q and K themselves, which a checkpoint restores bit for bit (the
 * Gram matrices are rebuilt then, to other bits), so that a continued run
 * bounds as the uninterrupted one does. */
static double factor_size(const mc_ws *w, const mc_side *s)
{
    const mc_data *d = w->d;
    int k = w->k, c = w->cap;
    double v[2] = {0, 0}, kk = 0; /* ||P||_F^2 over the ranks' rows, ||Q||_F^2 */
    for (size_t i = 0; i < (size_t)d->n * (size_t)k; i++)
        v[0] += w->P[i] * w->P[i];
    for (size_t i = 0; i < (size_t)d->p * (size_t)k; i++)
        v[1] += w->Q[i] * w->Q[i];
    slv_comm_sum(d->comm, v, 1);
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            kk += s->K[i + (size_t)j * c] * s->K[i + (size_t)j * c];
    return slv_up(fabs(s->a) * w->d0 * sqrt((double)d->m0) + sqrt(v[0] * kk * v[1]), 8);
}

/* How far the side's xo may be from the factors' exact values on Omega,
 * in the Frobenius norm: the refresh's rounding (a dot product of k + 1
 * terms per entry) and the steps since, each of which rounds an entry's
 * combination of at most three values of size at most ||xo|| + delta on
 * Omega, with weights of sum at most 4 (the averaged iterate's). */
static double xo_drift(const mc_ws *w, const mc_side *s, double xo_norm)
{
    double steps = (double)w->since_refresh + 1;
    /* k, not the arrays' capacity: a bound of the state alone, the same
     * for a run resumed from a checkpoint (which reserves for its k) as
     * for the run that wrote it (whose capacity grew with its history) */
    return slv_up(slv_gamma(w->k + 8) * factor_size(w, s) +
                      steps * slv_gamma(16) * 4.0 * (xo_norm + w->d->delta),
                  8);
}

/* The fresh sums of one side over Omega: g = 1/2 sum r^2 and
 * <R, Y_Omega> = sum r xo with r = xo - M, and ||xo||; their errors for
 * the computed r and xo (the drift is added by the caller). */
typedef struct side_sums {
    double g, rdot, rdot_mag, xo2;
} side_sums;

/* The running sums of side_sums over a side's entries, four lanes
 * (base/ksum.h: each lane compensated, so g and ||Y_Omega||^2 are within
 * 3 ulps of their terms' sum and <R, Y> within 3 ulps of its terms'
 * magnitude, as mc_certify's bounds take them), made by the bounded
 * product's pass, which reads xo and M anyway. */
typedef struct sums_acc {
    slv_lsum g, rd, xx;
    slv_v4d mag;
} sums_acc;

static void sums_finish(const mc_data *d, const sums_acc *a, side_sums *out)
{
    double v[4] = {slv_lsum_value(&a->g), slv_lsum_value(&a->rd),
                   (a->mag[0] + a->mag[1]) + (a->mag[2] + a->mag[3]),
                   slv_lsum_value(&a->xx)};
    slv_comm_sum(d->comm, v, 4);
    *out = (side_sums){v[0], v[1], v[2], v[3]};
}

/* |V| lane by lane (V a variable: it is read four times) */
#define ABS4(V) ((slv_v4d){fabs((V)[0]), fabs((V)[1]), fabs((V)[2]), fabs((V)[3])})

/* Entries [e, end) of row, at most four from e, as a quad padded with
 * zeros (their terms are 0, and adding 0 is exact): xo (0 without a
 * side), M and x at the entries' columns.  A whole quad without a test
 * per entry. */
static inline void quad(const mc_data *d, const double *restrict xo,
                        const double *restrict x, int64_t e, int64_t end, slv_v4d *xv,
                        slv_v4d *mv, slv_v4d *cv)
{
    const int32_t *restrict col = d->col;
    if (e + 4 <= end) {
        if (xo)
            SLV_V4D_LOAD(*xv, xo + e);
        else
            *xv = (slv_v4d){0, 0, 0, 0};
        if (d->mf)
            *mv = (slv_v4d){d->mf[e], d->mf[e + 1], d->mf[e + 2], d->mf[e + 3]};
        else
            SLV_V4D_LOAD(*mv, d->m + e);
        *cv = (slv_v4d){x[col[e]], x[col[e + 1]], x[col[e + 2]], x[col[e + 3]]};
        return;
    }
    for (int l = 0; l < 4; l++) {
        int in = e + l < end;
        (*xv)[l] = in && xo ? xo[e + l] : 0.0;
        (*mv)[l] = in ? mc_rating(d, e + l) : 0.0;
        (*cv)[l] = in ? x[col[e + l]] : 0.0;
    }
}

/* cx = C x and wv = C'(cx) for C = sigma grad f(X) + R, R the residual of
 * xo (NULL: of 0, so R = -M) and the low-rank part that of the x side
 * (sigma > 0 only with xo = the x side's), made entry by entry with the
 * magnitudes of the terms: *ec bounds ||cx - C x|| and *ew ||wv - C' cx||
 * (for the computed cx), every rounding included; *cn is ||cx||.  With
 * ss (and xo), the side's sums of the same pass too: the bits of a pass
 * of their own. */
static void bounded_gram(mc_ws *w, const double *xo, double sigma, const double *x,
                         double *cn, double *ec, double *ew, side_sums *ss)
{
    sums_acc acc;
    const mc_data *d = w->d;
    mc_cert_buf *b = w->cert;
    int K = d->p + d->n_all + 2 * w->k + 16; /* k: see xo_drift */
    double xn = sqrt(norm2_cols(d, x)), lr = 0;

    if (sigma > 0) {
        mc_gram_lowrank_in(w, sigma, x, b->a);
        lr = sigma * factor_size(w, &w->x); /* || |sigma grad f| || <= sigma |X| */
    } else {
        memset(b->a, 0, (size_t)d->n * sizeof *b->a);
    }
    memset(b->wv, 0, (size_t)d->p * sizeof *b->wv);
    memset(b->s1, 0, (size_t)d->p * sizeof *b->s1);
    memset(&acc, 0, sizeof acc);
    for (int i = 0; i < d->n; i++) {
        int64_t e0 = d->rowptr[i], e1 = d->rowptr[i + 1];
        slv_v4d sv = {0, 0, 0, 0}, av = sv, xv, mv, cv;
        /* the row's dot product in four lanes: its error is gamma(len) of
         * the terms' magnitudes in any order of the additions */
        for (int64_t e = e0; e < e1; e += 4) {
            quad(d, xo, x, e, e1, &xv, &mv, &cv);
            slv_v4d r = xv - mv, t = r * cv;
            sv += t;
            av += ABS4(t);
            if (ss) {
                SLV_LSUM_ADD(acc.g, 0.5 * r * r);
                SLV_LSUM_ADD(acc.rd, r * xv);
                SLV_LSUM_ADD(acc.xx, xv * xv);
                slv_v4d rx = r * xv;
                acc.mag += ABS4(rx);
            }
        }
        double s = b->a[i] + ((sv[0] + sv[1]) + (sv[2] + sv[3]));
        double mag = fabs(b->a[i]) + ((av[0] + av[1]) + (av[2] + av[3]));
        b->cx[i] = s;
        b->e1[i] = slv_gamma((int)(e1 - e0) + 4) * mag; /* r's rounding too */
        double *restrict wv = b->wv, *restrict s1 = b->s1;
        const int32_t *restrict col = d->col;
        for (int64_t e = e0; e < e1; e++) {
            double r = (xo ? xo[e] : 0.0) - mc_rating(d, e);
            wv[col[e]] += r * s;
            s1[col[e]] += fabs(r * s);
        }
    }
    if (ss)
        sums_finish(d, &acc, ss);
    double cn2 = norm2_rows(d, b->cx), e12 = norm2_rows(d, b->e1);
    slv_comm_sum(d->comm, b->s1, d->p);
    mc_gram_lowrank_out(w, sigma, b->cx, b->wv); /* sums R'cx over ranks too */
    /* the column sums add at most n_all terms per column, per rank and
     * then over the ranks: gamma(n_all + 4) of their magnitudes */
    double e2 = slv_gamma(d->n_all + 8) * sqrt(norm2_cols(d, b->s1));
    *cn = sqrt(cn2);
    *ec = slv_up(sqrt(e12) + slv_gamma(K) * lr * xn, 8);
    *ew = slv_up(e2 + slv_gamma(K) * lr * *cn, 8);
}

/* The bounded product at x (bounded_gram) whose bound sv1_bound makes. */
typedef struct bprod {
    double cn, ec, ew;
} bprod;

/* An upper bound of sigma_1(C) from a unit-ish vector x of the Lanczos
 * process and its bounded product bp (b->wv holds C'C x): C = sigma
 * grad f + R of the caller's xo, nC >= ||C||_F, D the drift of xo (a
 * perturbation of C of norm <= D), a2 >= lambda_2 of the exact C'C
 * (INFINITY: unknown).  *sharp = 1 when Kato-Temple gave it. */
static double sv1_bound(mc_ws *w, const bprod *bp, const double *x, double nC, double D,
                        double a2, int *sharp)
{
    const mc_data *d = w->d;
    mc_cert_buf *b = w->cert;
    double cn = bp->cn, ec = bp->ec, ew = bp->ew;

    *sharp = 0;
    double x2 = norm2_cols(d, x), xn = sqrt(x2);
    if (!(xn > 0) || !isfinite(cn))
        return nC;
    double xn_lo = xn * (1 - slv_gamma(d->p + 4)), xn_hi = xn * (1 + slv_gamma(d->p + 4));
    double ecd = ec + D * xn_hi;              /* ||cx - C x||, drift included */
    double cn_hi = cn * (1 + slv_gamma(d->n_all + 4)) + ecd;
    double cn_lo = fmax(0.0, cn * (1 - slv_gamma(d->n_all + 4)) - ecd);
    double th = cn * cn / x2;                  /* the computed Rayleigh quotient */
    double th_hi = slv_up(cn_hi * cn_hi / (xn_lo * xn_lo), 4);
    double th_lo = cn_lo * cn_lo / (xn_hi * xn_hi) * (1 - slv_gamma(4));
    /* ||wv - C'C x|| <= ew + ||C|| (||cx - C x||) + D ||cx||: the
     * transposed product of the exact C at the computed cx */
    double ewd = slv_up(ew + nC * ecd + D * cn_hi, 4);
    slv_ksum k = {0, 0};
    for (int j = 0; j < d->p; j++) {
        double t = b->wv[j] - th * x[j];
        slv_ksum_add(&k, t * t);
    }
    double res = sqrt(slv_ksum_value(&k)) * (1 + slv_gamma(d->p + 8));
    double dth = fmax(th_hi - th, th - th_lo);
    double rho = slv_up((res + ewd + dth * xn_hi) / xn_lo, 4);
    double lam = INFINITY;
    if (th_lo > a2) {
        lam = slv_up(th_hi + rho * rho / (th_lo - a2), 4);
        *sharp = 1;
    }
    double s1 = sqrt(lam) * (1 + slv_gamma(2));
    if (!(s1 < nC)) {
        *sharp = 0;
        return nC;
    }
    return s1;
}

/* The Lanczos process's top right vector of C'C into b->v (C = sigma
 * grad f(X) + R at the x side, or R at side s when sigma = 0), warm from
 * v0 (NULL: a fixed start); its quality only decides how tight the bound
 * is. */
typedef struct cert_op {
    mc_ws *w;
    const mc_side *s;
    double sigma;
} cert_op;

static void cert_gram_op(void *vc, const double *x, double *cx, double *ctcx)
{
    cert_op *c = vc;
    if (c->sigma > 0)
        mc_gram_product(c->w, c->sigma, x, cx, ctcx);
    else
        mc_gram_product_r(c->w, c->s, x, cx, ctcx);
}

static ircg_error top_vector(mc_ws *w, const mc_side *s, double sigma, const double *v0,
                             int64_t *matvecs)
{
    mc_cert_buf *b = w->cert;
    cert_op op = {w, s, sigma};
    lmo_svd_out so = {.u = b->u, .v = b->v};
    ircg_error err = lmo_gram_run(b->gram, cert_gram_op, &op, v0, CERT_LANCZOS_TOL,
                                  w->lmo_max_mv, &so);
    *matvecs += so.matvecs;
    return err;
}

/* sigma_2 of C (an upper bound) by Weyl from the ratings' (mc_anchor.c):
 * C + M_Omega = sigma grad f(Y) + P_Omega Y. */
static double lambda2_bound(mc_ws *w, double sigma, double f, double xo_norm, double D)
{
    double sv2 = mc_anchor_sv2(w);
    if (!isfinite(sv2))
        return INFINITY;
    double s2 = slv_up(sv2 + xo_norm + D + sigma * sqrt(2 * f), 4);
    return slv_up(s2 * s2, 2);
}

/* ------------------------------------------------- small matrices, dense -- */

/* Small instances form C densely and bound sigma_1 by LAPACK's singular
 * values: sharp whatever the spectrum, where Kato-Temple needs a gap that
 * Weyl's bound against the ratings may not give (the selection instance
 * of RESULTS.md, 50 x 50).  Only on one process and while the SVD costs
 * less than about a tenth of a second. */
#define DENSE_CERT_FLOPS 2e8

static int dense_certifiable(const mc_data *d)
{
    double n = d->n, p = d->p;
    return !d->comm && n * p * fmin(n, p) <= DENSE_CERT_FLOPS;
}

/* An upper bound of sigma_1(C) for C = sigma grad f(Y) + P_Omega(Y - M),
 * Y the side s made from its factors (mc_dense), or NAN when it cannot be
 * made (memory, LAPACK).  The computed C differs from the exact one by
 * the factors' products (gamma(k + 8) of their size, as xo_drift bounds
 * them), the column means' sums (gamma(n + 8) of Y, a column's sum
 * entering each of its rows with the row's weight) and the last
 * combinations (gamma(8)); LAPACK's singular values are those of a
 * matrix within p(n, p) eps ||C|| of the computed C (its backward
 * stability: mc_dense.c's mc_sv1_hi, shared with the dense point
 * oracle's certificate, mc_point_cert.c). */
static double dense_sv1(mc_ws *w, const mc_side *s, double sigma)
{
    const mc_data *d = w->d;
    int n = d->n, p = d->p, k = n < p ? n : p;
    double *C = malloc((size_t)n * p * sizeof *C), *sv = malloc((size_t)k * sizeof *sv);
    double *col = malloc((size_t)p * sizeof *col), *r = malloc((size_t)d->nnz * sizeof *r);
    double out = NAN, y2 = 0, r2 = 0;
    int colvar = d->outer == IRCG_OUTER_COLUMN_VARIANCE;
    if (!C || !sv || !col || !r || mc_dense(w, s, C) != IRCG_OK)
        goto done;
    for (int j = 0; j < p; j++) { /* the whole matrix's column means */
        col[j] = colvar ? mc_row_sum(d, C + (size_t)j * n) / d->n_all : 0.0;
        for (int i = 0; i < n; i++)
            y2 += C[i + (size_t)j * n] * C[i + (size_t)j * n];
    }
    for (int i = 0; i < n; i++) /* the residual on Omega, from Y */
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++) {
            r[e] = C[i + (size_t)d->col[e] * n] - mc_rating(d, e);
            r2 += r[e] * r[e];
        }
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            C[i + (size_t)j * n] =
                sigma * (C[i + (size_t)j * n] - mc_row_weight(d, i) * col[j]);
    for (int i = 0; i < n; i++)
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++)
            C[i + (size_t)d->col[e] * n] += r[e];
    if (mc_dense_svals(C, n, p, sv) != 0)
        goto done;
    double yn = sqrt(y2), ey = slv_up(slv_gamma(w->k + 8) * factor_size(w, s), 4);
    double eu = ey + slv_gamma(n + 8) * 2 * yn;
    double ec = slv_up(sigma * eu + ey + slv_gamma(8) * (2 * sigma * yn + sqrt(r2)), 4);
    out = slv_up(mc_sv1_hi(sv[0], n, p) + ec, 4);
done:
    free(C);
    free(sv);
    free(col);
    free(r);
    return out;
}

/* The warm start of the certificate's process on R of side `which`: for
 * x, the next LMO's vector (made just before: the top of R + sigma grad
 * f, which is near R's); for z, x's answer of this same certificate when
 * it was made at this state; else the last vertex's.  Each is a function
 * of the state alone, so a run resumed from a checkpoint starts where the
 * uninterrupted one did. */
static const double *r_start(const mc_ws *w, ircg_which which, double sigma)
{
    const mc_cert_buf *b = w->cert;
    if (which == IRCG_X && sigma > 0 && mc_lmo_staged(w, sigma))
        return w->st_v;
    if (which == IRCG_Z && b->vx_valid && b->vx_gen == w->gen)
        return b->vx;
    return w->have_v ? w->v : NULL;
}

ircg_error mc_certify(void *ws, ircg_which which, double sigma, slv_cert *out)
{
    mc_ws *w = ws;
    const mc_data *d = w->d;
    const mc_side *s = which == IRCG_Z ? &w->z : &w->x;
    mc_cert_buf *b;
    side_sums ss;
    bprod bp;
    ircg_error err;
    int sharp_g = 1, sharp_phi = 1, phi = sigma > 0 && which == IRCG_X;
    int staged = 0;

    *out = (slv_cert){.gap_phi = NAN, .sub_phi = NAN, .f_floor = 0.0};
    if (!(b = cert_buf(w)))
        return IRCG_ERR_NOMEM;
    /* the anchor first: made once, it uses the scratch vectors the bounds
     * below hold between their Lanczos process and their product */
    mc_anchor_sv2(w);
    if (phi) { /* the next LMO's process, which that LMO then takes */
        err = mc_lmo_stage(w, sigma);
        if (err != IRCG_OK && err != IRCG_ERR_INVALID)
            return err;
        staged = err == IRCG_OK;
    }
    /* the gap of g: <R, Y> + delta sigma_1(R); its process first, then one
     * pass for the bounded product and the side's sums */
    if ((err = top_vector(w, s, 0.0, r_start(w, which, sigma), &out->matvecs)) != IRCG_OK)
        return err;
    if (which == IRCG_X) { /* z's start, at this state */
        memcpy(b->vx, b->v, (size_t)d->p * sizeof *b->vx);
        b->vx_valid = 1;
        b->vx_gen = w->gen;
    }
    bounded_gram(w, s->xo, 0.0, b->v, &bp.cn, &bp.ec, &bp.ew, &ss);
    out->matvecs += 2;
    double xo_norm = sqrt(ss.xo2), rn = sqrt(2 * ss.g);
    double D = xo_drift(w, s, xo_norm);
    /* g and <R, Y_Omega> of the exact values, xo within D of them */
    out->g = ss.g;
    out->g_err = slv_up(slv_gamma(6) * ss.g + rn * D + 0.5 * D * D, 4);
    double rdot_err = slv_up(slv_gamma(4) * ss.rdot_mag + D * (xo_norm + rn) + D * D, 4);
    double fro2, cs2;
    mc_side_norms(w, s, &fro2, &cs2);
    out->f = mc_side_f(w, s);
    out->f_err = slv_gamma(4 * w->k + 64) * (fro2 + cs2 / d->n_all) + DBL_TRUE_MIN;

    double a2 = lambda2_bound(w, 0.0, 0, xo_norm, D);
    double nR = slv_up(rn + sqrt(2 * out->g_err) + D, 4); /* ||R||_F of the exact Y */
    double s1 = sv1_bound(w, &bp, b->v, nR, D, a2, &sharp_g);
    if (dense_certifiable(d)) {
        double s1d = dense_sv1(w, s, 0.0);
        if (s1d < s1)
            s1 = s1d, sharp_g = 1;
    }
    double gap = ss.rdot + d->delta * s1;

    out->gap_g = out->sub_g =
        fmax(slv_up(gap + rdot_err, 2) + slv_gamma(2) * d->delta * s1, 0.0);

    if (phi) {
        /* Phi: <sigma grad f + R, Y> + delta sigma_1(C), <grad f(Y), Y> = 2 f(Y);
         * sigma_1(C) from the next LMO's vector (its residual is lmo_tol's:
         * Kato-Temple's term is then far below the product's rounding) */
        double a2c = lambda2_bound(w, sigma, out->f + out->f_err, xo_norm, D);
        const double *vc = w->st_v;
        if (!staged) {
            if ((err = top_vector(w, s, sigma, w->have_v ? w->v : NULL, &out->matvecs)) !=
                IRCG_OK)
                return err;
            vc = b->v;
        }
        bounded_gram(w, s->xo, sigma, vc, &bp.cn, &bp.ec, &bp.ew, NULL);
        double nC = slv_up(sigma * sqrt(2 * (out->f + out->f_err)) + nR, 4);
        double c1 = sv1_bound(w, &bp, vc, nC, D, a2c, &sharp_phi);
        if (dense_certifiable(d)) {
            double c1d = dense_sv1(w, s, sigma);
            if (c1d < c1)
                c1 = c1d, sharp_phi = 1;
        }
        out->matvecs += 2;
        double ph = sigma * 2 * out->f + ss.rdot + d->delta * c1;
        double ph_err = 2 * sigma * out->f_err + rdot_err +
                        slv_gamma(4) * (2 * sigma * out->f + fabs(ss.rdot) + d->delta * c1);
        out->gap_phi = out->sub_phi = fmax(slv_up(ph + ph_err, 2), 0.0);
    }
    out->sharp = sharp_g && sharp_phi;
    if (!isfinite(out->g) || !isfinite(out->gap_g) || !isfinite(out->f))
        return IRCG_ERR_NUMERICAL;
    return IRCG_OK;
}

/* The top Rayleigh quotient of M'M from below, for mc_anchor.c: Lanczos on
 * -M (the residual at 0), then the bounded product. */
ircg_error mc_cert_ratings_theta(mc_ws *w, double *theta_lo)
{
    mc_cert_buf *b = cert_buf(w);
    if (!b)
        return IRCG_ERR_NOMEM;
    /* -M is the residual of a side that is 0 on Omega: a zero side */
    mc_side zero = {0};
    const mc_data *d = w->d;
    double *z = slv_big_alloc((size_t)d->nnz * sizeof *z, 1);
    if (!z)
        return IRCG_ERR_NOMEM;
    zero.xo = z;
    int64_t mv = 0;
    /* from the fixed start, never the vertex of the moment: the anchor is
     * a function of the data alone, whenever the first certificate comes
     * (a run continued from a snapshot makes it later than the run it
     * continues, and must get the same bounds) */
    ircg_error err = top_vector(w, &zero, 0.0, NULL, &mv);
    if (err == IRCG_OK) {
        double cn, ec, ew;
        bounded_gram(w, NULL, 0.0, b->v, &cn, &ec, &ew, NULL);
        double xn = sqrt(norm2_cols(d, b->v)) * (1 + slv_gamma(d->p + 4));
        double lo = fmax(0.0, cn * (1 - slv_gamma(d->n_all + 4)) - ec);
        *theta_lo = xn > 0 ? lo * lo / (xn * xn) * (1 - slv_gamma(4)) : 0.0;
    }
    free(z);
    return err;
}
