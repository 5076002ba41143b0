/*
 * mpi_comm.c -- see mpi_comm.h.  A short vector is gathered whole on every
 * rank (MPI_Allgather) and added there; a long one is cut into one slice
 * per rank: each rank receives every rank's copy of its slice
 * (MPI_Alltoallv), adds them, and the sums are gathered (MPI_Allgatherv):
 * 2 len numbers sent and received per rank, whatever the number of ranks.
 * MPI's own MPI_Allreduce is not used: its order of addition may depend on
 * the algorithm the library picks, so its bits would not be the ones every
 * rank can reproduce.  A failed transfer aborts (MPI_ERRORS_ARE_FATAL).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_comm.h"
#include "mpi_parpack.h"

/* Below this, gathering everything is cheaper than two exchanges. */
#define SMALL_LEN MPI_SUM_SMALL_LEN

static double *scratch(mpi_ctx *c, size_t n)
{
    if (n > c->scratch_len) {
        double *s = realloc(c->scratch, n * sizeof *s);
        if (!s) {
            fprintf(stderr, "ircg-mpi: rank %d: out of memory for a sum of %zu numbers\n",
                    c->rank, n);
            MPI_Abort(c->comm, 3);
        }
        c->scratch = s;
        c->scratch_len = n;
    }
    return c->scratch;
}

/* out[i] = the sum of the size rows of all (row r at all + r * stride), in
 * rank order, Neumaier-compensated. */
static void add_in_order(const double *all, int size, size_t stride, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++) {
        double s = 0, comp = 0;
        for (int r = 0; r < size; r++) {
            double x = all[(size_t)r * stride + i], t = s + x;
            comp += fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
            s = t;
        }
        out[i] = s + comp;
    }
}

static void sum_small(mpi_ctx *c, double *buf, int len)
{
    double *all = scratch(c, (size_t)c->size * (size_t)len);
    MPI_Allgather(buf, len, MPI_DOUBLE, all, len, MPI_DOUBLE, c->comm);
    add_in_order(all, c->size, (size_t)len, (size_t)len, buf);
}

static void sum_sliced(mpi_ctx *c, double *buf, int64_t len)
{
    int n = c->size;
    /* zeroed: gcc -O1 (make asan) cannot see the loop below fill it */
    int *cnt = calloc(4 * (size_t)n, sizeof *cnt);
    if (!cnt)
        MPI_Abort(c->comm, 3);
    assert(cnt); /* MPI_Abort does not return */
    int *off = cnt + n, *rcnt = cnt + 2 * n, *roff = cnt + 3 * n;
    for (int r = 0; r < n; r++) {
        off[r] = (int)(len * r / n);
        cnt[r] = (int)(len * (r + 1) / n) - off[r];
    }
    int mine = cnt[c->rank];
    double *all = scratch(c, (size_t)n * (size_t)(mine > 0 ? mine : 1));
    for (int r = 0; r < n; r++) {
        rcnt[r] = mine;
        roff[r] = r * mine;
    }
    MPI_Alltoallv(buf, cnt, off, MPI_DOUBLE, all, rcnt, roff, MPI_DOUBLE, c->comm);
    add_in_order(all, n, (size_t)mine, (size_t)mine, buf + off[c->rank]);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DOUBLE, buf, cnt, off, MPI_DOUBLE, c->comm);
    free(cnt);
}

static void mpi_sum(void *ctx, double *buf, int64_t len)
{
    mpi_ctx *c = ctx;
    double t0 = MPI_Wtime();
    if (c->profile && c->size > 1) {
        MPI_Barrier(c->comm);
        c->wait_seconds += MPI_Wtime() - t0;
        t0 = MPI_Wtime();
    }
    if (c->size > 1 && len > 0) {
        if (len <= SMALL_LEN) {
            sum_small(c, buf, (int)len);
            c->small_calls++;
            c->small_doubles += len;
        }
        else if (len / c->size < INT32_MAX)
            sum_sliced(c, buf, len);
        else
            for (int64_t at = 0; at < len; at += (int64_t)1 << 30) /* 2^31 limits of MPI */
                sum_sliced(c, buf + at, len - at < ((int64_t)1 << 30) ? len - at
                                                                      : (int64_t)1 << 30);
    }
    c->comm_seconds += MPI_Wtime() - t0;
    c->calls++;
    c->doubles += len;
}

void mpi_ctx_init(mpi_ctx *c, MPI_Comm comm, ircg_comm *out)
{
    *c = (mpi_ctx){.comm = comm};
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->size);
    *out = (ircg_comm){c->rank, c->size, c, mpi_sum, mpi_parpack_top_eig};
}

void mpi_ctx_free(mpi_ctx *c)
{
    free(c->scratch);
    c->scratch = NULL;
    c->scratch_len = 0;
}

/* ------------------------------------------------- make bench-cluster -- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median seconds of reps sums of len numbers (collective). */
static double time_sum(const ircg_comm *comm, int64_t len, int reps, double *buf, double *t)
{
    for (int64_t i = 0; i < len; i++)
        buf[i] = 1.0 / (double)(i + 1 + comm->rank);
    comm->sum(comm->ctx, buf, len); /* unmeasured: buffers, connections */
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD); /* every sum starts together */
        double t0 = MPI_Wtime();
        comm->sum(comm->ctx, buf, len);
        t[r] = MPI_Wtime() - t0;
    }
    /* every rank's times, the slowest of each rep: a sum ends when the
     * last rank has it */
    MPI_Allreduce(MPI_IN_PLACE, t, reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return t[reps / 2];
}

int mpi_bench_sums(mpi_ctx *c, const ircg_comm *comm, const char *lens, int reps)
{
    int rc = 0;
    for (const char *s = lens; *s && rc == 0;) {
        char *end = NULL;
        long long len = strtoll(s, &end, 10);
        if (end == s || len < 1 || len > (1LL << 28) || (*end && *end != ',') || reps < 1) {
            if (c->rank == 0)
                fprintf(stderr, "ircg-mpi: --bench-sums wants lengths 1..2^28, comma-"
                        "separated, and --bench-reps >= 1\n");
            return 2;
        }
        double *buf = malloc((size_t)len * sizeof *buf), *t = malloc((size_t)reps * sizeof *t);
        if (!buf || !t) { /* the sums are collective: end them all */
            fprintf(stderr, "ircg-mpi: rank %d: out of memory for --bench-sums\n", c->rank);
            MPI_Abort(c->comm, 3);
            free(buf);
            free(t);
            return 3;
        }
        double med = time_sum(comm, len, reps, buf, t);
        if (c->rank == 0)
            printf("{\"ranks\": %d, \"len\": %lld, \"seconds\": %.9g}\n", c->size, len, med);
        fflush(stdout);
        free(buf);
        free(t);
        s = *end ? end + 1 : end;
    }
    return rc;
}
