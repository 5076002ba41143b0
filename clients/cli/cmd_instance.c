/*
 * cmd_instance.c -- `ircg instance SPEC.json --npz FILE`: the instance a
 * spec builds (data read, generated or inline, as the solver holds it) as
 * a NumPy .npz (api/instance_npz.c), so that another solver
 * (tests/accuracy/reference.py) solves exactly the same problem.  Least
 * squares and logistic regression.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "npz.h"
#include "spec.h"

static const struct option INSTANCE_OPTS[] = {
    {"npz", required_argument, NULL, 'n'}, CLI_OPT_HELP, {0},
};
static const cli_command INSTANCE = {
    "instance",
    "usage: ircg instance SPEC.json --npz FILE.npz\n"
    "  build the spec's least-squares or logistic-regression instance and write\n"
    "  it, as the solver holds it, to FILE.npz (\"-\" = stdout): A (dense or\n"
    "  CSR), b, the validation rows, the outer objective's c, Q, q, the domain\n"
    "  (api/SPEC.md, \"The command-line tool\"); a line on stderr names its size\n"
    "  and data digest\n",
    NULL, INSTANCE_OPTS};

static int instance_opt(void *user, int c, const char *arg)
{
    (void)c;
    *(const char **)user = arg;
    return 0;
}

int cmd_instance(int argc, char **argv)
{
    const char *npz = NULL;
    int first = 0, rc = cli_getopt(argc, argv, &INSTANCE, instance_opt, &npz, &first);
    if (rc != CLI_OK)
        return rc == CLI_HELP ? CLI_OK : rc;
    if (argc - first != 1)
        return cli_usage_error(&INSTANCE, "%s", "one SPEC.json is needed");
    if (!npz)
        return cli_usage_error(&INSTANCE, "%s", "--npz FILE is needed");
    api_spec *s = cli_load_spec(argv[first]);
    if (!s)
        return CLI_INVALID;
    void *buf = NULL;
    size_t len = 0;
    char why[256];
    int code = CLI_OK;
    const ircg_problem *pb = api_spec_problem(s);
    if (api_instance_npz(pb, &buf, &len, why, sizeof why) != 0) {
        fprintf(stderr, "ircg instance: %s\n", why);
        code = api_spec_kind(s) == IRCG_PROBLEM_MATRIX_COMPLETION ? CLI_INVALID : CLI_FAILED;
    } else {
        FILE *f = cli_open_output(npz);
        int opened = f != NULL;
        ircg_problem_info in;
        ircg_problem_get_info(pb, &in);
        int bad = opened && fwrite(buf, 1, len, f) != len;
        if (opened && f == stdout && fflush(f) != 0)
            bad = 1;
        else if (opened && f != stdout && fclose(f) != 0)
            bad = 1;
        if (!opened) {
            code = CLI_INVALID;
        } else if (bad) {
            fprintf(stderr, "ircg instance: cannot write %s\n", npz);
            code = CLI_FAILED;
        } else {
            fprintf(stderr, "ircg instance: %s, %d x %d, data digest %016llx: %s (%zu bytes)\n",
                    api_problem_type_name(in.kind), in.n_rows, in.n_cols,
                    (unsigned long long)in.data_digest, npz, len);
        }
    }
    free(buf);
    api_spec_free(s);
    return code;
}
