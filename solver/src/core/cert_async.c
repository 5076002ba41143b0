/*
 * cert_async.c -- the certificates of a solve on a thread of their own
 * (settings.certify_async), beside the iterations.
 *
 * At a certificate's iteration t the loop copies what the certificate
 * reads (the oracle's snap_take: x and z on Omega, the factors, the warm
 * start) and goes on; this module's thread certifies the copy, which gives
 * the bits a certificate made in place would have given, and the loop
 * folds the results into the bounds in iteration order.  Rows wait: the
 * row of iteration t goes to the callback once t's certificate is folded
 * (the rows after it wait behind it), so every row reaches the callback in
 * order, carrying the bounds as they stood at its own iteration and, at a
 * certificate's iteration, that certificate: the trace is the one the
 * synchronous loop writes, but for the clock.  What changes is when: a
 * callback may come after the solve has gone further, so a callback that
 * saves the solver's state (ircg_solver_save) must not be combined with
 * this mode, and a callback's interrupt stops the solve where it has got
 * to.  A cancel stops the iterations, not the certificates already asked
 * for: each is of bounded cost (a few passes and Lanczos processes), and
 * with them every row the solve made goes out with its certificate (the
 * trace has as many rows as the result has iterations).  The bounds saved
 * after ircg_solve returns are an uninterrupted run's (every certificate
 * is folded before it returns).
 *
 * Only IR-CG without certified stopping rules (settings.stop): a stop on
 * certified tolerances must be decided at its certificate's iteration,
 * which the loop has left; for the same reason an answer exact to working
 * precision does not end such a solve early (in place it ends it as
 * converged).
 * At most SLV_CA_SLOTS copies are in flight; a certificate due when all
 * are taken waits for the oldest.  The certificates' seconds (ircg_info)
 * are what the solve's thread spent on them: the copies and the waits;
 * the thread's own time is cert_thread_seconds.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/cert_async.h"

#define SLV_CA_SLOTS IRCG_CERT_ASYNC_COPIES /* ircg/settings.h */

typedef struct ca_job {
    int64_t t;
    double sigma;
    void *snap;
    slv_cert cx, cz;
    ircg_error err;
    double seconds;   /* on the certificates' thread */
    int state;        /* CA_FREE, CA_QUEUED, CA_DONE */
} ca_job;
enum { CA_FREE, CA_QUEUED, CA_DONE };

struct slv_cert_async {
    const slv_oracle_ops *ops;
    void *ws;
    pthread_t th;
    int started, quit;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    ca_job job[SLV_CA_SLOTS];
    int head, n;              /* the jobs in iteration order: a ring      */
    int stopped;              /* a callback asked to stop: no more calls  */
    ircg_iter_info *rows;     /* the rows waiting for the callback        */
    int64_t nrows, caprows;
    double thread_seconds;
};

static void *ca_main(void *arg)
{
    slv_cert_async *a = arg;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        ca_job *j = NULL;
        for (int k = 0; k < a->n && !j; k++) {
            ca_job *c = &a->job[(a->head + k) % SLV_CA_SLOTS];
            if (c->state == CA_QUEUED)
                j = c;
        }
        if (!j && a->quit)
            break;
        if (!j) {
            pthread_cond_wait(&a->work, &a->mu);
            continue;
        }
        pthread_mutex_unlock(&a->mu);
        double t0 = slv_now();
        /* IR-CG's: x at the sigma of the next iteration, and z */
        ircg_error err = a->ops->certify(j->snap, IRCG_X, j->sigma, &j->cx);
        if (err == IRCG_OK)
            err = a->ops->certify(j->snap, IRCG_Z, 0.0, &j->cz);
        double dt = slv_now() - t0;
        pthread_mutex_lock(&a->mu);
        j->err = err;
        j->seconds = dt;
        j->state = CA_DONE;
        a->thread_seconds += dt;
        pthread_cond_broadcast(&a->done);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

int slv_ca_wanted(const ircg_solver *sv)
{
    const ircg_stop *st = &sv->set.stop;
    return sv->set.certify_async && sv->set.certify && sv->ops->certify &&
           sv->ops->snap_new && sv->algorithm == IRCG_ALG_IRCG && !sv->pb->comm &&
           !(st->inner_gap > 0 || st->inner_gap_rel > 0 || st->outer_gap > 0 ||
             st->outer_gap_rel > 0);
}

slv_cert_async *slv_ca_new(ircg_solver *sv)
{
    slv_cert_async *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->ops = sv->ops;
    a->ws = sv->ws;
    if (pthread_mutex_init(&a->mu, NULL) != 0) {
        free(a);
        return NULL;
    }
    if (pthread_cond_init(&a->work, NULL) != 0 || pthread_cond_init(&a->done, NULL) != 0 ||
        pthread_create(&a->th, NULL, ca_main, a) != 0) {
        pthread_mutex_destroy(&a->mu);
        free(a); /* the conditions hold nothing to free on Linux */
        return NULL;
    }
    a->started = 1;
    return a;
}

void slv_ca_free(slv_cert_async *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    a->quit = 1;
    pthread_cond_broadcast(&a->work);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->th, NULL);
    for (int k = 0; k < SLV_CA_SLOTS; k++)
        a->ops->snap_free(a->job[k].snap);
    pthread_cond_destroy(&a->work);
    pthread_cond_destroy(&a->done);
    pthread_mutex_destroy(&a->mu);
    free(a->rows);
    free(a);
}

double slv_ca_thread_seconds(const slv_cert_async *a)
{
    return a ? a->thread_seconds : 0.0;
}

/* The oldest job folded into the bounds once done (waiting for it when
 * `wait`); 1 when one was, 0 when none is done, -1 on its error (*err). */
static int fold_oldest(ircg_solver *sv, slv_cert_async *a, int wait, ircg_error *err)
{
    double t0 = slv_now();
    pthread_mutex_lock(&a->mu);
    ca_job *j = a->n ? &a->job[a->head] : NULL;
    while (j && wait && j->state != CA_DONE)
        pthread_cond_wait(&a->done, &a->mu);
    int ready = j && j->state == CA_DONE;
    pthread_mutex_unlock(&a->mu);
    if (wait) /* the solve waited for its certificates */
        sv->bnd.seconds += slv_now() - t0;
    if (!ready)
        return 0;
    /* the thread no longer touches a done job */
    a->ops->snap_done(a->ws, j->snap);
    j->state = CA_FREE;
    a->head = (a->head + 1) % SLV_CA_SLOTS;
    a->n--;
    if (j->err != IRCG_OK) {
        *err = j->err;
        return -1;
    }
    /* its seconds: the solve's waits (above) and copies (slv_ca_submit) */
    slv_bounds_fold(&sv->bnd, j->t, j->sigma, &j->cx, &j->cz, 1, 0.0);
    return 1;
}

/* The rows whose certificates are folded, to the callback in order.
 * Returns 1 when the callback asked to stop. */
static int emit(ircg_solver *sv, slv_cert_async *a)
{
    int64_t k = 0;
    for (; k < a->nrows; k++) {
        ircg_iter_info *it = &a->rows[k];
        /* a row of a certificate not folded yet waits, and those after it */
        int pending = 0;
        for (int q = 0; q < a->n; q++)
            pending |= a->job[(a->head + q) % SLV_CA_SLOTS].t <= it->t;
        if (pending)
            break;
        slv_bounds_report(sv, it);
        if (!a->stopped && sv->set.callback &&
            sv->set.callback(sv->set.callback_data, it))
            a->stopped = 1;
    }
    if (k > 0 && k < a->nrows) /* (rows may still be NULL: no row yet) */
        memmove(a->rows, a->rows + k, (size_t)(a->nrows - k) * sizeof *a->rows);
    a->nrows -= k;
    return a->stopped;
}

/* The certificates done, folded in order, and the rows they free: each
 * job is folded just before the rows of its iteration and after, so a
 * row's bounds are those of its own iteration.  When waiting, every job is
 * folded even after a callback's stop: the thread must be done with the
 * buffers it shares with the final certificate before that one starts. */
static int advance(ircg_solver *sv, slv_cert_async *a, int wait, ircg_error *err)
{
    int stop = 0, r;
    for (;;) {
        stop |= emit(sv, a);
        if ((stop && !wait) || a->n == 0)
            break;
        if ((r = fold_oldest(sv, a, wait, err)) < 0)
            return -1;
        if (r == 0)
            break;
    }
    return stop;
}

ircg_error slv_ca_submit(ircg_solver *sv, slv_cert_async *a)
{
    ircg_error err = IRCG_OK;
    /* a free slot: the oldest job folded when all are taken */
    while (a->n == SLV_CA_SLOTS) {
        if (fold_oldest(sv, a, 1, &err) < 0)
            return err;
        emit(sv, a);
    }
    ca_job *j = &a->job[(a->head + a->n) % SLV_CA_SLOTS];
    if (!j->snap && !(j->snap = a->ops->snap_new(a->ws))) {
        /* no memory for another copy: certified in place, once the
         * others (which share its buffers) are done */
        while (a->n > 0)
            if (fold_oldest(sv, a, 1, &err) < 0)
                return err;
        emit(sv, a);
        ircg_status st = IRCG_STATUS_UNSOLVED; /* no stop decided here */
        return slv_certify(sv, &st);
    }
    double t0 = slv_now();
    if ((err = a->ops->snap_take(a->ws, j->snap)) != IRCG_OK)
        return err;
    j->t = sv->t;
    j->sigma = ircg_sigma(sv->varsigma, sv->set.p, sv->t);
    j->err = IRCG_OK;
    pthread_mutex_lock(&a->mu);
    j->state = CA_QUEUED;
    a->n++;
    pthread_cond_signal(&a->work);
    pthread_mutex_unlock(&a->mu);
    sv->bnd.seconds += slv_now() - t0;
    return IRCG_OK;
}

int slv_ca_stopped(const slv_cert_async *a)
{
    return a->stopped;
}

int slv_ca_row(ircg_solver *sv, slv_cert_async *a, const ircg_iter_info *it,
               ircg_error *err)
{
    if (a->nrows == a->caprows) {
        int64_t cap = a->caprows ? 2 * a->caprows : 64;
        ircg_iter_info *r = realloc(a->rows, (size_t)cap * sizeof *r);
        if (!r) {
            *err = IRCG_ERR_NOMEM;
            return -1;
        }
        a->rows = r;
        a->caprows = cap;
    }
    a->rows[a->nrows++] = *it;
    return advance(sv, a, 0, err);
}

int slv_ca_drain(ircg_solver *sv, slv_cert_async *a, ircg_error *err)
{
    /* after a callback's stop, the rows left are folded without calls */
    int stop = advance(sv, a, 1, err);
    a->nrows = 0;
    return stop;
}
