/*
 * test_accuracy_reference.c -- tests/accuracy/reference.py, the
 * independent bilevel solution by CVXOPT (two stages: g* over X, then f
 * over X on the inner solution set {A x = A x1}), checked against
 * closed forms and brute force computed here:
 *   - least norm: x* = A^+ b (LAPACK dgelsd) on an l2 ball holding it;
 *   - over-parameterized regression (tests/study/overparam.c): x* = A^+ b
 *     + N z*, z* the validation least squares on null(A), on l1 and l2
 *     balls 1.25 times its norm;
 *   - the scale study's portfolio (every support's KKT system: the
 *     least variance among the exact fits on the simplex) and logistic
 *     regression (Newton's method: the unique inner solution, inside an
 *     l1 ball), scale.c's f*;
 *   - the box with 1/2 ||x - c||^2 and 1/2 x'Qx + q'x (the least squares
 *     solution, dgels, inside the box);
 *   - logistic regression on duplicated features, whose inner solutions
 *     split the weights between the copies: 1/2 ||x||^2 halves them.
 * And tests/accuracy/references.json, the examples' references made by
 * make_references.py, read without CVXOPT: each example still builds
 * the instance whose hash is there, and a short IR-CG run's certificates
 * bracket it: g_lower <= g* <= g_upper and f_lower <= f* (the reference's
 * own bracket of g*, and f* to its reported accuracy).
 * CVXOPT and NumPy are Debian's, run by /usr/bin/python3 (`make deps`).
 */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/test_cli_util.h"
#include "harness.h"
#include "npz.h"
#include "spec.h"
#include "study/overparam.h"
#include "study/scale.h"
#include "unit/solver/test_ln_util.h"

#define REFERENCE "tests/accuracy/reference.py"
#define REFERENCES "tests/accuracy/references.json"
#define PYTHON "/usr/bin/python3"

static int have_cvxopt(void)
{
    struct stat st;
    return stat(REFERENCE, &st) == 0 &&
           system(PYTHON " -c 'import cvxopt, numpy' 2>/dev/null") == 0;
}

#define NEED_CVXOPT()                                                        \
    if (!have_cvxopt())                                                      \
        SKIP(PYTHON " with python3-cvxopt and python3-numpy is missing "   \
             "(make deps), or " REFERENCE " (run from the repository root)")

/* The instance written where reference.py reads it; 0 on success. */
static int write_instance(const ircg_problem *pb, const char *path)
{
    void *buf = NULL;
    size_t len = 0;
    char why[256];
    if (api_instance_npz(pb, &buf, &len, why, sizeof why) != 0)
        return -1;
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(buf, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = 0;
    free(buf);
    return ok ? 0 : -1;
}

/* reference.py's report of pb (with x*), or NULL after a failure. */
static cJSON *reference_of(const ircg_problem *pb, const char *name)
{
    char npz[64], out[64], cmd[1024];
    snprintf(npz, sizeof npz, "%s.npz", name);
    snprintf(out, sizeof out, "%s.ref.json", name);
    const char *np = tcli_tmp(npz), *op = tcli_tmp(out);
    if (write_instance(pb, np) != 0)
        return NULL;
    snprintf(cmd, sizeof cmd, PYTHON " " REFERENCE " '%s' --x --json '%s'", np, op);
    if (system(cmd) != 0)
        return NULL;
    return tcli_read_json(op);
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* ||x* - x|| / ||x|| of the report's x* against x (n values). */
static double x_error(const cJSON *rep, const double *x, int n)
{
    const cJSON *xs = cJSON_GetObjectItemCaseSensitive(rep, "x_star");
    if (cJSON_GetArraySize(xs) != n)
        return INFINITY;
    double d = 0, s = 0;
    for (int j = 0; j < n; j++) {
        double v = cJSON_GetArrayItem(xs, j)->valuedouble - x[j];
        d += v * v;
        s += x[j] * x[j];
    }
    return sqrt(d / s);
}

static void print_rep(const char *what, const cJSON *rep, double fstar)
{
    const cJSON *s1 = cJSON_GetObjectItemCaseSensitive(rep, "stage1");
    printf("    %s: f* %.15g (closed form %.15g), g* %.3g, CVXOPT %s, %.3g s\n", what,
           num(rep, "f_star"), fstar, num(rep, "g_star"),
           cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s1, "status")),
           num(rep, "cvxopt_seconds"));
}

static void least_norm(int m, int n, uint64_t seed)
{
    double *A = NULL, *b = NULL, *x = malloc((size_t)n * sizeof *x), nx = 0, g0 = 0;
    ircg_problem *pb = NULL;
    REQUIRE(x && ircg_synth_least_squares(m, n, 0, seed, &A, &b, NULL) == IRCG_OK);
    REQUIRE(sc_pinv(A, b, m, n, x));
    for (int j = 0; j < n; j++)
        nx += x[j] * x[j];
    for (int i = 0; i < m; i++)
        g0 += 0.5 * b[i] * b[i];
    ircg_ls_data d = {.m = m, .n = n, .A_dense = A, .b = b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {IRCG_DOMAIN_L2_BALL, 1.5 * sqrt(nx), 0, 0};
    REQUIRE(ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) == IRCG_OK);
    cJSON *rep = reference_of(pb, "least-norm");
    REQUIRE(rep != NULL);
    print_rep("least norm", rep, 0.5 * nx);
    /* measured: 2.5e-14 of f*, x* to 1e-12 (CVXOPT's tolerances 1e-12) */
    CHECK_REL(num(rep, "f_star"), 0.5 * nx, 1e-9, 0);
    CHECK(x_error(rep, x, n) <= 1e-7);
    CHECK(num(rep, "g_star") <= 1e-12 * g0 && num(rep, "g_lower") == 0);
    CHECK(num(rep, "distance_outside_X") == 0);
    cJSON_Delete(rep);
    ircg_problem_free(pb);
    free(A);
    free(b);
    free(x);
}

TEST(accuracy_reference, least_norm_is_the_pseudoinverse)
{
    NEED_CVXOPT();
    least_norm(30, 80, 1); /* the least-norm example's data */
    least_norm(10, 25, 7);
}

TEST(accuracy_reference, overparam_is_its_closed_form)
{
    NEED_CVXOPT();
    static const ircg_domain_kind KINDS[] = {IRCG_DOMAIN_L1_BALL, IRCG_DOMAIN_L2_BALL};
    for (int k = 0; k < 2; k++) {
        op_inst P;
        REQUIRE(op_make(&P, 10, 30, 25, 0.1, 3, KINDS[k], 1.0));
        cJSON *rep = reference_of(P.pb, k ? "overparam-l2" : "overparam-l1");
        REQUIRE(rep != NULL);
        print_rep(k ? "overparam, l2 ball" : "overparam, l1 ball", rep, P.f_opt);
        CHECK_REL(num(rep, "f_star"), P.f_opt, 1e-9, 0);
        CHECK(x_error(rep, P.xs, P.n) <= 1e-6);
        CHECK(num(rep, "rank") == P.m); /* many inner solutions: stage 2 ran */
        cJSON_Delete(rep);
        op_free(&P);
    }
}

TEST(accuracy_reference, brute_force_and_newton_of_the_scale_study)
{
    NEED_CVXOPT();
    static const sc_kind KINDS[] = {SC_PORTFOLIO, SC_LOGISTIC};
    for (int k = 0; k < 2; k++) {
        sc_inst s;
        REQUIRE(sc_make(&s, KINDS[k], NULL) == 0);
        cJSON *rep = reference_of(s.pb, s.name);
        REQUIRE(rep != NULL);
        print_rep(s.name, rep, s.fstar);
        /* the KKT solves and Newton's method are exact to ~1e-13 */
        CHECK_REL(num(rep, "f_star"), s.fstar, 1e-8, 0);
        cJSON_Delete(rep);
        sc_free(&s);
    }
}

/* Least squares with full column rank (one inner solution: the least
 * squares x_ls, inside the box) under 1/2 ||x - c||^2 and 1/2 x'Qx + q'x:
 * f* = f(x_ls), x_ls by LAPACK's dgels; the box's bounds and the two outer
 * objectives go through reference.py's constraints and f. */
TEST(accuracy_reference, box_dist_sq_and_quadratic_with_q)
{
    NEED_CVXOPT();
    enum { M = 20, N = 5 };
    double *A = NULL, *b = NULL, x[M], Ac[M * N], c[N], Q[N * N], q[N];
    REQUIRE(ircg_synth_least_squares(M, N, 0.5, 11, &A, &b, NULL) == IRCG_OK);
    memcpy(Ac, A, sizeof Ac);
    memcpy(x, b, sizeof x);
    REQUIRE(LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', M, N, 1, Ac, N, x, 1) == 0);
    double fd = 0, fq = 0, top = 0;
    for (int j = 0; j < N; j++) {
        c[j] = 0.3 * j - 0.5;
        q[j] = 0.1 * (j % 3) - 0.2;
        for (int k = 0; k < N; k++)
            Q[j * N + k] = (j == k ? 2.0 : 0.0) + 0.5 / (1 + j + k);
        fd += 0.5 * (x[j] - c[j]) * (x[j] - c[j]);
        top = fmax(top, fabs(x[j]));
    }
    for (int j = 0; j < N; j++) {
        for (int k = 0; k < N; k++)
            fq += 0.5 * x[j] * Q[j * N + k] * x[k];
        fq += q[j] * x[j];
    }
    ircg_ls_data d = {.m = M, .n = N, .A_dense = A, .b = b};
    ircg_domain box = {IRCG_DOMAIN_BOX, 0, -2 * top, 3 * top};
    const ircg_outer outs[2] = {{.kind = IRCG_OUTER_DIST_SQ, .c = c},
                                {.kind = IRCG_OUTER_QUADRATIC, .Q = Q, .q = q}};
    const double want[2] = {fd, fq};
    for (int k = 0; k < 2; k++) {
        ircg_problem *pb = NULL;
        REQUIRE(ircg_problem_least_squares(&d, &outs[k], &box, &pb, NULL) == IRCG_OK);
        cJSON *rep = reference_of(pb, k ? "box-quadratic" : "box-dist");
        REQUIRE(rep != NULL);
        print_rep(k ? "box, quadratic with q" : "box, dist_sq", rep, want[k]);
        CHECK_REL(num(rep, "f_star"), want[k], 1e-9, 0);
        CHECK(x_error(rep, x, N) <= 1e-8);
        cJSON_Delete(rep);
        ircg_problem_free(pb);
    }
    free(A);
    free(b);
}

/* Logistic regression on duplicated features, A = [F F]: every x with
 * x_1 + x_2 = w (w the minimizer on F, by Newton's method here) is an
 * inner solution, and 1/2 ||x||^2 picks x = [w/2, w/2], f* = ||w||^2 / 4:
 * reference.py's second stage on the margins' section (rank n / 2), and
 * its logistic first stage, inside an l2 ball that does not bind. */
TEST(accuracy_reference, logistic_duplicated_features_split_the_weights)
{
    NEED_CVXOPT();
    enum { M = 60, K = 4 };
    double *F = NULL, *y = NULL, A[M * 2 * K], w[K] = {0};
    REQUIRE(ircg_synth_least_squares(M, K, 3.0, 5, &F, &y, NULL) == IRCG_OK);
    for (int i = 0; i < M; i++) {
        y[i] = y[i] > 0 ? 1 : -1;
        for (int j = 0; j < K; j++)
            A[i * 2 * K + j] = A[i * 2 * K + K + j] = F[i * K + j];
    }
    for (int it = 0; it < 60; it++) { /* Newton on F: the labels are not separable */
        double gr[K] = {0}, H[K * K] = {0};
        for (int i = 0; i < M; i++) {
            double z = 0;
            for (int j = 0; j < K; j++)
                z += F[i * K + j] * w[j];
            double sg = 1 / (1 + exp(y[i] * z));
            for (int j = 0; j < K; j++) {
                gr[j] -= y[i] * sg * F[i * K + j];
                for (int k = 0; k < K; k++)
                    H[j * K + k] += sg * (1 - sg) * F[i * K + j] * F[i * K + k];
            }
        }
        REQUIRE(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', K, 1, H, K, gr, 1) == 0);
        for (int j = 0; j < K; j++)
            w[j] -= gr[j];
    }
    double x[2 * K], fs = 0, nw = 0;
    for (int j = 0; j < K; j++) {
        x[j] = x[K + j] = w[j] / 2;
        fs += w[j] * w[j] / 4;
        nw += w[j] * w[j];
    }
    REQUIRE(sqrt(nw) < 50); /* a finite minimizer: not separable */
    ircg_ls_data d = {.m = M, .n = 2 * K, .A_dense = A, .b = y};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {IRCG_DOMAIN_L2_BALL, 2 * sqrt(nw), 0, 0};
    ircg_problem *pb = NULL;
    REQUIRE(ircg_problem_logistic(&d, &o, &dom, &pb, NULL) == IRCG_OK);
    cJSON *rep = reference_of(pb, "logistic-duplicated");
    REQUIRE(rep != NULL);
    print_rep("logistic, duplicated features", rep, fs);
    CHECK(num(rep, "rank") == K);
    /* stage 1's x_1 is within its tolerance of the margins' minimizer,
     * which moves stage 2's section by as much: 1e-7 */
    CHECK_REL(num(rep, "f_star"), fs, 1e-7, 0);
    CHECK(x_error(rep, x, 2 * K) <= 1e-6);
    cJSON_Delete(rep);
    ircg_problem_free(pb);
    free(F);
    free(y);
}

/* `ircg example NAME ARGS...` parsed and built; NULL after a failure. */
static api_spec *example_spec(const char *bin, const char *name, const cJSON *args)
{
    char *argv[8] = {(char *)bin, "example", (char *)name};
    int k = 3;
    const cJSON *a;
    cJSON_ArrayForEach(a, args)
        if (k < 7 && cJSON_IsString(a))
            argv[k++] = a->valuestring;
    argv[k] = NULL;
    const char *out = tcli_tmp("example.json");
    if (tcli_run(argv, out) != 0)
        return NULL;
    char *text = tcli_read_text(out);
    api_spec *s = NULL;
    api_errors e;
    api_errors_init(&e);
    if (text)
        api_spec_parse(text, strlen(text), NULL, &s, &e);
    api_errors_clear(&e);
    free(text);
    return s;
}

/* sha256 of the instance as reference.py --hash names it (the standard
 * library: no CVXOPT needed); 0 on success. */
static int instance_hash(const ircg_problem *pb, char *hex, size_t cap)
{
    const char *np = tcli_tmp("example.npz"), *hp = tcli_tmp("example.hash");
    char cmd[1024];
    if (write_instance(pb, np) != 0)
        return -1;
    snprintf(cmd, sizeof cmd, PYTHON " " REFERENCE " --hash '%s' > '%s'", np, hp);
    char *text = system(cmd) == 0 ? tcli_read_text(hp) : NULL;
    if (!text)
        return -1;
    snprintf(hex, cap, "%.64s", text);
    free(text);
    return 0;
}

TEST(accuracy_reference, committed_references_are_of_the_examples_and_bracket_ircg)
{
    NEED_CLI();
    struct stat fs_st;
    if (stat(REFERENCES, &fs_st) != 0 || stat(PYTHON, &fs_st) != 0)
        SKIP(REFERENCES " or " PYTHON " is missing (run from the repository root)");
    cJSON *doc = tcli_read_json(REFERENCES), *r;
    REQUIRE(doc != NULL);
    int n = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(doc, "references")) {
        char hex[80];
        api_spec *s = example_spec(bin, r->string,
                                   cJSON_GetObjectItemCaseSensitive(r, "example_args"));
        REQUIRE(s != NULL);
        const ircg_problem *pb = api_spec_problem(s);
        REQUIRE(instance_hash(pb, hex, sizeof hex) == 0);
        const char *want = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "instance_sha256"));
        if (!want || strcmp(hex, want) != 0)
            th_fail(__FILE__, __LINE__, "%s: the example builds another instance than the "
                    "reference's (%s, not %s): make_references.py again", r->string, hex,
                    want ? want : "none");
        /* IR-CG as the example states it, 256 iterations, certified */
        ircg_settings st;
        api_spec_settings(s, &st);
        st.max_iter = 256;
        st.time_limit = 0;
        st.certify = 1;
        ircg_solver *sv = NULL;
        ircg_info in;
        REQUIRE(ircg_solver_new(pb, &st, &sv, NULL) == IRCG_OK);
        REQUIRE(ircg_solve(sv, &in) == IRCG_OK);
        double fs = num(r, "f_star"), glo = num(r, "g_lower"), gup = num(r, "g_upper");
        /* f* is CVXOPT's, to its tolerances (1e-12 of the scaled
         * objective; the stage-2 gap is reported): 1e-9 of |f*| and of
         * f(x_0) for an f* of 0 */
        double ftol = 1e-9 * fmax(fabs(fs), fabs(in.cert_f_x));
        printf("    %s: g* in [%.12g, %.12g], IR-CG's [%.12g, %.12g]; f* %.12g, f_lower %.12g\n",
               r->string, glo, gup, in.g_lower, in.g_upper, fs, in.f_lower);
        CHECK(in.g_lower <= gup && in.g_upper >= glo);
        CHECK(in.f_lower <= fs + ftol);
        ircg_solver_free(sv);
        api_spec_free(s);
        n++;
    }
    CHECK_INT(n, 8);
    cJSON_Delete(doc);
}
