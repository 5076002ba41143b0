/*
 * test_sto.c -- the stochastic methods IR-SCG and IR-FSCG (core/alg_sto.c):
 * their iterates against a plain transcription of the follow-up paper's
 * formulas drawing the same rows; the same seed, the same run bit for bit
 * whatever the threads; a run stopped, saved and continued (or resumed)
 * equal (==) to one that never stopped; a sampled gradient reads only its
 * rows (the others poisoned with NaN); the certificates at their cadence
 * as the iterations' values; matrix completion refused with a pointer;
 * oracle calls counted in samples.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "base/rng.h"
#include "core/oracle.h"
#include "ircg.h"
#include "problems/ls/ls.h"
#include "problems/logreg/lr.h"
#include "unit/solver/test_mc_util.h"

/* A random sparse m x n instance: k entries a row on distinct columns,
 * N(0,1)/sqrt(k); b = A x* + noise, or its signs (logistic). */
typedef struct sinst {
    int m, n;
    int64_t *rp;
    int32_t *ci;
    double *val, *b;
} sinst;

static void sinst_free(sinst *s)
{
    free(s->rp);
    free(s->ci);
    free(s->val);
    free(s->b);
}

static int sinst_make(sinst *s, int m, int n, int k, int logistic, uint64_t seed)
{
    slv_rng r;
    slv_rng_seed(&r, seed, 7);
    *s = (sinst){.m = m, .n = n};
    s->rp = malloc(((size_t)m + 1) * sizeof *s->rp);
    s->ci = malloc((size_t)m * k * sizeof *s->ci);
    s->val = malloc((size_t)m * k * sizeof *s->val);
    s->b = malloc((size_t)m * sizeof *s->b);
    double *xs = malloc((size_t)n * sizeof *xs);
    if (!s->rp || !s->ci || !s->val || !s->b || !xs) {
        free(xs);
        return -1;
    }
    for (int j = 0; j < n; j++)
        xs[j] = slv_rng_normal(&r);
    s->rp[0] = 0;
    for (int i = 0; i < m; i++) {
        int64_t p = s->rp[i];
        double t = 0;
        for (int c = 0; c < k; c++) { /* distinct columns, ascending: c-th of k strata */
            int lo = (int)((int64_t)c * n / k), hi = (int)((int64_t)(c + 1) * n / k);
            s->ci[p + c] = lo + (int)slv_rng_below(&r, (uint64_t)(hi - lo));
            s->val[p + c] = slv_rng_normal(&r) / sqrt((double)k);
            t += s->val[p + c] * xs[s->ci[p + c]];
        }
        s->rp[i + 1] = p + k;
        t += 0.3 * slv_rng_normal(&r);
        s->b[i] = logistic ? (t > 0 ? 1.0 : -1.0) : t;
    }
    free(xs);
    return 0;
}

static ircg_problem *sinst_problem(const sinst *s, int logistic, ircg_domain_kind dk,
                                   double radius, const ircg_outer *outer)
{
    ircg_ls_data d = {.m = s->m, .n = s->n, .A_rowptr = s->rp, .A_colind = s->ci,
                      .A_val = s->val, .b = s->b};
    ircg_outer half = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {dk, radius, 0, 0};
    ircg_problem *pb = NULL;
    ircg_diag diag = {0};
    ircg_error e = logistic ? ircg_problem_logistic(&d, outer ? outer : &half, &dom, &pb, &diag)
                            : ircg_problem_least_squares(&d, outer ? outer : &half, &dom, &pb,
                                                         &diag);
    if (e != IRCG_OK)
        printf("    problem: %s %s\n", diag.field, diag.message);
    return pb;
}

static ircg_solver *sto_solver(const ircg_problem *pb, ircg_algorithm alg, int64_t iters,
                               int64_t batch, int64_t q, int threads)
{
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_diag d = {0};
    ircg_settings_default(&s);
    s.algorithm = alg;
    s.max_iter = iters;
    s.batch = batch;
    s.q = q;
    s.seed = 11;
    s.threads = threads;
    s.p = alg == IRCG_ALG_IRSCG ? 0.25 : 0.5;
    if (ircg_solver_new(pb, &s, &sv, &d) != IRCG_OK)
        printf("    solver: %s %s\n", d.field, d.message);
    return sv;
}

static double *iterate_of(const ircg_solver *sv, ircg_which w)
{
    ircg_iterate *it = NULL;
    if (ircg_solver_iterate(sv, w, 0, &it) != IRCG_OK)
        return NULL;
    double *x = it->dense;
    it->dense = NULL;
    ircg_iterate_free(it);
    return x;
}

static int same_vec(const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!(a[i] == b[i]))
            return 0;
    return 1;
}

/* ------------------------------------------------ the paper's formulas -- */

/* grad of sum_{k in rows} h_k at y, each row's scalar w_k =
 * a_k'y - b_k (least squares) or b_k l'(b_k a_k'y), times s, added. */
static void ref_grad(const sinst *d, int logistic, const double *y, const int64_t *rows,
                     int64_t k, double s, double *out)
{
    for (int64_t i = 0; i < k; i++) {
        int64_t r = rows ? rows[i] : i;
        double t = 0;
        for (int64_t p = d->rp[r]; p < d->rp[r + 1]; p++)
            t += d->val[p] * y[d->ci[p]];
        double w = logistic ? d->b[r] * lr_dloss(d->b[r] * t) : t - d->b[r];
        for (int64_t p = d->rp[r]; p < d->rp[r + 1]; p++)
            out[d->ci[p]] += s * w * d->val[p];
    }
}

/* IR-SCG / IR-FSCG on 1/2||x||^2 over the l1 ball of radius R, written
 * from the paper's formulas (the test's own transcription): T steps,
 * returns x_T and z_T (z from its explicit weighted sum). */
static void reference_run(const sinst *d, int logistic, int fscg, double varsigma, double p,
                          int64_t b, int64_t q, double R, int T, double *xT, double *zT)
{
    int n = d->n;
    double *x = calloc((size_t)n, sizeof *x), *xp = calloc((size_t)n, sizeof *xp);
    double *G = calloc((size_t)n, sizeof *G), *c = calloc((size_t)n, sizeof *c);
    double *xs = calloc((size_t)(T + 1) * n, sizeof *xs), *sig = calloc((size_t)T + 2, sizeof *sig);
    int64_t *idx = malloc((size_t)b * sizeof *idx);
    slv_rng rng;
    slv_rng_seed(&rng, 11, 0x73746f6368ULL);
    double ms = (double)d->m / (double)b;
    for (int t = 0; t < T; t++) {
        double a = fscg && t < q ? log((double)q) / (double)q : 2.0 / (t + 2);
        sig[t] = varsigma * pow((double)((fscg && t < q ? q : t) + 1), -p);
        if (fscg && t % q == 0) {
            memset(G, 0, (size_t)n * sizeof *G);
            ref_grad(d, logistic, x, NULL, d->m, 1.0, G);
        } else {
            for (int64_t i = 0; i < b; i++)
                idx[i] = (int64_t)slv_rng_below(&rng, (uint64_t)d->m);
            if (fscg) {
                ref_grad(d, logistic, x, idx, b, ms, G);
                ref_grad(d, logistic, xp, idx, b, -ms, G);
            } else if (t == 0) {
                ref_grad(d, logistic, x, idx, b, ms, G);
            } else {
                for (int j = 0; j < n; j++)
                    G[j] *= 1 - a;
                ref_grad(d, logistic, xp, idx, b, -(1 - a) * ms, G);
                ref_grad(d, logistic, x, idx, b, ms, G);
            }
        }
        int jmax = 0; /* l1 LMO: -R sign(c_j) e_j at the first largest |c_j| */
        for (int j = 0; j < n; j++) {
            c[j] = sig[t] * x[j] + G[j];
            if (fabs(c[j]) > fabs(c[jmax]))
                jmax = j;
        }
        memcpy(xp, x, (size_t)n * sizeof *x);
        for (int j = 0; j < n; j++) {
            double v = j == jmax ? (c[j] < 0 ? R : -R) : 0.0;
            x[j] = x[j] + a * (v - x[j]);
        }
        memcpy(xs + (size_t)(t + 1) * n, x, (size_t)n * sizeof *x);
    }
    sig[T] = varsigma * pow((double)((fscg && T < q ? q : T) + 1), -p);
    /* z_T = [(T+1) T sigma_T x_T + sum_{i=1}^{T} (i+1) i (sigma_{i-1} - sigma_i) x_i] / S_T */
    double S = (double)(T + 1) * T * sig[T];
    for (int j = 0; j < n; j++)
        zT[j] = (double)(T + 1) * T * sig[T] * x[j];
    for (int i = 1; i <= T; i++) {
        double w = (double)(i + 1) * i * (sig[i - 1] - sig[i]);
        S += w;
        for (int j = 0; j < n; j++)
            zT[j] += w * xs[(size_t)i * n + j];
    }
    for (int j = 0; j < n; j++)
        zT[j] /= S;
    memcpy(xT, x, (size_t)n * sizeof *x);
    free(x);
    free(xp);
    free(G);
    free(c);
    free(xs);
    free(sig);
    free(idx);
}

/* x_T of the library against the transcription: the same rows drawn in
 * the same order, the same arithmetic up to the order of a few sums, so
 * they agree to rounding; z_T from the explicit sum against the
 * recursion agrees to rounding too (both relative to the iterates' size
 * R: the tolerances are 1e3 ulps of T steps of O(1) terms, far below a
 * change of one drawn row or one formula, which moves x by O(a_t R)). */
static void formulas_case(int logistic, int fscg)
{
    sinst d;
    REQUIRE(sinst_make(&d, 400, 30, 5, logistic, 3) == 0);
    double R = 2.0, varsigma = 0.7;
    ircg_problem *pb = sinst_problem(&d, logistic, IRCG_DOMAIN_L1_BALL, R, NULL);
    REQUIRE(pb);
    int T = 300;
    int64_t b = fscg ? 20 : 3, q = 20;
    ircg_settings s;
    ircg_settings_default(&s);
    s.algorithm = fscg ? IRCG_ALG_IRFSCG : IRCG_ALG_IRSCG;
    s.varsigma = varsigma;
    s.p = fscg ? 0.5 : 0.25;
    s.batch = b;
    s.q = q;
    s.seed = 11;
    s.max_iter = T;
    s.certify = 0;
    ircg_solver *sv = NULL;
    REQUIRE(ircg_solver_new(pb, &s, &sv, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(sv, NULL) == IRCG_OK);
    double *x = iterate_of(sv, IRCG_X), *z = iterate_of(sv, IRCG_Z);
    double *xr = malloc((size_t)d.n * sizeof *xr), *zr = malloc((size_t)d.n * sizeof *zr);
    REQUIRE(x && z && xr && zr);
    reference_run(&d, logistic, fscg, varsigma, s.p, b, q, R, T, xr, zr);
    double ex = 0, ez = 0;
    for (int j = 0; j < d.n; j++) {
        ex = fmax(ex, fabs(x[j] - xr[j]));
        ez = fmax(ez, fabs(z[j] - zr[j]));
    }
    char what[64];
    snprintf(what, sizeof what, "%s %s: max |x - x_paper|", logistic ? "logistic" : "LS",
             fscg ? "IR-FSCG" : "IR-SCG");
    CHECK_MEASURED(what, ex, 1e3 * T * 2.2e-16 * R);
    snprintf(what, sizeof what, "%s %s: max |z - z_paper|", logistic ? "logistic" : "LS",
             fscg ? "IR-FSCG" : "IR-SCG");
    CHECK_MEASURED(what, ez, 1e3 * T * 2.2e-16 * R);
    free(x);
    free(z);
    free(xr);
    free(zr);
    ircg_solver_free(sv);
    ircg_problem_free(pb);
    sinst_free(&d);
}

TEST(sto, iterates_follow_the_papers_formulas)
{
    for (int logistic = 0; logistic <= 1; logistic++)
        for (int fscg = 0; fscg <= 1; fscg++)
            formulas_case(logistic, fscg);
}

/* ------------------------------------------------------- determinism -- */

TEST(sto, same_seed_same_run_whatever_the_threads)
{
    sinst d;
    REQUIRE(sinst_make(&d, 300, 40, 6, 0, 5) == 0);
    ircg_problem *pb = sinst_problem(&d, 0, IRCG_DOMAIN_L2_BALL, 1.0, NULL);
    REQUIRE(pb);
    for (int alg = IRCG_ALG_IRSCG; alg <= IRCG_ALG_IRFSCG; alg++) {
        ircg_solver *a = sto_solver(pb, (ircg_algorithm)alg, 150, 4, 10, 1);
        ircg_solver *b = sto_solver(pb, (ircg_algorithm)alg, 150, 4, 10, 4);
        REQUIRE(a && b);
        REQUIRE(ircg_solve(a, NULL) == IRCG_OK);
        REQUIRE(ircg_solve(b, NULL) == IRCG_OK);
        double *xa = iterate_of(a, IRCG_X), *xb = iterate_of(b, IRCG_X);
        double *za = iterate_of(a, IRCG_Z), *zb = iterate_of(b, IRCG_Z);
        REQUIRE(xa && xb && za && zb);
        CHECK(same_vec(xa, xb, d.n));
        CHECK(same_vec(za, zb, d.n));
        /* another seed, another run (the seed is read when the solver is
         * made: its stream is part of the state) */
        ircg_settings st;
        ircg_solver *c = NULL;
        ircg_settings_default(&st);
        st.algorithm = (ircg_algorithm)alg;
        st.max_iter = 150;
        st.batch = 4;
        st.q = 10;
        st.seed = 12;
        st.p = alg == IRCG_ALG_IRSCG ? 0.25 : 0.5;
        REQUIRE(ircg_solver_new(pb, &st, &c, NULL) == IRCG_OK);
        REQUIRE(ircg_solve(c, NULL) == IRCG_OK);
        double *xc = iterate_of(c, IRCG_X);
        REQUIRE(xc);
        CHECK(!same_vec(xa, xc, d.n));
        free(xc);
        ircg_solver_free(c);
        free(xa);
        free(xb);
        free(za);
        free(zb);
        ircg_solver_free(a);
        ircg_solver_free(b);
    }
    ircg_problem_free(pb);
    sinst_free(&d);
}

/* ------------------------------------------------------- continuation -- */

#define MAXR 512
typedef struct rows_rec {
    int n;
    ircg_iter_info r[MAXR];
} rows_rec;

static int keep(void *u, const ircg_iter_info *it)
{
    rows_rec *r = u;
    if (r->n < MAXR)
        r->r[r->n++] = *it;
    return 0;
}

/* Equal as doubles, NaN equal to NaN (the values of uncertified rows). */
static int eq(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

static int same_row(const ircg_iter_info *a, const ircg_iter_info *b)
{
    return a->t == b->t && eq(a->sigma, b->sigma) && eq(a->alpha, b->alpha) &&
           eq(a->g_x, b->g_x) && eq(a->f_x, b->f_x) && eq(a->g_z, b->g_z) &&
           eq(a->f_z, b->f_z) && eq(a->gap, b->gap) && a->samples == b->samples &&
           a->certified == b->certified && eq(a->inner_gap_x, b->inner_gap_x) &&
           eq(a->inner_gap_z, b->inner_gap_z) && eq(a->g_lower, b->g_lower) &&
           eq(a->f_lower, b->f_lower);
}

static void continue_case(const ircg_problem *pb, ircg_algorithm alg, int T,
                          ircg_restore_mode mode, int n)
{
    static rows_rec a, b, c;
    a.n = b.n = c.n = 0;
    void *blob = NULL;
    size_t len = 0;
    ircg_diag d = {0};
    ircg_info ia, ic;
    ircg_solver *sa = sto_solver(pb, alg, 2 * T, 3, 7, 1);
    ircg_solver *sb = sto_solver(pb, alg, T, 3, 7, 1);
    ircg_solver *sc = sto_solver(pb, alg, 2 * T, 3, 7, 2);
    REQUIRE(sa && sb && sc);
    ircg_solver_settings(sa)->callback = keep;
    ircg_solver_settings(sa)->callback_data = &a;
    ircg_solver_settings(sb)->callback = keep;
    ircg_solver_settings(sb)->callback_data = &b;
    ircg_solver_settings(sc)->callback = keep;
    ircg_solver_settings(sc)->callback_data = &c;
    ircg_solver_settings(sa)->certify_every = 5;
    ircg_solver_settings(sb)->certify_every = 5;
    ircg_solver_settings(sc)->certify_every = 5;
    REQUIRE(ircg_solve(sa, &ia) == IRCG_OK);
    REQUIRE(ircg_solve(sb, NULL) == IRCG_OK);
    REQUIRE(ircg_solver_save(sb, &blob, &len) == IRCG_OK);
    REQUIRE(ircg_solver_restore_as(sc, blob, len, mode, &d) == IRCG_OK);
    REQUIRE(ircg_solve(sc, &ic) == IRCG_OK);
    CHECK_INT(ic.iterations, 2 * T);
    CHECK_INT(c.n, T);
    int same = c.n == T && a.n == 2 * T;
    for (int i = 0; same && i < c.n; i++)
        same = same_row(&c.r[i], &a.r[T + i]);
    CHECK(same);
    double *xa = iterate_of(sa, IRCG_X), *xc = iterate_of(sc, IRCG_X);
    double *za = iterate_of(sa, IRCG_Z), *zc = iterate_of(sc, IRCG_Z);
    REQUIRE(xa && xc && za && zc);
    CHECK(same_vec(xa, xc, n));
    CHECK(same_vec(za, zc, n));
    CHECK(ic.g_z == ia.g_z && ic.f_z == ia.f_z && ic.inner_gap_z == ia.inner_gap_z);
    if (mode == IRCG_RESTORE_RESUME)
        CHECK_INT(ic.samples, ia.samples);
    else
        CHECK(ic.samples < ia.samples);
    free(xa);
    free(xc);
    free(za);
    free(zc);
    free(blob);
    ircg_solver_free(sa);
    ircg_solver_free(sb);
    ircg_solver_free(sc);
}

/* A run of 2T iterations and one of T continued (or resumed) for T more
 * give the same rows, iterates and result, == on every double; the
 * validation loss (f a sum of its own, its estimator and draws) too. */
TEST(sto, continue_and_resume_go_on_bit_for_bit)
{
    sinst d, v;
    REQUIRE(sinst_make(&d, 200, 25, 4, 0, 8) == 0);
    REQUIRE(sinst_make(&v, 60, 25, 4, 0, 9) == 0);
    ircg_problem *pb = sinst_problem(&d, 0, IRCG_DOMAIN_L1_BALL, 3.0, NULL);
    ircg_ls_data vd = {.m = v.m, .n = v.n, .A_rowptr = v.rp, .A_colind = v.ci,
                       .A_val = v.val, .b = v.b};
    ircg_outer ov = {.kind = IRCG_OUTER_VALIDATION, .val = &vd};
    ircg_problem *pv = sinst_problem(&d, 0, IRCG_DOMAIN_L1_BALL, 3.0, &ov);
    REQUIRE(pb && pv);
    for (int alg = IRCG_ALG_IRSCG; alg <= IRCG_ALG_IRFSCG; alg++)
        for (int mode = IRCG_RESTORE_RESUME; mode <= IRCG_RESTORE_CONTINUE; mode++) {
            continue_case(pb, (ircg_algorithm)alg, 40, (ircg_restore_mode)mode, d.n);
            continue_case(pv, (ircg_algorithm)alg, 40, (ircg_restore_mode)mode, d.n);
        }
    ircg_problem_free(pb);
    ircg_problem_free(pv);
    sinst_free(&d);
    sinst_free(&v);
}

/* A state goes on only with the batch and q it was made with. */
TEST(sto, continue_refuses_another_batch)
{
    sinst d;
    REQUIRE(sinst_make(&d, 100, 20, 4, 1, 2) == 0);
    ircg_problem *pb = sinst_problem(&d, 1, IRCG_DOMAIN_L2_BALL, 1.0, NULL);
    REQUIRE(pb);
    ircg_solver *a = sto_solver(pb, IRCG_ALG_IRFSCG, 10, 3, 7, 1);
    ircg_solver *b = sto_solver(pb, IRCG_ALG_IRFSCG, 10, 4, 7, 1);
    ircg_solver *c = sto_solver(pb, IRCG_ALG_IRSCG, 10, 3, 7, 1);
    REQUIRE(a && b && c);
    REQUIRE(ircg_solve(a, NULL) == IRCG_OK);
    void *blob = NULL;
    size_t len = 0;
    ircg_diag dg = {0};
    REQUIRE(ircg_solver_save(a, &blob, &len) == IRCG_OK);
    CHECK(ircg_solver_restore_as(b, blob, len, IRCG_RESTORE_CONTINUE, &dg) == IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/batch");
    CHECK(ircg_solver_restore_as(c, blob, len, IRCG_RESTORE_CONTINUE, &dg) == IRCG_ERR_INVALID);
    CHECK_STR(dg.field, "/checkpoint");
    ircg_solver *e = sto_solver(pb, IRCG_ALG_IRFSCG, 10, 4, 7, 1);
    REQUIRE(e);
    CHECK(ircg_solver_restore_as(e, blob, len, IRCG_RESTORE_AFRESH, &dg) == IRCG_OK);
    /* the stream's four words (before x_{t-1}, G, F at the end) all zero:
     * xoshiro's fixed point, whose draws by rejection would never end */
    memset((unsigned char *)blob + len - 3 * 20 * 8 - 32, 0, 32);
    CHECK(ircg_solver_restore_as(a, blob, len, IRCG_RESTORE_CONTINUE, &dg) == IRCG_ERR_INVALID);
    CHECK(strstr(dg.message, "dead stream") != NULL);
    free(blob);
    ircg_solver_free(a);
    ircg_solver_free(b);
    ircg_solver_free(c);
    ircg_solver_free(e);
    ircg_problem_free(pb);
    sinst_free(&d);
}

/* ------------------------------------------------------ sampled rows -- */

/* A batch's gradient equals itself when every other row of A is NaN: it
 * reads its rows only (grad_rows of oracle.h, on the problem's data). */
TEST(sto, sampled_gradients_read_only_their_rows)
{
    for (int logistic = 0; logistic <= 1; logistic++) {
        sinst d;
        REQUIRE(sinst_make(&d, 50, 12, 3, logistic, 4) == 0);
        ircg_problem *pb = sinst_problem(&d, logistic, IRCG_DOMAIN_L2_BALL, 1.0, NULL);
        REQUIRE(pb);
        ircg_settings s;
        ircg_settings_default(&s);
        void *ws = NULL;
        REQUIRE(pb->sto_ops->create(pb, &s, &ws, NULL) == IRCG_OK);
        double y[12], g1[12] = {0}, g2[12] = {0};
        for (int j = 0; j < 12; j++)
            y[j] = 0.1 * (j - 5);
        int64_t rows[] = {7, 31, 7, 49};
        pb->sto->grad_rows(ws, 0, y, rows, 4, 2.5, g1);
        ls_data *ld = pb->data;
        for (int i = 0; i < ld->m; i++)
            if (i != 7 && i != 31 && i != 49)
                for (int64_t p = ld->rowptr[i]; p < ld->rowptr[i + 1]; p++)
                    ld->val[p] = NAN;
        pb->sto->grad_rows(ws, 0, y, rows, 4, 2.5, g2);
        CHECK(same_vec(g1, g2, 12));
        double g3[12] = {0};
        memset(g3, 0, sizeof g3);
        ref_grad(&d, logistic, y, rows, 4, 2.5, g3);
        CHECK(same_vec(g1, g3, 12));
        pb->sto_ops->destroy(ws);
        ircg_problem_free(pb);
        sinst_free(&d);
    }
}

/* ---------------------------------------------- certificates, refusals -- */

/* Values only where a certificate was made (t = 1, 2, 4, ..., every
 * certify_every), NaN elsewhere; the result's from the last iterate's
 * certificate; samples counted: IR-SCG 2b a step (b at t = 0), IR-FSCG m
 * every q steps and 2b in between, IR-CG m a step. */
TEST(sto, values_at_certificates_and_samples)
{
    sinst d;
    REQUIRE(sinst_make(&d, 100, 20, 4, 0, 6) == 0);
    ircg_problem *pb = sinst_problem(&d, 0, IRCG_DOMAIN_L2_BALL, 1.0, NULL);
    REQUIRE(pb);
    static rows_rec r;
    for (int alg = IRCG_ALG_IRSCG; alg <= IRCG_ALG_IRFSCG; alg++) {
        r.n = 0;
        ircg_solver *sv = sto_solver(pb, (ircg_algorithm)alg, 21, 5, 6, 1);
        REQUIRE(sv);
        ircg_solver_settings(sv)->callback = keep;
        ircg_solver_settings(sv)->callback_data = &r;
        ircg_solver_settings(sv)->certify_every = 10;
        ircg_info in;
        REQUIRE(ircg_solve(sv, &in) == IRCG_OK);
        REQUIRE(r.n == 21);
        int64_t total = 0;
        for (int i = 0; i < r.n; i++) {
            int64_t t = r.r[i].t;
            int due = (t & (t - 1)) == 0 || t % 10 == 0;
            CHECK_INT(r.r[i].certified, due);
            CHECK(due ? isfinite(r.r[i].g_x) && isfinite(r.r[i].f_z) : isnan(r.r[i].g_x));
            int64_t want = alg == IRCG_ALG_IRSCG ? (t == 1 ? 5 : 10)
                                                 : ((t - 1) % 6 == 0 ? 100 : 10);
            CHECK_INT(r.r[i].samples, want);
            CHECK_INT(r.r[i].lmo_matvecs, want);
            total += r.r[i].samples;
        }
        CHECK_INT(in.samples, total);
        CHECK(isfinite(in.g_x) && in.g_x == in.cert_g_x && in.f_z == in.cert_f_z);
        CHECK_INT(in.cert_iteration, 21);
        ircg_solver_free(sv);
    }
    ircg_settings s;
    ircg_settings_default(&s);
    s.max_iter = 3;
    ircg_solver *sv = NULL;
    REQUIRE(ircg_solver_new(pb, &s, &sv, NULL) == IRCG_OK);
    ircg_info in;
    REQUIRE(ircg_solve(sv, &in) == IRCG_OK);
    CHECK_INT(in.samples, 300);
    ircg_solver_free(sv);
    ircg_problem_free(pb);
    sinst_free(&d);
}

TEST(sto, refused_where_it_does_not_apply)
{
    mct_inst in;
    REQUIRE(mct_make(&in, 20, 10, 0.5, 1.0, IRCG_OUTER_COLUMN_VARIANCE, 1) == 0);
    ircg_settings s;
    ircg_settings_default(&s);
    ircg_solver *sv = NULL;
    ircg_diag d = {0};
    for (int alg = IRCG_ALG_IRSCG; alg <= IRCG_ALG_IRFSCG; alg++) {
        s.algorithm = (ircg_algorithm)alg;
        CHECK(ircg_solver_new(in.pb, &s, &sv, &d) == IRCG_ERR_INVALID);
        CHECK_STR(d.field, "/algorithm");
        CHECK(strstr(d.message, "finite sum") != NULL);
    }
    mct_free(&in);
    sinst dd;
    REQUIRE(sinst_make(&dd, 30, 5, 2, 0, 1) == 0);
    ircg_problem *pb = sinst_problem(&dd, 0, IRCG_DOMAIN_L2_BALL, 1.0, NULL);
    REQUIRE(pb);
    s.algorithm = IRCG_ALG_IRSCG;
    s.gap_tol = 1e-3;
    CHECK(ircg_solver_new(pb, &s, &sv, &d) == IRCG_ERR_INVALID);
    CHECK_STR(d.field, "/gap_tol");
    s.gap_tol = 0;
    s.step_rule = IRCG_STEP_LINE_SEARCH;
    CHECK(ircg_solver_new(pb, &s, &sv, &d) == IRCG_ERR_INVALID);
    CHECK_STR(d.field, "/step_rule");
    s.step_rule = IRCG_STEP_OPEN_LOOP;
    s.batch = -1;
    CHECK(ircg_solver_new(pb, &s, &sv, &d) == IRCG_ERR_INVALID);
    CHECK_STR(d.field, "/batch");
    ircg_problem_free(pb);
    sinst_free(&dd);
}
