/*
 * test_mc_state.c -- matrix-completion workspace state: checkpoints resume
 * bit for bit, compression keeps x and z, the thread count does not change
 * the values, start points, and input validation.
 */
/* make test-kernels: mc_state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "problems/mc/mc.h"
#include "unit/solver/test_mc_util.h"

#define MAXT 64

typedef struct vals {
    int n;
    double gx[MAXT], fx[MAXT], gz[MAXT], fz[MAXT];
} vals;

static int record(void *user, const ircg_iter_info *it)
{
    vals *v = user;
    if (v->n < MAXT) {
        v->gx[v->n] = it->g_x;
        v->fx[v->n] = it->f_x;
        v->gz[v->n] = it->g_z;
        v->fz[v->n] = it->f_z;
        v->n++;
    }
    return 0;
}

/* Two recordings agree to rtol (f relative to at least 1e-15: f may be 0) */
static void check_close(const vals *a, const vals *b, double rtol)
{
    for (int t = 0; t < a->n && t < b->n; t++) {
        CHECK_REL(a->gx[t], b->gx[t], rtol, 0);
        CHECK_REL(a->fx[t], b->fx[t], rtol, 1e-15);
        CHECK_REL(a->gz[t], b->gz[t], rtol, 0);
        CHECK_REL(a->fz[t], b->fz[t], rtol, 1e-15);
    }
}

static ircg_solver *new_solver(const mct_inst *in, ircg_step_rule rule, int64_t iters,
                               int threads, vals *rec)
{
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_settings_default(&s);
    s.step_rule = rule;
    s.max_iter = iters;
    s.threads = threads;
    s.callback = record;
    s.callback_data = rec;
    ircg_solver_new(in->pb, &s, &sv, NULL);
    return sv;
}

TEST(mc_state, checkpoint_resumes_bit_for_bit)
{
    mct_inst in;
    vals a = {0}, b = {0};
    ircg_solver *s1, *s2;
    void *blob = NULL;
    size_t len = 0;
    ircg_diag diag = {0};

    /* enough atoms to trigger a compression during the run */
    REQUIRE(mct_make(&in, 60, 40, 0.3, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 21) == 0);
    for (int rule = 0; rule < 3; rule++) {
        a.n = b.n = 0;
        s1 = new_solver(&in, (ircg_step_rule)rule, 20, 1, &a);
        REQUIRE(s1 != NULL);
        REQUIRE(ircg_solve(s1, NULL) == IRCG_OK);
        REQUIRE(ircg_solver_save(s1, &blob, &len) == IRCG_OK);
        a.n = 0;
        ircg_solver_settings(s1)->max_iter = 30;
        REQUIRE(ircg_solve(s1, NULL) == IRCG_OK);
        s2 = new_solver(&in, (ircg_step_rule)rule, 30, 1, &b);
        REQUIRE(s2 != NULL);
        REQUIRE(ircg_solver_restore(s2, blob, len, &diag) == IRCG_OK);
        REQUIRE(ircg_solve(s2, NULL) == IRCG_OK);
        CHECK_INT(a.n, 10);
        CHECK_INT(b.n, 10);
        for (int t = 0; t < a.n && t < b.n; t++) {
            CHECK(a.gx[t] == b.gx[t] && a.fx[t] == b.fx[t]);
            CHECK(a.gz[t] == b.gz[t] && a.fz[t] == b.fz[t]);
        }
        /* a damaged blob is refused with a message, not read past its end */
        CHECK(ircg_solver_restore(s2, blob, len - 9, &diag) == IRCG_ERR_INVALID);
        CHECK(diag.message[0] != 0);
        free(blob);
        blob = NULL;
        ircg_solver_free(s1);
        ircg_solver_free(s2);
    }
    mct_free(&in);
}

/* The version 1 checkpoint the earlier releases wrote, made from a version 2
 * one: no refresh counter, and the residuals X_Omega - M where version 2
 * has X_Omega (the last two arrays of the blob).  0 on success. */
static int to_version1(const mc_data *d, unsigned char *blob, size_t *len)
{
    static const unsigned char magic[8] = {'M', 'C', 'C', 'K', 'W', 'S', '2', 0};
    size_t o = 0, counter, tail;

    while (o + 8 <= *len && memcmp(blob + o, magic, 8) != 0)
        o++;
    counter = o + 8 * 10; /* magic and nine counts come first */
    tail = (size_t)d->nnz * 2 * 8;
    if (counter + 8 + tail > *len)
        return -1;
    blob[o + 6] = '1';
    memmove(blob + counter, blob + counter + 8, *len - counter - 8);
    *len -= 8;
    for (int64_t e = 0; e < 2 * d->nnz; e++) {
        unsigned char *at = blob + *len - tail + (size_t)e * 8;
        uint64_t u = 0;
        double x;
        for (int b = 0; b < 8; b++)
            u |= (uint64_t)at[b] << (8 * b);
        memcpy(&x, &u, 8);
        x -= mc_rating(d, e % d->nnz);
        memcpy(&u, &x, 8);
        for (int b = 0; b < 8; b++)
            at[b] = (unsigned char)(u >> (8 * b));
    }
    return 0;
}

TEST(mc_state, version1_checkpoint_resumes)
{
    /* checkpoints of running jobs outlive an upgrade: a version 1 state
     * resumes (its first step refreshes X_Omega from the factors, so the
     * values agree to rounding, not bit for bit) */
    mct_inst in;
    vals a = {0}, b = {0};
    void *blob = NULL;
    size_t len = 0;
    ircg_diag diag = {0};

    REQUIRE(mct_make(&in, 60, 40, 0.3, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 23) == 0);
    ircg_solver *s1 = new_solver(&in, IRCG_STEP_OPEN_LOOP, 20, 1, &a);
    ircg_solver *s2 = new_solver(&in, IRCG_STEP_OPEN_LOOP, 40, 1, &b);
    REQUIRE(s1 && s2);
    REQUIRE(ircg_solve(s1, NULL) == IRCG_OK);
    REQUIRE(ircg_solver_save(s1, &blob, &len) == IRCG_OK);
    REQUIRE(to_version1(mc_data_of(in.pb), blob, &len) == 0);
    a.n = 0;
    ircg_solver_settings(s1)->max_iter = 40;
    REQUIRE(ircg_solve(s1, NULL) == IRCG_OK);
    CHECK(ircg_solver_restore(s2, blob, len, &diag) == IRCG_OK);
    REQUIRE(ircg_solve(s2, NULL) == IRCG_OK);
    CHECK_INT(b.n, 20);
    check_close(&a, &b, 1e-12);
    free(blob);
    ircg_solver_free(s1);
    ircg_solver_free(s2);
    mct_free(&in);
}

TEST(mc_state, checkpoint_of_another_shape_is_refused)
{
    mct_inst a, b;
    vals r = {0};
    void *blob = NULL;
    size_t len = 0;
    ircg_diag diag = {0};

    REQUIRE(mct_make(&a, 20, 10, 0.5, 1.0, IRCG_OUTER_COLUMN_VARIANCE, 1) == 0);
    REQUIRE(mct_make(&b, 10, 20, 0.5, 1.0, IRCG_OUTER_COLUMN_VARIANCE, 1) == 0);
    ircg_solver *sa = new_solver(&a, IRCG_STEP_OPEN_LOOP, 3, 1, &r);
    ircg_solver *sb = new_solver(&b, IRCG_STEP_OPEN_LOOP, 3, 1, &r);
    REQUIRE(sa && sb);
    REQUIRE(ircg_solve(sa, NULL) == IRCG_OK);
    REQUIRE(ircg_solver_save(sa, &blob, &len) == IRCG_OK);
    CHECK(ircg_solver_restore(sb, blob, len, &diag) == IRCG_ERR_INVALID);
    free(blob);
    ircg_solver_free(sa);
    ircg_solver_free(sb);
    mct_free(&a);
    mct_free(&b);
}

static double max_diff(const double *a, const double *b, size_t n, double *scale)
{
    double d = 0;
    *scale = 0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        *scale = fmax(*scale, fabs(b[i]));
    }
    return d;
}

/* Run `steps` open-loop iterations by hand with the z recursion. */
static void run_steps(const ircg_problem *pb, void *ws, int steps)
{
    double S = 0;
    for (int t = 0; t < steps; t++) {
        double sg = ircg_sigma(0.05, 0.5, t), tp1 = t + 1.0, Sn = S + 2 * tp1 * sg;
        slv_dir d = {.direction = IRCG_DIR_FRANK_WOLFE};
        pb->ops->lmo(ws, sg, &d);
        pb->ops->step(ws, 2.0 / (t + 2.0), S / Sn, -tp1 * t * sg / Sn,
                      (tp1 + 1) * tp1 * sg / Sn);
        S = Sn;
    }
}

static void check_compress(mct_inst *in, int steps, int expect_rank_max)
{
    ircg_settings s;
    void *ws = NULL;
    ircg_iterate *x1 = NULL, *z1 = NULL, *x2 = NULL, *z2 = NULL;
    slv_values v1 = {0}, v2 = {0};
    size_t np = (size_t)in->n * in->p;
    double sc;

    ircg_settings_default(&s);
    REQUIRE(in->pb->ops->create(in->pb, &s, &ws, NULL) == IRCG_OK);
    mc_ws *w = ws;
    w->compress_at = w->compress_base = 1 << 20; /* no automatic compression */
    run_steps(in->pb, ws, steps);
    CHECK_INT(w->k, steps);
    in->pb->ops->values(ws, NULL, &v1);
    REQUIRE(in->pb->ops->iterate(ws, IRCG_X, 1, &x1) == IRCG_OK);
    REQUIRE(in->pb->ops->iterate(ws, IRCG_Z, 1, &z1) == IRCG_OK);
    REQUIRE(mc_compress(w) == IRCG_OK);
    CHECK(w->k <= expect_rank_max);
    in->pb->ops->values(ws, NULL, &v2);
    REQUIRE(in->pb->ops->iterate(ws, IRCG_X, 1, &x2) == IRCG_OK);
    REQUIRE(in->pb->ops->iterate(ws, IRCG_Z, 1, &z2) == IRCG_OK);
    CHECK(max_diff(x2->dense, x1->dense, np, &sc) <= 1e-13 * sc);
    CHECK(max_diff(z2->dense, z1->dense, np, &sc) <= 1e-13 * sc);
    CHECK_REL(v2.f_x, v1.f_x, 1e-12, 1e-14);
    CHECK_REL(v2.f_z, v1.f_z, 1e-12, 1e-14);
    CHECK(v2.g_x == v1.g_x); /* the residuals are not touched */
    /* the iteration goes on from the compressed atoms */
    run_steps(in->pb, ws, 3);
    ircg_iterate_free(x1), ircg_iterate_free(z1);
    ircg_iterate_free(x2), ircg_iterate_free(z2);
    in->pb->ops->destroy(ws);
}

TEST(mc_state, compression_keeps_x_and_z)
{
    mct_inst in;
    REQUIRE(mct_make(&in, 30, 20, 0.4, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 5) == 0);
    check_compress(&in, 12, 12);
    mct_free(&in);
}

/* A rank-one fully observed M: every vertex has the same direction, so
 * compression must collapse the atoms to one. */
TEST(mc_state, compression_drops_repeated_directions)
{
    int n = 15, p = 9;
    double *M = malloc((size_t)n * p * sizeof *M);
    mct_inst in;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            M[i + (size_t)j * n] = (1.0 + i % 4) * (2.0 + j % 3);
    REQUIRE(mct_make_full(&in, n, p, M, 1.0, IRCG_OUTER_HALF_NORM_SQ) == 0);
    check_compress(&in, 10, 2);
    mct_free(&in);
    free(M);
}

TEST(mc_state, threads_do_not_change_values)
{
    mct_inst in;
    vals a = {0}, b = {0};

    /* 1000 x 300 at 25%: several chunks and column groups */
    REQUIRE(mct_make(&in, 1000, 300, 0.25, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 3) == 0);
    ircg_solver *s1 = new_solver(&in, IRCG_STEP_LINE_SEARCH, 25, 1, &a);
    ircg_solver *s2 = new_solver(&in, IRCG_STEP_LINE_SEARCH, 25, 2, &b);
    REQUIRE(s1 && s2);
    REQUIRE(ircg_solve(s1, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(s2, NULL) == IRCG_OK);
    CHECK_INT(a.n, b.n);
    check_close(&a, &b, 1e-12);
    ircg_solver_free(s1);
    ircg_solver_free(s2);
    mct_free(&in);
}

TEST(mc_state, given_start_is_factored_and_checked)
{
    mct_inst in;
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_diag diag = {0};
    ircg_iterate *it = NULL;
    int n = 12, p = 7;
    double *X = malloc((size_t)n * p * sizeof *X), nuc, sc;
    uint64_t seed = 99;

    REQUIRE(mct_make(&in, n, p, 0.5, 2.0, IRCG_OUTER_COLUMN_VARIANCE, 4) == 0);
    for (int e = 0; e < n * p; e++)
        X[e] = mct_urand(&seed);
    double sv7[7];
    mct_svd(n, p, X, sv7, NULL, NULL);
    nuc = 0;
    for (int i = 0; i < p; i++)
        nuc += sv7[i];
    for (int e = 0; e < n * p; e++)
        X[e] *= 1.5 / nuc; /* nuclear norm 1.5 < delta = 2 */
    ircg_settings_default(&s);
    s.start = IRCG_START_GIVEN;
    s.x0 = X;
    REQUIRE(ircg_solver_new(in.pb, &s, &sv, &diag) == IRCG_OK);
    REQUIRE(ircg_solver_iterate(sv, IRCG_Z, 1, &it) == IRCG_OK);
    CHECK(max_diff(it->dense, X, (size_t)n * p, &sc) <= 1e-14 * sc);
    ircg_iterate_free(it);
    ircg_solver_free(sv);
    for (int e = 0; e < n * p; e++)
        X[e] *= 2.0; /* nuclear norm 3 > 2 */
    CHECK(ircg_solver_new(in.pb, &s, &sv, &diag) == IRCG_ERR_INVALID);
    CHECK_STR(diag.field, "/x0");
    CHECK(sv == NULL);
    free(X);
    mct_free(&in);
}

/* A rank-2 start stays 2 atoms (dgesvd's rounding-level values are not
 * atoms), and ircg_solve runs from it. */
TEST(mc_state, low_rank_given_start_solves)
{
    mct_inst in;
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_diag diag = {0};
    ircg_iterate *it = NULL;
    ircg_info info;
    int n = 30, p = 20;
    double *X = calloc((size_t)n * p, sizeof *X), u[2][30], v[2][20];
    uint64_t seed = 5;

    REQUIRE(mct_make(&in, n, p, 0.4, 2.0, IRCG_OUTER_COLUMN_VARIANCE, 6) == 0);
    for (int l = 0; l < 2; l++) {
        for (int i = 0; i < n; i++)
            u[l][i] = mct_urand(&seed);
        for (int j = 0; j < p; j++)
            v[l][j] = mct_urand(&seed);
    }
    double sv20[20], nuc = 0;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            X[i + (size_t)j * n] = u[0][i] * v[0][j] + 0.5 * u[1][i] * v[1][j];
    mct_svd(n, p, X, sv20, NULL, NULL);
    for (int i = 0; i < p; i++)
        nuc += sv20[i];
    for (int e = 0; e < n * p; e++)
        X[e] *= 1.0 / nuc;
    ircg_settings_default(&s);
    s.start = IRCG_START_GIVEN;
    s.x0 = X;
    s.max_iter = 3;
    REQUIRE(ircg_solver_new(in.pb, &s, &sv, &diag) == IRCG_OK);
    REQUIRE(ircg_solver_iterate(sv, IRCG_X, 0, &it) == IRCG_OK);
    CHECK_INT(it->rank, 2);
    ircg_iterate_free(it);
    REQUIRE(ircg_solve(sv, &info) == IRCG_OK);
    CHECK_INT(info.iterations, 3);
    CHECK(info.rank <= 5);
    ircg_solver_free(sv);
    free(X);
    mct_free(&in);
}

TEST(mc_state, problem_validation_names_the_field)
{
    ircg_ratings *R = ircg_ratings_new(3, 3, 2);
    ircg_problem *pb = NULL;
    ircg_diag diag = {0};
    ircg_problem_info info;

    R->row[0] = 0, R->col[0] = 1, R->val[0] = 4;
    R->row[1] = 2, R->col[1] = 2, R->val[1] = 1;
    CHECK(ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, 0.0, &pb,
                                         &diag) == IRCG_ERR_INVALID);
    CHECK_STR(diag.field, "/delta");
    CHECK(ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, NAN, &pb,
                                         &diag) == IRCG_ERR_INVALID);
    CHECK(ircg_problem_matrix_completion(R, IRCG_OUTER_DIST_SQ, 1.0, &pb, &diag) ==
          IRCG_ERR_INVALID);
    CHECK_STR(diag.field, "/outer");
    R->col[1] = 3;
    CHECK(ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, 1.0, &pb,
                                         &diag) == IRCG_ERR_INVALID);
    CHECK_STR(diag.field, "/ratings");
    R->col[1] = 1, R->row[1] = 0; /* duplicate (0, 1) */
    CHECK(ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, 1.0, &pb,
                                         &diag) == IRCG_ERR_INVALID);
    R->row[1] = 2, R->val[1] = INFINITY;
    CHECK(ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, 1.0, &pb,
                                         &diag) == IRCG_ERR_INVALID);
    R->val[1] = 2;
    CHECK(pb == NULL);
    REQUIRE(ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, 1.5, &pb,
                                           &diag) == IRCG_OK);
    ircg_problem_get_info(pb, &info);
    CHECK_INT(info.kind, IRCG_PROBLEM_MATRIX_COMPLETION);
    CHECK_INT(info.dim, 9);
    CHECK_INT(info.n_observed, 2);
    CHECK_INT(info.domain.kind, IRCG_DOMAIN_NUCLEAR_BALL);
    CHECK(info.domain.radius == 1.5 && info.diameter == 3.0);
    CHECK(info.L_f == 1.0 && info.L_g == 1.0);
    ircg_problem_free(pb);
    R->nnz = 0;
    CHECK(ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, 1.0, &pb,
                                         &diag) == IRCG_ERR_INVALID);
    ircg_ratings_free(R);
}

/* g of the iterate computed from scratch: dense X from the factors, the
 * residual on Omega summed in long double */
static double g_from_iterate(const mct_inst *in, ircg_solver *sv, ircg_which which)
{
    ircg_iterate *it = NULL;
    long double acc = 0;

    if (ircg_solver_iterate(sv, which, 1, &it) != IRCG_OK)
        return NAN;
    for (size_t e = 0; e < (size_t)in->n * in->p; e++)
        if (in->mask[e] != 0) {
            long double r = (long double)it->dense[e] - in->Md[e];
            acc += r * r;
        }
    ircg_iterate_free(it);
    return (double)(acc / 2);
}

TEST(mc_state, long_runs_keep_g_exact)
{
    /* The step pass updates X and Z on Omega in place; its rounding adds up
     * with the number of steps.  After thousands of steps the g the solver
     * reports must still be the g of its iterate to a few ulps, or g - g_opt
     * (1e-9 relative on MovieLens) would be noise. */
    mct_inst in;
    ircg_info info;
    ircg_settings s;
    ircg_solver *sv = NULL;

    REQUIRE(mct_make(&in, 120, 90, 0.3, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 77) == 0);
    ircg_settings_default(&s);
    s.step_rule = IRCG_STEP_OPEN_LOOP;
    s.max_iter = 6000;
    REQUIRE(ircg_solver_new(in.pb, &s, &sv, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(sv, &info) == IRCG_OK);
    CHECK_INT(info.iterations, 6000);
    double gx = g_from_iterate(&in, sv, IRCG_X), gz = g_from_iterate(&in, sv, IRCG_Z);
    CHECK_REL(info.g_x, gx, 1e-14, 0);
    CHECK_REL(info.g_z, gz, 1e-14, 0);
    ircg_solver_free(sv);
    mct_free(&in);
}
