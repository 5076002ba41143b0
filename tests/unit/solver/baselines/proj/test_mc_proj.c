/*
 * test_mc_proj.c -- the nuclear-ball projection of the matrix-completion
 * projection workspace (slv_mc_prox_ops) against an independent dense
 * computation written in the tests (LAPACK dgesvd of the explicitly formed
 * matrix and a sort-based projection of its singular values): designed
 * spectra far outside, just outside and inside the ball and with a
 * repeated value at the threshold, random low-rank-plus-sparse matrices of
 * the shape the methods project, cases that need many triplets, and the
 * zero matrix.  PARTIAL must match FULL without falling back where few
 * triplets suffice.
 */
/* make test-kernels: mc_proj. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "baselines/proj/mc_prox.h"
#include "unit/solver/test_mc_util.h"

typedef struct proj_run {
    slv_move mv;
    double *X;   /* the projection, dense n x p (caller frees) */
    int nrank;   /* its weights above 1e-12 times the largest */
} proj_run;

static int numerical_rank(const ircg_iterate *it)
{
    double top = 0;
    int r = 0;
    for (int l = 0; l < it->rank; l++)
        top = fmax(top, it->w[l]);
    for (int l = 0; l < it->rank; l++)
        r += it->w[l] > 1e-12 * top;
    return r;
}

/* Proj(y - a_f grad f(y) - a_g P_Omega(y - M)) from the start `start`
 * (x0 when given) through the workspace; 0 on success. */
static int project_ws(const mct_inst *in, ircg_start start, const double *x0,
                      double a_f, double a_g, ircg_projection mode, proj_run *out)
{
    const slv_oracle_ops *ops = in->pb->prox_ops;
    ircg_settings s;
    void *ws = NULL;
    ircg_iterate *it = NULL;
    int rc = -1;

    ircg_settings_default(&s);
    s.algorithm = IRCG_ALG_IRPG;
    s.lmo_tol = 1e-13;
    s.start = start;
    s.x0 = x0;
    out->X = NULL;
    if (ops->create(in->pb, &s, &ws, NULL) != IRCG_OK)
        return -1;
    if (in->pb->proj->grad_step(ws, IRCG_SLOT_X, a_f, a_g, 1, mode, &out->mv) == IRCG_OK &&
        in->pb->proj->accept(ws, IRCG_SLOT_X) == IRCG_OK &&
        ops->iterate(ws, IRCG_X, 1, &it) == IRCG_OK) {
        out->X = it->dense;
        out->nrank = numerical_rank(it);
        it->dense = NULL;
        rc = 0;
    }
    ircg_iterate_free(it);
    ops->destroy(ws);
    return rc;
}

/* Y = M (every entry observed, start 0, a_f = 0, a_g = 1): both modes
 * against the dense projection of M. */
static void check_designed(int n, int p, const double *M, double delta,
                           int expect_rank, int partial_may_fall_back)
{
    mct_inst in;
    size_t np = (size_t)n * p;
    double *Xref = malloc(np * sizeof *Xref);
    int rank;

    REQUIRE(mct_make_full(&in, n, p, M, delta, IRCG_OUTER_HALF_NORM_SQ) == 0);
    rank = mct_proj_nuclear(n, p, M, delta, Xref);
    CHECK_INT(rank, expect_rank);
    for (int mode = IRCG_PROJ_PARTIAL; mode <= IRCG_PROJ_FULL; mode++) {
        proj_run r;
        REQUIRE(project_ws(&in, IRCG_START_ZERO, NULL, 0.0, 1.0, mode, &r) == 0);
        CHECK(mct_dist(r.X, Xref, np) <= 1e-9 * fmax(mct_norm(Xref, np), 1e-300));
        CHECK_INT(r.nrank, rank);
        CHECK(r.mv.rank >= rank);
        CHECK_INT(r.mv.converged, 1);
        if (mode == IRCG_PROJ_FULL)
            CHECK_INT(r.mv.full, 1);
        else if (!partial_may_fall_back)
            CHECK_INT(r.mv.full, 0);
        free(r.X);
    }
    mct_free(&in);
    free(Xref);
}

/* Spectrum s (k values) on random singular vectors. */
static double *designed(int n, int p, int k, const double *s, uint64_t seed)
{
    double *M = malloc((size_t)n * p * sizeof *M);
    if (mct_with_spectrum(n, p, k, s, seed, M) != 0) {
        free(M);
        return NULL;
    }
    return M;
}

static double sum_of(const double *s, int k)
{
    double t = 0;
    for (int i = 0; i < k; i++)
        t += s[i];
    return t;
}

/* the four designed cases at one size */
static void designed_cases(int n, int p, uint64_t seed)
{
    int m = n < p ? n : p;
    double *s = malloc((size_t)m * sizeof *s), *M;

    /* far outside: a decaying full-rank spectrum, delta a tenth of it */
    for (int i = 0; i < m; i++)
        s[i] = 10.0 * pow(0.8, i);
    REQUIRE((M = designed(n, p, m, s, seed)) != NULL);
    check_designed(n, p, M, 1.0, 1, 0); /* theta > s_2 = 8: rank 1 */
    free(M);

    /* just outside: sum s = 1.001 delta, every value above theta */
    for (int i = 0; i < 6; i++)
        s[i] = 1.0 + 0.1 * (6 - i);
    REQUIRE((M = designed(n, p, 6, s, seed + 1)) != NULL);
    check_designed(n, p, M, sum_of(s, 6) / 1.001, 6, 0);
    free(M);

    /* inside: the projection is the identity, rank 5 */
    for (int i = 0; i < 5; i++)
        s[i] = 1.0 / (i + 1);
    REQUIRE((M = designed(n, p, 5, s, seed + 2)) != NULL);
    check_designed(n, p, M, 2.0 * sum_of(s, 5), 5, 0);
    free(M);

    /* a repeated value at the threshold: s = (5, 3, 2, 2, 1, tail),
     * delta = 4 gives theta = 2 and the projection (3, 1) */
    double head[5] = {5, 3, 2, 2, 1};
    for (int i = 0; i < m; i++)
        s[i] = i < 5 ? head[i] : 0.5 * pow(0.9, i);
    REQUIRE((M = designed(n, p, m, s, seed + 3)) != NULL);
    check_designed(n, p, M, 4.0, 2, 0);
    free(M);
    free(s);
}

/* 40 x 30: the Lanczos basis spans everything (exact values) */
TEST(mc_proj, designed_spectra_small) { designed_cases(40, 30, 11); }
/* 150 x 110 (and its transpose): restarts and the certificate */
TEST(mc_proj, designed_spectra_certified) { designed_cases(150, 110, 21); }
TEST(mc_proj, designed_spectra_wide) { designed_cases(90, 130, 31); }

/* Y = x0 - a_f grad f(x0) - a_g P_Omega(x0 - M), formed densely here. */
static void dense_y(const mct_inst *in, ircg_outer_kind outer, const double *x0,
                    double a_f, double a_g, double *Y)
{
    size_t np = (size_t)in->n * in->p;
    double *G = malloc(np * sizeof *G);
    mct_grad(in, outer, 0.0, x0, G);   /* P_Omega(x0 - M) */
    mct_grad(in, outer, 1.0, x0, Y);   /* grad f + P_Omega(x0 - M) */
    for (size_t e = 0; e < np; e++)
        Y[e] = x0[e] - a_f * (Y[e] - G[e]) - a_g * G[e];
    free(G);
}

static void low_rank_plus_sparse(ircg_outer_kind outer, uint64_t seed, double delta)
{
    int n = 150, p = 110;
    size_t np = (size_t)n * p;
    mct_inst in;
    double sv[3] = {0.4, 0.25, 0.15}; /* ||x0||_* = 0.8 delta for delta = 1 */
    double *x0 = malloc(np * sizeof *x0), *Y = malloc(np * sizeof *Y);
    double *Xref = malloc(np * sizeof *Xref);
    proj_run part, full;

    for (int i = 0; i < 3; i++)
        sv[i] *= delta;
    REQUIRE(mct_make(&in, n, p, 0.3, delta, outer, seed) == 0);
    REQUIRE(mct_with_spectrum(n, p, 3, sv, seed + 7, x0) == 0);
    dense_y(&in, outer, x0, 0.3, 0.5, Y);
    int rank = mct_proj_nuclear(n, p, Y, delta, Xref);
    REQUIRE(rank > 0);
    if (delta > 10)
        CHECK(rank >= 3);
    REQUIRE(project_ws(&in, IRCG_START_GIVEN, x0, 0.3, 0.5, IRCG_PROJ_PARTIAL, &part) == 0);
    REQUIRE(project_ws(&in, IRCG_START_GIVEN, x0, 0.3, 0.5, IRCG_PROJ_FULL, &full) == 0);
    double scale = mct_norm(Xref, np);
    CHECK(mct_dist(part.X, full.X, np) <= 1e-9 * scale);
    CHECK(mct_dist(part.X, Xref, np) <= 1e-9 * scale);
    CHECK(mct_dist(full.X, Xref, np) <= 1e-9 * scale);
    CHECK_INT(part.mv.full, 0); /* few triplets: no fallback */
    CHECK_INT(part.mv.converged, 1);
    CHECK(part.mv.matvecs > 0);
    CHECK_INT(full.mv.full, 1);
    CHECK_INT(full.mv.matvecs, 0);
    CHECK_INT(part.nrank, rank);
    CHECK_INT(full.nrank, rank);
    free(part.X);
    free(full.X);
    free(x0);
    free(Y);
    free(Xref);
    mct_free(&in);
}

TEST(mc_proj, partial_matches_full_column_variance)
{
    for (uint64_t seed = 1; seed <= 3 && !th_failed(); seed++)
        low_rank_plus_sparse(IRCG_OUTER_COLUMN_VARIANCE, seed, 5.0);
}

TEST(mc_proj, partial_matches_full_half_norm)
{
    for (uint64_t seed = 4; seed <= 6 && !th_failed(); seed++)
        low_rank_plus_sparse(IRCG_OUTER_HALF_NORM_SQ, seed, 1.0);
}

/* a large ball: several triplets above the threshold */
TEST(mc_proj, partial_matches_full_several_triplets)
{
    for (uint64_t seed = 7; seed <= 8 && !th_failed(); seed++)
        low_rank_plus_sparse(IRCG_OUTER_COLUMN_VARIANCE, seed, 60.0);
}

/* A slowly decaying spectrum: rho values above theta with rho ~ sqrt(40 delta)
 * for s_i = 10 - 0.05 i.  rho = 10 needs nsv to grow past the start (2)
 * and is certified without the SVD; rho ~ 49 exceeds the cap
 * (min(64, max(8, 110 / 4)) = 27) and falls back.  Both exact. */
TEST(mc_proj, many_triplets_grow_or_fall_back)
{
    int n = 150, p = 110;
    size_t np = (size_t)n * p;
    double s[110], *M, *Xref = malloc(np * sizeof *Xref);
    double deltas[2] = {0.025 * 10 * 11, 60.0};
    int fall_back[2] = {0, 1};

    for (int i = 0; i < 110; i++)
        s[i] = 10.0 - 0.05 * i;
    REQUIRE((M = designed(n, p, 110, s, 99)) != NULL);
    for (int c = 0; c < 2; c++) {
        mct_inst in;
        proj_run r;
        REQUIRE(mct_make_full(&in, n, p, M, deltas[c], IRCG_OUTER_HALF_NORM_SQ) == 0);
        int rank = mct_proj_nuclear(n, p, M, deltas[c], Xref);
        CHECK(rank > (c == 0 ? 8 : 27));
        REQUIRE(project_ws(&in, IRCG_START_ZERO, NULL, 0.0, 1.0, IRCG_PROJ_PARTIAL, &r) == 0);
        CHECK(mct_dist(r.X, Xref, np) <= 1e-9 * mct_norm(Xref, np));
        CHECK_INT(r.nrank, rank);
        CHECK_INT(r.mv.full, fall_back[c]);
        if (c == 0)
            CHECK(r.mv.matvecs > 0);
        free(r.X);
        mct_free(&in);
    }
    free(M);
    free(Xref);
}

/* Repeated values above the threshold: s = (3, 3[, 3], 1, tail) with
 * delta = 2.  One Krylov space sees one copy only; the verification on the
 * deflated matrix must notice the others (then the full SVD is used). */
TEST(mc_proj, repeated_values_above_threshold)
{
    int n = 150, p = 110;
    size_t np = (size_t)n * p;
    double s[110], *M, *Xref = malloc(np * sizeof *Xref);

    for (uint64_t seed = 1; seed <= 4 && !th_failed(); seed++)
        for (int mult = 2; mult <= 3; mult++) {
            mct_inst in;
            proj_run r;
            for (int i = 0; i < 110; i++)
                s[i] = i < mult ? 3.0 : i == mult ? 1.0 : 0.5 * pow(0.9, i);
            REQUIRE((M = designed(n, p, 110, s, seed)) != NULL);
            REQUIRE(mct_make_full(&in, n, p, M, 2.0, IRCG_OUTER_HALF_NORM_SQ) == 0);
            CHECK_INT(mct_proj_nuclear(n, p, M, 2.0, Xref), mult);
            REQUIRE(project_ws(&in, IRCG_START_ZERO, NULL, 0.0, 1.0, IRCG_PROJ_PARTIAL,
                               &r) == 0);
            CHECK(mct_dist(r.X, Xref, np) <= 1e-9 * mct_norm(Xref, np));
            CHECK_INT(r.nrank, mult);
            free(r.X);
            free(M);
            mct_free(&in);
        }
    free(Xref);
}

/* Y = 0: the projection is 0 in both modes (the Lanczos sees A v = 0). */
TEST(mc_proj, zero_matrix)
{
    for (int size = 0; size < 2; size++) {
        int n = size ? 120 : 12, p = size ? 100 : 9;
        double *M = calloc((size_t)n * p, sizeof *M);
        mct_inst in;
        REQUIRE(mct_make_full(&in, n, p, M, 1.0, IRCG_OUTER_COLUMN_VARIANCE) == 0);
        for (int mode = IRCG_PROJ_PARTIAL; mode <= IRCG_PROJ_FULL; mode++) {
            proj_run r;
            REQUIRE(project_ws(&in, IRCG_START_ZERO, NULL, 0.0, 1.0, mode, &r) == 0);
            CHECK(mct_norm(r.X, (size_t)n * p) == 0);
            CHECK_INT(r.mv.rank, 0);
            CHECK_INT(r.mv.full, mode == IRCG_PROJ_FULL);
            free(r.X);
        }
        mct_free(&in);
        free(M);
    }
}

/* The simplex threshold on sorted values against a closed form. */
TEST(mc_proj, simplex_threshold)
{
    double s[5] = {5, 3, 2, 2, 1}, theta;
    int rho;
    CHECK(mp_simplex_threshold(s, 5, 4.0, &theta, &rho) == 1);
    CHECK_NEAR(theta, 2.0, 1e-15);
    CHECK_INT(rho, 2); /* the values equal to theta are not above it */
    CHECK(mp_simplex_threshold(s, 5, 13.0, &theta, &rho) == 0); /* sum 13 */
    CHECK_INT(rho, 5);
    CHECK(mp_simplex_threshold(s, 5, 12.0, &theta, &rho) == 1);
    CHECK_NEAR(theta, 0.2, 1e-15); /* (13 - 12) / 5 */
    CHECK_INT(rho, 5);
    CHECK(mp_simplex_threshold(s, 1, 1.0, &theta, &rho) == 1);
    CHECK_NEAR(theta, 4.0, 0);
    CHECK_INT(rho, 1);
}
