/*
 * test_store_migrate.c -- upgrading a store written by an earlier build:
 * a schema-3 file with a job and trace rows is opened by this build, which
 * must keep the old rows readable (the members added since unknown, not
 * zero); a schema-6 file's plain trace rows become compressed chunks that
 * read back bit for bit.
 */
#include <math.h>
#include <stdint.h>
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
    char path[512];
    store *st = NULL;
    store_trace_row *rows = NULL;
    size_t n = 0;
    tsu_path(path, sizeof path, "migrate3");
    REQUIRE(make_old_store(path, 3) == SQLITE_OK);
    REQUIRE(store_open(path, &st, NULL) == STORE_OK);

    /* old rows: the members schema 4 added read as unknown */
    REQUIRE(store_trace_read(st, "j_old", 0, 10, &rows, &n) == STORE_OK);
    CHECK_INT(n, 3);
    for (size_t i = 0; i < n; i++) {
        CHECK_INT(rows[i].iteration, i + 1);
        CHECK_NEAR(rows[i].g_x, 3.0 - (double)i, 0);
        CHECK_NEAR(rows[i].elapsed, ((const double[]){0.1, 0.2, 0.3})[i], 0);
        CHECK(isnan(rows[i].sigma) && isnan(rows[i].top_sv));
        CHECK_INT(rows[i].lmo_converged, -1);
        CHECK_INT(rows[i].backtracks, -1);
        CHECK_INT(rows[i].proj_full, -1);
        CHECK(isnan(rows[i].lambda));
    }
    free(rows);
    store_close(st);
}

/* Schema 6 -> 7: the plain rows of two jobs (600 and 3 rows, with NULLs,
 * zero and extreme values) become chunks that read back bit for
 * bit; the traces table goes, and appends go on after the converted rows. */
TEST(store_migrate, schema6_traces_become_chunks)
{
    char path[512], cols[1024];
    sqlite3 *db = NULL;
    sqlite3_stmt *ins = NULL;
    store *st = NULL;
    store_trace_row *rows = NULL;
    size_t n = 0;
    tsu_path(path, sizeof path, "migrate6");
    REQUIRE(make_old_store(path, 6) == SQLITE_OK);
    REQUIRE(sqlite3_open(path, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "INSERT INTO jobs(id, state, problem_type, created_at,"
                         " spec_json) VALUES('j_big', 'succeeded', 'least_squares', 1.0,"
                         " '{}')", NULL, NULL, NULL) == SQLITE_OK);
    REQUIRE(sqlite3_prepare_v2(db, "INSERT INTO traces(job_id, iteration, elapsed, g_x,"
                               " f_x, lmo_matvecs, rank, lmo_converged, lambda)"
                               " VALUES('j_big', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                               -1, &ins, NULL) == SQLITE_OK);
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    for (int t = 1; t <= 600; t++) {
        sqlite3_bind_int(ins, 1, 2 * t); /* every other iteration */
        sqlite3_bind_double(ins, 2, 1e-3 * t);
        sqlite3_bind_double(ins, 3, t == 5 ? -0.0 : 1.0 / t);
        if (t % 7)
            sqlite3_bind_double(ins, 4, t % 11 ? 1e300 / t : 4.9e-324);
        else
            sqlite3_bind_null(ins, 4);
        sqlite3_bind_int64(ins, 5, t == 9 ? INT64_MAX : t % 13);
        sqlite3_bind_int(ins, 6, t % 3);
        sqlite3_bind_int(ins, 7, t % 2);
        sqlite3_bind_double(ins, 8, -2.5 * t);
        CHECK(sqlite3_step(ins) == SQLITE_DONE);
        sqlite3_reset(ins);
    }
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_finalize(ins);
    sqlite3_close(db);

    REQUIRE(store_open(path, &st, NULL) == STORE_OK);
    columns(path, "traces", cols, sizeof cols);
    CHECK_STR(cols, "");
    columns(path, "trace_chunks", cols, sizeof cols);
    CHECK_STR(cols, "job_id,first,last,nrows,data");
    REQUIRE(store_trace_read(st, "j_big", 0, 1000, &rows, &n) == STORE_OK);
    CHECK_INT(n, 600);
    int same = n == 600;
    for (int t = 1; same && t <= 600; t++) {
        const store_trace_row *r = &rows[t - 1];
        double fx = t % 7 ? (t % 11 ? 1e300 / t : 4.9e-324) : NAN;
        double gx = t == 5 ? 0.0 : 1.0 / t; /* SQLite kept -0.0 as 0 */
        same = r->iteration == 2 * t && r->elapsed == 1e-3 * t &&
               r->g_x == gx &&
               (t % 7 ? r->f_x == fx : isnan(r->f_x)) &&
               r->lmo_matvecs == (t == 9 ? INT64_MAX : t % 13) && r->rank == t % 3 &&
               r->lmo_converged == t % 2 && r->backtracks == -1 &&
               r->lambda == -2.5 * t && isnan(r->sigma);
        if (!same)
            CHECK_INT(t, -1);
    }
    free(rows);
    REQUIRE(store_trace_read(st, "j_old", 0, 10, &rows, &n) == STORE_OK);
    CHECK_INT(n, 3);
    free(rows);
    /* the running job's trace goes on after its converted rows */
    store_job j = {0};
    REQUIRE(store_job_get(st, "j_old", &j) == STORE_OK);
    store_claim c = store_claim_of(&j);
    store_job_clear(&j);
    store_trace_row more = {.iteration = 4, .g_x = 0.5, .top_sv = NAN, .lambda = NAN};
    store_trace_row again = {.iteration = 3};
    CHECK(store_trace_append(st, &c, &again, 1) == STORE_CONFLICT);
    CHECK(store_trace_append(st, &c, &more, 1) == STORE_OK);
    REQUIRE(store_trace_read(st, "j_old", 2, 10, &rows, &n) == STORE_OK);
    CHECK(n == 2 && rows[0].iteration == 3 && rows[1].iteration == 4 && rows[1].g_x == 0.5);
    free(rows);
    store_close(st);
}
