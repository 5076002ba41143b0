/*
 * spec_execution.c -- "execution": {"ranks": N}: a job solved by N
 * processes (ircg-mpi under an MPI launcher), and what such a solve takes.
 *
 * Who may run it is the caller's to say (api_parse_options): ircg-mpi is
 * always distributed; ircgd accepts the member only when its operator gave
 * it a launcher; any other program (ircg solve) refuses it, naming the
 * member.  The checks of a distributed solve -- each naming the member that
 * asks for what the distributed solver does not do -- run whenever the
 * solve is distributed, here at validation rather than in the processes,
 * so that a service refuses such a job when it is submitted.
 */
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

static const char *const EXEC_MEMBERS[] = {"ranks", NULL};

#define DEFAULT_REFUSAL \
    "this program solves on one process: run the spec with mpirun -np N ircg-mpi"

void sp_parse_execution(sp_ctx *c, const cJSON *e, api_spec *s)
{
    if (!e || !sp_members(c, e, "/execution", EXEC_MEMBERS))
        return;
    if (!sp_get(e, "ranks")) {
        sp_err(c, "/execution/ranks", "missing required member \"ranks\"");
        return;
    }
    if (sp_int_in(c, e, "/execution", "ranks", 1, API_MAX_RANKS, &s->ranks) <= 0)
        return;
    if (!c->opt->ranks_allowed && !c->opt->distributed)
        sp_err(c, "/execution/ranks", "%s",
               c->opt->ranks_refusal ? c->opt->ranks_refusal : DEFAULT_REFUSAL);
}

static int is_distributed(const sp_ctx *c, const api_spec *s)
{
    return s->ranks > 0 || c->opt->distributed;
}

/* The problem: matrix completion whose ratings each rank reads (its byte
 * range of a file) or generates (its rows). */
static void check_problem(sp_ctx *c, const api_spec *s)
{
    if (s->kind != IRCG_PROBLEM_MATRIX_COMPLETION) {
        sp_err(c, "/problem/type", "a distributed solve is for matrix_completion only");
        return;
    }
    /* the service writes inline data and datasets to a file the ranks
     * read (server/mpi/mpi_inputs.c); ircg-mpi alone reads files only */
    if (c->opt->distributed &&
        (s->mc.source == SP_SRC_INLINE || s->mc.source == SP_SRC_DATASET))
        sp_err(c, "/problem/data/source", "ircg-mpi reads a file or generates a synthetic "
               "instance (each rank its own rows), not %s data: write it to a file "
               "(through ircgd, an MPI job may use %s data)",
               s->mc.source == SP_SRC_INLINE ? "inline" : "dataset",
               s->mc.source == SP_SRC_INLINE ? "inline" : "dataset");
}

/* The algorithm.  A computed reference runs on the ranks' parts as the
 * solve does (ircg-mpi); every start does too: an x0 is factored once, by
 * rank 0, and another job's snapshot (the service's) is restored as the
 * inverse of the whole save, each rank keeping its rows. */
static void check_solve(sp_ctx *c, const api_spec *s, int alg_ok)
{
    if (alg_ok && s->settings.algorithm != IRCG_ALG_IRCG)
        sp_err(c, "/algorithm/name", "a distributed solve runs ircg only");
}

void sp_check_execution(sp_ctx *c, const api_spec *s, int problem_ok, int alg_ok)
{
    if (!is_distributed(c, s))
        return;
    if (problem_ok && s->typed)
        check_problem(c, s);
    check_solve(c, s, alg_ok);
}

void sp_norm_execution(const api_spec *s, cJSON *root)
{
    cJSON *e = s->ranks > 0 ? cJSON_AddObjectToObject(root, "execution") : NULL;
    if (e)
        cJSON_AddNumberToObject(e, "ranks", s->ranks);
}

int api_spec_ranks(const api_spec *s) { return s ? s->ranks : 0; }
