/*
 * test_mc_sweep.c -- the Lanczos process on C'C against dense SVDs, and the
 * fused passes over Omega against independent computations: the sums the
 * step pass makes (g, g - g_ref) against long-double sums over the dense
 * iterates, the LMO's first product made by the step pass against the one
 * the LMO makes itself (bit for bit), and the thread count (bit for bit).
 */
/* make test-kernels: mc_sweep. */
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "base/ksum.h"
#include "base/rng.h"
#include "base/simd.h"
#include "ircg.h"
#include "lmo/gram.h"
#include "problems/mc/mc.h"
#include "unit/solver/test_mc_util.h"

/* ------------------------------------------------ Lanczos on C'C -- */

typedef struct dense_op {
    int n, p, calls;
    const double *A;   /* n x p, column-major */
    double first[64];  /* the first vector the process asked about */
} dense_op;

static void dense_gram(void *vc, const double *x, double *cx, double *ctcx)
{
    dense_op *o = vc;
    if (o->calls++ == 0)
        memcpy(o->first, x, (size_t)o->p * sizeof *x);
    cblas_dgemv(CblasColMajor, CblasNoTrans, o->n, o->p, 1.0, o->A, o->n, x, 1, 0.0,
                cx, 1);
    cblas_dgemv(CblasColMajor, CblasTrans, o->n, o->p, 1.0, o->A, o->n, cx, 1, 0.0,
                ctcx, 1);
}

/* The top triplet of A (n x p, spectrum s) by lmo_gram_run against the
 * dense SVD: the Ritz value within tol s_1 plus the rounding of the
 * products; u v' within the Wedin bound, twice the residual over the gap
 * (test_mc_lmo.c). */
static void check_gram(int n, int p, int k, const double *s, int mmax, double tol,
                       uint64_t seed)
{
    double *A = malloc((size_t)n * p * sizeof *A), *sv = malloc((size_t)p * sizeof *sv);
    double *u1 = malloc((size_t)n * sizeof *u1), *v1 = malloc((size_t)p * sizeof *v1);
    double *u = malloc((size_t)n * sizeof *u), *v = malloc((size_t)p * sizeof *v);
    lmo_gram *g = lmo_gram_new(n, p, mmax);
    lmo_svd_out so = {.u = u, .v = v};
    dense_op o = {.n = n, .p = p, .A = A};

    REQUIRE(A && sv && u1 && v1 && u && v && g);
    REQUIRE(mct_with_spectrum(n, p, k, s, seed, A) == 0);
    REQUIRE(mct_svd(n, p, A, sv, u1, v1) == 0);
    REQUIRE(lmo_gram_run(g, dense_gram, &o, NULL, tol, 100000, &so) == IRCG_OK);
    CHECK(so.converged && !so.zero);
    CHECK_INT(so.matvecs, 2 * o.calls);
    double ne = 16.0 * (n + p) * DBL_EPSILON * sv[0];
    CHECK_NEAR(so.sv[0], sv[0], tol * sv[0] + ne);
    double err = 0;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            err = fmax(err, fabs(u[i] * v[j] - u1[i] * v1[j]));
    CHECK(err <= 4 * (tol * sv[0] + ne) / (sv[0] - (k > 1 ? sv[1] : 0)));
    CHECK_NEAR(cblas_dnrm2(n, u, 1), 1.0, 1e-14);
    CHECK_NEAR(cblas_dnrm2(p, v, 1), 1.0, 1e-14);
    lmo_gram_free(g);
    free(A);
    free(sv);
    free(u1);
    free(v1);
    free(u);
    free(v);
}

TEST(mc_sweep, gram_lanczos_matches_dense_svd)
{
    double s[6] = {10, 3, 1, 0.5, 0.2, 0.1}, one[1] = {5};
    check_gram(40, 30, 6, s, 32, 1e-12, 1);
    check_gram(25, 50, 6, s, 32, 1e-10, 2);   /* wide */
    check_gram(40, 30, 1, one, 32, 1e-12, 3); /* rank one: invariant at once */
    check_gram(40, 30, 6, s, 2, 1e-12, 4);    /* two vectors: restarts */
}

TEST(mc_sweep, gram_lanczos_edge_cases)
{
    int n = 20, p = 12;
    double *A = calloc((size_t)n * p, sizeof *A), u[20], v[12], v0[12];
    double s[4] = {1, 0.999, 0.998, 0.997};
    lmo_gram *g = lmo_gram_new(n, p, 32);
    lmo_svd_out so = {.u = u, .v = v};
    dense_op o = {.n = n, .p = p, .A = A};

    REQUIRE(A && g);
    /* C = 0: no direction; a finite answer and sv = 0 */
    REQUIRE(lmo_gram_run(g, dense_gram, &o, NULL, 1e-10, 1000, &so) == IRCG_OK);
    CHECK(so.zero && so.converged && so.sv[0] == 0 && u[0] == 1);
    /* a clustered top: the product limit stops it unconverged */
    REQUIRE(mct_with_spectrum(n, p, 4, s, 5, A) == 0);
    o.calls = 0;
    REQUIRE(lmo_gram_run(g, dense_gram, &o, NULL, 1e-14, 4, &so) == IRCG_OK);
    CHECK(!so.converged && so.matvecs <= 4);
    /* a unit start is used as given, bit for bit (the step pass relies on
     * it); another start is normalized */
    for (int j = 0; j < p; j++)
        v0[j] = (j % 3) - 1.0;
    cblas_dscal(p, 1.0 / cblas_dnrm2(p, v0, 1), v0, 1);
    if (lmo_gram_keeps_start(v0, p)) {
        o.calls = 0;
        REQUIRE(lmo_gram_run(g, dense_gram, &o, v0, 1e-10, 1000, &so) == IRCG_OK);
        CHECK(memcmp(o.first, v0, (size_t)p * sizeof *v0) == 0);
    }
    cblas_dscal(p, 3.0, v0, 1);
    CHECK(!lmo_gram_keeps_start(v0, p));
    o.calls = 0;
    REQUIRE(lmo_gram_run(g, dense_gram, &o, v0, 1e-10, 1000, &so) == IRCG_OK);
    CHECK_NEAR(cblas_dnrm2(p, o.first, 1), 1.0, 1e-15);
    lmo_gram_free(g);
    free(A);
}

/* ------------------------------------------------ the fused passes -- */

/* The instance with its ratings rounded to halves (as MovieLens 10M's),
 * so that the passes read them as floats (mc_data.mf); 0 on success. */
static int in_halves(mct_inst *in)
{
    for (int64_t e = 0; e < in->R->nnz; e++)
        in->R->val[e] = 0.5 * round(2 * in->R->val[e]);
    for (size_t c = 0; c < (size_t)in->n * in->p; c++)
        in->Md[c] = 0.5 * round(2 * in->Md[c]);
    ircg_problem_free(in->pb);
    in->pb = NULL;
    return ircg_problem_matrix_completion(in->R, IRCG_OUTER_COLUMN_VARIANCE, 5.0,
                                          &in->pb, NULL) == IRCG_OK &&
                   mc_data_of(in->pb)->mf != NULL ? 0 : -1;
}

/* A random instance, with its ratings as they come (doubles: the passes
 * read them so) or rounded to halves (floats). */
static int make(mct_inst *in, int n, int p, double frac, uint64_t seed, int halves)
{
    if (mct_make(in, n, p, frac, 5.0, IRCG_OUTER_COLUMN_VARIANCE, seed) != 0)
        return -1;
    if (!halves)
        return mc_data_of(in->pb)->mf == NULL ? 0 : -1;
    return in_halves(in);
}

/* Long-double sums over Omega of a side's residual r = xo - M (rounded to
 * double, as the library defines it; xo is X on Omega in CSR order), and
 * the magnitudes the library's error bounds are stated in (mc_sweep.c).
 * The passes read q^2 in 16-bit fixed point, Q~ (w->qsq); with a
 * reference they sum 1/2 (r^2 - Q~), within 4 ulps of its terms'
 * magnitude ms, and add 1/2 sum (Q~ - q^2) for the gap (2 ulps of its
 * magnitude mc, with its addition) and gq = 1/2 sum Q~ for g (an ulp of
 * gq); each addition half an ulp of its result.  Without one they sum
 * 1/2 r^2 within 3 ulps.  (A long double's square of a double is rounded,
 * to 2^-64 of it: fine for the magnitudes, not for the gap, whose terms
 * are made as products of exact factors.) */
typedef struct exact {
    double g, gap, ms, mc, gq;
} exact;

/* Q~ of entry e as the passes read it (0 without Q~). */
static double qsq_at(const mc_ws *w, int64_t e)
{
    return w->qsq ? w->qsq[e] * w->qsq_unit : 0.0;
}

static exact exact_sums(const mc_ws *w, const double *xo, const double *q)
{
    const mc_data *d = w->d;
    long double sg = 0, sd = 0, ms = 0, mc = 0, gq = 0;
    for (int64_t e = 0; e < d->nnz; e++) {
        long double r = xo[e] - mc_rating(d, e), qq = q[e], qt = qsq_at(w, e);
        sg += r * r / 2;
        sd += (r - qq) * (r + qq) / 2; /* the factors exact, the product to 2^-64 */
        ms += fabsl(r * r - qt) / 2;
        mc += fabsl(qt - qq * qq) / 2;
        gq += qt / 2;
    }
    return (exact){(double)sg, (double)sd, (double)ms, (double)mc, (double)gq};
}

/* Q~ is q^2 to half a unit, or 65535 units when q^2 is more (clamped);
 * the unit a power of 2. */
static void check_qsq(const mc_ws *w, const double *q)
{
    int ex;
    REQUIRE(w->qsq != NULL);
    CHECK(frexp(w->qsq_unit, &ex) == 0.5);
    for (int64_t e = 0; e < w->d->nnz; e++) {
        long double q2 = (long double)q[e] * q[e], qt = qsq_at(w, e);
        if (w->qsq[e] == 65535 && q2 > qt)
            continue;
        CHECK(fabsl(qt - q2) <= w->qsq_unit / 2);
    }
}

/* The values of ws (traced against q, or not when q is NULL) against exact
 * sums over its state, to the bounds above; returns the worst error of a
 * value relative to its tolerance.  That the state itself is the iterate
 * is checked by mc_state.long_runs_keep_g_exact and mc_dense. */
static double check_sums(const mct_inst *in, void *ws, const double *q)
{
    const mc_ws *w = ws;
    const double u = DBL_EPSILON;
    slv_values val = {0};
    double worst = 0;

    in->pb->ops->values(ws, q, &val);
    for (int side = 0; side < 2; side++) {
        const double *xo = side ? w->z.xo : w->x.xo;
        exact ex = exact_sums(w, xo, q ? q : xo); /* q = xo: anything will do */
        double vg = side ? val.g_z : val.g_x, vgap = side ? val.g_gap_z : val.g_gap_x;
        double tg = q ? u * (4 * ex.ms + ex.gq + ex.g / 2) : 3 * u * ex.g;
        CHECK_NEAR(vg, ex.g, tg);
        worst = fmax(worst, fabs(vg - ex.g) / tg);
        if (q) {
            double tgap = u * (4 * ex.ms + 2 * ex.mc + fabs(ex.gap) / 2);
            CHECK_NEAR(vgap, ex.gap, tgap);
            worst = fmax(worst, fabs(vgap - ex.gap) / tgap);
        }
    }
    return worst;
}

/* Steps of ws (traced) and wplain (not) alike, checked after each, with
 * the kernels of isa. */
static void step_sums(int halves, slv_isa isa)
{
    /* 400 x 200 at 45%: two chunks, so the chunk order is exercised */
    mct_inst in;
    ircg_settings s;
    void *ws = NULL, *wplain = NULL, *wref = NULL;
    double worst = 0, worst_plain = 0, *q = NULL, *q2 = NULL;

    REQUIRE(slv_isa_force(isa) == 0);
    REQUIRE(make(&in, 400, 200, 0.45, 31, halves) == 0);
    REQUIRE(mc_data_of(in.pb)->nchunk >= 2);
    ircg_settings_default(&s);
    REQUIRE(in.pb->ops->create(in.pb, &s, &ws, NULL) == IRCG_OK);
    REQUIRE(in.pb->ops->create(in.pb, &s, &wplain, NULL) == IRCG_OK);
    REQUIRE(in.pb->ops->create(in.pb, &s, &wref, NULL) == IRCG_OK);
    /* a far reference: the residual of another point, three steps on */
    for (int t = 0; t < 3; t++) {
        slv_dir d = {0};
        REQUIRE(in.pb->ops->lmo(wref, 0.0, &d) == IRCG_OK);
        REQUIRE(in.pb->ops->step(wref, 0.5, 0.0, 0.0, 1.0) == IRCG_OK);
    }
    q = malloc((size_t)in.R->nnz * sizeof *q);
    q2 = malloc((size_t)in.R->nnz * sizeof *q2);
    REQUIRE(q != NULL && q2 != NULL);
    memcpy(q, in.pb->ops->residual(wref, IRCG_X), (size_t)in.R->nnz * sizeof *q);
    in.pb->ops->set_reference(ws, q);
    check_qsq(ws, q);
    for (int t = 0; t < 50; t++) {
        slv_dir d = {0};
        /* then a near one, the iterate itself at t = 40: tiny steps keep
         * the terms' magnitude 1e-5 of g (and Q~'s rounding 1e-5 of it),
         * where the cancelling form 1/2 (r^2 - q^2) would be off by ulps
         * of g.  Another buffer: a reference must not change while set. */
        if (t == 40) {
            memcpy(q2, in.pb->ops->residual(ws, IRCG_X), (size_t)in.R->nnz * sizeof *q2);
            in.pb->ops->set_reference(ws, q2);
            check_qsq(ws, q2);
        }
        double alpha = t < 40 ? 2.0 / (t + 2.0) : 1e-5;
        for (int k = 0; k < 2; k++) {
            void *w = k ? wplain : ws;
            REQUIRE(in.pb->ops->lmo(w, ircg_sigma(0.05, 0.5, t), &d) == IRCG_OK);
            in.pb->ops->plan_lmo(w, ircg_sigma(0.05, 0.5, t + 1));
            REQUIRE(in.pb->ops->step(w, alpha, 0.3, 0.2, 0.5) == IRCG_OK);
        }
        worst = fmax(worst, check_sums(&in, ws, t < 40 ? q : q2));
        worst_plain = fmax(worst_plain, check_sums(&in, wplain, NULL));
    }
    REQUIRE(slv_isa_force(-1) == 0);
    /* 50 steps, x and z: g and g - g_ref traced, g alone not */
    printf("    %s, ratings %s: 200 traced values, worst error / tolerance %.2f; "
           "100 untraced, %.2f\n",
           slv_isa_name(isa), halves ? "in halves" : "doubles", worst, worst_plain);
    free(q);
    free(q2);
    in.pb->ops->destroy(ws);
    in.pb->ops->destroy(wplain);
    in.pb->ops->destroy(wref);
    mct_free(&in);
}

/* base/ksum.h's Dekker square, which the x86-64 kernel makes its traced
 * terms from: r^2 = p + pe exactly (pe against the FMA's exact residue)
 * over 2^-480..2^506, and the term (p - Q) + pe the FMA's r^2 - Q rounded
 * once wherever p and Q are within a factor 2 of each other (mc_sweep.c),
 * within an ulp of it elsewhere. */
TEST(mc_sweep, dekker_square_is_exact)
{
    slv_rng g;
    int sterbenz = 0;
    slv_rng_seed(&g, 5, 0);
    for (int i = 0; i < 200000; i++) {
        slv_v4d r, q, p, pe;
        for (int l = 0; l < 4; l++) {
            double m = 1 + slv_rng_uniform(&g); /* [1, 2) */
            int ex = (int)(slv_rng_next(&g) % 986) - 480; /* and Q below 2^1016 */
            r[l] = ldexp(slv_rng_next(&g) & 1 ? m : -m, ex);
            /* Q near r^2 (a relative 2^-1..2^-40 off) or anywhere */
            double off = ldexp(slv_rng_uniform(&g) - 0.5, -(int)(slv_rng_next(&g) % 40));
            q[l] = i % 2 ? r[l] * r[l] * (1 + off) : ldexp(m, 2 * ex + (int)(slv_rng_next(&g) % 9) - 4);
        }
        SLV_V4D_SQUARE(p, pe, r);
        for (int l = 0; l < 4; l++) {
            CHECK(p[l] == r[l] * r[l] && pe[l] == fma(r[l], r[l], -p[l]));
            double soft = (p[l] - q[l]) + pe[l], hard = fma(r[l], r[l], -q[l]);
            if (q[l] / 2 <= p[l] && p[l] <= 2 * q[l]) {
                CHECK(soft == hard);
                sterbenz++;
            } else {
                CHECK(fabs(soft - hard) <= DBL_EPSILON * fabs(hard));
            }
        }
    }
    CHECK(sterbenz > 100000);
}

/* The unit of Q~ (mc_reference.c): with q as it comes, the one that holds
 * the largest q^2 in 16 bits; with one entry's q^2 1e12, a unit that
 * clamps it rather than coarsen the 250000 others.  The bound on sum |Q~ -
 * q^2| it minimizes: at most 2^40 clamped, against 250000 half units of
 * 2^24 (2e12) unclamped; clamping wins for fewer outliers than 2^-17 of
 * the entries (2^-16 g: as much as they add to g themselves).  Either way
 * Q~ is q^2 to half a unit or clamped, and the traced sums match the
 * long-double ones to their bounds. */
TEST(mc_sweep, reference_unit_bounds_q_squared)
{
    mct_inst in;
    ircg_settings s;
    void *ws[2] = {NULL, NULL};
    double *q[2] = {NULL, NULL}, top = 0;

    REQUIRE(make(&in, 1000, 500, 0.5, 33, 0) == 0);
    ircg_settings_default(&s);
    int64_t nnz = in.R->nnz;
    for (int k = 0; k < 2; k++) {
        REQUIRE(in.pb->ops->create(in.pb, &s, &ws[k], NULL) == IRCG_OK);
        q[k] = malloc((size_t)nnz * sizeof *q[k]);
        REQUIRE(q[k] != NULL);
        memcpy(q[k], in.pb->ops->residual(ws[k], IRCG_X), (size_t)nnz * sizeof *q[k]);
    }
    for (int64_t e = 0; e < nnz; e++)
        top = fmax(top, q[0][e] * q[0][e]);
    q[1][nnz / 2] = 1e6;
    for (int k = 0; k < 2; k++) {
        const mc_ws *w = ws[k];
        in.pb->ops->set_reference(ws[k], q[k]);
        check_qsq(w, q[k]);
        check_sums(&in, ws[k], q[k]);
        if (k == 0) { /* the largest q^2 fits, in the upper half */
            CHECK(top < 65536 * w->qsq_unit && top >= 32768 * w->qsq_unit);
        } else { /* the outlier clamped; the others as without it */
            const mc_ws *w0 = ws[0];
            int clamped = 0, same = 0;
            for (int64_t e = 0; e < nnz; e++) {
                clamped += w->qsq[e] == 65535 && q[1][e] * q[1][e] > 65535 * w->qsq_unit;
                same += e != nnz / 2 && w->qsq[e] == w0->qsq[e];
            }
            CHECK_INT(clamped, 1);
            CHECK(w->qsq_unit == w0->qsq_unit);
            CHECK_INT(same, nnz - 1);
        }
    }
    for (int k = 0; k < 2; k++) {
        in.pb->ops->destroy(ws[k]);
        free(q[k]);
    }
    mct_free(&in);
}

/* Why the kernels of isa cannot run here ("" when they can), for the
 * skip that says so: a CPU without the instructions (or IRCG_ISA capping
 * them, which slv_isa_force does not heed) is a machine the kernels were
 * not checked on, never a pass. */
static const char *cannot_run(slv_isa isa)
{
    static const char *const need[SLV_ISA_COUNT] = {
        "", "AVX2 and FMA", "AVX-512 F, VL, DQ and BW (with AVX2 and FMA)"};
    static char why[160];
    if (slv_isa_force(isa) == 0) {
        slv_isa_force(-1);
        return "";
    }
    snprintf(why, sizeof why, "the %s kernels cannot run on this CPU: it lacks %s",
             slv_isa_name(isa), need[isa]);
    return why;
}

/* One test per kernel set (the x86-64 one makes the traced terms without
 * an FMA, mc_sweep.c): a set the CPU cannot run is a skip saying why. */
static void step_sums_of(slv_isa isa)
{
    const char *why = cannot_run(isa);
    if (*why)
        SKIP("%s", why);
    step_sums(0, isa);
    step_sums(1, isa);
}

TEST(mc_sweep, step_sums_match_long_double_base) { step_sums_of(SLV_ISA_BASE); }
TEST(mc_sweep, step_sums_match_long_double_avx2) { step_sums_of(SLV_ISA_AVX2); }
TEST(mc_sweep, step_sums_match_long_double_avx512) { step_sums_of(SLV_ISA_AVX512); }

static void planned_lmo(int halves)
{
    /* Two workspaces, the same steps; A plans each next LMO, so the step
     * pass makes its first product, B does not.  The LMOs must agree bit
     * for bit (a checkpoint restores without the planned product) and A
     * must make fewer passes. */
    mct_inst in;
    ircg_settings s;
    void *wa = NULL, *wb = NULL;
    int64_t pa, pb, used = 0;
    double ba, bb;
    int th;

    REQUIRE(make(&in, 300, 120, 0.4, 41, halves) == 0);
    ircg_settings_default(&s);
    REQUIRE(in.pb->ops->create(in.pb, &s, &wa, NULL) == IRCG_OK);
    REQUIRE(in.pb->ops->create(in.pb, &s, &wb, NULL) == IRCG_OK);
    for (int t = 0; t < 70; t++) { /* past two refreshes */
        slv_dir da = {0}, db = {0};
        double sigma = ircg_sigma(0.05, 0.5, t);
        used += ((mc_ws *)wa)->pre_valid && ((mc_ws *)wa)->pre_sigma == sigma;
        REQUIRE(in.pb->ops->lmo(wa, sigma, &da) == IRCG_OK);
        REQUIRE(in.pb->ops->lmo(wb, sigma, &db) == IRCG_OK);
        CHECK(memcmp(&da, &db, sizeof da) == 0);
        CHECK(memcmp(((mc_ws *)wa)->u, ((mc_ws *)wb)->u, 300 * sizeof(double)) == 0);
        CHECK(memcmp(((mc_ws *)wa)->v, ((mc_ws *)wb)->v, 120 * sizeof(double)) == 0);
        in.pb->ops->plan_lmo(wa, ircg_sigma(0.05, 0.5, t + 1));
        REQUIRE(in.pb->ops->step(wa, 2.0 / (t + 2.0), 0.0, 0.0, 1.0) == IRCG_OK);
        REQUIRE(in.pb->ops->step(wb, 2.0 / (t + 2.0), 0.0, 0.0, 1.0) == IRCG_OK);
    }
    in.pb->ops->traffic(wa, &pa, &ba, &th);
    in.pb->ops->traffic(wb, &pb, &bb, &th);
    CHECK(used >= 60); /* all but the first LMO and those after a refresh */
    CHECK_INT(pb - pa, used);
    CHECK(ba < bb);
    in.pb->ops->destroy(wa);
    in.pb->ops->destroy(wb);
    mct_free(&in);
}

TEST(mc_sweep, planned_lmo_is_bit_identical_and_saves_a_pass)
{
    planned_lmo(0);
    planned_lmo(1);
}

typedef struct rec {
    int n;
    double v[6][40];
} rec;

static int record(void *user, const ircg_iter_info *it)
{
    rec *r = user;
    if (r->n < 40) {
        double row[6] = {it->g_x, it->f_x, it->g_z, it->f_z, it->g_gap_x, it->g_gap_z};
        for (int k = 0; k < 6; k++)
            r->v[k][r->n] = row[k];
        r->n++;
    }
    return 0;
}

/* 40 iterations of IR-CG with step rule `rule` on th threads, the
 * reference traced: the iterates' values into r. */
static void run_rec(const mct_inst *in, const ircg_reference *ref, int rule, int th, rec *r)
{
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_settings_default(&s);
    s.step_rule = (ircg_step_rule)rule;
    s.max_iter = 40;
    s.threads = th;
    s.reference = ref;
    s.callback = record;
    s.callback_data = r;
    REQUIRE(ircg_solver_new(in->pb, &s, &sv, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(sv, NULL) == IRCG_OK);
    ircg_solver_free(sv);
}

/* An instance of 1000 x 300 at 25% (three chunks, three groups) and its
 * reference; 0 on success. */
static int make_traced(mct_inst *in, int halves, ircg_reference **ref)
{
    ircg_reference_settings rs;
    if (make(in, 1000, 300, 0.25, 3, halves) != 0 || mc_data_of(in->pb)->ngroup < 3)
        return -1;
    ircg_reference_settings_default(&rs);
    return ircg_reference_compute(in->pb, &rs, ref, NULL) == IRCG_OK ? 0 : -1;
}

static void threads_bits(int halves)
{
    /* with the reference traced, for every step rule */
    mct_inst in;
    ircg_reference *ref = NULL;

    REQUIRE(make_traced(&in, halves, &ref) == 0);
    for (int rule = 0; rule < 3; rule++) {
        rec r[3] = {{0}};
        for (int th = 1; th <= 3; th++)
            run_rec(&in, ref, rule, th, &r[th - 1]);
        CHECK_INT(r[0].n, 40);
        CHECK(memcmp(&r[0], &r[1], sizeof r[0]) == 0);
        CHECK(memcmp(&r[0], &r[2], sizeof r[0]) == 0);
    }
    ircg_reference_free(ref);
    mct_free(&in);
}

TEST(mc_sweep, threads_do_not_change_a_bit)
{
    threads_bits(0);
    threads_bits(1);
}

/* The passes' kernels compiled for each instruction set the CPU runs
 * (base/simd.h), forced in turn: the same solve (step, sums, Gram products
 * of the LMO, refreshes; the reference traced; every step rule, 2
 * threads) must give the same bits as the base x86-64 kernels.  But for
 * the traced g and gaps where the base kernel has no FMA (mc_sweep.c): each
 * of its terms is then within an ulp of the FMA's, and each sum within 4
 * ulps of its terms' magnitude, at most g + 1/2 sum Q~ <= 2 g (1/2 sum q^2
 * is the least g): 16 ulps of g between the two.  Returns how many of
 * those values differ at all.  Untraced, every kernel must give the same
 * bits. */
static int same_record(const rec *a, const rec *b, int fma_both)
{
    int differ = 0;
    if (fma_both) {
        CHECK(memcmp(a, b, sizeof *a) == 0);
        return 0;
    }
    CHECK_INT(a->n, b->n);
    for (int t = 0; t < a->n; t++) {
        static const int traced[4] = {0, 2, 4, 5}; /* g_x, g_z and the gaps */
        for (int k = 0; k < 4; k++)
            differ += a->v[traced[k]][t] != b->v[traced[k]][t];
        CHECK(a->v[1][t] == b->v[1][t] && a->v[3][t] == b->v[3][t]); /* f: the iterates */
        double tx = 16 * DBL_EPSILON * a->v[0][t], tz = 16 * DBL_EPSILON * a->v[2][t];
        CHECK_NEAR(a->v[0][t], b->v[0][t], tx); /* g */
        CHECK_NEAR(a->v[2][t], b->v[2][t], tz);
        CHECK_NEAR(a->v[4][t], b->v[4][t], tx); /* the gaps */
        CHECK_NEAR(a->v[5][t], b->v[5][t], tz);
    }
    return differ;
}

/* The kernels of isa against the base ones on the same solves (every
 * step rule, traced and not); the values compared are counted. */
static void isa_bits(int halves, slv_isa isa, int *values, int *differ)
{
    mct_inst in;
    ircg_reference *ref = NULL;

    REQUIRE(make_traced(&in, halves, &ref) == 0);
    for (int rule = 0; rule < 3; rule++) {
        rec base = {0}, plain = {0}, r = {0}, rp = {0};
        REQUIRE(slv_isa_force(SLV_ISA_BASE) == 0);
        run_rec(&in, ref, rule, 2, &base);
        run_rec(&in, NULL, rule, 2, &plain);
        CHECK_INT(base.n, 40);
        CHECK_INT(plain.n, 40);
        REQUIRE(slv_isa_force(isa) == 0);
        run_rec(&in, ref, rule, 2, &r);
        *differ += same_record(&base, &r, SLV_ISA_HAS_FMA(SLV_ISA_BASE));
        run_rec(&in, NULL, rule, 2, &rp);
        CHECK(memcmp(&plain, &rp, sizeof rp) == 0);
        *values += 6 * (base.n + plain.n);
    }
    REQUIRE(slv_isa_force(-1) == 0);
    ircg_reference_free(ref);
    mct_free(&in);
}

/* One test per kernel set beyond the base: a set the CPU cannot run is a
 * skip saying why, not a pass. */
static void isa_bits_of(slv_isa isa)
{
    int values = 0, differ = 0;
    const char *why = cannot_run(isa);
    if (*why)
        SKIP("%s", why);
    isa_bits(0, isa, &values, &differ);
    isa_bits(1, isa, &values, &differ);
    printf("    %s against base: %d values of 12 solves compared (ratings as doubles and "
           "in halves, 3 step rules, traced and not); %d traced values differ, each "
           "within 16 ulps of g\n", slv_isa_name(isa), values, differ);
}

TEST(mc_sweep, isas_do_not_change_a_bit_avx2) { isa_bits_of(SLV_ISA_AVX2); }
TEST(mc_sweep, isas_do_not_change_a_bit_avx512) { isa_bits_of(SLV_ISA_AVX512); }

/* The passes read the 16-bit copy of the columns when p <= 65536
 * (mc_data.col16): the copy holds the columns, exists exactly when they
 * fit, and the same solve with it dropped (the 32-bit columns read) gives
 * the same bits. */
static void col16_bits(int halves)
{
    mct_inst in;
    ircg_reference *ref = NULL;

    REQUIRE(make_traced(&in, halves, &ref) == 0);
    mc_data *d = (mc_data *)mc_data_of(in.pb); /* to drop the copy */
    REQUIRE(d->col16 != NULL);
    for (int rule = 0; rule < 3; rule++) {
        rec a = {0}, b = {0};
        run_rec(&in, ref, rule, 2, &a);
        uint16_t *c16 = d->col16;
        d->col16 = NULL;
        run_rec(&in, ref, rule, 2, &b);
        d->col16 = c16;
        CHECK_INT(a.n, 40);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
    ircg_reference_free(ref);
    mct_free(&in);
}

/* n x p at a few entries a row: whether the copy exists, and that it
 * holds the columns (of the whole problem: compacted, it holds the 40
 * or so columns rated). */
static void col16_bound(int p, int expect)
{
    mct_inst in;
    REQUIRE(mct_make(&in, 4, p, 40.0 / p, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 9) == 0);
    ircg_problem_free(in.pb);
    in.pb = NULL;
    REQUIRE(ircg_problem_matrix_completion_whole(in.R, IRCG_OUTER_COLUMN_VARIANCE, 5.0,
                                                 &in.pb, NULL) == IRCG_OK);
    const mc_data *d = mc_data_of(in.pb);
    CHECK_INT(d->col16 != NULL, expect);
    for (int64_t e = 0; d->col16 && e < d->nnz; e++)
        CHECK_INT(d->col16[e], d->col[e]);
    mct_free(&in);
}

TEST(mc_sweep, columns_in_16_bits_change_no_bit)
{
    col16_bits(0);
    col16_bits(1);
    col16_bound(65536, 1);
    col16_bound(65537, 0);
}
