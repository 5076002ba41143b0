/*
 * contract.c -- see contract.h.
 */
#include "contract.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "harness.h"
#include "http_util.h"

#define PRISM_START_S 300 /* node loading Prism on a busy 2-core machine */

typedef struct exchange {
    char *method, *path, *headers, *body;
    size_t len;
    long status;
} exchange;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static exchange *g_ex;           /* recorded since the last check */
static size_t g_nex, g_cap;
static int g_hooked;
static long g_checked, g_outside, g_violations;
static int g_prism_port, g_replay_fd = -1;
static pid_t g_prism;
static int g_broken;              /* Prism did not start: said once */
static cJSON *g_doc;              /* api/openapi.json, for the route names */
/* the exchanges being checked, read by the replay thread (g_serve_mu:
 * the sockets between the two order them, but no tool sees that) */
static pthread_mutex_t g_serve_mu = PTHREAD_MUTEX_INITIALIZER;
static exchange *g_serving;
static size_t g_nserving;

static int g_on;
static pthread_once_t g_on_once = PTHREAD_ONCE_INIT;

static void decide(void)
{
    char path[1024];
    const char *e = getenv("IRCG_CONTRACT");
    g_on = !(e && !strcmp(e, "0")) &&
           hu_repo_file("tests/node/node_modules/.bin/prism", path, sizeof path) == 0;
}

int ct_enabled(void)
{
    pthread_once(&g_on_once, decide);
    return g_on;
}

void ct_totals(long *checked, long *outside, long *violations)
{
    *checked = g_checked;
    *outside = g_outside;
    *violations = g_violations;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        if (n)
            memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* ------------------------------------------------------- shapes seen -- */

/* A response of the same shape as one already checked is not sent again:
 * the same method, path, status, content type and body but for the
 * digits of its JSON numbers, each run of which counts as "0" when it is
 * all zeros and as that many 1s otherwise (0.5 and 1.5 differ, as a
 * bound of 1 would; 5 and 7 do not).  A hundred polls of one running job
 * are then a handful of checks. */
static uint64_t *g_seen;
static size_t g_seen_cap, g_nseen;
static long g_same;

static uint64_t fnv(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t shape_of(const char *method, const char *path, long status,
                         const char *ctype, const char *body, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    char st[32];
    h = fnv(h, method, strlen(method));
    h = fnv(h, path, strcspn(path, "?"));
    snprintf(st, sizeof st, " %ld ", status);
    h = fnv(h, st, strlen(st));
    h = fnv(h, ctype, strlen(ctype));
    int in_string = 0, escaped = 0;
    for (size_t i = 0; i < len; i++) {
        char c = body[i];
        if (in_string) {
            if (escaped)
                escaped = 0;
            else if (c == '\\')
                escaped = 1;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c >= '0' && c <= '9') {
            size_t j = i;
            int zero = 1;
            for (; j < len && body[j] >= '0' && body[j] <= '9'; j++)
                zero &= body[j] == '0';
            for (size_t k = i; k < j; k++)
                h = fnv(h, zero ? "0" : "1", 1);
            i = j - 1;
            continue;
        }
        h = fnv(h, &c, 1);
    }
    return h ? h : 1;
}

/* Whether the shape was seen (it is remembered if not).  Under g_mu. */
static int seen_before(uint64_t h)
{
    if (2 * (g_nseen + 1) > g_seen_cap) {
        size_t cap = g_seen_cap ? 2 * g_seen_cap : 4096;
        uint64_t *grown = calloc(cap, sizeof *grown);
        if (!grown)
            return 0;
        for (size_t i = 0; i < g_seen_cap; i++)
            if (g_seen[i])
                for (size_t k = g_seen[i] & (cap - 1);; k = (k + 1) & (cap - 1))
                    if (!grown[k]) {
                        grown[k] = g_seen[i];
                        break;
                    }
        free(g_seen);
        g_seen = grown;
        g_seen_cap = cap;
    }
    for (size_t k = h & (g_seen_cap - 1);; k = (k + 1) & (g_seen_cap - 1)) {
        if (g_seen[k] == h)
            return 1;
        if (!g_seen[k]) {
            g_seen[k] = h;
            g_nseen++;
            return 0;
        }
    }
}

/* The Content-Type header's value among the header lines, into out. */
static void ctype_of(const char *headers, char *out, size_t cap)
{
    out[0] = '\0';
    for (const char *l = headers; l && *l;) {
        if (!strncasecmp(l, "content-type:", 13)) {
            const char *v = l + 13 + strspn(l + 13, " ");
            snprintf(out, cap, "%.*s", (int)strcspn(v, "\r\n"), v);
            return;
        }
        const char *nl = strchr(l, '\n');
        l = nl ? nl + 1 : NULL;
    }
}

static void after_test(void) { ct_check(1, NULL, 0); }

static void totals(void)
{
    printf("contract: %ld responses checked against api/openapi.json by Prism, %ld "
           "violations (%ld more of a shape already checked, %ld requests outside the "
           "document)\n", g_checked, g_violations, g_same, g_outside);
}

void ct_record(const char *method, const char *path, long status, const char *headers,
               const char *body, size_t len)
{
    char ctype[160];
    if (!ct_enabled() || status < 100)
        return;
    ctype_of(headers, ctype, sizeof ctype);
    uint64_t shape = shape_of(method, path, status, ctype, body ? body : "", body ? len : 0);
    pthread_mutex_lock(&g_mu);
    if (seen_before(shape)) {
        g_same++;
        pthread_mutex_unlock(&g_mu);
        return;
    }
    if (!g_hooked) {
        th_after_each(after_test);
        th_at_end(totals);
        g_hooked = 1;
    }
    if (g_nex == g_cap) {
        size_t cap = g_cap ? 2 * g_cap : 64;
        exchange *grown = realloc(g_ex, cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&g_mu);
            return;
        }
        g_ex = grown;
        g_cap = cap;
    }
    exchange *x = &g_ex[g_nex++];
    x->method = dup_n(method, strlen(method));
    x->path = dup_n(path, strlen(path));
    x->headers = dup_n(headers ? headers : "", headers ? strlen(headers) : 0);
    x->body = dup_n(body ? body : "", body ? len : 0);
    x->len = body ? len : 0;
    x->status = status;
    pthread_mutex_unlock(&g_mu);
}

/* ------------------------------------------------------ replay server -- */

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* The recorded headers but those the replay sets itself (framing and the
 * connection's), into a malloc'ed block. */
static char *replay_headers(const char *h)
{
    static const char *const drop[] = {"content-length:", "transfer-encoding:", "connection:",
                                       "keep-alive:"};
    size_t n = strlen(h), o = 0;
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    for (const char *line = h; *line;) {
        const char *end = strstr(line, "\r\n");
        size_t l = end ? (size_t)(end - line) + 2 : strlen(line);
        int keep = l > 2 && strncmp(line, "HTTP/", 5) != 0;
        for (size_t i = 0; keep && i < sizeof drop / sizeof drop[0]; i++)
            keep = strncasecmp(line, drop[i], strlen(drop[i])) != 0;
        if (keep) {
            memcpy(out + o, line, l);
            o += l;
        }
        line += l;
    }
    out[o] = '\0';
    return out;
}

static void serve_one(int fd)
{
    char head[16384], line[160];
    size_t n = 0;
    long id = -1;
    /* the request head; its body (none: the checks send none) ignored */
    while (n < sizeof head - 1) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 10000) <= 0)
            break;
        ssize_t k = read(fd, head + n, sizeof head - 1 - n);
        if (k <= 0)
            break;
        n += (size_t)k;
        head[n] = '\0';
        if (strstr(head, "\r\n\r\n"))
            break;
    }
    head[n] = '\0';
    for (char *p = head; (p = strchr(p, '\n')) != NULL;) {
        p++;
        if (!strncasecmp(p, "x-ircg-replay:", 14))
            id = strtol(p + 14, NULL, 10);
    }
    pthread_mutex_lock(&g_serve_mu);
    if (id < 0 || (size_t)id >= g_nserving) {
        static const char nf[] = "HTTP/1.1 599 No Recording\r\nContent-Length: 0\r\n"
                                 "Connection: close\r\n\r\n";
        pthread_mutex_unlock(&g_serve_mu);
        (void)!write_all(fd, nf, sizeof nf - 1);
        return;
    }
    const exchange *x = &g_serving[id];
    char *h = replay_headers(x->headers);
    snprintf(line, sizeof line, "HTTP/1.1 %ld Replayed\r\n", x->status);
    int ok = write_all(fd, line, strlen(line)) == 0 && h && write_all(fd, h, strlen(h)) == 0;
    snprintf(line, sizeof line, "Content-Length: %zu\r\nConnection: close\r\n\r\n", x->len);
    if (ok && write_all(fd, line, strlen(line)) == 0)
        (void)!write_all(fd, x->body, x->len);
    pthread_mutex_unlock(&g_serve_mu);
    free(h);
}

static void *replay_loop(void *arg)
{
    (void)arg;
    for (;;) {
        int fd = accept(g_replay_fd, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return NULL;
        }
        serve_one(fd);
        close(fd);
    }
}

/* A listening socket on 127.0.0.1, its port into *port. */
static int listen_local(int *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0 || listen(fd, 64) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* ------------------------------------------------------------- Prism -- */

/* The replay server and `prism proxy api/openapi.json REPLAY`: 0 once
 * Prism accepts connections. */
static int start_prism(void)
{
    char prism[1024], doc[1024], upstream[64], port[16], log[700];
    pthread_t t;
    int replay_port = 0;
    if (g_prism_port)
        return 0;
    if (g_broken)
        return -1;
    g_broken = 1; /* until it is up */
    if (hu_repo_file("tests/node/node_modules/.bin/prism", prism, sizeof prism) != 0 ||
        hu_repo_file("api/openapi.json", doc, sizeof doc) != 0)
        return -1;
    char *text = hu_read_file(doc);
    g_doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    if ((g_replay_fd = listen_local(&replay_port)) < 0 ||
        pthread_create(&t, NULL, replay_loop, NULL) != 0)
        return -1;
    pthread_detach(t);
    int probe = 0, pfd = listen_local(&probe); /* a free port for Prism */
    if (pfd < 0)
        return -1;
    close(pfd);
    snprintf(upstream, sizeof upstream, "http://127.0.0.1:%d", replay_port);
    snprintf(port, sizeof port, "%d", probe);
    snprintf(log, sizeof log, "%s/prism.log", th_tmpdir());
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execl(prism, "prism", "proxy", doc, upstream, "--port", port, "--host", "127.0.0.1",
              "--cors", "false", "--validate-request", "false", "--errors", "false",
              "--verboseLevel", "warn", (char *)NULL);
        _exit(127);
    }
    if (pid < 0)
        return -1;
    g_prism = pid;
    th_keep_process(pid); /* the harness ends it with the run */
    for (double end = hu_now() + PRISM_START_S; hu_now() < end;) {
        struct sockaddr_in a = {.sin_family = AF_INET,
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                                .sin_port = htons((uint16_t)probe)};
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int up = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
        if (fd >= 0)
            close(fd);
        if (up) {
            g_prism_port = probe;
            g_broken = 0;
            return 0;
        }
        if (kill(pid, 0) != 0)
            break;
        hu_sleep_ms(200);
    }
    return -1;
}

/* ----------------------------------------------------------- checking -- */

/* The document's path template of a request path ("/v1/jobs/{id}"): the
 * one whose segments all match, literal segments preferred; the path
 * itself when none does. */
static void route_of(const char *path, char *out, size_t cap)
{
    char p[512];
    int best = -1;
    snprintf(p, sizeof p, "%.*s", (int)strcspn(path, "?"), path);
    snprintf(out, cap, "%s", p);
    const cJSON *paths = cJSON_GetObjectItemCaseSensitive(g_doc, "paths"), *t;
    cJSON_ArrayForEach(t, paths) {
        const char *a = t->string, *b = p;
        int literal = 0, ok = 1;
        while (ok && *a && *b) {
            size_t la = strcspn(a + 1, "/") + 1, lb = strcspn(b + 1, "/") + 1;
            if (a[1] == '{')
                ok = lb > 1;
            else if ((ok = la == lb && !strncmp(a, b, la)))
                literal++;
            a += la;
            b += lb;
        }
        if (ok && !*a && !*b && literal > best) {
            best = literal;
            snprintf(out, cap, "%s", t->string);
        }
    }
}

typedef struct answer {
    long status;
    char *violations; /* the sl-violations header's value */
    char body[512];
    size_t blen;
} answer;

static size_t on_answer_header(char *p, size_t sz, size_t n, void *user)
{
    answer *a = user;
    size_t k = sz * n;
    if (k > 14 && !strncasecmp(p, "sl-violations:", 14) && !a->violations) {
        size_t l = k - 14;
        while (l > 0 && (p[14 + l - 1] == '\r' || p[14 + l - 1] == '\n'))
            l--;
        a->violations = dup_n(p + 14, l);
    }
    return k;
}

static size_t on_answer_body(char *p, size_t sz, size_t n, void *user)
{
    answer *a = user;
    size_t k = sz * n, room = sizeof a->body - 1 - a->blen;
    memcpy(a->body + a->blen, p, k < room ? k : room);
    a->blen += k < room ? k : room;
    a->body[a->blen] = '\0';
    return k;
}

/* Exchange i through Prism: its answer. */
static int ask_prism(size_t i, const exchange *x, answer *a)
{
    char url[1200], hdr[64];
    struct curl_slist *hl = NULL;
    CURL *c = curl_easy_init();
    if (!c)
        return -1;
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", g_prism_port, x->path);
    snprintf(hdr, sizeof hdr, "X-Ircg-Replay: %zu", i);
    hl = curl_slist_append(hl, hdr);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, x->method);
    if (!strcmp(x->method, "HEAD"))
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_answer_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, a);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_answer_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    CURLcode rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a->status);
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    return rc == CURLE_OK ? 0 : -1;
}

/* Prints and counts the response violations of one answer (into said
 * too, when given). */
static int report(const exchange *x, const answer *a, int fail, char *said, size_t cap)
{
    char route[512], where[256];
    int found = 0;
    cJSON *v = a->violations ? cJSON_Parse(a->violations) : NULL, *e;
    route_of(x->path, route, sizeof route);
    cJSON_ArrayForEach(e, v) {
        const cJSON *loc = cJSON_GetObjectItemCaseSensitive(e, "location"), *s;
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"));
        const char *sev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "severity"));
        size_t n = 0;
        where[0] = '\0';
        cJSON_ArrayForEach(s, loc) {
            if (cJSON_IsString(s) && n + strlen(s->valuestring) + 2 < sizeof where)
                n += (size_t)snprintf(where + n, sizeof where - n, "%s%s", n ? "/" : "",
                                      s->valuestring);
        }
        if (strncmp(where, "response", 8) != 0)
            continue; /* the request's: violated on purpose, or outside */
        found++;
        if (fail)
            th_fail(__FILE__, __LINE__,
                    "contract: %s %s answered %ld, which api/openapi.json does not allow "
                    "(Prism, %s): %s: %s", x->method, route, x->status, sev ? sev : "?",
                    where, msg ? msg : "?");
        else
            printf("    contract: %s %s answered %ld: %s: %s\n", x->method, route, x->status,
                   where, msg ? msg : "?");
        if (said && strlen(said) + 1 < cap)
            snprintf(said + strlen(said), cap - strlen(said), "%s %s %ld %s: %s\n", x->method,
                     route, x->status, where, msg ? msg : "?");
    }
    cJSON_Delete(v);
    return found;
}

/* Whether Prism says the request is outside the document. */
static int outside(const answer *a)
{
    return a->violations && strstr(a->violations, "\"request\"") &&
           strstr(a->violations, "route not found");
}

int ct_check(int fail, char *said, size_t cap)
{
    exchange *ex;
    size_t n;
    int found = 0;
    if (said && cap)
        said[0] = '\0';
    pthread_mutex_lock(&g_mu);
    ex = g_ex;
    n = g_nex;
    g_ex = NULL;
    g_nex = g_cap = 0;
    pthread_mutex_unlock(&g_mu);
    size_t total = n;
    if (n > 0 && start_prism() != 0) {
        if (fail)
            th_fail(__FILE__, __LINE__, "contract: Prism did not start (see %s/prism.log): "
                    "%zu responses unchecked", th_tmpdir(), n);
        n = 0;
    }
    pthread_mutex_lock(&g_serve_mu);
    g_serving = ex;
    g_nserving = n;
    pthread_mutex_unlock(&g_serve_mu);
    for (size_t i = 0; i < n; i++) {
        answer a = {0};
        if (ask_prism(i, &ex[i], &a) != 0 || a.status == 599 ||
            (a.status == 500 && strstr(a.body, "FetchError"))) {
            if (fail)
                th_fail(__FILE__, __LINE__, "contract: %s %s: Prism could not check it "
                        "(answer %ld: %.200s)", ex[i].method, ex[i].path, a.status, a.body);
            found++;
        } else if (outside(&a)) {
            g_outside++;
        } else {
            int k = report(&ex[i], &a, fail, said, cap);
            g_checked++;
            g_violations += fail ? k : 0; /* a test double's are not the daemon's */
            found += k;
        }
        free(a.violations);
    }
    pthread_mutex_lock(&g_serve_mu);
    g_serving = NULL;
    g_nserving = 0;
    pthread_mutex_unlock(&g_serve_mu);
    for (size_t i = 0; i < total; i++) {
        free(ex[i].method);
        free(ex[i].path);
        free(ex[i].headers);
        free(ex[i].body);
    }
    free(ex);
    return found;
}
