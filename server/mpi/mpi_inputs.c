/*
 * mpi_inputs.c -- the spec the ranks of an MPI job read.  Each rank reads
 * its byte range of a file or generates its rows (clients/mpi/mpi_data.c),
 * so data that lives in the daemon becomes a file in the job's folder of
 * the MPI work directory first, named by the spec the ranks get:
 *   - inline ratings [user, item, rating] (1-based ids): a Matrix Market
 *     coordinate file (the spec's n_rows and n_cols, else the largest ids,
 *     as for inline data; every rating printed so that it reads back to
 *     the same double);
 *   - a stored dataset: its bytes as the store keeps them (read through
 *     storage faults like the job's other store reads), in its format.
 * The data member becomes {"source": "file", "path": ..., "format": ...}.
 * A start from another job's snapshot ({"job": ...}: the store's, which the
 * ranks cannot read) leaves the spec: the worker writes the snapshot's
 * state to a file and names it to the ranks (--start-state, mpi_job.c).
 * Everything else of the stored spec is passed as it is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "mpi_inputs.h"
#include "spec.h"

/* The triplets as a Matrix Market file; 0 or -1 (errno set). */
static int write_inline(const cJSON *data, const char *path)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(data, "ratings");
    const cJSON *nr = cJSON_GetObjectItemCaseSensitive(data, "n_rows");
    const cJSON *nc = cJSON_GetObjectItemCaseSensitive(data, "n_cols");
    double rows = cJSON_IsNumber(nr) ? nr->valuedouble : 0;
    double cols = cJSON_IsNumber(nc) ? nc->valuedouble : 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, a) { /* validated at submission: [u, i, r] */
        rows = cJSON_GetArrayItem(t, 0)->valuedouble > rows && !cJSON_IsNumber(nr)
                   ? cJSON_GetArrayItem(t, 0)->valuedouble : rows;
        cols = cJSON_GetArrayItem(t, 1)->valuedouble > cols && !cJSON_IsNumber(nc)
                   ? cJSON_GetArrayItem(t, 1)->valuedouble : cols;
    }
    FILE *f = fopen(path, "w");
    int ok = f && fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%.0f %.0f %d\n",
                          rows, cols, cJSON_GetArraySize(a)) > 0;
    cJSON_ArrayForEach(t, a) {
        if (!ok)
            break;
        ok = fprintf(f, "%.0f %.0f %.17g\n", cJSON_GetArrayItem(t, 0)->valuedouble,
                     cJSON_GetArrayItem(t, 1)->valuedouble,
                     cJSON_GetArrayItem(t, 2)->valuedouble) > 0;
    }
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* data becomes {"source": "file", "path", "format"}. */
static int point_at_file(cJSON *problem, const char *path, const char *format)
{
    cJSON *d = cJSON_CreateObject();
    if (!d || !cJSON_AddStringToObject(d, "source", "file") ||
        !cJSON_AddStringToObject(d, "path", path) ||
        !cJSON_AddStringToObject(d, "format", format)) {
        cJSON_Delete(d);
        return -1;
    }
    return cJSON_ReplaceItemInObjectCaseSensitive(problem, "data", d) ? 0 : -1;
}

char *srv_mpi_rank_spec(srv_run *run, store *st, const char *spec_json, const char *dir,
                        char *err, size_t errlen)
{
    char path[4200];
    cJSON *spec = cJSON_Parse(spec_json ? spec_json : "");
    cJSON *problem = cJSON_GetObjectItemCaseSensitive(spec, "problem");
    cJSON *data = cJSON_GetObjectItemCaseSensitive(problem, "data");
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(data, "source");
    const char *source = cJSON_IsString(src) ? src->valuestring : "";
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(data, "id");
    char *text = NULL;
    int rc = 0;
    if (!strcmp(source, "inline")) {
        snprintf(path, sizeof path, "%s/data.mtx", dir);
        if ((rc = write_inline(data, path)) == 0)
            rc = point_at_file(problem, path, "matrix_market");
        else
            snprintf(err, errlen, "cannot write the inline ratings to %.400s", path);
    } else if (!strcmp(source, "dataset") && cJSON_IsString(id)) {
        store_dataset ds = {0};
        ircg_ratings_format fmt = IRCG_FORMAT_AUTO;
        snprintf(path, sizeof path, "%s/dataset", dir);
        if ((rc = srv_run_dataset_file(run, id->valuestring, path, &ds)) != 0)
            snprintf(err, errlen, "cannot write dataset %.80s to %.400s: %s", id->valuestring,
                     path, store_errmsg(st));
        else
            rc = point_at_file(problem, path,
                               api_format_name(api_format_parse(ds.format, &fmt) ? fmt
                                                                               : IRCG_FORMAT_AUTO));
    }
    cJSON *alg = cJSON_GetObjectItemCaseSensitive(spec, "algorithm");
    const cJSON *start = cJSON_GetObjectItemCaseSensitive(alg, "start");
    if (cJSON_GetObjectItemCaseSensitive(start, "job"))
        cJSON_DeleteItemFromObjectCaseSensitive(alg, "start");
    if (rc == 0 && !(text = cJSON_PrintUnformatted(spec)) && !err[0])
        snprintf(err, errlen, "out of memory");
    if (rc != 0 && !err[0])
        snprintf(err, errlen, "out of memory");
    cJSON_Delete(spec);
    return rc == 0 ? text : NULL;
}
