/*
 * test_spec_direction.c -- the job spec's algorithm.direction (IR-CG's
 * away-step and pairwise directions): the value reaches the settings and
 * the normalized spec (which parses back to itself, the default
 * "frank_wolfe" written out), and every combination the directions do not
 * apply to is refused at /algorithm/direction with its reason: the open
 * loop (the default step rule), the other methods, an unknown value, the
 * l2 ball and the nuclear ball (refused by the trial solver of the build).
 * Specs are written with ' for " to keep them readable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "spec.h"
#include "test_spec_util.h"

#define LS "{'problem':{'type':'least_squares','data':{'source':'inline','A':[[1,0,2],[0,1,1]]," \
           "'b':[1,2]},'domain':"
#define SIMPLEX "{'type':'simplex','radius':1}}"
#define MC "{'problem':{'type':'matrix_completion','data':{'source':'inline','ratings':" \
           "[[1,1,5],[2,2,3],[1,2,4]]}}"

/* The spec has exactly one error, at ptr, whose reason contains why. */
static void expect_error(const char *json, const char *ptr, const char *why)
{
    api_errors e;
    api_spec *s = NULL;
    int n = tspec_parse(json, "tests/data", &e, &s);
    int found = 0;
    for (int i = 0; i < e.count; i++)
        found |= !strcmp(e.items[i].pointer, ptr) && strstr(e.items[i].reason, why) != NULL;
    if (n != 1 || !found) {
        th_fail(__FILE__, __LINE__, "%s: %d errors, expected %s (%s)", json, n, ptr, why);
        for (int i = 0; i < e.count; i++)
            printf("      got %s: %s\n", e.items[i].pointer, e.items[i].reason);
    }
    api_spec_free(s);
    api_errors_clear(&e);
}

/* The direction the spec gives, and its normalized spec's member. */
static void expect_direction(const char *json, ircg_direction want, const char *member)
{
    api_errors e;
    api_spec *s = NULL, *t = NULL;
    REQUIRE(tspec_parse(json, "tests/data", &e, &s) == 0);
    ircg_settings st;
    api_spec_settings(s, &st);
    CHECK_INT(st.direction, want);
    char *norm = api_spec_normalized_json(s, 0), *again = NULL;
    REQUIRE(norm);
    if (!strstr(norm, member))
        th_fail(__FILE__, __LINE__, "normalized spec lacks %s:\n%s", member, norm);
    api_errors_clear(&e);
    if (tspec_parse(norm, "tests/data", &e, &t) == 0)
        again = api_spec_normalized_json(t, 0);
    CHECK(again && !strcmp(again, norm));
    free(again);
    free(norm);
    api_spec_free(t);
    api_spec_free(s);
    api_errors_clear(&e);
}

TEST(spec_direction, reaches_the_settings_and_the_normalized_spec)
{
    expect_direction(LS SIMPLEX ",'algorithm':{'direction':'pairwise','step_rule':'line_search'}}",
                     IRCG_DIR_PAIRWISE, "\"direction\":\t\"pairwise\"");
    expect_direction(LS "{'type':'box','lower':-1,'upper':1}},'algorithm':{'direction':'away',"
                     "'step_rule':'closed_loop'}}", IRCG_DIR_AWAY, "\"direction\":\t\"away\"");
    expect_direction(LS "{'type':'l1_ball','radius':2}},'algorithm':{'direction':'frank_wolfe'}}",
                     IRCG_DIR_FRANK_WOLFE, "\"direction\":\t\"frank_wolfe\"");
    /* the default, on any domain, written out */
    expect_direction(LS "{'type':'l2_ball','radius':2}}}", IRCG_DIR_FRANK_WOLFE,
                     "\"direction\":\t\"frank_wolfe\"");
    expect_direction("{'problem':{'type':'logistic_regression','data':{'source':'inline','A':"
                     "[[1,0],[0,1],[1,1]],'b':[1,-1,1]},'domain':{'type':'l1_ball','radius':1}},"
                     "'algorithm':{'direction':'pairwise','step_rule':'line_search'}}",
                     IRCG_DIR_PAIRWISE, "\"direction\":\t\"pairwise\"");
}

/* The other methods' normalized specs have no direction. */
TEST(spec_direction, only_ircg_lists_it)
{
    static const char *const OTHERS[] = {"cgbio", "irpg", "bisg", "ir-scg", "ir-fscg"};
    for (int a = 0; a < 5; a++) {
        char json[300];
        api_errors e;
        api_spec *s = NULL;
        snprintf(json, sizeof json, LS SIMPLEX ",'algorithm':{'name':'%s'}}", OTHERS[a]);
        REQUIRE(tspec_parse(json, "tests/data", &e, &s) == 0);
        char *norm = api_spec_normalized_json(s, 0);
        REQUIRE(norm);
        if (strstr(norm, "\"direction\""))
            th_fail(__FILE__, __LINE__, "%s's normalized spec lists a direction", OTHERS[a]);
        free(norm);
        api_spec_free(s);
        api_errors_clear(&e);
    }
}

TEST(spec_direction, refused_at_its_pointer)
{
    expect_error(LS SIMPLEX ",'algorithm':{'direction':'pairwise'}}", "/algorithm/direction",
                 "not the open loop");
    expect_error(LS SIMPLEX ",'algorithm':{'direction':'away','step_rule':'open_loop'}}",
                 "/algorithm/direction", "closed_loop or the line_search");
    expect_error(LS SIMPLEX ",'algorithm':{'direction':'sideways','step_rule':'line_search'}}",
                 "/algorithm/direction", "unknown value \"sideways\"");
    expect_error(LS SIMPLEX ",'algorithm':{'direction':3}}", "/algorithm/direction",
                 "expected a string");
    expect_error(LS SIMPLEX ",'algorithm':{'name':'cgbio','direction':'pairwise'}}",
                 "/algorithm/direction", "applies to ircg only");
    expect_error(LS SIMPLEX ",'algorithm':{'name':'irpg','direction':'frank_wolfe'}}",
                 "/algorithm/direction", "applies to ircg only");
    expect_error(LS SIMPLEX ",'algorithm':{'name':'ir-scg','direction':'away'}}",
                 "/algorithm/direction", "applies to ircg only");
    expect_error(LS "{'type':'l2_ball','radius':2}},'algorithm':{'direction':'away','step_rule':"
                 "'line_search'}}", "/algorithm/direction", "over a polytope");
    expect_error(MC ",'algorithm':{'direction':'pairwise','step_rule':'line_search'}}",
                 "/algorithm/direction", "over a polytope");
    expect_error("{'problem':{'type':'logistic_regression','data':{'source':'inline','A':"
                 "[[1,0],[0,1],[1,1]],'b':[1,-1,1]}},'algorithm':{'direction':'pairwise',"
                 "'step_rule':'line_search'}}", "/algorithm/direction", "over a polytope");
}
