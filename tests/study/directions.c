/* directions.c -- see directions.h */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "study/directions.h"

const dr_method dr_methods[DR_NMETHOD] = {
    {"Frank-Wolfe, open loop", IRCG_STEP_OPEN_LOOP, IRCG_DIR_FRANK_WOLFE},
    {"Frank-Wolfe, line search", IRCG_STEP_LINE_SEARCH, IRCG_DIR_FRANK_WOLFE},
    {"away, line search", IRCG_STEP_LINE_SEARCH, IRCG_DIR_AWAY},
    {"pairwise, line search", IRCG_STEP_LINE_SEARCH, IRCG_DIR_PAIRWISE},
};

void dr_free(dr_inst *s)
{
    ircg_problem_free(s->pb);
    free(s->A);
    free(s->b);
    free(s->Av);
    free(s->bv);
    free(s->Q);
    memset(s, 0, sizeof *s);
}

/* v as `ircg example` writes it and a spec reads it back: cJSON prints 15
 * digits where they come within an ulp of v, so the example's inline data
 * can differ from the computed numbers in the last bit; the study takes
 * the example's. */
static double as_printed(double v)
{
    cJSON *n = cJSON_CreateNumber(v);
    char *t = n ? cJSON_PrintUnformatted(n) : NULL;
    double r = t ? strtod(t, NULL) : NAN;
    cJSON_free(t);
    cJSON_Delete(n);
    return r;
}

/* The portfolio of `ircg example portfolio` (ex_portfolio): h = 5m
 * periods of n returns, asset j's scaled by 0.5 + 1.5 j / (n - 1); A the
 * last m periods, b a benchmark's returns (weights 2 (j + 1) / (n (n + 1))),
 * Q the covariance over all h periods; A, b divided by ||A|| and Q by its
 * largest eigenvalue, as the library computes them (L_g = L_f = 1). */
static int portfolio(dr_inst *s)
{
    int m = 20, n = 40, h = 5 * m, ok;
    double *R = NULL, *r = NULL, *mu = calloc((size_t)n, sizeof *mu);
    s->Q = calloc((size_t)n * n, sizeof *s->Q);
    s->A = malloc((size_t)m * n * sizeof *s->A);
    s->b = calloc((size_t)m, sizeof *s->b);
    ok = mu && s->Q && s->A && s->b && ircg_synth_least_squares(h, n, 0, 1, &R, &r, NULL) == 0;
    for (int i = 0; ok && i < h; i++)
        for (int j = 0; j < n; j++) {
            R[(size_t)i * n + j] *= 0.5 + 1.5 * j / (n - 1);
            mu[j] += R[(size_t)i * n + j] / h;
        }
    if (ok)
        memcpy(s->A, R + (size_t)(h - m) * n, (size_t)m * n * sizeof *s->A);
    for (int i = 0; ok && i < m; i++)
        for (int j = 0; j < n; j++)
            s->b[i] += s->A[(size_t)i * n + j] * (2.0 * (j + 1) / ((double)n * (n + 1)));
    for (int j = 0; ok && j < n; j++)
        for (int k = 0; k < n; k++)
            for (int i = 0; i < h; i++)
                s->Q[(size_t)j * n + k] += (R[(size_t)i * n + j] - mu[j]) *
                                           (R[(size_t)i * n + k] - mu[k]) / h;
    free(R);
    free(r);
    free(mu);
    s->m = m, s->n = n;
    s->dom = (ircg_domain){IRCG_DOMAIN_SIMPLEX, 1, 0, 0};
    ircg_ls_data d = {.m = m, .n = n, .A_dense = s->A, .b = s->b};
    ircg_outer o = {.kind = IRCG_OUTER_QUADRATIC, .Q = s->Q};
    ircg_problem *pb = NULL;
    ircg_problem_info in = {0};
    if (!ok || ircg_problem_least_squares(&d, &o, &s->dom, &pb, NULL) != IRCG_OK)
        return 0;
    ircg_problem_get_info(pb, &in);
    ircg_problem_free(pb);
    double sa = 1 / sqrt(in.L_g), sq = 1 / in.L_f;
    for (size_t k = 0; k < (size_t)m * n; k++)
        s->A[k] *= sa;
    for (int i = 0; i < m; i++)
        s->b[i] *= sa;
    for (size_t k = 0; k < (size_t)n * n; k++)
        s->Q[k] = as_printed(s->Q[k] * sq);
    for (size_t k = 0; k < (size_t)m * n; k++)
        s->A[k] = as_printed(s->A[k]);
    for (int i = 0; i < m; i++)
        s->b[i] = as_printed(s->b[i]);
    return in.L_g > 0 && in.L_f > 0;
}

/* The generator's m + mv rows of one model (the spec's synthetic data):
 * the first m train, the rest validate. */
static int rows(dr_inst *s, int m, int n, int mv, double noise)
{
    double *A = NULL, *b = NULL;
    if (ircg_synth_least_squares(m + mv, n, noise, 1, &A, &b, NULL) != IRCG_OK)
        return 0;
    s->A = A, s->b = b, s->m = m, s->n = n, s->mv = mv;
    s->Av = mv ? malloc((size_t)mv * n * sizeof *s->Av) : NULL;
    s->bv = mv ? malloc((size_t)mv * sizeof *s->bv) : NULL;
    if (mv && (!s->Av || !s->bv))
        return 0;
    if (mv) {
        memcpy(s->Av, A + (size_t)m * n, (size_t)mv * n * sizeof *s->Av);
        memcpy(s->bv, b + m, (size_t)mv * sizeof *s->bv);
    }
    return 1;
}

int dr_make(dr_inst *s, dr_kind kind)
{
    static const char *const NAMES[DR_NKIND] = {"portfolio", "overparam-regression",
                                                "overparam-300", "box"};
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->name = NAMES[kind];
    int ok = 0;
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    switch (kind) {
    case DR_PORTFOLIO:
        ok = portfolio(s);
        o = (ircg_outer){.kind = IRCG_OUTER_QUADRATIC, .Q = s->Q};
        break;
    case DR_OVERPARAM:
    case DR_OVERPARAM_300:
        ok = rows(s, 50, 200, kind == DR_OVERPARAM ? 50 : 300, 0.1);
        s->dom = (ircg_domain){IRCG_DOMAIN_L1_BALL, 110, 0, 0};
        break;
    case DR_BOX:
        ok = rows(s, 30, 80, 0, 0);
        s->dom = (ircg_domain){IRCG_DOMAIN_BOX, 0, -1.1, 1.1};
        break;
    default:
        break;
    }
    ircg_ls_data d = {.m = s->m, .n = s->n, .A_dense = s->A, .b = s->b};
    ircg_ls_data v = {.m = s->mv, .n = s->n, .A_dense = s->Av, .b = s->bv};
    if (s->mv)
        o = (ircg_outer){.kind = IRCG_OUTER_VALIDATION, .val = &v};
    if (ok && ircg_problem_least_squares(&d, &o, &s->dom, &s->pb, NULL) == IRCG_OK)
        return 0;
    fprintf(stderr, "study directions: %s cannot be made\n", s->name);
    dr_free(s);
    return -1;
}

int dr_run(const dr_inst *s, const dr_method *me, double time_limit, int64_t max_iter,
           dr_result *out)
{
    ircg_settings st;
    ircg_solver *sv = NULL;
    ircg_info in;
    ircg_settings_default(&st);
    /* the examples' sigma: `ircg example` states varsigma_rel 0.05 (the
     * default is 0.01 since study varsigma), and these are its examples */
    st.varsigma_rel = 0.05;
    st.step_rule = me->rule;
    st.direction = me->dir;
    st.stop = (ircg_stop){.inner_gap_rel = 1e-6, .outer_gap_rel = 1e-3};
    st.certify_every = 100;
    st.max_iter = max_iter;
    st.time_limit = time_limit;
    int ok = ircg_solver_new(s->pb, &st, &sv, NULL) == IRCG_OK && ircg_solve(sv, &in) == IRCG_OK;
    ircg_solver_free(sv);
    if (!ok)
        return -1;
    /* the stop's own measures (settings.h, ircg_stop) at the last certificate */
    double scale = fmax(fabs(in.cert_f_x), fabs(in.f_lower));
    *out = (dr_result){.status = in.status, .iterations = in.iterations,
                       .seconds = in.solve_seconds, .f = in.cert_f_x, .f_lower = in.f_lower,
                       .inner_rel = in.inner_gap_x / (in.g_x0 - in.g_upper),
                       .outer_rel = scale > 0 ? in.outer_gap_x / scale : NAN};
    return 0;
}
