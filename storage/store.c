/*
 * store.c -- opening a store (identity check, pragmas, migrations), the
 * per-handle error message, the statement cache, transactions and small
 * helpers shared by the other storage sources.
 */
#include "store_int.h"
#include "store_schema.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* ----------------------------------------------------------- errors -- */

const char *store_rc_name(store_rc rc)
{
    static const char *const names[] = {"ok", "not_found", "conflict",
                                        "invalid", "busy", "no_memory",
                                        "foreign_file", "error", "stale"};
    if ((unsigned)rc < sizeof names / sizeof names[0])
        return names[rc];
    return "unknown";
}

store_rc st_err(store *st, store_rc rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->err, sizeof st->err, fmt, ap);
    va_end(ap);
    return rc;
}

static store_rc map_sqlite(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK:
        return STORE_OK;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return STORE_BUSY;
    case SQLITE_NOMEM:
        return STORE_NOMEM;
    case SQLITE_NOTADB:
        return STORE_FOREIGN;
    case SQLITE_TOOBIG:
    case SQLITE_RANGE:
    case SQLITE_MISMATCH:
        return STORE_INVALID;
    case SQLITE_CONSTRAINT:
        if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
            return STORE_NOTFOUND; /* the referenced job does not exist */
        if (rc == SQLITE_CONSTRAINT_CHECK || rc == SQLITE_CONSTRAINT_NOTNULL)
            return STORE_INVALID;
        return STORE_CONFLICT;    /* UNIQUE / PRIMARY KEY */
    default:
        return STORE_ERROR;
    }
}

store_rc st_sql(store *st, int sqlite_rc, const char *what)
{
    const char *msg = st->db ? sqlite3_errmsg(st->db) : "";
    return st_err(st, map_sqlite(sqlite_rc), "%s: %s (%s)", what, msg,
                  sqlite3_errstr(sqlite_rc));
}

const char *store_errmsg(const store *st)
{
    return st ? st->err : "no store handle";
}

/* -------------------------------------------------- statement cache -- */

store_rc st_prep(store *st, const char *sql, sqlite3_stmt **out)
{
    int rc;
    *out = NULL;
    for (int i = 0; i < st->ncache; i++) {
        if (st->cache[i].sql == sql) {
            /* reset only repeats the last step's code, handled then */
            sqlite3_reset(st->cache[i].stmt);
            sqlite3_clear_bindings(st->cache[i].stmt);
            *out = st->cache[i].stmt;
            return STORE_OK;
        }
    }
    if (st->ncache == STORE_STMT_CACHE)
        return st_err(st, STORE_ERROR, "statement cache full (%d)",
                      STORE_STMT_CACHE);
    rc = sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out,
                            NULL);
    if (rc != SQLITE_OK)
        return st_sql(st, rc, "prepare");
    st->cache[st->ncache].sql = sql;
    st->cache[st->ncache].stmt = *out;
    st->ncache++;
    return STORE_OK;
}

void st_reset(sqlite3_stmt *s)
{
    if (s)
        sqlite3_reset(s);
}

int st_step(store *st, sqlite3_stmt *s, int b)
{
    int code;
    if (b == SQLITE_OK)
        return sqlite3_step(s);
    code = sqlite3_extended_errcode(st->db);
    return code != SQLITE_OK ? code : SQLITE_MISUSE;
}

store_rc st_step_done(store *st, sqlite3_stmt *s, int b, const char *what)
{
    int rc = st_step(st, s, b);
    store_rc out = rc == SQLITE_DONE || rc == SQLITE_ROW
                       ? STORE_OK
                       : st_sql(st, rc, what);
    sqlite3_reset(s);
    return out;
}

/* ----------------------------------------------------- transactions -- */

static const char SQL_BEGIN[] = "BEGIN IMMEDIATE";
static const char SQL_COMMIT[] = "COMMIT";
static const char SQL_ROLLBACK[] = "ROLLBACK";

store_rc st_begin(store *st)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_BEGIN, &s);
    if (rc == STORE_OK)
        rc = st_step_done(st, s, SQLITE_OK, "begin immediate");
    return rc;
}

static void rollback(store *st)
{
    sqlite3_stmt *s;
    if (sqlite3_get_autocommit(st->db))
        return; /* SQLite already rolled back (e.g. after SQLITE_FULL) */
    if (st_prep(st, SQL_ROLLBACK, &s) == STORE_OK) {
        sqlite3_step(s); /* keep the original error message */
        sqlite3_reset(s);
    }
}

store_rc st_end(store *st, store_rc rc)
{
    sqlite3_stmt *s;
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_COMMIT, &s);
    if (rc == STORE_OK)
        rc = st_step_done(st, s, SQLITE_OK, "commit");
    if (rc != STORE_OK)
        rollback(st);
    return rc;
}

/* ----------------------------------------------------- value helpers -- */

int st_bind_real(sqlite3_stmt *s, int i, double v)
{
    return isnan(v) ? sqlite3_bind_null(s, i) : sqlite3_bind_double(s, i, v);
}

double st_col_real(sqlite3_stmt *s, int i)
{
    if (sqlite3_column_type(s, i) == SQLITE_NULL)
        return NAN;
    return sqlite3_column_double(s, i);
}

int st_bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (!v)
        return sqlite3_bind_null(s, i);
    return sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
}

const char *st_col_str(sqlite3_stmt *s, int i)
{
    const char *t = (const char *)sqlite3_column_text(s, i);
    return t ? t : "";
}

int st_col_strdup(sqlite3_stmt *s, int i, char **out)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    int n = sqlite3_column_bytes(s, i);
    *out = NULL;
    if (!t)
        return sqlite3_column_type(s, i) == SQLITE_NULL ? 0 : -1;
    *out = malloc((size_t)n + 1);
    if (!*out)
        return -1;
    memcpy(*out, t, (size_t)n);
    (*out)[n] = '\0';
    return 0;
}

int st_col_blobdup(sqlite3_stmt *s, int i, void **out, size_t *len)
{
    const void *b = sqlite3_column_blob(s, i);
    size_t n = (size_t)sqlite3_column_bytes(s, i);
    *out = malloc(n ? n : 1);
    *len = 0;
    if (!*out)
        return -1;
    if (n)
        memcpy(*out, b, n);
    *len = n;
    return 0;
}

/* -------------------------------------------------------- ids, time -- */

double store_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int random_bytes(uint8_t *buf, size_t n)
{
    ssize_t got = getrandom(buf, n, 0);
    int fd, ok;
    if (got == (ssize_t)n)
        return 0;
    /* Old kernels (ENOSYS): fall back to the device. */
    fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ok = read(fd, buf, n) == (ssize_t)n;
    close(fd);
    return ok ? 0 : -1;
}

int st_new_job_id(char id[STORE_JOB_ID_LEN + 1])
{
    /* Crockford base32, lowercase: no i, l, o, u -- unambiguous in URLs. */
    static const char b32[] = "0123456789abcdefghjkmnpqrstvwxyz";
    uint8_t r[8];
    uint64_t ms = (uint64_t)(store_now() * 1000.0), rnd = 0;
    if (random_bytes(r, sizeof r) != 0)
        return -1;
    for (int i = 0; i < 8; i++)
        rnd = rnd << 8 | r[i];
    id[0] = 'j', id[1] = '_';
    /* 10 chars (50 bits) of milliseconds, most significant first, so ids
     * sort by creation time; then 10 chars (50 bits) of randomness. */
    for (int i = 0; i < 10; i++)
        id[2 + i] = b32[(ms >> (5 * (9 - i))) & 31];
    for (int i = 0; i < 10; i++)
        id[12 + i] = b32[(rnd >> (5 * i)) & 31];
    id[STORE_JOB_ID_LEN] = '\0';
    return 0;
}

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
static store_rc check_identity(store *st, const char *path)
{
    int64_t app = 0, ver = 0, nobj = 0;
    store_rc rc = read_identity(st, &app, &ver, &nobj);
    if (rc == STORE_FOREIGN)
        return st_err(st, rc, "%s is not an SQLite database", path);
    if (rc != STORE_OK)
        return rc;
    if (app == 0 && nobj == 0)
        return STORE_OK; /* a new, empty file: ours to initialize */
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

/* journal_mode=WAL is persistent; setting it again is a no-op.  The first
 * switch of a new file needs the file to itself and SQLite does not call
 * the busy handler for it, so connections racing to create the file retry
 * here for up to the busy timeout. */
static store_rc set_wal(store *st)
{
    const struct timespec pause = {0, 10 * 1000 * 1000};
    store_rc rc = STORE_BUSY;
    for (int waited = 0; rc == STORE_BUSY; waited += 10) {
        rc = exec(st, "PRAGMA journal_mode=WAL", "journal_mode");
        if (rc == STORE_BUSY && waited >= STORE_BUSY_TIMEOUT_MS)
            break;
        if (rc == STORE_BUSY)
            nanosleep(&pause, NULL);
    }
    return rc;
}

static store_rc set_pragmas(store *st, int flags)
{
    int64_t fk = 0;
    store_rc rc = set_wal(st);
    if (rc == STORE_OK)
        rc = exec(st,
                  flags & STORE_OPEN_SYNC_FULL ? "PRAGMA synchronous=FULL"
                                               : "PRAGMA synchronous=NORMAL",
                  "synchronous");
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
        rc = check_identity(st, path);
    if (rc == STORE_OK)
        rc = set_pragmas(st, flags);
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

store_rc store_checkpoint(store *st)
{
    int rc;
    if (!st)
        return STORE_INVALID;
    rc = sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE,
                                   NULL, NULL);
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
