/*
 * test_instance_npz.c -- `ircg instance`'s .npz (api/instance_npz.c)
 * holds exactly the arrays the solver holds: every member read back
 * (a ZIP and .npy reader written here from the formats, not api/npz.c's
 * writer) is compared bit for bit with the problem's own copies
 * (ls_data: after the logistic labels' mapping, the CSR of a LIBSVM-like
 * shape, the validation rows), and the data digest made here over the
 * arrays read back, in the order families.c feeds its own, is the one the
 * solver computed (ircg_problem_info.data_digest) -- so a reference
 * solver reading the file solves the instance every method solves.
 * Specs of both families, dense and CSR A, every domain and outer kind.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/digest.h"
#include "core/oracle.h"
#include "harness.h"
#include "npz.h"
#include "problems/ls/ls.h"
#include "spec.h"
#include "test_spec_util.h"

typedef struct member {
    char name[64];
    char descr[8];
    int fortran, ndim;
    int64_t shape[2];
    unsigned char *data; /* the values, malloc'ed */
    size_t bytes;
} member;

static uint32_t le(const unsigned char *p, int n)
{
    uint32_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The .npy of one member: magic, version 1.0, header dict, values. */
static int npy(const unsigned char *p, size_t n, member *m)
{
    if (n < 10 || memcmp(p, "\x93NUMPY\x01\x00", 8) != 0)
        return 0;
    size_t hl = le(p + 8, 2);
    if (10 + hl > n)
        return 0;
    char head[512] = {0};
    memcpy(head, p + 10, hl < sizeof head - 1 ? hl : sizeof head - 1);
    const char *d = strstr(head, "'descr': '"), *s = strstr(head, "'shape': (");
    if (!d || !s || sscanf(d + 10, "%7[^']", m->descr) != 1)
        return 0;
    m->fortran = strstr(head, "'fortran_order': True") != NULL;
    long long a = 0, b = 0;
    m->ndim = sscanf(s + 10, "%lld, %lld", &a, &b);
    m->ndim = s[10] == ')' ? 0 : m->ndim;
    m->shape[0] = a, m->shape[1] = b;
    m->bytes = n - 10 - hl;
    m->data = malloc(m->bytes ? m->bytes : 1);
    if (m->data)
        memcpy(m->data, p + 10 + hl, m->bytes);
    return m->data != NULL;
}

/* The ZIP's local entries in order, each deflated (method 8) or stored. */
static int read_npz(const unsigned char *z, size_t len, member *out, int cap)
{
    size_t at = 0;
    int k = 0;
    while (at + 30 <= len && le(z + at, 4) == 0x04034b50 && k < cap) {
        unsigned method = le(z + at + 8, 2);
        size_t csize = le(z + at + 18, 4), usize = le(z + at + 22, 4);
        size_t nlen = le(z + at + 26, 2), xlen = le(z + at + 28, 2);
        const unsigned char *data = z + at + 30 + nlen + xlen;
        if (nlen >= sizeof out[k].name || at + 30 + nlen + xlen + csize > len)
            return -1;
        memset(&out[k], 0, sizeof out[k]);
        memcpy(out[k].name, z + at + 30, nlen);
        unsigned char *raw = malloc(usize ? usize : 1);
        int ok = raw != NULL;
        if (ok && method == 8) {
            z_stream s = {0};
            ok = inflateInit2(&s, -15) == Z_OK;
            s.next_in = (unsigned char *)data, s.avail_in = (uInt)csize;
            s.next_out = raw, s.avail_out = (uInt)usize;
            ok = ok && inflate(&s, Z_FINISH) == Z_STREAM_END && s.total_out == usize;
            inflateEnd(&s);
        } else if (ok) {
            ok = method == 0 && csize == usize;
            if (ok)
                memcpy(raw, data, usize);
        }
        ok = ok && crc32(0, raw, (uInt)usize) == le(z + at + 14, 4) && npy(raw, usize, &out[k]);
        free(raw);
        if (!ok)
            return -1;
        char *dot = strstr(out[k].name, ".npy");
        if (dot)
            *dot = '\0';
        k++;
        at += 30 + nlen + xlen + csize;
    }
    return k;
}

static const member *find(const member *m, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(m[i].name, name))
            return &m[i];
    return NULL;
}

/* A row-major r x c matrix against a member of shape (r, c): Fortran
 * order, so element (i, j) is value j r + i. */
static int same_matrix(const member *m, const double *A, int r, int c)
{
    if (!m || strcmp(m->descr, "<f8") || !m->fortran || m->ndim != 2 || m->shape[0] != r ||
        m->shape[1] != c || m->bytes != (size_t)r * c * 8)
        return 0;
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++)
            if (memcmp(m->data + 8 * ((size_t)j * r + i), &A[(size_t)i * c + j], 8) != 0)
                return 0;
    return 1;
}

static int same_vector(const member *m, const void *v, size_t n, const char *descr)
{
    return m && !strcmp(m->descr, descr) && m->ndim == 1 && m->shape[0] == (int64_t)n &&
           m->bytes == 8 * n && memcmp(m->data, v, 8 * n) == 0;
}

static double scalar(const member *m)
{
    double v = NAN;
    if (m && m->ndim == 0 && m->bytes == 8 && !strcmp(m->descr, "<f8"))
        memcpy(&v, m->data, 8);
    return v;
}

static int64_t integer(const member *m)
{
    int64_t v = -1;
    if (m && m->ndim == 0 && m->bytes == 8 && !strcmp(m->descr, "<i8"))
        memcpy(&v, m->data, 8);
    return v;
}

/* The matrix prefix ("A" or "A_val") and its right-hand side against d;
 * the digest of what was read, fed as families.c's ls_digest feeds its
 * own, into h. */
static void check_matrix(const member *ms, int n, const char *prefix, const char *rhs,
                         const ls_data *d, slv_digest *h)
{
    char name[64];
    const member *dense = find(ms, n, prefix);
    slv_digest_init(h);
    slv_digest_update(h, d->A ? "lsd" : "lss", 3);
    slv_digest_i64(h, d->m);
    slv_digest_i64(h, d->n);
    if (d->A) {
        CHECK(same_matrix(dense, d->A, d->m, d->n));
        double *rows = malloc((size_t)d->m * d->n * sizeof *rows);
        REQUIRE(rows != NULL);
        for (int i = 0; dense && i < d->m; i++) /* the digest of the values read */
            for (int j = 0; j < d->n; j++)
                memcpy(&rows[(size_t)i * d->n + j], dense->data + 8 * ((size_t)j * d->m + i), 8);
        slv_digest_f64s(h, rows, (size_t)d->m * d->n);
        free(rows);
    } else {
        int64_t nnz = d->rowptr[d->m];
        CHECK(dense == NULL);
        snprintf(name, sizeof name, "%s_indptr", prefix);
        const member *ptr = find(ms, n, name);
        CHECK(same_vector(ptr, d->rowptr, (size_t)d->m + 1, "<i8"));
        snprintf(name, sizeof name, "%s_indices", prefix);
        const member *idx = find(ms, n, name);
        snprintf(name, sizeof name, "%s_data", prefix);
        const member *val = find(ms, n, name);
        CHECK(same_vector(val, d->val, (size_t)nnz, "<f8"));
        snprintf(name, sizeof name, "%s_shape", prefix);
        const int64_t shape[2] = {d->m, d->n};
        CHECK(same_vector(find(ms, n, name), shape, 2, "<i8"));
        REQUIRE(idx && idx->bytes == 8 * (size_t)nnz && ptr && ptr->bytes == 8 * (size_t)(d->m + 1));
        int32_t *narrow = malloc((size_t)(nnz ? nnz : 1) * sizeof *narrow);
        REQUIRE(narrow != NULL);
        for (int64_t k = 0; k < nnz; k++) {
            int64_t v;
            memcpy(&v, idx->data + 8 * k, 8);
            narrow[k] = (int32_t)v;
            CHECK(v == d->colind[k]);
        }
        slv_digest_i64s(h, (const int64_t *)ptr->data, (size_t)d->m + 1);
        slv_digest_i32s(h, narrow, (size_t)nnz);
        slv_digest_f64s(h, (const double *)val->data, (size_t)nnz);
        free(narrow);
    }
    const member *b = find(ms, n, rhs);
    CHECK(same_vector(b, d->b, (size_t)d->m, "<f8"));
    if (b)
        slv_digest_f64s(h, (const double *)b->data, (size_t)d->m);
}

/* The spec's instance written and read back: every member is the
 * solver's; returns the members' count. */
static void check_spec(const char *json)
{
    api_errors e;
    api_spec *s = NULL;
    if (tspec_parse(json, th_tmpdir(), &e, &s) != 0) {
        th_fail(__FILE__, __LINE__, "%s rejected: %s", json,
                e.count ? e.items[0].reason : "");
        api_errors_clear(&e);
        return;
    }
    api_errors_clear(&e);
    const ircg_problem *pb = api_spec_problem(s);
    const ls_data *d = pb->data;
    void *buf = NULL;
    size_t len = 0;
    char why[256];
    member ms[32];
    REQUIRE(api_instance_npz(pb, &buf, &len, why, sizeof why) == 0);
    int n = read_npz(buf, len, ms, 32);
    REQUIRE(n > 0);
    slv_digest h;
    check_matrix(ms, n, "A", "b", d, &h);
    uint64_t mine = slv_digest_final(&h);
    ircg_problem_info in;
    ircg_problem_get_info(pb, &in);
    int64_t stored = integer(find(ms, n, "info_data_digest"));
    if (pb->info.kind == IRCG_PROBLEM_LEAST_SQUARES)
        CHECK(mine == in.data_digest && (uint64_t)stored == in.data_digest);
    else /* logistic regression keeps no digest (0): ours is of its arrays */
        CHECK(in.data_digest == 0 && stored == 0 && mine != 0);
    CHECK(integer(find(ms, n, "ircg_instance")) == 1);
    CHECK(integer(find(ms, n, "problem")) == (int64_t)in.kind);
    CHECK(integer(find(ms, n, "outer")) == (int64_t)d->outer);
    CHECK(integer(find(ms, n, "domain")) == (int64_t)d->dom.kind);
    double r = scalar(find(ms, n, "domain_radius")), lo = scalar(find(ms, n, "domain_lower"));
    double up = scalar(find(ms, n, "domain_upper"));
    CHECK(memcmp(&r, &d->dom.radius, 8) == 0 && memcmp(&lo, &d->dom.lower, 8) == 0 &&
          memcmp(&up, &d->dom.upper, 8) == 0);
    CHECK(d->c ? same_vector(find(ms, n, "c"), d->c, (size_t)d->n, "<f8")
               : find(ms, n, "c") == NULL);
    CHECK(d->Q ? same_matrix(find(ms, n, "Q"), d->Q, d->n, d->n) : find(ms, n, "Q") == NULL);
    CHECK(d->q ? same_vector(find(ms, n, "q"), d->q, (size_t)d->n, "<f8")
               : find(ms, n, "q") == NULL);
    if (d->vset) {
        check_matrix(ms, n, "A_val", "b_val", d->vset, &h);
    } else {
        CHECK(find(ms, n, "b_val") == NULL && find(ms, n, "A_val") == NULL &&
              find(ms, n, "A_val_data") == NULL);
    }
    CHECK(scalar(find(ms, n, "info_L_g")) == in.L_g && scalar(find(ms, n, "info_L_f")) == in.L_f);
    for (int i = 0; i < n; i++)
        free(ms[i].data);
    free(buf);
    api_spec_free(s);
}

TEST(instance_npz, every_member_is_the_solvers_bit_for_bit)
{
    /* dense A, the generator's validation rows, the l1 ball */
    check_spec("{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"synthetic\","
               "\"m\":7,\"n\":11,\"m_val\":5,\"noise\":0.1,\"seed\":3},"
               "\"domain\":{\"type\":\"l1_ball\",\"radius\":2.5},\"outer\":\"validation\"}}");
    /* inline CSR A, 1/2 ||x - c||^2, the box */
    check_spec("{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"inline\","
               "\"A\":{\"format\":\"csr\",\"rowptr\":[0,2,3,5],\"colind\":[0,3,1,2,3],"
               "\"values\":[1.5,-2,0.1,3,1e-3]},\"b\":[1,2,3]},"
               "\"domain\":{\"type\":\"box\",\"lower\":-0.5,\"upper\":2},"
               "\"outer\":{\"type\":\"dist_sq\",\"c\":[0.1,0.2,0.3,0.4]}}}");
    /* the sparse shape (CSR), a quadratic with q, the simplex */
    check_spec("{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"synthetic\","
               "\"shape\":\"sparse\",\"m\":20,\"n\":3,\"nnz_row\":2,\"seed\":5},"
               "\"domain\":{\"type\":\"simplex\",\"radius\":3},"
               "\"outer\":{\"type\":\"quadratic\",\"Q\":[[2,1,0],[1,2,0],[0,0,1]],"
               "\"q\":[0.5,-1,0.25]}}}");
    /* logistic regression: 0/1 labels (held as -1/+1), inline validation
     * rows with their labels, the l2 ball */
    check_spec("{\"problem\":{\"type\":\"logistic_regression\",\"data\":{\"source\":\"inline\","
               "\"A\":[[1,2],[3,-1],[0.5,0.25]],\"b\":[0,1,1],"
               "\"A_val\":[[1,1],[-2,0.5]],\"b_val\":[1,0]},"
               "\"domain\":{\"type\":\"l2_ball\",\"radius\":4},\"outer\":\"validation\"}}");
    /* the adult shape (CSR, a1a's one-hot rows), 1/2 ||x||^2 */
    check_spec("{\"problem\":{\"type\":\"logistic_regression\",\"data\":{\"source\":\"synthetic\","
               "\"shape\":\"adult\",\"m\":50,\"seed\":2},"
               "\"domain\":{\"type\":\"l1_ball\",\"radius\":10},\"outer\":\"half_norm_sq\"}}");
}

TEST(instance_npz, matrix_completion_is_refused_saying_why)
{
    api_errors e;
    api_spec *s = NULL;
    REQUIRE(tspec_parse("{\"problem\":{\"type\":\"matrix_completion\",\"data\":{"
                        "\"source\":\"synthetic\",\"n_rows\":6,\"n_cols\":5,\"rank\":2,"
                        "\"n_ratings\":12}}}", th_tmpdir(), &e, &s) == 0);
    api_errors_clear(&e);
    void *buf = (void *)1;
    size_t len = 1;
    char why[256] = "";
    CHECK(api_instance_npz(api_spec_problem(s), &buf, &len, why, sizeof why) == -1);
    CHECK(buf == NULL && len == 0);
    CHECK(strstr(why, "least squares and logistic regression") != NULL);
    api_spec_free(s);
}
