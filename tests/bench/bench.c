/*
 * bench.c -- `make bench`: the paper's matrix-completion experiment
 * (Section 4) run the way a user runs it, through `ircg solve` on the
 * `paper-movielens` spec: MovieLens ratings, delta = 5, varsigma = 0.05,
 * p = 1/2, the paper's X0, 110 iterations, for each step rule, and once
 * more for the open loop with the gap to g_opt traced at every iteration
 * ("+reference": g_opt is computed before the solve, outside its clock),
 * with that tracing's cost against the plain open loop: each of its runs
 * is paired with one of the plain rule (in alternating order), and the
 * cost is the median of the pairs' ratios.
 *
 * For every rule it writes the spec once, runs `ircg solve` --runs times and
 * reports the median solve time (the solver's own clock: reading the file
 * and setup excluded), the seconds per iteration split into LMO and the
 * rest, matrix-vector products per LMO, the final g and f, the median wall
 * time of the whole command and the peak RSS of the solving process.
 *
 * And what explains the time: the passes over the ratings per iteration,
 * the bytes they move (the solver's traffic model: `omega_bytes` of the
 * result), the bandwidth that achieves, and the machine's own bandwidth,
 * measured first by a STREAM triad on the same number of threads over
 * arrays far larger than the last-level cache -- so the distance to the
 * memory floor is visible in every run.
 *
 *   bench [--ircg PATH] [--ratings PATH] [--runs N] [--iters N]
 *         [--threads N]   (0, the default: the CLI's own choice)
 *         [--rules open_loop,closed_loop,line_search,open_loop+reference]
 */
#include <cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNS 64

typedef struct opts {
    char ircg[4096];
    const char *ratings, *rules;
    int runs, threads;
    long iters, nnz;
} opts;

typedef struct run_out {
    double solve, lmo, wall, g, f, bytes, cert, cert_thread;
    long iters, matvecs, rss_kb, passes;
    int rank, threads;
} run_out;

/* The ratings of a MovieLens file: its lines (0 when unreadable). */
static long count_ratings(const char *path)
{
    FILE *f = fopen(path, "rb");
    char buf[1 << 16];
    size_t n;
    long lines = 0;
    if (!f)
        return 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            lines += buf[i] == '\n';
    fclose(f);
    return lines;
}

static const char USAGE[] =
    "usage: bench [--ircg PATH] [--ratings PATH] [--runs N<=64] [--iters N]\n"
    "             [--threads N (0: the CLI's)] [--rules open_loop,closed_loop,line_search,open_loop+reference]\n";

static int parse(int argc, char **argv, opts *o)
{
    const char *slash = strrchr(argv[0], '/');
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);

    /* `ircg` lives beside `bench` in build/bin */
    snprintf(o->ircg, sizeof o->ircg, "%.*sircg",
             slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
    o->ratings = "build/data/ratings.dat";
    o->rules = "open_loop,closed_loop,line_search,open_loop+reference";
    o->runs = 5;
    o->iters = 110;
    o->threads = 0; /* the CLI's own choice */
    (void)nproc;
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!v)
            return -1;
        if (!strcmp(a, "--ircg"))
            snprintf(o->ircg, sizeof o->ircg, "%s", v);
        else if (!strcmp(a, "--ratings"))
            o->ratings = v;
        else if (!strcmp(a, "--rules"))
            o->rules = v;
        else if (!strcmp(a, "--runs"))
            o->runs = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--iters"))
            o->iters = strtol(v, &end, 10);
        else if (!strcmp(a, "--threads"))
            o->threads = (int)strtol(v, &end, 10);
        else
            return -1;
        if (end && *end)
            return -1;
    }
    return o->runs >= 1 && o->runs <= MAX_RUNS && o->iters >= 1 && o->threads >= 0 ? 0
                                                                                   : -1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs argv with stdout to `out` (NULL = inherited); returns the exit
 * status (-1 if it did not exit normally) and its peak RSS. */
static int run_cmd(char *const argv[], const char *out, long *rss_kb)
{
    struct rusage ru;
    int status = 0;
    pid_t pid;

    fflush(NULL); /* or the child would print our buffered output again */
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (out && !freopen(out, "w", stdout))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    if (wait4(pid, &status, 0, &ru) < 0)
        return -1;
    if (rss_kb)
        *rss_kb = ru.ru_maxrss;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
        buf[n] = 0;
    else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* The example spec for one rule, with the bench's threads and, unless the
 * rule ends in "+reference", no g_opt. */
static int write_spec(const opts *o, const char *rule_ref, const char *path)
{
    char iters[32], tmp[4200], rule[64];
    const char *plus = strchr(rule_ref, '+');
    int keep_ref = plus && !strcmp(plus, "+reference");
    snprintf(rule, sizeof rule, "%.*s", plus ? (int)(plus - rule_ref) : 63, rule_ref);
    snprintf(iters, sizeof iters, "%ld", o->iters);
    snprintf(tmp, sizeof tmp, "%s.example", path);
    char *argv[] = {(char *)o->ircg, "example", "paper-movielens", "--ratings",
                    (char *)o->ratings, "--step-rule", (char *)rule, "--max-iter",
                    iters, NULL};
    if (run_cmd(argv, tmp, NULL) != 0)
        return -1;
    char *text = read_file(tmp);
    cJSON *spec = text ? cJSON_Parse(text) : NULL;
    cJSON *alg = cJSON_GetObjectItemCaseSensitive(spec, "algorithm");
    int rc = -1;
    free(text);
    remove(tmp);
    if (!cJSON_IsObject(alg))
        goto done;
    cJSON_DeleteItemFromObjectCaseSensitive(alg, "threads");
    if (o->threads > 0)
        cJSON_AddNumberToObject(alg, "threads", o->threads);
    if (!keep_ref)
        cJSON_DeleteItemFromObjectCaseSensitive(spec, "reference");
    char *out = cJSON_Print(spec);
    FILE *f = out ? fopen(path, "w") : NULL;
    if (f && fputs(out, f) >= 0 && fclose(f) == 0)
        rc = 0;
    else if (f)
        fclose(f);
    free(out);
done:
    cJSON_Delete(spec);
    return rc;
}

static double num(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static int solve_once(const opts *o, const char *spec, const char *res, run_out *r)
{
    char *argv[] = {(char *)o->ircg, "solve", (char *)spec, "--result", (char *)res,
                    "--quiet", NULL};
    double t0 = now();
    int rc = run_cmd(argv, NULL, &r->rss_kb);
    r->wall = now() - t0;
    if (rc != 0)
        return -1;
    char *text = read_file(res);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (!j)
        return -1;
    r->solve = num(j, "solve_seconds");
    r->lmo = num(j, "lmo_seconds");
    r->iters = (long)num(j, "iterations");
    r->matvecs = (long)num(j, "lmo_matvecs");
    r->g = num(j, "g_x");
    r->f = num(j, "f_x");
    r->rank = (int)num(j, "rank");
    r->passes = (long)num(j, "omega_passes");
    r->bytes = num(j, "omega_bytes");
    r->threads = (int)num(j, "threads");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "certificate");
    r->cert = cJSON_IsObject(c) ? num(c, "seconds") : 0;
    r->cert_thread = cJSON_IsObject(c) ? num(c, "thread_seconds") : 0;
    cJSON_Delete(j);
    return r->iters > 0 && r->solve > 0 ? 0 : -1;
}

/* solve_once, saying what failed, and the peak RSS kept. */
static int solve_logged(const opts *o, const char *spec, const char *res, run_out *r,
                        long *peak_kb)
{
    if (solve_once(o, spec, res, r) != 0) {
        fprintf(stderr, "bench: `ircg solve %s` failed\n", spec);
        return -1;
    }
    if (r->rss_kb > *peak_kb)
        *peak_kb = r->rss_kb;
    return 0;
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

/* ------------------------------------------------ STREAM-like triad -- */

#define STREAM_N (8L << 20) /* doubles per array: 3 x 64 MB, beyond any L3 */
#define STREAM_REPS 7

typedef struct triad_arg {
    double *a;
    const double *b, *c;
    long lo, hi;
} triad_arg;

static void *triad(void *p)
{
    triad_arg *t = p;
    for (long i = t->lo; i < t->hi; i++)
        t->a[i] = t->b[i] + 3.0 * t->c[i];
    return NULL;
}

/* Best triad bandwidth a = b + 3 c over `threads` threads, in bytes/s
 * (24 bytes per element, STREAM's convention); 0 on failure. */
static double stream_triad(int threads)
{
    double *a = malloc(STREAM_N * sizeof *a), *b = malloc(STREAM_N * sizeof *b);
    double *c = malloc(STREAM_N * sizeof *c), best = 0;
    pthread_t th[64];
    triad_arg ta[64];

    if (threads > 64)
        threads = 64;
    for (long i = 0; a && b && c && i < STREAM_N; i++) {
        a[i] = 0;
        b[i] = 1;
        c[i] = 2;
    }
    for (int r = 0; a && b && c && r < STREAM_REPS; r++) {
        double t0 = now();
        int started = 0;
        for (int t = 0; t < threads; t++) {
            ta[t] = (triad_arg){a, b, c, STREAM_N * t / threads, STREAM_N * (t + 1) / threads};
            if (t > 0 && pthread_create(&th[t], NULL, triad, &ta[t]) == 0)
                started++;
            else if (t > 0)
                triad(&ta[t]);
        }
        triad(&ta[0]);
        for (int t = 1; t <= started; t++)
            pthread_join(th[t], NULL);
        double bw = 24.0 * STREAM_N / (now() - t0);
        best = bw > best ? bw : best;
    }
    free(a);
    free(b);
    free(c);
    return best;
}

/* ---------------------------------------------------------------------- */

/* Runs one rule and reports it.  With `paired` (a rule), each run is paired
 * with one of that rule, and *ratio_out is the median of the runs' solve times
 * over their partners': a machine whose speed drifts over the minutes of a
 * bench (seen here: 15%) moves both alike. */
static int bench_rule(const opts *o, const char *rule, const char *paired, const char *dir,
                      long *peak_kb, double stream_bw, double *ratio_out)
{
    char spec[4096], res[4096], pspec[4096];
    double solve[MAX_RUNS], lmo[MAX_RUNS], wall[MAX_RUNS], ratio[MAX_RUNS];
    double cert[MAX_RUNS], certth[MAX_RUNS];
    run_out r = {0}, pr = {0};
    int n = o->runs, rc = -1;

    snprintf(spec, sizeof spec, "%s/%s.json", dir, rule);
    snprintf(res, sizeof res, "%s/%s-result.json", dir, rule);
    snprintf(pspec, sizeof pspec, "%s/%s.paired.json", dir, paired ? paired : "");
    if (write_spec(o, rule, spec) != 0 || (paired && write_spec(o, paired, pspec) != 0)) {
        fprintf(stderr, "bench: `%s example paper-movielens --ratings %s` failed\n",
                o->ircg, o->ratings);
        goto done;
    }
    for (int i = 0; i < n; i++) {
        /* the pairs' order alternates (ABBA...): what a run leaves to the
         * next (caches, clocks) falls on both rules alike */
        int first = paired && i % 2 == 0;
        if ((first && solve_logged(o, pspec, res, &pr, peak_kb) != 0) ||
            solve_logged(o, spec, res, &r, peak_kb) != 0 ||
            (paired && !first && solve_logged(o, pspec, res, &pr, peak_kb) != 0))
            goto done;
        ratio[i] = paired ? r.solve / pr.solve : 1.0;
        solve[i] = r.solve;
        lmo[i] = r.lmo / (double)r.iters;
        wall[i] = r.wall;
        cert[i] = r.cert;
        certth[i] = r.cert_thread;
    }
    double lo = solve[0], hi = solve[0];
    for (int i = 1; i < n; i++) {
        lo = solve[i] < lo ? solve[i] : lo;
        hi = solve[i] > hi ? solve[i] : hi;
    }
    double ms = median(solve, n), ml = median(lmo, n);
    printf("%-12s iters %ld  solve median %.3f s (min %.3f max %.3f)  per iter: "
           "lmo %.2f ms rest %.2f ms  matvecs/lmo %.1f  rank %d  command %.2f s\n",
           rule, r.iters, ms, lo, hi, 1e3 * ml, 1e3 * (ms / (double)r.iters - ml),
           (double)r.matvecs / (double)r.iters, r.rank, median(wall, n));
    printf("             g(x) = %.15e  f(x) = %.15e\n", r.g, r.f);
    double it = (double)r.iters, gbs = r.bytes / ms / 1e9;
    printf("             passes over Omega %.2f/iter  %.1f MB/iter  achieved %.1f GB/s = "
           "%.0f%% of STREAM (the bytes at STREAM speed: %.3f s)  threads %d\n",
           (double)r.passes / it, r.bytes / it / 1e6, gbs,
           stream_bw > 0 ? 100.0 * gbs * 1e9 / stream_bw : 0.0,
           stream_bw > 0 ? r.bytes / stream_bw : 0.0, r.threads);
    /* the bytes count every pass, the certificates' included (those made
     * on their own thread too) */
    if (o->nnz > 0)
        printf("             %.1f bytes per rating per iteration (%ld ratings), at %.0f%% "
               "of STREAM\n", r.bytes / it / (double)o->nnz, o->nnz,
               stream_bw > 0 ? 100.0 * gbs * 1e9 / stream_bw : 0.0);
    double mc = median(cert, n);
    printf("             certificates %.3f s of the solve (%.1f%%), %.3f s on their own "
           "thread (medians)\n", mc, 100.0 * mc / ms, median(certth, n));
    *ratio_out = median(ratio, n);
    rc = 0;
done:
    remove(res);
    remove(spec);
    if (paired)
        remove(pspec);
    return rc;
}

/* For "R+reference", the plain rule R its runs alternate with (NULL for
 * other rules): the cost of tracing g - g_opt is the median of the pairs'
 * ratios. */
static const char *paired_rule(const char *rule, char *buf, size_t cap)
{
    const char *plus = strchr(rule, '+');
    if (!plus || strcmp(plus, "+reference") != 0)
        return NULL;
    snprintf(buf, cap, "%.*s", (int)(plus - rule), rule);
    return buf;
}

int main(int argc, char **argv)
{
    opts o;
    char dir[] = "/tmp/ircg-bench-XXXXXX", rules[256];
    double ratio = 1.0;
    long peak_kb = 0;
    int rc = 0;

    if (parse(argc, argv, &o) != 0) {
        fputs(USAGE, stderr);
        return 2;
    }
    if (access(o.ratings, R_OK) != 0) {
        fprintf(stderr, "bench: %s is missing (run `make data`, which downloads "
                        "it or takes a local copy: datasets/README.md)\n", o.ratings);
        return 2;
    }
    if (!mkdtemp(dir))
        return 1;
    o.nnz = count_ratings(o.ratings);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    char thr[64] = "the CLI's own (every core)";
    if (o.threads > 0)
        snprintf(thr, sizeof thr, "%d", o.threads);
    printf("ircg bench: `ircg solve` on the paper-movielens spec (%s): delta 5, "
           "varsigma 0.05, p 1/2, the paper's X0, %ld iterations, threads %s, "
           "%d runs; %ld cores online (medians; the machine may be shared)\n",
           o.ratings, o.iters, thr, o.runs, cores);
    /* on every core the solve may use: its passes' and its certificates' */
    int sthreads = o.threads > 0 ? o.threads : cores > 0 ? (int)cores : 1;
    double bw = stream_triad(sthreads);
    printf("STREAM triad on %d threads: %.1f GB/s (3 x %ld MB arrays)\n", sthreads,
           bw / 1e9, STREAM_N * 8 >> 20);
    snprintf(rules, sizeof rules, "%s", o.rules);
    for (char *save = NULL, *r = strtok_r(rules, ",", &save); r && !rc;
         r = strtok_r(NULL, ",", &save)) {
        char pbuf[64];
        const char *paired = paired_rule(r, pbuf, sizeof pbuf);
        rc = bench_rule(&o, r, paired, dir, &peak_kb, bw, &ratio);
        if (!rc && paired)
            printf("             tracing g - g_opt costs %+.1f%% of the %s solve (median of "
                   "%d alternating pairs of runs)\n",
                   100.0 * (ratio - 1.0), paired, o.runs);
    }
    if (!rc)
        printf("peak RSS of `ircg solve` %.1f MB\n", (double)peak_kb / 1024.0);
    rmdir(dir);
    return rc ? 1 : 0;
}
