/*
 * test_mpi_ref.c -- a computed reference ("reference": {"compute": true})
 * in a distributed solve: ircg-mpi on N = 1..4 ranks against `ircg solve`,
 * on ML-100K and a synthetic instance.  The reference is conditional
 * gradient on g with exact line search (solver/src/reference/), run on the
 * ranks' parts: every sum it takes goes through the communicator, and
 * each rank keeps r(x*) on its own rows, against which the solve's
 * g - g_opt is summed termwise.
 *
 * What is compared, and to what:
 * - g_opt and the iteration count: the same steps as one process, the sums
 *   added in another order (per rank, then in rank order): g_opt to 1e-10
 *   relative (test_mpi.c: 1e-14 measured for g), the same iterations and
 *   status;
 * - the certified gap max(raw, 0) + floor: raw is a difference of terms of
 *   the scale s (gphi_scale) that cancel at the optimum, computed with a
 *   rounding error below floor = 8 ulps of s (ircg.h).  Two runs adding in
 *   other orders may differ by that error each: |gap_1 - gap_N| <= 1e-10
 *   gap + 2 floor.  The floors: s includes the last LMO's singular value,
 *   which Lanczos gets to its stopping test, not to the rounding (3e-10
 *   relative apart on ML-100K between 1 and 2 ranks): they agree to 1e-6,
 *   a bound that only has to be of the same size;
 * - the traced g - g_opt, at every iteration: summed termwise against
 *   r(x*)^2 in 16 bits, Q~ (each rank its own unit), so its rounding is
 *   that of terms (r^2 - Q~)/2, whose sum of magnitudes is bounded by
 *   about g: to 1e-10 of it plus 1e-15 g.  A
 *   wrong r* on any rank (another rank's rows, or none: the difference
 *   of g and a g_opt) gives differences of the order of g - g_opt itself.
 * The instances are chosen so that the reference takes several steps
 * (delta 500 on ML-100K: 16 of them).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "harness.h"
#include "common/test_cli_util.h"
#include "common/mpi_util.h"

#define ITERS 40

/* The result's "reference": g_opt, gap, gap_floor, iterations. */
typedef struct ref_out {
    double g_opt, gap, floor, iterations;
    char status[32];
} ref_out;

static int read_ref(const char *path, ref_out *o)
{
    char *text = tcli_read_text(path);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(j, "reference");
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(r, "status");
    double *dst[] = {&o->g_opt, &o->gap, &o->floor, &o->iterations};
    static const char *const names[] = {"g_opt", "gap", "gap_floor", "iterations"};
    int ok = cJSON_IsString(st);
    for (int i = 0; ok && i < 4; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, names[i]);
        ok = cJSON_IsNumber(v);
        *dst[i] = ok ? v->valuedouble : NAN;
    }
    if (ok)
        snprintf(o->status, sizeof o->status, "%s", st->valuestring);
    cJSON_Delete(j);
    free(text);
    return ok ? 0 : -1;
}

static double rel(double a, double b) { return fabs(a - b) / fabs(a); }

/* The traced g_x and g - g_opt (at x) of a trace. */
static int read_gaps(const char *path, double *g, double *gg)
{
    int n = mu_read_column(path, "g_x", g, ITERS + 1);
    return n == mu_read_column(path, "g_gap_x", gg, ITERS + 1) ? n : -1;
}

static void agree(const char *data, double delta)
{
    MU_NEED_MPI();
    const char *bin = tcli_path();
    static double g1[ITERS + 1], gg1[ITERS + 1], gn[ITERS + 1], ggn[ITERS + 1];
    char text[1024], err[8192];
    char *spec = tcli_tmp("mpiref.json"), *t1 = tcli_tmp("mpiref_one.csv");
    char *r1 = tcli_tmp("mpiref_one.json"), *tn = tcli_tmp("mpiref_n.csv");
    char *rn = tcli_tmp("mpiref_n.json");
    ref_out one, got;
    snprintf(text, sizeof text, "{\"problem\": {\"type\": \"matrix_completion\", \"delta\": "
             "%g, \"data\": %s}, \"algorithm\": {\"name\": \"ircg\", \"max_iter\": %d}, "
             "\"reference\": {\"compute\": true}}", delta, data, ITERS);
    REQUIRE(tcli_write(spec, text) == 0);
    char *args[] = {(char *)bin, "solve", spec, "--quiet", "--trace", t1, "--result", r1, NULL};
    REQUIRE(tcli_run(args, NULL) == 0);
    REQUIRE(read_ref(r1, &one) == 0);
    REQUIRE(read_gaps(t1, g1, gg1) == ITERS);
    CHECK(one.iterations >= 3); /* the instance makes it take steps */
    for (int n = 1; n <= 4; n++) {
        int rc = mu_run_mpi(n, spec, tn, rn, err, sizeof err);
        if (rc != 0)
            fprintf(stderr, "ircg-mpi -np %d: exit %d: %s\n", n, rc, err);
        REQUIRE(rc == 0);
        REQUIRE(read_ref(rn, &got) == 0);
        REQUIRE(read_gaps(tn, gn, ggn) == ITERS);
        double dgap = fabs(got.gap - one.gap), worst = 0;
        for (int i = 0; i < ITERS; i++) {
            double d = fabs(ggn[i] - gg1[i]) / (1e-10 * fabs(gg1[i]) + 1e-15 * g1[i]);
            worst = d > worst || d != d ? d : worst;
        }
        printf("    %d ranks: g_opt %.3g, gap %.3g (floor %.3g), g - g_opt %.3g of the "
               "allowance\n", n, rel(one.g_opt, got.g_opt), dgap, one.floor, worst);
        CHECK(rel(one.g_opt, got.g_opt) <= 1e-10);
        CHECK(dgap <= 1e-10 * one.gap + 2 * one.floor);
        CHECK(rel(one.floor, got.floor) <= 1e-6);
        CHECK(got.iterations == one.iterations);
        CHECK_STR(got.status, one.status);
        CHECK(worst <= 1);
    }
}

TEST(mpi_ref, computed_reference_movielens_100k)
{
    char path[PATH_MAX], data[PATH_MAX + 64];
    NEED_MOVIELENS("u.data", path);
    snprintf(data, sizeof data, "{\"source\": \"file\", \"path\": \"%s\"}", path);
    agree(data, 500);
}

TEST(mpi_ref, computed_reference_synthetic)
{
    agree("{\"source\": \"synthetic\", \"n_rows\": 3000, \"n_cols\": 800, "
          "\"n_ratings\": 120000, \"seed\": 5}", 400);
}
