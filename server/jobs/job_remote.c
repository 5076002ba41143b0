/*
 * job_remote.c -- a run whose solver is another process (mpi_job.c: the
 * ranks of an MPI job, rank 0 reporting).  Its rows, progress, events and
 * outcome take the paths of a solve on the worker (job_output.c and
 * job_run.c: rows retried through storage faults, the outcome only after
 * its trace), and so do the spec's snapshots it made (the same blobs as a
 * solve here would store); the checkpoints are the other process's,
 * recorded as the job's resume point once every row before them is
 * stored.
 */
#include <stdio.h>
#include <stdlib.h>

#include "job_run.h"

srv_run *srv_run_open(srv_worker_ctl *ctl, store *st, const store_job *job,
                      int64_t trace_every)
{
    srv_run *c = calloc(1, sizeof *c);
    if (c)
        *c = (srv_run){.ctl = ctl, .st = st, .job = job, .claim = store_claim_of(job),
                       .last_flush = srv_mono(), .last_checkpoint = srv_mono(),
                       .out = {.trace_every = trace_every > 0 ? trace_every : 1}};
    return c;
}

void srv_run_close(srv_run *c)
{
    if (!c)
        return;
    srv_run_output_free(c);
    free(c);
}

void srv_run_row(srv_run *c, const ircg_iter_info *it)
{
    if (it->t > c->last.t && it->t > c->last_recorded) /* rows only ever grow */
        srv_run_on_iteration(c, it);
    else
        srv_log("job %s: row of iteration %lld out of order, ignored", c->job->id,
                (long long)it->t);
}

int srv_run_flush(srv_run *c) { return srv_run_is_lost(c) ? -1 : srv_run_store_rows(c); }

void srv_run_checkpoint(srv_run *c, int64_t iteration, const void *blob, size_t len)
{
    store_rc rc;
    if (srv_run_is_lost(c) || srv_run_store_rows(c) != 0) /* the rows up to it first */
        return;
    /* superseded by the next one: tried once, like a timed checkpoint */
    if ((rc = store_job_checkpoint_put(c->st, &c->claim, iteration, blob, len)) != STORE_OK)
        srv_log("job %s: the ranks' checkpoint of iteration %lld not recorded (%s): %s",
                c->job->id, (long long)iteration, store_rc_name(rc), store_errmsg(c->st));
    c->last_checkpoint = srv_mono();
}

void srv_run_snapshot(srv_run *c, int64_t iteration, const void *const blob[3],
                      const size_t len[3])
{
    store_snapshot_blob b[3] = {{STORE_SNAP_STATE, blob[0], len[0]},
                                {STORE_SNAP_X, blob[1], len[1]},
                                {STORE_SNAP_Z, blob[2], len[2]}};
    if (!srv_run_is_lost(c))
        srv_run_store_snapshot(c, iteration, b);
}

typedef struct dataset_arg {
    const char *id, *path;
    store_dataset *ds;
} dataset_arg;

static store_rc write_dataset(srv_run *c, const void *arg)
{
    const dataset_arg *a = arg;
    store_rc rc = store_dataset_get(c->st, a->id, a->ds);
    return rc == STORE_OK ? store_dataset_write_file(c->st, a->id, a->path) : rc;
}

int srv_run_dataset_file(srv_run *c, const char *id, const char *path, store_dataset *ds)
{
    dataset_arg a = {id, path, ds};
    return srv_run_must(c, write_dataset, &a, "read the dataset") == STORE_OK ? 0 : -1;
}

typedef struct state_arg {
    const char *job, *path;
    int64_t iteration;
} state_arg;

static store_rc write_state(srv_run *c, const void *arg)
{
    const state_arg *a = arg;
    void *blob = NULL;
    size_t len = 0;
    store_rc rc = store_snapshot_get(c->st, a->job, a->iteration, STORE_SNAP_STATE, &blob,
                                     &len, NULL);
    if (rc == STORE_OK) {
        FILE *f = fopen(a->path, "wb");
        int ok = f && fwrite(blob, 1, len, f) == len;
        if ((f && fclose(f) != 0) || !ok) {
            srv_log("job %s: cannot write %s", c->job->id, a->path);
            rc = STORE_ERROR;
        }
    }
    free(blob);
    return rc;
}

int srv_run_snapshot_file(srv_run *c, const char *job, int64_t iteration, const char *path)
{
    state_arg a = {job, path, iteration};
    return srv_run_must(c, write_state, &a, "read the snapshot to start from") == STORE_OK ? 0 : -1;
}

int64_t srv_run_iteration(const srv_run *c) { return c->last.t; }
