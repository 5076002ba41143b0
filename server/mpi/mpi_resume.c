/*
 * mpi_resume.c -- where the ranks of an MPI job go on after their run
 * ended without a result (a shutdown, a daemon killed outright, a lost
 * claim).
 *
 * The ranks write a checkpoint every --checkpoint-every seconds (every
 * rank its file, DIR/ckpt/it-I/rank-R-of-N.ckpt, mpi_ckpt.h), keep the
 * last two, and announce each; the daemon records an announced one as the
 * job's resume point once the rows before it are stored.  After a
 * shutdown the daemon read every line before it requeued the job, so the
 * recorded checkpoint is on disk.  After a daemon killed outright it may
 * not be: the ranks run ahead of what the daemon read of their output
 * (the pipes' buffers), and had written newer checkpoints and dropped it
 * before they died.  So the resume point is the newest whole checkpoint
 * on disk, and the trace is made whole up to it first: rank 0 also writes
 * every trace row to DIR/trace.jsonl (flushed before each checkpoint), so
 * the rows the daemon had not stored are read from there (rows are the
 * same bits whichever run computed them: a resumed solve goes on bit for
 * bit).  When the file lacks them, the newest whole checkpoint the stored
 * trace reaches is used; when there is none, the job starts over.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_resume.h"
#include "result.h"

#define READ_PAGE 10000

/* Every rank's file of the checkpoint at iteration it is there. */
static bool is_whole(const char *dir, int ranks, int64_t it)
{
    char path[PATH_MAX + 64];
    for (int r = 0; r < ranks; r++) {
        snprintf(path, sizeof path, "%s/ckpt/it-%lld/rank-%d-of-%d.ckpt", dir, (long long)it,
                 r, ranks);
        if (access(path, R_OK) != 0)
            return false;
    }
    return true;
}

/* The newest whole checkpoint on disk at an iteration <= most; 0: none. */
static int64_t newest_whole(const char *dir, int ranks, int64_t most)
{
    char path[PATH_MAX + 16];
    int64_t best = 0;
    snprintf(path, sizeof path, "%s/ckpt", dir);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));) {
        long long it = 0;
        char tail = 0;
        if (sscanf(e->d_name, "it-%lld%c", &it, &tail) == 1 && it > best && it <= most &&
            is_whole(dir, ranks, it))
            best = it;
    }
    if (d)
        closedir(d);
    return best;
}

/* The iteration of the job's last stored trace row (0: none); -1 when
 * the store cannot be read. */
static int64_t last_stored_row(store *st, const char *id)
{
    int64_t last = 0;
    for (;;) {
        store_trace_row *rows = NULL;
        size_t n = 0;
        if (store_trace_read(st, id, last, READ_PAGE, &rows, &n) != STORE_OK)
            return -1;
        if (n > 0)
            last = rows[n - 1].iteration;
        free(rows);
        if (n < READ_PAGE)
            return last;
    }
}

/* The next row of the trace after iteration t (rows: the first and
 * every trace_every-th). */
static int64_t next_row(int64_t t, int64_t every)
{
    return t < 1 ? 1 : (t / every + 1) * every;
}

/* The rows (from, to] of rank 0's trace file, every one the trace has in
 * that range and in order, into the run; 0 (nothing given to the run)
 * when the file lacks one -- it may be gone, or another run's (which
 * started over). */
static int replay(srv_run *run, const char *dir, int64_t from, int64_t to, int64_t every)
{
    char path[PATH_MAX + 16], line[API_TRACE_ROW_MAX + 2];
    ircg_iter_info *rows = NULL, it;
    size_t n = 0, cap = 0;
    int64_t want = next_row(from, every);
    snprintf(path, sizeof path, "%s/trace.jsonl", dir);
    FILE *f = fopen(path, "r");
    while (f && want <= to && fgets(line, sizeof line, f)) {
        if (api_trace_json_parse(line, strcspn(line, "\n"), &it) != 0 || it.t < want)
            continue;
        if (it.t > want)
            break; /* a row is missing */
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            void *p = realloc(rows, cap * sizeof *rows);
            if (!p)
                break;
            rows = p;
        }
        rows[n++] = it;
        want = next_row(want, every);
    }
    if (f)
        fclose(f);
    int whole = want > to;
    for (size_t i = 0; whole && i < n; i++)
        srv_run_row(run, &rows[i]);
    free(rows);
    return whole;
}

int64_t srv_mpi_resume_point(srv_run *run, store *st, const store_job *job, const char *dir,
                             int ranks, int64_t trace_every, char *why, size_t whylen)
{
    int64_t newest = newest_whole(dir, ranks, INT64_MAX);
    int64_t stored = newest > 0 ? last_stored_row(st, job->id) : 0;
    int64_t at = newest;
    if (stored < 0) {
        snprintf(why, whylen, "cannot read the job's trace: %s", store_errmsg(st));
        return -1;
    }
    if (newest > stored && !replay(run, dir, stored, newest, trace_every > 0 ? trace_every : 1)) {
        at = newest_whole(dir, ranks, stored);
        srv_log("job %s: the rows up to the ranks' checkpoint of iteration %lld are "
                "not there; %s", job->id, (long long)newest,
                at > 0 ? "an older checkpoint is used" : "the job runs again from the start");
    } else if (newest > stored) {
        srv_log("job %s: rows %lld to %lld read back from rank 0's trace file", job->id,
                (long long)stored + 1, (long long)newest);
    }
    if (at > 0 && srv_run_flush(run) != 0) {
        snprintf(why, whylen, "cannot store the job's trace up to its checkpoint: %s",
                 store_errmsg(st));
        return -1;
    }
    return at;
}
