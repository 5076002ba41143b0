/*
 * store_sql.c -- what every storage source uses: the per-handle error
 * message, the statement cache, stepping, write transactions, NULL-aware
 * columns, the clock and job ids.
 */
#include "store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
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
                                        "foreign_file", "error", "stale",
                                        "full", "read_only", "corrupt",
                                        "io_error"};
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
    case SQLITE_FULL:
        return STORE_FULL;
    case SQLITE_READONLY:
        return STORE_READONLY;
    case SQLITE_CORRUPT:
        return STORE_CORRUPT;
    case SQLITE_IOERR:
        return STORE_IOERR;
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

int store_rc_transient(store_rc rc)
{
    return rc == STORE_BUSY || rc == STORE_FULL || rc == STORE_READONLY ||
           rc == STORE_IOERR || rc == STORE_NOMEM;
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

/* One writer at a time in this process, queued on a mutex rather than
 * on SQLite's busy handler, which sleeps and polls: under a burst of
 * writers (500 concurrent submissions) one could sleep past the busy
 * timeout while the others kept winning, and get STORE_BUSY with the store
 * idle a moment later.  The wait for the mutex is bounded by the busy
 * timeout too; SQLite's busy handler still covers other processes. */
static pthread_mutex_t writer = PTHREAD_MUTEX_INITIALIZER;

static int writer_take(store *st)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += STORE_BUSY_TIMEOUT_MS / 1000;
    dl.tv_nsec += (long)(STORE_BUSY_TIMEOUT_MS % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    st->writing = pthread_mutex_timedlock(&writer, &dl) == 0;
    return st->writing;
}

static void writer_give(store *st)
{
    if (st->writing) {
        st->writing = 0;
        pthread_mutex_unlock(&writer);
    }
}

static const char SQL_BEGIN[] = "BEGIN IMMEDIATE";
static const char SQL_COMMIT[] = "COMMIT";
static const char SQL_ROLLBACK[] = "ROLLBACK";

store_rc st_begin(store *st)
{
    sqlite3_stmt *s;
    if (!writer_take(st))
        return st_err(st, STORE_BUSY, "begin: the other writers of this process held "
                      "the store for %d ms", STORE_BUSY_TIMEOUT_MS);
    store_rc rc = st_prep(st, SQL_BEGIN, &s);
    if (rc == STORE_OK)
        rc = st_step_done(st, s, SQLITE_OK, "begin immediate");
    if (rc != STORE_OK)
        writer_give(st);
    return rc;
}

void st_rollback(store *st)
{
    sqlite3_stmt *s;
    /* autocommit: SQLite already rolled back (e.g. after SQLITE_FULL) */
    if (!sqlite3_get_autocommit(st->db) && st_prep(st, SQL_ROLLBACK, &s) == STORE_OK) {
        sqlite3_step(s); /* keep the original error message */
        sqlite3_reset(s);
    }
    writer_give(st);
}

store_rc st_end(store *st, store_rc rc)
{
    sqlite3_stmt *s;
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_COMMIT, &s);
    if (rc == STORE_OK)
        rc = st_step_done(st, s, SQLITE_OK, "commit");
    if (rc != STORE_OK)
        st_rollback(st);
    writer_give(st);
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

