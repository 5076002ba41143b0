/*
 * families.c -- the public problem constructors: a problem family builds
 * its data and its own oracle (problems/), and here the oracles of the
 * methods built on it are attached (baselines/), so that no family depends
 * on a method.  The data's digest (ircg_problem_info.data_digest) is taken
 * here too, over the arrays each family keeps.
 */
#include "base/digest.h"
#include "core/oracle.h"
#include "problems/logreg/lr.h"
#include "problems/ls/ls.h"
#include "problems/mc/mc.h"

/* A (dense or CSR, with its kind) and b. */
static uint64_t ls_digest(const ls_data *d)
{
    slv_digest h;
    slv_digest_init(&h);
    slv_digest_update(&h, d->A ? "lsd" : "lss", 3);
    slv_digest_i64(&h, d->m);
    slv_digest_i64(&h, d->n);
    if (d->A) {
        slv_digest_f64s(&h, d->A, (size_t)d->m * (size_t)d->n);
    } else {
        slv_digest_i64s(&h, d->rowptr, (size_t)d->m + 1);
        slv_digest_i32s(&h, d->colind, (size_t)d->rowptr[d->m]);
        slv_digest_f64s(&h, d->val, (size_t)d->rowptr[d->m]);
    }
    slv_digest_f64s(&h, d->b, (size_t)d->m);
    return slv_digest_final(&h);
}

static ircg_error mc_new(const ircg_ratings *R, ircg_outer_kind outer, double delta,
                         int whole, ircg_problem **out, ircg_diag *diag)
{
    ircg_error err = mc_problem_new(R, 0, R ? R->n_rows : 0, NULL, outer, delta, whole,
                                    out, diag);
    if (err == IRCG_OK) {
        (*out)->cut = &slv_mc_cut_ops;
        (*out)->prox_ops = &slv_mc_prox_ops; /* a workspace of its own */
        (*out)->proj = &slv_mc_proj_ops;
        /* FC-BiO's dense point oracle: its create refuses the instances
         * too large for a dense SVD per step (MC_POINT_MAX_WORK), naming
         * the size, and the compacted ones (FC-BiO's vectors are of the
         * whole matrix) */
        (*out)->point_ops = &slv_mc_point_ops;
        (*out)->point = &slv_mc_point;
        (*out)->info.data_digest = mc_data_digest(mc_data_of(*out));
    }
    return err;
}

ircg_error ircg_problem_matrix_completion(const ircg_ratings *R,
                                          ircg_outer_kind outer, double delta,
                                          ircg_problem **out, ircg_diag *diag)
{
    return mc_new(R, outer, delta, 0, out, diag);
}

ircg_error ircg_problem_matrix_completion_whole(const ircg_ratings *R,
                                                ircg_outer_kind outer, double delta,
                                                ircg_problem **out, ircg_diag *diag)
{
    return mc_new(R, outer, delta, 1, out, diag);
}

/* The conditional-gradient oracle only: the methods' own oracles hold
 * whole-matrix state (ircg_solver_new refuses them, naming the setting).
 * The digest is of this rank's part. */
ircg_error ircg_problem_matrix_completion_part(const ircg_ratings *R, int row0,
                                               int n_local, const ircg_comm *comm,
                                               ircg_outer_kind outer, double delta,
                                               ircg_problem **out, ircg_diag *diag)
{
    if (!comm)
        return slv_fail(diag, IRCG_ERR_INVALID, "/comm", "a communicator is needed");
    ircg_error err = mc_problem_new(R, row0, n_local, comm, outer, delta, 1, out, diag);
    if (err == IRCG_OK)
        (*out)->info.data_digest = mc_data_digest(mc_data_of(*out));
    return err;
}

ircg_error ircg_problem_least_squares(const ircg_ls_data *data,
                                      const ircg_outer *outer,
                                      const ircg_domain *domain,
                                      ircg_problem **out, ircg_diag *diag)
{
    ircg_error err = ls_problem_new(data, outer, domain, out, diag);
    if (err == IRCG_OK) {
        (*out)->cut = &slv_ls_cut_ops;
        (*out)->prox_ops = &slv_ls_ops; /* the same workspace */
        (*out)->proj = &slv_ls_proj_ops;
        (*out)->sto_ops = &slv_ls_sto_ops; /* a workspace without residuals */
        (*out)->sto = &slv_ls_sto;
        (*out)->point_ops = &slv_ls_sto_ops; /* FC-BiO's, the same kind */
        (*out)->point = &slv_ls_point;
        (*out)->affine = &slv_ls_affine;
        (*out)->info.data_digest = ls_digest((*out)->data);
    }
    return err;
}

/* No method oracle of the baselines is built on logistic regression: CG-BiO,
 * IR-PG and Bi-SG are refused by ircg_solver_new.  The stochastic methods
 * run on it (a finite sum of losses over the rows), and FC-BiO (its
 * point oracle). */
ircg_error ircg_problem_logistic(const ircg_ls_data *data, const ircg_outer *outer,
                                 const ircg_domain *domain, ircg_problem **out,
                                 ircg_diag *diag)
{
    ircg_error err = lr_problem_new(data, outer, domain, out, diag);
    if (err == IRCG_OK) {
        (*out)->sto_ops = &slv_ls_sto_ops;
        (*out)->sto = &slv_ls_sto;
        (*out)->point_ops = &slv_ls_sto_ops;
        (*out)->point = &slv_ls_point;
    }
    return err;
}
