/*
 * test_spec_stages.c -- validation reports every error at once: the build
 * checks of a section (data files, dimensions, PSD, x0 length and domain,
 * dense-iterate cap) run whenever that section is clean, whatever errors
 * other sections have; file errors read well; the dense iterate is
 * resolved from the problem's size.
 * Specs are written with ' for " to keep them readable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "spec.h"
#include "test_spec_util.h"

#define LSD "{'source':'inline','A':[[1,0,2],[0,1,1]],'b':[1,2]}"


static int parse(const char *json, api_errors *e, api_spec **out)
{
    return tspec_parse(json, "tests/data", e, out);
}

/* Exactly one error at ptr, and its reason contains reason. */
static int once(const api_errors *e, const char *ptr, const char *reason)
{
    int k = 0;
    for (int i = 0; i < e->count; i++)
        k += !strcmp(e->items[i].pointer, ptr) && strstr(e->items[i].reason, reason);
    return k == 1;
}

static void dump(const api_errors *e)
{
    for (int i = 0; i < e->count; i++)
        printf("      got %s: %s\n", e->items[i].pointer, e->items[i].reason);
}

/* Every (pointer, reason) of want[] is reported, and nothing else. */
static void expect_all(const char *json, const char *const want[][2], int n)
{
    api_errors e;
    api_spec *s = NULL;
    int got = parse(json, &e, &s);
    CHECK(s == NULL);
    CHECK_INT(got, n);
    for (int i = 0; i < n; i++)
        if (!once(&e, want[i][0], want[i][1]))
            th_fail(__FILE__, __LINE__, "missing %s: ...%s...", want[i][0], want[i][1]);
    if (th_failed())
        dump(&e);
    api_errors_clear(&e);
    api_spec_free(s);
}

/* The audit's case: a bad ratings file no longer hides behind "p": 3. */
TEST(spec_stages, file_error_and_algorithm_error)
{
    static const char *const want[][2] = {{"/problem/data/path", "line 3"},
                                          {"/algorithm/p", "out of range"}};
    expect_all("{'problem':{'type':'matrix_completion','data':{'source':'file',"
               "'path':'ratings_bad.dat'}},'algorithm':{'p':3}}", want, 2);
}

/* ids beyond the given dimensions (a reader check) next to a bad member
 * of another section. */
TEST(spec_stages, ids_beyond_dims_and_output_error)
{
    static const char *const want[][2] = {{"/problem/data/path", "line 3"},
                                          {"/output/trace_every", "out of range"}};
    expect_all("{'problem':{'type':'matrix_completion','data':{'source':'file',"
               "'path':'ratings_small.dat','n_rows':1}},'output':{'trace_every':0}}", want, 2);
}

/* outer c length (problem build), x0 length (algorithm build) and an
 * output error together. */
TEST(spec_stages, outer_length_x0_length_and_output)
{
    static const char *const want[][2] = {
        {"/problem/outer/c", "does not match n = 3"},
        {"/algorithm/start/x0", "length 2 does not match n = 3"},
        {"/output/snapshot_every", "out of range"}};
    expect_all("{'problem':{'type':'least_squares','data':" LSD ",'outer':{'type':'dist_sq',"
               "'c':[1,2]}},'algorithm':{'start':{'x0':[0,0]}},'output':{'snapshot_every':-1}}",
               want, 3);
}

/* A non-PSD Q (the library's constructor) beside a reference error; x0
 * outside X (the trial solver) beside an output error. */
TEST(spec_stages, psd_and_x0_in_domain_with_other_errors)
{
    static const char *const want1[][2] = {{"/problem/outer/Q", "semidefinite"},
                                           {"/reference/tol", "out of range"}};
    expect_all("{'problem':{'type':'least_squares','data':" LSD ",'outer':{'type':'quadratic',"
               "'Q':[[1,2,0],[2,1,0],[0,0,1]]}},'reference':{'tol':0}}", want1, 2);
    static const char *const want2[][2] = {{"/algorithm/start/x0", "domain"},
                                           {"/output/trace_every", "out of range"}};
    expect_all("{'problem':{'type':'least_squares','data':" LSD "},'algorithm':{'start':"
               "{'x0':[5,0,0]}},'output':{'trace_every':0}}", want2, 2);
}

/* A bad b file with an unknown member elsewhere in the data section: the
 * data section is not clean, so its files are not read (one error); a bad
 * b file with an error in the domain: both. */
TEST(spec_stages, sections_gate_their_own_build_only)
{
    static const char *const want1[][2] = {{"/problem/data/bogus", "unknown member"}};
    expect_all("{'problem':{'type':'least_squares','data':{'source':'file','A_path':"
               "'A_small.mtx','b_path':'b_bad.mtx','bogus':1}}}", want1, 1);
    static const char *const want2[][2] = {{"/problem/data/b_path", "line 4"},
                                           {"/problem/domain/radius", "out of range"}};
    expect_all("{'problem':{'type':'least_squares','data':{'source':'file','A_path':"
               "'A_small.mtx','b_path':'b_bad.mtx'},'domain':{'type':'l1_ball','radius':-1}}}",
               want2, 2);
}

/* "line N" once, the path as the spec gives it, no raw newline. */
TEST(spec_stages, file_messages_read_well)
{
    const char *specs[] = {
        "{'problem':{'type':'matrix_completion','data':{'source':'file','path':'ratings_bad.dat'}}}",
        "{'problem':{'type':'least_squares','data':{'source':'file','A_path':'A_small.mtx',"
        "'b_path':'b_bad.mtx'}}}"};
    const char *starts[] = {"ratings_bad.dat: line 3: ",
                            "b_bad.mtx: line 4: 'abc' is not a decimal number"};
    for (int i = 0; i < 2; i++) {
        api_errors e;
        api_spec *s = NULL;
        REQUIRE(parse(specs[i], &e, &s) == 1);
        const char *r = e.items[0].reason;
        CHECK(strncmp(r, starts[i], strlen(starts[i])) == 0);
        const char *first = strstr(r, "line ");
        CHECK(first && !strstr(first + 1, "line "));
        CHECK(strchr(r, '\n') == NULL);
        if (th_failed())
            dump(&e);
        api_errors_clear(&e);
    }
}

static api_spec *parse_ok(const char *json)
{
    api_errors e;
    api_spec *s = NULL;
    if (parse(json, &e, &s) != 0)
        dump(&e);
    api_errors_clear(&e);
    return s;
}

static int dense_of(const char *json)
{
    api_spec *s = parse_ok(json);
    api_output_spec o = {0, 0, -1};
    if (s)
        api_spec_output(s, &o);
    api_spec_free(s);
    return o.dense_iterate;
}

#define MC_SYN(r, c) "{'problem':{'type':'matrix_completion','data':{'source':'synthetic'," \
                     "'n_rows':" #r ",'n_cols':" #c ",'rank':2,'n_ratings':200}}"

/* "auto" (the default): dense up to 10^4 entries; true / false as asked. */
TEST(spec_stages, dense_iterate_resolution)
{
    CHECK_INT(dense_of(MC_SYN(100, 100) "}"), 1);    /* 10^4: included     */
    CHECK_INT(dense_of(MC_SYN(101, 100) "}"), 0);    /* 10100: left out    */
    CHECK_INT(dense_of(MC_SYN(200, 100) ",'output':{'dense_iterate':true}}"), 1);
    CHECK_INT(dense_of(MC_SYN(20, 10) ",'output':{'dense_iterate':false}}"), 0);
    CHECK_INT(dense_of(MC_SYN(1000, 1000) ",'output':{'dense_iterate':true}}"), 1); /* the cap */
    CHECK_INT(dense_of("{'problem':{'type':'least_squares','data':" LSD "}}"), 0);
    api_spec *s = parse_ok(MC_SYN(20, 10) ",'output':{'dense_iterate':'auto'}}");
    char *n = s ? api_spec_normalized_json(s, 0) : NULL;
    CHECK(n && strstr(n, "\"dense_iterate\":\t\"auto\""));
    free(n);
    api_spec_free(s);
}
