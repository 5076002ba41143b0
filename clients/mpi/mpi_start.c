/*
 * mpi_start.c -- see mpi_start.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mpi_start.h"

int mpi_start_peek(mpi_start *s, MPI_Comm comm)
{
    int rank;
    long long it = -1;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        unsigned char head[IRCG_CHECKPOINT_HEAD];
        ircg_checkpoint_info h;
        ircg_diag d = {0};
        FILE *f = fopen(s->path, "rb");
        size_t n = f ? fread(head, 1, sizeof head, f) : 0;
        if (!f)
            fprintf(stderr, "ircg-mpi: --start-state %s: %s\n", s->path, strerror(errno));
        else if (ircg_checkpoint_peek(head, n, &h, &d) != IRCG_OK)
            fprintf(stderr, "ircg-mpi: --start-state %s: %s\n", s->path, d.message);
        else
            it = h.iterations;
        if (f)
            fclose(f);
    }
    MPI_Bcast(&it, 1, MPI_LONG_LONG, 0, comm);
    s->iteration = it;
    return it >= 0 ? 0 : -1;
}

/* ircg_read_fn over the file (rank 0). */
static int read_more(void *ctx, void *data, size_t len)
{
    return ctx && fread(data, 1, len, ctx) == len ? 0 : -1;
}

ircg_error mpi_start_restore(const mpi_start *s, ircg_solver *sv, MPI_Comm comm,
                             ircg_diag *d)
{
    int rank;
    struct stat st;
    FILE *f = NULL;
    uint64_t len = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0 && (f = fopen(s->path, "rb")) && fstat(fileno(f), &st) == 0)
        len = (uint64_t)st.st_size;
    /* a file rank 0 cannot open reads as an empty state: refused alike on
     * every rank ("cannot be read") */
    ircg_error err = ircg_solver_restore_whole(sv, read_more, f, len, s->mode, d);
    if (f)
        fclose(f);
    return err;
}
