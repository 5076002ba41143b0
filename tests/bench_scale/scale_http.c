/*
 * scale_http.c -- the daemon's side of `make bench-scale`: how long a
 * submission takes to be accepted (synthetic specs of each size, and a
 * spec naming a big file), and how a long trace downloads (time, rows,
 * the daemon's RSS).
 */
#include <curl/curl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scale.h"
#include "store.h"

/* ------------------------------------------------------------ daemon -- */

static int read_base(int fd, daemon_t *d)
{
    char line[256];
    size_t n = 0;
    double end = sc_now() + 20;
    while (sc_now() < end && n + 1 < sizeof line) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0)
            continue;
        if (read(fd, line + n, 1) <= 0)
            return -1;
        if (line[n++] == '\n') {
            line[n - 1] = '\0';
            const char *url = strstr(line, "http://");
            snprintf(d->base, sizeof d->base, "%s", url ? url : "");
            return url ? 0 : -1;
        }
    }
    return -1;
}

int sc_start_daemon(const sc_opts *o, const char *db, const char *data, int workers,
                    daemon_t *d)
{
    char bin[1024], log[1024];
    char nworkers[16];
    int fds[2];
    snprintf(nworkers, sizeof nworkers, "%d", workers);
    snprintf(bin, sizeof bin, "%s/ircgd", o->bin);
    snprintf(log, sizeof log, "%s/ircgd.log", o->tmp);
    if (pipe(fds) != 0)
        return -1;
    fflush(NULL);
    d->pid = fork();
    if (d->pid == 0) {
        FILE *l = freopen(log, "a", stderr);
        (void)l;
        dup2(fds[1], 1);
        execl(bin, bin, "--listen", "127.0.0.1:0", "--db", db, "--data-dir", data,
              "--workers", nworkers, "--max-elements", "1000000000", "--max-body",
              "1073741824", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    int rc = d->pid > 0 ? read_base(fds[0], d) : -1;
    close(fds[0]);
    return rc;
}

void sc_stop_daemon(daemon_t *d, int sig)
{
    if (d->pid > 0) {
        kill(d->pid, sig);
        waitpid(d->pid, NULL, 0);
    }
    d->pid = 0;
}

/* ----------------------------------------------------------- requests -- */

static size_t on_body(char *p, size_t sz, size_t n, void *user)
{
    resp *r = user;
    size_t k = sz * n;
    for (size_t i = 0; i < k; i++)
        r->lines += p[i] == '\n';
    if (r->head_len + 1 < sizeof r->head) {
        size_t c = k < sizeof r->head - 1 - r->head_len ? k : sizeof r->head - 1 - r->head_len;
        memcpy(r->head + r->head_len, p, c);
        r->head_len += c;
        r->head[r->head_len] = '\0';
    }
    r->bytes += k;
    return k;
}

static size_t on_header(char *p, size_t sz, size_t n, void *user)
{
    resp *r = user;
    size_t k = sz * n;
    if (k > 5 && !strncasecmp(p, "link:", 5)) {
        size_t c = k - 5 < sizeof r->link - 1 ? k - 5 : sizeof r->link - 1;
        memcpy(r->link, p + 5, c);
        r->link[c] = '\0';
    }
    return k;
}

int sc_request(const daemon_t *d, const char *method, const char *path,
                   const char *body, const char *accept_enc, resp *r)
{
    char url[1024];
    struct curl_slist *h = NULL;
    CURL *c = curl_easy_init();
    memset(r, 0, sizeof *r);
    if (!c)
        return -1;
    snprintf(url, sizeof url, "%s%s", d->base, path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 900L);
    if (accept_enc)
        curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, accept_enc);
    if (body) {
        h = curl_slist_append(h, "Content-Type: application/json");
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    }
    double t0 = sc_now();
    CURLcode rc = curl_easy_perform(c);
    r->seconds = sc_now() - t0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return rc == CURLE_OK ? 0 : -1;
}

/* The "id" of a job document. */
void sc_job_id(const resp *r, char id[64])
{
    const char *p = strstr(r->head, "\"id\":\"");
    id[0] = '\0';
    if (p)
        sscanf(p + 6, "%63[^\"]", id);
}

/* Cancels and waits (up to 600 s) until the job is terminal. */
static void cancel_wait(const daemon_t *d, const char *id)
{
    char path[160];
    resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/cancel", id);
    sc_request(d, "POST", path, NULL, NULL, &r);
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    for (double end = sc_now() + 600; sc_now() < end; usleep(200000))
        if (sc_request(d, "GET", path, NULL, NULL, &r) == 0 &&
            (strstr(r.head, "\"cancelled\"") || strstr(r.head, "\"failed\"") ||
             strstr(r.head, "\"succeeded\"")))
            return;
}

/* --------------------------------------------------------------- submit -- */

static double submit(const daemon_t *d, const char *spec, const char *what)
{
    resp r;
    char id[64];
    if (sc_request(d, "POST", "/v1/jobs", spec, NULL, &r) != 0 || r.status != 202) {
        fprintf(stderr, "bench_scale: submit %s: HTTP %ld %s\n", what, r.status, r.head);
        return -1;
    }
    sc_job_id(&r, id);
    cancel_wait(d, id);
    return r.seconds;
}

static void submit_sizes(const sc_opts *o, const daemon_t *d)
{
    char sizes[64], spec[512];
    printf("\nsubmit latency (POST /v1/jobs until 202, synthetic specs):\n\n"
           "| ratings | seconds |\n|---|---|\n");
    snprintf(sizes, sizeof sizes, "%s", o->sizes);
    for (char *t = strtok(sizes, ","); t; t = strtok(NULL, ",")) {
        sc_shape s = sc_shape_of(atoi(t));
        snprintf(spec, sizeof spec,
                 "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":"
                 "\"synthetic\",\"n_rows\":%d,\"n_cols\":%d,\"n_ratings\":%lld}},"
                 "\"algorithm\":{\"max_iter\":2}}", s.rows, s.cols, s.ratings);
        double sec = submit(d, spec, t);
        printf("| %sM | %.4f |\n", t, sec);
        fflush(stdout);
    }
}

/* A MovieLens file of about gb GB with distinct (user, item) pairs. */
static int write_big_file(const char *path, int gb, long long *lines)
{
    FILE *f = fopen(path, "w");
    long long target = (long long)gb << 30, bytes = 0, e = 0;
    if (!f)
        return -1;
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    for (; bytes < target; e++) {
        long long u = e / 80 + 1, i = (e % 80) * 200 + (u % 200) + 1;
        bytes += fprintf(f, "%lld::%lld::%lld::%lld\n", u, i, 1 + e % 5,
                         956703932LL + e % 100000);
    }
    *lines = e;
    return fclose(f) == 0 ? 0 : -1;
}

static void submit_file(const sc_opts *o, const daemon_t *d, const char *data)
{
    char path[2100], spec[256];
    long long lines = 0;
    if (o->file_gb <= 0)
        return;
    snprintf(path, sizeof path, "%s/big.dat", data);
    if (write_big_file(path, o->file_gb, &lines) != 0) {
        fprintf(stderr, "bench_scale: cannot write %s\n", path);
        return;
    }
    snprintf(spec, sizeof spec,
             "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":\"file\","
             "\"path\":\"big.dat\",\"format\":\"movielens\"}},\"algorithm\":{\"max_iter\":2}}");
    double sec = submit(d, spec, "big file");
    printf("\na spec naming a %d GB file (%lld ratings): accepted in %.4f s\n", o->file_gb,
           lines, sec);
    fflush(stdout);
    remove(path);
}

/* ---------------------------------------------------------------- trace -- */

/* A finished job with `rows` trace rows, written through the store. */
static int seed_trace(const char *db, long long rows, char id[64])
{
    store *st = NULL;
    store_job job = {0};
    store_new_job nj = {.problem_type = "least_squares", .spec_json = "{}"};
    enum { BATCH = 10000 };
    store_trace_row *b = calloc(BATCH, sizeof *b);
    int rc = -1;
    if (!b || store_open(db, &st, NULL) != STORE_OK ||
        store_job_create(st, &nj, NULL, NULL) != STORE_OK ||
        store_job_claim_next(st, &job) != STORE_OK)
        goto done;
    store_claim c = store_claim_of(&job);
    for (long long t = 1; t <= rows; t += BATCH) {
        size_t n = 0;
        for (; n < BATCH && t + (long long)n <= rows; n++) {
            double x = (double)(t + (long long)n);
            b[n] = (store_trace_row){.iteration = t + (long long)n, .elapsed = x * 1e-4,
                                     .sigma = 1 / x, .alpha = 2 / (x + 2), .g_x = 1 / x,
                                     .f_x = 1 + 1 / x, .g_z = 1 / x, .f_z = 1, .gap = 1 / x,
                                     .g_gap_x = 1 / x, .g_gap_z = 1 / x, .lmo_seconds = 1e-5,
                                     .lmo_matvecs = 2, .top_sv = x, .rank = 0};
        }
        if (store_trace_append(st, &c, b, n) != STORE_OK)
            goto done;
    }
    if (store_job_finish(st, &c, STORE_SUCCEEDED, "{}", NULL) == STORE_OK)
        rc = 0;
    snprintf(id, 64, "%s", job.id);
done:
    free(b);
    store_job_clear(&job);
    store_close(st);
    return rc;
}

/* Every row: the unpaged request (limit 0) or pages of `limit` rows,
 * following Link rel="next". */
static void fetch_all(const daemon_t *d, const char *id, const char *enc, long limit,
                      long long want)
{
    char path[1024];
    resp r;
    size_t rows = 0, bytes = 0, requests = 0;
    double t = 0, rss0 = sc_proc_mb(d->pid, "VmRSS");
    if (limit > 0)
        snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv&limit=%ld", id, limit);
    else
        snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv", id);
    for (;;) {
        if (sc_request(d, "GET", path, NULL, enc, &r) != 0 || r.status != 200)
            break;
        requests++;
        rows += r.lines - 1; /* the header line */
        bytes += r.bytes;
        t += r.seconds;
        const char *lt = strchr(r.link, '<'), *gt = lt ? strchr(lt, '>') : NULL;
        if (!gt || requests > 10000)
            break;
        snprintf(path, sizeof path, "%.*s", (int)(gt - lt - 1), lt + 1);
    }
    printf("| %s%s | %zu | %zu | %.0f | %.2f | %.0f -> %.0f (peak %.0f) |\n",
           enc ? enc : "identity", limit > 0 ? ", pages" : "", requests, rows, (double)bytes / 1e6, t, rss0,
           sc_proc_mb(d->pid, "VmRSS"), sc_proc_mb(d->pid, "VmHWM"));
    if ((long long)rows != want)
        printf("  (%lld rows expected)\n", want);
    fflush(stdout);
}

static void trace_download(const sc_opts *o, const daemon_t *d, const char *id)
{
    char path[1024];
    resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv", id);
    sc_request(d, "GET", path, NULL, NULL, &r);
    printf("\ntrace of %lld rows: GET .../trace?format=csv alone gives %zu rows in %.2f s\n\n"
           "| encoding | requests | rows | MB | seconds | daemon RSS MB |\n"
           "|---|---|---|---|---|---|\n", o->trace_rows, r.lines ? r.lines - 1 : 0,
           r.seconds);
    fetch_all(d, id, NULL, 0, o->trace_rows);
    fetch_all(d, id, "gzip", 0, o->trace_rows);
    fetch_all(d, id, NULL, 100000, o->trace_rows);
}

int sc_http(const sc_opts *o)
{
    char db[1100], data[1100], id[64] = "";
    daemon_t d = {0};
    snprintf(db, sizeof db, "%s/scale.db", o->tmp);
    snprintf(data, sizeof data, "%s/data", o->tmp);
    remove(db);
    mkdir(data, 0755);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    double t0 = sc_now();
    if (o->trace_rows > 0 && seed_trace(db, o->trace_rows, id) != 0) {
        fprintf(stderr, "bench_scale: cannot seed the trace store %s\n", db);
        return -1;
    }
    fprintf(stderr, "bench_scale: %lld trace rows written in %.1f s\n", o->trace_rows,
            sc_now() - t0);
    if (sc_start_daemon(o, db, data, 1, &d) != 0) {
        fprintf(stderr, "bench_scale: ircgd did not start (%s/ircgd.log)\n", o->tmp);
        sc_stop_daemon(&d, SIGKILL); /* a build in flight would delay SIGTERM */
        return -1;
    }
    if (id[0])
        trace_download(o, &d, id);
    submit_sizes(o, &d);
    submit_file(o, &d, data);
    sc_stop_daemon(&d, SIGKILL);
    curl_global_cleanup();
    return 0;
}
