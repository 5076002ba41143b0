/*
 * cli.h -- the `ircg` command-line tool: commands and shared helpers.
 */
#ifndef IRCG_CLI_H
#define IRCG_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "ircg.h"

/* Exit codes (documented in `ircg --help` and api/SPEC.md). */
enum {
    CLI_OK = 0,           /* success (any solver outcome but a cancel)      */
    CLI_INVALID = 2,      /* invalid input: spec, missing or malformed data
                             file, unreadable spec, unwritable output path  */
    CLI_FAILED = 3,       /* the solver or the reference failed, or writing
                             the result or trace failed after the solve     */
    CLI_USAGE = 2,        /* command-line usage: unknown command or option,
                             missing or malformed argument (getopt's 2)     */
    CLI_INTERRUPTED = 130 /* SIGINT: the result and trace say how far it got */
};

/* A command's name, usage text and options (cli_opts.c). */
typedef struct cli_command {
    const char *name;             /* "solve"                                */
    const char *usage;            /* printed by --help and on usage errors  */
    const char *shortopts;        /* getopt's short options, or NULL        */
    const struct option *longopts; /* ends with {0}; include CLI_OPT_HELP   */
} cli_command;

#define CLI_OPT_HELP {"help", no_argument, NULL, 'h'}
/* cli_getopt's answer to --help: the caller returns CLI_OK. */
#define CLI_HELP (-1)

/* Parses argv (argv[0] is the command's name) with getopt_long, calling
 * on_opt for each option (it returns nonzero, after printing why, to
 * refuse it).  CLI_OK with the first argument's index in *first;
 * CLI_HELP after printing the usage on stdout; CLI_USAGE after printing
 * what was wrong and the usage on stderr. */
int cli_getopt(int argc, char **argv, const cli_command *cmd,
               int (*on_opt)(void *user, int c, const char *arg), void *user, int *first);
/* on_opt for a command whose only option is --help. */
int cli_no_options(void *user, int c, const char *arg);
/* "ircg NAME: <fmt with what>" and the usage on stderr; CLI_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, const char *what);

int cmd_solve(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_example(int argc, char **argv);
int cmd_paper(int argc, char **argv);
int cmd_instance(int argc, char **argv);

/* Whole file (or stdin for "-") into a malloc'ed NUL-terminated buffer;
 * NULL with a message on stderr. */
char *cli_read_file(const char *path, size_t *len);
/* Directory of a spec file ("." for "-" or a bare name); malloc'ed. */
char *cli_dirname(const char *path);
/* Parse a spec file, printing every error to stderr; NULL when invalid
 * (the exit code is then CLI_INVALID). */
struct api_spec;
struct api_spec *cli_load_spec(const char *path);
/* Open path for writing ("-" = stdout); NULL with a message on stderr. */
FILE *cli_open_output(const char *path);
/* Write text to f and close it (unless stdout); 0 on success, a message
 * naming path on failure. */
int cli_write_close(FILE *f, const char *path, const char *text);
/* A positive integer option in [1, max]: the whole text must be decimal
 * digits; 0 on anything else (overflow included). */
int cli_parse_count(const char *text, long long max, long long *out);

/* The output files of `ircg solve` (solve_output.c). */
typedef struct cli_outputs {
    const char *trace_path, *result_path;
    FILE *trace, *result;   /* opened (and checked) before the solve     */
    int jsonl;              /* trace as JSON lines instead of CSV         */
    int64_t every;          /* trace every k-th iteration                 */
    int64_t last_written;   /* t of the last trace row                    */
    int64_t rows;           /* trace rows written                         */
    int trace_failed;       /* errno of a failed write to the trace, or 0 */
} cli_outputs;

/* Opens the trace (writing its CSV header) and the result file; on
 * failure prints why and returns CLI_INVALID, else CLI_OK. */
int cli_outputs_open(cli_outputs *o);
/* One trace row, unless iteration t was already written. */
void cli_outputs_trace(cli_outputs *o, const ircg_iter_info *it);
/* Writes the result text and closes the result file; 0 or -1. */
int cli_outputs_result(cli_outputs *o, const char *text);
/* Closes the trace; 0 or -1 (a write had failed or the close fails). */
int cli_outputs_close(cli_outputs *o);

#endif /* IRCG_CLI_H */
