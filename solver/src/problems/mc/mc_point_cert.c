/*
 * mc_point_cert.c -- the certificate (oracle.h, slv_cert) of a point Y of
 * the dense workspace (mc_point.c), made afresh from Y's entries with
 * every rounding bounded (base/rounding.h), as mc_cert.c and ls_cert.c
 * make theirs:
 *
 *  - the residual r = Y_Omega - M entry by entry (one rounding each:
 *    |r* - r| <= gamma(1) |r|), g = 1/2 ||r||^2 and <R, Y> compensated;
 *  - f and its gradient G = Y - e m' (column variance: the column sums
 *    and means with the magnitudes of their terms beside them) or G = Y;
 *    f = 1/2 ||G||^2, since E'UE = I - ee'/n_all is a projection;
 *  - the Frank-Wolfe gaps <C, Y> + delta sigma_1(C) of C = R (g) and
 *    C = sigma G + R (Phi_sigma, <G, Y> = 2 f), sigma_1 bounded by
 *    LAPACK's largest singular value of the dense C with the margin of
 *    its backward error (mc_dense.c), plus ||C* - C||_F for the exact C*
 *    -- the reasoning of mc_cert.c's dense bound, without its factors;
 *    the gap of Phi at sigma 4^k, k = -4..4 but 0, too (phi_sigma), each
 *    one more SVD: the best outer bound of several, as the vector
 *    families give.
 *
 * Two exact points stand apart from the computed Y, and both are taken
 * into account:
 *  - the stored agg_w is sqrt(rows shared) rounded: the whole matrix a
 *    held Y stands for (mc_layout.c spreads the shared row by 1/agg_w) is
 *    the exact problem's held point at Y' = D Y, D scaling the shared row
 *    by sqrt(rows) / agg_w = 1 + O(u): ||Y' - Y|| <= gamma(3) ||Y_shared||
 *    (eS below), which changes f (in f_err) and sigma G (in the gaps) but
 *    neither r nor <R, Y> (the shared row holds no rating);
 *  - a projection's U diag(s') V' lies outside the ball by rounding: when
 *    the bound of ||Y'||_* (LAPACK's values with their margin) exceeds
 *    delta, the feasible point is Yf = (1 - rho) Y', rho = 1 - delta /
 *    ||Y'||_*, whose g is within rho |<R, Y>| + rho^2/2 ||Y_Omega||^2 of
 *    g(Y') (added to g_err) and whose f = (1 - rho)^2 f(Y') <= f(Y') (f is
 *    a homogeneous quadratic): the certificate's g + g_err and f + f_err
 *    bound those of a point of X.  The gaps hold at any point, feasible
 *    or not (convexity).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rounding.h"
#include "problems/mc/mc.h"

typedef struct mc_pcert_buf {
    double *r;        /* nnz: the residual                              */
    double *gf, *ef;  /* n x p: grad f and bounds of its entries' errors */
    double *c;        /* n x p: the matrix of an SVD (destroyed by it)   */
    double *ec;       /* n x p: bounds of the errors of C's entries      */
    double *sv;       /* min(n, p) singular values                       */
} mc_pcert_buf;

void mc_pcert_free(mc_pcert_buf *b)
{
    if (!b)
        return;
    free(b->r);
    free(b->gf);
    free(b->ef);
    free(b->c);
    free(b->ec);
    free(b->sv);
    free(b);
}

static mc_pcert_buf *pcert_buf(mc_point_ws *w)
{
    const mc_data *d = w->d;
    size_t np = (size_t)d->n * d->p, k = (size_t)(d->n < d->p ? d->n : d->p);
    if (w->cert)
        return w->cert;
    mc_pcert_buf *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->r = malloc((size_t)d->nnz * sizeof *b->r + 1);
    b->gf = calloc(np, sizeof *b->gf); /* zeroed: what clang's analyzer */
    b->ef = calloc(np, sizeof *b->ef); /* cannot follow through the loops */
    b->c = malloc(np * sizeof *b->c);
    b->ec = malloc(np * sizeof *b->ec);
    b->sv = malloc(k * sizeof *b->sv);
    if (!b->r || !b->gf || !b->ef || !b->c || !b->ec || !b->sv) {
        mc_pcert_free(b);
        return NULL;
    }
    w->cert = b;
    return b;
}

/* A count of terms for slv_up's k (its bound is meaningless beyond). */
static int terms(int64_t k)
{
    return (int)(k < 1000000000 ? k : 1000000000);
}

/* What the residual gives: g, <R, Y> with their error bounds, ||R* - R||_F
 * and ||Y_Omega||^2. */
typedef struct res_sums {
    double g, g_err, rdot, rdot_err, e_r, yo2;
} res_sums;

static void residual_sums(const mc_data *d, const double *y, double *r, res_sums *out)
{
    slv_ksum g = {0, 0}, rd = {0, 0};
    double lin = 0, quad = 0, rmag = 0, rde = 0, yo2 = 0;
    for (int i = 0; i < d->n; i++)
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++) {
            double ye = y[i + (size_t)d->col[e] * d->n], re = ye - mc_rating(d, e);
            double er = slv_gamma(1) * fabs(re);
            r[e] = re;
            slv_ksum_add(&g, 0.5 * re * re);
            slv_ksum_add(&rd, re * ye);
            lin += fabs(re) * er;
            quad += 0.5 * er * er;
            rmag += fabs(re * ye);
            rde += er * fabs(ye);
            yo2 += ye * ye;
        }
    int k = terms(d->nnz);
    out->g = slv_ksum_value(&g);
    /* |1/2 r*^2 - 1/2 r^2| <= |r| e + e^2 / 2; the squares and Neumaier's
     * sum give gamma(4) of the (nonnegative) total */
    out->g_err = slv_up(lin + quad, k) + slv_gamma(4) * out->g;
    out->rdot = slv_ksum_value(&rd);
    out->rdot_err = slv_up(rde + slv_gamma(4) * rmag, k);
    /* sum er^2 = gamma(1)^2 sum r^2 = gamma(1)^2 2 g */
    out->e_r = slv_up(slv_gamma(1) * sqrt(2 * out->g), 4);
    out->yo2 = slv_up(yo2, k);
}

/* f, its error and the gradient with its entries' error bounds (b->gf,
 * b->ef); *eS bounds ||Y' - Y|| (the header). */
static void outer_sums(const mc_point_ws *w, const double *y, mc_pcert_buf *b, double *f,
                       double *f_err, double *eS)
{
    const mc_data *d = w->d;
    int n = d->n, p = d->p;
    size_t np = (size_t)n * p;
    slv_ksum k = {0, 0};
    double lin = 0, quad = 0;
    *eS = 0;
    if (!w->colvar) {
        for (size_t e = 0; e < np; e++)
            slv_ksum_add(&k, 0.5 * y[e] * y[e]);
        memcpy(b->gf, y, np * sizeof *y);
        memset(b->ef, 0, np * sizeof *b->ef);
        *f = slv_ksum_value(&k);
        *f_err = slv_gamma(4) * *f + DBL_TRUE_MIN;
        return;
    }
    for (int j = 0; j < p; j++) {
        const double *yj = y + (size_t)j * n;
        double cs = mc_row_sum(d, yj), mag = 0;
        for (int i = 0; i < n; i++)
            mag += mc_row_weight(d, i) * fabs(yj[i]);
        /* n - 1 additions, the shared row's product and agg_w's own
         * rounding: gamma(n + 2) of the magnitudes */
        double m = cs / d->n_all;
        double em = slv_up(slv_gamma(n + 2) * slv_up(mag, n) / d->n_all, 2) +
                    slv_gamma(1) * fabs(m);
        for (int i = 0; i < n; i++) {
            double wi = mc_row_weight(d, i), g = yj[i] - wi * m;
            double e = slv_up(wi * em, 2) + slv_gamma(3) * (fabs(yj[i]) + wi * fabs(m));
            b->gf[i + (size_t)j * n] = g;
            b->ef[i + (size_t)j * n] = e;
            slv_ksum_add(&k, 0.5 * g * g);
            lin += fabs(g) * e;
            quad += 0.5 * e * e;
        }
    }
    *f = slv_ksum_value(&k);
    *f_err = slv_up(lin + quad, terms((int64_t)n * p)) +
             slv_gamma(4) * *f + DBL_TRUE_MIN;
    if (d->agg_w > 0) { /* the shared row, y's last */
        double s2 = 0;
        for (int j = 0; j < p; j++)
            s2 += y[n - 1 + (size_t)j * n] * y[n - 1 + (size_t)j * n];
        *eS = slv_gamma(3) * slv_up(sqrt(s2), p + 2);
        *f_err = slv_up(*f_err + sqrt(2 * (*f + *f_err)) * *eS + 0.5 * *eS * *eS, 4);
    }
}

/* An upper bound of sigma_1 of the computed b->c (destroyed); NaN when
 * the SVD fails. */
static double sv1_hi(const mc_data *d, mc_pcert_buf *b)
{
    if (mc_dense_svals(b->c, d->n, d->p, b->sv) != 0)
        return NAN;
    return mc_sv1_hi(b->sv[0], d->n, d->p);
}

/* The gap of g at y: C = R. */
static double gap_of_g(const mc_data *d, mc_pcert_buf *b, const res_sums *rs)
{
    memset(b->c, 0, (size_t)d->n * d->p * sizeof *b->c);
    for (int i = 0; i < d->n; i++)
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++)
            b->c[i + (size_t)d->col[e] * d->n] = b->r[e];
    double s1 = sv1_hi(d, b) + rs->e_r;
    double gap = slv_up(rs->rdot + rs->rdot_err + d->delta * s1, 2) +
                 slv_gamma(2) * d->delta * s1;
    return fmax(gap, 0.0);
}

/* The gap of Phi_s at y: C = s G + R; f, f_err and eS of outer_sums. */
static double gap_of_phi(const mc_data *d, mc_pcert_buf *b, const res_sums *rs, double s,
                         double f, double f_err, double eS)
{
    int n = d->n;
    size_t np = (size_t)n * d->p;
    slv_ksum ec2 = {0, 0};
    for (size_t e = 0; e < np; e++) { /* s G: its error and the product's */
        double t = s * b->gf[e];
        b->c[e] = t;
        b->ec[e] = s * b->ef[e] + slv_gamma(1) * fabs(t);
    }
    for (int i = 0; i < n; i++) /* + R: r's rounding and the sum's */
        for (int64_t e = d->rowptr[i]; e < d->rowptr[i + 1]; e++) {
            size_t q = i + (size_t)d->col[e] * n;
            double t = b->c[q], re = b->r[e];
            b->ec[q] += slv_gamma(1) * fabs(re) + slv_gamma(1) * (fabs(t) + fabs(re));
            b->c[q] = t + re;
        }
    for (size_t e = 0; e < np; e++)
        slv_ksum_add(&ec2, b->ec[e] * b->ec[e]);
    /* ||C* - C||_F from the entries' bounds (each computed in a few
     * roundings, their squares summed: slv_up), and s ||Y' - Y|| */
    double eC = slv_up(sqrt(slv_ksum_value(&ec2)), 16) + s * eS;
    double c1 = slv_up(sv1_hi(d, b) + eC, 2);
    double ph = 2 * s * (f + f_err) + rs->rdot + d->delta * c1;
    double ph_err = rs->rdot_err + slv_gamma(4) * (2 * s * (f + f_err) + fabs(rs->rdot) +
                                                   d->delta * c1);
    return fmax(slv_up(ph + ph_err, 2), 0.0);
}

/* An upper bound of ||Y'||_* (Y' = D Y, the header): LAPACK's values of
 * y with their margin, and |D| <= 1 + gamma(2). */
static double nuclear_hi(const mc_point_ws *w, mc_pcert_buf *b, const double *y)
{
    const mc_data *d = w->d;
    memcpy(b->c, y, (size_t)d->n * d->p * sizeof *y);
    if (mc_dense_svals(b->c, d->n, d->p, b->sv) != 0)
        return NAN;
    double nuc = mc_nuclear_hi(b->sv, d->n, d->p);
    return d->agg_w > 0 ? slv_up(nuc * (1 + slv_gamma(2)), 2) : nuc;
}

ircg_error mc_point_certify(void *ws, ircg_which which, double sigma, slv_cert *out)
{
    mc_point_ws *w = ws;
    const mc_data *d = w->d;
    const double *y = which == IRCG_Z ? w->z : w->x;
    mc_pcert_buf *b = pcert_buf(w);
    res_sums rs;
    double eS;

    *out = (slv_cert){.gap_phi = NAN, .sub_phi = NAN, .f_floor = 0.0, .sharp = 1}; /* f >= 0 */
    if (!b)
        return IRCG_ERR_NOMEM;
    residual_sums(d, y, b->r, &rs);
    outer_sums(w, y, b, &out->f, &out->f_err, &eS);
    out->g = rs.g;
    out->g_err = rs.g_err;
    double nuc = nuclear_hi(w, b, y);
    if (!(nuc <= d->delta)) { /* outside by rounding (NaN: unknown) */
        double rho = slv_up((nuc - d->delta) / nuc, 3);
        out->g_err = slv_up(out->g_err + rho * (fabs(rs.rdot) + rs.rdot_err) +
                                0.5 * rho * rho * rs.yo2,
                            4);
    }
    /* the suboptimality bounds are the gaps: no curvature is used here */
    out->gap_g = out->sub_g = gap_of_g(d, b, &rs);
    if (sigma > 0) {
        out->gap_phi = out->sub_phi = gap_of_phi(d, b, &rs, sigma, out->f, out->f_err, eS);
        for (int k = -4; k <= 4; k++) { /* one SVD each: the best outer bound */
            if (k == 0)
                continue;
            double s = ldexp(sigma, 2 * k);
            out->phi_sigma[out->nphi] = s;
            out->phi_sub[out->nphi++] = gap_of_phi(d, b, &rs, s, out->f, out->f_err, eS);
        }
    }
    if (!isfinite(out->g) || !isfinite(out->g_err) || !isfinite(out->gap_g) ||
        !isfinite(out->f) || (sigma > 0 && !isfinite(out->gap_phi)))
        return IRCG_ERR_NUMERICAL;
    return IRCG_OK;
}
