/*
 * npy_internal.h -- reading NumPy files (private to api/): a byte stream
 * over a .npy file or a member of an .npz (ZIP) archive, stored or
 * deflated (zip_stream.c); the .npy header and its values (npy_read.c).
 * Everything reads through a fixed buffer: checking a file of any size
 * holds 64 KiB, and reading one holds the arrays it fills.
 */
#ifndef IRCG_API_NPY_INTERNAL_H
#define IRCG_API_NPY_INTERNAL_H

#include <stdint.h>
#include <zlib.h>

#include "dataset.h"

#define AR_BUF 65536

/* The bytes of one .npy: a whole file, or one member of an archive. */
typedef struct ar_stream {
    int fd;
    int64_t at;            /* file offset of the next stored/compressed byte */
    int64_t left;          /* stored/compressed bytes left in the file       */
    int64_t size;          /* the .npy's size (a member's uncompressed size) */
    int64_t pos;           /* bytes delivered so far                         */
    int64_t data_at;       /* file offset of the first byte (stored members
                              and plain files: offsets in messages are file
                              offsets; deflated members: -1)                 */
    uint32_t crc, want_crc;
    int check_crc, deflated, zinit;
    z_stream z;
    char name[80];         /* the member's name; "" for a plain file         */
    const api_stop *stop;  /* polled between blocks (may be NULL)            */
    unsigned char in[AR_BUF];
} ar_stream;

/* Every member of an archive, from its central directory. */
typedef struct zip_member {
    char name[80];
    int64_t local_at, csize, usize;
    uint32_t crc;
    int method;            /* 0 stored, 8 deflated                          */
} zip_member;

#define ZIP_MAX_MEMBERS 64

typedef struct zip_dir {
    zip_member m[ZIP_MAX_MEMBERS];
    int n;
} zip_dir;

/* Records the error "what" at `offset` of s (-1: none) in e and returns -1:
 * "offset N: ..." for a plain file or a stored member (file offsets),
 * "member NAME, byte N of its data: ..." for a deflated one. */
int ar_fail(const ar_stream *s, int64_t offset, api_read_error *e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The whole file at fd (size bytes) as a stream, or member m of the
 * archive at fd; s is the caller's (calloc'ed: it holds a buffer).  0, or
 * -1 with e set. */
int ar_open_file(ar_stream *s, int fd, int64_t size);
int ar_open_member(ar_stream *s, int fd, const zip_member *m, api_read_error *e);
/* Exactly n bytes into buf (0), or -1 with e set (truncated, corrupt,
 * stopped). */
int ar_read(ar_stream *s, void *buf, size_t n, api_read_error *e);
/* The stream was read to its end and its CRC holds: 0, else -1. */
int ar_end(ar_stream *s, api_read_error *e);
void ar_close(ar_stream *s);
/* 1 when the stop says so (its cancel raised or its deadline passed). */
int ar_stopped(const api_stop *stop);

/* The central directory of the archive at fd (size bytes), ZIP64
 * included.  0, or -1 with e set. */
int zip_read_dir(int fd, int64_t size, zip_dir *out, api_read_error *e);
const zip_member *zip_find(const zip_dir *d, const char *name);

/* A .npy header: the item type and size, the byte order, the shape. */
typedef struct npy_head {
    char type;             /* 'f' float, 'i' int, 'u' unsigned, 'S' bytes,
                              'U' UCS-4, 'b' bool                           */
    int size;              /* bytes an item                                 */
    int big;               /* big-endian items                              */
    int fortran;           /* column-major                                  */
    int ndim;              /* 0, 1 or 2                                     */
    int64_t shape[2];
    int64_t count;         /* items: the product of the shape               */
    char descr[16];        /* as written: "<f8"                             */
} npy_head;

/* Reads the header (magic, version 1, 2 or 3, the dict) from s.  0, or -1
 * with e set. */
int npy_read_head(ar_stream *s, npy_head *h, api_read_error *e);
/* The count float64 values of h (type 'f', size 8), each finite and
 * within max_abs, in the order stored, `label` naming them in messages
 * ("A", "data").  dst NULL: checked only; else dst[k] for the k-th value
 * stored, or, with `rowmajor` and a Fortran-order 2-D h, dst[i * cols +
 * j] for the value (i, j): a row-major array either way. */
int npy_read_f8(ar_stream *s, const npy_head *h, const char *label, double max_abs,
                double *dst, int rowmajor, api_read_error *e);
/* Integer items (type 'i' or 'u', size 4 or 8), each in [lo, hi]: dst
 * (may be NULL) as int64; each value is also passed to check (may be
 * NULL: non-zero refuses it, the message written into e by the check). */
typedef int (*npy_int_check)(void *user, int64_t k, int64_t v, api_read_error *e);
int npy_read_ints(ar_stream *s, const npy_head *h, const char *label, int64_t lo,
                  int64_t hi, int64_t *dst, npy_int_check check, void *user,
                  api_read_error *e);

#endif /* IRCG_API_NPY_INTERNAL_H */
