/*
 * instance_npz.c -- a built least-squares or logistic-regression instance
 * as a NumPy .npz (npz.c), for another solver to read exactly (`ircg
 * instance SPEC --npz FILE`; tests/accuracy/reference.py): the arrays the
 * solver holds (ircg_problem_vector_data), not the spec's, so synthetic
 * data, files and the logistic labels' mapping arrive as every method
 * reads them, bit for bit.  api/SPEC.md ("The command-line tool") lists
 * the members:
 *
 *   ircg_instance  int64 ()   1, this layout
 *   problem        int64 ()   1 least squares, 2 logistic regression
 *   A              (m, n)     dense; or CSR as A_indptr int64 (m+1,),
 *                             A_indices int64 (nnz,), A_data (nnz,),
 *                             A_shape int64 (2,)
 *   b              (m,)       targets, or labels -1/+1
 *   outer          int64 ()   1 half_norm_sq, 2 dist_sq, 3 quadratic,
 *                             4 validation (ircg_outer_kind)
 *   c (n,); Q (n, n), q (n,) (absent: 0); A_val ... and b_val as A and b
 *   domain         int64 ()   1 l2 ball, 2 l1 ball, 3 simplex, 4 box
 *                             (ircg_domain_kind)
 *   domain_radius, domain_lower, domain_upper  ()
 *   info_data_digest int64 () the solver's data digest (the bits of the
 *                             uint64); info_L_g, info_L_f ()  its
 *                             Lipschitz constants: facts about the
 *                             instance, not part of it
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npz.h"

#define MAX_ARRAYS 24

typedef struct inst_out {
    api_npz_array a[MAX_ARRAYS];
    size_t n;
    void *owned[8]; /* transposed and widened copies */
    int nowned, failed;
} inst_out;

static void add(inst_out *o, const char *name, int integer, int ndim, int64_t d0, int64_t d1,
                const void *data)
{
    size_t count = ndim == 0 ? 1 : ndim == 1 ? (size_t)d0 : (size_t)d0 * (size_t)d1;
    o->a[o->n++] = (api_npz_array){name, integer, ndim, {d0, d1}, count, data};
}

static void *own(inst_out *o, size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p || o->nowned == (int)(sizeof o->owned / sizeof o->owned[0])) {
        free(p);
        o->failed = 1;
        return NULL;
    }
    o->owned[o->nowned++] = p; /* freed with o, at the end of api_instance_npz */
    return p;
}

/* A row-major m x n matrix as the column-major array .npz writes. */
static const double *colmajor(inst_out *o, const double *A, int m, int n)
{
    double *t = own(o, (size_t)m * (size_t)n * sizeof *t);
    for (size_t i = 0; t && i < (size_t)m; i++)
        for (size_t j = 0; j < (size_t)n; j++)
            t[j * (size_t)m + i] = A[i * (size_t)n + j];
    return t;
}

static const int64_t *wide(inst_out *o, const int32_t *v, int64_t n)
{
    int64_t *w = own(o, (size_t)n * sizeof *w);
    for (int64_t i = 0; w && i < n; i++)
        w[i] = v[i];
    return w;
}

/* A (prefix "A") or A_val ("A_val"), and its right-hand side. */
static void matrix(inst_out *o, const ircg_ls_data *d, int val, int64_t *shape)
{
    if (d->A_dense) {
        add(o, val ? "A_val" : "A", 0, 2, d->m, d->n, colmajor(o, d->A_dense, d->m, d->n));
    } else {
        int64_t nnz = d->A_rowptr[d->m];
        shape[0] = d->m, shape[1] = d->n;
        add(o, val ? "A_val_indptr" : "A_indptr", 1, 1, d->m + 1, 0, d->A_rowptr);
        add(o, val ? "A_val_indices" : "A_indices", 1, 1, nnz, 0, wide(o, d->A_colind, nnz));
        add(o, val ? "A_val_data" : "A_data", 0, 1, nnz, 0, d->A_val);
        add(o, val ? "A_val_shape" : "A_shape", 1, 1, 2, 0, shape);
    }
    add(o, val ? "b_val" : "b", 0, 1, d->m, 0, d->b);
}

int api_instance_npz(const ircg_problem *pb, void **out, size_t *len, char *why, size_t cap)
{
    static const int64_t version = 1;
    ircg_ls_data data, val;
    ircg_outer outer;
    ircg_problem_info in;
    ircg_diag diag = {0};
    inst_out o = {0};
    int64_t shape[2], vshape[2], kind, okind, dkind, digest;
    int rc = -1;
    *out = NULL;
    *len = 0;
    if (ircg_problem_vector_data(pb, &data, &outer, &val, &diag) != IRCG_OK) {
        snprintf(why, cap, "%s", diag.message);
        return -1;
    }
    ircg_problem_get_info(pb, &in);
    kind = in.kind, okind = outer.kind, dkind = in.domain.kind;
    memcpy(&digest, &in.data_digest, sizeof digest);
    add(&o, "ircg_instance", 1, 0, 0, 0, &version);
    add(&o, "problem", 1, 0, 0, 0, &kind);
    matrix(&o, &data, 0, shape);
    add(&o, "outer", 1, 0, 0, 0, &okind);
    if (outer.c)
        add(&o, "c", 0, 1, data.n, 0, outer.c);
    if (outer.Q)
        add(&o, "Q", 0, 2, data.n, data.n, colmajor(&o, outer.Q, data.n, data.n));
    if (outer.q)
        add(&o, "q", 0, 1, data.n, 0, outer.q);
    if (outer.val)
        matrix(&o, outer.val, 1, vshape);
    add(&o, "domain", 1, 0, 0, 0, &dkind);
    add(&o, "domain_radius", 0, 0, 0, 0, &in.domain.radius);
    add(&o, "domain_lower", 0, 0, 0, 0, &in.domain.lower);
    add(&o, "domain_upper", 0, 0, 0, 0, &in.domain.upper);
    add(&o, "info_data_digest", 1, 0, 0, 0, &digest);
    add(&o, "info_L_g", 0, 0, 0, 0, &in.L_g);
    add(&o, "info_L_f", 0, 0, 0, 0, &in.L_f);
    if (!o.failed)
        rc = api_npz_write(o.a, o.n, out, len);
    if (rc != 0)
        snprintf(why, cap, "out of memory (or a member above 4 GiB)");
    for (int i = 0; i < o.nowned; i++)
        free(o.owned[i]);
    return rc;
}
