/*
 * readers.h -- helpers of the ratings readers that other parts of the
 * library may reuse: whole-file reads, duplicate detection and decimal
 * numbers.
 */
#ifndef IRCG_READERS_H
#define IRCG_READERS_H

#include <stddef.h>
#include <stdint.h>

#include "ircg.h"

/* Read a whole file into a malloc'ed buffer (not NUL-terminated) owned by
 * the caller.  IRCG_ERR_IO names the path and strerror; *data is NULL on
 * failure. */
ircg_error slv_read_whole_file(const char *path, char **data, size_t *len,
                                ircg_diag *diag);

/* A whole file, memory-mapped (read-only) when it can be, else read into
 * a malloc'ed buffer: data[0, len), not NUL-terminated.  mapped says
 * which; release with slv_unmap_file (also after a failure). */
typedef struct slv_mapped {
    const char *data;
    size_t len;
    int mapped;
    char *heap;
} slv_mapped;
ircg_error slv_map_file(const char *path, slv_mapped *m, ircg_diag *diag);
void slv_unmap_file(slv_mapped *m);

/* ircg_ratings_read_buffer with the body cut into line ranges of about
 * range_bytes bytes (1: a range a line), parsed by opt->threads threads:
 * the tests' handle on the parallel reader, whose results and first
 * errors must not depend on either. */
ircg_error slv_ratings_read_ranges(const char *buf, size_t len, const ircg_read_options *opt,
                                   size_t range_bytes, ircg_ratings **out,
                                   ircg_diag *diag);

/* ircg_svm_read_buffer cut into line ranges of about range_bytes (1: a
 * range a line): the tests' handle on the parallel LIBSVM reader. */
ircg_error slv_svm_read_ranges(const char *buf, size_t len, const ircg_svm_options *opt,
                               size_t range_bytes, ircg_svm **out, ircg_diag *diag);

/* The first at most max bytes of a file (malloc'ed into *data, owned by
 * the caller) and the file's size. */
ircg_error slv_read_file_head(const char *path, size_t max, char **data, size_t *len,
                              int64_t *size, ircg_diag *diag);

/* Duplicated (row, col) pairs among n entries (0-based, each < 2^31).
 * Returns the index of the earliest second occurrence of any pair and sets
 * *first to the index of that pair's first occurrence; -1 when all pairs
 * are distinct; -2 when out of memory.  O(n) for input sorted by (row, col),
 * else a radix sort of O(n) time and 16 n bytes. */
int64_t slv_find_duplicate(const int32_t *row, const int32_t *col, int64_t n,
                            int64_t *first);

/* The decimal number in p[0, n) (not NUL-terminated):
 * [+-]digits[.digits][(e|E)[+-]digits].  0 and *out set; -1 when it is not
 * of that form (hexadecimal, "inf", "nan", blanks, empty, 64 characters or
 * more); -2 when it overflows to infinity. */
int slv_parse_decimal(const char *p, size_t n, double *out);

#endif /* IRCG_READERS_H */
