/*
 * mc_nbblo.c -- SNB-LO and NB-BLO (the algorithms of the paper's Appendix A.2) on
 * span R, from the k x k Grams of C R and A R (see mc_cut.h).  Everything
 * here is dense k x k work, k <= 6, so the multiplier can be refined to the
 * last bit instead of the sqrt(eps) that Brent's search on the implicit
 * operator reaches.
 *
 * For unit y in R^k and P = ps C + pt A, the vertex of Lemma A.2 is
 * V(y) = -delta u (R y)' with u = P R y / ||P R y||, and for Q = qs C + qt A
 *   <Q, V(y)> = -delta y' (QR)'(PR) y / sqrt(y' (PR)'(PR) y).
 *
 * A deliberate correction of the paper's NB-BLO.  When Slater's condition
 * holds and lambda* > 0, NB-BLO(C + lambda* A, A) returns the point of the
 * optimal face of C + lambda* A that minimizes <A, V>.  It is feasible,
 * but optimal only if <A, V> = b (complementary slackness).  When the top
 * singular value of C + lambda* A is multiple (lambda* at a kink of the
 * dual function, where its minimum often sits) the face holds points with
 * <A, V> on both sides of b, and the minimizer of <A, V> is then strictly
 * suboptimal.  We take instead the convex combination of the face's point
 * minimizing <A, V> (top eigenvector of S) and the one maximizing it
 * (bottom eigenvector of S) with <A, V> = b exactly: a rank-2 V.
 */
#include <assert.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "baselines/cgbio/mc_cut.h"

#define K MC_CUT_KMAX
/* A combination weight below this drops its atom (an atom costs a column
 * of the iterate's factors; the cut then moves by at most 1e-12 of the
 * spread of <A, V> over the two atoms). */
#define THETA_EPS 1e-12
/* The bisection on the multiplier: at most this many halvings (the bracket
 * is then 2^-200 of its start) and doublings of the upper bound. */
#define BISECT_MAX 200
#define DOUBLE_MAX 64

/* G = sym((qs CR + qt AR)' (ps CR + pt AR)) */
static void gram(const nb_red *r, double qs, double qt, double ps, double pt,
                 double *G)
{
    int k = r->k;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++) {
            /* (QR)'(PR) = qs ps Gcc + qs pt Gca + qt ps Gca' + qt pt Gaa */
            double gij = qs * ps * r->Gcc[i + j * k] + qs * pt * r->Gca[i + j * k] +
                         qt * ps * r->Gca[j + i * k] + qt * pt * r->Gaa[i + j * k];
            double gji = qs * ps * r->Gcc[j + i * k] + qs * pt * r->Gca[j + i * k] +
                         qt * ps * r->Gca[i + j * k] + qt * pt * r->Gaa[j + i * k];
            G[i + j * k] = 0.5 * (gij + gji);
        }
}

static double quad(int k, const double *G, const double *y)
{
    double s = 0;
    for (int j = 0; j < k; j++) {
        double t = 0;
        for (int i = 0; i < k; i++)
            t += G[i + j * k] * y[i];
        s += t * y[j];
    }
    return s;
}

/* Eigenvalues ascending into w, eigenvectors into the columns of A. */
static int eig(int k, double *A, double *w)
{
    double work[64];
    return LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'U', k, A, k, w, work, 64);
}

double nb_atom_value(const nb_red *r, const nb_atom *at, double qs, double qt)
{
    double G[K * K], M[K * K];
    gram(r, qs, qt, at->ps, at->pt, G);
    gram(r, at->ps, at->pt, at->ps, at->pt, M);
    double nrm = sqrt(fmax(quad(r->k, M, at->y), 0.0));
    return nrm > 0 ? -r->delta * quad(r->k, G, at->y) / nrm : 0.0;
}

static void set_atom(nb_atom *at, const double *y, int k, double ps, double pt)
{
    memset(at->y, 0, sizeof at->y);
    memcpy(at->y, y, (size_t)k * sizeof *y);
    at->ps = ps;
    at->pt = pt;
}

/* Top eigenvector y of (PR)'(PR) and sigma = its square root. */
static ircg_error top_of(const nb_red *r, double ps, double pt, double *y,
                         double *sigma)
{
    double M[K * K], w[K];
    int k = r->k;
    gram(r, ps, pt, ps, pt, M);
    if (eig(k, M, w) != 0)
        return IRCG_ERR_NUMERICAL;
    memcpy(y, M + (k - 1) * k, (size_t)k * sizeof *y);
    *sigma = sqrt(fmax(w[k - 1], 0.0));
    return IRCG_OK;
}

/* NB-BLO(P, Q) on span R: E = the top eigenvectors of (PR)'(PR) whose
 * square roots lie within MC_CUT_TAU_FACE of sigma_max (the E_1 of Lemma A.2),
 * S = E' sym((QR)'(PR)) E; yt (top eigenvector of S, mapped back) gives the
 * face's minimizer of <Q, V>, yb (bottom) its maximizer.  *sigma = 0 says
 * P R = 0, and then yt and yb are not set. */
static ircg_error face(const nb_red *r, double ps, double pt, double qs, double qt,
                       double *yt, double *yb, double *sigma)
{
    double M[K * K], w[K], S[K * K], SE[K * K], ES[K * K], z[K];
    int k = r->k, m = 0;

    gram(r, ps, pt, ps, pt, M);
    if (eig(k, M, w) != 0)
        return IRCG_ERR_NUMERICAL;
    *sigma = sqrt(fmax(w[k - 1], 0.0));
    if (!(*sigma > 0))
        return IRCG_OK; /* P R = 0: every point is optimal; yt, yb unset */
    while (m < k && sqrt(fmax(w[k - 1 - m], 0.0)) >= (1 - MC_CUT_TAU_FACE) * *sigma)
        m++;
    const double *E = M + (size_t)(k - m) * k; /* k x m, the top columns */
    gram(r, qs, qt, ps, pt, S);
    /* SE = S E (k x m), ES = E' S E (m x m) */
    for (int j = 0; j < m; j++)
        for (int i = 0; i < k; i++) {
            double t = 0;
            for (int l = 0; l < k; l++)
                t += S[i + l * k] * E[l + j * k];
            SE[i + j * k] = t;
        }
    for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++) {
            double t = 0;
            for (int l = 0; l < k; l++)
                t += E[l + i * k] * SE[l + j * k];
            ES[i + j * m] = t;
        }
    for (int j = 0; j < m; j++) /* symmetrize the rounding */
        for (int i = 0; i < j; i++)
            ES[i + j * m] = ES[j + i * m] = 0.5 * (ES[i + j * m] + ES[j + i * m]);
    if (eig(m, ES, z) != 0)
        return IRCG_ERR_NUMERICAL;
    for (int i = 0; i < k; i++) {
        double t = 0, b = 0;
        for (int l = 0; l < m; l++) {
            t += E[i + l * k] * ES[l + (m - 1) * m];
            b += E[i + l * k] * ES[l];
        }
        yt[i] = t;
        yb[i] = b;
    }
    return IRCG_OK;
}

ircg_error nb_face_of_A(const nb_red *r, nb_sol *out)
{
    double yt[K], yb[K], sigma;
    ircg_error err = face(r, 0, 1, 1, 0, yt, yb, &sigma);
    if (err != IRCG_OK)
        return err;
    if (!(sigma > 0))
        return IRCG_ERR_NUMERICAL; /* A R = 0: no face to speak of */
    out->rank = 1;
    out->theta = 1;
    set_atom(&out->at[0], yt, r->k, 0, 1);
    out->at[1] = out->at[0];
    out->lambda = NAN;
    out->sigma = sigma;
    return IRCG_OK;
}

/* V = theta V1 + (1 - theta) V2 with <A, V> = b, given a1 <= b <= a2. */
static void combine(const nb_atom *v1, double a1, const nb_atom *v2, double a2,
                    double b, nb_sol *out)
{
    double theta = a2 > a1 ? (a2 - b) / (a2 - a1) : 1.0;
    theta = fmin(fmax(theta, 0.0), 1.0);
    assert(theta >= 0.0 && theta <= 1.0); /* NaN never gets here */
    out->at[0] = *v1;
    out->at[1] = *v2;
    out->theta = theta;
    out->rank = 2;
    if (theta >= 1 - THETA_EPS) {
        out->rank = 1;
        out->theta = 1;
        out->at[1] = *v1;
    } else if (theta <= THETA_EPS) {
        out->rank = 1;
        out->theta = 1;
        out->at[0] = out->at[1] = *v2;
    }
}

ircg_error nb_solve_cut(const nb_red *r, nb_sol *out)
{
    double yt[K], yb[K], y[K], sigma, sig_a, lo, hi;
    nb_atom t, bt, alo, ahi;
    int k = r->k;
    ircg_error err;

    if ((err = top_of(r, 0, 1, y, &sig_a)) != IRCG_OK)
        return err;
    double margin = r->b + r->delta * sig_a;
    if (!(margin > 0))
        return IRCG_ERR_NUMERICAL;
    /* lambda = 0: C's face; is one of its points feasible? (NB-BLO(C, A)) */
    if ((err = face(r, 1, 0, 0, 1, yt, yb, &sigma)) != IRCG_OK)
        return err;
    if (!(sigma > 0)) { /* C R = 0: every point is optimal, take A's */
        set_atom(&out->at[0], y, k, 0, 1);
        out->at[1] = out->at[0];
        out->rank = 1;
        out->theta = 1;
        out->lambda = 0;
        out->sigma = 0;
        return IRCG_OK;
    }
    set_atom(&t, yt, k, 1, 0);
    double a_lo = nb_atom_value(r, &t, 0, 1), a_hi;
    if (a_lo <= r->b) {
        out->at[0] = out->at[1] = t;
        out->rank = 1;
        out->theta = 1;
        out->lambda = 0;
        out->sigma = sigma;
        return IRCG_OK;
    }
    /* The dual h(l) = delta sigma_max((C + l A) R) + b l is convex and
     * b - <A, V(l)> (V(l) any top vertex at l) is a subgradient: bisect on
     * its sign from [0, the paper's bound 2 delta sigma_max(CR) / margin]. */
    alo = t;
    lo = 0;
    hi = 2 * r->delta * sigma / margin;
    for (int j = 0;; j++) {
        if (j >= DOUBLE_MAX || !isfinite(hi))
            return IRCG_ERR_NUMERICAL;
        if ((err = top_of(r, 1, hi, y, &sigma)) != IRCG_OK)
            return err;
        set_atom(&ahi, y, k, 1, hi);
        a_hi = nb_atom_value(r, &ahi, 0, 1);
        if (a_hi <= r->b)
            break;
        lo = hi, alo = ahi, a_lo = a_hi;
        hi *= 2;
    }
    for (int it = 0; it < BISECT_MAX && a_hi != r->b; it++) {
        double mid = lo + 0.5 * (hi - lo);
        if (!(mid > lo && mid < hi))
            break;
        if ((err = top_of(r, 1, mid, y, &sigma)) != IRCG_OK)
            return err;
        nb_atom am;
        set_atom(&am, y, k, 1, mid);
        double a = nb_atom_value(r, &am, 0, 1);
        if (a > r->b)
            lo = mid, alo = am, a_lo = a;
        else
            hi = mid, ahi = am, a_hi = a;
    }
    /* NB-BLO(C + hi A, A) and the rank-2 correction */
    if ((err = face(r, 1, hi, 0, 1, yt, yb, &sigma)) != IRCG_OK)
        return err;
    if (!(sigma > 0))
        return IRCG_ERR_NUMERICAL;
    set_atom(&t, yt, k, 1, hi);
    set_atom(&bt, yb, k, 1, hi);
    double at = nb_atom_value(r, &t, 0, 1), ab = nb_atom_value(r, &bt, 0, 1);
    if (ab >= r->b) {
        combine(&t, at, &bt, ab, r->b, out);
    } else if (r->b - ab <= THETA_EPS * r->delta * sig_a) {
        out->at[0] = out->at[1] = bt; /* b is met to rounding */
        out->rank = 1;
        out->theta = 1;
    } else {
        /* the face at hi lies strictly inside the cut: the multiplier sits
         * where the top vertex turns faster than one rounding of lambda
         * resolves; the vertex just below it is on the other side of b */
        combine(&bt, ab, &alo, a_lo, r->b, out);
    }
    out->lambda = hi;
    out->sigma = sigma;
    return IRCG_OK;
}
