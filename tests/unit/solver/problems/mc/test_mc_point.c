/*
 * test_mc_point.c -- FC-BiO's dense point oracle on matrix completion
 * (problems/mc/mc_point.c, mc_dense.c, mc_point_cert.c) against dense
 * computations made here on the whole matrix, in long double and with
 * LAPACK's SVD:
 *  - the observation, f, g and both gradients of a point, on a problem
 *    that holds every row and column and on compacted ones (rows beyond
 *    X0's diagonal without ratings dropped, or shared as one scaled row
 *    under the column variance; columns dropped);
 *  - the projection onto the nuclear ball against dgesvd's (and the
 *    variational inequality at random points of the ball), feasible,
 *    the identity bit for bit inside, idempotent on the sphere;
 *  - the certificate: g and f within their error bounds, g_lower <= g*
 *    and every outer bound <= f* (both in closed form: instances whose
 *    radius holds the completion that fits every rating, as
 *    tests/study/select.h's), the gaps above the exact ones and within a
 *    hair of them, and a point left outside the ball by rounding
 *    certified through the feasible point it stands for.
 */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "problems/mc/mc.h"
#include "study/select.h"
#include "unit/solver/test_mc_util.h"

/* ------------------------------------------------ the whole matrix, here -- */

typedef struct whole {
    const ircg_ratings *R;
    int n, p, colvar;
} whole;

static long double w_g(const whole *W, const double *X)
{
    long double s = 0;
    for (int64_t e = 0; e < W->R->nnz; e++) {
        long double r = (long double)X[W->R->row[e] + (size_t)W->R->col[e] * W->n] -
                        W->R->val[e];
        s += r * r;
    }
    return s / 2;
}

/* grad f (column variance: X minus its column means) in long double. */
static void w_gradf(const whole *W, const double *X, long double *G)
{
    for (int j = 0; j < W->p; j++) {
        long double m = 0;
        for (int i = 0; i < W->n && W->colvar; i++)
            m += X[i + (size_t)j * W->n];
        m /= W->n;
        for (int i = 0; i < W->n; i++)
            G[i + (size_t)j * W->n] = X[i + (size_t)j * W->n] - (W->colvar ? m : 0);
    }
}

static long double w_f(const whole *W, const double *X)
{
    size_t np = (size_t)W->n * W->p;
    long double *G = malloc(np * sizeof *G), s = 0;
    w_gradf(W, X, G);
    for (size_t e = 0; e < np; e++)
        s += G[e] * G[e];
    free(G);
    return s / 2;
}

/* C = s grad f + grad g, rounded to double. */
static void w_grad(const whole *W, const double *X, double s, double *C)
{
    size_t np = (size_t)W->n * W->p;
    long double *G = malloc(np * sizeof *G);
    w_gradf(W, X, G);
    for (size_t e = 0; e < np; e++)
        G[e] *= s;
    for (int64_t e = 0; e < W->R->nnz; e++) {
        size_t q = W->R->row[e] + (size_t)W->R->col[e] * W->n;
        G[q] += (long double)X[q] - W->R->val[e];
    }
    for (size_t e = 0; e < np; e++)
        C[e] = (double)G[e];
    free(G);
}

/* The singular values of A (n x p) by dgesvd, into sv; A is kept. */
static void svals(int n, int p, const double *A, double *sv)
{
    int k = n < p ? n : p;
    double *T = malloc((size_t)n * p * sizeof *T), *sup = malloc((size_t)k * sizeof *sup);
    memcpy(T, A, (size_t)n * p * sizeof *T);
    if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', n, p, T, n, sv, NULL, 1, NULL, 1, sup))
        sv[0] = NAN;
    free(T);
    free(sup);
}

static long double nuclear(int n, int p, const double *A)
{
    int k = n < p ? n : p;
    double *sv = malloc((size_t)k * sizeof *sv);
    long double s = 0;
    svals(n, p, A, sv);
    for (int i = 0; i < k; i++)
        s += sv[i];
    free(sv);
    return s;
}

/* The Frank-Wolfe gap <C, X> + delta sigma_1(C) of s f + g at X, and in
 * *mag the size of the terms it is made of before they cancel: sum
 * |s G_e X_e| + |R_e X_e| + delta (sigma_1(C) + ||s G||_F + ||R||_F), the
 * scale of any computation's rounding of it. */
static long double w_gap(const whole *W, const double *X, double s, double delta, double *mag)
{
    size_t np = (size_t)W->n * W->p;
    int k = W->n < W->p ? W->n : W->p;
    double *C = malloc(np * sizeof *C), *R = malloc(np * sizeof *R);
    double *sv = malloc((size_t)k * sizeof *sv);
    long double dot = 0, m = 0, gn = 0, rn = 0;
    w_grad(W, X, s, C);
    w_grad(W, X, 0.0, R);
    for (size_t e = 0; e < np; e++) {
        long double sg = (long double)C[e] - R[e];
        dot += (long double)C[e] * X[e];
        m += fabsl(sg * X[e]) + fabsl((long double)R[e] * X[e]);
        gn += sg * sg;
        rn += (long double)R[e] * R[e];
    }
    svals(W->n, W->p, C, sv);
    long double gap = dot + (long double)delta * sv[0];
    *mag = (double)(m + (long double)delta * (sv[0] + sqrtl(gn) + sqrtl(rn)));
    free(C);
    free(R);
    free(sv);
    return gap;
}

/* ------------------------------------------------------------ instances -- */

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* 40 x 30 (tall) or 30 x 40 (wide): the 30 rows (columns) of X0's
 * diagonal rated on about a third of the other side and at (i, i); of the
 * 10 beyond, two rated (31 and 35, on 4 entries each), eight without a
 * rating: dropped, or shared under the column variance. */
static ircg_ratings *padded(int wide, uint64_t seed)
{
    int m0 = 30, big = 40;
    char used[40 * 40] = {0};
    ircg_ratings *R = ircg_ratings_new(wide ? m0 : big, wide ? big : m0, 30 * 30 + 8);
    int64_t e = 0;
    if (!R)
        return NULL;
    for (int a = 0; a < big; a++) { /* a: the long side's index */
        int extra = a == 31 || a == 35;
        if (a >= m0 && !extra)
            continue;
        for (int b = 0; b < m0; b++) {
            int take = a < m0 ? (b == a || lcg(&seed) % 3 == 0) : b < 4;
            if (!take || used[a * 40 + b])
                continue;
            used[a * 40 + b] = 1;
            R->row[e] = wide ? b : a;
            R->col[e] = wide ? a : b;
            R->val[e++] = 1.0 + (double)(lcg(&seed) % 5);
        }
    }
    R->nnz = e;
    return R;
}

/* The completion that fits every rating and is least in f: the observed
 * column means (column variance) or zeros elsewhere; its f is f* when
 * delta >= its nuclear norm (then g* = 0). */
static double fill(const ircg_ratings *R, int colvar, double *X)
{
    int n = R->n_rows, p = R->n_cols;
    double *sum = calloc((size_t)p, sizeof *sum), *cnt = calloc((size_t)p, sizeof *cnt);
    long double f = 0;
    for (int64_t e = 0; e < R->nnz; e++)
        sum[R->col[e]] += R->val[e], cnt[R->col[e]] += 1;
    for (int j = 0; j < p; j++) {
        double m = colvar && cnt[j] > 0 ? sum[j] / cnt[j] : 0.0;
        for (int i = 0; i < n; i++)
            X[i + (size_t)j * n] = m;
        sum[j] = m;
    }
    for (int64_t e = 0; e < R->nnz; e++) {
        X[R->row[e] + (size_t)R->col[e] * n] = R->val[e];
        long double d = (long double)R->val[e] - sum[R->col[e]];
        f += d * d;
    }
    free(sum);
    free(cnt);
    return (double)(f / 2);
}

/* The held matrix of a whole X, by the library's map (mc_given_held). */
static double *held_of(const mc_data *d, const double *X)
{
    double *Y = NULL;
    if (mc_given_held(d, X, &Y, NULL) != IRCG_OK)
        return NULL;
    if (!Y && (Y = malloc((size_t)d->n * d->p * sizeof *Y)))
        memcpy(Y, X, (size_t)d->n * d->p * sizeof *Y);
    return Y;
}

/* A random whole point where the iterates of d can be: zero on the
 * columns not held and, on the rows not held, zero or (shared row) one
 * value per column. */
static void random_point(const mc_data *d, double scale, uint64_t *seed, double *X)
{
    int n = d->n_all, p = d->p_all;
    char *hr = calloc((size_t)n, 1), *hc = calloc((size_t)p, 1);
    for (int i = 0; i < d->n_real; i++)
        hr[d->row_id ? d->row_id[i] : i] = 1;
    for (int j = 0; j < d->p; j++)
        hc[d->col_id ? d->col_id[j] : j] = 1;
    for (int j = 0; j < p; j++) {
        double shared = d->agg_w > 0 ? scale * mct_urand(seed) : 0.0;
        for (int i = 0; i < n; i++)
            X[i + (size_t)j * n] = !hc[j] ? 0.0 : hr[i] ? scale * mct_urand(seed) : shared;
    }
    free(hr);
    free(hc);
}

static ircg_settings defaults(void)
{
    ircg_settings s;
    ircg_settings_default(&s);
    return s;
}

/* ---------------------------------------------- values and gradients -- */

/* observe, values and grads of the held point of X against the whole
 * matrix's; the held gradient is E' of the whole one (a shared row:
 * agg_w times the gradient of any of its rows). */
static void check_values(const ircg_ratings *R, ircg_outer_kind outer, int compact,
                         uint64_t seed)
{
    ircg_problem *pb = NULL;
    mc_point_ws *w = NULL;
    ircg_settings st = defaults();
    REQUIRE((compact ? ircg_problem_matrix_completion : ircg_problem_matrix_completion_whole)(
                R, outer, 1e3, &pb, NULL) == IRCG_OK);
    const mc_data *d = mc_data_of(pb);
    whole W = {R, R->n_rows, R->n_cols, outer == IRCG_OUTER_COLUMN_VARIANCE};
    size_t npw = (size_t)W.n * W.p, nph = (size_t)d->n * d->p;
    double *X = malloc(npw * sizeof *X), *Y = NULL, *C = malloc(npw * sizeof *C);
    double *Cf = malloc(npw * sizeof *Cf), *gf = malloc(nph * sizeof *gf);
    double *gg = malloc(nph * sizeof *gg), f, g, worst = 0;
    REQUIRE(mc_point_new(d, &st, &w, NULL) == IRCG_OK);
    random_point(d, 3.0, &seed, X);
    REQUIRE((Y = held_of(d, X)) != NULL);
    int64_t no = slv_mc_point.obs_len(w);
    CHECK_INT(no, d->nnz + (W.colvar ? d->p : 0));
    double *o = malloc((size_t)no * sizeof *o);
    slv_mc_point.observe(w, Y, o);
    slv_mc_point.values(w, Y, o, &f, &g);
    slv_mc_point.grads(w, Y, o, gf, gg);
    CHECK_REL(g, (double)w_g(&W, X), 1e-13, 0);
    CHECK_REL(f, (double)w_f(&W, X), 1e-13, 0);
    w_grad(&W, X, 0.0, C);  /* grad g */
    w_grad(&W, X, 1.0, Cf); /* grad f + grad g */
    int other = -1; /* a row not held: the shared row stands for it */
    for (int i = 0, k = 0; i < W.n && other < 0; i++) {
        if (k < d->n_real && (d->row_id ? d->row_id[k] : k) == i)
            k++;
        else
            other = i;
    }
    for (int j = 0; j < d->p; j++)
        for (int i = 0; i < d->n; i++) {
            int shared = i >= d->n_real;
            int row = shared ? other : d->row_id ? d->row_id[i] : i;
            double a = shared ? d->agg_w : 1.0;
            size_t q = row + (size_t)(d->col_id ? d->col_id[j] : j) * W.n;
            size_t h = i + (size_t)j * d->n;
            worst = fmax(worst, fabs(gg[h] - a * C[q]));
            worst = fmax(worst, fabs(gf[h] - a * (Cf[q] - C[q])));
        }
    CHECK_MEASURED("gradients against the whole matrix's, max abs", worst, 1e-12);
    free(o);
    free(X);
    free(Y);
    free(C);
    free(Cf);
    free(gf);
    free(gg);
    slv_mc_point_ops.destroy(w);
    ircg_problem_free(pb);
}

TEST(mc_point, values_and_gradients_against_the_whole_matrix)
{
    for (int wide = 0; wide < 2; wide++) {
        ircg_ratings *R = padded(wide, 11 + (uint64_t)wide);
        REQUIRE(R);
        for (int c = 0; c < 2; c++)
            for (int compact = 0; compact < 2; compact++)
                check_values(R, c ? IRCG_OUTER_COLUMN_VARIANCE : IRCG_OUTER_HALF_NORM_SQ,
                             compact, 5 + (uint64_t)(4 * wide + 2 * c + compact));
        ircg_ratings_free(R);
    }
}

TEST(mc_point, compaction_holds_what_it_says)
{
    ircg_ratings *R = padded(0, 11);
    ircg_problem *pb = NULL;
    REQUIRE(R);
    REQUIRE(ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, 1e3, &pb, NULL) ==
            IRCG_OK);
    const mc_data *d = mc_data_of(pb);
    /* the premise of the tests above: 8 rows shared, held as one */
    CHECK_INT(d->n, 33);
    CHECK_INT(d->n_real, 32);
    CHECK_NEAR(d->agg_w, sqrt(8.0), 0);
    ircg_problem_free(pb);
    R = (ircg_ratings_free(R), padded(1, 12));
    REQUIRE(R);
    REQUIRE(ircg_problem_matrix_completion(R, IRCG_OUTER_HALF_NORM_SQ, 1e3, &pb, NULL) ==
            IRCG_OK);
    CHECK_INT(mc_data_of(pb)->p, 32);
    ircg_problem_free(pb);
    ircg_ratings_free(R);
}

/* ---------------------------------------------------------- projection -- */

static double dist(const double *A, const double *B, size_t n)
{
    long double s = 0;
    for (size_t e = 0; e < n; e++)
        s += ((long double)A[e] - B[e]) * ((long double)A[e] - B[e]);
    return (double)sqrtl(s);
}

static void check_projection(int n, int p, uint64_t seed)
{
    mc_svd_buf b;
    size_t np = (size_t)n * p;
    double *Y = malloc(np * sizeof *Y), *P = malloc(np * sizeof *P);
    double *Pr = malloc(np * sizeof *Pr), *P2 = malloc(np * sizeof *P2);
    double *Z = malloc(np * sizeof *Z);
    int rank = -1, hint = 0;
    REQUIRE(mc_svd_buf_init(&b, n, p) == 0);
    for (size_t e = 0; e < np; e++)
        Y[e] = mct_urand(&seed);
    double nucY = (double)nuclear(n, p, Y), delta = nucY / 3, yn = mct_norm(Y, np);
    /* outside: against dgesvd, both hints giving the same bits */
    REQUIRE(mc_project_nuclear(&b, delta, Y, P, &rank, &hint) == IRCG_OK);
    CHECK_INT(hint, 0);
    int rref = mct_proj_nuclear(n, p, Y, delta, Pr);
    CHECK_INT(rank, rref);
    CHECK_MEASURED("||P - P_dgesvd|| / ||Y||", dist(P, Pr, np) / yn, 1e-13);
    CHECK_MEASURED("||P||_* / delta - 1", (double)(nuclear(n, p, P) / delta - 1), 1e-13);
    hint = 1;
    REQUIRE(mc_project_nuclear(&b, delta, Y, P2, &rank, &hint) == IRCG_OK);
    CHECK(hint == 0 && memcmp(P, P2, np * sizeof *P) == 0);
    /* optimality: <Y - P, Z - P> <= 0 for Z in the ball */
    double worst = -INFINITY;
    for (int t = 0; t < 20; t++) {
        for (size_t e = 0; e < np; e++)
            Z[e] = mct_urand(&seed);
        double zn = (double)nuclear(n, p, Z), c = delta * (t % 2 ? 1.0 : 0.5) / zn;
        long double s = 0;
        for (size_t e = 0; e < np; e++)
            s += ((long double)Y[e] - P[e]) * ((long double)c * Z[e] - P[e]);
        worst = fmax(worst, (double)s / (yn * yn));
    }
    CHECK_MEASURED("max <Y - P, Z - P> / ||Y||^2 over random Z in the ball", worst, 1e-13);
    /* and at the Z that makes it largest, delta u v' for the top pair of
     * Y - P (s - s' = theta there): 0 for the exact projection */
    double *u = malloc((size_t)n * sizeof *u), *v = malloc((size_t)p * sizeof *v);
    double *sv = malloc((size_t)(n < p ? n : p) * sizeof *sv);
    for (size_t e = 0; e < np; e++)
        P2[e] = Y[e] - P[e];
    REQUIRE(mct_svd(n, p, P2, sv, u, v) == 0);
    long double vi = 0;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            vi += (long double)P2[i + (size_t)j * n] * ((long double)delta * u[i] * v[j] -
                                                        P[i + (size_t)j * n]);
    CHECK_MEASURED("|<Y - P, Z* - P>| / ||Y||^2, the largest over the ball",
                   fabs((double)vi) / (yn * yn), 1e-13);
    free(u);
    free(v);
    free(sv);
    /* on the sphere: again P, to rounding */
    hint = 0;
    REQUIRE(mc_project_nuclear(&b, delta, P, P2, &rank, &hint) == IRCG_OK);
    CHECK_MEASURED("||P(P) - P|| / ||P||", dist(P, P2, np) / mct_norm(P, np), 1e-13);
    /* inside: y itself, bit for bit, whichever the hint; in place too */
    for (size_t e = 0; e < np; e++)
        Z[e] = Y[e] * (0.5 * delta / nucY);
    for (hint = 0; hint < 2; hint++) {
        int h = hint;
        REQUIRE(mc_project_nuclear(&b, delta, Z, P2, &rank, &h) == IRCG_OK);
        CHECK(h == 1 && memcmp(Z, P2, np * sizeof *Z) == 0);
        CHECK_INT(rank, n < p ? n : p);
        memcpy(P2, Z, np * sizeof *Z);
        REQUIRE(mc_project_nuclear(&b, delta, P2, P2, &rank, &h) == IRCG_OK);
        CHECK(memcmp(Z, P2, np * sizeof *Z) == 0);
    }
    /* a low-rank point far outside keeps its rank (at most) */
    double sv3[3] = {50 * delta, 20 * delta, 0.1 * delta};
    REQUIRE(mct_with_spectrum(n, p, 3, sv3, seed, Z) == 0);
    hint = 0;
    REQUIRE(mc_project_nuclear(&b, delta, Z, P, &rank, &hint) == IRCG_OK);
    REQUIRE(mct_proj_nuclear(n, p, Z, delta, Pr) >= 0);
    CHECK(rank <= 2); /* 50, 20 - theta > 0 = 0.1 - theta: theta = 34.5 delta */
    CHECK_MEASURED("low rank: ||P - P_dgesvd|| / delta", dist(P, Pr, np) / delta, 1e-13);
    mc_svd_buf_free(&b);
    free(Y);
    free(P);
    free(Pr);
    free(P2);
    free(Z);
}

TEST(mc_point, projection_against_dgesvd)
{
    check_projection(17, 11, 3);
    check_projection(11, 17, 4);
    check_projection(30, 30, 5);
}

/* ------------------------------------------------------- certificates -- */

typedef struct cert_case {
    const char *name;
    const ircg_ratings *R;
    ircg_problem *pb;
    whole W;
    double delta, f_opt; /* g* = 0 */
} cert_case;

/* The instance with delta = 1.1 ||X_fill||_* (g* = 0, f* = f(X_fill)). */
static int cert_case_make(cert_case *c, const char *name, const ircg_ratings *R,
                          ircg_outer_kind outer, double delta, double f_opt)
{
    int n = R->n_rows, p = R->n_cols, colvar = outer == IRCG_OUTER_COLUMN_VARIANCE;
    *c = (cert_case){name, R, NULL, {R, n, p, colvar}, delta, f_opt};
    if (isnan(delta)) {
        double *X = malloc((size_t)n * p * sizeof *X);
        c->f_opt = fill(R, colvar, X);
        c->delta = 1.1 * (double)nuclear(n, p, X);
        free(X);
    }
    return ircg_problem_matrix_completion(R, outer, c->delta, &c->pb, NULL) == IRCG_OK;
}

static double worst_err; /* the largest g_err / (g + gap terms), f_err / f */

/* Every claim of the certificate of the held point of X (whole), at
 * sigma 0 and at sigma; *slack: the least of f* - (each outer bound). */
static void check_cert(const cert_case *c, mc_point_ws *w, const double *X, double sigma,
                       double *slack)
{
    const mc_data *d = w->d;
    double *Y = held_of(d, X);
    slv_cert ct;
    REQUIRE(Y);
    slv_mc_point.set_point(w, IRCG_X, Y, NAN, NAN);
    REQUIRE(mc_point_certify(w, IRCG_X, sigma, &ct) == IRCG_OK);
    long double g = w_g(&c->W, X), f = w_f(&c->W, X);
    double mag;
    long double gap_g = w_gap(&c->W, X, 0.0, c->delta, &mag);
    CHECK(fabsl(g - ct.g) <= ct.g_err);
    CHECK(fabsl(f - ct.f) <= ct.f_err);
    /* the bounds are rounding's, not more: measured below (g_err holds
     * the feasibility term of a point on the sphere, ~ min(n, p) 16 (n +
     * p) eps of <R, Y>: LAPACK's margin on every singular value) */
    worst_err = fmax(worst_err, ct.g_err / (ct.g + mag + DBL_MIN));
    worst_err = fmax(worst_err, ct.f_err / (ct.f + DBL_MIN));
    /* g_lower <= g* = 0 */
    CHECK(ct.g - ct.g_err - ct.gap_g <= 0);
    /* the gap: above the exact one (1e-15 of its terms: this computation's
     * own rounding), and within 1e-9 of them */
    CHECK(ct.gap_g >= (double)gap_g - 1e-15 * mag);
    CHECK(ct.gap_g <= (double)gap_g + 1e-9 * mag);
    *slack = INFINITY;
    if (sigma > 0) {
        CHECK(ct.nphi == 8);
        for (int k = -1; k < ct.nphi; k++) {
            double s = k < 0 ? sigma : ct.phi_sigma[k], gp = k < 0 ? ct.gap_phi : ct.phi_sub[k];
            long double gap = w_gap(&c->W, X, s, c->delta, &mag);
            CHECK(gp >= (double)gap - 1e-15 * mag);
            CHECK(gp <= (double)gap + 1e-9 * mag);
            /* the outer bound with g_upper = g* = 0, the tightest one */
            double fl = ct.f - ct.f_err + (ct.g - ct.g_err - gp) / s;
            *slack = fmin(*slack, c->f_opt - fl);
        }
        CHECK(*slack >= 0);
    }
    free(Y);
}

/* The whole matrix of a held Y (mc_layout.c's spread, written here):
 * the rows not held the shared row over agg_w, or zero. */
static void whole_of(const mc_data *d, const double *Y, double *X)
{
    int n = d->n_all;
    memset(X, 0, (size_t)n * d->p_all * sizeof *X);
    for (int j = 0; j < d->p; j++) {
        double *col = X + (size_t)(d->col_id ? d->col_id[j] : j) * n;
        const double *y = Y + (size_t)j * d->n;
        for (int i = 0; i < n && d->agg_w > 0; i++)
            col[i] = y[d->n - 1] / d->agg_w;
        for (int i = 0; i < d->n_real; i++)
            col[d->row_id ? d->row_id[i] : i] = y[i];
    }
}

/* X = 0.5 X_fill + gamma H, H = 1 off Omega where the iterates may be
 * nonzero, scaled to ||X||_* = delta (1 + 1e-9): outside the ball by
 * rounding's kind of margin, with g falling outward (X_Omega = c M / 2,
 * c ~ 1: <R, X> < 0). */
static void outside_point(const cert_case *c, const mc_data *d, const double *Xf, double *X)
{
    size_t np = (size_t)c->W.n * c->W.p;
    double *H = malloc(np * sizeof *H), gamma = 1;
    uint64_t seed = 1;
    random_point(d, 1.0, &seed, H); /* its support: where iterates live */
    for (size_t e = 0; e < np; e++)
        H[e] = H[e] != 0 ? 1.0 : 0.0;
    for (int64_t e = 0; e < c->R->nnz; e++)
        H[c->R->row[e] + (size_t)c->R->col[e] * c->W.n] = 0;
    for (;; gamma *= 2) {
        for (size_t e = 0; e < np; e++)
            X[e] = 0.5 * Xf[e] + gamma * H[e];
        if (nuclear(c->W.n, c->W.p, X) > c->delta)
            break;
    }
    long double nx = nuclear(c->W.n, c->W.p, X);
    for (size_t e = 0; e < np; e++)
        X[e] = (double)(X[e] * (c->delta * (1 + 1e-9L) / nx));
    free(H);
}

static void check_cert_case(cert_case *c, uint64_t seed)
{
    const mc_data *d = mc_data_of(c->pb);
    ircg_settings st = defaults();
    mc_point_ws *w = NULL;
    size_t np = (size_t)c->W.n * c->W.p;
    double *X = malloc(np * sizeof *X), *Xf = malloc(np * sizeof *Xf), least = INFINITY;
    double sl = INFINITY;
    mc_svd_buf b;
    worst_err = 0;
    REQUIRE(mc_point_new(d, &st, &w, NULL) == IRCG_OK);
    REQUIRE(mc_svd_buf_init(&b, d->n, d->p) == 0);
    fill(c->R, c->W.colvar, Xf);
    const double sig[] = {1e-4, 1e-2, 1.0};
    for (int t = 0; t < 5; t++) {
        /* t = 0: the solution; 1, 2: near it; 3: random inside; 4: onto the
         * sphere (projected in the held coordinates, where the shared
         * rows stay one) */
        random_point(d, t == 3 ? 3.0 : 1e-3 * t, &seed, X);
        for (size_t e = 0; t != 3 && e < np; e++)
            X[e] = t == 4 ? 3 * (X[e] + Xf[e]) : X[e] + Xf[e];
        if (t == 3) { /* inside the ball: 0.9 delta */
            long double nx = nuclear(c->W.n, c->W.p, X);
            for (size_t e = 0; e < np; e++)
                X[e] = (double)(X[e] * (0.9L * c->delta / nx));
        }
        if (t == 4) {
            int rank, hint = 0;
            double *Y = held_of(d, X);
            REQUIRE(Y);
            REQUIRE(mc_project_nuclear(&b, c->delta, Y, Y, &rank, &hint) == IRCG_OK);
            CHECK(hint == 0);
            whole_of(d, Y, X);
            free(Y);
        }
        for (int k = 0; k < 3; k++) {
            check_cert(c, w, X, sig[k], &sl);
            least = fmin(least, sl);
        }
    }
    printf("    %s: f* %.6g, least f* - f_lower %.3g\n", c->name, c->f_opt, least);
    CHECK_MEASURED("relative error bounds of g and f, the largest", worst_err, 1e-10);
    /* outside by 1e-9 of the radius: the certificate's g + g_err bounds g
     * at the point it stands for, X scaled into the ball (without its
     * feasibility term it would not) */
    outside_point(c, d, Xf, X);
    double *Y = held_of(d, X);
    slv_cert ct;
    REQUIRE(Y);
    slv_mc_point.set_point(w, IRCG_X, Y, NAN, NAN);
    REQUIRE(mc_point_certify(w, IRCG_X, 0.0, &ct) == IRCG_OK);
    long double ratio = c->delta / nuclear(c->W.n, c->W.p, X), gout = w_g(&c->W, X);
    for (size_t e = 0; e < np; e++)
        X[e] = (double)(X[e] * ratio);
    long double gin = w_g(&c->W, X);
    CHECK(gin - gout > 1e-12 * gin); /* the premise: g falls outward, visibly */
    CHECK(ct.g + ct.g_err >= gin);
    free(Y);
    mc_svd_buf_free(&b);
    slv_mc_point_ops.destroy(w);
    free(X);
    free(Xf);
}

/* The minimizer of sigma f + g without the ball, column by column (f the
 * column variance: (sigma (I - 11'/n) + D_j) x = D_j m, D_j the rows
 * rated in column j), by LAPACK: inside the ball on the selection
 * instance, so Phi_sigma's minimizer over it, where the outer bound
 * f(X) + (g(X) - g* - gap) / sigma is min Phi / sigma, within O(sigma) of
 * f*. */
static int phi_minimizer(const ircg_ratings *R, double sigma, double *X)
{
    int n = R->n_rows, p = R->n_cols, ok = 1;
    double *A = malloc((size_t)n * n * sizeof *A), *b = malloc((size_t)n * sizeof *b);
    for (int j = 0; j < p && ok; j++) {
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < n; k++)
                A[i + (size_t)k * n] = sigma * ((i == k) - 1.0 / n);
            b[i] = 0;
        }
        for (int64_t e = 0; e < R->nnz; e++)
            if (R->col[e] == j) {
                A[R->row[e] + (size_t)R->row[e] * n] += 1;
                b[R->row[e]] = R->val[e];
            }
        ok = LAPACKE_dposv(LAPACK_COL_MAJOR, 'U', n, 1, A, n, b, n) == 0;
        memcpy(X + (size_t)j * n, b, (size_t)n * sizeof *b);
    }
    free(A);
    free(b);
    return ok;
}

TEST(mc_point, certificate_bounds_on_the_selection_instance)
{
    sel_inst s;
    cert_case c;
    mc_point_ws *w = NULL;
    ircg_settings st = defaults();
    REQUIRE(sel_make(&s, 50, 50, 600, 7));
    REQUIRE(cert_case_make(&c, "selection 50 x 50", s.R, IRCG_OUTER_COLUMN_VARIANCE, s.delta,
                           s.f_opt));
    check_cert_case(&c, 21);
    /* where the outer bound is tight: Phi_sigma's minimizers */
    double *X = malloc((size_t)50 * 50 * sizeof *X), sl;
    REQUIRE(mc_point_new(mc_data_of(c.pb), &st, &w, NULL) == IRCG_OK);
    for (double sigma = 1e-2; sigma > 1e-5; sigma /= 10) {
        REQUIRE(phi_minimizer(s.R, sigma, X));
        CHECK(nuclear(50, 50, X) < s.delta);
        check_cert(&c, w, X, sigma, &sl);
        printf("    sigma %g: (f* - f_lower) / f* = %.3g\n", sigma, sl / s.f_opt);
        CHECK(sl >= 0 && sl <= 10 * sigma * s.f_opt); /* tight: O(sigma) */
    }
    slv_mc_point_ops.destroy(w);
    free(X);
    ircg_problem_free(c.pb);
    sel_free(&s);
}

TEST(mc_point, certificate_bounds_on_compacted_instances)
{
    const char *names[4] = {"tall, half norm (rows dropped)", "tall, column variance (shared row)",
                            "wide, half norm (columns dropped)", "wide, column variance"};
    for (int k = 0; k < 4; k++) {
        ircg_ratings *R = padded(k / 2, 31 + (uint64_t)k);
        cert_case c;
        REQUIRE(R);
        REQUIRE(cert_case_make(&c, names[k], R,
                               k % 2 ? IRCG_OUTER_COLUMN_VARIANCE : IRCG_OUTER_HALF_NORM_SQ,
                               NAN, NAN));
        const mc_data *d = mc_data_of(c.pb);
        CHECK((int64_t)d->n * d->p < (int64_t)R->n_rows * R->n_cols); /* compacted */
        check_cert_case(&c, 41 + (uint64_t)k);
        ircg_problem_free(c.pb);
        ircg_ratings_free(R);
    }
}

/* ------------------------------------- iterates, references, the state -- */

/* The whole matrix of an iterate's factors: a0 X0 + P diag(w) Q' with the
 * rows and columns it lists (ircg_iterate's layout, solver.h). */
static void whole_of_iterate(const ircg_iterate *it, double *X)
{
    int n = it->n_rows, p = it->n_cols;
    memset(X, 0, (size_t)n * p * sizeof *X);
    for (int j = 0; j < it->cols_held; j++) {
        int col = it->col_ids ? it->col_ids[j] : j;
        for (int i = 0, h = 0; i < n; i++) {
            int held = h < it->rows_held && (it->row_ids ? it->row_ids[h] : h) == i;
            long double s = 0;
            for (int l = 0; l < it->rank; l++) {
                double pil = held ? it->P[h + (size_t)l * it->rows_held]
                                  : it->P_other ? it->P_other[l] : 0.0;
                s += (long double)pil * it->w[l] * it->Q[j + (size_t)l * it->cols_held];
            }
            X[i + (size_t)col * n] = (double)s;
            h += held;
        }
    }
    for (int i = 0; i < (n < p ? n : p); i++)
        X[i + (size_t)i * n] += it->a0 * it->x0_diag[i];
}

TEST(mc_point, iterates_are_the_points)
{
    for (int k = 0; k < 3; k++) { /* the shared row, columns dropped, nothing */
        ircg_ratings *R = padded(k == 1, 51 + (uint64_t)k);
        ircg_problem *pb = NULL;
        mc_point_ws *w = NULL;
        ircg_iterate *it = NULL;
        ircg_settings st = defaults();
        uint64_t seed = 3;
        REQUIRE(R);
        REQUIRE((k < 2 ? ircg_problem_matrix_completion : ircg_problem_matrix_completion_whole)(
                    R, k == 1 ? IRCG_OUTER_HALF_NORM_SQ : IRCG_OUTER_COLUMN_VARIANCE, 1e3,
                    &pb, NULL) == IRCG_OK);
        const mc_data *d = mc_data_of(pb);
        size_t np = (size_t)R->n_rows * R->n_cols;
        double *X = malloc(np * sizeof *X), *F = malloc(np * sizeof *F), *Y;
        REQUIRE(mc_point_new(d, &st, &w, NULL) == IRCG_OK);
        random_point(d, 2.0, &seed, X);
        REQUIRE((Y = held_of(d, X)) != NULL);
        /* a point of rank 5 in the held coordinates, then the whole one */
        mc_svd_buf b;
        REQUIRE(mc_svd_buf_init(&b, d->n, d->p) == 0);
        REQUIRE(mc_svd_thin(&b, Y) == 0);
        for (int l = 5; l < b.k; l++)
            b.s[l] = 0;
        memset(Y, 0, (size_t)d->n * d->p * sizeof *Y);
        for (int l = 0; l < 5; l++)
            for (int j = 0; j < d->p; j++)
                for (int i = 0; i < d->n; i++)
                    Y[i + (size_t)j * d->n] +=
                        b.u[i + (size_t)l * d->n] * b.s[l] * b.vt[l + (size_t)j * b.k];
        whole_of(d, Y, X);
        slv_mc_point.set_point(w, IRCG_Z, Y, 1.0, 2.0);
        REQUIRE(slv_mc_point_ops.iterate(w, IRCG_Z, 1, &it) == IRCG_OK);
        CHECK_INT(it->kind, IRCG_PROBLEM_MATRIX_COMPLETION);
        CHECK_INT(it->rank, 5);
        CHECK(it->a0 == 0);
        CHECK_INT(it->n_rows, R->n_rows);
        CHECK_INT(it->n_cols, R->n_cols);
        whole_of_iterate(it, F);
        CHECK_MEASURED("||factors - point|| / ||point||", dist(F, X, np) / mct_norm(X, np),
                       1e-14);
        CHECK_MEASURED("||dense - point|| / ||point||", dist(it->dense, X, np) / mct_norm(X, np),
                       1e-15);
        /* values: what set_point gave; g - g(ref) termwise */
        slv_values v;
        double *ref = malloc((size_t)d->nnz * sizeof *ref);
        memcpy(ref, slv_mc_point_ops.residual(w, IRCG_X), (size_t)d->nnz * sizeof *ref);
        slv_mc_point_ops.values(w, ref, &v);
        CHECK(v.f_z == 1.0 && v.g_z == 2.0);
        whole W = {R, R->n_rows, R->n_cols, 0};
        double *X0 = malloc(np * sizeof *X0); /* the start: the paper's X0 */
        memset(X0, 0, np * sizeof *X0);
        for (int i = 0; i < d->m0; i++)
            X0[i + (size_t)i * R->n_rows] = 0.01 * 1e3 / d->m0;
        CHECK_REL(v.g_gap_z, (double)(w_g(&W, X) - w_g(&W, X0)), 1e-13, 0);
        CHECK(v.g_gap_x == 0);
        CHECK_INT(v.rank, d->m0); /* X0's */
        free(ref);
        free(X0);
        mc_svd_buf_free(&b);
        ircg_iterate_free(it);
        slv_mc_point_ops.destroy(w);
        free(X);
        free(F);
        free(Y);
        ircg_problem_free(pb);
        ircg_ratings_free(R);
    }
}

TEST(mc_point, state_comes_back_and_a_bad_one_is_refused)
{
    ircg_ratings *R = padded(0, 61);
    ircg_problem *pb = NULL;
    mc_point_ws *w = NULL, *w2 = NULL;
    ircg_settings st = defaults();
    slv_buf b = {0};
    uint64_t seed = 9;
    ircg_diag dg = {0};
    REQUIRE(R);
    REQUIRE(ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, 1e3, &pb, NULL) ==
            IRCG_OK);
    const mc_data *d = mc_data_of(pb);
    size_t np = (size_t)d->n * d->p;
    REQUIRE(mc_point_new(d, &st, &w, NULL) == IRCG_OK);
    REQUIRE(mc_point_new(d, &st, &w2, NULL) == IRCG_OK);
    double *Y = malloc(np * sizeof *Y);
    for (size_t e = 0; e < np; e++)
        Y[e] = mct_urand(&seed);
    slv_mc_point.set_point(w, IRCG_X, Y, 3.0, 4.0);
    REQUIRE(slv_mc_point_ops.save(w, &b) == IRCG_OK);
    slv_rbuf r = {b.data, b.len, 0, 0};
    REQUIRE(slv_mc_point_ops.restore(w2, &r, NULL) == IRCG_OK);
    CHECK(r.pos == r.len);
    CHECK(memcmp(w2->x, Y, np * sizeof *Y) == 0 && memcmp(w2->z, w->z, np * sizeof *Y) == 0);
    CHECK(w2->f_x == 3.0 && w2->g_x == 4.0 && w2->rank_x == w->rank_x);
    /* a wrong tag, a NaN, a truncation: refused, the workspace unchanged */
    for (int bad = 0; bad < 3; bad++) {
        unsigned char *c = malloc(b.len);
        memcpy(c, b.data, b.len);
        size_t len = b.len;
        if (bad == 0)
            c[0] ^= 1;
        if (bad == 1) {
            double nan = NAN;
            memcpy(c + 5 * 8 + 8 * 3, &nan, 8); /* an entry of x */
        }
        if (bad == 2)
            len -= 8 * (np + 4);
        slv_mc_point.set_point(w2, IRCG_X, w->z, 0.0, 0.0);
        slv_rbuf rb = {c, len, 0, 0};
        CHECK(slv_mc_point_ops.restore(w2, &rb, &dg) == IRCG_ERR_INVALID);
        CHECK_STR(dg.field, "/checkpoint");
        CHECK(memcmp(w2->x, w->z, np * sizeof *Y) == 0);
        free(c);
    }
    /* restart: z = x */
    REQUIRE(slv_mc_point_ops.restart(w) == IRCG_OK);
    CHECK(memcmp(w->z, Y, np * sizeof *Y) == 0 && w->f_z == 3.0 && w->g_z == 4.0);
    slv_buf_free(&b);
    free(Y);
    slv_mc_point_ops.destroy(w);
    slv_mc_point_ops.destroy(w2);
    ircg_problem_free(pb);
    ircg_ratings_free(R);
}

TEST(mc_point, starts_where_the_settings_say)
{
    ircg_ratings *R = padded(0, 71);
    ircg_problem *pb = NULL;
    mc_point_ws *w = NULL;
    ircg_settings st = defaults();
    ircg_diag dg = {0};
    uint64_t seed = 5;
    REQUIRE(R);
    REQUIRE(ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, 100.0, &pb, NULL) ==
            IRCG_OK);
    const mc_data *d = mc_data_of(pb);
    size_t npw = (size_t)R->n_rows * R->n_cols, np = (size_t)d->n * d->p;
    double *X = malloc(npw * sizeof *X), *Y;
    /* a given x0 inside: its held matrix, f and g its own */
    random_point(d, 1.0, &seed, X);
    long double nx = nuclear(R->n_rows, R->n_cols, X);
    for (size_t e = 0; e < npw; e++)
        X[e] = (double)(X[e] * (50.0L / nx));
    st.start = IRCG_START_GIVEN;
    st.x0 = X;
    REQUIRE(mc_point_new(d, &st, &w, NULL) == IRCG_OK);
    REQUIRE((Y = held_of(d, X)) != NULL);
    CHECK(memcmp(w->x, Y, np * sizeof *Y) == 0 && memcmp(w->z, Y, np * sizeof *Y) == 0);
    whole W = {R, R->n_rows, R->n_cols, 1};
    CHECK_REL(w->g_x, (double)w_g(&W, X), 1e-13, 0);
    CHECK_REL(w->f_x, (double)w_f(&W, X), 1e-13, 0);
    slv_mc_point_ops.destroy(w);
    /* outside: refused at /x0 */
    for (size_t e = 0; e < npw; e++)
        X[e] *= 3;
    CHECK(mc_point_new(d, &st, &w, &dg) == IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/x0");
    /* zero and the paper's X0 */
    st.start = IRCG_START_ZERO;
    REQUIRE(mc_point_new(d, &st, &w, NULL) == IRCG_OK);
    int zero = 1;
    for (size_t e = 0; e < np; e++)
        zero &= w->x[e] == 0;
    CHECK(zero);
    slv_mc_point_ops.destroy(w);
    st.start = IRCG_START_DEFAULT;
    REQUIRE(mc_point_new(d, &st, &w, NULL) == IRCG_OK);
    for (int i = 0; i < d->n; i++)
        for (int j = 0; j < d->p; j++)
            if (w->x[i + (size_t)j * d->n] != (i == j && i < d->m0 ? 0.01 * 100.0 / d->m0 : 0))
                zero = 0;
    CHECK(zero);
    slv_mc_point_ops.destroy(w);
    free(X);
    free(Y);
    ircg_problem_free(pb);
    ircg_ratings_free(R);
}
