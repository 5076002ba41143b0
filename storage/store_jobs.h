/*
 * store_jobs.h -- job-row helpers shared by store_jobs.c and
 * store_lifecycle.c (internal).
 */
#ifndef IRCG_STORE_JOBS_H
#define IRCG_STORE_JOBS_H

#include "store_int.h"

/* Loads the job into *out (cleared first).  STORE_NOTFOUND if absent. */
store_rc st_job_load(store *st, const char *id, store_job *out);

/* The job's state and cancel flag.  STORE_NOTFOUND if absent. */
store_rc st_job_state(store *st, const char *id, store_state *state,
                      int *cancel_requested);

/* Checks a job id argument (non-NULL, short); records the message. */
store_rc st_check_id(store *st, const char *id);
/* The same for a claim argument (non-NULL, id checked). */
store_rc st_check_claim(store *st, const store_claim *c);

/* Inside a transaction: STORE_OK while the job runs under the claim's run,
 * STORE_STALE (explained) once it does not, STORE_NOTFOUND if it is gone.
 * `op` names the operation in the message. */
store_rc st_claim_held(store *st, const store_claim *c, const char *op);

#endif /* IRCG_STORE_JOBS_H */
