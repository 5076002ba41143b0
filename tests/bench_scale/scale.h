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
    int storage_jobs;     /* least-norm jobs of the storage table, 0: none */
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

/* A daemon of build/bin on a free loopback port, and one HTTP exchange. */
typedef struct daemon_t {
    int pid;
    char base[96];
} daemon_t;

typedef struct resp {
    long status;
    double seconds;
    char head[256];        /* the first bytes of the body */
    size_t bytes, lines, head_len;
    char link[512];
} resp;

int sc_start_daemon(const sc_opts *o, const char *db, const char *data, int workers,
                    daemon_t *d);
void sc_stop_daemon(daemon_t *d, int sig); /* sig, then waits for it */
int sc_request(const daemon_t *d, const char *method, const char *path,
               const char *body, const char *accept_enc, resp *r);
void sc_job_id(const resp *r, char id[64]); /* "id" of a job document */

/* scale_store.c: the database that N least-norm jobs leave. */
int sc_storage(const sc_opts *o);

#endif
