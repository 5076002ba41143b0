/*
 * store_lifecycle.c -- job state transitions: claim, progress, finish,
 * cancel, delete, requeue on shutdown and recovery at startup.
 *
 * Each public function is one BEGIN IMMEDIATE transaction: the guarded
 * UPDATE (WHERE state = ... and, for a worker's writes, AND run = its
 * claim's run), the version bump and the SSE state events commit together
 * or not at all.  Every transition is one of TRANSITIONS below, checked
 * (moved()) before its transaction commits.
 */
#include "store_jobs.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ transitions -- */

/* Who moves a job from one state to another. */
typedef enum st_mover {
    BY_CLAIM,   /* a worker claims the oldest queued job                 */
    BY_CANCEL,  /* a user's cancel of a queued job (a running one is only
                   asked to stop: cancel_requested, its run ends it)      */
    BY_FINISH,  /* the run that holds the claim ends it                  */
    BY_REQUEUE, /* a clean shutdown gives the claim back                 */
    BY_RELEASE, /* the watchdog releases a claim whose worker is gone    */
    BY_RECOVER, /* the next start settles what a crash left running      */
} st_mover;

static const char *const MOVER_NAMES[] = {"claim", "cancel", "finish", "requeue",
                                          "release", "recover"};

/* The job's states and every move between them (docs/DESIGN.md, "A job's
 * life"): from, who moves it, to.  A settled job (requeue, release,
 * recover) is cancelled when a cancel was requested, failed when out of
 * attempts (never on a clean requeue), else queued again.  Deleting is for
 * finished jobs only and is no move: the row goes. */
static const struct {
    store_state from;
    st_mover who;
    store_state to;
} TRANSITIONS[] = {
    {STORE_QUEUED, BY_CLAIM, STORE_RUNNING},
    {STORE_QUEUED, BY_CANCEL, STORE_CANCELLED},
    {STORE_RUNNING, BY_FINISH, STORE_SUCCEEDED},
    {STORE_RUNNING, BY_FINISH, STORE_FAILED},
    {STORE_RUNNING, BY_FINISH, STORE_CANCELLED},
    {STORE_RUNNING, BY_REQUEUE, STORE_QUEUED},
    {STORE_RUNNING, BY_REQUEUE, STORE_CANCELLED},
    {STORE_RUNNING, BY_RELEASE, STORE_QUEUED},
    {STORE_RUNNING, BY_RELEASE, STORE_FAILED},
    {STORE_RUNNING, BY_RELEASE, STORE_CANCELLED},
    {STORE_RUNNING, BY_RECOVER, STORE_QUEUED},
    {STORE_RUNNING, BY_RECOVER, STORE_FAILED},
    {STORE_RUNNING, BY_RECOVER, STORE_CANCELLED},
};

/* The move of job id just made, inside its transaction: STORE_OK when the
 * table has it; else an error, and the transaction rolls back. */
static store_rc moved(store *st, const char *id, store_state from, st_mover who,
                      store_state to)
{
    for (size_t i = 0; i < sizeof TRANSITIONS / sizeof TRANSITIONS[0]; i++)
        if (TRANSITIONS[i].from == from && TRANSITIONS[i].who == who &&
            TRANSITIONS[i].to == to)
            return STORE_OK;
    return st_err(st, STORE_ERROR, "%s: job %s would move from %s to %s, not a move of "
                  "the job's states", MOVER_NAMES[who], id, store_state_name(from),
                  store_state_name(to));
}

/* Why a guarded UPDATE changed nothing: no such job, or the wrong state. */
static store_rc explain_no_change(store *st, const char *id, const char *op)
{
    store_state s;
    store_rc rc = st_job_state(st, id, &s, NULL);
    if (rc != STORE_OK)
        return rc;
    return st_err(st, STORE_CONFLICT, "%s: job %s is %s", op, id,
                  store_state_name(s));
}

/* Why a claim-guarded UPDATE changed nothing: no such job, or the claim
 * is stale (st_claim_held explains which). */
static store_rc explain_stale(store *st, const store_claim *c, const char *op)
{
    store_rc rc = st_claim_held(st, c, op);
    return rc == STORE_OK ? st_err(st, STORE_ERROR, "%s: no change", op) : rc;
}

/* ------------------------------------------------------------ claim -- */

static const char SQL_CLAIM[] =
    "UPDATE jobs SET state = 'running', started_at = ?1, heartbeat_at = ?1,"
    " attempt = attempt + 1, run = run + 1, version = version + 1"
    " WHERE seq = (SELECT seq FROM jobs WHERE state = 'queued'"
    "              ORDER BY seq LIMIT 1)"
    " RETURNING id, state";

static store_rc claim_tx(store *st, char *id)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_CLAIM, &s);
    int r, b = SQLITE_OK;
    if (rc != STORE_OK)
        return rc;
    b |= sqlite3_bind_double(s, 1, store_now());
    r = st_step(st, s, b);
    if (r == SQLITE_ROW) {
        store_state now = STORE_QUEUED;
        snprintf(id, STORE_JOB_ID_LEN + 1, "%s", st_col_str(s, 0));
        store_state_parse(st_col_str(s, 1), &now);
        rc = moved(st, id, STORE_QUEUED, BY_CLAIM, now);
        r = sqlite3_step(s); /* run the statement to completion */
    } else if (r == SQLITE_DONE) {
        rc = st_err(st, STORE_NOTFOUND, "no queued job");
    }
    if (rc == STORE_OK && r != SQLITE_DONE)
        rc = st_sql(st, r, "claim");
    st_reset(s);
    return rc == STORE_OK ? st_event_state_tx(st, id) : rc;
}

static const char SQL_ANY_QUEUED[] =
    "SELECT EXISTS(SELECT 1 FROM jobs WHERE state = 'queued')";

/* A plain read first, so idle workers polling an empty queue never take
 * the write lock; the claim itself re-checks under the lock. */
static store_rc any_queued(store *st, int *yes)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_ANY_QUEUED, &s);
    int r;
    if (rc != STORE_OK)
        return rc;
    r = sqlite3_step(s);
    if (r == SQLITE_ROW)
        *yes = sqlite3_column_int(s, 0);
    else
        rc = st_sql(st, r, "queued?");
    st_reset(s);
    if (rc == STORE_OK && !*yes)
        rc = st_err(st, STORE_NOTFOUND, "no queued job");
    return rc;
}

store_rc store_job_claim_next(store *st, store_job *out)
{
    char id[STORE_JOB_ID_LEN + 1] = "";
    int yes = 0;
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    if (out)
        store_job_clear(out);
    rc = any_queued(st, &yes);
    if (rc == STORE_OK)
        rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    rc = claim_tx(st, id);
    if (rc == STORE_OK && out)
        rc = st_job_load(st, id, out);
    rc = st_end(st, rc);
    if (rc != STORE_OK && out)
        store_job_clear(out);
    return rc;
}

/* --------------------------------------------------------- progress -- */

static const char SQL_HEARTBEAT[] =
    "UPDATE jobs SET heartbeat_at = ?2, version = version + 1"
    " WHERE id = ?1 AND run = ?3 AND state = 'running'"
    " RETURNING cancel_requested";
static const char SQL_PROGRESS[] =
    "UPDATE jobs SET heartbeat_at = ?2, version = version + 1,"
    " prog_iteration = ?4, prog_elapsed = ?5, prog_g_x = ?6, prog_f_x = ?7,"
    " prog_g_z = ?8, prog_f_z = ?9, prog_gap = ?10"
    " WHERE id = ?1 AND run = ?3 AND state = 'running'"
    " RETURNING cancel_requested";

static int bind_progress(sqlite3_stmt *s, const store_progress *p)
{
    int b = sqlite3_bind_int64(s, 4, p->iteration);
    b |= st_bind_real(s, 5, p->elapsed);
    b |= st_bind_real(s, 6, p->g_x);
    b |= st_bind_real(s, 7, p->f_x);
    b |= st_bind_real(s, 8, p->g_z);
    b |= st_bind_real(s, 9, p->f_z);
    b |= st_bind_real(s, 10, p->gap);
    return b;
}

static store_rc progress_tx(store *st, const store_claim *c,
                            const store_progress *p, int *cancel)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, p ? SQL_PROGRESS : SQL_HEARTBEAT, &s);
    int r, found = 0, b = SQLITE_OK;
    if (rc != STORE_OK)
        return rc;
    b |= sqlite3_bind_text(s, 1, c->id, -1, SQLITE_STATIC);
    b |= sqlite3_bind_double(s, 2, store_now());
    b |= sqlite3_bind_int64(s, 3, c->run);
    if (p)
        b |= bind_progress(s, p);
    while ((r = st_step(st, s, b)) == SQLITE_ROW) {
        *cancel = sqlite3_column_int(s, 0);
        found = 1;
    }
    if (r != SQLITE_DONE)
        rc = st_sql(st, r, "progress");
    st_reset(s);
    if (rc == STORE_OK && !found)
        rc = explain_stale(st, c, "progress");
    return rc;
}

store_rc store_job_progress(store *st, const store_claim *c,
                            const store_progress *p, int *cancel_requested)
{
    int cancel = 0;
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    rc = st_check_claim(st, c);
    if (rc == STORE_OK)
        rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    rc = st_end(st, progress_tx(st, c, p, &cancel));
    if (cancel_requested)
        *cancel_requested = rc == STORE_OK && cancel;
    return rc;
}

/* ----------------------------------------------------------- finish -- */

static const char SQL_FINISH[] =
    "UPDATE jobs SET state = ?2, finished_at = ?3, heartbeat_at = ?3,"
    " result_json = ?4, error_json = ?5, version = version + 1"
    " WHERE id = ?1 AND run = ?6 AND state = 'running'";

static store_rc finish_tx(store *st, const store_claim *c, store_state final,
                          const char *result_json, const char *error_json)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_FINISH, &s);
    if (rc != STORE_OK)
        return rc;
    int b = sqlite3_bind_text(s, 1, c->id, -1, SQLITE_STATIC);
    b |= sqlite3_bind_text(s, 2, store_state_name(final), -1, SQLITE_STATIC);
    b |= sqlite3_bind_double(s, 3, store_now());
    b |= st_bind_text(s, 4, result_json);
    b |= st_bind_text(s, 5, error_json);
    b |= sqlite3_bind_int64(s, 6, c->run);
    rc = st_step_done(st, s, b, "finish");
    if (rc == STORE_OK && sqlite3_changes(st->db) == 0)
        rc = explain_stale(st, c, "finish");
    if (rc == STORE_OK)
        rc = moved(st, c->id, STORE_RUNNING, BY_FINISH, final);
    return rc == STORE_OK ? st_event_state_tx(st, c->id) : rc;
}

store_rc store_job_finish(store *st, const store_claim *c, store_state final,
                          const char *result_json, const char *error_json)
{
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    rc = st_check_claim(st, c);
    if (rc == STORE_OK && !store_state_terminal(final)) /* the caller's mistake */
        rc = st_err(st, STORE_INVALID, "finish: %s is not a final state",
                    store_state_name(final));
    if (rc == STORE_OK)
        rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    return st_end(st, finish_tx(st, c, final, result_json, error_json));
}

/* ----------------------------------------------------------- cancel -- */

static const char SQL_CANCEL_QUEUED[] =
    "UPDATE jobs SET state = 'cancelled', finished_at = ?2,"
    " version = version + 1 WHERE id = ?1 AND state = 'queued'";
static const char SQL_CANCEL_RUNNING[] =
    "UPDATE jobs SET cancel_requested = 1, version = version + 1"
    " WHERE id = ?1 AND state = 'running' AND cancel_requested = 0";

static store_rc cancel_tx(store *st, const char *id)
{
    store_state state;
    int requested = 0, b = SQLITE_OK;
    sqlite3_stmt *s;
    store_rc rc = st_job_state(st, id, &state, &requested);
    if (rc != STORE_OK)
        return rc;
    if (store_state_terminal(state))
        return st_err(st, STORE_CONFLICT, "cancel: job %s is already %s", id,
                      store_state_name(state));
    if (state == STORE_RUNNING && requested)
        return STORE_OK; /* asked before: nothing changes, no new event */
    rc = st_prep(st, state == STORE_QUEUED ? SQL_CANCEL_QUEUED
                                           : SQL_CANCEL_RUNNING, &s);
    if (rc != STORE_OK)
        return rc;
    b |= sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    if (state == STORE_QUEUED)
        b |= sqlite3_bind_double(s, 2, store_now());
    rc = st_step_done(st, s, b, "cancel");
    if (rc == STORE_OK && state == STORE_QUEUED)
        rc = moved(st, id, STORE_QUEUED, BY_CANCEL, STORE_CANCELLED);
    return rc == STORE_OK ? st_event_state_tx(st, id) : rc;
}

store_rc store_job_request_cancel(store *st, const char *id, store_job *out)
{
    store_rc rc, load;
    if (!st)
        return STORE_INVALID;
    if (out)
        store_job_clear(out);
    rc = st_check_id(st, id);
    if (rc == STORE_OK)
        rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    rc = cancel_tx(st, id);
    /* The job is returned on CONFLICT too (see the header). */
    if ((rc == STORE_OK || rc == STORE_CONFLICT) && out) {
        char keep[sizeof st->err];
        memcpy(keep, st->err, sizeof keep);
        load = st_job_load(st, id, out);
        if (load != STORE_OK)
            rc = load;
        else
            memcpy(st->err, keep, sizeof keep);
    }
    return st_end(st, rc);
}

/* ----------------------------------------------------------- delete -- */

static const char SQL_DELETE[] =
    "DELETE FROM jobs WHERE id = ?1"
    " AND state IN ('succeeded', 'failed', 'cancelled')";

static store_rc delete_tx(store *st, const char *id)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_DELETE, &s);
    if (rc != STORE_OK)
        return rc;
    int b = sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    rc = st_step_done(st, s, b, "delete");
    if (rc == STORE_OK && sqlite3_changes(st->db) == 0)
        rc = explain_no_change(st, id, "delete");
    return rc;
}

store_rc store_job_delete(store *st, const char *id)
{
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    rc = st_check_id(st, id);
    if (rc == STORE_OK)
        rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    /* Traces, snapshots and events go with it: ON DELETE CASCADE. */
    return st_end(st, delete_tx(st, id));
}

/* -------------------------------------------- requeue and recovery -- */

/* One statement settles a running job: cancelled if asked, failed when out
 * of attempts, else queued again (keeping seq and snapshots).  ?5 = 1 for
 * a clean stop, which gives the claim's attempt back; ?6 = the run to
 * settle, or -1 for whichever run a crash left behind (recovery). */
static const char SQL_SETTLE[] =
    "UPDATE jobs SET"
    " state = CASE WHEN cancel_requested THEN 'cancelled'"
    "              WHEN attempt >= ?2 THEN 'failed' ELSE 'queued' END,"
    " finished_at = CASE WHEN cancel_requested OR attempt >= ?2 THEN ?3 END,"
    " error_json = CASE WHEN NOT cancel_requested AND attempt >= ?2 THEN ?4"
    "                   ELSE error_json END,"
    " attempt = CASE WHEN NOT cancel_requested AND attempt < ?2"
    "                THEN attempt - ?5 ELSE attempt END,"
    " version = version + 1"
    " WHERE id = ?1 AND state = 'running' AND (?6 < 0 OR run = ?6)"
    " RETURNING state";

/* How a running job is settled: a clean shutdown requeue of the claim's
 * run; a crash recovery of whatever run the job was left in; or the
 * release of a claim whose worker is gone (counted like a crash, but of
 * that run only).  The last two fail it with error_json when it has no
 * attempts left. */
typedef enum settle_kind { SETTLE_CLEAN, SETTLE_RECOVER, SETTLE_RELEASE } settle_kind;

static store_rc settle_tx(store *st, const store_claim *c, settle_kind kind,
                          int max_attempts, const char *error_json, store_state *now)
{
    int clean = kind == SETTLE_CLEAN;
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_SETTLE, &s);
    int r, b = SQLITE_OK;
    if (rc != STORE_OK)
        return rc;
    b |= sqlite3_bind_text(s, 1, c->id, -1, SQLITE_STATIC);
    b |= sqlite3_bind_int(s, 2, max_attempts);
    b |= sqlite3_bind_double(s, 3, store_now());
    b |= error_json ? sqlite3_bind_text(s, 4, error_json, -1, SQLITE_STATIC)
                    : sqlite3_bind_null(s, 4);
    b |= sqlite3_bind_int(s, 5, clean);
    b |= sqlite3_bind_int64(s, 6, kind == SETTLE_RECOVER ? -1 : c->run);
    r = st_step(st, s, b);
    if (r == SQLITE_ROW) {
        static const st_mover WHO[] = {[SETTLE_CLEAN] = BY_REQUEUE,
                                       [SETTLE_RECOVER] = BY_RECOVER,
                                       [SETTLE_RELEASE] = BY_RELEASE};
        store_state_parse((const char *)sqlite3_column_text(s, 0), now);
        rc = moved(st, c->id, STORE_RUNNING, WHO[kind], *now);
        r = sqlite3_step(s);
    } else if (r == SQLITE_DONE) {
        rc = STORE_NOTFOUND; /* explained by the caller */
    }
    if (rc == STORE_OK && r != SQLITE_DONE)
        rc = st_sql(st, r, "settle");
    st_reset(s);
    if (rc == STORE_NOTFOUND)
        return kind == SETTLE_RECOVER ? explain_no_change(st, c->id, "recover")
                                      : explain_stale(st, c, clean ? "requeue" : "release");
    return rc == STORE_OK ? st_event_state_tx(st, c->id) : rc;
}

store_rc store_job_requeue(store *st, const store_claim *c)
{
    store_state now = STORE_RUNNING;
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    rc = st_check_claim(st, c);
    if (rc == STORE_OK)
        rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    return st_end(st, settle_tx(st, c, SETTLE_CLEAN, INT_MAX, NULL, &now));
}

store_rc store_job_release(store *st, const store_claim *c, int max_attempts,
                           const char *error_json, store_state *now)
{
    store_state state = STORE_RUNNING;
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    rc = st_check_claim(st, c);
    if (rc == STORE_OK && max_attempts < 1)
        rc = st_err(st, STORE_INVALID, "release: max_attempts < 1");
    if (rc == STORE_OK)
        rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    rc = st_end(st, settle_tx(st, c, SETTLE_RELEASE, max_attempts, error_json, &state));
    if (now)
        *now = state;
    return rc;
}

static const char SQL_STALE[] =
    "SELECT id, run FROM jobs WHERE state = 'running'"
    " AND (heartbeat_at IS NULL OR heartbeat_at < ?1)"
    " ORDER BY heartbeat_at LIMIT ?2";

store_rc store_job_stale(store *st, double before, store_claim *out, size_t max,
                         size_t *n)
{
    sqlite3_stmt *s;
    store_rc rc;
    int r = SQLITE_DONE, b;
    if (!st || !n || (max > 0 && !out))
        return STORE_INVALID;
    *n = 0;
    if ((rc = st_prep(st, SQL_STALE, &s)) != STORE_OK)
        return rc;
    b = sqlite3_bind_double(s, 1, before);
    b |= sqlite3_bind_int64(s, 2, (sqlite3_int64)max);
    while (*n < max && (r = st_step(st, s, b)) == SQLITE_ROW) {
        snprintf(out[*n].id, sizeof out[*n].id, "%s", st_col_str(s, 0));
        out[(*n)++].run = sqlite3_column_int64(s, 1);
    }
    if (r != SQLITE_ROW && r != SQLITE_DONE)
        rc = st_sql(st, r, "stale jobs");
    st_reset(s);
    return rc;
}

static const char SQL_RUNNING_IDS[] =
    "SELECT id FROM jobs WHERE state = 'running' ORDER BY seq";

/* Collects the ids first: updating rows while a SELECT walks the same
 * table is undefined in SQLite.  *ids is malloc'd. */
static store_rc running_ids(store *st, char (**ids)[STORE_JOB_ID_LEN + 1],
                            size_t *n)
{
    sqlite3_stmt *s;
    size_t cap = 0;
    int r;
    store_rc rc = st_prep(st, SQL_RUNNING_IDS, &s);
    *ids = NULL;
    *n = 0;
    while (rc == STORE_OK && (r = sqlite3_step(s)) == SQLITE_ROW) {
        if (*n == cap) {
            void *p = realloc(*ids, (cap = cap ? 2 * cap : 16) * sizeof **ids);
            if (!p) {
                rc = st_err(st, STORE_NOMEM, "recover: out of memory");
                break;
            }
            *ids = p;
        }
        snprintf((*ids)[(*n)++], STORE_JOB_ID_LEN + 1, "%s",
                 st_col_str(s, 0));
    }
    if (rc == STORE_OK && r != SQLITE_DONE)
        rc = st_sql(st, r, "recover");
    st_reset(s);
    return rc;
}

static store_rc recover_tx(store *st, int max_attempts, const char *error_json,
                           int *requeued, int *failed)
{
    char(*ids)[STORE_JOB_ID_LEN + 1] = NULL;
    size_t n = 0;
    store_rc rc = running_ids(st, &ids, &n);
    for (size_t i = 0; rc == STORE_OK && i < n; i++) {
        store_state now = STORE_RUNNING;
        store_claim c = {.run = -1};
        memcpy(c.id, ids[i], sizeof c.id);
        rc = settle_tx(st, &c, SETTLE_RECOVER, max_attempts, error_json, &now);
        *requeued += now == STORE_QUEUED;
        *failed += now == STORE_FAILED;
    }
    free(ids);
    return rc;
}

store_rc store_recover(store *st, int max_attempts, const char *error_json,
                       int *requeued, int *failed)
{
    int rq = 0, fl = 0;
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    if (max_attempts < 1)
        return st_err(st, STORE_INVALID, "recover: max_attempts < 1");
    rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    rc = st_end(st, recover_tx(st, max_attempts, error_json, &rq, &fl));
    if (requeued)
        *requeued = rc == STORE_OK ? rq : 0;
    if (failed)
        *failed = rc == STORE_OK ? fl : 0;
    return rc;
}
