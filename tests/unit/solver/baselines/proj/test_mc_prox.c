/*
 * test_mc_prox.c -- the matrix-completion projection workspace through its
 * oracle operations: the scalars of every move (<grad f, d>, <grad g, d>,
 * ||U d||^2, ||P_Omega d||^2, ||d||^2), the pending point's g, f and
 * residual, all against dense computations on the explicit matrices, for
 * projected and outer (Bi-SG) steps, from points with and without the
 * 1 w' term; start points; and bad arguments.
 */
/* make test-kernels: mc_prox. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "core/oracle.h"
#include "unit/solver/test_mc_util.h"

static double *dense_of(const slv_oracle_ops *ops, void *ws, ircg_which which)
{
    ircg_iterate *it = NULL;
    double *X;
    if (ops->iterate(ws, which, 1, &it) != IRCG_OK)
        return NULL;
    X = it->dense;
    it->dense = NULL;
    ircg_iterate_free(it);
    return X;
}

/* The residual in CSR order (rows, then columns ascending) densely. */
static void check_residual(const mct_inst *in, const double *r, const double *X)
{
    int64_t e = 0;
    double err = 0;
    for (int i = 0; i < in->n; i++)
        for (int j = 0; j < in->p; j++) {
            size_t q = i + (size_t)j * in->n;
            if (in->mask[q] != 0)
                err = fmax(err, fabs(r[e++] - (X[q] - in->Md[q])));
        }
    CHECK(err <= 1e-12);
}

/* One grad_step from `from` into slot `into` (IRCG_SLOT_X or _Z), checked
 * against dense formulas. */
static void step_and_check(const mct_inst *in, ircg_outer_kind outer, void *ws,
                           unsigned from, unsigned into, double a_f, double a_g,
                           int project, ircg_projection mode)
{
    const slv_oracle_ops *ops = in->pb->prox_ops;
    size_t np = (size_t)in->n * in->p;
    ircg_which wf = from == IRCG_SLOT_Z ? IRCG_Z : IRCG_X;
    ircg_which wi = into == IRCG_SLOT_Z ? IRCG_Z : IRCG_X;
    double *Y = dense_of(ops, ws, wf), *P = NULL, *D = malloc(np * sizeof *D);
    double *Gf = malloc(np * sizeof *Gf), *Gg = malloc(np * sizeof *Gg);
    double *Z = malloc(np * sizeof *Z), *Ref = malloc(np * sizeof *Ref);
    slv_move mv;
    slv_values val = {0};

    REQUIRE(Y != NULL);
    REQUIRE(in->pb->proj->grad_step(ws, from, a_f, a_g, project, mode, &mv) == IRCG_OK);
    REQUIRE(in->pb->proj->accept(ws, into) == IRCG_OK);
    REQUIRE((P = dense_of(ops, ws, wi)) != NULL);

    /* the pending point itself */
    mct_grad(in, outer, 0.0, Y, Gg);             /* P_Omega(Y - M) */
    mct_grad(in, outer, 1.0, Y, Gf);
    for (size_t e = 0; e < np; e++) {
        Gf[e] -= Gg[e];                           /* grad f(Y) */
        Z[e] = Y[e] - a_f * Gf[e] - a_g * Gg[e];
    }
    if (project)
        REQUIRE(mct_proj_nuclear(in->n, in->p, Z, 5.0, Ref) >= 0); /* delta 5 */
    else
        memcpy(Ref, Z, np * sizeof *Ref);
    double scale = fmax(mct_norm(Ref, np), 1.0);
    CHECK(mct_dist(P, Ref, np) <= 1e-9 * scale);

    /* the move's scalars */
    for (size_t e = 0; e < np; e++)
        D[e] = P[e] - Y[e];
    double dn2 = mct_dot(D, D, np), s2 = fmax(dn2, 1e-300);
    CHECK_REL(mv.gf_d, mct_dot(Gf, D, np), 1e-9, sqrt(s2) * mct_norm(Gf, np));
    CHECK_REL(mv.gg_d, mct_dot(Gg, D, np), 1e-9, sqrt(s2) * mct_norm(Gg, np));
    CHECK_REL(mv.d_hf_d, mct_hf(in, outer, D), 1e-9, s2);
    CHECK_REL(mv.d_hg_d, mct_hg(in, D), 1e-9, s2);
    CHECK_REL(mv.d_norm2, dn2, 1e-9, 1e-300);
    CHECK_INT(mv.full, project && mode == IRCG_PROJ_FULL);
    CHECK_INT(mv.converged, 1);

    /* values and residual of the slot that took it */
    ops->values(ws, NULL, &val);
    double g = into == IRCG_SLOT_Z ? val.g_z : val.g_x;
    double f = into == IRCG_SLOT_Z ? val.f_z : val.f_x;
    CHECK_REL(g, mct_g(in, P), 1e-11, 1e-12);
    CHECK_REL(f, mct_f(in, outer, P), 1e-10, 1e-12);
    check_residual(in, ops->residual(ws, wi), P);
    free(Y);
    free(P);
    free(D);
    free(Gf);
    free(Gg);
    free(Z);
    free(Ref);
}

/* The Bi-SG pattern: projected step, outer step (1 w' appears), projected
 * step from that point, an IR-PG-like step from it, another outer step. */
static void moves(int n, int p, ircg_outer_kind outer, ircg_projection mode)
{
    mct_inst in;
    ircg_settings s;
    void *ws = NULL;

    REQUIRE(mct_make(&in, n, p, 0.4, 5.0, outer, 77 + (uint64_t)n) == 0);
    ircg_settings_default(&s);
    s.algorithm = IRCG_ALG_BISG;
    s.lmo_tol = 1e-13;
    REQUIRE(in.pb->prox_ops->create(in.pb, &s, &ws, NULL) == IRCG_OK);
    step_and_check(&in, outer, ws, IRCG_SLOT_Z, IRCG_SLOT_X, 0.0, 1.0, 1, mode);
    step_and_check(&in, outer, ws, IRCG_SLOT_X, IRCG_SLOT_Z, 0.6, 0.0, 0, mode);
    step_and_check(&in, outer, ws, IRCG_SLOT_Z, IRCG_SLOT_X, 0.0, 1.0, 1, mode);
    step_and_check(&in, outer, ws, IRCG_SLOT_Z, IRCG_SLOT_Z, 0.3, 0.7, 1, mode);
    step_and_check(&in, outer, ws, IRCG_SLOT_Z, IRCG_SLOT_Z, 1.7, 0.0, 0, mode);
    step_and_check(&in, outer, ws, IRCG_SLOT_Z, IRCG_SLOT_X, 0.01, 0.5, 1, mode);
    in.pb->prox_ops->destroy(ws);
    mct_free(&in);
}

TEST(mc_prox, moves_column_variance_partial)
{
    moves(30, 20, IRCG_OUTER_COLUMN_VARIANCE, IRCG_PROJ_PARTIAL);
    moves(80, 60, IRCG_OUTER_COLUMN_VARIANCE, IRCG_PROJ_PARTIAL);
}
TEST(mc_prox, moves_column_variance_full)
{
    moves(30, 20, IRCG_OUTER_COLUMN_VARIANCE, IRCG_PROJ_FULL);
}
TEST(mc_prox, moves_half_norm)
{
    moves(25, 35, IRCG_OUTER_HALF_NORM_SQ, IRCG_PROJ_PARTIAL);
    moves(25, 35, IRCG_OUTER_HALF_NORM_SQ, IRCG_PROJ_FULL);
}

static void check_start(const mct_inst *in, ircg_start start, const double *x0,
                        const double *expect)
{
    const slv_oracle_ops *ops = in->pb->prox_ops;
    size_t np = (size_t)in->n * in->p;
    ircg_settings s;
    void *ws = NULL;
    slv_values val = {0};
    double *X, *Z;

    ircg_settings_default(&s);
    s.algorithm = IRCG_ALG_IRPG;
    s.start = start;
    s.x0 = x0;
    REQUIRE(ops->create(in->pb, &s, &ws, NULL) == IRCG_OK);
    X = dense_of(ops, ws, IRCG_X);
    Z = dense_of(ops, ws, IRCG_Z);
    REQUIRE(X && Z);
    CHECK(mct_dist(X, expect, np) <= 1e-12 * fmax(mct_norm(expect, np), 1));
    CHECK(mct_dist(Z, X, np) == 0);
    ops->values(ws, NULL, &val);
    CHECK_REL(val.g_x, mct_g(in, expect), 1e-12, 0);
    CHECK_REL(val.f_x, mct_f(in, IRCG_OUTER_COLUMN_VARIANCE, expect), 1e-10, 1e-15);
    CHECK(val.g_z == val.g_x && val.f_z == val.f_x);
    check_residual(in, ops->residual(ws, IRCG_X), expect);
    free(X);
    free(Z);
    ops->destroy(ws);
}

TEST(mc_prox, start_points)
{
    mct_inst in;
    int n = 12, p = 9;
    size_t np = (size_t)n * p;
    double *E = calloc(np, sizeof *E), sv[2] = {2.0, 1.5};
    ircg_settings s;
    ircg_solver *sv_ = NULL;
    ircg_diag diag = {0};

    REQUIRE(mct_make(&in, n, p, 0.5, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 5) == 0);
    for (int i = 0; i < p; i++) /* the paper's X0: 0.01 delta / min(n, p) */
        E[i + (size_t)i * n] = 0.01 * 5.0 / p;
    check_start(&in, IRCG_START_DEFAULT, NULL, E);
    memset(E, 0, np * sizeof *E);
    check_start(&in, IRCG_START_ZERO, NULL, E);
    REQUIRE(mct_with_spectrum(n, p, 2, sv, 3, E) == 0); /* ||x0||_* = 3.5 */
    check_start(&in, IRCG_START_GIVEN, E, E);

    /* outside the ball, or not finite: refused, naming /x0 */
    ircg_settings_default(&s);
    s.algorithm = IRCG_ALG_BISG;
    s.start = IRCG_START_GIVEN;
    s.x0 = E;
    for (size_t e = 0; e < np; e++)
        E[e] *= 2.0; /* ||x0||_* = 7 > 5 */
    CHECK(ircg_solver_new(in.pb, &s, &sv_, &diag) == IRCG_ERR_INVALID);
    CHECK_STR(diag.field, "/x0");
    CHECK(sv_ == NULL);
    E[3] = NAN;
    CHECK(ircg_solver_new(in.pb, &s, &sv_, &diag) == IRCG_ERR_INVALID);
    CHECK_STR(diag.field, "/x0");
    free(E);
    mct_free(&in);
}

TEST(mc_prox, bad_arguments)
{
    mct_inst in;
    const slv_oracle_ops *ops;
    ircg_settings s;
    slv_move mv;
    void *ws = NULL;

    REQUIRE(mct_make(&in, 10, 8, 0.5, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 9) == 0);
    ops = in.pb->prox_ops;
    ircg_settings_default(&s);
    s.algorithm = IRCG_ALG_IRPG;
    REQUIRE(ops->create(in.pb, &s, &ws, NULL) == IRCG_OK);
    CHECK(in.pb->proj->accept(ws, IRCG_SLOT_X) == IRCG_ERR_INVALID); /* nothing pending */
    CHECK(in.pb->proj->grad_step(ws, IRCG_SLOT_X, 0.5, 0.5, 0, IRCG_PROJ_PARTIAL, &mv) ==
          IRCG_ERR_INVALID); /* a_g without projection */
    CHECK(in.pb->proj->grad_step(ws, 3, 0.5, 0.5, 1, IRCG_PROJ_PARTIAL, &mv) == IRCG_ERR_INVALID);
    CHECK(in.pb->proj->grad_step(ws, 0, 0.5, 0.5, 1, IRCG_PROJ_PARTIAL, &mv) == IRCG_ERR_INVALID);
    CHECK(in.pb->proj->grad_step(ws, IRCG_SLOT_X, NAN, 0.5, 1, IRCG_PROJ_PARTIAL, &mv) ==
          IRCG_ERR_INVALID);
    CHECK(in.pb->proj->grad_step(ws, IRCG_SLOT_X, 0.5, INFINITY, 1, IRCG_PROJ_FULL, &mv) ==
          IRCG_ERR_INVALID);
    CHECK(in.pb->proj->grad_step(ws, IRCG_SLOT_X, 0.5, 0.5, 1, (ircg_projection)7, &mv) ==
          IRCG_ERR_INVALID);
    CHECK(in.pb->proj->accept(ws, IRCG_SLOT_X) == IRCG_ERR_INVALID); /* still nothing */
    REQUIRE(in.pb->proj->grad_step(ws, IRCG_SLOT_X, 0.1, 0.5, 1, IRCG_PROJ_PARTIAL, &mv) ==
            IRCG_OK);
    CHECK(in.pb->proj->accept(ws, 0) == IRCG_ERR_INVALID);
    CHECK(in.pb->proj->accept(ws, 4) == IRCG_ERR_INVALID);
    CHECK(in.pb->proj->accept(ws, IRCG_SLOT_X | IRCG_SLOT_Z) == IRCG_OK);
    ops->destroy(ws);
    ops->destroy(NULL);
    mct_free(&in);
}
