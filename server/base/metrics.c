/*
 * metrics.c -- Prometheus text exposition (format 0.0.4).
 *
 * Counters and histograms live in process memory behind one mutex: the
 * update rate is a few per request or per job, far below contention.  Job
 * gauges are read from the store at scrape time so they are right across
 * restarts.  Labels are low-cardinality only (route templates, never ids).
 */
#include <microhttpd.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"

#define MAX_SERIES 256
#define NBUCKETS 12

static const double BUCKETS[NBUCKETS] = {0.01, 0.05, 0.1, 0.5, 1, 5,
                                         10, 30, 60, 300, 1800, 3600};

typedef struct req_series {
    const char *route; /* static route name */
    char method[8];
    unsigned code;
    uint64_t count;
} req_series;

typedef struct histogram {
    uint64_t bucket[NBUCKETS];
    uint64_t count;
    double sum;
} histogram;

static pthread_mutex_t m_mu = PTHREAD_MUTEX_INITIALIZER;
static req_series series[MAX_SERIES];
static int n_series;
static uint64_t finished[STORE_NSTATES];
static uint64_t iterations;
static histogram queue_wait, run_time;

void srv_metrics_request(const char *route, const char *method, unsigned code,
                         double seconds)
{
    (void)seconds;
    pthread_mutex_lock(&m_mu);
    int i = 0;
    while (i < n_series && !(series[i].route == route && series[i].code == code &&
                             !strcmp(series[i].method, method)))
        i++;
    if (i == n_series && n_series < MAX_SERIES) {
        series[i].route = route;
        snprintf(series[i].method, sizeof series[i].method, "%s", method);
        series[i].code = code;
        n_series++;
    }
    if (i < n_series)
        series[i].count++;
    pthread_mutex_unlock(&m_mu);
}

void srv_metrics_finished(store_state s)
{
    pthread_mutex_lock(&m_mu);
    if ((unsigned)s < STORE_NSTATES)
        finished[s]++;
    pthread_mutex_unlock(&m_mu);
}

static void observe(histogram *h, double v)
{
    pthread_mutex_lock(&m_mu);
    for (int i = 0; i < NBUCKETS; i++)
        if (v <= BUCKETS[i])
            h->bucket[i]++;
    h->count++;
    h->sum += v;
    pthread_mutex_unlock(&m_mu);
}

void srv_metrics_queue_wait(double s) { observe(&queue_wait, s); }
void srv_metrics_run(double s) { observe(&run_time, s); }

void srv_metrics_iterations(int64_t n)
{
    pthread_mutex_lock(&m_mu);
    iterations += (uint64_t)(n > 0 ? n : 0);
    pthread_mutex_unlock(&m_mu);
}

static void head(api_buf *b, const char *name, const char *type, const char *help)
{
    api_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void render_hist(api_buf *b, const char *name, const char *help,
                        const histogram *h)
{
    head(b, name, "histogram", help);
    for (int i = 0; i < NBUCKETS; i++)
        api_buf_printf(b, "%s_bucket{le=\"%g\"} %llu\n", name, BUCKETS[i],
                       (unsigned long long)h->bucket[i]);
    api_buf_printf(b, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %.6f\n%s_count %llu\n",
                   name, (unsigned long long)h->count, name, h->sum, name,
                   (unsigned long long)h->count);
}

/* Everything kept in memory, rendered under the lock. */
static void render_memory(api_buf *b)
{
    pthread_mutex_lock(&m_mu);
    head(b, "ircgd_http_requests_total", "counter", "HTTP requests by route template, method and status.");
    for (int i = 0; i < n_series; i++)
        api_buf_printf(b, "ircgd_http_requests_total{route=\"%s\",method=\"%s\",code=\"%u\"} %llu\n",
                       series[i].route, series[i].method, series[i].code,
                       (unsigned long long)series[i].count);
    head(b, "ircgd_jobs_finished_total", "counter", "Jobs that reached a terminal state since start.");
    for (int s = STORE_SUCCEEDED; s < STORE_NSTATES; s++)
        api_buf_printf(b, "ircgd_jobs_finished_total{state=\"%s\"} %llu\n",
                       store_state_name((store_state)s), (unsigned long long)finished[s]);
    head(b, "ircgd_solver_iterations_total", "counter", "Solver iterations run since start.");
    api_buf_printf(b, "ircgd_solver_iterations_total %llu\n", (unsigned long long)iterations);
    render_hist(b, "ircgd_queue_wait_seconds", "Time from submission to a worker claiming the job.", &queue_wait);
    render_hist(b, "ircgd_job_run_seconds", "Time from claim to finish of one run of a job.", &run_time);
    pthread_mutex_unlock(&m_mu);
}

char *srv_metrics_render(store *st, const srv_metrics_gauges *g)
{
    api_buf b = {0};
    int64_t counts[STORE_NSTATES] = {0};
    render_memory(&b);
    head(&b, "ircgd_jobs", "gauge", "Jobs in the store by state.");
    if (store_job_counts(st, counts) == STORE_OK)
        for (int s = 0; s < STORE_NSTATES; s++)
            api_buf_printf(&b, "ircgd_jobs{state=\"%s\"} %lld\n",
                           store_state_name((store_state)s), (long long)counts[s]);
    head(&b, "ircgd_store_write_failures_total", "counter",
         "Writes the store refused with a storage fault, by code (busy, full, read_only, io_error, no_memory).");
    static const store_rc faults[] = {STORE_BUSY, STORE_FULL, STORE_READONLY, STORE_IOERR,
                                      STORE_NOMEM};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        api_buf_printf(&b, "ircgd_store_write_failures_total{code=\"%s\"} %llu\n",
                       store_rc_name(faults[i]),
                       (unsigned long long)srv_store_failures(faults[i]));
    head(&b, "ircgd_store_writable", "gauge",
         "1 when the store takes writes, 0 during a storage fault (see /readyz).");
    api_buf_printf(&b, "ircgd_store_writable %d\n", !srv_store_is_degraded(NULL, 0));
    head(&b, "ircgd_http_slow_clients_closed_total", "counter",
         "Connections closed for taking over --request-timeout to send a request.");
    api_buf_printf(&b, "ircgd_http_slow_clients_closed_total %llu\n",
                   (unsigned long long)g->slow_closed);
    head(&b, "ircgd_http_rate_limited_total", "counter",
         "Requests refused with 429 by the per-client rate limit.");
    api_buf_printf(&b, "ircgd_http_rate_limited_total %llu\n",
                   (unsigned long long)g->rate_refused);
    head(&b, "ircgd_workers_busy", "gauge", "Workers running a job.");
    api_buf_printf(&b, "ircgd_workers_busy %d\n", g->workers_busy);
    head(&b, "ircgd_workers", "gauge", "Size of the worker pool.");
    api_buf_printf(&b, "ircgd_workers %d\n", srv.cfg.workers);
    head(&b, "ircgd_job_threads", "gauge", "Threads a job's sparse kernels may use.");
    api_buf_printf(&b, "ircgd_job_threads %d\n", srv_job_threads_cap(&srv.cfg));
    head(&b, "ircgd_build_info", "gauge", "Versions of ircgd and its libraries.");
    api_buf_printf(&b, "ircgd_build_info{version=\"%s\",mhd=\"%s\",sqlite=\"%s\"} 1\n",
                   IRCG_VERSION, MHD_get_version(), sqlite3_libversion());
    head(&b, "process_start_time_seconds", "gauge", "Start time of the process (unix seconds).");
    api_buf_printf(&b, "process_start_time_seconds %.3f\n", srv.started_at);
    return api_buf_take(&b);
}
