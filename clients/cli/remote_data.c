/*
 * remote_data.c -- data on this side of a remote daemon: files uploaded
 * as datasets, streamed from the disk (`ircg upload`; `ircg submit`'s
 * --data, --labels, --val-data and --val-labels, and --upload, which
 * uploads the files a spec names), put into the spec in their place; and
 * a finished job's iterates downloaded as NumPy .npz (`ircg result --x
 * FILE --z FILE`).
 */
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "remote.h"

int remote_upload(ircg_client *c, const char *path, const char *kind, const char *format,
                  const remote_opts *o, ircg_client_dataset *ds)
{
    ircg_client_error err = {0};
    int code = CLI_OK;
    if (ircg_client_dataset_upload_file(c, path, kind, format, ds, &err) != IRCG_CLIENT_OK) {
        char verb[1100];
        snprintf(verb, sizeof verb, "upload %s", path);
        code = remote_fail(verb, &err);
    } else if (!o->quiet && !o->json) {
        fprintf(stderr, "%s: dataset %s, %s %d x %d, %lld entries (%s)%s\n", path, ds->id,
                ds->kind, ds->n_rows, ds->n_cols, (long long)ds->nnz, ds->format,
                ds->existed ? ", already there" : "");
    }
    ircg_client_error_clear(&err);
    return code;
}

/* path as the spec means it: relative to the spec's directory. */
static char *local_path(const char *dir, const char *path)
{
    size_t n = strlen(dir) + strlen(path) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s%s", path[0] == '/' ? "" : dir, path[0] == '/' ? "" : "/", path);
    return p;
}

/* Uploads the file of member `from` (a path) and puts its id at member
 * `to`; CLI_OK when the member is absent. */
static int swap_member(ircg_client *c, cJSON *d, const char *dir, const char *from,
                       const char *to, const char *kind, const char *format,
                       const remote_opts *o)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, from);
    ircg_client_dataset ds = {0};
    if (!v)
        return CLI_OK;
    if (!cJSON_IsString(v)) {
        fprintf(stderr, "ircg submit: /problem/data/%s is not a path\n", from);
        return CLI_INVALID;
    }
    char *p = local_path(dir, v->valuestring);
    int code = p ? remote_upload(c, p, kind, format, o, &ds) : CLI_FAILED;
    free(p);
    if (code == CLI_OK) {
        cJSON_DeleteItemFromObjectCaseSensitive(d, from);
        cJSON_AddStringToObject(d, to, ds.id);
    }
    return code;
}

/* --upload: the files of problem.data uploaded, the source a dataset. */
static int upload_spec_files(ircg_client *c, cJSON *spec, const char *dir,
                             const remote_opts *o)
{
    cJSON *pb = cJSON_GetObjectItemCaseSensitive(spec, "problem");
    cJSON *d = cJSON_GetObjectItemCaseSensitive(pb, "data");
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(d, "source");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(pb, "type");
    if (!cJSON_IsString(src) || strcmp(src->valuestring, "file") != 0)
        return CLI_OK; /* nothing to upload */
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(d, "format");
    char format[32] = "";
    if (cJSON_IsString(f) && strcmp(f->valuestring, "auto") != 0)
        snprintf(format, sizeof format, "%s", f->valuestring);
    const char *fmt = format[0] ? format : NULL;
    int code = CLI_OK;
    if (cJSON_IsString(type) && !strcmp(type->valuestring, "matrix_completion")) {
        if (cJSON_GetObjectItemCaseSensitive(d, "n_rows") ||
            cJSON_GetObjectItemCaseSensitive(d, "n_cols")) {
            fprintf(stderr, "ircg submit --upload: a dataset of ratings takes its dimensions "
                            "from its ids: give no n_rows or n_cols\n");
            return CLI_INVALID;
        }
        code = swap_member(c, d, dir, "path", "id", "ratings", fmt, o);
    } else {
        /* a matrix file's format tells its vectors' apart: theirs is told */
        code = swap_member(c, d, dir, "A_path", "id", "matrix", fmt, o);
        if (code == CLI_OK)
            code = swap_member(c, d, dir, "b_path", "b_id", "vector", NULL, o);
        if (code == CLI_OK)
            code = swap_member(c, d, dir, "A_val_path", "A_val_id", "matrix", fmt, o);
        if (code == CLI_OK)
            code = swap_member(c, d, dir, "b_val_path", "b_val_id", "vector", NULL, o);
    }
    if (code == CLI_OK) {
        cJSON_DeleteItemFromObjectCaseSensitive(d, "format");
        cJSON_ReplaceItemInObjectCaseSensitive(d, "source", cJSON_CreateString("dataset"));
    }
    return code;
}

/* --data, --labels, --val-data, --val-labels: the problem's data. */
static int data_options(ircg_client *c, cJSON *spec, const remote_opts *o)
{
    ircg_client_dataset ds = {0};
    cJSON *pb = cJSON_GetObjectItemCaseSensitive(spec, "problem");
    if (!pb)
        pb = cJSON_AddObjectToObject(spec, "problem");
    if (o->type)
        cJSON_DeleteItemFromObjectCaseSensitive(pb, "type");
    if (!cJSON_GetObjectItemCaseSensitive(pb, "type"))
        cJSON_AddStringToObject(pb, "type", o->type ? o->type : "least_squares");
    cJSON_DeleteItemFromObjectCaseSensitive(pb, "data");
    cJSON *d = cJSON_AddObjectToObject(pb, "data");
    cJSON_AddStringToObject(d, "source", "dataset");
    const char *files[4] = {o->data, o->labels, o->val_data, o->val_labels};
    const char *names[4] = {"id", "b_id", "A_val_id", "b_val_id"};
    for (int i = 0; i < 4; i++) {
        if (!files[i])
            continue;
        int code = remote_upload(c, files[i], i % 2 ? "vector" : "matrix", NULL, o, &ds);
        if (code != CLI_OK)
            return code;
        cJSON_AddStringToObject(d, names[i], ds.id);
    }
    /* validation rows mean the validation loss, unless the spec says */
    if (o->val_data && !cJSON_GetObjectItemCaseSensitive(pb, "outer"))
        cJSON_AddStringToObject(pb, "outer", "validation");
    return CLI_OK;
}

char *remote_prepare_spec(ircg_client *c, const char *text, const char *dir,
                          const remote_opts *o, int *code)
{
    char *out = NULL;
    *code = CLI_OK;
    if (!o->data && !o->upload) { /* as it is: the server's errors point into it */
        if (!(out = strdup(text ? text : "")))
            *code = CLI_FAILED;
        return out;
    }
    cJSON *spec = text ? cJSON_Parse(text) : cJSON_CreateObject();
    if (!cJSON_IsObject(spec)) {
        cJSON_Delete(spec);
        fprintf(stderr, "ircg submit: the spec is not a JSON object\n");
        *code = CLI_INVALID;
        return NULL;
    }
    if (o->data)
        *code = data_options(c, spec, o);
    else if (o->upload)
        *code = upload_spec_files(c, spec, dir, o);
    if (*code == CLI_OK && !(out = cJSON_PrintUnformatted(spec)))
        *code = CLI_FAILED;
    cJSON_Delete(spec);
    return out;
}

ircg_client_code remote_download_iterates(ircg_client *c, const char *id, const remote_opts *o,
                                          ircg_client_error *err)
{
    const char *files[2] = {o->x_out, o->z_out}, *which[2] = {"x", "z"};
    for (int i = 0; i < 2; i++) {
        void *data = NULL;
        size_t len = 0;
        if (!files[i])
            continue;
        ircg_client_code rc = ircg_client_result_npz(c, id, which[i], &data, &len, err);
        if (rc != IRCG_CLIENT_OK)
            return rc;
        FILE *f = cli_open_output(files[i]);
        int ok = f && fwrite(data, 1, len, f) == len;
        ok = f && (f == stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
        free(data);
        if (!ok) { /* a failure of ours: exit 3, as a failed request */
            snprintf(err->message, sizeof err->message, "cannot write %s", files[i]);
            return err->code = IRCG_CLIENT_ERR_INVALID;
        }
        if (!o->quiet && f != stdout)
            fprintf(stderr, "%s: %s of %s (%zu bytes, .npz)\n", files[i], which[i], id, len);
    }
    return IRCG_CLIENT_OK;
}
