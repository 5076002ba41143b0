/*
 * cmd_paper.c -- `ircg paper`: the paper's experiment (Section 4).  Every
 * method of Table 1 runs on the same matrix-completion instance with the
 * paper's parameters and the same time budget, after g_opt has been
 * computed (and certified) once; all methods measure g - g_opt against that
 * one reference by the difference formula.  Writes, into --out:
 *
 *   trace-KEY.csv   every iteration of each method (the `ircg solve` columns)
 *   best-KEY.dat    the best g - g_opt found so far and f at that iterate,
 *                   against time (the paper's Figure 1 plots these)
 *   table1.md       iterations within the budget, beside the paper's
 *   fig1.gp         the gnuplot script of Figure 1 (run here when gnuplot is
 *                   installed: fig1.png and fig1.svg)
 *   summary.json    g_opt and its certificate, and each method's figures
 *
 * With --time-to E1,E2,... each method runs until g(x_t) - g_opt <= every
 * Ei (or the budget), and tta.md gives the first time and iteration each
 * accuracy was reached, tta-section.md the same table with how it was made
 * (the time-to-accuracy section that tests/paper/results.py puts into
 * tests/paper/RESULTS.md); --results-md FILE writes that section into FILE.
 */
#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "ircg.h"
#include "paper.h"
#include "result.h"

static volatile sig_atomic_t g_cancel;

static void on_sigint(int sig)
{
    (void)sig;
    g_cancel = 1;
}

/* Table 1 of the paper, plus the projection methods with the paper's full
 * SVD (the default ones use the exact partial projection). */
static const paper_method METHODS[] = {
    {"ircg-open", "IR-CG (open loop)", IRCG_ALG_IRCG, IRCG_STEP_OPEN_LOOP, IRCG_PROJ_PARTIAL, 110},
    {"ircg-closed", "IR-CG (closed loop)", IRCG_ALG_IRCG, IRCG_STEP_CLOSED_LOOP, IRCG_PROJ_PARTIAL, 52},
    {"ircg-ls", "IR-CG (line search)", IRCG_ALG_IRCG, IRCG_STEP_LINE_SEARCH, IRCG_PROJ_PARTIAL, 33},
    {"cgbio", "CG-BiO", IRCG_ALG_CGBIO, IRCG_STEP_OPEN_LOOP, IRCG_PROJ_PARTIAL, 2},
    {"irpg", "IR-PG", IRCG_ALG_IRPG, IRCG_STEP_OPEN_LOOP, IRCG_PROJ_PARTIAL, 12},
    {"bisg", "Bi-SG", IRCG_ALG_BISG, IRCG_STEP_OPEN_LOOP, IRCG_PROJ_PARTIAL, 13},
    {"irpg-full", "IR-PG (full SVD)", IRCG_ALG_IRPG, IRCG_STEP_OPEN_LOOP, IRCG_PROJ_FULL, 12},
    {"bisg-full", "Bi-SG (full SVD)", IRCG_ALG_BISG, IRCG_STEP_OPEN_LOOP, IRCG_PROJ_FULL, 13},
};
#define NMETHODS ((int)(sizeof METHODS / sizeof METHODS[0]))

static const char USAGE[] =
    "usage: ircg paper [--ratings PATH] [--out DIR] [--budget SECONDS]\n"
    "                  [--methods KEY,...] [--delta X] [--threads N]\n"
    "                  [--gopt-tol X] [--time-to E1,E2,... [--results-md FILE]]\n"
    "  Runs the paper's experiment: g_opt first, then each method for the\n"
    "  same budget (default 600 s) on the ratings (default\n"
    "  build/data/ratings.dat, from `make data`).  Keys: ircg-open,\n"
    "  ircg-closed, ircg-ls, cgbio, irpg, bisg, irpg-full, bisg-full\n"
    "  (default: all).  Output in --out (default build/paper).\n"
    "  --time-to: time each method until g - g_opt <= each Ei (up to 4),\n"
    "  stopping once all are reached; tta.md, and with --results-md its\n"
    "  section in FILE (replaced between its markers, or appended).\n";

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return s[0] && !*end && !errno && isfinite(*out) ? 0 : -1;
}

/* "1e-4,1e-6": up to PAPER_MAX_TTA accuracies in (0, 1e30], descending. */
static int parse_tta(const char *list, paper_opts *o)
{
    char buf[256], *save = NULL;
    if (strlen(list) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", list);
    o->ntta = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        double v;
        if (o->ntta == PAPER_MAX_TTA || parse_double(t, &v) != 0 || !(v > 0 && v <= 1e30))
            return -1;
        o->tta[o->ntta++] = v;
    }
    for (int i = 1; i < o->ntta; i++) /* insertion sort, descending */
        for (int j = i; j > 0 && o->tta[j] > o->tta[j - 1]; j--) {
            double t = o->tta[j];
            o->tta[j] = o->tta[j - 1];
            o->tta[j - 1] = t;
        }
    return o->ntta > 0 ? 0 : -1;
}

static const struct option PAPER_OPTS[] = {
    {"ratings", required_argument, NULL, 'r'}, {"out", required_argument, NULL, 'o'},
    {"methods", required_argument, NULL, 'm'}, {"budget", required_argument, NULL, 'b'},
    {"delta", required_argument, NULL, 'd'}, {"gopt-tol", required_argument, NULL, 'g'},
    {"threads", required_argument, NULL, 't'}, {"time-to", required_argument, NULL, 'T'},
    {"results-md", required_argument, NULL, 'R'}, CLI_OPT_HELP, {0},
};
static const cli_command PAPER = {"paper", USAGE, NULL, PAPER_OPTS};

static int paper_opt(void *user, int c, const char *val)
{
    paper_opts *o = user;
    double v = 0;
    int num = parse_double(val, &v) == 0;
    if (c == 'r')
        o->ratings = val;
    else if (c == 'o')
        o->out = val;
    else if (c == 'm')
        o->methods = val;
    else if (c == 'b' && num && v > 0)
        o->budget = v;
    else if (c == 'd' && num && v > 0)
        o->delta = v;
    else if (c == 'g' && num && v > 0)
        o->gopt_tol = v;
    else if (c == 't' && num && v >= 1 && v <= 64 && v == floor(v))
        o->threads = (int)v;
    else if (c == 'T' && parse_tta(val, o) == 0)
        return 0;
    else if (c == 'R')
        o->results_md = val;
    else {
        fprintf(stderr, "ircg paper: invalid value \"%s\"\n", val);
        return -1;
    }
    return 0;
}

static int parse_args(int argc, char **argv, paper_opts *o)
{
    int first = 0;
    *o = (paper_opts){.ratings = "build/data/ratings.dat", .out = "build/paper",
                      .budget = 600, .delta = 5, .threads = 2, .gopt_tol = 1e-12};
    int rc = cli_getopt(argc, argv, &PAPER, paper_opt, o, &first);
    if (rc == CLI_OK && first < argc)
        rc = cli_usage_error(&PAPER, "unexpected argument \"%s\"", argv[first]);
    if (rc == CLI_OK && o->results_md && o->ntta == 0) /* a section needs a table */
        rc = cli_usage_error(&PAPER, "%s needs --time-to", "--results-md");
    return rc;
}

/* Is key selected by the comma-separated list (NULL = all)? */
static int selected(const char *list, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && !strncmp(p, key, n))
            return 1;
        p = comma ? comma + 1 : NULL;
    }
    return !list;
}

static int check_methods(const char *list)
{
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int known = 0;
        for (int m = 0; m < NMETHODS; m++)
            known |= strlen(METHODS[m].key) == len && !strncmp(p, METHODS[m].key, len);
        if (!known) {
            fprintf(stderr, "ircg paper: unknown method \"%.*s\"\n", (int)len, p);
            return -1;
        }
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* mkdir -p: every missing component of path; 0 on success. */
static int make_dirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static ircg_problem *load_problem(const paper_opts *o, cJSON *summary)
{
    ircg_ratings *r = NULL;
    ircg_problem *pb = NULL;
    ircg_diag diag = {0};

    if (ircg_ratings_read_file(o->ratings, NULL, &r, &diag) != IRCG_OK) {
        fprintf(stderr, "ircg paper: %s: %s\n", o->ratings, diag.message);
        return NULL;
    }
    if (ircg_problem_matrix_completion(r, IRCG_OUTER_COLUMN_VARIANCE, o->delta, &pb,
                                       &diag) != IRCG_OK)
        fprintf(stderr, "ircg paper: %s: %s\n", diag.field, diag.message);
    else {
        printf("instance: %s, %d x %d, %lld ratings, delta %g\n", o->ratings, r->n_rows,
               r->n_cols, (long long)r->nnz, o->delta);
        cJSON *in = cJSON_AddObjectToObject(summary, "instance");
        cJSON_AddNumberToObject(in, "n_rows", r->n_rows);
        cJSON_AddNumberToObject(in, "n_cols", r->n_cols);
        cJSON_AddNumberToObject(in, "ratings", (double)r->nnz);
    }
    ircg_ratings_free(r);
    return pb;
}

static ircg_reference *compute_gopt(const ircg_problem *pb, const paper_opts *o,
                                    cJSON *summary)
{
    ircg_reference_settings rs;
    ircg_reference *ref = NULL;
    ircg_reference_info ri;
    ircg_diag diag = {0};

    ircg_reference_settings_default(&rs);
    rs.tol = o->gopt_tol;
    rs.threads = o->threads;
    rs.cancel = (const volatile int *)&g_cancel;
    rs.certify_unique = 1;
    printf("g_opt: conditional gradient on g with exact line search, tol %g ...\n", rs.tol);
    fflush(stdout);
    if (ircg_reference_compute(pb, &rs, &ref, &diag) != IRCG_OK) {
        fprintf(stderr, "ircg paper: g_opt: %s\n", diag.message);
        return NULL;
    }
    ircg_reference_get_info(ref, &ri);
    printf("g_opt = %.17g  certified gap %.3g (rounding floor %.3g; %s, %lld "
           "iterations, %.1f s); f there %.9g\n"
           "sigma_1 = %.12g, sigma_2 = %.12g of grad g at the last iterate; every inner\n"
           "solution's gradient is within %.3g of it (distance %.3g, rounding %.3g), so\n"
           "sigma_1 - sigma_2 - 2 x %.3g = %.9g: %s\n"
           "f at that solution -delta u_1 v_1' (the top singular pair there): %.9g\n",
           ri.g_opt, ri.gap, ri.gap_floor, ircg_status_string(ri.status),
           (long long)ri.iterations, ri.seconds, ri.f_x, ri.cert_sv1, ri.cert_sv2, ri.unique_bound,
           ri.unique_dist, ri.unique_rounding, ri.unique_bound, ri.unique_margin,
           ri.unique == 1 ? "> 0, the inner solution set is one point (certified)"
           : ri.unique == 0 ? "not > 0, uniqueness is NOT certified"
                            : "not computed", ri.f_vertex);
    cJSON *g = cJSON_AddObjectToObject(summary, "g_opt");
    cJSON_AddNumberToObject(g, "value", ri.g_opt);
    cJSON_AddNumberToObject(g, "f_at_solution", ri.f_x);
    cJSON_AddNumberToObject(g, "certified_gap", ri.gap);
    cJSON_AddNumberToObject(g, "gap_floor", ri.gap_floor);
    cJSON_AddStringToObject(g, "status", ircg_status_string(ri.status));
    cJSON_AddNumberToObject(g, "iterations", (double)ri.iterations);
    cJSON_AddNumberToObject(g, "seconds", ri.seconds);
    cJSON_AddNumberToObject(g, "sigma_1", ri.top_sv);
    cJSON_AddNumberToObject(g, "sigma_2", ri.second_sv);
    cJSON *u = cJSON_AddObjectToObject(g, "uniqueness");
    cJSON_AddNumberToObject(u, "certified", ri.unique);
    cJSON_AddNumberToObject(u, "sigma_1", ri.cert_sv1);
    cJSON_AddNumberToObject(u, "sigma_2", ri.cert_sv2);
    cJSON_AddNumberToObject(u, "bound", ri.unique_bound);
    cJSON_AddNumberToObject(u, "distance", ri.unique_dist);
    cJSON_AddNumberToObject(u, "rounding", ri.unique_rounding);
    cJSON_AddNumberToObject(u, "margin", ri.unique_margin);
    cJSON_AddNumberToObject(u, "f_at_the_solution", ri.f_vertex);
    return ref;
}

int cmd_paper(int argc, char **argv)
{
    paper_opts o;
    ircg_problem *pb = NULL;
    ircg_reference *ref = NULL;
    paper_run runs[NMETHODS];
    int nrun = 0, failed = 0, rc = CLI_FAILED;
    cJSON *summary = cJSON_CreateObject();
    struct sigaction sa, old;

    int usage = parse_args(argc, argv, &o);
    if (usage == CLI_OK && check_methods(o.methods) != 0) {
        fputs(USAGE, stderr);
        usage = CLI_USAGE;
    }
    if (usage != CLI_OK) {
        cJSON_Delete(summary);
        return usage == CLI_HELP ? CLI_OK : usage;
    }
    if (make_dirs(o.out) != 0) {
        fprintf(stderr, "ircg paper: cannot create %s: %s\n", o.out, strerror(errno));
        cJSON_Delete(summary);
        return CLI_INVALID;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    if (!(pb = load_problem(&o, summary))) {
        rc = CLI_INVALID;
        goto done;
    }
    if (!(ref = compute_gopt(pb, &o, summary)))
        goto done;
    o.load_start = paper_load_average();
    for (int m = 0; m < NMETHODS && !g_cancel; m++) {
        if (!selected(o.methods, METHODS[m].key))
            continue;
        runs[nrun] = (paper_run){.method = &METHODS[m]};
        /* a failed method is reported in the table; the others go on */
        runs[nrun].failed = paper_run_method(pb, ref, &o, (const volatile int *)&g_cancel,
                                             &runs[nrun]) != 0;
        failed |= runs[nrun].failed;
        nrun++;
    }
    if (paper_write_outputs(&o, runs, nrun, summary) == 0 &&
        (o.ntta == 0 || paper_write_tta(&o, runs, nrun, ref) == 0))
        rc = failed ? CLI_FAILED : g_cancel ? CLI_INTERRUPTED : CLI_OK;
done:
    sigaction(SIGINT, &old, NULL);
    ircg_reference_free(ref);
    ircg_problem_free(pb);
    cJSON_Delete(summary);
    return rc;
}
