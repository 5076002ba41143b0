/*
 * families.c -- the public problem constructors: a problem family builds
 * its data and its own oracle (problems/), and here the oracles of the
 * methods built on it are attached (baselines/), so that no family depends
 * on a method.
 */
#include "core/oracle.h"
#include "problems/logreg/lr.h"
#include "problems/ls/ls.h"
#include "problems/mc/mc.h"

ircg_error ircg_problem_matrix_completion(const ircg_ratings *R,
                                          ircg_outer_kind outer, double delta,
                                          ircg_problem **out, ircg_diag *diag)
{
    ircg_error err = mc_problem_new(R, outer, delta, out, diag);
    if (err == IRCG_OK) {
        (*out)->cut = &slv_mc_cut_ops;
        (*out)->prox_ops = &slv_mc_prox_ops; /* a workspace of its own */
        (*out)->proj = &slv_mc_proj_ops;
    }
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
    }
    return err;
}

/* No method oracle of the baselines is built on logistic regression: CG-BiO,
 * IR-PG and Bi-SG are refused by ircg_solver_new. */
ircg_error ircg_problem_logistic(const ircg_ls_data *data, const ircg_outer *outer,
                                 const ircg_domain *domain, ircg_problem **out,
                                 ircg_diag *diag)
{
    return lr_problem_new(data, outer, domain, out, diag);
}
