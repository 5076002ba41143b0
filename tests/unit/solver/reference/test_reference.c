/*
 * test_reference.c -- the inner optimum g_opt (reference.c): its stopping
 * rules on a scripted oracle, and its value on matrix completion against a
 * dense projected-gradient solve written here (full SVDs from LAPACKE), on
 * least squares against LAPACKE_dgels, and on MovieLens 100K.
 */
/* make test-kernels: reference. */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "core/solver_internal.h"
#include "reference/reference.h"
#include "unit/solver/test_mc_util.h"

/* ------------------------------------------------ a scripted oracle -- */

/* Reports raw gap raw[t] (the last entry repeats) with scale 1; the LMO
 * converges only on call number converge_on within an iteration (0: on the
 * first, -1: never). */
typedef struct script {
    const double *raw;
    int nraw;
    int converge_on;
    int64_t t, calls, calls_this_t;
    double r0;
} script;

static script g_script;

static ircg_error sc_create(const ircg_problem *pb, const ircg_settings *s,
                            void **ws, ircg_diag *diag)
{
    (void)pb, (void)s, (void)diag;
    g_script.t = g_script.calls = g_script.calls_this_t = 0;
    *ws = &g_script;
    return IRCG_OK;
}

static void sc_destroy(void *ws) { (void)ws; }

static ircg_error sc_lmo(void *ws, double sigma, slv_dir *dir)
{
    script *s = ws;
    (void)sigma;
    int64_t i = s->t < s->nraw ? s->t : s->nraw - 1;
    s->calls++;
    dir->gphi_d = -s->raw[i];
    dir->gphi_scale = 1.0;
    dir->d_norm2 = dir->d_hf_d = dir->d_hg_d = 1.0;
    dir->top_sv = NAN;
    dir->converged = s->converge_on >= 0 && s->calls_this_t++ >= s->converge_on;
    return IRCG_OK;
}

static ircg_error sc_step(void *ws, double a, double cz, double co, double cn)
{
    script *s = ws;
    (void)a, (void)cz, (void)co, (void)cn;
    s->t++;
    s->calls_this_t = 0;
    return IRCG_OK;
}

static void sc_values(void *ws, const double *ref, slv_values *out)
{
    (void)ws, (void)ref;
    out->g_x = 10.0;
}

static const double *sc_residual(void *ws, ircg_which which)
{
    script *s = ws;
    (void)which;
    return &s->r0;
}

static const slv_oracle_ops sc_ops = {
    .name = "script", .create = sc_create, .destroy = sc_destroy, .lmo = sc_lmo,
    .step = sc_step, .values = sc_values, .residual = sc_residual,
};

static ircg_reference_info run_script(const double *raw, int nraw, int converge_on,
                                      double tol, int64_t max_iter)
{
    ircg_problem pb = {.ops = &sc_ops, .prox_ops = &sc_ops};
    ircg_reference_settings rs;
    ircg_reference *ref = NULL;
    ircg_reference_info ri = {0};
    pb.info.n_observed = 1;
    pb.info.L_f = pb.info.L_g = 1;
    g_script = (script){.raw = raw, .nraw = nraw, .converge_on = converge_on};
    ircg_reference_settings_default(&rs);
    rs.tol = tol;
    rs.max_iter = max_iter;
    if (ircg_reference_compute(&pb, &rs, &ref, NULL) == IRCG_OK)
        ircg_reference_get_info(ref, &ri);
    else
        ri.status = IRCG_STATUS_UNSOLVED;
    ircg_reference_free(ref);
    return ri;
}

TEST(reference, certificate_is_raw_gap_plus_floor_never_negative)
{
    const double floor = 8.0 * DBL_EPSILON; /* scale 1 in the script */
    /* a raw gap below -floor (rounding) is reported as the floor, and it
     * stops the run "at the floor" although tol is smaller */
    double neg[] = {1.0, -1e-14};
    ircg_reference_info ri = run_script(neg, 2, 0, 1e-20, 1000);
    CHECK_INT(ri.status, IRCG_STATUS_CONVERGED);
    CHECK_INT(ri.iterations, 1);
    CHECK_NEAR(ri.gap_floor, floor, 1e-30);
    CHECK(ri.gap == ri.gap_floor); /* max(-1e-14, 0) + floor */
    CHECK(ri.gap > 1e-20);         /* tol was below what is certifiable */
    CHECK(ri.lmo_converged == 1);
    /* a gap above the floor but below tol converges with raw + floor */
    double pos[] = {1.0, 0.5, 1e-6};
    ri = run_script(pos, 3, 0, 1e-5, 1000);
    CHECK_INT(ri.status, IRCG_STATUS_CONVERGED);
    CHECK_INT(ri.iterations, 2);
    CHECK(ri.gap == 1e-6 + floor);
    /* lower bound: the best g - certificate (g is 10 throughout) */
    CHECK(ri.lower_bound == 10.0 - (1e-6 + floor));
    /* a raw gap between floor and tol - floor: certificate above tol is
     * not enough, raw <= floor is not met either: keeps going */
    double mid[] = {1.5 * floor, 1.5 * floor, 0.0};
    ri = run_script(mid, 3, 0, 2.0 * floor, 1000);
    CHECK_INT(ri.iterations, 2);
}

TEST(reference, stalled_gap_stops_after_the_window)
{
    /* no new smallest raw gap for max(100, t/4) iterations: stalled */
    double flat[] = {1.0};
    ircg_reference_info ri = run_script(flat, 1, 0, 1e-9, 100000);
    CHECK_INT(ri.status, IRCG_STATUS_STALLED);
    CHECK_INT(ri.iterations, 100);
    CHECK(ri.gap == 1.0 + ri.gap_floor);
    /* the window grows with t: best at t = 999, then flat */
    double *late = malloc(1000 * sizeof *late);
    REQUIRE(late);
    for (int i = 0; i < 1000; i++)
        late[i] = 1.0 - i * 1e-4;
    ri = run_script(late, 1000, 0, 1e-9, 100000);
    CHECK_INT(ri.status, IRCG_STATUS_STALLED);
    CHECK_INT(ri.iterations, 1331); /* first t with t - 999 >= t / 4 */
    free(late);
    /* a slowly but steadily decreasing gap is not stalled */
    double slow[400];
    for (int i = 0; i < 400; i++)
        slow[i] = 1.0 / (i + 1.0);
    ri = run_script(slow, 400, 0, 1e-12, 300);
    CHECK_INT(ri.status, IRCG_STATUS_MAX_ITER);
}

TEST(reference, unconverged_lmo_is_no_certificate)
{
    /* a zero raw gap from an LMO that never meets lmo_tol stops nothing */
    double zero[] = {0.0};
    ircg_reference_info ri = run_script(zero, 1, -1, 1e-9, 50);
    CHECK_INT(ri.status, IRCG_STATUS_MAX_ITER);
    CHECK_INT(ri.iterations, 50);
    CHECK_INT(ri.lmo_converged, 0);
    CHECK(ri.lower_bound == -INFINITY); /* no iteration gave a bound */
    CHECK_INT(g_script.calls, 51 * 5);  /* the call and 4 retries */
    /* converging on the third call of an iteration is a certificate */
    ri = run_script(zero, 1, 2, 1e-9, 50);
    CHECK_INT(ri.status, IRCG_STATUS_CONVERGED);
    CHECK_INT(ri.iterations, 0);
    CHECK_INT(ri.lmo_converged, 1);
    CHECK_INT(g_script.calls, 3);
}

/* ------------------------------- dense projected gradient (FISTA) -- */

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* X <- its projection onto { ||X||_* <= delta }: full SVD, the singular
 * values onto { s >= 0, sum s <= delta } by sorting (Duchi et al.). */
static int proj_nuclear(int n, int p, double delta, double *X)
{
    int m = n < p ? n : p, rc;
    double *U = malloc((size_t)n * m * sizeof *U);
    double *Vt = malloc((size_t)m * p * sizeof *Vt);
    double *s = malloc((size_t)m * sizeof *s), *srt = malloc((size_t)m * sizeof *srt);
    double *sup = malloc((size_t)m * sizeof *sup);
    rc = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', n, p, X, n, s, U, n, Vt, m, sup);
    if (rc == 0) {
        double tot = 0, theta = 0, cum = 0;
        for (int i = 0; i < m; i++)
            tot += s[i];
        if (tot > delta) {
            memcpy(srt, s, (size_t)m * sizeof *srt);
            qsort(srt, (size_t)m, sizeof *srt, cmp_desc);
            for (int k = 0; k < m; k++) {
                cum += srt[k];
                double th = (cum - delta) / (k + 1);
                if (srt[k] - th > 0)
                    theta = th;
            }
        }
        for (int i = 0; i < m; i++)
            s[i] = fmax(s[i] - theta, 0.0);
        memset(X, 0, (size_t)n * p * sizeof *X);
        for (int k = 0; k < m; k++)
            for (int j = 0; j < p; j++)
                for (int i = 0; i < n; i++)
                    X[i + (size_t)j * n] += U[i + (size_t)k * n] * s[k] * Vt[k + (size_t)j * m];
    }
    free(U);
    free(Vt);
    free(s);
    free(srt);
    free(sup);
    return rc;
}

/* FW gap <G, X> + delta sigma_1(G) of the dense X, G = P_Omega(X - M). */
static double dense_gap(const mct_inst *in, double delta, const double *X, double *G,
                        double *sv)
{
    size_t np = (size_t)in->n * in->p;
    mct_grad(in, IRCG_OUTER_HALF_NORM_SQ, 0.0, X, G);
    if (mct_svd(in->n, in->p, G, sv, NULL, NULL) != 0)
        return NAN;
    return mct_dot(G, X, np) + delta * sv[0];
}

/* min g over the ball by FISTA with step 1/L_g = 1 and gradient restarts,
 * until the certified gap <= gap_tol; returns that gap. */
static double dense_g_opt(const mct_inst *in, double delta, double gap_tol, double *X,
                          double *sv)
{
    size_t np = (size_t)in->n * in->p;
    double *Y = calloc(np, sizeof *Y), *Xo = calloc(np, sizeof *Xo);
    double *G = calloc(np, sizeof *G), tk = 1, gap = INFINITY;
    memset(X, 0, np * sizeof *X);
    for (int k = 0; k < 50000 && gap > gap_tol; k++) {
        memcpy(Xo, X, np * sizeof *X);
        mct_grad(in, IRCG_OUTER_HALF_NORM_SQ, 0.0, Y, G);
        for (size_t e = 0; e < np; e++)
            X[e] = Y[e] - G[e];
        if (proj_nuclear(in->n, in->p, delta, X) != 0)
            break;
        double tn = 0.5 * (1 + sqrt(1 + 4 * tk * tk)), restart = 0;
        for (size_t e = 0; e < np; e++)
            restart += (Y[e] - X[e]) * (X[e] - Xo[e]);
        if (restart > 0)
            tn = 1; /* momentum points uphill: restart it */
        for (size_t e = 0; e < np; e++)
            Y[e] = X[e] + (tk - 1) / tn * (X[e] - Xo[e]);
        tk = tn;
        if (k % 10 == 9)
            gap = dense_gap(in, delta, X, G, sv);
    }
    gap = dense_gap(in, delta, X, G, sv);
    free(Y);
    free(Xo);
    free(G);
    return gap;
}

TEST(reference, matrix_completion_matches_dense_projected_gradient)
{
    enum { N = 30, P = 20 };
    const double delta = 5.0, tol = 1e-10;
    mct_inst in;
    REQUIRE(mct_make(&in, N, P, 0.4, delta, IRCG_OUTER_COLUMN_VARIANCE, 41) == 0);
    double *X = malloc(N * P * sizeof *X), sv[P];
    double gap_d = dense_g_opt(&in, delta, 1e-12, X, sv);
    double g_d = mct_g(&in, X);
    REQUIRE(gap_d <= 1e-11);

    ircg_reference_settings rs;
    ircg_reference *ref = NULL;
    ircg_reference_info ri;
    ircg_reference_settings_default(&rs);
    rs.tol = tol;
    REQUIRE(ircg_reference_compute(in.pb, &rs, &ref, NULL) == IRCG_OK);
    ircg_reference_get_info(ref, &ri);
    printf("    g_opt - g_dense %.3e (gap %.3e, dense gap %.3e), %lld iterations, "
           "sigma %.6f %.6f (dense %.6f %.6f)\n", ri.g_opt - g_d, ri.gap, gap_d,
           (long long)ri.iterations, ri.top_sv, ri.second_sv, sv[0], sv[1]);
    CHECK_INT(ri.status, IRCG_STATUS_CONVERGED);
    CHECK(ri.lmo_converged == 1);
    CHECK(ri.gap <= tol);
    CHECK(ri.gap_floor > 0 && ri.gap >= ri.gap_floor);
    /* both are certified: g* <= g_opt <= g* + gap, g* <= g_d <= g* + gap_d,
     * up to the rounding of the two values (about 1e3 here) */
    double slack = 16 * DBL_EPSILON * g_d;
    CHECK(ri.g_opt - g_d <= ri.gap + slack);
    CHECK(g_d - ri.g_opt <= gap_d + slack);
    CHECK(ri.lower_bound <= g_d + slack);
    /* sigma_1, sigma_2 of grad g at the end: g is strongly convex in
     * P_Omega X, so ||G_lib - G_d||_F <= sqrt(2 gap) + sqrt(2 gap_d), and by
     * Weyl each singular value moves at most that much */
    double dev = sqrt(2 * ri.gap) + sqrt(2 * gap_d) + 1e-10 * sv[0];
    CHECK_NEAR(ri.top_sv, sv[0], dev);
    CHECK_NEAR(ri.second_sv, sv[1], dev);
    CHECK(sv[1] > 1.0); /* a real second value, not a collapsed Krylov space */
    ircg_reference_free(ref);

    /* tol below the floor: stops at the floor, says so, no max_iter run */
    rs.tol = 1e-20;
    rs.max_iter = 100000;
    REQUIRE(ircg_reference_compute(in.pb, &rs, &ref, NULL) == IRCG_OK);
    ircg_reference_get_info(ref, &ri);
    CHECK_INT(ri.status, IRCG_STATUS_CONVERGED);
    CHECK(ri.iterations < 1000);
    CHECK(ri.gap_floor > rs.tol);
    CHECK(ri.gap > rs.tol && ri.gap <= 2 * ri.gap_floor);
    CHECK(ri.g_opt - g_d <= ri.gap + slack);
    ircg_reference_free(ref);
    free(X);
    mct_free(&in);
}

/* The certificate of a single inner solution (problems/mc/mc_certify.c)
 * against a dense solve: the dense x_d has gap_d, so every inner solution
 * x* has ||P_Omega(x_d - x*)|| <= sqrt(2 gap_d) (g is 1/2 ||P_Omega(.)||^2
 * plus linear), and the claims must hold up to that:
 * ||P_Omega(x^ - x_d)|| <= unique_dist + sqrt(2 gap_d), and the dense
 * sigma_i of grad g(x_d) within unique_bound + sqrt(2 gap_d) of cert_sv_i.
 * With a ball so large that the ratings can be fit, grad g(x*) = 0 and
 * nothing is certified. */
TEST(reference, uniqueness_certificate_against_a_dense_solve)
{
    enum { N = 30, P = 20 };
    mct_inst in;
    REQUIRE(mct_make(&in, N, P, 0.4, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 41) == 0);
    double *X = malloc(N * P * sizeof *X), *G = malloc(N * P * sizeof *G), sv[P];
    double gap_d = dense_g_opt(&in, 5.0, 1e-12, X, sv);
    REQUIRE(gap_d <= 1e-11);
    ircg_reference_settings rs;
    ircg_reference *ref = NULL;
    ircg_reference_info ri;
    ircg_reference_settings_default(&rs);
    rs.tol = 1e-10;
    rs.certify_unique = 1;
    REQUIRE(ircg_reference_compute(in.pb, &rs, &ref, NULL) == IRCG_OK);
    ircg_reference_get_info(ref, &ri);
    mct_grad(&in, IRCG_OUTER_HALF_NORM_SQ, 0.0, X, G);
    double dr = 0, e = sqrt(2 * gap_d); /* ||r(x^) - r(x_d)||, Omega in CSR order */
    int64_t k = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < P; j++) {
            size_t ij = i + (size_t)j * N;
            if (in.mask[ij] == 0)
                continue;
            double rd = X[ij] - in.Md[ij];
            dr += (ref->residual[k] - rd) * (ref->residual[k] - rd);
            k++;
        }
    REQUIRE(k == ref->n);
    printf("    unique %d: sigma %.9f %.9f (dense %.9f %.9f), bound %.3g (dist %.3g, "
           "rounding %.3g), margin %.6f; ||r - r_d|| %.3g\n", ri.unique, ri.cert_sv1,
           ri.cert_sv2, sv[0], sv[1], ri.unique_bound, ri.unique_dist, ri.unique_rounding,
           ri.unique_margin, sqrt(dr));
    CHECK_INT(ri.unique, 1);
    CHECK_NEAR(ri.unique_margin, ri.cert_sv1 - ri.cert_sv2 - 2 * ri.unique_bound,
               1e-12 * ri.cert_sv1);
    CHECK(ri.unique_bound >= ri.unique_dist + ri.unique_rounding);
    CHECK(sqrt(dr) <= ri.unique_dist + e);
    CHECK_NEAR(ri.cert_sv1, sv[0], ri.unique_bound + e);
    CHECK_NEAR(ri.cert_sv2, sv[1], ri.unique_bound + e);
    ircg_reference_free(ref);
    mct_free(&in);

    /* a ball of radius 200 holds completions that fit every rating */
    REQUIRE(mct_make(&in, N, P, 0.4, 200.0, IRCG_OUTER_COLUMN_VARIANCE, 41) == 0);
    rs.max_iter = 2000;
    REQUIRE(ircg_reference_compute(in.pb, &rs, &ref, NULL) == IRCG_OK);
    ircg_reference_get_info(ref, &ri);
    printf("    radius 200: unique %d, margin %.3g, sigma %.3g %.3g, gap %.3g\n", ri.unique,
           ri.unique_margin, ri.cert_sv1, ri.cert_sv2, ri.gap);
    CHECK_INT(ri.unique, 0);
    CHECK(ri.unique_margin <= 0);
    ircg_reference_free(ref);
    mct_free(&in);
    free(X);
    free(G);
}

/* The internal sigma_1, sigma_2, sigma_3 of grad g right after an LMO, on
 * grad g = X0 - M with a repeated top singular value: from the LMO's exact
 * top vector the Krylov space would be invariant after one step. */
TEST(reference, grad_singular_values_after_an_lmo)
{
    enum { N = 6, P = 5 };
    double M[N * P] = {0};
    const double sig[P] = {5, 5, 2, 1, 0.5};
    /* M = Q1 diag(sig) Q2' with orthogonal Q1, Q2 from a QR of random data */
    double A[N * N], B[P * P], tau[N];
    uint64_t seed = 3;
    for (int i = 0; i < N * N; i++)
        A[i] = mct_urand(&seed);
    for (int i = 0; i < P * P; i++)
        B[i] = mct_urand(&seed);
    REQUIRE(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, N, N, A, N, tau) == 0);
    REQUIRE(LAPACKE_dorgqr(LAPACK_COL_MAJOR, N, N, N, A, N, tau) == 0);
    REQUIRE(LAPACKE_dgeqrf(LAPACK_COL_MAJOR, P, P, B, P, tau) == 0);
    REQUIRE(LAPACKE_dorgqr(LAPACK_COL_MAJOR, P, P, P, B, P, tau) == 0);
    for (int k = 0; k < P; k++)
        for (int j = 0; j < P; j++)
            for (int i = 0; i < N; i++)
                M[i + j * N] += A[i + k * N] * sig[k] * B[j + k * P];
    mct_inst in;
    REQUIRE(mct_make_full(&in, N, P, M, 1.0, IRCG_OUTER_HALF_NORM_SQ) == 0);
    ircg_settings st;
    void *ws = NULL;
    ircg_settings_default(&st);
    REQUIRE(in.pb->ops->create(in.pb, &st, &ws, NULL) == IRCG_OK);
    slv_dir dir = {0};
    REQUIRE(in.pb->ops->lmo(ws, 0.0, &dir) == IRCG_OK);
    double sv[3] = {0}, want[P], G[N * P], X0[N * P] = {0};
    ircg_iterate *it = NULL;
    REQUIRE(in.pb->ops->iterate(ws, IRCG_X, 1, &it) == IRCG_OK);
    memcpy(X0, it->dense, sizeof X0);
    ircg_iterate_free(it);
    mct_grad(&in, IRCG_OUTER_HALF_NORM_SQ, 0.0, X0, G);
    REQUIRE(mct_svd(N, P, G, want, NULL, NULL) == 0);
    REQUIRE(in.pb->ops->grad_singular_values(ws, 3, sv) == IRCG_OK);
    printf("    dense %.6f %.6f %.6f, library %.6f %.6f %.6f\n", want[0], want[1],
           want[2], sv[0], sv[1], sv[2]);
    for (int i = 0; i < 3; i++)
        CHECK_NEAR(sv[i], want[i], 1e-9 * want[0]);
    in.pb->ops->destroy(ws);
    mct_free(&in);
}

/* ------------------------------------------------- least squares -- */

TEST(reference, least_squares_interior_optimum_at_the_floor)
{
    /* grad g(x*) = 0 inside the l2 ball: the rounding of A'r decides the
     * floor.  g* from LAPACKE_dgels; the certificate must hold. */
    enum { M = 40, N = 8 };
    double A[M * N], b[M], Ac[M * N], bc[M];
    uint64_t seed = 5;
    for (int i = 0; i < M * N; i++)
        A[i] = mct_urand(&seed);
    for (int i = 0; i < M; i++)
        b[i] = 3.0 * mct_urand(&seed);
    memcpy(Ac, A, sizeof A);
    memcpy(bc, b, sizeof b);
    REQUIRE(LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', M, N, 1, Ac, N, bc, 1) == 0);
    long double gs = 0;
    for (int i = N; i < M; i++)
        gs += 0.5L * bc[i] * bc[i];
    double g_ls = (double)gs;
    ircg_ls_data d = {.m = M, .n = N, .A_dense = A, .b = b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {.kind = IRCG_DOMAIN_L2_BALL, .radius = 1e3};
    ircg_problem *pb = NULL;
    REQUIRE(ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) == IRCG_OK);
    ircg_reference_settings rs;
    ircg_reference *ref = NULL;
    ircg_reference_info ri;
    ircg_reference_settings_default(&rs);
    rs.tol = 1e-15;
    REQUIRE(ircg_reference_compute(pb, &rs, &ref, NULL) == IRCG_OK);
    ircg_reference_get_info(ref, &ri);
    printf("    g_opt - g_ls %.3e, gap %.3e, floor %.3e, %lld iterations\n",
           ri.g_opt - g_ls, ri.gap, ri.gap_floor, (long long)ri.iterations);
    CHECK_INT(ri.status, IRCG_STATUS_CONVERGED);
    CHECK(ri.gap_floor > rs.tol && ri.gap <= 2 * ri.gap_floor);
    double slack = 8 * DBL_EPSILON * g_ls;
    CHECK(ri.g_opt - ri.gap <= g_ls + slack);
    CHECK(ri.g_opt >= g_ls - slack);
    /* the floor is of the size of the gradient's rounding, not 1e-27 */
    CHECK(ri.gap_floor > 1e-13 && ri.gap_floor < 1e-8);
    ircg_reference_free(ref);
    ircg_problem_free(pb);
}

/* --------------------------------------------------- MovieLens 100K -- */

/* build/data/u.data (make data: datasets/README.md); 0 when absent. */
static int ml100k_path(char *path, size_t n)
{
    const char *b = getenv("IRCG_BUILD_DIR");
    snprintf(path, n, "%s/data/u.data", b && *b ? b : "build");
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fclose(f);
    return 1;
}

TEST(reference, movielens_100k)
{
    char path[1024];
    if (!ml100k_path(path, sizeof path))
        SKIP("MovieLens 100K absent (%s); run make data", path);
    ircg_ratings *r = NULL;
    ircg_problem *pb = NULL;
    REQUIRE(ircg_ratings_read_file(path, NULL, &r, NULL) == IRCG_OK);
    REQUIRE(ircg_problem_matrix_completion(r, IRCG_OUTER_COLUMN_VARIANCE, 5.0, &pb,
                                           NULL) == IRCG_OK);
    ircg_reference_settings rs;
    ircg_reference *ref = NULL;
    ircg_reference_info ri;
    ircg_reference_settings_default(&rs);
    rs.tol = 1e-9;
    REQUIRE(ircg_reference_compute(pb, &rs, &ref, NULL) == IRCG_OK);
    ircg_reference_get_info(ref, &ri);
    printf("    tol 1e-9: g_opt %.17g gap %.3e floor %.3e, %lld iterations, "
           "sigma_1 %.10g sigma_2 %.10g\n", ri.g_opt, ri.gap, ri.gap_floor,
           (long long)ri.iterations, ri.top_sv, ri.second_sv);
    CHECK_INT(ri.status, IRCG_STATUS_CONVERGED);
    CHECK(ri.gap <= 1e-9);
    CHECK(ri.lmo_converged == 1);
    CHECK(ri.top_sv > ri.second_sv && ri.second_sv > 0);
    double g9 = ri.g_opt, gap9 = ri.gap;
    ircg_reference_free(ref);

    /* the paper's 1e-12 is below the floor here (delta sigma_1 ~ 3e3):
     * stopped at the floor, not at max_iter, and consistent with the above */
    rs.tol = 1e-12;
    rs.certify_unique = 1;
    REQUIRE(ircg_reference_compute(pb, &rs, &ref, NULL) == IRCG_OK);
    ircg_reference_get_info(ref, &ri);
    printf("    tol 1e-12: gap %.3e floor %.3e, %lld iterations; unique %d, margin %.6g "
           "(bound %.3g)\n", ri.gap, ri.gap_floor, (long long)ri.iterations, ri.unique,
           ri.unique_margin, ri.unique_bound);
    /* sigma_1 - sigma_2 of about 394 against a bound of about 1e-4 */
    CHECK_INT(ri.unique, 1);
    CHECK(ri.unique_margin > 0.5 * (ri.cert_sv1 - ri.cert_sv2));
    CHECK_INT(ri.status, IRCG_STATUS_CONVERGED);
    CHECK(ri.iterations < 1000);
    CHECK(ri.gap_floor > rs.tol && ri.gap <= 2 * ri.gap_floor);
    CHECK(ri.gap >= 0);
    CHECK(fabs(ri.g_opt - g9) <= fmax(ri.gap, gap9) + 4 * DBL_EPSILON * g9);
    ircg_reference_free(ref);
    ircg_problem_free(pb);
    ircg_ratings_free(r);
}
