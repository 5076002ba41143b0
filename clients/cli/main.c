/*
 * main.c -- `ircg`: dispatch to the commands, help and exit codes.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ircg.h"

static const char USAGE[] =
    "usage: ircg COMMAND [ARGS]\n"
    "\n"
    "Solve convex bilevel problems  min f(x) s.t. x in argmin{g(z): z in X}\n"
    "with IR-CG (iteratively regularized conditional gradient).\n"
    "\n"
    "commands:\n"
    "  solve SPEC.json [--trace FILE] [--result FILE] [--quiet]\n"
    "        validate and solve a job spec; progress on stderr.  --trace\n"
    "        writes the trace as CSV (or JSON lines when FILE ends in .jsonl),\n"
    "        --result the result JSON (\"-\" = stdout).  Ctrl-C stops cleanly\n"
    "        and still writes the partial result and trace.\n"
    "  validate SPEC.json\n"
    "        print every error with its JSON pointer, or \"valid\" and the\n"
    "        normalized spec (all defaults filled in).\n"
    "  example NAME [--ratings PATH] [--step-rule RULE] [--max-iter N]\n"
    "               [--size small]\n"
    "        print a ready-made spec: paper-movielens, synthetic-movielens,\n"
    "        least-norm.\n"
    "  paper [--ratings PATH] [--out DIR] [--budget S] [--methods KEY,...]\n"
    "        the paper's experiment: g_opt, then every method of its Table 1\n"
    "        for the same budget; writes traces, table1.md, Figure 1.\n"
    "  help  this text;  version  the library version.\n"
    "\n"
    "exit codes:\n"
    "  0    success (converged, iteration or time limit reached)\n"
    "  2    invalid input: usage, invalid spec, missing or malformed file\n"
    "  3    solver failure (or the result/trace could not be written)\n"
    "  130  interrupted (SIGINT); partial result and trace were written\n";

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (!cmd) {
        fputs(USAGE, stderr);
        return CLI_USAGE;
    }
    if (!strcmp(cmd, "solve"))
        return cmd_solve(argc - 1, argv + 1);
    if (!strcmp(cmd, "validate"))
        return cmd_validate(argc - 1, argv + 1);
    if (!strcmp(cmd, "example"))
        return cmd_example(argc - 1, argv + 1);
    if (!strcmp(cmd, "paper"))
        return cmd_paper(argc - 1, argv + 1);
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(USAGE, stdout);
        return CLI_OK;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("ircg %s\n", IRCG_VERSION);
        return CLI_OK;
    }
    fprintf(stderr, "ircg: unknown command \"%s\" (try ircg --help)\n", cmd);
    return CLI_USAGE;
}
