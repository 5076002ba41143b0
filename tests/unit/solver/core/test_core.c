/*
 * test_core.c -- the IR-CG loop itself: settings validation, the step rules,
 * the averaged iterate z_t against the paper's explicit formula (eq. z),
 * stopping rules, resuming, checkpoints, and g_opt against a closed form.
 * Instances are small least-squares problems generated here.
 */
/* make test-kernels: core. */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "core/solver_internal.h"
#include "test_num.h"

typedef struct ls_inst {
    int m, n;
    double *A, *b;
    ircg_problem *pb;
} ls_inst;

static void ls_make(ls_inst *L, int m, int n, double radius, uint64_t seed)
{
    L->m = m;
    L->n = n;
    L->A = malloc((size_t)m * n * sizeof *L->A);
    L->b = malloc((size_t)m * sizeof *L->b);
    for (int i = 0; i < m * n; i++)
        L->A[i] = test_urand(&seed);
    for (int i = 0; i < m; i++)
        L->b[i] = 3.0 * test_urand(&seed);
    ircg_ls_data d = {.m = m, .n = n, .A_dense = L->A, .b = L->b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {.kind = IRCG_DOMAIN_L2_BALL, .radius = radius};
    L->pb = NULL;
    ircg_problem_least_squares(&d, &o, &dom, &L->pb, NULL);
}

static void ls_free(ls_inst *L)
{
    ircg_problem_free(L->pb);
    free(L->A);
    free(L->b);
}

typedef struct bad_setting {
    const char *field;
    ircg_settings s;
} bad_setting;

TEST(core, settings_validation_names_the_member)
{
    ircg_settings s;
    ircg_diag d;
    bad_setting bad[12];
    int n = 0;
    ircg_settings_default(&s);
    CHECK_INT(ircg_settings_validate(&s, &d), IRCG_OK);
    for (int i = 0; i < 12; i++)
        bad[i].s = s;
    bad[n].field = "/varsigma"; bad[n++].s.varsigma = -1e-300;
    bad[n].field = "/varsigma"; bad[n++].s.varsigma = INFINITY;
    bad[n].field = "/p"; bad[n++].s.p = 1.0;
    bad[n].field = "/p"; bad[n++].s.p = 0.0;
    bad[n].field = "/p"; bad[n++].s.p = NAN;
    bad[n].field = "/max_iter"; bad[n++].s.max_iter = 0;
    bad[n].field = "/time_limit"; bad[n++].s.time_limit = -1;
    bad[n].field = "/lmo_tol"; bad[n++].s.lmo_tol = 0;
    bad[n].field = "/threads"; bad[n++].s.threads = 0;
    bad[n].field = "/x0"; bad[n++].s.start = IRCG_START_GIVEN;
    bad[n].field = "/gap_tol"; bad[n++].s.gap_tol = -1;
    bad[n].field = "/step_rule"; bad[n++].s.step_rule = (ircg_step_rule)7;
    for (int i = 0; i < n; i++) {
        memset(&d, 0, sizeof d);
        CHECK_INT(ircg_settings_validate(&bad[i].s, &d), IRCG_ERR_INVALID);
        CHECK_STR(d.field, bad[i].field);
        CHECK(d.message[0] != '\0');
    }
}

TEST(core, step_rules_match_their_formulas)
{
    slv_dir d = {.gphi_d = -3.0, .d_norm2 = 4.0, .d_hf_d = 2.0, .d_hg_d = 5.0};
    CHECK_NEAR(slv_step_size(IRCG_STEP_OPEN_LOOP, 0, 0.1, &d, 1, 1), 1.0, 0);
    CHECK_NEAR(slv_step_size(IRCG_STEP_OPEN_LOOP, 8, 0.1, &d, 1, 1), 0.2, 1e-16);
    /* closed loop: 3 / ((0.5*2 + 3) * 4) = 3/16 */
    CHECK_NEAR(slv_step_size(IRCG_STEP_CLOSED_LOOP, 3, 0.5, &d, 2, 3), 3.0 / 16, 1e-16);
    /* exact: 3 / (0.5*2 + 5) = 0.5 */
    CHECK_NEAR(slv_step_size(IRCG_STEP_LINE_SEARCH, 3, 0.5, &d, 2, 3), 0.5, 1e-16);
    /* clipped to 1, and 0 for a non-descent direction */
    d.gphi_d = -100;
    CHECK_NEAR(slv_step_size(IRCG_STEP_LINE_SEARCH, 3, 0.5, &d, 2, 3), 1.0, 0);
    d.gphi_d = 0;
    CHECK_NEAR(slv_step_size(IRCG_STEP_CLOSED_LOOP, 3, 0.5, &d, 2, 3), 0.0, 0);
    CHECK_NEAR(ircg_sigma(0.05, 0.5, 3), 0.025, 1e-17);
}

/* x_t and z_t after each iteration, by running one iteration per call. */
static void run_stepwise(ircg_solver *sv, int T, int n, double *xs, double *zs)
{
    for (int t = 1; t <= T; t++) {
        ircg_iterate *x = NULL, *z = NULL;
        ircg_solver_settings(sv)->max_iter = t;
        ircg_solve(sv, NULL);
        ircg_solver_iterate(sv, IRCG_X, 0, &x);
        ircg_solver_iterate(sv, IRCG_Z, 0, &z);
        memcpy(xs + (size_t)t * n, x->dense, (size_t)n * sizeof(double));
        memcpy(zs + (size_t)t * n, z->dense, (size_t)n * sizeof(double));
        ircg_iterate_free(x);
        ircg_iterate_free(z);
    }
}

TEST(core, averaged_iterate_matches_the_explicit_formula)
{
    /* z_t = ((t+1)t s_t x_t + sum_{i=1}^t (i+1)i (s_{i-1} - s_i) x_i) / S_t
     * with S_t the sum of the weights (the paper's eqs. S and z). */
    enum { T = 25 };
    ls_inst L;
    ls_make(&L, 12, 20, 1.0, 7);
    REQUIRE(L.pb);
    for (int rule = 0; rule < 3; rule++) {
        ircg_settings s;
        ircg_solver *sv = NULL;
        ircg_settings_default(&s);
        s.step_rule = (ircg_step_rule)rule;
        s.varsigma = 0.3;
        s.p = 0.4;
        REQUIRE(ircg_solver_new(L.pb, &s, &sv, NULL) == IRCG_OK);
        int n = L.n;
        double *xs = calloc((size_t)(T + 1) * n, sizeof *xs);
        double *zs = calloc((size_t)(T + 1) * n, sizeof *zs);
        run_stepwise(sv, T, n, xs, zs);
        double worst = 0;
        for (int t = 1; t <= T; t++) {
            double st = ircg_sigma(s.varsigma, s.p, t), S = (t + 1.0) * t * st;
            for (int i = 1; i <= t; i++)
                S += (i + 1.0) * i * (ircg_sigma(s.varsigma, s.p, i - 1) -
                                      ircg_sigma(s.varsigma, s.p, i));
            for (int k = 0; k < n; k++) {
                double num = (t + 1.0) * t * st * xs[(size_t)t * n + k];
                for (int i = 1; i <= t; i++)
                    num += (i + 1.0) * i *
                           (ircg_sigma(s.varsigma, s.p, i - 1) -
                            ircg_sigma(s.varsigma, s.p, i)) * xs[(size_t)i * n + k];
                worst = fmax(worst, fabs(num / S - zs[(size_t)t * n + k]));
            }
        }
        CHECK(worst <= 1e-13);
        free(xs);
        free(zs);
        ircg_solver_free(sv);
    }
    ls_free(&L);
}

static int stop_after_3(void *u, const ircg_iter_info *it)
{
    (void)u;
    return it->t >= 3;
}

TEST(core, stopping_rules)
{
    ls_inst L;
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_info info;
    volatile int cancel = 0;
    ls_make(&L, 10, 15, 1.0, 3);
    REQUIRE(L.pb);
    ircg_settings_default(&s);
    s.max_iter = 7;
    REQUIRE(ircg_solver_new(L.pb, &s, &sv, NULL) == IRCG_OK);
    CHECK_INT(ircg_solve(sv, &info), IRCG_OK);
    CHECK_INT(info.status, IRCG_STATUS_MAX_ITER);
    CHECK_INT(info.iterations, 7);
    ircg_solver_free(sv);

    s.callback = stop_after_3;
    REQUIRE(ircg_solver_new(L.pb, &s, &sv, NULL) == IRCG_OK);
    ircg_solve(sv, &info);
    CHECK_INT(info.status, IRCG_STATUS_INTERRUPTED);
    CHECK_INT(info.iterations, 3);
    ircg_solver_free(sv);

    s.callback = NULL;
    s.cancel = &cancel;
    cancel = 1;
    REQUIRE(ircg_solver_new(L.pb, &s, &sv, NULL) == IRCG_OK);
    ircg_solve(sv, &info);
    CHECK_INT(info.status, IRCG_STATUS_CANCELLED);
    CHECK_INT(info.iterations, 0);
    ircg_solver_free(sv);

    s.cancel = NULL;
    s.max_iter = 1000000000;
    s.time_limit = 0.05;
    REQUIRE(ircg_solver_new(L.pb, &s, &sv, NULL) == IRCG_OK);
    ircg_solve(sv, &info);
    CHECK_INT(info.status, IRCG_STATUS_TIME_LIMIT);
    CHECK(info.solve_seconds >= 0.05 && info.solve_seconds < 1.0);
    ircg_solver_free(sv);

    /* gap_tol: the line-search rule on a problem whose ball contains the
     * unconstrained least-squares points reaches a small gap. */
    s.time_limit = 0;
    s.max_iter = 100000;
    s.gap_tol = 1e-3;
    s.step_rule = IRCG_STEP_LINE_SEARCH;
    REQUIRE(ircg_solver_new(L.pb, &s, &sv, NULL) == IRCG_OK);
    ircg_solve(sv, &info);
    CHECK_INT(info.status, IRCG_STATUS_CONVERGED);
    CHECK(info.gap <= 1e-3);
    ircg_solver_free(sv);
    ls_free(&L);
}

TEST(core, resuming_and_checkpoints_continue_exactly)
{
    ls_inst L;
    ircg_settings s;
    ircg_solver *a = NULL, *b = NULL, *c = NULL;
    ircg_info ia, ib, ic;
    void *blob = NULL;
    size_t len = 0;
    ls_make(&L, 15, 25, 0.8, 11);
    REQUIRE(L.pb);
    ircg_settings_default(&s);
    s.step_rule = IRCG_STEP_CLOSED_LOOP;
    s.max_iter = 40;
    REQUIRE(ircg_solver_new(L.pb, &s, &a, NULL) == IRCG_OK);
    ircg_solve(a, &ia);

    s.max_iter = 17;
    REQUIRE(ircg_solver_new(L.pb, &s, &b, NULL) == IRCG_OK);
    ircg_solve(b, &ib);
    REQUIRE(ircg_solver_save(b, &blob, &len) == IRCG_OK);
    ircg_solver_settings(b)->max_iter = 40;
    ircg_solve(b, &ib); /* resumed in place */

    REQUIRE(ircg_solver_new(L.pb, &s, &c, NULL) == IRCG_OK);
    REQUIRE(ircg_solver_restore(c, blob, len, NULL) == IRCG_OK);
    ircg_solver_settings(c)->max_iter = 40;
    ircg_solve(c, &ic); /* resumed from the checkpoint */

    CHECK_INT(ib.iterations, 40);
    CHECK_INT(ic.iterations, 40);
    CHECK(ia.g_x == ib.g_x && ia.f_x == ib.f_x && ia.g_z == ib.g_z && ia.f_z == ib.f_z);
    CHECK(ia.g_x == ic.g_x && ia.f_x == ic.f_x && ia.g_z == ic.g_z && ia.f_z == ic.f_z);

    /* a corrupted or foreign checkpoint is refused with a reason */
    ircg_diag d = {0};
    CHECK_INT(ircg_solver_restore(c, blob, len - 8, &d), IRCG_ERR_INVALID);
    CHECK_STR(d.field, "/checkpoint");
    ls_inst L2;
    ircg_solver *e = NULL;
    ls_make(&L2, 15, 26, 0.8, 11);
    REQUIRE(ircg_solver_new(L2.pb, &s, &e, NULL) == IRCG_OK);
    CHECK_INT(ircg_solver_restore(e, blob, len, &d), IRCG_ERR_INVALID);
    free(blob);
    ircg_solver_free(a);
    ircg_solver_free(b);
    ircg_solver_free(c);
    ircg_solver_free(e);
    ls_free(&L);
    ls_free(&L2);
}

TEST(core, reference_g_opt_matches_least_squares_closed_form)
{
    /* Overdetermined A (40 x 8): over a ball containing the least-squares
     * solution, g_opt = 1/2 ||A x_ls - b||^2 with x_ls from LAPACKE_dgels. */
    enum { M = 40, N = 8 };
    ls_inst L;
    ls_make(&L, M, N, 1e3, 5);
    REQUIRE(L.pb);
    double A[M * N], b[M];
    memcpy(A, L.A, sizeof A);
    memcpy(b, L.b, sizeof b);
    REQUIRE(LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', M, N, 1, A, N, b, 1) == 0);
    double g_ls = 0;
    for (int i = N; i < M; i++)
        g_ls += 0.5 * b[i] * b[i]; /* dgels leaves the residual there */

    ircg_reference_settings rs;
    ircg_reference *ref = NULL;
    ircg_reference_info ri;
    ircg_reference_settings_default(&rs);
    rs.tol = 1e-8;
    REQUIRE(ircg_reference_compute(L.pb, &rs, &ref, NULL) == IRCG_OK);
    ircg_reference_get_info(ref, &ri);
    CHECK_INT(ri.status, IRCG_STATUS_CONVERGED);
    CHECK(ri.gap <= rs.tol);
    /* the certificate: g_opt - gap <= true minimum <= g_opt */
    CHECK(ri.g_opt - ri.gap <= g_ls + 1e-12 * g_ls);
    CHECK(ri.g_opt >= g_ls - 1e-12 * g_ls);
    CHECK_NEAR(ri.g_opt, g_ls, rs.tol + 1e-12 * g_ls);
    CHECK(ri.lower_bound <= g_ls * (1 + 1e-12));

    /* with the reference, the solver reports g - g_opt termwise */
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_info info;
    ircg_settings_default(&s);
    s.reference = ref;
    s.max_iter = 30;
    REQUIRE(ircg_solver_new(L.pb, &s, &sv, NULL) == IRCG_OK);
    ircg_solve(sv, &info);
    CHECK_REL(info.g_gap_x, info.g_x - ri.g_opt, 1e-9, 1e-12);
    CHECK(info.g_gap_x >= -1e-12);
    ircg_solver_free(sv);
    ircg_reference_free(ref);
    ls_free(&L);
}

/* varsigma = 0: IR-CG is conditional gradient on g alone (open loop), as
 * written out here on the l2 ball, and z_t = x_t (no averaging weights). */
TEST(core, varsigma_zero_is_conditional_gradient_on_g)
{
    enum { T = 40, M = 8, N = 14 };
    ls_inst L;
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_iterate *x = NULL, *z = NULL;
    double xr[N] = {0}, r[M], gr[N], worst = 0;
    ls_make(&L, M, N, 0.7, 11);
    REQUIRE(L.pb);
    ircg_settings_default(&s);
    s.varsigma = 0;
    s.max_iter = T;
    REQUIRE(ircg_solver_new(L.pb, &s, &sv, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(sv, NULL) == IRCG_OK);
    REQUIRE(ircg_solver_iterate(sv, IRCG_X, 0, &x) == IRCG_OK);
    REQUIRE(ircg_solver_iterate(sv, IRCG_Z, 0, &z) == IRCG_OK);
    for (int t = 0; t < T; t++) {
        double nrm = 0, a = 2.0 / (t + 2);
        for (int i = 0; i < M; i++) {
            r[i] = -L.b[i];
            for (int j = 0; j < N; j++)
                r[i] += L.A[i * N + j] * xr[j];
        }
        for (int j = 0; j < N; j++) {
            gr[j] = 0;
            for (int i = 0; i < M; i++)
                gr[j] += L.A[i * N + j] * r[i];
            nrm += gr[j] * gr[j];
        }
        for (int j = 0; j < N; j++)
            xr[j] += a * (-0.7 * gr[j] / sqrt(nrm) - xr[j]);
    }
    for (int j = 0; j < N; j++) {
        worst = fmax(worst, fabs(x->dense[j] - xr[j]));
        CHECK(z->dense[j] == x->dense[j]);
    }
    CHECK(worst <= 1e-13);
    ircg_iterate_free(x);
    ircg_iterate_free(z);
    ircg_solver_free(sv);
    ls_free(&L);
}

/* A mock curved direction: phi(a) = e^(k a) - c a, phi'(a) = k e^(k a) - c. */
typedef struct mock_phi { double k, c; int calls; } mock_phi;

static double mock_slope(void *ws, double sigma, double a)
{
    mock_phi *m = ws;
    (void)sigma;
    m->calls++;
    return m->k * exp(m->k * a) - m->c;
}

/* The exact step along a curved direction is the root of phi' in (0, 1),
 * ln(c/k)/k, to a few ulps; an end point when phi' keeps its sign. */
TEST(core, line_search_1d_finds_the_root_of_the_slope)
{
    slv_oracle_ops ops = {.slope = mock_slope};
    static const double KC[][2] = {{3, 5}, {0.5, 0.6}, {40, 41}, {3, 2.9}, {1, 100}};
    for (int i = 0; i < 5; i++) {
        mock_phi m = {KC[i][0], KC[i][1], 0};
        int evals = 0;
        double a = slv_line_search_1d(&ops, &m, 0, m.k - m.c, &evals);
        double want = fmin(fmax(log(m.c / m.k) / m.k, 0), 1);
        CHECK_NEAR(a, want, 8 * DBL_EPSILON);
        CHECK(evals == m.calls && evals <= 40);
        slv_dir d = {.gphi_d = m.k - m.c, .curved = 1};
        CHECK_NEAR(slv_step(&ops, &m, IRCG_STEP_LINE_SEARCH, 0, 0, &d, 1, 1), want,
                   8 * DBL_EPSILON);
        CHECK(slv_step(&ops, &m, IRCG_STEP_OPEN_LOOP, 2, 0, &d, 1, 1) == 0.5);
    }
}
