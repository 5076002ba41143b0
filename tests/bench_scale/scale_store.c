/*
 * scale_store.c -- the storage table of `make bench-scale` (issue 12,
 * item 4): N small least-norm jobs (the `ircg example least-norm` spec,
 * 2,000 iterations, a different seed each) solved by a real daemon, then
 * the file they leave: its size, the bytes of every table and index
 * (dbstat), and the trace's payload a row.
 */
#include <curl/curl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scale.h"
#include "store_trace_codec.h"

static const char SPEC[] =
    "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"synthetic\","
    "\"m\":30,\"n\":80,\"noise\":0,\"seed\":%d},\"domain\":{\"type\":\"l2_ball\","
    "\"radius\":8.4},\"outer\":{\"type\":\"half_norm_sq\"}},\"algorithm\":{\"name\":"
    "\"ircg\",\"step_rule\":\"open_loop\",\"varsigma\":0.05,\"p\":0.5,\"start\":"
    "\"default\",\"max_iter\":2000,\"time_limit\":60}}";

/* Submits job i (503 -- the queue is full -- waits and tries again). */
static int submit_one(const daemon_t *d, int i, char id[64])
{
    char spec[sizeof SPEC + 16];
    resp r;
    snprintf(spec, sizeof spec, SPEC, i + 1);
    for (int tries = 0; tries < 600; tries++) {
        if (sc_request(d, "POST", "/v1/jobs", spec, NULL, &r) != 0)
            return -1;
        if (r.status == 202) {
            sc_job_id(&r, id);
            return id[0] ? 0 : -1;
        }
        if (r.status != 503)
            break;
        usleep(100000);
    }
    fprintf(stderr, "bench_scale: submit of job %d: HTTP %ld %s\n", i, r.status, r.head);
    return -1;
}

/* Waits (up to 600 s) until job `id` has finished; 0 when it succeeded. */
static int wait_done(const daemon_t *d, const char *id)
{
    char path[160];
    resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    for (double end = sc_now() + 600; sc_now() < end; usleep(20000)) {
        if (sc_request(d, "GET", path, NULL, NULL, &r) != 0)
            return -1;
        if (strstr(r.head, "\"succeeded\""))
            return 0;
        if (strstr(r.head, "\"failed\"") || strstr(r.head, "\"cancelled\""))
            return -1;
    }
    return -1;
}

static int run_jobs(const sc_opts *o, const char *db, const char *data)
{
    daemon_t d = {0};
    char (*ids)[64] = calloc((size_t)o->storage_jobs, sizeof *ids);
    int rc = ids && sc_start_daemon(o, db, data, 2, &d) == 0 ? 0 : -1;
    double t0 = sc_now();
    for (int i = 0; rc == 0 && i < o->storage_jobs; i++)
        rc = submit_one(&d, i, ids[i]);
    for (int i = 0; rc == 0 && i < o->storage_jobs; i++)
        rc = wait_done(&d, ids[i]);
    fprintf(stderr, "bench_scale: %d least-norm jobs %s in %.1f s\n", o->storage_jobs,
            rc == 0 ? "solved" : "FAILED", sc_now() - t0);
    sc_stop_daemon(&d, SIGTERM); /* a clean stop checkpoints the WAL */
    free(ids);
    return rc;
}

static long long int_of(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    long long v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* Each table and index: pages, bytes on them, payload. */
static void dbstat_table(sqlite3 *db)
{
    sqlite3_stmt *s = NULL;
    printf("\n| table or index | pages | bytes | payload bytes | unused bytes |\n"
           "|---|---|---|---|---|\n");
    if (sqlite3_prepare_v2(db, "SELECT name, count(*), sum(pgsize), sum(payload),"
                           " sum(unused) FROM dbstat GROUP BY name ORDER BY 3 DESC",
                           -1, &s, NULL) != SQLITE_OK) {
        printf("(dbstat: %s)\n", sqlite3_errmsg(db));
        return;
    }
    while (sqlite3_step(s) == SQLITE_ROW)
        printf("| %s | %lld | %lld | %lld | %lld |\n", sqlite3_column_text(s, 0),
               sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2),
               sqlite3_column_int64(s, 3), sqlite3_column_int64(s, 4));
    sqlite3_finalize(s);
}

/* The chunk payload by column class: every chunk decoded, each class's
 * part of its body compressed alone (so the sum exceeds the payload by
 * zlib's per-stream overhead). */
static void class_table(sqlite3 *db, long long rows)
{
    static const char *const names[STC_NSEC] = {
        "iteration", "integer counts (5)", "timing (elapsed, lmo_seconds)",
        "schedule (sigma, alpha)", "objectives (g_x, f_x, g_z, f_z, gap)",
        "unknown here (g_gap_x, g_gap_z, top_sv, lambda)"};
    static store_trace_row buf[STC_CHUNK_ROWS];
    size_t bytes[STC_NSEC] = {0}, n;
    sqlite3_stmt *s = NULL;
    int bad = sqlite3_prepare_v2(db, "SELECT data FROM trace_chunks", -1, &s, NULL);
    while (!bad && sqlite3_step(s) == SQLITE_ROW)
        bad = stc_decode(sqlite3_column_blob(s, 0), (size_t)sqlite3_column_bytes(s, 0), buf,
                         &n) || stc_class_bytes(buf, n, bytes);
    sqlite3_finalize(s);
    printf("\n| column class | bytes a row |\n|---|---|\n");
    for (int k = 0; k < STC_NSEC && !bad && rows > 0; k++)
        printf("| %s | %.2f |\n", names[k], (double)bytes[k] / (double)rows);
    if (bad)
        printf("(a chunk did not decode)\n");
}

static void report(const sc_opts *o, const char *path)
{
    struct stat st;
    sqlite3 *db = NULL;
    if (stat(path, &st) != 0 || sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL)) {
        fprintf(stderr, "bench_scale: cannot read %s\n", path);
        sqlite3_close(db);
        return;
    }
    long long rows = int_of(db, "SELECT sum(nrows) FROM trace_chunks");
    long long payload = int_of(db, "SELECT sum(length(data)) FROM trace_chunks");
    printf("\nstorage: %d least-norm jobs (2,000 iterations each) leave %s\n\n"
           "| file MB | pages | free pages | trace rows | chunks | chunk payload B/row |"
           " file B/row |\n|---|---|---|---|---|---|---|\n"
           "| %.1f | %lld | %lld | %lld | %lld | %.1f | %.1f |\n",
           o->storage_jobs, path, (double)st.st_size / 1e6,
           int_of(db, "PRAGMA page_count"), int_of(db, "PRAGMA freelist_count"), rows,
           int_of(db, "SELECT count(*) FROM trace_chunks"),
           rows > 0 ? (double)payload / (double)rows : 0,
           rows > 0 ? (double)st.st_size / (double)rows : 0);
    class_table(db, rows);
    dbstat_table(db);
    sqlite3_close(db);
    fflush(stdout);
}

int sc_storage(const sc_opts *o)
{
    char db[1100], data[1100], side[1200];
    snprintf(db, sizeof db, "%s/storage.db", o->tmp);
    snprintf(data, sizeof data, "%s/data", o->tmp);
    remove(db);
    snprintf(side, sizeof side, "%s-wal", db);
    remove(side);
    snprintf(side, sizeof side, "%s-shm", db);
    remove(side);
    mkdir(data, 0755);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int rc = run_jobs(o, db, data);
    curl_global_cleanup();
    if (rc == 0)
        report(o, db);
    return rc;
}
