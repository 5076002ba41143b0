/*
 * test_spec_execution.c -- "execution": {"ranks": N}: refused by a
 * one-process caller naming the member and saying why, accepted by the
 * service with a launcher (normalized, round trip) and by ircg-mpi; the
 * checks of a distributed solve each name the member that asks for what
 * it does not do.  And the JSON trace rows ircgd reads back from rank 0:
 * every double bit for bit, malformed lines refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "result.h"
#include "spec.h"

#define SYNTH "{'type': 'matrix_completion', 'data': {'source': 'synthetic', " \
              "'n_rows': 40, 'n_cols': 30, 'n_ratings': 300}}"

static char *dq(const char *s)
{
    char *t = strdup(s);
    for (char *p = t; p && *p; p++)
        if (*p == '\'')
            *p = '"';
    return t;
}

/* Parses (cheap checks) with the given execution options; the errors. */
static int parse(const char *spec, int allowed, int distributed, const char *refusal,
                 api_errors *e, api_spec **out)
{
    api_parse_options opt;
    char *json = dq(spec);
    api_parse_options_default(&opt);
    opt.build = 0;
    opt.ranks_allowed = allowed;
    opt.distributed = distributed;
    opt.ranks_refusal = refusal;
    api_errors_init(e);
    int n = api_spec_parse(json, strlen(json), &opt, out, e);
    free(json);
    return n;
}

/* Exactly one error, at ptr, whose reason contains `says`. */
static void one_error(const char *spec, int allowed, int distributed, const char *ptr,
                      const char *says)
{
    api_errors e;
    int n = parse(spec, allowed, distributed, NULL, &e, NULL);
    if (!(n == 1 && !strcmp(e.items[0].pointer, ptr) && strstr(e.items[0].reason, says)))
        th_fail(__FILE__, __LINE__, "%s: %d errors, first %s: %s (wanted %s: %s)", spec, n,
                n ? e.items[0].pointer : "-", n ? e.items[0].reason : "-", ptr, says);
    api_errors_clear(&e);
}

TEST(spec_execution, refused_where_no_launcher_runs_it)
{
    api_errors e;
    const char *spec = "{'problem': " SYNTH ", 'execution': {'ranks': 4}}";
    one_error(spec, 0, 0, "/execution/ranks", "mpirun -np N ircg-mpi");
    CHECK_INT(parse(spec, 0, 0, "no --mpi-launch here", &e, NULL), 1);
    CHECK(e.count == 1 && !strcmp(e.items[0].reason, "no --mpi-launch here"));
    api_errors_clear(&e);
}

TEST(spec_execution, member_shape_and_range)
{
    one_error("{'problem': " SYNTH ", 'execution': {'ranks': 0}}", 1, 0, "/execution/ranks",
              "");
    one_error("{'problem': " SYNTH ", 'execution': {'ranks': 70000}}", 1, 0,
              "/execution/ranks", "");
    one_error("{'problem': " SYNTH ", 'execution': {'ranks': 2.5}}", 1, 0, "/execution/ranks",
              "");
    one_error("{'problem': " SYNTH ", 'execution': {}}", 1, 0, "/execution/ranks", "missing");
    one_error("{'problem': " SYNTH ", 'execution': {'ranks': 2, 'hosts': 3}}", 1, 0,
              "/execution/hosts", "");
}

TEST(spec_execution, accepted_normalized_round_trip)
{
    api_errors e;
    api_spec *s = NULL, *t = NULL;
    REQUIRE(parse("{'problem': " SYNTH ", 'execution': {'ranks': 3}}", 1, 0, NULL, &e, &s) == 0);
    CHECK_INT(api_spec_ranks(s), 3);
    char *norm = api_spec_normalized_json(s, 0);
    REQUIRE(norm != NULL);
    CHECK(strstr(norm, "\"execution\"") != NULL);
    api_errors_clear(&e);
    REQUIRE(parse(norm, 1, 0, NULL, &e, &t) == 0);
    char *again = api_spec_normalized_json(t, 0);
    CHECK(again && !strcmp(norm, again));
    CHECK_INT(api_spec_ranks(t), 3);
    free(norm);
    free(again);
    api_spec_free(s);
    api_spec_free(t);
    api_errors_clear(&e);
    /* without the member: one process, and nothing in the normalized spec */
    REQUIRE(parse("{'problem': " SYNTH "}", 1, 0, NULL, &e, &s) == 0);
    CHECK_INT(api_spec_ranks(s), 0);
    norm = api_spec_normalized_json(s, 0);
    CHECK(norm && !strstr(norm, "execution"));
    free(norm);
    api_spec_free(s);
    api_errors_clear(&e);
}

/* What a distributed solve does: "zero", an x0 (whose length the ranks
 * check against the data they load) and a computed reference. */
TEST(spec_execution, distributed_zero_start_and_computed_reference)
{
    api_errors e;
    CHECK_INT(parse("{'problem': " SYNTH ", 'algorithm': {'start': 'zero'}, 'reference': "
                    "{'compute': true}, 'execution': {'ranks': 2}}", 1, 0, NULL, &e, NULL), 0);
    api_errors_clear(&e);
    CHECK_INT(parse("{'problem': " SYNTH ", 'algorithm': {'start': {'x0': [0, 0]}}, "
                    "'execution': {'ranks': 2}}", 1, 0, NULL, &e, NULL), 0);
    api_errors_clear(&e);
}

/* What a distributed solve does not do, each by its member; the same
 * specs pass on one process. */
TEST(spec_execution, distributed_checks_name_the_member)
{
    static const char *const cases[][3] = {
        {"'algorithm': {'name': 'cgbio'}", "/algorithm/name", "ircg only"},
    };
    char spec[512];
    api_errors e;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(spec, sizeof spec, "{'problem': " SYNTH ", %s, 'execution': {'ranks': 2}}",
                 cases[i][0]);
        one_error(spec, 1, 0, cases[i][1], cases[i][2]);
        snprintf(spec, sizeof spec, "{'problem': " SYNTH ", %s}", cases[i][0]);
        CHECK_INT(parse(spec, 1, 0, NULL, &e, NULL), 0);
        api_errors_clear(&e);
    }
    /* inline data: ircg-mpi reads files only; the service writes it to one */
    one_error("{'problem': {'type': 'matrix_completion', 'data': {'source': 'inline', "
              "'ratings': [[1, 1, 1.0]]}}}", 0, 1, "/problem/data/source", "inline");
    CHECK_INT(parse("{'problem': {'type': 'matrix_completion', 'data': {'source': 'inline', "
                    "'ratings': [[1, 1, 1.0]]}}, 'execution': {'ranks': 2}}", 1, 0, NULL, &e,
                    NULL), 0);
    api_errors_clear(&e);
    one_error("{'problem': {'type': 'least_squares', 'data': {'source': 'synthetic', 'm': 5, "
              "'n': 8}}, 'execution': {'ranks': 2}}", 1, 0, "/problem/type",
              "matrix_completion");
    /* the arpack engine runs distributed (PARPACK in ircg-mpi) */
    CHECK_INT(parse("{'problem': " SYNTH ", 'algorithm': {'lmo': {'engine': 'arpack'}}, "
                    "'execution': {'ranks': 2}}", 1, 0, NULL, &e, NULL), 0);
    api_errors_clear(&e);
    CHECK_INT(parse("{'problem': " SYNTH ", 'algorithm': {'lmo': {'engine': 'arpack'}}}", 0, 1,
                    NULL, &e, NULL), 0);
    api_errors_clear(&e);
    /* ircg-mpi makes the checks whatever the spec says (snapshots aside:
     * only a service keeps them) */
    one_error("{'problem': " SYNTH ", 'algorithm': {'name': 'irpg'}}", 0, 1, "/algorithm/name",
              "ircg only");
    CHECK_INT(parse("{'problem': " SYNTH ", 'output': {'snapshot_every': 5}}", 0, 1, NULL, &e,
                    NULL), 0);
    api_errors_clear(&e);
}

TEST(spec_execution, trace_json_rows_read_back_bit_for_bit)
{
    ircg_iter_info it = {
        .t = 123456789012LL, .elapsed = 0.1 + 0.2, .sigma = 1.0 / 3.0, .alpha = 2e-308,
        .g_x = 608969.4561635023, .f_x = -0.0, .g_z = 1e300, .f_z = 4.9e-324, .gap = NAN,
        .g_gap_x = INFINITY, .g_gap_z = NAN, .lmo_seconds = 0.02048994699907,
        .lmo_matvecs = 14, .top_sv = 236.34149202280372, .rank = 7, .lmo_converged = 1,
        .backtracks = 3, .proj_full = 0, .lambda = NAN}, back;
    char row[API_TRACE_ROW_MAX + 1];
    int n = api_trace_json_row(row, sizeof row, &it);
    REQUIRE(n > 0 && api_trace_json_parse(row, (size_t)n, &back) == 0);
    const double a[] = {it.elapsed, it.sigma, it.alpha, it.g_x, it.f_x, it.g_z, it.f_z,
                        it.lmo_seconds, it.top_sv};
    const double b[] = {back.elapsed, back.sigma, back.alpha, back.g_x, back.f_x, back.g_z,
                        back.f_z, back.lmo_seconds, back.top_sv};
    for (size_t k = 0; k < sizeof a / sizeof a[0]; k++)
        CHECK(memcmp(&a[k], &b[k], sizeof a[k]) == 0);
    /* not finite: written null, read NaN */
    CHECK(isnan(back.gap) && isnan(back.g_gap_x) && isnan(back.g_gap_z) && isnan(back.lambda));
    CHECK(back.t == it.t && back.lmo_matvecs == 14 && back.rank == 7 &&
          back.lmo_converged == 1 && back.backtracks == 3 && back.proj_full == 0);
    static const char *const bad[] = {
        "", "[]", "{\"checkpoint\": 5}", "{\"execution\": {\"ranks\": 2}}",
        "{\"t\":\"1\"}", "not json",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        CHECK(api_trace_json_parse(bad[k], strlen(bad[k]), &back) != 0);
    /* a row without one column, or with t out of range */
    char *cut = strstr(row, "\"rank\"");
    REQUIRE(cut);
    memcpy(cut, "\"rnak\"", 6);
    CHECK(api_trace_json_parse(row, strlen(row), &back) != 0);
    api_trace_json_row(row, sizeof row, &it);
    char *t = strstr(row, "123456789012");
    REQUIRE(t);
    t[0] = '-';
    CHECK(api_trace_json_parse(row, strlen(row), &back) != 0);
}
