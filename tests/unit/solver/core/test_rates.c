/*
 * test_rates.c -- the rate theorem of Section 2 (theorem "a convergence rate
 * for PCG-BiO"): with sigma_t = varsigma (t+1)^(-p) and any of the three step
 * rules, for every t >= 1
 *
 *   f(z_t) - f_opt <= 2 (vs L_f + L_g) D^2 / (vs (t+1)^(1-p))
 *   g(z_t) - g_opt <= [vs (1+2p)(f_opt - min_X f) + 2 (vs L_f + L_g) D^2]
 *                     / ((min{1, 2(1-p)} / min{1+2p, 2}) (t+1)^p)
 *
 * and the inequalities its proof chains together, each with its explicit
 * constants (see bound_ctx), numbered as in the paper: the per-step second
 * inequality of Lemma 2.1, Corollary 2.2's weighted sum (as stated and in
 * the proof's sharper form), its weighted sum of f(x_i), the averaging
 * step and its bound on f(z_t) with S_t, Lemma 2.4 (the last iterate) and
 * Lemma 2.6 (two upper bounds).  The theorem alone is loose
 * (largest g-gap / bound 0.07, f 0.002), so it passes when z_t is replaced
 * by x_t or sigma_t is held constant; the intermediate steps do not: ineq2
 * reaches 0.99 of its bound, the weighted sum 0.47, Lemma 2.4 (last iterate) 0.27,
 * and the averaging step is an equality up to convexity (z_t := x_t breaks
 * it wherever f(x_t) grows, as it does from x_0 = 0 on the least-norm and
 * box instances; constant sigma breaks ineq2, the weighted sums and
 * Lemma 2.4 (last iterate) as well).
 *
 * All checked at every iteration through the callback, on instances whose
 * f_opt, g_opt and min_X f are known in closed form (derived in comments and
 * computed here, independently of the library), for p = 0.25, 0.5, 0.75,
 * varsigma = 0.05 and 1, and all three step rules.  L_f, L_g and D come from
 * ircg_problem_get_info and are checked against independent values first.
 */
/* make test-kernels: ls_rates. */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "test_num.h"

enum { MAXM = 30, MAXN = 80, T_ITER = 3000 };

typedef struct rinst {
    const char *name;
    int m, n;
    double A[MAXM * MAXN], b[MAXM], c[MAXN];
    ircg_outer_kind outer;
    ircg_domain dom;
    double f_opt, g_opt, f_min; /* f_min = min_X f */
    double L_f, L_g, D;         /* independent values */
    double f_tol;  /* |f(z_T) - f_opt| <= f_tol (1 + |f_opt|) at T = 3000 */
} rinst;

static double svd_norm2_sq(const double *A, int m, int n)
{
    double C[MAXM * MAXN], s[MAXN], sup[MAXN];
    memcpy(C, A, (size_t)m * n * sizeof *C);
    if (LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', m, n, C, n, s, NULL, 1, NULL, 1,
                       sup) != 0)
        return NAN;
    return s[0] * s[0];
}

/* Least norm: A 30 x 80 full row rank, f = 1/2||x||^2, X a ball containing
 * x+ = A^+ b (dgelsd): X_opt = {Ax = b} n X, so g_opt = 0,
 * f_opt = 1/2 ||x+||^2 (x+ is the least-norm point of {Ax = b} and lies
 * in X), min_X f = 0. */
static int make_leastnorm(rinst *R, int l1)
{
    uint64_t s = 99;
    double Ac[MAXM * MAXN], bx[MAXN] = {0}, sv[MAXM], n2 = 0, n1 = 0;
    lapack_int rank;
    R->name = l1 ? "least-norm, l1 ball" : "least-norm, l2 ball";
    R->m = 30;
    R->n = 80;
    for (int i = 0; i < R->m * R->n; i++)
        R->A[i] = test_urand(&s);
    for (int i = 0; i < R->m; i++)
        bx[i] = R->b[i] = 2 * test_urand(&s);
    memcpy(Ac, R->A, sizeof Ac);
    if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, R->m, R->n, 1, Ac, R->n, bx, 1, sv, -1.0,
                       &rank) != 0 || rank != R->m)
        return 0;
    for (int j = 0; j < R->n; j++) {
        n2 += bx[j] * bx[j];
        n1 += fabs(bx[j]);
    }
    R->outer = IRCG_OUTER_HALF_NORM_SQ;
    R->dom = l1 ? (ircg_domain){IRCG_DOMAIN_L1_BALL, 1.5 * n1, 0, 0}
                : (ircg_domain){IRCG_DOMAIN_L2_BALL, 1.5 * sqrt(n2), 0, 0};
    R->g_opt = 0;
    R->f_opt = 0.5 * n2;
    R->f_min = 0;
    R->L_f = 1;
    R->L_g = svd_norm2_sq(R->A, R->m, R->n);
    R->D = 2 * R->dom.radius;
    R->f_tol = l1 ? 0.6 : 0.02;
    return 1;
}

/* A ball that cuts the inner solution set: A = s W with W (k x n) having
 * orthonormal rows (Gram-Schmidt here), ||b|| > s r.  For ||x|| <= r,
 * ||A x - b|| >= ||b|| - s ||W x|| >= ||b|| - s r, with equality only at
 * x* = r W'b/||b||: X_opt = {x*}, g_opt = 1/2 (||b|| - s r)^2,
 * f_opt = f(x*) = 1/2 r^2, min_X f = 0.  L_g = s^2. */
static int make_ballcut(rinst *R)
{
    uint64_t sd = 7;
    const int k = 10, n = 25;
    const double sc = 2.0, r = 1.5;
    double nb = 0;
    R->name = "l2 ball cutting the inner solutions";
    R->m = k;
    R->n = n;
    for (int i = 0; i < k; i++) {
        double *w = R->A + i * n, nw = 0;
        for (int j = 0; j < n; j++)
            w[j] = test_urand(&sd);
        for (int p = 0; p < i; p++) { /* modified Gram-Schmidt */
            double *u = R->A + p * n, d = 0;
            for (int j = 0; j < n; j++)
                d += u[j] * w[j];
            for (int j = 0; j < n; j++)
                w[j] -= d * u[j];
        }
        for (int j = 0; j < n; j++)
            nw += w[j] * w[j];
        for (int j = 0; j < n; j++)
            w[j] /= sqrt(nw);
    }
    for (int i = 0; i < k * n; i++)
        R->A[i] *= sc;
    for (int i = 0; i < k; i++) {
        R->b[i] = 3 * test_urand(&sd);
        nb += R->b[i] * R->b[i];
    }
    nb = sqrt(nb);
    if (!(nb > sc * r))
        return 0;
    R->outer = IRCG_OUTER_HALF_NORM_SQ;
    R->dom = (ircg_domain){IRCG_DOMAIN_L2_BALL, r, 0, 0};
    R->g_opt = 0.5 * (nb - sc * r) * (nb - sc * r);
    R->f_opt = 0.5 * r * r;
    R->f_min = 0;
    R->L_f = 1;
    R->L_g = sc * sc;
    R->D = 2 * r;
    R->f_tol = 0.01;
    return 1;
}

static double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* A separable box instance with a non-unique inner solution set:
 * A = [diag(d) 0] (k x n), X = [lo, hi]^n, f = 1/2||x - c||^2.
 * g is minimized by x_i = clamp(b_i/d_i) for i < k, the rest free:
 * g_opt = 1/2 sum_{i<k} (d_i clamp(b_i/d_i) - b_i)^2 > 0 when some b_i/d_i
 * is outside; f_opt = 1/2 sum_{i<k} (clamp(b_i/d_i) - c_i)^2
 * + 1/2 sum_{i>=k} dist(c_i, [lo, hi])^2; min_X f = 1/2 sum_i
 * dist(c_i, [lo, hi])^2; L_g = max d_i^2; D = (hi - lo) sqrt(n). */
static int make_box(rinst *R)
{
    uint64_t s = 13;
    const int k = 8, n = 14;
    const double lo = -1, hi = 1;
    R->name = "box, separable, non-unique inner solutions";
    R->m = k;
    R->n = n;
    memset(R->A, 0, sizeof R->A);
    R->g_opt = R->f_opt = R->f_min = 0;
    R->L_g = 0;
    for (int j = 0; j < n; j++) {
        R->c[j] = 2 * test_urand(&s);
        double dc = R->c[j] - clampd(R->c[j], lo, hi);
        R->f_min += 0.5 * dc * dc;
        if (j >= k)
            R->f_opt += 0.5 * dc * dc;
    }
    for (int i = 0; i < k; i++) {
        double d = 1.25 + 0.75 * test_urand(&s), xi;
        R->A[i * n + i] = d;
        R->b[i] = 2.5 * test_urand(&s);
        xi = clampd(R->b[i] / d, lo, hi);
        R->g_opt += 0.5 * (d * xi - R->b[i]) * (d * xi - R->b[i]);
        R->f_opt += 0.5 * (xi - R->c[i]) * (xi - R->c[i]);
        R->L_g = fmax(R->L_g, d * d);
    }
    R->outer = IRCG_OUTER_DIST_SQ;
    R->dom = (ircg_domain){IRCG_DOMAIN_BOX, 0, lo, hi};
    R->L_f = 1;
    R->D = (hi - lo) * sqrt((double)n);
    R->f_tol = 0.05;
    return R->g_opt > 0.1;
}

/* The intermediate inequalities of the proof, with the test's own
 * sigma_t = vs (t+1)^-p, weights w_i = (i+1) i (sigma_{i-1} - sigma_i) and
 * S_t = (t+1) t sigma_t + sum_{i<=t} w_i (eq. S):
 *  R    per step (Lemma 2.1's second inequality), h_t = Phi_t(x_t) - Phi_t(x*):
 *       Phi_t(x_{t+1}) - Phi_t(x*) <= (1 - 2/(t+2)) h_t
 *                                     + 2 (L_f sigma_t + L_g) D^2 / (t+2)^2
 *  WS   Corollary 2.2's weighted sum in the proof's sharper form
 *       (t+1) t h_t + SF_t <= sum_{i<=t} 2 (L_f sigma_{i-1} + L_g) D^2 i/(i+1)
 *       with SF_t = sum_{i<=t} w_i (f(x_i) - f_opt), and as stated
 *       (right side 2 (L_f sigma_0 + L_g) D^2 t)
 *  WSF  Corollary 2.2's weighted sum of f(x_i):
 *       (t+1) t sigma_t (f(x_t) - f_opt) + SF_t <= idem
 *  JF   the convexity step to Corollary 2.2's bound on f(z_t): z_t is the
 *       w-average of the x_i,
 *       S_t (f(z_t) - f_opt) <= (t+1) t sigma_t (f(x_t) - f_opt) + SF_t
 *  FZ   Corollary 2.2's bound on f(z_t):
 *       f(z_t) - f_opt <= 2 (L_f sigma_0 + L_g) D^2 t / S_t,
 *       and Lemma 2.6 (two upper bounds): <= 2 (L_f sigma_0 + L_g) D^2/((t+1) sigma_t)
 *  GX   Lemma 2.4 (last iterate) with its constant at t,
 *       g(x_t) - g_opt <= C_t sigma_t, C_t = 2 (L_f sigma_0 + L_g) D^2 /
 *       ((t+1) sigma_t) + F (1 + W_t / ((t+1) t sigma_t)), F = f_opt - min f
 *  JG   S_t (g(z_t) - g_opt) <= (t+1) t sigma_t (g(x_t) - g_opt) + SG_t
 *  GZ   Lemma 2.6 (two upper bounds): g(z_t) - g_opt <= C (1 + V_t) sigma_t with
 *       C = max_{i<=t} C_i and V_t = sum w_i sigma_i / ((t+1) t sigma_t^2).
 * ratio[] keeps max lhs / rhs of each (1 = tight). */
enum { CK_R, CK_WS, CK_WS0, CK_WSF, CK_JF, CK_FZ, CK_FZ2, CK_GX, CK_JG, CK_GZ,
       CK_THF, CK_THG, CK_N };
static const char *const CK_NAME[CK_N] = {
    "ineq2", "weighted-sum (proof)", "weighted sum (Cor 2.2)", "f sum (Cor 2.2)",
    "Jensen f(z)", "f(z) bound (Cor 2.2)", "twoupperbounds f", "lastiterate g(x)",
    "Jensen g(z)", "twoupperbounds g", "theorem f", "theorem g"};

typedef struct bound_ctx {
    const rinst *R;
    double vs, p, L_f, L_g, D;
    double ratio[CK_N];       /* max over t of lhs / rhs */
    int violations[CK_N];
    int64_t first_bad[CK_N];
    int below_gopt;
    double last_f, last_g;    /* f(z_T) - f_opt, g(z_T) - g_opt */
    /* running sums over i <= t */
    double W, SF, SG, SWs, Rsum, Cmax;
    double vmax;              /* largest |f|, |g| seen at x_i, z_i */
    double prev_fx, prev_gx;  /* f, g at x_{t-1} */
} bound_ctx;

static double sigma_of(const bound_ctx *b, int64_t t)
{
    return b->vs * pow((double)(t + 1), -b->p);
}

/* lhs <= rhs up to rounding: size is the magnitude of the terms summed
 * (values near size carry errors of a few ulps of it).  The ratio is only
 * kept where rhs is well above that rounding. */
static void check(bound_ctx *b, int k, int64_t t, double lhs, double rhs, double size)
{
    double slack = 1e-11 * size;
    if (!(lhs <= rhs + slack)) {
        if (!b->violations[k])
            b->first_bad[k] = t;
        b->violations[k]++;
    }
    if (rhs > 1e3 * slack)
        b->ratio[k] = fmax(b->ratio[k], lhs / rhs);
}

static int check_bounds(void *user, const ircg_iter_info *it)
{
    bound_ctx *b = user;
    const rinst *R = b->R;
    const int64_t t = it->t;
    const double t1 = (double)(t + 1), tt = t1 * (double)t;
    const double st = sigma_of(b, t), sp = sigma_of(b, t - 1), s0 = sigma_of(b, 0);
    const double D2 = b->D * b->D, K0 = b->L_f * s0 + b->L_g;
    const double F = R->f_opt - R->f_min;
    const double dfx = it->f_x - R->f_opt, dgx = it->g_x - R->g_opt;
    const double dfz = it->f_z - R->f_opt, dgz = it->g_z - R->g_opt;

    if (t < 1)
        return 0;
    /* the size of the values seen so far, for the rounding slack */
    b->vmax = fmax(b->vmax, fmax(fmax(fabs(it->f_x), fabs(it->g_x)),
                                 fmax(fabs(it->f_z), fabs(it->g_z))));
    const double A = 1 + fabs(R->f_opt) + fabs(R->g_opt) + b->vmax;
    /* ineq2 for step t-1 -> t: Phi_{t-1} at x_t against h_{t-1} */
    if (!isnan(b->prev_fx)) {
        double lhs = sp * dfx + dgx;
        double h = sp * (b->prev_fx - R->f_opt) + (b->prev_gx - R->g_opt);
        double rhs = (1 - 2.0 / (double)(t + 1)) * h +
                     2 * (b->L_f * sp + b->L_g) * D2 / (t1 * t1);
        check(b, CK_R, t, lhs, rhs, (1 + sp) * A);
    }
    double w = tt * (sp - st);
    b->W += w;
    b->SF += w * dfx;
    b->SG += w * dgx;
    b->SWs += w * st;
    b->Rsum += 2 * (b->L_f * sp + b->L_g) * D2 * (double)t / t1;
    double S = tt * st + b->W, ht = st * dfx + dgx;
    double sum_size = (tt * (1 + st) + b->W) * A, avg_size = (S + tt * st + b->W) * A;
    check(b, CK_WS, t, tt * ht + b->SF, b->Rsum, sum_size);
    check(b, CK_WS0, t, tt * ht + b->SF, 2 * K0 * D2 * (double)t, sum_size);
    check(b, CK_WSF, t, tt * st * dfx + b->SF, 2 * K0 * D2 * (double)t, sum_size);
    check(b, CK_JF, t, S * dfz, tt * st * dfx + b->SF, avg_size);
    check(b, CK_FZ, t, dfz, 2 * K0 * D2 * (double)t / S, A);
    check(b, CK_FZ2, t, dfz, 2 * K0 * D2 / (t1 * st), A);
    double Ct = 2 * K0 * D2 / (t1 * st) + F * (1 + b->W / (tt * st));
    b->Cmax = fmax(b->Cmax, Ct);
    check(b, CK_GX, t, dgx, Ct * st, A);
    check(b, CK_JG, t, S * dgz, tt * st * dgx + b->SG, avg_size);
    check(b, CK_GZ, t, dgz, b->Cmax * (1 + b->SWs / (tt * st * st)) * st, A);
    /* the theorem itself */
    double K = b->vs * b->L_f + b->L_g;
    double bf = 2 * K * D2 / (b->vs * pow(t1, 1 - b->p));
    double cst = fmin(1, 2 * (1 - b->p)) / fmin(1 + 2 * b->p, 2);
    double bg = (b->vs * (1 + 2 * b->p) * F + 2 * K * D2) / (cst * pow(t1, b->p));
    check(b, CK_THF, t, dfz, bf, A);
    check(b, CK_THG, t, dgz, bg, A);
    if (dgz < -1e-9 * (1 + R->g_opt)) /* z_t in X: g(z_t) >= g_opt */
        b->below_gopt++;
    b->prev_fx = it->f_x;
    b->prev_gx = it->g_x;
    b->last_f = dfz;
    b->last_g = dgz;
    return 0;
}

static void check_instance(const rinst *R)
{
    ircg_ls_data d = {.m = R->m, .n = R->n, .A_dense = R->A, .b = R->b};
    ircg_outer o = {R->outer, R->c, NULL, NULL, NULL};
    ircg_problem *pb = NULL;
    ircg_problem_info in;
    REQUIRE(ircg_problem_least_squares(&d, &o, &R->dom, &pb, NULL) == IRCG_OK);
    ircg_problem_get_info(pb, &in);
    CHECK_REL(in.L_g, R->L_g, 1e-12, 0);
    CHECK_REL(in.L_f, R->L_f, 0, 0);
    CHECK_REL(in.diameter, R->D, 1e-15, 0);
    const double ps[3] = {0.25, 0.5, 0.75}, vss[2] = {0.05, 1.0};
    double worst[CK_N];
    for (int k = 0; k < CK_N; k++)
        worst[k] = -INFINITY;
    for (int pi = 0; pi < 3; pi++)
        for (int vi = 0; vi < 2; vi++)
            for (int r = 0; r < 3; r++) {
                bound_ctx b = {.R = R, .vs = vss[vi], .p = ps[pi], .L_f = in.L_f,
                               .L_g = in.L_g, .D = in.diameter, .prev_fx = NAN,
                               .prev_gx = NAN, .last_f = NAN, .last_g = NAN};
                ircg_settings s;
                ircg_solver *sv = NULL;
                ircg_info info;
                for (int k = 0; k < CK_N; k++)
                    b.ratio[k] = -INFINITY;
                ircg_settings_default(&s);
                s.step_rule = (ircg_step_rule)r;
                s.p = b.p;
                s.varsigma = b.vs;
                s.max_iter = T_ITER;
                s.callback = check_bounds;
                s.callback_data = &b;
                REQUIRE(ircg_solver_new(pb, &s, &sv, NULL) == IRCG_OK);
                CHECK_INT(ircg_solve(sv, &info), IRCG_OK);
                CHECK_INT(info.iterations, T_ITER);
                for (int k = 0; k < CK_N; k++) {
                    worst[k] = fmax(worst[k], b.ratio[k]);
                    if (b.violations[k])
                        th_fail(__FILE__, __LINE__,
                                "%s, p %.2f, varsigma %.2f, rule %d: %s violated %d "
                                "times (first at t = %lld), largest lhs/rhs %.4g",
                                R->name, b.p, b.vs, r, CK_NAME[k], b.violations[k],
                                (long long)b.first_bad[k], b.ratio[k]);
                }
                if (b.below_gopt)
                    th_fail(__FILE__, __LINE__, "%s, p %.2f, varsigma %.2f, rule %d: "
                            "g(z_t) < g_opt %d times", R->name, b.p, b.vs, r,
                            b.below_gopt);
                /* The closed-form optima are right (not merely large enough
                 * for the bounds to hold): with p = 1/2 and varsigma = 1
                 * both gaps of z_T get small.  Measured after 3000
                 * iterations, relative to 1 + |f_opt|: f gap 1e-4 (ball
                 * cut), 3.3e-3 (least norm, l2), 0.013 (box), 0.23 (least
                 * norm, l1: slow zigzag); g gap <= 5.3e-3.  The tolerances
                 * allow 2.5x to 6x that. */
                if (pi == 1 && vi == 1) {
                    CHECK(fabs(b.last_f) <= R->f_tol * (1 + fabs(R->f_opt)));
                    CHECK(b.last_g <= 2e-2 * (1 + R->g_opt));
                    if (th_failed())
                        th_fail(__FILE__, __LINE__, "%s rule %d: final gaps f %.3g g %.3g",
                                R->name, r, b.last_f, b.last_g);
                }
                ircg_solver_free(sv);
            }
    printf("    %s, largest lhs/rhs:", R->name);
    for (int k = 0; k < CK_N; k++)
        printf("%s %s %.3g", k % 4 ? "," : "\n     ", CK_NAME[k], worst[k]);
    printf("\n");
    ircg_problem_free(pb);
}

TEST(ls_rates, theorem_least_norm_l2_ball)
{
    static rinst R;
    REQUIRE(make_leastnorm(&R, 0));
    check_instance(&R);
}

TEST(ls_rates, theorem_least_norm_l1_ball)
{
    static rinst R;
    REQUIRE(make_leastnorm(&R, 1));
    check_instance(&R);
}

TEST(ls_rates, theorem_ball_cutting_solutions)
{
    static rinst R;
    REQUIRE(make_ballcut(&R));
    check_instance(&R);
}

TEST(ls_rates, theorem_box_nonunique_inner_solutions)
{
    static rinst R;
    REQUIRE(make_box(&R));
    check_instance(&R);
}
