/*
 * cmd_solve.c -- `ircg solve`: reference (if asked), solve with live
 * progress, trace and result files, and a clean stop on Ctrl-C.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

typedef struct solve_args {
    const char *spec, *trace, *result;
    int quiet;
} solve_args;

/* State of the per-iteration callback. */
typedef struct progress {
    FILE *trace;
    int jsonl;            /* trace as JSON lines instead of CSV          */
    int64_t every;        /* trace every k-th iteration                   */
    int64_t last_written; /* t of the last trace row                      */
    ircg_iter_info last;  /* the latest iteration (for the final row)      */
    int have_last;
    int quiet;
    double last_print;    /* monotonic time of the last progress line     */
    int trace_failed;
} progress;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_line(const ircg_iter_info *it)
{
    fprintf(stderr, "iter %8lld  time %9.3fs  g %.9e  f %.9e  gap %.3e", (long long)it->t,
            it->elapsed, it->g_x, it->f_x, it->gap);
    if (isfinite(it->g_gap_x))
        fprintf(stderr, "  g-g* %.3e", it->g_gap_x);
    fputc('\n', stderr);
}

static void trace_row(progress *p, const ircg_iter_info *it)
{
    char row[1024];
    if (!p->trace || it->t == p->last_written)
        return;
    if (p->jsonl)
        api_trace_json_row(row, sizeof row, it);
    else
        api_trace_csv_row(row, sizeof row, it);
    if (fputs(row, p->trace) < 0)
        p->trace_failed = 1;
    p->last_written = it->t;
}

/* Progress: the first line, then at most ~4 lines a second. */
static int on_iter(void *user, const ircg_iter_info *it)
{
    progress *p = user;
    p->last = *it;
    p->have_last = 1;
    if (it->t == 1 || it->t % p->every == 0)
        trace_row(p, it);
    if (!p->quiet) {
        double t = now();
        if (it->t == 1 || t - p->last_print >= 0.25) {
            print_line(it);
            p->last_print = t;
        }
    }
    return 0;
}

static int parse_args(int argc, char **argv, solve_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trace") && i + 1 < argc)
            a->trace = argv[++i];
        else if (!strcmp(argv[i], "--result") && i + 1 < argc)
            a->result = argv[++i];
        else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q"))
            a->quiet = 1;
        else if (!a->spec && (argv[i][0] != '-' || !strcmp(argv[i], "-")))
            a->spec = argv[i];
        else
            return 0;
    }
    return a->spec != NULL;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* Reference first when asked; *ref owned by the caller. */
static int compute_reference(const api_spec *s, const solve_args *a,
                             ircg_reference **ref, ircg_reference_info *info)
{
    api_reference_spec rs;
    ircg_diag d = {0};
    api_spec_reference(s, &rs);
    if (!rs.compute)
        return CLI_OK;
    rs.settings.cancel = (const volatile int *)&g_cancel;
    if (!a->quiet)
        fprintf(stderr, "computing the reference g_opt (tol %.3g)...\n", rs.settings.tol);
    if (ircg_reference_compute(api_spec_problem(s), &rs.settings, ref, &d) != IRCG_OK) {
        fprintf(stderr, "ircg: reference failed: %s\n", d.message);
        return CLI_FAILED;
    }
    ircg_reference_get_info(*ref, info);
    if (!a->quiet)
        fprintf(stderr, "reference: g_opt %.17g, gap %.3e, %lld iterations, %.2fs (%s)\n",
                info->g_opt, info->gap, (long long)info->iterations, info->seconds,
                ircg_status_string(info->status));
    return g_cancel ? CLI_INTERRUPTED : CLI_OK;
}

/* Result JSON from the solver's state (also after an interrupt). */
static int write_result(const solve_args *a, const api_spec *s, ircg_solver *sv,
                        const ircg_info *info, ircg_error err, const char *msg,
                        const ircg_reference_info *ref, double g_opt)
{
    api_output_spec out;
    ircg_iterate *x = NULL, *z = NULL;
    int rc = 0;
    if (!a->result)
        return 0;
    api_spec_output(s, &out);
    if (sv) {
        ircg_solver_iterate(sv, IRCG_X, out.dense_iterate, &x);
        ircg_solver_iterate(sv, IRCG_Z, out.dense_iterate, &z);
    }
    api_result r = {info, err, msg, ref, g_opt, x, z};
    char *text = api_result_json(&r);
    rc = text ? cli_write_file(a->result, text) : -1;
    free(text);
    ircg_iterate_free(x);
    ircg_iterate_free(z);
    return rc;
}

static void summary(const ircg_info *in, const solve_args *a)
{
    if (a->quiet)
        return;
    fprintf(stderr, "%s after %lld iterations in %.3fs: g(x) %.12g  f(x) %.12g  "
            "g(z) %.12g  f(z) %.12g  gap %.3e\n", ircg_status_string(in->status),
            (long long)in->iterations, in->solve_seconds, in->g_x, in->f_x, in->g_z,
            in->f_z, in->gap);
}

/* The solve proper, once the spec is valid and the files are open. */
static int run(const solve_args *a, const api_spec *s, progress *p)
{
    ircg_reference *ref = NULL;
    ircg_reference_info rinfo = {0};
    ircg_settings st;
    ircg_solver *sv = NULL;
    ircg_info info = {0};
    ircg_diag d = {0};
    ircg_error err = IRCG_OK;
    int code = compute_reference(s, a, &ref, &rinfo);
    if (code != CLI_OK)
        goto done;
    api_spec_settings(s, &st);
    st.callback = on_iter;
    st.callback_data = p;
    st.cancel = (const volatile int *)&g_cancel;
    st.reference = ref;
    err = ircg_solver_new(api_spec_problem(s), &st, &sv, &d);
    if (err == IRCG_OK)
        err = ircg_solve(sv, &info);
    if (p->have_last)
        trace_row(p, &p->last);
    if (p->have_last && !a->quiet)
        print_line(&p->last);
    if (err != IRCG_OK)
        fprintf(stderr, "ircg: the solver failed: %s\n",
                d.message[0] ? d.message : ircg_error_string(err));
    else
        summary(&info, a);
    double g_opt = ref ? rinfo.g_opt : st.g_opt;
    int wrc = write_result(a, s, sv, &info, err, d.message, ref ? &rinfo : NULL, g_opt);
    code = err != IRCG_OK || wrc || p->trace_failed ? CLI_FAILED
           : info.status == IRCG_STATUS_CANCELLED   ? CLI_INTERRUPTED
                                                    : CLI_OK;
done:
    ircg_solver_free(sv);
    ircg_reference_free(ref);
    return code;
}

int cmd_solve(int argc, char **argv)
{
    solve_args a;
    progress p = {0};
    int code = CLI_USAGE;
    if (!parse_args(argc, argv, &a)) {
        fprintf(stderr, "usage: ircg solve SPEC.json [--trace FILE.csv|FILE.jsonl] "
                        "[--result FILE.json] [--quiet]\n");
        return CLI_USAGE;
    }
    api_spec *s = cli_load_spec(a.spec, &code);
    if (!s)
        return code;
    api_output_spec out;
    api_spec_output(s, &out);
    p.every = out.trace_every;
    p.quiet = a.quiet;
    p.jsonl = a.trace && (ends_with(a.trace, ".jsonl") || ends_with(a.trace, ".ndjson"));
    if (a.trace && !(p.trace = fopen(a.trace, "w"))) {
        perror(a.trace);
        api_spec_free(s);
        return CLI_FAILED;
    }
    if (p.trace && !p.jsonl)
        fputs(API_TRACE_CSV_HEADER, p.trace);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C kills as usual */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    code = run(&a, s, &p);
    sigaction(SIGINT, &old, NULL);
    if (p.trace && fclose(p.trace) != 0 && code == CLI_OK)
        code = CLI_FAILED;
    if (code == CLI_INTERRUPTED)
        fprintf(stderr, "interrupted%s%s%s%s\n", a.result || a.trace ? ": wrote the partial " : "",
                a.result ? "result" : "", a.result && a.trace ? " and " : "",
                a.trace ? "trace" : "");
    api_spec_free(s);
    return code;
}
