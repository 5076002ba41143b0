/*
 * examples_literature.c -- `ircg example overparam-stochastic |
 * min-norm-msd | logistic-a1a | fair-a9a`: the instances of the bilevel
 * literature the follow-up paper (Giang-Tran, Shafiee, Ho-Nguyen 2025) and
 * its predecessors solve, on the data sets `make data` fetches when they
 * are there (build/data, or --data PATH), else on synthetic data of their
 * shapes (the spec's "shape" generators).
 */
#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "example.h"
#include "ircg.h"

/* The data file of an example: --data, else build/data/NAME; made
 * absolute; NULL (and a note) when it cannot be read: synthetic data of
 * its shape then. */
static char *data_file(const ex_opts *o, const char *name)
{
    char rel[PATH_MAX], cwd[PATH_MAX], *out = malloc(2 * PATH_MAX + 2);
    snprintf(rel, sizeof rel, "%s", o->data ? o->data : "");
    if (!o->data)
        snprintf(rel, sizeof rel, "build/data/%s", name);
    if (!out)
        return NULL;
    if (rel[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(out, 2 * PATH_MAX + 2, "%s", rel);
    else
        snprintf(out, 2 * PATH_MAX + 2, "%s/%s", cwd, rel);
    if (access(out, R_OK) == 0)
        return out;
    if (o->data)
        fprintf(stderr, "ircg: note: %s cannot be read; synthetic data of its shape instead\n",
                o->data);
    free(out);
    return NULL;
}

static cJSON *problem(cJSON *root, const char *type)
{
    cJSON *pb = cJSON_AddObjectToObject(root, "problem");
    cJSON_AddStringToObject(pb, "type", type);
    return pb;
}

static void ball(cJSON *pb, const char *type, double radius)
{
    cJSON *dm = cJSON_AddObjectToObject(pb, "domain");
    cJSON_AddStringToObject(dm, "type", type);
    cJSON_AddNumberToObject(dm, "radius", radius);
}

/* A LIBSVM file as the data of the spec. */
static void libsvm_data(cJSON *pb, const char *path)
{
    cJSON *d = cJSON_AddObjectToObject(pb, "data");
    cJSON_AddStringToObject(d, "source", "file");
    cJSON_AddStringToObject(d, "format", "libsvm");
    cJSON_AddStringToObject(d, "A_path", path);
}

/* The rows the spec's generator makes for a synthetic shape (or the file
 * the spec reads), to compute what the example derives from its data. */
static ircg_svm *rows_of(const char *path, const ircg_synth_rows_spec *sp)
{
    ircg_svm *s = NULL;
    ircg_diag d = {0};
    ircg_error e = path ? ircg_svm_read_file(path, NULL, &s, &d) : ircg_synth_rows(sp, &s, &d);
    if (e != IRCG_OK)
        fprintf(stderr, "ircg: %s%s%s\n", path ? path : "", path ? ": " : "", d.message);
    return s;
}

/* The follow-up's first experiment, over-parameterized regression (as in
 * CG-BiO): 1068 rows of 730 features, split here into 534 training and
 * 534 validation rows (more unknowns than training rows), least squares
 * over the l1 ball of radius 1.5 ||A^+ b||_1, the validation loss outside;
 * solved by IR-FSCG. */
cJSON *ex_overparam_sto(const ex_opts *o)
{
    int m = o->small ? 30 : 534, n = o->small ? 40 : 730;
    double l2 = NAN, l1 = NAN;
    cJSON *root = cJSON_CreateObject();
    cJSON *pb = problem(root, "least_squares");
    cJSON *d = cJSON_AddObjectToObject(pb, "data");
    cJSON_AddStringToObject(d, "source", "synthetic");
    cJSON_AddNumberToObject(d, "m", m);
    cJSON_AddNumberToObject(d, "n", n);
    cJSON_AddNumberToObject(d, "m_val", m);
    cJSON_AddNumberToObject(d, "noise", 0.1);
    cJSON_AddNumberToObject(d, "seed", 1);
    if (!ex_min_norm(m, n, 0.1, 1, &l2, &l1) || !(l1 > 0))
        l1 = n;
    ball(pb, "l1_ball", ex_round_up(1.5 * l1));
    cJSON_AddStringToObject(pb, "outer", "validation");
    cJSON_AddItemToObject(root, "algorithm",
                          ex_algorithm_default(o, "ir-fscg", o->small ? 20000 : 1000000, 240));
    return root;
}

/* ||A^+ b|| of the dense m x n A (row-major, destroyed) by LAPACK's SVD
 * least squares (rank-deficient A: the least-norm solution). */
static double least_norm(double *A, const double *b, int m, int n)
{
    int k = m > n ? m : n, rank = 0;
    double *x = calloc((size_t)k, sizeof *x), *sv = malloc((size_t)(m < n ? m : n) * sizeof *sv);
    double r = NAN;
    if (x && sv) {
        memcpy(x, b, (size_t)m * sizeof *x);
        if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, m, n, 1, A, n, x, 1, sv, 1e-10, &rank) == 0) {
            r = 0;
            for (int j = 0; j < n; j++)
                r += x[j] * x[j];
            r = sqrt(r);
        }
    }
    free(x);
    free(sv);
    return r;
}

/* Bisec-BiO's minimum-norm problem on YearPredictionMSD: 1000 rows, the
 * features scaled to [-1, 1], an intercept and n - 1 columns each a
 * combination of 10 features with U(-1, 1) weights, so that A has rank
 * at most 91 and g has many minimizers; f = 1/2||x||^2 picks the
 * least-norm one, A^+ b.  The l2 ball of radius 1.5 ||A^+ b|| holds it. */
cJSON *ex_min_norm_msd(const ex_opts *o)
{
    int m = o->small ? 100 : 1000, n = o->small ? 100 : 1000;
    char *path = data_file(o, "YearPredictionMSD");
    ircg_synth_rows_spec sp = {.shape = IRCG_SHAPE_MSD, .m = m, .n = n, .noise = 1, .seed = 1,
                               .features_path = path};
    ircg_svm *s = rows_of(NULL, &sp);
    double *A = calloc((size_t)m * n, sizeof *A), r = NAN;
    for (int i = 0; s && A && i < m; i++)
        for (int64_t p = s->rowptr[i]; p < s->rowptr[i + 1]; p++)
            A[(size_t)i * n + s->colind[p]] = s->val[p];
    if (s && A)
        r = least_norm(A, s->labels, m, n);
    free(A);
    ircg_svm_free(s);
    cJSON *root = cJSON_CreateObject();
    cJSON *pb = problem(root, "least_squares");
    cJSON *d = cJSON_AddObjectToObject(pb, "data");
    cJSON_AddStringToObject(d, "source", "synthetic");
    cJSON_AddStringToObject(d, "shape", "msd");
    cJSON_AddNumberToObject(d, "m", m);
    cJSON_AddNumberToObject(d, "n", n);
    cJSON_AddNumberToObject(d, "noise", 1);
    cJSON_AddNumberToObject(d, "seed", 1);
    if (path)
        cJSON_AddStringToObject(d, "features_path", path);
    free(path);
    ball(pb, "l2_ball", ex_round_up(isfinite(r) && r > 0 ? 1.5 * r : 1e4));
    cJSON_AddStringToObject(pb, "outer", "half_norm_sq");
    cJSON_AddItemToObject(root, "algorithm",
                          ex_algorithm_default(o, "ircg", o->small ? 2000 : 20000, 120));
    return root;
}

/* Logistic regression on a1a over the l1 ball of radius 10 with
 * f = 1/2||x||^2 outside: LIBSVM's a1a (1605 rows, 123 binary features)
 * when `make data DATASETS=a1a` fetched it, else rows of its shape. */
cJSON *ex_logistic_a1a(const ex_opts *o)
{
    char *path = data_file(o, "a1a");
    cJSON *root = cJSON_CreateObject();
    cJSON *pb = problem(root, "logistic_regression");
    if (path) {
        libsvm_data(pb, path);
    } else {
        cJSON *d = cJSON_AddObjectToObject(pb, "data");
        cJSON_AddStringToObject(d, "source", "synthetic");
        cJSON_AddStringToObject(d, "shape", "adult");
        cJSON_AddNumberToObject(d, "m", o->small ? 200 : 1605);
        cJSON_AddNumberToObject(d, "seed", 1);
    }
    free(path);
    ball(pb, "l1_ball", 10);
    cJSON_AddStringToObject(pb, "outer", "half_norm_sq");
    cJSON_AddItemToObject(root, "algorithm",
                          ex_algorithm_default(o, "ir-scg", o->small ? 20000 : 1000000, 60));
    return root;
}

/* The sensitive attribute's column in the a9a encoding: sex, the 72nd
 * feature (1-based; see inputs/synth_shapes.c for where that comes from). */
#define SENSITIVE 71

/* Q = 2 c c' with c = (1/m) A'(s - mean s), s the sensitive column: then
 * 1/2 x'Qx = (c'x)^2, the squared covariance of the decision values A x
 * with s.  Q is n x n row-major; 0 on failure. */
static double *fair_q(const ircg_svm *s)
{
    int n = s->n;
    double *c = calloc((size_t)n, sizeof *c), *Q = malloc((size_t)n * n * sizeof *Q);
    double *sv = calloc((size_t)s->m, sizeof *sv), mean = 0;
    if (!c || !Q || !sv) {
        free(Q);
        Q = NULL;
        goto done;
    }
    for (int i = 0; i < s->m; i++) {
        for (int64_t p = s->rowptr[i]; p < s->rowptr[i + 1]; p++)
            sv[i] = s->colind[p] == SENSITIVE ? s->val[p] : sv[i];
        mean += sv[i] / s->m;
    }
    for (int i = 0; i < s->m; i++)
        for (int64_t p = s->rowptr[i]; p < s->rowptr[i + 1]; p++)
            c[s->colind[p]] += (sv[i] - mean) * s->val[p] / s->m;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < n; k++)
            Q[(size_t)j * n + k] = 2 * c[j] * c[k];
done:
    free(c);
    free(sv);
    return Q;
}

/* Fair classification as CG-BiO poses it: logistic regression on a9a
 * over the l1 ball of radius 100, the squared covariance between the
 * decision values and the sensitive attribute outside (a quadratic f of
 * rank one); a9a (32561 rows) when fetched, else rows of its shape. */
cJSON *ex_fair_a9a(const ex_opts *o)
{
    char *path = data_file(o, "a9a");
    ircg_synth_rows_spec sp = {.shape = IRCG_SHAPE_ADULT, .m = o->small ? 2000 : 32561,
                               .n = 123, .logistic = 1, .seed = 1};
    ircg_svm *s = rows_of(path, &sp);
    double *Q = s ? fair_q(s) : NULL;
    cJSON *root = NULL;
    if (!Q)
        goto done;
    root = cJSON_CreateObject();
    cJSON *pb = problem(root, "logistic_regression");
    if (path) {
        libsvm_data(pb, path);
    } else {
        cJSON *d = cJSON_AddObjectToObject(pb, "data");
        cJSON_AddStringToObject(d, "source", "synthetic");
        cJSON_AddStringToObject(d, "shape", "adult");
        cJSON_AddNumberToObject(d, "m", sp.m);
        cJSON_AddNumberToObject(d, "seed", 1);
    }
    ball(pb, "l1_ball", 100);
    cJSON *of = cJSON_AddObjectToObject(pb, "outer");
    cJSON_AddStringToObject(of, "type", "quadratic");
    cJSON *rows = cJSON_AddArrayToObject(of, "Q");
    for (int j = 0; j < s->n; j++)
        cJSON_AddItemToArray(rows, cJSON_CreateDoubleArray(Q + (size_t)j * s->n, s->n));
    cJSON_AddItemToObject(root, "algorithm",
                          ex_algorithm_default(o, "ir-fscg", o->small ? 20000 : 1000000, 120));
done:
    free(Q);
    free(path);
    ircg_svm_free(s);
    return root;
}
