/*
 * test_http_scopes.c -- token scopes on a real daemon, route by route.
 *
 * The test walks every operation of api/openapi.json and sends it with no
 * token, an unknown token, and a token of each scope (read, submit,
 * admin).  What it expects comes from the document alone (the operation's
 * x-required-scope), so the daemon's table and the document must agree:
 *   - no or unknown token: 401 problem+json with WWW-Authenticate Bearer;
 *   - a scope below the required one: 403 problem+json insufficient-scope;
 *   - the required scope or above: anything but 401/403 (2xx or another
 *     4xx: a cancel of a finished job is 409, and that is allowed).
 * The path parameters are real (a finished job with snapshots, an uploaded
 * dataset), so an allowed request reaches its handler; DELETE runs last.
 * The table it prints is the per-scope route table of deploy/README.md.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"
#include "common/http_util.h"
#include "common/test_cli_util.h"

#define NSCOPE 4 /* none, read, submit, admin */
static const char *const SCOPES[NSCOPE] = {"none", "read", "submit", "admin"};
static const char *const AUTH[NSCOPE + 1] = {
    NULL, "Authorization: Bearer scope-read-token-0001",
    "Authorization: Bearer scope-submit-token-001", "Authorization: Bearer scope-admin-token-0001",
    "Authorization: Bearer scope-admin-token-0002" /* unknown */};

static const char RATINGS[] = "1::1::5::0\n1::2::3::0\n2::1::4::0\n2::3::1::0\n3::2::2::0\n";

typedef struct walk {
    hu_daemon d;
    char job[64], dataset[80], snap_iter[32], snap_kind[16];
} walk;

static int scope_index(const char *name)
{
    for (int i = 0; i < NSCOPE; i++)
        if (!strcmp(name, SCOPES[i]))
            return i;
    return -1;
}

/* "/v1/jobs/{id}/snapshots/{iteration}/{kind}" with the walk's real ids. */
static void concrete_path(const walk *w, const char *tmpl, char *out, size_t cap)
{
    const char *id = strncmp(tmpl, "/v1/datasets", 12) ? w->job : w->dataset;
    const char *names[] = {"{id}", "{iteration}", "{kind}", "{file}"};
    const char *values[] = {id, w->snap_iter, w->snap_kind, "style.css"};
    size_t n = 0;
    for (const char *p = tmpl; *p && n + 1 < cap;) {
        int k = -1;
        for (int i = 0; i < 4; i++)
            if (!strncmp(p, names[i], strlen(names[i])))
                k = i;
        if (k < 0) {
            out[n++] = *p++;
            continue;
        }
        n += (size_t)snprintf(out + n, cap - n, "%s", values[k]);
        p += strlen(names[k]);
    }
    out[n < cap ? n : cap - 1] = '\0';
}

/* One request of the operation with auth header `auth` (NULL = none). */
static long send_op(const walk *w, const char *method, const char *path, const char *auth,
                    hu_resp *r)
{
    const char *hdr[] = {auth, NULL};
    const char *body = NULL, *ctype = NULL;
    char *spec = NULL;
    if (!strcmp(method, "POST") && !strcmp(path, "/v1/jobs")) {
        body = spec = hu_ls_spec(4, 6, 1, 10, 5, 0, NULL);
        ctype = "application/json";
    } else if (!strcmp(method, "POST") && !strcmp(path, "/v1/datasets")) {
        body = RATINGS;
        ctype = "text/plain";
    }
    hu_req(&w->d, method, path, ctype, body, body ? strlen(body) : 0, auth ? hdr : NULL, r);
    free(spec);
    return r->status;
}

/* Checks one answer against the rule in the header; 1 if it holds. */
static int answer_ok(const hu_resp *r, int have, int need, int unknown)
{
    int is_problem = strstr(r->ctype, "application/problem+json") != NULL;
    if (need > 0 && (have == 0 || unknown))
        return r->status == 401 && is_problem && !strncmp(r->www_auth, "Bearer", 6);
    if (have < need)
        return r->status == 403 && is_problem && strstr(r->www_auth, "insufficient_scope") &&
               strstr(r->body, "urn:ircg:problem:insufficient-scope");
    return r->status >= 200 && r->status < 500 && r->status != 401 && r->status != 403;
}

/* Walks one operation with every token; prints its row of the table. */
static void walk_op(walk *w, const char *tmpl, const char *method, const char *need_name)
{
    char path[512], row[256];
    int need = scope_index(need_name);
    if (need < 0) {
        th_fail(__FILE__, __LINE__, "%s %s: x-required-scope \"%s\" is not a scope", method,
                tmpl, need_name);
        return;
    }
    concrete_path(w, tmpl, path, sizeof path);
    int n = snprintf(row, sizeof row, "    %-6s %-44s %-6s", method, tmpl, need_name);
    for (int t = 0; t <= NSCOPE; t++) {
        hu_resp r;
        int have = t < NSCOPE ? t : 3, unknown = t == NSCOPE;
        send_op(w, method, path, AUTH[t], &r);
        if (!answer_ok(&r, have, need, unknown))
            th_fail(__FILE__, __LINE__, "%s %s with %s token: %ld %s", method, path,
                    unknown ? "an unknown" : SCOPES[have], r.status, r.body);
        n += snprintf(row + n, sizeof row - (size_t)n, " %7ld", r.status);
        hu_resp_free(&r);
    }
    printf("%s\n", row);
}

/* A finished job with a snapshot, and a dataset: the ids of the walk. */
static int walk_setup(walk *w)
{
    hu_resp r;
    char state[16] = "";
    const char *admin[] = {AUTH[3], NULL};
    char *spec = hu_ls_spec(4, 6, 1, 10, 20, 0, "\"output\":{\"snapshot_every\":5}");
    hu_req(&w->d, "POST", "/v1/jobs", "application/json", spec, strlen(spec), admin, &r);
    cJSON *j = hu_json(&r);
    const cJSON *id = cJSON_GetObjectItem(j, "id");
    snprintf(w->job, sizeof w->job, "%s", cJSON_IsString(id) ? id->valuestring : "");
    cJSON_Delete(j);
    hu_resp_free(&r);
    free(spec);
    /* poll without a token would be refused: with tokens, wait by hand */
    for (int i = 0; i < 400 && strcmp(state, "succeeded"); i++) {
        char p[128];
        snprintf(p, sizeof p, "/v1/jobs/%s", w->job);
        hu_req(&w->d, "GET", p, NULL, NULL, 0, admin, &r);
        j = hu_json(&r);
        const cJSON *s = cJSON_GetObjectItem(j, "state");
        snprintf(state, sizeof state, "%s", cJSON_IsString(s) ? s->valuestring : "?");
        cJSON_Delete(j);
        hu_resp_free(&r);
        hu_sleep_ms(25);
    }
    char p[128];
    snprintf(p, sizeof p, "/v1/jobs/%s/snapshots", w->job);
    hu_req(&w->d, "GET", p, NULL, NULL, 0, admin, &r);
    j = hu_json(&r);
    const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "snapshots"), 0);
    const cJSON *it = cJSON_GetObjectItem(s0, "iteration"), *k = cJSON_GetObjectItem(s0, "kind");
    snprintf(w->snap_iter, sizeof w->snap_iter, "%lld",
             cJSON_IsNumber(it) ? (long long)it->valuedouble : -1LL);
    snprintf(w->snap_kind, sizeof w->snap_kind, "%s", cJSON_IsString(k) ? k->valuestring : "");
    cJSON_Delete(j);
    hu_resp_free(&r);
    hu_req(&w->d, "POST", "/v1/datasets", "text/plain", RATINGS, strlen(RATINGS), admin, &r);
    j = hu_json(&r);
    id = cJSON_GetObjectItem(j, "id");
    snprintf(w->dataset, sizeof w->dataset, "%s", cJSON_IsString(id) ? id->valuestring : "");
    cJSON_Delete(j);
    hu_resp_free(&r);
    return !strcmp(state, "succeeded") && w->snap_kind[0] && w->dataset[0] ? 0 : -1;
}

/* Every operation of the document, DELETEs last (they remove the job). */
static int walk_document(walk *w, const cJSON *paths, int deletes)
{
    static const char *const METHODS[][2] = {{"get", "GET"}, {"post", "POST"},
                                             {"delete", "DELETE"}};
    int ops = 0;
    for (const cJSON *p = paths ? paths->child : NULL; p; p = p->next)
        for (int m = 0; m < 3; m++) {
            const cJSON *op = cJSON_GetObjectItem(p, METHODS[m][0]);
            const cJSON *x = cJSON_GetObjectItem(op, "x-required-scope");
            if (!op || (m == 2) != deletes)
                continue;
            if (!cJSON_IsString(x))
                th_fail(__FILE__, __LINE__, "%s %s has no x-required-scope", METHODS[m][1],
                        p->string);
            else
                walk_op(w, p->string, METHODS[m][1], x->valuestring);
            ops++;
        }
    return ops;
}

TEST(http_scopes, every_route_of_the_openapi_document)
{
    walk w = {0};
    snprintf(w.d.tokens_file, sizeof w.d.tokens_file, "%s/scope_tokens.txt", th_tmpdir());
    REQUIRE(hu_write_tokens(w.d.tokens_file,
                            (const char *[]){"scope-read-token-0001", "read",
                                             "scope-submit-token-001", "submit",
                                             "scope-admin-token-0001", "admin", NULL}) == 0);
    cJSON *doc = tcli_read_json("api/openapi.json");
    REQUIRE(doc != NULL);
    if (hu_start(&w.d, "http_scopes", 1) != 0) {
        cJSON_Delete(doc);
        th_fail(__FILE__, __LINE__, "the daemon did not start");
        return;
    }
    if (walk_setup(&w) == 0) {
        const cJSON *paths = cJSON_GetObjectItem(doc, "paths");
        printf("    %-6s %-44s %-6s %7s %7s %7s %7s %7s\n", "method", "route", "needs", "none",
               "read", "submit", "admin", "unknown");
        int ops = walk_document(&w, paths, 0) + walk_document(&w, paths, 1);
        CHECK_INT(ops, 21);
    } else {
        th_fail(__FILE__, __LINE__, "setup: job %s, snapshot %s/%s, dataset %s", w.job,
                w.snap_iter, w.snap_kind, w.dataset);
    }
    cJSON_Delete(doc);
    CHECK_INT(hu_stop(&w.d, SIGTERM), 0);
}

/* `ircgd --hash-token` is plain SHA-256 (checked against coreutils), the
 * file holds no token, and bad tokens or scopes are refused. */
TEST(http_scopes, hash_token_and_tokens_file)
{
    char path[600], cmd[1600];
    const char *bd = getenv("IRCG_BUILD_DIR");
    snprintf(path, sizeof path, "%s/hash_tokens.txt", th_tmpdir());
    REQUIRE(hu_write_tokens(path, (const char *[]){"hash-me-please-000", "submit", NULL}) == 0);
    snprintf(cmd, sizeof cmd, "grep -qx \"sha256:$(printf '%%s' hash-me-please-000 | sha256sum "
             "| cut -d' ' -f1) submit\" '%s' && ! grep -q hash-me '%s'", path, path);
    CHECK(system(cmd) == 0);
    static const char *const BAD[][2] = {{"short", "read"}, {"has space in it 0000", "read"},
                                         {"good-token-000000001", "root"}};
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "printf '%%s' '%s' | '%s/bin/ircgd' --hash-token %s "
                 ">/dev/null 2>&1", BAD[i][0], bd ? bd : "build", BAD[i][1]);
        CHECK_INT(WEXITSTATUS(system(cmd)), 2);
    }
    /* a file of plain tokens (the old format) stops the start, naming the
     * line and never echoing the token */
    hu_daemon d = {0};
    snprintf(d.tokens_file, sizeof d.tokens_file, "%s/plain_tokens.txt", th_tmpdir());
    FILE *f = fopen(d.tokens_file, "w");
    REQUIRE(f != NULL);
    fprintf(f, "# old\nplain-secret-token-123\n");
    fclose(f);
    hu_prepare(&d, "plain_tokens", 1);
    CHECK_INT(hu_start_refused(&d), 1);
    char *log = hu_read_file(d.log);
    CHECK(log && strstr(log, "line 2: expected \"sha256:<64 hex digits> SCOPE\""));
    CHECK(log && !strstr(log, "plain-secret"));
    free(log);
}
