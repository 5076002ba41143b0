/*
 * store_datasets.c -- uploaded data files, content-addressed: the id is the
 * SHA-256 of the bytes, so uploading the same file twice stores it once.
 *
 * The store also writes a dataset back to a file (store_dataset_write_file)
 * because the solver's readers take paths; the server picks the path.  A
 * dataset may also keep its bytes in a file of the caller's (the server's
 * large matrices and vectors): its row then only describes them
 * (kind, meta, in_file).
 */
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char SQL_DS_INSERT[] =
    "INSERT INTO datasets(id, format, filename, bytes, created_at, data, kind, meta,"
    " in_file) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT(id) DO NOTHING";
static const char SQL_DS_META[] =
    "SELECT id, format, filename, bytes, created_at, kind, meta, in_file FROM datasets"
    " WHERE id = ?1";
enum { DS_ID, DS_FORMAT, DS_FILENAME, DS_BYTES, DS_CREATED_AT, DS_KIND, DS_META,
       DS_IN_FILE }; /* its columns */
static const char SQL_DS_DATA[] = "SELECT data FROM datasets WHERE id = ?1";

static store_rc check_ds_id(store *st, const char *id)
{
    if (!id || strlen(id) != STORE_DATASET_ID_LEN)
        return st_err(st, STORE_INVALID, "dataset id must be 64 hex digits");
    return STORE_OK;
}

static store_rc meta_row(store *st, const char *id, store_dataset *out)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_DS_META, &s);
    int r, b;
    if (rc != STORE_OK)
        return rc;
    b = sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    r = st_step(st, s, b);
    if (r == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        snprintf(out->id, sizeof out->id, "%s", st_col_str(s, DS_ID));
        snprintf(out->format, sizeof out->format, "%s", st_col_str(s, DS_FORMAT));
        snprintf(out->filename, sizeof out->filename, "%s", st_col_str(s, DS_FILENAME));
        out->bytes = sqlite3_column_int64(s, DS_BYTES);
        out->created_at = st_col_real(s, DS_CREATED_AT);
        snprintf(out->kind, sizeof out->kind, "%s", st_col_str(s, DS_KIND));
        snprintf(out->meta, sizeof out->meta, "%s", st_col_str(s, DS_META));
        out->in_file = sqlite3_column_int(s, DS_IN_FILE);
    } else {
        rc = r == SQLITE_DONE ? st_err(st, STORE_NOTFOUND, "no dataset %s", id)
                              : st_sql(st, r, "dataset");
    }
    st_reset(s);
    return rc;
}

static store_rc insert_tx(store *st, const store_dataset *row, const void *data,
                          int *inserted)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_DS_INSERT, &s);
    if (rc != STORE_OK)
        return rc;
    int b = sqlite3_bind_text(s, 1, row->id, -1, SQLITE_STATIC);
    b |= sqlite3_bind_text(s, 2, row->format, -1, SQLITE_STATIC);
    b |= sqlite3_bind_text(s, 3, row->filename, -1, SQLITE_STATIC);
    b |= sqlite3_bind_int64(s, 4, (sqlite3_int64)row->bytes);
    b |= sqlite3_bind_double(s, 5, store_now());
    if (data && row->bytes)
        b |= sqlite3_bind_blob64(s, 6, data, (sqlite3_uint64)row->bytes, SQLITE_STATIC);
    else
        b |= sqlite3_bind_zeroblob(s, 6, 0);
    b |= sqlite3_bind_text(s, 7, row->kind, -1, SQLITE_STATIC);
    b |= sqlite3_bind_text(s, 8, row->meta, -1, SQLITE_STATIC);
    b |= sqlite3_bind_int(s, 9, data == NULL);
    rc = st_step_done(st, s, b, "put dataset");
    *inserted = rc == STORE_OK && sqlite3_changes(st->db) == 1;
    return rc;
}

static store_rc check_row(store *st, const store_dataset *row)
{
    size_t n = strnlen(row->id, sizeof row->id);
    if (n != STORE_DATASET_ID_LEN || strspn(row->id, "0123456789abcdef") != n)
        return st_err(st, STORE_INVALID, "dataset id must be 64 lowercase hex digits");
    if (row->bytes < 0 || !row->format[0] ||
        strnlen(row->format, sizeof row->format) > 31 || !row->kind[0] ||
        strnlen(row->kind, sizeof row->kind) > 15)
        return st_err(st, STORE_INVALID, "dataset: format (1..31 bytes), kind (1..15 bytes) "
                      "or size missing");
    if (strnlen(row->filename, sizeof row->filename) > 255 ||
        strnlen(row->meta, sizeof row->meta) > 511)
        return st_err(st, STORE_INVALID, "dataset: filename over 255 bytes or meta over 511");
    return STORE_OK;
}

store_rc store_dataset_add(store *st, const store_dataset *row, const void *data,
                           store_dataset *out, int *existed)
{
    int inserted = 0;
    store_rc rc;
    if (!st || !row)
        return STORE_INVALID;
    if ((rc = check_row(st, row)) != STORE_OK || (rc = st_begin(st)) != STORE_OK)
        return rc;
    rc = insert_tx(st, row, data, &inserted);
    if (rc == STORE_OK && out)
        rc = meta_row(st, row->id, out);
    rc = st_end(st, rc);
    if (existed)
        *existed = rc == STORE_OK && !inserted;
    return rc;
}

store_rc store_dataset_put(store *st, const void *data, size_t len,
                           const char *format, const char *filename,
                           store_dataset *out, int *existed)
{
    uint8_t digest[STORE_SHA256_LEN];
    store_dataset row;
    if (!st)
        return STORE_INVALID;
    if ((len && !data) || !format || !format[0] || strlen(format) > 31)
        return st_err(st, STORE_INVALID, "dataset: data, or format "
                      "(1..31 bytes) missing");
    if (filename && strlen(filename) > 255)
        return st_err(st, STORE_INVALID, "dataset: filename over 255 bytes");
    memset(&row, 0, sizeof row);
    /* Hash outside the transaction: it may take a while for big files. */
    store_sha256(data, len, digest);
    store_sha256_hex(digest, row.id);
    snprintf(row.format, sizeof row.format, "%s", format);
    snprintf(row.filename, sizeof row.filename, "%s", filename ? filename : "");
    snprintf(row.kind, sizeof row.kind, "ratings");
    row.bytes = (int64_t)len;
    return store_dataset_add(st, &row, data ? data : "", out, existed);
}

store_rc store_dataset_get(store *st, const char *id, store_dataset *out)
{
    store_rc rc;
    if (!st || !out)
        return STORE_INVALID;
    rc = check_ds_id(st, id);
    return rc == STORE_OK ? meta_row(st, id, out) : rc;
}

/* Steps SQL_DS_DATA for `id`; on STORE_OK the row is current in *s and the
 * caller resets it. */
static store_rc data_row(store *st, const char *id, sqlite3_stmt **s)
{
    store_rc rc = check_ds_id(st, id);
    int r, b;
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_DS_DATA, s);
    if (rc != STORE_OK)
        return rc;
    b = sqlite3_bind_text(*s, 1, id, -1, SQLITE_STATIC);
    r = st_step(st, *s, b);
    if (r == SQLITE_DONE)
        return st_err(st, STORE_NOTFOUND, "no dataset %s", id);
    return r == SQLITE_ROW ? STORE_OK : st_sql(st, r, "dataset bytes");
}

store_rc store_dataset_bytes(store *st, const char *id, void **data,
                             size_t *len)
{
    sqlite3_stmt *s = NULL;
    store_rc rc;
    if (!st || !data || !len)
        return STORE_INVALID;
    *data = NULL;
    *len = 0;
    rc = data_row(st, id, &s);
    if (rc == STORE_OK && st_col_blobdup(s, 0, data, len) != 0)
        rc = st_err(st, STORE_NOMEM, "dataset: out of memory");
    st_reset(s);
    return rc;
}

static store_rc write_all(store *st, const char *tmp, const void *p,
                          size_t n)
{
    FILE *f = fopen(tmp, "wb");
    int ok;
    if (!f)
        return st_err(st, STORE_ERROR, "%s: %s", tmp, strerror(errno));
    ok = (n == 0 || fwrite(p, 1, n, f) == n);
    ok = (fclose(f) == 0) && ok;
    if (!ok) {
        remove(tmp);
        return st_err(st, STORE_ERROR, "%s: write failed", tmp);
    }
    return STORE_OK;
}

store_rc store_dataset_write_file(store *st, const char *id,
                                  const char *path)
{
    sqlite3_stmt *s = NULL;
    char *tmp = NULL;
    store_rc rc;
    if (!st || !path)
        return STORE_INVALID;
    rc = data_row(st, id, &s);
    if (rc == STORE_OK && !(tmp = malloc(strlen(path) + 5)))
        rc = st_err(st, STORE_NOMEM, "dataset: out of memory");
    if (rc == STORE_OK) {
        sprintf(tmp, "%s.tmp", path);
        rc = write_all(st, tmp, sqlite3_column_blob(s, 0),
                       (size_t)sqlite3_column_bytes(s, 0));
    }
    st_reset(s); /* end the read transaction before the slow rename */
    if (rc == STORE_OK && rename(tmp, path) != 0) {
        rc = st_err(st, STORE_ERROR, "rename %s: %s", path, strerror(errno));
        remove(tmp);
    }
    free(tmp);
    return rc;
}
