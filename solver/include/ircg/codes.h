/*
 * ircg/codes.h -- part of libircg's public API: error and status codes,
 * ircg_diag. Include <ircg.h>, which includes every part in order; the
 * conventions of the whole API are written at its top.
 */
#ifndef IRCG_CODES_H
#define IRCG_CODES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- codes -- */

typedef enum ircg_error {
    IRCG_OK = 0,
    IRCG_ERR_INVALID = 1,   /* an argument or setting is out of range       */
    IRCG_ERR_NOMEM = 2,     /* an allocation failed                          */
    IRCG_ERR_NUMERICAL = 3, /* a numerical kernel broke down (NaN, LAPACK)   */
    IRCG_ERR_IO = 4,        /* a file could not be opened or read            */
    IRCG_ERR_PARSE = 5,     /* a data file is malformed (diag.line says where)*/
    IRCG_ERR_STOPPED = 6    /* the calling thread's stop (ircg_stop_set) was
                               due: diag->message says which (cancel or
                               deadline), diag->field where it struck     */
} ircg_error;

typedef enum ircg_status {
    IRCG_STATUS_UNSOLVED = 0,   /* not run yet, or stopped by an error        */
    IRCG_STATUS_CONVERGED = 1,  /* gap_tol reached                            */
    IRCG_STATUS_MAX_ITER = 2,   /* iteration limit                            */
    IRCG_STATUS_TIME_LIMIT = 3, /* wall-clock limit                           */
    IRCG_STATUS_CANCELLED = 4,  /* the cancel flag was set                    */
    IRCG_STATUS_INTERRUPTED = 5,/* the callback asked to stop                 */
    IRCG_STATUS_STALLED = 6     /* g_opt only: the gap stopped decreasing
                                   above tol and its rounding floor        */
} ircg_status;

/* What a result says besides its status (ircg_info.warnings, a mask). */
typedef enum ircg_warning {
    IRCG_WARN_INNER_UNSOLVED = 1, /* the last certified inner gap is above
                                     its tolerance (stop.inner_gap*, else
                                     1e-3 of g(x_0) - g_upper), whatever
                                     ended the solve: a limit, or a stop
                                     with only outer tolerances: x is not
                                     a solution of the inner problem to
                                     that accuracy                        */
    IRCG_WARN_OUTER_UNSOLVED = 2, /* a stop.outer_gap* was given and the
                                     certified outer gap stayed above it  */
    IRCG_WARN_UNCERTIFIED = 4,    /* no certificate was made (certify = 0,
                                     or the method has none here)         */
    IRCG_WARN_LOOSE = 8,          /* nuclear ball: a sigma_1 was bounded by
                                     the Frobenius norm, not Kato-Temple:
                                     the bounds hold but are loose        */
    IRCG_WARN_BELOW_OPTIMUM = 16  /* a stop.outer_gap* was given and the
                                     answer's f lies below f_lower (a
                                     certified lower bound of f*) by more
                                     than it: the answer's g above g*
                                     buys f below the bilevel optimum
                                     (the weak optimality's side)         */
} ircg_warning;
#define IRCG_WARN_LAST IRCG_WARN_BELOW_OPTIMUM /* the highest bit, for loops */

const char *ircg_error_string(ircg_error e);   /* "invalid argument", ...    */
/* "inner_unsolved", "outer_unsolved", "uncertified", "loose",
 * "below_optimum" */
const char *ircg_warning_name(ircg_warning w);
const char *ircg_status_string(ircg_status s); /* "converged", "max_iter", ...*/

/* Where and why an operation failed.  field is a path into the input in JSON
 * pointer syntax relative to the object the caller passed ("/delta",
 * "/settings/p"); line is the 1-based line of a data file, 0 otherwise.
 * When line > 0 the message already begins with "line <line>: " (see the
 * readers below): a caller adding context prefixes only what the library
 * cannot know, e.g. "bad.dat: " + message, and never the line again. */
typedef struct ircg_diag {
    ircg_error code;
    char field[128];
    char message[256];
    long line;
} ircg_diag;

/* ---------------------------------------------------------------- stops -- */

/* What stops the long operations of one thread before they end by
 * themselves: a cancel flag (nonzero stops; written by other threads with
 * an atomic store) and a deadline on ircg_clock().  Installed with
 * ircg_stop_set, it is polled by everything that takes time in
 * proportion to the data on that thread -- the readers (between blocks of
 * lines), the synthetic generators (between blocks of draws), the problem
 * constructors (between rows), ircg_reference_compute and ircg_solve
 * (between iterations, and inside an iteration between passes over the
 * data: the LMO's products, the projections' products) -- so that each
 * stops within one such unit of work of the flag or the deadline.
 * Readers, generators and constructors then fail with IRCG_ERR_STOPPED;
 * the reference and the solver end with status CANCELLED or TIME_LIMIT,
 * as for their own settings.cancel and time_limit (which still apply; the
 * earlier of the two deadlines counts).  A distributed problem polls
 * between iterations only, where its ranks vote. */
typedef struct ircg_thread_stop {
    const volatile int *cancel; /* borrowed; NULL: none                   */
    double deadline;            /* ircg_clock() seconds; 0: none          */
} ircg_thread_stop;

/* The calling thread's stop: *s is copied (its cancel flag must outlive
 * it); NULL removes it.  Threads start without one. */
void ircg_stop_set(const ircg_thread_stop *s);
/* Seconds on the monotonic clock the deadlines are read on. */
double ircg_clock(void);

#ifdef __cplusplus
}
#endif
#endif /* IRCG_CODES_H */
