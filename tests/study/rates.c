/*
 * rates.c -- see rates.h.  The theorems' constants, in the paper's
 * notation (Section 5), with sigma_0 = vs:
 *
 *   the theorem under quadratic growth of g
 *     W = max{ g(x_0) - g*, w* },  w* the largest w with
 *         c0 + c1 sqrt(w) >= w,  c0 = 4 (L_f vs + L_g) D^2 + G_f^2 vs^2 / kappa,
 *         c1 = p 2^min{2p+2, 3} G_f vs / sqrt(kappa),
 *     so sqrt(w*) = (c1 + sqrt(c1^2 + 4 c0)) / 2;
 *     g_t <= W / (t+1)^min{2p,1},  f_t <= W / (2 vs (t+1)^min{p,1-p}).
 *   the lemma bounding f and g (tighter, and where kappa matters most)
 *     f_t >= -G_f sqrt(g_t / kappa),  g_t <= 2 h_t + G_f^2 sigma_t^2 / kappa,
 *     h_t = sigma_t f_t + g_t.
 *   the theorem for strongly convex f and X (closed loop or line search)
 *     k = min{p + 2/3, p/3 + 1, 2 - p},
 *     M = alpha_X sqrt(alpha_f) / (8 sqrt2 (sigma_0 L_f + L_g)),
 *     H = the least h with, for t = 1..T - 1,
 *       (1) h >= max(1, vs) 3^k h_1,
 *       (2) h / (2 (t+2)^k) + C / (t+2)^e <= h / (t+3)^k,
 *       (3) h k / (t+2)^(k+1) + C / (t+2)^e
 *             <= M h^(3/2) sqrt(sigma_t) / (sqrt2 (t+2)^(3k/2 + p/4)),
 *       C = sqrt(G_f^2 W vs^2 / kappa) p 2^(p+1), e = min{2p+1, p+3/2};
 *     f_t <= H / (vs (t+2)^min{2/3, 1-2p/3, 2-2p}).
 *   Three misprints of the statement are read as its proof needs them:
 *   M's denominator has L_g where the statement repeats L_f (the proof's
 *   step is 8 (sigma_0 L_f + L_g)); C has G_f^2 where the statement has G_f
 *   (from f_{t+1} >= -G_f sqrt(g_{t+1} / kappa)); and (1) has max(1, vs)
 *   3^k h_1 where the statement has vs 3^k h_1, which the induction's base
 *   case h_1 <= H / 3^k needs when vs < 1 (for vs >= 1 the two agree).
 *   The conditions (2), (3) for t < T are what the induction of
 *   the lemma on the recursion of h uses up to T, so this H is valid on the
 *   horizon run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study/rates.h"
#include "../test_num.h"

/* A unit vector orthogonal to the first k rows of Q (modified Gram-Schmidt,
 * twice for accuracy), random in seed; 0 when it degenerates. */
static int next_orthonormal(double *Q, int k, int n, uint64_t *seed)
{
    double *q = Q + (size_t)k * n;
    for (int j = 0; j < n; j++)
        q[j] = test_urand(seed);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < k; i++) {
            double d = test_dot(Q + (size_t)i * n, q, n);
            for (int j = 0; j < n; j++)
                q[j] -= d * Q[(size_t)i * n + j];
        }
    double nq = sqrt(test_dot(q, q, n));
    if (!(nq > 1e-3))
        return 0;
    for (int j = 0; j < n; j++)
        q[j] /= nq;
    return 1;
}

/* lambda in [0.5, 2] along the rows of a random orthogonal Q; y = 0.6 q_y,
 * c = y - G_f e with e a random unit vector: x* = y in the interior,
 * kappa = lambda_min (g - g* = (x - y)'A(x - y) >= lambda_min ||x - y||^2). */
static int make_qg(rq_inst *in, int n, uint64_t seed)
{
    double Q[RQ_MAXN * RQ_MAXN], lam[RQ_MAXN], lmin = INFINITY, lmax = 0;
    for (int k = 0; k < n; k++) {
        if (!next_orthonormal(Q, k, n, &seed))
            return 0;
        lam[k] = 1.25 + 0.75 * test_urand(&seed);
        lam[k] = k == 0 ? 0.5 : k == 1 ? 2.0 : lam[k];
        lmin = fmin(lmin, lam[k]);
        lmax = fmax(lmax, lam[k]);
    }
    in->name = "Example 1, lambda_min(A) > 0, ||A^-1 b|| = 0.6";
    in->m = n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double a = 0;
            for (int k = 0; k < n; k++)
                a += Q[k * n + i] * lam[k] * Q[k * n + j];
            in->A[i * n + j] = a;
            in->B[i * n + j] = sqrt(2 * lam[i]) * Q[i * n + j];
        }
    double u[RQ_MAXN], e[RQ_MAXN], nu = 0, ne = 0;
    for (int j = 0; j < n; j++) {
        u[j] = test_urand(&seed);
        e[j] = test_urand(&seed);
        nu += u[j] * u[j];
        ne += e[j] * e[j];
    }
    for (int j = 0; j < n; j++) {
        in->xs[j] = 0.6 * u[j] / sqrt(nu);
        in->c[j] = in->xs[j] - e[j] / sqrt(ne); /* grad f(x*) = e/||e|| */
    }
    for (int i = 0; i < n; i++)
        in->bt[i] = test_dot(in->B + (size_t)i * n, in->xs, n);
    in->kappa = lmin;
    in->L_g = 2 * lmax;
    in->G_f = 1;
    return 1;
}

/* A = u u', b = u (so A^+ b = u, ||u|| = 1): X_opt = {u}; f pulls along a
 * tangent e of the sphere at u, c = u + e. */
static int make_no_qg(rq_inst *in, int n, uint64_t seed)
{
    double Q[2 * RQ_MAXN];
    if (!next_orthonormal(Q, 0, n, &seed) || !next_orthonormal(Q, 1, n, &seed))
        return 0;
    in->name = "Example 1's excluded case, A = uu', b = u (no quadratic growth)";
    in->m = 1;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            in->A[i * n + j] = Q[i] * Q[j];
        in->B[i] = sqrt(2.0) * Q[i];
        in->xs[i] = Q[i];
        in->c[i] = Q[i] + Q[n + i];
    }
    in->bt[0] = sqrt(2.0); /* sqrt2 u'x* = sqrt2 */
    in->kappa = 0;
    in->L_g = 2;
    in->G_f = 1;
    return 1;
}

int rq_make(rq_inst *in, rq_kind kind, int n, uint64_t seed)
{
    memset(in, 0, sizeof *in);
    if (n < 2 || n > RQ_MAXN)
        return 0;
    in->kind = kind;
    in->n = n;
    int ok = kind == RQ_QG ? make_qg(in, n, seed) : make_no_qg(in, n, seed);
    double f = 0;
    for (int j = 0; j < n; j++)
        f += 0.5 * (in->xs[j] - in->c[j]) * (in->xs[j] - in->c[j]);
    in->f_opt = f;
    in->L_f = 1;
    in->D = 2;
    in->alpha_f = 1; /* f = 1/2 ||x - c||^2 */
    in->alpha_X = 1; /* the unit ball: alpha = 1 / radius */
    return ok;
}

double rq_fit_slope(const double *x, const double *y, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!(y[i] > 0) || !(x[i] > 0))
            continue;
        double lx = log(x[i]), ly = log(y[i]);
        sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
        k++;
    }
    if (k < 2)
        return NAN;
    return (k * sxy - sx * sy) / (k * sxx - sx * sx);
}

/* g_t, f_t at every t of the run. */
typedef struct rq_trace {
    double *g, *f;
    int64_t T;
} rq_trace;

static int record(void *user, const ircg_iter_info *it)
{
    rq_trace *tr = user;
    if (it->t <= tr->T) {
        tr->g[it->t] = it->g_x; /* g* = 0 in the least-squares form */
        tr->f[it->t] = it->f_x;
    }
    return 0;
}

/* lhs <= rhs + slack: counts violations and keeps the largest lhs / rhs
 * where rhs is well above the slack. */
static void check(double lhs, double rhs, double slack, int *bad, double *ratio)
{
    if (!(lhs <= rhs + slack))
        (*bad)++;
    if (rhs > 1e3 * slack)
        *ratio = fmax(*ratio, lhs / rhs);
}

static double theorem_W(const rq_inst *in, double p, double vs, double g0)
{
    double c0 = 4 * (in->L_f * vs + in->L_g) * in->D * in->D +
                in->G_f * in->G_f * vs * vs / in->kappa;
    double c1 = p * pow(2.0, fmin(2 * p + 2, 3)) * in->G_f * vs / sqrt(in->kappa);
    double r = 0.5 * (c1 + sqrt(c1 * c1 + 4 * c0));
    return fmax(g0, r * r);
}

/* The least s >= 0 with b s^3 - a s^2 - c >= 0 (a, c >= 0, b > 0): one
 * positive root, found by bisection after doubling. */
static double cubic_root(double a, double b, double c)
{
    double lo = 0, hi = 1;
    while (b * hi * hi * hi - a * hi * hi - c < 0)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (b * mid * mid * mid - a * mid * mid - c < 0)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

static double theorem_H(const rq_inst *in, double p, double vs, double W, double h1,
                        int64_t T)
{
    double k = fmin(fmin(p + 2.0 / 3, p / 3 + 1), 2 - p);
    double M = in->alpha_X * sqrt(in->alpha_f) / (8 * sqrt(2.0) * (vs * in->L_f + in->L_g));
    double C = sqrt(in->G_f * in->G_f * W * vs * vs / in->kappa) * p * pow(2, p + 1);
    double e = fmin(2 * p + 1, p + 1.5);
    double H = fmax(1, vs) * pow(3, k) * fmax(h1, 0);
    for (int64_t t = 1; t < T; t++) {
        double t2 = (double)t + 2, sig = vs * pow((double)t + 1, -p);
        double coef = pow(t2 + 1, -k) - 0.5 * pow(t2, -k); /* > 0 for k < 2.4 */
        H = fmax(H, C * pow(t2, -e) / coef);
        /* (3) in s = sqrt(h): b s^3 - a s^2 - c >= 0 */
        double b = M * sqrt(sig) / (sqrt(2.0) * pow(t2, 1.5 * k + p / 4));
        double s = cubic_root(k * pow(t2, -k - 1), b, C * pow(t2, -e));
        H = fmax(H, s * s);
    }
    return H;
}

/* The sample points t_i, log-spaced over [T/20, T]. */
static void fit_points(const rq_trace *tr, double f_opt, int64_t T, rq_result *out)
{
    double x[RQ_FIT_POINTS], yg[RQ_FIT_POINTS], yf[RQ_FIT_POINTS];
    for (int i = 0; i < RQ_FIT_POINTS; i++) {
        double lt = log(T / 20.0) + (log((double)T) - log(T / 20.0)) * i / (RQ_FIT_POINTS - 1);
        int64_t t = (int64_t)floor(exp(lt) + 0.5);
        t = t < 1 ? 1 : t > T ? T : t;
        x[i] = (double)t + 1;
        yg[i] = tr->g[t];
        yf[i] = fabs(tr->f[t] - f_opt);
    }
    out->slope_g = -rq_fit_slope(x, yg, RQ_FIT_POINTS);
    out->slope_f = -rq_fit_slope(x, yf, RQ_FIT_POINTS);
}

static void check_all(const rq_inst *in, const rq_trace *tr, int check_sc, rq_result *r)
{
    const double p = r->p, vs = r->vs, slack_f = 1e-12 * (1 + in->f_opt), slack_g = 1e-13;
    for (int64_t t = 1; t <= r->T; t++) {
        double t1 = (double)t + 1, sig = vs * pow(t1, -p);
        double g = tr->g[t], f = tr->f[t] - in->f_opt, h = sig * f + g;
        check(g, r->W * pow(t1, -r->g_rate), slack_g, &r->bad_g, &r->ratio_g);
        check(f, r->W / (2 * vs * pow(t1, r->f_rate)), slack_f, &r->bad_f, &r->ratio_f);
        check(-f, in->G_f * sqrt(fmax(g, 0) / in->kappa), slack_f, &r->bad_lemma_f,
              &r->ratio_lemma_f);
        check(g, 2 * h + in->G_f * in->G_f * sig * sig / in->kappa, slack_g + 2 * sig * slack_f,
              &r->bad_lemma_g, &r->ratio_lemma_g);
        if (check_sc)
            check(f, r->H / (vs * pow(t1 + 1, r->f_rate_sc)), slack_f, &r->bad_f_sc,
                  &r->ratio_f_sc);
    }
}

int rq_run(const rq_inst *in, double p, double vs, ircg_step_rule rule, int64_t T,
           int check_sc, rq_result *out)
{
    ircg_ls_data d = {.m = in->m, .n = in->n, .A_dense = in->B, .b = in->bt};
    ircg_outer o = {.kind = IRCG_OUTER_DIST_SQ, .c = in->c};
    ircg_domain dom = {.kind = IRCG_DOMAIN_L2_BALL, .radius = 1};
    ircg_problem *pb = NULL;
    ircg_solver *sv = NULL;
    ircg_settings s;
    rq_trace tr = {calloc((size_t)T + 1, sizeof(double)), calloc((size_t)T + 1, sizeof(double)), T};
    int rc = -1;

    *out = (rq_result){.p = p, .vs = vs, .rule = rule, .T = T, .H = NAN,
                       .g_rate = fmin(2 * p, 1), .f_rate = fmin(p, 1 - p),
                       .f_rate_sc = fmin(fmin(2.0 / 3, 1 - 2 * p / 3), 2 - 2 * p),
                       .ratio_g = -INFINITY, .ratio_f = -INFINITY, .ratio_f_sc = -INFINITY,
                       .ratio_lemma_f = -INFINITY, .ratio_lemma_g = -INFINITY};
    if (!tr.g || !tr.f || ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) != IRCG_OK)
        goto done;
    ircg_settings_default(&s);
    s.step_rule = rule;
    s.p = p;
    s.varsigma = vs;
    s.max_iter = T;
    s.callback = record;
    s.callback_data = &tr;
    if (ircg_solver_new(pb, &s, &sv, NULL) != IRCG_OK || ircg_solve(sv, NULL) != IRCG_OK)
        goto done;
    double g0 = 0; /* x_0 = 0: g(0) - g* = (1/2) ||bt||^2 */
    for (int i = 0; i < in->m; i++)
        g0 += 0.5 * in->bt[i] * in->bt[i];
    out->g_T = tr.g[T];
    out->f_T = tr.f[T] - in->f_opt;
    fit_points(&tr, in->f_opt, T, out);
    if (in->kappa > 0) {
        out->W = theorem_W(in, p, vs, g0);
        double s1 = vs * pow(2.0, -p); /* h_1 = sigma_1 f_1 + g_1 */
        if (check_sc)
            out->H = theorem_H(in, p, vs, out->W, s1 * (tr.f[1] - in->f_opt) + tr.g[1], T);
        check_all(in, &tr, check_sc, out);
    } else {
        out->W = NAN;
    }
    rc = 0;
done:
    ircg_solver_free(sv);
    ircg_problem_free(pb);
    free(tr.g);
    free(tr.f);
    return rc;
}
