/*
 * test_store.c -- the job store on a real SQLite file: schema and
 * migrations, the job lifecycle, idempotency, cancel and delete rules,
 * paging, counts.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_store_util.h"

static int64_t pragma_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    int64_t v = -1;
    if (sqlite3_open(path, &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

static int exec_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

TEST(store, schema_create_and_reopen)
{
    char path[512];
    char err[STORE_ERRMAX] = "";
    store *st = NULL;
    int ok = 0;
    tsu_path(path, sizeof path, "schema");
    REQUIRE(store_open(path, &st, err) == STORE_OK);
    CHECK_STR(store_errmsg(st), "");
    CHECK(store_integrity_check(st, &ok) == STORE_OK && ok);
    store_close(st);
    CHECK_INT(pragma_int(path, "PRAGMA user_version"), store_schema_version());
    CHECK_INT(pragma_int(path, "PRAGMA application_id"), STORE_APPLICATION_ID);
    CHECK(store_schema_version() >= 1);
    /* Reopening applies nothing and keeps the data. */
    REQUIRE(store_open(path, &st, err) == STORE_OK);
    CHECK(tsu_create(st, NULL, NULL) == STORE_OK);
    store_close(st);
    REQUIRE(store_open(path, &st, err) == STORE_OK);
    {
        int64_t counts[STORE_NSTATES];
        CHECK(store_job_counts(st, counts) == STORE_OK);
        CHECK_INT(counts[STORE_QUEUED], 1);
    }
    store_close(st);
    CHECK_INT(pragma_int(path, "PRAGMA user_version"), store_schema_version());
    {   /* WAL is persistent in the file */
        sqlite3 *db = NULL;
        sqlite3_stmt *s = NULL;
        REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
        CHECK(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, NULL) ==
              SQLITE_OK && sqlite3_step(s) == SQLITE_ROW);
        CHECK_STR((const char *)sqlite3_column_text(s, 0), "wal");
        sqlite3_finalize(s);
        sqlite3_close(db);
    }
    store_close(NULL); /* NULL-safe */
}

TEST(store, foreign_files_refused)
{
    char path[512], err[STORE_ERRMAX] = "";
    store *st = (store *)&err; /* must come back NULL */
    FILE *f;
    /* Another application's database (application_id 42). */
    tsu_path(path, sizeof path, "foreign42");
    REQUIRE(exec_sql(path, "PRAGMA application_id=42; CREATE TABLE t(x);") ==
            SQLITE_OK);
    CHECK(store_open(path, &st, err) == STORE_FOREIGN);
    CHECK(st == NULL);
    CHECK(strstr(err, "not an ircg store") != NULL);
    /* A database with tables but no application_id at all. */
    tsu_path(path, sizeof path, "foreign0");
    REQUIRE(exec_sql(path, "CREATE TABLE jobs(x);") == SQLITE_OK);
    CHECK(store_open(path, &st, err) == STORE_FOREIGN);
    /* Not an SQLite file. */
    tsu_path(path, sizeof path, "notsqlite");
    f = fopen(path, "wb");
    REQUIRE(f);
    for (int i = 0; i < 64; i++)
        fputs("this is definitely not a database file\n", f);
    fclose(f);
    err[0] = '\0';
    CHECK(store_open(path, &st, err) == STORE_FOREIGN);
    CHECK(err[0] != '\0');
    CHECK(st == NULL);
}

TEST(store, open_errors_and_names)
{
    char err[STORE_ERRMAX] = "";
    store *st = NULL;
    CHECK(store_open("/nonexistent-dir-ircg/x/y.db", &st, err) ==
          STORE_ERROR);
    CHECK(st == NULL);
    CHECK(strstr(err, "y.db") != NULL);
    CHECK(store_open(NULL, &st, err) == STORE_INVALID);
    CHECK(store_open("x", NULL, NULL) == STORE_INVALID);
    CHECK_STR(store_rc_name(STORE_CONFLICT), "conflict");
    CHECK_STR(store_state_name(STORE_CANCELLED), "cancelled");
    {
        store_state s = STORE_QUEUED;
        CHECK(store_state_parse("running", &s) == STORE_OK);
        CHECK_INT(s, STORE_RUNNING);
        CHECK(store_state_parse("paused", &s) == STORE_INVALID);
        CHECK(store_state_terminal(STORE_FAILED));
        CHECK(!store_state_terminal(STORE_RUNNING));
    }
    CHECK_STR(store_snap_kind_name(STORE_SNAP_Z), "z");
    CHECK_STR(store_event_type_name(STORE_EV_END), "end");
    CHECK(store_errmsg(NULL)[0] != '\0');
    {   /* a job id is time-ordered: later ids never sort before */
        char path[512], a[23], b[23];
        REQUIRE(store_open(tsu_path(path, sizeof path, "ids"), &st, err) ==
                STORE_OK);
        REQUIRE(tsu_create(st, NULL, a) == STORE_OK);
        struct timespec ms = {0, 2 * 1000 * 1000};
        nanosleep(&ms, NULL);
        REQUIRE(tsu_create(st, NULL, b) == STORE_OK);
        CHECK(strcmp(a, b) < 0);
        store_close(st);
    }
}

TEST(store, newer_schema_refused)
{
    char path[512], err[STORE_ERRMAX] = "", sql[64];
    store *st = NULL;
    tsu_path(path, sizeof path, "newer");
    REQUIRE(store_open(path, &st, err) == STORE_OK);
    store_close(st);
    snprintf(sql, sizeof sql, "PRAGMA user_version=%d",
             store_schema_version() + 1);
    REQUIRE(exec_sql(path, sql) == SQLITE_OK);
    CHECK(store_open(path, &st, err) == STORE_FOREIGN);
    CHECK(strstr(err, "newer") != NULL);
}

static int id_ok(const char *id)
{
    if (strlen(id) != STORE_JOB_ID_LEN || strncmp(id, "j_", 2) != 0)
        return 0;
    for (const char *p = id + 2; *p; p++)
        if (!strchr("0123456789abcdefghjkmnpqrstvwxyz", *p))
            return 0;
    return 1;
}

TEST(store, job_lifecycle)
{
    char path[512], err[STORE_ERRMAX];
    store *st = NULL;
    store_job j = {0};
    store_new_job nj = {.problem_type = "least_squares",
                        .spec_json = "{\"solver\":{\"max_iter\":10}}"};
    store_progress p = {.iteration = 7, .elapsed = 0.5, .g_x = 1.5,
                        .f_x = 2.5, .g_z = NAN, .f_z = 3.5, .gap = 0.25};
    int cancel = -1, replayed = -1;
    char id[STORE_JOB_ID_LEN + 1];
    REQUIRE(store_open(tsu_path(path, sizeof path, "life"), &st, err) ==
            STORE_OK);
    REQUIRE(store_job_create(st, &nj, &j, &replayed) == STORE_OK);
    CHECK_INT(replayed, 0);
    CHECK(id_ok(j.id));
    CHECK_INT(j.state, STORE_QUEUED);
    CHECK_INT(j.seq, 1);
    CHECK_INT(j.attempt, 0);
    CHECK_INT(j.version, 1);
    CHECK_STR(j.problem_type, "least_squares");
    CHECK_STR(j.spec_json, nj.spec_json);
    CHECK(j.result_json == NULL && j.error_json == NULL);
    CHECK(fabs(j.created_at - store_now()) < 5);
    CHECK(isnan(j.started_at) && isnan(j.finished_at));
    memcpy(id, j.id, sizeof id);

    REQUIRE(store_job_claim_next(st, &j) == STORE_OK);
    CHECK_STR(j.id, id);
    CHECK_INT(j.state, STORE_RUNNING);
    CHECK_INT(j.attempt, 1);
    CHECK_INT(j.run, 1);
    CHECK(!isnan(j.started_at) && !isnan(j.heartbeat_at));
    CHECK_INT(j.version, 2);
    store_claim c = store_claim_of(&j);
    CHECK_STR(c.id, id);
    CHECK_INT(c.run, 1);

    CHECK(store_job_progress(st, &c, &p, &cancel) == STORE_OK);
    CHECK_INT(cancel, 0);
    CHECK(store_job_progress(st, &c, NULL, NULL) == STORE_OK); /* heartbeat */
    REQUIRE(store_job_get(st, id, &j) == STORE_OK);
    CHECK_INT(j.progress.iteration, 7);
    CHECK_NEAR(j.progress.f_x, 2.5, 0);
    CHECK(isnan(j.progress.g_z));
    CHECK_INT(j.version, 4);

    CHECK(store_job_finish(st, &c, STORE_RUNNING, NULL, NULL) ==
          STORE_INVALID);
    CHECK(store_job_finish(st, NULL, STORE_FAILED, NULL, NULL) == STORE_INVALID);
    CHECK(store_job_finish(st, &c, STORE_SUCCEEDED, "{\"ok\":true}", NULL) ==
          STORE_OK);
    REQUIRE(store_job_get(st, id, &j) == STORE_OK);
    CHECK_INT(j.state, STORE_SUCCEEDED);
    CHECK_STR(j.result_json, "{\"ok\":true}");
    CHECK(!isnan(j.finished_at));
    /* A finished job takes no more progress and no second finish: the
     * claim ended with it. */
    CHECK(store_job_finish(st, &c, STORE_FAILED, NULL, "{}") == STORE_STALE);
    CHECK(strstr(store_errmsg(st), "succeeded") != NULL);
    CHECK(store_job_progress(st, &c, &p, &cancel) == STORE_STALE);
    CHECK(store_job_get(st, "j_nosuchjob", &j) == STORE_NOTFOUND);
    memcpy(c.id, "j_nosuchjob", sizeof "j_nosuchjob");
    CHECK(store_job_finish(st, &c, STORE_FAILED, NULL, NULL) == STORE_NOTFOUND);
    CHECK(store_job_claim_next(st, &j) == STORE_NOTFOUND);
    store_job_clear(&j);
    store_job_clear(NULL);
    store_close(st);
}

TEST(store, claims_follow_submission_order)
{
    char path[512], err[STORE_ERRMAX], ids[6][STORE_JOB_ID_LEN + 1];
    store *st = NULL;
    store_job j = {0};
    REQUIRE(store_open(tsu_path(path, sizeof path, "order"), &st, err) ==
            STORE_OK);
    for (int i = 0; i < 6; i++)
        REQUIRE(tsu_create(st, NULL, ids[i]) == STORE_OK);
    CHECK(store_job_request_cancel(st, ids[2], NULL) == STORE_OK);
    for (int i = 0; i < 6; i++) {
        if (i == 2)
            continue; /* cancelled while queued: never claimed */
        REQUIRE(store_job_claim_next(st, &j) == STORE_OK);
        CHECK_STR(j.id, ids[i]);
        CHECK_INT(j.seq, i + 1);
    }
    CHECK(store_job_claim_next(st, NULL) == STORE_NOTFOUND);
    store_job_clear(&j);
    store_close(st);
}

TEST(store, idempotency_replay_and_conflict)
{
    char path[512], err[STORE_ERRMAX];
    store *st = NULL;
    store_job a = {0}, b = {0};
    uint8_t h1[32], h2[32];
    int replayed = -1;
    store_new_job nj = {.problem_type = "mc", .spec_json = "{\"a\":1}",
                        .idempotency_key = "key-1", .request_sha256 = h1};
    store_sha256("body one", 8, h1);
    store_sha256("body two", 8, h2);
    REQUIRE(store_open(tsu_path(path, sizeof path, "idem"), &st, err) ==
            STORE_OK);
    REQUIRE(store_job_create(st, &nj, &a, &replayed) == STORE_OK);
    CHECK_INT(replayed, 0);
    CHECK_STR(a.idempotency_key, "key-1");
    CHECK(a.has_request_sha256 && memcmp(a.request_sha256, h1, 32) == 0);
    /* Same key, same request: the same job, flagged as replayed. */
    REQUIRE(store_job_create(st, &nj, &b, &replayed) == STORE_OK);
    CHECK_INT(replayed, 1);
    CHECK_STR(b.id, a.id);
    CHECK_INT(b.version, a.version);
    /* Same key, another request: conflict, nothing created. */
    nj.request_sha256 = h2;
    CHECK(store_job_create(st, &nj, &b, &replayed) == STORE_CONFLICT);
    CHECK_INT(replayed, 0);
    CHECK(strstr(store_errmsg(st), a.id) != NULL);
    /* A key without a hash is refused. */
    nj.request_sha256 = NULL;
    CHECK(store_job_create(st, &nj, &b, NULL) == STORE_INVALID);
    /* Another key: a new job. */
    nj.idempotency_key = "key-2";
    nj.request_sha256 = h1;
    REQUIRE(store_job_create(st, &nj, &b, &replayed) == STORE_OK);
    CHECK(strcmp(a.id, b.id) != 0);
    {
        int64_t counts[STORE_NSTATES];
        CHECK(store_job_counts(st, counts) == STORE_OK);
        CHECK_INT(counts[STORE_QUEUED], 2);
    }
    store_job_clear(&a);
    store_job_clear(&b);
    store_close(st);
}

TEST(store, cancel_in_every_state)
{
    char path[512], err[STORE_ERRMAX], q[23], r[23], s[23], f[23];
    store *st = NULL;
    store_job j = {0};
    int cancel = 0;
    REQUIRE(store_open(tsu_path(path, sizeof path, "cancel"), &st, err) ==
            STORE_OK);
    REQUIRE(tsu_create(st, NULL, r) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, s) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, f) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, q) == STORE_OK);
    store_claim cl[3];
    for (int i = 0; i < 3; i++) {
        REQUIRE(store_job_claim_next(st, &j) == STORE_OK);
        cl[i] = store_claim_of(&j); /* r, s, f in submission order */
    }
    REQUIRE(store_job_finish(st, &cl[1], STORE_SUCCEEDED, "{}", NULL) == STORE_OK);
    REQUIRE(store_job_finish(st, &cl[2], STORE_FAILED, NULL, "{}") == STORE_OK);
    /* queued -> cancelled at once */
    REQUIRE(store_job_request_cancel(st, q, &j) == STORE_OK);
    CHECK_INT(j.state, STORE_CANCELLED);
    CHECK(!isnan(j.finished_at));
    /* running -> cancel_requested; the worker sees it and finishes */
    REQUIRE(store_job_request_cancel(st, r, &j) == STORE_OK);
    CHECK_INT(j.state, STORE_RUNNING);
    CHECK_INT(j.cancel_requested, 1);
    int64_t v = j.version;
    REQUIRE(store_job_request_cancel(st, r, &j) == STORE_OK); /* again */
    CHECK_INT(j.version, v); /* nothing changed */
    CHECK(store_job_progress(st, &cl[0], NULL, &cancel) == STORE_OK);
    CHECK_INT(cancel, 1);
    CHECK(store_job_finish(st, &cl[0], STORE_CANCELLED, NULL, NULL) == STORE_OK);
    /* terminal -> conflict, with the job returned */
    CHECK(store_job_request_cancel(st, s, &j) == STORE_CONFLICT);
    CHECK_INT(j.state, STORE_SUCCEEDED);
    CHECK(store_job_request_cancel(st, f, &j) == STORE_CONFLICT);
    CHECK_INT(j.state, STORE_FAILED);
    CHECK(store_job_request_cancel(st, r, &j) == STORE_CONFLICT);
    CHECK_INT(j.state, STORE_CANCELLED);
    CHECK(store_job_request_cancel(st, q, NULL) == STORE_CONFLICT);
    CHECK(store_job_request_cancel(st, "j_none", &j) == STORE_NOTFOUND);
    store_job_clear(&j);
    store_close(st);
}

static int64_t count_rows(const char *path, const char *table)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    return pragma_int(path, sql);
}

TEST(store, delete_only_terminal_and_cascades)
{
    char path[512], err[STORE_ERRMAX], a[23], b[23];
    store *st = NULL;
    store_trace_row row = {.iteration = 1, .g_gap_x = NAN, .g_gap_z = NAN,
                           .top_sv = NAN};
    store_snapshot_blob blob = {STORE_SNAP_STATE, "abc", 3};
    REQUIRE(store_open(tsu_path(path, sizeof path, "delete"), &st, err) ==
            STORE_OK);
    REQUIRE(tsu_create(st, NULL, a) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, b) == STORE_OK);
    CHECK(store_job_delete(st, a) == STORE_CONFLICT); /* queued */
    store_job j = {0};
    REQUIRE(store_job_claim_next(st, &j) == STORE_OK);
    store_claim c = store_claim_of(&j);
    store_job_clear(&j);
    CHECK(store_job_delete(st, a) == STORE_CONFLICT); /* running */
    CHECK(store_trace_append(st, &c, &row, 1) == STORE_OK);
    CHECK(store_snapshot_put(st, &c, 1, &blob, 1, 0) == STORE_OK);
    CHECK(store_event_append(st, &c, STORE_EV_PROGRESS, "{}", NULL) ==
          STORE_OK);
    REQUIRE(store_job_finish(st, &c, STORE_SUCCEEDED, "{}", NULL) == STORE_OK);
    CHECK(count_rows(path, "trace_chunks") == 1 && count_rows(path, "snapshots") == 1);
    CHECK(store_job_delete(st, a) == STORE_OK);
    CHECK(store_job_delete(st, a) == STORE_NOTFOUND);
    CHECK_INT(count_rows(path, "trace_chunks"), 0);
    CHECK_INT(count_rows(path, "snapshots"), 0);
    CHECK_INT(count_rows(path, "events"), 1); /* b's 'queued' event */
    CHECK_INT(count_rows(path, "jobs"), 1);
    store_close(st);
}

/* Walks every page; marks seen[seq]; returns the number of pages. */
static int walk_pages(store *st, store_list_opts *o, int *seen, int nseen)
{
    store_job_list l = {0};
    int pages = 0;
    int64_t prev = 0;
    do {
        if (store_job_list_page(st, o, &l) != STORE_OK)
            return -1;
        pages++;
        for (size_t i = 0; i < l.n; i++) {
            int64_t q = l.jobs[i].seq;
            if (q >= 1 && q <= nseen)
                seen[q]++;
            if (prev && (o->oldest_first ? q <= prev : q >= prev))
                seen[0]++; /* out of order */
            prev = q;
            if (o->with_bodies != (l.jobs[i].spec_json != NULL))
                seen[0]++;
        }
        o->cursor = l.next_cursor;
        store_job_list_clear(&l);
    } while (o->cursor != 0 && pages < 100);
    return pages;
}

TEST(store, paging_25_jobs_by_10)
{
    char path[512], err[STORE_ERRMAX];
    store *st = NULL;
    store_list_opts o;
    int seen[26];
    REQUIRE(store_open(tsu_path(path, sizeof path, "paging"), &st, err) ==
            STORE_OK);
    for (int i = 0; i < 25; i++)
        REQUIRE(tsu_create(st, "{\"x\":1}", NULL) == STORE_OK);
    for (int oldest = 0; oldest < 2; oldest++) {
        memset(seen, 0, sizeof seen);
        store_job_list_init_opts(&o);
        o.page_size = 10;
        o.oldest_first = oldest;
        o.with_bodies = oldest;
        CHECK_INT(walk_pages(st, &o, seen, 25), 3);
        CHECK_INT(seen[0], 0);
        for (int i = 1; i <= 25; i++)
            CHECK_INT(seen[i], 1);
    }
    /* Filter by state: claim 3, list running. */
    for (int i = 0; i < 3; i++)
        REQUIRE(store_job_claim_next(st, NULL) == STORE_OK);
    memset(seen, 0, sizeof seen);
    store_job_list_init_opts(&o);
    o.state = STORE_RUNNING;
    o.page_size = 2;
    CHECK_INT(walk_pages(st, &o, seen, 25), 2);
    CHECK(seen[1] == 1 && seen[2] == 1 && seen[3] == 1 && seen[4] == 0);
    /* Filter by problem type. */
    {
        store_new_job nj = {.problem_type = "least_squares",
                            .spec_json = "{}"};
        store_job_list l = {0};
        REQUIRE(store_job_create(st, &nj, NULL, NULL) == STORE_OK);
        store_job_list_init_opts(&o);
        o.problem_type = "least_squares";
        REQUIRE(store_job_list_page(st, &o, &l) == STORE_OK);
        CHECK_INT(l.n, 1);
        CHECK_INT(l.next_cursor, 0);
        if (l.n == 1)
            CHECK_STR(l.jobs[0].problem_type, "least_squares");
        store_job_list_clear(&l);
    }
    CHECK(store_checkpoint(st) == STORE_OK);
    /* Bad options are refused. */
    {
        store_job_list l;
        store_job_list_init_opts(&o);
        o.page_size = 5000;
        CHECK(store_job_list_page(st, &o, &l) == STORE_INVALID);
        store_job_list_clear(&l);
    }
    store_close(st);
}

TEST(store, counts_and_change_counter)
{
    char path[512], err[STORE_ERRMAX], a[23];
    store *st = NULL;
    int64_t c0 = -1, c1 = -1, c2 = -1, counts[STORE_NSTATES];
    REQUIRE(store_open(tsu_path(path, sizeof path, "counts"), &st, err) ==
            STORE_OK);
    REQUIRE(store_changes(st, &c0) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, a) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, NULL) == STORE_OK);
    REQUIRE(store_changes(st, &c1) == STORE_OK);
    CHECK(c1 > c0);
    REQUIRE(store_job_claim_next(st, NULL) == STORE_OK);
    REQUIRE(store_changes(st, &c2) == STORE_OK);
    CHECK(c2 > c1);
    CHECK(store_job_counts(st, counts) == STORE_OK);
    CHECK_INT(counts[STORE_QUEUED], 1);
    CHECK_INT(counts[STORE_RUNNING], 1);
    CHECK_INT(counts[STORE_SUCCEEDED] + counts[STORE_FAILED] +
                  counts[STORE_CANCELLED], 0);
    /* A read changes nothing. */
    REQUIRE(store_job_counts(st, counts) == STORE_OK);
    REQUIRE(store_changes(st, &c1) == STORE_OK);
    CHECK_INT(c1, c2);
    store_close(st);
}

TEST(store, requeue_for_shutdown)
{
    char path[512], err[STORE_ERRMAX], a[23], b[23];
    store *st = NULL;
    store_job j = {0};
    store_snapshot_blob blob = {STORE_SNAP_STATE, "s", 1};
    REQUIRE(store_open(tsu_path(path, sizeof path, "requeue"), &st, err) ==
            STORE_OK);
    REQUIRE(tsu_create(st, NULL, a) == STORE_OK);
    REQUIRE(tsu_create(st, NULL, b) == STORE_OK);
    REQUIRE(store_job_claim_next(st, &j) == STORE_OK);
    store_claim ca = store_claim_of(&j);
    REQUIRE(store_job_claim_next(st, &j) == STORE_OK);
    store_claim cb = store_claim_of(&j);
    REQUIRE(store_snapshot_put(st, &ca, 5, &blob, 1, 3) == STORE_OK);
    CHECK(store_job_requeue(st, &ca) == STORE_OK);
    REQUIRE(store_job_get(st, a, &j) == STORE_OK);
    CHECK_INT(j.state, STORE_QUEUED);
    CHECK_INT(j.attempt, 0); /* a clean stop gives the attempt back */
    CHECK(store_job_request_cancel(st, b, NULL) == STORE_OK);
    CHECK(store_job_requeue(st, &cb) == STORE_OK); /* cancel asked: cancelled */
    CHECK(store_job_requeue(st, &ca) == STORE_STALE); /* not running now */
    REQUIRE(store_job_get(st, b, &j) == STORE_OK);
    CHECK_INT(j.state, STORE_CANCELLED);
    CHECK_INT(j.attempt, 1);
    REQUIRE(store_job_claim_next(st, &j) == STORE_OK);
    CHECK_STR(j.id, a);
    CHECK_INT(j.attempt, 1);
    CHECK_INT(j.run, 2);
    {
        void *data = NULL;
        size_t len = 0;
        int64_t it = 0;
        CHECK(store_snapshot_latest_state(st, a, &it, &data, &len) ==
              STORE_OK);
        CHECK_INT(it, 5);
        free(data);
    }
    store_job_clear(&j);
    store_close(st);
}
