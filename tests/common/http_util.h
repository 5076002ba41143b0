/*
 * http_util.h -- run a real ircgd on an ephemeral loopback port and talk
 * to it through libcurl (integration tests of server/).
 */
#ifndef IRCG_TEST_HTTP_UTIL_H
#define IRCG_TEST_HTTP_UTIL_H

#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

typedef struct hu_daemon {
    pid_t pid;
    int port;
    int out_fd;          /* read end of the daemon's stdout */
    char base[80];       /* http(s)://HOST:PORT as the daemon printed it */
    char dir[512];       /* working directory of this daemon */
    char db[600], data[600], log[600];
    int workers;
    char tokens_file[600];
    char extra[1400];    /* extra flags, space separated */
    char env[256];       /* NAME=VALUE settings for the daemon, space separated */
    char cainfo[600];    /* CA file the client trusts (HTTPS), or "" */
} hu_daemon;

/* Names <tmp>/<name>/ (creates it) and its db, data dir and log in d
 * without creating the data dir (the daemon does that); workers <= 0
 * means 2.  hu_restart then starts it. */
void hu_prepare(hu_daemon *d, const char *name, int workers);
/* Prepares <tmp>/<name>/ (db, data dir, log) and starts the daemon.
 * workers <= 0 means 2.  Returns 0 when it is listening. */
int hu_start(hu_daemon *d, const char *name, int workers);
/* Starts it again on the same db and data dir (new port). */
int hu_restart(hu_daemon *d);
/* Starts a daemon that is expected NOT to come up (with d's db, data dir,
 * log and extra flags); returns its exit status, or -1 when it did start
 * listening (it is then killed) or did not exit within 20 s. */
int hu_start_refused(hu_daemon *d);
/* Writes a tokens file at path from NULL-terminated {token, scope, ...}
 * pairs, each line made by `ircgd --hash-token SCOPE` as an operator
 * would (tokens: RFC 6750 characters, no quotes).  0 on success. */
int hu_write_tokens(const char *path, const char *const *pairs);
/* A repository file by its path from the root: as is (make test runs at
 * the root), else beside the build directory (IRCG_BUILD_DIR/..).  0 when
 * found, its path in path. */
int hu_repo_file(const char *rel, char *path, size_t cap);
/* The whole file (e.g. a daemon's log), malloc'ed, or NULL. */
char *hu_read_file(const char *path);
/* Sends sig and waits (up to 30 s); returns the exit status, or -1
 * (killed by a signal / timeout). */
int hu_stop(hu_daemon *d, int sig);
void hu_kill9(hu_daemon *d);
/* The daemon's peak RSS in bytes (VmHWM of /proc/PID/status), or -1. */
double hu_peak_rss(const hu_daemon *d);

typedef struct hu_resp {
    long status;
    char *body;          /* NUL-terminated, malloc'ed */
    size_t len;
    char ctype[128], location[256], etag[64], allow[64], www_auth[128],
        retry_after[16], replayed[16], next_after[32], link[400], request_id[160],
        acao[160], csp[400], cache[80];
    char *headers;       /* every header line as received (malloc'ed)   */
    size_t hlen;
} hu_resp;

/* One request; headers is a NULL-terminated list of "Name: value" (may be
 * NULL); ctype NULL = no Content-Type.  Returns 0 when an HTTP response was
 * received.  Every response is checked against api/openapi.json after the
 * test (tests/common/contract.h). */
int hu_req(const hu_daemon *d, const char *method, const char *path,
           const char *ctype, const char *body, size_t len,
           const char *const *headers, hu_resp *r);
void hu_resp_free(hu_resp *r);
cJSON *hu_json(const hu_resp *r); /* parsed body or NULL */

/* Shortcuts. GET returns the status, body into r. */
long hu_get(const hu_daemon *d, const char *path, hu_resp *r);
/* POST /v1/jobs with a JSON body; *id receives the job id on 2xx. */
long hu_submit(const hu_daemon *d, const char *spec, char *id, size_t idlen);
/* The same with extra headers (NULL-terminated, may be NULL); out (may be
 * NULL) keeps the response (free with hu_resp_free). */
long hu_submit_ex(const hu_daemon *d, const char *spec, const char *const *headers,
                  char *id, size_t idlen, hu_resp *out);
/* Polls GET /v1/jobs/{id} until a terminal state (or timeout_s); copies the
 * state into state (>= 16 bytes).  Returns 0 when terminal. */
int hu_wait_terminal(const hu_daemon *d, const char *id, double timeout_s,
                     char *state);
/* Polls until the job is running and has progressed past `iteration`. */
int hu_wait_iteration(const hu_daemon *d, const char *id, long long iteration,
                      double timeout_s);
/* The result document of a finished job (NULL on failure). */
cJSON *hu_result(const hu_daemon *d, const char *id);

/* A least-squares "least-norm" spec (synthetic m x n, seed, l2 ball of
 * radius rad, f = 1/2||x||^2); extra is spliced into the top-level object
 * (e.g. "\"output\":{\"trace_every\":1}") or NULL. malloc'ed. */
char *hu_ls_spec(int m, int n, int seed, double rad, long long max_iter,
                 double time_limit, const char *extra);
/* A synthetic matrix completion spec. malloc'ed. */
char *hu_mc_spec(int rows, int cols, int ratings, long long max_iter,
                 double time_limit, const char *extra);

/* A TCP connection to 127.0.0.1:port that the test drives by hand (slow
 * or idle clients); -1 on failure. */
int hu_connect(int port);

double hu_now(void);
void hu_sleep_ms(int ms);

#endif /* IRCG_TEST_HTTP_UTIL_H */
