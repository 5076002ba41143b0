/* select.c -- see select.h */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study/select.h"

/* ||X_fill||_* by LAPACK (singular values of the dense n x p fill). */
static int fill_nuclear(const ircg_ratings *R, const double *mean, double *out)
{
    int n = R->n_rows, p = R->n_cols, k = n < p ? n : p;
    double *X = malloc((size_t)n * p * sizeof *X), *s = malloc((size_t)k * sizeof *s);
    double *sup = malloc((size_t)k * sizeof *sup);
    int ok = X && s && sup;
    for (int j = 0; ok && j < p; j++)
        for (int i = 0; i < n; i++)
            X[i + (size_t)j * n] = mean[j];
    for (int64_t e = 0; ok && e < R->nnz; e++)
        X[R->row[e] + (size_t)R->col[e] * n] = R->val[e];
    ok = ok && LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', n, p, X, n, s, NULL, 1, NULL, 1,
                              sup) == 0;
    *out = 0;
    for (int i = 0; ok && i < k; i++)
        *out += s[i];
    free(X);
    free(s);
    free(sup);
    return ok;
}

int sel_make(sel_inst *s, int n, int p, int64_t nr, uint64_t seed)
{
    ircg_synth_ratings_spec sp = {n, p, 3, nr, 1, 5, 0.5, seed, 1};
    double *sum = calloc((size_t)p, sizeof *sum), *cnt = calloc((size_t)p, sizeof *cnt);
    int ok = 0;
    memset(s, 0, sizeof *s);
    s->n = n;
    s->p = p;
    if (!sum || !cnt || ircg_synth_ratings(&sp, &s->R, NULL) != IRCG_OK)
        goto done;
    for (int64_t e = 0; e < s->R->nnz; e++) {
        sum[s->R->col[e]] += s->R->val[e];
        cnt[s->R->col[e]] += 1;
        s->g_zero += 0.5 * s->R->val[e] * s->R->val[e];
    }
    for (int j = 0; j < p; j++)
        sum[j] = cnt[j] > 0 ? sum[j] / cnt[j] : 0; /* the column means */
    for (int64_t e = 0; e < s->R->nnz; e++) {
        double d = s->R->val[e] - sum[s->R->col[e]];
        s->f_opt += 0.5 * d * d;
    }
    if (!fill_nuclear(s->R, sum, &s->nuc_fill))
        goto done;
    s->delta = 1.1 * s->nuc_fill;
    ok = ircg_problem_matrix_completion(s->R, IRCG_OUTER_COLUMN_VARIANCE, s->delta, &s->pb,
                                        NULL) == IRCG_OK;
done:
    free(sum);
    free(cnt);
    return ok;
}

void sel_free(sel_inst *s)
{
    ircg_problem_free(s->pb);
    ircg_ratings_free(s->R);
    memset(s, 0, sizeof *s);
}

static int record(void *user, const ircg_iter_info *it)
{
    sel_run_out *o = user;
    if (it->t <= o->T) {
        o->g_t[it->t] = it->g_x;
        o->f_t[it->t] = it->f_x;
    }
    return 0;
}

int sel_run(const sel_inst *s, double vs, ircg_step_rule rule, int64_t T, sel_run_out *o)
{
    ircg_settings st;
    ircg_solver *sv = NULL;
    ircg_info info;
    int rc = -1;
    memset(o, 0, sizeof *o);
    o->T = T;
    o->g_t = calloc((size_t)T + 1, sizeof *o->g_t);
    o->f_t = calloc((size_t)T + 1, sizeof *o->f_t);
    ircg_settings_default(&st);
    st.varsigma = vs;
    st.step_rule = rule;
    st.max_iter = T;
    st.callback = record;
    st.callback_data = o;
    if (o->g_t && o->f_t && ircg_solver_new(s->pb, &st, &sv, NULL) == IRCG_OK &&
        ircg_solve(sv, &info) == IRCG_OK &&
        (info.iterations == T ||
         (info.status == IRCG_STATUS_CONVERGED && info.iterations < T))) {
        o->T = info.iterations;
        o->converged = info.status == IRCG_STATUS_CONVERGED;
        o->g = info.g_x;
        o->f = info.f_x;
        o->seconds = info.solve_seconds;
        rc = 0;
    }
    ircg_solver_free(sv);
    return rc;
}

void sel_run_free(sel_run_out *o)
{
    free(o->g_t);
    free(o->f_t);
    o->g_t = o->f_t = NULL;
}

int sel_solve(const sel_inst *s, ircg_algorithm alg, double inner_rel, double outer_rel,
              double seconds, sel_solve_out *o)
{
    ircg_settings st;
    ircg_solver *sv = NULL;
    ircg_info in;
    int rc = -1;
    memset(o, 0, sizeof *o);
    ircg_settings_default(&st);
    st.algorithm = alg;
    st.max_iter = INT64_MAX / 2;
    st.time_limit = seconds;
    st.stop.inner_gap_rel = inner_rel;
    st.stop.outer_gap_rel = outer_rel;
    if (ircg_solver_new(s->pb, &st, &sv, NULL) == IRCG_OK && ircg_solve(sv, &in) == IRCG_OK) {
        int z = in.answer == IRCG_Z;
        o->status = in.status;
        o->iterations = in.iterations;
        o->seconds = in.solve_seconds;
        o->f = z ? in.cert_f_z : in.cert_f_x;
        o->g = z ? in.cert_g_z : in.cert_g_x;
        o->f_lower = in.f_lower;
        o->outer_gap = z ? in.outer_gap_z : in.outer_gap_x;
        o->inner_gap = z ? in.inner_gap_z : in.inner_gap_x;
        rc = 0;
    }
    ircg_solver_free(sv);
    return rc;
}
