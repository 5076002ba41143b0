/*
 * warm_start.c -- jobs that start where another stopped
 * ("start": {"job": ID, "snapshot": N, "schedule": ...}): the spec's
 * source resolved in the store for api/ (spec_start.c checks it), and the
 * snapshot's solver state restored into the worker's solver.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/jobs.h"
#include "spec.h"

static ircg_error fail(ircg_diag *diag, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static ircg_error fail(ircg_diag *diag, const char *field, const char *fmt, ...)
{
    va_list ap;
    if (diag) {
        snprintf(diag->field, sizeof diag->field, "%s", field);
        va_start(ap, fmt);
        vsnprintf(diag->message, sizeof diag->message, fmt, ap);
        va_end(ap);
    }
    return IRCG_ERR_INVALID;
}

ircg_error srv_job_source(void *user, const char *id, int64_t snapshot,
                          api_job_source *out, ircg_diag *diag)
{
    store *st = user;
    store_job j = {0};
    store_rc rc = store_job_get(st, id, &j);
    if (rc == STORE_NOTFOUND)
        return fail(diag, "/job", "no job with id \"%s\"", id);
    if (rc != STORE_OK)
        return fail(diag, "/job", "job \"%s\" cannot be read", id);
    out->spec_json = j.spec_json; /* handed over */
    j.spec_json = NULL;
    store_job_clear(&j);
    rc = store_snapshot_head(st, id, snapshot, STORE_SNAP_STATE, out->head,
                             sizeof out->head, &out->head_len, &out->iteration);
    if (rc == STORE_NOTFOUND && snapshot > 0)
        return fail(diag, "/snapshot", "job %s has no snapshot at iteration %lld", id,
                    (long long)snapshot);
    if (rc == STORE_NOTFOUND)
        return fail(diag, "/job", "job %s has no snapshot to start from (a job keeps "
                    "them when its spec asks: output.snapshot_every > 0)", id);
    if (rc != STORE_OK)
        return fail(diag, "/job", "the snapshots of job %s cannot be read", id);
    return IRCG_OK;
}

void srv_parse_options(api_parse_options *o, store *st)
{
    api_parse_options_service(o, srv.cfg.data_dir, srv.cfg.max_elements,
                              srv_dataset_resolve, st);
    o->max_memory = srv.cfg.max_job_memory; /* refused at submission (422) */
    o->dataset_bytes = srv_dataset_bytes;
    o->dataset_info = srv_dataset_info;
    o->job = srv_job_source;
    o->job_user = st;
    /* "execution": {"ranks"} only with a launcher to run it */
    o->ranks_allowed = srv.cfg.mpi_launch[0] != '\0';
    o->ranks_refusal = "this service runs no MPI jobs: its operator started ircgd "
                       "without --mpi-launch (IRCGD_MPI_LAUNCH)";
}

int srv_warm_restore(ircg_solver *sv, const api_start_job *sj, const void *blob,
                     size_t len, int64_t *iter, ircg_diag *diag)
{
    if (ircg_solver_restore_as(sv, blob, len, sj->mode, diag) != IRCG_OK)
        return -1;
    *iter = sj->mode == IRCG_RESTORE_CONTINUE ? sj->iteration : 0;
    return 0;
}
