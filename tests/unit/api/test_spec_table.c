/*
 * test_spec_table.c -- a table of invalid job specs, each with the JSON
 * pointer and a reason substring its validation must produce; and specs
 * with several errors that must all be reported together; the stop's
 * members, each refused by its own name.
 * Specs are written with ' for " to keep the table readable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "spec.h"
#include "test_spec_util.h"

#define LS_OK "'problem':{'type':'least_squares','data':{'source':'inline','A':[[1,0,2],[0,1,1]],'b':[1,2]}}"
#define MC_OK "'problem':{'type':'matrix_completion','data':{'source':'inline','ratings':[[1,1,5],[2,2,3],[1,2,4]]}}"
#define LS_PB(data) "'problem':{'type':'least_squares','data':" data "}"
#define LS_PBX(data, extra) "'problem':{'type':'least_squares','data':" data extra "}"
#define MC_PB(data) "'problem':{'type':'matrix_completion','data':" data "}"
#define LSD "{'source':'inline','A':[[1,0,2],[0,1,1]],'b':[1,2]}"

typedef struct bad_spec {
    const char *json, *pointer, *reason;
} bad_spec;

static const bad_spec BAD[] = {
    /* algorithm ranges and types */
    {"{" LS_OK ",'algorithm':{'p':1}}", "/algorithm/p", "out of range: must be in (0, 1)"},
    {"{" LS_OK ",'algorithm':{'p':0}}", "/algorithm/p", "out of range"},
    {"{" LS_OK ",'algorithm':{'p':'half'}}", "/algorithm/p", "wrong type: expected a number"},
    {"{" LS_OK ",'algorithm':{'varsigma':-1e-300}}", "/algorithm/varsigma", "must be in [0, 1e+12]"},
    {"{" LS_OK ",'algorithm':{'varsigma':-1}}", "/algorithm/varsigma", "out of range"},
    {"{" LS_OK ",'algorithm':{'varsigma':1e999}}", "/algorithm/varsigma", "not a finite number"},
    {"{" LS_OK ",'algorithm':{'max_iter':0}}", "/algorithm/max_iter", "out of range"},
    {"{" LS_OK ",'algorithm':{'max_iter':1.5}}", "/algorithm/max_iter", "expected an integer"},
    {"{" LS_OK ",'algorithm':{'time_limit':-1}}", "/algorithm/time_limit", "must be >= 0"},
    {"{" LS_OK ",'algorithm':{'gap_tol':-1e-3}}", "/algorithm/gap_tol", "out of range"},
    {"{" LS_OK ",'algorithm':{'lmo_tol':0}}", "/algorithm/lmo_tol", "in (0, 1)"},
    {"{" LS_OK ",'algorithm':{'lmo_tol':1}}", "/algorithm/lmo_tol", "in (0, 1)"},
    {"{" LS_OK ",'algorithm':{'threads':0}}", "/algorithm/threads", "[1, 64]"},
    {"{" LS_OK ",'algorithm':{'threads':65}}", "/algorithm/threads", "[1, 64]"},
    /* the LMO engine */
    {"{" MC_OK ",'algorithm':{'lmo':{'engine':'svds'}}}", "/algorithm/lmo/engine", "unknown value \"svds\""},
    {"{" MC_OK ",'algorithm':{'lmo':{'engine':'arpack','ncv':4}}}", "/algorithm/lmo/ncv", "unknown member"},
    {"{" MC_OK ",'algorithm':{'lmo':'arpack'}}", "/algorithm/lmo", "expected an object"},
    {"{" MC_OK ",'algorithm':{'name':'irpg','lmo':{'engine':'arpack'}}}", "/algorithm/lmo", "applies to ircg, cgbio and fcbio-cg only"},
    /* the bisection methods and auto */
    {"{" LS_OK ",'algorithm':{'name':'fcbio','varsigma':1}}", "/algorithm/varsigma", "applies to ircg, irpg, ir-scg and ir-fscg only, not to \"fcbio\""},
    {"{" LS_OK ",'algorithm':{'name':'fcbio','step_rule':'line_search'}}", "/algorithm/step_rule", "applies to ircg only, not to \"fcbio\""},
    {"{" LS_OK ",'algorithm':{'name':'fcbio-cg','gap_tol':1e-3}}", "/algorithm/gap_tol", "not to \"fcbio-cg\""},
    {"{" LS_OK ",'algorithm':{'name':'fcbio','certify':false}}", "/algorithm/certify", "certify must be 1"},
    {"{" LS_OK ",'algorithm':{'name':'fcbio','stop':{'outer_gap_rel':2}}}", "/algorithm/stop/outer_gap_rel", "out of range"},
    {"{" LS_OK ",'algorithm':{'name':'fcbio','lmo':{'engine':'lanczos'}}}", "/algorithm/lmo", "not to \"fcbio\""},
    {"{'problem':{'type':'logistic_regression','data':{'source':'inline','A':[[1,0],[0,1]],'b':[1,-1]}},'algorithm':{'name':'fcbio-cg'}}", "/algorithm/name", "FC-BiO-CG needs f and g quadratic"},
    {"{" LS_OK ",'algorithm':{'name':'autox'}}", "/algorithm/name", "\"fcbio-cg\", \"two-stage\", \"auto\""},
    /* the two-stage method: least squares of n <= IRCG_TWOSTAGE_MAX_DIM only, by certificates */
    {"{" LS_OK ",'algorithm':{'name':'two-stage','gap_tol':1e-3}}", "/algorithm/gap_tol", "applies to ircg, cgbio, irpg, bisg, ir-scg and ir-fscg only, not to \"two-stage\""},
    {"{" LS_OK ",'algorithm':{'name':'two-stage','certify':false}}", "/algorithm/certify", "certify must be 1"},
    {"{" LS_OK ",'algorithm':{'name':'two-stage','lmo':{'engine':'lanczos'}}}", "/algorithm/lmo", "not to \"two-stage\""},
    /* auto: two-stage for logistic regression with m >= n (from the spec) */
    {"{'problem':{'type':'logistic_regression','data':{'source':'inline','A':[[1,0],[0,1]],'b':[1,-1]}},'algorithm':{'name':'auto','choice':{'name':'fcbio'}}}", "/algorithm/choice/name", "auto chooses \"two-stage\" for this problem, not \"fcbio\""},
    {"{" MC_OK ",'algorithm':{'name':'two-stage'}}", "/algorithm/name", "the two-stage method needs the inner solution set as an affine section of X"},
    {"{" LS_PB("{'source':'synthetic','m':2,'n':2001}") ",'algorithm':{'name':'two-stage'}}", "/algorithm/name", "n = 2001 must be at most 2000"},
    /* auto: two-stage for this least squares (n = 3 <= 2000, from the spec) */
    {"{" LS_OK ",'algorithm':{'name':'auto','choice':{'name':'ircg'}}}", "/algorithm/choice/name", "auto chooses \"two-stage\" for this problem, not \"ircg\""},
    {"{" LS_OK ",'algorithm':{'stop':{'inner_gap_rel':1e-6},'varsigma':1}}", "/algorithm/varsigma", "not to \"two-stage\""},
    {"{" LS_OK ",'algorithm':{'name':'ircg','choice':{'name':'ircg'}}}", "/algorithm/choice", "applies to \"auto\" only"},
    {"{" LS_OK ",'algorithm':{'name':'auto','choice':{'name':'fcbio','why':'x','extra':1}}}", "/algorithm/choice/extra", "unknown member"},
    {"{" LS_OK ",'algorithm':{'lmo':{'engine':'arpack'}}}", "/algorithm/lmo/engine", "nuclear ball (matrix completion) only"},
    {"{" LS_OK ",'algorithm':{'lmo_max_matvecs':1}}", "/algorithm/lmo_max_matvecs", "out of range"},
    {"{" LS_OK ",'algorithm':{'step_rule':'fast'}}", "/algorithm/step_rule", "unknown value \"fast\""},
    {"{" LS_OK ",'algorithm':{'name':'newton'}}", "/algorithm/name", "expected one of"},
    {"{" LS_OK ",'algorithm':{'tol':1e-6}}", "/algorithm/tol", "unknown member"},
    {"{" LS_OK ",'algorithm':{'start':'random'}}", "/algorithm/start", "unknown value"},
    {"{" LS_OK ",'algorithm':{'start':{'x0':[0,0]}}}", "/algorithm/start/x0", "does not match n = 3"},
    {"{" LS_OK ",'algorithm':{'start':{'y0':[0]}}}", "/algorithm/start/y0", "unknown member"},
    {"{" LS_OK ",'algorithm':{'p':0.5,'p':0.6}}", "/algorithm/p", "duplicate member"},
    {"{" LS_OK ",'algorithm':[]}", "/algorithm", "expected an object"},
    /* top level */
    {"{" LS_OK ",'solver':{}}", "/solver", "unknown member \"solver\""},
    {"{" LS_OK ",'a/b~c':1}", "/a~1b~0c", "unknown member"},
    {"{'algorithm':{}}", "/problem", "missing required member"},
    {"[1,2]", "", "expected an object"},
    {"{" LS_OK ",'output':{'trace_every':0}}", "/output/trace_every", "out of range"},
    {"{" LS_OK ",'output':{'dense_iterate':'yes'}}", "/output/dense_iterate", "expected \"auto\", true or false"},
    {"{" LS_OK ",'reference':{'g_opt':1,'compute':true}}", "/reference/compute", "not allowed together"},
    {"{" LS_OK ",'reference':{'tol':0}}", "/reference/tol", "must be > 0"},
    {"{" LS_OK ",'reference':{'g_opt':null}}", "/reference/g_opt", "wrong type"},
    /* problem section */
    {"{'problem':{'data':{}}}", "/problem/type", "missing required member"},
    {"{'problem':{'type':'lp'}}", "/problem/type", "unknown value \"lp\""},
    {"{'problem':{'type':'least_squares'}}", "/problem/data", "missing required"},
    {"{" LS_PB("{'A':[[1]],'b':[1]}") "}", "/problem/data/source", "missing required"},
    {"{" LS_PB("{'source':'ftp'}") "}", "/problem/data/source", "unknown value"},
    {"{" LS_PB("{'source':'inline','A':[[1,2],[3]],'b':[1,2]}") "}", "/problem/data/A/1", "ragged rows"},
    {"{" LS_PB("{'source':'inline','A':[[1,2],[3,4]],'b':[1,2,3]}") "}", "/problem/data/b", "does not match the 2 rows"},
    {"{" LS_PB("{'source':'inline','A':[[1,'x']],'b':[1]}") "}", "/problem/data/A/0/1", "wrong type"},
    {"{" LS_PB("{'source':'inline','A':[[1,2]],'b':[1e999]}") "}", "/problem/data/b/0", "not a finite number"},
    {"{" LS_PB("{'source':'inline','A':[[1,2]],'b':[1],'m':2}") "}", "/problem/data/m", "A has 1 rows"},
    {"{" LS_PB("{'source':'inline','A':[[1,2]],'b':[1],'n':3}") "}", "/problem/data/n", "have 2 entries"},
    {"{" LS_PB("{'source':'inline','A':{'format':'csr','rowptr':[0,1,3],'colind':[0,1],'values':[1,2]},'b':[1,2]}") "}",
     "/problem/data/A/rowptr/2", "does not match the 2 values"},
    {"{" LS_PB("{'source':'inline','A':{'format':'csr','rowptr':[0,1],'colind':[5],'values':[1]},'b':[1],'n':3}") "}",
     "/problem/data/A/colind/0", "out of range"},
    {"{" LS_PB("{'source':'inline','A':{'format':'coo','rowptr':[0,1],'colind':[0],'values':[1]},'b':[1]}") "}",
     "/problem/data/A/format", "unknown value"},
    {"{" LS_PBX(LSD, ",'domain':{'type':'l2_ball','radius':0}") "}", "/problem/domain/radius", "in (0, 1e+12]"},
    {"{" LS_PBX(LSD, ",'domain':{'type':'box','lower':1,'upper':0}") "}", "/problem/domain/upper", "must be > lower"},
    {"{" LS_PBX(LSD, ",'domain':{'type':'ball'}") "}", "/problem/domain/type", "unknown value"},
    {"{" LS_PBX(LSD, ",'domain':{'type':'box','radius':2}") "}", "/problem/domain/radius", "unknown member"},
    {"{" LS_PBX(LSD, ",'outer':{'type':'dist_sq'}") "}", "/problem/outer/c", "missing required"},
    {"{" LS_PBX(LSD, ",'outer':{'type':'dist_sq','c':[1,2]}") "}", "/problem/outer/c", "does not match n = 3"},
    {"{" LS_PBX(LSD, ",'outer':{'type':'quadratic','Q':[[1,0]]}") "}", "/problem/outer/Q", "must be square"},
    {"{" LS_PBX(LSD, ",'outer':{'type':'half_norm_sq','c':[1,2,3]}") "}", "/problem/outer/c", "not a member of outer type"},
    {"{" LS_PBX(LSD, ",'outer':'dist_sq'") "}", "/problem/outer", "needs data"},
    {"{" LS_PB("{'source':'synthetic','m':0}") "}", "/problem/data/m", "out of range"},
    {"{" LS_PB("{'source':'file','A_path':'nope.mtx','b':[1]}") "}", "/problem/data/A_path", "file not found"},
    {"{" LS_PB("{'source':'file','A_path':'A_small.mtx','b_path':'nope.mtx'}") "}", "/problem/data/b_path", "file not found"},
    {"{" LS_PB("{'source':'file','A_path':'A_small.mtx','b':[1,2]}") "}", "/problem/data/b", "does not match the 3 rows"},
    {"{" LS_PB("{'source':'file','A_path':'A_small.mtx','b_path':'b_bad.mtx'}") "}", "/problem/data/b_path", "line 4"},
    {"{" LS_PB("{'source':'file','A_path':'A_small.mtx','b':[1,2,3],'b_path':'b_small.mtx'}") "}", "/problem/data/b_path", "not both"},
    /* checks done by the library's constructors and the trial solver */
    {"{" LS_PBX(LSD, ",'outer':{'type':'quadratic','Q':[[1,2,0],[2,1,0],[0,0,1]]}") "}", "/problem/outer/Q", "semidefinite"},
    {"{" LS_PBX(LSD, ",'outer':{'type':'quadratic','Q':[[1,2,0],[0,1,0],[0,0,1]]}") "}", "/problem/outer/Q", "symmetric"},
    {"{" LS_OK ",'algorithm':{'start':{'x0':[5,0,0]}}}", "/algorithm/start/x0", "domain"},
    {"{" MC_OK ",'algorithm':{'start':{'x0':[1,2,3]}}}", "/algorithm/start/x0", "does not match the number of variables = 4"},
    /* matrix completion */
    {"{'problem':{'type':'matrix_completion','delta':0,'data':{'source':'inline','ratings':[[1,1,5]]}}}", "/problem/delta", "in (0, 1e+12]"},
    {"{'problem':{'type':'matrix_completion','outer':'variance','data':{'source':'inline','ratings':[[1,1,5]]}}}", "/problem/outer", "unknown value"},
    {"{" MC_PB("{'source':'inline','ratings':[[3,1,5]],'n_rows':2}") "}", "/problem/data/ratings/0/0", "exceeds n_rows 2"},
    {"{" MC_PB("{'source':'inline','ratings':[[1,0,5]]}") "}", "/problem/data/ratings/0/1", "integer >= 1"},
    {"{" MC_PB("{'source':'inline','ratings':[[1,1,5],[2,1,3],[1,1,4]]}") "}", "/problem/data/ratings/2", "duplicate rating"},
    {"{" MC_PB("{'source':'inline','ratings':[[1,1]]}") "}", "/problem/data/ratings/0", "expected [user, item, rating]"},
    {"{" MC_PB("{'source':'inline','ratings':[]}") "}", "/problem/data/ratings", "at least one"},
    {"{" MC_PB("{'source':'file','path':'missing.dat'}") "}", "/problem/data/path", "file not found"},
    {"{" MC_PB("{'source':'file','path':'ratings_bad.dat'}") "}", "/problem/data/path", "line 3"},
    {"{" MC_PB("{'source':'file','path':'ratings_small.dat','format':'excel'}") "}", "/problem/data/format", "unknown value"},
    {"{" MC_PB("{'source':'file'}") "}", "/problem/data/path", "missing required"},
    {"{" MC_PB("{'source':'synthetic','n_rows':10,'n_cols':5,'rank':6}") "}", "/problem/data/rank", "[1, 5]"},
    {"{" MC_PB("{'source':'synthetic','n_rows':10,'n_cols':5,'n_ratings':51}") "}", "/problem/data/n_ratings", "[1, 50]"},
    {"{" MC_PB("{'source':'synthetic','min_rating':5,'max_rating':1}") "}", "/problem/data/max_rating", "out of range"},
    {"{" MC_PB("{'source':'synthetic','noise':-1}") "}", "/problem/data/noise", "in [0, 1e+30]"},
    {"{" MC_PB("{'source':'synthetic','seed':-1}") "}", "/problem/data/seed", "out of range"},
    {"{" MC_PB("{'source':'dataset','id':'abc'}") "}", "/problem/data/source", "only available through the service"},
    {"{" MC_PB("{'source':'inline','ratings':[[1,1,5]],'path':'x'}") "}", "/problem/data/path", "unknown member"},
    /* the baselines: members that apply to another algorithm, and ranges */
    {"{" LS_OK ",'algorithm':{'name':'irpg','step_rule':'line_search'}}", "/algorithm/step_rule", "applies to ircg only, not to \"irpg\""},
    {"{" LS_OK ",'algorithm':{'name':'bisg','varsigma':0.1}}", "/algorithm/varsigma", "applies to ircg, irpg, ir-scg and ir-fscg only"},
    {"{" LS_OK ",'algorithm':{'name':'cgbio','p':0.3}}", "/algorithm/p", "applies to ircg, irpg, ir-scg and ir-fscg only, not to \"cgbio\""},
    {"{" LS_OK ",'algorithm':{'projection':'full'}}", "/algorithm/projection", "applies to irpg and bisg only, not to \"ircg\""},
    {"{" LS_OK ",'algorithm':{'name':'irpg','bisg_c':2}}", "/algorithm/bisg_c", "applies to bisg only"},
    {"{" LS_OK ",'algorithm':{'name':'bisg','irpg_theta':0.3}}", "/algorithm/irpg_theta", "applies to irpg only"},
    {"{" LS_OK ",'algorithm':{'irpg_eta':0.5}}", "/algorithm/irpg_eta", "applies to irpg only, not to \"ircg\""},
    {"{" LS_OK ",'algorithm':{'name':'irpg','cgbio_eps_g':1e-3}}", "/algorithm/cgbio_eps_g", "applies to cgbio only"},
    {"{" LS_OK ",'algorithm':{'name':'bisg','cgbio_warmup_max_iter':5}}", "/algorithm/cgbio_warmup_max_iter", "applies to cgbio only"},
    {"{" LS_OK ",'algorithm':{'name':'cgbio','cgbio_warmup_max_iter':0}}", "/algorithm/cgbio_warmup_max_iter", "out of range"},
    {"{" LS_OK ",'algorithm':{'name':'cgbio','cgbio_eps_g':0}}", "/algorithm/cgbio_eps_g", "in (0, 1e+12]"},
    {"{" LS_OK ",'algorithm':{'name':'irpg','irpg_theta':1}}", "/algorithm/irpg_theta", "in (0, 1)"},
    {"{" LS_OK ",'algorithm':{'name':'irpg','irpg_eta':0}}", "/algorithm/irpg_eta", "in (0, 1)"},
    {"{" LS_OK ",'algorithm':{'name':'irpg','irpg_step':2e6}}", "/algorithm/irpg_step", "in (0, 1e+06]"},
    {"{" LS_OK ",'algorithm':{'name':'bisg','bisg_alpha':1.5}}", "/algorithm/bisg_alpha", "in (0, 1]"},
    {"{" LS_OK ",'algorithm':{'name':'bisg','bisg_c':0}}", "/algorithm/bisg_c", "out of range"},
    {"{" LS_OK ",'algorithm':{'name':'bisg','bisg_step':-1}}", "/algorithm/bisg_step", "in [0, 1e+06]"},
    {"{" LS_OK ",'algorithm':{'name':'bisg','projection':'exact'}}", "/algorithm/projection", "unknown value \"exact\""},
    {"{" LS_OK ",'algorithm':{'name':'irpg','irpg_step':'big'}}", "/algorithm/irpg_step", "wrong type"},
    {"{" LS_PB("{'source':'inline','A':[[0,0],[0,0]],'b':[1,2]}") ",'algorithm':{'name':'bisg'}}", "/algorithm/bisg_step", "1/L_g is undefined"},
    /* magnitudes a solve would overflow on (api/SPEC.md, Limits) */
    {"{" LS_PB("{'source':'inline','A':[[1e308,0],[0,1]],'b':[1,2]}") "}", "/problem/data/A/0/0", "|value| must be <= 1e+30"},
    {"{" LS_PB("{'source':'inline','A':[[1,0],[0,1]],'b':[1,-1e31]}") "}", "/problem/data/b/1", "|value| must be <= 1e+30"},
    {"{" LS_PBX(LSD, ",'domain':{'type':'l2_ball','radius':1e308}") "}", "/problem/domain/radius", "in (0, 1e+12]"},
    {"{" LS_PBX(LSD, ",'domain':{'type':'box','lower':-1e13}") "}", "/problem/domain/lower", "in [-1e+12, 1e+12]"},
    {"{" LS_PBX(LSD, ",'outer':{'type':'dist_sq','c':[1e31,0,0]}") "}", "/problem/outer/c/0", "|value| must be <= 1e+30"},
    {"{" LS_PBX(LSD, ",'outer':{'type':'quadratic','Q':[[1e40,0,0],[0,1,0],[0,0,1]]}") "}", "/problem/outer/Q/0/0", "|value| must be <= 1e+30"},
    {"{" LS_PB("{'source':'synthetic','noise':1e308}") "}", "/problem/data/noise", "in [0, 1e+30]"},
    {"{" LS_PB("{'source':'file','A_path':'A_huge.mtx','b':[1,2]}") "}", "/problem/data/A_path", "entry (2, 2) is -3e+40"},
    {"{" MC_PB("{'source':'inline','ratings':[[1,1,1e300]]}") "}", "/problem/data/ratings/0/2", "|rating| must be <= 1e+30"},
    {"{" MC_PB("{'source':'inline','ratings':[[1,1,-1e300]]}") "}", "/problem/data/ratings/0/2", "|rating| must be <= 1e+30"},
    {"{" MC_PB("{'source':'file','path':'ratings_huge.dat'}") "}", "/problem/data/path", "rating of user 2, item 2 is 1e+300"},
    {"{'problem':{'type':'matrix_completion','delta':1e308,'data':{'source':'inline','ratings':[[1,1,5]]}}}", "/problem/delta", "in (0, 1e+12]"},
    {"{" LS_OK ",'algorithm':{'varsigma':1e308}}", "/algorithm/varsigma", "in [0, 1e+12]"},
    {"{" MC_PB("{'source':'synthetic','max_rating':1e308}") "}", "/problem/data/max_rating", "1e+30"},
    {"{" MC_PB("{'source':'synthetic','noise':1e308}") "}", "/problem/data/noise", "in [0, 1e+30]"},
    {"{" MC_PB("{'source':'synthetic','min_rating':-1e31}") "}", "/problem/data/min_rating", "in [-1e+30, 1e+30]"},
    /* integers, members without a type, dense iterates, file dimensions */
    {"{" LS_OK ",'algorithm':{'max_iter':1e300}}", "/algorithm/max_iter", "out of range"},
    {"{'problem':{'data':{},'foo':1}}", "/problem/foo", "unknown member \"foo\""},
    {"{'problem':{'type':'lp','bar':1}}", "/problem/bar", "unknown member \"bar\""},
    {"{" MC_PB("{'source':'synthetic','n_rows':2000,'n_cols':1000,'n_ratings':3000}") ",'output':{'dense_iterate':true}}",
     "/output/dense_iterate", "2000000 entries is too large (at most 1000000"},
    {"{" LS_PB("{'source':'file','A_path':'A_small.mtx','b_path':'b_small.mtx','m':5}") "}", "/problem/data/m", "m is 5 but A_small.mtx has 3 rows"},
    {"{" LS_PB("{'source':'file','A_path':'A_small.mtx','b_path':'b_small.mtx','n':2}") "}", "/problem/data/n", "n is 2 but A_small.mtx has 4 columns"},
};


static int parse(const char *json, api_errors *e, api_spec **out)
{
    return tspec_parse(json, "tests/data", e, out);
}

static int has_error(const api_errors *e, const char *ptr, const char *reason)
{
    for (int i = 0; i < e->count; i++)
        if (!strcmp(e->items[i].pointer, ptr) && strstr(e->items[i].reason, reason))
            return 1;
    return 0;
}

static void dump(const api_errors *e)
{
    for (int i = 0; i < e->count; i++)
        printf("      got %s: %s\n", e->items[i].pointer, e->items[i].reason);
}

TEST(spec, invalid_table)
{
    int checked = 0;
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        if (!BAD[i].pointer)
            continue;
        api_errors e;
        api_spec *s = NULL;
        api_errors_init(&e);
        int n = parse(BAD[i].json, &e, &s);
        CHECK(s == NULL);
        CHECK(n == e.count);
        if (n == 0 || !has_error(&e, BAD[i].pointer, BAD[i].reason)) {
            th_fail(__FILE__, __LINE__, "entry %zu: %s\n      want %s: ...%s...", i,
                    BAD[i].json, BAD[i].pointer, BAD[i].reason);
            dump(&e);
        }
        api_spec_free(s);
        api_errors_clear(&e);
        checked++;
    }
    CHECK(checked >= 120);
}

/* Every error of a spec is reported at once. */
TEST(spec, all_errors_reported)
{
    api_errors e;
    api_spec *s = NULL;
    api_errors_init(&e);
    int n = parse("{" LS_PB("{'source':'inline','A':[[1,2],[3]],'b':[1,2],'x':1}")
                  ",'algorithm':{'p':2,'varsigma':-2,'threads':100,'bogus':1},"
                  "'output':{'trace_every':-1},'extra':true}", &e, &s);
    CHECK_INT(n, 8);
    CHECK(has_error(&e, "/problem/data/A/1", "ragged"));
    CHECK(has_error(&e, "/problem/data/x", "unknown member"));
    CHECK(has_error(&e, "/algorithm/p", "out of range"));
    CHECK(has_error(&e, "/algorithm/varsigma", "out of range"));
    CHECK(has_error(&e, "/algorithm/threads", "[1, 64]"));
    CHECK(has_error(&e, "/algorithm/bogus", "unknown member"));
    CHECK(has_error(&e, "/output/trace_every", "out of range"));
    CHECK(has_error(&e, "/extra", "unknown member"));
    if (th_failed())
        dump(&e);
    api_spec_free(s);
    api_errors_clear(&e);
}

TEST(spec, syntax_error_position)
{
    const char *text = "{\n  \"problem\": {\n    \"type\": \"least_squares\",,\n  }\n}";
    api_errors e;
    api_spec *s = NULL;
    api_errors_init(&e);
    int n = api_spec_parse(text, strlen(text), NULL, &s, &e);
    CHECK_INT(n, 1);
    CHECK(e.syntax);
    CHECK_INT(e.line, 3);
    CHECK(e.column >= 30 && e.column <= 32);
    CHECK(strstr(e.items[0].reason, "line 3") != NULL);
    char *pj = api_errors_problem_json(&e, "/v1/jobs");
    REQUIRE(pj != NULL);
    CHECK(strstr(pj, "\"status\":400") != NULL);
    CHECK(strstr(pj, "\"line\":3") != NULL);
    free(pj);
    api_errors_clear(&e);
    /* trailing garbage and an empty document */
    n = api_spec_parse("{} x", 4, NULL, &s, &e);
    CHECK_INT(n, 1);
    CHECK(e.syntax && e.offset == 3);
    api_errors_clear(&e);
    n = api_spec_parse("", 0, NULL, &s, &e);
    CHECK_INT(n, 1);
    CHECK(e.syntax);
    api_errors_clear(&e);
}

TEST(spec, problem_json_422)
{
    api_errors e;
    api_spec *s = NULL;
    api_errors_init(&e);
    parse("{" LS_OK ",'algorithm':{'p':2,'varsigma':-2}}", &e, &s);
    char *pj = api_errors_problem_json(&e, NULL);
    REQUIRE(pj != NULL);
    CHECK(strstr(pj, "\"status\":422") != NULL);
    CHECK(strstr(pj, "\"pointer\":\"/algorithm/p\"") != NULL);
    CHECK(strstr(pj, "\"pointer\":\"/algorithm/varsigma\"") != NULL);
    CHECK(strstr(pj, "2 problems") != NULL);
    free(pj);
    api_errors_clear(&e);
}

/* Confined paths: "..", absolute paths outside and escaping symlinks. */
static int confined_parse(const char *base, const char *json, const char *reason)
{
    api_errors e;
    api_spec *s = NULL;
    api_parse_options opt;
    api_errors_init(&e);
    api_parse_options_default(&opt);
    opt.base_dir = base;
    opt.confine_paths = 1;
    char *t = tspec_dq(json);
    api_spec_parse(t, strlen(t), &opt, &s, &e);
    int ok = reason ? has_error(&e, "/problem/data/path", reason) : e.count == 0;
    if (!ok)
        dump(&e);
    free(t);
    api_spec_free(s);
    api_errors_clear(&e);
    return ok;
}

/* Confinement is judged on the normalised path and again on the real
 * one: "..", absolute paths and symlinks that lead out are refused, the
 * same forms that stay inside are fine, and a probe outside is refused
 * without telling whether the file exists. */
TEST(spec, confined_paths)
{
    char base[512], cmd[4096], json[1400], abs_in[700];
    snprintf(base, sizeof base, "%s/confined", th_tmpdir());
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/sub' '%s/../outside' && "
             "cp tests/data/ratings_small.dat '%s/' && cp tests/data/ratings_small.dat '%s/../outside/' && "
             "ln -sf /etc/passwd '%s/escape.dat' && ln -sfn ../../outside '%s/sub/out' && "
             "ln -sf ../ratings_small.dat '%s/sub/in.dat'", base, base, base, base, base, base, base);
    REQUIRE(system(cmd) == 0);
    snprintf(abs_in, sizeof abs_in, "%s/sub/../ratings_small.dat", base);
    static const char *const OUT = "outside the data directory";
    const char *const CASES[][2] = {
        {"../outside/ratings_small.dat", OUT},         /* ".." out */
        {"sub/../../outside/ratings_small.dat", OUT},  /* ".." out after normalisation */
        {"../outside/no-such-file", OUT},              /* outside: existence not told */
        {"/etc/passwd", OUT},                          /* absolute outside */
        {"escape.dat", OUT},                           /* symlink to a file outside */
        {"sub/out/ratings_small.dat", OUT},            /* through a symlinked directory */
        {"sub/out/../outside/ratings_small.dat", OUT}, /* ".." after a symlink: the real path */
        {"ratings_small.dat", NULL},
        {"sub/../ratings_small.dat", NULL},            /* ".." that stays inside */
        {"./sub//in.dat", NULL},                       /* a symlink that stays inside */
        {"../confined/ratings_small.dat", NULL},       /* out and back in */
        {abs_in, NULL},                                /* absolute inside */
        {"sub/missing.dat", "file not found"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        snprintf(json, sizeof json, "{'problem':{'type':'matrix_completion','data':"
                 "{'source':'file','path':'%s'}}}", CASES[i][0]);
        if (!confined_parse(base, json, CASES[i][1]))
            th_fail(__FILE__, __LINE__, "path %s: want %s", CASES[i][0],
                    CASES[i][1] ? CASES[i][1] : "accepted");
    }
}

/* A huge bad array lists API_MAX_ERRORS errors and says how many more. */
TEST(spec, error_list_is_capped)
{
    size_t cap = 1 << 20, n = 0;
    char *json = malloc(cap);
    REQUIRE(json != NULL);
    n += (size_t)snprintf(json, cap, "{\"problem\":{\"type\":\"least_squares\",\"data\":"
                          "{\"source\":\"inline\",\"A\":[[1]],\"b\":[");
    for (int i = 0; i < 5000; i++)
        n += (size_t)snprintf(json + n, cap - n, "%s\"x\"", i ? "," : "");
    snprintf(json + n, cap - n, "]}}}");
    api_errors e;
    api_spec *s = NULL;
    api_errors_init(&e);
    int k = api_spec_parse(json, strlen(json), NULL, &s, &e);
    CHECK(k >= 5000);
    CHECK_INT(e.count, API_MAX_ERRORS + 1);
    CHECK(strstr(e.items[e.count - 1].reason, "more errors not listed") != NULL);
    free(json);
    api_errors_clear(&e);
}

/* One spec, one error, at exactly ptr: a stop member's error names that
 * member and no other (api/SPEC.md, algorithm: stop, varsigma). */
static void one_error(const char *json, const char *ptr, const char *reason)
{
    api_errors e;
    api_spec *s = NULL;
    api_errors_init(&e);
    int n = parse(json, &e, &s);
    if (n != 1 || s || !has_error(&e, ptr, reason)) {
        th_fail(__FILE__, __LINE__, "%s\n      want exactly %s: ...%s...", json, ptr, reason);
        dump(&e);
    }
    api_spec_free(s);
    api_errors_clear(&e);
}

TEST(spec, stop_members_refused_by_name)
{
    static const char *const GAPS[] = {"inner_gap", "inner_gap_rel", "outer_gap",
                                       "outer_gap_rel"};
    char json[512], ptr[64];
    one_error("{" LS_OK ",'algorithm':{'stop':{}}}", "/algorithm/stop", "give at least one of");
    one_error("{" LS_OK ",'algorithm':{'stop':0.01}}", "/algorithm/stop", "expected an object");
    one_error("{" LS_OK ",'algorithm':{'stop':{'gap':0.01}}}", "/algorithm/stop/gap",
              "unknown member");
    for (int k = 0; k < 4; k++) {
        snprintf(ptr, sizeof ptr, "/algorithm/stop/%s", GAPS[k]);
        snprintf(json, sizeof json, "{" LS_OK ",'algorithm':{'stop':{'%s':-1e-9}}}", GAPS[k]);
        one_error(json, ptr, "out of range: must be in [0, ");
        snprintf(json, sizeof json, "{" LS_OK ",'algorithm':{'stop':{'%s':'1e-3'}}}", GAPS[k]);
        one_error(json, ptr, "wrong type: expected a number");
        snprintf(json, sizeof json, "{" LS_OK ",'algorithm':{'stop':{'%s':1e999}}}", GAPS[k]);
        one_error(json, ptr, "not a finite number");
        if (strstr(GAPS[k], "_rel")) { /* relative: at most 1 */
            snprintf(json, sizeof json, "{" LS_OK ",'algorithm':{'stop':{'%s':1.000001}}}",
                     GAPS[k]);
            one_error(json, ptr, "must be in [0, 1], got 1.000001");
        }
    }
    /* the stop needs certificates */
    one_error("{" LS_OK ",'algorithm':{'certify':false,'stop':{'outer_gap_rel':0.01}}}",
              "/algorithm/certify", "needs certificates");
    one_error("{" LS_OK ",'algorithm':{'varsigma':0.1,'varsigma_rel':0.05}}",
              "/algorithm/varsigma_rel", "not both");
}

/* The accepted edges land in their own members: 0 and 1 for the relative
 * ones, and each value in the settings' field of its name. */
TEST(spec, stop_members_accepted)
{
    api_errors e;
    api_spec *s = NULL;
    ircg_settings st;
    api_errors_init(&e);
    CHECK_INT(parse("{" LS_OK ",'algorithm':{'stop':{'inner_gap':2e-9,'inner_gap_rel':1,"
                    "'outer_gap':3e-7,'outer_gap_rel':0}}}", &e, &s), 0);
    dump(&e);
    REQUIRE(s != NULL);
    api_spec_settings(s, &st);
    CHECK(st.stop.inner_gap == 2e-9 && st.stop.inner_gap_rel == 1);
    CHECK(st.stop.outer_gap == 3e-7 && st.stop.outer_gap_rel == 0);
    CHECK(st.certify == 1);
    api_spec_free(s);
    api_errors_clear(&e);
}
