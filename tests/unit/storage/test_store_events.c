/*
 * test_store_events.c -- the events table stays bounded: progress and
 * snapshot events are trimmed while a job runs and coarsened when it ends,
 * state and end events are all kept, and reading after any seq (a trimmed
 * one included) still works.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "test_store_util.h"

static int64_t count_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    int64_t v = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

/* All events of the job, in order. */
static store_event *all_events(store *st, const char *id, size_t *n)
{
    store_event *ev = NULL;
    if (store_event_read(st, id, 0, 10000, &ev, n) != STORE_OK)
        *n = 0;
    return ev;
}

static size_t count_type(const store_event *ev, size_t n, store_event_type t)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ev[i].type == t;
    return k;
}

TEST(store_events, trimmed_while_running_coarsened_at_the_end)
{
    char path[512], id[23], data[64];
    store *st = NULL;
    store_job j = {0};
    store_event *ev = NULL;
    size_t n = 0;
    int64_t seq = 0, last_progress = 0, first_seq_of_3000 = 0;
    const int nprog = 3000;
    tsu_path(path, sizeof path, "events_bound");
    REQUIRE(store_open(path, &st, NULL) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, id) == STORE_OK);            /* seq 1 */
    REQUIRE(store_job_claim_next(st, &j) == STORE_OK);        /* seq 2 */
    store_claim c = store_claim_of(&j);
    for (int i = 1; i <= nprog; i++) {
        snprintf(data, sizeof data, "{\"iteration\":%d}", i);
        REQUIRE(store_event_append(st, &c, STORE_EV_PROGRESS, data, &seq) == STORE_OK);
        if (i == 1)
            first_seq_of_3000 = seq;
        last_progress = seq;
        if (i % 300 == 0)
            REQUIRE(store_event_append(st, &c, STORE_EV_SNAPSHOT, data, NULL) == STORE_OK);
    }
    CHECK_INT(seq, 2 + nprog + nprog / 300 - 1); /* seqs never skip */

    /* running: the newest progress events, bounded; the rest untouched */
    ev = all_events(st, id, &n);
    size_t np = count_type(ev, n, STORE_EV_PROGRESS);
    CHECK(np >= STORE_EVENTS_KEEP_RUNNING && np <= STORE_EVENTS_KEEP_RUNNING + 64);
    CHECK_INT(count_type(ev, n, STORE_EV_SNAPSHOT), nprog / 300);
    CHECK_INT(count_type(ev, n, STORE_EV_STATE), 2);
    CHECK(n >= 2 && ev[n - 2].seq == last_progress); /* then its snapshot */
    store_events_free(ev, n);
    /* a reader behind the trimmed range continues with what is kept: the
     * snapshot events, then only the newest progress events */
    REQUIRE(store_event_read(st, id, first_seq_of_3000, 100, &ev, &n) == STORE_OK);
    CHECK_INT(n, 100);
    for (size_t i = 0; i < n; i++)
        if (ev[i].type == STORE_EV_PROGRESS &&
            ev[i].seq < last_progress - STORE_EVENTS_KEEP_RUNNING - 64 - nprog / 300)
            CHECK_INT(ev[i].seq, -1); /* should have been trimmed */
    store_events_free(ev, n);

    /* the end: at most KEEP_FINISHED + 1 progress events, evenly spaced,
     * the last kept; every state event and the end event kept */
    REQUIRE(store_job_finish(st, &c, STORE_SUCCEEDED, "{}", NULL) == STORE_OK);
    ev = all_events(st, id, &n);
    np = count_type(ev, n, STORE_EV_PROGRESS);
    CHECK(np >= STORE_EVENTS_KEEP_FINISHED / 2 && np <= STORE_EVENTS_KEEP_FINISHED + 1);
    CHECK_INT(count_type(ev, n, STORE_EV_SNAPSHOT), nprog / 300); /* under the bound */
    CHECK_INT(count_type(ev, n, STORE_EV_STATE), 3);
    CHECK_INT(count_type(ev, n, STORE_EV_END), 1);
    CHECK(n >= 2 && ev[n - 1].type == STORE_EV_END && ev[n - 2].type == STORE_EV_STATE);
    {   /* spacing: the gaps between kept progress events differ little
         * (the last one, always kept, aside) */
        int64_t kept[STORE_EVENTS_KEEP_FINISHED + 2], gmin = INT64_MAX, gmax = 0;
        size_t k = 0;
        for (size_t i = 0; i < n && k < sizeof kept / sizeof kept[0]; i++)
            if (ev[i].type == STORE_EV_PROGRESS)
                kept[k++] = ev[i].seq;
        CHECK(k > 2 && kept[k - 1] == last_progress);
        for (size_t i = 1; i + 1 < k; i++) {
            int64_t g = kept[i] - kept[i - 1];
            gmin = g < gmin ? g : gmin;
            gmax = g > gmax ? g : gmax;
        }
        CHECK(gmin > 1 && gmax <= 2 * gmin);
    }
    store_events_free(ev, n);
    store_job_clear(&j);
    store_close(st);
}

/* A file from before the trimming: a finished job with 500 progress events
 * written directly.  Compaction keeps every 5th (ceil(500/100)) from the
 * first, plus the last: 101, so 399 go; a running job is left alone. */
TEST(store_events, compact_finished_jobs_of_old_files)
{
    char path[512], done[23], live[23];
    store *st = NULL;
    store_job j = {0};
    int64_t removed = -1;
    tsu_path(path, sizeof path, "events_compact");
    REQUIRE(store_open(path, &st, NULL) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, done) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, live) == STORE_OK);
    REQUIRE(store_job_claim_next(st, &j) == STORE_OK);
    store_claim c = store_claim_of(&j);
    REQUIRE(store_job_finish(st, &c, STORE_SUCCEEDED, "{}", NULL) == STORE_OK);
    REQUIRE(store_job_claim_next(st, &j) == STORE_OK); /* live stays running */
    store_close(st);
    {
        sqlite3 *db = NULL;
        char sql[300];
        REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
        for (int k = 0; k < 2; k++) {
            snprintf(sql, sizeof sql,
                     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                     " WHERE i < 500) INSERT INTO events SELECT '%s', 1000 + i,"
                     " 'progress', '{}', 0 FROM n", k ? live : done);
            CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
        }
        sqlite3_close(db);
    }
    REQUIRE(store_open(path, &st, NULL) == STORE_OK);
    REQUIRE(store_events_compact(st, &removed) == STORE_OK);
    CHECK_INT(removed, 399);
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM events WHERE job_id = '%s'"
             " AND type = 'progress'", done);
    CHECK_INT(count_sql(path, sql), 101);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM events WHERE job_id = '%s'"
             " AND type = 'progress' AND (seq = 1001 OR seq = 1500 OR seq = 1006)", done);
    CHECK_INT(count_sql(path, sql), 3);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM events WHERE job_id = '%s'"
             " AND type = 'progress'", live);
    CHECK_INT(count_sql(path, sql), 500);
    REQUIRE(store_events_compact(st, &removed) == STORE_OK);
    CHECK_INT(removed, 0); /* idempotent */
    store_job_clear(&j);
    store_close(st);
}
