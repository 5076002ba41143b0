/*
 * test_http_files.c -- what the daemon leaves on disk and what it reads.
 *
 * Modes: started with a permissive umask (022), the daemon still creates
 * the database, its -wal and -shm, the lock and the dataset copies 0600
 * and the data directory and data/datasets 0700 (checked with stat).  A
 * database made readable by others is reported at start.
 * Confinement through a real daemon: a spec naming a symlink in the data
 * directory that leads out gets 422; the same file copied inside runs.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "common/http_util.h"

static const char RATINGS[] = "1::1::5::0\n1::2::3::0\n2::1::4::0\n2::3::1::0\n3::2::2::0\n";

/* The mode bits of path, or -1 when it does not exist. */
static int mode_of(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (int)(sb.st_mode & 07777) : -1;
}

static void check_mode(const char *dir, const char *name, int want)
{
    char path[1200];
    snprintf(path, sizeof path, "%s%s", dir, name);
    int got = mode_of(path);
    if (got != want)
        th_fail(__FILE__, __LINE__, "%s: mode %04o, want %04o", path, got, want);
}

/* A daemon whose data directory does not exist yet, started under
 * umask 022 (what a shell usually has). */
static int start_fresh(hu_daemon *d, const char *name)
{
    hu_prepare(d, name, 1);
    mode_t old = umask(022);
    int rc = hu_restart(d);
    umask(old);
    return rc;
}

TEST(http_files, private_modes)
{
    hu_daemon d = {0};
    hu_resp r;
    char id[64], state[16], copy[800];
    REQUIRE(start_fresh(&d, "files_modes") == 0);
    char *spec = hu_ls_spec(4, 6, 1, 10, 20, 0, "\"output\":{\"snapshot_every\":5}");
    CHECK_INT(hu_submit(&d, spec, id, sizeof id), 202);
    free(spec);
    CHECK(hu_wait_terminal(&d, id, 20, state) == 0);
    hu_req(&d, "POST", "/v1/datasets", "text/plain", RATINGS, strlen(RATINGS), NULL, &r);
    CHECK_INT(r.status, 201);
    cJSON *j = hu_json(&r);
    const cJSON *ds = cJSON_GetObjectItem(j, "id");
    snprintf(copy, sizeof copy, "/datasets/%s", cJSON_IsString(ds) ? ds->valuestring : "?");
    cJSON_Delete(j);
    hu_resp_free(&r);
    /* while it runs: the WAL side files exist */
    check_mode(d.db, "", 0600);
    check_mode(d.db, "-wal", 0600);
    check_mode(d.db, "-shm", 0600);
    check_mode(d.db, ".lock", 0600);
    check_mode(d.data, "", 0700);
    check_mode(d.data, "/datasets", 0700);
    check_mode(d.data, copy, 0600);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    /* a database others can read is reported (and left as it is) */
    REQUIRE(chmod(d.db, 0644) == 0);
    REQUIRE(hu_restart(&d) == 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    char *log = hu_read_file(d.log);
    CHECK(log && strstr(log, "is accessible to group or others (mode 644)"));
    free(log);
    check_mode(d.db, "", 0644);
}

TEST(http_files, symlink_out_of_the_data_dir_is_refused)
{
    hu_daemon d = {0};
    hu_resp r;
    char outside[700], link[700], inside[700], id[64];
    REQUIRE(hu_start(&d, "files_symlink", 1) == 0);
    snprintf(outside, sizeof outside, "%s/outside.dat", d.dir);
    snprintf(link, sizeof link, "%s/link.dat", d.data);
    snprintf(inside, sizeof inside, "%s/inside.dat", d.data);
    FILE *f = fopen(outside, "w"), *g = fopen(inside, "w");
    REQUIRE(f && g);
    fputs(RATINGS, f);
    fputs(RATINGS, g);
    fclose(f);
    fclose(g);
    REQUIRE(symlink(outside, link) == 0);
    static const char *const SPEC = "{\"problem\":{\"type\":\"matrix_completion\",\"data\":"
        "{\"source\":\"file\",\"path\":\"%s\"},\"delta\":2},\"algorithm\":{\"max_iter\":5}}";
    char body[400];
    snprintf(body, sizeof body, SPEC, "link.dat");
    hu_req(&d, "POST", "/v1/jobs", "application/json", body, strlen(body), NULL, &r);
    CHECK_INT(r.status, 422);
    CHECK(strstr(r.body, "\"/problem/data/path\"") && strstr(r.body, "outside the data directory"));
    hu_resp_free(&r);
    snprintf(body, sizeof body, SPEC, "inside.dat");
    CHECK_INT(hu_submit(&d, body, id, sizeof id), 202);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}
