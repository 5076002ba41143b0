/*
 * main.c -- ircg-mpi: `mpirun -np N ircg-mpi SPEC.json [--trace F]
 * [--result F] [--quiet]` solves a matrix-completion spec with IR-CG on N
 * processes, each holding its rows of the ratings (mpi_data.c), and writes
 * the trace and result of `ircg solve` (rank 0), the result with
 * "execution": {"ranks", "hosts"}.  With --progress, rank 0 also prints
 * every trace row as a JSON line on stdout (what the daemon reads).
 *
 * Every rank runs the same solver: the library reduces its sums through
 * the communicator (mpi_comm.c), so the ranks agree on every decision;
 * SIGINT and SIGTERM set the cancel flag, which the solver puts to a vote.
 * Exit codes as `ircg solve`: 0, 2 invalid input, 3 failure, 130
 * interrupted; a rank that dies makes mpirun end the others, nonzero.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mpi_comm.h"
#include "mpi_data.h"
#include "result.h"
#include "spec.h"

static volatile sig_atomic_t g_cancel;

static void on_signal(int sig)
{
    (void)sig;
    g_cancel = 1;
}

typedef struct run {
    int rank, size;
    cli_outputs out;
    int quiet, progress;
    mpi_ctx mc;
    ircg_comm comm;
} run;

static const char USAGE[] =
    "usage: mpirun -np N ircg-mpi SPEC.json [--trace FILE.csv|FILE.jsonl] [--result FILE.json]\n"
    "                                      [--progress] [--quiet]\n"
    "  solve a matrix-completion spec with ircg on N processes (rows of the ratings\n"
    "  spread over them); --progress prints trace rows as JSON lines on stdout\n";

static int parse_args(int argc, char **argv, run *r, const char **spec)
{
    static const struct option opts[] = {
        {"trace", required_argument, NULL, 't'}, {"result", required_argument, NULL, 'r'},
        {"quiet", no_argument, NULL, 'q'},       {"progress", no_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},        {0},
    };
    int c;
    opterr = r->rank == 0;
    while ((c = getopt_long(argc, argv, "q", opts, NULL)) != -1) {
        if (c == 't')
            r->out.trace_path = optarg;
        else if (c == 'r')
            r->out.result_path = optarg;
        else if (c == 'q')
            r->quiet = 1;
        else if (c == 'p')
            r->progress = 1;
        else {
            if (r->rank == 0)
                fputs(USAGE, c == 'h' ? stdout : stderr);
            return c == 'h' ? -1 : CLI_USAGE;
        }
    }
    if (argc - optind != 1) {
        if (r->rank == 0)
            fprintf(stderr, "ircg-mpi: %s\n%s", argc == optind ? "a SPEC.json is needed"
                                                             : "one SPEC.json only", USAGE);
        return CLI_USAGE;
    }
    *spec = argv[optind];
    return CLI_OK;
}

/* The spec's cheap checks (nothing loaded: each rank reads its own part). */
static api_spec *load_spec(const run *r, const char *path)
{
    size_t len = 0;
    api_spec *s = NULL;
    api_errors errs;
    api_parse_options opt;
    char *text = cli_read_file(path, &len), *dir = cli_dirname(path);
    api_errors_init(&errs);
    api_parse_options_default(&opt);
    opt.base_dir = dir;
    opt.build = 0;
    if (text && dir && api_spec_parse(text, len, &opt, &s, &errs) != 0 && r->rank == 0)
        for (int i = 0; i < errs.count; i++)
            fprintf(stderr, "ircg-mpi: %s: %s: %s\n", path,
                    errs.items[i].pointer[0] ? errs.items[i].pointer : "(root)",
                    errs.items[i].reason);
    api_errors_clear(&errs);
    free(text);
    free(dir);
    return s;
}

/* What a distributed solve takes, each refusal naming its member. */
static const char *refusal(const api_spec *s, const char **ptr)
{
    ircg_settings st;
    api_reference_spec rs;
    api_start_job sj;
    if (api_spec_kind(s) != IRCG_PROBLEM_MATRIX_COMPLETION)
        return *ptr = "/problem/type", "ircg-mpi solves matrix_completion only";
    api_spec_settings(s, &st);
    api_spec_reference(s, &rs);
    if (st.algorithm != IRCG_ALG_IRCG)
        return *ptr = "/algorithm/name", "ircg-mpi runs ircg only";
    if (st.lmo_engine != IRCG_LMO_LANCZOS)
        return *ptr = "/algorithm/lmo/engine",
               "ircg-mpi runs the lanczos engine only (arpack is not distributed)";
    if (st.start != IRCG_START_DEFAULT || api_spec_start_job(s, &sj))
        return *ptr = "/algorithm/start", "ircg-mpi starts from the default start only";
    if (rs.compute)
        return *ptr = "/reference/compute",
               "ircg-mpi does not compute g_opt (give a known \"g_opt\" instead)";
    return NULL;
}

static int on_iter(void *user, const ircg_iter_info *it)
{
    run *r = user;
    if (r->rank != 0)
        return 0;
    if (it->t == 1 || it->t % r->out.every == 0)
        cli_outputs_trace(&r->out, it);
    if (r->progress) {
        char row[API_TRACE_ROW_MAX + 1];
        api_trace_json_row(row, sizeof row, it);
        fputs(row, stdout);
        fflush(stdout);
    }
    if (!r->quiet && (it->t == 1 || it->t % 100 == 0))
        fprintf(stderr, "ircg-mpi iter %8lld  time %9.3fs  g %.9e  f %.9e  gap %.3e\n",
                (long long)it->t, it->elapsed, it->g_x, it->f_x, it->gap);
    return 0;
}

/* Every rank's host name, in rank order, on rank 0 (NULL elsewhere). */
static char *gather_hosts(const run *r)
{
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    char *all = r->rank == 0 ? calloc((size_t)r->size, MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Get_processor_name(name, &len);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
               0, MPI_COMM_WORLD);
    return all;
}

/* The result on rank 0; the iterates are gathered by every rank. */
static int write_result(run *r, const api_spec *s, const ircg_solver *sv,
                        const ircg_settings *st, const ircg_info *info, ircg_error err,
                        const char *msg)
{
    api_output_spec o;
    ircg_iterate *x = NULL, *z = NULL;
    api_reference_spec rs;
    api_spec_output(s, &o);
    api_spec_reference(s, &rs);
    if (sv) { /* collective: every rank */
        ircg_solver_iterate(sv, IRCG_X, o.dense_iterate, &x);
        ircg_solver_iterate(sv, IRCG_Z, o.dense_iterate, &z);
    }
    char *hosts = gather_hosts(r);
    int rc = 0;
    if (r->rank == 0 && r->out.result) {
        const char **names = calloc((size_t)r->size, sizeof *names);
        for (int i = 0; names && i < r->size; i++)
            names[i] = hosts ? hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME : "";
        api_execution ex = {r->size, names};
        api_result res = {info, err, msg, NULL, rs.g_opt, x, z, st, names ? &ex : NULL};
        char *text = api_result_json(&res);
        rc = cli_outputs_result(&r->out, text);
        free(text);
        free(names);
    }
    free(hosts);
    ircg_iterate_free(x);
    ircg_iterate_free(z);
    return rc;
}

/* The part's problem, the solver, the outputs.  Collective. */
static int solve(run *r, const api_spec *s, const mpi_part *part)
{
    api_mc_source src;
    ircg_settings st;
    ircg_problem *pb = NULL;
    ircg_solver *sv = NULL;
    ircg_info info = {0};
    ircg_diag d = {0};
    api_spec_mc_source(s, &src);
    api_spec_settings(s, &st);
    ircg_error err = ircg_problem_matrix_completion_part(part->R, part->row0, part->n_local,
                                                         &r->comm, src.outer, src.delta,
                                                         &pb, &d);
    if (mpi_any_failed(MPI_COMM_WORLD, err == IRCG_OK)) {
        if (err != IRCG_OK)
            fprintf(stderr, "ircg-mpi: rank %d: /problem%s: %s\n", r->rank, d.field,
                    d.message);
        ircg_problem_free(pb);
        return CLI_INVALID;
    }
    st.callback = on_iter;
    st.callback_data = r;
    st.cancel = (const volatile int *)&g_cancel;
    err = ircg_solver_new(pb, &st, &sv, &d);
    if (err == IRCG_OK)
        err = ircg_solve(sv, &info);
    if (err != IRCG_OK && r->rank == 0)
        fprintf(stderr, "ircg-mpi: the solver failed: %s\n",
                d.message[0] ? d.message : ircg_error_string(err));
    else if (!r->quiet && r->rank == 0)
        fprintf(stderr, "ircg-mpi: %s after %lld iterations on %d ranks in %.3fs: g(x) %.12g "
                "f(x) %.12g  (%.3fs in %lld sums)\n", ircg_status_string(info.status),
                (long long)info.iterations, r->size, info.solve_seconds, info.g_x, info.f_x,
                r->mc.comm_seconds, (long long)r->mc.calls);
    int wrc = write_result(r, s, sv, &st, &info, err, d.message);
    ircg_solver_free(sv);
    ircg_problem_free(pb);
    return err != IRCG_OK || wrc ? CLI_FAILED
           : info.status == IRCG_STATUS_CANCELLED ? CLI_INTERRUPTED : CLI_OK;
}

static int run_spec(run *r, const char *path)
{
    api_spec *s = load_spec(r, path);
    const char *ptr = NULL, *why = s ? refusal(s, &ptr) : NULL;
    mpi_part part = {0};
    api_mc_source src;
    int code = CLI_INVALID;
    if (!s || why) {
        if (why && r->rank == 0)
            fprintf(stderr, "ircg-mpi: %s: %s: %s\n", path, ptr, why);
        goto done;
    }
    api_output_spec o;
    api_spec_output(s, &o);
    r->out.every = o.trace_every;
    if (mpi_any_failed(MPI_COMM_WORLD, r->rank != 0 || cli_outputs_open(&r->out) == CLI_OK))
        goto done;
    api_spec_mc_source(s, &src);
    if ((code = mpi_load(&src, MPI_COMM_WORLD, &part)) == 0)
        code = solve(r, s, &part);
done:
    if (r->rank == 0 && cli_outputs_close(&r->out) && code == CLI_OK)
        code = CLI_FAILED;
    mpi_part_free(&part);
    api_spec_free(s);
    return code;
}

int main(int argc, char **argv)
{
    run r = {0};
    const char *spec = NULL;
    MPI_Init(&argc, &argv);
    mpi_ctx_init(&r.mc, MPI_COMM_WORLD, &r.comm);
    r.rank = r.mc.rank;
    r.size = r.mc.size;
    int code = parse_args(argc, argv, &r, &spec);
    if (code == CLI_OK) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        code = run_spec(&r, spec);
    }
    /* the worst outcome of any rank */
    int worst = code < 0 ? 0 : code;
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    mpi_ctx_free(&r.mc);
    MPI_Finalize();
    return worst;
}
