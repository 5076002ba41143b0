/*
 * datasets.c -- uploaded datasets as the spec parser reads them: ratings
 * ({"source": "dataset", "id": ...} of matrix completion), from the store;
 * matrices and vectors (least squares and logistic regression), from
 * their files in <data-dir>/datasets/ -- at submission (does it exist,
 * what does it hold) and in the worker alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs/jobs.h"
#include "spec.h"

static ircg_error missing(ircg_diag *diag, const char *id)
{
    if (diag)
        snprintf(diag->message, sizeof diag->message,
                 "no dataset with id \"%.64s\" (upload it with POST /v1/datasets)", id);
    return IRCG_ERR_IO;
}

ircg_error srv_dataset_resolve(void *user, const char *id, ircg_ratings **out,
                               ircg_diag *diag)
{
    store *st = user;
    store_dataset ds;
    void *data = NULL;
    size_t len = 0;
    ircg_read_options opt = {0};
    ircg_error err = IRCG_ERR_IO;
    if (store_dataset_get(st, id, &ds) != STORE_OK)
        return missing(diag, id);
    if (ds.kind[0] && strcmp(ds.kind, "ratings") != 0) {
        if (diag)
            snprintf(diag->message, sizeof diag->message,
                     "dataset %.64s holds a %s (least squares, logistic regression), not "
                     "ratings", id, ds.kind);
        return IRCG_ERR_INVALID;
    }
    if (!out)
        return IRCG_OK; /* the cheap check of a submission: it exists */
    if (store_dataset_bytes(st, id, &data, &len) != STORE_OK) {
        err = missing(diag, id);
    } else {
        if (!api_format_parse(ds.format, &opt.format))
            opt.format = IRCG_FORMAT_AUTO;
        err = ircg_ratings_read_buffer(data, len, &opt, out, diag);
    }
    free(data);
    return err;
}

int64_t srv_dataset_bytes(void *user, const char *id)
{
    store_dataset ds;
    return store_dataset_get(user, id, &ds) == STORE_OK ? ds.bytes : -1;
}

ircg_error srv_dataset_info(void *user, const char *id, api_dataset_info *out,
                            ircg_diag *diag)
{
    store_dataset ds;
    memset(out, 0, sizeof *out);
    if (store_dataset_get(user, id, &ds) != STORE_OK)
        return missing(diag, id);
    if (!ds.kind[0] || !strcmp(ds.kind, "ratings")) {
        snprintf(out->meta.kind, sizeof out->meta.kind, "ratings");
        return IRCG_OK; /* the spec refuses it, naming the kind */
    }
    snprintf(out->path, sizeof out->path, "%s/datasets/%s", srv.cfg.data_dir, ds.id);
    if (api_dataset_meta_parse(ds.meta, &out->meta) != 0 || !ds.in_file ||
        access(out->path, R_OK) != 0) {
        if (diag)
            snprintf(diag->message, sizeof diag->message,
                     "dataset %.64s: its file is missing from the data directory's datasets/ "
                     "(restore it from a backup, or upload it again)", id);
        return IRCG_ERR_IO;
    }
    return IRCG_OK;
}
