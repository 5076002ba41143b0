/*
 * store_trace.c -- per-iteration trace rows, kept as compressed columnar
 * chunks of up to STC_CHUNK_ROWS rows (store_trace_codec.h) in the table
 * trace_chunks (job_id, first, last, nrows, data): a few dozen bytes a
 * row instead of ~140 as plain rows.
 *
 * The worker appends rows in batches, one transaction per batch: the
 * batch fills up the job's last chunk (decoded, extended, encoded again)
 * and goes on in new chunks, all or nothing.  A truncation deletes the
 * chunks after the cursor and cuts the one that holds it.  Readers page
 * with an iteration cursor: the chunks whose last iteration is past it,
 * decoded in order.
 */
#include "store_int.h"
#include "store_trace_codec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static const char SQL_TC_LAST[] =
    "SELECT rowid, first, last, data FROM trace_chunks WHERE job_id = ?1"
    " ORDER BY first DESC LIMIT 1";
static const char SQL_TC_INSERT[] =
    "INSERT INTO trace_chunks(job_id, first, last, nrows, data)"
    " VALUES(?1, ?2, ?3, ?4, ?5)";
static const char SQL_TC_UPDATE[] =
    "UPDATE trace_chunks SET last = ?2, nrows = ?3, data = ?4 WHERE rowid = ?1";
static const char SQL_TC_READ[] =
    "SELECT data FROM trace_chunks WHERE job_id = ?1 AND last > ?2"
    " ORDER BY first";
static const char SQL_TC_CUT[] =
    "SELECT rowid, first, last, data FROM trace_chunks WHERE job_id = ?1"
    " AND first <= ?2 AND last > ?2";
static const char SQL_TC_DROP[] =
    "DELETE FROM trace_chunks WHERE job_id = ?1 AND first > ?2";

/* A chunk as the table holds it. */
typedef struct chunk {
    sqlite3_int64 rowid;     /* 0: none */
    int64_t first, last;
    store_trace_row rows[STC_CHUNK_ROWS];
    size_t n;
} chunk;

static store_rc decode_col(store *st, sqlite3_stmt *s, int i, chunk *k)
{
    const void *p = sqlite3_column_blob(s, i);
    int len = sqlite3_column_bytes(s, i);
    k->n = 0;
    if (!p || stc_decode(p, (size_t)len, k->rows, &k->n) != 0)
        return st_err(st, STORE_ERROR, "trace: a chunk is damaged");
    return STORE_OK;
}

/* The row of SQL_TC_LAST or SQL_TC_CUT, decoded (k->rowid = 0: none). */
static store_rc load_chunk(store *st, sqlite3_stmt *s, int b, chunk *k)
{
    int r = st_step(st, s, b);
    store_rc rc = STORE_OK;
    k->rowid = 0;
    k->n = 0;
    if (r == SQLITE_ROW) {
        k->rowid = sqlite3_column_int64(s, 0);
        k->first = sqlite3_column_int64(s, 1);
        k->last = sqlite3_column_int64(s, 2);
        rc = decode_col(st, s, 3, k);
    } else if (r != SQLITE_DONE) {
        rc = st_sql(st, r, "trace chunk");
    }
    st_reset(s);
    return rc;
}

/* Writes rows[0..n) as the chunk `rowid` (0: a new one). */
static store_rc put_chunk(store *st, const char *job_id, sqlite3_int64 rowid,
                          const store_trace_row *rows, size_t n)
{
    unsigned char *data = NULL;
    size_t len = 0;
    sqlite3_stmt *s;
    int b;
    assert(rows && n > 0 && n <= STC_CHUNK_ROWS);
    if (stc_encode(rows, n, &data, &len) != 0)
        return st_err(st, STORE_NOMEM, "trace: out of memory");
    store_rc rc = st_prep(st, rowid ? SQL_TC_UPDATE : SQL_TC_INSERT, &s);
    if (rc == STORE_OK && rowid) {
        b = sqlite3_bind_int64(s, 1, rowid);
        b |= sqlite3_bind_int64(s, 2, rows[n - 1].iteration);
        b |= sqlite3_bind_int64(s, 3, (sqlite3_int64)n);
        b |= sqlite3_bind_blob64(s, 4, data, len, SQLITE_STATIC);
        rc = st_step_done(st, s, b, "append trace");
    } else if (rc == STORE_OK) {
        b = sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
        b |= sqlite3_bind_int64(s, 2, rows[0].iteration);
        b |= sqlite3_bind_int64(s, 3, rows[n - 1].iteration);
        b |= sqlite3_bind_int64(s, 4, (sqlite3_int64)n);
        b |= sqlite3_bind_blob64(s, 5, data, len, SQLITE_STATIC);
        rc = st_step_done(st, s, b, "append trace");
    }
    free(data);
    return rc;
}

store_rc st_trace_chunk_insert(store *st, const char *job_id,
                               const store_trace_row *rows, size_t n)
{
    return put_chunk(st, job_id, 0, rows, n);
}

/* rows[0..n) after the job's stored rows: the last chunk filled up, then
 * new chunks.  `k` is scratch. */
static store_rc trace_put(store *st, const char *job_id, const store_trace_row *rows,
                      size_t n, chunk *k)
{
    sqlite3_stmt *s;
    assert(rows && n > 0 && k);
    store_rc rc = st_prep(st, SQL_TC_LAST, &s);
    if (rc == STORE_OK)
        rc = load_chunk(st, s, sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC), k);
    for (size_t i = 1; rc == STORE_OK && i < n; i++)
        if (rows[i].iteration <= rows[i - 1].iteration)
            rc = st_err(st, STORE_CONFLICT, "trace of job %s: rows must come in "
                        "ascending iteration order", job_id);
    if (rc == STORE_OK && k->rowid && rows[0].iteration <= k->last)
        rc = st_err(st, STORE_CONFLICT, "trace of job %s already has rows up to "
                    "iteration %lld (truncate before resuming)", job_id,
                    (long long)k->last);
    size_t done = 0;
    if (rc == STORE_OK && k->rowid && k->n < STC_CHUNK_ROWS) {
        done = STC_CHUNK_ROWS - k->n < n ? STC_CHUNK_ROWS - k->n : n;
        memcpy(k->rows + k->n, rows, done * sizeof *rows);
        rc = put_chunk(st, job_id, k->rowid, k->rows, k->n + done);
    }
    for (; rc == STORE_OK && done < n; done += STC_CHUNK_ROWS)
        rc = put_chunk(st, job_id, 0, rows + done,
                       n - done < STC_CHUNK_ROWS ? n - done : STC_CHUNK_ROWS);
    return rc;
}

static store_rc append_tx(store *st, const store_claim *c,
                          const store_trace_row *rows, size_t n)
{
    store_rc rc = st_claim_held(st, c, "append trace");
    if (rc != STORE_OK)
        return rc;
    chunk *k = malloc(sizeof *k);
    if (!k)
        return st_err(st, STORE_NOMEM, "trace: out of memory");
    rc = trace_put(st, c->id, rows, n, k);
    free(k);
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

/* The chunks past `after`, decoded, until `limit` rows are read. */
static store_rc read_chunks(store *st, sqlite3_stmt *s, int b, int64_t after,
                            size_t limit, store_trace_row *rows, size_t *n)
{
    chunk *k = malloc(sizeof *k);
    int r = SQLITE_DONE;
    store_rc rc = STORE_OK;
    if (!k)
        return st_err(st, STORE_NOMEM, "trace: out of memory");
    assert(rows || limit == 0);
    while (rc == STORE_OK && *n < limit && (r = st_step(st, s, b)) == SQLITE_ROW) {
        rc = decode_col(st, s, 0, k);
        for (size_t i = 0; rc == STORE_OK && i < k->n && *n < limit; i++)
            if (k->rows[i].iteration > after)
                rows[(*n)++] = k->rows[i];
    }
    free(k);
    if (rc == STORE_OK && *n < limit && r != SQLITE_DONE)
        rc = st_sql(st, r, "read trace");
    return rc;
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
        rc = st_prep(st, SQL_TC_READ, &s);
    if (rc == STORE_OK) {
        int b = sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
        b |= sqlite3_bind_int64(s, 2, after);
        rc = read_chunks(st, s, b, after, limit, *rows, n);
    }
    st_reset(s);
    if (rc != STORE_OK || *n == 0) {
        free(*rows);
        *rows = NULL;
        *n = 0;
    }
    return rc;
}

/* Rows after `after` deleted: whole chunks, and the part of the chunk
 * that holds `after`. */
static store_rc truncate_tx(store *st, const store_claim *c, int64_t after)
{
    sqlite3_stmt *s;
    chunk *k = malloc(sizeof *k);
    if (!k)
        return st_err(st, STORE_NOMEM, "trace: out of memory");
    store_rc rc = st_claim_held(st, c, "truncate trace");
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_TC_DROP, &s);
    if (rc == STORE_OK) {
        int b = sqlite3_bind_text(s, 1, c->id, -1, SQLITE_STATIC);
        b |= sqlite3_bind_int64(s, 2, after);
        rc = st_step_done(st, s, b, "truncate trace");
    }
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_TC_CUT, &s);
    if (rc == STORE_OK) {
        int b = sqlite3_bind_text(s, 1, c->id, -1, SQLITE_STATIC);
        b |= sqlite3_bind_int64(s, 2, after);
        rc = load_chunk(st, s, b, k);
    }
    if (rc == STORE_OK && k->rowid) {
        size_t keep = 0;
        while (keep < k->n && k->rows[keep].iteration <= after)
            keep++;
        assert(keep > 0); /* its first row is at most `after` */
        rc = put_chunk(st, c->id, k->rowid, k->rows, keep);
    }
    free(k);
    return rc;
}

store_rc store_trace_truncate(store *st, const store_claim *c,
                              int64_t after_iteration)
{
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    rc = st_check_claim(st, c);
    if (rc == STORE_OK)
        rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    return st_end(st, truncate_tx(st, c, after_iteration));
}
