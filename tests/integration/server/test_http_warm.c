/*
 * test_http_warm.c -- a job that starts where another stopped, through a
 * real daemon: "start": {"job": ID, "schedule": "continue"} after a job of
 * 100 iterations gives the last 100 rows and the result of one job of 200,
 * bit for bit (every column of every row, but the clock's, the same double
 * -- as served, and as stored, where a NaN's payload counts too -- and
 * every member of the result but the job's own clock and oracle totals);
 * "afresh" starts a new schedule at the snapshot's x, as a
 * job given that x as "x0" does; and every mismatch between the spec and
 * the job's snapshot is a 422 naming the member -- at submission for what
 * the cheap checks see, in the job's failure (and ?dry_run=full) for the
 * data of files.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "common/http_check.h"
#include "common/http_util.h"

/* The synthetic instance of the tests, with a data member and an
 * algorithm of our choosing. */
static char *spec_of(const char *data, const char *delta, const char *alg,
                     const char *output)
{
    size_t n = strlen(data) + strlen(alg) + strlen(output) + 256;
    char *s = malloc(n);
    snprintf(s, n,
             "{\"problem\":{\"type\":\"matrix_completion\",\"data\":%s,\"delta\":%s,"
             "\"outer\":\"column_variance\"},\"algorithm\":%s,\"output\":%s}",
             data, delta, alg, output);
    return s;
}

#define SYNTH(seed)                                                              \
    "{\"source\":\"synthetic\",\"n_rows\":60,\"n_cols\":40,\"rank\":3,"          \
    "\"n_ratings\":600,\"noise\":0.5,\"seed\":" #seed "}"

static cJSON *trace_rows(const hu_daemon *d, const char *id)
{
    char path[160];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/trace", id);
    CHECK_INT(hu_get(d, path, &r), 200);
    cJSON *doc = hu_json(&r);
    hu_resp_free(&r);
    cJSON *rows = cJSON_DetachItemFromObjectCaseSensitive(doc, "rows");
    cJSON_Delete(doc);
    return rows;
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* |a - b| <= rtol max(|a|, |b|, floor) */
static int close_to(double a, double b, double rtol, double floor)
{
    double s = fmax(fmax(fabs(a), fabs(b)), floor);
    return (isnan(a) && isnan(b)) || fabs(a - b) <= rtol * s;
}

/* Rows a[from..from+n) against b[0..n): iterations and the values (not
 * the atoms: a start from a dense x0 has those of its SVD).  The gap is a
 * cancelling difference of terms of the size of g: relative to that. */
static int rows_agree(const cJSON *a, int from, const cJSON *b, int n, double rtol)
{
    static const char *const COLS[] = {"sigma", "alpha", "g_x", "f_x", "g_z", "f_z",
                                       "gap", "top_sv"};
    int bad = 0;
    for (int i = 0; i < n && !bad; i++) {
        const cJSON *ra = cJSON_GetArrayItem(a, from + i), *rb = cJSON_GetArrayItem(b, i);
        bad = num(ra, "t") != num(rb, "t");
        for (size_t k = 0; !bad && k < sizeof COLS / sizeof COLS[0]; k++)
            bad = !close_to(num(ra, COLS[k]), num(rb, COLS[k]), rtol,
                            strcmp(COLS[k], "gap") ? 1e-300 : num(ra, "g_x"));
        if (bad) {
            char *x = cJSON_PrintUnformatted(ra), *y = cJSON_PrintUnformatted(rb);
            th_fail(__FILE__, __LINE__, "row %d differs:\n   %s\n   %s", i, x, y);
            free(x);
            free(y);
        }
    }
    return !bad;
}

static char *submit_wait(const hu_daemon *d, const char *spec, const char *want_state)
{
    char id[64] = "", state[16] = "";
    CHECK_INT(hu_submit(d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(d, id, 60, state) == 0);
    CHECK_STR(state, want_state);
    return strdup(id);
}

TEST(http_warm, continue_equals_one_long_run)
{
    hu_daemon d = {0};
    char alg[256];
    REQUIRE(hu_start(&d, "http_warm_continue", 1) == 0);
    char *s200 = spec_of(SYNTH(1), "5", "{\"max_iter\":200}", "{\"trace_every\":1}");
    char *s100 = spec_of(SYNTH(1), "5", "{\"max_iter\":100}",
                         "{\"trace_every\":1,\"snapshot_every\":100}");
    char *a = submit_wait(&d, s200, "succeeded");
    char *b = submit_wait(&d, s100, "succeeded");
    snprintf(alg, sizeof alg, "{\"max_iter\":100,\"start\":{\"job\":\"%s\"}}", b);
    char *s_c = spec_of(SYNTH(1), "5", alg, "{\"trace_every\":1}");
    char *c = submit_wait(&d, s_c, "succeeded");

    /* as served: every member of every row the same (numbers as doubles,
     * to the bit; NaN is null on both sides), but the clock's */
    static const char *const clock[] = {"elapsed", "lmo_seconds", NULL};
    char why[600] = "";
    cJSON *ra = trace_rows(&d, a), *rc = trace_rows(&d, c);
    CHECK_INT(cJSON_GetArraySize(ra), 200);
    CHECK_INT(cJSON_GetArraySize(rc), 100);
    CHECK(num(cJSON_GetArrayItem(rc, 0), "t") == 101);
    int served = 0, same = 0;
    while (served < 100 && hc_json_same(cJSON_GetArrayItem(ra, 100 + served),
                                        cJSON_GetArrayItem(rc, served), clock, why, sizeof why))
        served++;
    if (served < 100)
        th_fail(__FILE__, __LINE__, "served row %d differs: %s", 101 + served, why);

    /* the results: every member but the job's own clock and oracle
     * totals ("either way the clock and the oracle totals are this job's
     * own", SPEC.md), the factored and the dense iterates included */
    static const char *const own[] = {"setup_seconds", "solve_seconds", "lmo_seconds",
                                      "lmo_matvecs", "lmo_unconverged", "omega_passes",
                                      "omega_bytes", "certificate/count",
                                      "certificate/seconds", NULL};
    cJSON *xa = hu_result(&d, a), *xc = hu_result(&d, c);
    REQUIRE(xa && xc);
    CHECK(num(xc, "iterations") == 200);
    /* and what the certificates cost, theirs too ("count and seconds say
     * what they cost"): the bounds themselves are compared */
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++)
            cJSON_DeleteItemFromObjectCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(i ? xc : xa, "certificate"),
                k ? "seconds" : "count");
    if (!hc_json_same(xa, xc, own, why, sizeof why))
        th_fail(__FILE__, __LINE__, "the results differ at %s", why);
    cJSON_Delete(ra);
    cJSON_Delete(rc);
    cJSON_Delete(xa);
    cJSON_Delete(xc);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);

    /* as stored: the 64 bits of every double (a NaN's payload, which JSON
     * cannot carry, included) and every integer, but the clock's */
    size_t na = 0, nc = 0;
    snprintf(why, sizeof why, "the rows were not read from the store");
    store_trace_row *sa = hc_stored_trace(d.db, a, &na), *sc = hc_stored_trace(d.db, c, &nc);
    CHECK_INT(na, 200);
    CHECK_INT(nc, 100);
    same = 0;
    while (sa && sc && na == 200 && nc == 100 && same < 100 &&
           hc_same_row_bits(&sa[100 + same], &sc[same], why, sizeof why))
        same++;
    if (same < 100)
        th_fail(__FILE__, __LINE__, "stored row %d differs: %s", 101 + same, why);
    printf("    rows 101..200: %d served and %d stored rows the same, every column but the "
           "clock's; the results the same but for the job's own totals\n", served, same);
    free(sa);
    free(sc);
    free(a);
    free(b);
    free(c);
    free(s200);
    free(s100);
    free(s_c);
}

/* The dense x of a result as the column-major "x0" of a spec. */
static char *x0_of(const cJSON *res)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(res, "x"), "dense");
    int n = cJSON_GetArraySize(rows), p = cJSON_GetArraySize(cJSON_GetArrayItem(rows, 0));
    cJSON *x0 = cJSON_CreateArray();
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            cJSON_AddItemToArray(x0, cJSON_CreateNumber(
                cJSON_GetArrayItem(cJSON_GetArrayItem(rows, i), j)->valuedouble));
    char *t = cJSON_PrintUnformatted(x0);
    cJSON_Delete(x0);
    return t;
}

TEST(http_warm, afresh_starts_a_new_schedule_at_x)
{
    hu_daemon d = {0};
    char alg[256];
    REQUIRE(hu_start(&d, "http_warm_afresh", 1) == 0);
    char *s40 = spec_of(SYNTH(2), "5", "{\"max_iter\":37}", "{\"snapshot_every\":10}");
    char *b = submit_wait(&d, s40, "succeeded");
    /* the last iterate is kept although 37 is no multiple of 10 */
    snprintf(alg, sizeof alg,
             "{\"max_iter\":30,\"start\":{\"job\":\"%s\",\"schedule\":\"afresh\"}}", b);
    char *s_c = spec_of(SYNTH(2), "5", alg, "{\"trace_every\":1}");
    char *c = submit_wait(&d, s_c, "succeeded");
    cJSON *rb = hu_result(&d, b);
    REQUIRE(rb);
    char *x0 = x0_of(rb);
    char *alg_e = malloc(strlen(x0) + 64);
    sprintf(alg_e, "{\"max_iter\":30,\"start\":{\"x0\":%s}}", x0);
    char *s_e = spec_of(SYNTH(2), "5", alg_e, "{\"trace_every\":1}");
    char *e = submit_wait(&d, s_e, "succeeded");
    cJSON *rc = trace_rows(&d, c), *re = trace_rows(&d, e);
    CHECK_INT(cJSON_GetArraySize(rc), 30);
    CHECK(num(cJSON_GetArrayItem(rc, 0), "t") == 1);
    /* the dense x0 is factored by an SVD, the snapshot keeps its factors */
    CHECK(rows_agree(re, 0, rc, 30, 1e-8));
    cJSON_Delete(rb);
    cJSON_Delete(rc);
    cJSON_Delete(re);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    free(b);
    free(c);
    free(e);
    free(x0);
    free(alg_e);
    free(s40);
    free(s_c);
    free(s_e);
}

/* POST the spec; 422 with an error at `pointer` whose reason has `word`. */
static void refused(const hu_daemon *d, const char *query, const char *spec,
                    const char *pointer, const char *word)
{
    hu_resp r;
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs%s", query);
    hu_req(d, "POST", path, "application/json", spec, strlen(spec), NULL, &r);
    CHECK_INT(r.status, 422);
    const char *at = r.body ? strstr(r.body, pointer) : NULL;
    if (!at || !strstr(r.body, word))
        th_fail(__FILE__, __LINE__, "no error at %s mentioning \"%s\" in %s", pointer,
                word, r.body ? r.body : "(none)");
    hu_resp_free(&r);
}

static int write_file(const char *dir, const char *name, const char *text)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

TEST(http_warm, mismatches_name_the_member)
{
    hu_daemon d = {0};
    char alg[256], data[128];
    REQUIRE(hu_start(&d, "http_warm_refused", 1) == 0);
    char *plain = spec_of(SYNTH(3), "5", "{\"max_iter\":5}", "{}");
    char *kept = spec_of(SYNTH(3), "5", "{\"max_iter\":5}", "{\"snapshot_every\":5}");
    char *none = submit_wait(&d, plain, "succeeded");
    char *src = submit_wait(&d, kept, "succeeded");

    char *s = spec_of(SYNTH(3), "5", "{\"start\":{\"job\":\"j_nosuchjob0000000000\"}}", "{}");
    refused(&d, "", s, "/algorithm/start/job", "no job");
    free(s);
    snprintf(alg, sizeof alg, "{\"start\":{\"job\":\"%s\"}}", none);
    s = spec_of(SYNTH(3), "5", alg, "{}");
    refused(&d, "", s, "/algorithm/start/job", "snapshot_every");
    free(s);
    snprintf(alg, sizeof alg, "{\"start\":{\"job\":\"%s\",\"snapshot\":4}}", src);
    s = spec_of(SYNTH(3), "5", alg, "{}");
    refused(&d, "", s, "/algorithm/start/snapshot", "iteration 4");
    free(s);
    snprintf(alg, sizeof alg, "{\"start\":{\"job\":\"%s\"}}", src);
    s = spec_of(SYNTH(3), "4", alg, "{}");
    refused(&d, "", s, "/problem/delta", "differs");
    free(s);
    s = spec_of(SYNTH(4), "5", alg, "{}");
    refused(&d, "", s, "/problem/data/seed", "differs");
    free(s);
    snprintf(alg, sizeof alg, "{\"name\":\"irpg\",\"start\":{\"job\":\"%s\"}}", src);
    s = spec_of(SYNTH(3), "5", alg, "{}");
    refused(&d, "", s, "/algorithm/name", "same algorithm");
    free(s);

    /* files: the same shape, one rating differs -- found by the build */
    REQUIRE(write_file(d.data, "r1.dat", "1::1::5::0\n1::2::3::0\n2::1::4::0\n") == 0);
    REQUIRE(write_file(d.data, "r2.dat", "1::1::5::0\n1::2::3::0\n2::1::2::0\n") == 0);
    char *f1 = spec_of("{\"source\":\"file\",\"path\":\"r1.dat\"}", "5", "{\"max_iter\":5}",
                       "{\"snapshot_every\":5}");
    char *fsrc = submit_wait(&d, f1, "succeeded");
    snprintf(alg, sizeof alg, "{\"start\":{\"job\":\"%s\"}}", fsrc);
    snprintf(data, sizeof data, "{\"source\":\"file\",\"path\":\"r2.dat\"}");
    s = spec_of(data, "5", alg, "{}");
    refused(&d, "?dry_run=full", s, "/problem/data", "data differ");
    char *failed = submit_wait(&d, s, "failed");
    char path[128];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s", failed);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(r.body && strstr(r.body, "/problem/data") && strstr(r.body, "data differ"));
    hu_resp_free(&r);
    free(s);
    /* and the same file is accepted */
    s = spec_of("{\"source\":\"file\",\"path\":\"r1.dat\"}", "5", alg, "{}");
    char *ok = submit_wait(&d, s, "succeeded");
    free(s);

    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    free(ok);
    free(failed);
    free(fsrc);
    free(f1);
    free(none);
    free(src);
    free(plain);
    free(kept);
}
