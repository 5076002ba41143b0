/*
 * cmd_example.c -- `ircg example NAME`: ready-made specs.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>
#include <lapacke.h>

#include "cli.h"
#include "example.h"
#include "ircg.h"
#include "spec.h"

/* Where `make data` puts the decompressed MovieLens 1M ratings. */
#define DEFAULT_RATINGS "build/data/ratings.dat"

/* A relative ratings path is made absolute against the current directory,
 * so the printed spec works wherever it is saved. */
static char *absolute(const char *path)
{
    char cwd[PATH_MAX], *out = malloc(2 * PATH_MAX + 2);
    if (!out)
        return NULL;
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(out, 2 * PATH_MAX + 2, "%s", path);
    else
        snprintf(out, 2 * PATH_MAX + 2, "%s/%s", cwd, path);
    return out;
}

/* Only the members that apply to the chosen algorithm (the others are
 * errors in a spec). */
cJSON *ex_algorithm_default(const ex_opts *o, const char *def, long long max_iter,
                            double time_limit)
{
    const char *name = o->algorithm ? o->algorithm : def;
    int ircg = !strcmp(name, "ircg"), irpg = !strcmp(name, "irpg");
    int scg = !strcmp(name, "ir-scg"), fscg = !strcmp(name, "ir-fscg");
    int aims = !strcmp(name, "fcbio") || !strcmp(name, "fcbio-cg") ||
               !strcmp(name, "two-stage") || !strcmp(name, "auto");
    cJSON *a = cJSON_CreateObject();
    cJSON_AddStringToObject(a, "name", name);
    if (aims) { /* the methods that aim at a stated accuracy: no iteration cap */
        cJSON *st = cJSON_AddObjectToObject(a, "stop");
        cJSON_AddNumberToObject(st, "inner_gap_rel", IRCG_BISECT_INNER_REL);
        cJSON_AddNumberToObject(st, "outer_gap_rel", IRCG_BISECT_OUTER_REL);
        cJSON_AddStringToObject(a, "start", "default");
        if (o->max_iter)
            cJSON_AddNumberToObject(a, "max_iter", (double)o->max_iter);
        cJSON_AddNumberToObject(a, "time_limit", time_limit);
        return a;
    }
    if (ircg)
        cJSON_AddStringToObject(a, "step_rule", o->step_rule ? o->step_rule : "open_loop");
    if (ircg || irpg || scg || fscg) { /* sigma_t = 0.05 (L_g / L_f) (t+1)^-p: the
                                          paper's on matrix completion, where
                                          L_g = L_f = 1; IR-SCG's p is its
                                          theorem's 1/4 */
        cJSON_AddNumberToObject(a, "varsigma_rel", 0.05);
        cJSON_AddNumberToObject(a, "p", scg ? 0.25 : 0.5);
    }
    if (scg || fscg)
        cJSON_AddNumberToObject(a, "seed", 1);
    if (o->projection)
        cJSON_AddStringToObject(a, "projection", o->projection);
    cJSON_AddStringToObject(a, "start", "default");
    cJSON_AddNumberToObject(a, "max_iter", (double)(o->max_iter ? o->max_iter : max_iter));
    cJSON_AddNumberToObject(a, "time_limit", time_limit);
    return a;
}

cJSON *ex_algorithm(const ex_opts *o, long long max_iter, double time_limit)
{
    return ex_algorithm_default(o, "ircg", max_iter, time_limit);
}

/* The spec's name of the format of the ratings file, read off its head by
 * the reader's own probe; "auto" (detected when the spec is solved) when
 * the file cannot be read now; NULL after a message when its head does
 * not parse. */
static const char *ratings_format(const char *path)
{
    ircg_ratings_probe pr;
    ircg_diag diag = {0};
    ircg_error e = ircg_ratings_probe_file(path, NULL, &pr, &diag);
    if (e == IRCG_ERR_IO) {
        fprintf(stderr, "ircg: note: %s cannot be read now; its format is left to "
                "\"auto\" (detected when the spec is solved)\n", path);
        return "auto";
    }
    if (e != IRCG_OK) {
        fprintf(stderr, "ircg: %s: %s\n", path, diag.message);
        return NULL;
    }
    return api_format_name(pr.format);
}

/* The paper's experiment (Section 4): MovieLens 1M, delta 5, varsigma
 * 0.05, p 1/2, its X0, 600 s, with g_opt computed first for the gaps. */
static cJSON *paper_movielens(const ex_opts *o, int *invalid)
{
    const char *fmt = ratings_format(o->ratings ? o->ratings : DEFAULT_RATINGS);
    if (!fmt) {
        *invalid = 1;
        return NULL;
    }
    cJSON *root = cJSON_CreateObject();
    cJSON *pb = cJSON_AddObjectToObject(root, "problem");
    cJSON_AddStringToObject(pb, "type", "matrix_completion");
    cJSON *d = cJSON_AddObjectToObject(pb, "data");
    char *path = absolute(o->ratings ? o->ratings : DEFAULT_RATINGS);
    cJSON_AddStringToObject(d, "source", "file");
    cJSON_AddStringToObject(d, "path", path ? path : "ratings.dat");
    cJSON_AddStringToObject(d, "format", fmt);
    free(path);
    cJSON_AddNumberToObject(pb, "delta", 5);
    cJSON_AddStringToObject(pb, "outer", "column_variance");
    cJSON_AddItemToObject(root, "algorithm", ex_algorithm(o, 1000000, 600));
    cJSON *r = cJSON_AddObjectToObject(root, "reference");
    cJSON_AddBoolToObject(r, "compute", 1);
    cJSON_AddNumberToObject(r, "tol", 1e-9);
    return root;
}

/* MovieLens-1M-sized synthetic ratings (or a small one for tests). */
static cJSON *synthetic_movielens(const ex_opts *o)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *pb = cJSON_AddObjectToObject(root, "problem");
    cJSON_AddStringToObject(pb, "type", "matrix_completion");
    cJSON *d = cJSON_AddObjectToObject(pb, "data");
    cJSON_AddStringToObject(d, "source", "synthetic");
    cJSON_AddNumberToObject(d, "n_rows", o->small ? 60 : 6040);
    cJSON_AddNumberToObject(d, "n_cols", o->small ? 40 : 3952);
    cJSON_AddNumberToObject(d, "rank", o->small ? 3 : 10);
    cJSON_AddNumberToObject(d, "n_ratings", o->small ? 600 : 1000209);
    cJSON_AddNumberToObject(d, "min_rating", 1);
    cJSON_AddNumberToObject(d, "max_rating", 5);
    cJSON_AddNumberToObject(d, "noise", 0.5);
    cJSON_AddNumberToObject(d, "seed", 1);
    cJSON_AddNumberToObject(pb, "delta", 5);
    cJSON_AddStringToObject(pb, "outer", "column_variance");
    cJSON_AddItemToObject(root, "algorithm", ex_algorithm(o, o->small ? 200 : 1000000,
                                                       o->small ? 60 : 600));
    return root;
}

int ex_min_norm(int m, int n, double noise, uint64_t seed, double *l2, double *l1)
{
    double *A = NULL, *b = NULL;
    double *G = malloc((size_t)m * (size_t)m * sizeof *G);
    int ok = G && ircg_synth_least_squares(m, n, noise, seed, &A, &b, NULL) == IRCG_OK;
    for (int i = 0; ok && i < m; i++)
        for (int j = 0; j < m; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += A[(size_t)i * n + k] * A[(size_t)j * n + k];
            G[(size_t)i * m + j] = s;
        }
    ok = ok && LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', m, 1, G, m, b, 1) == 0;
    *l2 = *l1 = 0; /* b now holds y = (AA')^{-1} b: the norms of A'y */
    for (int k = 0; ok && k < n; k++) {
        double s = 0;
        for (int i = 0; i < m; i++)
            s += A[(size_t)i * n + k] * b[i];
        *l2 += s * s;
        *l1 += fabs(s);
    }
    *l2 = sqrt(*l2);
    free(G);
    free(A);
    free(b);
    return ok;
}

double ex_round_up(double x)
{
    double scale = pow(10, floor(log10(x)) - 1);
    return ceil(x / scale) * scale;
}

/* Underdetermined least squares with f = 1/2||x||^2: the solution is the
 * least-norm solution A^+ b when the l2 ball contains it. */
static cJSON *least_norm(const ex_opts *o)
{
    int m = o->small ? 10 : 30, n = o->small ? 25 : 80;
    double r = NAN, r1;
    if (!ex_min_norm(m, n, 0, 1, &r, &r1))
        r = NAN;
    cJSON *root = cJSON_CreateObject();
    cJSON *pb = cJSON_AddObjectToObject(root, "problem");
    cJSON_AddStringToObject(pb, "type", "least_squares");
    cJSON *d = cJSON_AddObjectToObject(pb, "data");
    cJSON_AddStringToObject(d, "source", "synthetic");
    cJSON_AddNumberToObject(d, "m", m);
    cJSON_AddNumberToObject(d, "n", n);
    cJSON_AddNumberToObject(d, "noise", 0);
    cJSON_AddNumberToObject(d, "seed", 1);
    cJSON *dm = cJSON_AddObjectToObject(pb, "domain");
    cJSON_AddStringToObject(dm, "type", "l2_ball");
    /* a radius of about 1.5 ||A^+ b||, rounded up to 2 significant digits */
    cJSON_AddNumberToObject(dm, "radius", ex_round_up(isfinite(r) && r > 0 ? 1.5 * r : 10));
    cJSON *of = cJSON_AddObjectToObject(pb, "outer");
    cJSON_AddStringToObject(of, "type", "half_norm_sq");
    cJSON_AddItemToObject(root, "algorithm", ex_algorithm(o, 2000, 60));
    return root;
}

static int one_of(const char *v, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(v, *names))
            return 1;
    return 0;
}

static const char EXAMPLE_USAGE[] =
    "usage: ircg example NAME [--ratings PATH] [--data PATH]\n"
    "         [--algorithm ircg|cgbio|irpg|bisg|ir-scg|ir-fscg|fcbio|fcbio-cg|\n"
    "                      two-stage|auto]\n"
    "         [--step-rule open_loop|closed_loop|line_search] [--projection partial|full]\n"
    "         [--max-iter N] [--size small|full]\n"
    "       ircg example --list\n"
    "NAME: paper-movielens (ratings from --ratings PATH, default " DEFAULT_RATINGS
    ",\n      which `make data` creates), synthetic-movielens, least-norm,\n"
    "      overparam-regression, logistic, portfolio, overparam-stochastic,\n"
    "      min-norm-msd, logistic-a1a, fair-a9a (their data from --data PATH, default\n"
    "      build/data/YearPredictionMSD, a1a, a9a when there, else synthetic)\n";

static const struct option EXAMPLE_OPTS[] = {
    {"ratings", required_argument, NULL, 'r'}, {"algorithm", required_argument, NULL, 'a'},
    {"data", required_argument, NULL, 'd'},
    {"step-rule", required_argument, NULL, 's'}, {"projection", required_argument, NULL, 'p'},
    {"max-iter", required_argument, NULL, 'm'}, {"size", required_argument, NULL, 'z'},
    {"list", no_argument, NULL, 'l'}, CLI_OPT_HELP, {0},
};
static const cli_command EXAMPLE = {"example", EXAMPLE_USAGE, NULL, EXAMPLE_OPTS};

static int example_opt(void *user, int c, const char *v)
{
    ex_opts *o = user;
    const char **slot = c == 'r' ? &o->ratings : c == 'a' ? &o->algorithm : c == 'd' ? &o->data
                        : c == 's' ? &o->step_rule : c == 'p' ? &o->projection
                        : c == 'z' ? &o->size : NULL;
    if (slot)
        *slot = v;
    else if (c == 'l')
        o->list = 1;
    else if (!cli_parse_count(v, INT64_C(1) << 53, &o->max_iter)) {
        fprintf(stderr, "ircg example: --max-iter wants an integer in [1, 2^53], got \"%s\"\n", v);
        return -1;
    }
    return 0;
}

/* The option values make sense together; 0 (after a message) if not. */
static int check_opts(ex_opts *o)
{
    static const char *const ALGS[] = {"ircg", "cgbio", "irpg", "bisg", "ir-scg", "ir-fscg",
                                       "fcbio", "fcbio-cg", "two-stage", "auto", NULL};
    static const char *const RULES[] = {"open_loop", "closed_loop", "line_search", NULL};
    static const char *const PROJS[] = {"partial", "full", NULL};
    static const char *const SIZES[] = {"small", "full", NULL};
    const char *bad = o->algorithm && !one_of(o->algorithm, ALGS)       ? "--algorithm"
                      : o->step_rule && !one_of(o->step_rule, RULES)    ? "--step-rule"
                      : o->projection && !one_of(o->projection, PROJS)  ? "--projection"
                      : o->size && !one_of(o->size, SIZES)              ? "--size"
                                                                        : NULL;
    if (bad) {
        fprintf(stderr, "ircg example: unknown value for %s\n", bad);
        return 0;
    }
    const char *alg = o->algorithm ? o->algorithm : "ircg";
    if (o->step_rule && strcmp(alg, "ircg") != 0) {
        fprintf(stderr, "ircg: --step-rule applies to --algorithm ircg only\n");
        return 0;
    }
    if (o->projection && strcmp(alg, "irpg") != 0 && strcmp(alg, "bisg") != 0) {
        fprintf(stderr, "ircg: --projection applies to --algorithm irpg and bisg only\n");
        return 0;
    }
    o->small = o->size && !strcmp(o->size, "small");
    return 1;
}

/* Logistic regression is solved by IR-CG, the stochastic methods, FC-BiO
 * and the two-stage method; the stochastic methods solve the vector
 * families only, the two-stage method those too.  0 after a message when
 * the example's family does not take --algorithm. */
static int family_takes(const char *name, const ex_opts *o)
{
    const char *a = o->algorithm;
    int logistic = !strcmp(name, "logistic") || !strcmp(name, "logistic-a1a") ||
                   !strcmp(name, "fair-a9a");
    int mc = !strcmp(name, "paper-movielens") || !strcmp(name, "synthetic-movielens");
    int sto = a && (!strcmp(a, "ir-scg") || !strcmp(a, "ir-fscg"));
    int fcbio = a && !strcmp(a, "fcbio"), auto_ = a && !strcmp(a, "auto");
    int twostage = a && !strcmp(a, "two-stage");
    if (logistic && a && strcmp(a, "ircg") != 0 && !sto && !fcbio && !auto_ && !twostage) {
        fprintf(stderr, "ircg: the %s example is solved by --algorithm ircg, ir-scg, ir-fscg, "
                "fcbio, two-stage or auto (CG-BiO, IR-PG, Bi-SG and FC-BiO-CG are not "
                "available for logistic regression)\n", name);
        return 0;
    }
    if (mc && fcbio) {
        fprintf(stderr, "ircg: FC-BiO projects onto the nuclear ball, which %s is too large "
                "for: use --algorithm fcbio-cg (conditional gradient inside) or auto\n", name);
        return 0;
    }
    if (mc && twostage) {
        fprintf(stderr, "ircg: the two-stage method solves least squares and logistic "
                "regression (over vector domains): not available for matrix completion "
                "(%s)\n", name);
        return 0;
    }
    if (mc && sto) {
        fprintf(stderr, "ircg: the stochastic methods sample the rows of least squares and "
                "logistic regression: not available for matrix completion (%s)\n", name);
        return 0;
    }
    return 1;
}

/* --ratings and --size are read by some examples only: say so. */
static void warn_ignored(const char *name, const ex_opts *o)
{
    int paper = !strcmp(name, "paper-movielens");
    int files = !strcmp(name, "min-norm-msd") || !strcmp(name, "logistic-a1a") ||
                !strcmp(name, "fair-a9a");
    if (o->data && !files)
        fprintf(stderr, "ircg: warning: --data is ignored by the %s example (it reads no "
                "data file)\n", name);
    if (o->ratings && !paper)
        fprintf(stderr, "ircg: warning: --ratings is ignored by the %s example "
                "(its data is synthetic)\n", name);
    if (o->size && paper)
        fprintf(stderr, "ircg: warning: --size is ignored by the paper-movielens "
                "example (its size is the data's)\n");
}

int cmd_example(int argc, char **argv)
{
    ex_opts o = {0};
    cJSON *spec = NULL;
    int first = 0, rc = cli_getopt(argc, argv, &EXAMPLE, example_opt, &o, &first);
    if (rc != CLI_OK)
        return rc == CLI_HELP ? CLI_OK : rc;
    if (o.list) { /* one name a line: server/examples.sh reads it */
        puts("paper-movielens\nsynthetic-movielens\nleast-norm\n"
             "overparam-regression\nlogistic\nportfolio\noverparam-stochastic\n"
             "min-norm-msd\nlogistic-a1a\nfair-a9a");
        return CLI_OK;
    }
    if (argc - first != 1)
        return cli_usage_error(&EXAMPLE, "%s", "one example NAME is needed");
    if (!check_opts(&o)) {
        fputs(EXAMPLE_USAGE, stderr);
        return CLI_USAGE;
    }
    const char *name = argv[first];
    int invalid = 0;
    if (!family_takes(name, &o))
        return CLI_USAGE;
    if (!strcmp(name, "paper-movielens"))
        spec = paper_movielens(&o, &invalid);
    else if (!strcmp(name, "synthetic-movielens"))
        spec = synthetic_movielens(&o);
    else if (!strcmp(name, "least-norm"))
        spec = least_norm(&o);
    else if (!strcmp(name, "overparam-regression"))
        spec = ex_overparam(&o);
    else if (!strcmp(name, "logistic"))
        spec = ex_logistic(&o);
    else if (!strcmp(name, "portfolio"))
        spec = ex_portfolio(&o);
    else if (!strcmp(name, "overparam-stochastic"))
        spec = ex_overparam_sto(&o);
    else if (!strcmp(name, "min-norm-msd"))
        spec = ex_min_norm_msd(&o);
    else if (!strcmp(name, "logistic-a1a"))
        spec = ex_logistic_a1a(&o);
    else if (!strcmp(name, "fair-a9a"))
        spec = (spec = ex_fair_a9a(&o)) ? spec : (invalid = 1, NULL);
    else
        return cli_usage_error(&EXAMPLE, "unknown example \"%s\"", name);
    if (invalid)
        return invalid == 2 ? CLI_USAGE : CLI_INVALID;
    warn_ignored(name, &o);
    char *text = spec ? cJSON_Print(spec) : NULL;
    int code = text ? CLI_OK : CLI_FAILED;
    if (text)
        printf("%s\n", text);
    else
        fprintf(stderr, "ircg: out of memory\n");
    free(text);
    cJSON_Delete(spec);
    return code;
}
