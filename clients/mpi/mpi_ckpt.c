/*
 * mpi_ckpt.c -- see mpi_ckpt.h.  Files are written to a temporary name,
 * synced and renamed, so a file under its final name is whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "mpi_ckpt.h"
#include "mpi_data.h"

static void file_name(char *out, size_t n, const char *dir, int64_t iter, int rank, int size)
{
    snprintf(out, n, "%s/it-%lld/rank-%d-of-%d.ckpt", dir, (long long)iter, rank, size);
}

/* This rank's state into its file; 0 or -1 (said on stderr). */
static int write_mine(const char *dir, const ircg_solver *sv, int64_t t, int rank, int size)
{
    char sub[4200], path[4300], tmp[4400];
    void *blob = NULL;
    size_t len = 0;
    int ok = 0;
    snprintf(sub, sizeof sub, "%s/it-%lld", dir, (long long)t);
    file_name(path, sizeof path, dir, t, rank, size);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = NULL;
    if (ircg_solver_save(sv, &blob, &len) != IRCG_OK)
        fprintf(stderr, "ircg-mpi: rank %d: out of memory for a checkpoint\n", rank);
    else if (mkdir(sub, 0777) != 0 && errno != EEXIST)
        fprintf(stderr, "ircg-mpi: rank %d: %s: %s\n", rank, sub, strerror(errno));
    else if (!(f = fopen(tmp, "wb")))
        fprintf(stderr, "ircg-mpi: rank %d: %s: %s\n", rank, tmp, strerror(errno));
    else
        ok = fwrite(blob, 1, len, f) == len && fflush(f) == 0 && fsync(fileno(f)) == 0;
    if (f && (fclose(f) != 0 || !ok || rename(tmp, path) != 0)) {
        fprintf(stderr, "ircg-mpi: rank %d: cannot write %s: %s\n", rank, path,
                strerror(errno));
        remove(tmp);
        ok = 0;
    }
    free(blob);
    return ok ? 0 : -1;
}

/* Drops this rank's file of iteration `iter` (and, on rank 0 once every
 * rank dropped its own, the iteration's directory). */
static void drop(const char *dir, int64_t iter, int rank, int size, MPI_Comm comm)
{
    char path[4300];
    file_name(path, sizeof path, dir, iter, rank, size);
    remove(path);
    MPI_Barrier(comm);
    if (rank == 0) {
        snprintf(path, sizeof path, "%s/it-%lld", dir, (long long)iter);
        rmdir(path);
    }
}

int mpi_ckpt_tick(mpi_ckpt *k, const ircg_solver *sv, int64_t t, int now, MPI_Comm comm)
{
    int rank, size, due = now;
    if (!k->dir || t <= 0 || t == k->kept[0])
        return 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (!due && rank == 0)
        due = MPI_Wtime() - k->last >= k->every;
    if (!now) /* rank 0's clock decides for all */
        MPI_Bcast(&due, 1, MPI_INT, 0, comm);
    if (!due)
        return 0;
    k->last = MPI_Wtime();
    if (mpi_any_failed(comm, write_mine(k->dir, sv, t, rank, size) == 0))
        return -1;
    if (rank == 0 && k->progress) {
        printf("{\"checkpoint\":%lld}\n", (long long)t);
        fflush(stdout);
    }
    if (k->kept[1] > 0)
        drop(k->dir, k->kept[1], rank, size, comm);
    k->kept[1] = k->kept[0];
    k->kept[0] = t;
    return 0;
}

/* This rank's file, checked against its part before anything is
 * restored: the restore itself is collective, so every rank must enter
 * it or none.  The blob (malloc'ed) or NULL, said on stderr. */
static void *read_mine(const char *dir, int64_t iter, const ircg_problem *pb, int rank,
                       int size, size_t *len)
{
    char path[4300];
    ircg_checkpoint_info h;
    ircg_problem_info pi;
    ircg_diag d = {0};
    file_name(path, sizeof path, dir, iter, rank, size);
    void *blob = cli_read_file(path, len);
    ircg_problem_get_info(pb, &pi);
    if (!blob) {
        fprintf(stderr, "ircg-mpi: rank %d: cannot read the checkpoint %s\n", rank, path);
    } else if (ircg_checkpoint_peek(blob, *len, &h, &d) != IRCG_OK) {
        fprintf(stderr, "ircg-mpi: rank %d: %s: %s\n", rank, path, d.message);
    } else if (h.iterations != iter || h.kind != pi.kind || h.dim != pi.dim ||
               h.n_observed != pi.n_observed) {
        fprintf(stderr, "ircg-mpi: rank %d: %s is not this rank's part at iteration %lld "
                "(%lld ratings, iteration %lld; this rank holds %lld ratings)\n", rank, path,
                (long long)iter, (long long)h.n_observed, (long long)h.iterations,
                (long long)pi.n_observed);
    } else {
        return blob;
    }
    free(blob);
    return NULL;
}

int mpi_ckpt_restore(const char *dir, int64_t iter, const ircg_problem *pb,
                     ircg_solver *sv, MPI_Comm comm)
{
    int rank, size;
    size_t len = 0;
    ircg_diag d = {0};
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    void *blob = read_mine(dir, iter, pb, rank, size, &len);
    int rc = -1;
    if (!mpi_any_failed(comm, blob != NULL)) {
        ircg_error err = ircg_solver_restore(sv, blob, len, &d);
        if (err != IRCG_OK)
            fprintf(stderr, "ircg-mpi: rank %d: cannot restore the checkpoint of iteration "
                    "%lld: %s\n", rank, (long long)iter, d.message);
        rc = mpi_any_failed(comm, err == IRCG_OK) ? -1 : 0;
    }
    free(blob);
    return rc;
}
