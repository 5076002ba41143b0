/*
 * store_events.c -- the per-job event log behind the SSE stream.  seq
 * comes from jobs.event_seq, bumped in the same transaction as the insert,
 * so seqs are assigned 1, 2, ... and never reused; a client resuming with
 * Last-Event-ID = k reads the events after k that are still kept.
 * Progress and snapshot events are trimmed (see store.h) in the
 * transaction that appends one or that ends the job, so the table's size
 * is bounded per job whatever the run's length.
 */
#include <assert.h>

#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const TYPE_NAMES[] = {"state", "progress", "snapshot",
                                         "end"};
enum { NTYPES = (int)(sizeof TYPE_NAMES / sizeof TYPE_NAMES[0]) };

const char *store_event_type_name(store_event_type t)
{
    return (unsigned)t < NTYPES ? TYPE_NAMES[t] : "unknown";
}

static store_event_type parse_type(const char *name)
{
    for (int i = 0; name && i < NTYPES; i++)
        if (strcmp(name, TYPE_NAMES[i]) == 0)
            return (store_event_type)i;
    return STORE_EV_STATE;
}

static const char SQL_NEXT_SEQ[] =
    "UPDATE jobs SET event_seq = event_seq + 1 WHERE id = ?1"
    " RETURNING event_seq";
static const char SQL_EV_INSERT[] =
    "INSERT INTO events(job_id, seq, type, data, created_at)"
    " VALUES(?1, ?2, ?3, ?4, ?5)";

static store_rc next_seq(store *st, const char *job_id, int64_t *seq)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_NEXT_SEQ, &s);
    int r, b = SQLITE_OK;
    if (rc != STORE_OK)
        return rc;
    b |= sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
    r = st_step(st, s, b);
    if (r == SQLITE_ROW) {
        *seq = sqlite3_column_int64(s, 0);
        r = sqlite3_step(s);
    } else if (r == SQLITE_DONE) {
        rc = st_err(st, STORE_NOTFOUND, "no job %s", job_id);
    }
    if (rc == STORE_OK && r != SQLITE_DONE)
        rc = st_sql(st, r, "event seq");
    st_reset(s);
    return rc;
}

store_rc st_event_append_tx(store *st, const char *job_id, const char *type,
                            const char *data, int64_t *seq)
{
    sqlite3_stmt *s;
    int64_t n = 0;
    store_rc rc = next_seq(st, job_id, &n);
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_EV_INSERT, &s);
    if (rc != STORE_OK)
        return rc;
    int b = sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
    b |= sqlite3_bind_int64(s, 2, n);
    b |= sqlite3_bind_text(s, 3, type, -1, SQLITE_STATIC);
    b |= sqlite3_bind_text(s, 4, data, -1, SQLITE_STATIC);
    b |= sqlite3_bind_double(s, 5, store_now());
    rc = st_step_done(st, s, b, "append event");
    if (rc == STORE_OK && seq)
        *seq = n;
    return rc;
}

static const char SQL_EV_STATE[] =
    "SELECT state, cancel_requested, attempt, version FROM jobs"
    " WHERE id = ?1";

/* The job's id is store-made (base32) and the state a fixed name, so the
 * JSON needs no escaping. */
static store_rc state_json(store *st, const char *job_id, char *buf,
                           size_t len, int *terminal)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_EV_STATE, &s);
    store_state state = STORE_QUEUED;
    int r, b = SQLITE_OK;
    if (rc != STORE_OK)
        return rc;
    b |= sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
    r = st_step(st, s, b);
    if (r == SQLITE_ROW) {
        store_state_parse((const char *)sqlite3_column_text(s, 0), &state);
        snprintf(buf, len,
                 "{\"id\":\"%s\",\"state\":\"%s\",\"cancel_requested\":%s,"
                 "\"attempt\":%d,\"version\":%lld}",
                 job_id, store_state_name(state),
                 sqlite3_column_int(s, 1) ? "true" : "false",
                 sqlite3_column_int(s, 2),
                 (long long)sqlite3_column_int64(s, 3));
        *terminal = store_state_terminal(state);
    } else {
        rc = r == SQLITE_DONE ? st_err(st, STORE_NOTFOUND, "no job %s", job_id)
                              : st_sql(st, r, "state event");
    }
    st_reset(s);
    return rc;
}

/* ---------------------------------------------------------- trimming -- */

/* Keeps the newest ?3 events of type ?2. */
static const char SQL_EV_TRIM_RUNNING[] =
    "DELETE FROM events WHERE job_id = ?1 AND type = ?2 AND seq <"
    " (SELECT seq FROM events WHERE job_id = ?1 AND type = ?2"
    "  ORDER BY seq DESC LIMIT 1 OFFSET ?3 - 1)";
/* Of each trimmable type with more than ?2 + 1 events, keeps every
 * ceil(n/?2)-th from the first (at most ?2 of them) and the last: at most
 * ?2 + 1, so a second pass changes nothing. */
#define COARSEN_SELECT(WHERE)                                                  \
    "SELECT job_id, seq FROM (SELECT job_id, seq,"                             \
    "  row_number() OVER (PARTITION BY job_id, type ORDER BY seq) AS rn,"      \
    "  count(*) OVER (PARTITION BY job_id, type) AS n"                         \
    "  FROM events WHERE type IN ('progress', 'snapshot') AND " WHERE ")"      \
    " WHERE n > ?2 + 1 AND rn < n AND (rn - 1) % ((n + ?2 - 1) / ?2) != 0"
static const char SQL_EV_COARSEN[] =
    "DELETE FROM events WHERE (job_id, seq) IN ("
    COARSEN_SELECT("job_id = ?1") ")";
static const char SQL_EV_COMPACT[] =
    "DELETE FROM events WHERE (job_id, seq) IN ("
    COARSEN_SELECT("job_id IN (SELECT id FROM jobs WHERE state IN"
                   " ('succeeded', 'failed', 'cancelled'))") ")";

static store_rc trim_running(store *st, const char *job_id, const char *type)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_EV_TRIM_RUNNING, &s);
    if (rc != STORE_OK)
        return rc;
    int b = sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
    b |= sqlite3_bind_text(s, 2, type, -1, SQLITE_STATIC);
    b |= sqlite3_bind_int(s, 3, STORE_EVENTS_KEEP_RUNNING);
    return st_step_done(st, s, b, "trim events");
}

/* job_id NULL: every finished job (SQL_EV_COMPACT). */
static store_rc coarsen(store *st, const char *job_id)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, job_id ? SQL_EV_COARSEN : SQL_EV_COMPACT, &s);
    if (rc != STORE_OK)
        return rc;
    int b = sqlite3_bind_int(s, 2, STORE_EVENTS_KEEP_FINISHED);
    if (job_id)
        b |= sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
    return st_step_done(st, s, b, "coarsen events");
}

store_rc store_events_compact(store *st, int64_t *removed)
{
    store_rc rc;
    if (removed)
        *removed = 0;
    if (!st)
        return STORE_INVALID;
    rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    rc = coarsen(st, NULL);
    if (rc == STORE_OK && removed)
        *removed = sqlite3_changes64(st->db);
    return st_end(st, rc);
}

store_rc st_event_state_tx(store *st, const char *job_id)
{
    char data[256];
    int terminal = 0;
    store_rc rc = state_json(st, job_id, data, sizeof data, &terminal);
    if (rc == STORE_OK)
        rc = st_event_append_tx(st, job_id, "state", data, NULL);
    if (rc == STORE_OK && terminal)
        rc = st_event_append_tx(st, job_id, "end", data, NULL);
    if (rc == STORE_OK && terminal)
        rc = coarsen(st, job_id);
    return rc;
}

store_rc store_event_append(store *st, const store_claim *c,
                            store_event_type type, const char *data_json,
                            int64_t *seq)
{
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    rc = st_check_claim(st, c);
    if (rc == STORE_OK && ((unsigned)type >= NTYPES || !data_json))
        rc = st_err(st, STORE_INVALID, "event: bad type or no data");
    if (rc == STORE_OK)
        rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    int64_t n = 0;
    rc = st_claim_held(st, c, "append event");
    if (rc == STORE_OK)
        rc = st_event_append_tx(st, c->id, TYPE_NAMES[type], data_json, &n);
    /* Trimming at every 64th event keeps its cost negligible; between two
     * trims a type outgrows the bound by a few dozen events at most. */
    if (rc == STORE_OK && n % 64 == 0)
        rc = trim_running(st, c->id, "progress");
    if (rc == STORE_OK && n % 64 == 0)
        rc = trim_running(st, c->id, "snapshot");
    if (seq)
        *seq = rc == STORE_OK ? n : 0;
    return st_end(st, rc);
}

void store_events_free(store_event *ev, size_t n)
{
    if (!ev)
        return;
    for (size_t i = 0; i < n; i++)
        free(ev[i].data);
    free(ev);
}

static const char SQL_EV_READ[] =
    "SELECT seq, type, data, created_at FROM events"
    " WHERE job_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3";
enum { EV_SEQ, EV_TYPE, EV_DATA, EV_CREATED_AT }; /* its columns */

static store_rc read_events(store *st, sqlite3_stmt *s, int b, size_t limit,
                            store_event *ev, size_t *n)
{
    int r = SQLITE_DONE;
    while (*n < limit && (r = st_step(st, s, b)) == SQLITE_ROW) {
        assert(ev); /* limit > 0 entries, allocated by the caller */
        store_event *e = &ev[*n];
        e->seq = sqlite3_column_int64(s, EV_SEQ);
        e->type = parse_type((const char *)sqlite3_column_text(s, EV_TYPE));
        e->created_at = st_col_real(s, EV_CREATED_AT);
        if (st_col_strdup(s, EV_DATA, &e->data) != 0 || !e->data)
            return st_err(st, STORE_NOMEM, "events: out of memory");
        (*n)++;
    }
    return *n == limit || r == SQLITE_DONE ? STORE_OK
                                           : st_sql(st, r, "read events");
}

store_rc store_event_read(store *st, const char *job_id, int64_t after_seq,
                          size_t limit, store_event **ev, size_t *n)
{
    sqlite3_stmt *s = NULL;
    store_rc rc;
    int b = SQLITE_OK;
    if (!st || !ev || !n)
        return STORE_INVALID;
    *ev = NULL;
    *n = 0;
    rc = st_check_id(st, job_id);
    if (rc == STORE_OK && (limit < 1 || limit > 10000))
        rc = st_err(st, STORE_INVALID, "events: limit must be 1..10000");
    if (rc == STORE_OK && !(*ev = calloc(limit, sizeof **ev)))
        rc = st_err(st, STORE_NOMEM, "events: out of memory");
    if (rc == STORE_OK)
        rc = st_prep(st, SQL_EV_READ, &s);
    if (rc == STORE_OK) {
        b |= sqlite3_bind_text(s, 1, job_id, -1, SQLITE_STATIC);
        b |= sqlite3_bind_int64(s, 2, after_seq);
        b |= sqlite3_bind_int64(s, 3, (sqlite3_int64)limit);
        rc = read_events(st, s, b, limit, *ev, n);
    }
    st_reset(s);
    if (rc != STORE_OK || *n == 0) {
        store_events_free(*ev, *n + (rc != STORE_OK)); /* + a partial one */
        *ev = NULL;
        *n = 0;
    }
    return rc;
}
