/*
 * mpi_data.c -- see mpi_data.h.
 *
 * Rows are cut where the running count of ratings crosses k/size of the
 * total (every rank at least one row), from the count of every row: the
 * sum of the ranks' counts for a file, the generator's layout for a
 * synthetic instance.  A file's entries are then sent to the rank of their
 * row in one MPI_Alltoallv; their order there does not matter (the problem
 * sorts its part of Omega by row and column).
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_data.h"

#define DP "/problem/data"

typedef struct entry {
    int32_t row, col;
    double val;
} entry;

int mpi_any_failed(MPI_Comm comm, int ok)
{
    int bad = !ok, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    return any;
}

/* The lowest rank that failed prints its message; all return nonzero. */
static int agree(MPI_Comm comm, int ok, const char *ptr, const ircg_diag *d, const char *what)
{
    int rank, size, me, first = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    me = ok ? size : rank;
    MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size)
        return 0;
    if (rank == first)
        fprintf(stderr, "ircg-mpi: %s: %s%s%s\n", ptr, what ? what : "", what ? ": " : "",
                d && d->message[0] ? d->message : "failed");
    return 1;
}

/* cut[0..size]: rank r holds rows [cut[r], cut[r + 1]). */
static void cut_rows(const int64_t *counts, int n, int size, int *cut)
{
    int64_t total = 0, run = 0;
    for (int i = 0; i < n; i++)
        total += counts[i];
    cut[0] = 0;
    int i = 0;
    for (int r = 1; r < size; r++) {
        int64_t want = total * r / size; /* the rows before cut[r] hold about this */
        while (i < n && run + counts[i] <= want)
            run += counts[i++];
        int lo = cut[r - 1] + 1, hi = n - (size - r);
        cut[r] = i < lo ? lo : i > hi ? hi : i;
        for (; i < cut[r]; i++) /* a forced cut moves the running count */
            run += counts[i];
        for (; i > cut[r]; i--)
            run -= counts[i - 1];
    }
    cut[size] = n;
}

static int owner(const int *cut, int size, int row)
{
    int lo = 0, hi = size - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (cut[mid] <= row)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Every entry of R sent to the rank of its row; *out the entries received. */
static int exchange(MPI_Comm comm, const ircg_ratings *R, const int *cut, int size,
                    ircg_ratings **out)
{
    int *sc = calloc(4 * (size_t)size, sizeof *sc), ok = 0;
    entry *send = malloc((size_t)(R->nnz ? R->nnz : 1) * sizeof *send), *recv = NULL;
    MPI_Datatype et;
    MPI_Type_contiguous((int)sizeof(entry), MPI_BYTE, &et);
    MPI_Type_commit(&et);
    int fine = sc && send;
    if (mpi_any_failed(comm, fine))
        goto done;
    assert(sc && send); /* every rank agreed it has them */
    int *so = sc + size, *rc = sc + 2 * size, *ro = sc + 3 * size;
    for (int64_t e = 0; e < R->nnz; e++)
        sc[owner(cut, size, R->row[e])]++;
    for (int r = 1; r < size; r++)
        so[r] = so[r - 1] + sc[r - 1];
    int *next = ro; /* scratch until the counts come back */
    memcpy(next, so, (size_t)size * sizeof *next);
    for (int64_t e = 0; e < R->nnz; e++)
        send[next[owner(cut, size, R->row[e])]++] = (entry){R->row[e], R->col[e], R->val[e]};
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm);
    int64_t total = 0;
    for (int r = 0; r < size; r++) {
        ro[r] = (int)total;
        total += rc[r];
    }
    recv = malloc((size_t)(total ? total : 1) * sizeof *recv);
    *out = recv ? ircg_ratings_new(R->n_rows, R->n_cols, total) : NULL;
    if (mpi_any_failed(comm, *out != NULL))
        goto done;
    assert(recv && *out);
    MPI_Alltoallv(send, sc, so, et, recv, rc, ro, et, comm);
    for (int64_t e = 0; e < total; e++) {
        (*out)->row[e] = recv[e].row;
        (*out)->col[e] = recv[e].col;
        (*out)->val[e] = recv[e].val;
    }
    ok = 1;
done:
    MPI_Type_free(&et);
    free(sc);
    free(send);
    free(recv);
    return ok;
}

/* The row counts of every rank's entries, summed; NULL when out of memory
 * on any rank. */
static int64_t *file_counts(MPI_Comm comm, const ircg_ratings *R)
{
    int64_t *counts = calloc((size_t)R->n_rows, sizeof *counts);
    if (mpi_any_failed(comm, counts != NULL)) {
        free(counts);
        return NULL;
    }
    assert(counts);
    for (int64_t e = 0; e < R->nnz; e++)
        counts[R->row[e]]++;
    MPI_Allreduce(MPI_IN_PLACE, counts, R->n_rows, MPI_INT64_T, MPI_SUM, comm);
    return counts;
}

/* This rank's part of the file: its lines numbered in the file. */
static int read_part(const api_mc_source *src, MPI_Comm comm, ircg_ratings **R)
{
    int rank, size;
    int64_t lines = 0, line0 = 0;
    ircg_diag d = {0};
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    ircg_error e = ircg_ratings_part_lines(src->path, rank, size, &lines, &d);
    if (agree(comm, e == IRCG_OK, DP "/path", &d, src->given_path))
        return 0;
    MPI_Exscan(&lines, &line0, 1, MPI_INT64_T, MPI_SUM, comm);
    if (rank == 0)
        line0 = 0; /* MPI_Exscan leaves rank 0's undefined */
    e = ircg_ratings_read_file_part(src->path, &src->read, rank, size, line0, R, &d);
    if (agree(comm, e == IRCG_OK, DP "/path", &d, src->given_path))
        return 0;
    int dims[3] = {(*R)->n_rows, (*R)->n_cols, 0};
    int64_t nnz = (*R)->nnz;
    MPI_Allreduce(MPI_IN_PLACE, dims, 2, MPI_INT, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &nnz, 1, MPI_INT64_T, MPI_SUM, comm);
    (*R)->n_rows = dims[0];
    (*R)->n_cols = dims[1];
    snprintf(d.message, sizeof d.message, "no ratings found");
    return !agree(comm, rank != 0 || nnz > 0, DP "/path", &d, src->given_path);
}

static int load_file(const api_mc_source *src, MPI_Comm comm, mpi_part *out)
{
    int rank, size, ok = 0, *cut = NULL;
    ircg_ratings *R = NULL;
    int64_t *counts = NULL;
    ircg_diag d = {0};
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (!read_part(src, comm, &R))
        goto done;
    snprintf(d.message, sizeof d.message, "%d rows cannot be shared by %d ranks: run "
             "at most %d", R->n_rows, size, R->n_rows);
    if (agree(comm, R->n_rows >= size, DP "/path", &d, src->given_path) ||
        !(counts = file_counts(comm, R)))
        goto done;
    cut = malloc(((size_t)size + 1) * sizeof *cut);
    if (mpi_any_failed(comm, cut != NULL))
        goto done;
    assert(cut && counts);
    cut_rows(counts, R->n_rows, size, cut);
    if (!exchange(comm, R, cut, size, &out->R))
        goto done;
    out->row0 = cut[rank];
    out->n_local = cut[rank + 1] - cut[rank];
    ok = 1;
done:
    ircg_ratings_free(R);
    free(counts);
    free(cut);
    return ok;
}

static int load_synthetic(const api_mc_source *src, MPI_Comm comm, mpi_part *out)
{
    int rank, size, n = src->synth.n_rows, ok = 0;
    ircg_diag d = {0};
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    snprintf(d.message, sizeof d.message, "%d rows cannot be shared by %d ranks: run "
             "at most %d", n, size, n);
    if (agree(comm, n >= size, DP "/n_rows", &d, NULL))
        return 0;
    int64_t *counts = malloc((size_t)n * sizeof *counts);
    int *cut = malloc(((size_t)size + 1) * sizeof *cut);
    ircg_error e = counts && cut ? ircg_synth_row_counts(&src->synth, counts, &d)
                                 : IRCG_ERR_NOMEM;
    if (!agree(comm, e == IRCG_OK, DP, &d, NULL)) {
        assert(counts && cut); /* e is IRCG_OK */
        cut_rows(counts, n, size, cut);
        out->row0 = cut[rank];
        out->n_local = cut[rank + 1] - cut[rank];
        e = ircg_synth_ratings_rows(&src->synth, cut[rank], cut[rank + 1], &out->R, &d);
        ok = !agree(comm, e == IRCG_OK, DP, &d, NULL);
    }
    free(counts);
    free(cut);
    return ok;
}

int mpi_load(const api_mc_source *src, MPI_Comm comm, mpi_part *out)
{
    *out = (mpi_part){0};
    if (src->kind == API_MC_FILE)
        return load_file(src, comm, out) ? 0 : 2;
    if (src->kind == API_MC_SYNTHETIC)
        return load_synthetic(src, comm, out) ? 0 : 2;
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        fprintf(stderr, "ircg-mpi: " DP "/source: a distributed solve reads a file or "
                "generates a synthetic instance (each rank its own rows), not %s data\n",
                src->kind == API_MC_INLINE ? "inline" : "dataset");
    return 2;
}

void mpi_part_free(mpi_part *p)
{
    ircg_ratings_free(p->R);
    p->R = NULL;
}
