/*
 * scale.h -- `make bench-scale`: the service on big instances (issue 12).
 * scale.c measures the library (generation, build, iterations, peak RSS,
 * reader throughput); scale_http.c the daemon (submit latency, a spec naming
 * a big file, the download of a long trace).
 */
#ifndef IRCG_BENCH_SCALE_H
#define IRCG_BENCH_SCALE_H

#include <stdint.h>

typedef struct sc_opts {
    const char *bin;      /* build/bin: ircgd lives there             */
    const char *tmp;      /* scratch directory (big files, stores)    */
    const char *sizes;    /* "1,10,100" millions of ratings           */
    int iters, threads, file_gb, skip_http, skip_solver, skip_readers;
    long long trace_rows;
} sc_opts;

/* The synthetic instance of n million ratings (MovieLens/Netflix shapes). */
typedef struct sc_shape {
    int rows, cols;
    long long ratings;
} sc_shape;
sc_shape sc_shape_of(int millions);

double sc_now(void);
/* Peak RSS of this process in MB (VmHWM). */
double sc_self_hwm_mb(void);
/* VmHWM / VmRSS of another process in MB (-1 when unreadable). */
double sc_proc_mb(int pid, const char *field);

/* scale_http.c */
int sc_http(const sc_opts *o);

#endif
