/*
 * fuzz_npy.c -- NumPy's .npy and .npz as uploads bring them (api/dataset.h):
 * the input written to a file, then checked (api_npy_check, bounded
 * memory), probed and read as a matrix and as a vector.  Owed: a clean
 * refusal with a message, or an array whose every value is finite and
 * within 1e30, a CSR structure inside its shape, and the same shape from
 * the check, the probe and the read; the check and the read of a matrix
 * agree on whether the file is sound.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"
#include "fuzz.h"

static int write_input(const uint8_t *data, size_t size, char *path, size_t cap)
{
    snprintf(path, cap, "%s/input.npz", fuzz_tmpdir());
    FILE *f = fopen(path, "wb");
    int ok = f && (size == 0 || fwrite(data, 1, size, f) == size);
    if (f)
        ok = fclose(f) == 0 && ok;
    return ok ? 0 : -1;
}

static void check_matrix(const api_matrix *a, const api_npy_shape *sh)
{
    FUZZ_CHECK(a->m == sh->rows && a->n == sh->cols && a->nnz == sh->nnz);
    if (a->A) {
        for (int64_t k = 0; k < a->m * a->n; k++)
            FUZZ_CHECK(isfinite(a->A[k]) && fabs(a->A[k]) <= 1e30);
        return;
    }
    FUZZ_CHECK(a->rowptr && a->rowptr[0] == 0 && a->rowptr[a->m] == a->nnz);
    for (int64_t i = 0; i < a->m; i++)
        FUZZ_CHECK(a->rowptr[i] <= a->rowptr[i + 1]);
    for (int64_t k = 0; k < a->nnz; k++)
        FUZZ_CHECK(a->colind[k] >= 0 && a->colind[k] < a->n && isfinite(a->val[k]) &&
                   fabs(a->val[k]) <= 1e30);
}

FUZZ_TARGET(npy)
{
    char path[600];
    api_npy_shape sh, pr;
    api_matrix a;
    api_read_error e;
    double *v = NULL;
    int64_t n = 0;
    if (write_input(data, size, path, sizeof path) != 0)
        return 0;
    memset(&e, 0, sizeof e);
    int checked = api_npy_check(path, 1e30, NULL, &sh, &e) == 0;
    FUZZ_CHECK(checked || e.message[0]);
    if (checked) {
        FUZZ_CHECK(api_npy_probe(path, &pr, &e) == 0);
        FUZZ_CHECK(pr.rows == sh.rows && pr.cols == sh.cols && pr.nnz == sh.nnz);
    }
    memset(&e, 0, sizeof e);
    int read = api_npy_read_matrix(path, 1e30, NULL, &a, &e) == 0;
    FUZZ_CHECK(read || e.message[0]);
    FUZZ_CHECK(read == (checked && sh.ndim == 2));
    if (read) {
        check_matrix(&a, &sh);
        api_matrix_free(&a);
    }
    if (api_npy_read_vector(path, 1e30, NULL, &v, &n, &e) == 0) {
        FUZZ_CHECK(checked && n == sh.rows && sh.cols == 1);
        for (int64_t k = 0; k < n; k++)
            FUZZ_CHECK(isfinite(v[k]) && fabs(v[k]) <= 1e30);
        free(v);
    }
    return 0;
}
