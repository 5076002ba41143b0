/*
 * solve_output.c -- the trace and result files of `ircg solve`.  Both are
 * opened before the solve, so an unwritable path is invalid input (exit 2)
 * found in a second, not a failure found after an hour of solving.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "result.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

int cli_outputs_open(cli_outputs *o)
{
    o->last_written = -1;
    if (o->trace_path) {
        o->jsonl = ends_with(o->trace_path, ".jsonl") || ends_with(o->trace_path, ".ndjson");
        if (!(o->trace = cli_open_output(o->trace_path)))
            return CLI_INVALID;
        if (!o->jsonl && fputs(API_TRACE_CSV_HEADER, o->trace) < 0)
            o->trace_failed = errno ? errno : EIO;
    }
    if (o->result_path && !(o->result = cli_open_output(o->result_path)))
        return CLI_INVALID;
    return CLI_OK;
}

void cli_outputs_trace(cli_outputs *o, const ircg_iter_info *it)
{
    char row[API_TRACE_ROW_MAX + 1];
    if (!o->trace || it->t == o->last_written)
        return;
    if (o->jsonl)
        api_trace_json_row(row, sizeof row, it);
    else
        api_trace_csv_row(row, sizeof row, it);
    if (fputs(row, o->trace) < 0 && !o->trace_failed)
        o->trace_failed = errno ? errno : EIO;
    o->last_written = it->t;
    o->rows++;
}

int cli_outputs_result(cli_outputs *o, const char *text)
{
    FILE *f = o->result;
    o->result = NULL;
    if (!f)
        return 0;
    if (!text) {
        fprintf(stderr, "ircg: out of memory writing the result\n");
        if (f != stdout)
            fclose(f);
        return -1;
    }
    return cli_write_close(f, o->result_path, text);
}

int cli_outputs_close(cli_outputs *o)
{
    int rc = o->trace_failed ? -1 : 0;
    int saved = o->trace_failed;
    if (o->result && o->result != stdout) /* never written: an early exit */
        fclose(o->result);
    o->result = NULL;
    if (!o->trace)
        return rc;
    if (fflush(o->trace) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (o->trace != stdout && fclose(o->trace) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    o->trace = NULL;
    if (rc)
        fprintf(stderr, "ircg: cannot write %s: %s\n", o->trace_path, strerror(saved));
    return rc;
}
