/*
 * scale.c -- `make bench-scale`: how the library and the service behave on
 * big matrix-completion instances.
 *
 * Per size (synthetic 1M, 10M, 100M ratings in the shapes of MovieLens-1M,
 * MovieLens-10M and the Netflix prize), in a child process of its own so
 * that its peak RSS is its own: the generation time, the build of the
 * problem, the seconds per IR-CG iteration (median-free: the mean of
 * --iters iterations after the first, which pays the warm-up) and the peak
 * RSS.  Then the readers' throughput on files written from the 10M
 * instance, and (scale_http.c) the daemon's submit latency, a spec naming
 * a --file-gb file, and the download of a --trace-rows trace.
 *
 *   bench_scale [--sizes 1,10,100] [--iters N] [--threads N] [--tmp DIR]
 *               [--file-gb N] [--trace-rows N] [--no-http] [--no-solver]
 *               [--no-readers]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ircg.h"
#include "scale.h"

double sc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double sc_proc_mb(int pid, const char *field)
{
    char path[64], line[256];
    double mb = -1;
    size_t n = strlen(field);
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':')
            mb = strtod(line + n + 1, NULL) / 1024.0;
    if (f)
        fclose(f);
    return mb;
}

double sc_self_hwm_mb(void) { return sc_proc_mb((int)getpid(), "VmHWM"); }

sc_shape sc_shape_of(int millions)
{
    if (millions <= 1)
        return (sc_shape){6040, 3952, 1000000LL * millions};
    if (millions <= 10)
        return (sc_shape){69878, 10677, 1000000LL * millions};
    return (sc_shape){480189, 17770, 1000000LL * millions};
}

static ircg_synth_ratings_spec synth_spec(int millions)
{
    sc_shape s = sc_shape_of(millions);
    return (ircg_synth_ratings_spec){s.rows, s.cols, 10, s.ratings, 1, 5, 0.5, 1, 0};
}

/* ------------------------------------------------------------ solver -- */

typedef struct row_out {
    double gen, gen_cpu, build, per_iter, first_iter, rss_mb, matvecs;
    long long nnz;
} row_out;

/* CPU seconds of this process (all its threads): what a loaded machine
 * does not inflate. */
static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static int progress(void *user, const ircg_iter_info *it)
{
    double *t1 = user;
    if (it->t == 1)
        *t1 = it->elapsed;
    return 0;
}

/* In the child: generate, build (the ratings are freed after it, as the
 * worker does), solve; the numbers go up the pipe. */
static int solver_child(const sc_opts *o, int millions, int fd)
{
    ircg_synth_ratings_spec sp = synth_spec(millions);
    ircg_ratings *r = NULL;
    ircg_problem *pb = NULL;
    ircg_solver *sv = NULL;
    ircg_diag d = {0};
    ircg_info info = {0};
    ircg_settings set;
    row_out out = {0};
    double t0 = sc_now(), c0 = cpu_seconds();
    if (ircg_synth_ratings(&sp, &r, &d) != IRCG_OK)
        goto fail;
    out.gen = sc_now() - t0;
    out.gen_cpu = cpu_seconds() - c0;
    out.nnz = r->nnz;
    t0 = sc_now();
    if (ircg_problem_matrix_completion(r, IRCG_OUTER_COLUMN_VARIANCE, 5, &pb, &d) != IRCG_OK)
        goto fail;
    out.build = sc_now() - t0;
    ircg_ratings_free(r);
    r = NULL;
    ircg_settings_default(&set);
    set.max_iter = o->iters + 1;
    set.time_limit = 0;
    set.threads = o->threads;
    set.callback = progress;
    set.callback_data = &out.first_iter;
    if (ircg_solver_new(pb, &set, &sv, &d) != IRCG_OK || ircg_solve(sv, &info) != IRCG_OK)
        goto fail;
    out.per_iter = (info.solve_seconds - out.first_iter) / (double)(info.iterations - 1);
    out.matvecs = (double)info.lmo_matvecs / (double)info.iterations;
    ircg_solver_free(sv);
    ircg_problem_free(pb);
    return write(fd, &out, sizeof out) == (ssize_t)sizeof out ? 0 : 1;
fail:
    fprintf(stderr, "bench_scale: %dM: %s\n", millions, d.message);
    return 1;
}

static int solver_row(const sc_opts *o, int millions)
{
    int fds[2];
    struct rusage ru;
    int status = 0;
    row_out out = {0};
    if (pipe(fds) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        _exit(solver_child(o, millions, fds[1]));
    }
    close(fds[1]);
    ssize_t got = pid > 0 ? read(fds[0], &out, sizeof out) : -1;
    close(fds[0]);
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || got != (ssize_t)sizeof out)
        return -1;
    out.rss_mb = (double)ru.ru_maxrss / 1024.0;
    sc_shape s = sc_shape_of(millions);
    /* the LMO's products (and the step's passes) read all of Omega: the
     * cost of an iteration per rating and per product compares sizes whose
     * LMOs need different numbers of products */
    printf("| %4dM | %6d x %5d | %6.2f (%.2f) | %8.2f | %9.4f | %9.4f | %5.1f | %6.2f | %8.0f |\n",
           millions, s.rows, s.cols, out.gen, out.gen_cpu, out.build, out.first_iter, out.per_iter,
           out.matvecs, 1e9 * out.per_iter / ((double)out.nnz * (out.matvecs + 1)),
           out.rss_mb);
    fflush(stdout);
    return 0;
}

/* ----------------------------------------------------------- readers -- */

typedef struct fmt_case {
    const char *name, *ext;
} fmt_case;

static const fmt_case FORMATS[] = {
    {"movielens ::", "dat"}, {"tab (u.data)", "tsv"}, {"csv", "csv"},
    {"matrix market", "mtx"}};

static int write_ratings(const ircg_ratings *r, int k, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    if (k == 2)
        fputs("user,item,rating\n", f);
    if (k == 3)
        fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%d %d %lld\n",
                r->n_rows, r->n_cols, (long long)r->nnz);
    for (int64_t e = 0; e < r->nnz; e++) {
        /* half-star ratings: decimals the parser must read exactly */
        double v = r->val[e] - ((e & 1) ? 0.5 : 0.0);
        int u = r->row[e] + 1, i = r->col[e] + 1;
        long ts = 956703932L + (long)(e % 100000);
        if (k == 0)
            fprintf(f, "%d::%d::%g::%ld\n", u, i, v, ts);
        else if (k == 1)
            fprintf(f, "%d\t%d\t%g\t%ld\n", u, i, v, ts);
        else
            fprintf(f, k == 2 ? "%d,%d,%g\n" : "%d %d %g\n", u, i, v);
    }
    return fclose(f) == 0 ? 0 : -1;
}

static int readers(const sc_opts *o)
{
    ircg_synth_ratings_spec sp = synth_spec(10);
    ircg_ratings *r = NULL;
    ircg_diag d = {0};
    if (ircg_synth_ratings(&sp, &r, &d) != IRCG_OK)
        return -1;
    printf("\nreaders (10M ratings, %d threads available):\n\n"
           "| format | MB | seconds | MB/s |\n|---|---|---|---|\n", o->threads);
    for (int k = 0; k < 4; k++) {
        char path[1024];
        struct stat st;
        ircg_ratings *back = NULL;
        snprintf(path, sizeof path, "%s/ratings10m.%s", o->tmp, FORMATS[k].ext);
        if (write_ratings(r, k, path) != 0 || stat(path, &st) != 0)
            return -1;
        double best = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = sc_now();
            if (ircg_ratings_read_file(path, NULL, &back, &d) != IRCG_OK) {
                fprintf(stderr, "bench_scale: %s: %s\n", path, d.message);
                return -1;
            }
            double t = sc_now() - t0;
            best = t < best ? t : best;
            ircg_ratings_free(back);
        }
        double mb = (double)st.st_size / 1e6;
        printf("| %s | %.0f | %.3f | %.0f |\n", FORMATS[k].name, mb, best, mb / best);
        fflush(stdout);
        remove(path);
    }
    ircg_ratings_free(r);
    return 0;
}

/* -------------------------------------------------------------- main -- */

static int parse(int argc, char **argv, sc_opts *o)
{
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    *o = (sc_opts){.bin = "build/bin", .tmp = "build/bench-scale", .sizes = "1,10,100",
                   .iters = 10, .threads = nproc > 0 ? (int)nproc : 1, .file_gb = 1,
                   .trace_rows = 1000000, .storage_jobs = 1000};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-http"))
            o->skip_http = 1;
        else if (!strcmp(a, "--no-solver"))
            o->skip_solver = 1;
        else if (!strcmp(a, "--no-readers"))
            o->skip_readers = 1;
        else if (!v)
            return -1;
        else if (!strcmp(a, "--sizes"))
            o->sizes = argv[++i];
        else if (!strcmp(a, "--iters"))
            o->iters = atoi(argv[++i]);
        else if (!strcmp(a, "--threads"))
            o->threads = atoi(argv[++i]);
        else if (!strcmp(a, "--tmp"))
            o->tmp = argv[++i];
        else if (!strcmp(a, "--bin"))
            o->bin = argv[++i];
        else if (!strcmp(a, "--file-gb"))
            o->file_gb = atoi(argv[++i]);
        else if (!strcmp(a, "--trace-rows"))
            o->trace_rows = atoll(argv[++i]);
        else if (!strcmp(a, "--storage-jobs"))
            o->storage_jobs = atoi(argv[++i]);
        else
            return -1;
    }
    return o->iters >= 1 && o->threads >= 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
    sc_opts o;
    int rc = 0;
    if (parse(argc, argv, &o) != 0) {
        fputs("usage: bench_scale [--sizes 1,10,100] [--iters N] [--threads N] "
              "[--tmp DIR] [--bin DIR] [--file-gb N] [--trace-rows N] [--storage-jobs N] "
              "[--no-http] "
              "[--no-solver] [--no-readers]\n", stderr);
        return 64;
    }
    mkdir(o.tmp, 0755);
    if (!o.skip_solver) {
        printf("library (%d threads, %d iterations of IR-CG after the first):\n\n"
               "| ratings | shape | generate s (cpu s) | build s | first iter s | s/iter "
               "| products/iter | ns/rating/product | peak RSS MB |\n"
               "|---|---|---|---|---|---|---|---|---|\n", o.threads, o.iters);
        char sizes[64];
        snprintf(sizes, sizeof sizes, "%s", o.sizes);
        for (char *t = strtok(sizes, ","); t; t = strtok(NULL, ","))
            if (solver_row(&o, atoi(t)) != 0) {
                fprintf(stderr, "bench_scale: the %sM row failed\n", t);
                rc = 1;
            }
    }
    if (!o.skip_readers && readers(&o) != 0)
        rc = 1;
    if (!o.skip_http && sc_http(&o) != 0)
        rc = 1;
    if (o.storage_jobs > 0 && sc_storage(&o) != 0)
        rc = 1;
    return rc;
}
