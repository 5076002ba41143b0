/*
 * mc_prox.c -- the projection methods' workspace on matrix completion.
 * (Placeholder until the nuclear-ball projection lands.)
 */
#include "mc.h"

static ircg_error prox_create(const ircg_problem *pb, const ircg_settings *s,
                              void **ws, ircg_diag *diag)
{
    (void)pb;
    (void)s;
    *ws = NULL;
    return ircg_fail(diag, IRCG_ERR_INVALID, "/algorithm",
                     "IR-PG and Bi-SG are not yet available for matrix completion");
}

static void prox_destroy(void *ws) { (void)ws; }

const ircg_oracle_ops ircg_mc_prox_ops = {
    .name = "matrix_completion_prox",
    .create = prox_create,
    .destroy = prox_destroy,
};
