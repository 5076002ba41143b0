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

#endif /* IRCG_STORE_JOBS_H */
