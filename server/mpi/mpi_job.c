/*
 * mpi_job.c -- a job whose spec asks for "execution": {"ranks": N}, solved
 * by N processes of ircg-mpi under the operator's launcher (--mpi-launch).
 *
 * The worker writes the job's stored spec into the job's folder of the
 * work directory (its inline data or dataset made a file there:
 * mpi_inputs.c) and starts
 *   /bin/sh -c 'exec LAUNCH "$@"' ircgd-mpi IRCG-MPI SPEC --progress ...
 * ({ranks} replaced in LAUNCH), in a process group of its own
 * (mpi_proc.c).  Rank 0's stdout is JSON lines: the execution (ranks and
 * hosts, shown by GET /v1/jobs/{id}), every trace row (stored through
 * job_run.c like a local solve's: same batches, progress, events, storage
 * fault handling), every snapshot of the spec's (files rank 0 wrote,
 * stored as a local solve's snapshot) and every checkpoint the ranks
 * completed, which becomes the job's resume point only once the rows
 * before it are stored.  The result is the file rank 0 writes.
 *
 * Stops: a cancel, a shutdown or a claim lost to another run, and the time
 * limit when the ranks overran it, go to the launcher's group as SIGUSR1
 * (forwarded to every rank: they vote and stop at the same iteration,
 * take a last checkpoint and write their result), then SIGTERM after
 * --mpi-stop-grace, then SIGKILL.  A shutdown requeues the job; it
 * resumes, with the same number of ranks, from the newest whole checkpoint
 * (mpi_resume.c: also after a daemon killed outright), or from the start.  A launcher that fails fails
 * the job with its exit status, the host its messages name as lost and
 * the tail of its stderr.  Ranks stopped by someone else (a cancel or a
 * node failure of the scheduler's) fail it too.
 *
 * Under Slurm (rank 0 names the Slurm job it runs in: "slurm_job" in the
 * execution) a stop is an scancel (--signal=USR1 first), the spec's time
 * limit becomes the Slurm job's once the ranks solve, and a job that ended
 * badly gets Slurm's state and reason (mpi_sched.c).
 *
 * A start from another job's snapshot: its solver state is written to
 * start.state in the job's folder, which rank 0 reads and the ranks
 * restore as the inverse of the whole save (--start-state).
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "mpi_inputs.h"
#include "mpi_resume.h"
#include "mpi_proc.h"
#include "mpi_rankcrash.h"
#include "mpi_sched.h"
#include "result.h"
#include "mpi/mpi.h"
#include "spec.h"

#define PUMP_S 0.2
#define MPI_START_LAUNCHES 2 /* a launch whose ranks died at their start: once more */

typedef struct mjob {
    srv_worker_ctl *ctl;
    srv_run *run;
    const store_job *job;
    int ranks;
    char dir[PATH_MAX];    /* the job's folder in the work directory      */
    int64_t resume_at;     /* 0: from the start                           */
    double time_limit;     /* the spec's, seconds; 0 = none               */
    int64_t snapshot_every;/* the spec's; 0 = no snapshots                */
    char *rank_spec;       /* the spec the ranks read (mpi_inputs.c)     */
    double first_row;      /* srv_mono() of the first row; 0 before       */
    int overdue;           /* stopped by the daemon past the time limit   */
    api_start_job start;   /* from another job's snapshot (job NULL: not) */
    double exec_at;        /* srv_mono() of rank 0's execution line        */
    char slurm_job[32];    /* the Slurm job the ranks run in; "" if none   */
    char hosts[8][64];     /* the ranks' first hosts, for Slurm's reasons  */
    int nhosts;
    char lost[64];         /* the host the launcher named as lost; ""      */
    int launches;          /* the launcher's starts so far                 */
    char died[MPI_PROC_TAIL + 1024]; /* why the first launch died at its
                                         start (a whole stderr tail); "" */
    mpi_rank_crash crash;  /* a rank's own crash report, when one came  */
} mjob;

/* ------------------------------------------------ running jobs' hosts -- */

#define MAX_RUNNING 256
static pthread_mutex_t ex_mu = PTHREAD_MUTEX_INITIALIZER;
static struct { char id[STORE_JOB_ID_LEN + 1]; char *json; } running[MAX_RUNNING];

/* Sets (json != NULL: copied) or forgets the execution of job id. */
static void set_execution(const char *id, const char *json)
{
    pthread_mutex_lock(&ex_mu);
    int slot = -1;
    for (int i = 0; i < MAX_RUNNING && slot < 0; i++)
        if (running[i].json && !strcmp(running[i].id, id))
            slot = i;
    for (int i = 0; json && i < MAX_RUNNING && slot < 0; i++)
        if (!running[i].json)
            slot = i;
    if (slot >= 0) {
        free(running[slot].json);
        running[slot].json = json ? strdup(json) : NULL;
        snprintf(running[slot].id, sizeof running[slot].id, "%s", id);
    }
    pthread_mutex_unlock(&ex_mu);
}

char *srv_mpi_execution(const char *id)
{
    char *copy = NULL;
    pthread_mutex_lock(&ex_mu);
    for (int i = 0; i < MAX_RUNNING && !copy; i++)
        if (running[i].json && !strcmp(running[i].id, id))
            copy = strdup(running[i].json);
    pthread_mutex_unlock(&ex_mu);
    return copy;
}

/* ------------------------------------------------------------ set-up -- */

int srv_mpi_ranks(const store_job *job)
{
    /* a spec may hold megabytes of inline data: parsed only when the
     * member may be there */
    int maybe = job->spec_json && strstr(job->spec_json, "\"execution\"");
    cJSON *spec = maybe ? cJSON_Parse(job->spec_json) : NULL;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(spec, "execution");
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "ranks");
    int ranks = cJSON_IsNumber(r) && r->valuedouble >= 1 && r->valuedouble <= API_MAX_RANKS
                    ? (int)r->valuedouble : 0;
    cJSON_Delete(spec);
    return ranks;
}

/* An absolute path for a directory that may not exist yet (created). */
static int make_dir(char *path, size_t cap)
{
    char real[PATH_MAX];
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return -1;
    if (!realpath(path, real) || strlen(real) >= cap)
        return -1;
    memcpy(path, real, strlen(real) + 1);
    return 0;
}

int srv_mpi_prepare(srv_config *c)
{
    char self[PATH_MAX];
    ssize_t n;
    if (!c->mpi_launch[0])
        return 0;
    if (!c->mpi_program[0] && (n = readlink("/proc/self/exe", self, sizeof self - 1)) > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash)
            slash[1] = '\0';
        snprintf(c->mpi_program, sizeof c->mpi_program, "%.1000sircg-mpi", self);
    }
    if (access(c->mpi_program, X_OK) != 0) {
        srv_log("--mpi-launch is set but ircg-mpi is not executable at \"%s\" "
                "(--mpi-program names it)", c->mpi_program);
        return -1;
    }
    if (!c->mpi_workdir[0])
        snprintf(c->mpi_workdir, sizeof c->mpi_workdir, "%.1000s.mpi", c->db);
    if (make_dir(c->mpi_workdir, sizeof c->mpi_workdir) != 0) {
        srv_log("cannot create the MPI work directory %s: %s", c->mpi_workdir,
                strerror(errno));
        return -1;
    }
    srv_log("MPI jobs: %s, ircg-mpi %s, work directory %s", c->mpi_launch, c->mpi_program,
            c->mpi_workdir);
    return 0;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb;
    (void)flag;
    (void)f;
    return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

/* The job's folder and everything in it (its run ended for good). */
static void remove_dir(const mjob *m)
{
    if (m->dir[0] && nftw(m->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0 &&
        errno != ENOENT)
        srv_log("job %s: cannot remove %s: %s", m->job->id, m->dir, strerror(errno));
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* A file's bytes (NUL-terminated, *len without the NUL); NULL when it
 * cannot be read. */
static char *read_blob(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) && fread(text, 1, (size_t)n, f) == (size_t)n) {
        text[n] = '\0';
        *len = (size_t)n;
    } else if (text) {
        free(text);
        text = NULL;
    }
    if (f)
        fclose(f);
    return text;
}

static char *read_file(const char *path)
{
    size_t len = 0;
    return read_blob(path, &len);
}

/* ------------------------------------------------------- snapshots -- */

/* Rank 0's snapshot of iteration it (DIR/snap/it-I: state, x.npz, z.npz,
 * mpi_snap.h) into the store as a local solve's, then its files removed.
 * The last iterate's, taken when the ranks were stopped for a shutdown,
 * is not kept: the run resumes before it (a local solve keeps none). */
static void take_snapshot(mjob *m, int64_t it)
{
    static const char *const names[3] = {"state", "x.npz", "z.npz"};
    char sub[PATH_MAX + 64], path[PATH_MAX + 96];
    void *blob[3] = {NULL, NULL, NULL};
    size_t len[3] = {0, 0, 0};
    int ok = 1;
    int reason = __atomic_load_n(&m->ctl->reason, __ATOMIC_ACQUIRE);
    snprintf(sub, sizeof sub, "%s/snap/it-%lld", m->dir, (long long)it);
    int keep = !(reason == SRV_STOP_SHUTDOWN && m->snapshot_every > 0 &&
                 it % m->snapshot_every != 0);
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", sub, names[k]);
        ok = ok && keep && (blob[k] = read_blob(path, &len[k])) != NULL;
        remove(path);
    }
    rmdir(sub);
    if (ok)
        srv_run_snapshot(m->run, it, (const void *const *)blob, len);
    else if (keep)
        srv_log("job %s: the ranks' snapshot of iteration %lld cannot be read from %s: %s",
                m->job->id, (long long)it, sub, strerror(errno));
    for (int k = 0; k < 3; k++)
        free(blob[k]);
}

/* ------------------------------------------------------ rank 0's lines -- */

/* The execution's Slurm job and hosts (distinct, the first few). */
static void note_execution(mjob *m, const cJSON *ex)
{
    const cJSON *sj = cJSON_GetObjectItemCaseSensitive(ex, "slurm_job");
    const cJSON *h;
    m->exec_at = srv_mono();
    if (cJSON_IsString(sj))
        snprintf(m->slurm_job, sizeof m->slurm_job, "%s", sj->valuestring);
    m->nhosts = 0;
    cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(ex, "hosts")) {
        int seen = !cJSON_IsString(h) || m->nhosts == 8;
        for (int i = 0; i < m->nhosts && !seen; i++)
            seen = !strcmp(m->hosts[i], h->valuestring);
        if (!seen)
            snprintf(m->hosts[m->nhosts++], sizeof m->hosts[0], "%s", h->valuestring);
    }
}

/* A relaunched job's execution (rank 0's, which has neither member) says
 * so: "launches" and the first launch's "start_failure".  1 when it was
 * relaunched. */
static int add_launches(const mjob *m, cJSON *ex)
{
    if (m->launches < 2)
        return 0;
    cJSON_AddNumberToObject(ex, "launches", m->launches);
    cJSON_AddStringToObject(ex, "start_failure", m->died);
    return 1;
}

/* Under Slurm, once the ranks solve: the Slurm job's time limit is what
 * it ran so far, the spec's limit and our stop's grace, a minute more
 * (Slurm counts whole minutes, and checks them every half minute), so
 * that Slurm ends a job our own stop could not. */
static void slurm_limit(const mjob *m)
{
    if (!m->slurm_job[0] || m->time_limit <= 0)
        return;
    double s = srv_mono() - m->exec_at + m->time_limit + srv.cfg.mpi_stop_grace + 60;
    if (srv_slurm_time_limit(m->slurm_job, (int)ceil(s / 60)) == 0)
        srv_log("job %s: Slurm job %s limited to %d min", m->job->id, m->slurm_job,
                (int)ceil(s / 60));
}

/* The launcher's stderr: the first host it names as lost, and a rank's
 * crash report (mpi_rankcrash.h). */
static void on_err_line(void *user, const char *line, size_t len)
{
    mjob *m = user;
    mpi_rank_crash_line(&m->crash, line, len);
    if (!m->lost[0] && srv_sched_names_lost_host(line, m->lost, sizeof m->lost))
        srv_log("job %s: the launcher names host %s as lost", m->job->id, m->lost);
}

static void on_line(void *user, const char *line, size_t len)
{
    mjob *m = user;
    ircg_iter_info it;
    if (srv_run_is_lost(m->run))
        return;
    if (api_trace_json_parse(line, len, &it) == 0) {
        if (m->first_row == 0) {
            m->first_row = srv_mono();
            slurm_limit(m);
        }
        srv_run_row(m->run, &it);
        return;
    }
    cJSON *o = cJSON_ParseWithLength(line, len);
    const cJSON *ck = cJSON_GetObjectItemCaseSensitive(o, "checkpoint");
    const cJSON *sn = cJSON_GetObjectItemCaseSensitive(o, "snapshot");
    cJSON *ex = cJSON_GetObjectItemCaseSensitive(o, "execution");
    char *text = NULL;
    if (cJSON_IsObject(ex)) {
        add_launches(m, ex);
        text = cJSON_PrintUnformatted(ex);
    }
    if (cJSON_IsNumber(ck) && ck->valuedouble >= 1) {
        char blob[96];
        int n = snprintf(blob, sizeof blob, "{\"mpi\":{\"ranks\":%d,\"iteration\":%.0f}}",
                         m->ranks, ck->valuedouble);
        srv_run_checkpoint(m->run, (int64_t)ck->valuedouble, blob, (size_t)n);
    } else if (cJSON_IsNumber(sn) && sn->valuedouble >= 1) {
        take_snapshot(m, (int64_t)sn->valuedouble);
    } else if (text) {
        set_execution(m->job->id, text);
        note_execution(m, ex);
    } else {
        srv_log("job %s: rank 0 wrote %.200s", m->job->id, line);
    }
    free(text);
    cJSON_Delete(o);
}

/* ------------------------------------------------------------ launch -- */

/* "exec LAUNCH \"$@\"" with {ranks} replaced; NULL when too long. */
static char *launch_script(int ranks)
{
    const char *t = srv.cfg.mpi_launch;
    size_t cap = strlen(t) * 2 + 64, n = 0;
    char *s = malloc(cap), num[16];
    int k = snprintf(num, sizeof num, "%d", ranks);
    if (!s)
        return NULL;
    n = (size_t)snprintf(s, cap, "exec ");
    while (*t) {
        if (!strncmp(t, "{ranks}", 7)) {
            memcpy(s + n, num, (size_t)k);
            n += (size_t)k;
            t += 7;
        } else {
            s[n++] = *t++;
        }
    }
    snprintf(s + n, cap - n, " \"$@\"");
    return s;
}

static int spawn(mjob *m, mpi_proc *p, char *err, size_t errlen)
{
    char spec[PATH_MAX + 16], result[PATH_MAX + 16], ckdir[PATH_MAX + 16];
    char snapdir[PATH_MAX + 16], trace[PATH_MAX + 16];
    char every[32], resume[32], state[PATH_MAX + 16];
    char *script = launch_script(m->ranks);
    char *argv[32];
    int a = 0;
    snprintf(spec, sizeof spec, "%s/spec.json", m->dir);
    snprintf(result, sizeof result, "%s/result.json", m->dir);
    snprintf(ckdir, sizeof ckdir, "%s/ckpt", m->dir);
    snprintf(snapdir, sizeof snapdir, "%s/snap", m->dir);
    snprintf(trace, sizeof trace, "%s/trace.jsonl", m->dir); /* mpi_resume.c */
    snprintf(every, sizeof every, "%g", srv.cfg.checkpoint_every);
    snprintf(resume, sizeof resume, "%lld", (long long)m->resume_at);
    remove(result);
    if (!script || write_file(spec, m->rank_spec) != 0 ||
        (mkdir(ckdir, 0700) != 0 && errno != EEXIST) ||
        (mkdir(snapdir, 0700) != 0 && errno != EEXIST)) {
        snprintf(err, errlen, "cannot prepare %.400s: %s", m->dir, strerror(errno));
        free(script);
        return -1;
    }
    char *fixed[] = {"/bin/sh", "-c", script, "ircgd-mpi", srv.cfg.mpi_program, spec,
                     "--progress", "--quiet", "--data-dir", srv.cfg.data_dir,
                     "--result", result, "--snapshot-dir", snapdir, "--trace", trace};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        argv[a++] = fixed[i];
    if (srv.cfg.checkpoint_every > 0) {
        argv[a++] = "--checkpoint-dir";
        argv[a++] = ckdir;
        argv[a++] = "--checkpoint-every";
        argv[a++] = every;
    }
    if (m->resume_at > 0) {
        argv[a++] = "--resume";
        argv[a++] = resume;
    }
    if (m->start.job) { /* also when resuming: max_iter counts from it */
        snprintf(state, sizeof state, "%s/start.state", m->dir);
        argv[a++] = "--start-state";
        argv[a++] = state;
        argv[a++] = "--start-schedule";
        argv[a++] = m->start.mode == IRCG_RESTORE_AFRESH ? "afresh" : "continue";
    }
    argv[a] = NULL;
    int rc = mpi_proc_spawn(p, argv, err, errlen);
    free(script);
    return rc;
}

/* A start from another job's snapshot: its state into start.state, which
 * rank 0 reads (--start-state).  0, or -1 with err set. */
static int write_start(mjob *m, const api_spec *spec, char *err, size_t errlen)
{
    char path[PATH_MAX + 16];
    if (!api_spec_start_job(spec, &m->start)) {
        m->start.job = NULL;
        return 0;
    }
    snprintf(path, sizeof path, "%s/start.state", m->dir);
    if (srv_run_snapshot_file(m->run, m->start.job, m->start.iteration, path) == 0)
        return 0;
    snprintf(err, errlen, "cannot write the snapshot of job %.40s at iteration %lld to "
             "%.400s", m->start.job, (long long)m->start.iteration, path);
    return -1;
}

/* Why the ranks must stop now, if they must: SRV_STOP_* from the worker's
 * control block, or the time limit overrun by the grace. */
static bool must_stop(mjob *m)
{
    int reason = __atomic_load_n(&m->ctl->reason, __ATOMIC_ACQUIRE);
    if (reason != SRV_STOP_NONE || __atomic_load_n(&m->ctl->cancel, __ATOMIC_ACQUIRE))
        return true;
    if (m->time_limit > 0 && m->first_row > 0 &&
        srv_mono() - m->first_row > m->time_limit + srv.cfg.mpi_stop_grace) {
        if (!m->overdue)
            srv_log("job %s: the ranks overran the time limit of %g s: stopping them",
                    m->job->id, m->time_limit);
        m->overdue = 1;
    }
    return m->overdue;
}

/* A stop's signal as Slurm delivers it (mpi_stop_fn): SIGUSR1 through
 * scancel --signal=USR1; SIGTERM and SIGKILL through scancel, which ends
 * the job (a launcher killed alone would leave its ranks to Slurm). */
static int via_slurm(void *user, int sig)
{
    const mjob *m = user;
    if (!m->slurm_job[0])
        return -1;
    srv_log("job %s: scancel%s Slurm job %s", m->job->id,
            sig == SIGUSR1 ? " --signal=USR1" : "", m->slurm_job);
    return srv_slurm_cancel(m->slurm_job, sig == SIGUSR1 ? SIGUSR1 : 0);
}

/* The launcher run to its end, stopped when asked. */
static void supervise(mjob *m, mpi_proc *p)
{
    while (mpi_proc_pump(p, PUMP_S, on_line, on_err_line, m)) {
        if (__atomic_load_n(&m->ctl->reason, __ATOMIC_ACQUIRE) == SRV_STOP_LOST) {
            via_slurm(m, SIGKILL);
            mpi_proc_kill(p); /* another run owns the job: nothing more */
            continue;
        }
        if (must_stop(m))
            mpi_proc_stop(p, srv.cfg.mpi_stop_grace, via_slurm, m);
    }
}

/* ----------------------------------------------------------- outcome -- */

/* Why the ranks failed: the host the launcher named as lost, Slurm's
 * view of its job, then the launcher's exit and last words. */
static void failure_detail(const mjob *m, const mpi_proc *p, char *buf, size_t len)
{
    char slurm[1024] = "";
    const char *hosts[8];
    size_t n = 0;
    buf[0] = '\0';
    if (m->died[0])
        n = (size_t)snprintf(buf, len, "launch 1: the ranks died at their start: %s; "
                             "launch %d: ", m->died, m->launches);
    /* a rank that reported its crash: its host and cause first; the
     * launcher's "lost" host is then only its peers' view of that death */
    if (m->crash.seen && n < len) {
        mpi_rank_crash_describe(&m->crash, buf + n, len - n);
        n += strlen(buf + n);
        n += n < len ? (size_t)snprintf(buf + n, len - n, "; ") : 0;
    } else if (m->lost[0] && n < len) {
        n += (size_t)snprintf(buf + n, len - n, "lost host %s; ", m->lost);
    }
    for (int i = 0; i < m->nhosts; i++)
        hosts[i] = m->hosts[i];
    if (m->slurm_job[0])
        srv_slurm_describe(m->slurm_job, hosts, m->nhosts, slurm, sizeof slurm);
    if (slurm[0] && n < len)
        n += (size_t)snprintf(buf + n, len - n, "%s; ", slurm);
    if (n < len)
        mpi_proc_describe(p, buf + n, len - n);
}

/* The ranks died before all of them started: rank 0 never named their
 * execution, which it does once every rank is past MPI_Init and has read
 * the spec, nobody asked them to stop, and the launcher's status is not
 * one of ircg-mpi's own (0, 2 refused input, 3 failed solve, 130 stopped).
 * 1 when they did; the launch is run again only when a rank's report is
 * the known crash inside MPI_Init (mpi_rankcrash.h; issue 38): nothing of
 * the solve ran, so a new launch loses nothing, and a death of any other
 * cause is not hidden by a second launch. */
static int died_at_start(const mjob *m, const mpi_proc *p)
{
    int code = mpi_proc_exit_code(p);
    return m->exec_at == 0 && m->first_row == 0 && !m->overdue &&
           __atomic_load_n(&m->ctl->reason, __ATOMIC_ACQUIRE) == SRV_STOP_NONE &&
           !__atomic_load_n(&m->ctl->cancel, __ATOMIC_ACQUIRE) && code != 0 && code != 2 &&
           code != 3 && code != 130;
}

/* The launcher started and supervised to its end; launched once more when
 * the ranks died at their start of the known crash (MPI_START_LAUNCHES in
 * all), the first death kept for the job's execution and error.  0, or -1 (err set) when
 * the launcher cannot be started. */
static int launch(mjob *m, mpi_proc *p, char *err, size_t errlen)
{
    for (;;) {
        if (spawn(m, p, err, errlen) != 0) {
            if (m->died[0]) {
                size_t n = strlen(err);
                snprintf(err + n, errlen - n, " (launch %d; launch 1: the ranks died at their "
                         "start: %s)", m->launches + 1, m->died);
            }
            return -1;
        }
        m->launches++;
        srv_log("job %s: %d ranks launched (pid %d, launch %d)%s", m->job->id, m->ranks,
                (int)p->pid, m->launches,
                m->resume_at > 0 ? ", resuming from their checkpoint" : "");
        set_execution(m->job->id, NULL);
        supervise(m, p);
        if (m->launches >= MPI_START_LAUNCHES || !died_at_start(m, p))
            return 0;
        if (!mpi_rank_crash_known(&m->crash)) {
            srv_log("job %s: the ranks died at their start, of no cause known to be outside "
                    "the service: not launched again", m->job->id);
            return 0;
        }
        if (!m->died[0])
            failure_detail(m, p, m->died, sizeof m->died);
        srv_log("job %s: the ranks died at their start (%s): launching them again",
                m->job->id, m->died);
        kill(-p->pid, SIGKILL); /* what the launcher left in its group */
        mpi_proc_free(p);
        *p = (mpi_proc){.out_fd = -1, .err_fd = -1};
        m->lost[0] = '\0';
        memset(&m->crash, 0, sizeof m->crash);
    }
}

/* A result: succeeded, cancelled when the service stopped it, and failed
 * when the ranks were stopped by someone else (a scheduler's cancel, its
 * node failure, a signal): the job did not end as it asked. */
static void conclude_result(mjob *m, const mpi_proc *p, const char *result, int reason)
{
    char why[2 * MPI_PROC_TAIL + 2700];
    cJSON *o = cJSON_Parse(result);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status");
    cJSON *ex = cJSON_GetObjectItemCaseSensitive(o, "execution");
    int cancelled = cJSON_IsString(st) && !strcmp(st->valuestring, "cancelled");
    char *relaunched = NULL;
    if (cJSON_IsObject(ex) && add_launches(m, ex)) {
        relaunched = cJSON_PrintUnformatted(o);
        result = relaunched ? relaunched : result;
    }
    if (reason == SRV_STOP_USER) {
        srv_run_finish(m->run, STORE_CANCELLED, result, NULL);
    } else if (cancelled) {
        failure_detail(m, p, why, sizeof why);
        srv_run_fail(m->run, "mpi-failed", "The ranks were stopped from outside the service",
                     why);
    } else {
        srv_run_finish(m->run, STORE_SUCCEEDED, result, NULL);
    }
    free(relaunched);
    cJSON_Delete(o);
}

/* The job ends as the launcher and rank 0's result say. */
static void conclude(mjob *m, const mpi_proc *p)
{
    char why[2 * MPI_PROC_TAIL + 2700], path[PATH_MAX + 16];
    int code = mpi_proc_exit_code(p);
    int reason = __atomic_load_n(&m->ctl->reason, __ATOMIC_ACQUIRE);
    snprintf(path, sizeof path, "%s/result.json", m->dir);
    char *result = code == 0 || code == 130 || code == 3 ? read_file(path) : NULL;
    if (reason == SRV_STOP_SHUTDOWN) {
        srv_run_requeue(m->run, srv_run_iteration(m->run)); /* at its last checkpoint */
    } else if (result && code != 3 && !m->overdue) {
        conclude_result(m, p, result, reason);
    } else if (reason == SRV_STOP_USER && !m->overdue) {
        srv_run_finish(m->run, STORE_CANCELLED, NULL, NULL);
    } else {
        failure_detail(m, p, why, sizeof why);
        if (m->overdue)
            srv_run_fail(m->run, "time-limit", "The ranks overran the time limit", why);
        else if (code == 2)
            srv_run_fail(m->run, "invalid-input", "The MPI job refused its input", why);
        else
            srv_run_fail(m->run, "mpi-failed", code == 3 ? "The distributed solve failed"
                                                         : "An MPI rank failed", why);
    }
    if (reason != SRV_STOP_SHUTDOWN && reason != SRV_STOP_LOST)
        remove_dir(m);
    free(result);
}

void srv_mpi_job_run(srv_worker_ctl *ctl, store *st, const store_job *job)
{
    api_parse_options opt;
    api_errors errs;
    api_spec *spec = NULL;
    api_output_spec out = {.trace_every = 1};
    ircg_settings set;
    mpi_proc p = {.out_fd = -1, .err_fd = -1};
    char err[MPI_PROC_TAIL + 1536] = "";
    mjob m = {.ctl = ctl, .job = job, .ranks = srv_mpi_ranks(job)};

    /* the cheap checks again (the launcher may be gone since submission);
     * the ranks load the data */
    api_errors_init(&errs);
    srv_parse_options(&opt, st);
    opt.build = 0;
    const char *text = job->spec_json ? job->spec_json : "";
    if (api_spec_parse(text, strlen(text), &opt, &spec, &errs) > 0) {
        char *pj = api_errors_problem_json(&errs, NULL);
        store_claim c = store_claim_of(job);
        if (store_job_finish(st, &c, STORE_FAILED, NULL, pj) != STORE_OK)
            srv_log("job %s: cannot fail it: %s", job->id, store_errmsg(st));
        srv_notify_all();
        free(pj);
        goto done;
    }
    api_spec_output(spec, &out);
    api_spec_settings(spec, &set);
    m.time_limit = set.time_limit > 0 ? set.time_limit : 0;
    m.snapshot_every = out.snapshot_every;
    if (!(m.run = srv_run_open(ctl, st, job, out.trace_every)))
        goto done;
    snprintf(m.dir, sizeof m.dir, "%.3000s/%s", srv.cfg.mpi_workdir, job->id);
    if (mkdir(m.dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, sizeof err, "cannot create %.400s: %s", m.dir, strerror(errno));
        srv_run_fail(m.run, "mpi-failed", "Cannot start the MPI job", err);
    } else if ((m.resume_at = srv_mpi_resume_point(m.run, st, job, m.dir, m.ranks,
                                                    out.trace_every, err, sizeof err)) < 0) {
        srv_run_fail(m.run, "resume-failed", "Cannot resume from the checkpoint", err);
    } else if (srv_run_truncate(m.run, m.resume_at) != 0) {
        /* logged; a lost claim writes nothing more */
    } else if (!(m.rank_spec = srv_mpi_rank_spec(m.run, st, job->spec_json, m.dir, err,
                                                 sizeof err))) {
        srv_run_fail(m.run, "mpi-failed", "Cannot prepare the MPI job's data", err);
    } else if (write_start(&m, spec, err, sizeof err) != 0) {
        srv_run_fail(m.run, "mpi-failed", "Cannot prepare the MPI job's start", err);
    } else if (launch(&m, &p, err, sizeof err) != 0) {
        srv_run_fail(m.run, "mpi-failed", "Cannot start the MPI launcher", err);
    } else {
        conclude(&m, &p);
    }
done:
    set_execution(job->id, NULL);
    free(m.rank_spec);
    mpi_proc_free(&p);
    srv_run_close(m.run);
    api_spec_free(spec);
    api_errors_clear(&errs);
}
