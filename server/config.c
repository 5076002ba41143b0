/*
 * config.c -- configuration from the environment and the command line.
 * Precedence: defaults < IRCGD_* environment < flags.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <sched.h>
#include <unistd.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircg.h"
#include "server.h"

static void defaults(srv_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->listen, sizeof c->listen, "127.0.0.1:8080");
    snprintf(c->db, sizeof c->db, "./ircg.db");
    snprintf(c->data_dir, sizeof c->data_dir, "./data");
    snprintf(c->ui_chartjs, sizeof c->ui_chartjs, "/usr/share/javascript/chart.js");
    c->workers = 2;
    c->max_body = INT64_C(64) << 20;
    c->max_queued = 1000;
    c->max_elements = 50000000; /* 400 MB of doubles */
    c->max_trace_rows = 10000000; /* ~150 MB of compressed rows */
    c->max_attempts = 3;
    c->snapshot_keep = 3;
    c->snapshot_keep_finished = 1;
    c->conn_limit = 128;
    c->per_ip_limit = 64;
    c->conn_timeout = 60;
    c->request_timeout = 30.0;
    c->rate_limit = 0.0;
    c->rate_burst = 20.0;
    c->sse_max_seconds = 600.0;
    c->heartbeat_every = 5.0;
    c->checkpoint_every = 30.0;
    c->mpi_stop_grace = 30.0;
}

void srv_config_usage(void)
{
    printf("usage: ircgd [options]\n"
           "Every option can also be set by the environment variable in brackets;\n"
           "a flag wins over the environment.  --name=VALUE works too.\n"
           "\n"
           "service:\n"
           "  --listen ADDR:PORT   address to serve; ADDR may be a name (localhost) or\n"
           "                       [IPv6]; port 0 picks a free port (printed on stdout)\n"
           "                       [IRCGD_LISTEN, default 127.0.0.1:8080]\n"
           "  --db FILE            SQLite job store; one ircgd per file (it holds\n"
           "                       FILE.lock) [IRCGD_DB, default ./ircg.db]\n"
           "  --data-dir DIR       spec file paths must lie inside it; uploaded datasets\n"
           "                       are copied there [IRCGD_DATA_DIR, default ./data]\n"
           "  --workers N          jobs solved at once, 1..256 [IRCGD_WORKERS, default 2]\n"
           "  --job-threads N      threads one job's sparse kernels may use, 1..64; a\n"
           "                       spec asking for more gets this many.  0 = automatic:\n"
           "                       the cores over the workers (at least 1), so the\n"
           "                       workers' threads never exceed the cores\n"
           "                       [IRCGD_JOB_THREADS, default 0]\n"
           "  --tokens-file FILE   \"sha256:<hex> SCOPE\" lines (scopes: read < submit <\n"
           "                       admin); absent = no auth [IRCGD_TOKENS_FILE]\n"
           "  --tls-cert FILE      serve HTTPS with this PEM certificate (chain) and\n"
           "  --tls-key FILE       this PEM private key [IRCGD_TLS_CERT, IRCGD_TLS_KEY]\n"
           "  --cors-origins LIST  comma-separated origins (https://app.example.org) whose\n"
           "                       pages may call the API; absent = CORS off\n"
           "                       [IRCGD_CORS_ORIGINS]\n"
           "  --ui-chartjs DIR     Chart.js for the dashboard at /ui, as Debian's\n"
           "                       libjs-chart.js installs it [IRCGD_UI_CHARTJS,\n"
           "                       default /usr/share/javascript/chart.js]\n"
           "\n"
           "HTTP limits:\n"
           "  --max-body BYTES     request body limit, else 413 [IRCGD_MAX_BODY,\n"
           "                       default 67108864 = 64 MiB]\n"
           "  --conn-limit N       open connections at most, 1..65536 [IRCGD_CONN_LIMIT,\n"
           "                       default 128]\n"
           "  --per-ip-limit N     open connections per client address, 0 = no limit\n"
           "                       [IRCGD_PER_IP_LIMIT, default 64]\n"
           "  --conn-timeout S     close a connection idle for S seconds, 1..86400\n"
           "                       [IRCGD_CONN_TIMEOUT, default 60]\n"
           "  --request-timeout S  close a connection that takes over S seconds to send a\n"
           "                       request, headers and body (slow clients)\n"
           "                       [IRCGD_REQUEST_TIMEOUT, default 30]\n"
           "  --rate-limit R       requests per second per client (its token, else its\n"
           "                       address), beyond which 429; 0 = no limit\n"
           "                       [IRCGD_RATE_LIMIT, default 0]\n"
           "  --rate-burst B       requests a client may make at once within its rate\n"
           "                       [IRCGD_RATE_BURST, default 20]\n"
           "  --sse-max-seconds S  end an event stream after S seconds (clients reconnect\n"
           "                       with Last-Event-ID) [IRCGD_SSE_MAX_SECONDS, default 600]\n"
           "\n"
           "jobs:\n"
           "  --max-queued N       queued jobs before 429, 0 = no limit\n"
           "                       [IRCGD_MAX_QUEUED, default 1000]\n"
           "  --max-attempts N     runs a job may lose to crashes before it fails; a clean\n"
           "                       shutdown does not count [IRCGD_MAX_ATTEMPTS, default 3]\n"
           "  --snapshot-keep K    spec snapshots kept per job, 0 = all\n"
           "                       [IRCGD_SNAPSHOT_KEEP, default 3]\n"
           "  --snapshot-keep-finished K  snapshots kept once a job is finished (the\n"
           "                       newest), 0 = all [IRCGD_SNAPSHOT_KEEP_FINISHED, default 1]\n"
           "  --retain-finished D  delete finished jobs (with trace, snapshots, events)\n"
           "                       D after they finished: 3600, 90m, 12h, 30d; 0 = keep\n"
           "                       them [IRCGD_RETAIN_FINISHED, default 0]\n"
           "  --max-elements N     cap on synthetic/inline data: ratings, or m*n of A\n"
           "                       [IRCGD_MAX_ELEMENTS, default 50000000]\n"
           "  --max-job-memory B   bytes a job may hold at its peak by its estimate (a\n"
           "                       spec over it is refused with 422 naming the members\n"
           "                       that drive it); the requests in flight share one such\n"
           "                       budget.  B may end in K, M, G or T (powers of 1024)\n"
           "                       [IRCGD_MAX_JOB_MEMORY, default: 80%% of the memory\n"
           "                       (or the cgroup's limit) over workers + 2]\n"
           "  --max-trace-rows N   trace rows a job keeps: past iteration N x trace_every\n"
           "                       only its last row is added [IRCGD_MAX_TRACE_ROWS,\n"
           "                       default 10000000]\n"
           "  --checkpoint-every S save a running job's solver state every S seconds of\n"
           "                       solving, so a crash loses at most that much work;\n"
           "                       0 = only the snapshots a spec asks for\n"
           "                       [IRCGD_CHECKPOINT_EVERY, default 30]\n"
           "  --heartbeat-every S  seconds between the heartbeats of running jobs, written\n"
           "                       whatever the solver is doing [IRCGD_HEARTBEAT_EVERY,\n"
           "                       default 5]\n"
           "\n"
           "MPI jobs (\"execution\": {\"ranks\": N}; refused with 422 without a launcher):\n"
           "  --mpi-launch CMD     the launcher, run by /bin/sh with {ranks} replaced and\n"
           "                       ircg-mpi and its arguments appended, e.g. 'mpirun -np\n"
           "                       {ranks} --hostfile /etc/ircg/hosts' [IRCGD_MPI_LAUNCH]\n"
           "  --mpi-program FILE   ircg-mpi [IRCGD_MPI_PROGRAM, default: beside ircgd]\n"
           "  --mpi-workdir DIR    each MPI job's spec, result and per-rank checkpoints; on a\n"
           "                       file system every host sees when ranks run elsewhere\n"
           "                       [IRCGD_MPI_WORKDIR, default DB.mpi]\n"
           "  --mpi-stop-grace S   seconds the ranks get to stop together on a cancel, a\n"
           "                       shutdown or the time limit before the launcher is\n"
           "                       terminated [IRCGD_MPI_STOP_GRACE, default 30]\n"
           "\n"
           "other:\n"
           "  --healthcheck        GET /healthz on the listen address; exit 0 if healthy\n"
           "  --hash-token SCOPE   read a token on stdin, print its tokens-file line\n"
           "  --help, --version\n"
           "\n"
           "exit status: 0 stopped by SIGTERM/SIGINT, 1 could not start (port in use,\n"
           "store unreadable, ...), 2 bad usage, 3 another ircgd holds the database,\n"
           "4 the database is damaged, not an ircg store, or cannot be written\n");
}

/* Parses a non-negative integer in [lo, hi]; 0 on error. */
static int parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* Parses a finite number in [lo, hi]; 0 on error. */
static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return 0;
    *out = v;
    return 1;
}

/* Bytes: an integer, or one with K, M, G or T (powers of 1024), at least
 * 1 MiB; 0 on error. */
static int parse_bytes(const char *s, int64_t *out)
{
    static const char units[] = "KMGT";
    char num[32];
    size_t n = strlen(s);
    int64_t scale = 1, v = 0;
    const char *u = n > 1 ? strchr(units, s[n - 1]) : NULL;
    if (u && *u) {
        for (const char *q = units; q <= u; q++)
            scale *= 1024;
        n--;
    }
    if (n == 0 || n >= sizeof num)
        return 0;
    memcpy(num, s, n);
    num[n] = '\0';
    if (!parse_int(num, 1, (INT64_C(1) << 50) / scale, &v) || v * scale < (INT64_C(1) << 20))
        return 0;
    *out = v * scale;
    return 1;
}

/* A duration: seconds, or a number with s, m, h or d; 0 on error. */
static int parse_duration(const char *s, double *out)
{
    static const struct { char unit; double sec; } units[] = {
        {'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
    char num[64];
    size_t n = strlen(s);
    double scale = 1;
    for (size_t i = 0; n > 1 && i < sizeof units / sizeof units[0]; i++)
        if (s[n - 1] == units[i].unit) {
            scale = units[i].sec;
            n--;
        }
    if (n == 0 || n >= sizeof num)
        return 0;
    memcpy(num, s, n);
    num[n] = '\0';
    if (!parse_double(num, 0, 1e12, out))
        return 0;
    *out *= scale;
    return 1;
}

/* Applies one named setting; `name` is the flag without "--".  Returns 0
 * for an unknown name, -1 for a bad value, 1 on success. */
static int apply(srv_config *c, const char *name, const char *v)
{
    int64_t n = 0;
    struct { const char *name; double *dst, lo, hi; } reals[] = {
        {"heartbeat-every", &c->heartbeat_every, 0.05, 3600},
        {"checkpoint-every", &c->checkpoint_every, 0, 86400},
        {"mpi-stop-grace", &c->mpi_stop_grace, 0, 86400},
        {"request-timeout", &c->request_timeout, 1, 86400},
        {"rate-limit", &c->rate_limit, 0, 1e6},
        {"rate-burst", &c->rate_burst, 1, 1e6},
        {"sse-max-seconds", &c->sse_max_seconds, 1, 86400},
    };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++)
        if (!strcmp(name, reals[i].name))
            return parse_double(v, reals[i].lo, reals[i].hi, reals[i].dst) ? 1 : -1;
    if (!strcmp(name, "retain-finished"))
        return parse_duration(v, &c->retain_finished) ? 1 : -1;
    if (!strcmp(name, "max-job-memory"))
        return parse_bytes(v, &c->max_job_memory) ? 1 : -1;
    struct { const char *name; char *dst; size_t len; } strs[] = {
        {"listen", c->listen, sizeof c->listen},
        {"db", c->db, sizeof c->db},
        {"data-dir", c->data_dir, sizeof c->data_dir},
        {"tokens-file", c->tokens_file, sizeof c->tokens_file},
        {"tls-cert", c->tls_cert, sizeof c->tls_cert},
        {"tls-key", c->tls_key, sizeof c->tls_key},
        {"hash-token", c->hash_token, sizeof c->hash_token},
        {"cors-origins", c->cors_origins, sizeof c->cors_origins},
        {"ui-chartjs", c->ui_chartjs, sizeof c->ui_chartjs},
        {"mpi-launch", c->mpi_launch, sizeof c->mpi_launch},
        {"mpi-program", c->mpi_program, sizeof c->mpi_program},
        {"mpi-workdir", c->mpi_workdir, sizeof c->mpi_workdir},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        if (!strcmp(name, strs[i].name)) {
            if (strlen(v) >= strs[i].len)
                return -1;
            snprintf(strs[i].dst, strs[i].len, "%s", v);
            return 1;
        }
    struct { const char *name; int64_t lo, hi; int64_t *wide; int *narrow; } ints[] = {
        {"workers", 1, 256, NULL, &c->workers},
        {"job-threads", 0, 64, NULL, &c->job_threads},
        {"max-body", 1, INT64_C(1) << 40, &c->max_body, NULL},
        {"max-queued", 0, INT64_C(1) << 40, &c->max_queued, NULL},
        {"max-attempts", 1, 1000, NULL, &c->max_attempts},
        {"snapshot-keep", 0, 1000000, NULL, &c->snapshot_keep},
        {"snapshot-keep-finished", 0, 1000000, NULL, &c->snapshot_keep_finished},
        {"max-elements", 1, INT64_C(1) << 40, &c->max_elements, NULL},
        {"max-trace-rows", 1, INT64_C(1) << 50, &c->max_trace_rows, NULL},
        {"conn-limit", 1, 65536, NULL, &c->conn_limit},
        {"per-ip-limit", 0, 65536, NULL, &c->per_ip_limit},
        {"conn-timeout", 1, 86400, NULL, &c->conn_timeout},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (!strcmp(name, ints[i].name)) {
            if (!parse_int(v, ints[i].lo, ints[i].hi, &n))
                return -1;
            if (ints[i].wide)
                *ints[i].wide = n;
            else
                *ints[i].narrow = (int)n; /* hi fits an int */
            return 1;
        }
    return 0;
}

static int load_env(srv_config *c, char *err, size_t errlen)
{
    static const char *const names[][2] = {
        {"IRCGD_LISTEN", "listen"}, {"IRCGD_DB", "db"},
        {"IRCGD_WORKERS", "workers"}, {"IRCGD_JOB_THREADS", "job-threads"},
        {"IRCGD_DATA_DIR", "data-dir"},
        {"IRCGD_TOKENS_FILE", "tokens-file"}, {"IRCGD_MAX_BODY", "max-body"},
        {"IRCGD_MAX_QUEUED", "max-queued"}, {"IRCGD_MAX_ATTEMPTS", "max-attempts"},
        {"IRCGD_SNAPSHOT_KEEP", "snapshot-keep"}, {"IRCGD_MAX_ELEMENTS", "max-elements"},
        {"IRCGD_MAX_JOB_MEMORY", "max-job-memory"},
        {"IRCGD_MAX_TRACE_ROWS", "max-trace-rows"},
        {"IRCGD_HEARTBEAT_EVERY", "heartbeat-every"},
        {"IRCGD_CHECKPOINT_EVERY", "checkpoint-every"},
        {"IRCGD_CONN_LIMIT", "conn-limit"}, {"IRCGD_PER_IP_LIMIT", "per-ip-limit"},
        {"IRCGD_CONN_TIMEOUT", "conn-timeout"},
        {"IRCGD_REQUEST_TIMEOUT", "request-timeout"},
        {"IRCGD_RATE_LIMIT", "rate-limit"}, {"IRCGD_RATE_BURST", "rate-burst"},
        {"IRCGD_SSE_MAX_SECONDS", "sse-max-seconds"},
        {"IRCGD_SNAPSHOT_KEEP_FINISHED", "snapshot-keep-finished"},
        {"IRCGD_RETAIN_FINISHED", "retain-finished"},
        {"IRCGD_TLS_CERT", "tls-cert"}, {"IRCGD_TLS_KEY", "tls-key"},
        {"IRCGD_CORS_ORIGINS", "cors-origins"}, {"IRCGD_UI_CHARTJS", "ui-chartjs"},
        {"IRCGD_MPI_LAUNCH", "mpi-launch"}, {"IRCGD_MPI_PROGRAM", "mpi-program"},
        {"IRCGD_MPI_WORKDIR", "mpi-workdir"}, {"IRCGD_MPI_STOP_GRACE", "mpi-stop-grace"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i][0]);
        if (v && *v && apply(c, names[i][1], v) < 0) {
            snprintf(err, errlen, "invalid value for %s: \"%s\"", names[i][0], v);
            return -1;
        }
    }
    return 0;
}

static int load_args(srv_config *c, int argc, char **argv, char *err,
                     size_t errlen)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            c->help = 1;
            continue;
        }
        if (!strcmp(a, "--version")) {
            c->version = 1;
            continue;
        }
        if (!strcmp(a, "--healthcheck")) {
            c->healthcheck = 1;
            continue;
        }
        /* --name VALUE or --name=VALUE */
        char name[64];
        const char *v = NULL;
        const char *eq = strchr(a, '=');
        if (strncmp(a, "--", 2) != 0 || (eq && (size_t)(eq - a) >= sizeof name)) {
            snprintf(err, errlen, "unknown argument \"%s\"", a);
            return -1;
        }
        if (eq) {
            snprintf(name, sizeof name, "%.*s", (int)(eq - a - 2), a + 2);
            v = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a + 2);
            v = i + 1 < argc ? argv[++i] : NULL;
        }
        int rc = v ? apply(c, name, v) : 0;
        if (rc <= 0) {
            snprintf(err, errlen, rc < 0 ? "invalid value for --%s: \"%s\""
                                         : "unknown option or missing value: --%s%s",
                     name, v && rc < 0 ? v : "");
            return -1;
        }
    }
    return 0;
}

int srv_config_load(srv_config *c, int argc, char **argv, char *err,
                    size_t errlen)
{
    defaults(c);
    int rc = load_env(c, err, errlen);
    if (rc == 0)
        rc = load_args(c, argc, argv, err, errlen);
    if (rc == 0 && !c->tls_cert[0] != !c->tls_key[0]) {
        snprintf(err, errlen, "--tls-cert and --tls-key go together (HTTPS needs both)");
        rc = -1;
    }
    if (rc == 0 && c->max_job_memory == 0)
        c->max_job_memory = srv_default_job_memory(c);
    if (rc == 0 && c->mpi_launch[0] && !strstr(c->mpi_launch, "{ranks}")) {
        snprintf(err, errlen, "--mpi-launch needs {ranks} where the number of ranks goes "
                 "(e.g. 'mpirun -np {ranks}')");
        rc = -1;
    }
    if (rc == 0) {
        char host[256];
        int port = 0;
        if (srv_parse_listen(c->listen, host, sizeof host, &port) != 0) {
            snprintf(err, errlen, "invalid listen address \"%s\" (want ADDR:PORT)",
                     c->listen);
            rc = -1;
        }
    }
    return rc;
}

int srv_parse_listen(const char *s, char *host, size_t hostlen, int *port)
{
    const char *colon = NULL;
    const char *h = s;
    size_t hl = 0;
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':')
            return -1;
        h = s + 1;
        hl = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon)
            return -1;
        hl = (size_t)(colon - s);
    }
    int64_t p = 0;
    if (hl == 0 || hl >= hostlen || !parse_int(colon + 1, 0, 65535, &p))
        return -1;
    memcpy(host, h, hl);
    host[hl] = '\0';
    *port = (int)p;
    return 0;
}

int srv_cores(void)
{
    cpu_set_t set;
    long n;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* A number from the first line of path ("max" and unreadable: -1). */
static int64_t read_number(const char *path)
{
    char buf[64];
    FILE *f = fopen(path, "r");
    long long v = -1;
    if (f && fgets(buf, sizeof buf, f) && sscanf(buf, "%lld", &v) != 1)
        v = -1;
    if (f)
        fclose(f);
    return v;
}

int64_t srv_memory_available(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    int64_t mem = pages > 0 && size > 0 ? (int64_t)pages * size : 0;
    /* cgroup v2, then v1: a container's limit */
    int64_t lim = read_number("/sys/fs/cgroup/memory.max");
    if (lim <= 0)
        lim = read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    if (lim > 0 && (mem == 0 || lim < mem))
        mem = lim;
    return mem;
}

int64_t srv_default_job_memory(const srv_config *c)
{
    int64_t mem = srv_memory_available();
    int shares = (c->workers > 0 ? c->workers : 1) + 2;
    if (mem <= 0)
        return INT64_C(4) << 30;
    int64_t b = (int64_t)((double)mem * 0.8 / shares);
    return b > (INT64_C(64) << 20) ? b : (INT64_C(64) << 20);
}

int srv_job_threads_cap(const srv_config *c)
{
    int cap;
    if (c->job_threads > 0)
        return c->job_threads;
    cap = srv_cores() / (c->workers > 0 ? c->workers : 1);
    return cap < 1 ? 1 : cap > 64 ? 64 : cap;
}
