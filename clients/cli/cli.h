/*
 * cli.h -- the `ircg` command-line tool: commands and shared helpers.
 */
#ifndef IRCG_CLI_H
#define IRCG_CLI_H

#include <stddef.h>

/* Exit codes (documented in `ircg --help`). */
enum {
    CLI_OK = 0,          /* success (any solver outcome but cancel)       */
    CLI_USAGE = 2,       /* invalid input: usage, spec, missing file      */
    CLI_FAILED = 3,      /* the solver failed, or an output write failed  */
    CLI_INTERRUPTED = 130/* SIGINT: partial result and trace written      */
};

int cmd_solve(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_example(int argc, char **argv);
int cmd_paper(int argc, char **argv);

/* Whole file (or stdin for "-") into a malloc'ed NUL-terminated buffer;
 * NULL with a message on stderr. */
char *cli_read_file(const char *path, size_t *len);
/* Directory of a spec file ("." for "-" or a bare name); malloc'ed. */
char *cli_dirname(const char *path);
/* Parse a spec file, printing every error to stderr; NULL when invalid.
 * *code receives the exit code for failures. */
struct api_spec;
struct api_spec *cli_load_spec(const char *path, int *code);
/* Write text to path ("-" = stdout); 0 on success, message on failure. */
int cli_write_file(const char *path, const char *text);

#endif /* IRCG_CLI_H */
