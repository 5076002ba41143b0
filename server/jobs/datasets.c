/*
 * datasets.c -- uploaded datasets as the spec parser reads them
 * ({"source": "dataset", "id": ...}): at submission (does it exist, how
 * big is it) and in the worker (its ratings), from the store.
 */
#include <stdio.h>
#include <stdlib.h>

#include "jobs/jobs.h"
#include "spec.h"

ircg_error srv_dataset_resolve(void *user, const char *id, ircg_ratings **out,
                               ircg_diag *diag)
{
    store *st = user;
    store_dataset ds;
    void *data = NULL;
    size_t len = 0;
    ircg_read_options opt = {0};
    ircg_error err = IRCG_ERR_IO;
    if (!out && store_dataset_get(st, id, &ds) == STORE_OK)
        return IRCG_OK; /* the cheap check of a submission: it exists */
    if (!out || store_dataset_get(st, id, &ds) != STORE_OK ||
        store_dataset_bytes(st, id, &data, &len) != STORE_OK) {
        if (diag)
            snprintf(diag->message, sizeof diag->message,
                     "no dataset with id \"%s\" (upload it with POST /v1/datasets)", id);
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
