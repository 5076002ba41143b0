/*
 * test_mc_lmo.c -- the matrix-completion oracle against dense computations:
 * the LMO's top singular value and vertex against LAPACK's SVD of the
 * explicitly formed gradient sigma U X + P_Omega(X - M), the direction's
 * scalars (<grad Phi, d>, ||d||^2, ||U d||^2, ||P_Omega d||^2), g, f, the
 * residual, the top singular values of grad g, and a gradient whose top
 * singular value is repeated (the vertex is then not unique).
 */
/* make test-kernels: mc_lmo. */
#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "problems/mc/mc.h"
#include "unit/solver/test_mc_util.h"

/* Take a few open-loop steps so that X has atoms and sigma U X matters;
 * each step plans the next LMO, the last one at `sigma`, so the LMO under
 * test starts from the Gram product the step pass made. */
static void advance(const ircg_problem *pb, void *ws, int steps, double sigma)
{
    for (int t = 0; t < steps; t++) {
        slv_dir d = {0};
        pb->ops->lmo(ws, ircg_sigma(0.05, 0.5, t), &d);
        pb->ops->plan_lmo(ws, t + 1 < steps ? ircg_sigma(0.05, 0.5, t + 1) : sigma);
        pb->ops->step(ws, 2.0 / (t + 2.0), 0.0, 0.0, 1.0);
    }
}

/*
 * Tolerances follow from what is compared, not from one CPU's rounding.
 *
 * The direction's scalars are formed by cancellation: ||d||^2 = delta^2 +
 * 2 delta u'Xv + ||X||^2 with d = -delta u v' - X, and likewise <grad Phi,
 * d> = -delta sv - <G, X>.  Each term is a sum of at most n + p + rank
 * products, so its rounding is at most gamma_N = N eps times the sum of the
 * magnitudes, i.e. (delta + ||X||_F)^2 for the norms and ||G||_F (delta +
 * ||X||_F) for the slope (|<G, X>| <= ||G||_F ||X||_F, sv <= ||G||_F).  When
 * d is small (X near the vertex) that bound, not a relative 1e-9, is what
 * any BLAS can promise; 16 N eps leaves room for the dense reference's own
 * rounding and for kernels that sum in a different order.
 *
 * The top singular value: Lanczos stops at a residual <= lmo_tol sv_1, so
 * the Ritz value is within that of a singular value (plus the dense SVD's
 * rounding, N eps ||G||_F).  The vector: by Wedin's theorem the angles of u
 * and v to the top singular pair are at most residual / (sv_1 - sv_2), and
 * |u v' - u1 v1'| entrywise is at most twice the sum of the two angles.
 */
static void check_lmo_at(mct_inst *in, ircg_outer_kind outer, double sigma,
                         double delta, int steps, int arpack)
{
    int n = in->n, p = in->p, m0 = n < p ? n : p;
    size_t np = (size_t)n * p;
    ircg_settings s;
    void *ws = NULL;
    ircg_iterate *it = NULL;
    slv_dir dir = {.need_hg = 1};
    slv_values val = {0};
    double *G = malloc(np * sizeof *G), *D = malloc(np * sizeof *D);
    double *sv = malloc((size_t)m0 * sizeof *sv), *u1 = malloc((size_t)n * sizeof *u1);
    double *v1 = malloc((size_t)p * sizeof *v1);

    ircg_settings_default(&s);
    s.lmo_tol = 1e-13;
    REQUIRE(in->pb->ops->create(in->pb, &s, &ws, NULL) == IRCG_OK);
    advance(in->pb, ws, steps, sigma);
    ((mc_ws *)ws)->engine = arpack ? IRCG_LMO_ARPACK : IRCG_LMO_LANCZOS;
    REQUIRE(in->pb->ops->iterate(ws, IRCG_X, 1, &it) == IRCG_OK);
    mct_grad(in, outer, sigma, it->dense, G);
    REQUIRE(mct_svd(n, p, G, sv, u1, v1) == 0);
    REQUIRE(in->pb->ops->lmo(ws, sigma, &dir) == IRCG_OK);

    const double ne = 16.0 * (n + p + it->rank) * DBL_EPSILON;
    const double normG = mct_norm(G, np), normX = mct_norm(it->dense, np);
    const double sv_tol = s.lmo_tol * sv[0] + ne * normG;
    REQUIRE(sv[0] - sv[1] > 1e3 * sv_tol); /* the top pair is well separated */
    CHECK_NEAR(dir.top_sv, sv[0], sv_tol);
    const mc_ws *w = ws;
    double err = 0;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++) {
            double a = w->u[i] * w->v[j], b = u1[i] * v1[j];
            err = fmax(err, fabs(a - b));
            D[i + (size_t)j * n] = -delta * a - it->dense[i + (size_t)j * n];
        }
    CHECK(err <= 4 * sv_tol / (sv[0] - sv[1]));
    const double norm_tol = ne * (delta + normX) * (delta + normX);
    CHECK_NEAR(dir.gphi_d, mct_dot(G, D, np), ne * normG * (delta + normX));
    CHECK_NEAR(dir.d_norm2, mct_dot(D, D, np), norm_tol);
    CHECK_NEAR(dir.d_hf_d, mct_hf(in, outer, D), norm_tol);
    CHECK_NEAR(dir.d_hg_d, mct_hg(in, D), norm_tol);
    in->pb->ops->values(ws, NULL, &val);
    CHECK_REL(val.g_x, mct_g(in, it->dense), 1e-13, 0);
    CHECK_REL(val.f_x, mct_f(in, outer, it->dense), 1e-11, 1e-14);
    /* grad g = P_Omega(X - M): its top singular values */
    double gs[3];
    mct_grad(in, outer, 0.0, it->dense, G);
    mct_svd(n, p, G, sv, NULL, NULL);
    REQUIRE(in->pb->ops->grad_singular_values(ws, 3, gs) == IRCG_OK);
    for (int i = 0; i < 3; i++)
        CHECK_REL(gs[i], sv[i], 1e-9, 1e-12);
    ircg_iterate_free(it);
    in->pb->ops->destroy(ws);
    free(G);
    free(D);
    free(sv);
    free(u1);
    free(v1);
}

TEST(mc_lmo, brute_force_column_variance)
{
    mct_inst in;
    REQUIRE(mct_make(&in, 30, 20, 0.4, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 7) == 0);
    check_lmo_at(&in, IRCG_OUTER_COLUMN_VARIANCE, 0.3, 5.0, 0, 0);
    check_lmo_at(&in, IRCG_OUTER_COLUMN_VARIANCE, 0.3, 5.0, 6, 0);
    check_lmo_at(&in, IRCG_OUTER_COLUMN_VARIANCE, 2.0, 5.0, 11, 0);
    mct_free(&in);
}

TEST(mc_lmo, brute_force_half_norm_wide)
{
    mct_inst in;
    REQUIRE(mct_make(&in, 20, 30, 0.4, 3.0, IRCG_OUTER_HALF_NORM_SQ, 8) == 0);
    check_lmo_at(&in, IRCG_OUTER_HALF_NORM_SQ, 0.5, 3.0, 5, 0);
    mct_free(&in);
}

/* The ARPACK path (an internal knob, kept for comparison) gives the same
 * vertex. */
TEST(mc_lmo, arpack_path_matches_brute_force)
{
    mct_inst in;
    REQUIRE(mct_make(&in, 30, 20, 0.4, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 7) == 0);
    check_lmo_at(&in, IRCG_OUTER_COLUMN_VARIANCE, 0.3, 5.0, 0, 1);
    check_lmo_at(&in, IRCG_OUTER_COLUMN_VARIANCE, 2.0, 5.0, 7, 1);
    mct_free(&in);
}

/*
 * The ARPACK engine against the Lanczos one, in lockstep along 20 IR-CG
 * steps: both LMOs run at the same iterate (the ARPACK workspace steps with
 * the Lanczos vertex), and at each the dense SVD of the explicit gradient
 * bounds what they may differ by.  Each engine's pair has a residual of at
 * most lmo_tol sv_1, so each value is within that of sv_1 and each vertex
 * u v' within 2 residual / (sv_1 - sv_2) of the top one, entrywise (Wedin);
 * the two engines, twice that of each other.
 */
TEST(mc_lmo, arpack_engine_follows_lanczos)
{
    mct_inst in;
    ircg_settings s;
    void *wl = NULL, *wa = NULL;
    REQUIRE(mct_make(&in, 30, 20, 0.4, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 11) == 0);
    int n = in.n, p = in.p;
    size_t np = (size_t)n * p;
    double *G = malloc(np * sizeof *G), sv[20], u1[30], v1[20];
    ircg_settings_default(&s);
    s.lmo_tol = 1e-12;
    REQUIRE(in.pb->ops->create(in.pb, &s, &wl, NULL) == IRCG_OK);
    s.lmo_engine = IRCG_LMO_ARPACK;
    REQUIRE(in.pb->ops->create(in.pb, &s, &wa, NULL) == IRCG_OK);
    for (int t = 0; t < 20 && !th_failed(); t++) {
        ircg_iterate *it = NULL;
        slv_dir dl = {.direction = IRCG_DIR_FRANK_WOLFE}, da = dl;
        double sigma = ircg_sigma(0.05, 0.5, t);
        REQUIRE(in.pb->ops->iterate(wl, IRCG_X, 1, &it) == IRCG_OK);
        mct_grad(&in, IRCG_OUTER_COLUMN_VARIANCE, sigma, it->dense, G);
        ircg_iterate_free(it);
        REQUIRE(mct_svd(n, p, G, sv, u1, v1) == 0);
        REQUIRE(in.pb->ops->lmo(wl, sigma, &dl) == IRCG_OK);
        REQUIRE(in.pb->ops->lmo(wa, sigma, &da) == IRCG_OK);
        const double res = s.lmo_tol * sv[0] + 16.0 * (n + p) * DBL_EPSILON * mct_norm(G, np);
        REQUIRE(sv[0] - sv[1] > 1e3 * res);
        CHECK_INT(da.converged, 1);
        CHECK_NEAR(da.top_sv, dl.top_sv, 2 * res);
        const mc_ws *l = wl, *a = wa;
        double err = 0;
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++)
                err = fmax(err, fabs(l->u[i] * l->v[j] - a->u[i] * a->v[j]));
        CHECK(err <= 8 * res / (sv[0] - sv[1]));
        mc_set_vertex(wa, l->u, l->v); /* the same step on both sides */
        REQUIRE(in.pb->ops->step(wl, 2.0 / (t + 2.0), 0.0, 0.0, 1.0) == IRCG_OK);
        REQUIRE(in.pb->ops->step(wa, 2.0 / (t + 2.0), 0.0, 0.0, 1.0) == IRCG_OK);
    }
    in.pb->ops->destroy(wl);
    in.pb->ops->destroy(wa);
    free(G);
    mct_free(&in);
}

/* ARPACK stopped at lmo_max_matvecs before any Ritz value converged still
 * answers with its top Ritz pair (dseupd alone would leave the vector
 * unwritten -- garbage, which this test saw): not converged, unit vectors,
 * and a Ritz value, so at most sv_1 (a Rayleigh quotient of C'C); well
 * above 0 too, as the gradient's top pair stands out here (sv_1 > 1e3
 * (sv_1 - sv_2) residuals, check_lmo_at) and a basis of 4 vectors holds
 * most of it. */
TEST(mc_lmo, arpack_unconverged_gives_the_top_ritz_pair)
{
    mct_inst in;
    ircg_settings s;
    void *ws = NULL;
    slv_dir dir = {0};
    REQUIRE(mct_make(&in, 30, 20, 0.4, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 7) == 0);
    int n = in.n, p = in.p;
    double *G = malloc((size_t)n * p * sizeof *G), sv[20];
    ircg_settings_default(&s);
    s.lmo_tol = 1e-15;
    s.lmo_max_matvecs = 2;
    s.lmo_engine = IRCG_LMO_ARPACK;
    REQUIRE(in.pb->ops->create(in.pb, &s, &ws, NULL) == IRCG_OK);
    ircg_iterate *it = NULL;
    REQUIRE(in.pb->ops->iterate(ws, IRCG_X, 1, &it) == IRCG_OK);
    mct_grad(&in, IRCG_OUTER_COLUMN_VARIANCE, 0.3, it->dense, G);
    REQUIRE(mct_svd(n, p, G, sv, NULL, NULL) == 0);
    REQUIRE(in.pb->ops->lmo(ws, 0.3, &dir) == IRCG_OK);
    const mc_ws *w = ws;
    CHECK_INT(dir.converged, 0);
    CHECK_NEAR(cblas_dnrm2(n, w->u, 1), 1.0, 1e-12);
    CHECK_NEAR(cblas_dnrm2(p, w->v, 1), 1.0, 1e-12);
    CHECK(dir.top_sv <= sv[0] * (1 + 1e-12));
    CHECK(dir.top_sv >= 0.5 * sv[0]);
    ircg_iterate_free(it);
    in.pb->ops->destroy(ws);
    free(G);
    mct_free(&in);
}

TEST(mc_lmo, residual_matches_dense)
{
    mct_inst in;
    ircg_settings s;
    void *ws = NULL;
    ircg_iterate *it = NULL;

    REQUIRE(mct_make(&in, 25, 15, 0.5, 4.0, IRCG_OUTER_COLUMN_VARIANCE, 9) == 0);
    ircg_settings_default(&s);
    REQUIRE(in.pb->ops->create(in.pb, &s, &ws, NULL) == IRCG_OK);
    advance(in.pb, ws, 4, 0.05);
    /* a step that makes z differ from x (advance keeps z = x) */
    slv_dir d = {0};
    REQUIRE(in.pb->ops->lmo(ws, 0.01, &d) == IRCG_OK);
    REQUIRE(in.pb->ops->step(ws, 0.3, 0.5, 0.2, 0.3) == IRCG_OK);
    /* both residuals (z's is made on demand); the problem's Omega order is
     * by row, then column */
    for (int side = 1; side >= 0; side--) {
        ircg_iterate_free(it);
        it = NULL;
        REQUIRE(in.pb->ops->iterate(ws, side ? IRCG_Z : IRCG_X, 1, &it) == IRCG_OK);
        const double *r = in.pb->ops->residual(ws, side ? IRCG_Z : IRCG_X);
        REQUIRE(r != NULL);
        int64_t e = 0;
        double err = 0;
        for (int i = 0; i < in.n; i++)
            for (int j = 0; j < in.p; j++)
                if (in.mask[i + (size_t)j * in.n] != 0) {
                    size_t q = i + (size_t)j * in.n;
                    err = fmax(err, fabs(r[e++] - (it->dense[q] - in.Md[q])));
                }
        CHECK_INT(e, in.R->nnz);
        CHECK(err <= 1e-13);
    }
    /* the exported factors reproduce the dense matrix */
    double maxd = 0;
    for (int j = 0; j < in.p; j++)
        for (int i = 0; i < in.n; i++) {
            double x = i == j ? it->a0 * it->x0_diag[i] : 0;
            for (int k = 0; k < it->rank; k++)
                x += it->P[i + (size_t)k * in.n] * it->w[k] * it->Q[j + (size_t)k * in.p];
            maxd = fmax(maxd, fabs(x - it->dense[i + (size_t)j * in.n]));
        }
    CHECK(maxd <= 1e-13);
    ircg_iterate_free(it);
    in.pb->ops->destroy(ws);
    mct_free(&in);
}

/* G = -M at X = 0 with M = Q1 diag(5, 5, 2, 1, ...) Q2' fully observed: the
 * top singular value is repeated, so any unit (u, v) in the top singular
 * subspace pairing is a valid vertex; check <G, V> = -delta sigma_1 and V
 * in the ball instead of the vertex itself. */
TEST(mc_lmo, repeated_top_singular_value)
{
    int n = 12, p = 8;
    double *M = calloc((size_t)n * p, sizeof *M), *A = malloc((size_t)n * n * sizeof *A);
    double *B = malloc((size_t)p * p * sizeof *B), s[8], d[8] = {5, 5, 2, 1, 0.5, 0.3, 0.2, 0.1};
    uint64_t seed = 11;
    mct_inst in;
    ircg_settings st;
    void *ws = NULL;
    slv_dir dir = {0};

    /* random orthogonal factors from the SVDs of random matrices */
    for (int i = 0; i < n * n; i++)
        A[i] = mct_urand(&seed);
    for (int i = 0; i < p * p; i++)
        B[i] = mct_urand(&seed);
    double *U = malloc((size_t)n * n * sizeof *U), *V = malloc((size_t)p * p * sizeof *V);
    double *ss = malloc((size_t)n * sizeof *ss), *sup = malloc((size_t)n * sizeof *sup);
    LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'A', 'N', n, n, A, n, ss, U, n, NULL, 1, sup);
    LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'A', 'N', p, p, B, p, ss, V, p, NULL, 1, sup);
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            for (int k = 0; k < p; k++)
                M[i + (size_t)j * n] += U[i + (size_t)k * n] * d[k] * V[j + (size_t)k * p];
    REQUIRE(mct_make_full(&in, n, p, M, 2.0, IRCG_OUTER_COLUMN_VARIANCE) == 0);
    double *G = malloc((size_t)n * p * sizeof *G), *X0 = calloc((size_t)n * p, sizeof *X0);
    mct_grad(&in, IRCG_OUTER_COLUMN_VARIANCE, 0.5, X0, G);
    mct_svd(n, p, G, s, NULL, NULL);
    CHECK_REL(s[0], s[1], 1e-12, 0); /* the construction worked */
    ircg_settings_default(&st);
    st.start = IRCG_START_ZERO;
    st.lmo_tol = 1e-12;
    REQUIRE(in.pb->ops->create(in.pb, &st, &ws, NULL) == IRCG_OK);
    REQUIRE(in.pb->ops->lmo(ws, 0.5, &dir) == IRCG_OK);
    const mc_ws *w = ws;
    double gv = 0, nu = 0, nv = 0;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            gv += G[i + (size_t)j * n] * (-2.0 * w->u[i] * w->v[j]);
    for (int i = 0; i < n; i++)
        nu += w->u[i] * w->u[i];
    for (int j = 0; j < p; j++)
        nv += w->v[j] * w->v[j];
    CHECK_REL(dir.top_sv, 5.0, 1e-10, 0);
    CHECK_REL(gv, -2.0 * s[0], 1e-10, 0);
    CHECK(2.0 * sqrt(nu * nv) <= 2.0 * (1 + 1e-12)); /* ||V||_* = delta |u||v| */
    CHECK_REL(dir.gphi_d, gv, 1e-10, 0);            /* X = 0: <G, V - X> = <G, V> */
    in.pb->ops->destroy(ws);
    mct_free(&in);
    free(M), free(A), free(B), free(U), free(V), free(ss), free(sup), free(G), free(X0);
}

/* A zero gradient (X = M on a fully observed matrix, f'(X) = 0 at sigma = 0
 * is impossible, so use X = M = 0 with half-norm f): no NaN. */
TEST(mc_lmo, zero_gradient_is_finite)
{
    int n = 5, p = 4;
    double M[20] = {0};
    mct_inst in;
    ircg_settings st;
    void *ws = NULL;
    slv_dir dir = {.need_hg = 1};
    slv_values val = {0};

    REQUIRE(mct_make_full(&in, n, p, M, 1.0, IRCG_OUTER_HALF_NORM_SQ) == 0);
    ircg_settings_default(&st);
    st.start = IRCG_START_ZERO;
    REQUIRE(in.pb->ops->create(in.pb, &st, &ws, NULL) == IRCG_OK);
    REQUIRE(in.pb->ops->lmo(ws, 0.1, &dir) == IRCG_OK);
    CHECK(dir.top_sv == 0);
    CHECK(dir.gphi_d == 0);
    CHECK(isfinite(dir.d_norm2) && isfinite(dir.d_hf_d) && isfinite(dir.d_hg_d));
    REQUIRE(in.pb->ops->step(ws, 0.5, 0.0, 0.0, 1.0) == IRCG_OK);
    in.pb->ops->values(ws, NULL, &val);
    CHECK(isfinite(val.g_x) && isfinite(val.f_x));
    in.pb->ops->destroy(ws);
    mct_free(&in);
}
