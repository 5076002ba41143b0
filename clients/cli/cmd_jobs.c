/*
 * cmd_jobs.c -- `ircg jobs`, `status`, `result`, `cancel`, `delete`,
 * `trace` and `upload`: one request (or a few pages) each against ircgd.
 */
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "remote.h"

/* A verb on one job id: fn does the request and the output; it returns
 * an ircg_client_code, err describing a failure. */
typedef ircg_client_code (*id_verb)(ircg_client *c, const char *id, const remote_opts *o,
                                    ircg_client_error *err);

static int run_id_verb(int argc, char **argv, const cli_command *cmd, id_verb fn)
{
    remote_opts o = {0};
    ircg_client *c = NULL;
    ircg_client_error err = {0};
    int first = 0, code = remote_parse(argc, argv, cmd, &o, 1, &first);
    if (code != CLI_OK)
        return code == CLI_HELP ? CLI_OK : code;
    if ((code = remote_connect(&o, &c)) == CLI_OK && fn(c, argv[first], &o, &err) != IRCG_CLIENT_OK)
        code = remote_fail(cmd->name, &err);
    ircg_client_error_clear(&err);
    ircg_client_free(c);
    return code;
}

#define ID_USAGE(verb, what, extra)                                                    \
    "usage: ircg " verb " ID" extra " [--server URL] [--token TOKEN]\n  " what "\n"      \
    REMOTE_USAGE_TAIL

static const struct option PLAIN_OPTS[] = {REMOTE_LONGOPTS, {0}};
static const struct option JSON_OPTS[] = {{"json", no_argument, NULL, 'j'}, REMOTE_LONGOPTS,
                                          {0}};

/* ------------------------------------------------------------- status -- */

static ircg_client_code status(ircg_client *c, const char *id, const remote_opts *o,
                               ircg_client_error *err)
{
    ircg_client_job j = {0};
    ircg_client_code rc = ircg_client_get_job(c, id, &j, err);
    if (rc == IRCG_CLIENT_OK && o->json)
        remote_put_json("", j.json, "");
    else if (rc == IRCG_CLIENT_OK)
        remote_job_line(stdout, &j);
    ircg_client_job_clear(&j);
    return rc;
}

int cmd_status(int argc, char **argv)
{
    static const cli_command cmd = {"status", ID_USAGE("status", "a job in one line; --json: "
                                                       "the job resource", " [--json]"),
                                    "j", JSON_OPTS};
    return run_id_verb(argc, argv, &cmd, status);
}

/* ------------------------------------------------- result, cancel, delete -- */

static ircg_client_code result(ircg_client *c, const char *id, const remote_opts *o,
                               ircg_client_error *err)
{
    char *json = NULL;
    if (o->x_out || o->z_out) /* the iterates as .npz, instead of the JSON */
        return remote_download_iterates(c, id, o, err);
    ircg_client_code rc = ircg_client_result(c, id, &json, err);
    if (rc == IRCG_CLIENT_OK)
        fputs(json, stdout);
    free(json);
    return rc;
}

int cmd_result(int argc, char **argv)
{
    static const struct option opts[] = {{"x", required_argument, NULL, 'X'},
                                         {"z", required_argument, NULL, 'Z'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         REMOTE_LONGOPTS, {0}};
    static const cli_command cmd = {
        "result",
        ID_USAGE("result", "the result of a finished job (JSON); with --x FILE and --z FILE\n"
                 "  its iterates x and z as NumPy .npz files instead (\"-\" = stdout), the\n"
                 "  same doubles as the JSON's: a vector, or matrix completion's factors",
                 " [--x FILE] [--z FILE] [--quiet]"),
        "q", opts};
    return run_id_verb(argc, argv, &cmd, result);
}

static ircg_client_code cancel(ircg_client *c, const char *id, const remote_opts *o,
                               ircg_client_error *err)
{
    ircg_client_job j = {0};
    (void)o;
    ircg_client_code rc = ircg_client_cancel(c, id, &j, err);
    if (rc == IRCG_CLIENT_OK)
        printf("%s %s%s\n", j.id, ircg_client_state_name(j.state),
               j.state == IRCG_CLIENT_STATE_CANCELLED ? "" : " (cancel requested)");
    ircg_client_job_clear(&j);
    return rc;
}

int cmd_cancel(int argc, char **argv)
{
    static const cli_command cmd = {"cancel", ID_USAGE("cancel", "cancel a queued or running "
                                                       "job", ""), NULL, PLAIN_OPTS};
    return run_id_verb(argc, argv, &cmd, cancel);
}

static ircg_client_code delete_job(ircg_client *c, const char *id, const remote_opts *o,
                                   ircg_client_error *err)
{
    (void)o;
    ircg_client_code rc = ircg_client_delete(c, id, err);
    if (rc == IRCG_CLIENT_OK)
        printf("deleted %s\n", id);
    return rc;
}

int cmd_delete(int argc, char **argv)
{
    static const cli_command cmd = {"delete", ID_USAGE("delete", "delete a finished job, its "
                                                       "trace and snapshots", ""),
                                    NULL, PLAIN_OPTS};
    return run_id_verb(argc, argv, &cmd, delete_job);
}

/* -------------------------------------------------------------- trace -- */

/* Prints a JSON trace's rows, one object a line; the number printed. */
static size_t print_rows(const char *page)
{
    cJSON *doc = cJSON_Parse(page);
    const cJSON *row;
    size_t n = 0;
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(doc, "rows")) {
        char *line = cJSON_PrintUnformatted(row);
        if (line)
            printf("%s\n", line);
        free(line);
        n++;
    }
    cJSON_Delete(doc);
    return n;
}

/* Every row (limit 0: the server streams the whole trace): JSON lines,
 * or CSV with its header line. */
static ircg_client_code trace(ircg_client *c, const char *id, const remote_opts *o,
                              ircg_client_error *err)
{
    char *text = NULL;
    ircg_client_trace_format f = o->csv ? IRCG_CLIENT_TRACE_CSV : IRCG_CLIENT_TRACE_JSON;
    ircg_client_code rc = ircg_client_trace(c, id, f, 0, 0, &text, NULL, NULL, err);
    if (rc == IRCG_CLIENT_OK && o->csv)
        fputs(text, stdout);
    else if (rc == IRCG_CLIENT_OK)
        print_rows(text);
    free(text);
    return rc;
}

int cmd_trace(int argc, char **argv)
{
    static const struct option opts[] = {{"csv", no_argument, NULL, 'c'}, REMOTE_LONGOPTS, {0}};
    static const cli_command cmd = {"trace", ID_USAGE("trace", "every row of a job's trace: JSON "
                                                      "lines, or CSV with --csv", " [--csv]"),
                                    "c", opts};
    return run_id_verb(argc, argv, &cmd, trace);
}
