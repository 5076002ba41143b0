/*
 * store_open.c -- opening a store: the file's identity, pragmas, the
 * schema migrations, and the maintenance calls on an open handle
 * (integrity check, WAL checkpoint, change counter).
 */
#include "store_int.h"
#include "store_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------- opening -- */

int store_schema_version(void) { return store_nmigrations; }

/* One-off statement returning a single integer (pragmas at open time). */
static store_rc query_int(store *st, const char *sql, int64_t *v)
{
    sqlite3_stmt *s = NULL;
    store_rc out = STORE_OK;
    int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *v = sqlite3_column_int64(s, 0);
    else
        out = st_sql(st, rc, sql);
    sqlite3_finalize(s);
    return out;
}

static store_rc exec(store *st, const char *sql, const char *what)
{
    int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? STORE_OK : st_sql(st, rc, what);
}

/* Reads the three identity numbers in one read transaction, so that a
 * migration committed by another connection meanwhile is seen either
 * entirely or not at all. */
static store_rc read_identity(store *st, int64_t *app, int64_t *ver,
                              int64_t *nobj)
{
    store_rc rc = exec(st, "BEGIN", "begin");
    if (rc == STORE_OK)
        rc = query_int(st, "PRAGMA application_id", app);
    if (rc == STORE_OK)
        rc = query_int(st, "PRAGMA user_version", ver);
    if (rc == STORE_OK)
        rc = query_int(st, "SELECT count(*) FROM sqlite_master", nobj);
    if (!sqlite3_get_autocommit(st->db))
        sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL); /* read only */
    return rc;
}

/* Refuses files that belong to another application or a newer build. */
static store_rc check_identity(store *st, const char *path, int *is_new)
{
    int64_t app = 0, ver = 0, nobj = 0;
    store_rc rc = read_identity(st, &app, &ver, &nobj);
    *is_new = 0;
    if (rc == STORE_FOREIGN)
        return st_err(st, rc, "%s is not an SQLite database", path);
    if (rc != STORE_OK)
        return rc;
    if (app == 0 && nobj == 0) {
        *is_new = 1;
        return STORE_OK; /* a new, empty file: ours to initialize */
    }
    if (app != STORE_APPLICATION_ID)
        return st_err(st, STORE_FOREIGN,
                      "%s is not an ircg store (application_id 0x%llx, "
                      "expected 0x%x)",
                      path, (unsigned long long)app, STORE_APPLICATION_ID);
    if (ver > store_nmigrations)
        return st_err(st, STORE_FOREIGN,
                      "%s has schema version %lld, newer than this build "
                      "(%d)",
                      path, (long long)ver, store_nmigrations);
    return STORE_OK;
}

/* PRAGMA quick_check reads every page (not the index contents): a
 * damaged file is reported before anything writes to it. */
static store_rc quick_check(store *st, const char *path)
{
    sqlite3_stmt *s = NULL;
    store_rc out = STORE_OK;
    int rc = sqlite3_prepare_v2(st->db, "PRAGMA quick_check(1)", -1, &s, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const char *r = st_col_str(s, 0);
        if (strcmp(r, "ok") != 0)
            out = st_err(st, STORE_CORRUPT, "%s is damaged: %s", path, r);
    } else {
        out = st_sql(st, rc, "quick_check");
    }
    sqlite3_finalize(s);
    if (out == STORE_CORRUPT || out == STORE_FOREIGN)
        st_err(st, STORE_CORRUPT, "%s is damaged (%s); it was left as it was: "
               "restore it from a backup, or try the sqlite3 shell's "
               ".recover on a copy", path, st->err);
    return out == STORE_FOREIGN ? STORE_CORRUPT : out;
}

/* A pragma SQLite may refuse with SQLITE_BUSY without calling the busy
 * handler, retried here for up to the busy timeout.  journal_mode=WAL:
 * the first switch of a new file needs the file to itself, so connections
 * racing to create it collide.  auto_vacuum: refused the same way while
 * other connections open the file at the same moment (found by a burst of
 * 500 concurrent submissions, each borrowing a new handle). */
static store_rc exec_retry(store *st, const char *sql, const char *what)
{
    const struct timespec pause = {0, 10 * 1000 * 1000};
    store_rc rc = STORE_BUSY;
    for (int waited = 0; rc == STORE_BUSY; waited += 10) {
        rc = exec(st, sql, what);
        if (rc == STORE_BUSY && waited >= STORE_BUSY_TIMEOUT_MS)
            break;
        if (rc == STORE_BUSY)
            nanosleep(&pause, NULL);
    }
    return rc;
}

static store_rc set_pragmas(store *st, int flags, int is_new)
{
    int64_t fk = 0;
    store_rc rc = STORE_OK;
    /* Takes effect on a new file only (before its first table): deleted
     * jobs' pages can then be given back by store_maintain.  An older file
     * keeps auto_vacuum off until a VACUUM (deploy/README.md).  Set on a
     * new file only: on an existing one the pragma opens a write
     * transaction (to rewrite the header's incremental-vacuum flag), and
     * every handle the HTTP threads open queued on the write lock. */
    if (is_new)
        rc = exec_retry(st, "PRAGMA auto_vacuum=INCREMENTAL", "auto_vacuum");
    if (rc == STORE_OK)
        rc = exec_retry(st, "PRAGMA journal_mode=WAL", "journal_mode");
    if (rc == STORE_OK)
        rc = exec(st,
                  flags & STORE_OPEN_SYNC_FULL ? "PRAGMA synchronous=FULL"
                                               : "PRAGMA synchronous=NORMAL",
                  "synchronous");
    /* The WAL is folded into the file every 256 pages (1 MB) rather than
     * SQLite's 1000: a WAL only shrinks through a checkpoint, and one that
     * has grown into the last free space of a small disk cannot be folded
     * in any more (that needs room to grow the file) -- the store would
     * stay full for good (the issue 17 reproduction on a 3 MB tmpfs). */
    if (rc == STORE_OK)
        rc = exec(st, "PRAGMA wal_autocheckpoint=256", "wal_autocheckpoint");
    if (rc == STORE_OK)
        rc = exec(st, "PRAGMA foreign_keys=ON", "foreign_keys");
    if (rc == STORE_OK)
        rc = query_int(st, "PRAGMA foreign_keys", &fk);
    if (rc == STORE_OK && fk != 1) /* cascades depend on it */
        rc = st_err(st, STORE_ERROR, "SQLite built without foreign keys");
    return rc;
}

/* Applies migration `v` if the file is still at version v.  Re-reading
 * user_version under the write lock makes concurrent openers safe. */
static store_rc migrate_one(store *st, int64_t v, int64_t *now_at)
{
    char sql[64];
    int64_t cur = 0;
    store_rc rc = query_int(st, "PRAGMA user_version", &cur);
    if (rc != STORE_OK || cur != v) {
        *now_at = cur;
        return rc;
    }
    rc = exec(st, store_migrations[v], "migration");
    if (rc == STORE_OK && store_migration_code[v])
        rc = store_migration_code[v](st);
    if (rc == STORE_OK) {
        /* PRAGMA takes no bound parameters; v is our own integer. */
        snprintf(sql, sizeof sql, "PRAGMA user_version = %lld",
                 (long long)v + 1);
        rc = exec(st, sql, "user_version");
    }
    *now_at = v + 1;
    return rc;
}

static store_rc migrate(store *st)
{
    int64_t v = 0;
    store_rc rc = query_int(st, "PRAGMA user_version", &v);
    while (rc == STORE_OK && v < store_nmigrations) {
        rc = st_begin(st);
        if (rc == STORE_OK)
            rc = st_end(st, migrate_one(st, v, &v));
    }
    if (rc == STORE_OK && v > store_nmigrations)
        rc = st_err(st, STORE_FOREIGN, "schema version %lld is newer than "
                    "this build (%d)", (long long)v, store_nmigrations);
    return rc;
}

static store_rc open_db(store *st, const char *path)
{
    /* NOMUTEX: one handle per thread, so SQLite's own mutex is dead
     * weight. */
    int rc = sqlite3_open_v2(path, &st->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                 SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK)
        return st_sql(st, rc, path);
    /* Extended codes tell a foreign-key failure (no such job) from a
     * unique one (conflict). */
    rc = sqlite3_extended_result_codes(st->db, 1);
    if (rc == SQLITE_OK)
        rc = sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);
    return rc == SQLITE_OK ? STORE_OK : st_sql(st, rc, "busy_timeout");
}

store_rc store_open_ex(const char *path, int flags, store **out,
                       char *errbuf)
{
    store *st = NULL;
    store_rc rc = STORE_INVALID;
    int is_new = 0;
    const char *msg = "store_open: NULL argument";
    if (out)
        *out = NULL;
    if (!path || !out)
        goto fail;
    rc = STORE_NOMEM;
    msg = "store_open: out of memory";
    st = calloc(1, sizeof *st);
    if (!st)
        goto fail;
    rc = open_db(st, path);
    if (rc == STORE_OK)
        rc = check_identity(st, path, &is_new);
    if (rc == STORE_OK && (flags & STORE_OPEN_CHECK))
        rc = quick_check(st, path);
    if (rc == STORE_OK)
        rc = set_pragmas(st, flags, is_new);
    if (rc == STORE_OK)
        rc = migrate(st);
    if (rc != STORE_OK) {
        msg = st->err;
        goto fail;
    }
    st->err[0] = '\0';
    *out = st;
    return STORE_OK;
fail:
    if (errbuf)
        snprintf(errbuf, STORE_ERRMAX, "%s", msg);
    store_close(st);
    return rc;
}

store_rc store_open(const char *path, store **out, char *errbuf)
{
    return store_open_ex(path, 0, out, errbuf);
}

void store_close(store *st)
{
    if (!st)
        return;
    if (st->writing) /* never left so, but the writer lock must not leak */
        st_rollback(st);
    for (int i = 0; i < st->ncache; i++)
        sqlite3_finalize(st->cache[i].stmt);
    /* sqlite3_close_v2 never fails for a busy handle; the open failure
     * path also needs it (a handle exists even when open failed). */
    sqlite3_close_v2(st->db);
    free(st);
}

/* ------------------------------------------------------ maintenance -- */

store_rc store_integrity_check(store *st, int *ok)
{
    sqlite3_stmt *s = NULL;
    store_rc out = STORE_OK;
    int rc;
    if (!st || !ok)
        return STORE_INVALID;
    *ok = 0;
    rc = sqlite3_prepare_v2(st->db, "PRAGMA integrity_check", -1, &s, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const char *r = (const char *)sqlite3_column_text(s, 0);
        *ok = r && strcmp(r, "ok") == 0;
        if (!*ok)
            st_err(st, STORE_OK, "integrity_check: %s", r ? r : "(null)");
    } else {
        out = st_sql(st, rc, "integrity_check");
    }
    sqlite3_finalize(s);
    return out;
}

store_rc store_write_probe(store *st, int timeout_ms)
{
    store_rc rc;
    if (!st || timeout_ms < 0)
        return STORE_INVALID;
    sqlite3_busy_timeout(st->db, timeout_ms);
    rc = st_begin(st);
    if (rc == STORE_OK)
        st_rollback(st);
    sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);
    return rc;
}

store_rc store_limit_pages(store *st, int64_t pages, int64_t *now)
{
    char sql[64];
    int64_t got = 0;
    store_rc rc = STORE_OK;
    if (!st || pages < 0)
        return STORE_INVALID;
    if (pages > 0) {
        /* PRAGMA takes no bound parameters; pages is our own integer. */
        snprintf(sql, sizeof sql, "PRAGMA max_page_count = %lld", (long long)pages);
        rc = query_int(st, sql, &got);
    }
    if (rc == STORE_OK && now)
        rc = query_int(st, "PRAGMA page_count", now);
    return rc;
}

store_rc store_checkpoint(store *st)
{
    return store_checkpoint_within(st, STORE_BUSY_TIMEOUT_MS);
}

store_rc store_checkpoint_within(store *st, int timeout_ms)
{
    int rc;
    if (!st || timeout_ms < 0)
        return STORE_INVALID;
    sqlite3_busy_timeout(st->db, timeout_ms);
    rc = sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE,
                                   NULL, NULL);
    sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);
    return rc == SQLITE_OK ? STORE_OK : st_sql(st, rc, "wal_checkpoint");
}

static const char SQL_CHANGES[] = "SELECT value FROM meta WHERE key='changes'";

store_rc store_changes(store *st, int64_t *counter)
{
    sqlite3_stmt *s;
    store_rc rc;
    int r;
    if (!st || !counter)
        return STORE_INVALID;
    rc = st_prep(st, SQL_CHANGES, &s);
    if (rc != STORE_OK)
        return rc;
    r = sqlite3_step(s);
    if (r == SQLITE_ROW)
        *counter = sqlite3_column_int64(s, 0);
    else
        rc = st_sql(st, r == SQLITE_DONE ? SQLITE_CORRUPT : r, "changes");
    st_reset(s);
    return rc;
}
