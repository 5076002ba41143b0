/* scale.c -- see scale.h */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/scale.h"
#include "test_num.h"

/* ex_round_up of the CLI's examples: up to 2 significant digits. */
static double round_up2(double x)
{
    double sc = pow(10, floor(log10(x)) - 1);
    return ceil(x / sc) * sc;
}

int sc_pinv(const double *A, const double *b, int m, int n, double *x)
{
    double *Ac = malloc((size_t)m * n * sizeof *Ac), *bx = calloc((size_t)n, sizeof *bx);
    double *sv = malloc((size_t)m * sizeof *sv);
    lapack_int rank = 0;
    int ok = Ac && bx && sv && m <= n;
    if (ok) {
        memcpy(Ac, A, (size_t)m * n * sizeof *Ac);
        memcpy(bx, b, (size_t)m * sizeof *bx);
        ok = LAPACKE_dgelsd(LAPACK_ROW_MAJOR, m, n, 1, Ac, n, bx, 1, sv, -1.0, &rank) == 0 &&
             rank == m;
    }
    if (ok)
        memcpy(x, bx, (size_t)n * sizeof *x);
    free(Ac);
    free(bx);
    free(sv);
    return ok;
}

/* The validation least squares on {A x = b}: x = A^+ b + N z, N the null
 * space of A (rows m..n-1 of V' of A's full SVD), z the least squares of
 * A_v N z = b_v - A_v A^+ b; f* = 1/2 ||A_v x - b_v||^2, the same for
 * every least-squares z.  Singular values below 1e-12 of the largest count
 * as zero: the columns of the breast-cancer instance span 31 dimensions
 * only, and dividing by the rounding of the others made x* 1e16 long. */
static int overparam_fstar(const sc_inst *s, double *x, double *fstar)
{
    int m = s->m, n = s->n, mv = s->mv, k = n - m;
    double *Ac = malloc((size_t)m * n * sizeof *Ac), *S = malloc((size_t)m * sizeof *S);
    double *Vt = malloc((size_t)n * n * sizeof *Vt), *sup = malloc((size_t)n * sizeof *sup);
    double *B = malloc((size_t)mv * k * sizeof *B), *r = malloc((size_t)(mv > k ? mv : k) *
                                                                 sizeof *r);
    double *sv = malloc((size_t)k * sizeof *sv);
    lapack_int rank = 0;
    int ok = Ac && S && Vt && sup && B && r && sv && sc_pinv(s->A, s->b, m, n, x);
    if (ok) {
        memcpy(Ac, s->A, (size_t)m * n * sizeof *Ac);
        ok = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', m, n, Ac, n, S, NULL, 1, Vt, n, sup) == 0;
    }
    for (int i = 0; ok && i < mv; i++) { /* B = A_v N, r = b_v - A_v x */
        double ax = 0;
        for (int j = 0; j < n; j++)
            ax += s->Av[(size_t)i * n + j] * x[j];
        r[i] = s->bv[i] - ax;
        for (int c = 0; c < k; c++) {
            double v = 0;
            for (int j = 0; j < n; j++)
                v += s->Av[(size_t)i * n + j] * Vt[(size_t)(m + c) * n + j];
            B[(size_t)i * k + c] = v;
        }
    }
    if (ok)
        ok = LAPACKE_dgelsd(LAPACK_ROW_MAJOR, mv, k, 1, B, k, r, 1, sv, 1e-12, &rank) == 0;
    for (int c = 0; ok && c < k; c++)
        for (int j = 0; j < n; j++)
            x[j] += r[c] * Vt[(size_t)(m + c) * n + j];
    long double f = 0;
    for (int i = 0; ok && i < mv; i++) {
        long double e = -(long double)s->bv[i];
        for (int j = 0; j < n; j++)
            e += (long double)s->Av[(size_t)i * n + j] * x[j];
        f += 0.5L * e * e;
    }
    *fstar = (double)f;
    free(Ac), free(S), free(Vt), free(sup), free(B), free(r), free(sv);
    return ok;
}

/* min 1/2 x'Qx over {x >= 0, 1'x = 1, A x = b} by every support: on a
 * support S the equality-constrained minimum solves its KKT system; the
 * least f of those that are nonnegative is f* (exact up to the KKT
 * solves: n = 12, 4095 supports). */
static int portfolio_fstar(const sc_inst *s, double *fstar)
{
    int n = s->n, m = s->m, best_ok = 0;
    double best = INFINITY;
    for (unsigned mask = 1; mask < (1u << n); mask++) {
        int idx[32], k = 0;
        for (int j = 0; j < n; j++)
            if (mask >> j & 1)
                idx[k++] = j;
        int dim = k + m + 1;
        double K[(12 + 5) * (12 + 5)] = {0}, rhs[12 + 5] = {0};
        lapack_int piv[12 + 5];
        for (int a = 0; a < k; a++) {
            for (int c = 0; c < k; c++)
                K[a * dim + c] = s->Q[(size_t)idx[a] * n + idx[c]];
            for (int i = 0; i < m; i++)
                K[a * dim + k + i] = K[(k + i) * dim + a] = s->A[(size_t)i * n + idx[a]];
            K[a * dim + k + m] = K[(k + m) * dim + a] = 1;
        }
        for (int i = 0; i < m; i++)
            rhs[k + i] = s->b[i];
        rhs[k + m] = 1;
        if (LAPACKE_dgesv(LAPACK_ROW_MAJOR, dim, 1, K, dim, piv, rhs, 1) != 0)
            continue; /* singular: this support's face is not a point-set of its own */
        int feas = 1;
        for (int a = 0; a < k; a++)
            feas &= rhs[a] >= -1e-12;
        double res = 0; /* the solve's residual on A x = b */
        for (int i = 0; i < m; i++) {
            double v = -s->b[i];
            for (int a = 0; a < k; a++)
                v += s->A[(size_t)i * n + idx[a]] * rhs[a];
            res = fmax(res, fabs(v));
        }
        if (!feas || res > 1e-9)
            continue;
        double f = 0;
        for (int a = 0; a < k; a++)
            for (int c = 0; c < k; c++)
                f += 0.5 * rhs[a] * s->Q[(size_t)idx[a] * n + idx[c]] * rhs[c];
        if (f < best)
            best = f, best_ok = 1;
    }
    *fstar = best;
    return best_ok;
}

/* f at the unique inner solution: conditional gradient on g with exact
 * steps to a certified gap of 1e-12 (the library's g_opt), whose iterate
 * is that solution to within its gap; for matrix completion the
 * solution's uniqueness is certified and f is taken at -delta u v' of
 * the final gradient's top pair (f_vertex). */
static int unique_fstar(sc_inst *s, double *fstar)
{
    ircg_reference_settings rs;
    ircg_reference *ref = NULL;
    ircg_reference_info ri;
    ircg_reference_settings_default(&rs);
    rs.tol = 1e-12;
    rs.max_iter = 1000000;
    rs.certify_unique = s->kind == SC_MC_SYNTH || s->kind == SC_MC_PAPER;
    if (ircg_reference_compute(s->pb, &rs, &ref, NULL) != IRCG_OK)
        return 0;
    ircg_reference_get_info(ref, &ri);
    ircg_reference_free(ref);
    if (rs.certify_unique && ri.unique != 1) {
        fprintf(stderr, "study scale: %s: the inner solution is not certified unique\n",
                s->name);
        return 0;
    }
    *fstar = rs.certify_unique ? ri.f_vertex : ri.f_x;
    /* f* to far better than the study's 1e-3: a gap of 1e-9 of g */
    if (!(ri.gap <= 1e-9 * fabs(ri.g_opt)))
        fprintf(stderr, "study scale: %s: g_opt's gap %.3g is not below 1e-9 of g\n",
                s->name, ri.gap);
    return ri.gap <= 1e-9 * fabs(ri.g_opt);
}

/* The logistic loss's unconstrained minimizer by Newton's method (dense
 * Hessian A'DA, LAPACK dposv), and f* = the validation loss there, when
 * it lies inside the l1 ball (then it is the unique inner solution).  A
 * minimizer exists only when the labels are not separable: on separable
 * ones Newton's iterates run off along a ray, g falling to 0 and the
 * gradient with it, so that "converged" means nothing -- the study's
 * first instance (noise 1) was such, and its f* wrong (CVXOPT,
 * tests/accuracy/reference.py, found it).  NaN unless the iterates stop
 * (a step below 1e-12 of x) at a g above 1e-6 of g(0). */
static double lloss(double s) { return s > 0 ? log1p(exp(-s)) : -s + log1p(exp(s)); }

static double logistic_fstar(const sc_inst *s, double *fstar)
{
    int m = s->m, n = s->n, stopped = 0;
    double x[64] = {0};
    for (int it = 0; it < 100 && !stopped; it++) {
        double gr[64] = {0}, H[64 * 64] = {0}, gn = 0;
        for (int i = 0; i < m; i++) {
            double z = 0;
            for (int j = 0; j < n; j++)
                z += s->A[(size_t)i * n + j] * x[j];
            double sg = 1 / (1 + exp(s->b[i] * z)); /* -l'(y z) */
            double w = sg * (1 - sg);
            for (int j = 0; j < n; j++) {
                gr[j] -= s->b[i] * sg * s->A[(size_t)i * n + j];
                for (int k = 0; k < n; k++)
                    H[j * n + k] += w * s->A[(size_t)i * n + j] * s->A[(size_t)i * n + k];
            }
        }
        for (int j = 0; j < n; j++)
            gn += gr[j] * gr[j];
        if (sqrt(gn) < 1e-14)
            break;
        if (LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', n, 1, H, n, gr, 1) != 0)
            return NAN;
        double step = 0, nx = 0;
        for (int j = 0; j < n; j++) {
            x[j] -= gr[j];
            step += gr[j] * gr[j];
            nx += x[j] * x[j];
        }
        stopped = step <= 1e-24 * nx;
    }
    double x1 = 0, f = 0, g = 0;
    for (int j = 0; j < n; j++)
        x1 += fabs(x[j]);
    for (int i = 0; i < m; i++) {
        double z = 0;
        for (int j = 0; j < n; j++)
            z += s->A[(size_t)i * n + j] * x[j];
        g += lloss(s->b[i] * z);
    }
    if (!stopped || !(g > 1e-6 * m * log(2.0))) /* g(0) = m log 2 */
        return NAN;
    for (int i = 0; i < s->mv; i++) {
        double z = 0;
        for (int j = 0; j < n; j++)
            z += s->Av[(size_t)i * n + j] * x[j];
        f += lloss(s->bv[i] * z);
    }
    *fstar = f;
    return x1;
}

static int make_ls(sc_inst *s, int m, int n, int mv, double noise, uint64_t seed)
{
    double *A = NULL, *b = NULL;
    if (ircg_synth_least_squares(m + mv, n, noise, seed, &A, &b, NULL) != IRCG_OK)
        return 0;
    s->m = m, s->n = n, s->mv = mv;
    s->A = A, s->b = b;
    if (mv > 0) { /* the last mv rows validate */
        s->Av = A + (size_t)m * n;
        s->bv = b + m;
    }
    return 1;
}

/* The breast-cancer features as Bisec-BiO builds its over-parameterized
 * regression: the 30 features scaled to [-1, 1], an intercept, and n - 1
 * columns each a combination of 10 features with U(-1, 1) weights; rows
 * in a fixed random order, the first m train (labels +-1 the targets),
 * the next mv validate. */
static int cancer_make(sc_inst *s, const char *csv, int m, int n, int mv)
{
    FILE *fp = csv ? fopen(csv, "r") : NULL;
    int rows = 0, feats = 0;
    char head[128];
    if (!fp || !fgets(head, sizeof head, fp) || sscanf(head, "%d,%d", &rows, &feats) != 2 ||
        feats != 30 || rows < m + mv) {
        if (fp)
            fclose(fp);
        fprintf(stderr, "study scale: %s: not the breast-cancer CSV\n", csv ? csv : "(none)");
        return 0;
    }
    double *X = malloc((size_t)rows * 31 * sizeof *X), lo[30], hi[30];
    int ok = X != NULL;
    for (int i = 0; ok && i < rows; i++)
        for (int j = 0; ok && j < 31; j++)
            ok = fscanf(fp, j ? ",%lf" : "%lf", &X[i * 31 + j]) == 1;
    fclose(fp);
    for (int j = 0; ok && j < 30; j++) {
        lo[j] = hi[j] = X[j];
        for (int i = 1; i < rows; i++)
            lo[j] = fmin(lo[j], X[i * 31 + j]), hi[j] = fmax(hi[j], X[i * 31 + j]);
    }
    uint64_t seed = 2024;
    int *perm = malloc((size_t)rows * sizeof *perm);
    double *W = calloc((size_t)30 * n, sizeof *W);
    s->A = malloc((size_t)(m + mv) * n * sizeof *s->A);
    s->b = malloc((size_t)(m + mv) * sizeof *s->b);
    ok = ok && perm && W && s->A && s->b;
    for (int i = 0; ok && i < rows; i++)
        perm[i] = i;
    for (int i = rows - 1; ok && i > 0; i--) { /* Fisher-Yates */
        int k = (int)((0.5 + 0.5 * test_urand(&seed)) * (i + 1)) % (i + 1), t = perm[i];
        perm[i] = perm[k], perm[k] = t;
    }
    for (int c = 1; ok && c < n; c++) /* 10 distinct features a column */
        for (int got = 0; got < 10;) {
            int f = (int)((0.5 + 0.5 * test_urand(&seed)) * 30) % 30;
            if (W[f * n + c] != 0)
                continue;
            W[f * n + c] = test_urand(&seed);
            got += W[f * n + c] != 0;
        }
    for (int r = 0; ok && r < m + mv; r++) {
        const double *x = X + (size_t)perm[r] * 31;
        double *a = s->A + (size_t)r * n;
        a[0] = 1;
        for (int c = 1; c < n; c++) {
            double v = 0;
            for (int f = 0; f < 30; f++)
                v += W[f * n + c] * (2 * (x[f] - lo[f]) / (hi[f] - lo[f]) - 1);
            a[c] = v;
        }
        s->b[r] = x[30] > 0.5 ? 1 : -1;
    }
    free(X), free(perm), free(W);
    s->m = m, s->n = n, s->mv = mv;
    s->Av = s->A + (size_t)m * n;
    s->bv = s->b + m;
    return ok;
}

int sc_make(sc_inst *s, sc_kind kind, const char *file)
{
    static const char *const NAMES[SC_NKIND] = {
        "least-norm", "overparam-regression", "logistic", "portfolio",
        "synthetic-movielens", "paper-movielens", "breast-cancer"};
    const char *ratings = kind == SC_MC_PAPER ? file : NULL;
    double x[256] = {0};
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->name = NAMES[kind];
    int ok = 0;
    switch (kind) {
    case SC_LEAST_NORM:
        ok = make_ls(s, 30, 80, 0, 0, 1) && sc_pinv(s->A, s->b, 30, 80, x);
        if (ok) {
            double n2 = 0;
            for (int j = 0; j < 80; j++)
                n2 += x[j] * x[j];
            s->dom = (ircg_domain){.kind = IRCG_DOMAIN_L2_BALL, .radius = round_up2(1.5 * sqrt(n2))};
            s->fstar = 0.5 * n2;
            s->fstar_from = "closed form: 1/2 ||A^+ b||^2 (LAPACK dgelsd)";
        }
        break;
    case SC_OVERPARAM:
        ok = make_ls(s, 10, 30, 10, 0.1, 1) && sc_pinv(s->A, s->b, 10, 30, x);
        if (ok) {
            double n1 = 0;
            for (int j = 0; j < 30; j++)
                n1 += fabs(x[j]);
            s->dom = (ircg_domain){.kind = IRCG_DOMAIN_L1_BALL, .radius = round_up2(1.5 * n1)};
            ok = overparam_fstar(s, x, &s->fstar);
            double x1 = 0;
            for (int j = 0; ok && j < 30; j++)
                x1 += fabs(x[j]);
            ok = ok && x1 < s->dom.radius; /* else the ball would bind */
            s->fstar_from = "closed form: the validation least squares on {A x = b} "
                            "(LAPACK), inside the l1 ball";
        }
        break;
    case SC_LOGISTIC:
        ok = make_ls(s, 40, 10, 20, 3.0, 1); /* noise 3: labels not separable */
        for (int i = 0; ok && i < 60; i++)
            s->b[i] = s->b[i] > 0 ? 1 : -1; /* the generator's labels: signs */
        if (ok) { /* the example's l1 ball of radius 5 holds no minimizer of g
                     here: 1.5 times its l1 norm instead */
            double x1 = logistic_fstar(s, &s->fstar);
            ok = isfinite(x1);
            s->dom = (ircg_domain){.kind = IRCG_DOMAIN_L1_BALL, .radius = round_up2(1.5 * x1)};
        }
        s->fstar_from = "the validation loss at g's unconstrained minimizer (Newton's "
                        "method, LAPACK), inside the l1 ball: the unique inner solution";
        break;
    case SC_PORTFOLIO: {
        double *R = NULL, *r = NULL;
        ok = make_ls(s, 4, 12, 0, 0, 7) && ircg_synth_least_squares(60, 12, 0, 11, &R, &r,
                                                                    NULL) == IRCG_OK;
        s->Q = calloc(144, sizeof *s->Q);
        ok = ok && s->Q;
        for (int i = 0; ok && i < 4; i++) { /* the target: weights (j + 1) / 78,
                                               so the simplex's center is no fit */
            s->b[i] = 0;
            for (int j = 0; j < 12; j++)
                s->b[i] += s->A[i * 12 + j] * (j + 1) / 78.0;
        }
        for (int t = 0; ok && t < 60; t++) /* other returns, 2% scale, uneven */
            for (int j = 0; j < 12; j++)
                for (int k = 0; k < 12; k++)
                    s->Q[j * 12 + k] += 4e-4 * (1 + 0.3 * j) * (1 + 0.3 * k) * R[t * 12 + j] *
                                        R[t * 12 + k] / 60;
        free(R);
        free(r);
        s->dom = (ircg_domain){.kind = IRCG_DOMAIN_SIMPLEX, .radius = 1};
        ok = ok && portfolio_fstar(s, &s->fstar);
        s->fstar_from = "every support of the 12 assets: the least variance among the "
                        "nonnegative KKT solutions (LAPACK)";
        break;
    }
    case SC_MC_SYNTH: {
        ircg_synth_ratings_spec sp = {60, 40, 3, 600, 1, 5, 0.5, 1, 1};
        ok = ircg_synth_ratings(&sp, &s->R, NULL) == IRCG_OK;
        s->delta = 5;
        s->fstar_from = "the unique inner solution (certified): f(-delta u v') at g_opt";
        break;
    }
    case SC_MC_PAPER: {
        ircg_read_options ro = {.format = IRCG_FORMAT_MOVIELENS};
        ok = ratings && ircg_ratings_read_file(ratings, &ro, &s->R, NULL) == IRCG_OK;
        s->delta = 5;
        s->fstar_from = "the unique inner solution (certified): f(-delta u v') at g_opt";
        break;
    }
    case SC_CANCER:
        ok = cancer_make(s, file, 20, 120, 200) && overparam_fstar(s, x, &s->fstar);
        if (ok) { /* a ball 1.5 times the solution's l1 norm: it does not bind */
            double x1 = 0;
            for (int j = 0; j < 120; j++)
                x1 += fabs(x[j]);
            s->dom = (ircg_domain){.kind = IRCG_DOMAIN_L1_BALL, .radius = round_up2(1.5 * x1)};
        }
        s->fstar_from = "closed form: the validation least squares on {A x = b} (LAPACK), "
                        "inside the l1 ball";
        break;
    default:
        break;
    }
    if (ok)
        ok = (s->pb = sc_problem(s, 1.0)) != NULL;
    if (ok && (kind == SC_MC_SYNTH || kind == SC_MC_PAPER))
        ok = unique_fstar(s, &s->fstar);
    if (!ok) {
        fprintf(stderr, "study scale: %s cannot be made\n", s->name);
        sc_free(s);
        return -1;
    }
    return 0;
}

void sc_free(sc_inst *s)
{
    ircg_problem_free(s->pb);
    free(s->A);
    free(s->b);
    free(s->Q);
    ircg_ratings_free(s->R);
    memset(s, 0, sizeof *s);
}

ircg_problem *sc_problem(const sc_inst *s, double c)
{
    double sc = sqrt(c);
    ircg_problem *pb = NULL;
    if (s->R) { /* ratings and delta: X, g and f all scale */
        ircg_ratings R = *s->R;
        R.val = malloc((size_t)R.nnz * sizeof *R.val);
        if (!R.val)
            return NULL;
        for (int64_t e = 0; e < R.nnz; e++)
            R.val[e] = s->R->val[e] * sc;
        ircg_problem_matrix_completion(&R, IRCG_OUTER_COLUMN_VARIANCE, s->delta * sc, &pb, NULL);
        free(R.val);
        return pb;
    }
    int mn = s->m * s->n, lr = s->kind == SC_LOGISTIC, vn = s->mv * s->n;
    double *A = malloc((size_t)mn * sizeof *A), *b = malloc((size_t)s->m * sizeof *b);
    double *Av = malloc((size_t)(vn ? vn : 1) * sizeof *Av);
    if (!A || !b || !Av) {
        free(A), free(b), free(Av);
        return NULL;
    }
    for (int i = 0; i < mn; i++)
        A[i] = s->A[i] * sc;
    for (int i = 0; i < s->m; i++)
        b[i] = lr ? s->b[i] : s->b[i] * sc;
    for (int i = 0; i < vn; i++) /* the validation features: in their units too */
        Av[i] = lr ? s->Av[i] * sc : s->Av[i];
    ircg_ls_data d = {.m = s->m, .n = s->n, .A_dense = A, .b = b};
    ircg_ls_data v = {.m = s->mv, .n = s->n, .A_dense = Av, .b = s->bv};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    if (s->mv > 0)
        o = (ircg_outer){.kind = IRCG_OUTER_VALIDATION, .val = &v};
    if (s->Q)
        o = (ircg_outer){.kind = IRCG_OUTER_QUADRATIC, .Q = s->Q};
    ircg_domain dom = s->dom;
    if (lr) /* logistic g has no data that scales it: the features' units */
        dom.radius /= sc;
    if (lr)
        ircg_problem_logistic(&d, &o, &dom, &pb, NULL);
    else
        ircg_problem_least_squares(&d, &o, &dom, &pb, NULL);
    free(A), free(b), free(Av);
    return pb;
}

typedef struct watch {
    const sc_inst *s;
    double c, fscale; /* f's scale at c: c for MC, 1/c for logistic units, 1 */
    double g0, ftol; /* g(x_0) of the start's certificate; f's tolerance */
    sc_run *out;
} watch;

static int on_iter(void *u, const ircg_iter_info *it)
{
    watch *w = u;
    if (!it->certified || w->out->iterations >= 0)
        return 0;
    double f = it->f_x / w->fscale;
    /* the inner target as the stop's inner_gap_rel reads it: relative to
     * g(x_0) - g_upper with the certificate's g_upper (the least g so far,
     * not the one of the first iterations: a first step that raises g left
     * no room below g(x_0), and the target was unreachable) */
    double tol = 1e-6 * (w->g0 - it->g_upper);
    if (it->inner_gap_x <= tol && fabs(f - w->s->fstar) <= w->ftol) {
        w->out->iterations = it->t;
        w->out->seconds = it->elapsed;
        return 1; /* found: no need to go on */
    }
    return 0;
}

/* IR-CG on the instance at scale c with settings st (its callback and
 * max_iter set here), from x0 when given (st->start then GIVEN); the end
 * iterate into x_end when given (least squares: n values). */
static int run(const sc_inst *s, double c, ircg_settings *st, int64_t max_iter,
               const double *x0, double *x_end, sc_run *out)
{
    ircg_problem *pb = sc_problem(s, c);
    ircg_solver *sv = NULL;
    ircg_iterate *it = NULL;
    ircg_info in;
    watch w = {.s = s, .c = c, .out = out};
    int rc = -1;
    *out = (sc_run){.iterations = -1, .seconds = NAN};
    w.fscale = s->R ? c : 1; /* logistic: the validation loss keeps its margins */
    st->max_iter = max_iter;
    st->certify_every = 16;
    st->callback = on_iter;
    st->callback_data = &w;
    if (x0) {
        st->start = IRCG_START_GIVEN;
        st->x0 = x0;
    }
    if (!pb || ircg_solver_new(pb, st, &sv, NULL) != IRCG_OK)
        goto done;
    /* g(x_0), of the start's certificate, which a first solve of 0
     * iterations cannot make, so of one iteration (its certificate at
     * t = 0 is what counts) */
    ircg_settings *ls = ircg_solver_settings(sv);
    ls->max_iter = 1;
    if (ircg_solve(sv, &in) != IRCG_OK)
        goto done;
    w.g0 = in.g_x0;
    /* 1e-3 of |f*|, or of f(x_0) when f* is 0 but for rounding (an exact
     * fit outside: the small overparam-regression has 30 unknowns for 20
     * rows of training and validation) */
    double f0 = fabs(in.cert_f_x / w.fscale);
    w.ftol = 1e-3 * (fabs(s->fstar) > 1e-12 * f0 ? fabs(s->fstar) : f0);
    ls->max_iter = max_iter;
    if (ircg_solve(sv, &in) != IRCG_OK)
        goto done;
    if (x_end && (s->R || ircg_solver_iterate(sv, IRCG_X, 1, &it) != IRCG_OK))
        goto done;
    if (x_end)
        memcpy(x_end, it->dense, (size_t)s->n * sizeof *x_end);
    out->varsigma = in.varsigma;
    out->ran = in.iterations;
    out->inner_gap = in.inner_gap_x;
    out->g_x0 = in.g_x0;
    out->f = in.f_x / w.fscale;
    out->inner_rel = in.inner_gap_x / fmax(in.g_x0 - in.g_upper, 0.0);
    out->outer_rel = fabs(in.f_x / w.fscale - s->fstar) / (w.ftol * 1e3);
    out->outer_signed = (in.f_x / w.fscale - s->fstar) / (w.ftol * 1e3);
    rc = 0;
done:
    ircg_iterate_free(it);
    ircg_solver_free(sv);
    ircg_problem_free(pb);
    return rc;
}

int sc_solve(const sc_inst *s, double c, double varsigma, ircg_step_rule rule,
             int64_t max_iter, sc_run *out)
{
    ircg_settings st;
    ircg_settings_default(&st);
    st.varsigma = varsigma;
    st.step_rule = rule;
    return run(s, c, &st, max_iter, NULL, NULL, out);
}

int sc_solve_rel(const sc_inst *s, double c, double varsigma_rel, ircg_step_rule rule,
                 int64_t max_iter, sc_run *out)
{
    ircg_settings st;
    ircg_settings_default(&st);
    st.varsigma = NAN;
    st.varsigma_rel = varsigma_rel;
    st.step_rule = rule;
    return run(s, c, &st, max_iter, NULL, NULL, out);
}

int sc_solve_held(const sc_inst *s, double sigma, ircg_step_rule rule, int64_t max_iter,
                  const double *x0, double *x_end, sc_run *out)
{
    ircg_settings st;
    ircg_settings_default(&st);
    st.varsigma = sigma;
    st.p = SC_P_HELD;
    st.step_rule = rule;
    return run(s, 1, &st, max_iter, x0, x_end, out);
}

/* f = 1/2 ||F x - d||^2 of a least-squares instance: F = I, d = 0 for
 * 1/2 ||x||^2, the validation rows otherwise.  0 when f is no such square
 * (the portfolio's quadratic form, logistic g, matrix completion). */
static int outer_square(const sc_inst *s, int *rows)
{
    if (s->R || s->Q || s->kind == SC_LOGISTIC)
        return 0;
    *rows = s->mv > 0 ? s->mv : s->n;
    return 1;
}

int sc_penalty_path(const sc_inst *s, double sigma, sc_path *out)
{
    int m = s->m, n = s->n, mf = 0;
    if (!outer_square(s, &mf) || !(sigma > 0))
        return 1;
    int rows = m + mf, ld = rows > n ? rows : n;
    double *M = calloc((size_t)rows * n, sizeof *M), *y = calloc((size_t)ld, sizeof *y);
    double *sv = malloc((size_t)(rows < n ? rows : n) * sizeof *sv), *x = malloc((size_t)n * sizeof *x);
    double rs = sqrt(sigma);
    lapack_int rank = 0;
    int rc = -1;
    if (!M || !y || !sv || !x)
        goto done;
    memcpy(M, s->A, (size_t)m * n * sizeof *M);
    memcpy(y, s->b, (size_t)m * sizeof *y);
    for (int i = 0; i < mf; i++) {
        if (s->mv > 0) {
            for (int j = 0; j < n; j++)
                M[(size_t)(m + i) * n + j] = rs * s->Av[(size_t)i * n + j];
            y[m + i] = rs * s->bv[i];
        } else {
            M[(size_t)(m + i) * n + i] = rs;
        }
    }
    if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, rows, n, 1, M, n, y, 1, sv, 1e-12, &rank) != 0 ||
        rank < 1)
        goto done;
    memcpy(x, y, (size_t)n * sizeof *x);
    *out = (sc_path){.cond = pow(sv[0] / sv[rank - 1], 2)};
    for (int j = 0; j < n; j++) {
        out->l1 += fabs(x[j]);
        out->l2 += x[j] * x[j];
    }
    out->l2 = sqrt(out->l2);
    for (int i = 0; i < m + (s->mv > 0 ? s->mv : 0); i++) {
        double r = -s->b[i];
        for (int j = 0; j < n; j++)
            r += s->A[(size_t)i * n + j] * x[j];
        *(i < m ? &out->g : &out->f) += 0.5 * r * r;
    }
    if (s->mv == 0)
        out->f = 0.5 * out->l2 * out->l2;
    /* a minimizer over R^n is one over X only when it lies in X */
    rc = (s->dom.kind == IRCG_DOMAIN_L1_BALL && out->l1 <= s->dom.radius) ||
         (s->dom.kind == IRCG_DOMAIN_L2_BALL && out->l2 <= s->dom.radius) ? 0 : 1;
done:
    free(M), free(y), free(sv), free(x);
    return rc;
}
