/*
 * test_cluster_lost.c -- a host lost mid-job: every process inside it
 * killed (cluster.sh kill), or its link taken down (cluster.sh cut).
 *
 * The job fails within a stated bound, its error naming the host, and no
 * rank is left on any host -- the lost one included.  The bounds: a
 * killed host's sockets are reset at once, so Open MPI's ranks and mpirun
 * see it as soon as they next talk to it; mpirun then ends the others:
 * 15 s.  A cut link resets nothing: mpirun learns of it from the
 * keepalives of its connection to the host's daemon, idle while the ranks
 * solve (cl_mpirun: first probe after 5 s, 3 more 2 s apart: 11 s), and
 * the cut host's daemon from its own, which ends its ranks: 11 s + 10 s
 * for the ends = 21 s.
 *
 * What is lost is not the work: the failed job's snapshots start another
 * job on the remaining hosts (3 ranks, continuing its schedule), which
 * finishes and agrees with one uninterrupted process (1e-10, test_mpi.c);
 * and the ranks' own checkpoints resume on the remaining hosts with the
 * rank count they were written for (4 ranks on 3 hosts): bit for bit the
 * rows of an uninterrupted run of 4 ranks.

 */
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "common/http_mpi_util.h"
#include "common/test_cli_util.h"
#include "cluster_util.h"

#define MPI_TOL 1e-10
#define KILL_BOUND_S 15.0
#define CUT_BOUND_S (5.0 + 3 * 2.0 + 10.0)
#define ITERS 100
#define RATINGS 600000L

static void spec_of(char *out, size_t n, long long iters, int ranks, const char *start)
{
    char ex[96] = "";
    if (ranks > 0)
        snprintf(ex, sizeof ex, ", \"output\": {\"snapshot_every\": 20}, "
                 "\"execution\": {\"ranks\": %d}", ranks);
    snprintf(out, n, "{\"problem\": {\"type\": \"matrix_completion\", \"delta\": 5, "
             "\"data\": {\"source\": \"synthetic\", \"n_rows\": 8000, \"n_cols\": 1000, "
             "\"n_ratings\": %ld, \"seed\": 9}}, \"algorithm\": {\"name\": \"ircg\", "
             "\"max_iter\": %lld%s}%s}", RATINGS, iters, start ? start : "", ex);
}

static void no_rank_left(void)
{
    int left = 0;
    for (int i = 0; i < 50 && (left = cl_count_ranks()) > 0; i++)
        hu_sleep_ms(100);
    CHECK_INT(left, 0);
}

/* `cluster.sh VERB HOST`. */
static int fixture(const char *verb, int k)
{
    char cmd[PATH_MAX + 96];
    snprintf(cmd, sizeof cmd, "%s %s %s", cl_script(), verb, cl_host(k));
    return cl_sh(cmd, NULL, 0);
}

/* A 4-rank job on hosts 1..4 that loses host k (verb: kill or cut) after
 * its snapshot at 20: the seconds until it failed, its error in why. */
static double lose_host(hu_daemon *d, const char *verb, int k, char *id, char *why,
                        size_t n)
{
    char spec[1024], state[16], path[96];
    hu_resp r;
    spec_of(spec, sizeof spec, ITERS, 4, NULL);
    if (hu_submit(d, spec, id, 64) != 202 || hu_wait_iteration(d, id, 25, 300) != 0)
        return -1;
    double t0 = hu_now();
    if (fixture(verb, k) != 0 || hu_wait_terminal(d, id, 120, state) != 0)
        return -1;
    double dt = hu_now() - t0;
    CHECK_STR(state, "failed");
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    if (hu_get(d, path, &r) == 200)
        snprintf(why, n, "%s", r.body);
    hu_resp_free(&r);
    return dt;
}

TEST(cluster_lost, killed_host_fails_the_job_and_its_snapshot_finishes_elsewhere)
{
    HM_NEED_MPI();
    (void)bin;
    CL_NEED_HOSTS(4);
    hu_daemon d = {0};
    char launch[4096], id[64], cont[64], state[16], why[8192], spec[1024], one[1024];
    char start[160], path[128];
    char *hf = cl_path("hosts-all");
    REQUIRE(cl_hostfile(hf, 1, 4, 1) == 0);
    cl_mpirun(launch, sizeof launch, hf, "{ranks}");
    REQUIRE(cl_daemon(&d, "cluster_lost_kill", launch, "--snapshot-keep-finished 0") == 0);
    double dt = lose_host(&d, "kill", 3, id, why, sizeof why);
    REQUIRE(dt >= 0);
    CHECK_MEASURED("seconds from host 3's processes killed to the job failed", dt,
                   KILL_BOUND_S);
    CHECK(strstr(why, "lost host ircg-node3") != NULL);
    if (!strstr(why, "lost host ircg-node3"))
        printf("    %s\n", why);
    no_rank_left();

    /* the operator takes host 3 out; the failed job's newest snapshot goes
     * on, its schedule continued, on 3 ranks of the hosts that remain */
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
    REQUIRE(cl_hostfile_of(hf, "1:1,2:1,4:1") == 0);
    REQUIRE(cl_daemon_restart(&d, launch) == 0);
    hu_resp r;
    snprintf(path, sizeof path, "/v1/jobs/%s/snapshots", id);
    REQUIRE(hu_get(&d, path, &r) == 200);
    cJSON *list = hu_json(&r);
    hu_resp_free(&r);
    long long newest = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(list, "snapshots")) {
        double it = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "iteration"));
        newest = it > newest ? (long long)it : newest;
    }
    cJSON_Delete(list);
    REQUIRE(newest >= 20);
    snprintf(start, sizeof start, ", \"start\": {\"job\": \"%s\", \"schedule\": \"continue\"}",
             id);
    spec_of(spec, sizeof spec, ITERS - newest, 3, start);
    REQUIRE(hu_submit(&d, spec, cont, sizeof cont) == 202);
    REQUIRE(hu_wait_terminal(&d, cont, 300, state) == 0);
    CHECK_STR(state, "succeeded");
    /* against one process's uninterrupted run, from iteration newest + 1 */
    static double a[ITERS + 1][4], b[ITERS + 1][4];
    char *f1 = tcli_tmp("lost_one.csv"), *fb = tcli_tmp("lost_cont.csv");
    spec_of(one, sizeof one, ITERS, 0, NULL);
    char *sp = tcli_tmp("lost_one.json");
    REQUIRE(tcli_write(sp, one) == 0);
    char *args[] = {(char *)tcli_path(), "solve", sp, "--quiet", "--trace", f1, NULL};
    REQUIRE(tcli_run(args, NULL) == 0);
    snprintf(path, sizeof path, "/v1/jobs/%s/trace?format=csv", cont);
    REQUIRE(hu_get(&d, path, &r) == 200 && tcli_write(fb, r.body) == 0);
    hu_resp_free(&r);
    int na = mu_read_trace(f1, a, ITERS + 1), nb = mu_read_trace(fb, b, ITERS + 1);
    CHECK_INT(na, ITERS);
    CHECK_INT(nb, ITERS - newest);
    double w = na == ITERS && nb == ITERS - newest
                   ? mu_worst_relative((const double (*)[4])(a + newest),
                                       (const double (*)[4])b, nb)
                   : INFINITY;
    CHECK_MEASURED("the failed job's snapshot continued on 3 hosts, g and f against one "
                   "uninterrupted process", w, MPI_TOL);
    no_rank_left();
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

TEST(cluster_lost, cut_link_fails_the_job_within_the_keepalives)
{
    HM_NEED_MPI();
    (void)bin;
    CL_NEED_HOSTS(4);
    hu_daemon d = {0};
    char launch[4096], id[64], why[8192];
    char *hf = cl_path("hosts-all");
    REQUIRE(cl_hostfile(hf, 1, 4, 1) == 0);
    cl_mpirun(launch, sizeof launch, hf, "{ranks}");
    REQUIRE(cl_daemon(&d, "cluster_lost_cut", launch, NULL) == 0);
    double dt = lose_host(&d, "cut", 2, id, why, sizeof why);
    REQUIRE(dt >= 0);
    CHECK_MEASURED("seconds from host 2's link taken down to the job failed", dt,
                   CUT_BOUND_S);
    CHECK(strstr(why, "lost host ircg-node2") != NULL);
    if (!strstr(why, "lost host ircg-node2"))
        printf("    %s\n", why);
    no_rank_left(); /* the cut host's too: its daemon ended them */
    CHECK_INT(fixture("mend", 2), 0);
    CHECK_INT(hu_stop(&d, SIGTERM), 0);
}

/* The CSV lines of a file, NULL-terminated (malloc'ed). */
static char **lines_of(const char *path, int *n)
{
    char *text = hu_read_file(path);
    char **l = NULL;
    *n = 0;
    for (char *t = text ? strtok(text, "\n") : NULL; t; t = strtok(NULL, "\n")) {
        char **m = realloc(l, (size_t)(*n + 2) * sizeof *m);
        if (!m)
            break;
        l = m;
        l[(*n)++] = strdup(t);
        l[*n] = NULL;
    }
    free(text);
    return l;
}

/* Line b equal to line a in every column but the clock's (elapsed 2nd,
 * lmo_seconds 12th: the trace's header order). */
static int same_but_clock(const char *a, const char *b)
{
    char x[4096], y[4096];
    snprintf(x, sizeof x, "%s", a);
    snprintf(y, sizeof y, "%s", b);
    char *sx = x, *sy = y; /* strsep: empty fields (NaN) are columns too */
    for (int col = 1; sx || sy; col++) {
        char *p = strsep(&sx, ","), *q = strsep(&sy, ",");
        if (!p || !q || (col != 2 && col != 12 && strcmp(p, q) != 0))
            return 0;
    }
    return 1;
}

/* The newest iteration of DIR/it-I with all `ranks` rank files; 0: none. */
static long newest_whole(const char *dir, int ranks)
{
    DIR *dd = opendir(dir);
    long best = 0;
    for (struct dirent *e; dd && (e = readdir(dd));) {
        long it = 0;
        if (sscanf(e->d_name, "it-%ld", &it) != 1 || it <= best)
            continue;
        int all = 1;
        for (int r = 0; r < ranks && all; r++) {
            char p[PATH_MAX + 300];
            snprintf(p, sizeof p, "%s/%s/rank-%d-of-%d.ckpt", dir, e->d_name, r, ranks);
            all = access(p, R_OK) == 0;
        }
        best = all ? it : best;
    }
    if (dd)
        closedir(dd);
    return best;
}

TEST(cluster_lost, checkpoints_resume_on_the_remaining_hosts_bit_for_bit)
{
    HM_NEED_MPI();
    (void)bin;
    CL_NEED_HOSTS(4);
    char spec[1024], args[PATH_MAX * 4], err[32768], cmd[16384], launch[8192];
    char *sp = strdup(cl_path("lost.json")), *full = strdup(cl_path("lost-full.csv"));
    char *part = strdup(cl_path("lost-part.csv")), *rest = strdup(cl_path("lost-rest.csv"));
    char *ck = strdup(cl_path("lost-ckpt")), *hf = strdup(cl_path("hosts-rest"));
    spec_of(spec, sizeof spec, ITERS, 0, NULL);
    REQUIRE(tcli_write(sp, spec) == 0);
    REQUIRE(mkdir(ck, 0755) == 0);
    /* the uninterrupted run of 4 ranks */
    snprintf(args, sizeof args, "%s --quiet --trace %s", sp, full);
    REQUIRE(cl_run_mpi(4, 1, args, err, sizeof err) == 0);
    /* the same, checkpointing every half second, host 4 killed mid-run */
    REQUIRE(cl_hostfile(hf, 1, 4, 1) == 0);
    cl_mpirun(launch, sizeof launch, hf, "4");
    snprintf(cmd, sizeof cmd, "%s %s %s --quiet --trace %s --checkpoint-dir %s "
             "--checkpoint-every 0.25 >/dev/null 2>&1 &", launch, mu_mpi_bin(), sp, part, ck);
    REQUIRE(cl_sh(cmd, NULL, 0) == 0);
    /* mid-run: 40 rows traced and a checkpoint of every rank written
     * (the clock, not the rows, says when one is due) */
    int rows = 0;
    for (int i = 0; i < 1200 && (rows < 40 || newest_whole(ck, 4) <= 0); i++) {
        hu_sleep_ms(50);
        rows = tcli_count_lines(part);
    }
    REQUIRE(rows >= 40 && rows <= ITERS);
    REQUIRE(fixture("kill", 4) == 0);
    for (int i = 0; i < 300 && cl_count_ranks() > 0; i++)
        hu_sleep_ms(100);
    CHECK_INT(cl_count_ranks(), 0);
    long at = newest_whole(ck, 4);
    REQUIRE(at > 0);
    /* 4 ranks, as the checkpoint needs, on hosts 1-3 (two on host 1) */
    REQUIRE(cl_hostfile_of(hf, "1:2,2:1,3:1") == 0);
    cl_mpirun(launch, sizeof launch, hf, "4");
    snprintf(cmd, sizeof cmd, "%s %s %s --quiet --trace %s --checkpoint-dir %s --resume %ld "
             "2>&1", launch, mu_mpi_bin(), sp, rest, ck, at);
    int rc = cl_sh(cmd, err, sizeof err);
    if (rc != 0)
        printf("    resume: exit %d: %.2000s\n", rc, err);
    REQUIRE(rc == 0);
    int nf = 0, nr = 0, same = 0;
    char **lf = lines_of(full, &nf), **lr = lines_of(rest, &nr);
    CHECK_INT(nf, ITERS + 1);
    CHECK_INT(nr, ITERS - at + 1);
    for (int i = 1; i < nr && nf == ITERS + 1 && at + i <= ITERS; i++)
        same += same_but_clock(lf[at + i], lr[i]);
    printf("    resumed at %ld of %d on 3 hosts: %d of %d rows the uninterrupted 4 ranks' in "
           "every column but the clock's\n", at, ITERS, same, nr - 1);
    CHECK_INT(same, nr - 1);
    for (int i = 0; lf && lf[i]; i++)
        free(lf[i]);
    for (int i = 0; lr && lr[i]; i++)
        free(lr[i]);
    free(lf);
    free(lr);
    free(sp), free(full), free(part), free(rest), free(ck), free(hf);
}
