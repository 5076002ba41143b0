/*
 * http_check.h -- checks shared by the integration tests that interrupt
 * jobs (kill -9, SIGTERM, a second daemon): the daemon's result against an
 * uninterrupted run of the same spec in this process, the trace's
 * completeness, and the store file as the daemon left it.
 */
#ifndef IRCG_TEST_HTTP_CHECK_H
#define IRCG_TEST_HTTP_CHECK_H

#include <stdint.h>

#include "http_util.h"
#include "store.h"

/* The result of job `id` equals, bit for bit, the in-process solve of
 * `spec`: iteration count, g and f at x and z, and the iterate z (values
 * for least squares; a0, w, P and Q for matrix completion). */
void hc_check_same_numbers(const hu_daemon *d, const char *id, const char *spec);

/* The rows of job `id` in the store `db` (opened directly: the daemon
 * stopped or killed), malloc'ed, *n of them; NULL when none or on error. */
store_trace_row *hc_stored_trace(const char *db, const char *id, size_t *n);

/* Rows a and b are the same to the bit -- every double's 64 bits, a NaN's
 * sign and payload included, and every integer -- but for the clock's
 * columns (elapsed, lmo_seconds).  1 if so; else 0 with the first
 * difference described in why. */
int hc_same_row_bits(const store_trace_row *a, const store_trace_row *b, char *why,
                     size_t n);

/* The uninterrupted run of `spec` in this process (max_iter replaced by
 * `iters` when > 0: the prefix of a job cancelled after that many) against
 * job `id` as the daemon left it: every trace row in the store `db`, to
 * the bit (hc_same_row_bits; every iteration must be traced), and, when
 * `result` is given (the job's GET .../result), the result as
 * hc_check_same_numbers compares it.  The rows compared are added to
 * *rows. */
void hc_check_same_run(const char *db, const char *id, const char *spec, int64_t iters,
                       const cJSON *result, long long *rows);

/* a and b (JSON documents) are the same: the same members in the same
 * order, strings and literals equal, every number the same double to the
 * bit; members named in `skip` (NULL-terminated, or NULL) are not
 * compared: a name alone for a member of the top-level object, a path
 * ("certificate/count") for one below.  1 if so; else 0 with the path of the first
 * difference in why. */
int hc_json_same(const cJSON *a, const cJSON *b, const char *const *skip, char *why,
                 size_t n);

/* The trace of job `id` holds iterations 1..n, each exactly once, in
 * order (the job must record every iteration). */
void hc_check_trace_complete(const hu_daemon *d, const char *id, int n);

/* Job `id` as stored in `db` (opened directly, the daemon stopped or
 * killed), and the iteration a restart would resume from (0: none).
 * Returns 0 when the job was read. */
int hc_stored(const char *db, const char *id, store_job *out, int64_t *resume_iter);

/* Job `id` ends failed (within 30 s) with both strings in its resource
 * (the error's type and detail), and the daemon stays ready. */
void hc_check_failed_because(const hu_daemon *d, const char *id, const char *a,
                             const char *b);

/* Runs SQL on the file through a connection of its own (what an
 * operator's sqlite3 shell does); 0 on success. */
int hc_sql(const char *db, const char *sql);

/* PRAGMA integrity_check of the file is "ok". */
int hc_integrity_ok(const char *db);

/* max |A - B| / max |B| over two lists of rows of numbers (JSON arrays
 * of arrays, as clients/python/read_snapshot.py --dense prints X);
 * infinite when the shapes differ. */
double hc_rel_dist(const cJSON *A, const cJSON *B);

#endif /* IRCG_TEST_HTTP_CHECK_H */
