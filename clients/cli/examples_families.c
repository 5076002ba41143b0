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

/* Least squares over the simplex, portfolio-like: index tracking.  h
 * periods of n assets' returns (the generator's N(0,1) draws, asset j's
 * scaled by its volatility 0.5 + 1.5 j / (n - 1), in percent); the target
 * b the returns over the last m < n periods of a benchmark whose weights
 * grow with the asset's volatility (j + 1 over their sum).  Every
 * portfolio of the polytope {x in the simplex, A x = b} (A: those m
 * periods; dimension n - m - 1, the benchmark inside it) reproduces b
 * exactly; the outer objective 1/2 x'Qx with Q the covariance of the
 * returns over all h periods picks the least risky of them.  Q is taken
 * over more periods than A: with Q the covariance of A's m periods alone,
 * x'Qx would be the variance of A x = b, the same at every exact fit, and
 * the outer objective would select nothing.  The units: returns divided
 * by ||A|| and Q by its largest eigenvalue, so that L_g = L_f = 1, the
 * scale of the paper's experiment, for which its varsigma 0.05 is meant
 * (in percent, L_g / L_f is about 10: sigma_t would be ten times too small
 * against g, and f would converge that much slower). */
/* A and b divided by sqrt(L_g) = ||A||, Q by L_f = its largest
 * eigenvalue, as the library computes them. */
static int unit_lipschitz(double *A, double *b, double *Q, int m, int n)
{
    ircg_ls_data d = {.m = m, .n = n, .A_dense = A, .b = b};
    ircg_outer o = {.kind = IRCG_OUTER_QUADRATIC, .Q = Q};
    ircg_domain dom = {IRCG_DOMAIN_SIMPLEX, 1, 0, 0};
    ircg_problem *pb = NULL;
    ircg_problem_info in = {0};
    if (ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) != IRCG_OK)
        return -1;
    ircg_problem_get_info(pb, &in);
    ircg_problem_free(pb);
    if (!(in.L_g > 0 && in.L_f > 0))
        return -1;
    double sa = 1 / sqrt(in.L_g), sq = 1 / in.L_f;
    for (size_t k = 0; k < (size_t)m * n; k++)
        A[k] *= sa;
    for (int i = 0; i < m; i++)
        b[i] *= sa;
    for (size_t k = 0; k < (size_t)n * n; k++)
        Q[k] *= sq;
    return 0;
}

cJSON *ex_portfolio(const ex_opts *o)
{
    int m = o->small ? 6 : 20, n = o->small ? 12 : 40, h = 5 * m;
    double *R = NULL, *b = NULL, *Q = calloc((size_t)n * n, sizeof *Q);
    double *mu = calloc((size_t)n, sizeof *mu);
    cJSON *root = NULL;
    if (!Q || !mu || ircg_synth_least_squares(h, n, 0, 1, &R, &b, NULL) != IRCG_OK)
        goto done;
    for (int i = 0; i < h; i++)
        for (int j = 0; j < n; j++) {
            R[(size_t)i * n + j] *= 0.5 + 1.5 * j / (n - 1);
            mu[j] += R[(size_t)i * n + j] / h;
        }
    double *A = R + (size_t)(h - m) * n; /* the last m periods */
    for (int i = 0; i < m; i++) { /* the benchmark: weights 2 (j + 1) / (n (n + 1)) */
        b[i] = 0;
        for (int j = 0; j < n; j++)
            b[i] += A[(size_t)i * n + j] * (2.0 * (j + 1) / ((double)n * (n + 1)));
    }
    for (int j = 0; j < n; j++)
        for (int k = 0; k < n; k++)
            for (int i = 0; i < h; i++)
                Q[(size_t)j * n + k] += (R[(size_t)i * n + j] - mu[j]) *
                                        (R[(size_t)i * n + k] - mu[k]) / h;
    if (unit_lipschitz(A, b, Q, m, n) != 0)
        goto done;
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
    /* f converges slowly (tests/unit/cli/test_portfolio.c): at 5000
     * iterations z is no less risky than the benchmark yet, at 50000 a
     * quarter less (0.2 s) */
    cJSON_AddItemToObject(root, "algorithm", ex_algorithm(o, o->small ? 20000 : 50000, 60));
done:
    free(R);
    free(b);
    free(Q);
    free(mu);
    return root;
}
