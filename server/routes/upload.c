/*
 * upload.c -- a dataset upload streamed to the data directory as it
 * arrives (the sink of POST /v1/datasets, route body 3): each piece is
 * written to a temporary file "<data-dir>/datasets/.upload-XXXXXX" and
 * hashed (SHA-256: the dataset's id), so an upload of any size holds a
 * few hundred kilobytes of the daemon's memory (libmicrohttpd's buffer).
 * The handler (routes_datasets.c) takes the file once the body is whole;
 * a refused or broken upload leaves nothing: its file is removed, and the
 * files of uploads a crash interrupted are removed at the next start.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "routes/routes.h"

#define PREFIX ".upload-"

void srv_datasets_dir(char *out, size_t cap)
{
    snprintf(out, cap, "%s/datasets", srv.cfg.data_dir);
}

static int upload_open(srv_req *r)
{
    char dir[1100];
    srv_upload *u = calloc(1, sizeof *u);
    if (!u) {
        errno = ENOMEM;
        return -1;
    }
    srv_datasets_dir(dir, sizeof dir);
    snprintf(u->path, sizeof u->path, "%s/" PREFIX "XXXXXX", dir);
    if ((mkdir(dir, 0700) != 0 && errno != EEXIST) || (u->fd = mkstemp(u->path)) < 0) {
        int e = errno;
        srv_log("cannot create an upload file in %s: %s", dir, strerror(e));
        free(u);
        errno = e;
        return -1;
    }
    store_sha256_init(&u->sha);
    r->sink_ctx = u;
    return 0;
}

static int upload_write(srv_req *r, const char *data, size_t n)
{
    srv_upload *u = r->sink_ctx;
    store_sha256_update(&u->sha, data, n);
    u->bytes += (int64_t)n;
    while (n > 0) {
        ssize_t w = write(u->fd, data, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        data += w;
        n -= (size_t)w;
    }
    return 0;
}

void srv_upload_free(srv_upload *u)
{
    if (!u)
        return;
    if (u->fd >= 0)
        close(u->fd);
    if (u->path[0])
        unlink(u->path);
    free(u);
}

static void upload_abort(srv_req *r)
{
    srv_upload_free(r->sink_ctx);
    r->sink_ctx = NULL;
}

const srv_sink srv_upload_sink = {upload_open, upload_write, upload_abort};

srv_upload *srv_upload_take(srv_req *r)
{
    srv_upload *u = r->sink_ctx;
    r->sink_ctx = NULL;
    return u;
}

void srv_uploads_sweep(void)
{
    char dir[1100], path[1400];
    srv_datasets_dir(dir, sizeof dir);
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, PREFIX, strlen(PREFIX))) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            n += unlink(path) == 0;
        }
    if (d)
        closedir(d);
    if (n > 0)
        srv_log("removed %d unfinished dataset uploads from %s", n, dir);
}
