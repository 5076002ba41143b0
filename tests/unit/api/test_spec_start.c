/*
 * test_spec_start.c -- "start": {"job", "snapshot", "schedule"} in the api
 * layer, with a job source of our own (the daemon's is tested through
 * HTTP): the members' shape, the CLI's refusal, the snapshot resolved
 * into the normalized spec, max_iter counted from the snapshot when the
 * schedule continues, and a state of another algorithm or shape refused
 * at the member.  Specs are written with ' for " to keep them readable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "spec.h"

#define LS "{'type':'least_squares','data':{'source':'synthetic','m':4,'n':6,'seed':%d}}"

static char *dq(const char *fmt, int seed, const char *alg)
{
    char pb[256], *t = malloc(1024);
    snprintf(pb, sizeof pb, fmt, seed);
    snprintf(t, 1024, "{'problem':%s,'algorithm':%s}", pb, alg);
    for (char *p = t; *p; p++)
        if (*p == '\'')
            *p = '"';
    return t;
}

/* A job "j_src" that solved LS seed 1 with IR-CG for 7 iterations and
 * kept snapshot 7; any other id or snapshot is unknown. */
typedef struct src {
    void *blob;
    size_t len;
    char *spec;
} src;

static ircg_error source(void *user, const char *id, int64_t snapshot,
                         api_job_source *out, ircg_diag *diag)
{
    const src *s = user;
    if (strcmp(id, "j_src")) {
        snprintf(diag->field, sizeof diag->field, "/job");
        snprintf(diag->message, sizeof diag->message, "no job with id \"%s\"", id);
        return IRCG_ERR_INVALID;
    }
    if (snapshot != 0 && snapshot != 7) {
        snprintf(diag->field, sizeof diag->field, "/snapshot");
        snprintf(diag->message, sizeof diag->message, "no snapshot %lld",
                 (long long)snapshot);
        return IRCG_ERR_INVALID;
    }
    out->spec_json = strdup(s->spec);
    out->iteration = 7;
    out->head_len = s->len < sizeof out->head ? s->len : sizeof out->head;
    memcpy(out->head, s->blob, out->head_len);
    return IRCG_OK;
}

static int parse(const char *json, src *s, api_spec **out, api_errors *e)
{
    api_parse_options opt;
    api_parse_options_default(&opt);
    if (s) {
        opt.job = source;
        opt.job_user = s;
    }
    api_errors_init(e);
    return api_spec_parse(json, strlen(json), &opt, out, e);
}

static int has(const api_errors *e, const char *ptr, const char *reason)
{
    for (int i = 0; i < e->count; i++)
        if (!strcmp(e->items[i].pointer, ptr) && strstr(e->items[i].reason, reason))
            return 1;
    for (int i = 0; i < e->count; i++)
        printf("      got %s: %s\n", e->items[i].pointer, e->items[i].reason);
    return 0;
}

static void make_source(src *s)
{
    api_spec *sp = NULL;
    api_errors e;
    ircg_settings set;
    ircg_solver *sv = NULL;
    char *t = dq(LS, 1, "{'max_iter':7}");
    REQUIRE(parse(t, NULL, &sp, &e) == 0);
    free(t);
    s->spec = api_spec_normalized_json(sp, 0); /* what the daemon keeps */
    api_spec_settings(sp, &set);
    REQUIRE(ircg_solver_new(api_spec_problem(sp), &set, &sv, NULL) == IRCG_OK);
    REQUIRE(ircg_solve(sv, NULL) == IRCG_OK);
    REQUIRE(ircg_solver_save(sv, &s->blob, &s->len) == IRCG_OK);
    ircg_solver_free(sv);
    api_spec_free(sp);
    api_errors_clear(&e);
}

TEST(spec_start, members_and_the_cli)
{
    static const struct { const char *alg, *ptr, *reason; } bad[] = {
        {"{'start':{'snapshot':3}}", "/algorithm/start/job", "missing"},
        {"{'start':{'job':'j_src','x0':[1]}}", "/algorithm/start/x0", "not allowed"},
        {"{'start':{'job':5}}", "/algorithm/start/job", "type"},
        {"{'start':{'job':'j_src','snapshot':0}}", "/algorithm/start/snapshot", "range"},
        {"{'start':{'job':'j_src','schedule':'later'}}", "/algorithm/start/schedule", ""},
        {"{'start':{'job':'j_src','when':1}}", "/algorithm/start/when", ""},
        /* no job source: the CLI */
        {"{'start':{'job':'j_src'}}", "/algorithm/start/job", "service"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        api_errors e;
        api_spec *s = NULL;
        char *t = dq(LS, 1, bad[i].alg);
        CHECK(parse(t, NULL, &s, &e) > 0);
        CHECK(has(&e, bad[i].ptr, bad[i].reason));
        api_errors_clear(&e);
        free(t);
    }
}

TEST(spec_start, resolved_checked_and_normalized)
{
    src s = {0};
    api_errors e;
    api_spec *sp = NULL;
    api_start_job sj;
    ircg_settings set;
    make_source(&s);

    char *t = dq(LS, 1, "{'max_iter':5,'start':{'job':'j_src'}}");
    REQUIRE(parse(t, &s, &sp, &e) == 0);
    CHECK(api_spec_start_job(sp, &sj) == 1);
    CHECK_STR(sj.job, "j_src");
    CHECK_INT(sj.iteration, 7);
    CHECK_INT(sj.mode, IRCG_RESTORE_CONTINUE);
    api_spec_settings(sp, &set);
    CHECK_INT(set.max_iter, 12); /* 7 + 5: the schedule goes on */
    char *norm = api_spec_normalized_json(sp, 0);
    CHECK(norm && strstr(norm, "\"snapshot\":\t7") && strstr(norm, "\"schedule\":\t\"continue\""));
    /* the normalized spec parses back to itself */
    api_spec *again = NULL;
    api_errors e2;
    CHECK(parse(norm, &s, &again, &e2) == 0);
    char *norm2 = again ? api_spec_normalized_json(again, 0) : NULL;
    CHECK(norm2 && !strcmp(norm, norm2));
    free(norm);
    free(norm2);
    api_spec_free(again);
    api_errors_clear(&e2);
    api_spec_free(sp);
    sp = NULL;
    api_errors_clear(&e);
    free(t);

    /* afresh: max_iter is this job's own */
    t = dq(LS, 1, "{'max_iter':5,'start':{'job':'j_src','schedule':'afresh'}}");
    REQUIRE(parse(t, &s, &sp, &e) == 0);
    api_spec_settings(sp, &set);
    CHECK_INT(set.max_iter, 5);
    CHECK(api_spec_start_job(sp, &sj) == 1 && sj.mode == IRCG_RESTORE_AFRESH);
    api_spec_free(sp);
    api_errors_clear(&e);
    free(t);

    static const struct { int seed; const char *alg, *ptr, *reason; } bad[] = {
        {1, "{'start':{'job':'j_other'}}", "/algorithm/start/job", "no job"},
        {1, "{'start':{'job':'j_src','snapshot':3}}", "/algorithm/start/snapshot", "3"},
        {1, "{'name':'irpg','start':{'job':'j_src'}}", "/algorithm/name", "ircg"},
        {2, "{'start':{'job':'j_src'}}", "/problem/data/seed", "differs"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        t = dq(LS, bad[i].seed, bad[i].alg);
        CHECK(parse(t, &s, &sp, &e) > 0);
        CHECK(has(&e, bad[i].ptr, bad[i].reason));
        api_errors_clear(&e);
        free(t);
    }
    /* another domain: a model member */
    t = dq("{'type':'least_squares','data':{'source':'synthetic','m':4,'n':6,'seed':%d},"
           "'domain':{'type':'l1_ball'}}", 1, "{'start':{'job':'j_src'}}");
    CHECK(parse(t, &s, &sp, &e) > 0);
    CHECK(has(&e, "/problem/domain", "differs"));
    api_errors_clear(&e);
    free(t);
    /* another m: the cheap stage compares synthetic members, the build the
     * shape (here both) */
    t = dq("{'type':'least_squares','data':{'source':'synthetic','m':5,'n':6,'seed':%d}}",
           1, "{'start':{'job':'j_src'}}");
    CHECK(parse(t, &s, &sp, &e) > 0);
    CHECK(has(&e, "/problem/data/m", "differs"));
    CHECK(has(&e, "/problem/data", "observations"));
    api_errors_clear(&e);
    free(t);
    /* another problem type: the state's and the spec's named */
    t = dq("{'type':'logistic_regression','data':{'source':'synthetic','m':4,'n':6,'seed':%d}}",
           1, "{'start':{'job':'j_src'}}");
    CHECK(parse(t, &s, &sp, &e) > 0);
    CHECK(has(&e, "/problem/type", "least_squares state, this spec is logistic_regression"));
    api_errors_clear(&e);
    free(t);
    free(s.blob);
    free(s.spec);
}
