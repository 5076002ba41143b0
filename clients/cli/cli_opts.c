/*
 * cli_opts.c -- every command's options through getopt_long, so they all
 * behave alike: --name VALUE and --name=VALUE, options before or after the
 * arguments, "--" ends them, --help prints the command's usage on stdout
 * (exit 0), and a wrong option says what was wrong, then the usage (exit 2).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_getopt(int argc, char **argv, const cli_command *cmd, int (*on_opt)(void *user, int c,
               const char *arg), void *user, int *first)
{
    char prog[64], shortopts[64];
    char *saved = argv[0];
    int rc = CLI_OK, c;
    snprintf(prog, sizeof prog, "ircg %s", cmd->name);
    /* leading ':' would silence getopt; '+' is not wanted (permute) */
    snprintf(shortopts, sizeof shortopts, "h%s", cmd->shortopts ? cmd->shortopts : "");
    argv[0] = prog;
    optind = 1;
    opterr = 1; /* getopt says what was wrong, prefixed with prog */
    while (rc == CLI_OK && (c = getopt_long(argc, argv, shortopts, cmd->longopts, NULL)) != -1) {
        if (c == 'h') {
            fputs(cmd->usage, stdout);
            rc = CLI_HELP;
        } else if (c == '?' || c == ':' || on_opt(user, c, optarg) != 0) {
            rc = CLI_USAGE;
        }
    }
    argv[0] = saved;
    *first = optind;
    if (rc == CLI_USAGE)
        fputs(cmd->usage, stderr);
    return rc;
}

int cli_usage_error(const cli_command *cmd, const char *fmt, const char *what)
{
    fprintf(stderr, "ircg %s: ", cmd->name);
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    fputs(cmd->usage, stderr);
    return CLI_USAGE;
}

int cli_no_options(void *user, int c, const char *arg)
{
    (void)user;
    (void)c;
    (void)arg;
    return 0;
}
