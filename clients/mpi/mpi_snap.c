/*
 * mpi_snap.c -- see mpi_snap.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mpi_snap.h"
#include "npz.h"

#define PATH_CAP 4400

/* ircg_write_fn into a FILE (NULL: it could not be opened, refused). */
static int put_file(void *ctx, const void *data, size_t len)
{
    return ctx && fwrite(data, 1, len, ctx) == len ? 0 : -1;
}

/* path.tmp opened for writing (rank 0); NULL when it cannot be. */
static FILE *open_tmp(const char *path)
{
    char tmp[PATH_CAP + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        fprintf(stderr, "ircg-mpi: %s: %s\n", tmp, strerror(errno));
    return f;
}

/* Closes path.tmp and renames it path; 0, or -1 when something failed
 * (ok = 0: already), said on stderr. */
static int close_tmp(FILE *f, const char *path, int ok)
{
    char tmp[PATH_CAP + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!f)
        return -1;
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) != 0)
        ok = 0;
    if (!ok) {
        fprintf(stderr, "ircg-mpi: cannot write %s: %s\n", path, strerror(errno));
        remove(tmp);
    }
    return ok ? 0 : -1;
}

/* The whole state into sub/state: collective, rank 0 writes. */
static int write_state(const char *sub, const ircg_solver *sv, int rank)
{
    char path[PATH_CAP];
    snprintf(path, sizeof path, "%s/state", sub);
    FILE *f = rank == 0 ? open_tmp(path) : NULL;
    /* every rank takes part, whatever rank 0's file did: put then refuses */
    ircg_error err = ircg_solver_save_whole(sv, put_file, f);
    if (rank != 0)
        return 0;
    if (err != IRCG_OK && f)
        fprintf(stderr, "ircg-mpi: the snapshot's state: %s\n", ircg_error_string(err));
    return close_tmp(f, path, err == IRCG_OK);
}

/* One iterate, gathered (collective), into sub/NAME.npz by rank 0. */
static int write_iterate(const char *sub, const ircg_solver *sv, ircg_which which, int rank)
{
    char path[PATH_CAP];
    ircg_iterate *it = NULL;
    void *npz = NULL;
    size_t len = 0;
    int rc = 0;
    ircg_error err = ircg_solver_iterate(sv, which, 0, &it);
    if (rank == 0) {
        snprintf(path, sizeof path, "%s/%s.npz", sub, which == IRCG_X ? "x" : "z");
        if (err != IRCG_OK || api_iterate_npz(it, &npz, &len) != 0) {
            fprintf(stderr, "ircg-mpi: the snapshot's %s: out of memory\n",
                    which == IRCG_X ? "x" : "z");
            rc = -1;
        } else {
            FILE *f = open_tmp(path);
            rc = close_tmp(f, path, f && fwrite(npz, 1, len, f) == len);
        }
    }
    free(npz);
    ircg_iterate_free(it);
    return rc;
}

int mpi_snap_tick(mpi_snap *s, const ircg_solver *sv, int64_t t, int now, MPI_Comm comm)
{
    char sub[PATH_CAP - 64];
    int rank, rc = 0;
    if (!s->dir || s->every <= 0 || t <= 0 || t == s->last || (!now && t % s->every != 0))
        return 0;
    MPI_Comm_rank(comm, &rank);
    s->last = t;
    snprintf(sub, sizeof sub, "%s/it-%lld", s->dir, (long long)t);
    if (rank == 0 && mkdir(sub, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "ircg-mpi: %s: %s\n", sub, strerror(errno));
        rc = -1;
    }
    /* the three in turn, every rank in each (the collectives must match) */
    rc |= write_state(sub, sv, rank);
    rc |= write_iterate(sub, sv, IRCG_X, rank);
    rc |= write_iterate(sub, sv, IRCG_Z, rank);
    if (rank == 0 && rc == 0 && s->progress) {
        printf("{\"snapshot\":%lld}\n", (long long)t);
        fflush(stdout);
    }
    return rank == 0 ? rc : 0;
}
