/*
 * config.c -- configuration from the environment and the command line,
 * all from one table of options (OPTIONS below).  Precedence: defaults <
 * IRCGD_* environment < flags.  Also the machine's cores and memory.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <unistd.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ircg.h"
#include "base/base.h"

/* ----------------------------------------------------------- options -- */

typedef enum opt_type {
    OPT_STRING,   /* a char array of the config                          */
    OPT_INT,      /* an int in [lo, hi]                                  */
    OPT_INT64,    /* an int64_t in [lo, hi]                              */
    OPT_REAL,     /* a double in [lo, hi]                                */
    OPT_BYTES,    /* an int64_t: bytes, K/M/G/T suffixes, at least 1 MiB  */
    OPT_DURATION, /* a double: seconds, s/m/h/d suffixes                 */
    OPT_SWITCH,   /* an int set to 1 by the flag alone (no value)        */
} opt_type;

/* One option of ircgd: its flag (--NAME), its environment variable
 * (IRCGD_NAME with dashes as underscores, unless `no_env`), where it goes
 * in srv_config, its range, its default (text parsed like a value; NULL:
 * zero or empty) and its help.  Defaults, the environment, the flags and
 * --help all come from this table. */
typedef struct opt {
    const char *section;  /* the --help heading it starts, or NULL       */
    const char *name;
    const char *arg;      /* the value's name in --help ("N"); NULL for a switch */
    opt_type type;
    size_t off, size;     /* its field: offsetof and sizeof             */
    double lo, hi;
    const char *def;
    const char *def_help; /* the default as --help says it, when not def */
    int no_env;
    const char *help;
} opt;

#define F(field) offsetof(srv_config, field), sizeof(((srv_config *)0)->field)
static const opt OPTIONS[] = {
    {"service", "listen", "ADDR:PORT", OPT_STRING, F(listen), 0, 0, "127.0.0.1:8080", NULL, 0,
     "address to serve; ADDR may be a name (localhost) or [IPv6]; port 0 picks a free "
     "port (printed on stdout)"},
    {NULL, "db", "FILE", OPT_STRING, F(db), 0, 0, "./ircg.db", NULL, 0,
     "SQLite job store; one ircgd per file (it holds FILE.lock)"},
    {NULL, "data-dir", "DIR", OPT_STRING, F(data_dir), 0, 0, "./data", NULL, 0,
     "spec file paths must lie inside it; uploaded datasets are copied there"},
    {NULL, "workers", "N", OPT_INT, F(workers), 1, 256, "2", NULL, 0,
     "jobs solved at once"},
    {NULL, "job-threads", "N", OPT_INT, F(job_threads), 0, 64, "0", NULL, 0,
     "threads one job's sparse kernels may use; a spec asking for more gets this many.  "
     "0 = automatic: the cores over the workers (at least 1), so the workers' threads "
     "never exceed the cores"},
    {NULL, "tokens-file", "FILE", OPT_STRING, F(tokens_file), 0, 0, NULL, NULL, 0,
     "\"sha256:<hex> SCOPE\" lines (scopes: read < submit < admin); absent = no auth"},
    {NULL, "tls-cert", "FILE", OPT_STRING, F(tls_cert), 0, 0, NULL, NULL, 0,
     "serve HTTPS with this PEM certificate (chain), with --tls-key"},
    {NULL, "tls-key", "FILE", OPT_STRING, F(tls_key), 0, 0, NULL, NULL, 0,
     "the PEM private key of --tls-cert"},
    {NULL, "cors-origins", "LIST", OPT_STRING, F(cors_origins), 0, 0, NULL, NULL, 0,
     "comma-separated origins (https://app.example.org) whose pages may call the API; "
     "absent = CORS off"},
    {NULL, "ui-chartjs", "DIR", OPT_STRING, F(ui_chartjs), 0, 0,
     "/usr/share/javascript/chart.js", NULL, 0,
     "Chart.js for the dashboard at /ui, as Debian's libjs-chart.js installs it"},

    {"HTTP limits", "max-body", "BYTES", OPT_INT64, F(max_body), 1, 1099511627776.0,
     "67108864", "67108864 = 64 MiB", 0, "request body limit, else 413"},
    {NULL, "max-upload", "B", OPT_BYTES, F(max_upload), 0, 0, "16G", NULL, 0,
     "a dataset upload's limit (POST /v1/datasets, streamed to the data directory), else "
     "413.  B may end in K, M, G or T (powers of 1024)"},
    {NULL, "conn-limit", "N", OPT_INT, F(conn_limit), 1, 65536, "128", NULL, 0,
     "open connections at most"},
    {NULL, "per-ip-limit", "N", OPT_INT, F(per_ip_limit), 0, 65536, "64", NULL, 0,
     "open connections per client address, 0 = no limit"},
    {NULL, "conn-timeout", "S", OPT_INT, F(conn_timeout), 1, 86400, "60", NULL, 0,
     "close a connection idle for S seconds"},
    {NULL, "request-timeout", "S", OPT_REAL, F(request_timeout), 1, 86400, "30", NULL, 0,
     "close a connection that takes over S seconds to send a request, headers and body "
     "(slow clients)"},
    {NULL, "rate-limit", "R", OPT_REAL, F(rate_limit), 0, 1e6, "0", NULL, 0,
     "requests per second per client (its token, else its address), beyond which 429; "
     "0 = no limit"},
    {NULL, "rate-burst", "B", OPT_REAL, F(rate_burst), 1, 1e6, "20", NULL, 0,
     "requests a client may make at once within its rate"},
    {NULL, "sse-max-seconds", "S", OPT_REAL, F(sse_max_seconds), 1, 86400, "600", NULL, 0,
     "end an event stream after S seconds (clients reconnect with Last-Event-ID)"},

    {"jobs", "max-queued", "N", OPT_INT64, F(max_queued), 0, 1099511627776.0, "1000", NULL,
     0, "queued jobs before 429, 0 = no limit"},
    {NULL, "max-attempts", "N", OPT_INT, F(max_attempts), 1, 1000, "3", NULL, 0,
     "runs a job may lose to crashes before it fails; a clean shutdown does not count"},
    {NULL, "snapshot-keep", "K", OPT_INT, F(snapshot_keep), 0, 1000000, "3", NULL, 0,
     "spec snapshots kept per job, 0 = all"},
    {NULL, "snapshot-keep-finished", "K", OPT_INT, F(snapshot_keep_finished), 0, 1000000,
     "1", NULL, 0, "snapshots kept once a job is finished (the newest), 0 = all"},
    {NULL, "retain-finished", "D", OPT_DURATION, F(retain_finished), 0, 1e12, "0", NULL, 0,
     "delete finished jobs (with trace, snapshots, events) D after they finished: 3600, "
     "90m, 12h, 30d; 0 = keep them"},
    {NULL, "max-elements", "N", OPT_INT64, F(max_elements), 1, 1099511627776.0, "50000000",
     NULL, 0, "cap on synthetic/inline data: ratings, or m*n of A"},
    {NULL, "max-job-memory", "B", OPT_BYTES, F(max_job_memory), 0, 0, NULL,
     "80% of the memory (or the cgroup's limit) over workers + 2", 0,
     "bytes a job may hold at its peak by its estimate (a spec over it is refused with "
     "422 naming the members that drive it); the requests in flight share one such "
     "budget.  B may end in K, M, G or T (powers of 1024)"},
    {NULL, "max-trace-rows", "N", OPT_INT64, F(max_trace_rows), 1, 1125899906842624.0,
     "10000000", NULL, 0,
     "trace rows a job keeps: past iteration N x trace_every only its last row is added"},
    {NULL, "checkpoint-every", "S", OPT_REAL, F(checkpoint_every), 0, 86400, "30", NULL, 0,
     "save a running job's solver state every S seconds of solving, so a crash loses at "
     "most that much work; 0 = only the snapshots a spec asks for"},
    {NULL, "heartbeat-every", "S", OPT_REAL, F(heartbeat_every), 0.05, 3600, "5", NULL, 0,
     "seconds between the heartbeats of running jobs, written whatever the solver is "
     "doing"},

    {"MPI jobs (\"execution\": {\"ranks\": N}; refused with 422 without a launcher)",
     "mpi-launch", "CMD", OPT_STRING, F(mpi_launch), 0, 0, NULL, NULL, 0,
     "the launcher, run by /bin/sh with {ranks} replaced and ircg-mpi and its arguments "
     "appended, e.g. 'mpirun -np {ranks} --hostfile /etc/ircg/hosts'"},
    {NULL, "mpi-program", "FILE", OPT_STRING, F(mpi_program), 0, 0, NULL, "beside ircgd", 0,
     "ircg-mpi"},
    {NULL, "mpi-workdir", "DIR", OPT_STRING, F(mpi_workdir), 0, 0, NULL, "DB.mpi", 0,
     "each MPI job's spec, result and per-rank checkpoints; on a file system every host "
     "sees when ranks run elsewhere"},
    {NULL, "mpi-stop-grace", "S", OPT_REAL, F(mpi_stop_grace), 0, 86400, "30", NULL, 0,
     "seconds the ranks get to stop together on a cancel, a shutdown or the time limit "
     "before the launcher is terminated"},

    {"other", "healthcheck", NULL, OPT_SWITCH, F(healthcheck), 0, 0, NULL, NULL, 1,
     "GET /healthz on the listen address; exit 0 if healthy"},
    {NULL, "hash-token", "SCOPE", OPT_STRING, F(hash_token), 0, 0, NULL, NULL, 1,
     "read a token on stdin, print its tokens-file line"},
    {NULL, "help", NULL, OPT_SWITCH, F(help), 0, 0, NULL, NULL, 1, "this text (also -h)"},
    {NULL, "version", NULL, OPT_SWITCH, F(version), 0, 0, NULL, NULL, 1,
     "the version, and the libraries' versions"},
};
#undef F
#define N_OPTIONS (sizeof OPTIONS / sizeof OPTIONS[0])

static const opt *find_option(const char *name)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (!strcmp(OPTIONS[i].name, name))
            return &OPTIONS[i];
    return NULL;
}

/* IRCGD_ and the name in capitals, dashes as underscores. */
static void env_name(const opt *o, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "IRCGD_");
    for (const char *p = o->name; *p && n + 1 < len; p++)
        out[n++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
    out[n] = '\0';
}

/* Parses an integer in [lo, hi]: 0, or -1 on error. */
static int parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Parses a finite number in [lo, hi]: 0, or -1 on error. */
static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

/* Bytes: an integer, or one with K, M, G or T (powers of 1024), at least
 * 1 MiB: 0, or -1 on error. */
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
        return -1;
    memcpy(num, s, n);
    num[n] = '\0';
    if (parse_int(num, 1, (INT64_C(1) << 50) / scale, &v) != 0 || v * scale < (INT64_C(1) << 20))
        return -1;
    *out = v * scale;
    return 0;
}

/* A duration: seconds, or a number with s, m, h or d: 0, or -1 on error. */
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
        return -1;
    memcpy(num, s, n);
    num[n] = '\0';
    if (parse_double(num, 0, 1e12, out) != 0)
        return -1;
    *out *= scale;
    return 0;
}

/* Sets o's field from its text v: 0, or -1 for a bad value. */
static int set_option(srv_config *c, const opt *o, const char *v)
{
    char *field = (char *)c + o->off;
    int64_t n = 0;
    double d = 0;
    switch (o->type) {
    case OPT_STRING:
        if (strlen(v) >= o->size)
            return -1;
        memcpy(field, v, strlen(v) + 1);
        return 0;
    case OPT_INT:
    case OPT_INT64:
        if (parse_int(v, (int64_t)o->lo, (int64_t)o->hi, &n) != 0)
            return -1;
        if (o->type == OPT_INT)
            *(int *)(void *)field = (int)n; /* hi fits an int */
        else
            *(int64_t *)(void *)field = n;
        return 0;
    case OPT_REAL:
        if (parse_double(v, o->lo, o->hi, &d) != 0)
            return -1;
        *(double *)(void *)field = d;
        return 0;
    case OPT_BYTES:
        return parse_bytes(v, (int64_t *)(void *)field);
    case OPT_DURATION:
        return parse_duration(v, (double *)(void *)field);
    case OPT_SWITCH:
        *(int *)(void *)field = 1;
        return 0;
    }
    return -1;
}

static void defaults(srv_config *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (OPTIONS[i].def && set_option(c, &OPTIONS[i], OPTIONS[i].def) != 0)
            abort(); /* a default outside its own range: the table is wrong */
}

static int load_env(srv_config *c, char *err, size_t errlen)
{
    char name[64];
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (OPTIONS[i].no_env)
            continue;
        env_name(&OPTIONS[i], name, sizeof name);
        const char *v = getenv(name);
        if (v && *v && set_option(c, &OPTIONS[i], v) != 0) {
            snprintf(err, errlen, "invalid value for %s: \"%s\"", name, v);
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
        /* --name VALUE or --name=VALUE; -h is --help */
        char name[64];
        const char *v = NULL;
        const char *eq = strchr(a, '=');
        if (!strcmp(a, "-h"))
            a = "--help";
        if (strncmp(a, "--", 2) != 0 || (eq && (size_t)(eq - a) >= sizeof name)) {
            snprintf(err, errlen, "unknown argument \"%s\"", a);
            return -1;
        }
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a - 2) : (int)sizeof name, a + 2);
        const opt *o = find_option(name);
        if (o && o->type == OPT_SWITCH && !eq) {
            set_option(c, o, "");
            continue;
        }
        v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
        if (!o || o->type == OPT_SWITCH || !v) {
            snprintf(err, errlen, "unknown option or missing value: --%s", name);
            return -1;
        }
        if (set_option(c, o, v) != 0) {
            snprintf(err, errlen, "invalid value for --%s: \"%s\"", name, v);
            return -1;
        }
    }
    return 0;
}

/* --help: text wrapped to the width, each line `indent` spaces in. */
static void print_wrapped(const char *text, int col, int indent, int width)
{
    const char *p = text;
    while (*p) {
        size_t word = strcspn(p, " ");
        if (col > indent && col + 1 + (int)word > width) {
            printf("\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            putchar(' ');
            col++;
        }
        printf("%.*s", (int)word, p);
        col += (int)word;
        p += word;
        while (*p == ' ')
            p++;
    }
    putchar('\n');
}

/* The range of o as --help says it ("1..256"), or "" when the help says
 * it or there is none. */
static void range_text(const opt *o, char *out, size_t len)
{
    out[0] = '\0';
    if ((o->type == OPT_INT || o->type == OPT_INT64 || o->type == OPT_REAL) && o->hi <= 1e6)
        snprintf(out, len, ", %.15g..%.15g", o->lo, o->hi);
}

void srv_config_usage(void)
{
    enum { INDENT = 23, WIDTH = 79 };
    printf("usage: ircgd [options]\n"
           "Every option can also be set by the environment variable in brackets;\n"
           "a flag wins over the environment.  --name=VALUE works too.\n");
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const opt *o = &OPTIONS[i];
        char head[80], more[400], env[64], range[64];
        if (o->section)
            printf("\n%s:\n", o->section);
        int col = snprintf(head, sizeof head, "  --%s%s%s", o->name, o->arg ? " " : "",
                           o->arg ? o->arg : "");
        if (col >= INDENT) /* a long flag: its help on the next line */
            printf("%s\n%*s", head, INDENT, "");
        else
            printf("%s%*s", head, INDENT - col, "");
        env_name(o, env, sizeof env);
        range_text(o, range, sizeof range);
        const char *def = o->def_help ? o->def_help : o->def;
        if (o->no_env)
            snprintf(more, sizeof more, "%s", o->help);
        else if (def)
            snprintf(more, sizeof more, "%s [%s, default %s%s]", o->help, env, def, range);
        else
            snprintf(more, sizeof more, "%s [%s%s]", o->help, env, range);
        print_wrapped(more, INDENT, INDENT, WIDTH);
    }
    printf("\nexit status: 0 stopped by SIGTERM/SIGINT, 1 could not start (port in use,\n"
           "store unreadable, ...), 2 bad usage, 3 another ircgd holds the database,\n"
           "4 the database is damaged, not an ircg store, or cannot be written\n");
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
    if (hl == 0 || hl >= hostlen || parse_int(colon + 1, 0, 65535, &p) != 0)
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
