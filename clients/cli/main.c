/*
 * main.c -- `ircg`: dispatch to the commands, help and exit codes.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ircg.h"
#include "remote.h"

extern void openblas_set_num_threads(int num_threads);

static const char USAGE[] =
    "usage: ircg COMMAND [ARGS]\n"
    "\n"
    "Solve convex bilevel problems  min f(x) s.t. x in argmin{g(z): z in X}\n"
    "with IR-CG (iteratively regularized conditional gradient) or the paper's\n"
    "baselines CG-BiO, IR-PG and Bi-SG.  The job spec is documented in\n"
    "api/SPEC.md (JSON Schema: api/job-spec.schema.json).\n"
    "\n"
    "commands:\n"
    "  solve SPEC.json [--trace FILE] [--result FILE] [--quiet]\n"
    "        validate and solve a job spec; progress on stderr.  --trace\n"
    "        writes the trace as CSV (or JSON lines when FILE ends in .jsonl),\n"
    "        --result the result JSON (\"-\" = stdout).  Both files are opened\n"
    "        before solving.  Ctrl-C stops cleanly (also during the reference\n"
    "        computation): the result says how far it got, the trace holds the\n"
    "        iterations done, and the last line says what was written where.\n"
    "  validate SPEC.json\n"
    "        print every error with its JSON pointer, or \"valid\" and the\n"
    "        normalized spec (all defaults filled in).\n"
    "  instance SPEC.json --npz FILE\n"
    "        write the spec's least-squares or logistic-regression instance,\n"
    "        as the solver holds it, to a NumPy .npz (for another solver).\n"
    "  example NAME [--ratings PATH] [--data PATH]\n"
    "               [--algorithm ircg|cgbio|irpg|bisg|ir-scg|ir-fscg|\n"
    "                            fcbio|fcbio-cg|two-stage|auto]\n"
    "               [--step-rule RULE] [--projection partial|full]\n"
    "               [--max-iter N] [--size small|full]\n"
    "        print a ready-made spec: the paper's experiment (paper-movielens,\n"
    "        on the ratings at --ratings PATH, by default\n"
    "        build/data/ratings.dat: `make data`), the families, the\n"
    "        literature's instances (their data at --data PATH).  `ircg\n"
    "        example --list` names every one; `ircg example --help` says\n"
    "        where each reads.\n"
    "  paper [--ratings PATH] [--out DIR] [--budget S] [--methods KEY,...]\n"
    "        the paper's experiment: g_opt, then every method of its Table 1\n"
    "        for the same budget; writes traces, table1.md, Figure 1.\n"
    "  help  this text;  version  the library version.\n"
    "\n"
    "commands on an ircgd (--server URL or IRCG_SERVER, default\n"
    "http://127.0.0.1:8080; --token TOKEN or IRCG_TOKEN):\n"
    "  submit SPEC.json [--wait] [--quiet] [--json]   send a job; --wait follows it\n"
    "  jobs [--state S] [--limit N] [--json]          the jobs, newest first\n"
    "  status ID [--json]      watch ID [--json]      result ID\n"
    "  trace ID [--csv]        cancel ID              delete ID\n"
    "  upload FILE [--format F]                       a ratings file, as a dataset\n"
    "  Progress goes to stderr: one line redrawn on a terminal, plain lines to a\n"
    "  pipe; --json gives one JSON object a line on stdout.\n"
    "\n"
    "Every command takes --help.\n"
    "\n"
    "exit codes:\n"
    "  0    success (converged, iteration or time limit reached; a job succeeded)\n"
    "  2    usage (unknown command or option, missing or malformed argument) or\n"
    "       invalid input: invalid spec, unreadable spec, missing or malformed\n"
    "       data file, unwritable --trace or --result path, a spec the server\n"
    "       refused\n"
    "  3    failure: the solver or the reference computation failed, the result\n"
    "       or trace could not be written after the solve, a request failed\n"
    "  4    the job failed or was cancelled (submit --wait, watch)\n"
    "  130  interrupted (SIGINT): the result and trace written so far\n";

typedef struct cli_entry {
    const char *name;
    int (*run)(int argc, char **argv);
} cli_entry;

static const cli_entry COMMANDS[] = {
    {"solve", cmd_solve},   {"validate", cmd_validate}, {"example", cmd_example},
    {"paper", cmd_paper},   {"submit", cmd_submit},     {"jobs", cmd_jobs},
    {"status", cmd_status}, {"watch", cmd_watch},       {"trace", cmd_trace},
    {"result", cmd_result}, {"cancel", cmd_cancel},     {"delete", cmd_delete},
    {"upload", cmd_upload}, {"instance", cmd_instance},
};

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : NULL;
    /* The solver's threads make the parallel passes; OpenBLAS only ever
     * gets small dense products, and its own busy threads on the same cores
     * made the bench's MovieLens solve 0.23-0.29 s, not 0.15 s, when
     * OPENBLAS_NUM_THREADS=1 was not set (now 0.19 s: the threads it
     * starts when loaded stay), and its last bits depend on them. */
    openblas_set_num_threads(1);
    if (!cmd) {
        fputs(USAGE, stderr);
        return CLI_USAGE;
    }
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(cmd, COMMANDS[i].name))
            return COMMANDS[i].run(argc - 1, argv + 1);
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(USAGE, stdout);
        return CLI_OK;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("ircg %s\n", IRCG_VERSION);
        return CLI_OK;
    }
    fprintf(stderr, "ircg: unknown command \"%s\"\n\n", cmd);
    fputs(USAGE, stderr);
    return CLI_USAGE;
}
