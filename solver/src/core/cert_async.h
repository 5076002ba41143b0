/* cert_async.h -- the certificates of a solve on a thread of their own
 * (settings.certify_async; cert_async.c says how the rows wait for them). */
#ifndef IRCG_CERT_ASYNC_H
#define IRCG_CERT_ASYNC_H

#include "core/solver_internal.h"

typedef struct slv_cert_async slv_cert_async;

/* Whether sv's solve certifies on a thread of its own: asked for, IR-CG
 * on an oracle with snapshots, one process, no certified stopping rule. */
int slv_ca_wanted(const ircg_solver *sv);
/* The thread and its queue (NULL: none could be had; certify in place). */
slv_cert_async *slv_ca_new(ircg_solver *sv);
/* Joins the thread (after its current certificate) and frees the copies. */
void slv_ca_free(slv_cert_async *a);
/* The certificate of the current x_t and z_t, queued on a copy; the
 * bounds follow when its row goes out.  May fold older ones and hand
 * their rows to the callback while it waits for a free copy. */
ircg_error slv_ca_submit(ircg_solver *sv, slv_cert_async *a);
/* The row of the iteration just made (its values and the algorithm's
 * members filled in): queued, then every row whose certificate is folded
 * goes to the callback in order.  Returns 1 when a callback asked to stop,
 * -1 on a certificate's error (*err), else 0. */
int slv_ca_row(ircg_solver *sv, slv_cert_async *a, const ircg_iter_info *it,
               ircg_error *err);
/* Waits for every certificate, folds them and hands their rows to the
 * callback (none after a callback asked to stop); returns as slv_ca_row. */
int slv_ca_drain(ircg_solver *sv, slv_cert_async *a, ircg_error *err);
/* Whether a callback asked to stop. */
int slv_ca_stopped(const slv_cert_async *a);
/* Seconds the thread spent certifying. */
double slv_ca_thread_seconds(const slv_cert_async *a);

#endif /* IRCG_CERT_ASYNC_H */
