/*
 * main.c -- ircg-mpi: `mpirun -np N ircg-mpi SPEC.json [--trace F]
 * [--result F] [--quiet]` solves a matrix-completion spec with IR-CG on N
 * processes, each holding its rows of the ratings (mpi_data.c), and writes
 * the trace and result of `ircg solve` (rank 0), the result with
 * "execution": {"ranks", "hosts"}.  With --progress, rank 0 also prints on
 * stdout, one JSON object a line, the execution first, then every trace
 * row and every checkpoint taken ({"checkpoint": I}): what ircgd reads.
 * --checkpoint-dir/--checkpoint-every keep per-rank checkpoints
 * (mpi_ckpt.h), --resume I goes on from those of iteration I.
 *
 * Every rank runs the same solver: the library reduces its sums through
 * the communicator (mpi_comm.c), so the ranks agree on every decision;
 * SIGINT, SIGTERM and SIGUSR1 (which mpirun forwards to every rank without
 * ending the job) set the cancel flag, which the solver puts to a vote.
 * Exit codes as `ircg solve`: 0, 2 invalid input, 3 failure, 130
 * interrupted; a rank that dies makes mpirun end the others, nonzero.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "mpi_ckpt.h"
#include "mpi_comm.h"
#include "mpi_crash.h"
#include "mpi_data.h"
#include "mpi_snap.h"
#include "mpi_start.h"
#include "result.h"
#include "spec.h"

extern void openblas_set_num_threads(int num_threads);

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
    const char *data_dir;  /* relative paths of the spec; NULL: its folder */
    int64_t resume;        /* iteration to resume at; 0 = from the start   */
    mpi_ckpt ckpt;
    mpi_snap snap;         /* the spec's snapshots, for ircgd          */
    mpi_start start;       /* a state saved whole to start from (ircgd)  */
    const char *bench;     /* --bench-sums: lengths to time, no spec      */
    int bench_reps;
    const ircg_solver *sv; /* during the solve, for the checkpoints        */
    char *hosts;           /* rank 0: every rank's host, MPI_MAX_PROCESSOR_NAME apart */
    mpi_ctx mc;
    ircg_comm comm;
} run;

static const char USAGE[] =
    "usage: mpirun -np N ircg-mpi SPEC.json [--trace FILE.csv|FILE.jsonl] [--result FILE.json]\n"
    "         [--progress] [--quiet] [--data-dir DIR]\n"
    "         [--checkpoint-dir DIR [--checkpoint-every S] [--resume ITERATION]]\n"
    "         [--snapshot-dir DIR] [--start-state FILE [--start-schedule continue|afresh]]\n"
    "         [--profile-comm]\n"
    "       mpirun -np N ircg-mpi --bench-sums LEN,LEN,... [--bench-reps R]\n"
    "  solve a matrix-completion spec with ircg on N processes (rows of the ratings\n"
    "  spread over them).  --progress: the execution, trace rows and checkpoints as\n"
    "  JSON lines on stdout; --data-dir: where the spec's relative paths start (default:\n"
    "  the spec's folder); --checkpoint-dir: every rank's state there every S seconds\n"
    "  (default 30) and when cancelled; --resume: go on from those of ITERATION;\n"
    "  --snapshot-dir: the spec's snapshots there (its output.snapshot_every), for ircgd;\n"
    "  --start-state: start from a solver state saved whole (a snapshot's), going on with\n"
    "  its schedule (continue, the default) or afresh at its x;\n"
    "  --profile-comm: a timed barrier before each sum, to split waits from transfers;\n"
    "  --bench-sums: time R (default 20) ordered sums of each length, no solve\n";

/* A positive number (integer when `integer`) of an option; -1 if not. */
static double positive(const char *s, int integer)
{
    char *end = NULL;
    double v = strtod(s, &end);
    return end != s && !*end && v > 0 && v < 1e15 && (!integer || v == (double)(int64_t)v)
               ? v : -1;
}

static int parse_args(int argc, char **argv, run *r, const char **spec)
{
    static const struct option opts[] = {
        {"trace", required_argument, NULL, 't'}, {"result", required_argument, NULL, 'r'},
        {"quiet", no_argument, NULL, 'q'},       {"progress", no_argument, NULL, 'p'},
        {"data-dir", required_argument, NULL, 'd'},
        {"checkpoint-dir", required_argument, NULL, 'c'},
        {"checkpoint-every", required_argument, NULL, 'e'},
        {"resume", required_argument, NULL, 'R'},
        {"snapshot-dir", required_argument, NULL, 's'},
        {"start-state", required_argument, NULL, 'S'},
        {"start-schedule", required_argument, NULL, 'C'},
        {"profile-comm", no_argument, NULL, 'P'},
        {"bench-sums", required_argument, NULL, 'B'},
        {"bench-reps", required_argument, NULL, 'N'},
        {"help", no_argument, NULL, 'h'},        {0},
    };
    int c;
    double v = 0;
    opterr = r->rank == 0;
    r->ckpt.every = 30;
    r->start.mode = IRCG_RESTORE_CONTINUE;
    r->bench_reps = 20;
    while ((c = getopt_long(argc, argv, "q", opts, NULL)) != -1) {
        if ((c == 'e' || c == 'R') && (v = positive(optarg, c == 'R')) < 0) {
            if (r->rank == 0)
                fprintf(stderr, "ircg-mpi: --%s wants a positive %s, not \"%s\"\n",
                        c == 'e' ? "checkpoint-every" : "resume",
                        c == 'e' ? "number of seconds" : "iteration", optarg);
            return CLI_USAGE;
        }
        if (c == 'C' && strcmp(optarg, "continue") != 0 && strcmp(optarg, "afresh") != 0) {
            if (r->rank == 0)
                fprintf(stderr, "ircg-mpi: --start-schedule is continue or afresh, not "
                        "\"%s\"\n", optarg);
            return CLI_USAGE;
        }
        if (c == 'd')
            r->data_dir = optarg;
        else if (c == 'S')
            r->start.path = optarg;
        else if (c == 'C')
            r->start.mode = strcmp(optarg, "afresh") != 0 ? IRCG_RESTORE_CONTINUE
                                                          : IRCG_RESTORE_AFRESH;
        else if (c == 'c')
            r->ckpt.dir = optarg;
        else if (c == 's')
            r->snap.dir = optarg;
        else if (c == 'e')
            r->ckpt.every = v;
        else if (c == 'R')
            r->resume = (int64_t)v;
        else if (c == 'P')
            r->mc.profile = 1;
        else if (c == 'B')
            r->bench = optarg;
        else if (c == 'N')
            r->bench_reps = atoi(optarg);
        else if (c == 't')
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
    if (r->bench && argc == optind) /* no spec: the sums alone */
        return CLI_OK;
    if (argc - optind != 1) {
        if (r->rank == 0)
            fprintf(stderr, "ircg-mpi: %s\n%s", argc == optind ? "a SPEC.json is needed"
                                                             : "one SPEC.json only", USAGE);
        return CLI_USAGE;
    }
    *spec = argv[optind];
    if (r->resume > 0 && !r->ckpt.dir) {
        if (r->rank == 0)
            fprintf(stderr, "ircg-mpi: --resume needs the --checkpoint-dir it reads\n");
        return CLI_USAGE;
    }
    r->ckpt.progress = r->progress;
    r->snap.progress = r->progress;
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
    opt.base_dir = r->data_dir ? r->data_dir : dir;
    opt.build = 0;
    opt.distributed = 1; /* the checks of a distributed solve, by member */
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

/* "execution": {"ranks": N} asks for what mpirun started, or is refused. */
static int ranks_differ(const run *r, const api_spec *s, const char *path)
{
    int want = api_spec_ranks(s);
    if (want == 0 || want == r->size)
        return 0;
    if (r->rank == 0)
        fprintf(stderr, "ircg-mpi: %s: /execution/ranks: the spec asks for %d ranks, "
                "this run has %d\n", path, want, r->size);
    return 1;
}

static int on_iter(void *user, const ircg_iter_info *it)
{
    run *r = user;
    if (r->rank == 0 && (it->t == 1 || it->t % r->out.every == 0))
        cli_outputs_trace(&r->out, it);
    if (r->rank == 0 && r->progress) {
        char row[API_TRACE_ROW_MAX + 1];
        api_trace_json_row(row, sizeof row, it);
        fputs(row, stdout);
        fflush(stdout);
    }
    if (r->rank == 0 && !r->quiet && (it->t == 1 || it->t % 100 == 0))
        fprintf(stderr, "ircg-mpi iter %8lld  time %9.3fs  g %.9e  f %.9e  gap %.3e\n",
                (long long)it->t, it->elapsed, it->g_x, it->f_x, it->gap);
    /* collective; after the row, so a reader has every row up to the
     * checkpoint it announces (the trace file too: ircgd reads back from
     * it the rows it had not stored when it was killed) */
    if (r->rank == 0 && r->ckpt.dir && r->out.trace)
        fflush(r->out.trace);
    mpi_ckpt_tick(&r->ckpt, r->sv, it->t, 0, MPI_COMM_WORLD);
    mpi_snap_tick(&r->snap, r->sv, it->t, 0, MPI_COMM_WORLD);
    return 0;
}

/* The Slurm job the ranks run in (srun or sbatch set it), or NULL. */
static const char *slurm_job(void)
{
    const char *id = getenv("SLURM_JOB_ID");
    return id && *id ? id : NULL;
}

/* Every rank's host name, in rank order, into r->hosts on rank 0; with
 * --progress, rank 0 prints them as the first line. */
static void gather_hosts(run *r)
{
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    r->hosts = r->rank == 0 ? calloc((size_t)r->size, MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Get_processor_name(name, &len);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, r->hosts, MPI_MAX_PROCESSOR_NAME,
               MPI_CHAR, 0, MPI_COMM_WORLD);
    if (r->rank != 0 || !r->progress || !r->hosts)
        return;
    cJSON *o = cJSON_CreateObject(), *e = cJSON_AddObjectToObject(o, "execution");
    cJSON *h = e ? cJSON_AddArrayToObject(e, "hosts") : NULL;
    cJSON_AddNumberToObject(e, "ranks", r->size);
    if (slurm_job()) /* what ircgd cancels and asks about (scancel, scontrol) */
        cJSON_AddStringToObject(e, "slurm_job", slurm_job());
    for (int i = 0; h && i < r->size; i++)
        cJSON_AddItemToArray(h, cJSON_CreateString(r->hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME));
    char *text = cJSON_PrintUnformatted(o);
    if (text)
        printf("%s\n", text);
    fflush(stdout);
    free(text);
    cJSON_Delete(o);
}

/* The result on rank 0; the iterates are gathered by every rank. */
static int write_result(run *r, const api_spec *s, const ircg_solver *sv,
                        const ircg_settings *st, const ircg_info *info, ircg_error err,
                        const char *msg, const ircg_reference_info *ri)
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
    int rc = 0;
    if (r->rank == 0 && r->out.result) {
        const char **names = calloc((size_t)r->size, sizeof *names);
        for (int i = 0; names && i < r->size; i++)
            names[i] = r->hosts ? r->hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME : "";
        api_execution ex = {r->size, names, slurm_job()};
        /* the computed reference's g_opt, as ircg solve gives it */
        double g_opt = st->reference && ri ? ri->g_opt : rs.g_opt;
        api_result res = {info, err, msg, ri, g_opt, x, z, st, names ? &ex : NULL,
                          api_spec_auto_why(s)};
        char *text = api_result_json(&res);
        rc = cli_outputs_result(&r->out, text);
        free(text);
        free(names);
    }
    ircg_iterate_free(x);
    ircg_iterate_free(z);
    return rc;
}

/* Per rank: peak resident set (MB), CPU seconds, seconds in the sums and
 * in the profile's barriers; on rank 0's stderr, one "ircg-mpi: rank R:"
 * line each, after the outcome.  What make bench-mpi reads. */
static void report(const run *r, const ircg_info *info)
{
    struct rusage ru;
    double mine[4] = {0, 0, r->mc.comm_seconds, r->mc.wait_seconds};
    double *all = r->rank == 0 ? calloc((size_t)r->size * 4, sizeof *all) : NULL;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        mine[0] = (double)ru.ru_maxrss / 1024.0; /* kB on Linux */
        mine[1] = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                  (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    }
    MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (r->rank == 0 && !r->quiet) {
        fprintf(stderr, "ircg-mpi: %s after %lld iterations on %d ranks in %.3fs: g(x) %.12g "
                "f(x) %.12g; %lld sums of %lld numbers, %lld products\n",
                ircg_status_string(info->status), (long long)info->iterations, r->size,
                info->solve_seconds, info->g_x, info->f_x, (long long)r->mc.calls,
                (long long)r->mc.doubles, (long long)info->lmo_matvecs);
        fprintf(stderr, "ircg-mpi: sums gathered whole: %lld of %lld numbers; sliced: %lld "
                "of %lld numbers\n", (long long)r->mc.small_calls,
                (long long)r->mc.small_doubles, (long long)(r->mc.calls - r->mc.small_calls),
                (long long)(r->mc.doubles - r->mc.small_doubles));
        for (int i = 0; all && i < r->size; i++)
            fprintf(stderr, "ircg-mpi: rank %d: peak RSS %.1f MB, cpu %.3f s, sums %.3f s, "
                    "waits %.3f s\n", i, all[4 * i], all[4 * i + 1], all[4 * i + 2],
                    all[4 * i + 3]);
    }
    free(all);
}

/* The solver on the part's problem, resumed when asked, run to its end
 * (then a last checkpoint when cancelled: the daemon's shutdown).  Collective. */
static ircg_error run_solver(run *r, const ircg_problem *pb, const ircg_settings *st,
                             ircg_solver **sv, ircg_info *info, ircg_diag *d)
{
    ircg_error err = ircg_solver_new(pb, st, sv, d);
    if (mpi_any_failed(MPI_COMM_WORLD, err == IRCG_OK))
        return err != IRCG_OK ? err : IRCG_ERR_INVALID;
    r->sv = *sv;
    r->ckpt.last = MPI_Wtime();
    if (r->resume > 0) { /* its own checkpoint: the start is in it */
        if (mpi_ckpt_restore(r->ckpt.dir, r->resume, pb, *sv, MPI_COMM_WORLD) != 0) {
            snprintf(d->message, sizeof d->message, "cannot resume from the checkpoint of "
                     "iteration %lld", (long long)r->resume);
            return IRCG_ERR_INVALID;
        }
        r->ckpt.kept[0] = r->resume;
    } else if (r->start.path &&
               (err = mpi_start_restore(&r->start, *sv, MPI_COMM_WORLD, d)) != IRCG_OK) {
        char why[sizeof d->message + sizeof d->field + 4];
        snprintf(why, sizeof why, "%s%s%s", d->field, d->field[0] ? ": " : "", d->message);
        snprintf(d->message, sizeof d->message, "cannot start from the state saved whole "
                 "(--start-state): %.180s", why);
        return err;
    }
    err = ircg_solve(*sv, info);
    if (err == IRCG_OK && info->status == IRCG_STATUS_CANCELLED)
        mpi_ckpt_tick(&r->ckpt, *sv, info->iterations, 1, MPI_COMM_WORLD);
    /* the last iterate too, so that another job may start where this one
     * stopped (ircgd drops it when the stop was its shutdown's) */
    if (err == IRCG_OK)
        mpi_snap_tick(&r->snap, *sv, info->iterations, 1, MPI_COMM_WORLD);
    return err;
}

/* The reference g_opt when the spec asks for it, computed on the parts as
 * the solve runs (collective: every rank takes the same steps, and keeps
 * r(x*) on its own rows, which the solve's values sum against).  A
 * cancelled one comes back for the result, not to be used. */
static ircg_error compute_reference(const run *r, const api_spec *s, const ircg_problem *pb,
                                    ircg_reference **ref, ircg_reference_info *ri,
                                    ircg_diag *d)
{
    api_reference_spec rs;
    api_spec_reference(s, &rs);
    if (!rs.compute)
        return IRCG_OK;
    rs.settings.cancel = (const volatile int *)&g_cancel;
    if (r->rank == 0 && !r->quiet)
        fprintf(stderr, "ircg-mpi: computing the reference g_opt (tol %.3g)...\n",
                rs.settings.tol);
    ircg_error err = ircg_reference_compute(pb, &rs.settings, ref, d);
    if (mpi_any_failed(MPI_COMM_WORLD, err == IRCG_OK)) {
        if (err == IRCG_OK) /* another rank's failure */
            snprintf(d->message, sizeof d->message, "another rank failed");
        ircg_reference_free(*ref);
        *ref = NULL;
        return err != IRCG_OK ? err : IRCG_ERR_INVALID;
    }
    ircg_reference_get_info(*ref, ri);
    if (r->rank == 0 && !r->quiet)
        fprintf(stderr, "ircg-mpi: reference: g_opt %.17g, gap %.3e, %lld iterations, "
                "%.2fs (%s)\n", ri->g_opt, ri->gap, (long long)ri->iterations, ri->seconds,
                ircg_status_string(ri->status));
    return IRCG_OK;
}

/* A given x0 is the whole matrix, n_rows x n_cols of all the ranks'
 * data, which only now are known (every rank decides alike: the same spec,
 * the same whole dimensions). */
static int x0_fits(const run *r, const api_spec *s, const ircg_problem *pb)
{
    ircg_problem_info pi;
    int64_t len = api_spec_x0_len(s);
    ircg_problem_get_info(pb, &pi);
    if (len == 0 || len == pi.dim)
        return 1;
    if (r->rank == 0)
        fprintf(stderr, "ircg-mpi: /algorithm/start/x0: length %lld does not match the "
                "number of variables = %lld (n_rows %d x n_cols %d, column-major)\n",
                (long long)len, (long long)pi.dim, pi.n_rows, pi.n_cols);
    return 0;
}

/* The part's problem; NULL (said on the failing rank's stderr) when any
 * rank could not build its own.  Collective. */
static ircg_problem *part_problem(const run *r, const api_spec *s, const mpi_part *part)
{
    api_mc_source src;
    ircg_problem *pb = NULL;
    ircg_diag d = {0};
    api_spec_mc_source(s, &src);
    ircg_error err = ircg_problem_matrix_completion_part(part->R, part->row0, part->n_local,
                                                         &r->comm, src.outer, src.delta,
                                                         &pb, &d);
    if (!mpi_any_failed(MPI_COMM_WORLD, err == IRCG_OK))
        return x0_fits(r, s, pb) ? pb : (ircg_problem_free(pb), NULL);
    if (err != IRCG_OK)
        fprintf(stderr, "ircg-mpi: rank %d: /problem%s: %s\n", r->rank, d.field, d.message);
    ircg_problem_free(pb);
    return NULL;
}

/* The part's problem, the reference when asked, the solver, the outputs.
 * Collective. */
static int solve(run *r, const api_spec *s, const mpi_part *part)
{
    ircg_settings st;
    ircg_solver *sv = NULL;
    ircg_reference *ref = NULL;
    ircg_reference_info ri;
    ircg_info info = {0};
    ircg_diag d = {0};
    char msg[sizeof d.message + 64] = "";
    ircg_problem *pb = part_problem(r, s, part);
    if (!pb)
        return CLI_INVALID;
    api_spec_settings(s, &st);
    if (r->start.path && r->start.mode == IRCG_RESTORE_CONTINUE)
        st.max_iter += r->start.iteration; /* as the service counts a continuation */
    ircg_error err = compute_reference(r, s, pb, &ref, &ri, &d);
    int ref_failed = err != IRCG_OK;
    const char *what = ref_failed ? "the reference computation" : "the solver";
    if (!ref_failed) {
        if (ref && ri.status != IRCG_STATUS_CANCELLED) /* a cancelled one stops the solve */
            st.reference = ref;
        st.callback = on_iter;
        st.callback_data = r;
        st.cancel = (const volatile int *)&g_cancel;
        err = run_solver(r, pb, &st, &sv, &info, &d);
    }
    if (err != IRCG_OK && r->mc.eig_error[0]) /* the LMO's engine said why */
        snprintf(d.message, sizeof d.message, "/algorithm/lmo/engine: %s", r->mc.eig_error);
    if (ref_failed) /* as ircg solve says it */
        snprintf(msg, sizeof msg, "the reference computation failed: %s",
                 d.message[0] ? d.message : ircg_error_string(err));
    else
        snprintf(msg, sizeof msg, "%s", d.message); /* "" for a failure mid-solve */
    if (err != IRCG_OK && r->rank == 0)
        fprintf(stderr, "ircg-mpi: %s failed: %s\n", what,
                d.message[0] ? d.message : ircg_error_string(err));
    if (err == IRCG_OK)
        report(r, &info);
    int wrc = write_result(r, s, err == IRCG_OK ? sv : NULL, &st, &info, err, msg,
                           ref ? &ri : NULL);
    r->sv = NULL;
    ircg_solver_free(sv);
    ircg_reference_free(ref);
    ircg_problem_free(pb);
    return err != IRCG_OK || wrc ? CLI_FAILED
           : info.status == IRCG_STATUS_CANCELLED ? CLI_INTERRUPTED : CLI_OK;
}

static int run_spec(run *r, const char *path)
{
    api_spec *s = load_spec(r, path);
    mpi_part part = {0};
    api_mc_source src;
    int code = CLI_INVALID;
    if (!s || ranks_differ(r, s, path))
        goto done;
    api_output_spec o;
    api_spec_output(s, &o);
    r->out.every = o.trace_every;
    r->snap.every = o.snapshot_every;
    if (mpi_any_failed(MPI_COMM_WORLD, r->rank != 0 || cli_outputs_open(&r->out) == CLI_OK))
        goto done;
    gather_hosts(r);
    mpi_crash_phase("past the execution line (the hosts gathered)");
    if (r->start.path && mpi_start_peek(&r->start, MPI_COMM_WORLD) != 0)
        goto done;
    api_spec_mc_source(s, &src);
    if ((code = mpi_load(&src, MPI_COMM_WORLD, &part)) == 0)
        code = solve(r, s, &part);
done:
    if (r->rank == 0 && cli_outputs_close(&r->out) && code == CLI_OK)
        code = CLI_FAILED;
    mpi_part_free(&part);
    api_spec_free(s);
    free(r->hosts);
    r->hosts = NULL;
    return code;
}

int main(int argc, char **argv)
{
    run r = {0};
    const char *spec = NULL;
    mpi_crash_install(); /* before MPI_Init: Open MPI keeps a handler it finds */
    mpi_crash_phase("inside MPI_Init");
    MPI_Init(&argc, &argv);
    mpi_crash_phase("after MPI_Init");
    openblas_set_num_threads(1); /* as ircg's main: the ranks' passes are ours */
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
        sigaction(SIGUSR1, &sa, NULL);
        code = r.bench ? mpi_bench_sums(&r.mc, &r.comm, r.bench, r.bench_reps)
                       : run_spec(&r, spec);
    }
    /* the worst outcome of any rank */
    int worst = code < 0 ? 0 : code;
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    mpi_ctx_free(&r.mc);
    mpi_crash_phase("inside MPI_Finalize");
    MPI_Finalize();
    return worst;
}
