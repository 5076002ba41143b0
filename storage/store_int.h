/*
 * store_int.h -- internals shared by the storage sources (not for users
 * of the store).
 */
#ifndef IRCG_STORE_INT_H
#define IRCG_STORE_INT_H

#include <sqlite3.h>

#include "store.h"

/* Statements are cached by the address of their (static) SQL text: each
 * file keeps its SQL in `static const char X[]` and asks st_prep for it. */
#define STORE_STMT_CACHE 96

struct store {
    sqlite3 *db;
    char err[STORE_ERRMAX];
    int writing;   /* holds the process's writer lock (st_begin .. st_end) */
    int ncache;
    struct {
        const char *sql;
        sqlite3_stmt *stmt;
    } cache[STORE_STMT_CACHE];
};

/* Records a message (printf-like) and returns rc. */
store_rc st_err(store *st, store_rc rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Maps a SQLite result code to a store_rc and records "what: sqlite msg". */
store_rc st_sql(store *st, int sqlite_rc, const char *what);

/* The cached statement for `sql`, reset and with bindings cleared.  The
 * caller resets it again when done (st_reset) so that no read transaction
 * stays open between calls. */
store_rc st_prep(store *st, const char *sql, sqlite3_stmt **out);
void st_reset(sqlite3_stmt *s); /* NULL-safe */

/* Binding: callers OR the codes of a row of sqlite3_bind_* calls into an
 * int `b` and step through st_step, which turns a failed bind (the
 * connection keeps its error code) into the step's error code, so one
 * error path covers both. */
int st_step(store *st, sqlite3_stmt *s, int b);

/* Runs a statement that returns no rows (or ignores them) through
 * st_step, resets it and maps the outcome. */
store_rc st_step_done(store *st, sqlite3_stmt *s, int b, const char *what);

/* Text column as a C string, "" for NULL (never NULL). */
const char *st_col_str(sqlite3_stmt *s, int i);

/* Write transactions: st_begin takes the process's writer lock (one
 * writer at a time, queued, at most busy_timeout) and issues BEGIN
 * IMMEDIATE (waits for the file's write lock up to busy_timeout, so no
 * SQLITE_BUSY on a later upgrade);
 * st_end commits when rc == STORE_OK, else rolls back, and returns the
 * final code. */
store_rc st_begin(store *st);
store_rc st_end(store *st, store_rc rc);
/* Rolls back an open transaction, keeping the handle's error message. */
void st_rollback(store *st);

/* NaN <-> NULL. */
int st_bind_real(sqlite3_stmt *s, int i, double v);
double st_col_real(sqlite3_stmt *s, int i);
/* Bound as NULL when v is NULL; SQLITE_TRANSIENT copies. */
int st_bind_text(sqlite3_stmt *s, int i, const char *v);
/* Copies a text column into a malloc'd string; *out = NULL for NULL.
 * Returns 0 or -1 on allocation failure. */
int st_col_strdup(sqlite3_stmt *s, int i, char **out);
/* Copies a blob column into a malloc'd buffer (at least 1 byte, so a 0-byte
 * blob is a non-NULL pointer).  Returns 0 or -1. */
int st_col_blobdup(sqlite3_stmt *s, int i, void **out, size_t *len);

/* Fills a new job id "j_" + 20 base32 chars (48-bit ms clock + 50 random
 * bits).  Returns 0, or -1 when no randomness is available. */
int st_new_job_id(char id[STORE_JOB_ID_LEN + 1]);

/* store_claims.c: checks a job id argument (non-NULL, short) and a claim
 * argument (non-NULL, id checked), recording the message; and, inside a
 * transaction, whether the job still runs under the claim's run: STORE_OK,
 * STORE_STALE (explained) once it does not, STORE_NOTFOUND if it is gone.
 * `op` names the operation in the message. */
store_rc st_check_id(store *st, const char *id);
store_rc st_check_claim(store *st, const store_claim *c);
store_rc st_claim_held(store *st, const store_claim *c, const char *op);

/* store_events.c.  Inside a transaction: appends an event, bumping
 * jobs.event_seq. */
store_rc st_event_append_tx(store *st, const char *job_id, const char *type,
                            const char *data, int64_t *seq);
/* Inside a transaction: appends a 'state' event describing the job as it
 * is now, plus an 'end' event when its state is terminal. */
store_rc st_event_state_tx(store *st, const char *job_id);

/* store_trace.c: rows[0..n) (ascending, n <= STC_CHUNK_ROWS) as a new
 * chunk of the job's trace, for the migration of plain rows
 * (store_trace_migrate.c).  Inside a transaction. */
store_rc st_trace_chunk_insert(store *st, const char *job_id,
                               const store_trace_row *rows, size_t n);
/* store_trace_migrate.c: the C part of migration 7 (store_schema.c). */
store_rc st_migrate_trace_chunks(store *st);

#endif /* IRCG_STORE_INT_H */
