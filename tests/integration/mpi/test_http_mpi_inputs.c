/*
 * test_http_mpi_inputs.c -- MPI jobs on data that lives in the daemon,
 * through a real ircgd with mpirun as its launcher: inline ratings and an
 * uploaded dataset (written to a file in the job's folder, which the ranks
 * read by byte ranges).  Each job's trace agrees with the single-process
 * job of the same spec to 1e-10 relative at every iteration (the agreement
 * of test_mpi.c), which also proves that the ranks read the same
 * instance: other ratings, or ratings rounded on the way, would give other
 * g and f from the first iteration on.  A computed reference runs on the
 * ranks.  And what stays refused for an MPI job says so at submission,
 * naming its member.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "common/test_cli_util.h"
#include "common/http_mpi_util.h"

#define ITERS 30

/* Ratings with many digits (1-based ids; a few users with none, the last
 * row and column named by n_rows and n_cols only): `sep` between the
 * fields, `open`/`close` around each triplet, `join` between them. */
static size_t ratings(char *out, size_t cap, const char *open, const char *sep,
                      const char *close, const char *join)
{
    size_t n = 0;
    int first = 1;
    for (int u = 1; u <= 57; u++)
        for (int i = 1; i <= 23; i++)
            if ((u * 7 + i * 3) % 5 == 0 && u % 11 != 0) {
                n += (size_t)snprintf(out + n, cap - n, "%s%s%d%s%d%s%.17g%s", first ? "" : join,
                                      open, u, sep, i, sep, 1.0 + (u * 13 + i * 7) % 40 / 9.0,
                                      close);
                first = 0;
            }
    return n;
}

/* A matrix-completion spec on `data`, with ranks > 0 its execution. */
static char *spec_on(const char *data, int ranks)
{
    size_t cap = strlen(data) + 512;
    char *s = malloc(cap), ex[64] = "";
    if (ranks > 0)
        snprintf(ex, sizeof ex, ", \"execution\": {\"ranks\": %d}", ranks);
    snprintf(s, cap, "{\"problem\": {\"type\": \"matrix_completion\", \"delta\": 4, "
             "\"data\": %s}, \"algorithm\": {\"name\": \"ircg\", \"max_iter\": %d}%s}", data,
             ITERS, ex);
    return s;
}

static int run_job(const hu_daemon *d, const char *spec, char *id)
{
    char state[16] = "";
    if (hu_submit(d, spec, id, 64) != 202 || hu_wait_terminal(d, id, 120, state) != 0)
        return -1;
    if (strcmp(state, "succeeded") != 0) {
        char path[96];
        hu_resp r;
        snprintf(path, sizeof path, "/v1/jobs/%s", id);
        if (hu_get(d, path, &r) == 200)
            fprintf(stderr, "    job %s: %s\n", id, r.body);
        hu_resp_free(&r);
        return -1;
    }
    return 0;
}

static int trace_of(const hu_daemon *d, const char *id, const char *name, double (*v)[4])
{
    char path[128];
    char *file = tcli_tmp(name);
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv", id);
    int ok = hu_get(d, path, &r) == 200 && tcli_write(file, r.body) == 0;
    hu_resp_free(&r);
    return ok ? mu_read_trace(file, v, ITERS + 1) : -1;
}

/* The MPI job (3 ranks) and the single-process job on `data` agree. */
static void agree_on(const hu_daemon *d, const char *data, const char *what)
{
    static double a[ITERS + 1][4], b[ITERS + 1][4];
    char one[64], mpi[64], dir[800];
    char *s1 = spec_on(data, 0), *sn = spec_on(data, 3);
    CHECK(run_job(d, s1, one) == 0);
    CHECK(run_job(d, sn, mpi) == 0);
    int na = trace_of(d, one, "hmpiin_one.csv", a);
    int nb = trace_of(d, mpi, "hmpiin_mpi.csv", b);
    CHECK_INT(na, ITERS);
    CHECK_INT(nb, na);
    double worst = na == ITERS && nb == na
                       ? mu_worst_relative((const double (*)[4])a, (const double (*)[4])b, na)
                       : 1;
    printf("    %s: 3 ranks against one process, g and f within %.2g\n", what, worst);
    CHECK(worst <= 1e-10);
    hm_job_dir(d, mpi, dir, sizeof dir); /* the data's file goes with the job, */
    for (int i = 0; i < 50 && access(dir, F_OK) == 0; i++)
        hu_sleep_ms(100); /* once its outcome is stored: the worker then removes it */
    CHECK(access(dir, F_OK) != 0);
    free(s1);
    free(sn);
}

TEST(http_mpi_inputs, inline_data_and_datasets_agree_with_one_process)
{
    HM_NEED_MPI();
    (void)bin;
    hu_daemon d = {0};
    static char text[64 * 1024], data[80 * 1024];
    hu_resp r;
    REQUIRE(hm_start(&d, "http_mpi_inputs", NULL) == 0);

    size_t n = ratings(text, sizeof text, "[", ", ", "]", ", ");
    REQUIRE(n < sizeof text - 1);
    snprintf(data, sizeof data, "{\"source\": \"inline\", \"n_rows\": 60, \"n_cols\": 24, "
             "\"ratings\": [%s]}", text);
    agree_on(&d, data, "inline ratings");

    n = ratings(text, sizeof text, "", ",", "", "\n");
    REQUIRE(hu_req(&d, "POST", "/v1/datasets?format=csv", "text/plain", text, n, NULL, &r) ==
            0);
    CHECK_INT(r.status, 201);
    cJSON *ds = hu_json(&r);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(ds, "id");
    REQUIRE(cJSON_IsString(id));
    snprintf(data, sizeof data, "{\"source\": \"dataset\", \"id\": \"%s\"}", id->valuestring);
    cJSON_Delete(ds);
    hu_resp_free(&r);
    agree_on(&d, data, "a dataset");
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* The result's reference g_opt of job id; NaN when it has none. */
static double g_opt_of(const hu_daemon *d, const char *id)
{
    cJSON *res = hu_result(d, id);
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(res, "reference"), "g_opt");
    double v = cJSON_IsNumber(g) ? g->valuedouble : NAN;
    cJSON_Delete(res);
    return v;
}

/* A computed reference through the daemon: the MPI job computes it on its
 * ranks (test_mpi_ref.c compares it with one process at length) and its
 * result says the g_opt of the single-process job, to 1e-10 relative. */
TEST(http_mpi_inputs, computed_reference)
{
    HM_NEED_MPI();
    (void)bin;
    hu_daemon d = {0};
    char one[64], mpi[64], spec[1024];
    const char *fmt = "{\"problem\": {\"type\": \"matrix_completion\", \"delta\": 400, "
                      "\"data\": {\"source\": \"synthetic\", \"n_rows\": 3000, \"n_cols\": 800, "
                      "\"n_ratings\": 120000, \"seed\": 5}}, \"algorithm\": {\"name\": \"ircg\", "
                      "\"max_iter\": 10}, \"reference\": {\"compute\": true}%s}";
    REQUIRE(hm_start(&d, "http_mpi_ref", NULL) == 0);
    snprintf(spec, sizeof spec, fmt, "");
    CHECK(run_job(&d, spec, one) == 0);
    snprintf(spec, sizeof spec, fmt, ", \"execution\": {\"ranks\": 3}");
    CHECK(run_job(&d, spec, mpi) == 0);
    double a = g_opt_of(&d, one), b = g_opt_of(&d, mpi);
    printf("    g_opt %.17g (one process), %.17g (3 ranks)\n", a, b);
    CHECK(fabs(a - b) <= 1e-10 * fabs(a));
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* An MPI job may start from another job's snapshot (test_http_mpi_snap.c)
 * as a local one may: one that names no job is refused at submission, at
 * its member, as a local one is; so is a distributed algorithm other
 * than ircg. */
TEST(http_mpi_inputs, what_stays_refused_names_its_member)
{
    HM_NEED_MPI();
    (void)bin;
    hu_daemon d = {0};
    hu_resp r;
    static const char *const cases[][2] = {
        {"\"algorithm\": {\"start\": {\"job\": \"j_x\"}}", "/algorithm/start/job"},
        {"\"algorithm\": {\"name\": \"bisg\"}", "/algorithm/name"},
    };
    REQUIRE(hm_start(&d, "http_mpi_refused", NULL) == 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char spec[1024];
        snprintf(spec, sizeof spec, "{\"problem\": {\"type\": \"matrix_completion\", "
                 "\"data\": {\"source\": \"synthetic\", \"n_rows\": 50, \"n_cols\": 20, "
                 "\"n_ratings\": 300}}, %s, \"execution\": {\"ranks\": 2}}", cases[i][0]);
        REQUIRE(hu_req(&d, "POST", "/v1/jobs", "application/json", spec, strlen(spec), NULL,
                       &r) == 0);
        CHECK_INT(r.status, 422);
        CHECK(strstr(r.body, cases[i][1]) != NULL);
        if (r.status != 422)
            fprintf(stderr, "    %s\n", r.body);
        hu_resp_free(&r);
    }
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
