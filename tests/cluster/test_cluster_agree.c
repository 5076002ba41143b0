/*
 * test_cluster_agree.c -- one solve spread over hosts that share no
 * memory, talking TCP over the test links, agrees with one process: the
 * paper's MovieLens 1M job (30 iterations; its reference g_opt computed
 * on the ranks too, its certificates made collectively) and a synthetic
 * job of 10M ratings in MovieLens-10M's shape, on 1, 2, 3 and 4 hosts with
 * one and with two ranks a host.  g and f at every traced iteration within
 * today's MPI tolerance (1e-10 relative, test_mpi.c: sums added in another
 * order), the certificate's bounds within the same tolerance of the
 * quantities they are made of, and execution.hosts naming the hosts of
 * the ranks in rank order.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_util.h"
#include "common/mpi_util.h"
#include "common/test_cli_util.h"
#include "cluster_util.h"

#define MPI_TOL 1e-10 /* test_mpi.c: the agreement of sums in another order */
#define MAX_ROWS 64

/* A number member of o (NaN when absent). */
static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The certificate of b against a's: the fraction of its tolerance the
 * worst member used.  Values within MPI_TOL relative; a gap (a difference
 * of two such values) within MPI_TOL of the size of the values it is the
 * difference of. */
static double certificate_used(const cJSON *a, const cJSON *b)
{
    static const char *const values[] = {"g_lower", "g_upper", "f_lower", "g_x", "g_z",
                                         "f_x", "f_z", "g_x0", NULL};
    static const char *const gaps[][3] = {{"inner_gap_x", "g_x", "g_lower"},
                                          {"inner_gap_z", "g_z", "g_lower"},
                                          {"outer_gap_x", "f_x", "f_lower"},
                                          {"outer_gap_z", "f_z", "f_lower"}};
    double used = 0;
    if (!a || !b)
        return INFINITY;
    for (int i = 0; values[i]; i++) {
        double x = num(a, values[i]), y = num(b, values[i]);
        double u = fabs(x - y) / (MPI_TOL * fmax(fabs(x), fabs(y)));
        used = x == y ? used : fmax(used, isnan(u) ? INFINITY : u);
    }
    for (int i = 0; i < 4; i++) {
        double x = num(a, gaps[i][0]), y = num(b, gaps[i][0]);
        double scale = fabs(num(a, gaps[i][1])) + fabs(num(a, gaps[i][2]));
        double u = fabs(x - y) / (MPI_TOL * scale);
        used = x == y ? used : fmax(used, isnan(u) ? INFINITY : u);
    }
    const cJSON *sa = cJSON_GetObjectItemCaseSensitive(a, "sharp");
    const cJSON *sb = cJSON_GetObjectItemCaseSensitive(b, "sharp");
    if (cJSON_IsTrue(sa) != cJSON_IsTrue(sb) || num(a, "count") != num(b, "count") ||
        num(a, "iteration") != num(b, "iteration"))
        used = INFINITY;
    return used;
}

/* execution.hosts of result r: host 1 + i / slots for rank i. */
static int hosts_are(const cJSON *r, int ranks, int slots)
{
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r, "execution"), "hosts");
    int ok = cJSON_GetArraySize(h) == ranks;
    for (int i = 0; ok && i < ranks; i++) {
        const cJSON *s = cJSON_GetArrayItem(h, i);
        ok = cJSON_IsString(s) && !strcmp(s->valuestring, cl_host(1 + i / slots));
    }
    return ok;
}

static cJSON *read_json(const char *path)
{
    char *text = hu_read_file(path);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    return j;
}

/* The spec at `spec` on one process, then on every grid point; checks. */
static void agree(const char *name, const char *spec_path, int rows, int certs)
{
    char spec[PATH_MAX]; /* cl_path's buffers rotate */
    snprintf(spec, sizeof spec, "%s", spec_path);
    static double one[MAX_ROWS][4], got[MAX_ROWS][4];
    char args[3 * PATH_MAX + 64], err[32768], t1[64], r1[64];
    snprintf(t1, sizeof t1, "%s-one.csv", name);
    snprintf(r1, sizeof r1, "%s-one.json", name);
    char *one_trace = strdup(cl_path(t1)), *one_res = strdup(cl_path(r1));
    char *solve[] = {(char *)tcli_path(), "solve", spec, "--quiet", "--trace",
                     one_trace, "--result", one_res, NULL};
    REQUIRE(tcli_run(solve, NULL) == 0);
    REQUIRE(mu_read_trace(one_trace, one, MAX_ROWS) == rows);
    cJSON *ref = read_json(one_res);
    double worst = 0, cert_worst = 0;
    for (int hosts = 1; hosts <= 4; hosts++)
        for (int slots = 1; slots <= 2; slots++) {
            char *trace = cl_path("grid.csv"), *res = cl_path("grid.json");
            snprintf(args, sizeof args, "%s --quiet --trace %s --result %s", spec, trace, res);
            double t0 = hu_now();
            int rc = cl_run_mpi(hosts, slots, args, err, sizeof err);
            double secs = hu_now() - t0;
            if (rc != 0)
                printf("    %d hosts x %d ranks: exit %d: %.3000s\n", hosts, slots, rc, err);
            CHECK_INT(rc, 0);
            CHECK_INT(mu_read_trace(trace, got, MAX_ROWS), rows);
            double w = mu_worst_relative((const double (*)[4])one, (const double (*)[4])got,
                                         rows);
            cJSON *r = read_json(res);
            CHECK(hosts_are(r, hosts * slots, slots));
            double cu = certs ? certificate_used(
                                    cJSON_GetObjectItemCaseSensitive(ref, "certificate"),
                                    cJSON_GetObjectItemCaseSensitive(r, "certificate"))
                              : 0;
            char cert[80] = "";
            if (certs)
                snprintf(cert, sizeof cert, "; the certificate %.2g of its tolerance", cu);
            printf("    %d host%s x %d rank%s: g, f within %.2g of one process%s (%.1f s)\n",
                   hosts, hosts > 1 ? "s" : "", slots, slots > 1 ? "s" : "", w, cert, secs);
            worst = w > worst || isnan(w) ? w : worst;
            cert_worst = cu > cert_worst || isnan(cu) ? cu : cert_worst;
            cJSON_Delete(r);
        }
    CHECK_MEASURED("g and f on 1-4 hosts x 1-2 ranks against one process, worst relative "
                   "difference", worst, MPI_TOL);
    if (certs)
        CHECK_MEASURED("the certificate's bounds, worst fraction of MPI_TOL used", cert_worst,
                       1.0);
    cJSON_Delete(ref);
    CHECK_INT(cl_count_ranks(), 0);
    free(one_trace);
    free(one_res);
}

/* The paper's job as `ircg example paper-movielens` writes it (ratings
 * from build/data), 30 iterations. */
TEST(cluster_agree, movielens_1m_paper_job)
{
    char path[PATH_MAX], cmd[PATH_MAX * 2 + 128];
    MU_NEED_MPI();
    NEED_MOVIELENS("ratings.dat", path);
    CL_NEED_HOSTS(4);
    char *spec = cl_path("paper.json");
    snprintf(cmd, sizeof cmd, "%s example paper-movielens --max-iter 30 --ratings %s > %s",
             tcli_path(), path, spec);
    REQUIRE(cl_sh(cmd, NULL, 0) == 0);
    agree("paper", spec, 30, 1);
}

/* 10M ratings in MovieLens-10M's shape (make bench-mpi's instance), each
 * rank generating its rows; 10 iterations, without certificates (their
 * anchor is a Gram of the 10,677 columns, minutes of sums here; the
 * paper's job checks them); the paper's varsigma_rel 0.05, as test_mpi.c's
 * agreements (a smaller one reaches the gap's rounding floor sooner, where
 * orders of addition part ways). */
TEST(cluster_agree, synthetic_10m)
{
    MU_NEED_MPI();
    CL_NEED_HOSTS(4);
    char *spec = cl_path("s10m.json");
    FILE *f = fopen(spec, "w");
    REQUIRE(f);
    fputs("{\"problem\": {\"type\": \"matrix_completion\", \"delta\": 5, \"data\": "
          "{\"source\": \"synthetic\", \"n_rows\": 69878, \"n_cols\": 10677, "
          "\"n_ratings\": 10000000, \"seed\": 7}}, \"algorithm\": {\"name\": \"ircg\", "
          "\"varsigma_rel\": 0.05, \"max_iter\": 10, \"certify\": false}}", f);
    fclose(f);
    agree("s10m", spec, 10, 0);
}
