/*
 * examples_families.c -- `ircg example overparam-regression | logistic |
 * portfolio`: the families beyond the paper's experiment.
 */
#include <math.h>
#include <stdlib.h>

#include "example.h"
#include "ircg.h"

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

/* The generator's m training rows and m_val more of the same model. */
static void synthetic(cJSON *pb, int m, int n, int m_val, double noise)
{
    cJSON *d = cJSON_AddObjectToObject(pb, "data");
    cJSON_AddStringToObject(d, "source", "synthetic");
    cJSON_AddNumberToObject(d, "m", m);
    cJSON_AddNumberToObject(d, "n", n);
    cJSON_AddNumberToObject(d, "m_val", m_val);
    cJSON_AddNumberToObject(d, "noise", noise);
    cJSON_AddNumberToObject(d, "seed", 1);
}

/* The experiment of CG-BiO (Jiang et al. 2023) on the generator's data:
 * more unknowns than training rows, least squares over an l1 ball that
 * holds many interpolating solutions (1.5 ||A^+ b||_1), the validation
 * loss on held-out rows of the same model as the outer objective. */
cJSON *ex_overparam(const ex_opts *o)
{
    int m = o->small ? 10 : 50, n = o->small ? 30 : 200;
    double l2 = NAN, l1 = NAN;
    cJSON *root = cJSON_CreateObject();
    cJSON *pb = problem(root, "least_squares");
    synthetic(pb, m, n, m, 0.1);
    if (!ex_min_norm(m, n, 0.1, 1, &l2, &l1) || !(l1 > 0))
        l1 = n;
    ball(pb, "l1_ball", ex_round_up(1.5 * l1));
    cJSON_AddStringToObject(pb, "outer", "validation");
    cJSON_AddItemToObject(root, "algorithm", ex_algorithm(o, o->small ? 500 : 5000, 60));
    return root;
}

/* Logistic regression on noisy labels of a linear model over an l1 ball,
 * the logistic loss on held-out rows as the outer objective. */
cJSON *ex_logistic(const ex_opts *o)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *pb = problem(root, "logistic_regression");
    synthetic(pb, o->small ? 40 : 200, o->small ? 10 : 50, o->small ? 20 : 100, 1.0);
    ball(pb, "l1_ball", 5);
    cJSON_AddStringToObject(pb, "outer", "validation");
    cJSON_AddItemToObject(root, "algorithm", ex_algorithm(o, o->small ? 300 : 3000, 60));
    return root;
}

static cJSON *rows(const double *A, int m, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < m; i++)
        cJSON_AddItemToArray(a, cJSON_CreateDoubleArray(A + (size_t)i * n, n));
    return a;
}

/* Least squares over the simplex, portfolio-like: n assets' returns over m
 * periods (the generator's A), the target b = the equal-weight portfolio's
 * returns, which many portfolios reproduce exactly (n > m); the outer
 * objective 1/2 x'Qx with Q the covariance of the assets' returns picks
 * the minimum-variance one among them. */
cJSON *ex_portfolio(const ex_opts *o)
{
    int m = o->small ? 6 : 20, n = o->small ? 12 : 40;
    double *A = NULL, *b = NULL, *Q = calloc((size_t)n * n, sizeof *Q);
    double *mu = calloc((size_t)n, sizeof *mu);
    cJSON *root = NULL;
    if (!Q || !mu || ircg_synth_least_squares(m, n, 0, 1, &A, &b, NULL) != IRCG_OK)
        goto done;
    for (int i = 0; i < m; i++) {
        b[i] = 0;
        for (int j = 0; j < n; j++) {
            b[i] += A[(size_t)i * n + j] / n;
            mu[j] += A[(size_t)i * n + j] / m;
        }
    }
    for (int j = 0; j < n; j++)
        for (int k = 0; k < n; k++)
            for (int i = 0; i < m; i++)
                Q[(size_t)j * n + k] += (A[(size_t)i * n + j] - mu[j]) *
                                        (A[(size_t)i * n + k] - mu[k]) / m;
    root = cJSON_CreateObject();
    cJSON *pb = problem(root, "least_squares");
    cJSON *d = cJSON_AddObjectToObject(pb, "data");
    cJSON_AddStringToObject(d, "source", "inline");
    cJSON_AddItemToObject(d, "A", rows(A, m, n));
    cJSON_AddItemToObject(d, "b", cJSON_CreateDoubleArray(b, m));
    ball(pb, "simplex", 1);
    cJSON *of = cJSON_AddObjectToObject(pb, "outer");
    cJSON_AddStringToObject(of, "type", "quadratic");
    cJSON_AddItemToObject(of, "Q", rows(Q, n, n));
    cJSON_AddItemToObject(root, "algorithm", ex_algorithm(o, o->small ? 500 : 5000, 60));
done:
    free(A);
    free(b);
    free(Q);
    free(mu);
    return root;
}
