/*
 * store_maintain.c -- keeping the file bounded: finished jobs' snapshots
 * pruned, old finished jobs deleted (retention), free pages returned.
 */
#include "store_int.h"

static const char SQL_PRUNE_FINISHED[] =
    "DELETE FROM snapshots WHERE rowid IN ("
    " SELECT s.rowid FROM snapshots s JOIN jobs j ON j.id = s.job_id"
    " WHERE j.state IN ('succeeded','failed','cancelled')"
    "  AND s.iteration NOT IN (SELECT DISTINCT iteration FROM snapshots"
    "   WHERE job_id = s.job_id ORDER BY iteration DESC LIMIT ?1))";
static const char SQL_RETAIN[] =
    "DELETE FROM jobs WHERE state IN ('succeeded','failed','cancelled')"
    " AND finished_at < ?1";

static store_rc maintain_tx(store *st, const store_bounds *b, int64_t *deleted)
{
    sqlite3_stmt *s = NULL;
    store_rc rc = STORE_OK;
    if (b->keep_snapshots > 0 && (rc = st_prep(st, SQL_PRUNE_FINISHED, &s)) == STORE_OK)
        rc = st_step_done(st, s, sqlite3_bind_int(s, 1, b->keep_snapshots),
                          "prune finished snapshots");
    if (rc == STORE_OK && b->retain_seconds > 0 &&
        (rc = st_prep(st, SQL_RETAIN, &s)) == STORE_OK) {
        /* traces, snapshots, events, checkpoints: ON DELETE CASCADE */
        rc = st_step_done(st, s,
                          sqlite3_bind_double(s, 1, store_now() - b->retain_seconds),
                          "retention");
        if (rc == STORE_OK && deleted)
            *deleted = sqlite3_changes64(st->db);
    }
    return rc;
}

store_rc store_maintain(store *st, const store_bounds *b, int64_t *deleted)
{
    if (deleted)
        *deleted = 0;
    if (!st || !b)
        return STORE_INVALID;
    store_rc rc = st_begin(st);
    if (rc == STORE_OK)
        rc = st_end(st, maintain_tx(st, b, deleted));
    /* outside the transaction; a no-op on files without auto_vacuum */
    if (rc == STORE_OK) {
        int x = sqlite3_exec(st->db, "PRAGMA incremental_vacuum", NULL, NULL, NULL);
        if (x != SQLITE_OK)
            rc = st_sql(st, x, "incremental_vacuum");
    }
    return rc;
}
