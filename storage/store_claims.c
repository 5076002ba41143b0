/*
 * store_claims.c -- checks of the arguments that name a job (ids, claims)
 * and whether a worker's claim on a running job still holds.
 */
#include "store_int.h"

#include <string.h>

store_rc st_check_id(store *st, const char *id)
{
    if (!id || strlen(id) > 64)
        return st_err(st, STORE_INVALID, "job id missing or too long");
    return STORE_OK;
}

store_claim store_claim_of(const store_job *j)
{
    store_claim c = {.run = j ? j->run : 0};
    if (j)
        memcpy(c.id, j->id, sizeof c.id);
    return c;
}

store_rc st_check_claim(store *st, const store_claim *c)
{
    if (!c)
        return st_err(st, STORE_INVALID, "claim missing");
    return st_check_id(st, c->id);
}

static const char SQL_CLAIM_STATE[] =
    "SELECT state, run FROM jobs WHERE id = ?1";

store_rc st_claim_held(store *st, const store_claim *c, const char *op)
{
    sqlite3_stmt *s;
    store_rc rc = st_prep(st, SQL_CLAIM_STATE, &s);
    int r, b = SQLITE_OK;
    if (rc != STORE_OK)
        return rc;
    b |= sqlite3_bind_text(s, 1, c->id, -1, SQLITE_STATIC);
    r = st_step(st, s, b);
    if (r == SQLITE_ROW) {
        const char *state = st_col_str(s, 0);
        int64_t run = sqlite3_column_int64(s, 1);
        if (strcmp(state, "running") != 0 || run != c->run)
            rc = st_err(st, STORE_STALE,
                        "%s: job %s is no longer held by run %lld (it is %s,"
                        " run %lld)",
                        op, c->id, (long long)c->run, state, (long long)run);
    } else if (r == SQLITE_DONE) {
        rc = st_err(st, STORE_NOTFOUND, "%s: no job %s", op, c->id);
    } else {
        rc = st_sql(st, r, op);
    }
    st_reset(s);
    return rc;
}
