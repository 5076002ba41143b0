/* sto_rates.c -- see sto_rates.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study/sto_rates.h"

enum { SR_MAXP = 256, SR_ROWS = 48 };

/* The rows of the least-squares form repeated, each copy scaled by
 * 1/sqrt(copies): the same g, as a sum over at least SR_ROWS rows (the
 * instance without quadratic growth has one row, which a sampler would
 * always draw). */
typedef struct sr_rows {
    int m;
    double A[SR_ROWS * 2 * RQ_MAXN], b[SR_ROWS * 2];
} sr_rows;

static void replicate(const rq_inst *in, sr_rows *r)
{
    int copies = (SR_ROWS + in->m - 1) / in->m;
    double s = 1 / sqrt((double)copies);
    r->m = copies * in->m;
    for (int k = 0; k < copies; k++)
        for (int i = 0; i < in->m; i++) {
            int row = k * in->m + i;
            r->b[row] = s * in->bt[i];
            for (int j = 0; j < in->n; j++)
                r->A[(size_t)row * in->n + j] = s * in->B[(size_t)i * in->n + j];
        }
}

typedef struct sr_trace {
    const rq_inst *in;
    ircg_solver *sv;
    int n;                     /* points recorded                  */
    double next;               /* the next t recorded              */
    int64_t t[SR_MAXP];
    double g[SR_MAXP], f[SR_MAXP];
} sr_trace;

/* g and |f - f*| at z_t, from z itself. */
static int record(void *user, const ircg_iter_info *it)
{
    sr_trace *tr = user;
    const rq_inst *in = tr->in;
    if ((double)it->t < tr->next || tr->n >= SR_MAXP)
        return 0;
    while (tr->next <= (double)it->t)
        tr->next *= 1.1;
    ircg_iterate *z = NULL;
    if (ircg_solver_iterate(tr->sv, IRCG_Z, 0, &z) != IRCG_OK)
        return 1;
    double g = 0, f = 0;
    for (int i = 0; i < in->m; i++) {
        double r = -in->bt[i];
        for (int j = 0; j < in->n; j++)
            r += in->B[(size_t)i * in->n + j] * z->dense[j];
        g += 0.5 * r * r;
    }
    for (int j = 0; j < in->n; j++)
        f += 0.5 * (z->dense[j] - in->c[j]) * (z->dense[j] - in->c[j]);
    ircg_iterate_free(z);
    tr->t[tr->n] = it->t;
    tr->g[tr->n] = g;
    tr->f[tr->n++] = f - in->f_opt;
    return 0;
}

static int one_seed(const rq_inst *in, const ircg_problem *pb, ircg_algorithm alg,
                    int64_t T, int64_t batch, uint64_t seed, sr_trace *tr, int64_t *b_used)
{
    ircg_settings s;
    ircg_info info;
    ircg_settings_default(&s);
    s.algorithm = alg;
    s.p = alg == IRCG_ALG_IRSCG ? 0.25 : 0.5;
    s.max_iter = T;
    s.batch = batch;
    s.seed = seed;
    s.certify = 0;
    s.callback = record;
    s.callback_data = tr;
    *tr = (sr_trace){.in = in, .next = 1};
    if (ircg_solver_new(pb, &s, &tr->sv, NULL) != IRCG_OK)
        return -1;
    int rc = ircg_solve(tr->sv, &info) == IRCG_OK ? 0 : -1;
    *b_used = info.batch;
    ircg_solver_free(tr->sv);
    return rc;
}

int sr_run(const rq_inst *in, ircg_algorithm alg, int64_t T, int seeds, int64_t batch,
           sr_result *out)
{
    static sr_rows rows;
    replicate(in, &rows);
    ircg_ls_data d = {.m = rows.m, .n = in->n, .A_dense = rows.A, .b = rows.b};
    ircg_outer o = {.kind = IRCG_OUTER_DIST_SQ, .c = in->c};
    ircg_domain dom = {IRCG_DOMAIN_L2_BALL, 1, 0, 0};
    ircg_problem *pb = NULL;
    static sr_trace tr;
    double mg[SR_MAXP] = {0}, mf[SR_MAXP] = {0}, x[SR_MAXP];
    int n = 0, rc = 0;
    if (ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) != IRCG_OK)
        return -1;
    *out = (sr_result){.alg = alg, .p = alg == IRCG_ALG_IRSCG ? 0.25 : 0.5, .T = T,
                       .seeds = seeds};
    out->exponent = out->p; /* 1/4 and 1/2: the theorems' rates at those p */
    for (int k = 0; k < seeds && rc == 0; k++) {
        rc = one_seed(in, pb, alg, T, batch, (uint64_t)k + 1, &tr, &out->batch);
        n = tr.n;
        for (int i = 0; i < n; i++) {
            mg[i] += tr.g[i] / seeds;
            mf[i] += tr.f[i] / seeds;
        }
    }
    ircg_problem_free(pb);
    if (rc != 0 || n < 2)
        return -1;
    int k = 0; /* the points in [T/20, T] */
    double yg[SR_MAXP], early = 0, late = 0;
    for (int i = 0; i < n; i++) {
        double t1 = (double)tr.t[i] + 1, env = fmax(mf[i], 0) * pow(t1, out->exponent);
        if (tr.t[i] < T / 20) {
            early = fmax(early, env);
            continue;
        }
        late = fmax(late, env);
        x[k] = t1;
        yg[k++] = mg[i];
    }
    out->slope_g = -rq_fit_slope(x, yg, k);
    out->envelope = early > 0 ? late / early : late > 0 ? INFINITY : 0.0;
    out->g_T = mg[n - 1];
    out->f_T = mf[n - 1];
    return 0;
}
