/*
 * test_domain.c -- the vector domains of domain.h against computations
 * written here: LMOs against brute-force enumeration of all vertices (and the
 * closed form for the l2 ball), projections against a bisection on the
 * threshold, the variational inequality <y - P y, z - P y> <= 0 for random z
 * in X, idempotence, and validation messages.
 */
/* make test-kernels: ls_domain. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "problems/domain.h"
#include "test_num.h"

/* min over all vertices of <c, v>, by enumeration; *nv = their number. */
static double brute_min(const ircg_domain *d, const double *c, int n)
{
    double best = INFINITY, v[8];
    if (d->kind == IRCG_DOMAIN_BOX) {
        for (unsigned mask = 0; mask < (1u << n); mask++) {
            for (int i = 0; i < n; i++)
                v[i] = (mask >> i) & 1 ? d->upper : d->lower;
            best = fmin(best, test_dot(c, v, n));
        }
        return best;
    }
    for (int i = 0; i < n; i++) {
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            if (d->kind == IRCG_DOMAIN_SIMPLEX && sgn < 0)
                continue;
            memset(v, 0, sizeof v);
            v[i] = sgn * d->radius;
            best = fmin(best, test_dot(c, v, n));
        }
    }
    return best;
}

/* Is v one of the vertices of d? */
static int is_vertex(const ircg_domain *d, const double *v, int n)
{
    int nz = 0;
    for (int i = 0; i < n; i++) {
        if (d->kind == IRCG_DOMAIN_BOX) {
            if (v[i] != d->lower && v[i] != d->upper)
                return 0;
        } else if (v[i] != 0) {
            nz++;
            if (fabs(v[i]) != d->radius || (d->kind == IRCG_DOMAIN_SIMPLEX && v[i] < 0))
                return 0;
        }
    }
    return d->kind == IRCG_DOMAIN_BOX || nz == 1;
}

static const ircg_domain POLYTOPES[] = {
    {IRCG_DOMAIN_L1_BALL, 1.7, 0, 0},
    {IRCG_DOMAIN_SIMPLEX, 2.5, 0, 0},
    {IRCG_DOMAIN_BOX, 0, -0.5, 2.0},
};

TEST(ls_domain, lmo_polytopes_vs_enumeration)
{
    uint64_t s = 11;
    double c[8], v[8];
    for (int k = 0; k < 3; k++) {
        const ircg_domain *d = &POLYTOPES[k];
        for (int n = 4; n <= 6; n++) {
            for (int trial = 0; trial < 200; trial++) {
                for (int i = 0; i < n; i++)
                    c[i] = test_urand(&s);
                if (trial % 4 == 1) /* ties: repeated values and zeros */
                    for (int i = 0; i < n; i++)
                        c[i] = round(2 * c[i]) / 2;
                if (trial % 4 == 2)
                    c[n - 1] = -c[0];
                if (trial == 3)
                    memset(c, 0, sizeof c);
                slv_domain_lmo(d, c, n, v);
                CHECK(is_vertex(d, v, n));
                CHECK_NEAR(test_dot(c, v, n), brute_min(d, c, n), 1e-14);
            }
        }
    }
}

TEST(ls_domain, lmo_tie_breaking_is_first_index)
{
    double c[5] = {0.5, -1, 0.25, -1, 1}, v[5];
    ircg_domain simplex = {IRCG_DOMAIN_SIMPLEX, 2, 0, 0};
    ircg_domain l1 = {IRCG_DOMAIN_L1_BALL, 2, 0, 0};
    ircg_domain box = {IRCG_DOMAIN_BOX, 0, -1, 3};
    slv_domain_lmo(&simplex, c, 5, v); /* smallest c: indices 1 and 3 */
    CHECK(v[1] == 2 && v[3] == 0);
    slv_domain_lmo(&l1, c, 5, v); /* largest |c|: 1, 3, 4 -> 1, v = +r */
    CHECK(v[1] == 2 && v[3] == 0 && v[4] == 0);
    double z[5] = {0, 0, 0, 0, 0};
    slv_domain_lmo(&box, z, 5, v); /* c_i = 0 -> lower */
    for (int i = 0; i < 5; i++)
        CHECK(v[i] == -1);
    slv_domain_lmo(&l1, z, 5, v); /* c = 0: -r e_0 */
    CHECK(v[0] == -2 && v[1] == 0);
}

TEST(ls_domain, lmo_l2_closed_form)
{
    uint64_t s = 5;
    ircg_domain d = {IRCG_DOMAIN_L2_BALL, 3.0, 0, 0};
    double c[7], v[7];
    for (int trial = 0; trial < 50; trial++) {
        double scale = pow(10.0, (trial % 7) * 50 - 150); /* no overflow */
        for (int i = 0; i < 7; i++)
            c[i] = scale * test_urand(&s);
        slv_domain_lmo(&d, c, 7, v);
        double nc = 0;
        for (int i = 0; i < 7; i++)
            nc += (c[i] / scale) * (c[i] / scale);
        nc = sqrt(nc);
        for (int i = 0; i < 7; i++)
            CHECK_NEAR(v[i], -3.0 * (c[i] / scale) / nc, 1e-14);
    }
    memset(c, 0, sizeof c);
    slv_domain_lmo(&d, c, 7, v);
    CHECK(v[0] == 3.0 && v[1] == 0);
}

/* Independent projection onto {x >= 0, sum x = r} (or the l1 ball of radius
 * r via |y|): bisection on theta for sum max(a - theta, 0) = r. */
static double bisect_theta(const double *a, int n, double r)
{
    double lo = -r, hi = 0;
    for (int i = 0; i < n; i++) {
        hi = fmax(hi, a[i]);
        lo = fmin(lo, a[i] - r);
    }
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi), s = 0;
        for (int i = 0; i < n; i++)
            s += fmax(a[i] - mid, 0);
        if (s > r)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

static void reference_projection(const ircg_domain *d, const double *y, int n,
                                 double *x)
{
    double a[64], nrm = 0, l1 = 0;
    for (int i = 0; i < n; i++) {
        nrm += y[i] * y[i];
        l1 += fabs(y[i]);
        a[i] = d->kind == IRCG_DOMAIN_L1_BALL ? fabs(y[i]) : y[i];
    }
    nrm = sqrt(nrm);
    for (int i = 0; i < n; i++) {
        switch (d->kind) {
        case IRCG_DOMAIN_L2_BALL:
            x[i] = nrm > d->radius ? y[i] * d->radius / nrm : y[i];
            break;
        case IRCG_DOMAIN_BOX:
            x[i] = y[i] < d->lower ? d->lower : y[i] > d->upper ? d->upper : y[i];
            break;
        default:
            x[i] = NAN;
            break;
        }
    }
    if (d->kind == IRCG_DOMAIN_SIMPLEX || (d->kind == IRCG_DOMAIN_L1_BALL && l1 > d->radius)) {
        double th = bisect_theta(a, n, d->radius);
        for (int i = 0; i < n; i++)
            x[i] = (y[i] < 0 && d->kind == IRCG_DOMAIN_L1_BALL ? -1 : 1) *
                   fmax(a[i] - th, 0);
    } else if (d->kind == IRCG_DOMAIN_L1_BALL) {
        memcpy(x, y, (size_t)n * sizeof *x);
    }
}

/* A random point of X. */
static void random_member(const ircg_domain *d, int n, uint64_t *s, double *z)
{
    double nrm = 0, l1 = 0, u = 0.5 * (test_urand(s) + 1);
    for (int i = 0; i < n; i++) {
        z[i] = test_urand(s);
        nrm += z[i] * z[i];
        l1 += fabs(z[i]);
    }
    for (int i = 0; i < n; i++) {
        switch (d->kind) {
        case IRCG_DOMAIN_L2_BALL: z[i] *= u * d->radius / sqrt(nrm); break;
        case IRCG_DOMAIN_L1_BALL: z[i] *= u * d->radius / l1; break;
        case IRCG_DOMAIN_SIMPLEX: z[i] = fabs(z[i]) * d->radius / l1; break;
        default: z[i] = d->lower + 0.5 * (z[i] + 1) * (d->upper - d->lower); break;
        }
    }
}

static const ircg_domain ALL[] = {
    {IRCG_DOMAIN_L2_BALL, 1.3, 0, 0},
    {IRCG_DOMAIN_L1_BALL, 1.7, 0, 0},
    {IRCG_DOMAIN_SIMPLEX, 2.5, 0, 0},
    {IRCG_DOMAIN_BOX, 0, -0.5, 2.0},
};

TEST(ls_domain, projection_vs_independent_method)
{
    uint64_t s = 3;
    double y[64], x[64], ref[64], xx[64], z[64];
    for (int k = 0; k < 4; k++) {
        const ircg_domain *d = &ALL[k];
        for (int trial = 0; trial < 300; trial++) {
            int n = 1 + trial % 50;
            double scale = (trial % 3 == 0) ? 0.05 : (trial % 3 == 1) ? 1 : 10;
            for (int i = 0; i < n; i++)
                y[i] = scale * test_urand(&s);
            if (trial % 11 == 0 && n > 2)
                y[1] = y[0]; /* ties in the sort */
            REQUIRE(slv_domain_project(d, y, n, x) == IRCG_OK);
            reference_projection(d, y, n, ref);
            for (int i = 0; i < n; i++)
                CHECK_NEAR(x[i], ref[i], 1e-12 * fmax(1, scale));
            CHECK(slv_domain_contains(d, x, n, 1e-12));
            /* idempotence */
            REQUIRE(slv_domain_project(d, x, n, xx) == IRCG_OK);
            for (int i = 0; i < n; i++)
                CHECK_NEAR(xx[i], x[i], 1e-13 * fmax(1, scale));
            /* the obtuse-angle (variational) inequality */
            for (int j = 0; j < 5; j++) {
                random_member(d, n, &s, z);
                double vi = 0;
                for (int i = 0; i < n; i++)
                    vi += (y[i] - x[i]) * (z[i] - x[i]);
                CHECK(vi <= 1e-12 * fmax(1, scale * scale));
            }
        }
    }
}

TEST(ls_domain, projection_in_place)
{
    double y[4] = {3, -1, 0.5, 2}, x[4];
    ircg_domain d = {IRCG_DOMAIN_L1_BALL, 1, 0, 0};
    REQUIRE(slv_domain_project(&d, y, 4, x) == IRCG_OK);
    REQUIRE(slv_domain_project(&d, y, 4, y) == IRCG_OK);
    for (int i = 0; i < 4; i++)
        CHECK(x[i] == y[i]);
}

/* {s >= 0, sum s <= delta}: identity inside, clipping of negatives when
 * the clipped sum fits, else the face sum = delta (by bisection here). */
TEST(ls_domain, inequality_simplex)
{
    uint64_t s = 17;
    double y[40], x[40];
    double inside[5] = {0.1, 0.0, 2.0, 0.3, 1.1};
    REQUIRE(slv_project_simplex_ineq(inside, 5, 3.5, x) == IRCG_OK);
    for (int i = 0; i < 5; i++)
        CHECK(x[i] == inside[i]);
    double neg[3] = {-1, 0.5, 0.25};
    REQUIRE(slv_project_simplex_ineq(neg, 3, 1.0, x) == IRCG_OK);
    CHECK(x[0] == 0 && x[1] == 0.5 && x[2] == 0.25);
    for (int trial = 0; trial < 200; trial++) {
        int n = 1 + trial % 40;
        double delta = 0.5 + (trial % 5), pos = 0;
        for (int i = 0; i < n; i++) {
            y[i] = 3 * test_urand(&s) + 0.5;
            pos += fmax(y[i], 0);
        }
        REQUIRE(slv_project_simplex_ineq(y, n, delta, x) == IRCG_OK);
        double th = pos > delta ? bisect_theta(y, n, delta) : 0, sum = 0;
        for (int i = 0; i < n; i++) {
            CHECK_NEAR(x[i], fmax(y[i] - th, 0), 1e-12);
            sum += x[i];
        }
        CHECK(sum <= delta * (1 + 1e-14));
        CHECK(x[0] >= 0);
    }
}

TEST(ls_domain, diameter_start_contains)
{
    ircg_domain l2 = {IRCG_DOMAIN_L2_BALL, 2, 0, 0};
    ircg_domain l1 = {IRCG_DOMAIN_L1_BALL, 3, 0, 0};
    ircg_domain sx = {IRCG_DOMAIN_SIMPLEX, 2, 0, 0};
    ircg_domain bx = {IRCG_DOMAIN_BOX, 0, 1, 4};
    CHECK_NEAR(slv_domain_diameter(&l2, 10), 4, 0);
    CHECK_NEAR(slv_domain_diameter(&l1, 10), 6, 0);
    CHECK_NEAR(slv_domain_diameter(&sx, 10), 2 * sqrt(2.0), 1e-15);
    CHECK_NEAR(slv_domain_diameter(&bx, 9), 9, 1e-15);
    double x[4];
    slv_domain_start(&sx, 4, x);
    for (int i = 0; i < 4; i++)
        CHECK_NEAR(x[i], 0.5, 0);
    slv_domain_start(&bx, 4, x);
    CHECK(x[0] == 1 && x[3] == 1); /* 0 clamped into [1, 4] */
    slv_domain_start(&l1, 4, x);
    CHECK(x[0] == 0 && x[3] == 0);
    double p[2] = {2.0 * (1 + 1e-10), 0};
    CHECK(slv_domain_contains(&l2, p, 2, 1e-9));
    CHECK(!slv_domain_contains(&l2, p, 2, 1e-12));
    double q[2] = {1.0, 1.0 + 1e-6};
    CHECK(!slv_domain_contains(&sx, q, 2, 1e-9));
    q[1] = NAN;
    CHECK(!slv_domain_contains(&bx, q, 2, 1e-9));
    double r[2] = {-1e-12, 2};
    CHECK(slv_domain_contains(&sx, r, 2, 1e-9));
    CHECK(!slv_domain_contains(&sx, r, 2, 1e-14));
}

TEST(ls_domain, validation_fields)
{
    ircg_diag dg;
    ircg_domain d = {IRCG_DOMAIN_L2_BALL, 0, 0, 0};
    CHECK_INT(slv_domain_validate(&d, &dg), IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/domain/radius");
    d.radius = INFINITY;
    CHECK_INT(slv_domain_validate(&d, &dg), IRCG_ERR_INVALID);
    d = (ircg_domain){IRCG_DOMAIN_BOX, 0, 1, 1};
    CHECK_INT(slv_domain_validate(&d, &dg), IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/domain/upper");
    d.lower = -INFINITY;
    CHECK_INT(slv_domain_validate(&d, &dg), IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/domain/lower");
    d = (ircg_domain){(ircg_domain_kind)42, 1, 0, 0};
    CHECK_INT(slv_domain_validate(&d, &dg), IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/domain/kind");
    d = (ircg_domain){IRCG_DOMAIN_SIMPLEX, 1, 0, 0};
    CHECK_INT(slv_domain_validate(&d, &dg), IRCG_OK);
}
