/*
 * test_cert_async.c -- certificates on a thread of their own
 * (settings.certify_async, core/cert_async.c): every row reaches the
 * callback once, in order, with the bits the synchronous loop gives it
 * (values, the certificate of its own iteration, the bounds as they stood
 * there); the result's bounds are the same, a checkpoint saved after the
 * solve continues as the uninterrupted run does, a callback's stop ends
 * the solve, and a certified stop certifies in place.  And the next LMO
 * that a synchronous certificate makes ahead (mc_lmo_stage) leaves the
 * iterates and the products counted as they are without certificates.
 */
/* make tsan: cert_async. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "unit/solver/test_mc_util.h"

#define MAXROWS 256

typedef struct rows {
    int n, stop_at;
    ircg_iter_info r[MAXROWS];
} rows;

static int record(void *user, const ircg_iter_info *it)
{
    rows *v = user;
    if (v->n < MAXROWS)
        v->r[v->n++] = *it;
    return v->stop_at > 0 && it->t == v->stop_at;
}

/* The same bits (NaN equal to NaN of the same pattern). */
static int same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Every member of two rows but the clocks. */
static int same_row(const ircg_iter_info *a, const ircg_iter_info *b)
{
    return a->t == b->t && same(a->sigma, b->sigma) && same(a->alpha, b->alpha) &&
           same(a->gap, b->gap) && same(a->g_x, b->g_x) && same(a->f_x, b->f_x) &&
           same(a->g_z, b->g_z) && same(a->f_z, b->f_z) && same(a->top_sv, b->top_sv) &&
           a->lmo_matvecs == b->lmo_matvecs && a->rank == b->rank &&
           a->certified == b->certified && same(a->inner_gap_x, b->inner_gap_x) &&
           same(a->inner_gap_z, b->inner_gap_z) && same(a->g_lower, b->g_lower) &&
           same(a->g_upper, b->g_upper) && same(a->f_lower, b->f_lower);
}

static int same_bounds(const ircg_info *a, const ircg_info *b)
{
    return a->cert_iteration == b->cert_iteration && same(a->g_lower, b->g_lower) &&
           same(a->g_upper, b->g_upper) && same(a->f_lower, b->f_lower) &&
           same(a->inner_gap_x, b->inner_gap_x) && same(a->inner_gap_z, b->inner_gap_z) &&
           same(a->outer_gap_x, b->outer_gap_x) && same(a->cert_g_x, b->cert_g_x) &&
           same(a->cert_g_z, b->cert_g_z) && a->certificates == b->certificates &&
           a->cert_sharp == b->cert_sharp;
}

static ircg_error solve(const mct_inst *in, int async, int threads, int64_t iters,
                        int64_t every, rows *rec, ircg_info *info, void **blob,
                        size_t *len)
{
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_settings_default(&s);
    s.max_iter = iters;
    s.certify_every = every;
    s.certify_async = async;
    s.threads = threads;
    s.callback = rec ? record : NULL;
    s.callback_data = rec;
    ircg_error err = ircg_solver_new(in->pb, &s, &sv, NULL);
    if (err == IRCG_OK)
        err = ircg_solve(sv, info);
    if (err == IRCG_OK && blob)
        err = ircg_solver_save(sv, blob, len);
    ircg_solver_free(sv);
    return err;
}

TEST(cert_async, rows_and_bounds_are_the_synchronous_ones)
{
    mct_inst in;
    static rows a, b;
    ircg_info ia, ib;
    REQUIRE(mct_make(&in, 60, 40, 0.3, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 21) == 0);
    /* certificates at 0, powers of 2 and every 3rd iteration: more in
     * flight than the copies, so some wait */
    a.n = 0;
    REQUIRE(solve(&in, 0, 1, 70, 3, &a, &ia, NULL, NULL) == IRCG_OK);
    CHECK(ia.cert_thread_seconds == 0);
    for (int threads = 1; threads <= 2; threads++) {
        b.n = 0;
        REQUIRE(solve(&in, 1, threads, 70, 3, &b, &ib, NULL, NULL) == IRCG_OK);
        CHECK_INT(b.n, 70);
        CHECK_INT(a.n, b.n);
        int bad = -1;
        for (int k = 0; k < a.n && k < b.n && bad < 0; k++)
            if (b.r[k].t != k + 1 || !same_row(&a.r[k], &b.r[k]))
                bad = k;
        CHECK_INT(bad, -1); /* the first row that differs */
        CHECK(same_bounds(&ia, &ib));
        CHECK(same(ia.g_x, ib.g_x) && same(ia.f_z, ib.f_z));
        CHECK(ib.cert_thread_seconds > 0);
        CHECK(ib.cert_seconds >= 0);
    }
    mct_free(&in);
}

/* A state saved after an asynchronous solve holds every certificate: the
 * run continued from it carries the uninterrupted run's bounds. */
TEST(cert_async, checkpoint_after_solve_continues_as_the_uninterrupted_run)
{
    mct_inst in;
    void *blob = NULL;
    size_t len = 0;
    ircg_info one, cont;
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_diag d = {0};
    REQUIRE(mct_make(&in, 50, 30, 0.4, 4.0, IRCG_OUTER_COLUMN_VARIANCE, 5) == 0);
    REQUIRE(solve(&in, 1, 1, 24, 0, NULL, NULL, &blob, &len) == IRCG_OK);
    REQUIRE(solve(&in, 0, 1, 40, 0, NULL, &one, NULL, NULL) == IRCG_OK);
    ircg_settings_default(&s);
    s.max_iter = 40;
    REQUIRE(ircg_solver_new(in.pb, &s, &sv, NULL) == IRCG_OK);
    REQUIRE(ircg_solver_restore(sv, blob, len, &d) == IRCG_OK);
    REQUIRE(ircg_solve(sv, &cont) == IRCG_OK);
    CHECK(same_bounds(&one, &cont));
    CHECK(same(one.g_x, cont.g_x) && same(one.g_z, cont.g_z));
    ircg_solver_free(sv);
    free(blob);
    mct_free(&in);
}

TEST(cert_async, a_callback_stop_ends_the_solve)
{
    mct_inst in;
    static rows r;
    ircg_info info;
    REQUIRE(mct_make(&in, 40, 30, 0.4, 4.0, IRCG_OUTER_COLUMN_VARIANCE, 9) == 0);
    r.n = 0;
    r.stop_at = 5;
    REQUIRE(solve(&in, 1, 1, 60, 0, &r, &info, NULL, NULL) == IRCG_OK);
    CHECK(info.status == IRCG_STATUS_INTERRUPTED);
    CHECK_INT(r.n, 5); /* no call after the one that said stop */
    CHECK(r.r[r.n - 1].t == 5);
    CHECK(info.iterations >= 5);
    /* every certificate asked for before the stop is folded before the
     * final one is made (which shares the thread's buffers): the bounds of
     * a run that ends at the same iteration without a stop */
    ircg_info whole;
    REQUIRE(solve(&in, 0, 1, info.iterations, 0, NULL, &whole, NULL, NULL) == IRCG_OK);
    CHECK(same_bounds(&info, &whole));
    mct_free(&in);
}

/* A certified stop is decided at its certificate's iteration: in place. */
TEST(cert_async, a_certified_stop_certifies_in_place)
{
    mct_inst in;
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_info info;
    REQUIRE(mct_make(&in, 40, 30, 0.4, 4.0, IRCG_OUTER_COLUMN_VARIANCE, 9) == 0);
    ircg_settings_default(&s);
    s.max_iter = 30;
    s.certify_async = 1;
    s.stop.inner_gap = 1e-300; /* never met */
    REQUIRE(ircg_solver_new(in.pb, &s, &sv, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(sv, &info) == IRCG_OK);
    CHECK(info.cert_thread_seconds == 0);
    CHECK(info.certificates > 0);
    ircg_solver_free(sv);
    mct_free(&in);
}

/* The certificate of x makes the next LMO ahead and the LMO takes it:
 * the same iterates and the same products as a run without certificates. */
TEST(cert_async, the_staged_lmo_changes_no_iterate)
{
    mct_inst in;
    static rows a, b;
    ircg_info ia, ib;
    ircg_settings s;
    REQUIRE(mct_make(&in, 60, 40, 0.3, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 33) == 0);
    for (int rule = 0; rule < 3; rule++) {
        ircg_solver *sv = NULL;
        a.n = b.n = 0;
        for (int cert = 0; cert <= 1; cert++) {
            rows *rec = cert ? &b : &a;
            ircg_settings_default(&s);
            s.step_rule = (ircg_step_rule)rule;
            s.max_iter = 40;
            s.certify = cert;
            s.callback = record;
            s.callback_data = rec;
            REQUIRE(ircg_solver_new(in.pb, &s, &sv, NULL) == IRCG_OK);
            REQUIRE(ircg_solve(sv, cert ? &ib : &ia) == IRCG_OK);
            ircg_solver_free(sv);
        }
        CHECK_INT(a.n, b.n);
        int bad = -1;
        for (int k = 0; k < a.n && k < b.n && bad < 0; k++) {
            const ircg_iter_info *x = &a.r[k], *y = &b.r[k];
            if (!(same(x->g_x, y->g_x) && same(x->g_z, y->g_z) && same(x->f_x, y->f_x) &&
                  same(x->gap, y->gap) && same(x->alpha, y->alpha) &&
                  x->lmo_matvecs == y->lmo_matvecs))
                bad = k;
        }
        CHECK_INT(bad, -1);
        CHECK(ia.lmo_matvecs == ib.lmo_matvecs);
        CHECK(ib.certificates > 0 && ia.certificates == 0);
    }
    mct_free(&in);
}
