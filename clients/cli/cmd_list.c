/*
 * cmd_list.c -- `ircg jobs` (the job list, page after page) and `ircg
 * upload FILE` (a dataset).
 */
#define _XOPEN_SOURCE 700 /* strptime */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "remote.h"

/* "12 s", "5 min", "3 h", "2 d" since an RFC 3339 UTC time. */
static const char *age(char *buf, size_t cap, const char *when)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(when, "%Y-%m-%dT%H:%M:%S", &tm);
    double s = end ? difftime(time(NULL), timegm(&tm)) : NAN;
    if (!isfinite(s))
        snprintf(buf, cap, "-");
    else if (s < 60)
        snprintf(buf, cap, "%.0f s", fmax(s, 0));
    else if (s < 3600)
        snprintf(buf, cap, "%.0f min", floor(s / 60));
    else if (s < 86400)
        snprintf(buf, cap, "%.0f h", floor(s / 3600));
    else
        snprintf(buf, cap, "%.0f d", floor(s / 86400));
    return buf;
}

static void print_job(const ircg_client_job *j, int json)
{
    char a[32], it[48];
    if (json) { /* listings carry no body: the fields that matter */
        printf("{\"id\":\"%s\",\"state\":\"%s\",\"problem_type\":\"%s\",\"algorithm\":\"%s\","
               "\"iteration\":%lld,\"created_at\":\"%s\"}\n",
               j->id, ircg_client_state_name(j->state), j->problem_type, j->algorithm,
               (long long)j->iteration, j->created_at);
        return;
    }
    if (j->max_iter > 0)
        snprintf(it, sizeof it, "%lld/%lld", (long long)j->iteration, (long long)j->max_iter);
    else
        snprintf(it, sizeof it, "%lld", (long long)j->iteration);
    printf("%-24s %-10s %-18s %-6s %16s %8s\n", j->id, ircg_client_state_name(j->state),
           j->problem_type, j->algorithm, it, age(a, sizeof a, j->created_at));
}

/* Pages of the list until `limit` jobs or the end. */
static int list(ircg_client *c, const remote_opts *o, ircg_client_state st)
{
    ircg_client_error err = {0};
    ircg_client_list_options lo = {.state = st};
    char *token = NULL;
    long long left = o->limit > 0 ? o->limit : 50;
    int code = CLI_OK;
    if (!o->json)
        printf("%-24s %-10s %-18s %-6s %16s %8s\n", "ID", "STATE", "PROBLEM", "ALG", "ITERATION",
               "AGE");
    while (left > 0) {
        ircg_client_job_list l = {0};
        lo.page_size = left > 1000 ? 1000 : (int)left;
        lo.page_token = token;
        if (ircg_client_list_jobs(c, &lo, &l, &err) != IRCG_CLIENT_OK) {
            code = remote_fail("jobs", &err);
            break;
        }
        for (size_t i = 0; i < l.n && left > 0; i++, left--)
            print_job(&l.jobs[i], o->json);
        free(token);
        token = l.next_page_token;
        l.next_page_token = NULL;
        ircg_client_job_list_clear(&l);
        if (!token)
            break;
    }
    free(token);
    ircg_client_error_clear(&err);
    return code;
}

int cmd_jobs(int argc, char **argv)
{
    static const struct option opts[] = {
        {"state", required_argument, NULL, 's'}, {"limit", required_argument, NULL, 'n'},
        {"json", no_argument, NULL, 'j'}, REMOTE_LONGOPTS, {0},
    };
    static const cli_command cmd = {
        "jobs",
        "usage: ircg jobs [--state STATE] [--limit N] [--json] [--server URL] [--token TOKEN]\n"
        "  the jobs, newest first (50 unless --limit); STATE: queued, running,\n"
        "  succeeded, failed, cancelled; --json: one job a line\n" REMOTE_USAGE_TAIL,
        "s:n:j", opts};
    remote_opts o = {0};
    ircg_client *c = NULL;
    int first = 0, code = remote_parse(argc, argv, &cmd, &o, 0, &first);
    ircg_client_state st = o.state ? ircg_client_state_parse(o.state) : IRCG_CLIENT_STATE_UNKNOWN;
    if (code == CLI_OK && o.state && st == IRCG_CLIENT_STATE_UNKNOWN)
        code = cli_usage_error(&cmd, "unknown state \"%s\"", o.state);
    if (code != CLI_OK)
        return code == CLI_HELP ? CLI_OK : code;
    if ((code = remote_connect(&o, &c)) == CLI_OK)
        code = list(c, &o, st);
    ircg_client_free(c);
    return code;
}

int cmd_upload(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'}, {"kind", required_argument, NULL, 'K'},
        {"json", no_argument, NULL, 'j'}, {"quiet", no_argument, NULL, 'q'},
        REMOTE_LONGOPTS, {0},
    };
    static const cli_command cmd = {
        "upload",
        "usage: ircg upload FILE [--kind ratings|matrix|vector]\n"
        "                   [--format npy|npz|libsvm|matrix_market|csv|movielens|udata]\n"
        "                   [--json] [--server URL] [--token TOKEN]\n"
        "  upload a file (\"-\" = stdin) as a dataset and print its id: ratings for\n"
        "  {\"source\": \"dataset\", \"id\": ...} of matrix completion, a matrix (A) or a\n"
        "  vector (b) for {\"source\": \"dataset\", \"id\", \"b_id\", ...} of least squares\n"
        "  and logistic regression.  Without --kind and --format the server tells them\n"
        "  from the content (NumPy files by their dimensions, LIBSVM a matrix, other\n"
        "  text ratings).  A file is streamed from the disk, whatever its size.\n"
        REMOTE_USAGE_TAIL,
        "f:jq", opts};
    remote_opts o = {0};
    ircg_client *c = NULL;
    ircg_client_error err = {0};
    ircg_client_dataset ds = {0};
    size_t len = 0;
    char *data = NULL;
    int first = 0, code = remote_parse(argc, argv, &cmd, &o, 1, &first);
    if (code != CLI_OK)
        return code == CLI_HELP ? CLI_OK : code;
    int from_stdin = !strcmp(argv[first], "-");
    if (from_stdin && !(data = cli_read_file(argv[first], &len)))
        return CLI_INVALID;
    if ((code = remote_connect(&o, &c)) != CLI_OK) {
        /* printed */
    } else if (from_stdin && o.kind) {
        code = cli_usage_error(&cmd, "%s", "--kind needs a file (stdin is read as ratings)");
    } else if (from_stdin &&
               ircg_client_dataset_upload(c, data, len, o.format, &ds, &err) != IRCG_CLIENT_OK) {
        code = remote_fail("upload", &err);
    } else if (!from_stdin) { /* streamed from the disk; the line on stderr */
        o.quiet |= o.json;
        code = remote_upload(c, argv[first], o.kind, o.format, &o, &ds);
    } else if (!o.json && !o.quiet) {
        fprintf(stderr, "%s: %s %d x %d, %lld entries (%s)%s\n", argv[first], ds.kind,
                ds.n_rows, ds.n_cols, (long long)ds.nnz, ds.format,
                ds.existed ? ", already there" : "");
    }
    if (code == CLI_OK && o.json)
        printf("{\"id\":\"%s\",\"kind\":\"%s\",\"format\":\"%s\",\"n_rows\":%d,"
               "\"n_cols\":%d,\"nnz\":%lld}\n",
               ds.id, ds.kind, ds.format, ds.n_rows, ds.n_cols, (long long)ds.nnz);
    else if (code == CLI_OK)
        printf("%s\n", ds.id);
    ircg_client_error_clear(&err);
    ircg_client_free(c);
    free(data);
    return code;
}
