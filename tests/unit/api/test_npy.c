/*
 * test_npy.c -- the NumPy readers of api/dataset.h on files made here
 * byte by byte (the .npy header, ZIP members stored or deflated, SciPy's
 * sparse layout): every double read back bit for bit, in C and Fortran
 * order and either byte order; CSC and COO turned into the CSR a dense
 * brute force gives; and each defect refused at its byte offset, whether
 * the check (bounded memory) or the read finds it.  The Python suite
 * client_numpy reads what NumPy and SciPy themselves write.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "dataset.h"
#include "harness.h"
#include "npz.h"

/* ------------------------------------------------------------ writers -- */

typedef struct bytes {
    unsigned char *p;
    size_t n, cap;
} bytes;

static void put(bytes *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 256;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void le(bytes *b, uint64_t v, int k)
{
    for (int i = 0; i < k; i++) {
        unsigned char c = (unsigned char)(v >> (8 * i));
        put(b, &c, 1);
    }
}

/* An .npy: version 1 (or 2), the dict, padding to 64, then raw. */
static bytes npy(const char *descr, int fortran, const char *shape, const void *raw,
                 size_t len, int version)
{
    bytes b = {0};
    char dict[256];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }",
                     descr, fortran ? "True" : "False", shape);
    size_t pre = version == 1 ? 10 : 12, total = (pre + (size_t)n + 1 + 63) / 64 * 64;
    put(&b, "\x93NUMPY", 6);
    le(&b, (uint64_t)version, 1);
    le(&b, 0, 1);
    le(&b, total - pre, version == 1 ? 2 : 4);
    put(&b, dict, (size_t)n);
    for (size_t i = pre + (size_t)n; i + 1 < total; i++)
        put(&b, " ", 1);
    put(&b, "\n", 1);
    put(&b, raw, len);
    return b;
}

/* A ZIP of stored members (name, bytes). */
static bytes zip(int count, const char *const *names, const bytes *members)
{
    bytes z = {0}, cd = {0};
    for (int i = 0; i < count; i++) {
        uint32_t crc = (uint32_t)crc32(0, members[i].p, (uInt)members[i].n);
        size_t at = z.n, nl = strlen(names[i]);
        le(&z, 0x04034b50, 4), le(&z, 20, 2), le(&z, 0, 2), le(&z, 0, 2), le(&z, 0, 4);
        le(&z, crc, 4), le(&z, members[i].n, 4), le(&z, members[i].n, 4);
        le(&z, nl, 2), le(&z, 0, 2);
        put(&z, names[i], nl);
        put(&z, members[i].p, members[i].n);
        le(&cd, 0x02014b50, 4), le(&cd, 20, 2), le(&cd, 20, 2), le(&cd, 0, 2), le(&cd, 0, 2);
        le(&cd, 0, 4), le(&cd, crc, 4), le(&cd, members[i].n, 4), le(&cd, members[i].n, 4);
        le(&cd, nl, 2), le(&cd, 0, 2), le(&cd, 0, 2), le(&cd, 0, 2), le(&cd, 0, 2);
        le(&cd, 0, 4), le(&cd, at, 4);
        put(&cd, names[i], nl);
    }
    size_t cd_at = z.n;
    put(&z, cd.p, cd.n);
    le(&z, 0x06054b50, 4), le(&z, 0, 4), le(&z, (uint64_t)count, 2), le(&z, (uint64_t)count, 2);
    le(&z, cd.n, 4), le(&z, cd_at, 4), le(&z, 0, 2);
    free(cd.p);
    return z;
}

static const char *save(const char *name, const bytes *b)
{
    static char path[8][600];
    static int k;
    char *p = path[k++ % 8];
    snprintf(p, 600, "%s/npy_%s", th_tmpdir(), name);
    FILE *f = fopen(p, "wb");
    if (f) {
        fwrite(b->p, 1, b->n, f);
        fclose(f);
    }
    return p;
}

static int same_bits(const double *a, const double *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

static void swap8(double *v, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        unsigned char *p = (unsigned char *)&v[k];
        for (int i = 0; i < 4; i++) {
            unsigned char t = p[i];
            p[i] = p[7 - i];
            p[7 - i] = t;
        }
    }
}

/* The values no parser may change: -0, the smallest subnormal, the
 * smallest normal, the bounds, pi's neighbours. */
static void tricky(double *v, int n)
{
    static const double T[] = {-0.0, 4.9406564584124654e-324, 2.2250738585072014e-308,
                                1e30, -1e30, 3.141592653589793, 3.1415926535897936,
                                0.1, 1.0 / 3.0, -7.0};
    for (int i = 0; i < n; i++)
        v[i] = T[i % 10] * (i / 10 + 1) / (i / 10 + 1) + (i >= 10 ? i : 0);
}

/* ---------------------------------------------------------------- tests -- */

TEST(npy, dense_matrices_come_back_bit_for_bit)
{
    double A[4 * 3], F[4 * 3], B[4 * 3];
    tricky(A, 12);
    for (int i = 0; i < 4; i++) /* F: A column-major */
        for (int j = 0; j < 3; j++)
            F[j * 4 + i] = A[i * 3 + j];
    memcpy(B, A, sizeof A);
    swap8(B, 12);
    bytes c = npy("<f8", 0, "(4, 3)", A, sizeof A, 1), f = npy("<f8", 1, "(4, 3)", F, sizeof F, 1);
    bytes be = npy(">f8", 0, "(4, 3)", B, sizeof B, 1), v2 = npy("<f8", 0, "(4, 3)", A, sizeof A, 2);
    const bytes *all[] = {&c, &f, &be, &v2};
    const char *names[] = {"c.npy", "f.npy", "be.npy", "v2.npy"};
    for (int k = 0; k < 4; k++) {
        api_matrix m;
        api_npy_shape sh;
        api_read_error e = {0};
        const char *p = save(names[k], all[k]);
        REQUIRE(api_npy_check(p, 1e30, NULL, &sh, &e) == 0);
        CHECK(sh.ndim == 2 && sh.rows == 4 && sh.cols == 3 && !strcmp(sh.layout, "dense"));
        REQUIRE(api_npy_read_matrix(p, 1e30, NULL, &m, &e) == 0);
        CHECK(m.m == 4 && m.n == 3 && m.A && same_bits(m.A, A, 12));
        api_matrix_free(&m);
    }
    /* an .npz of one array, stored, and deflated by the service's writer */
    const char *name = "A.npy";
    bytes z = zip(1, &name, &c);
    api_npz_array arr = {"A", 0, 2, {4, 3}, 12, F}; /* its writer writes Fortran order */
    bytes zd = {0};
    void *out = NULL;
    REQUIRE(api_npz_write(&arr, 1, &out, &zd.n) == 0);
    zd.p = out;
    const bytes *zs[] = {&z, &zd};
    for (int k = 0; k < 2; k++) {
        api_matrix m;
        api_read_error e = {0};
        REQUIRE(api_npy_read_matrix(save(k ? "zd.npz" : "z.npz", zs[k]), 1e30, NULL, &m, &e) == 0);
        CHECK(m.m == 4 && m.n == 3 && same_bits(m.A, A, 12));
        api_matrix_free(&m);
    }
    double *v = NULL;
    int64_t n = 0;
    api_read_error e = {0};
    bytes vec = npy("<f8", 0, "(12,)", A, sizeof A, 1);
    REQUIRE(api_npy_read_vector(save("v.npy", &vec), 1e30, NULL, &v, &n, &e) == 0);
    CHECK(n == 12 && same_bits(v, A, 12));
    free(v);
    free(c.p), free(f.p), free(be.p), free(v2.p), free(z.p), free(zd.p), free(vec.p);
}

/* SciPy's sparse archive of the 3 x 4 matrix D below in `fmt`. */
static bytes scipy_npz(const char *fmt, const int64_t *ptr, int nptr, const int32_t *idx,
                       const int32_t *idx2, const double *val, int nnz)
{
    const int64_t shape[2] = {3, 4};
    char sh[16];
    snprintf(sh, sizeof sh, "(%d,)", nnz);
    bytes m[5];
    const char *names[5] = {"format.npy", "shape.npy", "data.npy", "", ""};
    m[0] = npy("|S3", 0, "()", fmt, 3, 1);
    m[1] = npy("<i8", 0, "(2,)", shape, sizeof shape, 1);
    m[2] = npy("<f8", 0, sh, val, (size_t)nnz * 8, 1);
    int k = 3;
    if (ptr) {
        char sp[16];
        snprintf(sp, sizeof sp, "(%d,)", nptr);
        names[3] = "indices.npy", names[4] = "indptr.npy";
        m[3] = npy("<i4", 0, sh, idx, (size_t)nnz * 4, 1);
        m[4] = npy("<i8", 0, sp, ptr, (size_t)nptr * 8, 1);
    } else {
        names[3] = "row.npy", names[4] = "col.npy";
        m[3] = npy("<i4", 0, sh, idx, (size_t)nnz * 4, 1);
        m[4] = npy("<i4", 0, sh, idx2, (size_t)nnz * 4, 1);
    }
    k = 5;
    bytes z = zip(k, names, m);
    for (int i = 0; i < k; i++)
        free(m[i].p);
    return z;
}

/*     D = [ 1  0  2  0 ]
 *         [ 0  0  0  3 ]
 *         [ 4  5  0  6 ]   in CSR, CSC and COO (COO's entries shuffled) */
static const double D[3][4] = {{1, 0, 2, 0}, {0, 0, 0, 3}, {4, 5, 0, 6}};

static void check_csr(const api_matrix *m)
{
    double got[3][4] = {{0}};
    CHECK(m->m == 3 && m->n == 4 && m->nnz == 6 && !m->A);
    REQUIRE(m->rowptr && m->rowptr[0] == 0 && m->rowptr[3] == 6);
    for (int i = 0; i < 3; i++)
        for (int64_t k = m->rowptr[i]; k < m->rowptr[i + 1]; k++)
            got[i][m->colind[k]] += m->val[k];
    CHECK(memcmp(got, D, sizeof D) == 0);
}

TEST(npy, scipy_csr_csc_and_coo_become_the_same_csr)
{
    const int64_t rp[] = {0, 2, 3, 6}, cp[] = {0, 2, 3, 4, 6};
    const int32_t ci[] = {0, 2, 3, 0, 1, 3}, ri[] = {0, 2, 2, 0, 1, 2};
    const double rv[] = {1, 2, 3, 4, 5, 6}, cv[] = {1, 4, 5, 2, 3, 6};
    const int32_t coo_r[] = {2, 0, 1, 2, 0, 2}, coo_c[] = {3, 2, 3, 0, 0, 1};
    const double coo_v[] = {6, 2, 3, 4, 1, 5};
    bytes f[3] = {scipy_npz("csr", rp, 4, ci, NULL, rv, 6), scipy_npz("csc", cp, 5, ri, NULL, cv, 6),
                  scipy_npz("coo", NULL, 0, coo_r, coo_c, coo_v, 6)};
    const char *names[3] = {"csr.npz", "csc.npz", "coo.npz"}, *layout[3] = {"csr", "csc", "coo"};
    for (int k = 0; k < 3; k++) {
        api_matrix m;
        api_npy_shape sh;
        api_read_error e = {0};
        const char *p = save(names[k], &f[k]);
        REQUIRE(api_npy_check(p, 1e30, NULL, &sh, &e) == 0);
        CHECK(sh.rows == 3 && sh.cols == 4 && sh.nnz == 6 && !strcmp(sh.layout, layout[k]));
        REQUIRE(api_npy_read_matrix(p, 1e30, NULL, &m, &e) == 0);
        check_csr(&m);
        api_matrix_free(&m);
        free(f[k].p);
    }
}

/* The check and the read both refuse p, the message holding `want`;
 * the offset when one is expected (>= 0). */
static void refused(const char *p, const char *want, int64_t offset)
{
    api_npy_shape sh;
    api_matrix m;
    api_read_error e = {0};
    CHECK(api_npy_check(p, 1e30, NULL, &sh, &e) != 0);
    if (!strstr(e.message, want))
        th_fail(__FILE__, __LINE__, "check of %s: \"%s\" lacks \"%s\"", p, e.message, want);
    if (offset >= 0 && e.offset != offset)
        th_fail(__FILE__, __LINE__, "check of %s: offset %lld, expected %lld", p,
                (long long)e.offset, (long long)offset);
    memset(&e, 0, sizeof e);
    CHECK(api_npy_read_matrix(p, 1e30, NULL, &m, &e) != 0);
    CHECK(strstr(e.message, want) != NULL);
    CHECK(!m.A && !m.rowptr);
}

TEST(npy, each_defect_is_refused_at_its_offset)
{
    double A[6] = {1, 2, 3, 4, 5, 6};
    struct {
        const char *name, *want;
        double bad;
        int at;
    } values[] = {{"nan.npy", "A[1, 0] is NaN", NAN, 3},
                  {"inf.npy", "A[0, 2] is inf", INFINITY, 2},
                  {"big.npy", "A[1, 2] = 1.0000000000000002e+30: |v| must be <= 1e+30",
                   0x1.93e5939a08cebp+99, 5}}; /* the double after 1e30 */
    for (int k = 0; k < 3; k++) {
        double B[6];
        memcpy(B, A, sizeof A);
        B[values[k].at] = values[k].bad;
        bytes b = npy("<f8", 0, "(2, 3)", B, sizeof B, 1);
        int64_t head = (int64_t)(b.n - sizeof B);
        refused(save(values[k].name, &b), values[k].want, head + 8 * values[k].at);
        free(b.p);
    }
    bytes ok = npy("<f8", 0, "(2, 3)", A, sizeof A, 1);
    bytes cut = ok;
    cut.n -= 5;
    refused(save("cut.npy", &cut), "the data holds 43 bytes", -1);
    bytes magic = ok;
    magic.p[0] = 'X';
    refused(save("magic.npy", &magic), "not a NumPy file", 0);
    free(ok.p);
    bytes ints = npy("<i8", 0, "(2, 3)", A, sizeof A, 1);
    refused(save("ints.npy", &ints), "dtype '<i8'", -1);
    bytes three = npy("<f8", 0, "(1, 2, 3)", A, sizeof A, 1);
    refused(save("three.npy", &three), "more than 2 dimensions", -1);
    bytes ver = npy("<f8", 0, "(2, 3)", A, sizeof A, 1);
    ver.p[6] = 9;
    refused(save("version.npy", &ver), "version 9.0", 6);
    /* a damaged byte of a stored member: its CRC */
    const char *name = "A.npy";
    bytes one = npy("<f8", 0, "(2, 3)", A, sizeof A, 1);
    bytes z = zip(1, &name, &one);
    z.p[30 + 5 + (one.n - sizeof A) + 9] ^= 1; /* the second value's second byte */
    refused(save("crc.npz", &z), "CRC-32", -1);
    free(ints.p), free(three.p), free(ver.p), free(one.p), free(z.p);
    /* sparse structure */
    const int64_t down[] = {0, 3, 2, 6}, last[] = {0, 2, 3, 5}, first[] = {1, 2, 3, 6};
    const int64_t good[] = {0, 2, 3, 6};
    const int32_t ci[] = {0, 2, 3, 0, 1, 3}, far[] = {0, 2, 3, 0, 4, 3};
    const double rv[] = {1, 2, 3, 4, 5, 6};
    struct {
        const char *name, *want;
        const int64_t *ptr;
        const int32_t *idx;
    } sparse[] = {{"down.npz", "the pointers decrease here", down, ci},
                  {"last.npz", "the last pointer must be the count", last, ci},
                  {"first.npz", "the first pointer must be 0", first, ci},
                  {"far.npz", "indices[4] = 4 is out of range [0, 3]", good, far}};
    for (int k = 0; k < 4; k++) {
        bytes s = scipy_npz("csr", sparse[k].ptr, 4, sparse[k].idx, NULL, rv, 6);
        refused(save(sparse[k].name, &s), sparse[k].want, -1);
        free(s.p);
    }
    bytes bsr = scipy_npz("bsr", good, 4, ci, NULL, rv, 6);
    refused(save("bsr.npz", &bsr), "format 'bsr'", -1);
    free(bsr.p);
}

TEST(npy, the_check_holds_a_fixed_buffer_whatever_the_size)
{
    /* 2^21 doubles (16 MiB) checked: the values are not kept; the read
     * keeps exactly them */
    size_t n = (size_t)1 << 21;
    double *A = malloc(n * sizeof *A);
    REQUIRE(A != NULL);
    for (size_t i = 0; i < n; i++)
        A[i] = (double)i / 7.0;
    bytes b = npy("<f8", 0, "(2048, 1024)", A, n * sizeof *A, 1);
    const char *p = save("big.npy", &b);
    free(b.p);
    api_npy_shape sh;
    api_matrix m;
    api_read_error e = {0};
    REQUIRE(api_npy_check(p, 1e30, NULL, &sh, &e) == 0);
    CHECK(sh.rows == 2048 && sh.cols == 1024);
    REQUIRE(api_npy_read_matrix(p, 1e30, NULL, &m, &e) == 0);
    CHECK(same_bits(m.A, A, n));
    api_matrix_free(&m);
    /* a stop already due ends the read */
    volatile int cancel = 1;
    api_stop stop = {&cancel, 0};
    CHECK(api_npy_read_matrix(p, 1e30, &stop, &m, &e) != 0 && e.stopped);
    free(A);
}
