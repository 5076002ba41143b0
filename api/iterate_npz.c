/*
 * iterate_npz.c -- the 'x' and 'z' snapshots: an iterate as a NumPy .npz
 * (npz.c), documented for users in api/SPEC.md ("Snapshots") and read by
 * clients/python/read_snapshot.py with the standard library alone.
 *
 * Members (.npy arrays, float64 unless said otherwise):
 *   ircg_format  int64 ()   1, this layout
 *   problem      int64 ()   0 matrix completion, 1 least squares,
 *                           2 logistic regression (ircg_problem_kind)
 *   matrix completion, X = a0 X0 + P diag(w) Q' (see ircg.h):
 *     shape      int64 (2,) n_rows, n_cols
 *     a0         ()         the coefficient of X0
 *     x0_diag    (m0,)      X0's diagonal, m0 = min(n_rows, n_cols)
 *     w          (k,)       the atoms' weights
 *     P          (n_rows, k), Q (n_cols, k)  the atoms (columns)
 *     a compacted problem's (ircg_iterate): P (len(rows), k) on
 *     rows       int64 (r,)  the rows of X that P's rows are, ascending
 *     P_other    (k,)        the row of P every row not listed has
 *                            (absent: zero)
 *     and Q (len(cols), k) on
 *     cols       int64 (c,)  the columns of X that Q's rows are
 *   (never X itself: n_rows x n_cols numbers)
 *   least squares and logistic regression:
 *     x          (n,)       the vector
 * Snapshots stored before this layout (magic "IRCGITR1") are served as
 * they were stored; api/SPEC.md describes them too.
 */
#include <stdlib.h>

#include "npz.h"

/* ids as int64 (the .npy arrays are 8-byte values); NULL when out of
 * memory. */
static int64_t *wide(const int32_t *ids, int64_t n)
{
    int64_t *w = malloc(((size_t)n + 1) * sizeof *w);
    for (int64_t i = 0; w && i < n; i++)
        w[i] = ids[i];
    return w;
}

int api_iterate_npz(const ircg_iterate *it, void **out, size_t *len)
{
    const int64_t version = 1;
    const int64_t kind = (int64_t)it->kind;
    const int vector = it->kind != IRCG_PROBLEM_MATRIX_COMPLETION;
    const int64_t n = it->n_rows, p = it->n_cols, k = vector ? 0 : it->rank;
    const int64_t shape[2] = {n, p}, m0 = n < p ? n : p;
    const int64_t pr = it->row_ids ? it->rows_held : n, qr = it->col_ids ? it->cols_held : p;
    int64_t *rows = it->row_ids && !vector ? wide(it->row_ids, pr) : NULL;
    int64_t *cols = it->col_ids && !vector ? wide(it->col_ids, qr) : NULL;
    api_npz_array a[11] = {
        {"ircg_format", 1, 0, {0, 0}, 1, &version},
        {"problem", 1, 0, {0, 0}, 1, &kind},
    };
    size_t na = 2;
    int rc = -1;
    if (vector) {
        a[na++] = (api_npz_array){"x", 0, 1, {it->dim, 0}, (size_t)it->dim, it->dense};
    } else {
        a[na++] = (api_npz_array){"shape", 1, 1, {2, 0}, 2, shape};
        a[na++] = (api_npz_array){"a0", 0, 0, {0, 0}, 1, &it->a0};
        a[na++] = (api_npz_array){"x0_diag", 0, 1, {m0, 0}, (size_t)m0, it->x0_diag};
        a[na++] = (api_npz_array){"w", 0, 1, {k, 0}, (size_t)k, it->w};
        a[na++] = (api_npz_array){"P", 0, 2, {pr, k}, (size_t)(pr * k), it->P};
        a[na++] = (api_npz_array){"Q", 0, 2, {qr, k}, (size_t)(qr * k), it->Q};
        if (rows)
            a[na++] = (api_npz_array){"rows", 1, 1, {pr, 0}, (size_t)pr, rows};
        if (cols)
            a[na++] = (api_npz_array){"cols", 1, 1, {qr, 0}, (size_t)qr, cols};
        if (it->P_other)
            a[na++] = (api_npz_array){"P_other", 0, 1, {k, 0}, (size_t)k, it->P_other};
    }
    if ((!it->row_ids || rows || vector) && (!it->col_ids || cols || vector))
        rc = api_npz_write(a, na, out, len);
    free(rows);
    free(cols);
    return rc;
}
