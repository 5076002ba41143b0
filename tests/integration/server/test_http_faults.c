/*
 * test_http_faults.c -- storage faults injected into a real daemon: a full
 * disk (PRAGMA max_page_count through IRCGD_TEST_MAX_PAGES: a real
 * SQLITE_FULL; and, where the test may mount one, the issue's own report:
 * the database on a 3 MB tmpfs that runs out of space), the write lock held by another process (a second SQLite
 * connection in BEGIN EXCLUSIVE), a backup running beside the daemon, and
 * a damaged store at start.  Each checks what a user is owed: refusals
 * that say what happened and when to come back (503/507 + Retry-After),
 * /readyz not ready while the store cannot take writes, reads served,
 * and afterwards every accepted job ended with a contiguous trace and the
 * numbers of a fault-free run.
 */
/* make tsan: http_faults. */
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "common/http_check.h"

#define FULL_ITERS 2000
#define MAX_JOBS 64

/* A store holding `ballast` bytes of an uploaded dataset, created before
 * the daemon starts; *pages its size in pages. */
static int store_with_ballast(const char *db, size_t ballast, int64_t *pages)
{
    store *st = NULL;
    char err[STORE_ERRMAX];
    unsigned char *junk = malloc(ballast);
    int ok = junk && store_open(db, &st, err) == STORE_OK;
    for (size_t i = 0; junk && i < ballast; i++)
        junk[i] = (unsigned char)(i * 2654435761u >> 13);
    ok = ok && store_dataset_put(st, junk, ballast, "ballast", NULL, NULL, NULL) == STORE_OK &&
         store_limit_pages(st, 0, pages) == STORE_OK;
    store_close(st);
    free(junk);
    return ok ? 0 : -1;
}

/* Another process's SQL on the daemon's file (an operator's sqlite3). */
static int sql(sqlite3 *db, const char *text)
{
    return sqlite3_exec(db, text, NULL, NULL, NULL);
}

/* Polls /readyz until its answer contains `want` (20 s at most). */
static int readyz_says(const hu_daemon *d, long status, const char *want)
{
    for (double end = hu_now() + 20; hu_now() < end; hu_sleep_ms(50)) {
        hu_resp r;
        long got = hu_get(d, "/readyz", &r);
        int ok = got == status && strstr(r.body, want) != NULL;
        hu_resp_free(&r);
        if (ok)
            return 1;
    }
    return 0;
}

/* A refusal for a storage fault: status, problem type and Retry-After. */
static void check_refusal(const hu_resp *r, long status, const char *type)
{
    CHECK_INT(r->status, status);
    CHECK(strstr(r->ctype, "application/problem+json") != NULL);
    CHECK(strstr(r->body, type) != NULL);
    CHECK(atoi(r->retry_after) > 0);
}

static long long metric(const hu_daemon *d, const char *series)
{
    hu_resp r;
    long long v = -1;
    char line[200];
    snprintf(line, sizeof line, "\n%s ", series); /* a sample, not its HELP */
    if (hu_get(d, "/metrics", &r) == 200) {
        const char *p = strstr(r.body, line);
        if (p)
            v = atoll(p + strlen(line));
    }
    hu_resp_free(&r);
    return v;
}

/* Every job ends succeeded, with every row and the fault-free numbers. */
static void check_all_succeeded(const hu_daemon *d, char ids[][64], int n, const char *spec,
                                int iters)
{
    for (int i = 0; i < n; i++) {
        char state[16];
        CHECK(hu_wait_terminal(d, ids[i], 60, state) == 0);
        CHECK_STR(state, "succeeded");
        hc_check_trace_complete(d, ids[i], iters);
        if (i == 0 || i == n - 1)
            hc_check_same_numbers(d, ids[i], spec);
    }
}

/* The database fills up while jobs run: the jobs that cannot write wait
 * (rows in memory, then paused), submits get 507, /readyz says why, reads
 * go on; once space returns every job finishes as if nothing happened. */
TEST(http_faults, disk_full_pauses_then_everything_finishes)
{
    hu_daemon d = {0};
    char ids[MAX_JOBS][64], id[64];
    hu_resp r;
    int64_t pages = 0;
    int n = 0;
    char *spec = hu_ls_spec(30, 80, 1, 8.4, FULL_ITERS, 0, "\"output\":{\"trace_every\":1}");
    snprintf(d.dir, sizeof d.dir, "%s/http_full", th_tmpdir());
    snprintf(d.db, sizeof d.db, "%s/jobs.db", d.dir);
    mkdir(d.dir, 0755);
    REQUIRE(store_with_ballast(d.db, 12 << 20, &pages) == 0);
    /* room for about two jobs' compressed traces beyond what is there */
    snprintf(d.env, sizeof d.env, "IRCGD_TEST_MAX_PAGES=%lld", (long long)pages + 100);
    snprintf(d.extra, sizeof d.extra, "--heartbeat-every 0.2");
    REQUIRE(hu_start(&d, "http_full", 2) == 0);
    /* the jobs start filling the store at once: submits are refused once
     * not even a job row fits (the ones that still fit are kept) */
    for (r.status = 202; n < MAX_JOBS && r.status == 202; n++) {
        if (hu_submit_ex(&d, spec, NULL, ids[n], sizeof ids[n], &r) != 202)
            check_refusal(&r, 507, "store-full");
        hu_resp_free(&r);
    }
    n--; /* the refused one */
    printf("    %d jobs accepted before a submit got 507\n", n);
    CHECK(n >= 2 && n < MAX_JOBS);
    /* full: jobs wait to write, the daemon says so */
    CHECK(readyz_says(&d, 503, "jobs are waiting to write"));
    CHECK(readyz_says(&d, 503, "full"));
    CHECK_INT(hu_get(&d, "/v1/jobs?page_size=100", &r), 200); /* reads go on */
    CHECK(strstr(r.body, "\"state\":\"running\"") != NULL);
    hu_resp_free(&r);
    CHECK(metric(&d, "ircgd_store_write_failures_total{code=\"full\"}") > 0);
    CHECK_INT(metric(&d, "ircgd_store_writable"), 0);
    /* and it stays so: the waiting jobs hold their rows, none is lost */
    hu_sleep_ms(1500);
    CHECK(readyz_says(&d, 503, "jobs are waiting to write"));
    CHECK_INT(hu_get(&d, "/v1/jobs?state=running", &r), 200);
    CHECK(strstr(r.body, "\"state\":\"running\"") != NULL);
    hu_resp_free(&r);

    /* space returns: an operator drops the ballast */
    CHECK_INT(hc_sql(d.db, "DELETE FROM datasets"), 0);
    check_all_succeeded(&d, ids, n, spec, FULL_ITERS);
    CHECK(readyz_says(&d, 200, "ready"));
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 30, (char[16]){0}) == 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK(hc_integrity_ok(d.db));
    char *log = hu_read_file(d.log);
    CHECK(log && strstr(log, "(full); writes are retried") != NULL);
    free(log);
    free(spec);
}

/* A file of `bytes` bytes at path (what filled the disk); 0 when written. */
static int write_ballast(const char *path, size_t bytes)
{
    FILE *f = fopen(path, "wb");
    int ok = f != NULL;
    for (size_t i = 0; ok && i < bytes; i++)
        ok = fputc((int)(i * 2654435761u >> 7) & 0xff, f) != EOF;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* The reproduction, as a new user met it: the database on a 3 MB
 * tmpfs, 60 least-norm submits.  Then 54 got 500, /readyz said ready, and
 * a job that finished while the disk was full stayed 'running' forever.
 * Owed: every submit 202 or 507 store-full with Retry-After, /readyz not
 * ready while full, reads served, and once space returns (the file that
 * filled the disk is deleted, the volume grown) every accepted job succeeded with every
 * trace row and a fault-free run's numbers, none left running. */
static void tmpfs_full(hu_daemon *d, const char *fs)
{
    enum { MIN_SUBMITS = 60, MAX_SUBMITS = 400 };
    static char ids[MAX_SUBMITS][64];
    char ballast[700];
    hu_resp r;
    int accepted = 0, refused = 0, sent = 0;
    char *spec = hu_ls_spec(30, 80, 1, 8.4, FULL_ITERS, 0, "\"output\":{\"trace_every\":1}");
    snprintf(ballast, sizeof ballast, "%s/ballast", fs);
    CHECK(write_ballast(ballast, 3u << 19) == 0); /* half of it */
    snprintf(d->extra, sizeof d->extra, "--heartbeat-every 0.2");
    if (hu_restart(d) != 0) {
        CHECK(!"the daemon starts on the tmpfs");
        free(spec);
        return;
    }
    /* The disk fills as the accepted jobs write their traces, which on a
     * slow (sanitized, loaded) machine may lag the first 60 submits: go on
     * submitting, a little slower, until the store refuses one. */
    double t0 = hu_now();
    while (sent < MIN_SUBMITS ||
           (refused == 0 && sent < MAX_SUBMITS && hu_now() - t0 < 120.0)) {
        if (sent++ >= MIN_SUBMITS)
            hu_sleep_ms(100);
        long st = hu_submit_ex(d, spec, NULL, ids[accepted], sizeof ids[0], &r);
        CHECK(st == 202 || st == 507);
        if (st == 507)
            check_refusal(&r, 507, "store-full");
        accepted += st == 202;
        refused += st == 507;
        hu_resp_free(&r);
    }
    printf("    %d submits on a 3 MB tmpfs: %d accepted, %d refused with 507\n", sent,
           accepted, refused);
    CHECK(accepted >= 1 && refused >= 1);
    CHECK(readyz_says(d, 503, "full"));
    CHECK_INT(hu_get(d, "/v1/jobs?page_size=100", &r), 200); /* reads go on */
    hu_resp_free(&r);
    /* space returns: the file that filled the disk is deleted and the
     * volume grown (what the accepted jobs still have to write may not
     * fit in 3 MB) */
    CHECK(remove(ballast) == 0);
    CHECK(mount("tmpfs", fs, "tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV, "size=16m") == 0);
    check_all_succeeded(d, ids, accepted, spec, FULL_ITERS);
    CHECK(readyz_says(d, 200, "ready"));
    CHECK_INT(hu_get(d, "/v1/jobs?state=running", &r), 200);
    CHECK(strstr(r.body, "\"state\":\"running\"") == NULL);
    hu_resp_free(&r);
    /* the WAL stays small (checkpoints every 256 pages): one that grows
     * into the last free space keeps a small disk full for good */
    char wal[720];
    struct stat sb;
    snprintf(wal, sizeof wal, "%s-wal", d->db);
    CHECK(stat(wal, &sb) != 0 || sb.st_size < (3 << 19));
    CHECK_INT(hu_submit(d, spec, ids[0], sizeof ids[0]), 202); /* and new work */
    CHECK(hu_wait_terminal(d, ids[0], 30, (char[16]){0}) == 0);
    CHECK_INT(hu_stop(d, SIGTERM), 0);
    CHECK(hc_integrity_ok(d->db));
    free(spec);
}

TEST(http_faults, disk_full_on_a_small_tmpfs)
{
    hu_daemon d = {0};
    char fs[560];
    hu_prepare(&d, "http_tmpfs", 2);
    snprintf(fs, sizeof fs, "%s/fs", d.dir);
    mkdir(fs, 0755);
    mkdir(d.data, 0755);
    umount2(fs, MNT_DETACH); /* a run that stopped half way */
    if (mount("tmpfs", fs, "tmpfs", MS_NOSUID | MS_NODEV, "size=3m,mode=0755") != 0)
        SKIP("cannot mount a tmpfs here (needs CAP_SYS_ADMIN); "
             "disk_full_pauses_then_everything_finishes covers SQLITE_FULL");
    snprintf(d.db, sizeof d.db, "%s/jobs.db", fs);
    tmpfs_full(&d, fs);
    if (d.pid > 0)
        hu_kill9(&d);
    if (th_failed()) { /* what filled the file system */
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "ls -l '%s' >&2; df -k '%s' >&2", fs, fs);
        CHECK(system(cmd) == 0);
    }
    CHECK(umount2(fs, MNT_DETACH) == 0);
}

/* A backup (sqlite3_backup, as the sqlite3 shell's .backup) beside a
 * running job costs it nothing: in WAL mode the backup only reads.  A
 * client holding the write lock (BEGIN EXCLUSIVE) longer than the busy
 * timeout does block writes: the job keeps its rows and waits, submits
 * get 503 store-busy, /readyz says so, reads go on; afterwards the trace
 * has every row and the job the numbers of an undisturbed run. */
TEST(http_faults, backup_and_held_write_lock)
{
    hu_daemon d = {0};
    char id[64], state[16], copy[700];
    hu_resp r;
    sqlite3 *op = NULL, *to = NULL;
    const int iters = 60000;
    char *spec = hu_ls_spec(200, 400, 5, 100, iters, 0, "\"output\":{\"trace_every\":1}");
    char *small = hu_ls_spec(30, 80, 1, 8.4, 100, 0, NULL);
    REQUIRE(hu_start(&d, "http_busy", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    REQUIRE(hu_wait_iteration(&d, id, 2000, 20) == 0);

    /* a backup while the job writes */
    snprintf(copy, sizeof copy, "%s/backup.db", d.dir);
    REQUIRE(sqlite3_open(d.db, &op) == SQLITE_OK);
    sqlite3_busy_timeout(op, 10000); /* the daemon writes meanwhile */
    REQUIRE(sqlite3_open(copy, &to) == SQLITE_OK);
    sqlite3_backup *b = sqlite3_backup_init(to, "main", op, "main");
    REQUIRE(b != NULL);
    CHECK_INT(sqlite3_backup_step(b, -1), SQLITE_DONE);
    CHECK_INT(sqlite3_backup_finish(b), SQLITE_OK);
    sqlite3_close(to);
    CHECK(hc_integrity_ok(copy));
    CHECK_INT(metric(&d, "ircgd_store_write_failures_total{code=\"busy\"}"), 0);

    /* the write lock held for longer than the busy timeout */
    CHECK_INT(sql(op, "BEGIN EXCLUSIVE"), SQLITE_OK);
    double t0 = hu_now();
    hu_req(&d, "POST", "/v1/jobs", "application/json", small, strlen(small), NULL, &r);
    check_refusal(&r, 503, "store-busy");
    hu_resp_free(&r);
    CHECK(readyz_says(&d, 503, "busy"));
    snprintf(copy, sizeof copy, "/v1/jobs/%s", id);
    CHECK_INT(hu_get(&d, copy, &r), 200); /* reads go on */
    hu_resp_free(&r);
    while (hu_now() - t0 < 7.0)
        hu_sleep_ms(50);
    CHECK_INT(sql(op, "COMMIT"), SQLITE_OK);
    sqlite3_close(op);

    CHECK(hu_wait_terminal(&d, id, 60, state) == 0);
    CHECK_STR(state, "succeeded");
    hc_check_trace_complete(&d, id, iters);
    hc_check_same_numbers(&d, id, spec);
    CHECK(metric(&d, "ircgd_store_write_failures_total{code=\"busy\"}") > 0);
    CHECK(readyz_says(&d, 200, "ready"));
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    CHECK(hc_integrity_ok(d.db));
    free(small);
    free(spec);
}

/* Overwrites len bytes of the file at off with a pattern. */
static int damage(const char *path, long off, size_t len)
{
    FILE *f = fopen(path, "r+b");
    int ok = f && fseek(f, off, SEEK_SET) == 0;
    for (size_t i = 0; ok && i < len; i++)
        ok = fputc(0xA5 ^ (int)(i & 0xff), f) != EOF;
    if (f)
        fclose(f);
    return ok ? 0 : -1;
}

/* SHA-256 of a whole file; 0 when read. */
static int file_sha(const char *path, uint8_t h[32])
{
    FILE *f = fopen(path, "rb");
    long size = -1;
    char *buf = NULL;
    int ok = f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 &&
             fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)size)) != NULL &&
             fread(buf, 1, (size_t)size, f) == (size_t)size;
    if (ok)
        store_sha256(buf, (size_t)size, h);
    if (f)
        fclose(f);
    free(buf);
    return ok ? 0 : -1;
}

/* The daemon refuses a store it cannot trust (status 4, a message that
 * says what is wrong) and leaves every byte of it as it was. */
static void check_refused_untouched(hu_daemon *d, const char *want)
{
    uint8_t h0[32], h1[32];
    REQUIRE(file_sha(d->db, h0) == 0);
    CHECK_INT(hu_start_refused(d), 4);
    REQUIRE(file_sha(d->db, h1) == 0);
    CHECK(memcmp(h0, h1, sizeof h0) == 0);
    char *log = hu_read_file(d->log);
    CHECK(log && strstr(log, want) != NULL);
    free(log);
}

TEST(http_faults, damaged_store_refused_untouched)
{
    hu_daemon d = {0};
    char id[64], state[16];
    char *spec = hu_ls_spec(30, 80, 1, 8.4, 3000, 0, "\"output\":{\"trace_every\":1}");
    REQUIRE(hu_start(&d, "http_damaged", 1) == 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 30, state) == 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0); /* the last close folds the WAL in */

    /* the header of a page in the middle of the file (the trace's chunks
     * fill most of it) */
    struct stat sb;
    REQUIRE(stat(d.db, &sb) == 0 && sb.st_size >= 4 * 4096);
    REQUIRE(damage(d.db, 4096L * (long)(sb.st_size / 4096 / 2), 64) == 0);
    check_refused_untouched(&d, "is damaged");
    /* the header */
    REQUIRE(damage(d.db, 0, 100) == 0);
    check_refused_untouched(&d, "not an SQLite database");
    free(spec);
}

/* A data file that disappears between submission and run: the job fails
 * with the reason at its member, the daemon goes on. */
TEST(http_faults, data_file_gone_fails_the_job_with_the_reason)
{
    hu_daemon d = {0};
    char busy[64], id[64], path[800], cmd[1700];
    hu_resp r;
    char *blocker = hu_ls_spec(200, 400, 5, 100, 10000000, 0, NULL);
    const char *mc = "{\"problem\":{\"type\":\"matrix_completion\",\"delta\":5,\"data\":"
                     "{\"source\":\"file\",\"path\":\"r.dat\",\"format\":\"movielens\"}},"
                     "\"algorithm\":{\"name\":\"ircg\",\"max_iter\":20}}";
    REQUIRE(hu_start(&d, "http_gone", 1) == 0);
    snprintf(path, sizeof path, "%s/r.dat", d.data);
    snprintf(cmd, sizeof cmd, "cp tests/data/ratings_small.dat '%s'", path);
    REQUIRE(system(cmd) == 0);
    CHECK_INT(hu_submit(&d, blocker, busy, sizeof busy), 202);
    REQUIRE(hu_wait_iteration(&d, busy, 10, 20) == 0);
    CHECK_INT(hu_submit(&d, mc, id, sizeof id), 202);
    REQUIRE(remove(path) == 0);
    snprintf(cmd, sizeof cmd, "/v1/jobs/%s/cancel", busy);
    hu_req(&d, "POST", cmd, NULL, NULL, 0, NULL, &r);
    hu_resp_free(&r);
    hc_check_failed_because(&d, id, "/problem/data/path", "file not found");
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    free(blocker);
}

/* A job left 'running' with no worker of the daemon behind it (here: a
 * claim taken by another process that then went away) is found by the
 * watchdog within a few heartbeats and goes back to the queue -- or fails
 * with the reason once out of attempts -- instead of looking alive
 * forever. */
TEST(http_faults, job_without_a_worker_is_released)
{
    hu_daemon d = {0};
    char busy[64], a[64], b[64], state[16], path[128];
    hu_resp r;
    store *st = NULL;
    store_job j = {0};
    char err[STORE_ERRMAX];
    char *blocker = hu_ls_spec(200, 400, 5, 100, 10000000, 0, NULL);
    char *spec = hu_ls_spec(30, 80, 1, 8.4, 500, 0, "\"output\":{\"trace_every\":1}");
    snprintf(d.extra, sizeof d.extra, "--heartbeat-every 0.2 --max-attempts 2");
    REQUIRE(hu_start(&d, "http_orphan", 1) == 0);
    CHECK_INT(hu_submit(&d, blocker, busy, sizeof busy), 202);
    REQUIRE(hu_wait_iteration(&d, busy, 10, 20) == 0);
    CHECK_INT(hu_submit(&d, spec, a, sizeof a), 202);
    REQUIRE(store_open(d.db, &st, err) == STORE_OK);
    for (int k = 0; k < 2; k++) { /* two lost runs: requeued, then failed */
        REQUIRE(store_job_claim_next(st, &j) == STORE_OK);
        CHECK_STR(j.id, a);
        store_job_clear(&j);
        double t0 = hu_now();
        int settled = 0;
        while (!settled && hu_now() - t0 < 10) {
            hu_sleep_ms(50);
            REQUIRE(store_job_get(st, a, &j) == STORE_OK);
            settled = j.state != STORE_RUNNING;
            if (settled)
                CHECK_INT(j.state, k == 0 ? STORE_QUEUED : STORE_FAILED);
            store_job_clear(&j);
        }
        CHECK(settled);
    }
    snprintf(path, sizeof path, "/v1/jobs/%s", a);
    CHECK_INT(hu_get(&d, path, &r), 200);
    CHECK(strstr(r.body, "worker-lost") != NULL);
    hu_resp_free(&r);

    /* a job of ours is never taken for one without a worker */
    CHECK_INT(hu_submit(&d, spec, b, sizeof b), 202);
    snprintf(path, sizeof path, "/v1/jobs/%s/cancel", busy);
    hu_req(&d, "POST", path, NULL, NULL, 0, NULL, &r);
    hu_resp_free(&r);
    CHECK(hu_wait_terminal(&d, b, 30, state) == 0);
    CHECK_STR(state, "succeeded");
    CHECK(hu_wait_terminal(&d, busy, 30, state) == 0);
    CHECK_STR(state, "cancelled");
    hc_check_trace_complete(&d, b, 500);
    store_close(st);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    free(spec);
    free(blocker);
}

/* A store the daemon cannot write is refused at start with status 4 and
 * left as it was: a read-only file, or -- for root, who writes read-only
 * files anyway -- a store on a file system mounted read-only (a tmpfs
 * remounted so: EROFS, as a failing disk the kernel turned read-only). */
TEST(http_faults, read_only_store_refused_untouched)
{
    hu_daemon d = {0};
    char id[64], state[16], fs[560];
    int root = geteuid() == 0;
    hu_prepare(&d, "http_read_only", 1);
    mkdir(d.data, 0755);
    snprintf(fs, sizeof fs, "%s/fs", d.dir);
    if (root) {
        mkdir(fs, 0755);
        umount2(fs, MNT_DETACH); /* a run that stopped half way */
        if (mount("tmpfs", fs, "tmpfs", MS_NOSUID | MS_NODEV, "size=8m,mode=0755") != 0)
            SKIP("root without CAP_SYS_ADMIN: writes read-only files and cannot mount");
        snprintf(d.db, sizeof d.db, "%s/jobs.db", fs);
    }
    char *spec = hu_ls_spec(30, 80, 1, 8.4, 200, 0, NULL);
    CHECK_INT(hu_restart(&d), 0);
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    CHECK(hu_wait_terminal(&d, id, 30, state) == 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    if (root)
        CHECK(mount("tmpfs", fs, "tmpfs", MS_REMOUNT | MS_RDONLY, NULL) == 0);
    else
        CHECK(chmod(d.db, 0400) == 0);
    check_refused_untouched(&d, "cannot be written");
    if (root)
        CHECK(umount2(fs, MNT_DETACH) == 0);
    else
        CHECK(chmod(d.db, 0600) == 0);
    free(spec);
}
