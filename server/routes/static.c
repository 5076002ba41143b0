/*
 * static.c -- the dashboard (/ui), Chart.js beside it, /openapi.json and
 * /v1/examples.
 *
 * The dashboard's HTML, CSS and JavaScript modules, the API document and
 * the examples are compiled in (assets.h).  Chart.js is not ours: it is
 * read from where Debian's libjs-chart.js installs it (--ui-chartjs), at
 * /ui/vendor/chart.js/, so the page loads nothing from the internet and
 * the repository holds no copy of it.
 *
 * Every page of /ui gets a strict Content-Security-Policy (scripts and
 * styles from this origin only: no inline code), and is revalidated by
 * its ETag (Cache-Control: no-cache) so a new build is seen at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "routes/assets.h"
#include "routes/routes.h"

#define CSP                                                                            \
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "  \
    "connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; " \
    "base-uri 'none'"
#define CHARTJS_PREFIX "vendor/chart.js/"
#define CHARTJS_MAX (8 << 20)

static const char *content_type(const char *path)
{
    if (!strcmp(path, "/v1/examples")) /* JSON without a suffix to say so */
        return "application/json";
    static const char *const types[][2] = {
        {".html", "text/html; charset=utf-8"},  {".mjs", "text/javascript; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},          {".svg", "image/svg+xml"},
        {".png", "image/png"},                  {".ico", "image/x-icon"},
    };
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t k = strlen(types[i][0]);
        if (n >= k && !strcmp(path + n - k, types[i][0]))
            return types[i][1];
    }
    return "application/octet-stream";
}

static const srv_asset *asset_find(const char *path)
{
    for (const srv_asset *a = srv_assets; a->path; a++)
        if (!strcmp(a->path, path))
            return a;
    return NULL;
}

/* FNV-1a: a strong validator for bytes that only change with the build. */
static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static bool etag_matches(srv_req *r, const char *etag)
{
    const char *inm = srv_req_header(r, MHD_HTTP_HEADER_IF_NONE_MATCH);
    return inm && (strstr(inm, etag) || !strcmp(inm, "*"));
}

static void security_headers(struct MHD_Response *resp)
{
    MHD_add_response_header(resp, "Content-Security-Policy", CSP);
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(resp, "X-Frame-Options", "DENY");
}

/* Bytes that outlive the response (PERSISTENT) or are malloc'ed (FREE). */
static void send_bytes(srv_req *r, const char *name, const void *data, size_t len,
                       enum MHD_ResponseMemoryMode mode, const char *etag,
                       const char *cache)
{
    int fresh = etag_matches(r, etag);
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        fresh ? 0 : len, fresh ? (void *)"" : (void *)data,
        fresh ? MHD_RESPMEM_PERSISTENT : mode);
    if (fresh && mode == MHD_RESPMEM_MUST_FREE)
        free((void *)data);
    if (!resp) {
        srv_problem_internal(r, "out of memory");
        return;
    }
    if (!fresh)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type(name));
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, cache);
    if (!strncmp(r->path, "/ui", 3))
        security_headers(resp);
    srv_reply_response(r, fresh ? MHD_HTTP_NOT_MODIFIED : MHD_HTTP_OK, resp);
}

static void send_asset(srv_req *r, const char *path)
{
    const srv_asset *a = asset_find(path);
    char etag[40];
    if (!a) {
        srv_problem(r, MHD_HTTP_NOT_FOUND, "not-found", "Not found", "no resource at %s",
                    r->path);
        return;
    }
    snprintf(etag, sizeof etag, "\"%016llx\"", (unsigned long long)fnv1a(a->data, a->len));
    send_bytes(r, a->path, a->data, a->len, MHD_RESPMEM_PERSISTENT, etag, "no-cache");
}

void srv_route_openapi(srv_req *r)
{
    send_asset(r, "/openapi.json");
}

void srv_route_examples(srv_req *r)
{
    send_asset(r, "/v1/examples");
}

/* /ui is the page itself: its references are absolute (/ui/...). */
void srv_route_ui_root(srv_req *r)
{
    send_asset(r, "/ui/index.html");
}

/* A path below the Chart.js directory: segments of [A-Za-z0-9._-] not
 * starting with a dot (no "..", no hidden files), a script's extension. */
static bool is_chartjs_name(const char *rel)
{
    size_t n = strlen(rel);
    if (n == 0 || strspn(rel, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                              "0123456789._-/") != n)
        return false;
    for (const char *seg = rel; seg;) {
        if (*seg == '.' || *seg == '/' || *seg == '\0')
            return false;
        seg = strchr(seg, '/');
        seg = seg ? seg + 1 : NULL;
    }
    return (n > 3 && !strcmp(rel + n - 3, ".js")) || (n > 4 && !strcmp(rel + n - 4, ".mjs"));
}

/* The whole regular file (at most CHARTJS_MAX bytes), malloc'ed; NULL with
 * errno set. */
static char *read_regular(const char *path, struct stat *sb)
{
    char *buf = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    if (fstat(fd, sb) == 0 && S_ISREG(sb->st_mode) && sb->st_size <= CHARTJS_MAX &&
        (buf = malloc((size_t)sb->st_size + 1))) {
        size_t got = 0, want = (size_t)sb->st_size;
        ssize_t k = 1;
        while (got < want && (k = read(fd, buf + got, want - got)) > 0)
            got += (size_t)k;
        if (got != want) {
            free(buf);
            buf = NULL;
        }
    } else {
        errno = ENOENT;
    }
    close(fd);
    return buf;
}

static void send_chartjs(srv_req *r, const char *rel)
{
    char path[sizeof srv.cfg.ui_chartjs + sizeof r->params[0] + 2], etag[64];
    struct stat sb;
    char *data = NULL;
    if (is_chartjs_name(rel)) {
        snprintf(path, sizeof path, "%s/%s", srv.cfg.ui_chartjs, rel);
        data = read_regular(path, &sb);
    }
    if (!data) {
        srv_problem(r, MHD_HTTP_NOT_FOUND, "not-found", "Not found",
                    "no %s in the Chart.js directory %s (install Debian's libjs-chart.js, "
                    "or point --ui-chartjs at it)", rel, srv.cfg.ui_chartjs);
        return;
    }
    snprintf(etag, sizeof etag, "\"%llx-%llx\"", (unsigned long long)sb.st_size,
             (unsigned long long)sb.st_mtime);
    send_bytes(r, rel, data, (size_t)sb.st_size, MHD_RESPMEM_MUST_FREE, etag,
               "public, max-age=3600");
}

void srv_route_ui(srv_req *r)
{
    const char *rest = r->params[0];
    char path[sizeof r->params[0] + 8];
    if (!strncmp(rest, CHARTJS_PREFIX, strlen(CHARTJS_PREFIX))) {
        send_chartjs(r, rest + strlen(CHARTJS_PREFIX));
        return;
    }
    snprintf(path, sizeof path, "/ui/%s", *rest ? rest : "index.html");
    send_asset(r, path);
}
