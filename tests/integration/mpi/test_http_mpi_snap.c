/*
 * test_http_mpi_snap.c -- the iterate snapshots of an MPI job (its spec's
 * output.snapshot_every) through a real ircgd with mpirun as its launcher:
 * downloaded as .npz through HTTP and read by clients/python/read_snapshot.py
 * (the standard library alone, no code of ours), X = a0 X0 + P diag(w) Q'
 * of the 3-rank job's snapshot agrees with the single-process job's at the
 * same iteration to 1e-10 relative (the agreement of test_mpi.c: the ranks
 * add the same terms in another order); and the snapshot's state is one
 * process's, for the whole instance (its |Omega| and data digest): a
 * single-process job that starts from it ("schedule": "continue") goes on
 * as the single-process run did, g and f to 1e-10 at every iteration.
 * Skipped with a message without python3 or mpirun; failed when mpirun
 * is installed but ircg-mpi was not built.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/test_cli_util.h"
#include "common/http_check.h"
#include "common/http_mpi_util.h"

#define ITERS 40
#define EVERY 20
#define READER "clients/python/read_snapshot.py"

/* A small synthetic instance (the reader forms X densely in Python). */
static void spec_of(char *out, size_t n, int iters, int ranks, const char *start)
{
    char ex[64] = "";
    if (ranks > 0)
        snprintf(ex, sizeof ex, ", \"execution\": {\"ranks\": %d}", ranks);
    snprintf(out, n, "{\"problem\": {\"type\": \"matrix_completion\", \"delta\": 5, "
             "\"data\": {\"source\": \"synthetic\", \"n_rows\": 300, \"n_cols\": 80, "
             "\"n_ratings\": 6000, \"seed\": 11}}, \"algorithm\": {\"name\": \"ircg\", "
             "\"max_iter\": %d%s}, \"output\": {\"snapshot_every\": %d}%s}",
             iters, start ? start : "", EVERY, ex);
}

/* Snapshot (it, which) of job id, downloaded and formed densely by the
 * reader: the rows of X as JSON, or NULL. */
static cJSON *dense_snapshot(const hu_daemon *d, const char *id, int it, const char *which)
{
    char path[160], file[700], cmd[2600], reader[1024];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots/%d/%s", id, it, which);
    snprintf(file, sizeof file, "%s/%s-%d-%s.npz", d->dir, id, it, which);
    if (hu_repo_file(READER, reader, sizeof reader) != 0 || hu_get(d, path, &r) != 200)
        return NULL;
    FILE *f = strstr(r.ctype, "application/x-npz") ? fopen(file, "wb") : NULL;
    int ok = f && fwrite(r.body, 1, r.len, f) == r.len;
    if (f)
        ok &= fclose(f) == 0;
    hu_resp_free(&r);
    snprintf(cmd, sizeof cmd, "python3 %s %s --dense > %s.json", reader, file, file);
    if (!ok || system(cmd) != 0)
        return NULL;
    snprintf(cmd, sizeof cmd, "%s.json", file);
    char *text = hu_read_file(cmd);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    return j;
}

/* The job's trace as CSV in a file; its rows' g and f into v. */
static int trace_of(const hu_daemon *d, const char *id, const char *name, double (*v)[4])
{
    char path[128];
    char *file = tcli_tmp(name);
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv", id);
    if (hu_get(d, path, &r) != 200 || tcli_write(file, r.body) != 0) {
        hu_resp_free(&r);
        return -1;
    }
    hu_resp_free(&r);
    return mu_read_trace(file, v, ITERS + 1);
}

static void run_job(const hu_daemon *d, const char *spec, char *id)
{
    char state[16];
    REQUIRE(hu_submit(d, spec, id, 64) == 202);
    REQUIRE(hu_wait_terminal(d, id, 120, state) == 0);
    CHECK_STR(state, "succeeded");
    if (strcmp(state, "succeeded") != 0) { /* why, for the log */
        char path[96];
        hu_resp r;
        snprintf(path, sizeof path, "/v1/jobs/%s", id);
        if (hu_get(d, path, &r) == 200)
            printf("    job %s: %s\n", id, r.body);
        hu_resp_free(&r);
    }
}

TEST(http_mpi_snap, snapshots_agree_with_one_process_and_start_a_job)
{
    HM_NEED_MPI();
    (void)bin;
    if (system("python3 -c 'import zipfile, ast, array' >/dev/null 2>&1") != 0)
        SKIP("python3 not found: the snapshots are read by the Python reader");
    hu_daemon d = {0};
    char spec[1024], start[160], one[64], mpi[64], warm[64], path[128];
    static double a[ITERS + 1][4], b[ITERS + 1][4];
    hu_resp r;
    REQUIRE(hm_start(&d, "http_mpi_snap", "--snapshot-keep-finished 0") == 0);
    spec_of(spec, sizeof spec, ITERS, 0, NULL);
    run_job(&d, spec, one);
    spec_of(spec, sizeof spec, ITERS, 3, NULL);
    run_job(&d, spec, mpi);

    /* listed as any job's: state, x and z at each multiple of EVERY */
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots", mpi);
    REQUIRE(hu_get(&d, path, &r) == 200);
    CHECK(strstr(r.body, "\"iteration\":20") && strstr(r.body, "\"iteration\":40"));
    CHECK(strstr(r.body, "\"state\"") && strstr(r.body, "\"z\""));
    hu_resp_free(&r);
    for (int it = EVERY; it <= ITERS; it += EVERY)
        for (int k = 0; k < 2; k++) {
            const char *which = k ? "z" : "x";
            cJSON *x1 = dense_snapshot(&d, one, it, which);
            cJSON *xn = dense_snapshot(&d, mpi, it, which);
            double e = x1 && xn ? hc_rel_dist(xn, x1) : INFINITY;
            printf("    %s at iteration %d: 3 ranks against one process %.2g relative\n",
                   which, it, e);
            CHECK(e <= 1e-10);
            cJSON_Delete(x1);
            cJSON_Delete(xn);
        }

    /* the state is one process's for the whole instance: the header's
     * dimensions, |Omega| and data digest (bytes 24..48) are those of the
     * single-process job's, and so is its size */
    hu_resp s1, sn;
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots/%d/state", one, EVERY);
    REQUIRE(hu_get(&d, path, &s1) == 200);
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots/%d/state", mpi, EVERY);
    REQUIRE(hu_get(&d, path, &sn) == 200);
    CHECK(s1.len > 48 && s1.len == sn.len && !memcmp(s1.body + 24, sn.body + 24, 24));
    hu_resp_free(&s1);
    hu_resp_free(&sn);

    /* one process starts from the MPI job's state at EVERY and goes on as
     * the single-process run did */
    snprintf(start, sizeof start, ", \"start\": {\"job\": \"%s\", \"snapshot\": %d, "
             "\"schedule\": \"continue\"}", mpi, EVERY);
    spec_of(spec, sizeof spec, ITERS - EVERY, 0, start); /* max_iter: its own */
    run_job(&d, spec, warm);
    int na = trace_of(&d, one, "hmpisnap_one.csv", a);
    int nb = trace_of(&d, warm, "hmpisnap_warm.csv", b);
    CHECK_INT(na, ITERS);
    CHECK_INT(nb, ITERS - EVERY);
    double worst = nb == ITERS - EVERY
                       ? mu_worst_relative((const double (*)[4])(a + EVERY),
                                           (const double (*)[4])b, nb)
                       : INFINITY;
    printf("    continued from the MPI snapshot: g and f within %.2g of one process\n",
           worst);
    CHECK(worst <= 1e-10);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* A rank-2 x0 of the 300 x 80 instance (column-major), inside the ball
 * (nuclear norm at most 1.5 + 0.7 < delta = 5): as a spec member. */
static char *x0_member(void)
{
    enum { N = 300, P = 80 };
    char *s = malloc((size_t)N * P * 26 + 64);
    size_t at = 0;
    if (!s)
        return NULL;
    at += (size_t)sprintf(s, ", \"start\": {\"x0\": [");
    for (int j = 0; j < P; j++)
        for (int i = 0; i < N; i++) { /* unit vectors u, v of norm 1: s 1.5, 0.7 */
            double u1 = sin(0.37 * i + 1) / sqrt(N / 2.0), v1 = cos(0.11 * j) / sqrt(P / 2.0);
            double u2 = cos(0.91 * i) / sqrt(N / 2.0), v2 = sin(0.53 * j + 2) / sqrt(P / 2.0);
            at += (size_t)sprintf(s + at, "%s%.17g", i || j ? "," : "",
                                  0.9 * (1.5 * u1 * v1 + 0.7 * u2 * v2));
        }
    sprintf(s + at, "]}");
    return s;
}

/* Two jobs' traces, their g and f at every row: the worst relative
 * difference (rows: the expected count of each). */
static double traces_differ(const hu_daemon *d, const char *a_id, const char *b_id, int rows)
{
    static double a[ITERS + 1][4], b[ITERS + 1][4];
    int na = trace_of(d, a_id, "hmpisnap_a.csv", a);
    int nb = trace_of(d, b_id, "hmpisnap_b.csv", b);
    CHECK_INT(na, rows);
    CHECK_INT(nb, rows);
    return na == rows && nb == rows
               ? mu_worst_relative((const double (*)[4])a, (const double (*)[4])b, rows)
               : INFINITY;
}

/* The starts a distributed solve takes, each against the same start on
 * one process (1e-10, the agreement of test_mpi.c): another job's
 * snapshot -- a single-process job's state, restored on the ranks as the
 * collective inverse of the whole save -- continued (the schedule goes on:
 * the rows are iterations EVERY + 1 on, as the single-process job's
 * own) and afresh, and a given x0 (factored once, by rank 0). */
TEST(http_mpi_snap, mpi_jobs_start_as_one_process)
{
    HM_NEED_MPI();
    (void)bin;
    hu_daemon d = {0};
    char spec[1024], start[160], src[64], one[64], mpi[64];
    static const char *const schedules[] = {"continue", "afresh"};
    REQUIRE(hm_start(&d, "http_mpi_starts", "--snapshot-keep-finished 0") == 0);
    spec_of(spec, sizeof spec, ITERS, 0, NULL);
    run_job(&d, spec, src);
    for (int k = 0; k < 2; k++) {
        snprintf(start, sizeof start, ", \"start\": {\"job\": \"%s\", \"snapshot\": %d, "
                 "\"schedule\": \"%s\"}", src, EVERY, schedules[k]);
        spec_of(spec, sizeof spec, ITERS - EVERY, 0, start);
        run_job(&d, spec, one);
        spec_of(spec, sizeof spec, ITERS - EVERY, 3 - k, start);
        run_job(&d, spec, mpi);
        double worst = traces_differ(&d, one, mpi, ITERS - EVERY);
        char what[128];
        snprintf(what, sizeof what, "%d ranks started (%s) from a snapshot, g and f against "
                 "one process", 3 - k, schedules[k]);
        CHECK_MEASURED(what, worst, 1e-10);
        if (k == 0) { /* continued: its rows are EVERY + 1 .. ITERS */
            hu_resp r;
            char path[128];
            snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv", mpi);
            REQUIRE(hu_get(&d, path, &r) == 200);
            CHECK(strstr(r.body, "\n21,") != NULL && strstr(r.body, "\n40,") != NULL);
            hu_resp_free(&r);
        }
    }
    char *x0 = x0_member(), *big = x0 ? malloc(strlen(x0) + 1024) : NULL;
    REQUIRE(big);
    spec_of(big, strlen(x0) + 1024, EVERY, 0, x0);
    run_job(&d, big, one);
    spec_of(big, strlen(x0) + 1024, EVERY, 3, x0);
    run_job(&d, big, mpi);
    CHECK_MEASURED("3 ranks started from an x0, g and f against one process",
                   traces_differ(&d, one, mpi, EVERY), 1e-10);
    free(x0);
    free(big);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* A single-process job drops the rows without ratings (api/SPEC.md); the
 * ranks hold every row, so its snapshot cannot start a distributed job:
 * the job fails saying so, and a job on one process continues from it. */
TEST(http_mpi_snap, compacted_snapshot_is_refused_on_ranks)
{
    HM_NEED_MPI();
    (void)bin;
    hu_daemon d = {0};
    char spec[1024], src[64], id[64], state[16], path[96];
    static const char *const shape = "{\"problem\": {\"type\": \"matrix_completion\", "
        "\"delta\": 5, \"data\": {\"source\": \"synthetic\", \"n_rows\": 3000, \"n_cols\": 80, "
        "\"n_ratings\": 600, \"seed\": 11}}, \"algorithm\": {\"name\": \"ircg\", "
        "\"max_iter\": %d%s}, \"output\": {\"snapshot_every\": %d}%s}";
    REQUIRE(hm_start(&d, "http_mpi_compacted", "--snapshot-keep-finished 0") == 0);
    snprintf(spec, sizeof spec, shape, ITERS, "", EVERY, "");
    run_job(&d, spec, src);
    char start[160];
    snprintf(start, sizeof start, ", \"start\": {\"job\": \"%s\", \"snapshot\": %d, "
             "\"schedule\": \"continue\"}", src, EVERY);
    snprintf(spec, sizeof spec, shape, ITERS - EVERY, start, EVERY,
             ", \"execution\": {\"ranks\": 2}");
    REQUIRE(hu_submit(&d, spec, id, sizeof id) == 202);
    REQUIRE(hu_wait_terminal(&d, id, 120, state) == 0);
    CHECK_STR(state, "failed");
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    REQUIRE(hu_get(&d, path, &r) == 200);
    CHECK(strstr(r.body, "continue it on one process") != NULL);
    printf("    2 ranks from a compacted snapshot: %.160s\n",
           strstr(r.body, "\"detail\"") ? strstr(r.body, "\"detail\"") : r.body);
    hu_resp_free(&r);
    snprintf(spec, sizeof spec, shape, ITERS - EVERY, start, EVERY, "");
    run_job(&d, spec, id); /* one process continues it */
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
