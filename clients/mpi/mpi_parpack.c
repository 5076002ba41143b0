/*
 * mpi_parpack.c -- see mpi_parpack.h.  One call is one LMO: the slices of
 * PARPACK's arrays are allocated, the reverse communication runs to its
 * end on every rank together, pdseupd makes the top Ritz pair, and its
 * slices are gathered into the replicated answer.
 */
#include <arpack/parpack.h>
#include <float.h>
#include <lapacke.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_parpack.h"

/* What every rank sends beside its slice in an exchange: ido, info. */
#define HEAD 2

typedef struct ppk {
    MPI_Fint fcomm;
    int p, nloc, lo;
    a_int ncv, lworkl, iparam[11], ipntr[14];
    double *resid, *V, *workd, *workl, *d, *Z;
    a_int *select;
    double *x, *y;     /* p: the whole operand, its product              */
    double *send, *all;/* nloc + HEAD; p + HEAD size: one exchange        */
    int *cnt, *off;    /* per rank: its slice's length and start          */
    int *xcnt, *xoff;  /* the same with the HEAD numbers, in `all`        */
} ppk;

static void ppk_free(ppk *k)
{
    free(k->resid);
    free(k->V);
    free(k->workd);
    free(k->workl);
    free(k->d);
    free(k->Z);
    free(k->select);
    free(k->x);
    free(k->y);
    free(k->send);
    free(k->all);
    free(k->cnt);
}

/* The slices (rank r: [p r / N, p (r + 1) / N)) and the arrays; 0 when out
 * of memory. */
static int ppk_alloc(ppk *k, const mpi_ctx *c, int p, int ncv)
{
    int n = c->size;
    k->fcomm = MPI_Comm_c2f(c->comm);
    k->p = p;
    k->ncv = ncv;
    k->lworkl = ncv * (ncv + 8);
    k->cnt = malloc(4 * (size_t)n * sizeof *k->cnt);
    if (!k->cnt)
        return 0;
    k->off = k->cnt + n;
    k->xcnt = k->cnt + 2 * n;
    k->xoff = k->cnt + 3 * n;
    for (int r = 0; r < n; r++) {
        k->off[r] = (int)((int64_t)p * r / n);
        k->cnt[r] = (int)((int64_t)p * (r + 1) / n) - k->off[r];
        k->xcnt[r] = k->cnt[r] + HEAD;
        k->xoff[r] = k->off[r] + HEAD * r;
    }
    k->lo = k->off[c->rank];
    k->nloc = k->cnt[c->rank];
    size_t nl = (size_t)k->nloc;
    k->resid = malloc(nl * sizeof(double));
    k->V = malloc(nl * (size_t)ncv * sizeof(double));
    k->workd = malloc(3 * nl * sizeof(double));
    k->workl = malloc((size_t)k->lworkl * sizeof(double));
    k->d = malloc((size_t)ncv * sizeof(double));
    k->Z = malloc(nl * sizeof(double));
    k->select = calloc((size_t)ncv, sizeof(a_int));
    k->x = malloc((size_t)p * sizeof(double));
    k->y = malloc((size_t)p * sizeof(double));
    k->send = malloc((nl + HEAD) * sizeof(double));
    k->all = malloc(((size_t)p + HEAD * (size_t)n) * sizeof(double));
    return k->resid && k->V && k->workd && k->workl && k->d && k->Z && k->select &&
           k->x && k->y && k->send && k->all;
}

/* Whether every rank's ok is nonzero. */
static int all_ok(const mpi_ctx *c, int ok)
{
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, c->comm);
    return ok;
}

/* PARPACK's info codes (pdsaupd.f, pdseupd.f). */
static const char *reason(int info)
{
    switch (info) {
    case -1: return "N must be positive (a rank's slice is empty)";
    case -2: return "NEV must be positive";
    case -3: return "NCV must be greater than NEV and at most N";
    case -4: return "the maximum number of iterations must be positive";
    case -5: return "WHICH must be one of LM, SM, LA, SA or BE";
    case -6: return "BMAT must be I or G";
    case -7: return "the private work array WORKL is too short";
    case -8: return "the tridiagonal eigenvalue calculation (LAPACK dsteqr) failed";
    case -9: return "the starting vector is zero";
    case -10: return "IPARAM(7) must be 1 to 5";
    case -11: return "IPARAM(7) = 1 and BMAT = G are incompatible";
    case -12: return "IPARAM(1) must be 0 or 1 (or NEV = 1 and WHICH = BE)";
    case -13: return "NEV and WHICH = BE are incompatible";
    case -14: return "pdsaupd found no eigenvalue to sufficient accuracy";
    case -15: return "HOWMNY must be A or S";
    case -16: return "HOWMNY = S is not implemented";
    case -17: return "pdseupd counted other converged Ritz values than pdsaupd";
    case -9999: return "could not build a Lanczos factorization (the operator gave "
                       "a vector that is not finite, or the basis is too large)";
    default: return "unknown error";
    }
}

__attribute__((format(printf, 3, 4)))
static ircg_error fail(mpi_ctx *c, ircg_error err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->eig_error, sizeof c->eig_error, fmt, ap);
    va_end(ap);
    return err;
}

/* How the ranks' reverse communications stand after an exchange. */
enum { ALL_APPLY, ALL_DONE, PARTED };

/* Every rank's ido and info, and its slice of the operand when it asks for
 * a product, to every rank; x is assembled when all ask.  *worst: the
 * least info of the ranks. */
static int exchange(ppk *k, mpi_ctx *c, a_int ido, a_int info, const double *slice,
                    a_int *worst)
{
    double t0 = MPI_Wtime();
    int apply = 0, done = 0;
    k->send[0] = (double)ido;
    k->send[1] = (double)info;
    if (slice)
        memcpy(k->send + HEAD, slice, (size_t)k->nloc * sizeof(double));
    else
        memset(k->send + HEAD, 0, (size_t)k->nloc * sizeof(double));
    MPI_Allgatherv(k->send, k->nloc + HEAD, MPI_DOUBLE, k->all, k->xcnt, k->xoff,
                   MPI_DOUBLE, c->comm);
    *worst = info;
    for (int r = 0; r < c->size; r++) {
        const double *h = k->all + k->xoff[r];
        apply += h[0] == 1 || h[0] == -1;
        done += h[0] == 99;
        if (h[1] < *worst)
            *worst = (a_int)h[1];
        memcpy(k->x + k->off[r], h + HEAD, (size_t)k->cnt[r] * sizeof(double));
    }
    c->comm_seconds += MPI_Wtime() - t0;
    return apply == c->size ? ALL_APPLY : done == c->size ? ALL_DONE : PARTED;
}

/* The reverse-communication loop, on every rank in step; PARPACK's info
 * (the least of the ranks'), or 1 with *parted set when they part ways. */
static a_int iterate(ppk *k, mpi_ctx *c, const ircg_eig_request *rq, ircg_eig_answer *ans,
                     a_int info, int *parted)
{
    a_int ido = 0, worst = 0;
    for (;;) {
        pdsaupd_c(k->fcomm, &ido, "I", k->nloc, "LA", 1, rq->tol, k->resid, k->ncv, k->V,
                  k->nloc, k->iparam, k->ipntr, k->workd, k->workl, k->lworkl, &info);
        int want = ido == 1 || ido == -1;
        /* The caller frees k's arrays after this loop (ppk_free); the
         * analyzer loses them in the loop through the opaque apply. */
        /* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
        int st = exchange(k, c, ido, info, want ? k->workd + k->ipntr[0] - 1 : NULL, &worst);
        if (st != ALL_APPLY) {
            *parted = st == PARTED;
            return worst;
        }
        rq->apply(rq->op_ctx, k->x, k->y);
        ans->applied++;
        memcpy(k->workd + k->ipntr[1] - 1, k->y + k->lo, (size_t)k->nloc * sizeof(double));
    }
}

/* The start, as serial dsaupd makes it (arpack-ng 3.8.0, dgetv0): the warm
 * vector, or the one it draws on its first call in a process (LAPACK
 * dlarnv, uniform on (-1, 1), seed 1, 3, 5, 7), then multiplied by the
 * operator ("forced into the range of OP"), which pdgetv0 only does for a
 * generalized problem.  Made whole on every rank (the same bits: x is
 * replicated) and then sliced, so the Krylov space is the serial engine's
 * whatever the number of ranks (pdgetv0 would seed each rank by its
 * number).  When A x is 0 the start is x itself. */
static void start(ppk *k, const ircg_eig_request *rq, ircg_eig_answer *ans)
{
    double nrm = 0;
    if (rq->v0) {
        memcpy(k->x, rq->v0, (size_t)k->p * sizeof(double));
    } else {
        lapack_int seed[4] = {1, 3, 5, 7};
        LAPACKE_dlarnv(2, seed, k->p, k->x);
    }
    rq->apply(rq->op_ctx, k->x, k->y);
    ans->applied++;
    for (int i = 0; i < k->p; i++)
        nrm += k->y[i] * k->y[i];
    memcpy(k->resid, (nrm > 0 ? k->y : k->x) + k->lo, (size_t)k->nloc * sizeof(double));
}

/* pdseupd's top Ritz pair after a loop that ended with info >= 0: the one
 * the loop converged to, or (stopped at its iteration limit) the current
 * top one all the same, through a tolerance every estimate meets with
 * iparam[4] = 1 -- pdseupd would otherwise fail (-14) where the serial
 * engine has an answer.  Its info, agreed by every rank. */
static a_int extract(ppk *k, const mpi_ctx *c, const ircg_eig_request *rq,
                     ircg_eig_answer *ans)
{
    a_int info = 0;
    double tol = rq->tol;
    ans->converged = k->iparam[4] >= 1;
    if (!ans->converged) {
        k->iparam[4] = 1;
        tol = DBL_MAX;
    }
    pdseupd_c(k->fcomm, 1, "A", k->select, k->d, k->Z, k->nloc, 0.0, "I", k->nloc, "LA", 1,
              tol, k->resid, k->ncv, k->V, k->nloc, k->iparam, k->ipntr, k->workd, k->workl,
              k->lworkl, &info);
    MPI_Allreduce(MPI_IN_PLACE, &info, 1, MPI_INT, MPI_MIN, c->comm);
    if (info < 0)
        return info;
    ans->lambda = k->d[0];
    MPI_Allgatherv(k->Z, k->nloc, MPI_DOUBLE, ans->v, k->cnt, k->off, MPI_DOUBLE, c->comm);
    return 0;
}

ircg_error mpi_parpack_top_eig(void *ctx, const ircg_eig_request *rq, ircg_eig_answer *ans)
{
    mpi_ctx *c = ctx;
    ppk k = {0};
    ircg_error err = IRCG_ERR_INVALID;
    int parted = 0;

    c->eig_error[0] = '\0';
    ans->applied = 0;
    ans->converged = 0;
    if (rq->p < c->size) { /* the same test on every rank */
        err = fail(c, err, "arpack (PARPACK): the matrix has %d columns, fewer than the "
                   "%d ranks: every rank needs a slice of the Lanczos vectors (fewer "
                   "ranks, or the lanczos engine)", rq->p, c->size);
        goto done;
    }
    if (rq->ncv < 2 || rq->ncv > rq->p) {
        err = fail(c, err, "arpack (PARPACK): a Lanczos basis of %d vectors for %d "
                   "columns: the matrix needs 2 columns at least", rq->ncv, rq->p);
        goto done;
    }
    int ok = ppk_alloc(&k, c, rq->p, rq->ncv);
    if (!all_ok(c, ok) || !ok) { /* the second test is the first's, locally */
        err = fail(c, IRCG_ERR_NOMEM, "arpack (PARPACK): out of memory for a Lanczos "
                   "basis of %d vectors of %d entries", rq->ncv, k.nloc);
        goto done;
    }
    start(&k, rq, ans);
    k.iparam[0] = 1; /* exact shifts */
    k.iparam[2] = (a_int)(rq->max_apply / k.ncv > 1 ? rq->max_apply / k.ncv : 1);
    k.iparam[6] = 1; /* standard eigenproblem */
    err = IRCG_ERR_NUMERICAL;
    a_int info = iterate(&k, c, rq, ans, 1, &parted);
    if (parted) {
        fail(c, err, "arpack (PARPACK pdsaupd) info %d: the ranks' iterations parted "
             "ways (one finished while another asked for a product)", (int)info);
        goto done;
    }
    if (info < 0) {
        fail(c, err, "arpack (PARPACK pdsaupd) info %d: %s", (int)info, reason(info));
        goto done;
    }
    if ((info = extract(&k, c, rq, ans)) < 0) {
        fail(c, err, "arpack (PARPACK pdseupd) info %d: %s", (int)info, reason(info));
        goto done;
    }
    err = IRCG_OK;
done:
    ppk_free(&k);
    return err;
}
