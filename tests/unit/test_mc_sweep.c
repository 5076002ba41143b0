/*
 * test_mc_sweep.c -- the Lanczos process on C'C against dense SVDs, and the
 * fused passes over Omega against independent computations: the sums the
 * step pass makes (g, g - g_ref) against long-double sums over the dense
 * iterates, the LMO's first product made by the step pass against the one
 * the LMO makes itself (bit for bit), and the thread count (bit for bit).
 */
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "base/simd.h"
#include "ircg.h"
#include "lmo/gram.h"
#include "problems/mc/mc.h"
#include "test_mc_util.h"

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
 * The passes read q rounded to floats, q~; with a reference they sum
 * 1/2 (r - q~)(r + q~), within 4 ulps of its terms' magnitude ms, and add
 * 1/2 sum (q~ - q)(q~ + q) for the gap (2 ulps of its magnitude mc, with
 * its addition) and gq = 1/2 sum q~^2 for g (an ulp of gq); each addition
 * half an ulp of its result.  Without one they sum 1/2 r^2 within 3 ulps. */
typedef struct exact {
    double g, gap, ms, mc, gq;
} exact;

static exact exact_sums(const mc_data *d, const double *xo, const double *q)
{
    long double sg = 0, sd = 0, ms = 0, mc = 0, gq = 0;
    for (int64_t e = 0; e < d->nnz; e++) {
        long double r = xo[e] - mc_rating(d, e), t = (r - q[e]) * (r + q[e]);
        double qt = fabs(q[e]) <= FLT_MAX ? (double)(float)q[e] : 0.0;
        sg += r * r / 2;
        sd += t / 2;
        ms += fabsl((r - qt) * (r + qt)) / 2;
        mc += fabsl((qt - q[e]) * (qt + q[e])) / 2;
        gq += (long double)qt * qt / 2;
    }
    return (exact){(double)sg, (double)sd, (double)ms, (double)mc, (double)gq};
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
        exact ex = exact_sums(w->d, xo, q ? q : xo); /* q = xo: anything will do */
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

/* Steps of ws (traced) and wplain (not) alike, checked after each. */
static void step_sums(int halves)
{
    /* 400 x 200 at 45%: two chunks, so the chunk order is exercised */
    mct_inst in;
    ircg_settings s;
    void *ws = NULL, *wplain = NULL, *wref = NULL;
    double worst = 0, worst_plain = 0, *q = NULL, *q2 = NULL;

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
    for (int t = 0; t < 50; t++) {
        slv_dir d = {0};
        /* then a near one, the iterate itself at t = 40: tiny steps keep
         * the terms' magnitude 1e-5 of g (and q~'s rounding 1e-7 of it),
         * where the cancelling form 1/2 (r^2 - q^2) would be off by ulps
         * of g.  Another buffer: a reference must not change while set. */
        if (t == 40) {
            memcpy(q2, in.pb->ops->residual(ws, IRCG_X), (size_t)in.R->nnz * sizeof *q2);
            in.pb->ops->set_reference(ws, q2);
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
    printf("    ratings %s: worst error / tolerance %.2f traced, %.2f not\n",
           halves ? "in halves" : "doubles", worst, worst_plain);
    free(q);
    free(q2);
    in.pb->ops->destroy(ws);
    in.pb->ops->destroy(wplain);
    in.pb->ops->destroy(wref);
    mct_free(&in);
}

TEST(mc_sweep, step_sums_match_long_double)
{
    step_sums(0);
    step_sums(1);
}

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
 * threads) must give the same bits as the base x86-64 kernels. */
static void isa_bits(int halves)
{
    mct_inst in;
    ircg_reference *ref = NULL;
    int ran = 0;

    REQUIRE(make_traced(&in, halves, &ref) == 0);
    for (int rule = 0; rule < 3; rule++) {
        rec base = {0};
        REQUIRE(slv_isa_force(SLV_ISA_BASE) == 0);
        run_rec(&in, ref, rule, 2, &base);
        CHECK_INT(base.n, 40);
        for (int isa = SLV_ISA_BASE + 1; isa < SLV_ISA_COUNT; isa++) {
            rec r = {0};
            if (slv_isa_force(isa) != 0)
                continue; /* this CPU cannot run it */
            run_rec(&in, ref, rule, 2, &r);
            CHECK(memcmp(&base, &r, sizeof r) == 0);
            ran += rule == 0;
        }
    }
    REQUIRE(slv_isa_force(-1) == 0);
    printf("    ratings %s: %d kernel sets against the base (best here: %s)\n",
           halves ? "in halves" : "doubles", ran, slv_isa_name(slv_isa_best()));
    ircg_reference_free(ref);
    mct_free(&in);
}

TEST(mc_sweep, isas_do_not_change_a_bit)
{
    isa_bits(0);
    isa_bits(1);
}

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
 * holds the columns. */
static void col16_bound(int p, int expect)
{
    mct_inst in;
    REQUIRE(mct_make(&in, 4, p, 40.0 / p, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 9) == 0);
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
