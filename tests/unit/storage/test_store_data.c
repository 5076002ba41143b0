/*
 * test_store_data.c -- SHA-256 vectors, trace rows, snapshots, datasets and
 * SSE events on a real SQLite file.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "test_store_util.h"

static void hex_of(const void *data, size_t len, char hex[65])
{
    uint8_t d[32];
    store_sha256(data, len, d);
    store_sha256_hex(d, hex);
}

TEST(store_data, sha256_fips_vectors)
{
    char hex[65];
    static const char m448[] =
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hex_of("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223"
                   "b00361a396177a9cb410ff61f20015ad");
    hex_of(NULL, 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb924"
                   "27ae41e4649b934ca495991b7852b855");
    hex_of(m448, strlen(m448), hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039"
                   "a33ce45964ff2167f6ecedd419db06c1");
    {   /* one million 'a': a long input through the one-shot call */
        char *a = malloc(1000000);
        REQUIRE(a);
        memset(a, 'a', 1000000);
        hex_of(a, 1000000, hex);
        free(a);
        CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
                       "f1809a48a497200e046d39ccc7112cd0");
    }
}

static int64_t sql_count(const char *path, const char *sql)
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

static store_trace_row make_row(int64_t it)
{
    store_trace_row r = {.iteration = it, .elapsed = 0.01 * (double)it,
                         .sigma = 1.0 / (double)(it + 1), .alpha = 0.5,
                         .g_x = 10.0 / (double)it, .f_x = 2.0, .g_z = 1.0,
                         .f_z = 3.0, .gap = 0.1, .g_gap_x = NAN,
                         .g_gap_z = NAN, .lmo_seconds = 1e-3,
                         .lmo_matvecs = 40 + it, .top_sv = NAN,
                         .rank = (int)it, .lmo_converged = (int)(it % 2),
                         .backtracks = (int)(it % 3), .proj_full = it == 7,
                         .lambda = it % 5 == 0 ? 0.25 * (double)it : NAN};
    return r;
}

/* A fresh store with one job; with `c`, the job is claimed (running) and
 * *c is the claim a worker's writes need. */
static int open_with_job(const char *name, store **st, char *id, store_claim *c)
{
    char path[512];
    store_job j = {0};
    int ok = store_open(tsu_path(path, sizeof path, name), st, NULL) == STORE_OK &&
             tsu_create(*st, NULL, id) == STORE_OK &&
             (!c || store_job_claim_next(*st, &j) == STORE_OK);
    if (ok && c)
        *c = store_claim_of(&j);
    store_job_clear(&j);
    return ok;
}

TEST(store_data, trace_batch_page_truncate_nan)
{
    store *st = NULL;
    char id[23];
    store_trace_row rows[100], *got = NULL;
    size_t n = 0;
    for (int i = 0; i < 100; i++)
        rows[i] = make_row(i + 1);
    rows[9].top_sv = 7.25;
    rows[9].g_gap_x = 1e-3;
    rows[9].f_x = NAN;
    rows[11].lmo_converged = rows[11].backtracks = rows[11].proj_full = -1;
    store_claim c;
    REQUIRE(open_with_job("trace", &st, id, &c));
    CHECK(store_trace_append(st, &c, NULL, 0) == STORE_OK); /* no-op */
    REQUIRE(store_trace_append(st, &c, rows, 100) == STORE_OK);
    {   /* 100 rows are one compressed chunk of the job */
        char path[512];
        snprintf(path, sizeof path, "%s/trace.db", th_tmpdir());
        CHECK_INT(sql_count(path, "SELECT count(*) FROM trace_chunks"), 1);
        CHECK_INT(sql_count(path, "SELECT sum(nrows) FROM trace_chunks"), 100);
        CHECK(sql_count(path, "SELECT length(data) FROM trace_chunks") < 100 * 40);
    }
    /* page 1 */
    REQUIRE(store_trace_read(st, id, 0, 30, &got, &n) == STORE_OK);
    CHECK_INT(n, 30);
    CHECK_INT(got[0].iteration, 1);
    CHECK_INT(got[29].iteration, 30);
    CHECK_NEAR(got[9].top_sv, 7.25, 0);
    CHECK_NEAR(got[9].g_gap_x, 1e-3, 0);
    CHECK(isnan(got[9].f_x));               /* NaN -> NULL -> NaN */
    CHECK(isnan(got[0].top_sv) && isnan(got[0].g_gap_z));
    CHECK_INT(got[4].lmo_matvecs, 45);
    CHECK_INT(got[4].rank, 5);
    CHECK_NEAR(got[4].sigma, 1.0 / 6.0, 0);
    /* the solver details of schema 4 */
    CHECK_INT(got[4].lmo_converged, 1);
    CHECK_INT(got[4].backtracks, 2);
    CHECK_INT(got[4].proj_full, 0);
    CHECK_NEAR(got[4].lambda, 1.25, 0);
    CHECK_INT(got[5].lmo_converged, 0);
    CHECK_INT(got[5].backtracks, 0);
    CHECK_INT(got[6].proj_full, 1);
    CHECK(isnan(got[6].lambda));
    CHECK_INT(got[11].lmo_converged, -1);
    CHECK_INT(got[11].backtracks, -1);
    CHECK_INT(got[11].proj_full, -1);
    free(got);
    /* last partial page, then an empty one */
    REQUIRE(store_trace_read(st, id, 90, 30, &got, &n) == STORE_OK);
    CHECK_INT(n, 10);
    CHECK_INT(got[9].iteration, 100);
    free(got);
    REQUIRE(store_trace_read(st, id, 100, 30, &got, &n) == STORE_OK);
    CHECK(n == 0 && got == NULL);
    /* A batch that repeats an iteration is refused as a whole. */
    {
        store_trace_row two[2] = {make_row(101), make_row(50)};
        CHECK(store_trace_append(st, &c, two, 2) == STORE_CONFLICT);
        REQUIRE(store_trace_read(st, id, 100, 10, &got, &n) == STORE_OK);
        CHECK_INT(n, 0);
        free(got);
    }
    {
        store_claim none = c;
        memcpy(none.id, "j_nosuchjob", sizeof "j_nosuchjob");
        CHECK(store_trace_append(st, &none, rows, 1) == STORE_NOTFOUND);
        CHECK(store_trace_append(st, NULL, rows, 1) == STORE_INVALID);
    }
    /* Resume from a snapshot at iteration 60: no gap, no duplicate. */
    REQUIRE(store_trace_truncate(st, &c, 60) == STORE_OK);
    REQUIRE(store_trace_append(st, &c, rows + 60, 40) == STORE_OK);
    REQUIRE(store_trace_read(st, id, 0, 1000, &got, &n) == STORE_OK);
    CHECK_INT(n, 100);
    for (size_t i = 0; i < n; i++)
        if (got[i].iteration != (int64_t)i + 1)
            CHECK_INT(got[i].iteration, i + 1);
    free(got);
    CHECK(store_trace_read(st, id, 0, 0, &got, &n) == STORE_INVALID);
    store_close(st);
}

TEST(store_data, snapshots_keep_last_k_and_latest_state)
{
    store *st = NULL;
    char id[23], state[32], xbuf[64];
    store_snapshot_info *list = NULL;
    size_t n = 0, len = 0;
    void *data = NULL;
    int64_t it = 0;
    store_claim c;
    REQUIRE(open_with_job("snaps", &st, id, &c));
    CHECK(store_snapshot_latest_state(st, id, &it, &data, &len) ==
          STORE_NOTFOUND);
    for (int k = 1; k <= 5; k++) {
        store_snapshot_blob b[2];
        snprintf(state, sizeof state, "state@%d", 10 * k);
        snprintf(xbuf, sizeof xbuf, "x@%d", 10 * k);
        b[0] = (store_snapshot_blob){STORE_SNAP_STATE, state, strlen(state)};
        b[1] = (store_snapshot_blob){STORE_SNAP_X, xbuf, strlen(xbuf)};
        REQUIRE(store_snapshot_put(st, &c, 10 * k, b, 2, 3) == STORE_OK);
    }
    REQUIRE(store_snapshot_list(st, id, &list, &n) == STORE_OK);
    CHECK_INT(n, 6); /* iterations 30, 40, 50, two kinds each */
    if (n == 6) {
        CHECK_INT(list[0].iteration, 30);
        CHECK_INT(list[0].kind, STORE_SNAP_STATE);
        CHECK_INT(list[1].kind, STORE_SNAP_X);
        CHECK_INT(list[5].iteration, 50);
        CHECK_INT(list[0].bytes, 8);
        CHECK(list[0].created_at > 0);
    }
    free(list);
    REQUIRE(store_snapshot_latest_state(st, id, &it, &data, &len) ==
            STORE_OK);
    CHECK_INT(it, 50);
    CHECK(len == 8 && memcmp(data, "state@50", 8) == 0);
    free(data);
    {
        store_snapshot_info info;
        REQUIRE(store_snapshot_get(st, id, 40, STORE_SNAP_X, &data, &len,
                                   &info) == STORE_OK);
        CHECK(len == 4 && memcmp(data, "x@40", 4) == 0);
        CHECK_INT(info.bytes, 4);
        free(data);
    }
    CHECK(store_snapshot_get(st, id, 10, STORE_SNAP_STATE, &data, &len,
                             NULL) == STORE_NOTFOUND);
    CHECK(store_snapshot_get(st, id, 50, STORE_SNAP_Z, &data, &len, NULL) ==
          STORE_NOTFOUND);
    {   /* a 3 MB blob round-trips; same (iteration, kind) replaces */
        size_t big = 3u << 20;
        unsigned char *buf = malloc(big);
        REQUIRE(buf);
        for (size_t i = 0; i < big; i++)
            buf[i] = (unsigned char)(i * 2654435761u >> 13);
        store_snapshot_blob b = {STORE_SNAP_Z, buf, big};
        CHECK(store_snapshot_put(st, &c, 50, &b, 1, 3) == STORE_OK);
        buf[0] ^= 1;
        CHECK(store_snapshot_put(st, &c, 50, &b, 1, 3) == STORE_OK);
        REQUIRE(store_snapshot_get(st, id, 50, STORE_SNAP_Z, &data, &len,
                                   NULL) == STORE_OK);
        CHECK(len == big && memcmp(data, buf, big) == 0);
        free(data);
        free(buf);
    }
    {
        store_snapshot_blob b = {STORE_SNAP_STATE, "s", 1};
        store_claim none = c;
        memcpy(none.id, "j_nosuchjob", sizeof "j_nosuchjob");
        CHECK(store_snapshot_put(st, &none, 1, &b, 1, 3) == STORE_NOTFOUND);
    }
    store_close(st);
}

TEST(store_data, datasets_content_addressed)
{
    char path[512], out[600], hex[65];
    store *st = NULL;
    store_dataset d1, d2;
    const char body[] = "196\t242\t3\t881250949\n186\t302\t3\t891717742\n";
    int existed = -1;
    void *data = NULL;
    size_t len = 0;
    REQUIRE(store_open(tsu_path(path, sizeof path, "datasets"), &st, NULL) ==
            STORE_OK);
    REQUIRE(store_dataset_put(st, body, strlen(body), "movielens-100k",
                              "u.data", &d1, &existed) == STORE_OK);
    CHECK_INT(existed, 0);
    hex_of(body, strlen(body), hex);
    CHECK_STR(d1.id, hex);
    CHECK_STR(d1.format, "movielens-100k");
    CHECK_STR(d1.filename, "u.data");
    CHECK_INT(d1.bytes, strlen(body));
    /* Same bytes again: the same row, nothing stored twice. */
    REQUIRE(store_dataset_put(st, body, strlen(body), "other", NULL, &d2,
                              &existed) == STORE_OK);
    CHECK_INT(existed, 1);
    CHECK_STR(d2.id, d1.id);
    CHECK_STR(d2.format, "movielens-100k");
    REQUIRE(store_dataset_get(st, d1.id, &d2) == STORE_OK);
    CHECK_NEAR(d2.created_at, d1.created_at, 0);
    REQUIRE(store_dataset_bytes(st, d1.id, &data, &len) == STORE_OK);
    CHECK(len == strlen(body) && memcmp(data, body, len) == 0);
    free(data);
    snprintf(out, sizeof out, "%s/u.data.out", th_tmpdir());
    REQUIRE(store_dataset_write_file(st, d1.id, out) == STORE_OK);
    {
        FILE *f = fopen(out, "rb");
        char back[256] = "";
        size_t got = 0;
        REQUIRE(f);
        got = fread(back, 1, sizeof back, f);
        fclose(f);
        CHECK(got == strlen(body) && memcmp(back, body, got) == 0);
    }
    CHECK(store_dataset_get(st, "0000000000000000000000000000000000000000"
                                "000000000000000000000000",
                            &d2) == STORE_NOTFOUND);
    CHECK(store_dataset_get(st, "short", &d2) == STORE_INVALID);
    CHECK(store_dataset_put(st, body, 3, "", NULL, NULL, NULL) ==
          STORE_INVALID);
    /* Empty content is a valid dataset too. */
    REQUIRE(store_dataset_put(st, NULL, 0, "csv", NULL, &d2, NULL) ==
            STORE_OK);
    CHECK_STR(d2.id, "e3b0c44298fc1c149afbf4c8996fb924"
                     "27ae41e4649b934ca495991b7852b855");
    store_close(st);
}

TEST(store_data, events_append_and_resume_after_seq)
{
    store *st = NULL;
    char id[23];
    store_event *ev = NULL;
    size_t n = 0;
    int64_t seq = 0;
    store_job j = {0};
    REQUIRE(open_with_job("events", &st, id, NULL));
    /* seq 1: the store's own 'state' event for the submission */
    REQUIRE(store_event_read(st, id, 0, 100, &ev, &n) == STORE_OK);
    REQUIRE(n == 1);
    CHECK_INT(ev[0].seq, 1);
    CHECK_INT(ev[0].type, STORE_EV_STATE);
    CHECK(strstr(ev[0].data, "\"queued\"") != NULL);
    store_events_free(ev, n);
    REQUIRE(store_job_claim_next(st, &j) == STORE_OK);            /* 2 */
    store_claim c = store_claim_of(&j);
    store_job_clear(&j);
    for (int i = 0; i < 3; i++) {                                  /* 3..5 */
        char data[64];
        snprintf(data, sizeof data, "{\"iteration\":%d}", 10 * (i + 1));
        REQUIRE(store_event_append(st, &c, STORE_EV_PROGRESS, data, &seq) ==
                STORE_OK);
    }
    CHECK_INT(seq, 5);
    REQUIRE(store_job_finish(st, &c, STORE_SUCCEEDED, "{}", NULL) ==
            STORE_OK);                                              /* 6, 7 */
    /* A client that saw up to 3 (Last-Event-ID: 3) continues with 4. */
    REQUIRE(store_event_read(st, id, 3, 100, &ev, &n) == STORE_OK);
    REQUIRE(n == 4);
    CHECK_INT(ev[0].seq, 4);
    CHECK_STR(ev[0].data, "{\"iteration\":20}");
    CHECK_INT(ev[2].type, STORE_EV_STATE);
    CHECK(strstr(ev[2].data, "\"succeeded\"") != NULL);
    CHECK_INT(ev[3].seq, 7);
    CHECK_INT(ev[3].type, STORE_EV_END);
    CHECK(ev[3].created_at > 0);
    store_events_free(ev, n);
    /* limit */
    REQUIRE(store_event_read(st, id, 0, 2, &ev, &n) == STORE_OK);
    CHECK_INT(n, 2);
    CHECK_INT(ev[1].seq, 2);
    store_events_free(ev, n);
    REQUIRE(store_event_read(st, id, 7, 10, &ev, &n) == STORE_OK);
    CHECK(n == 0 && ev == NULL);
    REQUIRE(store_job_get(st, id, &j) == STORE_OK);
    CHECK_INT(j.event_seq, 7);
    store_job_clear(&j);
    /* the job finished: its claim writes no more events */
    CHECK(store_event_append(st, &c, STORE_EV_PROGRESS, "{}", NULL) == STORE_STALE);
    memcpy(c.id, "j_nosuchjob", sizeof "j_nosuchjob");
    CHECK(store_event_append(st, &c, STORE_EV_PROGRESS, "{}", NULL) ==
          STORE_NOTFOUND);
    CHECK(store_event_append(st, &c, STORE_EV_PROGRESS, NULL, NULL) ==
          STORE_INVALID);
    store_events_free(NULL, 0);
    store_close(st);
}

/* The server's crash checkpoints: one per job, replaced by each put, apart
 * from the spec's snapshots; a resume takes whichever state is newest;
 * the checkpoint goes when the job ends. */
TEST(store_data, crash_checkpoints_and_resume_point)
{
    store *st = NULL;
    char id[23], path[512];
    store_claim c;
    void *data = NULL;
    size_t len = 0;
    int64_t it = -1;
    store_snapshot_blob b = {STORE_SNAP_STATE, "snap@20", 7};
    REQUIRE(open_with_job("ckpt", &st, id, &c));
    snprintf(path, sizeof path, "%s/ckpt.db", th_tmpdir());
    CHECK(store_job_resume_point(st, id, &it, &data, &len) == STORE_NOTFOUND);
    CHECK(data == NULL);

    REQUIRE(store_job_checkpoint_put(st, &c, 10, "ck@10", 5) == STORE_OK);
    REQUIRE(store_job_checkpoint_put(st, &c, 15, "ck@15", 5) == STORE_OK);
    CHECK_INT(sql_count(path, "SELECT count(*) FROM checkpoints"), 1);
    REQUIRE(store_job_resume_point(st, id, &it, &data, &len) == STORE_OK);
    CHECK(it == 15 && len == 5 && memcmp(data, "ck@15", 5) == 0);
    free(data);

    /* a newer snapshot of the spec wins, an older one does not */
    REQUIRE(store_snapshot_put(st, &c, 20, &b, 1, 3) == STORE_OK);
    REQUIRE(store_job_resume_point(st, id, &it, &data, &len) == STORE_OK);
    CHECK(it == 20 && len == 7 && memcmp(data, "snap@20", 7) == 0);
    free(data);
    REQUIRE(store_job_checkpoint_put(st, &c, 25, "ck@25", 5) == STORE_OK);
    REQUIRE(store_job_resume_point(st, id, &it, &data, &len) == STORE_OK);
    CHECK(it == 25 && memcmp(data, "ck@25", 5) == 0);
    free(data);
    {   /* the checkpoint is not one of the spec's snapshots */
        store_snapshot_info *si = NULL;
        size_t n = 0;
        REQUIRE(store_snapshot_list(st, id, &si, &n) == STORE_OK);
        CHECK_INT(n, 1);
        free(si);
    }

    /* a requeue keeps it (the next run resumes from it) */
    REQUIRE(store_job_requeue(st, &c) == STORE_OK);
    CHECK(store_job_checkpoint_put(st, &c, 30, "ck@30", 5) == STORE_STALE);
    store_job j = {0};
    REQUIRE(store_job_claim_next(st, &j) == STORE_OK);
    c = store_claim_of(&j);
    store_job_clear(&j);
    REQUIRE(store_job_resume_point(st, id, &it, &data, &len) == STORE_OK);
    CHECK_INT(it, 25);
    free(data);
    CHECK(store_job_checkpoint_put(st, &c, 30, NULL, 5) == STORE_INVALID);

    /* the end of the job drops it; the snapshot stays */
    REQUIRE(store_job_finish(st, &c, STORE_SUCCEEDED, "{}", NULL) == STORE_OK);
    CHECK_INT(sql_count(path, "SELECT count(*) FROM checkpoints"), 0);
    REQUIRE(store_job_resume_point(st, id, &it, &data, &len) == STORE_OK);
    CHECK_INT(it, 20);
    free(data);
    store_close(st);
}
