/*
 * zip_stream.c -- the bytes of a .npy: a whole file, or a member of an
 * .npz archive (a ZIP file: numpy.savez stores its members, savez_compressed
 * and scipy.sparse.save_npz deflate them, and NumPy writes every member
 * with ZIP64 fields).  The central directory says where each member is and
 * how long; a member's bytes are read through a 64 KiB buffer and inflated
 * when deflated, and its CRC-32 is checked once its last byte is read.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npy_internal.h"

/* The stop is polled every this many bytes delivered. */
#define AR_POLL_BYTES (16 << 20)

int ar_stopped(const api_stop *stop)
{
    if (!stop)
        return 0;
    if (stop->cancel && __atomic_load_n(stop->cancel, __ATOMIC_RELAXED))
        return 1;
    return stop->deadline > 0 && ircg_clock() >= stop->deadline;
}

int ar_fail(const ar_stream *s, int64_t offset, api_read_error *e, const char *fmt, ...)
{
    char what[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (!e)
        return -1;
    e->line = 0;
    e->offset = -1;
    if (offset >= 0 && s && s->data_at >= 0) { /* a file offset */
        e->offset = s->data_at + offset;
        if (s->name[0])
            snprintf(e->message, sizeof e->message, "offset %lld (member %s): %s",
                     (long long)e->offset, s->name, what);
        else
            snprintf(e->message, sizeof e->message, "offset %lld: %s", (long long)e->offset,
                     what);
    } else if (offset >= 0 && s) { /* inside a deflated member */
        e->offset = offset;
        snprintf(e->message, sizeof e->message, "member %s, byte %lld of its data: %s",
                 s->name, (long long)offset, what);
    } else if (s && s->name[0]) {
        snprintf(e->message, sizeof e->message, "member %s: %s", s->name, what);
    } else {
        snprintf(e->message, sizeof e->message, "%s", what);
    }
    return -1;
}

/* n bytes at `at` of fd; 0, or -1 (short or failed). */
static int pread_all(int fd, void *buf, size_t n, int64_t at)
{
    char *p = buf;
    while (n > 0) {
        ssize_t got = pread(fd, p, n, (off_t)at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got;
        n -= (size_t)got;
        at += got;
    }
    return 0;
}

int ar_open_file(ar_stream *s, int fd, int64_t size)
{
    s->fd = fd;
    s->at = 0;
    s->left = s->size = size;
    s->data_at = 0;
    s->name[0] = '\0';
    return 0;
}

static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

int ar_open_member(ar_stream *s, int fd, const zip_member *m, api_read_error *e)
{
    unsigned char h[30];
    s->fd = fd;
    snprintf(s->name, sizeof s->name, "%s", m->name);
    s->data_at = -1;
    if (pread_all(fd, h, sizeof h, m->local_at) != 0 || le32(h) != 0x04034b50)
        return ar_fail(s, -1, e, "no local header at offset %lld", (long long)m->local_at);
    if (le16(h + 6) & 1)
        return ar_fail(s, -1, e, "encrypted members are not read");
    s->at = m->local_at + 30 + le16(h + 26) + le16(h + 28);
    s->left = m->csize;
    s->size = m->usize;
    s->want_crc = m->crc;
    s->check_crc = 1;
    s->crc = (uint32_t)crc32(0, Z_NULL, 0);
    if (m->method == 0) {
        if (m->csize != m->usize)
            return ar_fail(s, -1, e, "stored member of %lld bytes holds %lld",
                           (long long)m->usize, (long long)m->csize);
        s->data_at = s->at;
        return 0;
    }
    if (m->method != 8)
        return ar_fail(s, -1, e, "compression method %d (only stored and deflated are read)",
                       m->method);
    s->deflated = 1;
    if (inflateInit2(&s->z, -15) != Z_OK)
        return ar_fail(s, -1, e, "zlib cannot start");
    s->zinit = 1;
    return 0;
}

/* Up to n stored bytes into buf; how many (0 at the end), -1 on error. */
static int64_t raw(ar_stream *s, void *buf, size_t n)
{
    size_t want = (int64_t)n < s->left ? n : (size_t)s->left;
    if (want == 0)
        return 0;
    if (pread_all(s->fd, buf, want, s->at) != 0)
        return -1;
    s->at += (int64_t)want;
    s->left -= (int64_t)want;
    return (int64_t)want;
}

static int inflate_into(ar_stream *s, unsigned char *out, size_t n, api_read_error *e)
{
    s->z.next_out = out;
    s->z.avail_out = (uInt)n;
    while (s->z.avail_out > 0) {
        int64_t done = s->pos + (int64_t)(n - s->z.avail_out);
        if (s->z.avail_in == 0) {
            int64_t got = raw(s, s->in, sizeof s->in);
            if (got < 0)
                return ar_fail(s, -1, e, "cannot read the archive");
            if (got == 0)
                return ar_fail(s, done, e, "the compressed data ends early");
            s->z.next_in = s->in;
            s->z.avail_in = (uInt)got;
        }
        int rc = inflate(&s->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END && s->z.avail_out > 0)
            return ar_fail(s, s->pos + (int64_t)(n - s->z.avail_out), e,
                           "the compressed data ends early");
        if (rc != Z_OK && rc != Z_STREAM_END)
            return ar_fail(s, done, e, "corrupt compressed data (zlib: %s)",
                           s->z.msg ? s->z.msg : "error");
    }
    return 0;
}

int ar_read(ar_stream *s, void *buf, size_t n, api_read_error *e)
{
    unsigned char *p = buf;
    while (n > 0) {
        /* in blocks, so that the stop is polled and zlib's counters hold */
        size_t k = n < AR_POLL_BYTES ? n : AR_POLL_BYTES;
        if (ar_stopped(s->stop)) {
            if (e)
                e->stopped = 1;
            return ar_fail(s, -1, e, "stopped while it was read");
        }
        if ((int64_t)k > s->size - s->pos)
            return ar_fail(s, s->size, e, "the data ends early: %lld bytes, %lld more needed",
                           (long long)s->size, (long long)(s->pos + (int64_t)n - s->size));
        if (s->deflated) {
            if (inflate_into(s, p, k, e) != 0)
                return -1;
        } else if (raw(s, p, k) != (int64_t)k) {
            return ar_fail(s, s->pos, e, "the file ends early");
        }
        if (s->check_crc)
            s->crc = (uint32_t)crc32(s->crc, p, (uInt)k);
        s->pos += (int64_t)k;
        p += k;
        n -= k;
    }
    return 0;
}

int ar_end(ar_stream *s, api_read_error *e)
{
    if (s->pos != s->size)
        return ar_fail(s, s->pos, e, "%lld bytes follow the values",
                       (long long)(s->size - s->pos));
    if (s->check_crc && s->crc != s->want_crc)
        return ar_fail(s, -1, e, "CRC-32 %08x, the directory says %08x: the data is damaged",
                       (unsigned)s->crc, (unsigned)s->want_crc);
    return 0;
}

void ar_close(ar_stream *s)
{
    if (s && s->zinit)
        inflateEnd(&s->z);
    if (s)
        s->zinit = 0;
}

/* --------------------------------------------------- central directory -- */

static int zfail(api_read_error *e, int64_t offset, const char *what)
{
    if (e) {
        e->line = 0;
        e->offset = offset;
        if (offset >= 0)
            snprintf(e->message, sizeof e->message, "offset %lld: %s", (long long)offset, what);
        else
            snprintf(e->message, sizeof e->message, "%s", what);
    }
    return -1;
}

/* The end of central directory record: its offset, or -1. */
static int64_t find_eocd(int fd, int64_t size, unsigned char *buf, size_t cap)
{
    int64_t from = size > (int64_t)cap ? size - (int64_t)cap : 0;
    size_t n = (size_t)(size - from);
    if (n < 22 || pread_all(fd, buf, n, from) != 0)
        return -1;
    for (size_t i = n - 22 + 1; i-- > 0;)
        if (le32(buf + i) == 0x06054b50)
            return from + (int64_t)i;
    return -1;
}

/* ZIP64 values stand in for the fields that say 0xffffffff, in order. */
static void zip64_extra(const unsigned char *x, size_t n, zip_member *m, int64_t *local)
{
    size_t i = 0;
    while (i + 4 <= n) {
        unsigned id = le16(x + i), len = le16(x + i + 2);
        const unsigned char *v = x + i + 4, *end = v + len;
        if (i + 4 + len > n)
            return;
        if (id == 1) {
            if (m->usize == 0xffffffff && v + 8 <= end)
                m->usize = (int64_t)le64(v), v += 8;
            if (m->csize == 0xffffffff && v + 8 <= end)
                m->csize = (int64_t)le64(v), v += 8;
            if (*local == 0xffffffff && v + 8 <= end)
                *local = (int64_t)le64(v);
            return;
        }
        i += 4 + len;
    }
}

static int read_entries(int fd, int64_t size, int64_t cd_at, int64_t cd_len, int64_t count,
                        zip_dir *out, api_read_error *e)
{
    unsigned char *cd;
    int rc = 0;
    if (count > ZIP_MAX_MEMBERS)
        return zfail(e, -1, "the archive holds more than 64 members");
    if (cd_at < 0 || cd_len < 0 || cd_at + cd_len > size || cd_len > (1 << 20))
        return zfail(e, -1, "the central directory lies outside the file");
    if (!(cd = malloc((size_t)cd_len + 1)) || pread_all(fd, cd, (size_t)cd_len, cd_at) != 0) {
        free(cd);
        return zfail(e, cd_at, "cannot read the central directory");
    }
    size_t i = 0;
    out->n = 0;
    for (int64_t k = 0; k < count && rc == 0; k++) {
        if (i + 46 > (size_t)cd_len || le32(cd + i) != 0x02014b50) {
            rc = zfail(e, cd_at + (int64_t)i, "a central directory entry is damaged");
            break;
        }
        zip_member *m = &out->m[out->n++];
        size_t nl = le16(cd + i + 28), xl = le16(cd + i + 30), cl = le16(cd + i + 32);
        int64_t local = le32(cd + i + 42);
        memset(m, 0, sizeof *m);
        m->method = le16(cd + i + 10);
        m->crc = le32(cd + i + 16);
        m->csize = le32(cd + i + 20);
        m->usize = le32(cd + i + 24);
        if (i + 46 + nl + xl + cl > (size_t)cd_len || nl >= sizeof m->name) {
            rc = zfail(e, cd_at + (int64_t)i, "a member's name is too long or cut");
            break;
        }
        memcpy(m->name, cd + i + 46, nl);
        m->name[nl] = '\0';
        zip64_extra(cd + i + 46 + nl, xl, m, &local);
        m->local_at = local;
        if (local < 0 || m->csize < 0 || m->usize < 0 || local + 30 + m->csize > size)
            rc = zfail(e, cd_at + (int64_t)i, "a member lies outside the file");
        i += 46 + nl + xl + cl;
    }
    free(cd);
    return rc;
}

int zip_read_dir(int fd, int64_t size, zip_dir *out, api_read_error *e)
{
    unsigned char *buf = malloc(65536 + 22);
    int64_t eocd = buf ? find_eocd(fd, size, buf, 65536 + 22) : -1;
    int rc;
    if (eocd < 0) {
        free(buf);
        return zfail(e, -1, "not a ZIP archive: no end of central directory record");
    }
    unsigned char *r = buf + (eocd - (size > 65536 + 22 ? size - 65536 - 22 : 0));
    int64_t count = le16(r + 10), cd_len = le32(r + 12), cd_at = le32(r + 16);
    if (le16(r + 4) != 0 || le16(r + 6) != 0) {
        free(buf);
        return zfail(e, eocd, "archives of several disks are not read");
    }
    /* ZIP64: the locator just before points at the ZIP64 record */
    unsigned char loc[20], z64[56];
    if (eocd >= 20 && pread_all(fd, loc, 20, eocd - 20) == 0 && le32(loc) == 0x07064b50) {
        int64_t at = (int64_t)le64(loc + 8);
        if (at < 0 || at + 56 > size || pread_all(fd, z64, 56, at) != 0 ||
            le32(z64) != 0x06064b50) {
            free(buf);
            return zfail(e, eocd - 20, "the ZIP64 end of central directory is damaged");
        }
        count = (int64_t)le64(z64 + 32);
        cd_len = (int64_t)le64(z64 + 40);
        cd_at = (int64_t)le64(z64 + 48);
    }
    free(buf);
    rc = read_entries(fd, size, cd_at, cd_len, count, out, e);
    return rc;
}

const zip_member *zip_find(const zip_dir *d, const char *name)
{
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->m[i].name, name))
            return &d->m[i];
    return NULL;
}
