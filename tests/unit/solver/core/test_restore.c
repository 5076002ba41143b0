/*
 * test_restore.c -- a saved state starting new runs (ircg_solver_restore_as):
 * CONTINUE goes on bit for bit as if the solve had never stopped, for every
 * algorithm; AFRESH starts a new schedule at the saved x, checked against a
 * solver started from that x given densely (matrix completion, and the
 * vector problems whose outer vectors restart with z); the header read alone
 * (ircg_checkpoint_peek); the data digest (XXH64, against xxhsum's values)
 * refusing a state of other data of the same shape, and the same whether
 * the ratings are kept as floats or doubles; version 2 blobs.
 */
/* make test-kernels: restore. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "base/digest.h"
#include "ircg.h"
#include "unit/solver/test_mc_util.h"

#define MAXT 128

typedef struct rec {
    int n;
    int64_t t[MAXT];
    double gx[MAXT], fx[MAXT], gz[MAXT], fz[MAXT], gap[MAXT];
} rec;

static int record(void *user, const ircg_iter_info *it)
{
    rec *r = user;
    if (r->n < MAXT) {
        r->t[r->n] = it->t;
        r->gx[r->n] = it->g_x;
        r->fx[r->n] = it->f_x;
        r->gz[r->n] = it->g_z;
        r->fz[r->n] = it->f_z;
        r->gap[r->n] = it->gap;
        r->n++;
    }
    return 0;
}

static ircg_solver *solver_of(const ircg_problem *pb, ircg_algorithm alg, int64_t iters,
                              const double *x0, rec *r)
{
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_settings_default(&s);
    s.algorithm = alg;
    s.max_iter = iters;
    s.callback = record;
    s.callback_data = r;
    s.cgbio_warmup_max_iter = 5;
    if (x0) {
        s.start = IRCG_START_GIVEN;
        s.x0 = x0;
    }
    ircg_diag d = {0};
    if (ircg_solver_new(pb, &s, &sv, &d) != IRCG_OK)
        printf("    solver: %s %s\n", d.field, d.message);
    return sv;
}

/* XXH64 of xxhsum 0.8.1 (`xxhsum -H1`): "", "abc", and 773 bytes
 * (0..255 three times, then "tail1") fed in pieces of several sizes. */
TEST(restore, digest_is_xxh64)
{
    static const size_t pieces[] = {1, 7, 31, 32, 33, 773};
    unsigned char buf[773];
    slv_digest h;
    for (int i = 0; i < 768; i++)
        buf[i] = (unsigned char)i;
    memcpy(buf + 768, "tail1", 5);
    slv_digest_init(&h);
    CHECK(slv_digest_final(&h) == 0xef46db3751d8e999ULL);
    slv_digest_update(&h, "abc", 3);
    CHECK(slv_digest_final(&h) == 0x44bc2cf5ad770999ULL);
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        slv_digest_init(&h);
        for (size_t o = 0; o < sizeof buf; o += pieces[k])
            slv_digest_update(&h, buf + o,
                              sizeof buf - o < pieces[k] ? sizeof buf - o : pieces[k]);
        CHECK(slv_digest_final(&h) == 0x7a71e90c16c83cabULL);
    }
}

/* The digest of a matrix-completion instance is taken over its ratings as
 * doubles, whether the problem keeps them as floats (all are floats: 2.5)
 * or as doubles (0.1 is none): the values pinned are those of the build
 * that kept doubles always, so its checkpoints still restore. */
static uint64_t mc_digest_of(const double *vals) /* 0 on failure */
{
    static const int rows[6] = {0, 0, 1, 2, 3, 3}, cols[6] = {2, 0, 1, 2, 0, 1};
    ircg_ratings *r = ircg_ratings_new(4, 3, 6);
    ircg_problem *pb = NULL;
    ircg_problem_info in = {0};
    if (!r)
        return 0;
    for (int e = 0; e < 6; e++) {
        r->row[e] = rows[e];
        r->col[e] = cols[e];
        r->val[e] = vals[e];
    }
    if (ircg_problem_matrix_completion(r, IRCG_OUTER_COLUMN_VARIANCE, 5.0, &pb, NULL) ==
        IRCG_OK)
        ircg_problem_get_info(pb, &in);
    ircg_problem_free(pb);
    ircg_ratings_free(r);
    return in.data_digest;
}

TEST(restore, mc_digest_does_not_depend_on_the_ratings_storage)
{
    static const double floats[6] = {1.0, 2.5, 4.0, 0.5, 5.0, 3.0};
    static const double doubles[6] = {1.0, 2.5, 4.0, 0.5, 5.0, 0.1};
    CHECK(mc_digest_of(floats) == 0x397bfe3dfd0f08ecULL);
    CHECK(mc_digest_of(doubles) == 0xe45cebe8c274a6d3ULL);
}

/* A run of 2T iterations against T, saved, then CONTINUE for T more:
 * the second half agrees bit for bit, and the clock starts again. */
static void continue_case(const ircg_problem *pb, ircg_algorithm alg, int T)
{
    rec a = {0}, b = {0}, c = {0};
    void *blob = NULL;
    size_t len = 0;
    ircg_info ia, ic;
    ircg_diag d = {0};
    ircg_solver *sa = solver_of(pb, alg, 2 * T, NULL, &a);
    ircg_solver *sb = solver_of(pb, alg, T, NULL, &b);
    ircg_solver *sc = solver_of(pb, alg, 2 * T, NULL, &c);
    REQUIRE(sa && sb && sc);
    REQUIRE(ircg_solve(sa, &ia) == IRCG_OK);
    REQUIRE(ircg_solve(sb, NULL) == IRCG_OK);
    REQUIRE(ircg_solver_save(sb, &blob, &len) == IRCG_OK);
    CHECK(ircg_solver_restore_as(sc, blob, len, IRCG_RESTORE_CONTINUE, &d) == IRCG_OK);
    REQUIRE(ircg_solve(sc, &ic) == IRCG_OK);
    CHECK_INT(ic.iterations, 2 * T);
    CHECK_INT(c.n, T);
    CHECK_INT(c.t[0], T + 1);
    int same = c.n == T;
    for (int i = 0; same && i < c.n; i++)
        same = c.gx[i] == a.gx[T + i] && c.fx[i] == a.fx[T + i] &&
               c.gz[i] == a.gz[T + i] && c.fz[i] == a.fz[T + i] &&
               (c.gap[i] == a.gap[T + i] || (isnan(c.gap[i]) && isnan(a.gap[T + i])));
    CHECK(same);
    CHECK(ic.g_z == ia.g_z && ic.f_z == ia.f_z);
    /* this run's own clock and totals */
    CHECK(ic.solve_seconds <= ia.solve_seconds + 1.0);
    CHECK(ic.lmo_matvecs <= ia.lmo_matvecs);
    free(blob);
    ircg_solver_free(sa);
    ircg_solver_free(sb);
    ircg_solver_free(sc);
}

TEST(restore, continue_goes_on_bit_for_bit)
{
    mct_inst in;
    REQUIRE(mct_make(&in, 40, 30, 0.3, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 17) == 0);
    for (int alg = IRCG_ALG_IRCG; alg <= IRCG_ALG_BISG; alg++)
        continue_case(in.pb, (ircg_algorithm)alg, 12);
    mct_free(&in);

    double A[5 * 9], b[5];
    uint64_t s = 5;
    for (int i = 0; i < 45; i++)
        A[i] = mct_urand(&s);
    for (int i = 0; i < 5; i++)
        b[i] = mct_urand(&s);
    ircg_ls_data ld = {.m = 5, .n = 9, .A_dense = A, .b = b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {IRCG_DOMAIN_L2_BALL, 1.0, 0, 0};
    ircg_problem *pb = NULL;
    REQUIRE(ircg_problem_least_squares(&ld, &o, &dom, &pb, NULL) == IRCG_OK);
    for (int alg = IRCG_ALG_IRCG; alg <= IRCG_ALG_BISG; alg++)
        continue_case(pb, (ircg_algorithm)alg, 15);
    ircg_problem_free(pb);
}

/* The largest relative difference of g(x), g(z), f(z) between two runs
 * (relative to max(|a|, |b|, 1e-12)), over their common iterations. */
static double worst_rel(const rec *a, const rec *b, int with_gx)
{
    double w = 0;
    for (int i = 0; i < a->n && i < b->n; i++) {
        const double pa[3] = {a->gx[i], a->gz[i], a->fz[i]}, pb[3] = {b->gx[i], b->gz[i], b->fz[i]};
        for (int k = with_gx ? 0 : 1; k < 3; k++) {
            double r = fabs(pa[k] - pb[k]) / fmax(fmax(fabs(pa[k]), fabs(pb[k])), 1e-12);
            w = r > w || r != r ? r : w;
        }
    }
    return w;
}

/* AFRESH at the saved x against a solver given that x densely: the same
 * schedule from t = 0 with z_0 = x_0, to rounding (the dense start is
 * factored by an SVD, the restored one keeps its factors).  The tolerance
 * 1e-9 is not derived (the SVD's rounding, then 10 steps that move it
 * through the LMO's vertices): the measured difference is printed beside
 * it. */
TEST(restore, afresh_starts_a_new_schedule_at_x)
{
    mct_inst in;
    rec b = {0}, c = {0}, e = {0};
    void *blob = NULL;
    size_t len = 0;
    ircg_diag d = {0};
    ircg_iterate *x = NULL, *z = NULL, *xd = NULL;
    REQUIRE(mct_make(&in, 30, 20, 0.4, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 3) == 0);
    for (int alg = IRCG_ALG_IRCG; alg <= IRCG_ALG_BISG; alg++) {
        ircg_algorithm al = (ircg_algorithm)alg;
        memset(&c, 0, sizeof c);
        memset(&e, 0, sizeof e);
        ircg_solver *sb = solver_of(in.pb, al, 15, NULL, &b);
        ircg_solver *sc = solver_of(in.pb, al, 10, NULL, &c);
        REQUIRE(sb && sc);
        REQUIRE(ircg_solve(sb, NULL) == IRCG_OK);
        REQUIRE(ircg_solver_save(sb, &blob, &len) == IRCG_OK);
        REQUIRE(ircg_solver_iterate(sb, IRCG_X, 1, &xd) == IRCG_OK);
        CHECK(ircg_solver_restore_as(sc, blob, len, IRCG_RESTORE_AFRESH, &d) == IRCG_OK);
        /* z = x before the first step */
        REQUIRE(ircg_solver_iterate(sc, IRCG_X, 1, &x) == IRCG_OK);
        REQUIRE(ircg_solver_iterate(sc, IRCG_Z, 1, &z) == IRCG_OK);
        CHECK(mct_dist(x->dense, xd->dense, 600) <= 1e-14 * mct_norm(xd->dense, 600));
        CHECK(mct_dist(z->dense, x->dense, 600) <= 1e-14 * mct_norm(x->dense, 600));
        ircg_solver *se = solver_of(in.pb, al, 10, xd->dense, &e);
        REQUIRE(se);
        REQUIRE(ircg_solve(sc, NULL) == IRCG_OK);
        REQUIRE(ircg_solve(se, NULL) == IRCG_OK);
        CHECK_INT(c.n, 10);
        CHECK_INT(c.t[0], 1);
        char what[96];
        snprintf(what, sizeof what, "algorithm %d: relative difference of g and f", alg);
        CHECK_MEASURED(what, worst_rel(&c, &e, 1), 1e-9);
        ircg_iterate_free(x);
        ircg_iterate_free(z);
        ircg_iterate_free(xd);
        x = z = xd = NULL;
        free(blob);
        blob = NULL;
        ircg_solver_free(sb);
        ircg_solver_free(sc);
        ircg_solver_free(se);
    }
    mct_free(&in);
}

/* AFRESH on the vector problems whose outer vector restarts with z:
 * least squares and logistic regression with the validation loss.  z = x
 * exactly before the first step, then the run of a solver given x. */
static void afresh_vector(const ircg_problem *pb)
{
    rec b = {0}, c = {0}, e = {0};
    void *blob = NULL;
    size_t len = 0;
    ircg_diag d = {0};
    ircg_iterate *x = NULL, *z = NULL;
    ircg_solver *sb = solver_of(pb, IRCG_ALG_IRCG, 15, NULL, &b);
    ircg_solver *sc = solver_of(pb, IRCG_ALG_IRCG, 10, NULL, &c), *se = NULL;
    REQUIRE(sb && sc);
    REQUIRE(ircg_solve(sb, NULL) == IRCG_OK);
    REQUIRE(ircg_solver_save(sb, &blob, &len) == IRCG_OK);
    REQUIRE(ircg_solver_iterate(sb, IRCG_X, 1, &x) == IRCG_OK);
    ircg_error re = ircg_solver_restore_as(sc, blob, len, IRCG_RESTORE_AFRESH, &d);
    if (re != IRCG_OK)
        printf("    restore: %s %s\n", d.field, d.message);
    CHECK_INT(re, IRCG_OK);
    REQUIRE(ircg_solver_iterate(sc, IRCG_Z, 1, &z) == IRCG_OK);
    CHECK(memcmp(z->dense, x->dense, (size_t)x->dim * sizeof *x->dense) == 0);
    REQUIRE((se = solver_of(pb, IRCG_ALG_IRCG, 10, x->dense, &e)) != NULL);
    REQUIRE(ircg_solve(sc, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(se, NULL) == IRCG_OK);
    CHECK_INT(c.n, 10);
    /* residuals kept against made */
    CHECK_MEASURED("relative difference of g(z) and f(z)", worst_rel(&c, &e, 0), 1e-9);
    ircg_iterate_free(x);
    ircg_iterate_free(z);
    free(blob);
    ircg_solver_free(sb);
    ircg_solver_free(sc);
    ircg_solver_free(se);
}

TEST(restore, afresh_restarts_the_outer_vectors_of_vector_problems)
{
    enum { M = 6, N = 9, MV = 4 };
    double A[M * N], b[M], y[M], Av[MV * N], bv[MV], yv[MV];
    uint64_t s = 11;
    for (int i = 0; i < M * N; i++)
        A[i] = mct_urand(&s);
    for (int i = 0; i < MV * N; i++)
        Av[i] = mct_urand(&s);
    for (int i = 0; i < M; i++) {
        b[i] = mct_urand(&s);
        y[i] = b[i] > 0 ? 1 : -1;
    }
    for (int i = 0; i < MV; i++) {
        bv[i] = mct_urand(&s);
        yv[i] = bv[i] > 0 ? 1 : -1;
    }
    ircg_ls_data ld = {.m = M, .n = N, .A_dense = A, .b = b};
    ircg_ls_data vd = {.m = MV, .n = N, .A_dense = Av, .b = bv};
    ircg_outer o = {.kind = IRCG_OUTER_VALIDATION, .val = &vd};
    ircg_domain dom = {IRCG_DOMAIN_L1_BALL, 1.0, 0, 0};
    ircg_problem *pb = NULL;
    REQUIRE(ircg_problem_least_squares(&ld, &o, &dom, &pb, NULL) == IRCG_OK);
    afresh_vector(pb);
    ircg_problem_free(pb);
    pb = NULL;
    ld.b = y;
    vd.b = yv;
    REQUIRE(ircg_problem_logistic(&ld, &o, &dom, &pb, NULL) == IRCG_OK);
    afresh_vector(pb);
    ircg_problem_free(pb);
}

/* The header alone; other data of the same shape is refused at "/data";
 * a version 2 blob (no digest) still restores. */
TEST(restore, peek_digest_and_version2)
{
    mct_inst a, b;
    rec r = {0};
    void *blob = NULL;
    size_t len = 0;
    ircg_diag d = {0};
    ircg_checkpoint_info ci;
    ircg_problem_info pa, pbi;
    REQUIRE(mct_make(&a, 20, 10, 0.5, 1.0, IRCG_OUTER_COLUMN_VARIANCE, 1) == 0);
    REQUIRE(mct_make(&b, 20, 10, 0.5, 1.0, IRCG_OUTER_COLUMN_VARIANCE, 1) == 0);
    b.R->val[3] += 1; /* same Omega, one rating differs */
    ircg_problem_free(b.pb);
    b.pb = NULL;
    REQUIRE(ircg_problem_matrix_completion(b.R, IRCG_OUTER_COLUMN_VARIANCE, 1.0, &b.pb,
                                           NULL) == IRCG_OK);
    ircg_problem_get_info(a.pb, &pa);
    ircg_problem_get_info(b.pb, &pbi);
    CHECK(pa.data_digest != 0 && pbi.data_digest != 0 && pa.data_digest != pbi.data_digest);
    ircg_solver *sa = solver_of(a.pb, IRCG_ALG_IRCG, 4, NULL, &r);
    ircg_solver *sb = solver_of(b.pb, IRCG_ALG_IRCG, 8, NULL, &r);
    ircg_solver *sp = solver_of(a.pb, IRCG_ALG_IRPG, 8, NULL, &r);
    REQUIRE(sa && sb && sp);
    REQUIRE(ircg_solve(sa, NULL) == IRCG_OK);
    REQUIRE(ircg_solver_save(sa, &blob, &len) == IRCG_OK);
    REQUIRE(len > IRCG_CHECKPOINT_HEAD);
    CHECK(ircg_checkpoint_peek(blob, IRCG_CHECKPOINT_HEAD, &ci, &d) == IRCG_OK);
    CHECK_INT(ci.version, 6);
    CHECK_INT(ci.kind, IRCG_PROBLEM_MATRIX_COMPLETION);
    CHECK_INT(ci.algorithm, IRCG_ALG_IRCG);
    CHECK_INT(ci.iterations, 4);
    CHECK_INT(ci.dim, 200);
    CHECK(ci.data_digest == pa.data_digest);
    CHECK(ircg_checkpoint_peek(blob, 40, &ci, &d) == IRCG_ERR_INVALID);
    CHECK(ircg_checkpoint_peek("IRCGCKP2", 8, &ci, &d) == IRCG_ERR_INVALID);
    CHECK(ircg_solver_restore_as(sb, blob, len, IRCG_RESTORE_CONTINUE, &d) == IRCG_ERR_INVALID);
    CHECK_STR(d.field, "/data");
    CHECK(ircg_solver_restore_as(sp, blob, len, IRCG_RESTORE_AFRESH, &d) == IRCG_ERR_INVALID);
    CHECK_STR(d.field, "/checkpoint");
    /* an infinite f(x_0) (the word after the samples) is refused: it would
     * make every outer gap small against the scale of working precision */
    {
        unsigned char *inf6 = malloc(len);
        REQUIRE(inf6 != NULL);
        memcpy(inf6, blob, len);
        double pinf = INFINITY;
        memcpy(inf6 + 288, &pinf, 8);
        ircg_solver *si = solver_of(a.pb, IRCG_ALG_IRCG, 8, NULL, &r);
        REQUIRE(si);
        CHECK(ircg_solver_restore(si, inf6, len, &d) == IRCG_ERR_INVALID);
        CHECK_STR(d.field, "/checkpoint");
        ircg_solver_free(si);
        free(inf6);
    }
    /* version 5: f(x_0) (the word after the samples) removed; it restores
     * and goes on */
    unsigned char *v5 = blob;
    memmove(v5 + 288, v5 + 296, len - 296);
    len -= 8;
    v5[8] = 5;
    ircg_solver *s5 = solver_of(a.pb, IRCG_ALG_IRCG, 8, NULL, &r);
    REQUIRE(s5);
    CHECK(ircg_solver_restore(s5, v5, len, &d) == IRCG_OK);
    ircg_info i5;
    CHECK(ircg_solve(s5, &i5) == IRCG_OK && i5.iterations == 8);
    ircg_solver_free(s5);
    /* version 4: the samples (the word after the 20 of the header and the
     * 15 of the bounds; IR-CG has no CG-BiO residual) removed */
    unsigned char *v4 = blob;
    memmove(v4 + 280, v4 + 288, len - 288);
    len -= 8;
    v4[8] = 4;
    ircg_solver *s4 = solver_of(a.pb, IRCG_ALG_IRCG, 8, NULL, &r);
    REQUIRE(s4);
    CHECK(ircg_solver_restore(s4, v4, len, &d) == IRCG_OK);
    ircg_info i4;
    CHECK(ircg_solve(s4, &i4) == IRCG_OK && i4.iterations == 8 && i4.samples == 0);
    ircg_solver_free(s4);
    /* version 3: the bounds removed too; it restores with none */
    unsigned char *v3 = blob;
    memmove(v3 + 160, v3 + 280, len - 280);
    len -= 120;
    v3[8] = 3;
    CHECK(ircg_solver_restore_as(sb, v3, len, IRCG_RESTORE_CONTINUE, &d) == IRCG_ERR_INVALID);
    CHECK(ircg_checkpoint_peek(v3, len, &ci, &d) == IRCG_OK && ci.version == 3);
    ircg_solver *s3 = solver_of(a.pb, IRCG_ALG_IRCG, 8, NULL, &r);
    REQUIRE(s3);
    CHECK(ircg_solver_restore(s3, v3, len, &d) == IRCG_OK);
    ircg_info i3;
    CHECK(ircg_solve(s3, &i3) == IRCG_OK && i3.cert_iteration == 8 && i3.iterations == 8);
    ircg_solver_free(s3);
    /* version 2: the digest word (offset 40) removed too */
    unsigned char *v2 = blob;
    memmove(v2 + 40, v2 + 48, len - 48);
    v2[8] = 2;
    CHECK(ircg_checkpoint_peek(v2, len - 8, &ci, &d) == IRCG_OK);
    CHECK_INT(ci.version, 2);
    CHECK(ci.data_digest == 0);
    CHECK(ircg_solver_restore(sb, v2, len - 8, &d) == IRCG_OK); /* not checked */
    free(blob);
    ircg_solver_free(sa);
    ircg_solver_free(sb);
    ircg_solver_free(sp);
    mct_free(&a);
    mct_free(&b);
}
