/*
 * fuzz_libsvm.c -- the LIBSVM reader through ircg_svm_read_buffer: a clean
 * error with a message and its line, or m >= 1 rows in CSR whose indices
 * increase along each row inside the n columns, every value and label
 * finite; the same rows (or the same first error) when the input is cut
 * into ranges of one line and of 7 bytes on 3 threads (the parallel
 * reader's promise); the probe never crashes and agrees when it read all.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "inputs/readers.h"
#include "ircg.h"

static void check_rows(const ircg_svm *s)
{
    FUZZ_CHECK(s->m >= 1 && s->n >= 0 && s->rowptr[0] == 0 && s->rowptr[s->m] == s->nnz);
    for (int i = 0; i < s->m; i++) {
        FUZZ_CHECK(s->rowptr[i] <= s->rowptr[i + 1] && isfinite(s->labels[i]));
        for (int64_t p = s->rowptr[i]; p < s->rowptr[i + 1]; p++) {
            FUZZ_CHECK(s->colind[p] >= 0 && s->colind[p] < s->n && isfinite(s->val[p]));
            FUZZ_CHECK(p == s->rowptr[i] || s->colind[p - 1] < s->colind[p]);
        }
    }
}

static int same(const ircg_svm *a, const ircg_svm *b)
{
    return a->m == b->m && a->n == b->n && a->nnz == b->nnz &&
           !memcmp(a->rowptr, b->rowptr, ((size_t)a->m + 1) * sizeof *a->rowptr) &&
           !memcmp(a->colind, b->colind, (size_t)a->nnz * sizeof *a->colind) &&
           !memcmp(a->val, b->val, (size_t)a->nnz * sizeof *a->val) &&
           !memcmp(a->labels, b->labels, (size_t)a->m * sizeof *a->labels);
}

FUZZ_TARGET(libsvm)
{
    ircg_svm *s = NULL, *r = NULL;
    ircg_svm_options one = {.threads = 1}, three = {.threads = 3};
    ircg_diag d, dr;
    memset(&d, 0, sizeof d);
    memset(&dr, 0, sizeof dr);
    ircg_error e = ircg_svm_read_buffer((const char *)data, size, &one, &s, &d);
    if (e == IRCG_OK)
        check_rows(s);
    else
        FUZZ_CHECK(d.message[0] != '\0');
    for (size_t rb = 1; rb <= 7; rb += 6) {
        ircg_error er = slv_svm_read_ranges((const char *)data, size, &three, rb, &r, &dr);
        FUZZ_CHECK(er == e);
        FUZZ_CHECK(e != IRCG_OK ? !strcmp(d.message, dr.message) : same(s, r));
        ircg_svm_free(r);
        r = NULL;
    }
    ircg_svm_probe pr;
    if (ircg_svm_probe_buffer((const char *)data, size, NULL, &pr, &dr) == IRCG_OK &&
        pr.complete && e == IRCG_OK)
        FUZZ_CHECK(pr.rows == s->m && pr.nnz == s->nnz);
    ircg_svm_free(s);
    return 0;
}
