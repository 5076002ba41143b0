/*
 * fuzz_spec.c -- the job specification: JSON parse, validation, data
 * loading (files confined to a private directory holding one small file
 * of each format; a dataset resolver that knows one id) and the problem's
 * build, with the service's options and a small element cap.
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

static const char *const files[][2] = {
    {"r.dat", "1::1::5::978300760\n1::3::3::978302109\n2::2::4::978301968\n"},
    {"u.data", "1\t1\t5\t881250949\n2\t3\t4\t891717742\n"},
    {"r.csv", "user,item,rating\n1,2,3.5\n2,1,4\n"},
    {"A.mtx", "%%MatrixMarket matrix coordinate real general\n3 4 5\n1 1 1.0\n"
              "1 3 2.0\n2 2 -1.0\n3 4 0.5\n3 1 1.5\n"},
    {"b.mtx", "%%MatrixMarket matrix array real general\n3 1\n1.0\n-2.0\n0.5\n"},
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
