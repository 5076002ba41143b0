/*
 * remote.c -- what the remote verbs share: options, the connection, how a
 * failure is reported, a job in one line.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "remote.h"

static int parse_seconds(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0 && v <= 1e9))
        return -1;
    *out = v;
    return 0;
}

int remote_opt(void *user, int c, const char *arg)
{
    remote_opts *o = user;
    switch (c) {
    case 'S': o->server = arg; return 0;
    case 'T': o->token = arg; return 0;
    case 'j': o->json = 1; return 0;
    case 'q': o->quiet = 1; return 0;
    case 'w': o->wait = 1; return 0;
    case 'c': o->csv = 1; return 0;
    case 's': o->state = arg; return 0;
    case 'f': o->format = arg; return 0;
    case 'K': o->kind = arg; return 0;
    case 'D': o->data = arg; return 0;
    case 'L': o->labels = arg; return 0;
    case 'V': o->val_data = arg; return 0;
    case 'W': o->val_labels = arg; return 0;
    case 'Y': o->type = arg; return 0;
    case 'U': o->upload = 1; return 0;
    case 'X': o->x_out = arg; return 0;
    case 'Z': o->z_out = arg; return 0;
    case 't':
        if (parse_seconds(arg, &o->timeout) == 0)
            return 0;
        fprintf(stderr, "ircg: --timeout wants seconds, got \"%s\"\n", arg);
        return -1;
    case 'n':
        if (cli_parse_count(arg, 1000000, &o->limit))
            return 0;
        fprintf(stderr, "ircg: --limit wants an integer in [1, 1000000], got \"%s\"\n", arg);
        return -1;
    default:
        return -1;
    }
}

int remote_parse(int argc, char **argv, const cli_command *cmd, remote_opts *o, int nargs,
                 int *first)
{
    int rc = cli_getopt(argc, argv, cmd, remote_opt, o, first);
    if (rc == CLI_OK && o->data && nargs == 1 && argc - *first == 0)
        nargs = 0; /* submit --data: the spec is optional */
    if (rc == CLI_OK && argc - *first != nargs)
        rc = cli_usage_error(cmd, "%s", argc - *first < nargs ? "an argument is missing"
                                                              : "too many arguments");
    if (!o->server)
        o->server = getenv("IRCG_SERVER") && *getenv("IRCG_SERVER") ? getenv("IRCG_SERVER")
                                                                     : "http://127.0.0.1:8080";
    if (!o->token && getenv("IRCG_TOKEN") && *getenv("IRCG_TOKEN"))
        o->token = getenv("IRCG_TOKEN");
    return rc;
}

int remote_connect(const remote_opts *o, ircg_client **out)
{
    ircg_client_options co;
    ircg_client_error err = {0};
    ircg_client_options_default(&co);
    co.token = o->token;
    if (ircg_client_new(o->server, &co, out, &err) != IRCG_CLIENT_OK) {
        fprintf(stderr, "ircg: %s\n", err.message);
        ircg_client_error_clear(&err);
        return CLI_USAGE;
    }
    return CLI_OK;
}

int remote_fail(const char *verb, const ircg_client_error *err)
{
    fprintf(stderr, "ircg %s: %s\n", verb, err->message);
    for (size_t i = 0; i < err->n_errors; i++)
        fprintf(stderr, "  %s: %s\n", err->errors[i].pointer[0] ? err->errors[i].pointer : "(body)",
                err->errors[i].reason);
    if (err->status == 401)
        fprintf(stderr, "  (give a token with --token or IRCG_TOKEN)\n");
    return err->status == 400 || err->status == 422 ? CLI_INVALID : CLI_FAILED;
}

int remote_job_exit(const ircg_client_job *j)
{
    return j->state == IRCG_CLIENT_STATE_SUCCEEDED ? CLI_OK : CLI_JOB_FAILED;
}

static const char *num(char *buf, double v, int digits)
{
    if (isfinite(v))
        snprintf(buf, 32, "%.*g", digits, v);
    else
        snprintf(buf, 32, "-");
    return buf;
}

void remote_job_line(FILE *f, const ircg_client_job *j)
{
    char g[32], fx[32], gap[32], el[32];
    fprintf(f, "%s %s", j->id, ircg_client_state_name(j->state));
    if (j->result_status[0])
        fprintf(f, " (%s)", j->result_status);
    fprintf(f, ": %s %s, %lld iterations in %s s, g(x) %s, f(x) %s, gap %s", j->algorithm,
            j->problem_type, (long long)j->iteration, num(el, j->elapsed, 3), num(g, j->g_x, 6),
            num(fx, j->f_x, 6), num(gap, j->gap, 3));
    if (j->error_title[0])
        fprintf(f, "; %s: %s", j->error_title, j->error_detail);
    if (j->cert_iteration >= 0)
        fprintf(f, "; certified: g(x) - min g <= %s, f(x) - f* <= %s", num(g, j->inner_gap, 3),
                num(fx, j->outer_gap, 3));
    fputc('\n', f);
    if (j->warning_codes[0]) /* stderr: what the result is not */
        fprintf(stderr, "ircg: warning (%s): %s\n", j->warning_codes, j->warning);
}

void remote_put_json(const char *prefix, const char *json, const char *suffix)
{
    size_t n = json ? strlen(json) : 0;
    while (n > 0 && (json[n - 1] == '\n' || json[n - 1] == '\r' || json[n - 1] == ' '))
        n--;
    fputs(prefix, stdout);
    if (n)
        fwrite(json, 1, n, stdout);
    else
        fputs("null", stdout);
    fputs(suffix, stdout);
    fputc('\n', stdout);
}
