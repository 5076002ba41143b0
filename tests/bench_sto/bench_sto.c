/*
 * bench_sto.c -- `make bench-stochastic` (issue 28): the stochastic methods
 * against IR-CG on big finite sums.
 *
 *  1. The LIBSVM reader's throughput: the m = 1e6, n = 1e3 instance written
 *     as a LIBSVM file (7 significant digits, as the collection's files)
 *     and read back (1 and 2 threads, best of 2), checked equal to what
 *     was written.
 *  2. For least squares and logistic regression with m rows (1e6, 1e7) and
 *     n columns (1e3, 1e5), 50 entries a row (ircg_synth_rows, shape
 *     sparse), over the l1 ball of radius n/4 (x* ~ N(0,1) has ||x*||_1
 *     about 0.8 n: the ball cuts the minimizer off, and the solution has
 *     many nonzeros, each of them a step of conditional gradient) with
 *     f = 1/2||x||^2: g* and f* by FISTA (g is strongly convex here, so
 *     its minimizer x* is unique and f* = f(x*)), then each method --
 *     IR-CG with each step rule, IR-SCG and IR-FSCG with two batch sizes
 *     each -- for a budget of seconds (120 at 1e6 rows, 400 at 1e7; the
 *     stochastic methods first, then the rules, the most advanced of which
 *     goes on to 5x the best stochastic time to 1e-3 when none reached it,
 *     so that a ratio of 5 is measured),
 *     recording the time at which x_t first has g(x_t) - g* <= 1e-3 and
 *     1e-5 of g(x_0) - g*, and |f(x_t) - f*| <= 1e-2 f* (with the inner
 *     1e-3 met).  g and f are evaluated by the benchmark itself at the
 *     method's times 0.05 s, then a factor sqrt(2) apart, a pass over the
 *     rows each, and that time is taken off the clock: the times are
 *     those of the methods, certificates off (certify 0), upper bounds
 *     within that factor.  Every method runs on one thread.
 *  3. The follow-up paper's experiment on an instance of its shape
 *     (bench_sto_followup.c): the
 *     over-parameterized regression of `ircg example overparam-stochastic`
 *     (534 + 534 rows of 730 features), IR-SCG and IR-FSCG for a budget:
 *     iterations per second against the paper's counts in 4 minutes
 *     (1,182,617 and 369,952), the final certified gaps, and the
 *     convergence of g and f as a table (the plot's data).
 *
 * Options: --sizes 1e6,1e7  --cols 1e3,1e5  --problems ls,lr  --budget S
 * (per method; 0: by size, 120 s at 1e6 and 400 s at 1e7)  --no-reader
 * --no-followup  --no-instances  --followup-budget S  --tmp DIR.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "core/oracle.h"
#include "ircg.h"
#include "problems/domain.h"
#include "problems/logreg/lr.h"
#include "problems/ls/ls.h"
#include "bench_sto.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU seconds of this process (every thread), user and system. */
static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static double rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* --------------------------------------------------------- the reader -- */

/* x to 7 significant digits, as the LIBSVM collection's files write their
 * values (rcv1's 0.0302591, YearPredictionMSD's 49.94357): what the file
 * holds, and what reading it back must give exactly. */
static double seven(double x)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.7g", x);
    return strtod(buf, NULL);
}

static int write_svm(ircg_svm *s, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    setvbuf(f, NULL, _IOFBF, 1 << 22);
    for (int i = 0; i < s->m; i++) {
        s->labels[i] = seven(s->labels[i]);
        fprintf(f, "%.7g", s->labels[i]);
        for (int64_t p = s->rowptr[i]; p < s->rowptr[i + 1]; p++) {
            s->val[p] = seven(s->val[p]);
            fprintf(f, " %d:%.7g", s->colind[p] + 1, s->val[p]);
        }
        fputc('\n', f);
    }
    return fclose(f) == 0 ? 0 : -1;
}

static int same_svm(const ircg_svm *a, const ircg_svm *b)
{
    return a->m == b->m && a->nnz == b->nnz &&
           !memcmp(a->rowptr, b->rowptr, ((size_t)a->m + 1) * sizeof *a->rowptr) &&
           !memcmp(a->colind, b->colind, (size_t)a->nnz * sizeof *a->colind) &&
           !memcmp(a->val, b->val, (size_t)a->nnz * sizeof *a->val) &&
           !memcmp(a->labels, b->labels, (size_t)a->m * sizeof *a->labels);
}

static int bench_reader(const opts *o)
{
    ircg_synth_rows_spec sp = {.shape = IRCG_SHAPE_SPARSE, .m = 1000000, .n = 1000,
                               .nnz_row = 50, .noise = 0.5, .seed = 1};
    ircg_svm *s = NULL, *r = NULL;
    ircg_diag d = {0};
    char path[600];
    struct stat st;
    snprintf(path, sizeof path, "%s/bench.svm", o->tmp);
    if (ircg_synth_rows(&sp, &s, &d) != IRCG_OK || write_svm(s, path) != 0 ||
        stat(path, &st) != 0) {
        fprintf(stderr, "bench_sto: reader: %s\n", d.message);
        return -1;
    }
    double mb = (double)st.st_size / 1e6;
    printf("\n## The LIBSVM reader\n\n%d rows, %lld entries (%%.7g values), %.0f MB; the wall "
           "clock, and the CPU seconds of all threads (what a machine shared with other work "
           "does not change)\n\n| threads | seconds | MB/s | CPU seconds | MB per CPU second |\n"
           "|---|---|---|---|---|\n", s->m, (long long)s->nnz, mb);
    for (int th = 1; th <= 2; th++) {
        double best = 1e30, cpu = 1e30;
        for (int rep = 0; rep < 2; rep++) {
            ircg_svm_options ro = {.threads = th};
            double t0 = now(), c0 = cpu_seconds();
            if (ircg_svm_read_file(path, &ro, &r, &d) != IRCG_OK) {
                fprintf(stderr, "bench_sto: %s\n", d.message);
                return -1;
            }
            double t = now() - t0, c = cpu_seconds() - c0;
            best = t < best ? t : best;
            cpu = c < cpu ? c : cpu;
            if (!same_svm(r, s))
                fprintf(stderr, "bench_sto: the file read back differs from what was written\n");
            ircg_svm_free(r);
        }
        printf("| %d | %.2f | %.0f | %.2f | %.0f |\n", th, best, mb / best, cpu, mb / cpu);
    }
    remove(path);
    ircg_svm_free(s);
    return 0;
}

/* ------------------------------------------------- the evaluation pass -- */

typedef struct inst {
    int logistic;
    ircg_problem *pb;
    const ls_data *d;  /* the problem's own data (internal) */
    double g_opt, f_opt, g0;
} inst;

/* g(y): one pass over the rows. */
static double g_of(const inst *in, const double *y)
{
    const ls_data *d = in->d;
    double s = 0;
    for (int i = 0; i < d->m; i++) {
        double t = 0;
        for (int64_t p = d->rowptr[i]; p < d->rowptr[i + 1]; p++)
            t += d->val[p] * y[d->colind[p]];
        s += in->logistic ? lr_loss(d->b[i] * t) : 0.5 * (t - d->b[i]) * (t - d->b[i]);
    }
    return s;
}

static double f_of(const double *y, int n)
{
    double s = 0;
    for (int j = 0; j < n; j++)
        s += 0.5 * y[j] * y[j];
    return s;
}

/* ------------------------------------------------------------ the runs -- */

typedef struct run {
    const inst *in;
    ircg_solver *sv;
    double off;        /* seconds of evaluations, off the clock          */
    double next;       /* the method's time of the next evaluation      */
    double t3, t5, tf; /* the methods' times to the targets (NaN: not)   */
    double last_rel, last_frel, budget;
} run;

/* Evaluations at the method's own times 0.05 s, then a factor sqrt(2)
 * apart (and at the first iteration): each a pass over the rows, which
 * at 1e7 rows costs seconds, so few of them; the times to the targets are
 * upper bounds within that factor.  The outer target counts at an x whose
 * inner gap is within 1e-3 already: before, f crosses f* on its way (x
 * outside the inner solution set can have any f). */
static int on_iter(void *user, const ircg_iter_info *it)
{
    run *r = user;
    double t = it->elapsed - r->off; /* the method's own time so far */
    int last = t > r->budget;
    if (t < r->next && it->t > 1 && !last)
        return 0;
    r->next = fmax(t * 1.4142135623730951, 0.05);
    double e0 = now();
    ircg_iterate *x = NULL;
    if (ircg_solver_iterate(r->sv, IRCG_X, 0, &x) != IRCG_OK)
        return 1;
    double g = g_of(r->in, x->dense), f = f_of(x->dense, (int)x->dim);
    ircg_iterate_free(x);
    r->last_rel = (g - r->in->g_opt) / (r->in->g0 - r->in->g_opt);
    r->last_frel = fabs(f - r->in->f_opt) / r->in->f_opt;
    if (isnan(r->t3) && r->last_rel <= 1e-3)
        r->t3 = t;
    if (isnan(r->t5) && r->last_rel <= 1e-5)
        r->t5 = t;
    if (isnan(r->tf) && r->last_rel <= 1e-3 && r->last_frel <= 1e-2)
        r->tf = t;
    r->off += now() - e0;
    /* done: every target met, or the method's budget spent */
    return (!isnan(r->t5) && !isnan(r->tf)) || last;
}

typedef struct method {
    const char *label;
    ircg_algorithm alg;
    ircg_step_rule rule;
    int64_t batch; /* > 0: that many rows; < 0: sqrt(m) / -batch */
} method;

static const method METHODS[] = {
    {"IR-CG open loop", IRCG_ALG_IRCG, IRCG_STEP_OPEN_LOOP, 0},
    {"IR-CG closed loop", IRCG_ALG_IRCG, IRCG_STEP_CLOSED_LOOP, 0},
    {"IR-CG line search", IRCG_ALG_IRCG, IRCG_STEP_LINE_SEARCH, 0},
    {"IR-SCG", IRCG_ALG_IRSCG, IRCG_STEP_OPEN_LOOP, 64},
    {"IR-SCG", IRCG_ALG_IRSCG, IRCG_STEP_OPEN_LOOP, 4096},
    {"IR-FSCG", IRCG_ALG_IRFSCG, IRCG_STEP_OPEN_LOOP, -4},
    {"IR-FSCG", IRCG_ALG_IRFSCG, IRCG_STEP_OPEN_LOOP, -1},
};
#define N_METHODS (sizeof METHODS / sizeof METHODS[0])

static const char *secs(char *buf, double t)
{
    if (isnan(t))
        return "-";
    snprintf(buf, 24, "%.3g", t);
    return buf;
}

/* A method's run, kept so that it may go on (ircg_solve again). */
typedef struct mrun {
    const method *me;
    run r;
    ircg_info info;
} mrun;

static void print_run(const inst *in, const mrun *mr, const char *note)
{
    char b[48] = "", x[3][24];
    const method *me = mr->me;
    if (me->alg != IRCG_ALG_IRCG)
        snprintf(b, sizeof b, " b=%lld%s", (long long)mr->info.batch,
                 me->alg == IRCG_ALG_IRFSCG ? " q=sqrt(m)" : "");
    printf("| %s%s%s | %lld | %.1f | %.2e | %.2e | %s | %s | %s | %.3g |\n", me->label, b, note,
           (long long)mr->info.iterations, mr->info.solve_seconds - mr->r.off, mr->r.last_rel,
           mr->r.last_frel, secs(x[0], mr->r.t3), secs(x[1], mr->r.t5), secs(x[2], mr->r.tf),
           (double)mr->info.samples / (double)in->d->m);
    fflush(stdout);
}

/* One method on the instance for budget seconds of its own time; the
 * solver is kept (mr->r.sv) for go_on. */
static int one_method(const inst *in, const method *me, double budget, mrun *mr)
{
    ircg_settings s;
    ircg_settings_default(&s);
    s.algorithm = me->alg;
    s.step_rule = me->rule;
    s.p = me->alg == IRCG_ALG_IRSCG ? 0.25 : 0.5;
    s.max_iter = INT64_C(1) << 50;
    s.time_limit = 0; /* the callback stops it */
    s.certify = 0;
    int64_t root = (int64_t)sqrt((double)in->d->m);
    s.batch = me->alg == IRCG_ALG_IRCG ? 0 : me->batch > 0 ? me->batch : root / -me->batch;
    *mr = (mrun){.me = me, .r = {.in = in, .next = 0.05, .t3 = NAN, .t5 = NAN, .tf = NAN,
                                 .budget = budget}};
    s.callback = on_iter;
    s.callback_data = &mr->r;
    ircg_diag d = {0};
    if (ircg_solver_new(in->pb, &s, &mr->r.sv, &d) != IRCG_OK) {
        fprintf(stderr, "bench_sto: %s: %s %s\n", me->label, d.field, d.message);
        return -1;
    }
    ircg_solve(mr->r.sv, &mr->info);
    print_run(in, mr, "");
    return 0;
}

/* The run goes on (the same solver) until budget seconds of its time. */
static void go_on(const inst *in, mrun *mr, double budget)
{
    char note[48];
    mr->r.budget = budget;
    ircg_solve(mr->r.sv, &mr->info);
    snprintf(note, sizeof note, " (on to %.0f s)", budget);
    print_run(in, mr, note);
}

/* grad g(y) into gr, g(y) returned: one pass over the rows. */
static double g_grad(const inst *in, const double *y, double *gr)
{
    const ls_data *d = in->d;
    double s = 0;
    memset(gr, 0, (size_t)d->n * sizeof *gr);
    for (int i = 0; i < d->m; i++) {
        double t = 0;
        for (int64_t p = d->rowptr[i]; p < d->rowptr[i + 1]; p++)
            t += d->val[p] * y[d->colind[p]];
        double w = in->logistic ? d->b[i] * lr_dloss(d->b[i] * t) : t - d->b[i];
        s += in->logistic ? lr_loss(d->b[i] * t) : 0.5 * (t - d->b[i]) * (t - d->b[i]);
        for (int64_t p = d->rowptr[i]; p < d->rowptr[i + 1]; p++)
            gr[d->colind[p]] += w * d->val[p];
    }
    return s;
}

/* The Frank-Wolfe gap <grad, y - v> of g at y over X (an upper bound of
 * g(y) - g*), v the LMO's vertex (scratch). */
static double fw_gap(const inst *in, const double *y, const double *gr, double *v)
{
    const ls_data *d = in->d;
    double s = 0;
    slv_domain_lmo(&d->dom, gr, d->n, v);
    for (int j = 0; j < d->n; j++)
        s += gr[j] * (y[j] - v[j]);
    return s;
}

/* g* and f* by FISTA with the l1 projection (the library's) and restarts
 * when g goes up, stopped when the Frank-Wolfe gap of its iterate is at
 * most tol (g is strongly convex and well conditioned here -- 50 entries a
 * row, m >> n -- so this takes tens of passes, where conditional gradient
 * on the l1 ball needs about as many iterations as x* has nonzeros); its
 * minimizer is unique, so f* = f(x*). */
static int reference(inst *in, double budget)
{
    int n = in->d->n;
    double *x = calloc((size_t)n, sizeof *x), *y = calloc((size_t)n, sizeof *y);
    double *xp = calloc((size_t)n, sizeof *xp), *gr = calloc((size_t)n, sizeof *gr);
    double *v = calloc((size_t)n, sizeof *v), step = 1 / in->pb->info.L_g, tk = 1;
    double t0 = now(), gap = INFINITY, gprev = INFINITY, gx = NAN, tol = 1e-9 * in->g0;
    int it = 0;
    if (!x || !y || !xp || !gr || !v)
        return -1;
    for (; it < 100000 && now() - t0 < budget; it++) {
        g_grad(in, y, gr);
        memcpy(xp, x, (size_t)n * sizeof *x);
        for (int j = 0; j < n; j++)
            x[j] = y[j] - step * gr[j];
        slv_domain_project(&in->d->dom, x, n, x);
        if (it % 5 == 4) { /* the certificate at x: a pass */
            gx = g_grad(in, x, gr);
            gap = fw_gap(in, x, gr, v);
            if (gap <= tol)
                break;
            if (gx > gprev) /* restart the momentum */
                tk = 1;
            gprev = gx;
        }
        double tn = (1 + sqrt(1 + 4 * tk * tk)) / 2;
        for (int j = 0; j < n; j++)
            y[j] = x[j] + (tk - 1) / tn * (x[j] - xp[j]);
        tk = tn;
    }
    gx = g_grad(in, x, gr);
    gap = fw_gap(in, x, gr, v);
    in->g_opt = gx - gap / 2; /* within gap/2 of g*, either way */
    in->f_opt = f_of(x, n);
    printf("reference (FISTA, l1 projection): g* = %.12g (+- %.2g = %.2g of g(x0) - g*), "
           "f* = %.10g, %d iterations, %.0f s\n", in->g_opt, gap / 2,
           gap / 2 / (in->g0 - in->g_opt), in->f_opt, it, now() - t0);
    free(x);
    free(y);
    free(xp);
    free(gr);
    free(v);
    return 0;
}

static void bench_instance(const opts *o, int logistic, int m, int n)
{
    double budget = o->budget > 0 ? o->budget : m >= 5000000 ? 400 : 120, t0 = now();
    ircg_synth_rows_spec sp = {.shape = IRCG_SHAPE_SPARSE, .m = m, .n = n, .nnz_row = 50,
                               .noise = 0.5, .logistic = logistic, .seed = 1};
    ircg_svm *s = NULL;
    ircg_diag d = {0};
    inst in = {.logistic = logistic};
    printf("\n## %s, m = %d, n = %d, 50 entries a row, l1 ball of radius n/4, "
           "f = 1/2||x||^2\n\n", logistic ? "Logistic regression" : "Least squares", m, n);
    if (ircg_synth_rows(&sp, &s, &d) != IRCG_OK) {
        fprintf(stderr, "bench_sto: %s\n", d.message);
        return;
    }
    double tg = now() - t0;
    ircg_ls_data ld = {.m = s->m, .n = s->n, .A_rowptr = s->rowptr, .A_colind = s->colind,
                       .A_val = s->val, .b = s->labels};
    ircg_outer half = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {IRCG_DOMAIN_L1_BALL, 0.25 * n, 0, 0};
    t0 = now();
    ircg_error e = logistic ? ircg_problem_logistic(&ld, &half, &dom, &in.pb, &d)
                            : ircg_problem_least_squares(&ld, &half, &dom, &in.pb, &d);
    ircg_svm_free(s); /* the problem holds its copy */
    if (e != IRCG_OK) {
        fprintf(stderr, "bench_sto: problem: %s\n", d.message);
        return;
    }
    in.d = in.pb->data;
    double *x0 = calloc((size_t)n, sizeof *x0);
    in.g0 = g_of(&in, x0);
    free(x0);
    printf("generated in %.1f s, problem built in %.1f s (L_g included), peak RSS %.0f MB\n",
           tg, now() - t0, rss_mb());
    if (reference(&in, 4 * budget) != 0)
        goto done;
    printf("\nbudget %.0f s a method (its own time: the evaluations below are off the clock)"
           "\n\n| method | iterations | seconds | (g - g*)/(g0 - g*) | |f - f*|/f* | "
           "t(1e-3) s | t(1e-5) s | t(f 1e-2, inner 1e-3) s | samples/m |\n"
           "|---|---|---|---|---|---|---|---|---|\n", budget);
    /* the stochastic methods first: the deterministic rules then get at
     * least 5x the best stochastic time to 1e-3, so that a rule that has
     * not reached it shows a ratio of 5 or more measured, not guessed */
    static mrun runs[N_METHODS];
    double best_det = INFINITY, best_sto = INFINITY;
    size_t n_det = 0, det[N_METHODS];
    for (size_t k = 0; k < N_METHODS; k++) {
        if (METHODS[k].alg == IRCG_ALG_IRCG) {
            det[n_det++] = k;
            continue;
        }
        if (one_method(&in, &METHODS[k], budget, &runs[k]) == 0 && !isnan(runs[k].r.t3))
            best_sto = fmin(best_sto, runs[k].r.t3);
        ircg_solver_free(runs[k].r.sv);
    }
    size_t lead = det[0];
    for (size_t i = 0; i < n_det; i++) {
        size_t k = det[i];
        if (one_method(&in, &METHODS[k], budget, &runs[k]) != 0)
            continue;
        if (!isnan(runs[k].r.t3))
            best_det = fmin(best_det, runs[k].r.t3);
        if (runs[k].r.last_rel < runs[lead].r.last_rel)
            lead = k;
    }
    double due = 5.05 * best_sto; /* 5x, and the rounding of the times */
    if (isinf(best_det) && isfinite(best_sto) && due > budget) {
        go_on(&in, &runs[lead], due);
        if (!isnan(runs[lead].r.t3))
            best_det = runs[lead].r.t3;
    }
    for (size_t i = 0; i < n_det; i++)
        ircg_solver_free(runs[det[i]].r.sv);
    double det_budget = isfinite(best_sto) && due > budget ? due : budget;
    printf("\ninner gap 1e-3: best deterministic %.3g s, best stochastic %.3g s: ", best_det,
           best_sto);
    if (isinf(best_sto))
        printf("no stochastic method reached it within %.0f s\n", budget);
    else if (isinf(best_det))
        printf("no deterministic rule reached it within %.0f s: the stochastic one is at "
               "least %.1fx sooner\n", det_budget, det_budget / best_sto);
    else
        printf("%.1fx\n", best_det / best_sto);
done:
    ircg_problem_free(in.pb);
}

/* ------------------------------------------------------------- main -- */

static int has(const char *list, const char *item)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (!strcmp(t, item))
            return 1;
    return 0;
}

static int parse(int argc, char **argv, opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-reader"))
            o->reader = 0;
        else if (!strcmp(a, "--no-followup"))
            o->followup = 0;
        else if (!strcmp(a, "--no-instances"))
            o->instances = 0;
        else if (!v)
            return -1;
        else if (!strcmp(a, "--sizes"))
            snprintf(o->sizes, sizeof o->sizes, "%s", argv[++i]);
        else if (!strcmp(a, "--cols"))
            snprintf(o->cols, sizeof o->cols, "%s", argv[++i]);
        else if (!strcmp(a, "--problems"))
            snprintf(o->problems, sizeof o->problems, "%s", argv[++i]);
        else if (!strcmp(a, "--tmp"))
            snprintf(o->tmp, sizeof o->tmp, "%s", argv[++i]);
        else if (!strcmp(a, "--budget"))
            o->budget = atof(argv[++i]);
        else if (!strcmp(a, "--followup-budget"))
            o->fu_budget = atof(argv[++i]);
        else
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    opts o = {.sizes = "1e6,1e7", .cols = "1e3,1e5", .problems = "ls,lr", .tmp = "build",
              .reader = 1, .followup = 1, .instances = 1, .fu_budget = 240, .fu_radius = 780};
    if (parse(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: bench_sto [--sizes 1e6,1e7] [--cols 1e3,1e5] [--problems ls,lr]"
                " [--budget S] [--followup-budget S] [--tmp DIR] [--no-reader] "
                "[--no-followup] [--no-instances]\n");
        return 64;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* a long run: its lines as they come */
    printf("# bench-stochastic (issue 28)\n");
    if (o.reader && bench_reader(&o) != 0)
        return 1;
    if (o.followup)
        bench_followup(&o);
    static const char *const SIZES[] = {"1e6", "1e7"}, *const COLS[] = {"1e3", "1e5"};
    for (int lg = 0; o.instances && lg < 2; lg++)
        for (int a = 0; a < 2; a++)
            for (int c = 0; c < 2; c++)
                if (has(o.problems, lg ? "lr" : "ls") && has(o.sizes, SIZES[a]) &&
                    has(o.cols, COLS[c]))
                    bench_instance(&o, lg, (int)atof(SIZES[a]), (int)atof(COLS[c]));
    return 0;
}
