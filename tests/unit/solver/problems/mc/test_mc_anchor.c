/*
 * test_mc_anchor.c -- the bound of sigma_2 of the ratings (mc_anchor.c)
 * against a dense computation written here.
 *
 * The anchor is (||M'M||_F^2 - theta^2)^(1/4), with an upper bound of the
 * first term and a lower bound theta <= sigma_1^2 of the Rayleigh
 * quotient.  Here ||M'M||_F^2 = F is summed in long double from the dense
 * M'M, and sigma_1, sigma_2 come from LAPACK's SVD of the dense M; the
 * anchor must lie between (F - sigma_1^4)^(1/4), which it bounds from
 * above, and that value to 1e-6: a rating left out of M'M or counted twice
 * moves it by more (below, an instance with one rating changed shows it).
 * The instances: sparse ratings on one thread; more than three blocks of
 * columns on two; the same with whole ratings, which the library keeps as
 * floats (mc_data.mf, as MovieLens's); and a dense block of signed
 * ratings, more than the entries the anchor lists at a time (it takes
 * two parts).  A distributed problem's anchor (the blocks summed over the
 * ranks) is not checked here: the mpi. suites make it in their
 * certificates (mpi.resume_goes_on_bit_for_bit: the same bits after a
 * resume, which makes it anew).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "ircg.h"
#include "problems/mc/mc.h"
#include "unit/solver/test_mc_util.h"

/* (F - sigma_1^4)^(1/4) of the dense M (0 off Omega), and sigma_2. */
static int dense_anchor(const mct_inst *in, double *root, double *sv2)
{
    int n = in->n, p = in->p, m = n < p ? n : p;
    double *s = malloc((size_t)m * sizeof *s);
    long double F = 0;
    if (!s || mct_svd(n, p, in->Md, s, NULL, NULL) != 0) {
        free(s);
        return -1;
    }
    for (int j = 0; j < p; j++)
        for (int k = 0; k < p; k++) {
            long double b = 0;
            for (int i = 0; i < n; i++)
                b += (long double)in->Md[i + (size_t)j * n] * in->Md[i + (size_t)k * n];
            F += b * b;
        }
    long double s1 = s[0];
    *root = (double)sqrtl(sqrtl(F - s1 * s1 * s1 * s1));
    *sv2 = s[1];
    free(s);
    return 0;
}

/* The instance with its ratings rounded to whole numbers, which the
 * library keeps as floats; 0 on success. */
static int whole_ratings(mct_inst *in)
{
    for (int64_t e = 0; e < in->R->nnz; e++)
        in->R->val[e] = round(in->R->val[e]);
    for (size_t c = 0; c < (size_t)in->n * in->p; c++)
        in->Md[c] = round(in->Md[c]);
    ircg_problem_free(in->pb);
    in->pb = NULL;
    return ircg_problem_matrix_completion(in->R, IRCG_OUTER_COLUMN_VARIANCE, 5.0, &in->pb,
                                          NULL) == IRCG_OK &&
                   mc_data_of(in->pb)->mf != NULL ? 0 : -1;
}

/* The library's anchor of the instance, on `threads` threads. */
static double library_anchor(const mct_inst *in, int threads)
{
    ircg_settings s;
    void *ws = NULL;
    double theta = 0, a = NAN;
    ircg_settings_default(&s);
    s.threads = threads;
    if (in->pb->ops->create(in->pb, &s, &ws, NULL) != IRCG_OK)
        return NAN;
    if (mc_cert_ratings_theta(ws, &theta) == IRCG_OK) /* makes the scratch */
        a = mc_anchor_sv2(ws);
    in->pb->ops->destroy(ws);
    return a;
}

static void check_anchor(const char *name, const mct_inst *in, int threads)
{
    double root, sv2, a = library_anchor(in, threads);
    REQUIRE(dense_anchor(in, &root, &sv2) == 0);
    printf("    %s (%d x %d, %lld ratings, %d threads): anchor %.12g, dense %.12g, "
           "sigma_2 %.6g\n", name, in->n, in->p, (long long)in->R->nnz, threads, a, root,
           sv2);
    CHECK(a >= sv2);
    CHECK(a >= root * (1 - 1e-12));
    CHECK(a <= root * (1 + 1e-6));
}

TEST(mc_anchor, bounds_sigma_2_as_the_dense_gram_matrix_does)
{
    mct_inst in;
    REQUIRE(mct_make(&in, 60, 40, 0.3, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 7) == 0);
    check_anchor("sparse", &in, 1);
    mct_free(&in);

    REQUIRE(mct_make(&in, 120, 900, 0.08, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 8) == 0);
    check_anchor("four blocks", &in, 2);
    REQUIRE(whole_ratings(&in) == 0);
    check_anchor("four blocks, whole ratings", &in, 2);
    mct_free(&in);

    /* 80000 signed ratings in one block of 200 columns: the list takes
     * them in two parts, and |M|'|M| is made beside M'M */
    enum { N = 400, P = 200 };
    double *M = malloc((size_t)N * P * sizeof *M);
    uint64_t seed = 9;
    REQUIRE(M != NULL);
    for (size_t e = 0; e < (size_t)N * P; e++)
        M[e] = 0.37 + mct_urand(&seed);
    REQUIRE(mct_make_full(&in, N, P, M, 5.0, IRCG_OUTER_COLUMN_VARIANCE) == 0);
    check_anchor("dense, signed", &in, 2);
    mct_free(&in);
    free(M);
}

/* The check above sees one rating changed: the anchor of the changed
 * data is not the dense anchor of the original within its 1e-6. */
TEST(mc_anchor, one_rating_changed_is_seen)
{
    mct_inst in, ch;
    double root, sv2;
    REQUIRE(mct_make(&in, 120, 900, 0.08, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 8) == 0);
    REQUIRE(mct_make(&ch, 120, 900, 0.08, 5.0, IRCG_OUTER_COLUMN_VARIANCE, 8) == 0);
    ch.R->val[ch.R->nnz / 2] += 1.0;
    ircg_problem_free(ch.pb);
    ch.pb = NULL;
    REQUIRE(ircg_problem_matrix_completion(ch.R, IRCG_OUTER_COLUMN_VARIANCE, 5.0, &ch.pb,
                                           NULL) == IRCG_OK);
    REQUIRE(dense_anchor(&in, &root, &sv2) == 0);
    double a = library_anchor(&ch, 1);
    printf("    changed: anchor %.12g, the original's dense %.12g (%.2g apart)\n", a, root,
           fabs(a / root - 1));
    CHECK(fabs(a / root - 1) > 1e-6);
    mct_free(&in);
    mct_free(&ch);
}
