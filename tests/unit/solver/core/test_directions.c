/*
 * test_directions.c -- IR-CG's away-step and pairwise directions
 * (settings.direction, problems/faces.h) against closed forms:
 *
 *  - least squares whose bilevel solution is known by its KKT conditions:
 *    with g = 1/2 ||A x - b||^2, b = A x*, the inner solution set is
 *    {A x = b} n X, and x* is the outer objective's minimizer there when
 *    x* = max(A'l + mu, 0) (simplex, f = 1/2 ||x||^2, radius sum x*),
 *    x* = soft(A'l, theta) (l1 ball of radius ||x*||_1, f = 1/2 ||x||^2),
 *    x* = clip(c + A'l, lower, upper) (box, f = 1/2 ||x - c||^2), for any
 *    l, mu, theta >= 0: stationarity with the multipliers of the bounds;
 *  - the over-parameterized regression of tests/study/overparam.h (its
 *    closed form by LAPACK);
 *  - logistic regression with duplicated features A = [B B] (the inner
 *    solutions {x_a + x_b = w}, f selecting (w, w) / 2; w by Newton's
 *    method), on the l1 ball and the box;
 * every certificate bracketing g* and f* (test_cert.h); iterates in X at
 * every step; the Frank-Wolfe gap reported whatever the direction; a
 * checkpoint resuming bit for bit; and each combination the directions do
 * not apply to refused at "/direction".
 */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "study/overparam.h"
#include "test_cert.h"
#include "test_num.h"

enum { M = 10, N = 30 };

static const char *const DIR_NAME[] = {"Frank-Wolfe", "away", "pairwise"};
static const char *const DOM_NAME[] = {"nuclear", "l2", "l1", "simplex", "box"};

/* ------------------------------------------------ the closed forms -- */

typedef struct cf {
    double A[M * N], b[M], c[N], xs[N], f_star;
    ircg_domain dom;
    ircg_problem *pb;
} cf;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double t[N];
    memcpy(t, v, (size_t)n * sizeof *t);
    qsort(t, (size_t)n, sizeof *t, cmp);
    return t[n / 2];
}

/* The instance over kind (simplex, l1 ball, box) and its solution. */
static void make_cf(cf *P, ircg_domain_kind kind, uint64_t s)
{
    double w[N], l[M], a[N];
    memset(P, 0, sizeof *P);
    for (int i = 0; i < M * N; i++)
        P->A[i] = test_urand(&s);
    for (int i = 0; i < M; i++)
        l[i] = 0.3 * test_urand(&s);
    for (int j = 0; j < N; j++) {
        w[j] = 0;
        for (int i = 0; i < M; i++)
            w[j] += P->A[i * N + j] * l[i];
        a[j] = fabs(w[j]);
        P->c[j] = 0.6 * test_urand(&s);
    }
    double mu = -median(w, N), theta = median(a, N), r = 0;
    for (int j = 0; j < N; j++) {
        if (kind == IRCG_DOMAIN_SIMPLEX)
            P->xs[j] = fmax(w[j] + mu, 0);
        else if (kind == IRCG_DOMAIN_L1_BALL)
            P->xs[j] = copysign(fmax(fabs(w[j]) - theta, 0), w[j]);
        else
            P->xs[j] = fmin(fmax(P->c[j] + w[j], -0.5), 0.5);
        r += fabs(P->xs[j]);
        double e = kind == IRCG_DOMAIN_BOX ? P->xs[j] - P->c[j] : P->xs[j];
        P->f_star += 0.5 * e * e;
    }
    for (int i = 0; i < M; i++)
        P->b[i] = test_dot(P->A + i * N, P->xs, N);
    P->dom = kind == IRCG_DOMAIN_BOX ? (ircg_domain){kind, 0, -0.5, 0.5}
                                     : (ircg_domain){kind, r, 0, 0};
    ircg_ls_data d = {.m = M, .n = N, .A_dense = P->A, .b = P->b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    if (kind == IRCG_DOMAIN_BOX)
        o = (ircg_outer){.kind = IRCG_OUTER_DIST_SQ, .c = P->c};
    if (ircg_problem_least_squares(&d, &o, &P->dom, &P->pb, NULL) != IRCG_OK)
        P->pb = NULL;
}

static void settings(ircg_settings *s, ircg_direction dir, ircg_step_rule rule, int64_t T)
{
    ircg_settings_default(s);
    s->direction = dir;
    s->step_rule = rule;
    s->max_iter = T;
}

/* One run of the closed form; its info, ||x_T - x*||_inf, g of x and z. */
static int run_cf(const cf *P, ircg_direction dir, ircg_step_rule rule, int64_t T,
                  ircg_info *info, double *dist, double *gx, double *gz)
{
    cert_data cd = {.A = P->A, .b = P->b, .m = M, .n = N};
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_iterate *it = NULL;
    settings(&s, dir, rule, T);
    /* the sigma these tolerances were measured with, the examples' own
     * (`ircg example` states varsigma_rel 0.05): the default's 0.01 leaves
     * f's bias, ~1 / (sigma t^(1-p)), five times larger after T steps, and
     * the comparison with Frank-Wolfe is of directions, not of sigmas */
    s.varsigma_rel = 0.05;
    if (ircg_solver_new(P->pb, &s, &sv, NULL) != IRCG_OK || ircg_solve(sv, info) != IRCG_OK ||
        ircg_solver_iterate(sv, IRCG_X, 1, &it) != IRCG_OK) {
        ircg_solver_free(sv);
        return 0;
    }
    *dist = 0;
    for (int j = 0; j < N; j++)
        *dist = fmax(*dist, fabs(it->dense[j] - P->xs[j]));
    ircg_iterate_free(it);
    cert_iterates_g(sv, &cd, gx, gz);
    ircg_solver_free(sv);
    return 1;
}

/* On all three polytopes, with both adaptive step rules: the away and
 * pairwise runs get to x* and their certificates bracket g* = 0 and f*.
 * Frank-Wolfe's runs, printed beside them, are what they are compared
 * with: on these instances (a face of X at x*) the other two end nearer. */
TEST(directions, closed_forms_on_every_polytope)
{
    static const ircg_domain_kind K[] = {IRCG_DOMAIN_SIMPLEX, IRCG_DOMAIN_L1_BALL,
                                         IRCG_DOMAIN_BOX};
    enum { T = 20000 };
    static cf P;
    for (int k = 0; k < 3; k++) {
        make_cf(&P, K[k], 17 + (uint64_t)k);
        REQUIRE(P.pb != NULL);
        int zeros = 0;
        for (int j = 0; j < N; j++)
            zeros += K[k] == IRCG_DOMAIN_BOX ? fabs(P.xs[j]) == 0.5 : P.xs[j] == 0;
        printf("    %s: x* has %d of %d coordinates on the boundary, f* %.6g\n",
               DOM_NAME[K[k]], zeros, N, P.f_star);
        for (int rule = IRCG_STEP_CLOSED_LOOP; rule <= IRCG_STEP_LINE_SEARCH; rule++) {
            double fw_dist = NAN;
            for (int dir = 0; dir < 3; dir++) {
                ircg_info in;
                double dist, gx, gz;
                REQUIRE(run_cf(&P, (ircg_direction)dir, (ircg_step_rule)rule, T, &in, &dist,
                               &gx, &gz));
                printf("    %s, %s steps, %s: g(x_T) %.2e, f(x_T) - f* %+.2e, "
                       "||x_T - x*||_inf %.2e\n", DOM_NAME[K[k]],
                       rule == IRCG_STEP_LINE_SEARCH ? "line-search" : "closed-loop",
                       DIR_NAME[dir], gx, in.f_x - P.f_star, dist);
                check_cert_brackets(DIR_NAME[dir], &in, gx, gz, 0, P.f_star, 1e-10);
                if (dir == IRCG_DIR_FRANK_WOLFE) {
                    fw_dist = dist;
                    continue;
                }
                /* measured: ||x_T - x*|| <= 3.9e-3 with the line search, 4.4e-2
                 * with the closed loop's short steps (Frank-Wolfe: 3.5e-2 to 0.24);
                 * |f - f*| <= 7.1e-3 f*, f below f* by sigma_T's bias (x_T not
                 * yet inner-feasible, g 1.3e-5) where Frank-Wolfe ends above */
                CHECK_MEASURED("||x_T - x*||_inf", dist,
                               rule == IRCG_STEP_LINE_SEARCH ? 0.01 : 0.1);
                CHECK_MEASURED("|f(x_T) - f*| / f*", fabs(in.f_x - P.f_star) / P.f_star, 0.02);
                CHECK(dist < fw_dist / 2);
            }
        }
        ircg_problem_free(P.pb);
    }
}

/* The over-parameterized regression (tests/study/overparam.h): l1 ball,
 * validation loss; the closed form by LAPACK. */
TEST(directions, overparam_closed_form)
{
    op_inst P;
    REQUIRE(op_make(&P, 10, 30, 40, 0.1, 7, IRCG_DOMAIN_L1_BALL, 1.0));
    cert_data cd = {.A = P.A, .b = P.b, .m = P.m, .n = P.n};
    double spread = P.f_pinv - P.f_opt;
    for (int dir = 0; dir < 3; dir++) {
        ircg_settings s;
        ircg_solver *sv = NULL;
        ircg_info in;
        double gx, gz;
        settings(&s, (ircg_direction)dir, IRCG_STEP_LINE_SEARCH, 10000);
        s.varsigma = 1;
        REQUIRE(ircg_solver_new(P.pb, &s, &sv, NULL) == IRCG_OK);
        REQUIRE(ircg_solve(sv, &in) == IRCG_OK);
        cert_iterates_g(sv, &cd, &gx, &gz);
        printf("    %s: g(z_T) %.3g, f(z_T) - f* %.3g (f* %.4g, f(A^+ b) - f* %.4g)\n",
               DIR_NAME[dir], in.g_z, in.f_z - P.f_opt, P.f_opt, spread);
        check_cert_brackets(DIR_NAME[dir], &in, gx, gz, 0, P.f_opt, 1e-10);
        CHECK_MEASURED("g(z_T)", in.g_z, 2e-2);
        CHECK_MEASURED("|f(z_T) - f*| / spread", fabs(in.f_z - P.f_opt) / spread, 0.1);
        ircg_solver_free(sv);
    }
    op_free(&P);
}

/* --------------------------------------------- logistic regression -- */

enum { LM = 60, LK = 4 };

static double loss(double s) { return s > 0 ? log1p(exp(-s)) : -s + log1p(exp(s)); }
static double sig(double s) { return 1 / (1 + exp(-s)); }

/* Noisy labels of a linear model (not separable). */
static void lr_data(double *B, double *y, uint64_t s)
{
    double w[LK];
    for (int j = 0; j < LK; j++)
        w[j] = test_urand(&s);
    for (int i = 0; i < LM; i++) {
        double z = 0;
        for (int j = 0; j < LK; j++)
            z += (B[i * LK + j] = test_urand(&s)) * w[j];
        y[i] = z + 0.6 * test_urand(&s) > 0 ? 1 : -1;
    }
}

/* The unconstrained minimizer w of sum_i l(y_i b_i'w), by Newton's method
 * with halving; its g. */
static double lr_newton(const double *B, const double *y, double *w)
{
    double g = 0;
    memset(w, 0, LK * sizeof *w);
    for (int it = 0; it < 100; it++) {
        double gr[LK] = {0}, H[LK * LK] = {0}, dw[LK], gn = 0;
        g = 0;
        for (int i = 0; i < LM; i++) {
            double z = test_dot(B + i * LK, w, LK), p = sig(z) * sig(-z);
            g += loss(y[i] * z);
            for (int a = 0; a < LK; a++) {
                gr[a] -= y[i] * sig(-y[i] * z) * B[i * LK + a];
                for (int b = 0; b < LK; b++)
                    H[a * LK + b] += p * B[i * LK + a] * B[i * LK + b];
            }
        }
        for (int j = 0; j < LK; j++)
            gn += gr[j] * gr[j], dw[j] = -gr[j];
        if (sqrt(gn) < 1e-13 * (1 + g) ||
            LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', LK, 1, H, LK, dw, 1) != 0)
            break;
        for (double t = 1; t >= 1e-8; t /= 2) {
            double wn[LK], gt = 0;
            for (int j = 0; j < LK; j++)
                wn[j] = w[j] + t * dw[j];
            for (int i = 0; i < LM; i++)
                gt += loss(y[i] * test_dot(B + i * LK, wn, LK));
            if (gt <= g) {
                memcpy(w, wn, sizeof wn);
                break;
            }
        }
    }
    return g;
}

/* A = [B B]: the inner solutions {x_a + x_b = w}; f = 1/2 ||x||^2 selects
 * (w, w) / 2, f* = ||w||^2 / 4, inside the l1 ball of radius 2 ||w||_1
 * and the box [-max |w|, max |w|]. */
TEST(directions, logistic_duplicated_features)
{
    static double B[LM * LK], y[LM], A[LM * 2 * LK];
    double w[LK], nw = 0, wmax = 0, w1 = 0;
    lr_data(B, y, 21);
    for (int i = 0; i < LM; i++)
        for (int j = 0; j < LK; j++)
            A[i * 2 * LK + j] = A[i * 2 * LK + LK + j] = B[i * LK + j];
    double g_star = lr_newton(B, y, w);
    for (int j = 0; j < LK; j++) {
        nw += w[j] * w[j];
        wmax = fmax(wmax, fabs(w[j]));
        w1 += fabs(w[j]);
    }
    double f_star = nw / 4;
    const ircg_domain doms[2] = {{IRCG_DOMAIN_L1_BALL, 2 * w1, 0, 0},
                                 {IRCG_DOMAIN_BOX, 0, -wmax, wmax}};
    ircg_ls_data d = {.m = LM, .n = 2 * LK, .A_dense = A, .b = y};
    cert_data cd = {.A = A, .b = y, .m = LM, .n = 2 * LK, .logistic = 1};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    for (int k = 0; k < 2; k++) {
        ircg_problem *pb = NULL;
        REQUIRE(ircg_problem_logistic(&d, &o, &doms[k], &pb, NULL) == IRCG_OK);
        for (int rule = IRCG_STEP_CLOSED_LOOP; rule <= IRCG_STEP_LINE_SEARCH; rule++)
            for (int dir = 1; dir < 3; dir++) {
                ircg_settings s;
                ircg_solver *sv = NULL;
                ircg_info in;
                double gx, gz;
                settings(&s, (ircg_direction)dir, (ircg_step_rule)rule, 3000);
                s.varsigma = 1;
                s.g_opt = g_star;
                REQUIRE(ircg_solver_new(pb, &s, &sv, NULL) == IRCG_OK);
                REQUIRE(ircg_solve(sv, &in) == IRCG_OK);
                cert_iterates_g(sv, &cd, &gx, &gz);
                printf("    %s, rule %d, %s: g(z) - g* %.3g, f(z) %.6g, f* %.6g\n",
                       DOM_NAME[doms[k].kind], rule, DIR_NAME[dir], gz - g_star, in.f_z,
                       f_star);
                CHECK_MEASURED("g(z) - g*", gz - g_star, 1e-2);
                CHECK_MEASURED("|f(z) - f*| / f*", fabs(in.f_z - f_star) / f_star, 0.1);
                check_cert_brackets(DIR_NAME[dir], &in, gx, gz, g_star, f_star, 1e-10);
                ircg_solver_free(sv);
            }
        ircg_problem_free(pb);
    }
}

/* ----------------------------------------------- steps in X, resume -- */

/* An instance of each family over each polytope: least squares with the
 * closed form's data (outer 1/2 ||x||^2), logistic regression with the
 * duplicated features' signs of it. */
static ircg_problem *instance(int logistic, const ircg_domain *dom, cf *P, double *y)
{
    ircg_problem *pb = NULL;
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    for (int i = 0; i < M; i++)
        y[i] = P->b[i] > 0 ? 1 : -1;
    ircg_ls_data d = {.m = M, .n = N, .A_dense = P->A, .b = logistic ? y : P->b};
    if ((logistic ? ircg_problem_logistic(&d, &o, dom, &pb, NULL)
                  : ircg_problem_least_squares(&d, &o, dom, &pb, NULL)) != IRCG_OK)
        return NULL;
    return pb;
}

typedef struct walk {
    const ircg_solver *sv;
    const ircg_domain *dom;
    int bad, n;
    double worst; /* the largest excess of a sum over r, in units of r */
} walk;

/* x_t and z_t in X after every iteration: the signs and bounds exactly
 * but z's on the box, the sums within rounding (recorded).  z_t is the
 * rounded combination cz z + co x + cn x' (ls_step_arrays), whose weights
 * sum to 1 only to rounding: a coordinate of x at a bound for many steps
 * puts z's there too, within an ulp or two on either side (seen with the
 * default varsigma_rel 0.01: z_i = 0.5 + 1.1e-16 on the box, logistic,
 * line search); that excess, over the bound's magnitude, is recorded with
 * the sums'. */
static int in_x(void *u, const ircg_iter_info *info)
{
    walk *w = u;
    (void)info;
    for (int k = 0; k < 2; k++) {
        ircg_iterate *it = NULL;
        if (ircg_solver_iterate(w->sv, k ? IRCG_Z : IRCG_X, 1, &it) != IRCG_OK) {
            w->bad++;
            return 1;
        }
        double sum = 0, abs_sum = 0;
        for (int j = 0; j < it->dim; j++) {
            double v = it->dense[j];
            sum += v;
            abs_sum += fabs(v);
            int box = w->dom->kind == IRCG_DOMAIN_BOX;
            double out = box ? fmax(w->dom->lower - v, v - w->dom->upper) : 0;
            if (box && k == 1 && out > 0) /* z's rounding (above) */
                w->worst = fmax(w->worst, out / fmax(fabs(w->dom->lower), fabs(w->dom->upper)));
            else if ((w->dom->kind == IRCG_DOMAIN_SIMPLEX && v < 0) || (box && out > 0))
                w->bad++;
        }
        if (w->dom->kind == IRCG_DOMAIN_SIMPLEX)
            w->worst = fmax(w->worst, fabs(sum - w->dom->radius) / w->dom->radius);
        if (w->dom->kind == IRCG_DOMAIN_L1_BALL)
            w->worst = fmax(w->worst, (abs_sum - w->dom->radius) / w->dom->radius);
        ircg_iterate_free(it);
    }
    w->n++;
    return 0;
}

TEST(directions, iterates_stay_in_the_polytope)
{
    static const ircg_domain_kind K[] = {IRCG_DOMAIN_SIMPLEX, IRCG_DOMAIN_L1_BALL,
                                         IRCG_DOMAIN_BOX};
    static cf P;
    double y[M], worst = 0;
    for (int k = 0; k < 3; k++) {
        make_cf(&P, K[k], 3 + (uint64_t)k);
        REQUIRE(P.pb != NULL);
        for (int fam = 0; fam < 2; fam++) {
            ircg_problem *pb = instance(fam, &P.dom, &P, y);
            REQUIRE(pb != NULL);
            for (int rule = IRCG_STEP_CLOSED_LOOP; rule <= IRCG_STEP_LINE_SEARCH; rule++)
                for (int dir = 1; dir < 3; dir++) {
                    ircg_settings s;
                    ircg_solver *sv = NULL;
                    walk w = {.dom = &P.dom};
                    settings(&s, (ircg_direction)dir, (ircg_step_rule)rule, 500);
                    s.callback = in_x;
                    s.callback_data = &w;
                    REQUIRE(ircg_solver_new(pb, &s, &sv, NULL) == IRCG_OK);
                    w.sv = sv;
                    REQUIRE(ircg_solve(sv, NULL) == IRCG_OK);
                    if (w.bad || w.n != 500)
                        th_fail(__FILE__, __LINE__, "%s, %s, rule %d, %s: %d iterates out "
                                "of X in %d", DOM_NAME[K[k]], fam ? "logistic" : "least "
                                "squares", rule, DIR_NAME[dir], w.bad, w.n);
                    worst = fmax(worst, w.worst);
                    ircg_solver_free(sv);
                }
            ircg_problem_free(pb);
        }
        ircg_problem_free(P.pb);
    }
    /* the sums drift by rounding, as Frank-Wolfe's do: a few ulps a step */
    CHECK_MEASURED("largest |sum x - r| / r (simplex), ||x||_1 / r - 1 (l1 ball), z's excess "
                   "over a bound / the bound (box)", worst,
                   1e-12);
}

/* The gap reported is the Frank-Wolfe gap whichever direction the step
 * takes: at x_0 (the same point for every direction) the same bits. */
TEST(directions, the_gap_reported_is_frank_wolfes)
{
    static const ircg_domain_kind K[] = {IRCG_DOMAIN_SIMPLEX, IRCG_DOMAIN_L1_BALL,
                                         IRCG_DOMAIN_BOX};
    static cf P;
    double y[M];
    for (int k = 0; k < 3; k++) {
        make_cf(&P, K[k], 9);
        for (int fam = 0; fam < 2; fam++) {
            ircg_problem *pb = instance(fam, &P.dom, &P, y);
            double gap[3];
            for (int dir = 0; dir < 3; dir++) {
                ircg_settings s;
                ircg_solver *sv = NULL;
                ircg_info in;
                settings(&s, (ircg_direction)dir, IRCG_STEP_LINE_SEARCH, 1);
                REQUIRE(ircg_solver_new(pb, &s, &sv, NULL) == IRCG_OK);
                REQUIRE(ircg_solve(sv, &in) == IRCG_OK);
                gap[dir] = in.gap;
                ircg_solver_free(sv);
            }
            CHECK(gap[0] > 0 && gap[1] == gap[0] && gap[2] == gap[0]);
            ircg_problem_free(pb);
        }
        ircg_problem_free(P.pb);
    }
}

enum { RT = 120, RHALF = 50 };

typedef struct rec {
    int n;
    double gx[RT], fx[RT], gz[RT], gap[RT], alpha[RT];
} rec;

static int record(void *u, const ircg_iter_info *it)
{
    rec *r = u;
    if (r->n < RT) {
        r->gx[r->n] = it->g_x, r->fx[r->n] = it->f_x, r->gz[r->n] = it->g_z;
        r->gap[r->n] = it->gap, r->alpha[r->n] = it->alpha;
        r->n++;
    }
    return 0;
}

/* The dense x or z of a solver (n doubles into out). */
static void dense(const ircg_solver *sv, ircg_which w, double *out)
{
    ircg_iterate *it = NULL;
    memset(out, 0, N * sizeof *out);
    if (ircg_solver_iterate(sv, w, 1, &it) == IRCG_OK)
        memcpy(out, it->dense, N * sizeof *out);
    ircg_iterate_free(it);
}

/* Stopped at RHALF, saved, restored into a new solver (RESUME and
 * CONTINUE), run to RT: the same bits as the run that never stopped, at
 * every iteration and in the final x and z.  The directions keep no state
 * (decomposition-invariant): the workspace's is all there is to save. */
TEST(directions, checkpoint_resumes_bit_for_bit)
{
    static const ircg_domain_kind K[] = {IRCG_DOMAIN_SIMPLEX, IRCG_DOMAIN_L1_BALL,
                                         IRCG_DOMAIN_BOX};
    static cf P;
    static rec whole, first, second;
    double y[M];
    int cases = 0;
    for (int k = 0; k < 3; k++) {
        make_cf(&P, K[k], 5);
        for (int fam = 0; fam < 2; fam++) {
            ircg_problem *pb = instance(fam, &P.dom, &P, y);
            for (int dir = 1; dir < 3; dir++)
                for (int mode = IRCG_RESTORE_RESUME; mode <= IRCG_RESTORE_CONTINUE; mode++) {
                    ircg_settings s;
                    ircg_solver *a = NULL, *b = NULL, *c = NULL;
                    void *blob = NULL;
                    size_t len = 0;
                    double xa[N], xc[N], za[N], zc[N];
                    settings(&s, (ircg_direction)dir, IRCG_STEP_LINE_SEARCH, RT);
                    s.callback = record;
                    memset(&whole, 0, sizeof whole);
                    memset(&first, 0, sizeof first);
                    memset(&second, 0, sizeof second);
                    s.callback_data = &whole;
                    REQUIRE(ircg_solver_new(pb, &s, &a, NULL) == IRCG_OK);
                    REQUIRE(ircg_solve(a, NULL) == IRCG_OK);
                    s.max_iter = RHALF;
                    s.callback_data = &first;
                    REQUIRE(ircg_solver_new(pb, &s, &b, NULL) == IRCG_OK);
                    REQUIRE(ircg_solve(b, NULL) == IRCG_OK);
                    REQUIRE(ircg_solver_save(b, &blob, &len) == IRCG_OK);
                    s.max_iter = RT;
                    s.callback_data = &second;
                    REQUIRE(ircg_solver_new(pb, &s, &c, NULL) == IRCG_OK);
                    REQUIRE(ircg_solver_restore_as(c, blob, len, (ircg_restore_mode)mode,
                                                   NULL) == IRCG_OK);
                    REQUIRE(ircg_solve(c, NULL) == IRCG_OK);
                    REQUIRE(first.n == RHALF && second.n == RT - RHALF && whole.n == RT);
                    int same = 1;
                    for (int t = 0; t < RT; t++) {
                        const rec *r = t < RHALF ? &first : &second;
                        int i = t < RHALF ? t : t - RHALF;
                        same &= r->gx[i] == whole.gx[t] && r->fx[i] == whole.fx[t] &&
                                r->gz[i] == whole.gz[t] && r->gap[i] == whole.gap[t] &&
                                r->alpha[i] == whole.alpha[t];
                    }
                    dense(a, IRCG_X, xa), dense(c, IRCG_X, xc);
                    dense(a, IRCG_Z, za), dense(c, IRCG_Z, zc);
                    same &= !memcmp(xa, xc, sizeof xa) && !memcmp(za, zc, sizeof za);
                    if (!same)
                        th_fail(__FILE__, __LINE__, "%s, %s, %s, mode %d: the resumed run "
                                "differs", DOM_NAME[K[k]], fam ? "logistic" : "least squares",
                                DIR_NAME[dir], mode);
                    cases++;
                    free(blob);
                    ircg_solver_free(a);
                    ircg_solver_free(b);
                    ircg_solver_free(c);
                }
            ircg_problem_free(pb);
        }
        ircg_problem_free(P.pb);
    }
    printf("    %d runs stopped at %d, saved, restored and run to %d: the same bits\n", cases,
           RHALF, RT);
}

/* ------------------------------------------------------- refusals -- */

/* The field of ircg_solver_new's refusal, or "" when it made a solver. */
static const char *refusal(const ircg_problem *pb, const ircg_settings *s, char *field)
{
    ircg_diag d = {0};
    ircg_solver *sv = NULL;
    field[0] = '\0';
    if (ircg_solver_new(pb, s, &sv, &d) != IRCG_OK)
        snprintf(field, sizeof d.field, "%s", d.field);
    ircg_solver_free(sv);
    return field;
}

TEST(directions, refused_where_they_do_not_apply)
{
    static cf P;
    ircg_diag dg;
    char f[sizeof dg.field];
    ircg_settings s;
    make_cf(&P, IRCG_DOMAIN_SIMPLEX, 1);
    /* the open loop, the other methods, an unknown value */
    settings(&s, IRCG_DIR_PAIRWISE, IRCG_STEP_OPEN_LOOP, 10);
    CHECK_STR(refusal(P.pb, &s, f), "/direction");
    s.step_rule = IRCG_STEP_LINE_SEARCH;
    CHECK_STR(refusal(P.pb, &s, f), "");
    static const ircg_algorithm OTHERS[] = {IRCG_ALG_CGBIO, IRCG_ALG_IRPG, IRCG_ALG_BISG,
                                            IRCG_ALG_IRSCG, IRCG_ALG_IRFSCG};
    for (int a = 0; a < 5; a++) {
        settings(&s, IRCG_DIR_AWAY, IRCG_STEP_OPEN_LOOP, 10);
        s.algorithm = OTHERS[a];
        CHECK_STR(refusal(P.pb, &s, f), "/direction");
    }
    settings(&s, (ircg_direction)3, IRCG_STEP_LINE_SEARCH, 10);
    CHECK_STR(refusal(P.pb, &s, f), "/direction");
    /* the l2 ball, the nuclear ball */
    ircg_ls_data d = {.m = M, .n = N, .A_dense = P.A, .b = P.b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain l2 = {IRCG_DOMAIN_L2_BALL, 1, 0, 0};
    ircg_problem *pb = NULL;
    REQUIRE(ircg_problem_least_squares(&d, &o, &l2, &pb, NULL) == IRCG_OK);
    settings(&s, IRCG_DIR_AWAY, IRCG_STEP_CLOSED_LOOP, 10);
    CHECK_STR(refusal(pb, &s, f), "/direction");
    ircg_problem_free(pb);
    int32_t row[3] = {0, 1, 2}, col[3] = {0, 1, 0};
    double val[3] = {1, 2, 3};
    ircg_ratings R = {.n_rows = 3, .n_cols = 2, .nnz = 3, .row = row, .col = col, .val = val};
    REQUIRE(ircg_problem_matrix_completion(&R, IRCG_OUTER_COLUMN_VARIANCE, 2, &pb, NULL) ==
            IRCG_OK);
    settings(&s, IRCG_DIR_PAIRWISE, IRCG_STEP_LINE_SEARCH, 10);
    CHECK_STR(refusal(pb, &s, f), "/direction");
    ircg_problem_free(pb);
    /* a change of the settings between solves is checked again */
    ircg_solver *sv = NULL;
    settings(&s, IRCG_DIR_PAIRWISE, IRCG_STEP_LINE_SEARCH, 10);
    REQUIRE(ircg_solver_new(P.pb, &s, &sv, NULL) == IRCG_OK);
    ircg_solver_settings(sv)->step_rule = IRCG_STEP_OPEN_LOOP;
    CHECK(ircg_solve(sv, NULL) == IRCG_ERR_INVALID);
    ircg_solver_settings(sv)->step_rule = IRCG_STEP_CLOSED_LOOP;
    CHECK(ircg_solve(sv, NULL) == IRCG_OK);
    ircg_solver_free(sv);
    ircg_problem_free(P.pb);
}
