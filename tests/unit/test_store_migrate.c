/*
 * test_store_migrate.c -- upgrading a store written by an earlier build:
 * a schema-3 file with a job and trace rows is opened by this build, which
 * must append the new columns where the formats expect them and keep the
 * old rows readable (their new members unknown, not zero).
 */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store_schema.h"
#include "test_store_util.h"

/* A file at schema version `v`, made of the first v migrations, with one
 * running job "j_old" (attempt 1) and trace rows 1..3 of it. */
static int make_old_store(const char *path, int v)
{
    sqlite3 *db = NULL;
    char sql[64];
    int rc = sqlite3_open(path, &db);
    for (int i = 0; rc == SQLITE_OK && i < v; i++)
        rc = sqlite3_exec(db, store_migrations[i], NULL, NULL, NULL);
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(
            db,
            "INSERT INTO jobs(id, state, problem_type, created_at, attempt,"
            " spec_json) VALUES('j_old', 'running', 'least_squares', 1.0, 1,"
            " '{}');"
            "INSERT INTO traces(job_id, iteration, elapsed, g_x, rank)"
            " VALUES('j_old', 1, 0.1, 3.0, 0), ('j_old', 2, 0.2, 2.0, 0),"
            " ('j_old', 3, 0.3, 1.0, 0);",
            NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

/* Names of the columns of `table`, in order, comma-separated. */
static void columns(const char *path, const char *table, char *out, size_t len)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    char sql[128];
    size_t n = 0;
    out[0] = '\0';
    snprintf(sql, sizeof sql, "SELECT name FROM pragma_table_info('%s')", table);
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK)
        while (sqlite3_step(s) == SQLITE_ROW && n + 1 < len)
            n += (size_t)snprintf(out + n, len - n, "%s%s", n ? "," : "",
                                  (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    sqlite3_close(db);
}

TEST(store_migrate, schema3_traces_gain_solver_details)
{
    char path[512], cols[1024];
    store *st = NULL;
    store_trace_row *rows = NULL;
    size_t n = 0;
    tsu_path(path, sizeof path, "migrate3");
    REQUIRE(make_old_store(path, 3) == SQLITE_OK);
    REQUIRE(store_open(path, &st, NULL) == STORE_OK);

    /* the four columns come last, in the order of ircg_iter_info */
    columns(path, "traces", cols, sizeof cols);
    CHECK_STR(cols, "job_id,iteration,elapsed,sigma,alpha,g_x,f_x,g_z,f_z,gap,"
                    "g_gap_x,g_gap_z,lmo_seconds,lmo_matvecs,top_sv,rank,"
                    "lmo_converged,backtracks,proj_full,lambda");

    /* old rows: the new members read as unknown */
    REQUIRE(store_trace_read(st, "j_old", 0, 10, &rows, &n) == STORE_OK);
    CHECK_INT(n, 3);
    for (size_t i = 0; i < n; i++) {
        CHECK_INT(rows[i].iteration, i + 1);
        CHECK_NEAR(rows[i].g_x, 3.0 - (double)i, 0);
        CHECK_INT(rows[i].lmo_converged, -1);
        CHECK_INT(rows[i].backtracks, -1);
        CHECK_INT(rows[i].proj_full, -1);
        CHECK(isnan(rows[i].lambda));
    }
    free(rows);
    store_close(st);
}
