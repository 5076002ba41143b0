/*
 * test_store_util.h -- helpers for the store tests: a fresh database path
 * under the test temporary directory, and a quick job creator.
 */
#ifndef IRCG_TEST_STORE_UTIL_H
#define IRCG_TEST_STORE_UTIL_H

#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "store.h"

/* "<tmpdir>/<name>.db", unique per name (and removed first). */
static inline const char *tsu_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s.db", th_tmpdir(), name);
    remove(buf);
    return buf;
}

/* Creates a job with a small spec; returns STORE_OK and fills id. */
static inline store_rc tsu_create(store *st, const char *spec, char *id)
{
    store_new_job nj = {.problem_type = "matrix_completion",
                        .spec_json = spec ? spec : "{}"};
    store_job j = {0};
    store_rc rc = store_job_create(st, &nj, &j, NULL);
    if (rc == STORE_OK && id)
        memcpy(id, j.id, sizeof j.id);
    store_job_clear(&j);
    return rc;
}

#endif /* IRCG_TEST_STORE_UTIL_H */
