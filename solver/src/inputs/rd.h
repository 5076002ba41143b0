/*
 * rd.h -- the ratings readers' internals, shared by readers.c (headers and
 * data lines) and readers_run.c (the buffer cut into line ranges parsed in
 * parallel, their results joined, the public functions).
 *
 * The head of the input (format detection, the Matrix Market banner and
 * size line) is read once; the body is cut into ranges of whole lines,
 * each parsed by one task into its own slice of the shared arrays with
 * its lines numbered globally (a first pass counts the newlines of every
 * range).  A range records its first error; what depends on the ranges
 * before it -- an empty line followed by data in a later range, more
 * entries than the size line declares -- is settled when the ranges are
 * joined in file order, so that results and first errors never depend on
 * how the body was cut.
 */
#ifndef IRCG_INPUTS_RD_H
#define IRCG_INPUTS_RD_H

#include <stdint.h>

#include "inputs/scan.h"

enum { MM_REAL = 0, MM_INTEGER = 1, MM_PATTERN = 2 };

/* What the head settled; read-only while the ranges are parsed. */
typedef struct rd_fmt {
    ircg_ratings_format fmt;
    int lim_r, lim_c;         /* > 0: ids beyond are errors                */
    int mm_field;             /* MM_REAL, MM_INTEGER or MM_PATTERN         */
    int64_t mm_nnz;           /* MM: entries declared by the size line     */
    long size_line;           /* MM: line of the size line                 */
    const char *rname, *cname;/* "user"/"item" or "row"/"column"          */
    const char *rid, *cid;    /* "user id"/"item id" or "row/column index" */
    const char *header_at;    /* CSV: the body's first non-blank line,
                                 which may be a header                     */
} rd_fmt;

/* One range of the body and what its parse found. */
typedef struct rd {
    const rd_fmt *f;
    scan in;                  /* in.line: global number of the last line  */
    int32_t *row, *col;       /* its slice of the shared arrays            */
    double *val;
    int64_t n, cap;           /* entries parsed, room in the slice         */
    int max_r, max_c;         /* largest ids seen                          */
    long blank_line;          /* first blank line not followed by data     */
    int has_data;             /* a line that is neither blank nor comment  */
    const char *header;       /* CSV: the header line, when in this range  */
    long header_line;
    int64_t max_entries;      /* > 0: stop after this many (a probe)       */
    int stopped;              /* stopped at max_entries                    */
    ircg_error err;           /* the first error, with diag below          */
    int err_in_entry;         /* it came after the field count was checked */
    ircg_diag diag;
} rd;

/* readers.c: the head (format detection, MM banner and size line): the
 * scan is left at the body.  Errors name their line in diag. */
ircg_error rd_head(rd_fmt *f, scan *in, ircg_diag *diag);
/* Parses the range r->in (r->in.line: the line before it), stopping at
 * its first error. */
void rd_parse_range(rd *r);
/* One line as a data line of f's format into r (the CSV header alone). */
ircg_error rd_parse_entry(rd *r, span line);
/* The line number of entry `index` (0-based) of the range [beg, end)
 * whose first line follows line `line0`. */
long rd_entry_line(const rd_fmt *f, const char *beg, const char *end, long line0,
                   int64_t index);
/* A parse error "line N: ..." at line N of the input. */
ircg_error rd_fail_at(long line, ircg_diag *diag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* CSV: the header line alone, no rating after it (its error as a rating
 * line says what is wrong when it is no header either). */
ircg_error rd_csv_only_header(rd *r, span header, long line);

#endif /* IRCG_INPUTS_RD_H */
