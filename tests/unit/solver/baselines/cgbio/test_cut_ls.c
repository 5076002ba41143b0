/*
 * test_cut_ls.c -- CG-BiO's oracle on the vector domains,
 *
 *   min <c, v>  s.t.  v in X,  <a, v - x> <= slack,
 *
 * against brute force written here.  On a polytope (l1 ball, simplex, box)
 * the LP optimum is attained at a vertex of X in the cut or where a segment
 * between two vertices of X crosses the hyperplane: all vertices and all
 * pairs are enumerated.  On the l2 ball the optimum is the dual value
 * max_{l >= 0} -r ||c + l a|| - l (<a, x> + slack), found by golden
 * section.  Without Slater's condition the optimum over the face
 * argmin_X <a, .> comes from the vertices on that face.
 *
 * The instances have A = I and outer 1/2 ||x - c0||^2 (or a diagonal
 * quadratic), so that a = x - b and c = x - c0 are chosen freely; dyadic
 * values keep a and c exact where ties matter.
 */
/* make test-kernels: cut_ls. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "core/oracle.h"
#include "test_num.h"

#define NM 5

static double dot(const double *x, const double *y, int n)
{
    long double s = 0;
    for (int i = 0; i < n; i++)
        s += (long double)x[i] * y[i];
    return (double)s;
}

typedef struct lcase {
    ircg_domain dom;
    int n;
    double x[NM], a[NM], c[NM];
    int quad; /* outer 1/2 x'Qx + q'x with Q = diag(1, 2, ...) */
    int csr;  /* A = I given as CSR */
} lcase;

typedef struct lres {
    slv_cut_info ci;
    double v[NM], g, f;
} lres;

/* The oracle at x, then a step of length 1 reads v back. */
static ircg_error run_oracle(const lcase *k, double slack, lres *out)
{
    int n = k->n;
    double I[NM * NM] = {0}, b[NM], c0[NM], Q[NM * NM] = {0}, q[NM], val[NM];
    int64_t rp[NM + 1];
    int32_t ci[NM];
    ircg_problem *pb = NULL;
    ircg_settings s;
    void *ws = NULL;
    ircg_iterate *it = NULL;
    slv_values vals = {0};
    ircg_error err;

    for (int i = 0; i < n; i++) {
        I[i * n + i] = 1;
        b[i] = k->x[i] - k->a[i];
        c0[i] = k->x[i] - k->c[i];
        Q[i * n + i] = i + 1;
        q[i] = k->c[i] - (i + 1) * k->x[i];
        rp[i] = i;
        ci[i] = i;
        val[i] = 1;
    }
    rp[n] = n;
    ircg_ls_data d = {.m = n, .n = n, .b = b};
    if (k->csr) {
        d.A_rowptr = rp;
        d.A_colind = ci;
        d.A_val = val;
    } else {
        d.A_dense = I;
    }
    ircg_outer o = {k->quad ? IRCG_OUTER_QUADRATIC : IRCG_OUTER_DIST_SQ, c0, Q, q, NULL};
    if ((err = ircg_problem_least_squares(&d, &o, &k->dom, &pb, NULL)) != IRCG_OK)
        return err;
    ircg_settings_default(&s);
    s.start = IRCG_START_GIVEN;
    s.x0 = k->x;
    if ((err = pb->ops->create(pb, &s, &ws, NULL)) == IRCG_OK &&
        (err = pb->cut->lmo_cut(ws, slack, &out->ci)) == IRCG_OK &&
        (err = pb->cut->cut_step(ws, 1.0)) == IRCG_OK &&
        (err = pb->ops->iterate(ws, IRCG_X, 1, &it)) == IRCG_OK) {
        memcpy(out->v, it->dense, (size_t)n * sizeof *out->v);
        pb->ops->values(ws, NULL, &vals);
        out->g = vals.g_x;
        out->f = vals.f_x;
    }
    ircg_iterate_free(it);
    if (ws)
        pb->ops->destroy(ws);
    ircg_problem_free(pb);
    return err;
}

/* The vertices of a polytope X (at most 2^5 = 32). */
static int vertices(const ircg_domain *d, int n, double V[][NM])
{
    int m = 0;
    if (d->kind == IRCG_DOMAIN_BOX) {
        for (unsigned mask = 0; mask < (1u << n); mask++, m++)
            for (int i = 0; i < n; i++)
                V[m][i] = (mask >> i) & 1 ? d->upper : d->lower;
        return m;
    }
    for (int i = 0; i < n; i++)
        for (int sg = 1; sg >= -1; sg -= 2) {
            if (d->kind == IRCG_DOMAIN_SIMPLEX && sg < 0)
                continue;
            memset(V[m], 0, sizeof V[m]);
            V[m++][i] = sg * d->radius;
        }
    return m;
}

/* min <c, v> over the polytope cut by <a, v - x> <= slack; NAN if empty. */
static double brute_polytope(const lcase *k, double slack)
{
    double V[32][NM], s[32], best = NAN;
    int n = k->n, m = vertices(&k->dom, n, V);
    for (int i = 0; i < m; i++) {
        double d[NM];
        for (int j = 0; j < n; j++)
            d[j] = V[i][j] - k->x[j];
        s[i] = dot(k->a, d, n) - slack;
        if (s[i] <= 0 && !(dot(k->c, V[i], n) >= best))
            best = dot(k->c, V[i], n);
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) {
            if (!(s[i] > 0 && s[j] < 0))
                continue;
            double th = -s[j] / (s[i] - s[j]), w[NM];
            for (int l = 0; l < n; l++)
                w[l] = th * V[i][l] + (1 - th) * V[j][l];
            if (!(dot(k->c, w, n) >= best))
                best = dot(k->c, w, n);
        }
    return best;
}

/* min <c, .> over the face argmin_X <a, .> of a polytope. */
static double brute_face(const lcase *k)
{
    double V[32][NM], amin = INFINITY, best = INFINITY;
    int n = k->n, m = vertices(&k->dom, n, V);
    for (int i = 0; i < m; i++)
        amin = fmin(amin, dot(k->a, V[i], n));
    for (int i = 0; i < m; i++)
        if (dot(k->a, V[i], n) == amin)
            best = fmin(best, dot(k->c, V[i], n));
    return best;
}

static double norm(const double *x, int n)
{
    return sqrt(dot(x, x, n));
}

/* l2 ball: max_{l >= 0} -r ||c + l a|| - l bb, bb = <a, x> + slack. */
static double phi_l2(const lcase *k, double bb, double l)
{
    double w[NM];
    for (int i = 0; i < k->n; i++)
        w[i] = k->c[i] + l * k->a[i];
    return -k->dom.radius * norm(w, k->n) - l * bb;
}

static double dual_l2(const lcase *k, double slack, double *lam)
{
    int n = k->n;
    double r = k->dom.radius, bb = dot(k->a, k->x, n) + slack;
    double lo = 0, hi = 2 * r * norm(k->c, n) / (bb + r * norm(k->a, n));
    const double g = 0.5 * (sqrt(5.0) - 1);
    double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
    double f1 = phi_l2(k, bb, x1), f2 = phi_l2(k, bb, x2);
    for (int it = 0; it < 300 && hi - lo > 1e-16 * hi; it++) {
        if (f1 >= f2) {
            hi = x2, x2 = x1, f2 = f1;
            x1 = hi - g * (hi - lo);
            f1 = phi_l2(k, bb, x1);
        } else {
            lo = x1, x1 = x2, f1 = f2;
            x2 = lo + g * (hi - lo);
            f2 = phi_l2(k, bb, x2);
        }
    }
    double p0 = phi_l2(k, bb, 0), pm = fmax(f1, f2);
    *lam = p0 >= pm ? 0 : (f1 >= f2 ? x1 : x2);
    return fmax(p0, pm);
}

/* A random point of X and random a, c. */
static void random_case(lcase *k, ircg_domain_kind kind, int n, uint64_t seed)
{
    double t = 0;
    memset(k, 0, sizeof *k);
    k->n = n;
    k->dom.kind = kind;
    k->dom.radius = 2.0;
    k->dom.lower = -0.5;
    k->dom.upper = 1.5;
    for (int i = 0; i < n; i++) {
        k->x[i] = test_urand(&seed);
        k->a[i] = test_urand(&seed);
        k->c[i] = test_urand(&seed);
    }
    switch (kind) {
    case IRCG_DOMAIN_L2_BALL:
        t = norm(k->x, n);
        for (int i = 0; i < n; i++)
            k->x[i] *= 0.5 * k->dom.radius / t;
        break;
    case IRCG_DOMAIN_L1_BALL:
        for (int i = 0; i < n; i++)
            t += fabs(k->x[i]);
        for (int i = 0; i < n; i++)
            k->x[i] *= 0.5 * k->dom.radius / t;
        break;
    case IRCG_DOMAIN_SIMPLEX:
        for (int i = 0; i < n; i++)
            t += (k->x[i] = fabs(k->x[i]) + 0.1);
        for (int i = 0; i < n; i++)
            k->x[i] *= k->dom.radius / t;
        break;
    default:
        for (int i = 0; i < n; i++)
            k->x[i] = 0.5 + 0.9 * k->x[i];
        break;
    }
}

/* min_X <a, v - x>, through the vertices (or -r||a|| for the l2 ball). */
static double min_cut(const lcase *k)
{
    if (k->dom.kind == IRCG_DOMAIN_L2_BALL)
        return -k->dom.radius * norm(k->a, k->n) - dot(k->a, k->x, k->n);
    double V[32][NM], best = INFINITY;
    int m = vertices(&k->dom, k->n, V);
    for (int i = 0; i < m; i++)
        best = fmin(best, dot(k->a, V[i], k->n) - dot(k->a, k->x, k->n));
    return best;
}

/* <a, v0 - x> for the plain LMO vertex v0 of c, by enumeration. */
static double plain_cut(const lcase *k)
{
    int n = k->n;
    if (k->dom.kind == IRCG_DOMAIN_L2_BALL)
        return -k->dom.radius * dot(k->a, k->c, n) / norm(k->c, n) - dot(k->a, k->x, n);
    double V[32][NM], best = INFINITY, cut = 0;
    int m = vertices(&k->dom, n, V);
    for (int i = 0; i < m; i++)
        if (dot(k->c, V[i], n) < best) {
            best = dot(k->c, V[i], n);
            cut = dot(k->a, V[i], n) - dot(k->a, k->x, n);
        }
    return cut;
}

/* The optimum of the cut problem by brute force, with Slater. */
static double reference(const lcase *k, double slack, double *lam)
{
    *lam = NAN;
    if (k->dom.kind == IRCG_DOMAIN_L2_BALL)
        return dual_l2(k, slack, lam);
    return brute_polytope(k, slack);
}

/* v in X, to rounding (the test's own membership test). */
static int in_domain(const ircg_domain *d, const double *v, int n)
{
    double t = 0, tol = 1e-12 * (1 + d->radius);
    for (int i = 0; i < n; i++) {
        switch (d->kind) {
        case IRCG_DOMAIN_L2_BALL: t += v[i] * v[i]; break;
        case IRCG_DOMAIN_L1_BALL: t += fabs(v[i]); break;
        case IRCG_DOMAIN_SIMPLEX:
            if (v[i] < -tol)
                return 0;
            t += v[i];
            break;
        default:
            if (v[i] < d->lower - 1e-12 || v[i] > d->upper + 1e-12)
                return 0;
        }
    }
    switch (d->kind) {
    case IRCG_DOMAIN_L2_BALL: return sqrt(t) <= d->radius + tol;
    case IRCG_DOMAIN_L1_BALL: return t <= d->radius + tol;
    case IRCG_DOMAIN_SIMPLEX: return fabs(t - d->radius) <= tol;
    default: return 1;
    }
}

/* The dual function at l: min_X <c + l a, v> - l (<a, x> + slack). */
static double dual_at(const lcase *k, double slack, double l)
{
    double bb = dot(k->a, k->x, k->n) + slack;
    if (k->dom.kind == IRCG_DOMAIN_L2_BALL)
        return phi_l2(k, bb, l);
    double V[32][NM], w[NM], best = INFINITY;
    int m = vertices(&k->dom, k->n, V);
    for (int i = 0; i < k->n; i++)
        w[i] = k->c[i] + l * k->a[i];
    for (int i = 0; i < m; i++)
        best = fmin(best, dot(w, V[i], k->n));
    return best - l * bb;
}

/* What holds whatever the case: v in X, f_gap, and the residual and outer
 * value that the step carried along (A = I, b = x - a). */
static void check_common(const lcase *k, const lres *r)
{
    int n = k->n;
    double d[NM], gv = 0, fv = 0;
    for (int i = 0; i < n; i++) {
        double ri = r->v[i] - (k->x[i] - k->a[i]);
        d[i] = r->v[i] - k->x[i];
        gv += 0.5 * ri * ri;
        if (k->quad)
            fv += 0.5 * (i + 1) * r->v[i] * r->v[i] +
                  (k->c[i] - (i + 1) * k->x[i]) * r->v[i];
        else
            fv += 0.5 * (r->v[i] - (k->x[i] - k->c[i])) * (r->v[i] - (k->x[i] - k->c[i]));
    }
    CHECK(in_domain(&k->dom, r->v, n));
    CHECK_NEAR(r->ci.f_gap, -dot(k->c, d, n), 1e-12 * (1 + 4 * norm(k->c, n)));
    CHECK(isnan(r->ci.top_sv));
    CHECK_INT(r->ci.converged, 1);
    CHECK_REL(r->g, gv, 1e-12, 1e-14);
    CHECK_REL(r->f, fv, 1e-12, 1e-12);
}

static double cut_of(const lcase *k, const double *v)
{
    double d[NM];
    for (int i = 0; i < k->n; i++)
        d[i] = v[i] - k->x[i];
    return dot(k->a, d, k->n);
}

static const ircg_domain_kind KINDS[4] = {IRCG_DOMAIN_L2_BALL, IRCG_DOMAIN_L1_BALL,
                                          IRCG_DOMAIN_SIMPLEX, IRCG_DOMAIN_BOX};

TEST(cut_ls, slater_cut_active_all_domains)
{
    int tried = 0, two = 0;
    for (int kd = 0; kd < 4; kd++)
        for (int n = 2; n <= 5; n++)
            for (uint64_t seed = 1; seed <= 6; seed++) {
                lcase k;
                lres r;
                double lam;
                random_case(&k, KINDS[kd], n, 1000 * kd + 10 * n + seed);
                k.quad = seed == 3;
                k.csr = seed == 4;
                double lo = min_cut(&k), hi = plain_cut(&k);
                if (!(hi > lo + 1e-3))
                    continue; /* the plain vertex already minimizes <a, .> */
                double slack = 0.5 * (lo + hi);
                REQUIRE(run_oracle(&k, slack, &r) == IRCG_OK);
                tried++;
                double opt = reference(&k, slack, &lam), scale = 1 + 4 * norm(k.c, n);
                check_common(&k, &r);
                CHECK_INT(r.ci.slater, 1);
                CHECK(r.ci.lambda > 0);
                CHECK_NEAR(dot(k.c, r.v, n), opt, 1e-12 * scale);
                /* lambda* > 0: the cut holds with equality (complementary
                 * slackness), and the reported multiplier is dual optimal */
                CHECK_NEAR(cut_of(&k, r.v), slack, 1e-12 * (1 + 4 * norm(k.a, n)));
                CHECK_NEAR(dual_at(&k, slack, r.ci.lambda), opt, 1e-9 * scale);
                CHECK(r.ci.rank == 1 || r.ci.rank == 2);
                if (k.dom.kind == IRCG_DOMAIN_L2_BALL) {
                    CHECK_INT(r.ci.rank, 1);
                    CHECK_REL(r.ci.lambda, lam, 1e-6, 1e-12);
                }
                two += r.ci.rank == 2;
                if (th_failed())
                    return;
            }
    CHECK(tried >= 60);
    CHECK(two >= 20); /* polytopes: the optimum lies on an edge */
}

TEST(cut_ls, cut_inactive_gives_the_plain_vertex)
{
    for (int kd = 0; kd < 4; kd++)
        for (int n = 2; n <= 5; n++) {
            lcase k;
            lres r;
            random_case(&k, KINDS[kd], n, 77 + 10 * kd + n);
            double slack = plain_cut(&k) + 0.25;
            REQUIRE(run_oracle(&k, slack, &r) == IRCG_OK);
            check_common(&k, &r);
            CHECK_INT(r.ci.slater, 1);
            CHECK(r.ci.lambda == 0);
            CHECK_INT(r.ci.evaluations, 1);
            /* the plain minimum of <c, .> over X */
            double lam, opt = reference(&k, 1e300, &lam);
            if (k.dom.kind == IRCG_DOMAIN_L2_BALL)
                opt = -k.dom.radius * norm(k.c, n);
            CHECK_NEAR(dot(k.c, r.v, n), opt, 1e-12 * (1 + 4 * norm(k.c, n)));
        }
}

/* Slater fails (slack = min_X <a, v - x>) and the empty cut (below it):
 * random instances, where the face is one vertex. */
TEST(cut_ls, slater_fails_and_empty_random)
{
    for (int kd = 0; kd < 4; kd++)
        for (int n = 2; n <= 5; n++)
            for (int empty = 0; empty < 2; empty++) {
                lcase k;
                lres r;
                random_case(&k, KINDS[kd], n, 500 + 10 * kd + n);
                double slack = min_cut(&k) - 0.5 * empty;
                REQUIRE(run_oracle(&k, slack, &r) == IRCG_OK);
                check_common(&k, &r);
                CHECK_INT(r.ci.slater, 0);
                CHECK(isnan(r.ci.lambda));
                CHECK_NEAR(cut_of(&k, r.v), min_cut(&k), 1e-12 * (1 + 4 * norm(k.a, n)));
                if (k.dom.kind != IRCG_DOMAIN_L2_BALL)
                    CHECK_NEAR(dot(k.c, r.v, n), brute_face(&k), 1e-12);
            }
}

/* Exact ties in a, so that the face argmin_X <a, .> holds several vertices
 * (dyadic data: a and c are exact in the library too). */
TEST(cut_ls, slater_fails_on_faces_with_ties)
{
    lcase ks[4];
    memset(ks, 0, sizeof ks);
    for (int i = 0; i < 4; i++) {
        ks[i].n = 4;
        ks[i].dom = (ircg_domain){KINDS[i], 2.0, -0.5, 1.5};
    }
    const double x[4][4] = {{0.5, 0.25, 0, -0.5}, {0.25, -0.25, 0, 0.5},
                            {0.5, 0.5, 0.5, 0.5}, {0.5, 0, 1, 0.25}};
    const double a[4][4] = {{0.5, -0.25, 1, 0.75}, {1, -1, 0.5, 1},
                            {0.5, -0.25, -0.25, 1}, {1, 0, -0.5, 0}};
    const double c[4][4] = {{0.25, 1, -0.5, 0}, {0.25, -0.5, 0.75, -0.25},
                            {0, 0.5, -0.5, 0}, {0.25, -1, 0.5, 0.75}};
    /* the face minimizers: l2 its single point; l1 +r e1; simplex r e2;
     * box (lower, upper, upper, lower) */
    for (int i = 0; i < 4; i++) {
        memcpy(ks[i].x, x[i], sizeof x[i]);
        memcpy(ks[i].a, a[i], sizeof a[i]);
        memcpy(ks[i].c, c[i], sizeof c[i]);
    }
    const double want[3][4] = {{0, 2, 0, 0}, {0, 0, 2, 0}, {-0.5, 1.5, 1.5, -0.5}};
    for (int i = 0; i < 4; i++)
        for (int empty = 0; empty < 2; empty++) {
            lres r;
            double slack = min_cut(&ks[i]) - 0.5 * empty;
            REQUIRE(run_oracle(&ks[i], slack, &r) == IRCG_OK);
            check_common(&ks[i], &r);
            CHECK_INT(r.ci.slater, 0);
            CHECK_INT(r.ci.rank, 1);
            if (i == 0) {
                double na = norm(ks[i].a, 4);
                for (int j = 0; j < 4; j++)
                    CHECK_NEAR(r.v[j], -2.0 * ks[i].a[j] / na, 1e-14);
            } else {
                CHECK_NEAR(dot(ks[i].c, r.v, 4), brute_face(&ks[i]), 0);
                for (int j = 0; j < 4; j++)
                    CHECK(r.v[j] == want[i - 1][j]);
            }
        }
}

TEST(cut_ls, zero_gradient_and_bad_slack)
{
    for (int kd = 0; kd < 4; kd++) {
        lcase k;
        lres r;
        double lam;
        random_case(&k, KINDS[kd], 3, 900 + kd);
        memset(k.a, 0, sizeof k.a); /* x solves A x = b */
        double opt = k.dom.kind == IRCG_DOMAIN_L2_BALL ? -k.dom.radius * norm(k.c, 3)
                                                       : reference(&k, 1.0, &lam);
        REQUIRE(run_oracle(&k, 0.0, &r) == IRCG_OK); /* the cut 0 <= 0 */
        check_common(&k, &r);
        CHECK_INT(r.ci.slater, 1);
        CHECK(r.ci.lambda == 0);
        CHECK_NEAR(dot(k.c, r.v, 3), opt, 1e-12);
        REQUIRE(run_oracle(&k, -1.0, &r) == IRCG_OK); /* 0 <= -1: empty */
        check_common(&k, &r);
        CHECK_INT(r.ci.slater, 0);
        CHECK_NEAR(dot(k.c, r.v, 3), opt, 1e-12);
        CHECK(run_oracle(&k, NAN, &r) == IRCG_ERR_INVALID);
        CHECK(run_oracle(&k, -INFINITY, &r) == IRCG_ERR_INVALID);
    }
}
