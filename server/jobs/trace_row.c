/*
 * trace_row.c -- an iteration's report (ircg_iter_info) as the row the
 * store keeps (store_trace_row), and back: one mapping for the writer
 * (job_output.c), the reader (routes_trace.c) and the tests that compare
 * stored rows with a solve's.
 */
#include "jobs/jobs.h"

store_trace_row srv_trace_row(const ircg_iter_info *it)
{
    return (store_trace_row){
        .iteration = it->t, .elapsed = it->elapsed, .sigma = it->sigma,
        .alpha = it->alpha, .g_x = it->g_x, .f_x = it->f_x, .g_z = it->g_z,
        .f_z = it->f_z, .gap = it->gap, .g_gap_x = it->g_gap_x,
        .g_gap_z = it->g_gap_z, .lmo_seconds = it->lmo_seconds,
        .lmo_matvecs = it->lmo_matvecs, .top_sv = it->top_sv, .rank = it->rank,
        .lmo_converged = it->lmo_converged, .backtracks = it->backtracks,
        .proj_full = it->proj_full, .lambda = it->lambda, .certified = it->certified,
        .inner_gap_x = it->inner_gap_x, .inner_gap_z = it->inner_gap_z,
        .g_lower = it->g_lower, .f_lower = it->f_lower,
    };
}

ircg_iter_info srv_trace_info(const store_trace_row *r)
{
    return (ircg_iter_info){
        .t = r->iteration, .elapsed = r->elapsed, .sigma = r->sigma,
        .alpha = r->alpha, .g_x = r->g_x, .f_x = r->f_x, .g_z = r->g_z,
        .f_z = r->f_z, .gap = r->gap, .g_gap_x = r->g_gap_x,
        .g_gap_z = r->g_gap_z, .lmo_seconds = r->lmo_seconds,
        .lmo_matvecs = r->lmo_matvecs, .top_sv = r->top_sv, .rank = r->rank,
        .lmo_converged = r->lmo_converged, .backtracks = r->backtracks,
        .proj_full = r->proj_full, .lambda = r->lambda, .certified = r->certified,
        .inner_gap_x = r->inner_gap_x, .inner_gap_z = r->inner_gap_z,
        .g_lower = r->g_lower, .f_lower = r->f_lower,
    };
}
