/*
 * spec_start.c -- "start": {"job": ID, "snapshot": N, "schedule": ...}: a
 * job that starts where another stopped, from the solver state of one of
 * its snapshots (ircg_solver_restore_as: CONTINUE or AFRESH).
 *
 * The source is resolved through api_parse_options.job (the daemon's
 * store) and checked against the spec in the two stages of validation:
 *  - cheap (also at submission): the job and the snapshot exist; the
 *    problem type and the algorithm are the snapshot's; the problem's model
 *    members (all but "data": delta and outer, or domain and outer) equal
 *    the job's; synthetic data has the job's members (the generator is
 *    deterministic, so equal members are equal data);
 *  - build (the worker, ?dry_run=full): the built instance has the state's
 *    dimensions, observations and data digest.
 * Every mismatch names the member that differs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

#define SP "/algorithm/start"

static const char *const START_MEMBERS[] = {"x0", "job", "snapshot", "schedule", NULL};
static const char *const SCHEDULE_NAMES[] = {"continue", "afresh", NULL};

void sp_parse_start_job(sp_ctx *c, const cJSON *v, api_spec *s)
{
    const char *job = NULL;
    int k = 0;
    if (!sp_members(c, v, SP, START_MEMBERS))
        return;
    if (sp_get(v, "x0")) {
        sp_err(c, SP "/x0", "not allowed together with \"job\": the start is "
               "either a given x0 or another job's snapshot");
        return;
    }
    if (sp_string(c, v, SP, "job", &job) > 0) {
        if (!job[0] || strlen(job) > 64)
            sp_err(c, SP "/job", "must be a job id (\"j_...\")");
        else if (!(s->start.job = strdup(job)))
            sp_err(c, SP "/job", "out of memory");
    }
    sp_int64_in(c, v, SP, "snapshot", 1, INT64_C(1) << 53, &s->start.snapshot);
    if (sp_enum(c, v, SP, "schedule", SCHEDULE_NAMES, &k) > 0)
        s->start.afresh = k == 1;
}

/* A JSON value as short text for a message. */
static const char *brief(char *buf, size_t n, const cJSON *v)
{
    char *t = v ? cJSON_PrintUnformatted(v) : NULL;
    snprintf(buf, n, "%s", t ? t : "nothing");
    if (t && strlen(t) >= n && n > 4)
        memcpy(buf + n - 4, "...", 4);
    free(t);
    return buf;
}

/* Every member of `mine` except those in `skip` against the job's
 * (normalized: both have every default filled in). */
static void compare_members(sp_ctx *c, const char *base, const cJSON *mine,
                            const cJSON *theirs, const char *const *skip,
                            const char *job)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, mine) {
        int skipped = 0;
        for (int i = 0; skip && skip[i]; i++)
            skipped |= !strcmp(m->string, skip[i]);
        /* a member the job's spec lacks (stored by an older version) is
         * left to the build's checks */
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(theirs, m->string);
        if (skipped || !t || cJSON_Compare(m, t, 1))
            continue;
        char p[SP_PTR], a[96], b[96];
        sp_ptr(p, base, m->string);
        sp_err(c, p, "%s differs from job %s's %s: a start from its snapshot needs "
               "the same instance", brief(a, sizeof a, m), job, brief(b, sizeof b, t));
    }
}

/* The problem section of the job's spec against this one's. */
static void compare_problem(sp_ctx *c, const api_spec *s, const cJSON *theirs)
{
    static const char *const SKIP[] = {"type", "data", NULL};
    cJSON *mine = sp_norm_problem(s, 1);
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(mine, "data");
    const cJSON *td = cJSON_GetObjectItemCaseSensitive(theirs, "data");
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(md, "source");
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(td, "source");
    compare_members(c, "/problem", mine, theirs, SKIP, s->start.job);
    if (cJSON_IsString(ms) && cJSON_IsString(ts) &&
        !strcmp(ms->valuestring, "synthetic") && !strcmp(ts->valuestring, "synthetic"))
        compare_members(c, "/problem/data", md, td, NULL, s->start.job);
    cJSON_Delete(mine);
}

/* The snapshot's state against the spec's type and algorithm. */
static void compare_state(sp_ctx *c, const api_spec *s)
{
    const ircg_checkpoint_info *ck = &s->start.ck;
    if (ck->kind != s->kind)
        sp_err(c, "/problem/type", "job %s's snapshot holds a %s state, this spec is "
               "%s", s->start.job, api_problem_type_name(ck->kind),
               api_problem_type_name(s->kind));
    else if (ck->algorithm != s->settings.algorithm)
        sp_err(c, "/algorithm/name", "job %s's snapshot holds a state of %s: a start "
               "from it needs the same algorithm", s->start.job,
               api_algorithm_name(ck->algorithm));
}

/* The source through the callback: the snapshot's iteration and state
 * header into s->start; the job's problem section into *problem. */
static int resolve(sp_ctx *c, api_spec *s, cJSON **spec)
{
    api_job_source src;
    ircg_diag d = {0};
    char p[SP_PTR];
    memset(&src, 0, sizeof src);
    if (!c->opt->job) {
        sp_err(c, SP "/job", "a start from another job's snapshot needs the service "
               "(ircgd), which keeps the jobs");
        return 0;
    }
    if (c->opt->job(c->opt->job_user, s->start.job, s->start.snapshot, &src, &d) !=
        IRCG_OK) {
        snprintf(p, sizeof p, SP "%s", strcmp(d.field, "/snapshot") ? "/job" : "/snapshot");
        sp_err(c, p, "%s", d.message[0] ? d.message : "cannot read the job");
        free(src.spec_json);
        return 0;
    }
    *spec = src.spec_json ? cJSON_Parse(src.spec_json) : NULL;
    free(src.spec_json);
    if (!*spec ||
        ircg_checkpoint_peek(src.head, src.head_len, &s->start.ck, &d) != IRCG_OK) {
        sp_err(c, SP "/job", "job %s's snapshot at iteration %lld cannot be read%s%s",
               s->start.job, (long long)src.iteration, d.message[0] ? ": " : "",
               d.message);
        cJSON_Delete(*spec);
        *spec = NULL;
        return 0;
    }
    s->start.iteration = src.iteration;
    s->start.resolved = 1;
    return 1;
}

void sp_check_start(sp_ctx *c, api_spec *s, int problem_ok)
{
    cJSON *spec = NULL;
    if (!s->start.job || !resolve(c, s, &spec))
        return;
    const cJSON *pb = cJSON_GetObjectItemCaseSensitive(spec, "problem");
    compare_state(c, s);
    if (problem_ok && s->start.ck.kind == s->kind)
        compare_problem(c, s, pb);
    cJSON_Delete(spec);
}

void sp_build_start(sp_ctx *c, const api_spec *s)
{
    const ircg_checkpoint_info *ck = &s->start.ck;
    ircg_problem_info pi;
    if (!s->start.resolved || !s->problem || ck->kind != s->kind)
        return;
    ircg_problem_get_info(s->problem, &pi);
    if (pi.dim != ck->dim || pi.n_observed != ck->n_observed)
        sp_err(c, "/problem/data", "%lld variables and %lld observations, where job %s's "
               "snapshot has %lld and %lld: a start from it needs the same instance",
               (long long)pi.dim, (long long)pi.n_observed, s->start.job,
               (long long)ck->dim, (long long)ck->n_observed);
    else if (ck->data_digest && pi.data_digest && ck->data_digest != pi.data_digest)
        sp_err(c, "/problem/data", "the data differ from job %s's (data digest %016llx, "
               "the job's %016llx): a start from its snapshot needs the same instance",
               s->start.job, (unsigned long long)pi.data_digest,
               (unsigned long long)ck->data_digest);
}

cJSON *sp_norm_start_job(const api_spec *s)
{
    cJSON *o = cJSON_CreateObject();
    int64_t it = s->start.resolved ? s->start.iteration : s->start.snapshot;
    cJSON_AddStringToObject(o, "job", s->start.job);
    if (it > 0)
        cJSON_AddNumberToObject(o, "snapshot", (double)it);
    cJSON_AddStringToObject(o, "schedule", SCHEDULE_NAMES[s->start.afresh]);
    return o;
}

int api_spec_start_job(const api_spec *s, api_start_job *out)
{
    if (!s->start.job || !s->start.resolved)
        return 0;
    out->job = s->start.job;
    out->iteration = s->start.iteration;
    out->mode = s->start.afresh ? IRCG_RESTORE_AFRESH : IRCG_RESTORE_CONTINUE;
    return 1;
}
