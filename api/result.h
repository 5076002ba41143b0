/*
 * result.h -- solver results and traces as JSON and CSV.
 *
 * Numbers are printed with the shortest of %.15g/%.16g/%.17g that reads
 * back to the same double (so they round-trip); NaN and infinities are
 * JSON null (and an empty CSV field).  All strings returned are malloc'ed
 * and owned by the caller.
 */
#ifndef IRCG_API_RESULT_H
#define IRCG_API_RESULT_H

#include <stddef.h>

#include "ircg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a distributed solve ran: its ranks and the host of each, in rank
 * order, and the Slurm job they ran in (written as "execution": {"ranks",
 * "hosts", "slurm_job"}). */
typedef struct api_execution {
    int ranks;
    const char *const *hosts;       /* ranks of them                         */
    const char *slurm_job;          /* the Slurm job the ranks ran in, or NULL */
} api_execution;

typedef struct api_result {
    const ircg_info *info;          /* required                              */
    ircg_error error;               /* IRCG_OK unless the solve failed       */
    const char *error_message;      /* NULL or "": a message naming the code
                                       and the iteration is written instead */
    const ircg_reference_info *reference; /* NULL unless computed            */
    double g_opt;                   /* NaN = unknown                         */
    const ircg_iterate *x, *z;      /* may be NULL; see below                */
    const ircg_settings *settings;  /* the solver's settings: NULL writes
                                       "algorithm": null and leaves out the
                                       members of the baselines            */
    const api_execution *execution; /* NULL: one process (left out)          */
    const char *auto_why;           /* "name": "auto" chose the algorithm
                                       (api_spec_auto_why): "choice"
                                       {"name", "why"}; NULL: left out     */
} api_result;

/* {"status", "error", "algorithm", "iterations", "setup_seconds",
 *  "solve_seconds", "lmo_seconds", "lmo_matvecs", "samples",
 *  "lmo_unconverged", "omega_passes", "omega_bytes", "threads", "g_x",
 *  "f_x", "g_z", "f_z", "gap", "sigma", "rank", "g_opt", "g_gap_x",
 *  "g_gap_z", "projections"{"mode","partial","full"} (irpg, bisg),
 *  "stochastic"{"batch","q" (ir-fscg),"seed"} (ir-scg, ir-fscg),
 *  "execution"{"ranks","hosts","slurm_job" (under Slurm)} (a distributed solve),
 *  "choice"{"name","why"} (a spec that let "auto" choose the method),
 *  "warmup_iterations", "warmup_seconds" (cgbio), "reference"{...},
 *  "x"{...}, "z"{...}}.
 * x and z per algorithm: IR-CG: the last iterate x_t and the averaged z_t;
 * IR-PG and CG-BiO: x_t, with z = x; Bi-SG: x is the feasible y_k and z the
 * point x_k after the outer step (possibly outside X).
 * An iterate is {"kind":"vector","n","values"} (least squares) or
 * {"kind":"factored","n_rows","n_cols","a0","x0_diag"{"length",
 * "value"|"values"},"rank","w","P"[k columns of n],"Q"[k columns of p],
 * "dense"[n rows of p] only when the iterate carries it}; an iterate of a
 * compacted problem (ircg_iterate's ids) adds "rows" and "cols" (the ids
 * P's and Q's rows are, 0-based), its P columns of len(rows), its Q
 * columns of len(cols), and "P_other" (k) when the other rows share one.
 * NULL when out of memory. */
char *api_result_json(const api_result *r);

/* Trace rows, one per ircg_iter_info.  The CSV header (with '\n'):
 * t,elapsed,sigma,alpha,g_x,f_x,g_z,f_z,gap,g_gap_x,g_gap_z,lmo_seconds,
 * lmo_matvecs,top_sv,rank,lmo_converged,backtracks,proj_full,lambda,
 * certified,inner_gap_x,inner_gap_z,g_lower,f_lower
 * (lmo_converged, proj_full and certified are 0 or 1). */
extern const char API_TRACE_CSV_HEADER[];
/* The longest row either function writes, with its '\n' but not its NUL. */
#define API_TRACE_ROW_MAX 832
/* snprintf-style: write one row (ending in '\n') into buf; returns the
 * length it needs (excluding the NUL), at most API_TRACE_ROW_MAX. */
int api_trace_csv_row(char *buf, size_t n, const ircg_iter_info *it);
/* One JSON object per line (JSON lines), same members as the CSV columns. */
int api_trace_json_row(char *buf, size_t n, const ircg_iter_info *it);
/* The row api_trace_json_row wrote (len bytes, NUL not needed) back into
 * *it, every double bit for bit; the integers that were NaN-free numbers.
 * 0, or -1 when the line is not such a row (*it untouched). */
int api_trace_json_parse(const char *line, size_t len, ircg_iter_info *it);

/* The sentence of warning w of a result (warnings.c), snprintf-style;
 * stop: the settings' stop (NULL: none given). */
int api_warning_message(char *buf, size_t n, const ircg_info *in, const ircg_stop *stop,
                        ircg_warning w);

/* Shortest round-trip text of a double ("null" when not finite) into
 * buf (>= 32 bytes); returns buf. */
char *api_fmt_double(char *buf, double v);

#ifdef __cplusplus
}
#endif
#endif /* IRCG_API_RESULT_H */
