/*
 * test_ls.c -- the least squares problem class: its constants against
 * LAPACK computed here (L_g = ||A||_2^2 by an SVD, L_f = lambda_max(Q)),
 * validation messages, deep copies, the oracle's scalars and incrementally
 * kept residuals against direct computations, dense versus CSR, start
 * points, and checkpoints.
 */
/* make test-kernels: ls. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ircg.h"
#include "core/oracle.h"
#include "problems/ls/ls.h"
#include "test_num.h"

/* A dense A with about a third zeros, and its CSR form. */
typedef struct mat {
    int m, n;
    double *A, *b, *val;
    int64_t *rowptr;
    int32_t *colind;
} mat;

static void mat_make(mat *M, int m, int n, uint64_t seed)
{
    M->m = m;
    M->n = n;
    M->A = calloc((size_t)m * n, sizeof *M->A);
    M->b = calloc((size_t)m, sizeof *M->b);
    M->val = calloc((size_t)m * n, sizeof *M->val);
    M->colind = calloc((size_t)m * n, sizeof *M->colind);
    M->rowptr = calloc((size_t)m + 1, sizeof *M->rowptr);
    int64_t k = 0;
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
            double a = test_urand(&seed);
            if (fabs(a) < 0.33)
                continue;
            M->A[i * n + j] = a;
            M->val[k] = a;
            M->colind[k++] = j;
        }
        M->rowptr[i + 1] = k;
        M->b[i] = 2 * test_urand(&seed);
    }
}

static void mat_free(mat *M)
{
    free(M->A);
    free(M->b);
    free(M->val);
    free(M->colind);
    free(M->rowptr);
}

static ircg_ls_data dense_of(const mat *M)
{
    return (ircg_ls_data){.m = M->m, .n = M->n, .A_dense = M->A, .b = M->b};
}

static ircg_ls_data csr_of(const mat *M)
{
    return (ircg_ls_data){.m = M->m, .n = M->n, .A_rowptr = M->rowptr,
                          .A_colind = M->colind, .A_val = M->val, .b = M->b};
}

/* Largest singular value squared, by LAPACK's dgesvd (not the library's
 * Gram + dsyev path). */
static double svd_norm2_sq(const double *A, int m, int n)
{
    int k = m < n ? m : n;
    double *C = malloc((size_t)m * n * sizeof *C), *s = malloc((size_t)k * sizeof *s);
    double *sup = malloc((size_t)k * sizeof *sup), r = NAN;
    memcpy(C, A, (size_t)m * n * sizeof *C);
    if (LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', m, n, C, n, s, NULL, 1, NULL, 1,
                       sup) == 0)
        r = s[0] * s[0];
    free(C);
    free(s);
    free(sup);
    return r;
}

TEST(ls, info_and_constants_match_lapack)
{
    mat M;
    mat_make(&M, 30, 80, 1);
    double Lg = svd_norm2_sq(M.A, 30, 80);
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {IRCG_DOMAIN_BOX, 0, -1, 2};
    for (int sparse = 0; sparse < 2; sparse++) {
        ircg_ls_data d = sparse ? csr_of(&M) : dense_of(&M);
        ircg_problem *pb = NULL;
        ircg_problem_info in;
        REQUIRE(ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) == IRCG_OK);
        ircg_problem_get_info(pb, &in);
        CHECK_INT(in.kind, IRCG_PROBLEM_LEAST_SQUARES);
        CHECK_INT(in.n_rows, 30);
        CHECK_INT(in.n_cols, 80);
        CHECK_INT(in.dim, 80);
        CHECK_INT(in.n_observed, 30);
        CHECK_INT(in.outer, IRCG_OUTER_HALF_NORM_SQ);
        CHECK_INT(in.domain.kind, IRCG_DOMAIN_BOX);
        CHECK_REL(in.L_g, Lg, 1e-12, 0);
        CHECK_NEAR(in.L_f, 1, 0);
        CHECK_REL(in.diameter, 3 * sqrt(80.0), 1e-15, 0);
        ircg_problem_free(pb);
    }
    /* Overdetermined: the Gram matrix is A'A instead of AA'. */
    mat T;
    mat_make(&T, 50, 7, 2);
    ircg_ls_data dt = dense_of(&T);
    ircg_problem *pt = NULL;
    ircg_problem_info it;
    REQUIRE(ircg_problem_least_squares(&dt, &o, &dom, &pt, NULL) == IRCG_OK);
    ircg_problem_get_info(pt, &it);
    CHECK_REL(it.L_g, svd_norm2_sq(T.A, 50, 7), 1e-12, 0);
    ircg_problem_free(pt);
    mat_free(&T);
    mat_free(&M);
}

TEST(ls, quadratic_outer_lipschitz)
{
    enum { N = 9 };
    uint64_t s = 4;
    double B[4 * N], Q[N * N], q[N];
    for (int i = 0; i < 4 * N; i++)
        B[i] = test_urand(&s);
    for (int i = 0; i < N; i++) { /* Q = B'B: PSD of rank 4 */
        q[i] = test_urand(&s);
        for (int j = 0; j < N; j++) {
            Q[i * N + j] = 0;
            for (int k = 0; k < 4; k++)
                Q[i * N + j] += B[k * N + i] * B[k * N + j];
        }
    }
    mat M;
    mat_make(&M, 5, N, 3);
    ircg_ls_data d = dense_of(&M);
    ircg_outer o = {.kind = IRCG_OUTER_QUADRATIC, .Q = Q, .q = q};
    ircg_domain dom = {IRCG_DOMAIN_L1_BALL, 2, 0, 0};
    ircg_problem *pb = NULL;
    ircg_problem_info in;
    REQUIRE(ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) == IRCG_OK);
    ircg_problem_get_info(pb, &in);
    CHECK_REL(in.L_f, svd_norm2_sq(B, 4, N), 1e-12, 0); /* ||Q|| = ||B||^2 */
    ircg_problem_free(pb);
    mat_free(&M);
}

/* Beyond the exact path's sizes the library bounds ||A||^2 by Lanczos
 * (test_ls_norm.c); on a CSR matrix with one entry per row, A'A is
 * diagonal with three distinct eigenvalues, the Krylov space is invariant
 * after three steps, and ||A||^2 is the largest column sum of squares:
 * here column 7 with 3^2 + 1 = 10 (Hoelder's bound would give 12). */
TEST(ls, iterative_bound_for_large_csr)
{
    int m = 3000, n = 2000;
    int64_t *rp = malloc((size_t)(m + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)m * sizeof *ci);
    double *v = malloc((size_t)m * sizeof *v), *b = calloc((size_t)m, sizeof *b);
    for (int i = 0; i < m; i++) {
        rp[i] = i;
        ci[i] = i % n;
        v[i] = i == 7 ? 3.0 : 1.0;
    }
    rp[m] = m;
    ircg_ls_data d = {.m = m, .n = n, .A_rowptr = rp, .A_colind = ci, .A_val = v, .b = b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {IRCG_DOMAIN_L2_BALL, 1, 0, 0};
    ircg_problem *pb = NULL;
    ircg_problem_info in;
    REQUIRE(ircg_problem_least_squares(&d, &o, &dom, &pb, NULL) == IRCG_OK);
    ircg_problem_get_info(pb, &in);
    CHECK(in.L_g >= 10.0);
    CHECK(in.L_g <= 10.0 * (1 + 1e-5));
    ircg_problem_free(pb);
    free(rp);
    free(ci);
    free(v);
    free(b);
}

/* Build with one member spoiled and check the field the error names. */
typedef struct bad_case {
    const char *field;
    ircg_ls_data d;
    ircg_outer o;
    ircg_domain dom;
} bad_case;

TEST(ls, validation_names_the_member)
{
    mat M;
    mat_make(&M, 4, 3, 9);
    double Anan[12], bnan[4], cnan[3], Qns[9] = {1, 2, 0, 0, 1, 0, 0, 0, 1};
    double Qneg[9] = {1, 0, 0, 0, -1, 0, 0, 0, 1}, Qok[9] = {1, 0, 0, 0, 2, 0, 0, 0, 3};
    int64_t rp_bad[5];
    int32_t ci_bad[12];
    double val_bad[12];
    memcpy(Anan, M.A, sizeof Anan);
    Anan[5] = NAN;
    memcpy(bnan, M.b, sizeof bnan);
    bnan[3] = INFINITY;
    cnan[0] = cnan[1] = 0;
    cnan[2] = NAN;
    memcpy(rp_bad, M.rowptr, sizeof rp_bad);
    memcpy(ci_bad, M.colind, sizeof ci_bad);
    memcpy(val_bad, M.val, sizeof val_bad);
    ircg_ls_data good = dense_of(&M), csr = csr_of(&M);
    ircg_outer half = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain ball = {IRCG_DOMAIN_L2_BALL, 1, 0, 0};
    bad_case c[40];
    int n = 0;
    for (int i = 0; i < 40; i++)
        c[i] = (bad_case){NULL, good, half, ball};
    c[n].field = "/m"; c[n++].d.m = 0;
    c[n].field = "/n"; c[n++].d.n = -1;
    c[n].field = "/A"; c[n++].d.A_dense = NULL;              /* neither */
    c[n] = (bad_case){"/A", csr, half, ball}; c[n++].d.A_dense = M.A; /* both */
    c[n].field = "/A"; c[n++].d.A_dense = Anan;
    c[n].field = "/b"; c[n++].d.b = NULL;
    c[n].field = "/b"; c[n++].d.b = bnan;
    c[n] = (bad_case){"/A/colind", csr, half, ball}; c[n++].d.A_colind = ci_bad;
    ci_bad[2] = 3;
    c[n] = (bad_case){"/A/rowptr", csr, half, ball}; c[n++].d.A_rowptr = rp_bad;
    rp_bad[2] = rp_bad[1] - 1;
    c[n] = (bad_case){"/A/val", csr, half, ball}; c[n++].d.A_val = val_bad;
    val_bad[0] = NAN;
    c[n] = (bad_case){"/A", csr, half, ball}; c[n++].d.A_val = NULL;
    c[n].field = "/outer/kind"; c[n++].o.kind = IRCG_OUTER_COLUMN_VARIANCE;
    c[n].field = "/outer/c"; c[n++].o = (ircg_outer){IRCG_OUTER_DIST_SQ, NULL, NULL, NULL, NULL};
    c[n].field = "/outer/c"; c[n++].o = (ircg_outer){IRCG_OUTER_DIST_SQ, cnan, NULL, NULL, NULL};
    c[n].field = "/outer/Q"; c[n++].o = (ircg_outer){IRCG_OUTER_QUADRATIC, NULL, NULL, NULL, NULL};
    c[n].field = "/outer/Q"; c[n++].o = (ircg_outer){IRCG_OUTER_QUADRATIC, NULL, Qns, NULL, NULL};
    c[n].field = "/outer/Q"; c[n++].o = (ircg_outer){IRCG_OUTER_QUADRATIC, NULL, Qneg, NULL, NULL};
    c[n].field = "/outer/q"; c[n++].o = (ircg_outer){IRCG_OUTER_QUADRATIC, NULL, Qok, cnan, NULL};
    ircg_ls_data vnarrow = dense_of(&M), vnan = dense_of(&M);
    vnarrow.n = 2; /* the first 2 columns of A: wrong width */
    vnan.b = bnan;
    c[n].field = "/outer/val"; c[n++].o = (ircg_outer){IRCG_OUTER_VALIDATION, NULL, NULL, NULL, NULL};
    c[n].field = "/outer/val/n"; c[n++].o = (ircg_outer){IRCG_OUTER_VALIDATION, NULL, NULL, NULL, &vnarrow};
    c[n].field = "/outer/val"; c[n++].o = (ircg_outer){IRCG_OUTER_VALIDATION, NULL, NULL, NULL, &vnan};
    c[n].field = "/domain/radius"; c[n++].dom.radius = 0;
    c[n].field = "/domain/radius"; c[n++].dom = (ircg_domain){IRCG_DOMAIN_SIMPLEX, NAN, 0, 0};
    c[n].field = "/domain/upper"; c[n++].dom = (ircg_domain){IRCG_DOMAIN_BOX, 0, 2, 1};
    c[n].field = "/domain/lower"; c[n++].dom = (ircg_domain){IRCG_DOMAIN_BOX, 0, NAN, 1};
    c[n].field = "/domain/kind"; c[n++].dom = (ircg_domain){IRCG_DOMAIN_NUCLEAR_BALL, 1, 0, 0};
    for (int i = 0; i < n; i++) {
        ircg_problem *pb = (ircg_problem *)&c[i]; /* must be reset to NULL */
        ircg_diag dg = {0};
        ircg_error e = ircg_problem_least_squares(&c[i].d, &c[i].o, &c[i].dom, &pb, &dg);
        CHECK_INT(e, IRCG_ERR_INVALID);
        CHECK(pb == NULL);
        if (strcmp(dg.field, c[i].field) != 0)
            th_fail(__FILE__, __LINE__, "case %d: field \"%s\" (%s), expected \"%s\"",
                    i, dg.field, dg.message, c[i].field);
        CHECK(dg.message[0] != 0);
        ircg_problem_free(pb);
    }
    /* and the untouched versions are accepted */
    ircg_problem *pb = NULL;
    ircg_outer qo = {IRCG_OUTER_QUADRATIC, NULL, Qok, NULL, NULL};
    CHECK_INT(ircg_problem_least_squares(&csr, &qo, &ball, &pb, NULL), IRCG_OK);
    ircg_problem_free(pb);
    pb = NULL;
    ircg_outer vo = {IRCG_OUTER_VALIDATION, NULL, NULL, NULL, &csr};
    CHECK_INT(ircg_problem_least_squares(&good, &vo, &ball, &pb, NULL), IRCG_OK);
    ircg_problem_free(pb);
    mat_free(&M);
}

/* Run T iterations; return x_T (malloc'ed). */
static double *run_x(const ircg_problem *pb, ircg_step_rule rule, int T,
                     ircg_which which)
{
    ircg_settings s;
    ircg_solver *sv = NULL;
    ircg_iterate *it = NULL;
    ircg_info info;
    double *x = NULL;
    ircg_settings_default(&s);
    s.step_rule = rule;
    s.max_iter = T;
    if (ircg_solver_new(pb, &s, &sv, NULL) != IRCG_OK)
        return NULL;
    if (ircg_solve(sv, &info) == IRCG_OK &&
        ircg_solver_iterate(sv, which, 1, &it) == IRCG_OK) {
        x = malloc((size_t)it->dim * sizeof *x);
        memcpy(x, it->dense, (size_t)it->dim * sizeof *x);
    }
    ircg_iterate_free(it);
    ircg_solver_free(sv);
    return x;
}

TEST(ls, deep_copies_and_dense_equals_csr)
{
    mat M;
    mat_make(&M, 12, 20, 21);
    double c[20];
    uint64_t s = 8;
    for (int i = 0; i < 20; i++)
        c[i] = test_urand(&s);
    ircg_outer o = {IRCG_OUTER_DIST_SQ, c, NULL, NULL, NULL};
    ircg_domain dom = {IRCG_DOMAIN_L1_BALL, 1.5, 0, 0};
    ircg_ls_data dd = dense_of(&M), dc = csr_of(&M);
    ircg_problem *pd = NULL, *pc = NULL;
    REQUIRE(ircg_problem_least_squares(&dd, &o, &dom, &pd, NULL) == IRCG_OK);
    REQUIRE(ircg_problem_least_squares(&dc, &o, &dom, &pc, NULL) == IRCG_OK);
    double *x1 = run_x(pd, IRCG_STEP_LINE_SEARCH, 300, IRCG_X);
    /* spoil every input: the problems own copies */
    for (int i = 0; i < 12 * 20; i++)
        M.A[i] = M.val[i] = 1e300;
    for (int i = 0; i < 12; i++)
        M.b[i] = NAN;
    for (int i = 0; i < 20; i++)
        c[i] = NAN;
    double *x2 = run_x(pd, IRCG_STEP_LINE_SEARCH, 300, IRCG_X);
    double *x3 = run_x(pc, IRCG_STEP_LINE_SEARCH, 300, IRCG_X);
    REQUIRE(x1 && x2 && x3);
    for (int i = 0; i < 20; i++) {
        CHECK(x1[i] == x2[i]);
        CHECK_NEAR(x3[i], x1[i], 1e-10);
    }
    free(x1);
    free(x2);
    free(x3);
    ircg_problem_free(pd);
    ircg_problem_free(pc);
    mat_free(&M);
}

/* A CSR A of few columns is also kept by columns and A'r made by gathers
 * (ls.h): against the row-wise scatter, with repeated columns among
 * consecutive rows, the same bits. */
TEST(ls, column_gathers_equal_the_row_scatter)
{
    enum { R = 300, C = 7 };
    static int64_t rp[R + 1];
    static int32_t ci[R * 3];
    static double v[R * 3], b[R], r[R];
    uint64_t s = 11;
    int64_t k = 0;
    for (int i = 0; i < R; i++) {
        rp[i] = k;
        for (int j = 0; j < C; j++)
            if (test_urand(&s) > 0.4 || j == i % C) {
                ci[k] = j;
                v[k++] = test_urand(&s) * (1 + i % 5);
                if (k - rp[i] == 3)
                    break;
            }
        b[i] = test_urand(&s);
        r[i] = test_urand(&s) * 1e3;
    }
    rp[R] = k;
    ircg_ls_data in = {.m = R, .n = C, .A_rowptr = rp, .A_colind = ci, .A_val = v, .b = b};
    ircg_outer o = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ircg_domain dom = {IRCG_DOMAIN_L2_BALL, 1, 0, 0};
    ls_data *d = NULL;
    double Lf, Lg, by_cols[C], by_rows[C];
    REQUIRE(ls_data_new(&in, &o, &dom, &d, &Lf, &Lg, NULL) == IRCG_OK);
    REQUIRE(d->colptr != NULL);
    ls_rmatvec(d, r, by_cols);
    int64_t *cp = d->colptr;
    d->colptr = NULL; /* the scatter */
    ls_rmatvec(d, r, by_rows);
    d->colptr = cp;
    CHECK(memcmp(by_cols, by_rows, sizeof by_cols) == 0);
    ls_data_free(d);
}
