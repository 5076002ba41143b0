/*
 * test_estimate.c -- the memory estimate of a spec (api_spec_estimate)
 * against the peak RSS of `ircg solve` running it, across the families,
 * sources, algorithms and sizes.
 *
 * The estimate counts what the job allocates; the process holds its code
 * and libraries besides (the base: the peak RSS of the smallest spec,
 * measured first).  For every spec, base + estimate must lie within a
 * factor RATIO of the measured peak either way; the table is printed
 * (make test T=estimate.) with the ratios.  The specs run a few
 * iterations: the arrays are all made by the first.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "spec.h"
#include "common/test_cli_util.h"

#define RATIO 2.0

/* Peak RSS in bytes of `ircg solve spec` (its result to a file: the text
 * is made), or -1. */
static double peak_rss(const char *bin, const char *spec_path)
{
    char *args[] = {(char *)bin, "solve", (char *)spec_path, "--quiet", "--result",
                    tcli_tmp("est-result.json"), NULL};
    pid_t pid = tcli_spawn(args, NULL, NULL);
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return -1;
    return (double)ru.ru_maxrss * 1024.0;
}

/* The spec's estimate, parsed as `ircg solve` would (paths relative to
 * the spec's folder), without building it. */
static int estimate_of(const char *text, const char *dir, api_estimate *e)
{
    api_parse_options opt;
    api_spec *s = NULL;
    api_parse_options_default(&opt);
    opt.base_dir = dir;
    opt.build = 0;
    opt.certify_async = sysconf(_SC_NPROCESSORS_ONLN) > 1; /* as ircg solve parses */
    if (api_spec_parse(text, strlen(text), &opt, &s, NULL) != 0)
        return -1;
    api_spec_estimate(s, e);
    api_spec_free(s);
    return e->memory > 0 ? 0 : -1;
}

typedef struct row {
    const char *name, *spec;
    int needs_data; /* names a MovieLens file of the data folder */
} row;

/* a synthetic matrix completion; rest: its members, then the spec's */
#define MC_SYN(rest) "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":" \
                     "\"synthetic\"" rest
static const row rows[] = {
    {"mc synthetic 6040x3952, 1M, ircg",
     MC_SYN("}},\"algorithm\":{\"max_iter\":10"), 0},
    {"mc synthetic 12000x6000, 2M, ircg",
     MC_SYN(",\"n_rows\":12000,\"n_cols\":6000,\"n_ratings\":2000000}},"
            "\"algorithm\":{\"max_iter\":3"), 0},
    {"mc synthetic 1e8x50, 1000 (compacted)",
     MC_SYN(",\"n_rows\":100000000,\"n_cols\":50,\"n_ratings\":1000}},"
            "\"algorithm\":{\"max_iter\":5"), 0},
    {"mc synthetic 200000x300, 200k, ircg",
     MC_SYN(",\"n_rows\":200000,\"n_cols\":300,\"n_ratings\":200000}},"
            "\"algorithm\":{\"max_iter\":3"), 0},
    {"mc synthetic 300k, reference + ircg",
     MC_SYN(",\"n_rows\":3000,\"n_cols\":2000,\"n_ratings\":300000}},\"algorithm\":{\"max_iter\":5},\"reference\":{\"compute\":true,"
            "\"max_iter\":5"), 0},
    {"mc synthetic 300k, cgbio",
     MC_SYN(",\"n_rows\":3000,\"n_cols\":2000,\"n_ratings\":300000}},\"algorithm\":{\"name\":\"cgbio\",\"max_iter\":5,"
            "\"cgbio_warmup_max_iter\":5"), 0},
    {"mc synthetic 300k, irpg",
     MC_SYN(",\"n_rows\":3000,\"n_cols\":2000,\"n_ratings\":300000}},\"algorithm\":{\"name\":\"irpg\",\"max_iter\":3"), 0},
    {"mc synthetic 1500x1000, irpg full",
     MC_SYN(",\"n_rows\":1500,\"n_cols\":1000,\"n_ratings\":60000}},"
            "\"algorithm\":{\"name\":\"irpg\",\"projection\":\"full\",\"max_iter\":2"), 0},
    {"mc file ML-1M, ircg",
     "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":\"file\","
     "\"path\":\"ratings.dat\"}},\"algorithm\":{\"max_iter\":10", 1},
    {"ls synthetic 1000x4000",
     "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"synthetic\","
     "\"m\":1000,\"n\":4000}},\"algorithm\":{\"max_iter\":10", 0},
    {"ls synthetic 100x100000",
     "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"synthetic\","
     "\"m\":100,\"n\":100000}},\"algorithm\":{\"max_iter\":10", 0},
    {"ls synthetic 20000x200, irpg",
     "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"synthetic\","
     "\"m\":20000,\"n\":200}},\"algorithm\":{\"name\":\"irpg\",\"max_iter\":10", 0},
    {"logistic synthetic 2000x1000",
     "{\"problem\":{\"type\":\"logistic_regression\",\"data\":{\"source\":\"synthetic\","
     "\"m\":2000,\"n\":1000}},\"algorithm\":{\"max_iter\":10", 0},
};

TEST(estimate, within_a_factor_of_two_of_the_peak_rss)
{
    NEED_CLI();
    const char *san = getenv("IRCG_SAN");
    if (san && *san) /* its shadow memory and quarantine are RSS too */
        SKIP("peak RSS is not the program's own under a sanitizer");
    char dir[1024];
    const char *base_spec = "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":"
                            "\"synthetic\",\"m\":2,\"n\":3}},\"algorithm\":{\"max_iter\":1}}";
    REQUIRE(tcli_write(tcli_tmp("est-base.json"), base_spec) == 0);
    double base = peak_rss(bin, tcli_tmp("est-base.json"));
    REQUIRE(base > 0);
    printf("    base (2 x 3 least squares): %.1f MB\n", base / 1e6);
    printf("    %-40s %10s %10s %7s  %s\n", "spec", "estimate", "measured", "ratio",
           "drivers");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char text[1024], *path = tcli_tmp("est-spec.json");
        const char *where = rows[i].needs_data ? "build/data" : th_tmpdir();
        char probe[1100];
        snprintf(probe, sizeof probe, "%s/ratings.dat", where);
        if (rows[i].needs_data && access(probe, R_OK) != 0) {
            printf("    %-40s (no %s: make data)\n", rows[i].name, probe);
            continue;
        }
        snprintf(text, sizeof text, "%s}}", rows[i].spec);
        if (rows[i].needs_data) { /* beside the data, for its relative path */
            snprintf(dir, sizeof dir, "%s/est-spec.json", where);
            path = dir;
        }
        api_estimate e;
        REQUIRE(tcli_write(path, text) == 0);
        REQUIRE(estimate_of(text, rows[i].needs_data ? where : th_tmpdir(), &e) == 0);
        double rss = peak_rss(bin, path);
        CHECK(rss > 0);
        double est = base + (double)e.memory, ratio = rss / est;
        printf("    %-40s %8.1f MB %8.1f MB %7.2f  %s %.0f%% (%s)\n", rows[i].name,
               est / 1e6, rss / 1e6, ratio, e.ndrivers ? e.drivers[0] : "-",
               e.ndrivers ? 100 * e.shares[0] : 0.0, e.phase);
        CHECK(ratio <= RATIO && ratio >= 1 / RATIO);
        if (rows[i].needs_data)
            unlink(path);
    }
}
