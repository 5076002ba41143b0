/*
 * store_snapshots.c -- iterate snapshots and solver checkpoints as BLOBs,
 * pruned to the last K snapshot iterations of each job in the same
 * transaction as the insert (the table never holds more than K + 1).
 */
#include <assert.h>

#include "store_int.h"

#include <stdlib.h>
#include <string.h>

static const char *const KIND_NAMES[] = {"state", "x", "z"};
enum { NKINDS = (int)(sizeof KIND_NAMES / sizeof KIND_NAMES[0]) };

const char *store_snap_kind_name(store_snap_kind k)
{
    return (unsigned)k < NKINDS ? KIND_NAMES[k] : "unknown";
}

store_rc store_snap_kind_parse(const char *name, store_snap_kind *out)
{
    for (int i = 0; name && i < NKINDS; i++) {
        if (strcmp(name, KIND_NAMES[i]) == 0) {
            *out = (store_snap_kind)i;
            return STORE_OK;
        }
    }
    return STORE_INVALID;
}

/* A resumed job may write the same (iteration, kind) again: replace. */
static const char SQL_SN_PUT[] =
    "INSERT INTO snapshots(job_id, iteration, kind, bytes, created_at, data)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6)"
    " ON CONFLICT(job_id, iteration, kind) DO UPDATE SET"
    " bytes = excluded.bytes, created_at = excluded.created_at,"
    " data = excluded.data";
/* Keeps the keep_last highest snapshot iterations (all kinds of each). */
static const char SQL_SN_PRUNE[] =
    "DELETE FROM snapshots WHERE job_id = ?1 AND iteration NOT IN"
    " (SELECT DISTINCT iteration FROM snapshots WHERE job_id = ?1"
    "  ORDER BY iteration DESC LIMIT ?2)";
static const char SQL_SN_LIST[] =
    "SELECT iteration, kind, bytes, created_at FROM snapshots"
    " WHERE job_id = ?1 ORDER BY iteration, kind";
enum { SL_ITERATION, SL_KIND, SL_BYTES, SL_CREATED_AT }; /* its columns */
static const char SQL_SN_GET[] =
    "SELECT data, bytes, created_at FROM snapshots"
    " WHERE job_id = ?1 AND iteration = ?2 AND kind = ?3";
static const char SQL_SN_LATEST[] =
    "SELECT iteration, data FROM snapshots WHERE job_id = ?1"
    " AND kind = 'state' ORDER BY iteration DESC LIMIT 1";

static const char SQL_SN_HEAD[] =
    "SELECT rowid, iteration, bytes FROM snapshots WHERE job_id = ?1"
    " AND kind = ?3 AND (?2 = 0 OR iteration = ?2)"
    " ORDER BY iteration DESC LIMIT 1";

static store_rc put_one(store *st, sqlite3_stmt *s, const char *job_id,
                        int64_t iteration, const store_snapshot_blob *blob)
{
    int b;
    if ((unsigned)blob->kind >= NKINDS || (blob->len && !blob->data))
        return st_err(st, STORE_INVALID, "snapshot: bad kind or NULL data");
    b = sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
    b |= sqlite3_bind_int64(s, 2, iteration);
    b |= sqlite3_bind_text(s, 3, KIND_NAMES[blob->kind], -1, SQLITE_STATIC);
    b |= sqlite3_bind_int64(s, 4, (sqlite3_int64)blob->len);
    b |= sqlite3_bind_double(s, 5, store_now());
    /* The buffer outlives the step (reset in st_step_done): no copy.  A
     * blob over SQLite's length limit fails here with SQLITE_TOOBIG. */
    if (blob->len)
        b |= sqlite3_bind_blob64(s, 6, blob->data, blob->len, SQLITE_STATIC);
    else
        b |= sqlite3_bind_zeroblob(s, 6, 0);
    return st_step_done(st, s, b, "put snapshot");
}

static store_rc prune(store *st, const char *job_id, int keep_last)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_SN_PRUNE, &s);
    int b;
    if (rc != STORE_OK)
        return rc;
    b = sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
    b |= sqlite3_bind_int(s, 2, keep_last);
    return st_step_done(st, s, b, "prune snapshots");
}

static store_rc put_tx(store *st, const store_claim *c, int64_t iteration,
                       const store_snapshot_blob *blobs, size_t n,
                       int keep_last)
{
    sqlite3_stmt *s;
    store_rc rc = st_claim_held(st, c, "put snapshot");
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_SN_PUT, &s);
    assert(blobs && n > 0); /* store_snapshot_put refuses none */
    for (size_t i = 0; rc == STORE_OK && i < n; i++)
        rc = put_one(st, s, c->id, iteration, &blobs[i]);
    if (rc == STORE_OK && keep_last > 0)
        rc = prune(st, c->id, keep_last);
    return rc;
}

store_rc store_snapshot_put(store *st, const store_claim *c, int64_t iteration,
                            const store_snapshot_blob *blobs, size_t n,
                            int keep_last)
{
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    rc = st_check_claim(st, c);
    if (rc == STORE_OK && (!blobs || n == 0))
        rc = st_err(st, STORE_INVALID, "snapshot: no blobs");
    if (rc == STORE_OK)
        rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    return st_end(st, put_tx(st, c, iteration, blobs, n, keep_last));
}

static store_rc list_rows(store *st, sqlite3_stmt *s, int b,
                          store_snapshot_info **out, size_t *n)
{
    size_t cap = 0;
    int r;
    while ((r = st_step(st, s, b)) == SQLITE_ROW) {
        store_snapshot_info *e;
        if (*n == cap) {
            void *p = realloc(*out, (cap = cap ? 2 * cap : 8) * sizeof **out);
            if (!p)
                return st_err(st, STORE_NOMEM, "snapshots: out of memory");
            *out = p;
        }
        e = &(*out)[(*n)++];
        e->iteration = sqlite3_column_int64(s, SL_ITERATION);
        e->kind = STORE_SNAP_STATE;
        store_snap_kind_parse((const char *)sqlite3_column_text(s, SL_KIND), &e->kind);
        e->bytes = sqlite3_column_int64(s, SL_BYTES);
        e->created_at = st_col_real(s, SL_CREATED_AT);
    }
    return r == SQLITE_DONE ? STORE_OK : st_sql(st, r, "list snapshots");
}

store_rc store_snapshot_list(store *st, const char *job_id,
                             store_snapshot_info **out, size_t *n)
{
    sqlite3_stmt *s = NULL;
    store_rc rc;
    if (!st || !out || !n)
        return STORE_INVALID;
    *out = NULL;
    *n = 0;
    rc = st_check_id(st, job_id);
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_SN_LIST, &s);
    if (rc == STORE_OK) {
        int b = sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
        rc = list_rows(st, s, b, out, n);
    }
    st_reset(s);
    if (rc != STORE_OK || *n == 0) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static store_rc get_row(store *st, sqlite3_stmt *s, int b, void **data,
                        size_t *len, store_snapshot_info *info)
{
    int r = st_step(st, s, b);
    if (r == SQLITE_DONE)
        return st_err(st, STORE_NOTFOUND, "no such snapshot");
    if (r != SQLITE_ROW)
        return st_sql(st, r, "get snapshot");
    if (info) {
        info->bytes = sqlite3_column_int64(s, 1);
        info->created_at = st_col_real(s, 2);
    }
    if (st_col_blobdup(s, 0, data, len) != 0)
        return st_err(st, STORE_NOMEM, "snapshot: out of memory");
    return STORE_OK;
}

store_rc store_snapshot_get(store *st, const char *job_id, int64_t iteration,
                            store_snap_kind kind, void **data, size_t *len,
                            store_snapshot_info *info)
{
    sqlite3_stmt *s = NULL;
    store_rc rc;
    if (!st || !data || !len)
        return STORE_INVALID;
    *data = NULL;
    *len = 0;
    rc = st_check_id(st, job_id);
    if (rc == STORE_OK && (unsigned)kind >= NKINDS)
        rc = st_err(st, STORE_INVALID, "snapshot: bad kind");
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_SN_GET, &s);
    if (rc == STORE_OK) {
        int b = sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
        b |= sqlite3_bind_int64(s, 2, iteration);
        b |= sqlite3_bind_text(s, 3, KIND_NAMES[kind], -1, SQLITE_STATIC);
        if (info) {
            info->iteration = iteration;
            info->kind = kind;
        }
        rc = get_row(st, s, b, data, len, info);
    }
    st_reset(s);
    return rc;
}

store_rc store_snapshot_latest_state(store *st, const char *job_id,
                                     int64_t *iteration, void **data,
                                     size_t *len)
{
    sqlite3_stmt *s = NULL;
    store_rc rc;
    int r;
    if (!st || !iteration || !data || !len)
        return STORE_INVALID;
    *data = NULL;
    *len = 0;
    rc = st_check_id(st, job_id);
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_SN_LATEST, &s);
    if (rc == STORE_OK) {
        int b = sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
        r = st_step(st, s, b);
        if (r == SQLITE_DONE)
            rc = st_err(st, STORE_NOTFOUND, "job %s has no state snapshot",
                        job_id);
        else if (r != SQLITE_ROW)
            rc = st_sql(st, r, "latest snapshot");
        else if (st_col_blobdup(s, 1, data, len) != 0)
            rc = st_err(st, STORE_NOMEM, "snapshot: out of memory");
        else
            *iteration = sqlite3_column_int64(s, 0);
    }
    st_reset(s);
    return rc;
}

/* The row by SQL, then its first bytes by incremental blob I/O (the rest
 * of a large blob is never read). */
static store_rc head_of(store *st, sqlite3_stmt *s, int b, void *buf, size_t cap,
                        size_t *len, int64_t *at)
{
    sqlite3_blob *blob = NULL;
    int r = st_step(st, s, b);
    if (r == SQLITE_DONE)
        return st_err(st, STORE_NOTFOUND, "no such snapshot");
    if (r != SQLITE_ROW)
        return st_sql(st, r, "snapshot head");
    sqlite3_int64 rowid = sqlite3_column_int64(s, 0);
    int64_t bytes = sqlite3_column_int64(s, 2);
    size_t n = bytes < 0 ? 0 : (uint64_t)bytes < cap ? (size_t)bytes : cap;
    if (at)
        *at = sqlite3_column_int64(s, 1);
    r = sqlite3_blob_open(st->db, "main", "snapshots", "data", rowid, 0, &blob);
    if (r == SQLITE_OK && n > 0)
        r = sqlite3_blob_read(blob, buf, (int)n, 0);
    sqlite3_blob_close(blob);
    if (r != SQLITE_OK)
        return st_sql(st, r, "snapshot head");
    if (len)
        *len = n;
    return STORE_OK;
}

store_rc store_snapshot_head(store *st, const char *job_id, int64_t iteration,
                             store_snap_kind kind, void *buf, size_t cap,
                             size_t *len, int64_t *at)
{
    sqlite3_stmt *s = NULL;
    store_rc rc;
    if (!st || (!buf && cap) || cap > (1u << 30) || iteration < 0)
        return STORE_INVALID;
    rc = st_check_id(st, job_id);
    if (rc == STORE_OK && (unsigned)kind >= NKINDS)
        rc = st_err(st, STORE_INVALID, "snapshot: bad kind");
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_SN_HEAD, &s);
    if (rc == STORE_OK) {
        int b = sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
        b |= sqlite3_bind_int64(s, 2, iteration);
        b |= sqlite3_bind_text(s, 3, KIND_NAMES[kind], -1, SQLITE_STATIC);
        rc = head_of(st, s, b, buf, cap, len, at);
    }
    st_reset(s);
    return rc;
}
