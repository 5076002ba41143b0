/*
 * npz.h -- iterates as NumPy .npz archives (npz.c, iterate_npz.c,
 * result_npz.c): what a job's 'x' and 'z' snapshots hold and its result's
 * ?x=npz serves (api/SPEC.md, "Snapshots"), written by
 * ircgd for a solve on its worker and by ircg-mpi's rank 0 for a
 * distributed one, so that both are the same bytes for the same iterate;
 * and a built vector instance (instance_npz.c) for another solver.
 */
#ifndef IRCG_API_NPZ_H
#define IRCG_API_NPZ_H

#include <stddef.h>
#include <stdint.h>

#include "ircg.h"

/* An iterate as a .npz (see iterate_npz.c): malloc'ed into *out.  0, or
 * -1 when out of memory. */
int api_iterate_npz(const ircg_iterate *it, void **out, size_t *len);

/* The iterate `which` ("x" or "z") of a result's JSON (api_result_json)
 * as the .npz api_iterate_npz makes of it, its doubles the same bits;
 * kind is the job's problem.  0; -1 with why (no such iterate, a
 * malformed one, out of memory). */
int api_result_iterate_npz(const char *result_json, const char *which, ircg_problem_kind kind,
                           void **out, size_t *len, char *why, size_t cap);

/* n arrays of 8-byte values (float64, or int64 when `integer`) of 0, 1 or
 * 2 dimensions (2: column-major, written in Fortran order) as an .npz
 * archive, each member deflated: malloc'ed into *out.  0, or -1 when out
 * of memory or a member exceeds 4 GiB. */
typedef struct api_npz_array {
    const char *name;        /* the member is name + ".npy"             */
    int integer;
    int ndim;
    int64_t shape[2];
    size_t count;            /* values: the product of the shape        */
    const void *data;        /* borrowed                                */
} api_npz_array;
int api_npz_write(const api_npz_array *arrays, size_t n, void **out, size_t *len);

/* A least-squares or logistic-regression instance as the solver holds it
 * (instance_npz.c lists the members): malloc'ed into *out.  0, or -1 with
 * why (cap bytes) when pb is no such instance or out of memory. */
int api_instance_npz(const ircg_problem *pb, void **out, size_t *len, char *why, size_t cap);

#endif /* IRCG_API_NPZ_H */
