/*
 * store_trace.c -- per-iteration trace rows.  The worker buffers rows and
 * appends them in batches (one transaction per batch bounds the commit
 * rate); readers page with an iteration cursor.
 */
#include "store_int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The trace's columns in the order of SQL_TR_READ; SQL_TR_INSERT binds
 * job_id as ?1 and column c as ?(c + 2). */
enum trace_col {
    TC_ITERATION, TC_ELAPSED, TC_SIGMA, TC_ALPHA, TC_G_X, TC_F_X, TC_G_Z, TC_F_Z,
    TC_GAP, TC_G_GAP_X, TC_G_GAP_Z, TC_LMO_SECONDS, TC_LMO_MATVECS, TC_TOP_SV,
    TC_RANK, TC_LMO_CONVERGED, TC_BACKTRACKS, TC_PROJ_FULL, TC_LAMBDA, TC_COUNT
};
#define TC_PARAM(c) ((c) + 2)

static const char SQL_TR_INSERT[] =
    "INSERT INTO traces(job_id, iteration, elapsed, sigma, alpha, g_x, f_x,"
    " g_z, f_z, gap, g_gap_x, g_gap_z, lmo_seconds, lmo_matvecs, top_sv,"
    " rank, lmo_converged, backtracks, proj_full, lambda) VALUES(?1, ?2, ?3,"
    " ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
    " ?19, ?20)";
static const char SQL_TR_READ[] =
    "SELECT iteration, elapsed, sigma, alpha, g_x, f_x, g_z, f_z, gap,"
    " g_gap_x, g_gap_z, lmo_seconds, lmo_matvecs, top_sv, rank,"
    " lmo_converged, backtracks, proj_full, lambda FROM traces"
    " WHERE job_id = ?1 AND iteration > ?2 ORDER BY iteration LIMIT ?3";
static const char SQL_TR_TRUNC[] =
    "DELETE FROM traces WHERE job_id = ?1 AND iteration > ?2";

/* A negative count is "unknown": NULL, like NaN for the doubles. */
static int bind_count(sqlite3_stmt *s, int i, int v)
{
    return v < 0 ? sqlite3_bind_null(s, i) : sqlite3_bind_int(s, i, v);
}

static int col_count(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? -1
                                                    : sqlite3_column_int(s, i);
}

static int bind_row(sqlite3_stmt *s, const store_trace_row *r)
{
    /* Every double goes through st_bind_real: NaN becomes NULL.  These are
     * the columns TC_ELAPSED .. TC_LMO_SECONDS, in order. */
    const double v[] = {r->elapsed, r->sigma, r->alpha, r->g_x,
                        r->f_x,     r->g_z,   r->f_z,   r->gap,
                        r->g_gap_x, r->g_gap_z, r->lmo_seconds};
    int b = sqlite3_bind_int64(s, TC_PARAM(TC_ITERATION), r->iteration);
    for (int i = 0; i < (int)(sizeof v / sizeof v[0]); i++)
        b |= st_bind_real(s, TC_PARAM(TC_ELAPSED + i), v[i]);
    b |= sqlite3_bind_int64(s, TC_PARAM(TC_LMO_MATVECS), r->lmo_matvecs);
    b |= st_bind_real(s, TC_PARAM(TC_TOP_SV), r->top_sv);
    b |= sqlite3_bind_int(s, TC_PARAM(TC_RANK), r->rank);
    b |= bind_count(s, TC_PARAM(TC_LMO_CONVERGED), r->lmo_converged);
    b |= bind_count(s, TC_PARAM(TC_BACKTRACKS), r->backtracks);
    b |= bind_count(s, TC_PARAM(TC_PROJ_FULL), r->proj_full);
    b |= st_bind_real(s, TC_PARAM(TC_LAMBDA), r->lambda);
    return b;
}

static store_rc append_tx(store *st, const store_claim *c,
                          const store_trace_row *rows, size_t n)
{
    sqlite3_stmt *s;
    store_rc rc = st_claim_held(st, c, "append trace");
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_TR_INSERT, &s);
    for (size_t i = 0; rc == STORE_OK && i < n; i++) {
        int b = sqlite3_bind_text(s, 1, c->id, -1, SQLITE_STATIC);
        b |= bind_row(s, &rows[i]);
        rc = st_step_done(st, s, b, "append trace");
    }
    if (rc == STORE_CONFLICT)
        rc = st_err(st, rc, "trace of job %s already has one of these "
                    "iterations (truncate before resuming)", c->id);
    return rc;
}

store_rc store_trace_append(store *st, const store_claim *c,
                            const store_trace_row *rows, size_t n)
{
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    rc = st_check_claim(st, c);
    if (rc == STORE_OK && n && !rows)
        rc = st_err(st, STORE_INVALID, "trace: rows is NULL");
    if (rc != STORE_OK || n == 0)
        return rc;
    rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    return st_end(st, append_tx(st, c, rows, n));
}

static void read_row(sqlite3_stmt *s, store_trace_row *r)
{
    double *v[] = {&r->elapsed, &r->sigma, &r->alpha, &r->g_x,
                   &r->f_x,     &r->g_z,   &r->f_z,   &r->gap,
                   &r->g_gap_x, &r->g_gap_z, &r->lmo_seconds};
    assert(sqlite3_column_count(s) == TC_COUNT);
    r->iteration = sqlite3_column_int64(s, TC_ITERATION);
    for (int i = 0; i < (int)(sizeof v / sizeof v[0]); i++)
        *v[i] = st_col_real(s, TC_ELAPSED + i);
    r->lmo_matvecs = sqlite3_column_int64(s, TC_LMO_MATVECS);
    r->top_sv = st_col_real(s, TC_TOP_SV);
    r->rank = sqlite3_column_int(s, TC_RANK);
    r->lmo_converged = col_count(s, TC_LMO_CONVERGED);
    r->backtracks = col_count(s, TC_BACKTRACKS);
    r->proj_full = col_count(s, TC_PROJ_FULL);
    r->lambda = st_col_real(s, TC_LAMBDA);
}

static store_rc read_rows(store *st, sqlite3_stmt *s, int b, size_t limit,
                          store_trace_row *rows, size_t *n)
{
    int r = SQLITE_DONE;
    assert(rows || limit == 0);
    while (*n < limit && (r = st_step(st, s, b)) == SQLITE_ROW)
        read_row(s, &rows[(*n)++]);
    return *n == limit || r == SQLITE_DONE ? STORE_OK
                                           : st_sql(st, r, "read trace");
}

store_rc store_trace_read(store *st, const char *job_id, int64_t after,
                          size_t limit, store_trace_row **rows, size_t *n)
{
    sqlite3_stmt *s = NULL;
    store_rc rc;
    if (!st || !rows || !n)
        return STORE_INVALID;
    *rows = NULL;
    *n = 0;
    rc = st_check_id(st, job_id);
    if (rc == STORE_OK && (limit < 1 || limit > 100000))
        rc = st_err(st, STORE_INVALID, "trace: limit must be 1..100000");
    if (rc == STORE_OK && !(*rows = malloc(limit * sizeof **rows)))
        rc = st_err(st, STORE_NOMEM, "trace: out of memory");
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_TR_READ, &s);
    if (rc == STORE_OK) {
        int b = sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
        b |= sqlite3_bind_int64(s, 2, after);
        b |= sqlite3_bind_int64(s, 3, (sqlite3_int64)limit);
        rc = read_rows(st, s, b, limit, *rows, n);
    }
    st_reset(s);
    if (rc != STORE_OK || *n == 0) {
        free(*rows);
        *rows = NULL;
        *n = 0;
    }
    return rc;
}

store_rc store_trace_truncate(store *st, const store_claim *c,
                              int64_t after_iteration)
{
    sqlite3_stmt *s;
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    rc = st_check_claim(st, c);
    if (rc == STORE_OK)
        rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    rc = st_claim_held(st, c, "truncate trace");
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_TR_TRUNC, &s);
    if (rc == STORE_OK) {
        int b = sqlite3_bind_text(s, 1, c->id, -1, SQLITE_STATIC);
        b |= sqlite3_bind_int64(s, 2, after_iteration);
        rc = st_step_done(st, s, b, "truncate trace");
    }
    return st_end(st, rc);
}
