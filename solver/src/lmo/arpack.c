/* arpack.c -- see arpack.h.  The eigenproblem C'C v = s^2 v has the
 * same relative residual test as the Lanczos one: with u = C v / s,
 * ||C'u - s v|| <= tol s  <=>  ||C'C v - s^2 v|| <= tol s^2. */
#include <arpack/arpack.h>
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "base/util.h"
#include "lmo/arpack.h"

/* ARPACK-ng's dsaupd keeps its progress between the calls of one reverse-
 * communication loop in Fortran SAVE variables (dsaup2's iteration counts,
 * the restart position, the "first call" flags of the BLAS-like helpers),
 * shared by every thread of the process.  Two solves that interleave their
 * calls would corrupt each other, so one mutex is held from the first
 * dsaupd to the last dseupd of a solve: the lock covers the whole loop, not
 * single calls.  It is the only global state of the library; the Lanczos
 * engine needs none, which is why it is the default. */
static pthread_mutex_t lmo_arpack_mu = PTHREAD_MUTEX_INITIALIZER;

typedef struct arp {
    a_int p, ncv, lworkl, iparam[11], ipntr[14];
    double *resid, *V, *workd, *workl, *d, *Z;
    a_int *select;
} arp;

static void arp_free(arp *a)
{
    free(a->resid);
    free(a->V);
    free(a->workd);
    free(a->workl);
    free(a->d);
    free(a->Z);
    free(a->select);
}

static int arp_alloc(arp *a, int p, int ncv)
{
    a->p = p;
    a->ncv = ncv;
    a->lworkl = ncv * (ncv + 8);
    a->resid = malloc((size_t)p * sizeof(double));
    a->V = malloc((size_t)p * ncv * sizeof(double));
    a->workd = malloc(3 * (size_t)p * sizeof(double));
    a->workl = malloc((size_t)a->lworkl * sizeof(double));
    a->d = malloc((size_t)ncv * sizeof(double));
    a->Z = malloc((size_t)p * sizeof(double));
    a->select = calloc((size_t)ncv, sizeof(a_int));
    return a->resid && a->V && a->workd && a->workl && a->d && a->Z && a->select;
}

/* The tolerance to give dseupd (or pdseupd) after dsaupd returned: tol,
 * or, when dsaupd stopped at its iteration limit with no Ritz value
 * converged (iparam[4] = 0), a tolerance every Ritz estimate meets, with
 * iparam[4] set to 1, so that dseupd makes the top Ritz pair all the same:
 * the best answer there is, reported as not converged.  (dseupd would
 * return at once and leave the vector unwritten; pdseupd fails, -14.) */
static double accept_tol(a_int *iparam, double tol)
{
    if (iparam[4] >= 1)
        return tol;
    iparam[4] = 1;
    return DBL_MAX;
}

/* u = C v / ||C v|| for the answer's v (one product); C v = 0 means C
 * vanishes on the top eigenvector of C'C, so C = 0: then sv = 0 and u the
 * first unit vector.  Distributed (c set): u is this rank's rows
 * [row0, row0 + n) and its norm is summed over the ranks. */
static void left_vector(const ircg_comm *c, int n, int row0, lmo_op_fn op, void *ctx,
                        lmo_svd_out *out)
{
    op(ctx, 0, out->v, out->u);
    out->matvecs++;
    double s = c ? sqrt(slv_comm_sum1(c, cblas_ddot(n, out->u, 1, out->u, 1)))
                 : cblas_dnrm2(n, out->u, 1);
    out->sv[0] = s;
    if (s > 0) {
        cblas_dscal(n, 1.0 / s, out->u, 1);
        return;
    }
    out->zero = 1;
    memset(out->u, 0, (size_t)n * sizeof(double));
    if (row0 == 0 && n > 0)
        out->u[0] = 1;
}

/* The reverse-communication loop; returns ARPACK's info, and sets
 * *stopped when the thread's stop was due before a product (the next run
 * begins with ido = 0, which starts ARPACK afresh). */
static a_int iterate(arp *a, int n, lmo_op_fn op, void *ctx, double tol, double *tn,
                     a_int info, lmo_svd_out *out, int *stopped)
{
    a_int ido = 0;
    for (;;) {
        dsaupd_c(&ido, "I", a->p, "LA", 1, tol, a->resid, a->ncv, a->V, a->p,
                 a->iparam, a->ipntr, a->workd, a->workl, a->lworkl, &info);
        if (ido != -1 && ido != 1)
            return info;
        /* The caller frees a's arrays after this loop (arp_free); the
         * analyzer loses them in the loop through the opaque op and the
         * stop's poll. */
        /* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
        if ((*stopped = slv_stop_due() != SLV_GO))
            return info;
        /* NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
        op(ctx, 0, a->workd + a->ipntr[0] - 1, tn);
        op(ctx, 1, tn, a->workd + a->ipntr[1] - 1);
        out->matvecs += 2;
        (void)n;
    }
}

ircg_error lmo_arpack_run(int n, int p, lmo_op_fn op, void *ctx, const double *v0,
                         double tol, int64_t max_mv, double *tn, lmo_svd_out *out)
{
    arp a = {0};
    int ncv = p < LMO_ARPACK_NCV ? p : LMO_ARPACK_NCV;
    a_int info = 0;
    int stopped = 0;
    ircg_error err = IRCG_ERR_NOMEM;

    out->matvecs = 0;
    out->converged = out->zero = 0;
    memset(out->sv, 0, sizeof out->sv);
    if (p < 2 || !arp_alloc(&a, p, ncv))
        goto done;
    if (v0 && cblas_dnrm2(p, v0, 1) > 0) {
        memcpy(a.resid, v0, (size_t)p * sizeof(double));
        info = 1; /* warm start */
    }
    a.iparam[0] = 1; /* exact shifts */
    a.iparam[2] = (a_int)(max_mv / (2 * ncv) > 1 ? max_mv / (2 * ncv) : 1);
    a.iparam[6] = 1; /* standard eigenproblem */
    err = IRCG_ERR_NUMERICAL;
    pthread_mutex_lock(&lmo_arpack_mu);
    info = iterate(&a, n, op, ctx, tol, tn, info, out, &stopped);
    out->converged = a.iparam[4] >= 1;
    if (info >= 0 && !stopped)
        dseupd_c(1, "A", a.select, a.d, a.Z, p, 0.0, "I", p, "LA", 1,
                 accept_tol(a.iparam, tol), a.resid, a.ncv, a.V, p, a.iparam,
                 a.ipntr, a.workd, a.workl, a.lworkl, &info);
    pthread_mutex_unlock(&lmo_arpack_mu);
    if (stopped)
        err = IRCG_ERR_STOPPED;
    if (info < 0 || stopped)
        goto done;
    memcpy(out->v, a.Z, (size_t)p * sizeof(double));
    left_vector(NULL, n, 0, op, ctx, out);
    err = IRCG_OK;
done:
    arp_free(&a);
    return err;
}

/* The Gram product as the eigenproblem's y = C'C x (C x is scratch). */
typedef struct dist_apply {
    const lmo_dist_ops *ops;
    int64_t applied;
} dist_apply;

static void apply_gram(void *vc, const double *x, double *y)
{
    dist_apply *c = vc;
    c->ops->gram(c->ops->gram_ctx, x, c->ops->cx, y);
    c->applied++;
}

ircg_error lmo_arpack_dist_run(const ircg_comm *c, int n, int row0, int p,
                              const lmo_dist_ops *ops, const double *v0, double tol,
                              int64_t max_mv, lmo_svd_out *out)
{
    dist_apply ac = {.ops = ops};
    /* a zero start is a cold one, as in lmo_arpack_run; v0 is replicated,
     * so every rank takes the same branch */
    int warm = v0 && cblas_dnrm2(p, v0, 1) > 0;
    ircg_eig_request rq = {.p = p, .ncv = p < LMO_ARPACK_NCV ? p : LMO_ARPACK_NCV,
                           .apply = apply_gram, .op_ctx = &ac, .v0 = warm ? v0 : NULL,
                           .tol = tol, .max_apply = max_mv / 2};
    ircg_eig_answer ans = {.v = out->v};

    out->matvecs = 0;
    out->converged = out->zero = 0;
    memset(out->sv, 0, sizeof out->sv);
    pthread_mutex_lock(&lmo_arpack_mu);
    ircg_error err = c->top_eig(c->ctx, &rq, &ans);
    pthread_mutex_unlock(&lmo_arpack_mu);
    out->matvecs = 2 * ac.applied; /* a Gram product counts two (gram.h) */
    if (err != IRCG_OK)
        return err;
    out->converged = ans.converged;
    left_vector(c, n, row0, ops->op, ops->op_ctx, out);
    return IRCG_OK;
}
