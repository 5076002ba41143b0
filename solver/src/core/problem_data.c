/* problem_data.c -- ircg_problem_vector_data(): a vector problem's arrays,
 * borrowed, for writing the instance out.  The arrays are the problem's
 * own (ls_data), not the caller's input, so what is written is what every
 * method reads, bit for bit. */
#include "base/util.h"
#include "core/oracle.h"
#include "problems/ls/ls.h"

static void view(const ls_data *d, ircg_ls_data *out)
{
    *out = (ircg_ls_data){.m = d->m, .n = d->n, .A_dense = d->A, .A_rowptr = d->rowptr,
                          .A_colind = d->colind, .A_val = d->val, .b = d->b};
}

ircg_error ircg_problem_vector_data(const ircg_problem *pb, ircg_ls_data *data,
                                    ircg_outer *outer, ircg_ls_data *val, ircg_diag *diag)
{
    if (!pb || !data || !outer || !val)
        return slv_fail(diag, IRCG_ERR_INVALID, "", "a NULL argument");
    if (pb->info.kind != IRCG_PROBLEM_LEAST_SQUARES && pb->info.kind != IRCG_PROBLEM_LOGISTIC)
        return slv_fail(diag, IRCG_ERR_INVALID, "/problem",
                        "only least squares and logistic regression hold a vector instance");
    const ls_data *d = pb->data;
    view(d, data);
    *outer = (ircg_outer){.kind = d->outer, .c = d->c, .Q = d->Q, .q = d->q};
    *val = (ircg_ls_data){0};
    if (d->vset) {
        view(d->vset, val);
        outer->val = val;
    }
    return IRCG_OK;
}
