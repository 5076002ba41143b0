/*
 * store_trace_migrate.c -- migration 7: the plain rows of the traces
 * table (schemas 2 to 6) become compressed chunks of trace_chunks, job by
 * job in iteration order, and the old table goes.  Runs inside the
 * migration's transaction: a file is upgraded whole or not at all.
 */
#include "store_int.h"
#include "store_trace_codec.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char SQL_OLD_ROWS[] =
    "SELECT job_id, iteration, elapsed, sigma, alpha, g_x, f_x, g_z, f_z, gap,"
    " g_gap_x, g_gap_z, lmo_seconds, lmo_matvecs, top_sv, rank,"
    " lmo_converged, backtracks, proj_full, lambda FROM traces"
    " ORDER BY job_id, iteration";

static double real_or_nan(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

static int count_or_unknown(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? -1 : sqlite3_column_int(s, i);
}

static void old_row(sqlite3_stmt *s, store_trace_row *r)
{
    double *v[] = {&r->elapsed, &r->sigma, &r->alpha, &r->g_x, &r->f_x, &r->g_z,
                   &r->f_z, &r->gap, &r->g_gap_x, &r->g_gap_z, &r->lmo_seconds};
    r->iteration = sqlite3_column_int64(s, 1);
    for (int i = 0; i < (int)(sizeof v / sizeof v[0]); i++)
        *v[i] = real_or_nan(s, 2 + i);
    r->lmo_matvecs = sqlite3_column_int64(s, 13);
    r->top_sv = real_or_nan(s, 14);
    r->rank = sqlite3_column_int(s, 15);
    r->lmo_converged = count_or_unknown(s, 16);
    r->backtracks = count_or_unknown(s, 17);
    r->proj_full = count_or_unknown(s, 18);
    r->lambda = real_or_nan(s, 19);
    r->certified = -1; /* the table had no bounds */
    r->inner_gap_x = r->inner_gap_z = r->g_lower = r->f_lower = NAN;
}

store_rc st_migrate_trace_chunks(store *st)
{
    sqlite3_stmt *s = NULL;
    store_trace_row rows[STC_CHUNK_ROWS];
    char job[STORE_JOB_ID_LEN + 16] = "";
    size_t n = 0;
    int r = sqlite3_prepare_v2(st->db, SQL_OLD_ROWS, -1, &s, NULL);
    store_rc rc = r == SQLITE_OK ? STORE_OK : st_sql(st, r, "migrate traces");
    while (rc == STORE_OK && (r = sqlite3_step(s)) == SQLITE_ROW) {
        const char *id = (const char *)sqlite3_column_text(s, 0);
        if (!id)
            continue;
        if (n == STC_CHUNK_ROWS || (n > 0 && strcmp(id, job) != 0)) {
            rc = st_trace_chunk_insert(st, job, rows, n);
            n = 0;
        }
        snprintf(job, sizeof job, "%s", id);
        old_row(s, &rows[n++]);
    }
    if (rc == STORE_OK && r != SQLITE_DONE)
        rc = st_sql(st, r, "migrate traces");
    if (rc == STORE_OK && n > 0)
        rc = st_trace_chunk_insert(st, job, rows, n);
    sqlite3_finalize(s);
    if (rc == STORE_OK && (r = sqlite3_exec(st->db, "DROP TABLE traces", NULL, NULL,
                                            NULL)) != SQLITE_OK)
        rc = st_sql(st, r, "migrate traces");
    return rc;
}
