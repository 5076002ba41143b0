/*
 * fuzz_spec.c -- the job specification: JSON parse, validation, data
 * loading (files confined to a private directory holding one small file
 * of each format; a dataset resolver that knows one id; a job source that
 * knows one job with a snapshot, for "start": {"job": ...}) and the
 * problem's build, with the service's options and a small element cap.
 *
 * What any input is owed: a valid spec or a problem document listing its
 * errors; and for a valid one, its normalized form is itself valid and
 * normalizes to the same text (a stored spec parses again in the worker
 * and after a restart exactly as it did at submission).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "spec.h"

#define MAX_ELEMENTS 5000
/* The service's memory budget a job (api_parse_options.max_memory): the
 * estimate refuses what would hold more, well below libFuzzer's 1 GB
 * malloc limit. */
#define MAX_MEMORY (INT64_C(256) << 20)

static const char *const files[][2] = {
    {"r.dat", "1::1::5::978300760\n1::3::3::978302109\n2::2::4::978301968\n"},
    {"u.data", "1\t1\t5\t881250949\n2\t3\t4\t891717742\n"},
    {"r.csv", "user,item,rating\n1,2,3.5\n2,1,4\n"},
    {"A.mtx", "%%MatrixMarket matrix coordinate real general\n3 4 5\n1 1 1.0\n"
              "1 3 2.0\n2 2 -1.0\n3 4 0.5\n3 1 1.5\n"},
    {"b.mtx", "%%MatrixMarket matrix array real general\n3 1\n1.0\n-2.0\n0.5\n"},
    {"a.svm", "+1 1:0.5 3:1\n-1 qid:2 2:-1 # c\n+1 1:2 4:0.25\n"},
    {"b.txt", "1 -2 0.5\n"},
};

static const char *data_dir(void)
{
    static int ready;
    if (!ready) {
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
            if (fuzz_write_file(files[i][0], files[i][1]) != 0)
                abort();
        ready = 1;
    }
    return fuzz_tmpdir();
}

/* The one dataset "d1": the ratings of r.dat. */
static ircg_error dataset(void *user, const char *id, ircg_ratings **out, ircg_diag *diag)
{
    (void)user;
    if (strcmp(id, "d1") != 0) {
        strcpy(diag->message, "no such dataset");
        return IRCG_ERR_INVALID;
    }
    return ircg_ratings_read_buffer(files[0][1], strlen(files[0][1]), NULL, out, diag);
}

static int64_t dataset_bytes(void *user, const char *id)
{
    (void)user;
    return strcmp(id, "d1") ? -1 : (int64_t)strlen(files[0][1]);
}

/* The one job "j1" (least squares, IR-CG) with its snapshot at iteration
 * 10: a real solver state's header, made once. */
static const char J1_SPEC[] =
    "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"inline\","
    "\"A\":[[1,2],[3,4],[5,6]],\"b\":[1,2,3]},\"domain\":{\"type\":\"l2_ball\","
    "\"radius\":2}},\"algorithm\":{\"name\":\"ircg\",\"max_iter\":10}}";

static int j1_head(unsigned char *head, size_t *len)
{
    static unsigned char h[IRCG_CHECKPOINT_HEAD];
    static size_t hlen;
    if (!hlen) {
        api_parse_options opt;
        api_spec *s = NULL;
        api_errors errs;
        ircg_settings set;
        ircg_solver *sv = NULL;
        ircg_info info;
        void *blob = NULL;
        size_t n = 0;
        api_errors_init(&errs);
        api_parse_options_service(&opt, data_dir(), MAX_ELEMENTS, NULL, NULL);
        if (api_spec_parse(J1_SPEC, strlen(J1_SPEC), &opt, &s, &errs) != 0)
            abort();
        api_spec_settings(s, &set);
        if (ircg_solver_new(api_spec_problem(s), &set, &sv, NULL) != IRCG_OK ||
            ircg_solve(sv, &info) != IRCG_OK || ircg_solver_save(sv, &blob, &n) != IRCG_OK)
            abort();
        hlen = n < sizeof h ? n : sizeof h;
        memcpy(h, blob, hlen);
        free(blob);
        ircg_solver_free(sv);
        api_spec_free(s);
        api_errors_clear(&errs);
    }
    memcpy(head, h, hlen);
    *len = hlen;
    return 0;
}

static ircg_error job_source(void *user, const char *id, int64_t snapshot,
                             api_job_source *out, ircg_diag *diag)
{
    (void)user;
    if (strcmp(id, "j1") != 0 || (snapshot != 0 && snapshot != 10)) {
        strcpy(diag->field, strcmp(id, "j1") ? "/job" : "/snapshot");
        strcpy(diag->message, "no such job or snapshot");
        return IRCG_ERR_INVALID;
    }
    out->spec_json = strdup(J1_SPEC);
    out->iteration = 10;
    j1_head(out->head, &out->head_len);
    return out->spec_json ? IRCG_OK : IRCG_ERR_NOMEM;
}

/* text -> normalized text (malloc'ed), or NULL with *nerr errors. */
static char *normalize(const char *text, size_t len, const api_parse_options *opt, int *nerr)
{
    api_spec *s = NULL;
    api_errors errs;
    char *out = NULL;
    api_errors_init(&errs);
    *nerr = api_spec_parse(text, len, opt, &s, &errs);
    if (*nerr == 0) {
        FUZZ_CHECK(s != NULL);
        out = s ? api_spec_normalized_json(s, 0) : NULL;
    } else {
        char *pj = api_errors_problem_json(&errs, "/v1/jobs");
        FUZZ_CHECK(s == NULL);
        FUZZ_CHECK(errs.count > 0 || errs.nomem);
        FUZZ_CHECK(pj != NULL);
        free(pj);
    }
    api_errors_clear(&errs);
    api_spec_free(s);
    return out;
}

FUZZ_TARGET(spec)
{
    api_parse_options opt;
    int n1 = 0, n2 = 0;
    api_parse_options_service(&opt, data_dir(), MAX_ELEMENTS, dataset, NULL);
    opt.job = job_source;
    opt.max_memory = MAX_MEMORY;
    opt.dataset_bytes = dataset_bytes;
    char *once = normalize((const char *)data, size, &opt, &n1);
    if (once) {
        char *twice = normalize(once, strlen(once), &opt, &n2);
        FUZZ_CHECK(n2 == 0 && twice != NULL);
        FUZZ_CHECK(twice == NULL || strcmp(once, twice) == 0);
        free(twice);
    }
    free(once);
    return 0;
}
