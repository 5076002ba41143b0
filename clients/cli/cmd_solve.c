/*
 * cmd_solve.c -- `ircg solve`: reference (if asked), solve with live
 * progress, trace and result files, and a clean stop on Ctrl-C.  Whatever
 * happens after the spec validated and the output files opened -- a
 * Ctrl-C during the reference or the solve, a failure of either -- the
 * result file is written with what is known, and the last message says
 * what was written where.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "result.h"
#include "spec.h"

/* Set by the SIGINT handler, polled by the solver every iteration. */
static volatile sig_atomic_t g_cancel;

static void on_sigint(int sig)
{
    (void)sig;
    g_cancel = 1;
}

/* State of the per-iteration callback. */
typedef struct progress {
    cli_outputs *out;
    const char *alg;      /* algorithm name, on every progress line        */
    ircg_iter_info last;  /* the latest iteration (for the final row)      */
    int have_last;
    int quiet;
    double last_print;    /* monotonic time of the last progress line      */
} progress;

/* What the reference phase left. */
typedef struct ref_phase {
    int asked;
    ircg_reference *ref;      /* NULL unless computed                     */
    ircg_reference_info info;
    ircg_error err;
    char msg[300];
} ref_phase;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* %.9e, or "-" for a value not computed at this iteration (the
 * stochastic methods know g and f at their certificates only). */
static const char *num9(char buf[32], double v)
{
    if (isnan(v))
        return "-";
    snprintf(buf, 32, "%.9e", v);
    return buf;
}

static void print_line(const progress *p, const ircg_iter_info *it)
{
    char g[32], f[32];
    fprintf(stderr, "%s iter %8lld  time %9.3fs  g %s  f %s  gap %.3e", p->alg,
            (long long)it->t, it->elapsed, num9(g, it->g_x), num9(f, it->f_x), it->gap);
    if (isfinite(it->g_gap_x))
        fprintf(stderr, "  g-g* %.3e", it->g_gap_x);
    fputc('\n', stderr);
}

/* Progress: the first line, then at most ~4 lines a second. */
static int on_iter(void *user, const ircg_iter_info *it)
{
    progress *p = user;
    p->last = *it;
    p->have_last = 1;
    if (it->t == 1 || it->t % p->out->every == 0)
        cli_outputs_trace(p->out, it);
    if (!p->quiet) {
        double t = now();
        if (it->t == 1 || t - p->last_print >= 0.25) {
            print_line(p, it);
            p->last_print = t;
        }
    }
    return 0;
}

static const struct option SOLVE_OPTS[] = {
    {"trace", required_argument, NULL, 't'}, {"result", required_argument, NULL, 'r'},
    {"quiet", no_argument, NULL, 'q'}, CLI_OPT_HELP, {0},
};
static const cli_command SOLVE = {
    "solve",
    "usage: ircg solve SPEC.json [--trace FILE.csv|FILE.jsonl] [--result FILE.json] [--quiet]\n"
    "  validate and solve a job spec locally; progress on stderr (\"-\" = stdin)\n",
    "q", SOLVE_OPTS};

typedef struct solve_args {
    cli_outputs *o;
    int quiet;
} solve_args;

static int solve_opt(void *user, int c, const char *arg)
{
    solve_args *a = user;
    if (c == 't')
        a->o->trace_path = arg;
    else if (c == 'r')
        a->o->result_path = arg;
    else
        a->quiet = 1;
    return 0;
}

/* The reference first when asked; a cancel leaves rp->ref with status
 * "cancelled", a failure rp->err and rp->msg. */
static void compute_reference(const api_spec *s, int quiet, ref_phase *rp)
{
    api_reference_spec rs;
    ircg_diag d = {0};
    api_spec_reference(s, &rs);
    if (!(rp->asked = rs.compute))
        return;
    rs.settings.cancel = (const volatile int *)&g_cancel;
    if (!quiet)
        fprintf(stderr, "computing the reference g_opt (tol %.3g)...\n", rs.settings.tol);
    rp->err = ircg_reference_compute(api_spec_problem(s), &rs.settings, &rp->ref, &d);
    if (rp->err != IRCG_OK) {
        snprintf(rp->msg, sizeof rp->msg, "the reference computation failed: %s",
                 d.message[0] ? d.message : ircg_error_string(rp->err));
        fprintf(stderr, "ircg: %s\n", rp->msg);
        return;
    }
    ircg_reference_get_info(rp->ref, &rp->info);
    if (!quiet)
        fprintf(stderr, "reference: g_opt %.17g, gap %.3e, %lld iterations, %.2fs (%s)\n",
                rp->info.g_opt, rp->info.gap, (long long)rp->info.iterations,
                rp->info.seconds, ircg_status_string(rp->info.status));
}

static void header(const ircg_settings *st, int quiet)
{
    if (quiet)
        return;
    fprintf(stderr, "solving with %s", api_algorithm_name(st->algorithm));
    if (st->algorithm == IRCG_ALG_IRCG && st->direction != IRCG_DIR_FRANK_WOLFE)
        fprintf(stderr, " (%s steps, %s directions)", api_step_rule_name(st->step_rule),
                api_direction_name(st->direction));
    else if (st->algorithm == IRCG_ALG_IRCG)
        fprintf(stderr, " (%s steps)", api_step_rule_name(st->step_rule));
    if (st->algorithm == IRCG_ALG_IRPG || st->algorithm == IRCG_ALG_BISG)
        fprintf(stderr, " (%s projections)", api_projection_name(st->projection));
    fprintf(stderr, ", at most %lld iterations", (long long)st->max_iter);
    if (st->time_limit > 0)
        fprintf(stderr, " or %.6gs", st->time_limit);
    fputc('\n', stderr);
}

static void summary(const ircg_info *in, const ircg_settings *st)
{
    fprintf(stderr, "%s: %s after %lld iterations in %.3fs: g(x) %.12g  f(x) %.12g  "
            "g(z) %.12g  f(z) %.12g  gap %.3e\n", api_algorithm_name(st->algorithm),
            ircg_status_string(in->status), (long long)in->iterations, in->solve_seconds,
            in->g_x, in->f_x, in->g_z, in->f_z, in->gap);
    if (st->algorithm == IRCG_ALG_CGBIO)
        fprintf(stderr, "  warm start: %lld iterations, %.3fs\n",
                (long long)in->warmup_iterations, in->warmup_seconds);
    if (in->proj_partial + in->proj_full > 0)
        fprintf(stderr, "  nuclear-ball projections: %lld partial, %lld full SVD\n",
                (long long)in->proj_partial, (long long)in->proj_full);
    if (in->lmo_unconverged > 0)
        fprintf(stderr, "  note: %lld oracle calls stopped at lmo_max_matvecs (less "
                "accurate answers)\n", (long long)in->lmo_unconverged);
    if (in->cert_iteration >= 0) {
        int z = in->answer == IRCG_Z; /* the bisection methods' answer */
        fprintf(stderr, "  certified at iteration %lld: g(%s) - min g <= %.3e, f(%s) - f* <= "
                "%.3e (f* >= %.12g)\n", (long long)in->cert_iteration, z ? "z" : "x",
                z ? in->inner_gap_z : in->inner_gap_x, z ? "z" : "x",
                z ? in->outer_gap_z : in->outer_gap_x, in->f_lower);
    }
}

/* Printed even with --quiet: a result that is not what it seems. */
static void warnings(const ircg_info *in, const ircg_settings *st)
{
    for (unsigned bit = 1; bit <= IRCG_WARN_LAST; bit <<= 1) {
        char msg[400];
        if (!(in->warnings & bit))
            continue;
        api_warning_message(msg, sizeof msg, in, &st->stop, (ircg_warning)bit);
        fprintf(stderr, "ircg: warning: %s\n", msg);
    }
}

/* Nothing known yet: NaN rather than zeros that would read as values. */
static ircg_info empty_info(void)
{
    ircg_info in = {0};
    in.g_x = in.f_x = in.g_z = in.f_z = in.gap = in.sigma = NAN;
    in.g_gap_x = in.g_gap_z = in.warmup_seconds = NAN;
    return in;
}

/* The result JSON from whatever the solver has (also after a cancel or a
 * failure); 0 on success. */
static int write_result(cli_outputs *o, const api_spec *s, const ircg_solver *sv,
                        const ircg_settings *st, const ircg_info *info, ircg_error err,
                        const char *msg, const ref_phase *rp, double g_opt)
{
    api_output_spec out;
    ircg_iterate *x = NULL, *z = NULL;
    if (!o->result)
        return 0;
    api_spec_output(s, &out);
    if (sv) {
        ircg_solver_iterate(sv, IRCG_X, out.dense_iterate, &x);
        ircg_solver_iterate(sv, IRCG_Z, out.dense_iterate, &z);
    }
    api_result r = {info, err, msg, rp->ref ? &rp->info : NULL, g_opt, x, z, st, NULL,
                    api_spec_auto_why(s)};
    char *text = api_result_json(&r);
    int rc = cli_outputs_result(o, text);
    free(text);
    ircg_iterate_free(x);
    ircg_iterate_free(z);
    return rc;
}

/* The closing message: how it ended and what was written where. */
static void closing(const cli_outputs *o, const ref_phase *rp, const ircg_info *info,
                    int code, int result_ok)
{
    char what[9000] = "", rows[64];
    int n = 0;
    if (code != CLI_INTERRUPTED && code != CLI_FAILED)
        return;
    if (o->result_path && result_ok)
        n = snprintf(what, sizeof what, "the result (status \"%s\") to %s",
                     ircg_status_string(info->status), o->result_path);
    if (o->trace_path && !o->trace_failed) {
        if (o->rows)
            snprintf(rows, sizeof rows, "%lld trace row%s", (long long)o->rows,
                     o->rows == 1 ? "" : "s");
        else
            snprintf(rows, sizeof rows, "%s", o->jsonl ? "an empty trace"
                                                       : "a trace with its header only");
        n = n < 0 || n >= (int)sizeof what ? (int)sizeof what - 1 : n;
        snprintf(what + n, sizeof what - (size_t)n, "%s%s to %s", n ? " and " : "", rows,
                 o->trace_path);
    }
    if (code == CLI_FAILED)
        fprintf(stderr, "ircg: failed");
    else if (rp->ref && rp->info.status == IRCG_STATUS_CANCELLED)
        fprintf(stderr, "interrupted during the reference computation (after %lld of its "
                "iterations), before the solve", (long long)rp->info.iterations);
    else
        fprintf(stderr, "interrupted at iteration %lld", (long long)info->iterations);
    fprintf(stderr, "%s%s\n", what[0] ? "; wrote " : "; wrote nothing (no --result or "
            "--trace, or writing them failed)", what);
}

/* A matrix-completion solve takes the machine: a spec that names no
 * threads gets the sparse passes on every core, its certificates made
 * between the iterations on the same threads.  Made beside them instead
 * (settings.certify_async), on a core taken from the passes, they cost
 * the solve more than that core gives the passes, on two cores at least:
 * the paper's instance took 1.67 s against 1.49 s at 110 iterations and
 * 4.07 s against 3.27 s at 500, with the same bounds (docs/DESIGN.md).  A
 * spec that names fewer threads than the cores gets its certificates on
 * a core those leave free, when it can have it: no certified stop, and
 * their copies of x and z (at most eight in flight, 16 bytes a rating
 * each) within an eighth of the memory. */
static void use_machine(const api_spec *s, ircg_settings *st)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    ircg_problem_info pi;
    if (api_spec_kind(s) != IRCG_PROBLEM_MATRIX_COMPLETION || !api_spec_problem(s) ||
        cores < 1)
        return;
    if (!api_spec_threads_given(s)) {
        st->threads = (int)(cores > 64 ? 64 : cores);
        st->certify_async = 0;
        return;
    }
    ircg_problem_get_info(api_spec_problem(s), &pi);
    double copies = 8.0 * 16.0 * (double)pi.n_observed;
    const ircg_stop *t = &st->stop;
    st->certify_async = st->certify && st->algorithm == IRCG_ALG_IRCG &&
                        st->threads < cores &&
                        !(t->inner_gap > 0 || t->inner_gap_rel > 0 || t->outer_gap > 0 ||
                          t->outer_gap_rel > 0) &&
                        pages > 0 && page > 0 &&
                        copies <= (double)pages * (double)page / 8;
}

/* Reference, solver, result: everything after the files are open. */
static int run(cli_outputs *o, const api_spec *s, int quiet)
{
    ref_phase rp = {0};
    ircg_settings st;
    ircg_solver *sv = NULL;
    ircg_info info = empty_info();
    ircg_diag d = {0};
    const volatile int stop = 1; /* no iterations: the reference failed */
    char msg[400] = "";
    api_spec_settings(s, &st);
    use_machine(s, &st);
    progress p = {o, api_algorithm_name(st.algorithm), {0}, 0, quiet, 0};

    compute_reference(s, quiet, &rp);
    st.callback = on_iter;
    st.callback_data = &p;
    st.cancel = rp.err != IRCG_OK ? &stop : (const volatile int *)&g_cancel;
    if (rp.ref && rp.info.status != IRCG_STATUS_CANCELLED)
        st.reference = rp.ref;
    if (!g_cancel && rp.err == IRCG_OK)
        header(&st, quiet);
    /* even when nothing will run: the solver gives the start point and its
     * values for the result */
    ircg_error err = ircg_solver_new(api_spec_problem(s), &st, &sv, &d);
    if (err == IRCG_OK)
        err = ircg_solve(sv, &info);
    if (err != IRCG_OK)
        snprintf(msg, sizeof msg, "%s", d.message); /* "" for a failure mid-solve */
    if (rp.err != IRCG_OK) {
        info.status = IRCG_STATUS_UNSOLVED;
        err = rp.err;
        snprintf(msg, sizeof msg, "%s", rp.msg);
    }
    if (p.have_last) {
        cli_outputs_trace(o, &p.last);
        if (!quiet)
            print_line(&p, &p.last);
    }
    if (err != IRCG_OK && rp.err == IRCG_OK)
        fprintf(stderr, "ircg: the solver failed after %lld iterations: %s\n",
                (long long)info.iterations, msg[0] ? msg : ircg_error_string(err));
    else if (err == IRCG_OK && !quiet)
        summary(&info, &st);
    if (err == IRCG_OK)
        warnings(&info, &st);
    double g_opt = st.reference ? rp.info.g_opt : st.g_opt;
    int wrc = write_result(o, s, sv, &st, &info, err, msg, &rp, g_opt);
    int crc = cli_outputs_close(o);
    int code = err != IRCG_OK || wrc || crc            ? CLI_FAILED
               : info.status == IRCG_STATUS_CANCELLED ? CLI_INTERRUPTED
                                                      : CLI_OK;
    closing(o, &rp, &info, code, wrc == 0);
    ircg_solver_free(sv);
    ircg_reference_free(rp.ref);
    return code;
}

int cmd_solve(int argc, char **argv)
{
    cli_outputs o = {0};
    solve_args a = {&o, 0};
    int first = 0, rc = cli_getopt(argc, argv, &SOLVE, solve_opt, &a, &first);
    int quiet = a.quiet;
    if (rc != CLI_OK)
        return rc == CLI_HELP ? CLI_OK : rc;
    if (argc - first != 1)
        return cli_usage_error(&SOLVE, "%s", argc == first ? "a SPEC.json is needed"
                                                            : "one SPEC.json only");
    const char *spec_path = argv[first];
    api_spec *s = cli_load_spec(spec_path);
    if (!s)
        return CLI_INVALID;
    api_output_spec out;
    api_spec_output(s, &out);
    o.every = out.trace_every;
    int code = cli_outputs_open(&o);
    if (code != CLI_OK) {
        cli_outputs_close(&o);
        api_spec_free(s);
        return code;
    }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C kills as usual */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    code = run(&o, s, quiet);
    sigaction(SIGINT, &old, NULL);
    api_spec_free(s);
    return code;
}
