/*
 * test_mpi.c -- ircg-mpi under mpirun on loopback (--oversubscribe: more
 * ranks than cores): on ML-100K, ML-1M and a synthetic instance, with each
 * step rule, N = 1..4 ranks give the g and f of `ircg solve` at every
 * traced iteration to 1e-10 relative (from the default start and from
 * zero); so does the ARPACK engine (PARPACK),
 * against serial ARPACK and, to lmo_tol, against Lanczos; a killed rank or
 * a failed PARPACK fails the run with a nonzero exit and a message; what it
 * cannot run is refused naming the member.  Skipped, saying why, without
 * mpirun; failed when mpirun is installed but ircg-mpi was not built.
 * --resume goes on bit for bit against an uninterrupted run of the same
 * number of ranks.
 *
 * The tolerance: the ranks add the same terms in another order (per rank,
 * then in rank order), so the values differ by roundings of sums whose
 * terms have one sign (g) or are the small Grams (f): 1e-14 measured.
 * The runs stop before the Frank-Wolfe gap reaches its rounding floor
 * (|gap| ~ 1e-12 against g ~ 1e6: on ML-1M after ~100 iterations), where
 * the sign of the gap -- rounding noise -- picks a step of 0 or 1, and two
 * runs that add in different orders part ways at 1e-7 (the single-process
 * runs agree bit for bit across thread counts because they add in one
 * fixed order; across ranks that order is not the same).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "common/test_cli_util.h"
#include "common/http_check.h"
#include "common/mpi_util.h"

/* mu_need_mpi: skipped without mpirun, failed when mpirun is there and
 * a program is not. */
#define NEED_MPI()                                                          \
    MU_NEED_MPI();                                                          \
    __attribute__((unused)) const char *bin = tcli_path(), *mbin = mu_mpi_bin(), \
                            *mrun = mu_mpirun()

#define MAX_ROWS 400

/* An `ircg solve` run that ircg-mpi's traces are compared with: its LMO
 * engine and the relative tolerance of the comparison. */
typedef struct reference {
    const char *engine;
    double tol;
} reference;

static void write_spec(const char *spec, const char *data, int iters, const char *rule,
                       const char *engine, const char *extra)
{
    char text[1024];
    /* varsigma_rel 0.05, the paper's: the iteration counts below stop
     * before the gap's rounding floor for it (a smaller varsigma gets
     * there sooner, where the ranks' orders of addition part ways) */
    snprintf(text, sizeof text, "{\"problem\": {\"type\": \"matrix_completion\", "
             "\"delta\": 5, \"data\": %s}, \"algorithm\": {\"name\": \"ircg\", "
             "\"varsigma_rel\": 0.05, \"max_iter\": %d, \"step_rule\": \"%s\", "
             "\"lmo\": {\"engine\": \"%s\"}%s}}",
             data, iters, rule, engine, extra);
    REQUIRE(tcli_write(spec, text) == 0);
}

/* ircg-mpi with `engine` on 1..4 ranks, for each step rule, against `ircg
 * solve` with each reference's engine, at every traced iteration. */
static void agree_with(const char *data, int iters, const char *engine, const char *extra,
                       const reference *refs, int nref)
{
    NEED_MPI();
    static const char *const rules[] = {"open_loop", "closed_loop", "line_search"};
    static double one[2][MAX_ROWS][4], got[MAX_ROWS][4];
    double most[2] = {0, 0}; /* the worst over the rules and rank counts */
    char err[8192];
    char *spec = tcli_tmp("mpi.json"), *t1 = tcli_tmp("mpi_one.csv"), *tn = tcli_tmp("mpi_n.csv");
    REQUIRE(nref <= 2);
    for (int r = 0; r < 3; r++) {
        int rows = 0;
        for (int k = 0; k < nref; k++) {
            write_spec(spec, data, iters, rules[r], refs[k].engine, extra);
            char *args[] = {(char *)bin, "solve", spec, "--quiet", "--trace", t1, NULL};
            REQUIRE(tcli_run(args, NULL) == 0);
            rows = mu_read_trace(t1, one[k], MAX_ROWS);
            REQUIRE(rows == iters);
        }
        write_spec(spec, data, iters, rules[r], engine, extra);
        for (int n = 1; n <= 4; n++) {
            int rc = mu_run_mpi(n, spec, tn, NULL, err, sizeof err);
            if (rc != 0)
                fprintf(stderr, "ircg-mpi -np %d: exit %d: %s\n", n, rc, err);
            REQUIRE(rc == 0);
            REQUIRE(mu_read_trace(tn, got, MAX_ROWS) == rows);
            for (int k = 0; k < nref; k++) {
                double worst = mu_worst_relative((const double (*)[4])one[k],
                                                 (const double (*)[4])got, rows);
                if (!(worst <= refs[k].tol))
                    fprintf(stderr, "%s, %d ranks, %s against ircg solve's %s: worst "
                            "relative difference %.3g\n", rules[r], n, engine,
                            refs[k].engine, worst);
                most[k] = worst > most[k] || worst != worst ? worst : most[k];
            }
        }
    }
    for (int k = 0; k < nref; k++) {
        char what[160];
        snprintf(what, sizeof what, "%s on 1..4 ranks against ircg solve's %s, worst relative "
                 "difference of g and f (3 rules)", engine, refs[k].engine);
        CHECK_MEASURED(what, most[k], refs[k].tol);
    }
}

/* `ircg solve` and ircg-mpi on 1..4 ranks, for each step rule. */
static void agree(const char *data, int iters)
{
    static const reference lanczos = {"lanczos", 1e-10};
    agree_with(data, iters, "lanczos", "", &lanczos, 1);
}

TEST(mpi, agreement_movielens_100k)
{
    char path[PATH_MAX], data[PATH_MAX + 64];
    NEED_MOVIELENS("u.data", path);
    snprintf(data, sizeof data, "{\"source\": \"file\", \"path\": \"%s\"}", path);
    agree(data, 50);
}

TEST(mpi, agreement_movielens_1m)
{
    char path[PATH_MAX], data[PATH_MAX + 64];
    NEED_MOVIELENS("ratings.dat", path);
    snprintf(data, sizeof data, "{\"source\": \"file\", \"path\": \"%s\"}", path);
    agree(data, 40);
}

TEST(mpi, agreement_synthetic)
{
    agree("{\"source\": \"synthetic\", \"n_rows\": 3000, \"n_cols\": 800, "
          "\"n_ratings\": 120000, \"seed\": 5}", 100);
}

/* From "start": "zero" (X = 0: no atom, no diagonal X0 on any rank's
 * rows): the same agreement. */
TEST(mpi, zero_start_agreement_synthetic)
{
    static const reference lanczos = {"lanczos", 1e-10};
    agree_with("{\"source\": \"synthetic\", \"n_rows\": 3000, \"n_cols\": 800, "
               "\"n_ratings\": 120000, \"seed\": 5}", 60, "lanczos",
               ", \"start\": \"zero\"", &lanczos, 1);
}

/*
 * The ARPACK engine through PARPACK (clients/mpi/mpi_parpack.c) against
 * `ircg solve` with the ARPACK engine and with the Lanczos one.
 *
 * Against serial ARPACK: the same implicitly restarted Lanczos on C'C, from
 * the same start (OP v0, mpi_parpack.h), with the same basis and tests, so
 * the Krylov spaces are the same and only the order of the additions
 * differs: PARPACK reduces its inner products by MPI_Allreduce over slices
 * whose number changes with N, and the Gram product sums per rank.  The
 * vertex then moves by roundings divided by the gap of the top eigenvalue
 * of C'C, as the Lanczos engine's does across ranks: the tolerance of the
 * Lanczos agreement above, 1e-10.  Measured worst over ML-100K and the
 * synthetic instance, the three rules, N = 1..4 and OPENBLAS_CORETYPE =
 * Prescott, Nehalem, Sandybridge, Haswell, Zen, SkylakeX: 3.7e-13 (f),
 * 2e-16 (g).
 *
 * Against the Lanczos engine: another process that stops at another
 * point, each answer with a residual of at most lmo_tol s (ARPACK's Ritz
 * estimate <= lmo_tol s^2 on C'C), so each vertex is within an angle
 * lmo_tol lambda_1 / (lambda_1 - lambda_2) of the top pair (Davis-Kahan)
 * and the iterates, convex combinations of X0 and the vertices, move by
 * delta times that; f (quadratic, |grad f| <= delta) moves first order
 * by delta^2 times it, g (dominated by M) by far less relatively.  The
 * differences are of the order of lmo_tol times the gap factor, never of
 * the rounding: the test allows lmo_tol itself (1e-9, the default) --
 * measured worst 4.1e-11 (f), 5e-16 (g) over the same grid, so the engines
 * converge well past their test, as Lanczos does; a vertex that missed the
 * top pair (an unconverged or wrong answer) moves f by 1e-3 and more.
 */
TEST(mpi, arpack_agreement_movielens_100k)
{
    char path[PATH_MAX], data[PATH_MAX + 64];
    static const reference refs[] = {{"arpack", 1e-10}, {"lanczos", 1e-9}};
    NEED_MOVIELENS("u.data", path);
    snprintf(data, sizeof data, "{\"source\": \"file\", \"path\": \"%s\"}", path);
    agree_with(data, 50, "arpack", "", refs, 2);
}

TEST(mpi, arpack_agreement_synthetic)
{
    static const reference refs[] = {{"arpack", 1e-10}, {"lanczos", 1e-9}};
    agree_with("{\"source\": \"synthetic\", \"n_rows\": 3000, \"n_cols\": 800, "
               "\"n_ratings\": 120000, \"seed\": 5}", 100, "arpack", "", refs, 2);
}

/* The rows of a CSV trace whose lmo_converged is 0; -1 when unreadable. */
static int unconverged_rows(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[2048];
    int col = -1, n = 0;
    if (!f)
        return -1;
    if (fgets(line, sizeof line, f)) { /* the header names the column */
        char *at = strstr(line, "lmo_converged");
        col = 0;
        for (char *c = line; at && c < at; c++)
            col += *c == ',';
    }
    while (col >= 0 && fgets(line, sizeof line, f)) {
        char *c = line;
        for (int i = 0; i < col && c; i++)
            c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
        n += c && *c == '0';
    }
    fclose(f);
    return col >= 0 ? n : -1;
}

/* An LMO stopped at lmo_max_matvecs before any Ritz value converged:
 * pdseupd would fail (info -14) where serial ARPACK answers, so the top
 * Ritz pair is taken all the same (lmo_converged 0 in the trace), on both
 * sides the same pair of the same Krylov space: they agree as above. */
TEST(mpi, arpack_unconverged_lmo_answers)
{
    NEED_MPI(); /* agree_with's own skip would return to the check below */
    (void)bin, (void)mbin, (void)mrun;
    static const reference refs[] = {{"arpack", 1e-10}};
    const char *syn = "{\"source\": \"synthetic\", \"n_rows\": 3000, \"n_cols\": 800, "
                      "\"n_ratings\": 120000, \"seed\": 5}";
    const char *extra = ", \"lmo_max_matvecs\": 4, \"lmo_tol\": 1e-13";
    agree_with(syn, 30, "arpack", extra, refs, 1);
    /* the runs did stop unconverged (the last ircg-mpi trace, 4 ranks) */
    CHECK(unconverged_rows(tcli_tmp("mpi_n.csv")) >= 1);
}

/* PARPACK needs a nonempty slice of the Lanczos vectors on every rank:
 * with fewer columns than ranks the run fails on every rank, at once (a
 * timeout catches a hang), exit 3, the error naming the engine and the
 * member, in the result too. */
TEST(mpi, arpack_failure_stops_every_rank)
{
    NEED_MPI();
    char *spec = tcli_tmp("mpi_narrow.json"), *res = tcli_tmp("mpi_narrow_result.json");
    char err[8192] = "", np[] = "4";
    REQUIRE(tcli_write(spec, "{\"problem\": {\"type\": \"matrix_completion\", \"data\": "
                             "{\"source\": \"synthetic\", \"n_rows\": 60, \"n_cols\": 3, "
                             "\"n_ratings\": 100}}, \"algorithm\": {\"name\": \"ircg\", "
                             "\"max_iter\": 5, \"lmo\": {\"engine\": \"arpack\"}}}") == 0);
    char *args[12] = {"/usr/bin/timeout", "120", (char *)mrun, "-np", np, "--oversubscribe"};
    int a = 6;
    if (geteuid() == 0)
        args[a++] = "--allow-run-as-root";
    args[a++] = (char *)mbin;
    args[a++] = spec;
    args[a++] = "--result";
    args[a++] = res;
    args[a] = NULL;
    mu_quiet_mpi_leaks(1);
    int rc = tcli_run_err(args, NULL, err, sizeof err);
    mu_quiet_mpi_leaks(0);
    CHECK_INT(rc, 3);
    CHECK(strstr(err, "/algorithm/lmo/engine: arpack (PARPACK): the matrix has 3 columns, "
                      "fewer than the 4 ranks") != NULL);
    char *text = tcli_read_text(res);
    CHECK(text && strstr(text, "unsolved") && strstr(text, "arpack (PARPACK)"));
    free(text);
}

/* What a distributed solve cannot run is refused, naming the member; so
 * is an x0 that is not the whole matrix (its length is known only once
 * the ranks have the data). */
TEST(mpi, refusals_name_the_member)
{
    NEED_MPI();
    static const char *const cases[][2] = {
        {"\"algorithm\": {\"name\": \"cgbio\"}", "/algorithm/name"},
        {"\"algorithm\": {\"name\": \"ircg\", \"start\": {\"x0\": [0, 0]}}",
         "/algorithm/start/x0: length 2 does not match the number of variables = 2000"},
    };
    char text[512], err[8192];
    char *spec = tcli_tmp("mpi_refuse.json");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, "{\"problem\": {\"type\": \"matrix_completion\", \"data\": "
                 "{\"source\": \"synthetic\", \"n_rows\": 50, \"n_cols\": 40, \"n_ratings\": "
                 "500}}, %s}", cases[i][0]);
        REQUIRE(tcli_write(spec, text) == 0);
        CHECK(mu_run_mpi(2, spec, NULL, NULL, err, sizeof err) == 2);
        CHECK(strstr(err, cases[i][1]) != NULL);
    }
}

/* The first child of pid (from /proc), or -1. */
static pid_t child_of(pid_t pid)
{
    char path[64];
    long c = -1;
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld", &c) != 1)
            c = -1;
        fclose(f);
    }
    return (pid_t)c;
}

/* A rank killed mid-solve: mpirun ends the others and exits nonzero,
 * saying which process died. */
TEST(mpi, killed_rank_fails_the_run)
{
    NEED_MPI();
    char *spec = tcli_tmp("mpi_kill.json"), err[16384] = "";
    REQUIRE(tcli_write(spec, "{\"problem\": {\"type\": \"matrix_completion\", \"data\": "
                             "{\"source\": \"synthetic\", \"n_rows\": 3000, \"n_cols\": 800, "
                             "\"n_ratings\": 120000}}, \"algorithm\": {\"name\": \"ircg\", "
                             "\"max_iter\": 100000000}}") == 0);
    char *args[8] = {(char *)mrun, "-np", "3", "--oversubscribe"};
    int a = 4;
    if (geteuid() == 0)
        args[a++] = "--allow-run-as-root";
    args[a++] = (char *)mbin;
    args[a++] = spec;
    args[a] = NULL;
    int fd = -1, st = 0;
    mu_quiet_mpi_leaks(1);
    pid_t pid = tcli_spawn(args, NULL, &fd);
    mu_quiet_mpi_leaks(0);
    REQUIRE(pid > 0);
    int seen = tcli_wait_for(fd, "ircg-mpi iter", err, sizeof err);
    pid_t victim = child_of(pid);
    if (seen && victim > 0)
        kill(victim, SIGKILL);
    else
        kill(pid, SIGKILL);
    size_t len = strlen(err);
    ssize_t got;
    while ((got = read(fd, err + len, sizeof err - 1 - len)) > 0 && len < sizeof err - 1)
        len += (size_t)got;
    err[len] = '\0';
    close(fd);
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(seen && victim > 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 0);
    CHECK(strstr(err, "signal 9") || strstr(err, "Killed") || strstr(err, "exited on signal"));
}

/* ---------------------------------------------------------- --resume -- */

/* The CSV lines of a trace (header first), NULL-terminated, each
 * malloc'ed with the array; *n lines.  NULL when unreadable. */
static char **csv_lines(const char *path, int *n)
{
    char *text = tcli_read_text(path);
    char **lines = NULL;
    *n = 0;
    for (char *s = text, *e; s && *s; s = e + 1) {
        e = strchr(s, '\n');
        if (!e)
            e = s + strlen(s) - 1;
        char **l = realloc(lines, (size_t)(*n + 2) * sizeof *l);
        if (!l)
            break;
        lines = l;
        lines[*n] = strndup(s, (size_t)(e - s + (*e != '\n')));
        lines[++*n] = NULL;
    }
    free(text);
    return lines;
}

static void free_lines(char **l)
{
    for (int i = 0; l && l[i]; i++)
        free(l[i]);
    free(l);
}

/* Field k of a CSV line (no quoting in traces) into out. */
static void field(const char *line, int k, char *out, size_t n)
{
    for (int i = 0; i < k && line; i++)
        line = strchr(line, ',') ? strchr(line, ',') + 1 : NULL;
    size_t len = line ? strcspn(line, ",") : 0;
    snprintf(out, n, "%.*s", (int)len, line ? line : "");
}

/* Rows a[from..] and b[0..] the same text in every column but the clock's
 * (elapsed, lmo_seconds): the trace prints each double to read back as
 * the same double, so equal text is equal bits (NaN is empty in CSV on
 * both sides).  The rows compared, or -1 after a failure. */
static int same_csv_rows(char **a, int from, char **b, int nb)
{
    int cols = 1, rows = 0;
    for (const char *c = a[0]; *c; c++)
        cols += *c == ',';
    CHECK_STR(a[0], b[0]);
    for (int i = 1; i < nb; i++, rows++) {
        if (!a[from + i - 1]) {
            th_fail(__FILE__, __LINE__, "the uninterrupted trace ends before row %d", i);
            return -1;
        }
        for (int k = 0; k < cols; k++) {
            char name[32], x[64], y[64];
            field(a[0], k, name, sizeof name);
            if (!strcmp(name, "elapsed") || !strcmp(name, "lmo_seconds"))
                continue;
            field(a[from + i - 1], k, x, sizeof x);
            field(b[i], k, y, sizeof y);
            if (strcmp(x, y) != 0) {
                th_fail(__FILE__, __LINE__, "row %d, %s: %s uninterrupted, %s resumed", i,
                        name, x, y);
                return -1;
            }
        }
    }
    return rows;
}

/* --resume goes on bit for bit (clients/mpi/README.md): 3 ranks, 60
 * iterations in one run, against 30 iterations with a checkpoint at every
 * one (the last two kept: 29 and 30), then a run of the same 3 ranks
 * resumed from the one of iteration 29 (taken mid-run, not at the end) up
 * to 60.  Its rows 30..60 equal the uninterrupted run's in every column
 * but the clock's -- the certificates' columns too, whose first one after
 * the resume makes the bound of sigma_2 anew (mc_cert.c: before its own
 * Lanczos, from a fixed start) -- and its result equals that run's but for
 * the clock and the oracle totals (this run's own, from the resume). */
TEST(mpi, resume_goes_on_bit_for_bit)
{
    NEED_MPI();
    static const char *const own[] = {"setup_seconds", "solve_seconds", "lmo_seconds",
                                      "lmo_matvecs", "lmo_unconverged", "omega_passes",
                                      "omega_bytes", "certificate/count",
                                      "certificate/seconds", NULL};
    const char *syn = "{\"source\": \"synthetic\", \"n_rows\": 3000, \"n_cols\": 800, "
                      "\"n_ratings\": 120000, \"seed\": 5}";
    char *s60 = tcli_tmp("mpi_res60.json"), *s30 = tcli_tmp("mpi_res30.json");
    char *full = tcli_tmp("mpi_res_full.csv"), *rfull = tcli_tmp("mpi_res_full.json");
    char *part = tcli_tmp("mpi_res_part.csv"), *rest = tcli_tmp("mpi_res_rest.csv");
    char *rrest = tcli_tmp("mpi_res_rest.json"), *ck = tcli_tmp("mpi_res_ckpt");
    char err[8192] = "", why[600] = "";
    write_spec(s60, syn, 60, "open_loop", "lanczos", "");
    write_spec(s30, syn, 30, "open_loop", "lanczos", "");
    REQUIRE(mkdir(ck, 0755) == 0 || errno == EEXIST);
    char *a1[] = {s60, "--quiet", "--trace", full, "--result", rfull, NULL};
    REQUIRE(mu_run_mpi_args(3, a1, err, sizeof err) == 0);
    char *a2[] = {s30, "--quiet", "--trace", part, "--checkpoint-dir", ck,
                  "--checkpoint-every", "1e-9", NULL};
    REQUIRE(mu_run_mpi_args(3, a2, err, sizeof err) == 0);
    char *a3[] = {s60, "--quiet", "--trace", rest, "--result", rrest, "--checkpoint-dir", ck,
                  "--resume", "29", NULL};
    int rc = mu_run_mpi_args(3, a3, err, sizeof err);
    if (rc != 0)
        printf("    ircg-mpi --resume 29: exit %d: %s\n", rc, err);
    REQUIRE(rc == 0);
    int na = 0, nb = 0;
    char **a = csv_lines(full, &na), **b = csv_lines(rest, &nb);
    REQUIRE(a && b);
    CHECK_INT(na, 61);
    CHECK_INT(nb, 32); /* the header and iterations 30..60 */
    char t[32];
    field(b[1], 0, t, sizeof t);
    CHECK_STR(t, "30");
    int rows = na == 61 && nb == 32 ? same_csv_rows(a, 30, b, nb) : -1;
    cJSON *x = tcli_read_json(rfull), *y = tcli_read_json(rrest);
    CHECK(x && y);
    for (int i = 0; i < 2; i++) /* and the certificates' clock */
        cJSON_DeleteItemFromObjectCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(i ? y : x, "certificate"), "seconds");
    if (x && y && !hc_json_same(x, y, own, why, sizeof why))
        th_fail(__FILE__, __LINE__, "the results differ at %s", why);
    printf("    3 ranks, resumed at 29: %d rows equal to the uninterrupted run's in every "
           "column but the clock's; the results equal but for the run's own totals\n", rows);
    cJSON_Delete(x);
    cJSON_Delete(y);
    free_lines(a);
    free_lines(b);
}
