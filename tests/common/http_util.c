/*
 * http_util.c -- see http_util.h.
 */
#include "http_util.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "contract.h"
#include "harness.h"

double hu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void hu_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------ daemon -- */

static void exec_daemon(const hu_daemon *d, int out_w, int log_fd)
{
    char bin[700], workers[16];
    const char *bd = getenv("IRCG_BUILD_DIR");
    snprintf(bin, sizeof bin, "%s/bin/ircgd", bd ? bd : "build");
    snprintf(workers, sizeof workers, "%d", d->workers);
    const char *argv[24] = {bin, "--listen", "127.0.0.1:0", "--db", d->db,
                            "--data-dir", d->data, "--workers", workers};
    int n = 9;
    if (d->tokens_file[0]) {
        argv[n++] = "--tokens-file";
        argv[n++] = d->tokens_file;
    }
    char extra[sizeof d->extra];
    snprintf(extra, sizeof extra, "%s", d->extra);
    for (char *tok = strtok(extra, " "); tok && n < 22; tok = strtok(NULL, " "))
        argv[n++] = tok;
    argv[n] = NULL;
    char env[256];
    snprintf(env, sizeof env, "%s", d->env);
    for (char *tok = strtok(env, " "); tok; tok = strtok(NULL, " "))
        putenv(strdup(tok)); /* the child's own copy, kept until exec */
    dup2(out_w, 1);
    dup2(log_fd, 2);
    unsetenv("IRCGD_TOKENS_FILE");
    execv(bin, (char *const *)argv);
    _exit(127);
}

/* Reads the "listening on http(s)://HOST:PORT" line (10 s at most); -1 when
 * the daemon exits (its stdout closes) or stays silent. */
static int read_port(hu_daemon *d)
{
    char line[256];
    size_t n = 0;
    double end = hu_now() + 10.0;
    while (hu_now() < end && n + 1 < sizeof line) {
        struct pollfd p = {d->out_fd, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0)
            continue;
        ssize_t k = read(d->out_fd, line + n, 1);
        if (k <= 0)
            return -1;
        if (line[n] == '\n') {
            line[n] = '\0';
            const char *c = strrchr(line, ':');
            const char *url = strstr(line, "http://");
            if (!url)
                url = strstr(line, "https://");
            d->port = c ? atoi(c + 1) : 0;
            snprintf(d->base, sizeof d->base, "%s", url ? url : "");
            return d->port > 0 && url ? 0 : -1;
        }
        n++;
    }
    return -1;
}

/* The daemons started and not yet waited for.  After every test any that
 * test left running (a REQUIRE that returned early skips its hu_stop) is
 * stopped and the test fails: no daemon outlives its test. */
typedef struct live_daemon {
    pid_t pid;
    int fd;
} live_daemon;
static live_daemon g_live[64];
static int g_nlive;

static int wait_exit(hu_daemon *d, double timeout_s);

static void live_drop(pid_t pid)
{
    for (int i = 0; i < g_nlive; i++)
        if (g_live[i].pid == pid) {
            g_live[i] = g_live[--g_nlive];
            return;
        }
}

static void stop_left_running(void)
{
    while (g_nlive > 0) {
        hu_daemon d = {.pid = g_live[0].pid, .out_fd = g_live[0].fd};
        int pid = (int)d.pid;
        kill(d.pid, SIGTERM);
        wait_exit(&d, 10.0); /* drops it from g_live */
        th_fail(__FILE__, __LINE__, "a daemon this test started (pid %d) was still running "
                "at its end: stopped", pid);
    }
}

static void live_add(pid_t pid, int fd)
{
    th_after_each(stop_left_running);
    if (g_nlive < (int)(sizeof g_live / sizeof g_live[0]))
        g_live[g_nlive++] = (live_daemon){.pid = pid, .fd = fd};
}

static int wait_exit(hu_daemon *d, double timeout_s)
{
    int status = 0;
    double end = hu_now() + timeout_s;
    pid_t r = 0;
    while ((r = waitpid(d->pid, &status, WNOHANG)) == 0 && hu_now() < end)
        hu_sleep_ms(20);
    if (r == 0) {
        kill(d->pid, SIGKILL);
        waitpid(d->pid, &status, 0);
        status = -1;
    }
    if (d->out_fd >= 0)
        close(d->out_fd);
    live_drop(d->pid);
    d->out_fd = -1;
    d->pid = 0;
    return status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Forks and execs the daemon d describes, its stdout (the port line) a
 * pipe to d->out_fd: 0, or -1 when it could not be started. */
static int spawn(hu_daemon *d)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    int log_fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    fflush(NULL);
    d->pid = fork();
    if (d->pid == 0)
        exec_daemon(d, fds[1], log_fd);
    close(fds[1]);
    if (log_fd >= 0)
        close(log_fd);
    d->out_fd = fds[0];
    if (d->pid < 0) {
        close(d->out_fd);
        d->out_fd = -1;
        return -1;
    }
    live_add(d->pid, d->out_fd);
    return 0;
}

int hu_restart(hu_daemon *d)
{
    if (spawn(d) != 0)
        return -1;
    if (read_port(d) != 0) {
        hu_kill9(d);
        return -1;
    }
    return 0;
}

int hu_start_refused(hu_daemon *d)
{
    if (spawn(d) != 0)
        return -1;
    if (read_port(d) == 0) { /* it started: not what the caller expected */
        hu_kill9(d);
        return -1;
    }
    return wait_exit(d, 20.0);
}

int hu_write_tokens(const char *path, const char *const *pairs)
{
    char cmd[2048];
    const char *bd = getenv("IRCG_BUILD_DIR");
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# made by ircgd --hash-token\n");
    fclose(f);
    for (int i = 0; pairs[i] && pairs[i + 1]; i += 2) {
        snprintf(cmd, sizeof cmd, "printf '%%s' '%s' | '%s/bin/ircgd' --hash-token %s >> '%s'",
                 pairs[i], bd ? bd : "build", pairs[i + 1], path);
        if (system(cmd) != 0)
            return -1;
    }
    return 0;
}

int hu_repo_file(const char *rel, char *path, size_t cap)
{
    struct stat st;
    const char *bd = getenv("IRCG_BUILD_DIR");
    snprintf(path, cap, "%s", rel);
    if (stat(path, &st) == 0)
        return 0;
    if (bd) {
        snprintf(path, cap, "%s/../%s", bd, rel);
        if (stat(path, &st) == 0)
            return 0;
    }
    return -1;
}

char *hu_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL) {
        n = (long)fread(buf, 1, (size_t)n, f);
        buf[n] = '\0';
    }
    if (f)
        fclose(f);
    return buf;
}

void hu_prepare(hu_daemon *d, const char *name, int workers)
{
    snprintf(d->dir, sizeof d->dir, "%s/%s", th_tmpdir(), name);
    mkdir(d->dir, 0755);
    snprintf(d->db, sizeof d->db, "%s/jobs.db", d->dir);
    snprintf(d->data, sizeof d->data, "%s/data", d->dir);
    snprintf(d->log, sizeof d->log, "%s/ircgd.log", d->dir);
    d->workers = workers > 0 ? workers : 2;
}

int hu_start(hu_daemon *d, const char *name, int workers)
{
    hu_prepare(d, name, workers);
    mkdir(d->data, 0755);
    return hu_restart(d);
}

int hu_stop(hu_daemon *d, int sig)
{
    if (d->pid <= 0)
        return -1;
    kill(d->pid, sig);
    return wait_exit(d, 30.0);
}

void hu_kill9(hu_daemon *d)
{
    if (d->pid > 0) {
        kill(d->pid, SIGKILL);
        wait_exit(d, 10.0);
    }
}

/* ------------------------------------------------------------ requests -- */

static size_t on_body(char *p, size_t sz, size_t n, void *user)
{
    hu_resp *r = user;
    size_t k = sz * n;
    char *grown = realloc(r->body, r->len + k + 1);
    if (!grown)
        return 0;
    r->body = grown;
    memcpy(r->body + r->len, p, k);
    r->len += k;
    r->body[r->len] = '\0';
    return k;
}

static void copy_header(char *dst, size_t cap, const char *v, size_t n)
{
    while (n > 0 && (v[n - 1] == '\r' || v[n - 1] == '\n'))
        n--;
    while (n > 0 && *v == ' ') {
        v++;
        n--;
    }
    snprintf(dst, cap, "%.*s", (int)n, v);
}

/* Every header line, for the contract check; a status line (an interim
 * response's, then the final one's) starts the block again. */
static void keep_header_line(hu_resp *r, const char *p, size_t k)
{
    if (k >= 5 && !strncmp(p, "HTTP/", 5))
        r->hlen = 0;
    char *grown = realloc(r->headers, r->hlen + k + 1);
    if (!grown)
        return;
    r->headers = grown;
    memcpy(r->headers + r->hlen, p, k);
    r->hlen += k;
    r->headers[r->hlen] = '\0';
}

static size_t on_header(char *p, size_t sz, size_t n, void *user)
{
    hu_resp *r = user;
    size_t k = sz * n;
    keep_header_line(r, p, k);
    static const struct { const char *name; size_t off, cap; } h[] = {
        {"content-type:", offsetof(hu_resp, ctype), sizeof(((hu_resp *)0)->ctype)},
        {"location:", offsetof(hu_resp, location), sizeof(((hu_resp *)0)->location)},
        {"etag:", offsetof(hu_resp, etag), sizeof(((hu_resp *)0)->etag)},
        {"allow:", offsetof(hu_resp, allow), sizeof(((hu_resp *)0)->allow)},
        {"www-authenticate:", offsetof(hu_resp, www_auth), sizeof(((hu_resp *)0)->www_auth)},
        {"retry-after:", offsetof(hu_resp, retry_after), sizeof(((hu_resp *)0)->retry_after)},
        {"idempotent-replayed:", offsetof(hu_resp, replayed), sizeof(((hu_resp *)0)->replayed)},
        {"x-next-after:", offsetof(hu_resp, next_after), sizeof(((hu_resp *)0)->next_after)},
        {"link:", offsetof(hu_resp, link), sizeof(((hu_resp *)0)->link)},
        {"x-request-id:", offsetof(hu_resp, request_id), sizeof(((hu_resp *)0)->request_id)},
        {"access-control-allow-origin:", offsetof(hu_resp, acao), sizeof(((hu_resp *)0)->acao)},
        {"content-security-policy:", offsetof(hu_resp, csp), sizeof(((hu_resp *)0)->csp)},
        {"cache-control:", offsetof(hu_resp, cache), sizeof(((hu_resp *)0)->cache)},
    };
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++) {
        size_t l = strlen(h[i].name);
        if (k > l && !strncasecmp(p, h[i].name, l))
            copy_header((char *)r + h[i].off, h[i].cap, p + l, k - l);
    }
    return k;
}

int hu_req(const hu_daemon *d, const char *method, const char *path,
           const char *ctype, const char *body, size_t len,
           const char *const *headers, hu_resp *r)
{
    char url[1024], ct[160];
    struct curl_slist *hl = NULL;
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
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (d->cainfo[0])
        curl_easy_setopt(c, CURLOPT_CAINFO, d->cainfo);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    snprintf(ct, sizeof ct, "Content-Type: %s", ctype ? ctype : "");
    hl = curl_slist_append(hl, ct); /* "Content-Type:" alone removes it */
    hl = curl_slist_append(hl, "Expect:");
    for (int i = 0; headers && headers[i]; i++)
        hl = curl_slist_append(hl, headers[i]);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    if (!r->body)
        r->body = calloc(1, 1);
    if (rc == CURLE_OK)
        ct_record(method, path, r->status, r->headers, r->body, r->len);
    return rc == CURLE_OK ? 0 : -1;
}

void hu_resp_free(hu_resp *r)
{
    if (r) {
        free(r->body);
        r->body = NULL;
        free(r->headers);
        r->headers = NULL;
        r->hlen = 0;
    }
}

cJSON *hu_json(const hu_resp *r)
{
    return r->body ? cJSON_Parse(r->body) : NULL;
}

long hu_get(const hu_daemon *d, const char *path, hu_resp *r)
{
    hu_req(d, "GET", path, NULL, NULL, 0, NULL, r);
    return r->status;
}

long hu_submit_ex(const hu_daemon *d, const char *spec, const char *const *headers,
                  char *id, size_t idlen, hu_resp *out)
{
    hu_resp r;
    hu_req(d, "POST", "/v1/jobs", "application/json", spec, strlen(spec), headers, &r);
    cJSON *j = hu_json(&r);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "id");
    if (id && idlen)
        snprintf(id, idlen, "%s", cJSON_IsString(v) ? v->valuestring : "");
    cJSON_Delete(j);
    if (out)
        *out = r;
    else
        hu_resp_free(&r);
    return r.status;
}

long hu_submit(const hu_daemon *d, const char *spec, char *id, size_t idlen)
{
    return hu_submit_ex(d, spec, NULL, id, idlen, NULL);
}

/* The job resource, or NULL. */
static cJSON *get_job(const hu_daemon *d, const char *id)
{
    char path[128];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    cJSON *j = hu_get(d, path, &r) == 200 ? hu_json(&r) : NULL;
    hu_resp_free(&r);
    return j;
}

int hu_wait_terminal(const hu_daemon *d, const char *id, double timeout_s,
                     char *state)
{
    double end = hu_now() + timeout_s;
    snprintf(state, 16, "?");
    while (hu_now() < end) {
        cJSON *j = get_job(d, id);
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "state");
        if (cJSON_IsString(s))
            snprintf(state, 16, "%s", s->valuestring);
        cJSON_Delete(j);
        if (!strcmp(state, "succeeded") || !strcmp(state, "failed") ||
            !strcmp(state, "cancelled"))
            return 0;
        hu_sleep_ms(25);
    }
    return -1;
}

int hu_wait_iteration(const hu_daemon *d, const char *id, long long iteration,
                      double timeout_s)
{
    double end = hu_now() + timeout_s;
    while (hu_now() < end) {
        cJSON *j = get_job(d, id);
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "progress");
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(p, "iteration");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "state");
        int ok = cJSON_IsNumber(it) && it->valuedouble > (double)iteration &&
                 cJSON_IsString(s) && !strcmp(s->valuestring, "running");
        cJSON_Delete(j);
        if (ok)
            return 0;
        hu_sleep_ms(20);
    }
    return -1;
}

cJSON *hu_result(const hu_daemon *d, const char *id)
{
    char path[128];
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/result", id);
    cJSON *j = hu_get(d, path, &r) == 200 ? hu_json(&r) : NULL;
    hu_resp_free(&r);
    return j;
}

/* --------------------------------------------------------------- specs -- */

char *hu_ls_spec(int m, int n, int seed, double rad, long long max_iter,
                 double time_limit, const char *extra)
{
    char *s = malloc(2048);
    if (s)
        snprintf(s, 2048,
                 "{\"problem\":{\"type\":\"least_squares\",\"data\":{\"source\":\"synthetic\","
                 "\"m\":%d,\"n\":%d,\"noise\":0,\"seed\":%d},\"domain\":{\"type\":\"l2_ball\","
                 "\"radius\":%.17g},\"outer\":{\"type\":\"half_norm_sq\"}},"
                 "\"algorithm\":{\"name\":\"ircg\",\"max_iter\":%lld,\"time_limit\":%.17g}%s%s}",
                 m, n, seed, rad, max_iter, time_limit, extra ? "," : "", extra ? extra : "");
    return s;
}

char *hu_mc_spec(int rows, int cols, int ratings, long long max_iter,
                 double time_limit, const char *extra)
{
    char *s = malloc(2048);
    if (s)
        snprintf(s, 2048,
                 "{\"problem\":{\"type\":\"matrix_completion\",\"data\":{\"source\":\"synthetic\","
                 "\"n_rows\":%d,\"n_cols\":%d,\"rank\":3,\"n_ratings\":%d,\"min_rating\":1,"
                 "\"max_rating\":5,\"noise\":0.5,\"seed\":1},\"delta\":5,"
                 "\"outer\":\"column_variance\"},"
                 "\"algorithm\":{\"name\":\"ircg\",\"max_iter\":%lld,\"time_limit\":%.17g}%s%s}",
                 rows, cols, ratings, max_iter, time_limit, extra ? "," : "", extra ? extra : "");
    return s;
}

int hu_connect(int port)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

double hu_peak_rss(const hu_daemon *d)
{
    char path[64], line[256];
    double kb = -1;
    snprintf(path, sizeof path, "/proc/%d/status", (int)d->pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lf kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}
