/*
 * test_ls_oracle.c -- the least squares oracle (oracle.h) driven directly:
 * every scalar of the LMO's direction and every value against products
 * computed here from the iterates; the incrementally kept residuals of x and
 * z against A x - b; g - g_ref summed termwise, against a long-double
 * oracle with a relative tolerance derived from the terms' rounding, for a
 * far reference and one where the difference nearly cancels (a naive
 * 1/2||r||^2 - 1/2||q||^2 misses that one by 1e8 of its tolerance); start
 * points; and checkpoints (identical continuation,
 * shape and kind mismatches), for every outer objective including the
 * validation loss 1/2 ||A_v x - b_v||^2.
 */
/* make test-kernels: ls_oracle. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "core/oracle.h"
#include "test_num.h"

enum { M = 4, N = 6, MV = 5 };

typedef struct inst {
    double A[M * N], b[M], c[N], Q[N * N], q[N];
    double Av[MV * N], bv[MV]; /* validation rows */
    ircg_ls_data vd;
    ircg_outer o;
    ircg_domain dom;
    ircg_problem *pb;
} inst;

static void inst_make(inst *I, ircg_outer_kind ok, ircg_domain dom, uint64_t s)
{
    double B[3 * N];
    for (int i = 0; i < M * N; i++)
        I->A[i] = test_urand(&s);
    for (int i = 0; i < M; i++)
        I->b[i] = 2 * test_urand(&s);
    for (int i = 0; i < 3 * N; i++)
        B[i] = test_urand(&s);
    for (int i = 0; i < N; i++) {
        I->c[i] = test_urand(&s);
        I->q[i] = test_urand(&s);
        for (int j = 0; j < N; j++) { /* Q = B'B */
            I->Q[i * N + j] = 0;
            for (int k = 0; k < 3; k++)
                I->Q[i * N + j] += B[k * N + i] * B[k * N + j];
        }
    }
    for (int i = 0; i < MV * N; i++)
        I->Av[i] = test_urand(&s);
    for (int i = 0; i < MV; i++)
        I->bv[i] = test_urand(&s);
    I->vd = (ircg_ls_data){.m = MV, .n = N, .A_dense = I->Av, .b = I->bv};
    I->o = (ircg_outer){ok, I->c, I->Q, I->q, &I->vd};
    I->dom = dom;
    ircg_ls_data d = {.m = M, .n = N, .A_dense = I->A, .b = I->b};
    I->pb = NULL;
    ircg_problem_least_squares(&d, &I->o, &I->dom, &I->pb, NULL);
}

/* Everything recomputed here from a point x. */
static void resid(const inst *I, const double *x, double *r)
{
    for (int i = 0; i < M; i++) {
        r[i] = -I->b[i];
        for (int j = 0; j < N; j++)
            r[i] += I->A[i * N + j] * x[j];
    }
}

static double g_of(const inst *I, const double *x)
{
    double r[M], s = 0;
    resid(I, x, r);
    for (int i = 0; i < M; i++)
        s += 0.5 * r[i] * r[i];
    return s;
}

/* A_v x - b_v */
static void vresid(const inst *I, const double *x, double *r)
{
    for (int i = 0; i < MV; i++) {
        r[i] = -I->bv[i];
        for (int j = 0; j < N; j++)
            r[i] += I->Av[i * N + j] * x[j];
    }
}

static double f_of(const inst *I, const double *x)
{
    double s = 0, rv[MV];
    if (I->o.kind == IRCG_OUTER_VALIDATION) {
        vresid(I, x, rv);
        for (int i = 0; i < MV; i++)
            s += 0.5 * rv[i] * rv[i];
        return s;
    }
    for (int i = 0; i < N; i++) {
        if (I->o.kind == IRCG_OUTER_HALF_NORM_SQ)
            s += 0.5 * x[i] * x[i];
        else if (I->o.kind == IRCG_OUTER_DIST_SQ)
            s += 0.5 * (x[i] - I->c[i]) * (x[i] - I->c[i]);
        else {
            s += I->q[i] * x[i];
            for (int j = 0; j < N; j++)
                s += 0.5 * x[i] * I->Q[i * N + j] * x[j];
        }
    }
    return s;
}

/* H_f d, for d'H_f d */
static double dhd(const inst *I, const double *d)
{
    double s = 0;
    if (I->o.kind == IRCG_OUTER_VALIDATION) { /* ||A_v d||^2 */
        for (int i = 0; i < MV; i++) {
            double a = 0;
            for (int j = 0; j < N; j++)
                a += I->Av[i * N + j] * d[j];
            s += a * a;
        }
        return s;
    }
    for (int i = 0; i < N; i++) {
        if (I->o.kind != IRCG_OUTER_QUADRATIC)
            s += d[i] * d[i];
        else
            for (int j = 0; j < N; j++)
                s += d[i] * I->Q[i * N + j] * d[j];
    }
    return s;
}

static void grad_phi(const inst *I, double sigma, const double *x, double *gr)
{
    double r[M], rv[MV];
    resid(I, x, r);
    vresid(I, x, rv);
    for (int j = 0; j < N; j++) {
        double gf = I->o.kind == IRCG_OUTER_HALF_NORM_SQ ? x[j]
                  : I->o.kind == IRCG_OUTER_DIST_SQ ? x[j] - I->c[j]
                  : I->o.kind == IRCG_OUTER_QUADRATIC ? I->q[j] : 0;
        if (I->o.kind == IRCG_OUTER_QUADRATIC)
            for (int k = 0; k < N; k++)
                gf += I->Q[j * N + k] * x[k];
        if (I->o.kind == IRCG_OUTER_VALIDATION)
            for (int i = 0; i < MV; i++)
                gf += I->Av[i * N + j] * rv[i];
        gr[j] = sigma * gf;
        for (int i = 0; i < M; i++)
            gr[j] += I->A[i * N + j] * r[i];
    }
}

static void get_vec(const ircg_problem *pb, void *ws, ircg_which w, double *x)
{
    ircg_iterate *it = NULL;
    if (pb->ops->iterate(ws, w, 1, &it) == IRCG_OK)
        memcpy(x, it->dense, N * sizeof *x);
    ircg_iterate_free(it);
}

/* g - g_ref as the oracle sums it (slv_half_sq_diff: terms
 * 1/2 (r - q)(r + q), compensated), against the long-double sum of the
 * same terms of the residuals r it holds and the reference q: (r - q)
 * and (r + q) of two doubles are exact in long double (64-bit
 * significands, exponents this close), their product rounded once,
 * 2^-64.  The oracle's terms are each within 3 roundings (1.5 eps) of
 * theirs and its compensated sum within eps |S| + 2 m eps^2 sum|t| of
 * the terms' sum: the tolerance, relative to the terms, not to g.
 * Returns the fraction of it used. */
static double check_gap(const double *r, const double *q, double got)
{
    const double eps = DBL_EPSILON;
    long double S = 0, T = 0;
    for (int i = 0; i < M; i++) {
        long double t = 0.5L * ((long double)r[i] - q[i]) * ((long double)r[i] + q[i]);
        S += t;
        T += fabsl(t);
    }
    double tol = (double)(1.5 * eps * T + eps * fabsl(S) + 2 * M * eps * eps * T);
    CHECK_NEAR(got, (double)S, tol);
    return tol > 0 ? fabs(got - (double)S) / tol : (got == (double)S ? 0 : INFINITY);
}

/* Alternate alpha = 1 (then x' = v, which exposes the vertex) and a fraction
 * (which exercises the incremental residuals), with z weights that do not
 * sum exactly to one in floating point. */
static void drive(inst *I, double *used)
{
    const slv_oracle_ops *ops = I->pb->ops;
    ircg_settings s;
    void *ws = NULL;
    double x[N], z[N], xn[N], zn[N], gr[N];
    ircg_settings_default(&s);
    REQUIRE(ops->create(I->pb, &s, &ws, NULL) == IRCG_OK);
    get_vec(I->pb, ws, IRCG_X, x);
    memcpy(z, x, sizeof z);
    for (int t = 0; t < 40; t++) {
        double sigma = 0.7 / (t + 1), a = (t % 2) ? 0.3 : 1.0;
        double cz = 0.6, co = -0.1 / 3, cn = 1 - cz - co;
        slv_dir dir = {0};
        REQUIRE(ops->lmo(ws, sigma, &dir) == IRCG_OK);
        REQUIRE(ops->step(ws, a, cz, co, cn) == IRCG_OK);
        get_vec(I->pb, ws, IRCG_X, xn);
        get_vec(I->pb, ws, IRCG_Z, zn);
        if (a == 1.0) { /* xn is the vertex v: check the direction's scalars */
            double d[N], gd = 0, dd = 0, r1[M], r0[M], hg = 0;
            grad_phi(I, sigma, x, gr);
            resid(I, xn, r1);
            resid(I, x, r0);
            for (int j = 0; j < N; j++) {
                d[j] = xn[j] - x[j];
                gd += gr[j] * d[j];
                dd += d[j] * d[j];
            }
            for (int i = 0; i < M; i++)
                hg += (r1[i] - r0[i]) * (r1[i] - r0[i]);
            CHECK_NEAR(dir.gphi_d, gd, 1e-12);
            CHECK_NEAR(dir.d_norm2, dd, 1e-12);
            CHECK_NEAR(dir.d_hf_d, dhd(I, d), 1e-12);
            CHECK_NEAR(dir.d_hg_d, hg, 1e-12);
            CHECK(isnan(dir.top_sv));
            CHECK_INT(dir.matvecs, 2);
        }
        for (int j = 0; j < N; j++)
            CHECK_NEAR(zn[j], cz * z[j] + co * x[j] + cn * xn[j], 1e-13);
        slv_values v = {0};
        ops->values(ws, NULL, &v);
        CHECK_NEAR(v.g_x, g_of(I, xn), 1e-12);
        CHECK_NEAR(v.g_z, g_of(I, zn), 1e-12);
        CHECK_NEAR(v.f_x, f_of(I, xn), 1e-12);
        CHECK_NEAR(v.f_z, f_of(I, zn), 1e-12);
        CHECK(isnan(v.g_gap_x));
        double rz[M];
        resid(I, zn, rz);
        const double *wr = ops->residual(ws, IRCG_Z);
        for (int i = 0; i < M; i++)
            CHECK_NEAR(wr[i], rz[i], 1e-12);
        ops->values(ws, rz, &v); /* difference formula against r(z) */
        CHECK_NEAR(v.g_gap_z, 0, 1e-14);
        const double *wx = ops->residual(ws, IRCG_X);
        *used = fmax(*used, check_gap(wx, rz, v.g_gap_x));
        /* a reference near x: g - g_ref about 1e-8 g, terms of both signs */
        double qn[M];
        uint64_t sd = 77 + (uint64_t)t;
        for (int i = 0; i < M; i++)
            qn[i] = wx[i] * (1 + 1e-8 * test_urand(&sd));
        ops->values(ws, qn, &v);
        *used = fmax(*used, check_gap(wx, qn, v.g_gap_x));
        memcpy(x, xn, sizeof x);
        memcpy(z, zn, sizeof z);
    }
    CHECK_INT(ops->step(ws, 0.5, 0, 0, 1), IRCG_ERR_INVALID); /* no LMO yet */
    ops->destroy(ws);
}

TEST(ls_oracle, scalars_and_values_match_direct_computation)
{
    const ircg_domain doms[4] = {
        {IRCG_DOMAIN_L2_BALL, 1.5, 0, 0}, {IRCG_DOMAIN_L1_BALL, 2, 0, 0},
        {IRCG_DOMAIN_SIMPLEX, 3, 0, 0}, {IRCG_DOMAIN_BOX, 0, -0.5, 1}};
    const ircg_outer_kind outs[4] = {IRCG_OUTER_HALF_NORM_SQ, IRCG_OUTER_DIST_SQ,
                                     IRCG_OUTER_QUADRATIC, IRCG_OUTER_VALIDATION};
    double used = 0;
    for (int k = 0; k < 4; k++) {
        for (int o = 0; o < 4; o++) {
            inst I;
            inst_make(&I, outs[o], doms[k], 100 + 10 * k + o);
            REQUIRE(I.pb != NULL);
            drive(&I, &used);
            ircg_problem_free(I.pb);
        }
    }
    printf("    g - g_ref against the long-double terms: at most %.2f of the derived "
           "tolerance used (1280 sums, half near cancellation)\n", used);
}

static ircg_error new_solver(const ircg_problem *pb, ircg_start st, const double *x0,
                             ircg_solver **sv, ircg_diag *dg)
{
    ircg_settings s;
    ircg_settings_default(&s);
    s.start = st;
    s.x0 = x0;
    s.max_iter = 25;
    s.step_rule = IRCG_STEP_CLOSED_LOOP;
    return ircg_solver_new(pb, &s, sv, dg);
}

TEST(ls_oracle, start_points)
{
    inst I;
    ircg_diag dg;
    ircg_solver *sv = NULL;
    ircg_iterate *it = NULL;
    inst_make(&I, IRCG_OUTER_HALF_NORM_SQ, (ircg_domain){IRCG_DOMAIN_SIMPLEX, 3, 0, 0}, 5);
    REQUIRE(new_solver(I.pb, IRCG_START_DEFAULT, NULL, &sv, &dg) == IRCG_OK);
    REQUIRE(ircg_solver_iterate(sv, IRCG_Z, 0, &it) == IRCG_OK);
    for (int j = 0; j < N; j++)
        CHECK_NEAR(it->dense[j], 0.5, 0); /* the simplex's center 3/6 */
    ircg_iterate_free(it);
    ircg_solver_free(sv);
    CHECK_INT(new_solver(I.pb, IRCG_START_ZERO, NULL, &sv, &dg), IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/start");
    double bad[N] = {3, 0, 0, 0, 0, 0.01}, good[N] = {1, 0, 0, 0, 0, 2};
    CHECK_INT(new_solver(I.pb, IRCG_START_GIVEN, bad, &sv, &dg), IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/x0");
    CHECK(sv == NULL);
    REQUIRE(new_solver(I.pb, IRCG_START_GIVEN, good, &sv, &dg) == IRCG_OK);
    REQUIRE(ircg_solver_iterate(sv, IRCG_X, 0, &it) == IRCG_OK);
    CHECK(memcmp(it->dense, good, sizeof good) == 0);
    CHECK_INT(it->kind, IRCG_PROBLEM_LEAST_SQUARES);
    CHECK_INT(it->dim, N);
    ircg_iterate_free(it);
    ircg_solver_free(sv);
    ircg_problem_free(I.pb);
    inst_make(&I, IRCG_OUTER_HALF_NORM_SQ, (ircg_domain){IRCG_DOMAIN_BOX, 0, 1, 2}, 5);
    CHECK_INT(new_solver(I.pb, IRCG_START_ZERO, NULL, &sv, &dg), IRCG_ERR_INVALID);
    REQUIRE(new_solver(I.pb, IRCG_START_DEFAULT, NULL, &sv, &dg) == IRCG_OK);
    REQUIRE(ircg_solver_iterate(sv, IRCG_X, 0, &it) == IRCG_OK);
    CHECK(it->dense[0] == 1 && it->dense[N - 1] == 1);
    ircg_iterate_free(it);
    ircg_solver_free(sv);
    ircg_problem_free(I.pb);
}

static void both_iterates(ircg_solver *sv, double *xz)
{
    ircg_iterate *it = NULL;
    for (int w = 0; w < 2; w++) {
        if (ircg_solver_iterate(sv, (ircg_which)w, 0, &it) == IRCG_OK)
            memcpy(xz + w * N, it->dense, N * sizeof *xz);
        ircg_iterate_free(it);
        it = NULL;
    }
}

static void checkpoint_continues(ircg_outer_kind kind);

TEST(ls_oracle, checkpoint_continues_exactly)
{
    checkpoint_continues(IRCG_OUTER_QUADRATIC);
    checkpoint_continues(IRCG_OUTER_VALIDATION); /* outer vectors of length m_v */
}

static void checkpoint_continues(ircg_outer_kind kind)
{
    inst I, J;
    ircg_solver *a = NULL, *b = NULL, *c = NULL;
    ircg_info ia, ib;
    ircg_diag dg;
    void *blob = NULL;
    size_t len = 0;
    double xa[2 * N], xb[2 * N];
    inst_make(&I, kind, (ircg_domain){IRCG_DOMAIN_L1_BALL, 2, 0, 0}, 77);
    REQUIRE(new_solver(I.pb, IRCG_START_DEFAULT, NULL, &a, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(a, &ia) == IRCG_OK);
    REQUIRE(ircg_solver_save(a, &blob, &len) == IRCG_OK);
    ircg_solver_settings(a)->max_iter = 60;
    REQUIRE(ircg_solve(a, &ia) == IRCG_OK);
    REQUIRE(new_solver(I.pb, IRCG_START_DEFAULT, NULL, &b, NULL) == IRCG_OK);
    REQUIRE(ircg_solver_restore(b, blob, len, &dg) == IRCG_OK);
    ircg_solver_settings(b)->max_iter = 60;
    REQUIRE(ircg_solve(b, &ib) == IRCG_OK);
    both_iterates(a, xa);
    both_iterates(b, xb);
    CHECK(memcmp(xa, xb, sizeof xa) == 0);
    CHECK(ia.g_z == ib.g_z && ia.f_z == ib.f_z && ia.gap == ib.gap);
    CHECK_INT(ib.iterations, 60);
    /* same shape, another outer kind: the oracle's own check */
    inst_make(&J, IRCG_OUTER_DIST_SQ, (ircg_domain){IRCG_DOMAIN_L1_BALL, 2, 0, 0}, 77);
    REQUIRE(new_solver(J.pb, IRCG_START_DEFAULT, NULL, &c, NULL) == IRCG_OK);
    CHECK_INT(ircg_solver_restore(c, blob, len, &dg), IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/checkpoint");
    /* truncated */
    CHECK_INT(ircg_solver_restore(b, blob, len - 8, &dg), IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/checkpoint");
    free(blob);
    ircg_solver_free(a);
    ircg_solver_free(b);
    ircg_solver_free(c);
    ircg_problem_free(I.pb);
    ircg_problem_free(J.pb);
}
