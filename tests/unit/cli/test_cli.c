/*
 * test_cli.c -- the `ircg` binary end to end: exit codes, the examples
 * (least norm against A^+ b by LAPACKE, the dense synthetic iterate against
 * its factors, the paper's MovieLens run), the algorithm overrides, the
 * certified stop against least norm's closed forms, and the warnings on
 * stderr that leave the exit status alone.  Ctrl-C and failures are in
 * test_cli_interrupt.c.
 * Suite "spec_cli" so that `make test T=spec` runs it with the spec tests.
 */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>
#include <lapacke.h>

#include "harness.h"
#include "ircg.h"
#include "common/test_cli_util.h"
#include "test_cert.h"

TEST(spec_cli, exit_codes)
{
    NEED_CLI();
    char *spec = tcli_tmp("ln.json"), *bad = tcli_tmp("bad.json"), *nofile = tcli_tmp("nofile.json");
    char err[4096];
    CHECK_INT(tcli_run((char *[]){(char *)bin, "example", "least-norm", NULL}, spec), 0);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "validate", spec, NULL}, NULL), 0);
    /* 2: invalid input */
    REQUIRE(tcli_write(bad, "{\"problem\":{\"type\":\"least_squares\"},\"algorithm\":{\"p\":2}}") == 0);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "validate", bad, NULL}, NULL), 2);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", bad, NULL}, NULL), 2);
    REQUIRE(tcli_write(nofile, "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":"
                               "\"file\",\"path\":\"does-not-exist.dat\"}}}") == 0);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", nofile, NULL}, NULL), 2);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", tcli_tmp("absent.json"), NULL}, NULL), 2);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "validate", tcli_tmp("absent.json"), NULL}, NULL), 2);
    /* an unwritable output path is invalid input, found before any solving */
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "solve", spec, "--result",
                                      "/nonexistent-dir/r.json", NULL}, NULL, err, sizeof err), 2);
    CHECK(strstr(err, "cannot write /nonexistent-dir/r.json") && !strstr(err, "iter "));
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "solve", spec, "--trace",
                                      "/nonexistent-dir/t.csv", NULL}, NULL, err, sizeof err), 2);
    CHECK(strstr(err, "cannot write /nonexistent-dir/t.csv") && !strstr(err, "iter "));
    /* 2: usage (getopt_long's convention) */
    CHECK_INT(tcli_run((char *[]){(char *)bin, NULL}, NULL), 2);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "frobnicate", NULL}, NULL), 2);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", NULL}, NULL), 2);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", spec, "--bogus", NULL}, NULL), 2);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "validate", NULL}, NULL), 2);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "example", "nope", NULL}, NULL), 2);
    const char *counts[] = {"12abc", "0", "-5", "", "99999999999999999999", "9007199254740993",
                            "1e3", " 7"};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (tcli_run((char *[]){(char *)bin, "example", "least-norm", "--max-iter",
                                (char *)counts[i], NULL}, NULL) != 2)
            th_fail(__FILE__, __LINE__, "--max-iter \"%s\" accepted", counts[i]);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "example", "least-norm", "--max-iter",
                                  "9007199254740992", NULL}, NULL), 0); /* 2^53 */
    CHECK_INT(tcli_run((char *[]){(char *)bin, "example", "least-norm", "--max-iter", NULL},
                       NULL), 2);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "example", "least-norm", "--algorithm", "newton",
                                  NULL}, NULL), 2);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "example", "least-norm", "--algorithm", "irpg",
                                  "--step-rule", "line_search", NULL}, NULL), 2);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "example", "least-norm", "--projection", "full",
                                  NULL}, NULL), 2);
    /* the help documents every code */
    CHECK_INT(tcli_run((char *[]){(char *)bin, "--help", NULL}, tcli_tmp("help.txt")), 0);
    FILE *f = fopen(tcli_tmp("help.txt"), "r");
    REQUIRE(f != NULL);
    size_t n = fread(err, 1, sizeof err - 1, f);
    err[n] = '\0';
    fclose(f);
    CHECK(strstr(err, "\n  0 ") && strstr(err, "\n  2 ") && strstr(err, "\n  3 ") &&
          strstr(err, "\n  4 ") && strstr(err, "\n  130 "));
    CHECK(strstr(err, "build/data/ratings.dat") != NULL);
}

/* --ratings on an example that does not read it is a warning, not silence. */
TEST(spec_cli, ignored_options_warn)
{
    NEED_CLI();
    char err[2048];
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "example", "least-norm", "--ratings", "x.dat",
                                      NULL}, tcli_tmp("w.json"), err, sizeof err), 0);
    CHECK(strstr(err, "warning: --ratings is ignored by the least-norm example") != NULL);
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "example", "synthetic-movielens", "--ratings",
                                      "x.dat", NULL}, tcli_tmp("w.json"), err, sizeof err), 0);
    CHECK(strstr(err, "ignored by the synthetic-movielens example") != NULL);
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "example", "paper-movielens", "--ratings",
                                      "x.dat", NULL}, tcli_tmp("w.json"), err, sizeof err), 0);
    CHECK(strstr(err, "warning") == NULL);
}

/* x* = A^+ b of the least-norm example, by LAPACKE (minimum-norm dgelsd). */
static double *pinv_solution(int m, int n)
{
    double *A = NULL, *b = NULL, *x = calloc((size_t)n, sizeof *x), s[64];
    lapack_int rank = 0;
    if (!x || ircg_synth_least_squares(m, n, 0, 1, &A, &b, NULL) != IRCG_OK)
        goto fail;
    memcpy(x, b, (size_t)m * sizeof *x); /* dgelsd wants b in an n-long buffer */
    if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, m, n, 1, A, n, x, 1, s, -1.0, &rank) != 0)
        goto fail;
    free(A);
    free(b);
    return x;
fail:
    free(A);
    free(b);
    free(x);
    return NULL;
}

TEST(spec_cli, least_norm_approaches_pinv)
{
    NEED_CLI();
    char *spec = tcli_tmp("ln2.json"), *res = tcli_tmp("ln2_result.json"), *tr = tcli_tmp("ln2.csv");
    REQUIRE(tcli_run((char *[]){(char *)bin, "example", "least-norm", "--max-iter", "3000",
                           "--step-rule", "line_search", NULL}, spec) == 0);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", spec, "--result", res, "--trace", tr,
                             "--quiet", NULL}, NULL), 0);
    cJSON *j = tcli_read_json(res);
    REQUIRE(j != NULL);
    CHECK_INT(cJSON_GetObjectItem(j, "iterations")->valuedouble, 3000);
    const cJSON *z = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "z"), "values");
    REQUIRE(cJSON_GetArraySize(z) == 80);
    double *xs = pinv_solution(30, 80);
    REQUIRE(xs != NULL);
    double err = 0, nrm = 0;
    for (int i = 0; i < 80; i++) {
        double d = cJSON_GetArrayItem(z, i)->valuedouble - xs[i];
        err += d * d;
        nrm += xs[i] * xs[i];
    }
    printf("    ||z - A^+ b|| / ||A^+ b|| = %.3e after 3000 iterations\n", sqrt(err / nrm));
    CHECK(sqrt(err / nrm) < 0.1);
    CHECK_INT(tcli_count_lines(tr), 3001); /* header + every iteration */
    free(xs);
    cJSON_Delete(j);
}

/* The small synthetic instance (60 x 40 = 2400 entries) carries its
 * dense iterate by default; it must equal a0 X0 + sum_k w_k P_k Q_k'
 * rebuilt here from the factors of the same result. */
static double dense_gap(const cJSON *x)
{
    int n = (int)cJSON_GetObjectItem(x, "n_rows")->valuedouble;
    int p = (int)cJSON_GetObjectItem(x, "n_cols")->valuedouble;
    int k = (int)cJSON_GetObjectItem(x, "rank")->valuedouble;
    double a0 = cJSON_GetObjectItem(x, "a0")->valuedouble;
    const cJSON *d0 = cJSON_GetObjectItem(x, "x0_diag");
    const cJSON *w = cJSON_GetObjectItem(x, "w"), *P = cJSON_GetObjectItem(x, "P");
    const cJSON *Q = cJSON_GetObjectItem(x, "Q"), *D = cJSON_GetObjectItem(x, "dense");
    const cJSON *dv = cJSON_GetObjectItem(d0, "value"), *dvs = cJSON_GetObjectItem(d0, "values");
    if (!cJSON_IsArray(D) || cJSON_GetArraySize(D) != n || cJSON_GetArraySize(P) != k)
        return INFINITY;
    double worst = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *row = cJSON_GetArrayItem(D, i);
        if (cJSON_GetArraySize(row) != p)
            return INFINITY;
        for (int j = 0; j < p; j++) {
            double v = 0;
            if (i == j) /* X0 is diagonal */
                v = a0 * (dv ? dv->valuedouble : cJSON_GetArrayItem(dvs, i)->valuedouble);
            for (int t = 0; t < k; t++)
                v += cJSON_GetArrayItem(w, t)->valuedouble *
                     cJSON_GetArrayItem(cJSON_GetArrayItem(P, t), i)->valuedouble *
                     cJSON_GetArrayItem(cJSON_GetArrayItem(Q, t), j)->valuedouble;
            double e = fabs(v - cJSON_GetArrayItem(row, j)->valuedouble);
            worst = e > worst ? e : worst;
        }
    }
    return worst;
}

TEST(spec_cli, synthetic_movielens_small)
{
    NEED_CLI();
    char *spec = tcli_tmp("sm.json"), *res = tcli_tmp("sm_result.json");
    REQUIRE(tcli_run((char *[]){(char *)bin, "example", "synthetic-movielens", "--size", "small",
                                "--max-iter", "50", NULL}, spec) == 0);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", spec, "--result", res, "--quiet", NULL},
                       NULL), 0);
    cJSON *j = tcli_read_json(res);
    REQUIRE(j != NULL);
    CHECK_STR(cJSON_GetObjectItem(j, "status")->valuestring, "max_iter");
    CHECK_STR(cJSON_GetObjectItem(j, "algorithm")->valuestring, "ircg");
    const cJSON *x = cJSON_GetObjectItem(j, "x");
    CHECK_STR(cJSON_GetObjectItem(x, "kind")->valuestring, "factored");
    CHECK_INT(cJSON_GetObjectItem(x, "n_rows")->valuedouble, 60);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(x, "P")) ==
          (int)cJSON_GetObjectItem(x, "rank")->valuedouble);
    double gx = dense_gap(x), gz = dense_gap(cJSON_GetObjectItem(j, "z"));
    printf("    dense vs factors: max |diff| %.3e (x), %.3e (z)\n", gx, gz);
    CHECK(gx < 1e-12 && gz < 1e-12);
    cJSON_Delete(j);
}

/* The paper's experiment, a few iterations: needs the MovieLens ratings
 * decompressed by `make data`. */
TEST(spec_cli, paper_movielens_end_to_end)
{
    NEED_CLI();
    char ratings[1024], cwd[1024], want[2100];
    snprintf(ratings, sizeof ratings, "%s/data/ratings.dat", getenv("IRCG_BUILD_DIR"));
    char *spec = tcli_tmp("paper.json"), *res = tcli_tmp("paper_result.json");
    char *tr = tcli_tmp("paper.csv"), *def = tcli_tmp("paper_default.json");
    /* the default path is build/data/ratings.dat, made absolute */
    REQUIRE(tcli_run((char *[]){(char *)bin, "example", "paper-movielens", NULL}, def) == 0);
    cJSON *d = tcli_read_json(def);
    REQUIRE(d != NULL && getcwd(cwd, sizeof cwd));
    snprintf(want, sizeof want, "%s/build/data/ratings.dat", cwd);
    const cJSON *pb = cJSON_GetObjectItem(d, "problem");
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(pb, "data"), "path")->valuestring, want);
    /* the paper's parameters */
    const cJSON *al = cJSON_GetObjectItem(d, "algorithm"), *rf = cJSON_GetObjectItem(d, "reference");
    CHECK(cJSON_GetObjectItem(pb, "delta")->valuedouble == 5);
    /* relative 0.05: L_g = L_f = 1 here, so the paper's absolute 0.05 */
    CHECK(cJSON_GetObjectItem(al, "varsigma_rel") &&
          cJSON_GetObjectItem(al, "varsigma_rel")->valuedouble == 0.05);
    CHECK(cJSON_GetObjectItem(al, "p")->valuedouble == 0.5);
    CHECK_STR(cJSON_GetObjectItem(al, "start")->valuestring, "default");
    CHECK(cJSON_GetObjectItem(al, "time_limit")->valuedouble == 600);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(rf, "compute")));
    CHECK(cJSON_GetObjectItem(rf, "tol")->valuedouble == 1e-9);
    cJSON_Delete(d);
    NEED_MOVIELENS("ratings.dat", ratings);
    REQUIRE(tcli_run((char *[]){(char *)bin, "example", "paper-movielens", "--ratings", ratings,
                                "--max-iter", "3", NULL}, spec) == 0);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", spec, "--result", res, "--trace", tr,
                                  "--quiet", NULL}, NULL), 0);
    cJSON *j = tcli_read_json(res);
    REQUIRE(j != NULL);
    CHECK_STR(cJSON_GetObjectItem(j, "status")->valuestring, "max_iter");
    CHECK_INT(cJSON_GetObjectItem(j, "iterations")->valuedouble, 3);
    const cJSON *ref = cJSON_GetObjectItem(j, "reference");
    REQUIRE(cJSON_IsObject(ref));
    double g_opt = cJSON_GetObjectItem(j, "g_opt")->valuedouble;
    double rgap = cJSON_GetObjectItem(ref, "gap")->valuedouble;
    CHECK(g_opt == cJSON_GetObjectItem(ref, "g_opt")->valuedouble);
    /* g(x) >= g_opt - gap (the reference's certificate), up to rounding */
    CHECK(cJSON_GetObjectItem(j, "g_x")->valuedouble >= g_opt - rgap - 1e-6);
    const cJSON *x = cJSON_GetObjectItem(j, "x");
    CHECK_INT(cJSON_GetObjectItem(x, "n_rows")->valuedouble, 6040);
    CHECK(cJSON_GetObjectItem(x, "dense") == NULL); /* far above 10^4 entries */
    CHECK_INT(tcli_count_lines(tr), 4);              /* header + 3 rows */
    printf("    MovieLens: g_opt %.10g (reference %s, gap %.2e), g(x_3) %.10g\n", g_opt,
           cJSON_GetObjectItem(ref, "status")->valuestring, rgap,
           cJSON_GetObjectItem(j, "g_x")->valuedouble);
    cJSON_Delete(j);
}

/* --algorithm irpg / bisg on least norm: they run, the result and the
 * progress name them, and Bi-SG's feasible x stays in the l2 ball. */
TEST(spec_cli, algorithm_overrides)
{
    NEED_CLI();
    const char *algs[] = {"irpg", "bisg"};
    for (int a = 0; a < 2; a++) {
        char *spec = tcli_tmp("alg.json"), *res = tcli_tmp("alg_result.json");
        char err[8192];
        REQUIRE(tcli_run((char *[]){(char *)bin, "example", "least-norm", "--algorithm",
                                    (char *)algs[a], "--projection", "full", "--max-iter", "40",
                                    NULL}, spec) == 0);
        CHECK_INT(tcli_run_err((char *[]){(char *)bin, "solve", spec, "--result", res, NULL},
                               NULL, err, sizeof err), 0);
        char line[64];
        snprintf(line, sizeof line, "\n%s iter ", algs[a]);
        CHECK(strstr(err, line) != NULL);
        snprintf(line, sizeof line, "solving with %s (full projections)", algs[a]);
        CHECK(strstr(err, line) != NULL);
        snprintf(line, sizeof line, "%s: max_iter after 40 iterations", algs[a]);
        CHECK(strstr(err, line) != NULL);
        cJSON *j = tcli_read_json(res);
        REQUIRE(j != NULL);
        CHECK_STR(cJSON_GetObjectItem(j, "algorithm")->valuestring, algs[a]);
        CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "projections"), "mode")->valuestring,
                  "full");
        cJSON *sp = tcli_read_json(spec);
        REQUIRE(sp != NULL);
        double r = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(sp, "problem"),
                                                           "domain"), "radius")->valuedouble;
        const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "x"), "values");
        double nrm = 0;
        for (int i = 0; i < cJSON_GetArraySize(v); i++)
            nrm += cJSON_GetArrayItem(v, i)->valuedouble * cJSON_GetArrayItem(v, i)->valuedouble;
        CHECK(sqrt(nrm) <= r * (1 + 1e-12));
        cJSON_Delete(sp);
        cJSON_Delete(j);
    }
}

/* Reference first, then the solve: result carries g_opt and the gaps;
 * a .jsonl trace is JSON lines. */
TEST(spec_cli, reference_and_jsonl_trace)
{
    NEED_CLI();
    char *spec = tcli_tmp("ref.json"), *res = tcli_tmp("ref_result.json"), *tr = tcli_tmp("ref.jsonl");
    FILE *f = fopen(spec, "w");
    REQUIRE(f != NULL);
    fputs("{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"synthetic\",\"m\":8,"
          "\"n\":20},\"domain\":{\"type\":\"l1_ball\",\"radius\":2}},\"algorithm\":{\"max_iter\":"
          "40},\"reference\":{\"compute\":true,\"tol\":1e-8}}", f);
    fclose(f);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", spec, "--result", res, "--trace", tr,
                             "--quiet", NULL}, NULL), 0);
    cJSON *j = tcli_read_json(res);
    REQUIRE(j != NULL);
    const cJSON *ref = cJSON_GetObjectItem(j, "reference");
    REQUIRE(cJSON_IsObject(ref));
    double g_opt = cJSON_GetObjectItem(j, "g_opt")->valuedouble;
    CHECK(g_opt == cJSON_GetObjectItem(ref, "g_opt")->valuedouble);
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(j, "g_gap_x")));
    CHECK(cJSON_GetObjectItem(j, "g_x")->valuedouble >= g_opt - 1e-6);
    cJSON_Delete(j);
    FILE *t = fopen(tr, "r");
    REQUIRE(t != NULL);
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, t)) {
        cJSON *row = cJSON_Parse(line);
        CHECK(row != NULL && cJSON_IsNumber(cJSON_GetObjectItem(row, "g_gap_x")));
        cJSON_Delete(row);
        n++;
    }
    fclose(t);
    CHECK_INT(n, 40);
}

/* The format of `ircg example paper-movielens --ratings FILE` comes from the
 * file: MovieLens "::", u.data tabs, CSV; garbage is refused (exit 2) with
 * the file and the line named; a file that cannot be read yet gets "auto". */
TEST(spec_cli, paper_example_reads_the_format_off_the_file)
{
    NEED_CLI();
    static const struct { const char *name, *text, *want; } CASES[] = {
        {"ml.dat", "1::2::5::978300760\n", "movielens"},
        {"u.data", "196\t242\t3\t881250949\n", "udata"},
        {"r.csv", "user,item,rating\n1,2,4.5\n", "csv"},
        {"r.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 3\n",
         "matrix_market"},
        {"absent.dat", NULL, "auto"},
    };
    char err[2048];
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char *path = tcli_tmp(CASES[i].name), *out = tcli_tmp("fmt.json");
        if (CASES[i].text)
            REQUIRE(tcli_write(path, CASES[i].text) == 0);
        else
            unlink(path);
        CHECK_INT(tcli_run((char *[]){(char *)bin, "example", "paper-movielens", "--ratings",
                                      path, NULL}, out), 0);
        cJSON *j = tcli_read_json(out);
        const cJSON *d = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "problem"), "data");
        const cJSON *f = cJSON_GetObjectItem(d, "format");
        if (!cJSON_IsString(f) || strcmp(f->valuestring, CASES[i].want))
            th_fail(__FILE__, __LINE__, "%s: format %s, expected %s", CASES[i].name,
                    cJSON_IsString(f) ? f->valuestring : "(none)", CASES[i].want);
        cJSON_Delete(j);
    }
    char *bad = tcli_tmp("bad.dat");
    REQUIRE(tcli_write(bad, "\n1 2 3 4\n") == 0);
    CHECK_INT(tcli_run_err((char *[]){(char *)bin, "example", "paper-movielens", "--ratings",
                                      bad, NULL}, tcli_tmp("bad.json"), err, sizeof err), 2);
    CHECK(strstr(err, "bad.dat: line 2: cannot detect the format") != NULL);
}

/* The literature's examples: each validates on synthetic data of its
 * shape, and solves (a short run) with its own method and the others that
 * take its family; logistic-a1a reads a LIBSVM file given with --data
 * (Debian's heart_scale here, `make deps` installs it), fair-a9a's
 * quadratic outer is 2cc' (rank one: Q_11 Q_22 = Q_12^2), and the
 * stochastic methods are refused for matrix completion (usage, 2). */
TEST(spec_cli, literature_examples)
{
    NEED_CLI();
    static const char *const names[] = {"overparam-stochastic", "min-norm-msd", "logistic-a1a",
                                        "fair-a9a"};
    char *spec = tcli_tmp("lit.json"), *res = tcli_tmp("lit-r.json");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        CHECK_INT(tcli_run((char *[]){(char *)bin, "example", (char *)names[i], "--size", "small",
                                      "--max-iter", "200", NULL}, spec), 0);
        CHECK_INT(tcli_run((char *[]){(char *)bin, "validate", spec, NULL}, NULL), 0);
        CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", spec, "--result", res, "--quiet",
                                      NULL}, NULL), 0);
        cJSON *r = tcli_read_json(res);
        CHECK(r && cJSON_GetObjectItem(r, "certificate") &&
              cJSON_GetObjectItem(r, "samples") &&
              cJSON_GetNumberValue(cJSON_GetObjectItem(r, "iterations")) == 200);
        cJSON_Delete(r);
    }
    /* --data: a real LIBSVM file */
    const char *heart = "/usr/share/doc/liblinear-tools/examples/heart_scale";
    REQUIRE(access(heart, R_OK) == 0); /* make deps installs liblinear-tools */
    CHECK_INT(tcli_run((char *[]){(char *)bin, "example", "logistic-a1a", "--data", (char *)heart,
                                  "--max-iter", "300", NULL}, spec), 0);
    char *text = tcli_read_text(spec);
    CHECK(text && strstr(text, "\"format\":\t\"libsvm\"") && strstr(text, heart));
    free(text);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", spec, "--result", res, "--quiet", NULL},
                       NULL), 0);
    cJSON *r = tcli_read_json(res);
    cJSON *x = r ? cJSON_GetObjectItem(r, "x") : NULL;
    CHECK(x && cJSON_GetNumberValue(cJSON_GetObjectItem(x, "n")) == 13);
    CHECK(r && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "algorithm")), "ir-scg"));
    cJSON_Delete(r);
    /* fair-a9a: Q = 2 c c' */
    CHECK_INT(tcli_run((char *[]){(char *)bin, "example", "fair-a9a", "--size", "small", NULL},
                       spec), 0);
    cJSON *s = tcli_read_json(spec);
    cJSON *Q = s ? cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(s, "problem"),
                                                           "outer"), "Q") : NULL;
    REQUIRE(Q && cJSON_GetArraySize(Q) == 123);
    double q11 = cJSON_GetArrayItem(cJSON_GetArrayItem(Q, 71), 71)->valuedouble;
    double q22 = cJSON_GetArrayItem(cJSON_GetArrayItem(Q, 0), 0)->valuedouble;
    double q12 = cJSON_GetArrayItem(cJSON_GetArrayItem(Q, 71), 0)->valuedouble;
    CHECK(q11 > 0);
    CHECK_REL(q11 * q22, q12 * q12, 1e-12, 1e-300);
    cJSON_Delete(s);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "example", "synthetic-movielens", "--algorithm",
                                  "ir-scg", NULL}, NULL), 2);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "example", "logistic", "--algorithm", "cgbio",
                                  NULL}, NULL), 2);
}

/* The least-norm example's spec with its algorithm replaced by alg (JSON),
 * written to path; 0 on success. */
static int least_norm_with(const char *bin, const char *path, const char *alg)
{
    if (tcli_run((char *[]){(char *)bin, "example", "least-norm", NULL}, path) != 0)
        return -1;
    cJSON *s = tcli_read_json(path), *a = cJSON_Parse(alg);
    char *text = NULL;
    int rc = -1;
    if (s && a && cJSON_ReplaceItemInObject(s, "algorithm", a)) {
        a = NULL;
        text = cJSON_Print(s);
        rc = text ? tcli_write(path, text) : -1;
    }
    free(text);
    cJSON_Delete(a);
    cJSON_Delete(s);
    return rc;
}

/* g(x) = 1/2 ||A x - b||^2 and f(x) = 1/2 ||x||^2 of the result's x, from
 * the example's own data (30 x 80, seed 1), in long double. */
static void least_norm_values(const cJSON *res, double *g, double *f)
{
    double *A = NULL, *b = NULL, x[80];
    const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "x"), "values");
    long double fs = 0;
    *g = *f = NAN;
    if (cJSON_GetArraySize(v) != 80 ||
        ircg_synth_least_squares(30, 80, 0, 1, &A, &b, NULL) != IRCG_OK)
        goto done;
    for (int j = 0; j < 80; j++) {
        x[j] = cJSON_GetArrayItem(v, j)->valuedouble;
        fs += 0.5L * x[j] * x[j];
    }
    *g = cert_g(&(cert_data){.A = A, .b = b, .m = 30, .n = 80}, x);
    *f = (double)fs;
done:
    free(A);
    free(b);
}

static int has_warning(const cJSON *res, const char *code)
{
    const cJSON *w = NULL;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(res, "warnings"))
        if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(w, "code")), code))
            return 1;
    return 0;
}

/* Solve alg on least norm: its exit status, the result into *res. */
static int least_norm_solve(const char *bin, const char *alg, cJSON **res, char *err, size_t n)
{
    char *spec = tcli_tmp("stop.json"), *out = tcli_tmp("stop-r.json");
    *res = NULL;
    if (least_norm_with(bin, spec, alg) != 0)
        return -1;
    unlink(out);
    int rc = tcli_run_err((char *[]){(char *)bin, "solve", spec, "--result", out, "--quiet",
                                     NULL}, NULL, err, n);
    *res = tcli_read_json(out);
    return rc;
}

/* The certificate's f lower bound, or NaN. */
static double f_lower_of(const cJSON *res)
{
    const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "certificate"), "f_lower");
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Solve alg on least norm to a certified stop: its iterations (-1 when it
 * did not converge) and the result into *res. */
static double stopped_at(const char *bin, const char *alg, cJSON **res)
{
    char err[8192];
    CHECK_INT(least_norm_solve(bin, alg, res, err, sizeof err), 0);
    if (!*res)
        return -1;
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(*res, "status")), "converged");
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(*res, "warnings")) == 0);
    double t = cJSON_GetNumberValue(cJSON_GetObjectItem(*res, "iterations"));
    return t < 100000 ? t : -1;
}

/* The certified stop keeps its promises against the closed forms of least
 * norm (A has full row rank: g* = 0 and the solution A^+ b, inside the
 * ball): stop.inner_gap alone ends the solve with g(x) <= inner_gap, and
 * stop.outer_gap_rel with f(x) - f_lower <= 1e-4 max(|f(x)|, |f_lower|)
 * for f(x) recomputed here and f_lower <= f*; it ends the solve later than
 * its inner tolerance alone does, so the outer one was waited for (alone
 * it would end the solve at x0 = 0, which minimizes f). */
TEST(spec_cli, certified_stop_on_least_norm)
{
    NEED_CLI();
    cJSON *r = NULL;
    double g, f, *xs = pinv_solution(30, 80), fstar = 0;
    REQUIRE(xs != NULL);
    for (int i = 0; i < 80; i++)
        fstar += 0.5 * xs[i] * xs[i];
    free(xs);
    double t = stopped_at(bin, "{\"name\":\"ircg\",\"step_rule\":\"line_search\",\"max_iter\":100000,"
                          "\"certify_every\":10,\"stop\":{\"inner_gap\":1e-3}}", &r);
    REQUIRE(r != NULL);
    least_norm_values(r, &g, &f);
    printf("    inner_gap 1e-3: converged at %g, g(x) - g* = %.3e\n", t, g);
    CHECK(t > 0 && g <= 1e-3);
    cJSON_Delete(r);
    double t_inner = stopped_at(bin, "{\"name\":\"ircg\",\"step_rule\":\"line_search\",\"max_iter\":100000,"
                                "\"certify_every\":10,\"stop\":{\"inner_gap_rel\":1e-3}}", &r);
    cJSON_Delete(r);
    t = stopped_at(bin, "{\"name\":\"ircg\",\"step_rule\":\"line_search\",\"max_iter\":100000,"
                   "\"certify_every\":10,\"stop\":{\"inner_gap_rel\":1e-3,"
                   "\"outer_gap_rel\":1e-4}}", &r);
    REQUIRE(r != NULL);
    least_norm_values(r, &g, &f);
    double fl = f_lower_of(r), rel = (f - fl) / fmax(fabs(f), fabs(fl));
    printf("    outer_gap_rel 1e-4: converged at %g (inner_gap_rel alone: %g), f(x) - f_lower "
           "= %.3e of max(|f(x)|, |f_lower|), f* - f_lower = %.3e (f* = %.6g)\n", t, t_inner,
           rel, fstar - fl, fstar);
    CHECK(t_inner > 0 && t > t_inner);
    CHECK(fl <= fstar && rel <= 1e-4);
    cJSON_Delete(r);
}

/* A max_iter run exits 0 with or without warnings; each warning of the
 * result is printed on stderr, as its sentence, even with --quiet. */
TEST(spec_cli, warnings_on_stderr_do_not_change_the_exit_status)
{
    NEED_CLI();
    static const char *const ALGS[] = {
        /* long enough to solve g: no warning */
        "{\"name\":\"ircg\",\"step_rule\":\"line_search\",\"max_iter\":2000}",
        /* an outer tolerance out of reach: outer_unsolved (the inner one, met
         * early, keeps the outer one alone from ending the solve at x0 = 0,
         * the minimum of f) */
        "{\"name\":\"ircg\",\"step_rule\":\"line_search\",\"max_iter\":200,\"stop\":{\"inner_gap_rel\":0.5,"
        "\"outer_gap_rel\":1e-12}}",
        /* no certificate: uncertified */
        "{\"name\":\"ircg\",\"step_rule\":\"line_search\",\"max_iter\":2000,\"certify\":false}"};
    for (int k = 0; k < 3; k++) {
        char err[16384], line[600];
        cJSON *r = NULL;
        CHECK_INT(least_norm_solve(bin, ALGS[k], &r, err, sizeof err), 0);
        REQUIRE(r != NULL);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "max_iter");
        const cJSON *ws = cJSON_GetObjectItem(r, "warnings"), *w = NULL;
        CHECK_INT(cJSON_GetArraySize(ws), k == 0 ? 0 : 1);
        CHECK(k != 1 || has_warning(r, "outer_unsolved"));
        CHECK(k != 2 || has_warning(r, "uncertified"));
        int printed = 0;
        for (const char *p = err; (p = strstr(p, "ircg: warning: ")); p++)
            printed++;
        CHECK_INT(printed, cJSON_GetArraySize(ws));
        cJSON_ArrayForEach(w, ws) {
            snprintf(line, sizeof line, "ircg: warning: %s\n",
                     cJSON_GetStringValue(cJSON_GetObjectItem(w, "message")));
            if (!strstr(err, line))
                th_fail(__FILE__, __LINE__, "run %d: stderr lacks \"%s\":\n%s", k, line, err);
            else
                printf("    %s", line);
        }
        cJSON_Delete(r);
    }
}

/* A trace's rows without their clock columns (elapsed, lmo_seconds): the
 * text of every other cell, row after row; NULL when unreadable. */
static char *trace_without_clocks(const char *path)
{
    char *text = tcli_read_text(path), *out = text ? malloc(strlen(text) + 1) : NULL;
    size_t o = 0;
    if (!out) {
        free(text);
        return NULL;
    }
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        int col = 0;
        for (char *p = line; *p; p++) {
            if (*p == ',') {
                col++;
                out[o++] = ',';
                continue;
            }
            if (col != 1 && col != 11) /* the header says which */
                out[o++] = *p;
        }
        out[o++] = '\n';
    }
    out[o] = 0;
    free(text);
    return out;
}

/* ircg solve takes the machine for matrix completion: with no threads in
 * the spec, every core, the certificates made in place; a spec naming one
 * core fewer gets its certificates on that core, beside the iterations,
 * and the trace and the result are the same but for the clocks. */
TEST(spec_cli, matrix_completion_takes_the_cores)
{
    NEED_CLI();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    char *spec = tcli_tmp("mt.json"), *named = tcli_tmp("mt_named.json");
    char *ra = tcli_tmp("mt_a.json"), *rb = tcli_tmp("mt_b.json");
    char *ta = tcli_tmp("mt_a.csv"), *tb = tcli_tmp("mt_b.csv");
    REQUIRE(cores >= 1);
    REQUIRE(tcli_run((char *[]){(char *)bin, "example", "synthetic-movielens", "--size", "small",
                                "--max-iter", "40", NULL}, spec) == 0);
    cJSON *s = tcli_read_json(spec);
    REQUIRE(s != NULL);
    cJSON *alg = cJSON_GetObjectItem(s, "algorithm");
    REQUIRE(cJSON_GetObjectItem(alg, "threads") == NULL); /* the example names none */
    long fewer = cores > 65 ? 64 : cores > 1 ? cores - 1 : 1; /* a spec's at most 64 */
    cJSON_AddNumberToObject(alg, "threads", (double)fewer);
    char *text = cJSON_Print(s);
    REQUIRE(text && tcli_write(named, text) == 0);
    free(text);
    cJSON_Delete(s);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", spec, "--result", ra, "--trace", ta,
                                  "--quiet", NULL}, NULL), 0);
    CHECK_INT(tcli_run((char *[]){(char *)bin, "solve", named, "--result", rb, "--trace", tb,
                                  "--quiet", NULL}, NULL), 0);
    cJSON *a = tcli_read_json(ra), *b = tcli_read_json(rb);
    REQUIRE(a && b);
    const cJSON *ca = cJSON_GetObjectItem(a, "certificate"), *cb = cJSON_GetObjectItem(b, "certificate");
    REQUIRE(cJSON_IsObject(ca) && cJSON_IsObject(cb));
    CHECK_INT(cJSON_GetObjectItem(a, "threads")->valuedouble, cores > 64 ? 64 : cores);
    CHECK_INT(cJSON_GetObjectItem(b, "threads")->valuedouble, fewer);
    CHECK(cJSON_GetObjectItem(ca, "thread_seconds")->valuedouble == 0);
    CHECK((cJSON_GetObjectItem(cb, "thread_seconds")->valuedouble > 0) == (fewer < cores));
    const char *same[] = {"g_x", "f_x", "g_z", "f_z", "gap"}, *bounds[] = {
        "g_lower", "g_upper", "f_lower", "inner_gap_x", "inner_gap_z", "count"};
    for (size_t k = 0; k < sizeof same / sizeof *same; k++)
        CHECK(cJSON_GetObjectItem(a, same[k])->valuedouble ==
              cJSON_GetObjectItem(b, same[k])->valuedouble);
    for (size_t k = 0; k < sizeof bounds / sizeof *bounds; k++)
        CHECK(cJSON_GetObjectItem(ca, bounds[k])->valuedouble ==
              cJSON_GetObjectItem(cb, bounds[k])->valuedouble);
    char *xa = trace_without_clocks(ta), *xb = trace_without_clocks(tb);
    REQUIRE(xa && xb);
    CHECK(strncmp(xa, "t,,sigma", 8) == 0); /* the columns dropped: elapsed, lmo_seconds */
    CHECK_INT(tcli_count_lines(ta), 41);
    CHECK(strcmp(xa, xb) == 0);
    free(xa);
    free(xb);
    cJSON_Delete(a);
    cJSON_Delete(b);
}
