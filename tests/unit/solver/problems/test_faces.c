/*
 * test_faces.c -- the away and pairwise moves of faces.h against
 * computations written here: the away gap against the largest <c, a - x>
 * over the atoms of x's support, enumerated (the simplex's e_i with
 * x_i > 0; the l1 ball's sign(x_i) e_i with x_i != 0 and 0 when
 * ||x||_1 < r; the box's corners of the face that fixes x's coordinates
 * at their bounds, all 2^k of them); the choice of the move by the
 * gaps; the target in X and the dropped atom's coordinate on its bound to
 * the bit; the step's size against the weights of x's decomposition; a
 * descent direction; and the Frank-Wolfe move leaving the vertex alone.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "problems/domain.h"
#include "problems/faces.h"
#include "test_num.h"

enum { N = 6, TRIALS = 400 };

/* A random point of d, with some coordinates exactly on a face: zeros
 * (simplex, l1 ball), bounds (box), or on the l1 sphere. */
static void point(const ircg_domain *d, uint64_t *s, double *x)
{
    double sum = 0, r = d->radius;
    for (int i = 0; i < N; i++) {
        double u = test_urand(s);
        int on_face = test_urand(s) < -0.4;
        switch (d->kind) {
        case IRCG_DOMAIN_SIMPLEX:
            x[i] = on_face ? 0 : 1.5 + u;
            sum += x[i];
            break;
        case IRCG_DOMAIN_L1_BALL:
            x[i] = on_face ? 0 : u;
            sum += fabs(x[i]);
            break;
        default:
            x[i] = on_face ? (u > 0 ? d->upper : d->lower)
                           : d->lower + (d->upper - d->lower) * (0.5 + 0.45 * u);
        }
    }
    if (d->kind == IRCG_DOMAIN_SIMPLEX && sum == 0)
        x[0] = sum = 1;
    if (d->kind == IRCG_DOMAIN_SIMPLEX)
        for (int i = 0; i < N; i++)
            x[i] *= r / sum;
    double shrink = test_urand(s) > 0 ? 1.0 : 0.6; /* on the sphere or inside */
    if (d->kind == IRCG_DOMAIN_L1_BALL && sum > 0)
        for (int i = 0; i < N; i++)
            x[i] *= shrink * r / sum;
}

/* The largest <c, a - x> over the atoms of x's support, enumerated; its
 * atom into a; -INFINITY when there is none. */
static double brute_away(const ircg_domain *d, const double *c, const double *x, double *a)
{
    double best = -INFINITY, v[N];
    if (d->kind == IRCG_DOMAIN_BOX) {
        for (unsigned mask = 0; mask < (1u << N); mask++) {
            int ok = 1;
            for (int i = 0; i < N; i++) {
                v[i] = (mask >> i) & 1 ? d->upper : d->lower;
                ok &= !(x[i] == d->lower || x[i] == d->upper) || v[i] == x[i];
            }
            double g = test_dot(c, v, N) - test_dot(c, x, N);
            if (ok && g > best) {
                best = g;
                memcpy(a, v, sizeof v);
            }
        }
        return best;
    }
    double norm = 0;
    for (int i = 0; i < N; i++)
        norm += fabs(x[i]);
    for (int i = -1; i < N; i++) {
        memset(v, 0, sizeof v);
        if (i < 0 && !(d->kind == IRCG_DOMAIN_L1_BALL && norm < d->radius * (1 - 1e-12)))
            continue;
        if (i >= 0 && (x[i] == 0 || (d->kind == IRCG_DOMAIN_SIMPLEX && x[i] < 0)))
            continue;
        if (i >= 0)
            v[i] = x[i] > 0 ? d->radius : -d->radius;
        double g = test_dot(c, v, N) - test_dot(c, x, N);
        if (g > best) {
            best = g;
            memcpy(a, v, sizeof v);
        }
    }
    return best;
}

/* p in d: exactly for the sign and bound constraints, within a few ulps
 * of r for the sums. */
static int inside(const ircg_domain *d, const double *p)
{
    double sum = 0, abs_sum = 0;
    for (int i = 0; i < N; i++) {
        sum += p[i];
        abs_sum += fabs(p[i]);
        if (d->kind == IRCG_DOMAIN_SIMPLEX && p[i] < 0)
            return 0;
        if (d->kind == IRCG_DOMAIN_BOX && (p[i] < d->lower || p[i] > d->upper))
            return 0;
    }
    double tol = 16 * DBL_EPSILON * d->radius;
    if (d->kind == IRCG_DOMAIN_SIMPLEX)
        return fabs(sum - d->radius) <= tol;
    if (d->kind == IRCG_DOMAIN_L1_BALL)
        return abs_sum <= d->radius + tol;
    return 1;
}

/* The move left a's support: its coordinate at 0 (simplex), at 0 or its
 * sign turned (l1 ball, its weight moved to s = -a), the sphere reached
 * (l1 ball, a = 0); on the box a coordinate that was free at a bound, or
 * the pairwise step's cap 1 reached. */
static int dropped(const ircg_domain *d, const double *x, const double *p, const double *a,
                   double gamma)
{
    double norm = 0;
    int k = -1;
    for (int i = 0; i < N; i++) {
        norm += fabs(p[i]);
        if (d->kind != IRCG_DOMAIN_BOX && a[i] != 0)
            k = i;
    }
    if (d->kind == IRCG_DOMAIN_SIMPLEX)
        return k >= 0 && p[k] == 0;
    if (d->kind == IRCG_DOMAIN_L1_BALL)
        return k >= 0 ? p[k] == 0 || p[k] == -x[k]
                      : fabs(norm - d->radius) <= 16 * DBL_EPSILON * d->radius;
    for (int i = 0; i < N; i++)
        if (x[i] != d->lower && x[i] != d->upper && (p[i] == d->lower || p[i] == d->upper))
            return 1;
    return gamma == 1;
}

TEST(faces, moves_against_the_enumerated_faces)
{
    static const ircg_domain D[] = {{IRCG_DOMAIN_SIMPLEX, 2.5, 0, 0},
                                    {IRCG_DOMAIN_L1_BALL, 1.7, 0, 0},
                                    {IRCG_DOMAIN_BOX, 0, -0.75, 1.25}};
    static const char *const NAMES[] = {"simplex", "l1 ball", "box"};
    for (int k = 0; k < 3; k++) {
        const ircg_domain *d = &D[k];
        uint64_t s = 5 + (uint64_t)k;
        int moves[2][3] = {{0}}; /* by mode, the move */
        for (int trial = 0; trial < TRIALS; trial++) {
            double x[N], c[N], v[N], s0[N], lin[N], a[N];
            point(d, &s, x);
            for (int i = 0; i < N; i++)
                c[i] = test_urand(&s);
            slv_domain_lmo(d, c, N, s0);
            double fw = test_dot(c, x, N) - test_dot(c, s0, N);
            double away = brute_away(d, c, x, a);
            for (int mode = IRCG_DIR_AWAY; mode <= IRCG_DIR_PAIRWISE; mode++) {
                slv_face_move mv;
                memcpy(v, s0, sizeof v);
                slv_face_target(d, (ircg_direction)mode, c, x, N, v, lin, &mv);
                double tol = 1e-13 * (1 + fabs(fw) + fabs(away));
                moves[mode - IRCG_DIR_AWAY][mv.kind]++;
                if (!(fabs(mv.fw_gap - fw) <= tol) ||
                    !(fabs(mv.away_gap - away) <= tol || (isinf(away) && isinf(mv.away_gap)))) {
                    th_fail(__FILE__, __LINE__, "%s trial %d: gaps %.17g, %.17g; enumerated "
                            "%.17g, %.17g", NAMES[k], trial, mv.fw_gap, mv.away_gap, fw, away);
                    return;
                }
                /* the move the gaps choose (where they are not within rounding) */
                int want = mode == IRCG_DIR_PAIRWISE ? fw + away > tol
                                                     : away > fw + tol && away > tol;
                int clear = mode == IRCG_DIR_PAIRWISE ? fabs(fw + away) > tol
                                                      : fabs(away - fw) > tol && away > tol;
                if (clear && (mv.kind != SLV_MOVE_FW) != want)
                    th_fail(__FILE__, __LINE__, "%s trial %d mode %d: move %d", NAMES[k],
                            trial, mode, (int)mv.kind);
                if (mv.kind == SLV_MOVE_FW) {
                    CHECK(memcmp(v, s0, sizeof v) == 0); /* the vertex stays the target */
                    continue;
                }
                /* p in X, reached along a descent direction, a's weight gone */
                double slope = 0;
                for (int i = 0; i < N; i++)
                    slope += c[i] * (v[i] - x[i]);
                if (!inside(d, v) || !(slope < 0) || !dropped(d, x, v, a, mv.gamma_max)) {
                    th_fail(__FILE__, __LINE__, "%s trial %d mode %d: target outside, not "
                            "descending (%g) or a not dropped", NAMES[k], trial, mode, slope);
                    return;
                }
                /* p = x + gamma_max d, d = s - a or x - a, to rounding */
                for (int i = 0; i < N; i++) {
                    double di = mv.kind == SLV_MOVE_PAIRWISE ? s0[i] - a[i] : x[i] - a[i];
                    CHECK_NEAR(v[i], x[i] + mv.gamma_max * di, 1e-14 * (1 + fabs(x[i])));
                    CHECK_NEAR(mv.kappa * x[i] + lin[i], v[i] - x[i], 1e-14 * (1 + fabs(x[i])));
                }
            }
        }
        printf("    %s, %d points: away mode %d away moves, %d Frank-Wolfe; pairwise mode "
               "%d pairwise moves, %d none that descends\n", NAMES[k], TRIALS,
               moves[0][SLV_MOVE_AWAY], moves[0][SLV_MOVE_FW], moves[1][SLV_MOVE_PAIRWISE],
               moves[1][SLV_MOVE_FW]);
        CHECK(moves[0][SLV_MOVE_AWAY] > TRIALS / 10 && moves[0][SLV_MOVE_FW] > TRIALS / 10);
        CHECK(moves[1][SLV_MOVE_PAIRWISE] > TRIALS / 2);
    }
}

/* The step's size is the weight of a in x's decomposition: on the
 * simplex x_k / r (pairwise) and x_k / (r - x_k) (away); on the l1 ball
 * from the atom 0, the slack 1 - ||x||_1 / r (pairwise), the direction x
 * itself to the sphere (away). */
TEST(faces, steps_are_the_weights_of_the_decomposition)
{
    const ircg_domain simplex = {IRCG_DOMAIN_SIMPLEX, 2, 0, 0}, l1 = {IRCG_DOMAIN_L1_BALL, 2, 0, 0};
    double x[N] = {1.0, 0, 0.625, 0.375, 0, 0}, c[N] = {0, -0.125, 0, 1, 0, 0.5};
    double v[N], lin[N];
    slv_face_move mv;
    /* simplex: a = 2 e_3 (the largest c over the support), s = 2 e_1; the
     * FW gap <c, x> + 0.25 = 0.625 is below the away gap 2 - <c, x> */
    slv_domain_lmo(&simplex, c, N, v);
    slv_face_target(&simplex, IRCG_DIR_PAIRWISE, c, x, N, v, lin, &mv);
    CHECK_INT(mv.kind, SLV_MOVE_PAIRWISE);
    CHECK(mv.gamma_max == 0.1875 && v[3] == 0 && v[1] == 0.375 && v[0] == 1.0);
    slv_domain_lmo(&simplex, c, N, v);
    slv_face_target(&simplex, IRCG_DIR_AWAY, c, x, N, v, lin, &mv);
    CHECK_INT(mv.kind, SLV_MOVE_AWAY);
    CHECK(mv.gamma_max == 0.375 / 1.625 && v[3] == 0 && v[1] == 0);
    CHECK_NEAR(v[0], 1.0 * 2 / 1.625, 1e-15);
    /* the l1 ball inside: ||x|| = 1 of r = 2, <c, a> < 0 on the support: a = 0 */
    double y[N] = {0.5, 0, 0, -0.25, 0.25, 0}, e[N] = {-0.125, 0.25, 0, 0.25, -0.25, -1};
    slv_domain_lmo(&l1, e, N, v); /* s = 2 e_5 */
    slv_face_target(&l1, IRCG_DIR_PAIRWISE, e, y, N, v, lin, &mv);
    CHECK_INT(mv.kind, SLV_MOVE_PAIRWISE);
    CHECK(mv.gamma_max == 0.5 && v[5] == 1.0 && v[0] == 0.5 && v[3] == -0.25);
    slv_domain_lmo(&l1, e, N, v);
    slv_face_target(&l1, IRCG_DIR_AWAY, e, y, N, v, lin, &mv);
    CHECK_INT(mv.kind, SLV_MOVE_FW); /* FW gap 2 - <e, y> > away gap -<e, y> */
    /* nearer the sphere (||z|| = 1.6) where the Frank-Wolfe direction is
     * worse: away from 0, z scaled to the sphere by 1 + 0.4 / 1.6 */
    double z[N] = {0.8, 0, 0, -0.4, 0.4, 0}, f[N] = {-1, 0, 0, 1, -1, 0.0625};
    slv_domain_lmo(&l1, f, N, v);
    slv_face_target(&l1, IRCG_DIR_AWAY, f, z, N, v, lin, &mv);
    CHECK_INT(mv.kind, SLV_MOVE_AWAY);
    CHECK_NEAR(mv.gamma_max, 0.25, 1e-15);
    CHECK(mv.kappa == mv.gamma_max && lin[0] == 0 && lin[3] == 0);
    for (int i = 0; i < N; i++)
        CHECK_NEAR(v[i], 1.25 * z[i], 1e-15);
}
