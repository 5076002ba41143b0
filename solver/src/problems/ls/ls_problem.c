/* ls_problem.c -- ls_problem_new(): validation of the data,
 * deep copies, and the problem's constants (L_f, L_g, diameter). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/domain.h"
#include "problems/ls/ls.h"

void ls_data_free(void *data)
{
    ls_data *d = data;
    if (!d)
        return;
    free(d->A);
    free(d->rowptr);
    free(d->colind);
    free(d->val);
    free(d->colptr);
    free(d->rowind);
    free(d->cval);
    free(d->b);
    free(d->c);
    free(d->Q);
    free(d->q);
    ls_data_free(d->vset);
    free(d);
}

static int all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* A NULL-safe copy; *ok is cleared when an allocation fails. */
static void *copy_or_null(const void *src, size_t bytes, int *ok)
{
    if (!src)
        return NULL;
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        *ok = 0;
        return NULL;
    }
    memcpy(p, src, bytes);
    return p;
}

static ircg_error check_csr(const ircg_ls_data *in, ircg_diag *diag)
{
    const int64_t *rp = in->A_rowptr;
    if (!in->A_colind || !in->A_val)
        return slv_fail(diag, IRCG_ERR_INVALID, "/A",
                         "CSR A needs rowptr, colind and val");
    if (rp[0] != 0)
        return slv_fail(diag, IRCG_ERR_INVALID, "/A/rowptr",
                         "rowptr[0] must be 0, got %lld", (long long)rp[0]);
    for (int i = 0; i < in->m; i++)
        if (rp[i + 1] < rp[i])
            return slv_fail(diag, IRCG_ERR_INVALID, "/A/rowptr",
                             "rowptr decreases at row %d (%lld > %lld)", i,
                             (long long)rp[i], (long long)rp[i + 1]);
    for (int64_t k = 0; k < rp[in->m]; k++) {
        if (in->A_colind[k] < 0 || in->A_colind[k] >= in->n)
            return slv_fail(diag, IRCG_ERR_INVALID, "/A/colind",
                             "column index %d at position %lld is outside "
                             "[0, %d)", (int)in->A_colind[k], (long long)k, in->n);
        if (!isfinite(in->A_val[k]))
            return slv_fail(diag, IRCG_ERR_INVALID, "/A/val",
                             "value at position %lld is not finite", (long long)k);
    }
    return IRCG_OK;
}

static ircg_error check_data(const ircg_ls_data *in, ircg_diag *diag)
{
    if (!in)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "data is NULL");
    if (in->m < 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/m", "m must be >= 1, got %d", in->m);
    if (in->n < 1)
        return slv_fail(diag, IRCG_ERR_INVALID, "/n", "n must be >= 1, got %d", in->n);
    int dense = in->A_dense != NULL;
    int sparse = in->A_rowptr || in->A_colind || in->A_val;
    if (dense == sparse)
        return slv_fail(diag, IRCG_ERR_INVALID, "/A", "give A either dense or "
                         "CSR (rowptr, colind, val), exactly one of the two");
    if (dense && !all_finite(in->A_dense, (size_t)in->m * (size_t)in->n))
        return slv_fail(diag, IRCG_ERR_INVALID, "/A", "A has a non-finite entry");
    if (sparse && !in->A_rowptr)
        return slv_fail(diag, IRCG_ERR_INVALID, "/A/rowptr", "CSR A needs rowptr");
    if (sparse) {
        ircg_error err = check_csr(in, diag);
        if (err != IRCG_OK)
            return err;
    }
    if (!in->b || !all_finite(in->b, (size_t)in->m))
        return slv_fail(diag, IRCG_ERR_INVALID, "/b",
                         "b must be given (length m) with finite entries");
    return IRCG_OK;
}

static ircg_error check_data(const ircg_ls_data *in, ircg_diag *diag);

/* The validation rows: valid data of n columns; errors under /outer/val. */
static ircg_error check_val(const ircg_ls_data *v, int n, ircg_diag *diag)
{
    ircg_diag d = {0};
    if (!v)
        return slv_fail(diag, IRCG_ERR_INVALID, "/outer/val",
                         "VALIDATION needs the held-out rows (val)");
    if (check_data(v, &d) != IRCG_OK)
        return slv_fail(diag, IRCG_ERR_INVALID, "/outer/val", "%s%s%s", d.field,
                         d.field[0] ? ": " : "", d.message);
    if (v->n != n)
        return slv_fail(diag, IRCG_ERR_INVALID, "/outer/val/n",
                         "the validation rows have %d columns, A has %d", v->n, n);
    return IRCG_OK;
}

static ircg_error check_outer(const ircg_outer *o, int n, ircg_diag *diag)
{
    if (!o)
        return slv_fail(diag, IRCG_ERR_INVALID, "/outer", "outer is NULL");
    switch (o->kind) {
    case IRCG_OUTER_HALF_NORM_SQ:
        return IRCG_OK;
    case IRCG_OUTER_DIST_SQ:
        if (!o->c || !all_finite(o->c, (size_t)n))
            return slv_fail(diag, IRCG_ERR_INVALID, "/outer/c",
                             "DIST_SQ needs c (length n) with finite entries");
        return IRCG_OK;
    case IRCG_OUTER_QUADRATIC:
        if (!o->Q || !all_finite(o->Q, (size_t)n * (size_t)n))
            return slv_fail(diag, IRCG_ERR_INVALID, "/outer/Q",
                             "QUADRATIC needs Q (n x n) with finite entries");
        if (o->q && !all_finite(o->q, (size_t)n))
            return slv_fail(diag, IRCG_ERR_INVALID, "/outer/q",
                             "q has a non-finite entry");
        return IRCG_OK;
    case IRCG_OUTER_VALIDATION:
        return check_val(o->val, n, diag);
    case IRCG_OUTER_COLUMN_VARIANCE:
        return slv_fail(diag, IRCG_ERR_INVALID, "/outer/kind",
                         "column variance is an outer objective of matrix "
                         "completion, not of least squares");
    default:
        return slv_fail(diag, IRCG_ERR_INVALID, "/outer/kind",
                         "unknown outer objective %d", (int)o->kind);
    }
}

static ircg_error check_domain(const ircg_domain *dom, ircg_diag *diag)
{
    ircg_error err = slv_domain_validate(dom, diag);
    if (err == IRCG_OK && !slv_domain_is_vector(dom))
        err = slv_fail(diag, IRCG_ERR_INVALID, "/domain/kind",
                        "least squares needs an l2 ball, l1 ball, simplex "
                        "or box (the nuclear ball is for matrices)");
    return err;
}

static ls_data *copy_data(const ircg_ls_data *in, const ircg_outer *o,
                          const ircg_domain *dom);

/* d->repeats: whether a row of the CSR A names a column twice (ls.h), by
 * the last row seen in each column.  0 when out of memory. */
static int find_repeats(ls_data *d)
{
    int *last = malloc((size_t)d->n * sizeof *last);
    if (!last)
        return 0;
    for (int j = 0; j < d->n; j++)
        last[j] = -1;
    for (int i = 0; i < d->m && !d->repeats; i++)
        for (int64_t k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
            d->repeats |= last[d->colind[k]] == i;
            last[d->colind[k]] = i;
        }
    free(last);
    return 1;
}

/* d's CSR A by columns (ls.h): a counting sort of the entries, rows in
 * ascending order within each column.  0 when out of memory. */
static int by_columns(ls_data *d)
{
    int64_t nnz = d->rowptr[d->m];
    d->colptr = calloc((size_t)d->n + 1, sizeof *d->colptr);
    d->rowind = malloc((size_t)(nnz ? nnz : 1) * sizeof *d->rowind);
    d->cval = malloc((size_t)(nnz ? nnz : 1) * sizeof *d->cval);
    if (!d->colptr || !d->rowind || !d->cval)
        return 0;
    for (int64_t k = 0; k < nnz; k++)
        d->colptr[d->colind[k] + 1]++;
    for (int j = 0; j < d->n; j++)
        d->colptr[j + 1] += d->colptr[j];
    int64_t *next = malloc(((size_t)d->n + 1) * sizeof *next);
    if (!next)
        return 0;
    memcpy(next, d->colptr, ((size_t)d->n + 1) * sizeof *next);
    for (int i = 0; i < d->m; i++)
        for (int64_t k = d->rowptr[i]; k < d->rowptr[i + 1]; k++) {
            int64_t p = next[d->colind[k]]++;
            d->rowind[p] = i;
            d->cval[p] = d->val[k];
        }
    free(next);
    return 1;
}

/* The validation rows as an ls_data of their own. */
static ls_data *copy_val(const ircg_ls_data *v, const ircg_domain *dom, int *ok)
{
    ircg_outer none = {.kind = IRCG_OUTER_HALF_NORM_SQ};
    ls_data *d = copy_data(v, &none, dom);
    if (!d)
        *ok = 0;
    return d;
}

static ls_data *copy_data(const ircg_ls_data *in, const ircg_outer *o,
                          const ircg_domain *dom)
{
    size_t m = (size_t)in->m, n = (size_t)in->n, nnz = 0;
    int ok = 1;
    ls_data *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->m = in->m;
    d->n = in->n;
    d->dom = *dom;
    d->outer = o->kind;
    if (in->A_rowptr)
        nnz = (size_t)in->A_rowptr[in->m];
    d->A = copy_or_null(in->A_dense, m * n * sizeof(double), &ok);
    d->rowptr = copy_or_null(in->A_rowptr, (m + 1) * sizeof(int64_t), &ok);
    if (in->A_rowptr) {
        d->colind = copy_or_null(in->A_colind, nnz * sizeof(int32_t), &ok);
        d->val = copy_or_null(in->A_val, nnz * sizeof(double), &ok);
    }
    if (ok && in->A_rowptr && in->n <= IRCG_LS_BY_COLUMNS_MAX_N)
        ok = by_columns(d);
    if (ok && in->A_rowptr)
        ok = find_repeats(d);
    d->b = copy_or_null(in->b, m * sizeof(double), &ok);
    if (o->kind == IRCG_OUTER_DIST_SQ)
        d->c = copy_or_null(o->c, n * sizeof(double), &ok);
    if (o->kind == IRCG_OUTER_QUADRATIC) {
        d->Q = copy_or_null(o->Q, n * n * sizeof(double), &ok);
        d->q = copy_or_null(o->q, n * sizeof(double), &ok);
    }
    if (o->kind == IRCG_OUTER_VALIDATION)
        d->vset = copy_val(o->val, dom, &ok);
    if (!ok) {
        ls_data_free(d);
        return NULL;
    }
    return d;
}

ircg_error ls_data_new(const ircg_ls_data *data, const ircg_outer *outer,
                       const ircg_domain *domain, ls_data **out, double *L_f,
                       double *L_g, ircg_diag *diag)
{
    ls_data *d = NULL;
    ircg_error err;

    *out = NULL;
    *L_f = 1.0;
    if ((err = check_data(data, diag)) != IRCG_OK ||
        (err = check_outer(outer, data->n, diag)) != IRCG_OK ||
        (err = check_domain(domain, diag)) != IRCG_OK)
        return err;
    double mu_f = 1.0; /* the norms' and distances' curvature */
    if (outer->kind == IRCG_OUTER_QUADRATIC &&
        (err = ls_check_Q(outer->Q, data->n, L_f, &mu_f, diag)) != IRCG_OK)
        return err;
    if (!(d = copy_data(data, outer, domain)))
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    d->mu_f = mu_f;
    if ((err = ls_norm2_sq(d, L_g, &d->mu_g)) != IRCG_OK) {
        err == IRCG_ERR_STOPPED ? slv_stopped(diag, "/A")
                                : slv_fail(diag, err, "/A", "computing ||A||_2 failed");
        goto fail;
    }
    if (d->vset && (err = ls_norm2_sq(d->vset, L_f, &d->mu_f)) != IRCG_OK) {
        err == IRCG_ERR_STOPPED ? slv_stopped(diag, "/outer/val")
                                : slv_fail(diag, err, "/outer/val", "computing ||A_v||_2 failed");
        goto fail;
    }
    *out = d;
    return IRCG_OK;
fail:
    ls_data_free(d);
    return err;
}

ircg_error ls_problem_of(ls_data *d, ircg_problem_kind kind, const slv_oracle_ops *ops,
                         double L_f, double L_g, ircg_problem **out, ircg_diag *diag)
{
    ircg_problem *pb = calloc(1, sizeof *pb);
    if (!pb) {
        ls_data_free(d);
        return slv_fail(diag, IRCG_ERR_NOMEM, "", "out of memory");
    }
    pb->info = (ircg_problem_info){
        .kind = kind, .n_rows = d->m, .n_cols = d->n, .dim = d->n, .n_observed = d->m,
        .held_rows = d->m, .held_cols = d->n,
        .domain = d->dom, .outer = d->outer, .L_f = L_f, .L_g = L_g,
        .diameter = slv_domain_diameter(&d->dom, d->n),
    };
    pb->ops = ops;
    pb->data = d;
    pb->free_data = ls_data_free;
    if (!(L_f > 0) && d->outer == IRCG_OUTER_QUADRATIC && d->q) { /* f = q'x */
        double s = 0;
        for (int i = 0; i < d->n; i++)
            s += d->q[i] * d->q[i];
        pb->f_slope = sqrt(s);
    }
    *out = pb;
    return IRCG_OK;
}

ircg_error ls_problem_new(const ircg_ls_data *data, const ircg_outer *outer,
                          const ircg_domain *domain, ircg_problem **out,
                          ircg_diag *diag)
{
    ls_data *d = NULL;
    double L_f, L_g;
    ircg_error err;

    if (!out)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "out is NULL");
    *out = NULL;
    if ((err = ls_data_new(data, outer, domain, &d, &L_f, &L_g, diag)) != IRCG_OK)
        return err;
    assert(d != NULL);
    return ls_problem_of(d, IRCG_PROBLEM_LEAST_SQUARES, &slv_ls_ops, L_f, L_g, out, diag);
}
