/*
 * store_jobs.c -- job rows: create (with idempotency keys), get, paged
 * listing and counts.  State transitions are in store_lifecycle.c, state
 * names in store_states.c, claim checks in store_claims.c.
 */
#include "store_jobs.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- row reading -- */

/* The columns every job query reads, and their positions in the row; the
 * two lists go together (checked by job_cols_match in debug builds). */
#define JOB_COLS                                                          \
    "seq, id, state, problem_type, idempotency_key, request_sha256,"      \
    " created_at, started_at, finished_at, heartbeat_at, attempt,"        \
    " cancel_requested, prog_iteration, prog_elapsed, prog_g_x, prog_f_x," \
    " prog_g_z, prog_f_z, prog_gap, version, event_seq, run,"             \
    " spec_json, result_json, error_json, estimate_json,"                 \
    " json_extract(spec_json, '$.algorithm.name') AS algorithm,"          \
    " json_extract(spec_json, '$.algorithm.max_iter') AS max_iter,"       \
    " json_extract(spec_json, '$.algorithm.time_limit') AS time_limit"
/* The last three read the spec the service normalized (always valid
 * JSON), so a listing shows each job's algorithm and limits without a
 * column of its own or a copy of the spec. */
enum job_col {
    JC_SEQ, JC_ID, JC_STATE, JC_PROBLEM_TYPE, JC_IDEMPOTENCY_KEY, JC_REQUEST_SHA256,
    JC_CREATED_AT, JC_STARTED_AT, JC_FINISHED_AT, JC_HEARTBEAT_AT, JC_ATTEMPT,
    JC_CANCEL_REQUESTED, JC_PROG_ITERATION, JC_PROG_ELAPSED, JC_PROG_G_X, JC_PROG_F_X,
    JC_PROG_G_Z, JC_PROG_F_Z, JC_PROG_GAP, JC_VERSION, JC_EVENT_SEQ, JC_RUN,
    JC_SPEC_JSON, JC_RESULT_JSON, JC_ERROR_JSON, JC_ESTIMATE_JSON, JC_ALGORITHM,
    JC_MAX_ITER, JC_TIME_LIMIT,
    JC_COUNT
};

#ifndef NDEBUG
static int job_cols_match(sqlite3_stmt *s)
{
    static const char *const names[JC_COUNT] = {
        "seq", "id", "state", "problem_type", "idempotency_key", "request_sha256",
        "created_at", "started_at", "finished_at", "heartbeat_at", "attempt",
        "cancel_requested", "prog_iteration", "prog_elapsed", "prog_g_x", "prog_f_x",
        "prog_g_z", "prog_f_z", "prog_gap", "version", "event_seq", "run",
        "spec_json", "result_json", "error_json", "estimate_json", "algorithm", "max_iter",
        "time_limit"};
    if (sqlite3_column_count(s) != JC_COUNT)
        return 0;
    for (int i = 0; i < JC_COUNT; i++)
        if (strcmp(sqlite3_column_name(s, i), names[i]) != 0)
            return 0;
    return 1;
}
#endif

void store_job_clear(store_job *j)
{
    if (!j)
        return;
    free(j->problem_type);
    free(j->spec_json);
    free(j->result_json);
    free(j->error_json);
    free(j->estimate_json);
    free(j->idempotency_key);
    memset(j, 0, sizeof *j);
}

static void read_numbers(sqlite3_stmt *s, store_job *j)
{
    j->created_at = st_col_real(s, JC_CREATED_AT);
    j->started_at = st_col_real(s, JC_STARTED_AT);
    j->finished_at = st_col_real(s, JC_FINISHED_AT);
    j->heartbeat_at = st_col_real(s, JC_HEARTBEAT_AT);
    j->attempt = sqlite3_column_int(s, JC_ATTEMPT);
    j->cancel_requested = sqlite3_column_int(s, JC_CANCEL_REQUESTED);
    j->progress.iteration = sqlite3_column_int64(s, JC_PROG_ITERATION);
    j->progress.elapsed = st_col_real(s, JC_PROG_ELAPSED);
    j->progress.g_x = st_col_real(s, JC_PROG_G_X);
    j->progress.f_x = st_col_real(s, JC_PROG_F_X);
    j->progress.g_z = st_col_real(s, JC_PROG_G_Z);
    j->progress.f_z = st_col_real(s, JC_PROG_F_Z);
    j->progress.gap = st_col_real(s, JC_PROG_GAP);
    j->version = sqlite3_column_int64(s, JC_VERSION);
    j->event_seq = sqlite3_column_int64(s, JC_EVENT_SEQ);
    j->run = sqlite3_column_int64(s, JC_RUN);
    j->max_iter = sqlite3_column_int64(s, JC_MAX_ITER);
    j->time_limit = st_col_real(s, JC_TIME_LIMIT);
}

/* Fills *j from the current row; -1 on allocation failure (j cleared). */
static int read_job(sqlite3_stmt *s, store_job *j, int with_bodies)
{
    const char *id = st_col_str(s, JC_ID);
    const void *h = sqlite3_column_blob(s, JC_REQUEST_SHA256);
    store_state state = STORE_QUEUED;
    int bad = 0;
    assert(job_cols_match(s));
    memset(j, 0, sizeof *j);
    j->seq = sqlite3_column_int64(s, JC_SEQ);
    snprintf(j->id, sizeof j->id, "%s", id);
    snprintf(j->algorithm, sizeof j->algorithm, "%s", st_col_str(s, JC_ALGORITHM));
    store_state_parse((const char *)sqlite3_column_text(s, JC_STATE), &state);
    j->state = state; /* the CHECK constraint admits only known names */
    if (h && sqlite3_column_bytes(s, JC_REQUEST_SHA256) == 32) {
        memcpy(j->request_sha256, h, 32);
        j->has_request_sha256 = 1;
    }
    read_numbers(s, j);
    bad |= st_col_strdup(s, JC_PROBLEM_TYPE, &j->problem_type);
    bad |= st_col_strdup(s, JC_IDEMPOTENCY_KEY, &j->idempotency_key);
    if (with_bodies) {
        bad |= st_col_strdup(s, JC_SPEC_JSON, &j->spec_json);
        bad |= st_col_strdup(s, JC_RESULT_JSON, &j->result_json);
        bad |= st_col_strdup(s, JC_ERROR_JSON, &j->error_json);
        bad |= st_col_strdup(s, JC_ESTIMATE_JSON, &j->estimate_json);
    }
    if (bad)
        store_job_clear(j);
    return bad ? -1 : 0;
}

static const char SQL_GET[] = "SELECT " JOB_COLS " FROM jobs WHERE id = ?1";

store_rc st_job_load(store *st, const char *id, store_job *out)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_GET, &s);
    int r, b = SQLITE_OK;
    store_job_clear(out);
    if (rc != STORE_OK)
        return rc;
    b |= sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    r = st_step(st, s, b);
    if (r == SQLITE_ROW) {
        if (read_job(s, out, 1) != 0)
            rc = st_err(st, STORE_NOMEM, "job: out of memory");
    } else if (r == SQLITE_DONE) {
        rc = st_err(st, STORE_NOTFOUND, "no job %s", id);
    } else {
        rc = st_sql(st, r, "get job");
    }
    st_reset(s);
    return rc;
}

static const char SQL_STATE[] =
    "SELECT state, cancel_requested FROM jobs WHERE id = ?1";

store_rc st_job_state(store *st, const char *id, store_state *state,
                      int *cancel_requested)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_STATE, &s);
    int r, b = SQLITE_OK;
    if (rc != STORE_OK)
        return rc;
    b |= sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    r = st_step(st, s, b);
    if (r == SQLITE_ROW) {
        *state = STORE_QUEUED;
        store_state_parse((const char *)sqlite3_column_text(s, 0), state);
        if (cancel_requested)
            *cancel_requested = sqlite3_column_int(s, 1);
    } else if (r == SQLITE_DONE) {
        rc = st_err(st, STORE_NOTFOUND, "no job %s", id);
    } else {
        rc = st_sql(st, r, "job state");
    }
    st_reset(s);
    return rc;
}

store_rc store_job_get(store *st, const char *id, store_job *out)
{
    store_rc rc;
    if (!st || !out)
        return STORE_INVALID;
    rc = st_check_id(st, id);
    return rc == STORE_OK ? st_job_load(st, id, out) : rc;
}

/* ----------------------------------------------------------- create -- */

static const char SQL_BY_KEY[] =
    "SELECT id, request_sha256 FROM jobs WHERE idempotency_key = ?1";
static const char SQL_INSERT[] =
    "INSERT INTO jobs(id, state, problem_type, spec_json, created_at,"
    " idempotency_key, request_sha256, estimate_json)"
    " VALUES(?1, 'queued', ?2, ?3, ?4, ?5, ?6, ?7)";

/* Looks the key up: *found = 0 (new key), 1 (same request: id filled).
 * A different request hash is STORE_CONFLICT. */
static store_rc find_key(store *st, const store_new_job *nj, char *id,
                         int *found)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_BY_KEY, &s);
    int r, b = SQLITE_OK;
    *found = 0;
    if (rc != STORE_OK)
        return rc;
    b |= sqlite3_bind_text(s, 1, nj->idempotency_key, -1, SQLITE_STATIC);
    r = st_step(st, s, b);
    if (r == SQLITE_ROW) {
        const void *h = sqlite3_column_blob(s, 1);
        snprintf(id, STORE_JOB_ID_LEN + 1, "%s", st_col_str(s, 0));
        *found = 1;
        if (!h || sqlite3_column_bytes(s, 1) != 32 ||
            memcmp(h, nj->request_sha256, 32) != 0)
            rc = st_err(st, STORE_CONFLICT,
                        "idempotency key already used by job %s with a "
                        "different request", id);
    } else if (r != SQLITE_DONE) {
        rc = st_sql(st, r, "idempotency lookup");
    }
    st_reset(s);
    return rc;
}

static store_rc insert_job(store *st, const store_new_job *nj, char *id)
{
    sqlite3_stmt *s;
    store_rc rc;
    int b = SQLITE_OK;
    if (st_new_job_id(id) != 0)
        return st_err(st, STORE_ERROR, "no randomness for a job id");
    rc = st_prep(st, SQL_INSERT, &s);
    if (rc != STORE_OK)
        return rc;
    b |= sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    b |= sqlite3_bind_text(s, 2, nj->problem_type, -1, SQLITE_STATIC);
    b |= sqlite3_bind_text(s, 3, nj->spec_json, -1, SQLITE_STATIC);
    b |= sqlite3_bind_double(s, 4, store_now());
    b |= st_bind_text(s, 5, nj->idempotency_key);
    if (nj->idempotency_key)
        b |= sqlite3_bind_blob(s, 6, nj->request_sha256, 32, SQLITE_STATIC);
    b |= st_bind_text(s, 7, nj->estimate_json);
    rc = st_step_done(st, s, b, "insert job");
    return rc == STORE_OK ? st_event_state_tx(st, id) : rc;
}

static store_rc create_tx(store *st, const store_new_job *nj, char *id,
                          int *replayed)
{
    int found = 0;
    store_rc rc = STORE_OK;
    if (nj->idempotency_key)
        rc = find_key(st, nj, id, &found);
    if (rc == STORE_OK && !found)
        rc = insert_job(st, nj, id);
    *replayed = found;
    return rc;
}

static store_rc check_new(store *st, const store_new_job *nj)
{
    if (!nj || !nj->problem_type || !nj->spec_json)
        return st_err(st, STORE_INVALID, "problem_type and spec_json needed");
    if (strlen(nj->problem_type) > 64)
        return st_err(st, STORE_INVALID, "problem_type longer than 64");
    if (nj->idempotency_key && (strlen(nj->idempotency_key) > 255 ||
                                !nj->idempotency_key[0] ||
                                !nj->request_sha256))
        return st_err(st, STORE_INVALID,
                      "idempotency key: 1..255 bytes, with request_sha256");
    return STORE_OK;
}

store_rc store_job_create(store *st, const store_new_job *nj, store_job *out,
                          int *replayed)
{
    char id[STORE_JOB_ID_LEN + 1] = "";
    int rep = 0;
    store_rc rc;
    if (!st)
        return STORE_INVALID;
    rc = check_new(st, nj);
    if (rc == STORE_OK)
        rc = st_begin(st);
    if (rc != STORE_OK)
        return rc;
    rc = create_tx(st, nj, id, &rep);
    /* Read back inside the transaction: the caller sees the job exactly as
     * committed, before any worker could claim it. */
    if (rc == STORE_OK && out)
        rc = st_job_load(st, id, out);
    rc = st_end(st, rc);
    if (rc != STORE_OK && out)
        store_job_clear(out);
    if (replayed)
        *replayed = rc == STORE_OK && rep;
    return rc;
}

/* ------------------------------------------------------------- list -- */

/* ?1 state or NULL, ?2 cursor (0 = start), ?3 limit, ?4 problem or NULL. */
static const char SQL_LIST_NEW[] =
    "SELECT " JOB_COLS " FROM jobs WHERE (?1 IS NULL OR state = ?1)"
    " AND (?4 IS NULL OR problem_type = ?4)"
    " AND (?2 = 0 OR seq < ?2) ORDER BY seq DESC LIMIT ?3";
static const char SQL_LIST_OLD[] =
    "SELECT " JOB_COLS " FROM jobs WHERE (?1 IS NULL OR state = ?1)"
    " AND (?4 IS NULL OR problem_type = ?4)"
    " AND seq > ?2 ORDER BY seq ASC LIMIT ?3";

void store_job_list_init_opts(store_list_opts *o)
{
    memset(o, 0, sizeof *o);
    o->state = -1;
    o->page_size = 50;
}

void store_job_list_clear(store_job_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        store_job_clear(&l->jobs[i]);
    free(l->jobs);
    memset(l, 0, sizeof *l);
}

/* Steps through at most page+1 rows; the extra row only proves that a
 * next page exists. */
static store_rc list_rows(store *st, sqlite3_stmt *s, int b, int page,
                          int with_bodies, store_job_list *out)
{
    int r;
    while ((r = st_step(st, s, b)) == SQLITE_ROW) {
        if ((int)out->n == page) {
            out->next_cursor = out->jobs[out->n - 1].seq;
            return STORE_OK;
        }
        if (read_job(s, &out->jobs[out->n], with_bodies) != 0)
            return st_err(st, STORE_NOMEM, "list: out of memory");
        out->n++;
    }
    return r == SQLITE_DONE ? STORE_OK : st_sql(st, r, "list jobs");
}

store_rc store_job_list_page(store *st, const store_list_opts *o,
                             store_job_list *out)
{
    sqlite3_stmt *s = NULL;
    int page, b = SQLITE_OK;
    store_rc rc;
    if (!st || !o || !out)
        return STORE_INVALID;
    memset(out, 0, sizeof *out);
    page = o->page_size ? o->page_size : 50;
    if (page < 1 || page > 1000 || o->state < -1 || o->state >= STORE_NSTATES ||
        o->cursor < 0)
        return st_err(st, STORE_INVALID, "list: bad page size, state or "
                      "cursor");
    out->jobs = calloc((size_t)page, sizeof *out->jobs);
    if (!out->jobs)
        return st_err(st, STORE_NOMEM, "list: out of memory");
    rc = st_prep(st, o->oldest_first ? SQL_LIST_OLD : SQL_LIST_NEW, &s);
    if (rc == STORE_OK) {
        if (o->state >= 0)
            b |= sqlite3_bind_text(s, 1, store_state_name(o->state), -1,
                                   SQLITE_STATIC);
        b |= sqlite3_bind_int64(s, 2, o->cursor);
        b |= sqlite3_bind_int(s, 3, page + 1);
        b |= st_bind_text(s, 4, o->problem_type);
        rc = list_rows(st, s, b, page, o->with_bodies, out);
    }
    st_reset(s);
    if (rc != STORE_OK)
        store_job_list_clear(out);
    return rc;
}

/* ----------------------------------------------------------- counts -- */

static const char SQL_COUNTS[] =
    "SELECT state, count(*) FROM jobs GROUP BY state";

store_rc store_job_counts(store *st, int64_t counts[STORE_NSTATES])
{
    sqlite3_stmt *s;
    store_rc rc;
    int r;
    if (!st || !counts)
        return STORE_INVALID;
    memset(counts, 0, STORE_NSTATES * sizeof counts[0]);
    rc = st_prep(st, SQL_COUNTS, &s);
    if (rc != STORE_OK)
        return rc;
    while ((r = sqlite3_step(s)) == SQLITE_ROW) {
        store_state k;
        if (store_state_parse((const char *)sqlite3_column_text(s, 0), &k) ==
            STORE_OK)
            counts[k] = sqlite3_column_int64(s, 1);
    }
    if (r != SQLITE_DONE)
        rc = st_sql(st, r, "job counts");
    st_reset(s);
    return rc;
}
