/*
 * store_checkpoints.c -- the server's crash checkpoints and the choice of
 * where a restarted job resumes.  The trace rows up to a checkpoint's
 * iteration are committed before it (the worker flushes first), so a
 * resume from it truncates the trace there and continues without a gap.
 */
#include "store_int.h"

#include <stdlib.h>

static const char SQL_CK_PUT[] =
    "INSERT INTO checkpoints(job_id, iteration, created_at, data)"
    " VALUES(?1, ?2, ?3, ?4) ON CONFLICT(job_id) DO UPDATE SET"
    " iteration = excluded.iteration, created_at = excluded.created_at,"
    " data = excluded.data";
/* Iterations only (no blobs): which of the two is newer. */
static const char SQL_CK_ITER[] =
    "SELECT iteration FROM checkpoints WHERE job_id = ?1";
static const char SQL_SN_STATE_ITER[] =
    "SELECT max(iteration) FROM snapshots WHERE job_id = ?1 AND kind = 'state'";
static const char SQL_CK_DATA[] =
    "SELECT data FROM checkpoints WHERE job_id = ?1";
static const char SQL_SN_STATE_DATA[] =
    "SELECT data FROM snapshots WHERE job_id = ?1 AND iteration = ?2"
    " AND kind = 'state'";

static store_rc put_tx(store *st, const store_claim *c, int64_t iteration,
                       const void *data, size_t len)
{
    sqlite3_stmt *s;
    store_rc rc = st_claim_held(st, c, "put checkpoint");
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_CK_PUT, &s);
    if (rc != STORE_OK)
        return rc;
    int b = sqlite3_bind_text(s, 1, c->id, -1, SQLITE_STATIC);
    b |= sqlite3_bind_int64(s, 2, iteration);
    b |= sqlite3_bind_double(s, 3, store_now());
    b |= sqlite3_bind_blob64(s, 4, len ? data : "", len, SQLITE_STATIC);
    return st_step_done(st, s, b, "put checkpoint");
}

store_rc store_job_checkpoint_put(store *st, const store_claim *c,
                                  int64_t iteration, const void *data,
                                  size_t len)
{
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    rc = st_check_claim(st, c);
    if (rc == STORE_OK && len && !data)
        rc = st_err(st, STORE_INVALID, "checkpoint: NULL data");
    if (rc == STORE_OK)
        rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    return st_end(st, put_tx(st, c, iteration, data, len));
}

/* The single integer of a one-row query; *found = 0 for no row or NULL. */
static store_rc query_iter(store *st, const char *sql, const char *id,
                           int64_t *v, int *found)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, sql, &s);
    int r;
    *found = 0;
    if (rc != STORE_OK)
        return rc;
    r = st_step(st, s, sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC));
    if (r == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
        *v = sqlite3_column_int64(s, 0);
        *found = 1;
    } else if (r != SQLITE_ROW && r != SQLITE_DONE) {
        rc = st_sql(st, r, "resume point");
    }
    st_reset(s);
    return rc;
}

/* The checkpoint's blob, or (snapshot) the 'state' snapshot's at
 * `iteration`. */
static store_rc read_blob(store *st, int snapshot, const char *id,
                          int64_t iteration, void **data, size_t *len)
{
    const char *sql = snapshot ? SQL_SN_STATE_DATA : SQL_CK_DATA;
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, sql, &s);
    int r;
    if (rc != STORE_OK)
        return rc;
    int b = sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    if (snapshot)
        b |= sqlite3_bind_int64(s, 2, iteration);
    r = st_step(st, s, b);
    if (r == SQLITE_ROW) {
        if (st_col_blobdup(s, 0, data, len) != 0)
            rc = st_err(st, STORE_NOMEM, "resume point: out of memory");
    } else {
        rc = r == SQLITE_DONE ? st_err(st, STORE_NOTFOUND, "resume point vanished")
                              : st_sql(st, r, "resume point");
    }
    st_reset(s);
    return rc;
}

/* In one read transaction, so a checkpoint replaced meanwhile cannot pair
 * one iteration with another's data.  snapshots = 0: the checkpoint only. */
static store_rc resume_tx(store *st, const char *id, int snapshots, int64_t *iteration,
                          void **data, size_t *len)
{
    int64_t ck = 0, sn = 0;
    int has_ck = 0, has_sn = 0;
    store_rc rc = query_iter(st, SQL_CK_ITER, id, &ck, &has_ck);
    if (rc == STORE_OK && snapshots)
        rc = query_iter(st, SQL_SN_STATE_ITER, id, &sn, &has_sn);
    if (rc == STORE_OK && !has_ck && !has_sn)
        return st_err(st, STORE_NOTFOUND, "job %s has no checkpoint", id);
    if (rc != STORE_OK)
        return rc;
    /* a tie: either holds the same state; the checkpoint is one row */
    int use_ck = has_ck && (!has_sn || ck >= sn);
    *iteration = use_ck ? ck : sn;
    return read_blob(st, !use_ck, id, *iteration, data, len);
}

static store_rc read_resume(store *st, const char *job_id, int snapshots,
                            int64_t *iteration, void **data, size_t *len)
{
    store_rc rc;
    if (!st || !iteration || !data || !len)
        return STORE_INVALID;
    *data = NULL;
    *len = 0;
    rc = st_check_id(st, job_id);
    if (rc != STORE_OK)
        return rc;
    int r = sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL);
    if (r != SQLITE_OK)
        return st_sql(st, r, "begin");
    rc = resume_tx(st, job_id, snapshots, iteration, data, len);
    sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL); /* read only */
    if (rc != STORE_OK) {
        free(*data);
        *data = NULL;
        *len = 0;
    }
    return rc;
}

store_rc store_job_resume_point(store *st, const char *job_id,
                                int64_t *iteration, void **data, size_t *len)
{
    return read_resume(st, job_id, 1, iteration, data, len);
}

store_rc store_job_checkpoint_get(store *st, const char *job_id, int64_t *iteration,
                                  void **data, size_t *len)
{
    return read_resume(st, job_id, 0, iteration, data, len);
}
