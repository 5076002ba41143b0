/*
 * mpi_rankcrash.h -- what a rank's own crash report says (ircg-mpi's
 * clients/mpi/mpi_crash.c writes it on stderr, which the launcher passes
 * on), read line by line from the launcher's stderr, and whether it is
 * the one crash at start whose cause is known and outside the project
 * (issue 38; deploy/README.md, "A rank that dies at its start"):
 *
 *   SIGSEGV at address 0, inside MPI_Init, called from Open MPI's TCP
 *   transport (mca_btl_tcp.so): a peer's first message reached a rank
 *   before its ob1 layer had registered the receive callbacks, so the
 *   transport called a null callback.  Seen under srun --mpi=pmix (Slurm's
 *   PMIx plugin, Open MPI 4.1), never under mpirun.
 *
 * Only that death is launched again; any other death at start fails the
 * job, naming the rank's host, signal and phase when it reported them.
 */
#ifndef IRCG_SERVER_MPI_RANKCRASH_H
#define IRCG_SERVER_MPI_RANKCRASH_H

#include <stddef.h>

typedef struct mpi_rank_crash {
    int seen;             /* a rank's report was read                    */
    char host[64];
    int sig;
    char phase[64];       /* "inside MPI_Init", ...                      */
    int pc_null;          /* the program counter was 0                   */
    char caller[160];     /* the caller's object+offset, when pc was 0   */
} mpi_rank_crash;

/* Feeds one stderr line (len bytes, no newline): the first line of the
 * first rank's report is kept. */
void mpi_rank_crash_line(mpi_rank_crash *c, const char *line, size_t len);
/* Whether the report is the known crash at start (above). */
int mpi_rank_crash_known(const mpi_rank_crash *c);
/* One sentence: "the rank on H died of signal 11 (SIGSEGV) inside
 * MPI_Init, ..." and, when known, its cause; "" when no report was read. */
void mpi_rank_crash_describe(const mpi_rank_crash *c, char *buf, size_t len);

#endif /* IRCG_SERVER_MPI_RANKCRASH_H */
