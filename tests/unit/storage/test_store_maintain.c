/*
 * test_store_maintain.c -- the storage bounds on a real SQLite file:
 * finished jobs' snapshots pruned to the newest K (running ones keep
 * theirs), finished jobs older than the retention deleted with their trace
 * and snapshots (queued and running ones never), and the freed pages given
 * back to the file system (auto_vacuum=INCREMENTAL).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "test_store_util.h"

/* A claimed job with snapshots at iterations 1..3 (state, x, z each; x of
 * `bytes` bytes) and 3 trace rows. */
static store_claim running_job(store *st, size_t bytes)
{
    store_job j = {0};
    char id[STORE_JOB_ID_LEN + 1];
    CHECK_INT(tsu_create(st, NULL, id), STORE_OK);
    CHECK_INT(store_job_claim_next(st, &j), STORE_OK);
    store_claim c = store_claim_of(&j);
    store_job_clear(&j);
    char *x = calloc(1, bytes);
    for (int64_t it = 1; it <= 3; it++) {
        store_snapshot_blob b[3] = {{STORE_SNAP_STATE, "s", 1}, {STORE_SNAP_X, x, bytes},
                                    {STORE_SNAP_Z, "z", 1}};
        CHECK_INT(store_snapshot_put(st, &c, it, b, 3, 0), STORE_OK);
        store_trace_row row = {.iteration = it};
        CHECK_INT(store_trace_append(st, &c, &row, 1), STORE_OK);
    }
    free(x);
    return c;
}

static size_t snapshots_of(store *st, const char *id, int64_t *lowest)
{
    store_snapshot_info *s = NULL;
    size_t n = 0;
    CHECK_INT(store_snapshot_list(st, id, &s, &n), STORE_OK);
    *lowest = n ? s[0].iteration : -1;
    free(s);
    return n;
}

static long long file_bytes(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

TEST(store_maintain, prune_retain_and_give_pages_back)
{
    char path[512];
    store *st = NULL;
    int64_t low = 0, deleted = -1;
    REQUIRE(store_open(tsu_path(path, sizeof path, "maintain"), &st, NULL) == STORE_OK);
    store_claim done = running_job(st, 4 << 20), live = running_job(st, 16);
    char queued[STORE_JOB_ID_LEN + 1];
    CHECK_INT(tsu_create(st, NULL, queued), STORE_OK);
    CHECK_INT(store_job_finish(st, &done, STORE_SUCCEEDED, "{}", NULL), STORE_OK);
    CHECK_INT(store_checkpoint(st), STORE_OK);
    long long before = file_bytes(path);
    CHECK(before > 12 << 20); /* three 4 MB iterates */

    /* prune: the finished job keeps its newest iteration, the running one all */
    store_bounds b = {1, 0};
    CHECK_INT(store_maintain(st, &b, &deleted), STORE_OK);
    CHECK_INT(deleted, 0);
    CHECK_INT(snapshots_of(st, done.id, &low), 3);
    CHECK_INT(low, 3);
    CHECK_INT(snapshots_of(st, live.id, &low), 9);
    CHECK_INT(store_checkpoint(st), STORE_OK);
    long long pruned = file_bytes(path);
    CHECK(pruned < before - (7 << 20)); /* two iterates' pages given back */

    /* retention: only finished jobs, with their rows */
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    b.retain_seconds = 0.01;
    CHECK_INT(store_maintain(st, &b, &deleted), STORE_OK);
    CHECK_INT(deleted, 1);
    store_job j = {0};
    CHECK_INT(store_job_get(st, done.id, &j), STORE_NOTFOUND);
    CHECK_INT(store_job_get(st, live.id, &j), STORE_OK);
    store_job_clear(&j);
    CHECK_INT(store_job_get(st, queued, &j), STORE_OK);
    store_job_clear(&j);
    CHECK_INT(snapshots_of(st, done.id, &low), 0);
    store_trace_row *rows = NULL;
    size_t n = 9;
    CHECK_INT(store_trace_read(st, done.id, 0, 10, &rows, &n), STORE_OK);
    CHECK_INT(n, 0);
    free(rows);
    CHECK_INT(store_trace_read(st, live.id, 0, 10, &rows, &n), STORE_OK);
    CHECK_INT(n, 3);
    free(rows);
    CHECK_INT(store_checkpoint(st), STORE_OK);
    CHECK(file_bytes(path) < pruned - (3 << 20));
    store_close(st);
}
