/*
 * bench.c -- the paper's matrix-completion experiment (Section 4): MovieLens
 * ratings, delta = 5, varsigma = 0.05, p = 1/2, the default start, 110
 * iterations, for each step rule.  Reports the median over --runs runs of the
 * solve time (reading and setup excluded), split into LMO and the rest.
 *
 *   bench [--file PATH] [--runs N] [--iters N] [--threads N] [--rule R]
 *         [--lmo-tol X] [--lmo lanczos|arpack]
 *                              R in open, closed, ls, all (default all)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ircg.h"
#include "mc.h"              /* the --lmo arpack knob */
#include "solver_internal.h"

typedef struct opts {
    const char *file;
    int runs, threads;
    int64_t iters;
    double lmo_tol;
    const char *rule;
    int arpack;
} opts;

typedef struct run_out {
    double solve, lmo, setup, g, f;
    int64_t matvecs, iters;
    int rank;
} run_out;

static int parse(int argc, char **argv, opts *o)
{
    *o = (opts){"build/data/ratings.dat", 5, 0, 110, 0, "all", 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return -1;
        if (!strcmp(a, "--file"))
            o->file = v;
        else if (!strcmp(a, "--runs"))
            o->runs = atoi(v);
        else if (!strcmp(a, "--iters"))
            o->iters = atoll(v);
        else if (!strcmp(a, "--threads"))
            o->threads = atoi(v);
        else if (!strcmp(a, "--rule"))
            o->rule = v;
        else if (!strcmp(a, "--lmo"))
            o->arpack = !strcmp(v, "arpack");
        else if (!strcmp(a, "--lmo-tol"))
            o->lmo_tol = atof(v);
        else
            return -1;
        i++;
    }
    return o->runs >= 1 && o->iters >= 1 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int run_once(const ircg_problem *pb, const opts *o, ircg_step_rule rule,
                    run_out *r)
{
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_info info;
    ircg_diag diag = {0};

    ircg_settings_default(&s);
    s.step_rule = rule;
    s.varsigma = 0.05;
    s.p = 0.5;
    s.max_iter = o->iters;
    s.threads = o->threads;
    if (o->lmo_tol > 0)
        s.lmo_tol = o->lmo_tol;
    if (ircg_solver_new(pb, &s, &sv, &diag) != IRCG_OK) {
        fprintf(stderr, "solver: %s %s\n", diag.field, diag.message);
        return -1;
    }
    ((mc_ws *)sv->ws)->use_arpack = o->arpack;
    ircg_error err = ircg_solve(sv, &info);
    if (err != IRCG_OK) {
        fprintf(stderr, "solve: %s after %lld iterations\n", ircg_error_string(err),
                (long long)info.iterations);
        ircg_solver_free(sv);
        return -1;
    }
    *r = (run_out){info.solve_seconds, info.lmo_seconds, info.setup_seconds,
                   info.g_x, info.f_x, info.lmo_matvecs, info.iterations,
                   info.rank};
    ircg_solver_free(sv);
    return 0;
}

static int bench_rule(const ircg_problem *pb, const opts *o, ircg_step_rule rule,
                      const char *name)
{
    double *tot = calloc((size_t)o->runs, sizeof *tot);
    double *lmo = calloc((size_t)o->runs, sizeof *lmo);
    run_out r = {0};
    int rc = -1;

    if (!tot || !lmo)
        goto done;
    for (int k = 0; k < o->runs; k++) {
        if (run_once(pb, o, rule, &r) != 0)
            goto done;
        tot[k] = r.solve;
        lmo[k] = r.lmo;
    }
    double mt = median(tot, o->runs), ml = median(lmo, o->runs);
    printf("%-7s iters %lld  median %.3f s (min %.3f max %.3f)  per iter: lmo %.2f ms"
           " rest %.2f ms  matvecs/lmo %.1f  setup %.3f s  rank %d\n"
           "        g(x) = %.15e  f(x) = %.15e\n",
           name, (long long)r.iters, mt, tot[0], tot[o->runs - 1],
           1e3 * ml / r.iters, 1e3 * (mt - ml) / r.iters,
           (double)r.matvecs / r.iters, r.setup, r.rank, r.g, r.f);
    rc = 0;
done:
    free(tot);
    free(lmo);
    return rc;
}

int main(int argc, char **argv)
{
    opts o;
    ircg_ratings *R = NULL;
    ircg_problem *pb = NULL;
    ircg_diag diag = {0};
    struct rusage ru;
    int rc = 1;

    if (parse(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: bench [--file PATH] [--runs N] [--iters N] "
                        "[--threads N] [--rule open|closed|ls|all] [--lmo-tol X] "
                        "[--lmo lanczos|arpack]\n");
        return 2;
    }
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    if (o.threads <= 0)
        o.threads = nproc > 0 ? (int)nproc : 1;
    if (ircg_ratings_read_file(o.file, NULL, &R, &diag) != IRCG_OK) {
        fprintf(stderr, "bench: %s: %s (line %ld)\n", o.file, diag.message, diag.line);
        return 1;
    }
    if (ircg_problem_matrix_completion(R, IRCG_OUTER_COLUMN_VARIANCE, 5.0, &pb,
                                       &diag) != IRCG_OK) {
        fprintf(stderr, "bench: %s %s\n", diag.field, diag.message);
        goto done;
    }
    printf("ircg bench: %d x %d, %lld ratings, delta 5, varsigma 0.05, p 1/2, "
           "default start; nproc %ld, threads %d, runs %d, LMO %s (median; the "
           "machine is shared, timings are noisy)\n", R->n_rows, R->n_cols,
           (long long)R->nnz, nproc, o.threads, o.runs,
           o.arpack ? "ARPACK dsaupd on C'C" : "own Lanczos (GKL)");
    const char *names[] = {"open", "closed", "ls"};
    for (int k = 0; k < 3; k++)
        if ((!strcmp(o.rule, "all") || !strcmp(o.rule, names[k])) &&
            bench_rule(pb, &o, (ircg_step_rule)k, names[k]) != 0)
            goto done;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %.1f MB\n", ru.ru_maxrss / 1024.0);
    rc = 0;
done:
    ircg_problem_free(pb);
    ircg_ratings_free(R);
    return rc;
}
