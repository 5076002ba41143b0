/*
 * remote.h -- the `ircg` verbs that talk to an ircgd (submit, jobs,
 * status, watch, trace, result, cancel, delete, upload) through the C
 * client library, and their progress display.
 */
#ifndef IRCG_CLI_REMOTE_H
#define IRCG_CLI_REMOTE_H

#include <stdio.h>

#include "cli.h"
#include "ircg_client.h"

/* A job that failed or was cancelled (submit --wait, watch). */
#define CLI_JOB_FAILED 4

/* Options the verbs share; each verb accepts the ones its usage lists. */
typedef struct remote_opts {
    const char *server;  /* --server, else IRCG_SERVER, else 127.0.0.1:8080 */
    const char *token;   /* --token, else IRCG_TOKEN                       */
    int json;            /* --json: one JSON object per line               */
    int quiet;           /* --quiet: no progress                           */
    int wait;            /* submit --wait                                  */
    int csv;             /* trace --csv                                    */
    double timeout;      /* --timeout S for waits, 0 = none                */
    const char *state;   /* jobs --state                                   */
    long long limit;     /* jobs --limit                                   */
    const char *format;  /* upload --format                                */
    const char *kind;    /* upload --kind                                  */
    const char *data, *labels, *val_data, *val_labels; /* submit: files
                            uploaded as the problem's datasets             */
    const char *type;    /* submit --type (with --data)                    */
    int upload;          /* submit --upload: the spec's files              */
    const char *x_out, *z_out; /* result --x, --z                          */
} remote_opts;

#define REMOTE_LONGOPTS                                                     \
    {"server", required_argument, NULL, 'S'},                              \
    {"token", required_argument, NULL, 'T'}, CLI_OPT_HELP
#define REMOTE_USAGE_TAIL                                                   \
    "  --server URL   the daemon [IRCG_SERVER, default http://127.0.0.1:8080]\n" \
    "  --token TOKEN  bearer token [IRCG_TOKEN]\n"

/* cli_getopt's on_opt for every verb (user: remote_opts). */
int remote_opt(void *user, int c, const char *arg);
/* Parses argv; CLI_OK with exactly `nargs` arguments from argv[*first]. */
int remote_parse(int argc, char **argv, const cli_command *cmd, remote_opts *o, int nargs,
                 int *first);
/* A client for o's server and token; CLI_OK or an exit code (printed). */
int remote_connect(const remote_opts *o, ircg_client **out);
/* Prints a failed call (the problem and each JSON pointer); its exit
 * code: CLI_INVALID for a refused spec or parameter, else CLI_FAILED. */
int remote_fail(const char *verb, const ircg_client_error *err);
/* The exit code of a finished job: 0 succeeded, CLI_JOB_FAILED else. */
int remote_job_exit(const ircg_client_job *j);
/* prefix, the JSON text without its trailing newline ("null" for none),
 * suffix, and a newline on stdout: one JSON line. */
void remote_put_json(const char *prefix, const char *json, const char *suffix);
/* One line about a job for humans, on f. */
void remote_job_line(FILE *f, const ircg_client_job *j);

/* progress.c: what a wait shows.  On a terminal one line redrawn in
 * place (iteration, it/s, g, f, gap, ETA); to a pipe, plain lines;
 * --json: each event as a JSON object on stdout; --quiet: nothing. */
typedef struct cli_progress {
    FILE *out;             /* stderr, or stdout for --json               */
    int tty, json, quiet;
    int64_t max_iter;      /* the spec's limits, 0 / NaN when unknown     */
    double time_limit;
    int64_t it0;           /* the first progress seen, for it/s           */
    double el0, rate;
    int have0, drawn;      /* a terminal line is on screen               */
} cli_progress;

void cli_progress_init(cli_progress *p, const remote_opts *o, const ircg_client_job *j);
int cli_progress_event(void *user, const ircg_client_event *ev); /* wait callback */
void cli_progress_end(cli_progress *p);
/* Follows job id to its end with progress; fills *job. */
int remote_watch(ircg_client *c, const char *id, const remote_opts *o, ircg_client_job *job);

/* remote_data.c: the file at path uploaded as a dataset (streamed;
 * kind and format NULL: told by the server), a line on stderr unless
 * quiet; CLI_OK or an exit code (printed). */
int remote_upload(ircg_client *c, const char *path, const char *kind, const char *format,
                  const remote_opts *o, ircg_client_dataset *ds);
/* The spec to submit (malloc'ed): text (NULL: {} with --data) with its
 * data replaced by datasets uploaded from --data, --labels, --val-data
 * and --val-labels, or (--upload) from the files it names, relative to
 * dir; NULL with *code set after a failure (printed). */
char *remote_prepare_spec(ircg_client *c, const char *text, const char *dir,
                          const remote_opts *o, int *code);
/* result --x FILE, --z FILE: the iterates as .npz; a failed request or
 * a file not written in err. */
ircg_client_code remote_download_iterates(ircg_client *c, const char *id, const remote_opts *o,
                                          ircg_client_error *err);

int cmd_submit(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_result(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_delete(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_upload(int argc, char **argv);

#endif /* IRCG_CLI_REMOTE_H */
